//! Diagnostics for `textDocument/publishDiagnostics` (syntax and type diagnostics are
//! computed separately; see Note [two-phase diagnostics] in `server.rs`): byte spans
//! converted to ranges, secondary labels as related information, notes appended to the
//! message.

use futhark_db::{Db, File};
use futhark_syntax::Severity;
use tower_lsp_server::ls_types::{
    self as lsp, DiagnosticRelatedInformation, DiagnosticSeverity, NumberOrString,
};

use crate::snapshot::Snapshot;

/// Syntax errors and unresolved imports (fast).
pub fn syntax(snap: &Snapshot, file: File) -> Vec<lsp::Diagnostic> {
    convert(snap, file, futhark_ide::syntax_diagnostics(&snap.db, file))
}

/// Type errors (waits for the checker).
pub fn types(snap: &Snapshot, file: File) -> Vec<lsp::Diagnostic> {
    convert(snap, file, futhark_ide::type_diagnostics(&snap.db, file))
}

fn convert(
    snap: &Snapshot,
    file: File,
    diags: Vec<futhark_syntax::Diagnostic>,
) -> Vec<lsp::Diagnostic> {
    diags.iter().map(|d| to_lsp(snap, file, d)).collect()
}

/// One diagnostic of `file` as the protocol has it (also what a code action names as the
/// diagnostic it fixes).
pub fn to_lsp(snap: &Snapshot, file: File, d: &futhark_syntax::Diagnostic) -> lsp::Diagnostic {
    let own = file.id(&snap.db);
    let range = if d.span.file == own {
        snap.range(file, d.span.into())
    } else {
        lsp::Range::default()
    };
    let related: Vec<_> = d
        .labels
        .iter()
        .filter_map(|label| {
            let target = snap.db.file_by_id(label.span.file)?;
            Some(DiagnosticRelatedInformation {
                location: snap.location(target, label.span.into())?,
                message: label.message.clone(),
            })
        })
        .collect();
    let mut message = d.message.clone();
    for note in &d.notes {
        message.push('\n');
        message.push_str(note);
    }
    lsp::Diagnostic {
        range,
        severity: Some(match d.severity {
            Severity::Error => DiagnosticSeverity::ERROR,
            Severity::Warning => DiagnosticSeverity::WARNING,
            Severity::Note => DiagnosticSeverity::INFORMATION,
        }),
        code: Some(NumberOrString::String(d.code.to_string())),
        source: Some("futhark".to_string()),
        message,
        related_information: (!related.is_empty()).then_some(related),
        ..lsp::Diagnostic::default()
    }
}
