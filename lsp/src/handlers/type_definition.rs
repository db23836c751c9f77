//! `textDocument/typeDefinition`: the type declaration spelling out the record type of the
//! name at the cursor (see `futhark_ide::type_definition`).

use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::request::{GotoTypeDefinitionParams, GotoTypeDefinitionResponse};

use crate::snapshot::Snapshot;

pub fn handle(
    snap: &Snapshot,
    params: GotoTypeDefinitionParams,
) -> Result<Option<GotoTypeDefinitionResponse>> {
    let p = params.text_document_position_params;
    let pos = snap.file_position(&p.text_document.uri, p.position)?;
    let locations: Vec<_> = futhark_ide::type_definition(&snap.db, pos)
        .into_iter()
        .filter_map(|t| snap.location(t.file, t.focus_range))
        .collect();
    Ok((!locations.is_empty()).then_some(GotoTypeDefinitionResponse::Array(locations)))
}
