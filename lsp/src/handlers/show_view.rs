//! The custom requests `futhark/showIR` and `futhark/showCuda`.
//!
//! Params: `{ "textDocument": { "uri" }, "position"?: { "line", "character" },
//! "stage"?: "soacs" | "core" | "fused" | "kernels" }` (`stage` for `showIR` only, default
//! `soacs`). With a position the view shows what the definition under the cursor compiles
//! to; without one, or outside any definition, the whole program.
//!
//! Result: `{ "uri", "language", "available", "text", "definition", "stage" }`: `available` is
//! false when `text` explains why nothing can be shown; `definition` names the definition shown
//! (null for the whole program); `stage` is null for CUDA.

use std::str::FromStr;

use futhark_db::IrStage;
use serde_json::{Value, json};
use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::ls_types::{Position, Uri};

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
    let position = match params.get("position") {
        None | Some(Value::Null) => None,
        Some(p) => Some(
            serde_json::from_value::<Position>(p.clone())
                .map_err(|_| Error::invalid_params("expected position: { line, character }"))?,
        ),
    };
    let stage = match (which, params.get("stage")) {
        (Which::Cuda, _) | (Which::Ir, None | Some(Value::Null)) => None,
        (Which::Ir, Some(s)) => Some(s.as_str().and_then(IrStage::from_name).ok_or_else(|| {
            Error::invalid_params("stage must be one of soacs, core, fused, kernels")
        })?),
    };
    let file = snap.file(&uri)?;
    let offset = position.map(|p| snap.offset(file, p));
    let (view, stage) = match which {
        Which::Ir => {
            let stage = stage.unwrap_or(IrStage::Soacs);
            let view = futhark_ide::show_ir(&snap.db, file, offset, stage);
            (view, Some(stage.name()))
        }
        Which::Cuda => (futhark_ide::show_cuda(&snap.db, file, offset), None),
    };
    Ok(json!({
        "uri": uri.as_str(),
        "language": view.language,
        "available": view.available,
        "text": view.text,
        "definition": view.def,
        "stage": stage,
    }))
}
