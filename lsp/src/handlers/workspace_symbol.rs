//! `workspace/symbol`: the symbols of the workspace's files (not the prelude's).

use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::{
    SymbolInformation, WorkspaceSymbolParams, WorkspaceSymbolResponse,
};

use crate::handlers::document_symbol::kind;
use crate::snapshot::Snapshot;

/// Enough for a picker; a longer query narrows it.
const LIMIT: usize = 256;

#[allow(deprecated)]
pub fn handle(
    snap: &Snapshot,
    params: WorkspaceSymbolParams,
) -> Result<Option<WorkspaceSymbolResponse>> {
    // The prelude's definitions are found through its modules' names (`f32.sqrt`), not
    // as workspace symbols that crowd out the user's.
    let files: Vec<_> = snap
        .workspace()
        .into_iter()
        .filter(|f| !futhark_ide::is_prelude_path(f.path(&snap.db)))
        .collect();
    let found = futhark_ide::workspace_symbols(&snap.db, &files, &params.query, LIMIT);
    let symbols = found
        .into_iter()
        .filter_map(|s| {
            Some(SymbolInformation {
                name: s.name,
                kind: kind(s.kind),
                tags: None,
                deprecated: None,
                location: snap.location(s.file, s.selection_range)?,
                container_name: s.container,
            })
        })
        .collect();
    Ok(Some(WorkspaceSymbolResponse::Flat(symbols)))
}
