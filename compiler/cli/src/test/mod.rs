//! `futhark-rs test`: the conformance runner.
//!
//! Collects `.fut` files, plans each one from its test blocks ([`plan`]), and hands every file
//! that needs running to a worker process of this binary (`futhark-rs test-worker`, see
//! [`worker`] and [`protocol`]), keeping up to `-j` workers busy ([`pool`]). A worker tests one
//! file at a time and is reused for the next, so the process-wide setup (the type checker's
//! prelude) is paid once per worker rather than once per file; each file still gets a fresh
//! compiler database. Each file has its own deadline (`--timeout`): a worker still busy with
//! a file when it passes is killed, the file's unreported cases fail as timed out, and a new
//! worker takes the next file. A worker that dies (stack overflow, abort) fails the case it was
//! on, and a new one carries on with the file's next case. Failures are printed in file order
//! as they come in, and the run ends with a summary whose last line is
//! `N passed, N failed, N skipped` ([`report`]); `--json` writes every result ([`json`]).
//! Meanwhile standard error shows the progress ([`progress`]): a bar with the counts so far
//! and an ETA on a terminal, a plain line every 100 files or 10 s otherwise.
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

pub(crate) mod exec;
mod json;
mod mode;
mod outcome;
mod plan;
mod pool;
mod progress;
mod protocol;
mod report;
mod worker;

use std::collections::BTreeMap;
use std::io::{self, IsTerminal};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use clap::Args;
use futhark_options::{ExecOptions, Options, SplitPolicy};

use mode::Mode;
use outcome::{CaseResult, Status, Verdict};
use plan::{Action, Item};
use pool::{WorkerCommand, WorkerSlot};
use progress::{Progress, ProgressKind};
use protocol::Request;
pub use worker::{WorkerArgs, run as run_worker};

#[derive(Args)]
pub struct TestArgs {
    /// How far to take each program.
    #[arg(long, value_enum, default_value_t = Mode::Interp)]
    mode: Mode,
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
    /// Test only part K of N of the files (every N-th file in path order, starting at the
    /// K-th), so a long run can be split over several calls, e.g. `--shard 2/3`.
    #[arg(long, value_name = "K/N", value_parser = parse_shard)]
    shard: Option<Shard>,
    /// Seconds after which no further file is started: the files left are reported as
    /// skipped and the report (and `--json`) is still written, so a run under an outside
    /// time limit keeps what it did.
    #[arg(long, value_name = "SECS")]
    time_limit: Option<f64>,
    /// Programs, or directories searched recursively for `.fut` files.
    #[arg(required = true)]
    paths: Vec<PathBuf>,
}

/// Part `index` (1-based) of `count` of the files.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Shard {
    index: usize,
    count: usize,
}

impl Shard {
    fn select<T>(self, items: Vec<T>) -> Vec<T> {
        items
            .into_iter()
            .enumerate()
            .filter(|(i, _)| i % self.count == self.index - 1)
            .map(|(_, x)| x)
            .collect()
    }
}

fn parse_shard(s: &str) -> Result<Shard, String> {
    let bad = || format!("`{s}` is not a shard K/N with 1 <= K <= N (e.g. 2/3)");
    let (k, n) = s.split_once('/').ok_or_else(bad)?;
    let (index, count) = (
        k.trim().parse::<usize>().map_err(|_| bad())?,
        n.trim().parse::<usize>().map_err(|_| bad())?,
    );
    if index == 0 || index > count {
        return Err(bad());
    }
    Ok(Shard { index, count })
}

/// One file to test: its plan and the folder it is summarised under.
struct FileJob {
    path: PathBuf,
    group: String,
    items: Vec<Item>,
}

/// How to start the worker processes, and how long each file may take.
struct WorkerSettings {
    command: WorkerCommand,
    timeout: Duration,
}

