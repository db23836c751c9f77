//! `textDocument/codeLens`: a "▶ Run" lens over each `-- >>> expr` comment, whose command
//! the server executes (see `execute_command.rs`). Once an example has run, its lens shows
//! the result until the next edit.

use std::collections::HashMap;

use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::{CodeLens, CodeLensParams, Command};

use crate::snapshot::Snapshot;

/// The command a lens runs. Its arguments: the document URI, then the expression (a
/// string) or the line of its `-- >>>` comment (a number, 0-based).
pub const RUN_COMMAND: &str = "futhark.runExample";

/// `results`: the one-line result of each example of this document that has run, by
/// expression.
pub fn handle(
    snap: &Snapshot,
    params: CodeLensParams,
    results: &HashMap<String, String>,
) -> Result<Option<Vec<CodeLens>>> {
    let uri = params.text_document.uri;
    let file = snap.file(&uri)?;
    let lenses = futhark_ide::code_lenses(&snap.db, file);
    Ok(Some(
        lenses
            .into_iter()
            .map(|lens| {
                let title = match results.get(&lens.expr) {
                    Some(result) => format!("▶ Run  ⇒ {result}"),
                    None => "▶ Run".to_string(),
                };
                CodeLens {
                    range: snap.range(file, lens.range),
                    command: Some(Command {
                        title,
                        command: RUN_COMMAND.to_string(),
                        arguments: Some(vec![
                            serde_json::Value::String(uri.as_str().to_string()),
                            serde_json::Value::String(lens.expr),
                        ]),
                    }),
                    data: None,
                }
            })
            .collect(),
    ))
}
