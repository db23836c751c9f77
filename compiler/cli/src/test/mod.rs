//! `futhark-rs test`: the conformance runner.
//!
//! Collects `.fut` files, plans each one from its test blocks ([`plan`]), runs every file that
//! needs running in a child process of this binary (`futhark-rs test-one`, see [`child`]) with
//! a per-file timeout, up to `-j` at a time ([`pool`]), prints failures in file order as they
//! come in, and ends with a summary whose last line is `N passed, N failed, N skipped`
//! ([`report`]); `--json` writes every result ([`json`]).
//!
//! Modes (`--mode`):
//! - `parse`: every program must parse; programs expecting a compile error are skipped.
//! - `typecheck`: every program must type-check, or be rejected if its block says `error:`
//!   (how many rejections match the block's regex is reported separately).
//! - `interp`: every run case is run on the interpreter. `auto output` cases only have to
//!   succeed: the interpreter *is* the reference they would be compared with, so they pass
//!   with a note saying the result was not compared. `script input` cases are skipped.
//! - `cuda`: not available yet.
//!
//! A mode whose compiler stage is missing from this build reports that and exits with
//! status 2. Otherwise the exit status is 1 if anything failed, 0 if not.

mod child;
mod exec;
mod json;
mod mode;
mod outcome;
mod plan;
mod pool;
mod report;

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use clap::Args;

pub use child::{ChildArgs, run as run_child};
use mode::Mode;
use outcome::{CaseResult, Status, Verdict};
use plan::{Action, Item};

#[derive(Args)]
pub struct TestArgs {
    /// How far to take each program.
    #[arg(long, value_enum, default_value_t = Mode::Interp)]
    mode: Mode,
    /// Number of GPUs to use (cuda mode).
    #[arg(long, value_name = "N")]
    gpus: Option<u32>,
    /// Also write every result to this file as JSON.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Skip programs and cases with this tag (may be repeated).
    #[arg(long, value_name = "TAG")]
    exclude: Vec<String>,
    /// Seconds one file may take before its remaining cases fail as timed out.
    #[arg(long, value_name = "SECS", default_value_t = 60.0)]
    timeout: f64,
    /// Number of files tested in parallel (default: the number of CPUs).
    #[arg(short = 'j', long, value_name = "N")]
    jobs: Option<usize>,
    /// Programs, or directories searched recursively for `.fut` files.
    #[arg(required = true)]
    paths: Vec<PathBuf>,
}

/// One file to test: its plan and the folder it is summarised under.
struct FileJob {
    path: PathBuf,
    group: String,
    items: Vec<Item>,
}

/// How to start and limit the child processes.
struct ChildSettings {
    exe: PathBuf,
    mode: Mode,
    exclude: Vec<String>,
    timeout: Duration,
}

pub fn run(args: TestArgs) -> ExitCode {
    if let Err(u) = args.mode.check_available() {
        eprintln!(
            "error: {u}: `futhark-rs test --mode {}` cannot run",
            args.mode
        );
        return ExitCode::from(2);
    }
    let timeout = match Duration::try_from_secs_f64(args.timeout) {
        Ok(t) if !t.is_zero() => t,
        _ => {
            eprintln!("error: --timeout must be a positive number of seconds");
            return ExitCode::from(2);
        }
    };
    if args.gpus == Some(0) || args.jobs == Some(0) {
        eprintln!("error: --gpus and -j must be at least 1");
        return ExitCode::from(2);
    }
    let exe = match std::env::current_exe() {
        Ok(exe) => exe,
        Err(e) => {
            eprintln!("error: cannot find this program's executable to run tests in: {e}");
            return ExitCode::from(2);
        }
    };
    let settings = ChildSettings {
        exe,
        mode: args.mode,
        exclude: args.exclude.clone(),
        timeout,
    };
    let jobs = collect_jobs(&args.paths, args.mode, &args.exclude);
    let threads = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, std::num::NonZero::get));

    let stdout = io::stdout();
    let mut summary = report::Summary::default();
    let mut all = Vec::new();
    let mut print_error = None;
    execute(&jobs, &settings, threads, |job, results| {
        summary.add(&job.group, &results);
        if print_error.is_none() {
            print_error = report::print_failures(&mut stdout.lock(), &results).err();
        }
        all.extend(results);
    });
    if print_error.is_none() {
        print_error = summary.print(&mut stdout.lock()).err();
    }
    let written = args.json.as_ref().map_or(Ok(()), |path| {
        json::write_report(path, summary.totals, &all).map_err(|e| (path, e))
    });
    if let Err((path, e)) = written {
        eprintln!("error: cannot write {}: {e}", path.display());
        return ExitCode::FAILURE;
    }
    if let Some(e) = print_error {
        if e.kind() != io::ErrorKind::BrokenPipe {
            eprintln!("error: cannot write the report: {e}");
        }
        return ExitCode::FAILURE;
    }
    if summary.totals.failed > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// The files named by `paths`, each planned; unreadable paths become failed items.
