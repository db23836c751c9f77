//! `futhark-jupyter run NOTEBOOK`: executes a notebook's code cells in order through the
//! kernel's own execute path ([`crate::execute::execute`], the function a shell
//! `execute_request` reaches) and writes the IOPub messages each cell published back into
//! the notebook as its outputs, as nbclient would. For machines without Jupyter (a GPU host
//! with no Python packages): the outputs are the kernel's, produced by the same code.
//!
//! Cells tagged `raises-exception` may fail; any other failing cell stops the run with an
//! error after the notebook is written (as `nbclient` does).

use std::path::PathBuf;

use futhark_session::{Options, Session};
use jupyter_protocol::{ExecuteRequest, JupyterMessage};
use serde_json::{Map, Value, json};

use crate::actor::State;
use crate::execute;
use crate::history::History;

/// Why a notebook could not be run.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("{0}: {1}")]
    Io(String, std::io::Error),
    #[error("{0} is not a notebook: {1}")]
    Format(String, String),
    #[error("{0}")]
    Session(String),
    #[error("cell {cell} failed: {ename}: {evalue}")]
    Cell {
        cell: usize,
        ename: String,
        evalue: String,
    },
}

/// How to run a notebook.
pub struct RunArgs {
    pub notebook: PathBuf,
    /// Where to write the executed notebook (default: over the input).
    pub output: Option<PathBuf>,
    pub options: Options,
}

/// Runs every code cell; returns the number of cells run.
pub fn run(args: &RunArgs) -> Result<usize, RunError> {
    let name = args.notebook.display().to_string();
    let text =
        std::fs::read_to_string(&args.notebook).map_err(|e| RunError::Io(name.clone(), e))?;
    let mut nb: Value =
        serde_json::from_str(&text).map_err(|e| RunError::Format(name.clone(), e.to_string()))?;
    let out = args.output.clone().unwrap_or_else(|| args.notebook.clone());
    let out = std::path::absolute(&out).map_err(|e| RunError::Io(out.display().to_string(), e))?;
    // Cells see paths relative to the notebook, as under Jupyter.
    if let Some(dir) = args.notebook.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::env::set_current_dir(dir).map_err(|e| RunError::Io(dir.display().to_string(), e))?;
    }
    let session =
        Session::new(args.options.clone()).map_err(|e| RunError::Session(e.to_string()))?;
    let (iopub, mut rx) = tokio::sync::mpsc::unbounded_channel::<JupyterMessage>();
    let mut state = State {
        session,
        count: 0,
        uncounted: 0,
        history: History::default(),
        iopub,
    };
    let cells = nb
        .get_mut("cells")
        .and_then(Value::as_array_mut)
        .ok_or_else(|| RunError::Format(name.clone(), "no cells".to_string()))?;
    let mut ran = 0;
    let mut failure = None;
    for (index, cell) in cells.iter_mut().enumerate() {
        if cell.get("cell_type").and_then(Value::as_str) != Some("code") {
            continue;
        }
        let code = source(cell);
        let request = JupyterMessage::new(ExecuteRequest::new(code.clone()), None);
        let done = execute::execute(&mut state, &request, &code, false, true);
        ran += 1;
        let mut outputs: Vec<Value> = Vec::new();
        while let Ok(msg) = rx.try_recv() {
            if let Some(o) = output(&msg) {
                push_output(&mut outputs, o);
            }
        }
        let Some(obj) = cell.as_object_mut() else {
            continue;
        };
        obj.insert("outputs".to_string(), Value::Array(outputs));
        obj.insert("execution_count".to_string(), json!(done.count));
        let allowed = obj
            .get("metadata")
            .and_then(|m| m.get("tags"))
            .and_then(Value::as_array)
            .is_some_and(|t| t.iter().any(|t| t == "raises-exception"));
        if let Some(e) = done.error
            && !allowed
        {
            failure = Some(RunError::Cell {
                cell: index,
                ename: e.ename,
                evalue: e.evalue,
            });
            break;
        }
    }
    let text = serde_json::to_string_pretty(&nb)
        .map_err(|e| RunError::Format(name.clone(), e.to_string()))?;
    std::fs::write(&out, text + "\n").map_err(|e| RunError::Io(out.display().to_string(), e))?;
    match failure {
        Some(f) => Err(f),
        None => Ok(ran),
    }
}

/// A cell's source (a string or a list of lines).
fn source(cell: &Value) -> String {
    match cell.get("source") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(lines)) => lines.iter().filter_map(Value::as_str).collect(),
        _ => String::new(),
    }
}

/// The nbformat output for an IOPub message, if it is one.
fn output(msg: &JupyterMessage) -> Option<Value> {
    let content = serde_json::to_value(&msg.content).ok()?;
    let get = |k: &str| content.get(k).cloned().unwrap_or(Value::Null);
    let empty = || Value::Object(Map::new());
    let or_empty = |v: Value| if v.is_null() { empty() } else { v };
    Some(match msg.header.msg_type.as_str() {
        "stream" => json!({"output_type": "stream", "name": get("name"), "text": get("text")}),
        "execute_result" => json!({
            "output_type": "execute_result",
            "execution_count": get("execution_count"),
            "data": or_empty(get("data")),
            "metadata": or_empty(get("metadata")),
        }),
        "display_data" => json!({
            "output_type": "display_data",
            "data": or_empty(get("data")),
            "metadata": or_empty(get("metadata")),
        }),
        "error" => json!({
            "output_type": "error",
            "ename": get("ename"),
            "evalue": get("evalue"),
            "traceback": get("traceback"),
        }),
        _ => return None,
    })
}

/// Appends an output, joining consecutive text on the same stream as Jupyter shows it.
fn push_output(outputs: &mut Vec<Value>, o: Value) {
    if o["output_type"] == "stream"
        && let Some(last) = outputs.last_mut()
        && last["output_type"] == "stream"
        && last["name"] == o["name"]
        && let (Some(a), Some(b)) = (last["text"].as_str(), o["text"].as_str())
    {
        last["text"] = Value::String(format!("{a}{b}"));
        return;
    }
    outputs.push(o);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_join_lines() {
        assert_eq!(source(&json!({"source": ["a\n", "b"]})), "a\nb");
        assert_eq!(source(&json!({"source": "x"})), "x");
        assert_eq!(source(&json!({})), "");
    }

    #[test]
    fn streams_merge_by_name() {
        let mut outs = Vec::new();
        push_output(
            &mut outs,
            json!({"output_type": "stream", "name": "stdout", "text": "a\n"}),
        );
        push_output(
            &mut outs,
            json!({"output_type": "stream", "name": "stdout", "text": "b\n"}),
        );
        push_output(
            &mut outs,
            json!({"output_type": "stream", "name": "stderr", "text": "c\n"}),
        );
        assert_eq!(outs.len(), 2);
        assert_eq!(outs[0]["text"], "a\nb\n");
    }
}
