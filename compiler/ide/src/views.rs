//! The IR and CUDA views an editor can open beside a file. They answer with a clear
//! "not available yet" until the lowering and CUDA stages exist in the database.

use futhark_db::{Db, File};

/// The text of a view and whether it is real output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct View {
    pub available: bool,
    /// A language id for the editor (`futhark-ir`, `cuda`).
    pub language: &'static str,
    pub text: String,
}

/// The first-order SOAC IR of `file`.
pub fn show_ir(db: &dyn Db, file: File) -> View {
    let _ = (db, file);
    View {
        available: false,
        language: "futhark-ir",
        text: "not available yet: the IR backend is not built".to_string(),
    }
}

/// The CUDA kernels generated for `file`.
pub fn show_cuda(db: &dyn Db, file: File) -> View {
    let _ = (db, file);
    View {
        available: false,
        language: "cuda",
        text: "not available yet: the CUDA backend is not built".to_string(),
    }
}