fn collect_jobs(paths: &[PathBuf], mode: Mode, exclude: &[String]) -> Vec<FileJob> {
    let run_mode = mode.run_mode(exclude);
    let mut jobs = Vec::new();
    for arg in paths {
        let (files, errors) = crate::paths::collect_fut_files(std::slice::from_ref(arg));
        for err in errors {
            jobs.push(FileJob {
                group: group_of(arg, &err.path),
                items: vec![failed_item(format!("cannot read: {}", err.error))],
                path: err.path,
            });
        }
        for path in files {
            let items = match std::fs::read_to_string(&path) {
                Ok(source) => plan::plan(&source, mode, &run_mode),
                Err(e) => vec![failed_item(format!("cannot read: {e}"))],
            };
            jobs.push(FileJob {
                group: group_of(arg, &path),
                path,
                items,
            });
        }
    }
    jobs
}

fn failed_item(message: String) -> Item {
    Item {
        entry: None,
        case: None,
        action: Action::Fail(message),
    }
}

/// The folder a file is summarised under: for a directory argument, its subfolder the file is
/// in (or the directory itself for files directly in it); for a file argument, its folder.
fn group_of(arg: &Path, file: &Path) -> String {
    if let Ok(rel) = file.strip_prefix(arg) {
        let mut parts = rel.components();
        if let (Some(first), Some(_)) = (parts.next(), parts.next()) {
            return arg.join(first).display().to_string();
        }
        if rel.as_os_str().is_empty() {
            // The argument is the file itself.
            return match file.parent() {
                Some(p) if !p.as_os_str().is_empty() => p.display().to_string(),
                _ => ".".to_string(),
            };
        }
    }
    arg.display().to_string()
}

