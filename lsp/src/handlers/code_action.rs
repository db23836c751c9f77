//! `textDocument/codeAction`: the quick fixes of [`futhark_ide::code_actions`] for the
//! diagnostics in the requested range, each as a workspace edit naming the diagnostic it
//! fixes. A request that asks only for other kinds (`context.only`) gets none.

use std::collections::HashMap;

use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::{
    CodeAction, CodeActionKind, CodeActionOrCommand, CodeActionParams, CodeActionResponse,
    TextEdit, WorkspaceEdit,
};

use crate::handlers::diagnostics::to_lsp;
use crate::snapshot::Snapshot;

/// The kinds of action the server offers (advertised in its capabilities).
pub fn kinds() -> Vec<CodeActionKind> {
    vec![CodeActionKind::QUICKFIX]
}

pub fn handle(snap: &Snapshot, params: CodeActionParams) -> Result<Option<CodeActionResponse>> {
    let wanted = |kind: &CodeActionKind| match &params.context.only {
        None => true,
        // `quickfix` is asked for as itself or through its parent kind `""`.
        Some(only) => only
            .iter()
            .any(|o| o.as_str().is_empty() || kind.as_str().starts_with(o.as_str())),
    };
    if !wanted(&CodeActionKind::QUICKFIX) {
        return Ok(Some(Vec::new()));
    }
    let file = snap.file(&params.text_document.uri)?;
    let range = snap.text_range(file, params.range);
    let workspace = snap.workspace();
    let actions = futhark_ide::code_actions(&snap.db, file, range, snap.types_ready, &workspace);
    let mut out = Vec::new();
    for action in actions {
        let mut changes = HashMap::new();
        for (target, edits) in &action.edit.edits {
            let Some(uri) = snap.uri(*target) else {
                continue;
            };
            let edits = edits
                .iter()
                .map(|e| TextEdit::new(snap.range(*target, e.range), e.new_text.clone()))
                .collect::<Vec<_>>();
            changes.insert(uri, edits);
        }
        if changes.is_empty() {
            continue;
        }
        out.push(CodeActionOrCommand::CodeAction(CodeAction {
            title: action.title,
            kind: Some(CodeActionKind::QUICKFIX),
            diagnostics: Some(vec![to_lsp(snap, file, &action.diagnostic)]),
            edit: Some(WorkspaceEdit {
                changes: Some(changes),
                ..WorkspaceEdit::default()
            }),
            is_preferred: action.preferred.then_some(true),
            ..CodeAction::default()
        }));
    }
    Ok(Some(out))
}