pub fn run(args: TestArgs, options: &Options) -> ExitCode {
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
    if args.jobs == Some(0) {
        eprintln!("error: -j must be at least 1");
        return ExitCode::from(2);
    }
    let exe = match std::env::current_exe() {
        Ok(exe) => exe,
        Err(e) => {
            eprintln!("error: cannot find this program's executable to run tests in: {e}");
            return ExitCode::from(2);
        }
    };
    let settings = WorkerSettings {
        command: worker_command(exe, args.mode, &args.exclude, &options.exec),
        timeout,
    };
    let mut jobs = collect_jobs(&args.paths, args.mode, &args.exclude);
    if let Some(shard) = args.shard {
        jobs = shard.select(jobs);
    }
    let threads = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, std::num::NonZero::get));

    let stdout = io::stdout();
    let mut summary = report::Summary::default();
    let mut all = Vec::new();
    let mut print_error = None;
    let deadline = match args.time_limit {
        Some(t) if t.is_finite() && t >= 0.0 => {
            Some(Instant::now() + Duration::from_secs_f64(t.min(1e9)))
        }
        Some(t) => {
            eprintln!("error: --time-limit must be a number of seconds (got {t})");
            return ExitCode::from(2);
        }
        None => None,
    };
    let kind = ProgressKind::for_stderr(
        io::stderr().is_terminal(),
        std::env::var_os("NO_COLOR").is_some(),
    );
    let mut progress = Progress::start(kind, jobs.len());
    execute(
        &jobs,
        &settings,
        threads,
        deadline,
        &mut progress,
        |progress, job, results| {
            summary.add(&job.group, &results);
            if print_error.is_none() {
                print_error = progress
                    .suspend(|| report::print_failures(&mut stdout.lock(), &results))
                    .err();
            }
            all.extend(results);
        },
    );
    progress.finish();
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

