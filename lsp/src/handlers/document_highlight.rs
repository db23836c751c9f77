//! `textDocument/documentHighlight`: the occurrences in the document of the name at the
//! cursor, its definition marked as a write.

use futhark_ide::Role;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::{
    DocumentHighlight, DocumentHighlightKind, DocumentHighlightParams,
};

use crate::snapshot::Snapshot;

pub fn handle(
    snap: &Snapshot,
    params: DocumentHighlightParams,
) -> Result<Option<Vec<DocumentHighlight>>> {
    let p = params.text_document_position_params;
    let pos = snap.file_position(&p.text_document.uri, p.position)?;
    let refs = futhark_ide::find_references(&snap.db, pos, &[pos.file], true);
    let highlights: Vec<DocumentHighlight> = refs
        .into_iter()
        .filter(|r| r.file == pos.file)
        .map(|r| DocumentHighlight {
            range: snap.range(r.file, r.range),
            kind: Some(if r.role == Role::Definition {
                DocumentHighlightKind::WRITE
            } else {
                DocumentHighlightKind::READ
            }),
        })
        .collect();
    Ok((!highlights.is_empty()).then_some(highlights))
}
