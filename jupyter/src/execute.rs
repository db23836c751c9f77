//! Running a notebook cell and answering completion, inspection and completeness requests.
//!
//! A cell's outputs go to IOPub as they happen: `#[trace]` lines, command output and notes
//! as `stdout` streams (the checker's warnings on `stderr`), values as `execute_result`
//! (`text/plain` and `text/html`, with shape and type, time and device in one caption and
//! in the metadata), pictures as `display_data`, and failures as one `error` message
//! carrying the rendered diagnostic.
//!
//! The session numbers a cell by the notebook's `execution_count`, so error locations
//! (`[3]:1:5`), traces, `%profile` and `%compare` speak of `In[3]`. Cells that get no count
//! of their own (silent, or not stored in the history) are numbered past [`UNCOUNTED`].

use futhark_session::commands::{self, Command};
use futhark_session::html::{caption_type, escape, shown_html, table_abbreviated};
use futhark_session::outcome::duration_text;
use futhark_session::{
    CandidateKind, CellError, Completeness, ErrorKind, Evaluated, NameKind, Session, Shown,
};
use jupyter_protocol::{
    CompleteReply, DisplayData, ErrorOutput, ExecuteInput, ExecuteResult, ExecutionCount,
    InspectReply, IsCompleteReply, JupyterMessage, Media, MediaType, Payload, ReplyError,
    StreamContent,
};
use serde_json::{Map, Value, json};

use crate::actor::State;
use crate::magics::{self, Step};
use futhark_session::picture::{image, plot, png};

/// Where the numbers of cells without an execution count of their own start.
pub const UNCOUNTED: usize = 1_000_000;

/// What the shell loop needs for `execute_reply`.
pub struct ExecuteDone {
    pub count: usize,
    pub error: Option<ReplyError>,
    pub payload: Vec<Payload>,
}

/// A value that evaluated, with what the footer says about it.
struct Ran {
    shown: Shown,
    total_ms: f64,
    device: String,
    location: String,
    profile: Option<futhark_session::Profile>,
}

struct Cell<'a> {
    state: &'a mut State,
    request: &'a JupyterMessage,
    silent: bool,
    /// The session's number for this cell.
    number: usize,
    payload: Vec<Payload>,
    /// The text of the last output (for history with output).
    output: String,
}

/// Runs a cell.
pub fn execute(
    state: &mut State,
    request: &JupyterMessage,
    code: &str,
    silent: bool,
    store_history: bool,
) -> ExecuteDone {
    let number = if !silent && store_history {
        state.count += 1;
        state.count
    } else {
        state.uncounted += 1;
        UNCOUNTED + state.uncounted
    };
    let count = state.count;
    if !silent {
        let _ = state.iopub.send(
            ExecuteInput {
                code: code.to_string(),
                execution_count: ExecutionCount::new(count),
            }
            .as_child_of(request),
        );
    }
    let mut cell = Cell {
        state,
        request,
        silent,
        number,
        payload: Vec::new(),
        output: String::new(),
    };
    let mut error = None;
    for step in magics::timed(magics::split(code)) {
        let r = match step {
            Step::Command(line) => cell.command(line),
            Step::Code(text) => cell.code(text, count),
            Step::Img(exp) => cell.draw(exp, true),
            Step::Plot2d(exp) => cell.draw(exp, false),
        };
        if let Err(e) = r {
            error = Some(e);
            break;
        }
    }
    let output = std::mem::take(&mut cell.output);
    let payload = std::mem::take(&mut cell.payload);
    if !silent && store_history {
        state.history.push(count, code, &output);
    }
    ExecuteDone {
        count,
        error,
        payload,
    }
}

