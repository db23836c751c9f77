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
    /// False once the file was removed ([`Database::remove_file`](crate::Database::remove_file));
    /// import resolution reads it, so importers notice the removal.
    #[returns(copy)]
    pub exists: bool,
}

/// The database interface the queries of this crate need.
#[salsa::db]
pub trait Db: salsa::Database {
    /// The file at `path` (already normalised), reading it from disk the first time it is
    /// asked for. `None` if it does not exist and no buffer was registered for it.
    fn load_file(&self, path: &Path) -> Option<File>;

    /// The file registered under `id`, if any (a removed file keeps its id, so old
    /// diagnostics still render).
    fn file_by_id(&self, id: FileId) -> Option<File>;

    /// Every file the database knows and that was not removed (workspace files, buffers
    /// and the prelude), in the order they were added.
    fn files(&self) -> Vec<File>;

    /// The compile options, an input that compilation reads.
    fn settings(&self) -> crate::Settings;

    /// Where the `check` query keeps what a re-check of a file can reuse (`None`: every
    /// check starts afresh).
    fn check_caches(&self) -> Option<&crate::CheckCaches> {
        None
    }
}
