//! `textDocument/inlayHint`.

use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::{InlayHint, InlayHintKind, InlayHintLabel, InlayHintParams};

use crate::snapshot::Snapshot;

pub fn handle(snap: &Snapshot, params: InlayHintParams) -> Result<Option<Vec<InlayHint>>> {
    let file = snap.file(&params.text_document.uri)?;
    let range = snap.text_range(file, params.range);
    let hints = futhark_ide::inlay_hints(&snap.db, file, range);
    Ok(Some(
        hints
            .into_iter()
            .map(|h| InlayHint {
                position: snap.position(file, h.offset),
                label: InlayHintLabel::String(h.label),
                kind: Some(InlayHintKind::TYPE),
                text_edits: None,
                tooltip: None,
                padding_left: None,
                padding_right: None,
                data: None,
            })
            .collect(),
    ))
}
