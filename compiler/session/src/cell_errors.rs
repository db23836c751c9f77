//! How a cell's failures become [`CellError`]s: the executor's messages of compiled cells
//! (located in the cell where they can be), the interpreter's run-time errors with their
//! backtraces, and the checker's diagnostics.

use futhark_interp::RuntimeError;
use futhark_syntax::{Diagnostic, FileId, Span};

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

/// An error of a compiled cell, worded by the executor as `Error at LOC:`, the message and
/// the backtrace (`-> #i LOC` lines), becomes what the interpreter's error becomes
/// ([`runtime_error`]): a diagnostic at the failing expression — in the cell itself, or in
/// a loaded file (`file_of` gives a path's file and text) — with the backtrace's frames as
/// labels. Anything else stays a message.
pub(crate) fn compiled_error(
    msg: String,
    program: Option<&str>,
    cell: FileId,
    exp: &str,
    file_of: &dyn Fn(&str) -> Option<(FileId, String)>,
) -> CellError {
    let Some(rest) = msg.strip_prefix("Error at ") else {
        return program_error(msg);
    };
    let Some((loc, body)) = rest.split_once(":\n") else {
        return program_error(msg);
    };
    let (text, frames) = match body.split_once("\n\nBacktrace:\n") {
        Some((text, bt)) => (
            text,
            bt.lines()
                // `-> #i LOC`
                .filter_map(|l| l.splitn(3, ' ').nth(2))
                .collect::<Vec<_>>(),
        ),
        None => (body, Vec::new()),
    };
    let span_of = |loc: &str| -> Option<Span> {
        let (path, (l0, c0), (l1, c1)) = parse_loc(loc)?;
        if path == CELL_PROGRAM {
            // The expression is the program's text after its `entry … =` line.
            let program = program?;
            let start = program.find(&format!("entry {CELL_ENTRY}"))?;
            let first = program[..start].matches('\n').count() as u32 + 2;
            span_in(
                cell,
                exp,
                (l0.checked_sub(first)?, c0),
                (l1.checked_sub(first)?, c1),
            )
        } else {
            let (file, source) = file_of(path)?;
            span_in(
                file,
                &source,
                (l0.checked_sub(1)?, c0),
                (l1.checked_sub(1)?, c1),
            )
        }
    };
    let Some(at) = span_of(loc) else {
        return program_error(msg);
    };
    let d = Diagnostic::error("runtime-error", at, text.to_string());
    let d = label_frames(d, frames.iter().map(|f| span_of(f)));
    CellError::from_diagnostics(ErrorKind::Runtime, vec![d])
}

/// A location in a compiled cell's program (`[cell program]:L:C-…`) as a position in the cell
/// `cell` (`[n]:l:c`), the cell's text starting on the line after the program's `entry …`
/// line; other locations, and what does not parse, unchanged.
pub(crate) fn cell_position(loc: &str, program: Option<&str>, cell: &str) -> String {
    let mapped = || -> Option<String> {
        let (path, (l0, c0), _) = parse_loc(loc)?;
        if path != CELL_PROGRAM {
            return None;
        }
        let program = program?;
        let start = program.find(&format!("entry {CELL_ENTRY}"))?;
        let first = program[..start].matches('\n').count() as u32 + 2;
        Some(format!("{cell}:{}:{c0}", l0.checked_sub(first)? + 1))
    };
    mapped().unwrap_or_else(|| loc.to_string())
}

/// A 1-based (line, column) pair.
type LineCol = (u32, u32);

/// `path:L:C-C` or `path:L:C-L:C` as the path and its first and last positions.
fn parse_loc(loc: &str) -> Option<(&str, LineCol, LineCol)> {
    let (head, last) = loc.rsplit_once(':')?;
    if let Some((c0, c1)) = last.split_once('-') {
        // `path:L:C-C`
        let (path, l0) = head.rsplit_once(':')?;
        let l0: u32 = l0.parse().ok()?;
        return Some((path, (l0, c0.parse().ok()?), (l0, c1.parse().ok()?)));
    }
    // `path:L:C-L:C`
    let (head, mid) = head.rsplit_once(':')?;
    let (c0, l1) = mid.split_once('-')?;
    let (path, l0) = head.rsplit_once(':')?;
    Some((
        path,
        (l0.parse().ok()?, c0.parse().ok()?),
        (l1.parse().ok()?, last.parse().ok()?),
    ))
}

