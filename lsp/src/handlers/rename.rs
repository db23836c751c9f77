//! `textDocument/prepareRename` and `textDocument/rename`.

use std::collections::HashMap;

use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::ls_types::{
    PrepareRenameResponse, RenameParams, TextDocumentPositionParams, TextEdit, WorkspaceEdit,
};

use crate::snapshot::Snapshot;

pub fn prepare(
    snap: &Snapshot,
    params: TextDocumentPositionParams,
) -> Result<Option<PrepareRenameResponse>> {
    let pos = snap.file_position(&params.text_document.uri, params.position)?;
    match futhark_ide::prepare_rename(&snap.db, pos) {
        Ok((range, placeholder)) => Ok(Some(PrepareRenameResponse::RangeWithPlaceholder {
            range: snap.range(pos.file, range),
            placeholder,
        })),
        Err(futhark_ide::RenameError::NoDefinition) => Ok(None),
        Err(e) => Err(Error::invalid_params(e.to_string())),
    }
}

pub fn handle(snap: &Snapshot, params: RenameParams) -> Result<Option<WorkspaceEdit>> {
    let p = params.text_document_position;
    let pos = snap.file_position(&p.text_document.uri, p.position)?;
    let workspace = snap.workspace();
    let change = futhark_ide::rename(&snap.db, pos, &params.new_name, &workspace)
        .map_err(|e| Error::invalid_params(e.to_string()))?;
    let mut changes = HashMap::new();
    for (file, edits) in change.edits {
        let Some(uri) = snap.uri(file) else { continue };
        let edits = edits
            .into_iter()
            .map(|e| TextEdit::new(snap.range(file, e.range), e.new_text))
            .collect::<Vec<_>>();
        changes.insert(uri, edits);
    }
    Ok(Some(WorkspaceEdit {
        changes: Some(changes),
        ..WorkspaceEdit::default()
    }))
}
