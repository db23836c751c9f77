//! Lexer, error-tolerant parser and AST with spans for the Futhark language.
//!
//! **Invariant:** parsing never fails and never panics. [`parse`] always returns a
//! [`SourceFile`] plus the list of syntax errors it recovered from.

pub mod ast;
pub mod diagnostic;
pub mod span;

pub use diagnostic::{Diagnostic, Label, Severity};
pub use span::{FileId, LineIndex, Span};
