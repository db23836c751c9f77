//! The interpreter's thread. A [`futhark_interp::Session`] holds `Rc` values, so it lives on
//! one thread with a large stack and is driven by messages: evaluate these cell texts, and
//! reply with `#[trace]` lines as they happen and then the result as a [`ValueView`].
//!
//! Spans in errors and trace lines are mapped to the session's files here, where the
//! [`SpanMap`] lives. A panic inside the interpreter (a bug, never expected) becomes an
//! error reply; the thread goes on serving.

use std::cell::RefCell;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::sync::mpsc::{self, Receiver, Sender};
use std::time::{Duration, Instant};

use futhark_interp::{Program, RuntimeError, STACK_SIZE, TypeHints};
use futhark_syntax::FileId;

use crate::spans::{Origin, SpanMap};
use crate::value::{ValueView, view};

/// One text for the interpreter to evaluate as a cell.
pub struct Part {
    pub text: String,
    /// The file id to parse it under (the database's id of the cell); `None` for a text the
    /// user never sees, which gets a fresh id.
    pub file: Option<FileId>,
    /// The checker's facts about the text.
    pub hints: TypeHints,
    /// How the text relates to the user's cell (for locations).
    pub origin: Option<Origin>,
}

enum Request {
    Eval(Vec<Part>),
}

/// What the worker sends back.
pub enum Reply {
    /// A `#[trace]` line, sent as soon as it is printed.
    Trace(String),
    /// The end of a request: the value of the last part (if it was an expression) and the
    /// time spent evaluating.
    Done(Result<Option<ValueView>, RuntimeError>, Duration),
}

/// The handle to a running interpreter thread. Dropping it ends the thread once the
/// evaluation in progress (if any) has stopped.
pub struct Worker {
    tx: Option<Sender<Request>>,
    pub rx: Receiver<Reply>,
}

impl Worker {
    /// Starts a thread that loads `program`; the first reply is the load's `Done`.
    pub fn start(program: Program, interrupt: Arc<AtomicBool>) -> Result<Worker, RuntimeError> {
        let (tx, req_rx) = mpsc::channel::<Request>();
        let (rep_tx, rx) = mpsc::channel::<Reply>();
        std::thread::Builder::new()
            .name("futhark-session-interp".to_string())
            .stack_size(STACK_SIZE)
            .spawn(move || serve(program, interrupt, req_rx, rep_tx))
            .map_err(|e| RuntimeError::new(format!("cannot start the interpreter thread: {e}")))?;
        Ok(Worker { tx: Some(tx), rx })
    }

    /// Sends texts to evaluate; read the replies from `rx` until `Done`.
    pub fn eval(&self, parts: Vec<Part>) -> Result<(), RuntimeError> {
        self.tx
            .as_ref()
            .and_then(|tx| tx.send(Request::Eval(parts)).ok())
            .ok_or_else(|| RuntimeError::new("the interpreter thread has stopped"))
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        // Closing the channel ends the thread's loop.
        self.tx = None;
    }
}

fn panic_text(p: Box<dyn std::any::Any + Send>) -> String {
    let msg = p
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_string());
    format!("internal error in the interpreter: {msg}")
}

fn serve(
    program: Program,
    interrupt: Arc<AtomicBool>,
    requests: Receiver<Request>,
    replies: Sender<Reply>,
) {
    let map = Rc::new(RefCell::new(SpanMap::default()));
    let start = Instant::now();
    let loaded = catch_unwind(AssertUnwindSafe(|| {
        futhark_interp::Session::new(program, interrupt.clone())
    }));
    let mut session = match loaded {
        Ok(Ok(s)) => s,
        Ok(Err(e)) => {
            let _ = replies.send(Reply::Done(
                Err(map_error(&map.borrow(), e)),
                start.elapsed(),
            ));
            return;
        }
        Err(p) => {
            let _ = replies.send(Reply::Done(
                Err(RuntimeError::new(panic_text(p))),
                start.elapsed(),
            ));
            return;
        }
    };
    {
        let machine = session.machine();
        machine.stack_limit = STACK_SIZE - (16 << 20);
        let fallback = machine.describe.clone();
        let spans = map.clone();
        machine.describe = Rc::new(move |span| {
            let mapped = spans.borrow().describe(span);
            mapped.unwrap_or_else(|| fallback(span))
        });
        let trace_tx = replies.clone();
        machine.trace = Some(Box::new(move |line: &str| {
            let _ = trace_tx.send(Reply::Trace(line.to_string()));
        }));
    }
    if replies
        .send(Reply::Done(Ok(None), start.elapsed()))
        .is_err()
    {
        return;
    }
    while let Ok(Request::Eval(parts)) = requests.recv() {
        interrupt.store(false, std::sync::atomic::Ordering::Relaxed);
        let start = Instant::now();
        let mut result = Ok(None);
        for part in parts {
            if let (Some(file), Some(o)) = (part.file, part.origin) {
                map.borrow_mut().insert(file, o);
            }
            session.add_hints(part.hints);
            let r = catch_unwind(AssertUnwindSafe(|| match part.file {
                Some(file) => session.eval_cell_in(file, &part.text),
                None => session.eval_cell(&part.text),
            }));
            result = match r {
                Ok(Ok(v)) => Ok(v.as_ref().map(view)),
                Ok(Err(e)) => Err(map_error(&map.borrow(), e)),
                Err(p) => Err(RuntimeError::new(panic_text(p))),
            };
            if result.is_err() {
                break;
            }
        }
        if replies.send(Reply::Done(result, start.elapsed())).is_err() {
            return;
        }
    }
}

/// Moves an error's spans from the evaluated texts to the user's.
fn map_error(map: &SpanMap, mut e: RuntimeError) -> RuntimeError {
    e.span = e.span.map(|s| map.map(s));
    e.backtrace = e.backtrace.iter().map(|s| map.map(*s)).collect();
    e
}
