//! First end-to-end checks of the interpreter on small expressions.

mod common;
use common::*;

#[test]
fn arithmetic() {
    assert_eq!(ev("1 + 2"), "3i32");
    assert_eq!(ev("map (+1) [1,2,3]"), "[2i32, 3i32, 4i32]");
}
