//! `textDocument/references`: the workspace's uses of a name (the prelude's own uses of
//! its names left out).

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
    // Uses inside the prelude are its internals, not the user's: left out (the
    // definition itself stays when it is asked for).
    Ok(Some(
        refs.into_iter()
            .filter(|r| {
                r.role == futhark_ide::Role::Definition
                    || !futhark_ide::is_prelude_path(r.file.path(&snap.db))
            })
            .filter_map(|r| snap.location(r.file, r.range))
            .collect(),
    ))
}
