//! Errors reported for malformed test blocks, each tied to a 1-based source line.

use thiserror::Error;

/// A malformed test block (or a file whose blocks contradict each other).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("line {line}: {kind}")]
pub struct SpecError {
    /// 1-based line in the program source where the problem was found.
    pub line: u32,
    /// What is wrong.
    pub kind: ErrorKind,
}

impl SpecError {
    pub(crate) fn new(line: u32, kind: ErrorKind) -> Self {
        SpecError { line, kind }
    }
}

/// The different ways a test block can be malformed.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ErrorKind {
    /// Text that fits nowhere in the grammar at this point.
    #[error("unexpected {found}, expected {expected}")]
    Unexpected {
        /// The offending text (first token of it), or "end of test block".
        found: String,
        /// What would have been accepted.
        expected: &'static str,
    },
    /// A `{` without its matching `}` before the end of the test block.
    #[error("unterminated `{{` in {what}")]
    UnclosedBrace {
        /// The construct whose braces are open (e.g. "input values").
        what: &'static str,
    },
    /// A `"` without its closing quote on the same line.
    #[error("unterminated string literal")]
    UnclosedString,
    /// `@` not followed by a file name.
    #[error("missing file name after `@`")]
    MissingPath,
    /// `random input @ file` is not allowed.
    #[error("random input must be given in braces, not as a file")]
    RandomFromFile,
    /// A token in `random input { ... }` that is neither a type nor a constant.
    #[error("invalid random input type or constant `{0}`")]
    BadRandomValue(String),
    /// A tag name with characters other than alphanumerics, `_` and `-`.
    #[error("invalid tag `{0}`")]
    BadTag(String),
    /// `entry:` or `property:` with no names after it.
    #[error("`{0}` must name at least one entry point")]
    NoNames(&'static str),
    /// `structure` followed by an unknown pipeline name.
    #[error("unknown structure pipeline `{0}`")]
    UnknownPipeline(String),
    /// Malformed `Name N` pairs inside `structure { ... }`.
    #[error("invalid structure metrics: {0}")]
    BadMetrics(String),
    /// Two cases of one block (same entry points) share a dataset name.
    #[error("multiple datasets with name {0:?}")]
    DuplicateDataset(String),
    /// One comment contains two `-- ==` lines.
    #[error("a comment may contain only one `-- ==` line (previous one at line {0})")]
    SecondSeparator(u32),
    /// A compile-error block shares the file with other test blocks.
    #[error("a test block expecting a compile error must be the only test block in the file")]
    CompileErrorNotAlone,
}
