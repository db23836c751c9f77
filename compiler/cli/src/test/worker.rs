//! `futhark-rs test-worker` (hidden): the process that tests files for `futhark-rs test`.
//!
//! It reads [`Request`]s from standard input, one per line, and for each computes the same plan
//! as the parent, runs the items that need running from the requested one on, prints one
//! [`ItemReport`] line per item as soon as it is done (so that a crash or a timeout loses only
//! the items not yet reported), and ends the file with a [`FileDone`] line. It stops when its
//! standard input ends. See [`super::protocol`].
//!
//! What stays from one file to the next is only process-wide state that programs cannot change
//! (the type checker's context of intrinsics and prelude, built once per process): every file
//! gets a fresh [`Database`] and a fresh loaded program.
//!
//! The work runs on a thread with a large stack (deeply recursive programs are legitimate), and
//! each item under `catch_unwind`, so a panic fails that item only. A stack overflow or abort
//! still kills the process; the parent fails the item it was on and starts a new worker at the
//! next item.

use std::any::Any;
use std::cell::RefCell;
use std::io::{self, BufRead, Write};
use std::panic::{self, AssertUnwindSafe};
use std::path::Path;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};

use clap::Args;
use futhark_options::Options;
use futhark_testspec::RunMode;
use serde::Serialize;

use super::exec::{self, ProgramSlot};
use super::mode::Mode;
use super::outcome::Verdict;
use super::plan::{self, Action};
use super::protocol::{FileDone, ItemReport, Request};

/// Stack of the thread that runs the items.
const STACK_SIZE: usize = 1 << 30;

#[derive(Args)]
pub struct WorkerArgs {
    /// How far to take the programs.
    #[arg(long, value_enum)]
    mode: Mode,
    /// Extra excluded tags (as given to `test`).
    #[arg(long)]
    exclude: Vec<String>,
}

pub fn run(args: WorkerArgs, options: Options) -> ExitCode {
    panic::set_hook(Box::new(|info| {
        let location = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        LAST_PANIC.with(|p| *p.borrow_mut() = Some(location));
    }));
    let thread = std::thread::Builder::new()
        .name("test-worker".to_string())
        .stack_size(STACK_SIZE)
        .spawn(move || serve(&args, &options));
    match thread.map(|handle| handle.join()) {
        Ok(Ok(Ok(()))) => ExitCode::SUCCESS,
        Ok(Ok(Err(e))) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
        Ok(Err(payload)) => {
            eprintln!("error: panicked: {}", payload_text(payload.as_ref()));
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("error: cannot start the test thread: {e}");
            ExitCode::FAILURE
        }
    }
}

