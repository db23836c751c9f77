//! A plain-text rendering of diagnostics with `line:col` positions, for tests and simple
//! command-line output (the database renders with ariadne elsewhere).

use futhark_syntax::{Diagnostic, LineIndex, Severity};

/// Renders one diagnostic: `path:line:col: error[code]: message`, then labels and notes.
pub fn render(d: &Diagnostic, path: &str, text: &str) -> String {
    let idx = LineIndex::new(text);
    let (line, col) = idx.line_col(d.span.start.min(text.len() as u32));
    let (eline, ecol) = idx.line_col(d.span.end.min(text.len() as u32));
    let pos = if eline == line {
        format!("{line}:{col}-{ecol}")
    } else {
        format!("{line}:{col}-{eline}:{ecol}")
    };
    let sev = match d.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note => "note",
    };
    let mut out = format!("{path}:{pos}: {sev}: {}", d.message);
    for l in &d.labels {
        if l.span.file == d.span.file {
            let (ll, lc) = idx.line_col(l.span.start.min(text.len() as u32));
            out.push_str(&format!("\n  {path}:{ll}:{lc}: {}", l.message));
        } else {
            out.push_str(&format!("\n  (elsewhere): {}", l.message));
        }
    }
    for n in &d.notes {
        out.push_str(&format!("\n  note: {n}"));
    }
    out.push_str(&format!("\n  [{}]", d.code));
    out
}
