//! `workspace/executeCommand` for [`RUN_COMMAND`]: finds the example and collects the
//! program it runs in (the file and its imports, as the server sees them). The evaluation
//! itself runs off the snapshot, in `eval.rs`, so that edits are not held up by it.

use std::str::FromStr;

use futhark_db::{Db, File};
use serde_json::Value;
use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::ls_types::{ExecuteCommandParams, Uri};

use crate::eval::Job;
use crate::handlers::code_lens::RUN_COMMAND;
use crate::snapshot::Snapshot;

/// The document and the job to run.
pub fn prepare(snap: &Snapshot, params: ExecuteCommandParams) -> Result<(Uri, Job)> {
    if params.command != RUN_COMMAND {
        return Err(Error::invalid_params(format!(
            "unknown command {}",
            params.command
        )));
    }
    let bad = || Error::invalid_params("expected a document URI, then an expression or a line");
    let uri = params
        .arguments
        .first()
        .and_then(Value::as_str)
        .ok_or_else(bad)?;
    let uri = Uri::from_str(uri).map_err(|_| Error::invalid_params("invalid URI"))?;
    let file = snap.file(&uri)?;
    let lenses = futhark_ide::code_lenses(&snap.db, file);
    let (expr, expected) = match params.arguments.get(1).ok_or_else(bad)? {
        Value::String(expr) => {
            let expected = lenses
                .iter()
                .find(|l| l.expr == *expr)
                .and_then(|l| l.expected.clone());
            (expr.clone(), expected)
        }
        Value::Number(line) => {
            let line = line.as_u64().ok_or_else(bad)?;
            let lens = lenses
                .into_iter()
                .find(|l| u64::from(snap.position(file, l.range.start).line) == line)
                .ok_or_else(|| {
                    Error::invalid_params(format!("no `-- >>>` example on line {line}"))
                })?;
            (lens.expr, lens.expected)
        }
        _ => return Err(bad()),
    };
    let job = Job {
        root: file.path(&snap.db).clone(),
        files: program_files(&snap.db, file),
        expr,
        expected,
    };
    Ok((uri, job))
}

/// `root` and every file it imports (the prelude aside), with their texts.
fn program_files(db: &dyn Db, root: File) -> Vec<(std::path::PathBuf, String)> {
    let mut order = futhark_db::import_graph(db, root).order.clone();
    if !order.contains(&root) {
        order.push(root);
    }
    order
        .into_iter()
        .filter(|f| !futhark_ide::is_prelude_path(f.path(db)))
        .map(|f| (f.path(db).clone(), f.text(db).clone()))
        .collect()
}
