//! The thread that owns the [`Session`]. The async message loops send it [`Job`]s and
//! await the answers; it publishes a cell's outputs on IOPub itself as they happen, so trace
//! lines stream while the cell runs. Interrupting does not go through this thread: the
//! control loop holds an [`Interrupter`].

use std::sync::mpsc;

use futhark_session::{Interrupter, Options, Session};
use jupyter_protocol::{
    CompleteReply, HistoryReply, HistoryRequest, InspectReply, IsCompleteReply, JupyterMessage,
};
use tokio::sync::mpsc::UnboundedSender;
use tokio::sync::oneshot;

use crate::execute::{self, ExecuteDone};
use crate::history::History;

/// Work for the session's thread.
pub enum Job {
    Execute {
        request: Box<JupyterMessage>,
        code: String,
        silent: bool,
        store_history: bool,
        done: oneshot::Sender<ExecuteDone>,
    },
    Complete {
        code: String,
        cursor: usize,
        done: oneshot::Sender<CompleteReply>,
    },
    Inspect {
        code: String,
        cursor: usize,
        done: oneshot::Sender<InspectReply>,
    },
    IsComplete {
        code: String,
        done: oneshot::Sender<IsCompleteReply>,
    },
    History {
        request: HistoryRequest,
        done: oneshot::Sender<HistoryReply>,
    },
}

/// The state the session's thread keeps.
pub struct State {
    pub session: Session,
    /// The last execution count given out.
    pub count: usize,
    /// Cells run without a count of their own so far (see `execute::UNCOUNTED`).
    pub uncounted: usize,
    pub history: History,
    pub iopub: UnboundedSender<JupyterMessage>,
}

/// The handle the message loops use.
pub struct Actor {
    pub jobs: mpsc::Sender<Job>,
    pub interrupter: Interrupter,
    /// A line for `kernel_info_reply`: where cells run and why.
    pub banner: String,
}

/// Starts the session on its own thread.
pub fn spawn(options: Options, iopub: UnboundedSender<JupyterMessage>) -> Result<Actor, String> {
    let (jobs, rx) = mpsc::channel::<Job>();
    let (ready_tx, ready_rx) = mpsc::channel::<Result<(Interrupter, String), String>>();
    std::thread::Builder::new()
        .name("futhark-jupyter-session".to_string())
        .spawn(move || {
            let session = match Session::new(options) {
                Ok(s) => s,
                Err(e) => {
                    let _ = ready_tx.send(Err(e.to_string()));
                    return;
                }
            };
            let p = session.placement();
            let banner = match &p.note {
                Some(n) => format!("cells run on {} ({n})", session.location()),
                None => format!("cells run on {}", session.location()),
            };
            let _ = ready_tx.send(Ok((session.interrupter(), banner)));
            let mut state = State {
                session,
                count: 0,
                uncounted: 0,
                history: History::default(),
                iopub,
            };
            while let Ok(job) = rx.recv() {
                serve(&mut state, job);
            }
        })
        .map_err(|e| format!("cannot start the session thread: {e}"))?;
    let (interrupter, banner) = ready_rx
        .recv()
        .map_err(|_| "the session thread stopped while starting".to_string())??;
    Ok(Actor {
        jobs,
        interrupter,
        banner,
    })
}

fn serve(state: &mut State, job: Job) {
    match job {
        Job::Execute {
            request,
            code,
            silent,
            store_history,
            done,
        } => {
            let r = execute::execute(state, &request, &code, silent, store_history);
            let _ = done.send(r);
        }
        Job::Complete { code, cursor, done } => {
            let _ = done.send(execute::complete(&state.session, &code, cursor));
        }
        Job::Inspect { code, cursor, done } => {
            let _ = done.send(execute::inspect(&state.session, &code, cursor));
        }
        Job::IsComplete { code, done } => {
            let _ = done.send(execute::is_complete(&code));
        }
        Job::History { request, done } => {
            let _ = done.send(HistoryReply::new(state.history.answer(&request)));
        }
    }
}
