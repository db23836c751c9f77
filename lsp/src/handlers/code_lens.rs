//! `textDocument/codeLens`: a "run" lens over each `-- >>> expr` comment, whose command
//! the server executes (see `execute_command.rs`).

use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::{CodeLens, CodeLensParams, Command};

use crate::snapshot::Snapshot;

/// The command a lens runs; its arguments are the document URI and the expression.
pub const EVAL_COMMAND: &str = "futhark.evalComment";

pub fn handle(snap: &Snapshot, params: CodeLensParams) -> Result<Option<Vec<CodeLens>>> {
    let uri = params.text_document.uri;
    let file = snap.file(&uri)?;
    let lenses = futhark_ide::code_lenses(&snap.db, file);
    Ok(Some(
        lenses
            .into_iter()
            .map(|lens| CodeLens {
                range: snap.range(file, lens.range),
                command: Some(Command {
                    title: "▶ run".to_string(),
                    command: EVAL_COMMAND.to_string(),
                    arguments: Some(vec![
                        serde_json::Value::String(uri.as_str().to_string()),
                        serde_json::Value::String(lens.expr),
                    ]),
                }),
                data: None,
            })
            .collect(),
    ))
}
