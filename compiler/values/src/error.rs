//! Errors of reading values: every one names where in the input it happened (byte offset, and
//! line and column for text) and what was expected there.

use std::fmt;
use std::path::PathBuf;

use crate::value::ValueType;
use futhark_prim::PrimType;

/// A position in text input: byte offset plus 1-based line and column (columns count bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Location {
    /// Byte offset from the start of the input.
    pub offset: usize,
    /// Line number, starting at 1.
    pub line: usize,
    /// Column in bytes, starting at 1.
    pub column: usize,
}

impl Location {
    /// The location of byte `offset` in `input` (offsets past the end are clamped to it).
    /// This scans the input up to `offset`, so it is only computed when an error is reported.
    pub fn of(input: &[u8], offset: usize) -> Location {
        let offset = offset.min(input.len());
        let before = &input[..offset];
        let line = 1 + before.iter().filter(|b| **b == b'\n').count();
        let line_start = before
            .iter()
            .rposition(|b| *b == b'\n')
            .map_or(0, |i| i + 1);
        Location {
            offset,
            line,
            column: offset - line_start + 1,
        }
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {}, column {} (byte {})",
            self.line, self.column, self.offset
        )
    }
}

/// What went wrong in text-format input.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TextError {
    /// Something other than what the grammar allows here.
    #[error("expected {expected}, found {found}")]
    Expected {
        /// What would have been accepted, in words.
        expected: String,
        /// What was there: a quoted character or token, or `end of input`.
        found: String,
    },
    /// A numeric literal that is malformed.
    #[error("bad literal `{literal}`: {reason}")]
    BadLiteral {
        /// The literal's text.
        literal: String,
        /// Why it is not accepted.
        reason: String,
    },
    /// An integer literal that fits no 64-bit integer type.
    #[error(
        "literal `{literal}` is out of range for {ty} (integer literals must lie in \
         [-2^63, 2^64); they are then taken modulo 2^n for an n-bit type)"
    )]
    OutOfRange {
        /// The literal's text.
        literal: String,
        /// The literal's type (from its suffix, its siblings, or the default `i32`).
        ty: PrimType,
    },
    /// An array element whose type differs from the earlier elements'.
    #[error("array elements have different types: expected {expected}, found {found}")]
    MixedTypes {
        /// The element type of the earlier elements.
        expected: PrimType,
        /// The type of this element.
        found: PrimType,
    },
    /// An array whose rows differ in length or nesting depth.
    #[error("irregular array: {reason}")]
    Irregular {
        /// How the rows differ.
        reason: String,
    },
    /// Arrays nested more deeply than the data format allows (127 dimensions).
    #[error("array nested too deeply (at most 127 dimensions)")]
    TooDeep,
    /// `[]`, whose element type cannot be known.
    #[error(
        "`[]` has no element type; write an empty array as `empty([0]i32)` (any type with a zero dimension)"
    )]
    EmptyBrackets,
    /// `empty(t)` where `t` has no zero dimension.
    #[error("`empty({ty})` needs a type with at least one dimension of size 0")]
    NotEmpty {
        /// The type given.
        ty: ValueType,
    },
    /// A name that is not a primitive type.
    #[error(
        "unknown primitive type `{name}` (expected one of i8 i16 i32 i64 u8 u16 u32 u64 f16 f32 f64 bool)"
    )]
    UnknownType {
        /// The name given.
        name: String,
    },
    /// A bad escape sequence in a string literal.
    #[error("bad escape sequence `{escape}` in string literal")]
    BadEscape {
        /// The escape's text.
        escape: String,
    },
    /// A string literal with no closing quote.
    #[error("string literal is not terminated (no closing `\"`)")]
    UnterminatedString,
}

/// What went wrong in binary-format input.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BinaryError {
    /// The input ended inside a value.
    #[error("binary value truncated: {what} needs {needed} bytes but only {available} remain")]
    Truncated {
        /// The part being read (`version`, `header`, `dimensions`, `elements`).
        what: &'static str,
        /// Bytes needed.
        needed: usize,
        /// Bytes left in the input.
        available: usize,
    },
    /// A version byte other than 2.
    #[error("unsupported binary format version {0} (expected 2)")]
    BadVersion(u8),
    /// A rank byte that is negative as a signed byte.
    #[error("bad rank byte {0} (the rank must be between 0 and 127)")]
    BadRank(u8),
    /// A type tag that names no primitive type.
    #[error(
        "unknown type tag {tag:?} (expected one of \"  i8\" \" i16\" \" i32\" \" i64\" \"  u8\" \" u16\" \" u32\" \" u64\" \" f16\" \" f32\" \" f64\" \"bool\")"
    )]
    UnknownTag {
        /// The tag's bytes, lossily decoded.
        tag: String,
    },
    /// A negative dimension.
    #[error("dimension {index} is negative ({dim})")]
    NegativeDim {
        /// Which dimension, from 0.
        index: usize,
        /// Its value.
        dim: i64,
    },
    /// A shape whose element count or byte size overflows.
    #[error("shape {shape:?} of {elem} is too large")]
    TooLarge {
        /// The shape read.
        shape: Vec<i64>,
        /// The element type read.
        elem: PrimType,
    },
}

/// An error of reading values from text, binary data or a file.
#[derive(Debug, thiserror::Error)]
pub enum DataError {
    /// Bad text-format input.
    #[error("{at}: {kind}")]
    Text {
        /// Where.
        at: Location,
        /// What.
        kind: TextError,
    },
    /// Bad binary-format input.
    #[error("byte {offset}: {kind}")]
    Binary {
        /// Byte offset from the start of the input.
        offset: usize,
        /// What.
        kind: BinaryError,
    },
    /// The input could not be read.
    #[error("{}: {source}", path.as_ref().map_or_else(|| "<input>".to_string(), |p| p.display().to_string()))]
    Io {
        /// The file, if reading a file.
        path: Option<PathBuf>,
        /// The I/O error.
        source: std::io::Error,
    },
    /// An error in the contents of a file.
    #[error("{}: {source}", path.display())]
    InFile {
        /// The file.
        path: PathBuf,
        /// The error inside it.
        source: Box<DataError>,
    },
}

impl DataError {
    /// The byte offset in the input the error refers to, if any.
    pub fn offset(&self) -> Option<usize> {
        match self {
            DataError::Text { at, .. } => Some(at.offset),
            DataError::Binary { offset, .. } => Some(*offset),
            DataError::Io { .. } => None,
            DataError::InFile { source, .. } => source.offset(),
        }
    }

    /// The error without any file wrapper.
    pub fn innermost(&self) -> &DataError {
        match self {
            DataError::InFile { source, .. } => source.innermost(),
            other => other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn location_counts_lines_and_columns() {
        let s = b"ab\ncd\n\nxyz";
        assert_eq!(
            Location::of(s, 0),
            Location {
                offset: 0,
                line: 1,
                column: 1
            }
        );
        assert_eq!(Location::of(s, 4).line, 2);
        assert_eq!(Location::of(s, 4).column, 2);
        assert_eq!(Location::of(s, 8).line, 4);
        assert_eq!(Location::of(s, 8).column, 2);
        assert_eq!(Location::of(s, 100).offset, s.len());
    }
}