impl Cell<'_> {
    fn publish(&self, msg: JupyterMessage) {
        if !self.silent {
            let _ = self.state.iopub.send(msg);
        }
    }

    fn stream(&self, mut s: StreamContent) {
        if s.text.is_empty() {
            return;
        }
        if !s.text.ends_with('\n') {
            s.text.push('\n');
        }
        self.publish(s.as_child_of(self.request));
    }

    fn fail(&self, e: &CellError) -> ReplyError {
        let rendered = self.state.session.render_error(e, true);
        let err = ReplyError {
            ename: e.kind.ename().to_string(),
            evalue: e.summary.clone(),
            traceback: rendered.lines().map(str::to_string).collect(),
        };
        self.publish(
            ErrorOutput {
                ename: err.ename.clone(),
                evalue: err.evalue.clone(),
                traceback: err.traceback.clone(),
            }
            .as_child_of(self.request),
        );
        err
    }

    /// A `%` command; its output, notes included, goes to stdout.
    fn command(&mut self, line: &str) -> Result<(), ReplyError> {
        let cmd = commands::parse(line, '%').map_err(|e| self.fail(&e))?;
        match cmd {
            Command::Doc(name) => {
                let Some(info) = self.state.session.inspect(&name) else {
                    return Err(self.fail(&CellError::message(
                        ErrorKind::Usage,
                        format!("nothing named {name} in scope"),
                    )));
                };
                self.payload.push(Payload::Page {
                    data: Media::new(vec![MediaType::Plain(info.text())]),
                    start: 0,
                });
                Ok(())
            }
            Command::Quit => {
                self.stream(StreamContent::stderr(
                    "%quit does nothing in a notebook: use the kernel menu to shut down.",
                ));
                Ok(())
            }
            cmd => {
                let out = commands::run(&mut self.state.session, cmd, '%');
                self.output = out.text.clone();
                self.stream(StreamContent::stdout(&self.output));
                match &out.error {
                    Some(e) => Err(self.fail(e)),
                    None => Ok(()),
                }
            }
        }
    }

    /// Evaluates Futhark code; the value, if it was an expression.
    fn eval(&mut self, code: &str) -> Result<Option<Ran>, ReplyError> {
        let iopub = self.state.iopub.clone();
        let request = self.request.clone();
        let silent = self.silent;
        self.state.session.set_next_cell(self.number);
        let out = self.state.session.eval(code, &mut |line| {
            if !silent {
                let _ =
                    iopub.send(StreamContent::stdout(&format!("{line}\n")).as_child_of(&request));
            }
        });
        if !out.warnings.is_empty() {
            let text = self.state.session.render(&out.warnings, true);
            self.stream(StreamContent::stderr(&text));
        }
        if let Some(note) = &out.note {
            self.stream(StreamContent::stdout(&format!("note: {note}")));
        }
        if self.state.session.show_time && out.result.is_ok() {
            self.stream(StreamContent::stdout(&format!(
                "-- {} on {}",
                out.timing.summary(),
                out.location
            )));
        }
        match out.result {
            Ok(Evaluated::Value(shown)) => Ok(Some(Ran {
                shown,
                total_ms: out.timing.total.as_secs_f64() * 1e3,
                device: out.device.to_string(),
                location: out.location,
                profile: out.profile,
            })),
            Ok(_) => Ok(None),
            Err(e) => Err(self.fail(&e)),
        }
    }

    fn code(&mut self, text: &str, count: usize) -> Result<(), ReplyError> {
        let Some(ran) = self.eval(text)? else {
            return Ok(());
        };
        let shown = &ran.shown;
        let opts = self.state.session.options().format;
        let mut plain = shown.text.text.clone();
        if shown.text.abbreviated {
            plain.push_str(&format!("\n-- abbreviated: {}", caption_type(shown)));
        }
        // One caption: shape and type, time, where it ran.
        let footer = format!(
            "<div class=\"futhark-caption\" style=\"color: #777; font-size: smaller\"><code>{}</code>{} · {} · {}</div>",
            escape(&caption_type(shown)),
            if table_abbreviated(shown, opts) {
                " (abbreviated)"
            } else {
                ""
            },
            duration_text(std::time::Duration::from_secs_f64(ran.total_ms / 1e3)),
            escape(&ran.location)
        );
        let html = format!("{}{footer}", shown_html(shown, opts));
        self.output = plain.clone();
        let mut result = ExecuteResult::new(
            ExecutionCount::new(count),
            Media::new(vec![MediaType::Plain(plain), MediaType::Html(html)]),
        );
        result.metadata = metadata(&ran);
        // `null` fails the message schema; an empty object is what clients expect.
        result.transient = Some(Default::default());
        self.publish(result.as_child_of(self.request));
        Ok(())
    }

    fn draw(&mut self, exp: &str, image: bool) -> Result<(), ReplyError> {
        let what = if image { "%img" } else { "%plot2d" };
        if exp.trim().is_empty() {
            return Err(self.fail(&CellError::message(
                ErrorKind::Usage,
                format!("{what} needs an expression"),
            )));
        }
        let Some(ran) = self.eval(exp)? else {
            return Err(self.fail(&CellError::message(
                ErrorKind::Usage,
                format!("{what} needs an expression, not declarations"),
            )));
        };
        let (picture, text) = if image {
            let img = image::to_image(&ran.shown.value, &ran.shown.ty).map_err(|e| {
                self.fail(&CellError::message(ErrorKind::Usage, format!("{what} {e}")))
            })?;
            let text = format!("{}x{} image", img.width, img.height);
            (img, text)
        } else {
            let (xs, ys) = plot::points(&ran.shown.value, &ran.shown.ty).map_err(|e| {
                self.fail(&CellError::message(ErrorKind::Usage, format!("{what} {e}")))
            })?;
            let indexed = matches!(ran.shown.value, futhark_session::ValueView::Prim(_));
            plot::plot(&xs, &ys, indexed)
        };
        let bytes = png::encode(&picture).map_err(|e| {
            self.fail(&CellError::message(
                ErrorKind::Usage,
                format!("cannot encode the picture as PNG: {e}"),
            ))
        })?;
        let data = data_encoding::BASE64.encode(&bytes);
        let mut display = DisplayData::new(Media::new(vec![
            MediaType::Png(data),
            MediaType::Plain(text.clone()),
        ]));
        display.metadata = metadata(&ran);
        self.output = text;
        self.publish(display.as_child_of(self.request));
        Ok(())
    }
}

