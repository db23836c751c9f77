//! Test blocks of Futhark test programs: parsed into data the conformance runner executes.
//!
//! A test block is a comment at column 0 (consecutive lines starting with `--`) containing a
//! line that is exactly `-- ==`. The comment lines before it are the description; after it
//! come optional `tags { ... }` and then one of: `error: REGEX` (compile error expected),
//! `property: NAMES`, or run cases (`[entry: NAMES]`, cases, then `structure` and `warning:`
//! lines). See [`spec`] for the resulting data.
//!
//! # Errors
//!
//! [`TestSpec::parse`] rejects the whole file if any block is malformed: a runner should report
//! the program as broken rather than silently run a subset of its tests (the reference
//! `futhark test` also fails such a program). [`TestSpec::parse_lenient`] keeps the well-formed
//! blocks and returns the errors of the others, for tools such as editors.
//!
//! Deliberate differences from the reference parser (all more permissive or more explicit):
//! every block may carry tags, structure and warning checks (the reference only reads them in
//! the first block and silently ignores later blocks that have them); structure and warning
//! lines may be interleaved; unparseable later blocks are errors here, not silently dropped;
//! `output` and `auto` are not accepted as case tags (so a case missing `input` is reported
//! where it goes wrong). As in the reference, only the exact line `-- ==` separates: `--==`
//! and `-- -- ==` do not start a block.

mod block;
mod case;
mod cursor;
mod error;
mod names;
mod scan;
mod select;
pub mod spec;
mod tokens;

#[cfg(test)]
mod tests;

pub use error::{ErrorKind, SpecError};
pub use names::dataset_name;
pub use select::RunMode;
pub use spec::{
    BlockBody, CaseInput, Expectation, GenValue, Pipeline, RunBlock, RunCase, StructureTest,
    TestBlock, TestSpec, WarningTest,
};

impl TestSpec {
    /// Parses the test blocks of a program's source text. Fails on the first malformed block
    /// (in source order), or if a compile-error block is not the file's only block.
    pub fn parse(src: &str) -> Result<TestSpec, SpecError> {
        let (spec, errors) = TestSpec::parse_lenient(src);
        match errors.into_iter().next() {
            Some(e) => Err(e),
            None => Ok(spec),
        }
    }

    /// Parses every test block, keeping the well-formed ones and returning the errors of the
    /// others in source order. A compile-error block that is not alone is kept, but reported.
    pub fn parse_lenient(src: &str) -> (TestSpec, Vec<SpecError>) {
        let mut blocks = Vec::new();
        let mut errors = Vec::new();
        for raw in scan::raw_blocks(src) {
            match raw.and_then(|r| block::test_block(&r)) {
                Ok(b) => blocks.push(b),
                Err(e) => errors.push(e),
            }
        }
        let total = blocks.len() + errors.len();
        if total > 1 {
            let lone_error = blocks
                .iter()
                .find(|b| matches!(b.body, BlockBody::CompileError { .. }));
            if let Some(b) = lone_error {
                errors.push(SpecError::new(b.line, ErrorKind::CompileErrorNotAlone));
                errors.sort_by_key(|e| e.line);
            }
        }
        (TestSpec { blocks }, errors)
    }
}

/// Parses the test blocks of a program; same as [`TestSpec::parse`].
pub fn parse_test_spec(src: &str) -> Result<TestSpec, SpecError> {
    TestSpec::parse(src)
}
