//! End-to-end checks of the REPL-facing API: expressions and declarations evaluated in cells.

mod common;
use common::*;

#[test]
fn expressions_in_cells() {
    assert_eq!(ev("1 + 2"), "3i32");
    assert_eq!(ev("map (+1) [1,2,3]"), "[2i32, 3i32, 4i32]");
    assert_eq!(ev("f32.sqrt 4"), "2f32");
    assert_eq!(ev("(1, true, {x = 2.5})"), "(1i32, true, {x = 2.5f64})");
}

#[test]
fn declarations_persist_between_cells() {
    let interp = futhark_interp::Interpreter::new(program("def base = 10i64")).unwrap();
    assert_eq!(
        interp.eval_cell("def sq (x: i64) = x * x + base").unwrap(),
        None
    );
    assert_eq!(interp.eval_cell("sq 7").unwrap().as_deref(), Some("59i64"));
    let err = interp.eval_cell("[1, 2, 3][5]").unwrap_err();
    assert_eq!(
        err.message,
        "Index [5] out of bounds for array of shape [3]."
    );
}