/// Tests every job with `threads` workers, counting each file's results in `progress` as they
/// arrive and calling `done` with them in file order (results that arrive early wait for the
/// files before them). Files not started by `deadline` are skipped.
fn execute(
    jobs: &[FileJob],
    settings: &WorkerSettings,
    threads: usize,
    deadline: Option<Instant>,
    progress: &mut Progress,
    mut done: impl FnMut(&Progress, &FileJob, Vec<CaseResult>),
) {
    let next = AtomicUsize::new(0);
    let (tx, rx) = mpsc::channel::<(usize, Vec<CaseResult>)>();
    std::thread::scope(|scope| {
        for _ in 0..threads.min(jobs.len()).max(1) {
            let tx = tx.clone();
            let next = &next;
            scope.spawn(move || {
                let mut slot = WorkerSlot::new(settings.command.clone());
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(job) = jobs.get(i) else { break };
                    let results = if deadline.is_some_and(|d| Instant::now() >= d) {
                        skipped_job(job)
                    } else {
                        test_job(job, settings, &mut slot)
                    };
                    if tx.send((i, results)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        let mut waiting: BTreeMap<usize, Vec<CaseResult>> = BTreeMap::new();
        let mut next_to_report = 0;
        for (i, results) in rx {
            progress.file_done(&results);
            waiting.insert(i, results);
            while let Some(results) = waiting.remove(&next_to_report) {
                done(progress, &jobs[next_to_report], results);
                next_to_report += 1;
            }
        }
    });
}

/// Every item of a file not started within the time limit, as skipped.
fn skipped_job(job: &FileJob) -> Vec<CaseResult> {
    let file = job.path.display().to_string();
    job.items
        .iter()
        .map(|item| CaseResult {
            file: file.clone(),
            entry: item.entry.clone(),
            case: item.case.clone(),
            status: Status::Skipped,
            message: Some("not started: the run's --time-limit ran out".to_string()),
            skip: Some(outcome::SkipKind::TimeLimit),
            regex_matched: None,
        })
        .collect()
}

/// The results of one file: has the worker in `slot` run it if any item needs running.
fn test_job(job: &FileJob, settings: &WorkerSettings, slot: &mut WorkerSlot) -> Vec<CaseResult> {
    let mut verdicts: Vec<Option<Verdict>> = vec![None; job.items.len()];
    if job.items.iter().any(|i| i.action.needs_worker()) {
        run_on_worker(job, settings, slot, &mut verdicts);
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

/// Gives every item of `job` that needs a worker its verdict. A worker that dies fails the item
/// it was on (the first one it did not report), and a new worker carries on after it, within
/// the same per-file deadline; after [`MAX_SILENT_CRASHES`] deaths in a row without a single
/// report (a crash while loading the program, say) the remaining items fail with the reason.
fn run_on_worker(
    job: &FileJob,
    settings: &WorkerSettings,
    slot: &mut WorkerSlot,
    verdicts: &mut [Option<Verdict>],
) {
    let deadline = Instant::now() + settings.timeout;
    let pending = |verdicts: &[Option<Verdict>], from: usize| {
        (from..job.items.len())
            .find(|&i| job.items[i].action.needs_worker() && verdicts[i].is_none())
    };
    let fail_from = |verdicts: &mut [Option<Verdict>], from: usize, reason: &str| {
        let rest = job.items.iter().zip(verdicts.iter_mut()).skip(from);
        for (item, verdict) in rest {
            if item.action.needs_worker() && verdict.is_none() {
                *verdict = Some(Verdict::fail(reason));
            }
        }
    };
    let Some(file) = job.path.to_str() else {
        let reason = "the path is not valid UTF-8, which the test worker cannot be sent";
        fail_from(verdicts, 0, reason);
        return;
    };
    let mut start = 0;
    let mut silent_crashes = 0;
    while let Some(first) = pending(verdicts, start) {
        let request = Request {
            file: file.to_string(),
            start: first,
        };
        let run = slot.run_file(&request, deadline);
        for report in &run.reports {
            let runs_here = report.index >= first
                && job
                    .items
                    .get(report.index)
                    .is_some_and(|i| i.action.needs_worker());
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
            fail_from(verdicts, stopped_at, &reason);
            break;
        }
        verdicts[stopped_at] = Some(Verdict::fail(reason));
        start = stopped_at + 1;
    }
}

/// Consecutive crashes without any report after which a file's remaining items are given up.
const MAX_SILENT_CRASHES: usize = 3;

/// The command starting a worker for `mode`, excluding the user's `exclude` tags; `exe` is this
/// program.
fn worker_command(
    exe: PathBuf,
    mode: Mode,
    exclude: &[String],
    exec: &ExecOptions,
) -> WorkerCommand {
    let mut args = vec!["test-worker".into(), "--mode".into(), mode.name().into()];
    // Options that flags may have set travel as flags (the environment is inherited).
    if let Some(n) = exec.gpus {
        args.extend(["--gpus".into(), n.to_string().into()]);
    }
    let split = match exec.split {
        SplitPolicy::Auto => "auto",
        SplitPolicy::Always => "always",
        SplitPolicy::Never => "never",
    };
    args.extend(["--split".into(), split.into()]);
    for tag in exclude {
        args.push("--exclude".into());
        args.push(tag.into());
    }
    WorkerCommand {
        program: exe.into_os_string(),
        args,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_not_started_by_the_deadline_are_skipped() {
        let settings = WorkerSettings {
            // Never started: the deadline has passed before the first file.
            command: WorkerCommand {
                program: "/nonexistent/futhark-rs-worker".into(),
                args: Vec::new(),
            },
            timeout: Duration::from_secs(5),
        };
        let jobs: Vec<FileJob> = ["a", "b", "c"]
            .iter()
            .map(|name| FileJob {
                path: PathBuf::from(format!("dir/{name}.fut")),
                group: "dir".to_string(),
                items: vec![
                    Item {
                        entry: None,
                        case: None,
                        action: Action::Parse,
                    };
                    2
                ],
            })
            .collect();
        let mut all = Vec::new();
        let mut progress = Progress::start(ProgressKind::Lines, jobs.len());
        execute(
            &jobs,
            &settings,
            2,
            Some(Instant::now()),
            &mut progress,
            |_, _, results| all.extend(results),
        );
        assert_eq!(all.len(), 6);
        assert!(
            all.iter().all(
                |r| r.status == Status::Skipped && r.skip == Some(outcome::SkipKind::TimeLimit)
            )
        );
        assert_eq!(all[0].file, "dir/a.fut");
        assert_eq!(all[5].file, "dir/c.fut");
    }

    #[test]
    fn shards_split_the_files_without_overlap() {
        assert!(parse_shard("0/3").is_err());
        assert!(parse_shard("4/3").is_err());
        assert!(parse_shard("3").is_err());
        assert!(parse_shard("a/b").is_err());
        let files: Vec<usize> = (0..10).collect();
        let mut seen: Vec<usize> = (1..=3)
            .flat_map(|k| {
                parse_shard(&format!("{k}/3"))
                    .unwrap()
                    .select(files.clone())
            })
            .collect();
        seen.sort();
        assert_eq!(seen, files);
        assert_eq!(parse_shard("2/3").unwrap().select(files), vec![1, 4, 7]);
    }

    #[test]
    fn groups_are_top_level_folders() {
        let root = Path::new("tests");
        assert_eq!(group_of(root, Path::new("tests/a/b/c.fut")), "tests/a");
        assert_eq!(group_of(root, Path::new("tests/c.fut")), "tests");
        assert_eq!(group_of(Path::new("x/y.fut"), Path::new("x/y.fut")), "x");
        assert_eq!(group_of(Path::new("y.fut"), Path::new("y.fut")), ".");
    }

    /// A stand-in for `futhark-rs test-worker` that logs its process id to the file named by
    /// its first argument when it starts, and answers each request by the file's name: `loop`
    /// never finishes, `crash` aborts on its first item (but not when restarted after it),
    /// `doomed` is killed on every item, and any other file passes items 0 to 4 from the
    /// requested one on.
    #[cfg(unix)]
    const FAKE_WORKER: &str = r#"echo $$ >> "$1"
        while IFS= read -r req; do
            file=${req#*\"file\":\"}; file=${file%%\"*}
            start=${req#*\"start\":}; start=${start%%[!0-9]*}
            case "$file" in
                *loop*) exec sleep 30 ;;
                *crash*) if [ "$start" = 0 ]; then echo "stack overflow" >&2; kill -ABRT $$; fi ;;
                *doomed*) echo "doomed at $start" >&2; kill -KILL $$ ;;
            esac
            i=$start
            while [ "$i" -le 4 ]; do echo "{\"index\":$i,\"status\":\"passed\"}"; i=$((i+1)); done
            printf '{"done":"%s"}\n' "$file"
        done"#;

    /// Runs the fake worker on files `names` (each with `items` items to run), `threads` at a
    /// time; returns every file's results and how many workers were started.
    #[cfg(unix)]
    fn run_fake(
        test: &str,
        names: &[&str],
        items: usize,
        threads: usize,
        timeout: Duration,
    ) -> (Vec<Vec<CaseResult>>, usize) {
        let dir =
            std::env::temp_dir().join(format!("futhark-rs-workers-{}-{test}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let log = dir.join("started");
        let _ = std::fs::remove_file(&log);
        let settings = WorkerSettings {
            command: WorkerCommand {
                program: "sh".into(),
                args: vec![
                    "-c".into(),
                    FAKE_WORKER.into(),
                    "sh".into(),
                    log.clone().into_os_string(),
                ],
            },
            timeout,
        };
        let item = Item {
            entry: None,
            case: None,
            action: Action::Parse,
        };
        let jobs: Vec<FileJob> = names
            .iter()
            .map(|name| FileJob {
                path: PathBuf::from(format!("dir/{name}.fut")),
                group: "dir".to_string(),
                items: vec![item.clone(); items],
            })
            .collect();
        let mut all = Vec::new();
        let mut progress = Progress::start(ProgressKind::Lines, jobs.len());
        execute(
            &jobs,
            &settings,
            threads,
            None,
            &mut progress,
            |_, job, results| {
                assert!(
                    results
                        .iter()
                        .all(|r| r.file == job.path.display().to_string())
                );
                all.push(results);
            },
        );
        let started = std::fs::read_to_string(&log).unwrap_or_default();
        std::fs::remove_dir_all(&dir).unwrap();
        (all, started.lines().count())
    }

    /// Each file's statuses, and the message of its first failure.
    #[cfg(unix)]
    fn outline(results: &[Vec<CaseResult>]) -> Vec<(Vec<Status>, Option<String>)> {
        results
            .iter()
            .map(|file| {
                let statuses = file.iter().map(|r| r.status).collect();
                let failure = file
                    .iter()
                    .find(|r| r.status == Status::Failed)
                    .and_then(|r| r.message.clone());
                (statuses, failure)
            })
            .collect()
    }

    #[cfg(unix)]
    fn passed(n: usize) -> (Vec<Status>, Option<String>) {
        (vec![Status::Passed; n], None)
    }

    #[cfg(unix)]
    #[test]
    fn many_files_go_through_one_worker() {
        let names: Vec<String> = (0..40).map(|i| format!("f{i}")).collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let (results, started) = run_fake("many", &names, 2, 1, Duration::from_secs(20));
        assert_eq!(outline(&results), vec![passed(2); 40]);
        assert_eq!(started, 1);
    }

    #[cfg(unix)]
    #[test]
    fn a_looping_file_times_out_and_the_files_after_it_pass() {
        let (results, started) = run_fake(
            "loop",
            &["a", "b_loop", "c", "d"],
            2,
            1,
            Duration::from_millis(500),
        );
        let timed_out = Some("timed out (after 0.5 s)".to_string());
        assert_eq!(
            outline(&results),
            vec![
                passed(2),
                (vec![Status::Failed; 2], timed_out),
                passed(2),
                passed(2)
            ]
        );
        assert_eq!(started, 2);
    }

    #[cfg(unix)]
    #[test]
    fn a_crashing_file_fails_its_case_and_the_rest_pass() {
        let (results, started) = run_fake(
            "crash",
            &["a", "b_crash", "c"],
            3,
            1,
            Duration::from_secs(20),
        );
        let crash = "the test process was killed by signal 6 (SIGABRT):\nstack overflow";
        assert_eq!(
            outline(&results),
            vec![
                passed(3),
                (
                    vec![Status::Failed, Status::Passed, Status::Passed],
                    Some(crash.to_string())
                ),
                passed(3)
            ]
        );
        // The worker that died is replaced, and the new one goes on to the next file.
        assert_eq!(started, 2);
    }

    #[cfg(unix)]
    #[test]
    fn a_file_crashing_three_times_without_progress_is_given_up() {
        let (results, started) =
            run_fake("doomed", &["a_doomed", "b"], 5, 1, Duration::from_secs(20));
        let messages: Vec<String> = results[0]
            .iter()
            .map(|r| r.message.clone().unwrap_or_default())
            .collect();
        let killed = "the test process was killed by signal 9 (SIGKILL):\ndoomed at";
        assert_eq!(
            messages,
            vec![
                format!("{killed} 0"),
                format!("{killed} 1"),
                format!("{killed} 2"),
                format!("{killed} 2"),
                format!("{killed} 2"),
            ]
        );
        assert_eq!(outline(&results[1..]), vec![passed(5)]);
        assert_eq!(started, 4);
    }

    #[cfg(unix)]
    #[test]
    fn parallel_workers_report_in_file_order() {
        let names: Vec<String> = (0..24)
            .map(|i| match i {
                5 => "f5_loop".to_string(),
                11 => "f11_crash".to_string(),
                _ => format!("f{i}"),
            })
            .collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let (results, started) = run_fake("parallel", &names, 1, 3, Duration::from_millis(500));
        let files: Vec<String> = results.iter().map(|r| r[0].file.clone()).collect();
        let expected: Vec<String> = names.iter().map(|n| format!("dir/{n}.fut")).collect();
        assert_eq!(files, expected);
        for (i, file) in outline(&results).into_iter().enumerate() {
            let failed = file.0 == vec![Status::Failed];
            assert_eq!(failed, i == 5 || i == 11, "{i}: {file:?}");
        }
        // Three workers, plus one for each that was killed or died if its thread had files
        // left to take.
        assert!((3..=5).contains(&started), "{started}");
    }
}