thread_local! {
    /// Where the last panic on this thread happened, recorded by the panic hook (which prints
    /// nothing: the verdict carries the message).
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// The message a panic was raised with.
fn payload_text(payload: &(dyn Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "(no message)".to_string())
}

/// The failure message for a panic caught on this thread.
fn panic_message(payload: &(dyn Any + Send)) -> String {
    let location = LAST_PANIC
        .with(|p| p.borrow_mut().take())
        .unwrap_or_default();
    format!("panicked{location}: {}", payload_text(payload))
}

/// Why the worker cannot go on at all (a file it cannot test is reported in its
/// [`FileDone`] instead).
#[derive(Debug, thiserror::Error)]
enum WorkerError {
    #[error("cannot read a request: {0}")]
    Read(io::Error),
    #[error("cannot write a report: {0}")]
    Write(io::Error),
}

/// Answers requests until standard input ends.
fn serve(args: &WorkerArgs, options: &Options) -> Result<(), WorkerError> {
    let run_mode = args.mode.run_mode(&args.exclude);
    let mut input = io::stdin().lock();
    let mut line = Vec::new();
    loop {
        line.clear();
        if input
            .read_until(b'\n', &mut line)
            .map_err(WorkerError::Read)?
            == 0
        {
            return Ok(());
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.trim();
        if text.is_empty() {
            continue;
        }
        let done = match serde_json::from_str::<Request>(text) {
            Ok(request) => {
                let error = test_file(args.mode, options, &run_mode, &request)?;
                FileDone {
                    done: request.file,
                    error,
                }
            }
            Err(e) => FileDone {
                done: String::new(),
                error: Some(format!("the test worker got a malformed request: {e}")),
            },
        };
        send(&done)?;
        if CONTEXT_LOST.load(Ordering::Relaxed) {
            // A sticky CUDA error poisons this process's GPU contexts for good: leave, and
            // the parent starts a fresh worker for the next file.
            return Ok(());
        }
    }
}

/// Set once a report carried an error after which CUDA contexts of this process are unusable.
static CONTEXT_LOST: AtomicBool = AtomicBool::new(false);

/// CUDA errors that are sticky: every later call in the process fails with them.
const STICKY_CUDA_ERRORS: [&str; 9] = [
    "CUDA_ERROR_ILLEGAL_ADDRESS",
    "CUDA_ERROR_ILLEGAL_INSTRUCTION",
    "CUDA_ERROR_MISALIGNED_ADDRESS",
    "CUDA_ERROR_INVALID_ADDRESS_SPACE",
    "CUDA_ERROR_INVALID_PC",
    "CUDA_ERROR_LAUNCH_FAILED",
    "CUDA_ERROR_HARDWARE_STACK_ERROR",
    "CUDA_ERROR_ASSERT",
    "CUDA_ERROR_LAUNCH_TIMEOUT",
];

/// Writes one message line to standard output and flushes it.
fn send(message: &impl Serialize) -> Result<(), WorkerError> {
    let line = serde_json::to_string(message).map_err(|e| WorkerError::Write(e.into()))?;
    if STICKY_CUDA_ERRORS.iter().any(|e| line.contains(e)) {
        CONTEXT_LOST.store(true, Ordering::Relaxed);
    }
    let mut out = io::stdout().lock();
    writeln!(out, "{line}")
        .and_then(|()| out.flush())
        .map_err(WorkerError::Write)
}

/// Tests the file of `request`, reporting each item as it is done. Returns why the file could
/// not be tested at all, if it could not.
fn test_file(
    mode: Mode,
    options: &Options,
    run_mode: &RunMode,
    request: &Request,
) -> Result<Option<String>, WorkerError> {
    let path = Path::new(&request.file);
    let source = match std::fs::read_to_string(path) {
        Ok(source) => source,
        Err(e) => return Ok(Some(format!("cannot read {}: {e}", path.display()))),
    };
    let setup = panic::catch_unwind(AssertUnwindSafe(|| {
        let items = plan::plan(&source, mode, run_mode);
        let mut db = crate::engine::database(&options.compile);
        let file = db.set_file(path, source.clone());
        (items, db, file)
    }));
    let (items, db, file) = match setup {
        Ok(setup) => setup,
        Err(payload) => return Ok(Some(panic_message(payload.as_ref()))),
    };
    let mut slot = ProgramSlot::new(mode.exec_backend(), &options.exec);
    for (index, item) in items.iter().enumerate().skip(request.start) {
        let outcome = panic::catch_unwind(AssertUnwindSafe(|| match &item.action {
            Action::Parse => Some(exec::check_parse(&db, file)),
            Action::Typecheck { expect_error } => {
                Some(exec::check_types(&db, file, expect_error.as_deref()))
            }
            Action::MustNotCompile { regex } => {
                Some(exec::check_compiles(&db, file, &mut slot, Some(regex)))
            }
            Action::MustCompile => Some(exec::check_compiles(&db, file, &mut slot, None)),
            Action::Run { entry, case } => Some(exec::run_case(&db, file, &mut slot, entry, case)),
            // Decided by the plan; the parent reports these itself.
            Action::Skip(..) | Action::Fail(_) => None,
        }));
        let verdict = match outcome {
            Ok(Some(verdict)) => verdict,
            Ok(None) => continue,
            Err(payload) => {
                // A panic may have left a half-loaded program behind: start afresh.
                slot = ProgramSlot::new(mode.exec_backend(), &options.exec);
                Verdict::fail(panic_message(payload.as_ref()))
            }
        };
        send(&ItemReport { index, verdict })?;
    }
    Ok(None)
}
