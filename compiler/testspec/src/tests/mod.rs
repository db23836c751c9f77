//! Unit tests: one minimal fixture per syntax form, plus malformed blocks and helpers.

mod blocks;
mod cases;
mod checks;
mod errors;
mod select;

use crate::{BlockBody, RunBlock, RunCase, SpecError, TestSpec};

/// Parses `src`, failing the test on an error.
fn spec(src: &str) -> TestSpec {
    match TestSpec::parse(src) {
        Ok(s) => s,
        Err(e) => panic!("unexpected error: {e}\n{src}"),
    }
}

/// The run body of the only block of `src`.
fn only_run(src: &str) -> RunBlock {
    let s = spec(src);
    assert_eq!(s.blocks.len(), 1, "{s:?}");
    match s.blocks.into_iter().next().map(|b| b.body) {
        Some(BlockBody::Run(r)) => r,
        other => panic!("not a run block: {other:?}"),
    }
}

/// The only case of the only block of `src`.
fn only_case(src: &str) -> RunCase {
    let r = only_run(src);
    assert_eq!(r.cases.len(), 1, "{r:?}");
    r.cases.into_iter().next().expect("one case")
}

/// The error `src` is rejected with.
fn error(src: &str) -> SpecError {
    match TestSpec::parse(src) {
        Ok(s) => panic!("expected an error, got {s:?}"),
        Err(e) => e,
    }
}
