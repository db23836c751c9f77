//! `textDocument/documentSymbol`.

use futhark_db::File;
use futhark_ide::{Symbol, SymbolKind};
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::{self as lsp, DocumentSymbolParams, DocumentSymbolResponse};

use crate::snapshot::Snapshot;

pub fn handle(
    snap: &Snapshot,
    params: DocumentSymbolParams,
) -> Result<Option<DocumentSymbolResponse>> {
    let file = snap.file(&params.text_document.uri)?;
    let symbols = futhark_ide::document_symbols(&snap.db, file);
    Ok(Some(DocumentSymbolResponse::Nested(
        symbols.iter().map(|s| convert(snap, file, s)).collect(),
    )))
}

#[allow(deprecated)]
fn convert(snap: &Snapshot, file: File, s: &Symbol) -> lsp::DocumentSymbol {
    lsp::DocumentSymbol {
        name: s.name.clone(),
        detail: (!s.detail.is_empty()).then(|| s.detail.clone()),
        kind: kind(s.kind),
        tags: None,
        deprecated: None,
        range: snap.range(file, s.full_range),
        selection_range: snap.range(file, s.selection_range),
        children: Some(s.children.iter().map(|c| convert(snap, file, c)).collect()),
    }
}

pub fn kind(kind: SymbolKind) -> lsp::SymbolKind {
    match kind {
        SymbolKind::Module | SymbolKind::Functor | SymbolKind::ModuleSpec => {
            lsp::SymbolKind::MODULE
        }
        SymbolKind::ModuleType => lsp::SymbolKind::INTERFACE,
        SymbolKind::Function | SymbolKind::Entry => lsp::SymbolKind::FUNCTION,
        SymbolKind::Value | SymbolKind::ValSpec => lsp::SymbolKind::CONSTANT,
        SymbolKind::Type | SymbolKind::TypeSpec => lsp::SymbolKind::TYPE_PARAMETER,
    }
}
