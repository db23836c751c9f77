//! The kernel's sockets and message loops (on tokio): heartbeat, IOPub (fed by a channel so
//! the session's thread can publish), control (interrupt, shutdown, kernel info) and shell.
//!
//! A message that is malformed or whose signature does not verify is logged to stderr and
//! dropped; the kernel keeps running.
//!
//! Shell requests are read by a task of their own into a queue, so that after a cell fails
//! with `stop_on_error` the execute requests already waiting are answered `aborted` (as
//! IPython does: "Run All" stops at the failing cell) while later ones run again.

use std::path::Path;
use std::time::Duration;

use futhark_session::{BackendChoice, Interrupter, Options};
use jupyter_protocol::{
    CodeMirrorMode, CommInfoReply, ConnectionInfo, ExecuteReply, ExecutionCount, HelpLink,
    InterruptReply, JupyterMessage, JupyterMessageContent, KernelInfoReply, LanguageInfo,
    ReplyStatus, ShutdownReply, Status,
};
use jupyter_zmq_client::{
    create_kernel_control_connection, create_kernel_heartbeat_connection,
    create_kernel_iopub_connection, create_kernel_shell_connection, create_kernel_stdin_connection,
};
use tokio::sync::mpsc::UnboundedSender;
use tokio::sync::oneshot;

use crate::actor::{self, Actor, Job};
use crate::wire;