/// The span of 0-based lines and 1-based columns `from` to `to` (inclusive) in `text`.
fn span_in(file: FileId, text: &str, from: (u32, u32), to: (u32, u32)) -> Option<Span> {
    let lines = futhark_syntax::LineIndex::new(text);
    let offset =
        |(l, c): (u32, u32)| -> Option<u32> { Some(lines.line_start(l)? + c.checked_sub(1)?) };
    let (a, b) = (offset(from)?, offset(to)? + 1);
    if b as usize > text.len() || a >= b {
        return None;
    }
    Some(Span::new(file, a, b))
}

/// A run-time error as a located diagnostic with its backtrace as notes.
pub(crate) fn runtime_error(e: RuntimeError) -> CellError {
    if e.interrupted {
        return CellError::message(ErrorKind::Interrupted, "Interrupted.");
    }
    let Some(span) = e.span else {
        return CellError::message(ErrorKind::Runtime, e.message);
    };
    let d = Diagnostic::error("runtime-error", span, e.message.clone());
    let d = label_frames(d, e.backtrace.iter().map(|s| Some(*s)));
    CellError::from_diagnostics(ErrorKind::Runtime, vec![d])
}

/// Labels a run-time error's backtrace frames (innermost first; `None`: a frame with no
/// span here) on its diagnostic, interpreted and compiled alike. Frame #0 is left out.
fn label_frames(mut d: Diagnostic, frames: impl Iterator<Item = Option<Span>>) -> Diagnostic {
    for (i, s) in frames.enumerate().skip(1) {
        if let Some(s) = s {
            d = d.with_label(s, format!("called from here (#{i})"));
        }
    }
    d
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cell_program_positions_become_cell_positions() {
        let program =
            format!("-- a session cell\nopen import \"x\"\nentry {CELL_ENTRY} =\nmap f xs\n");
        let at = format!("{CELL_PROGRAM}:4:1-8");
        assert_eq!(cell_position(&at, Some(&program), "[3]"), "[3]:1:1");
        assert_eq!(
            cell_position("lib.fut:2:3-4", Some(&program), "[3]"),
            "lib.fut:2:3-4"
        );
        assert_eq!(cell_position(&at, None, "[3]"), at);
    }

    #[test]
    fn locations_parse_in_both_forms() {
        assert_eq!(
            parse_loc("a b.fut:3:4-9"),
            Some(("a b.fut", (3, 4), (3, 9)))
        );
        assert_eq!(
            parse_loc("[cell program]:3:4-5:2"),
            Some(("[cell program]", (3, 4), (5, 2)))
        );
        assert_eq!(parse_loc("nowhere"), None);
    }

    #[test]
    fn a_compiled_error_is_located_with_its_frames() {
        let program = "open import \"lib\"\nentry futhark_cell =\nmap (\\i -> get xs i) (iota 3)";
        let exp = "map (\\i -> get xs i) (iota 3)";
        let lib = "def get (xs: []i32) (i: i64) = xs[i]\n";
        let msg = format!(
            "Error at lib.fut:1:32-36:\nIndex [2] out of bounds.\n\nBacktrace:\n-> #0 {CELL_PROGRAM}:3:12-19\n-> #1 {CELL_PROGRAM}:3:1-29"
        );
        let file_of = |p: &str| (p == "lib.fut").then(|| (FileId(7), lib.to_string()));
        let e = compiled_error(msg, Some(program), FileId(9), exp, &file_of);
        let d = &e.diagnostics[0];
        assert_eq!(d.message, "Index [2] out of bounds.");
        assert_eq!(d.span, Span::new(FileId(7), 31, 36));
        // Frame #0 is the failing call itself, as the interpreter's errors leave it out.
        assert_eq!(d.labels.len(), 1, "{d:?}");
        assert_eq!(d.labels[0].span, Span::new(FileId(9), 0, 29));
    }
}
