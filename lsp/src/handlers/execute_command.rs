//! `workspace/executeCommand`: runs a `-- >>>` lens (evaluation is a hook in
//! `futhark-ide` that says when the interpreter is not available).

use std::str::FromStr;

use futhark_ide::EvalOutcome;
use serde_json::Value;
use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::ls_types::{ExecuteCommandParams, Uri};

use crate::handlers::code_lens::EVAL_COMMAND;
use crate::snapshot::Snapshot;

/// The outcome as text for the client, and whether it is an error.
pub fn handle(snap: &Snapshot, params: ExecuteCommandParams) -> Result<(String, bool)> {
    if params.command != EVAL_COMMAND {
        return Err(Error::invalid_params(format!(
            "unknown command {}",
            params.command
        )));
    }
    let arg = |i: usize| params.arguments.get(i).and_then(Value::as_str);
    let (Some(uri), Some(expr)) = (arg(0), arg(1)) else {
        return Err(Error::invalid_params(
            "expected a document URI and an expression",
        ));
    };
    let uri = Uri::from_str(uri).map_err(|_| Error::invalid_params("invalid URI"))?;
    let file = snap.file(&uri)?;
    Ok(match futhark_ide::eval_comment(&snap.db, file, expr) {
        EvalOutcome::Value(v) => (format!("{expr} = {v}"), false),
        EvalOutcome::Error(e) => (format!("{expr}: {e}"), true),
        EvalOutcome::Unavailable(why) => (why, true),
    })
}
