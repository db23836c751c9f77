//! `textDocument/references`.

use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::{Location, ReferenceParams};

use crate::snapshot::Snapshot;

pub fn handle(snap: &Snapshot, params: ReferenceParams) -> Result<Option<Vec<Location>>> {
    let p = params.text_document_position;
    let pos = snap.file_position(&p.text_document.uri, p.position)?;
    let workspace = snap.workspace();
    let refs = futhark_ide::find_references(
        &snap.db,
        pos,
        &workspace,
        params.context.include_declaration,
    );
    Ok(Some(
        refs.into_iter()
            .filter_map(|r| snap.location(r.file, r.range))
            .collect(),
    ))
}
