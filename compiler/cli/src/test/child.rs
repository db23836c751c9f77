//! `futhark-rs test-one` (hidden): the child process that tests one file. It computes the same
//! plan as the parent, runs the items that need running in order, and prints one JSON line
//! ([`ChildReport`]) per item as soon as it is done, so that a crash or a timeout loses only
//! the items not yet reported.
//!
//! The work runs on a thread with a large stack (deeply recursive programs are legitimate), and
//! each item under `catch_unwind`, so a panic fails that item only. A stack overflow or abort
//! still kills the process; the parent fails the item it was on and starts a new child at the
//! next item (`--start`).

use std::any::Any;
use std::cell::RefCell;
use std::io::{self, Write};
use std::panic::{self, AssertUnwindSafe};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use futhark_db::Database;

use super::exec::{self, ProgramSlot};
use super::mode::Mode;
use super::outcome::{ChildReport, Verdict};
use super::plan::{self, Action};

/// Stack of the thread that runs the items.
const STACK_SIZE: usize = 1 << 30;

#[derive(Args)]
pub struct ChildArgs {
    /// How far to take the program.
    #[arg(long, value_enum)]
    mode: Mode,
    /// Extra excluded tags (as given to `test`).
    #[arg(long)]
    exclude: Vec<String>,
    /// Start at this item of the plan (the parent restarts a child after a crash).
    #[arg(long, default_value_t = 0)]
    start: usize,
    /// The program.
    file: PathBuf,
}

pub fn run(args: ChildArgs) -> ExitCode {
    panic::set_hook(Box::new(|info| {
        let location = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        LAST_PANIC.with(|p| *p.borrow_mut() = Some(location));
    }));
    let worker = std::thread::Builder::new()
        .name("test-one".to_string())
        .stack_size(STACK_SIZE)
        .spawn(move || test_file(&args));
    match worker.map(|handle| handle.join()) {
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

/// Why the child could not do its job at all.
#[derive(Debug, thiserror::Error)]
enum ChildError {
    #[error("cannot read {}: {source}", path.display())]
    Read { path: PathBuf, source: io::Error },
    #[error("cannot write a report: {0}")]
    Write(io::Error),
}

fn test_file(args: &ChildArgs) -> Result<(), ChildError> {
    let source = std::fs::read_to_string(&args.file).map_err(|source| ChildError::Read {
        path: args.file.clone(),
        source,
    })?;
    let items = plan::plan(&source, args.mode, &args.mode.run_mode(&args.exclude));
    let mut db = Database::new();
    let file = db.set_file(&args.file, source);
    let mut slot = ProgramSlot::new();
    let stdout = io::stdout();
    for (index, item) in items.iter().enumerate().skip(args.start) {
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
                slot = ProgramSlot::new();
                Verdict::fail(panic_message(payload.as_ref()))
            }
        };
        let line = serde_json::to_string(&ChildReport { index, verdict })
            .map_err(|e| ChildError::Write(e.into()))?;
        let mut out = stdout.lock();
        writeln!(out, "{line}")
            .and_then(|()| out.flush())
            .map_err(ChildError::Write)?;
    }
    Ok(())
}
