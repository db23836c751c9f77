//! Lowering errors: located, and turned into diagnostics at the API boundary.
//!
//! Two kinds: a construct the GPU path does not handle yet (reported to the user as
//! "not supported by the GPU path yet: …"), and an internal inconsistency (a program the
//! checker accepted but lowering cannot make sense of, which is a bug here or there).

use futhark_syntax::{Diagnostic, Span};

/// Why a program could not be lowered.
#[derive(Clone, Debug, PartialEq)]
pub struct LowerError {
    pub span: Option<Span>,
    pub message: String,
    pub unsupported: bool,
}

pub type LResult<T> = Result<T, LowerError>;

impl LowerError {
    pub fn unsupported(span: Option<Span>, what: impl Into<String>) -> LowerError {
        LowerError {
            span,
            message: what.into(),
            unsupported: true,
        }
    }

    pub fn internal(span: Option<Span>, what: impl Into<String>) -> LowerError {
        LowerError {
            span,
            message: what.into(),
            unsupported: false,
        }
    }

    /// Gives the error a location if it has none yet.
    pub fn at(mut self, span: Span) -> LowerError {
        if self.span.is_none() {
            self.span = Some(span);
        }
        self
    }

    /// The diagnostic shown to the user; `fallback` locates errors that have no span.
    pub fn to_diagnostic(&self, fallback: Span) -> Diagnostic {
        let span = self.span.unwrap_or(fallback);
        if self.unsupported {
            Diagnostic::error(
                "gpu-unsupported",
                span,
                format!("not supported by the GPU path yet: {}", self.message),
            )
        } else {
            Diagnostic::error(
                "lower-internal",
                span,
                format!("cannot lower this program: {}", self.message),
            )
            .with_note("this is a bug in futhark-rs (lowering), not in the program")
        }
    }
}
