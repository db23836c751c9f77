//! `textDocument/hover`.

use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::{Hover, HoverContents, HoverParams, MarkupContent, MarkupKind};

use crate::snapshot::Snapshot;

pub fn handle(snap: &Snapshot, params: HoverParams) -> Result<Option<Hover>> {
    let p = params.text_document_position_params;
    let pos = snap.file_position(&p.text_document.uri, p.position)?;
    let Some(info) = futhark_ide::hover(&snap.db, pos, snap.types_ready) else {
        return Ok(None);
    };
    Ok(Some(Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value: info.markdown(),
        }),
        range: Some(snap.range(pos.file, info.range)),
    }))
}
