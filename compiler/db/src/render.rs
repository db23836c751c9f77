//! Renders diagnostics for a terminal with ariadne (colour optional), and as a compact
//! one-line form for logs and tests.

use std::collections::HashMap;

use ariadne::{Color, Config, IndexType, Label, Report, ReportKind, Source};
use futhark_syntax::{Diagnostic, FileId, LineIndex, Severity};

use crate::files::{Db, File};

/// Source texts by file, as ariadne's cache needs them.
struct SourceCache {
    sources: HashMap<FileId, (String, Source<String>)>,
}

impl ariadne::Cache<FileId> for &mut SourceCache {
    type Storage = String;

    fn fetch(&mut self, id: &FileId) -> Result<&Source<String>, impl std::fmt::Debug> {
        self.sources
            .get(id)
            .map(|(_, src)| src)
            .ok_or_else(|| format!("unknown file {}", id.0))
    }

    fn display<'a>(&self, id: &'a FileId) -> Option<impl std::fmt::Display + 'a> {
        self.sources.get(id).map(|(name, _)| name.clone())
    }
}

fn kind(severity: Severity) -> ReportKind<'static> {
    match severity {
        Severity::Error => ReportKind::Error,
        Severity::Warning => ReportKind::Warning,
        Severity::Note => ReportKind::Advice,
    }
}

/// Renders `diags` as ariadne reports, one after the other.
pub fn render_terminal(db: &dyn Db, diags: &[Diagnostic], color: bool) -> String {
    let mut cache = SourceCache {
        sources: HashMap::new(),
    };
    for d in diags {
        for span in std::iter::once(d.span).chain(d.labels.iter().map(|l| l.span)) {
            if let Some(file) = db.file_by_id(span.file) {
                cache.sources.entry(span.file).or_insert_with(|| {
                    (
                        file.path(db).display().to_string(),
                        Source::from(file.text(db).clone()),
                    )
                });
            }
        }
    }
    let mut out = Vec::new();
    for d in diags {
        if !cache.sources.contains_key(&d.span.file) {
            out.extend_from_slice(render_plain(db, d).as_bytes());
            out.push(b'\n');
            continue;
        }
        let primary = (d.span.file, d.span.range());
        // The header has the whole message; under the excerpt its first line is enough
        // (a type mismatch's `Expected:`/`Actual:` lines are not printed twice).
        let label = d.message.lines().next().unwrap_or_default();
        let mut report = Report::build(kind(d.severity), primary.clone())
            .with_config(
                Config::default()
                    .with_index_type(IndexType::Byte)
                    .with_color(color),
            )
            .with_code(d.code)
            .with_message(&d.message)
            .with_label(
                Label::new(primary)
                    .with_message(label)
                    .with_color(Color::Red),
            );
        for label in &d.labels {
            if cache.sources.contains_key(&label.span.file) {
                report = report.with_label(
                    Label::new((label.span.file, label.span.range()))
                        .with_message(&label.message)
                        .with_color(Color::Blue),
                );
            }
        }
        for note in &d.notes {
            report = report.with_note(note);
        }
        // Writing into a Vec cannot fail; a failure would only lose this report's text.
        let _ = report.finish().write(&mut cache, &mut out);
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `path:line:col: error[code]: message` — for logs, JSON and tests.
pub fn render_plain(db: &dyn Db, d: &Diagnostic) -> String {
    let severity = match d.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note => "note",
    };
    let location = match db.file_by_id(d.span.file) {
        Some(file) => location(db, file, d.span.start),
        None => format!("<file {}>", d.span.file.0),
    };
    format!("{location}: {severity}[{}]: {}", d.code, d.message)
}

/// The whole of a diagnostic as plain text, as an error-expecting test matches it: location
/// with its column range, the message, labels, notes and, last, the `[code]` (Futhark puts
/// the error-index link after the message, so regexes may name the code after the text).
pub fn render_full(db: &dyn Db, d: &Diagnostic) -> String {
    match db.file_by_id(d.span.file) {
        Some(file) => {
            futhark_check::render::render(d, &file.path(db).display().to_string(), file.text(db))
        }
        None => render_plain(db, d),
    }
}

/// `path:line:col` of a byte offset in `file`.
pub fn location(db: &dyn Db, file: File, offset: u32) -> String {
    let (line, col) = LineIndex::new(file.text(db)).line_col(offset);
    format!("{}:{line}:{col}", file.path(db).display())
}
