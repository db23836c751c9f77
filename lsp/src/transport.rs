//! A guard in front of the protocol library's transport. tower-lsp stops reading its input
//! after the first message it cannot decode, so a single malformed message from a client
//! would end the session. This layer frames stdin itself, answers malformed JSON
//! (`-32700`) and messages that are not JSON-RPC (`-32600`) on its own, and forwards only
//! well-formed messages to the server; the server's output and these answers share one
//! writer, so frames never interleave.

use serde_json::{Value, json};
use tokio::io::{
    AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader,
};
use tokio::sync::mpsc;

/// Longest header line we accept.
const MAX_HEADER_LINE: usize = 8 * 1024;
/// Largest message body we accept (larger ones are skipped with an error).
const MAX_BODY: usize = 256 << 20;

/// Reads one frame: `Ok(None)` at end of input, `Ok(Some(Err(msg)))` for a frame whose
/// header was unusable (it has been skipped).
async fn read_frame<R: AsyncBufRead + Unpin>(
    input: &mut R,
) -> std::io::Result<Option<Result<Vec<u8>, String>>> {
    let mut length: Option<usize> = None;
    let mut bad_header = None;
    let mut saw_any = false;
    loop {
        let mut line = Vec::new();
        let n = (&mut *input)
            .take(MAX_HEADER_LINE as u64)
            .read_until(b'\n', &mut line)
            .await?;
        if n == 0 {
            return Ok(None);
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.trim_end_matches(['\r', '\n']);
        if text.is_empty() {
            if saw_any {
                break;
            }
            continue;
        }
        saw_any = true;
        match text.split_once(':') {
            Some((name, value)) if name.trim().eq_ignore_ascii_case("content-length") => {
                match value.trim().parse::<usize>() {
                    Ok(n) => length = Some(n),
                    Err(_) => {
                        bad_header = Some(format!("invalid Content-Length `{}`", value.trim()))
                    }
                }
            }
            Some(_) => {}
            None => bad_header = Some(format!("invalid header line `{text}`")),
        }
    }
    let Some(length) = length else {
        return Ok(Some(Err(
            bad_header.unwrap_or_else(|| "missing Content-Length".into())
        )));
    };
    if length > MAX_BODY {
        tokio::io::copy(
            &mut (&mut *input).take(length as u64),
            &mut tokio::io::sink(),
        )
        .await?;
        return Ok(Some(Err(format!("message of {length} bytes is too large"))));
    }
    let mut body = vec![0; length];
    input.read_exact(&mut body).await?;
    Ok(Some(bad_header.map_or(Ok(body), Err)))
}

fn frame(body: &[u8]) -> Vec<u8> {
    let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    out.extend_from_slice(body);
    out
}

fn error_frame(code: i64, message: &str, id: Value) -> Vec<u8> {
    let body = json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}});
    frame(body.to_string().as_bytes())
}

/// Checks that a decoded body is a JSON-RPC 2.0 request, notification or response the
/// server can decode; otherwise the error to answer (code, message, id).
fn check(value: &Value) -> Result<(), (i64, String, Value)> {
    let Some(obj) = value.as_object() else {
        return Err((
            -32600,
            "a message must be a JSON object".into(),
            Value::Null,
        ));
    };
    let id = obj.get("id").cloned().unwrap_or(Value::Null);
    let id_ok = match &id {
        Value::Null | Value::String(_) => true,
        Value::Number(n) => n.is_i64(),
        _ => false,
    };
    let answer_id = if id_ok { id.clone() } else { Value::Null };
    let invalid = |why: &str| Err((-32600, why.to_string(), answer_id.clone()));
    if obj.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return invalid("\"jsonrpc\" must be \"2.0\"");
    }
    if !id_ok {
        return invalid("\"id\" must be an integer or a string");
    }
    match obj.get("method") {
        Some(Value::String(_)) => Ok(()),
        Some(_) => invalid("\"method\" must be a string"),
        None if (obj.contains_key("result") || obj.contains_key("error")) && !id.is_null() => {
            Ok(())
        }
        None => invalid("neither a request, a notification nor a response"),
    }
}

/// Copies client messages from `input` to `server`, answering bad ones through `replies`.
pub async fn guard_input<R, W>(input: R, mut server: W, replies: mpsc::UnboundedSender<Vec<u8>>)
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut input = BufReader::new(input);
    loop {
        let body = match read_frame(&mut input).await {
            Ok(Some(Ok(body))) => body,
            Ok(Some(Err(why))) => {
                let _ = replies.send(error_frame(-32700, &why, Value::Null));
                continue;
            }
            Ok(None) | Err(_) => break,
        };
        let value: Value = match serde_json::from_slice(&body) {
            Ok(v) => v,
            Err(e) => {
                let _ = replies.send(error_frame(
                    -32700,
                    &format!("parse error: {e}"),
                    Value::Null,
                ));
                continue;
            }
        };
        if let Err((code, why, id)) = check(&value) {
            let _ = replies.send(error_frame(code, &why, id));
            continue;
        }
        if server.write_all(&frame(&body)).await.is_err() || server.flush().await.is_err() {
            break;
        }
    }
    let _ = server.shutdown().await;
}

/// Forwards the server's output frames to `replies` (whole frames only).
pub async fn collect_output<R: AsyncRead + Unpin>(
    output: R,
    replies: mpsc::UnboundedSender<Vec<u8>>,
) {
    let mut output = BufReader::new(output);
    while let Ok(Some(Ok(body))) = read_frame(&mut output).await {
        if replies.send(frame(&body)).is_err() {
            break;
        }
    }
}

/// Writes every frame to `out` in order.
pub async fn write_output<W: AsyncWrite + Unpin>(
    mut out: W,
    mut frames: mpsc::UnboundedReceiver<Vec<u8>>,
) {
    while let Some(f) = frames.recv().await {
        if out.write_all(&f).await.is_err() || out.flush().await.is_err() {
            break;
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::check;

    #[test]
    fn classifies_messages() {
        assert!(check(&json!({"jsonrpc": "2.0", "id": 1, "method": "x"})).is_ok());
        assert!(check(&json!({"jsonrpc": "2.0", "method": "x"})).is_ok());
        assert!(check(&json!({"jsonrpc": "2.0", "id": "a", "result": null})).is_ok());
        assert_eq!(check(&json!([1, 2])).map_err(|e| e.0), Err(-32600));
        assert_eq!(
            check(&json!({"jsonrpc": "2.0", "id": 5})).map_err(|e| e.2),
            Err(json!(5))
        );
        assert!(check(&json!({"jsonrpc": "2.0", "id": 1.5, "method": "x"})).is_err());
        assert!(check(&json!({"jsonrpc": "1.0", "id": 1, "method": "x"})).is_err());
        assert!(check(&json!({"jsonrpc": "2.0", "id": 1, "method": 7})).is_err());
    }
}
