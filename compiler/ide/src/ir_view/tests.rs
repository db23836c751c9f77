//! Tests of the IR and CUDA views on a small program: per definition, whole program,
//! and the reasons given when nothing can be shown.

use futhark_db::{Database, IrStage};

use super::*;

const PROGRAM: &str = "\
def scale (k: f32) (x: f32) : f32 = k * x

def unused (x: i32) : i32 = x + 1

def limit : i32 = 10

def apply (f: i32 -> i32) (x: i32) : i32 = f x

entry main (xs: []f32) : []f32 =
  map (scale 2) xs

entry total (xs: []i32) : i32 =
  reduce (+) 0 (map (apply (\\x -> x * limit)) xs)
";

fn setup(text: &str) -> (Database, File) {
    let mut db = Database::new();
    let file = db.set_file("/virtual/views/prog.fut", text);
    (db, file)
}

fn offset(text: &str, needle: &str) -> Option<u32> {
    Some(text.find(needle).expect("needle") as u32)
}

#[test]
fn ir_of_an_entry_point_at_every_stage() {
    let (db, file) = setup(PROGRAM);
    for stage in IrStage::ALL {
        let view = show_ir(&db, file, offset(PROGRAM, "map (scale"), stage);
        assert!(view.available, "{stage:?}: {}", view.text);
        assert_eq!(view.def.as_deref(), Some("main"));
        assert!(
            view.text
                .starts_with(&format!("-- {} IR of `main`", stage.name()))
        );
        assert!(view.text.contains("entry_main_"), "{}", view.text);
        assert!(!view.text.contains("entry_total_"), "{}", view.text);
    }
    let kernels = show_ir(&db, file, offset(PROGRAM, "map (scale"), IrStage::Kernels);
    assert!(
        kernels.text.contains("-- kernel program"),
        "{}",
        kernels.text
    );
}

#[test]
fn whole_program_outside_definitions() {
    let (db, file) = setup(PROGRAM);
    let view = show_ir(&db, file, None, IrStage::Soacs);
    assert!(view.available && view.def.is_none());
    assert!(view.text.contains("entry_main_") && view.text.contains("entry_total_"));
    let text = format!("{PROGRAM}\n\n");
    let (db, file) = setup(&text);
    let view = show_ir(&db, file, Some(text.len() as u32 - 1), IrStage::Fused);
    assert!(
        view.text.contains("(the cursor is not in a definition)"),
        "{}",
        view.text
    );
}

#[test]
fn explains_definitions_without_ir() {
    let (db, file) = setup(PROGRAM);
    let unused = show_ir(&db, file, offset(PROGRAM, "x + 1"), IrStage::Soacs);
    assert!(!unused.available);
    assert!(
        unused.text.contains("not reachable from an entry point"),
        "{}",
        unused.text
    );
    let limit = show_ir(&db, file, offset(PROGRAM, "10"), IrStage::Soacs);
    assert!(limit.text.contains("is a constant"), "{}", limit.text);
    let apply = show_ir(&db, file, offset(PROGRAM, "f x"), IrStage::Soacs);
    assert!(
        apply.text.contains("inlined it into its callers"),
        "{}",
        apply.text
    );
}

#[test]
fn cuda_of_an_entry_point() {
    let (db, file) = setup(PROGRAM);
    let view = show_cuda(&db, file, offset(PROGRAM, "reduce"));
    assert!(view.available, "{}", view.text);
    assert_eq!(view.language, CUDA_LANGUAGE);
    assert!(view.text.starts_with("// CUDA kernels run by `total`"));
    assert!(
        view.text.contains("launched by entry_total_"),
        "{}",
        view.text
    );
    assert!(view.text.contains("__global__"), "{}", view.text);
    let whole = show_cuda(&db, file, None);
    assert!(whole.text.contains("entry_main_") && whole.text.contains("entry_total_"));
}

#[test]
fn errors_are_explained_with_locations() {
    let text = "entry main (x: i32) : i32 = x + true\n";
    let (db, file) = setup(text);
    let view = show_ir(&db, file, Some(0), IrStage::Soacs);
    assert!(!view.available);
    assert!(
        view.text.starts_with("the program has errors"),
        "{}",
        view.text
    );
    assert!(view.text.contains("prog.fut:1:"), "{}", view.text);
    let cuda = show_cuda(&db, file, None);
    assert!(!cuda.available);

    let (db, file) = setup("def f (x: i32) = x\n");
    let view = show_ir(&db, file, Some(0), IrStage::Soacs);
    assert!(view.text.contains("has no entry points"), "{}", view.text);
}
