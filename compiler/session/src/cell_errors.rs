//! How a cell's failures become [`CellError`]s: the executor's messages of compiled cells
//! (located in the cell where they can be), the interpreter's run-time errors with their
//! backtraces, and the checker's diagnostics.

use futhark_interp::RuntimeError;
use futhark_syntax::{Diagnostic, FileId};

use crate::compiled::CELL_ENTRY;
use crate::engine::CELL_PROGRAM;
use crate::outcome::{CellError, ErrorKind};

/// An error of a program that ran compiled, worded as the executor worded it.
pub(crate) fn program_error(msg: String) -> CellError {
    let kind = if msg == "Interrupted." {
        ErrorKind::Interrupted
    } else {
        ErrorKind::Runtime
    };
    CellError::message(kind, msg)
}

/// An error of a compiled cell: a failure located in the cell's expression (`Error at
/// [cell program]:L:C-C:` as the executor words it) becomes a diagnostic in the cell itself,
/// rendered as the interpreter's are; anything else stays a message.
pub(crate) fn compiled_error(
    msg: String,
    program: Option<&str>,
    cell: FileId,
    exp: &str,
) -> CellError {
    let located = || -> Option<Diagnostic> {
        let rest = msg.strip_prefix("Error at ")?;
        let (loc, text) = rest.split_once(":\n")?;
        let pos = loc.strip_prefix(CELL_PROGRAM)?.strip_prefix(':')?;
        // `L:C-C` or `L:C-L:C`.
        let (from, to) = pos.split_once('-')?;
        let (l0, c0) = from.split_once(':')?;
        let (l0, c0): (u32, u32) = (l0.parse().ok()?, c0.parse().ok()?);
        let (l1, c1): (u32, u32) = match to.split_once(':') {
            Some((l, c)) => (l.parse().ok()?, c.parse().ok()?),
            None => (l0, to.parse().ok()?),
        };
        // The expression is the program's text after its `entry … =` line.
        let program = program?;
        let start = program.find(&format!("entry {CELL_ENTRY}"))?;
        let first = program[..start].matches('\n').count() as u32 + 2;
        let lines = futhark_syntax::LineIndex::new(exp);
        let offset = |l: u32, c: u32| -> Option<u32> {
            let line = l.checked_sub(first)?;
            Some(lines.line_start(line)? + c.checked_sub(1)?)
        };
        let (a, b) = (offset(l0, c0)?, offset(l1, c1)? + 1);
        if b as usize > exp.len() || a >= b {
            return None;
        }
        Some(Diagnostic::error(
            "runtime-error",
            futhark_syntax::Span::new(cell, a, b),
            text.to_string(),
        ))
    };
    match located() {
        Some(d) => CellError::from_diagnostics(ErrorKind::Runtime, vec![d]),
        None => program_error(msg),
    }
}

/// A run-time error as a located diagnostic with its backtrace as notes.
pub(crate) fn runtime_error(e: RuntimeError) -> CellError {
    if e.interrupted {
        return CellError::message(ErrorKind::Interrupted, "Interrupted.");
    }
    let Some(span) = e.span else {
        return CellError::message(ErrorKind::Runtime, e.message);
    };
    let mut d = Diagnostic::error("runtime-error", span, e.message.clone());
    for (i, s) in e.backtrace.iter().enumerate().skip(1) {
        d = d.with_label(*s, format!("called from here (#{i})"));
    }
    CellError::from_diagnostics(ErrorKind::Runtime, vec![d])
}

/// Errors fail the cell; warnings are kept for the report.
pub(crate) fn split_diagnostics(
    diags: Vec<Diagnostic>,
    warnings: &mut Vec<Diagnostic>,
) -> Result<(), CellError> {
    let (errors, rest): (Vec<_>, Vec<_>) = diags.into_iter().partition(|d| d.is_error());
    warnings.extend(rest);
    if errors.is_empty() {
        Ok(())
    } else {
        Err(CellError::from_diagnostics(ErrorKind::Type, errors))
    }
}
