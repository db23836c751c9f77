//! What a cell gives back: a value with its type, the names it declared, or an error made of
//! diagnostics; plus timing and where it ran.

use std::time::Duration;

use futhark_syntax::Diagnostic;

use crate::backend::Device;
use crate::format::Formatted;
use crate::value::ValueView;

/// The kind of failure, for headings and for Jupyter's `ename`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    Syntax,
    Type,
    Runtime,
    Interrupted,
    /// A file that cannot be read, a bad command argument, a feature that is not there.
    Usage,
}

impl ErrorKind {
    /// The name Jupyter shows as the error's class.
    pub fn ename(self) -> &'static str {
        match self {
            ErrorKind::Syntax => "SyntaxError",
            ErrorKind::Type => "TypeError",
            ErrorKind::Runtime => "RuntimeError",
            ErrorKind::Interrupted => "Interrupted",
            ErrorKind::Usage => "UsageError",
        }
    }
}

/// A failed cell or command. The session is unchanged by it.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{summary}")]
pub struct CellError {
    pub kind: ErrorKind,
    /// One line: the first diagnostic's message, or the whole message when there are none.
    pub summary: String,
    /// Located diagnostics (render them with [`crate::Session::render`]).
    pub diagnostics: Vec<Diagnostic>,
    /// Lines after the diagnostics (a run-time error's backtrace), or the message itself.
    pub detail: Option<String>,
}

impl CellError {
    /// An error with only a message.
    pub fn message(kind: ErrorKind, message: impl Into<String>) -> CellError {
        let message = message.into();
        CellError {
            kind,
            summary: message.lines().next().unwrap_or_default().to_string(),
            diagnostics: Vec::new(),
            detail: Some(message),
        }
    }

    /// An error made of diagnostics (their first error gives the summary).
    pub fn from_diagnostics(kind: ErrorKind, diagnostics: Vec<Diagnostic>) -> CellError {
        let summary = diagnostics
            .iter()
            .find(|d| d.is_error())
            .or(diagnostics.first())
            .map(|d| d.message.clone())
            .unwrap_or_else(|| "error".to_string());
        CellError {
            kind,
            summary,
            diagnostics,
            detail: None,
        }
    }
}

/// A value shown by an expression cell.
#[derive(Clone, Debug, PartialEq)]
pub struct Shown {
    pub value: ValueView,
    /// The checker's type of the expression, e.g. `[]i32`.
    pub ty: String,
    pub text: Formatted,
}

/// What a successful cell did.
#[derive(Clone, Debug, PartialEq)]
pub enum Evaluated {
    /// An empty cell.
    Nothing,
    /// Declarations; the names they bound.
    Declared(Vec<String>),
    /// An expression; its value is also bound to `it`.
    Value(Shown),
}

/// Where the time of a cell went.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Timing {
    /// From receiving the text to having the answer.
    pub total: Duration,
    /// Parsing and type checking.
    pub check: Duration,
    /// Evaluation (on the interpreter's thread).
    pub eval: Duration,
}

impl Timing {
    /// `1.23 ms (check 0.20 ms, run 1.00 ms)`.
    pub fn summary(&self) -> String {
        format!(
            "{} (check {}, run {})",
            duration_text(self.total),
            duration_text(self.check),
            duration_text(self.eval)
        )
    }
}

/// A duration with a unit that keeps three significant figures readable.
pub fn duration_text(d: Duration) -> String {
    let us = d.as_secs_f64() * 1e6;
    if us < 1000.0 {
        format!("{us:.0} µs")
    } else if us < 1e6 {
        format!("{:.2} ms", us / 1e3)
    } else {
        format!("{:.2} s", us / 1e6)
    }
}

/// The full report of one cell.
#[derive(Clone, Debug, PartialEq)]
pub struct CellOutcome {
    /// The cell's number (`[3]`).
    pub number: usize,
    pub result: Result<Evaluated, CellError>,
    /// Warnings from the checker (the cell still ran).
    pub warnings: Vec<Diagnostic>,
    pub timing: Timing,
    pub device: Device,
}
