//! Compilation is a tracked query keyed by (program, stage, compile options): compiling a
//! program that did not change with the same options again does no work, proven with the
//! database's log of executed queries and by getting the very same program back.

use std::sync::Arc;

use futhark_db::{CompileOptions, Database, IrStage, Safety, compile, compile_shared};

/// The `compiled` executions of a log.
fn compilations(log: &[String]) -> Vec<String> {
    log.iter()
        .filter(|entry| entry.starts_with("compiled("))
        .cloned()
        .collect()
}

const PROGRAM: &str = "entry main (xs: []i32) (is: []i64) = map (\\i -> xs[i] + 1) is\n\
                       entry sum (xs: []i32) = i32.sum xs\n";

fn unchecked() -> CompileOptions {
    CompileOptions {
        safety: Safety::Unchecked,
        ..CompileOptions::default()
    }
}

#[test]
fn compiling_the_same_program_again_is_a_lookup() {
    let mut db = Database::new();
    let main = db.set_file("/virtual/twice.fut", PROGRAM);
    db.log().enable();
    let first = compile_shared(&db, main, IrStage::Kernels).expect("compiles");
    let runs = db.log().take();
    // Lowered once (the SOAC stage), then the kernel pipeline.
    assert_eq!(compilations(&runs).len(), 2, "{runs:?}");
    let second = compile_shared(&db, main, IrStage::Kernels).expect("compiles");
    assert!(
        Arc::ptr_eq(&first, &second),
        "the same program, not a new one"
    );
    assert!(db.log().take().is_empty(), "nothing runs the second time");
    // `compile` hands out a copy of it.
    assert_eq!(
        compile(&db, main, IrStage::Kernels)
            .expect("compiles")
            .to_string(),
        first.to_string()
    );
    assert!(db.log().take().is_empty());
    // Setting the text it already has is no edit.
    db.set_file("/virtual/twice.fut", PROGRAM);
    let third = compile_shared(&db, main, IrStage::Kernels).expect("compiles");
    assert!(Arc::ptr_eq(&first, &third));
    assert!(db.log().take().is_empty());
}

#[test]
fn the_stages_share_one_lowering_and_options_are_part_of_the_key() {
    let mut db = Database::new();
    let main = db.set_file("/virtual/stages.fut", PROGRAM);
    db.log().enable();
    let soacs = compile_shared(&db, main, IrStage::Soacs).expect("lowers");
    let _ = compile_shared(&db, main, IrStage::Fused).expect("fuses");
    let checked = compile_shared(&db, main, IrStage::Kernels).expect("compiles");
    // One lowering for the three stages.
    assert_eq!(compilations(&db.log().take()).len(), 3);

    // Other options: the kernel pipeline runs again, lowering does not.
    db.set_compile_options(unchecked());
    let without_checks = compile_shared(&db, main, IrStage::Kernels).expect("compiles");
    assert_eq!(compilations(&db.log().take()).len(), 1);
    assert_ne!(checked.to_string(), without_checks.to_string());
    let soacs_again = compile_shared(&db, main, IrStage::Soacs).expect("lowers");
    assert!(
        Arc::ptr_eq(&soacs, &soacs_again),
        "the SOAC stage ignores the options"
    );

    // Back to the first options: that compilation is still there.
    db.set_compile_options(CompileOptions::default());
    let checked_again = compile_shared(&db, main, IrStage::Kernels).expect("compiles");
    assert!(Arc::ptr_eq(&checked, &checked_again));
    assert!(compilations(&db.log().take()).is_empty());
}

#[test]
fn an_edit_compiles_again_and_errors_are_kept_too() {
    let mut db = Database::new();
    let main = db.set_file("/virtual/edit.fut", PROGRAM);
    let before = compile_shared(&db, main, IrStage::Kernels).expect("compiles");
    db.set_file("/virtual/edit.fut", PROGRAM.replace("+ 1", "+ 2"));
    db.log().enable();
    let after = compile_shared(&db, main, IrStage::Kernels).expect("compiles");
    assert!(!Arc::ptr_eq(&before, &after));
    assert_eq!(compilations(&db.log().take()).len(), 2);

    db.set_file("/virtual/edit.fut", "entry main = 1 + true\n");
    assert!(compile_shared(&db, main, IrStage::Kernels).is_err());
    let _ = db.log().take();
    assert!(compile_shared(&db, main, IrStage::Kernels).is_err());
    assert!(
        compilations(&db.log().take()).is_empty(),
        "a failure is kept as well"
    );
}