/// Failures that stop the kernel from starting.
#[derive(Debug, thiserror::Error)]
pub enum KernelError {
    #[error("cannot read the connection file {0}: {1}")]
    ConnectionFile(String, String),
    #[error("cannot open the kernel's sockets: {0}")]
    Sockets(#[from] jupyter_zmq_client::RuntimeError),
    #[error("cannot start the async runtime: {0}")]
    Runtime(#[from] std::io::Error),
    #[error("{0}")]
    Session(String),
}

/// Runs the kernel until it is shut down.
pub fn run(
    connection_file: &Path,
    backend: BackendChoice,
    gpus: Option<usize>,
) -> Result<(), KernelError> {
    let bad = |e: String| KernelError::ConnectionFile(connection_file.display().to_string(), e);
    let text = std::fs::read_to_string(connection_file).map_err(|e| bad(e.to_string()))?;
    let info: ConnectionInfo = serde_json::from_str(&text).map_err(|e| bad(e.to_string()))?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let options = Options {
        backend,
        gpus,
        // The environment, read once at the edge.
        base: futhark_options::from_env().0,
        ..Options::default()
    };
    runtime.block_on(serve(info, options))
}

fn log(what: &str, e: impl std::fmt::Display) {
    eprintln!("futhark-jupyter: {what}: {e}");
}

async fn serve(info: ConnectionInfo, options: Options) -> Result<(), KernelError> {
    let session_id = uuid::Uuid::new_v4().to_string();
    let shell = create_kernel_shell_connection(&info, &session_id).await?;
    let control = create_kernel_control_connection(&info, &session_id).await?;
    let mut iopub = create_kernel_iopub_connection(&info, &session_id).await?;
    let _stdin = create_kernel_stdin_connection(&info, &session_id).await?;
    let mut heartbeat = create_kernel_heartbeat_connection(&info).await?;

    let (io_tx, mut io_rx) = tokio::sync::mpsc::unbounded_channel::<JupyterMessage>();
    tokio::spawn(async move {
        while let Some(m) = io_rx.recv().await {
            if let Err(e) = iopub.send(m).await {
                log("iopub", e);
            }
        }
    });
    tokio::spawn(async move {
        loop {
            if let Err(e) = heartbeat.single_heartbeat().await {
                log("heartbeat", e);
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        }
    });

    let actor = actor::spawn(options, io_tx.clone()).map_err(KernelError::Session)?;
    tokio::spawn(control_loop(
        control,
        actor.interrupter.clone(),
        actor.banner.clone(),
        io_tx.clone(),
    ));

    let (mut shell_tx, mut shell_rx) = shell.split();
    let (queue_tx, mut queue) = tokio::sync::mpsc::unbounded_channel::<JupyterMessage>();
    tokio::spawn(async move {
        loop {
            match wire::read(&mut shell_rx).await {
                Ok(m) => {
                    if queue_tx.send(m).is_err() {
                        return;
                    }
                }
                Err(e) => reject("shell", e).await,
            }
        }
    });

    // Set after a cell failed with `stop_on_error`: the execute requests queued by then
    // are aborted.
    let mut aborting = false;
    loop {
        let msg = if aborting {
            match queue.try_recv() {
                Ok(m) => m,
                Err(_) => {
                    aborting = false;
                    continue;
                }
            }
        } else {
            match queue.recv().await {
                Some(m) => m,
                None => return Ok(()),
            }
        };
        status(&io_tx, &msg, Status::busy());
        let reply = match &msg.content {
            JupyterMessageContent::ExecuteRequest(_) if aborting => Some(aborted(&msg)),
            _ => handle_shell(&actor, &msg).await,
        };
        if let Some(r) = &reply
            && let JupyterMessageContent::ExecuteRequest(req) = &msg.content
            && let JupyterMessageContent::ExecuteReply(rep) = &r.content
            && rep.status == ReplyStatus::Error
            && req.stop_on_error
            && !req.silent
        {
            // Let the reader task hand over what already arrived.
            tokio::time::sleep(Duration::from_millis(5)).await;
            aborting = true;
        }
        if let Some(r) = reply
            && let Err(e) = shell_tx.send(r).await
        {
            log("shell reply", e);
        }
        status(&io_tx, &msg, Status::idle());
        if let JupyterMessageContent::ShutdownRequest(_) = msg.content {
            exit_soon(&actor.interrupter).await;
        }
    }
}

/// The reply to an execute request that was queued behind a failed cell.
fn aborted(msg: &JupyterMessage) -> JupyterMessage {
    let reply = ExecuteReply {
        status: ReplyStatus::Aborted,
        execution_count: ExecutionCount::new(0),
        payload: Vec::new(),
        user_expressions: Some(Default::default()),
        error: None,
    };
    JupyterMessage::new(reply, Some(msg))
}

/// Logs a message that could not be read; waits a little after socket-level errors so a
/// broken socket does not spin.
async fn reject(channel: &str, e: jupyter_zmq_client::RuntimeError) {
    use jupyter_zmq_client::RuntimeError as E;
    match e {
        E::VerifyError(_) | E::MissingHmac | E::DecodeError(_) => {
            log(
                channel,
                format!("rejected a message with a bad signature ({e})"),
            );
        }
        E::MissingDelimiter
        | E::InsufficientMessageParts(_)
        | E::ParseError { .. }
        | E::SerdeError(_) => log(channel, format!("rejected a malformed message ({e})")),
        e => {
            log(channel, e);
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
}

fn status(io: &UnboundedSender<JupyterMessage>, parent: &JupyterMessage, s: Status) {
    let _ = io.send(s.as_child_of(parent));
}

/// Gives the IOPub task a moment to flush, stops any running cell, and exits.
async fn exit_soon(interrupter: &Interrupter) -> ! {
    interrupter.interrupt();
    tokio::time::sleep(Duration::from_millis(100)).await;
    std::process::exit(0)
}

fn kernel_info(banner: &str) -> KernelInfoReply {
    KernelInfoReply {
        status: ReplyStatus::Ok,
        protocol_version: "5.3".to_string(),
        implementation: "futhark-rs".to_string(),
        implementation_version: env!("CARGO_PKG_VERSION").to_string(),
        language_info: LanguageInfo {
            name: "futhark".to_string(),
            version: env!("CARGO_PKG_VERSION").to_string(),
            mimetype: Some("text/x-futhark".to_string()),
            file_extension: Some(".fut".to_string()),
            pygments_lexer: Some("futhark".to_string()),
            // The mode of the JupyterLab extension `futhark-jupyter install` writes
            // (editors/jupyterlab); without it JupyterLab shows plain text.
            codemirror_mode: Some(CodeMirrorMode::Simple("futhark".to_string())),
            nbconvert_exporter: None,
        },
        banner: format!("futhark-rs {}: {banner}", env!("CARGO_PKG_VERSION")),
        help_links: vec![
            HelpLink {
                text: "Futhark language reference".to_string(),
                url: "https://futhark.readthedocs.io/en/latest/language-reference.html".to_string(),
            },
            HelpLink {
                text: "Futhark prelude".to_string(),
                url: "https://futhark-lang.org/docs/prelude/".to_string(),
            },
        ],
        debugger: false,
        error: None,
    }
}

/// Sends a job to the session's thread and waits for its answer.
async fn ask<T>(actor: &Actor, make: impl FnOnce(oneshot::Sender<T>) -> Job) -> Option<T> {
    let (tx, rx) = oneshot::channel();
    actor.jobs.send(make(tx)).ok()?;
    rx.await.ok()
}

async fn handle_shell(actor: &Actor, msg: &JupyterMessage) -> Option<JupyterMessage> {
    let content: JupyterMessageContent = match &msg.content {
        JupyterMessageContent::KernelInfoRequest(_) => {
            JupyterMessageContent::KernelInfoReply(Box::new(kernel_info(&actor.banner)))
        }
        JupyterMessageContent::ExecuteRequest(req) => {
            let done = ask(actor, |done| Job::Execute {
                request: Box::new(msg.clone()),
                code: req.code.clone(),
                silent: req.silent,
                store_history: req.store_history,
                done,
            })
            .await?;
            ExecuteReply {
                status: if done.error.is_some() {
                    ReplyStatus::Error
                } else {
                    ReplyStatus::Ok
                },
                execution_count: ExecutionCount::new(done.count),
                payload: done.payload,
                // The test suite wants `{}` here, not `null`.
                user_expressions: Some(Default::default()),
                error: done.error.map(Box::new),
            }
            .into()
        }
        JupyterMessageContent::CompleteRequest(req) => ask(actor, |done| Job::Complete {
            code: req.code.clone(),
            cursor: req.cursor_pos,
            done,
        })
        .await?
        .into(),
        JupyterMessageContent::InspectRequest(req) => ask(actor, |done| Job::Inspect {
            code: req.code.clone(),
            cursor: req.cursor_pos,
            done,
        })
        .await?
        .into(),
        JupyterMessageContent::IsCompleteRequest(req) => ask(actor, |done| Job::IsComplete {
            code: req.code.clone(),
            done,
        })
        .await?
        .into(),
        JupyterMessageContent::HistoryRequest(req) => ask(actor, |done| Job::History {
            request: req.clone(),
            done,
        })
        .await?
        .into(),
        JupyterMessageContent::CommInfoRequest(_) => CommInfoReply {
            status: ReplyStatus::Ok,
            comms: Default::default(),
            error: None,
        }
        .into(),
        JupyterMessageContent::ShutdownRequest(req) => ShutdownReply {
            restart: req.restart,
            status: ReplyStatus::Ok,
            error: None,
        }
        .into(),
        other => {
            log(
                "shell",
                format!("ignoring a {} message", other.message_type()),
            );
            return None;
        }
    };
    Some(JupyterMessage::new(content, Some(msg)))
}

async fn control_loop(
    mut control: jupyter_zmq_client::KernelControlConnection,
    interrupter: Interrupter,
    banner: String,
    io: UnboundedSender<JupyterMessage>,
) {
    loop {
        let msg = match wire::read(&mut control).await {
            Ok(m) => m,
            Err(e) => {
                reject("control", e).await;
                continue;
            }
        };
        let content: JupyterMessageContent = match &msg.content {
            JupyterMessageContent::InterruptRequest(_) => {
                interrupter.interrupt();
                InterruptReply::new().into()
            }
            JupyterMessageContent::ShutdownRequest(req) => ShutdownReply {
                restart: req.restart,
                status: ReplyStatus::Ok,
                error: None,
            }
            .into(),
            JupyterMessageContent::KernelInfoRequest(_) => {
                JupyterMessageContent::KernelInfoReply(Box::new(kernel_info(&banner)))
            }
            other => {
                log(
                    "control",
                    format!("ignoring a {} message", other.message_type()),
                );
                continue;
            }
        };
        status(&io, &msg, Status::busy());
        if let Err(e) = control.send(JupyterMessage::new(content, Some(&msg))).await {
            log("control reply", e);
        }
        status(&io, &msg, Status::idle());
        if let JupyterMessageContent::ShutdownRequest(_) = msg.content {
            exit_soon(&interrupter).await;
        }
    }
}
