//! Helpers shared by the end-to-end tests that compile Futhark source to kernels.

use std::path::PathBuf;

use futhark_db::{Database, Db, IrStage};
use futhark_ir::soacs::Program;
use futhark_values::{Value, read_values};

/// Compiles `src` (written to a temporary `name.fut`) to the kernel stage, or panics with the
/// diagnostics.
pub fn compile(name: &str, src: &str) -> Program {
    let dir = std::env::temp_dir().join(format!("futhark-exec-tests-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path: PathBuf = dir.join(format!("{name}.fut"));
    std::fs::write(&path, src).unwrap();
    let db = Database::new();
    let file = db.load_file(&path).expect("loads");
    let prog = futhark_db::compile(&db, file, IrStage::Kernels)
        .unwrap_or_else(|e| panic!("{name} does not compile: {:?}", e.diagnostics(&db, file)));
    let _ = std::fs::remove_file(&path);
    prog
}

/// Values in Futhark's text format.
pub fn values(text: &str) -> Vec<Value> {
    read_values(text.as_bytes()).unwrap()
}