fn metadata(ran: &Ran) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert(
        "futhark".to_string(),
        json!({
            "type": ran.shown.ty,
            "shape": ran.shown.value.shape(),
            "time_ms": ran.total_ms,
            "device": ran.device,
            "location": ran.location,
            "kernel_ms": ran.profile.as_ref().map(|p| p.kernel_ms()),
            "kernels": ran.profile.as_ref().map(|p| p.kernels.iter().map(|k| json!({
                "name": k.name, "launches": k.launches, "ms": k.ms,
            })).collect::<Vec<_>>()),
        }),
    );
    m
}

/// Byte offset of the `chars`-th character (Jupyter counts cursor positions in characters).
fn byte_offset(text: &str, chars: usize) -> usize {
    text.char_indices()
        .nth(chars)
        .map_or(text.len(), |(i, _)| i)
}

fn char_offset(text: &str, bytes: usize) -> usize {
    text.get(..bytes)
        .map_or(text.chars().count(), |s| s.chars().count())
}

/// Answers `complete_request`.
pub fn complete(session: &Session, code: &str, cursor: usize) -> CompleteReply {
    let at = byte_offset(code, cursor);
    let names = magics::names();
    let c = futhark_session::complete::complete(session.scope(), code, at, '%', &names);
    let (start, end) = (char_offset(code, c.start), char_offset(code, c.end));
    let types: Vec<Value> = c
        .items
        .iter()
        .map(|i| {
            let kind = match i.kind {
                CandidateKind::Name(NameKind::Value) => "function",
                CandidateKind::Name(NameKind::Type) => "class",
                CandidateKind::Name(_) => "module",
                CandidateKind::Keyword => "keyword",
                CandidateKind::Command => "magic",
                CandidateKind::Path => "path",
            };
            json!({ "start": start, "end": end, "text": i.text, "type": kind })
        })
        .collect();
    let mut metadata = Map::new();
    metadata.insert(
        "_jupyter_types_experimental".to_string(),
        Value::Array(types),
    );
    CompleteReply {
        matches: c.items.into_iter().map(|i| i.text).collect(),
        cursor_start: start,
        cursor_end: end,
        metadata,
        ..CompleteReply::default()
    }
}

/// The (possibly qualified) name around a cursor.
fn name_at(code: &str, at: usize) -> &str {
    let is_name = |c: char| c.is_alphanumeric() || c == '_' || c == '\'' || c == '.';
    let start = code[..at]
        .char_indices()
        .rev()
        .take_while(|(_, c)| is_name(*c))
        .last()
        .map_or(at, |(i, _)| i);
    let end = code[at..]
        .char_indices()
        .find(|(_, c)| !is_name(*c))
        .map_or(code.len(), |(i, _)| at + i);
    code[start..end].trim_matches('.')
}

/// Answers `inspect_request`: the signature and doc comment of the name at the cursor.
pub fn inspect(session: &Session, code: &str, cursor: usize) -> InspectReply {
    let at = byte_offset(code, cursor);
    let name = name_at(code, at);
    match session.inspect(name) {
        Some(info) => {
            let mut md = format!("```futhark\n{}\n```", info.signature);
            if let Some(d) = &info.doc {
                md.push_str("\n\n");
                md.push_str(d.trim_end());
            }
            InspectReply {
                found: true,
                data: Media::new(vec![MediaType::Plain(info.text()), MediaType::Markdown(md)]),
                ..InspectReply::default()
            }
        }
        None => InspectReply::default(),
    }
}

/// Answers `is_complete_request`.
pub fn is_complete(code: &str) -> IsCompleteReply {
    match futhark_session::complete::is_complete(code, '%') {
        Completeness::Complete => IsCompleteReply::complete(),
        Completeness::Incomplete => IsCompleteReply::incomplete("  ".to_string()),
        Completeness::Invalid => IsCompleteReply::invalid(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_at_cursors() {
        assert_eq!(name_at("map f xs", 1), "map");
        assert_eq!(name_at("f32.sqrt 2", 5), "f32.sqrt");
        assert_eq!(name_at("x", 1), "x");
    }

    #[test]
    fn offsets_count_characters() {
        assert_eq!(byte_offset("λx", 1), 2);
        assert_eq!(char_offset("λx", 2), 1);
    }
}