/// Tests every job on `threads` worker threads, calling `done` with each file's results in
/// file order (results that arrive early wait for the files before them).
fn execute(
    jobs: &[FileJob],
    settings: &ChildSettings,
    threads: usize,
    mut done: impl FnMut(&FileJob, Vec<CaseResult>),
) {
    let next = AtomicUsize::new(0);
    let (tx, rx) = mpsc::channel::<(usize, Vec<CaseResult>)>();
    std::thread::scope(|scope| {
        for _ in 0..threads.min(jobs.len()).max(1) {
            let tx = tx.clone();
            let next = &next;
            scope.spawn(move || {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(job) = jobs.get(i) else { break };
                    if tx.send((i, test_job(job, settings))).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        let mut waiting: BTreeMap<usize, Vec<CaseResult>> = BTreeMap::new();
        let mut next_to_report = 0;
        for (i, results) in rx {
            waiting.insert(i, results);
            while let Some(results) = waiting.remove(&next_to_report) {
                done(&jobs[next_to_report], results);
                next_to_report += 1;
            }
        }
    });
}

/// The results of one file: runs a child process if any item needs one.
fn test_job(job: &FileJob, settings: &ChildSettings) -> Vec<CaseResult> {
    let mut verdicts: Vec<Option<Verdict>> = vec![None; job.items.len()];
    if job.items.iter().any(|i| i.action.needs_child()) {
        run_children(job, settings, &mut verdicts);
    }
    let file = job.path.display().to_string();
    job.items
        .iter()
        .zip(verdicts)
        .map(|(item, verdict)| {
            let (status, message, skip, regex_matched) = match (&item.action, verdict) {
                (Action::Skip(kind, why), _) => {
                    (Status::Skipped, Some(why.clone()), Some(*kind), None)
                }
                (Action::Fail(why), _) => (Status::Failed, Some(why.clone()), None, None),
                (_, Some(v)) => (v.status, v.message, None, v.regex_matched),
                (_, None) => (
                    Status::Failed,
                    Some("no result reported".to_string()),
                    None,
                    None,
                ),
            };
            CaseResult {
                file: file.clone(),
                entry: item.entry.clone(),
                case: item.case.clone(),
                status,
                message,
                skip,
                regex_matched,
            }
        })
        .collect()
}

/// Gives every item of `job` that needs a child its verdict. A child that crashes fails the
/// item it was on (the first one it did not report), and a new child carries on after it, within
/// the same per-file deadline; after [`MAX_SILENT_CRASHES`] crashes in a row without a single
/// report (a crash while loading the program, say) the remaining items fail with the reason.
fn run_children(job: &FileJob, settings: &ChildSettings, verdicts: &mut [Option<Verdict>]) {
    let deadline = Instant::now() + settings.timeout;
    let pending = |verdicts: &[Option<Verdict>], from: usize| {
        (from..job.items.len())
            .find(|&i| job.items[i].action.needs_child() && verdicts[i].is_none())
    };
    let mut start = 0;
    let mut silent_crashes = 0;
    while let Some(first) = pending(verdicts, start) {
        let left = deadline.saturating_duration_since(Instant::now());
        let run = pool::run_child(&mut child_command(job, settings, first), left);
        for report in &run.reports {
            let runs_here = report.index >= first
                && job
                    .items
                    .get(report.index)
                    .is_some_and(|i| i.action.needs_child());
            if runs_here {
                verdicts[report.index] = Some(report.verdict.clone());
            }
        }
        let Some(stopped_at) = pending(verdicts, first) else {
            break;
        };
        let reason = run.unreported_reason(settings.timeout);
        silent_crashes = if run.reports.is_empty() {
            silent_crashes + 1
        } else {
            0
        };
        if !run.crashed() || silent_crashes >= MAX_SILENT_CRASHES {
            let rest = job.items.iter().zip(verdicts.iter_mut()).skip(stopped_at);
            for (item, verdict) in rest {
                if item.action.needs_child() && verdict.is_none() {
                    *verdict = Some(Verdict::fail(reason.clone()));
                }
            }
            break;
        }
        verdicts[stopped_at] = Some(Verdict::fail(reason));
        start = stopped_at + 1;
    }
}

/// Consecutive crashes without any report after which a file's remaining items are given up.
const MAX_SILENT_CRASHES: usize = 3;

/// The command running the child for `job`, starting at item `start`.
fn child_command(job: &FileJob, settings: &ChildSettings, start: usize) -> Command {
    let mut command = Command::new(&settings.exe);
    command
        .arg("test-one")
        .arg("--mode")
        .arg(settings.mode.name())
        .arg("--start")
        .arg(start.to_string());
    for tag in &settings.exclude {
        command.arg("--exclude").arg(tag);
    }
    command.arg("--").arg(&job.path);
    command
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_are_top_level_folders() {
        let root = Path::new("tests");
        assert_eq!(group_of(root, Path::new("tests/a/b/c.fut")), "tests/a");
        assert_eq!(group_of(root, Path::new("tests/c.fut")), "tests");
        assert_eq!(group_of(Path::new("x/y.fut"), Path::new("x/y.fut")), "x");
        assert_eq!(group_of(Path::new("y.fut"), Path::new("y.fut")), ".");
    }
}
