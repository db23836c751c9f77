//! [`Interpreter`]: a [`Session`] on its own thread with a large stack, driven by messages.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::thread::JoinHandle;
use std::time::Duration;

use futhark_values as fv;

use crate::errors::{Result, RuntimeError};
use crate::program::Program;
use crate::session::Session;

/// Stack size of the evaluation thread.
pub const STACK_SIZE: usize = 256 << 20;

enum Request {
    Call(String, Vec<fv::Value>),
    Cell(String),
    CellWith(
        futhark_syntax::FileId,
        String,
        Box<crate::program::TypeHints>,
    ),
    Entries,
}

enum Reply {
    Values(Result<Vec<fv::Value>>),
    Cell(Result<Option<String>>),
    Entries(Vec<String>),
}

/// A handle to an interpreter session running on a worker thread. Dropping it ends the
/// worker (after any evaluation in progress, which [`Interpreter::interrupt`] stops).
pub struct Interpreter {
    tx: Option<Sender<Request>>,
    rx: Receiver<Reply>,
    interrupt: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Interpreter {
    /// Loads a program on a new worker thread.
    pub fn new(program: Program) -> Result<Interpreter> {
        Interpreter::with_timeout(program, None)
    }

    /// Loads a program, giving up (and interrupting the load) after `timeout`.
    pub fn with_timeout(program: Program, timeout: Option<Duration>) -> Result<Interpreter> {
        let interrupt = Arc::new(AtomicBool::new(false));
        let (tx, req_rx) = mpsc::channel::<Request>();
        let (rep_tx, rx) = mpsc::channel::<Reply>();
        let (ready_tx, ready_rx) = mpsc::channel::<Result<()>>();
        let flag = interrupt.clone();
        let thread = std::thread::Builder::new()
            .name("futhark-interp".to_string())
            .stack_size(STACK_SIZE)
            .spawn(move || {
                let mut session = match Session::new(program, flag.clone()) {
                    Ok(s) => {
                        let _ = ready_tx.send(Ok(()));
                        s
                    }
                    Err(e) => {
                        let _ = ready_tx.send(Err(e));
                        return;
                    }
                };
                session.machine().stack_limit = STACK_SIZE - (16 << 20);
                while let Ok(req) = req_rx.recv() {
                    flag.store(false, Ordering::Relaxed);
                    // A bug in the interpreter must not take the caller down: a panic while
                    // serving a request becomes an error reply.
                    let kind = match &req {
                        Request::Call(..) => 0,
                        Request::Cell(..) | Request::CellWith(..) => 1,
                        Request::Entries => 2,
                    };
                    let served =
                        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match req {
                            Request::Call(name, args) => {
                                Reply::Values(session.call_entry(&name, args))
                            }
                            Request::Cell(text) => Reply::Cell(
                                session
                                    .eval_cell(&text)
                                    .map(|v| v.map(|v| crate::show::show(&v))),
                            ),
                            Request::CellWith(id, text, hints) => {
                                session.add_hints(*hints);
                                Reply::Cell(
                                    session
                                        .eval_cell_in(id, &text)
                                        .map(|v| v.map(|v| crate::show::show(&v))),
                                )
                            }
                            Request::Entries => Reply::Entries(session.entry_names()),
                        }));
                    let reply = served.unwrap_or_else(|p| {
                        let what = p
                            .downcast_ref::<&str>()
                            .map(|s| s.to_string())
                            .or_else(|| p.downcast_ref::<String>().cloned())
                            .unwrap_or_default();
                        let e = RuntimeError::new(format!("internal interpreter error: {what}"));
                        match kind {
                            0 => Reply::Values(Err(e)),
                            1 => Reply::Cell(Err(e)),
                            _ => Reply::Entries(Vec::new()),
                        }
                    });
                    if rep_tx.send(reply).is_err() {
                        break;
                    }
                }
            })
            .map_err(|e| RuntimeError::new(format!("cannot start the interpreter thread: {e}")))?;
        let ready = match timeout {
            Some(t) => ready_rx.recv_timeout(t).map_err(|e| match e {
                RecvTimeoutError::Timeout => {
                    interrupt.store(true, Ordering::Relaxed);
                    RuntimeError::new(format!("Timed out after {:.1} s.", t.as_secs_f64()))
                }
                RecvTimeoutError::Disconnected => {
                    RuntimeError::new("the interpreter thread failed to start")
                }
            })?,
            None => ready_rx
                .recv()
                .map_err(|_| RuntimeError::new("the interpreter thread failed to start"))?,
        };
        ready?;
        Ok(Interpreter {
            tx: Some(tx),
            rx,
            interrupt,
            thread: Some(thread),
        })
    }

    /// The flag that stops evaluation in progress when set (the REPL's Ctrl-C).
    pub fn interrupt_flag(&self) -> Arc<AtomicBool> {
        self.interrupt.clone()
    }

    /// Stops the evaluation in progress.
    pub fn interrupt(&self) {
        self.interrupt.store(true, Ordering::Relaxed);
    }

    fn request(&self, req: Request, timeout: Option<Duration>) -> Result<Reply> {
        let tx = self
            .tx
            .as_ref()
            .ok_or_else(|| RuntimeError::new("the interpreter has stopped"))?;
        tx.send(req)
            .map_err(|_| RuntimeError::new("the interpreter thread has stopped"))?;
        match timeout {
            None => self
                .rx
                .recv()
                .map_err(|_| RuntimeError::new("the interpreter thread has stopped")),
            Some(t) => match self.rx.recv_timeout(t) {
                Ok(r) => Ok(r),
                Err(RecvTimeoutError::Timeout) => {
                    self.interrupt();
                    // Wait briefly for the interrupted evaluation to come back.
                    let _ = self.rx.recv_timeout(Duration::from_secs(5));
                    Err(RuntimeError::new(format!(
                        "Timed out after {:.1} s.",
                        t.as_secs_f64()
                    )))
                }
                Err(RecvTimeoutError::Disconnected) => {
                    Err(RuntimeError::new("the interpreter thread has stopped"))
                }
            },
        }
    }

    /// Runs an entry point (see [`Session::call_entry`]).
    pub fn call_entry(&self, name: &str, args: Vec<fv::Value>) -> Result<Vec<fv::Value>> {
        self.call_entry_timeout(name, args, None)
    }

    /// Runs an entry point, interrupting it after `timeout`.
    pub fn call_entry_timeout(
        &self,
        name: &str,
        args: Vec<fv::Value>,
        timeout: Option<Duration>,
    ) -> Result<Vec<fv::Value>> {
        match self.request(Request::Call(name.to_string(), args), timeout)? {
            Reply::Values(r) => r,
            _ => Err(RuntimeError::new("unexpected reply")),
        }
    }

    /// Evaluates a REPL cell: declarations extend the environment (giving `None`); an
    /// expression gives its value printed in Futhark syntax.
    pub fn eval_cell(&self, text: &str) -> Result<Option<String>> {
        match self.request(Request::Cell(text.to_string()), None)? {
            Reply::Cell(r) => r,
            _ => Err(RuntimeError::new("unexpected reply")),
        }
    }

    /// Evaluates a REPL cell the caller has parsed as file `id` and type-checked, with the
    /// checker's hints for it (see [`crate::checked::hints_from_info`]). Use ids from
    /// [`crate::session::CELL_FILE_BASE`] upwards.
    pub fn eval_cell_with(
        &self,
        id: futhark_syntax::FileId,
        text: &str,
        hints: crate::program::TypeHints,
    ) -> Result<Option<String>> {
        match self.request(
            Request::CellWith(id, text.to_string(), Box::new(hints)),
            None,
        )? {
            Reply::Cell(r) => r,
            _ => Err(RuntimeError::new("unexpected reply")),
        }
    }

    /// Names of the entry points.
    pub fn entry_names(&self) -> Vec<String> {
        match self.request(Request::Entries, None) {
            Ok(Reply::Entries(v)) => v,
            _ => Vec::new(),
        }
    }
}

impl Drop for Interpreter {
    fn drop(&mut self) {
        self.interrupt();
        self.tx = None;
        if let Some(t) = self.thread.take() {
            // Do not wait for a worker that may be stuck in a long computation.
            drop(t);
        }
    }
}
