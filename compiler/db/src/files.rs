//! File inputs: the text of every source the database knows, with its path and [`FileId`].

use std::path::{Path, PathBuf};

use futhark_syntax::FileId;

/// One source text: a file on disk, an editor buffer, a REPL cell or a prelude file.
/// Setting `text` starts a new revision; only queries that read this file re-run.
#[salsa::input(debug)]
pub struct File {
    #[returns(ref)]
    pub path: PathBuf,
    #[returns(ref)]
    pub text: String,
    #[returns(copy)]
    pub id: FileId,
}

/// The database interface the queries of this crate need.
#[salsa::db]
pub trait Db: salsa::Database {
    /// The file at `path` (already normalised), reading it from disk the first time it is
    /// asked for. `None` if it does not exist and no buffer was registered for it.
    fn load_file(&self, path: &Path) -> Option<File>;

    /// The file registered under `id`, if any.
    fn file_by_id(&self, id: FileId) -> Option<File>;
}
