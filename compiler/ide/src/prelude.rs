//! The prelude as browsable source: its files are registered in the database under the
//! virtual directory `/prelude`, so prelude names resolve to real definitions with doc
//! comments, and navigation opens the prelude's text.
//!
//! The texts are the checker's own prelude files (`compiler/check/prelude/*.fut`), so
//! the IDE shows exactly what the compiler uses.

use std::path::Path;

use futhark_db::Database;

/// The virtual directory holding the prelude.
pub const PRELUDE_DIR: &str = "/prelude";

/// The file every program implicitly opens.
pub(crate) const PRELUDE_ROOT: &str = "/prelude/prelude.fut";

/// Every prelude file: its virtual path and its text.
pub const PRELUDE_FILES: [(&str, &str); 7] = [
    (
        "/prelude/prelude.fut",
        include_str!("../../check/prelude/prelude.fut"),
    ),
    (
        "/prelude/soacs.fut",
        include_str!("../../check/prelude/soacs.fut"),
    ),
    (
        "/prelude/array.fut",
        include_str!("../../check/prelude/array.fut"),
    ),
    (
        "/prelude/zip.fut",
        include_str!("../../check/prelude/zip.fut"),
    ),
    (
        "/prelude/math.fut",
        include_str!("../../check/prelude/math.fut"),
    ),
    (
        "/prelude/functional.fut",
        include_str!("../../check/prelude/functional.fut"),
    ),
    (
        "/prelude/ad.fut",
        include_str!("../../check/prelude/ad.fut"),
    ),
];

/// Registers the prelude files in the database (once, at start-up), unless the database
/// already holds them.
pub fn register_prelude(db: &mut Database) {
    use futhark_db::Db;
    for (path, text) in PRELUDE_FILES {
        let present = db
            .load_file(Path::new(path))
            .is_some_and(|f| f.text(db) == text);
        if !present {
            db.set_file(path, text);
        }
    }
}

/// True for the prelude's virtual paths.
pub fn is_prelude_path(path: &Path) -> bool {
    path.starts_with(PRELUDE_DIR)
}
