//! Run-time errors: what went wrong, where, and the call stack that led there.
//!
//! Errors are plain values; nothing in the interpreter panics on a bad program or input. The
//! message texts follow the reference interpreter's wording where tests match them by regex
//! ("Index [7] out of bounds for array of shape [5].", "Assertion is false: …").

use futhark_syntax::Span;

/// An error raised while evaluating a program.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct RuntimeError {
    /// The message, without location.
    pub message: String,
    /// Where the failing expression is, when known.
    pub span: Option<Span>,
    /// Call sites from the innermost outwards (spans of applications being evaluated).
    pub backtrace: Vec<Span>,
    /// Set when evaluation stopped because the interrupt flag was raised.
    pub interrupted: bool,
}

impl RuntimeError {
    /// An error with a message and no location yet.
    pub fn new(message: impl Into<String>) -> RuntimeError {
        RuntimeError {
            message: message.into(),
            span: None,
            backtrace: Vec::new(),
            interrupted: false,
        }
    }

    /// An error located at `span`.
    pub fn at(span: Span, message: impl Into<String>) -> RuntimeError {
        RuntimeError::new(message).with_span(span)
    }

    /// Sets the location unless one is already known (the innermost location wins).
    pub fn with_span(mut self, span: Span) -> RuntimeError {
        if self.span.is_none() {
            self.span = Some(span);
        }
        self
    }

    /// The error reported when the interrupt flag stops evaluation.
    pub fn interrupted() -> RuntimeError {
        RuntimeError {
            interrupted: true,
            ..RuntimeError::new("Interrupted.")
        }
    }

    /// Renders the error as the command line shows it: the message, the location as
    /// `file:line:col-col` (using `describe` to turn a span into that text), and the backtrace.
    pub fn render(&self, describe: &dyn Fn(Span) -> String) -> String {
        let mut out = String::new();
        match self.span {
            Some(span) => {
                out.push_str("Error at ");
                out.push_str(&describe(span));
                out.push_str(":\n");
                out.push_str(&self.message);
            }
            None => out.push_str(&self.message),
        }
        if !self.backtrace.is_empty() {
            out.push_str("\n\nBacktrace:");
            for (i, span) in self.backtrace.iter().enumerate() {
                out.push_str(&format!("\n-> #{i} {}", describe(*span)));
            }
        }
        out
    }
}

/// The result type of everything that evaluates.
pub type Result<T, E = RuntimeError> = std::result::Result<T, E>;

/// Shorthand for an error without location.
pub fn err<T>(message: impl Into<String>) -> Result<T> {
    Err(RuntimeError::new(message))
}
