//! The custom requests `futhark/showIR` and `futhark/showCuda`: params
//! `{ "textDocument": { "uri": … } }`, result `{ "uri", "language", "available", "text" }`.

use std::str::FromStr;

use serde_json::{Value, json};
use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::ls_types::Uri;

use crate::snapshot::Snapshot;

#[derive(Clone, Copy)]
pub enum Which {
    Ir,
    Cuda,
}

pub fn handle(snap: &Snapshot, params: Value, which: Which) -> Result<Value> {
    let uri = params
        .pointer("/textDocument/uri")
        .and_then(Value::as_str)
        .ok_or_else(|| Error::invalid_params("expected { textDocument: { uri } }"))?;
    let uri = Uri::from_str(uri).map_err(|_| Error::invalid_params("invalid URI"))?;
    let file = snap.file(&uri)?;
    let view = match which {
        Which::Ir => futhark_ide::show_ir(&snap.db, file),
        Which::Cuda => futhark_ide::show_cuda(&snap.db, file),
    };
    Ok(json!({
        "uri": uri.as_str(),
        "language": view.language,
        "available": view.available,
        "text": view.text,
    }))
}
