//! Reading shell requests off the socket ourselves, so that requests `jupyter-protocol`
//! cannot parse as sent are still answered: its `HistoryRequest` wants every field, but
//! Jupyter's own client leaves out `unique` and `n` of a search (and a client may leave out
//! `output` or `raw`), which the message specification gives defaults for. The signature is
//! verified on the bytes as received; only then are the missing fields filled in.

use jupyter_protocol::{Header, JupyterMessage, JupyterMessageContent};
use jupyter_zmq_client::{RawMessage, RuntimeError};
use serde_json::Value;
use zeromq::SocketRecv;

/// Reads one message from a ROUTER socket (shell or control).
pub async fn read<S: SocketRecv>(
    conn: &mut jupyter_zmq_client::Connection<S>,
) -> Result<JupyterMessage, RuntimeError> {
    let raw = RawMessage::from_multipart(conn.socket.recv().await?, &conn.mac)?;
    decode(raw)
}

/// A verified raw message as a [`JupyterMessage`], with defaults filled in.
fn decode(raw: RawMessage) -> Result<JupyterMessage, RuntimeError> {
    if raw.jparts.len() < 4 {
        return Err(RuntimeError::InsufficientMessageParts(raw.jparts.len()));
    }
    let header: Header = serde_json::from_slice(&raw.jparts[0])?;
    let mut content: Value = serde_json::from_slice(&raw.jparts[3])?;
    fill_defaults(&header.msg_type, &mut content);
    let content = JupyterMessageContent::from_type_and_content(&header.msg_type, content).map_err(
        |source| RuntimeError::ParseError {
            msg_type: header.msg_type.clone(),
            source,
        },
    )?;
    Ok(JupyterMessage {
        zmq_identities: raw.zmq_identities,
        header,
        // An empty parent header is sent as `{}`, which is no header.
        parent_header: serde_json::from_slice(&raw.jparts[1]).ok(),
        metadata: serde_json::from_slice(&raw.jparts[2])?,
        content,
        buffers: raw.jparts[4..].to_vec(),
        channel: None,
    })
}

/// The specification's defaults for fields a client may leave out.
pub fn fill_defaults(msg_type: &str, content: &mut Value) {
    let Value::Object(fields) = content else {
        return;
    };
    if msg_type == "history_request" {
        let defaults = [
            ("output", Value::Bool(false)),
            ("raw", Value::Bool(true)),
            ("unique", Value::Bool(false)),
            ("n", Value::from(0)),
            ("pattern", Value::from("*")),
            ("start", Value::from(0)),
            ("stop", Value::from(i32::MAX)),
        ];
        for (k, v) in defaults {
            if !fields.contains_key(k) || fields[k].is_null() {
                fields.insert(k.to_string(), v);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_search_without_unique_or_n_parses() {
        let mut c = serde_json::json!({
            "hist_access_type": "search", "pattern": "1*", "output": false, "raw": true,
        });
        fill_defaults("history_request", &mut c);
        let m = JupyterMessageContent::from_type_and_content("history_request", c)
            .expect("parses with the defaults");
        assert!(matches!(m, JupyterMessageContent::HistoryRequest(_)));
    }
}
