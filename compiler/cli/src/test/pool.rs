//! Worker processes with deadlines, from the parent's side: a [`WorkerSlot`] hands one file at
//! a time to its worker process (starting one when it has none), collects the report lines the
//! worker prints until it says the file is done, kills it when the file's time is up, and
//! describes how it died if it did, so the runner survives programs that crash the process
//! (stack overflow, abort) or never finish. A worker that was killed or died is replaced by a
//! fresh one for the next request.

use std::ffi::OsString;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread;
use std::time::{Duration, Instant};

use super::protocol::{ItemReport, Message, Request, parse_line};

/// How much of a worker's standard error is kept for the failure message: bytes, then lines.
const STDERR_TAIL: usize = 2000;
const STDERR_LINES: usize = 8;

/// How long a worker that died may take to close its standard error, and an idle worker
/// whose input was closed to exit, before they are not waited for any more.
const GRACE: Duration = Duration::from_secs(1);

/// How to start a worker process: a program and its arguments.
#[derive(Debug, Clone)]
pub struct WorkerCommand {
    /// The program.
    pub program: OsString,
    /// Its arguments.
    pub args: Vec<OsString>,
}

impl WorkerCommand {
    fn spawn(&self) -> std::io::Result<Worker> {
        let mut child = Command::new(&self.program)
            .args(&self.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()?;
        let stdin = child.stdin.take();
        let (tx, lines) = mpsc::channel::<String>();
        if let Some(stdout) = child.stdout.take() {
            thread::spawn(move || read_lines(stdout, &tx));
        }
        let stderr = Arc::new(Tail::default());
        if let Some(pipe) = child.stderr.take() {
            let tail = Arc::clone(&stderr);
            thread::spawn(move || tail.read_from(pipe));
        }
        Ok(Worker {
            child,
            stdin,
            lines,
            stderr,
        })
    }
}

/// Sends every line `r` yields (invalid UTF-8 replaced) until it ends or nobody listens.
fn read_lines(r: impl Read, tx: &mpsc::Sender<String>) {
    let mut r = BufReader::new(r);
    let mut line = Vec::new();
    loop {
        line.clear();
        match r.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) => {
                let text = String::from_utf8_lossy(&line).into_owned();
                if tx.send(text).is_err() {
                    break;
                }
            }
        }
    }
}

/// The end of what a process wrote to standard error, filled by a reader thread.
#[derive(Default)]
struct Tail {
    state: Mutex<TailState>,
    ended: Condvar,
}

#[derive(Default)]
struct TailState {
    bytes: Vec<u8>,
    eof: bool,
}

impl Tail {
    fn lock(&self) -> MutexGuard<'_, TailState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Reads `r` to the end, keeping about the last [`STDERR_TAIL`] bytes.
    fn read_from(&self, mut r: impl Read) {
        let mut buf = [0u8; 8192];
        loop {
            match r.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    let mut state = self.lock();
                    state.bytes.extend_from_slice(&buf[..n]);
                    let len = state.bytes.len();
                    if len > 2 * STDERR_TAIL {
                        state.bytes.drain(..len - STDERR_TAIL);
                    }
                }
            }
        }
        self.lock().eof = true;
        self.ended.notify_all();
    }

    /// Forgets what was written so far (a new file begins).
    fn clear(&self) {
        self.lock().bytes.clear();
    }

    /// The last [`STDERR_TAIL`] bytes, once the stream has ended or `until` has passed.
    fn text(&self, until: Instant) -> String {
        let mut state = self.lock();
        while !state.eof {
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            state = match self.ended.wait_timeout(state, left) {
                Ok((state, _)) => state,
                Err(poisoned) => poisoned.into_inner().0,
            };
        }
        let bytes = &state.bytes[state.bytes.len().saturating_sub(STDERR_TAIL)..];
        String::from_utf8_lossy(bytes).into_owned()
    }
}

/// A running worker process.
struct Worker {
    child: Child,
    /// Where requests go; `None` once closed.
    stdin: Option<ChildStdin>,
    /// Its standard output, line by line; disconnected when the worker closes it (exits).
    lines: Receiver<String>,
    /// Its standard error.
    stderr: Arc<Tail>,
}

impl Worker {
    /// Whether the process has ended (or cannot be asked any more).
    fn has_exited(&mut self) -> bool {
        !matches!(self.child.try_wait(), Ok(None))
    }

    /// Writes `line` to the worker. A failure means the worker is gone, which reading its
    /// output finds out, so it is not reported here.
    fn send(&mut self, line: &str) {
        if let Some(stdin) = &mut self.stdin {
            let sent = stdin
                .write_all(line.as_bytes())
                .and_then(|()| stdin.write_all(b"\n"))
                .and_then(|()| stdin.flush());
            if sent.is_err() {
                self.stdin = None;
            }
        }
    }
}

impl Drop for Worker {
    /// Closes the worker's input, which ends an idle worker; kills it if it does not end.
    fn drop(&mut self) {
        drop(self.stdin.take());
        if wait_until(&mut self.child, Instant::now() + GRACE).is_none() {
            // Killing fails only if it has exited meanwhile; the wait reaps it either way.
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// How a worker's work on one file ended.
#[derive(Debug)]
pub enum FileEnd {
    /// The worker finished the file; with a reason when it could not test it at all.
    Done(Option<String>),
    /// The worker died (by a signal or an exit) before finishing the file.
    Exited(ExitStatus),
    /// The file's deadline passed; the worker was killed.
    TimedOut,
    /// No worker could be started.
    SpawnFailed(std::io::Error),
}

/// Everything learnt from one file's run on a worker.
#[derive(Debug)]
pub struct FileRun {
    /// The report lines it printed for the file, in order (other lines are ignored).
    pub reports: Vec<ItemReport>,
    /// How it ended.
    pub end: FileEnd,
    /// The end of what the worker wrote to standard error while on the file, if it died.
    pub stderr_tail: String,
}

impl FileRun {
    fn ended(reports: Vec<ItemReport>, end: FileEnd) -> FileRun {
        FileRun {
            reports,
            end,
            stderr_tail: String::new(),
        }
    }

    /// Why the items a worker did not report have no result, for their failure message.
    pub fn unreported_reason(&self, timeout: Duration) -> String {
        let mut msg = match &self.end {
            FileEnd::TimedOut => return format!("timed out (after {})", seconds(timeout)),
            FileEnd::SpawnFailed(e) => return format!("cannot start the test process: {e}"),
            FileEnd::Done(Some(why)) => return why.clone(),
            FileEnd::Done(None) => return "the test process reported no result".to_string(),
            FileEnd::Exited(status) => describe_status(*status),
        };
        let lines: Vec<&str> = self.stderr_tail.trim().lines().collect();
        if !lines.is_empty() {
            msg.push_str(":\n");
            msg.push_str(&lines[lines.len().saturating_sub(STDERR_LINES)..].join("\n"));
        }
        msg
    }

    /// Whether the worker died on the file, rather than finishing it or running out of time.
    pub fn crashed(&self) -> bool {
        matches!(self.end, FileEnd::Exited(_))
    }
}

fn seconds(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s.fract() == 0.0 {
        format!("{s:.0} s")
    } else {
        format!("{s} s")
    }
}

/// Describes an exit status in words: an exit code, or the signal that killed the process.
pub fn describe_status(status: ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(sig) = status.signal() {
            let name = match sig {
                4 => " (SIGILL)",
                6 => " (SIGABRT)",
                7 => " (SIGBUS)",
                8 => " (SIGFPE)",
                9 => " (SIGKILL)",
                11 => " (SIGSEGV)",
                15 => " (SIGTERM)",
                _ => "",
            };
            return format!("the test process was killed by signal {sig}{name}");
        }
    }
    match status.code() {
        Some(code) => format!("the test process exited with status {code}"),
        None => format!("the test process ended: {status}"),
    }
}

/// One worker process, started on first use and replaced after it dies or is killed. Files are
/// handed to it one at a time.
pub struct WorkerSlot {
    command: WorkerCommand,
    worker: Option<Worker>,
    started: usize,
}

/// What reading a worker's answer to one request came to.
enum Answer {
    Done(Option<String>),
    Closed,
    TimedOut,
}

impl WorkerSlot {
    /// A slot whose workers are started with `command`.
    pub fn new(command: WorkerCommand) -> WorkerSlot {
        WorkerSlot {
            command,
            worker: None,
            started: 0,
        }
    }

    /// How many worker processes this slot has started.
    #[cfg(test)]
    pub fn started(&self) -> usize {
        self.started
    }

    /// Has the worker test `request`, giving up on it at `deadline`.
    pub fn run_file(&mut self, request: &Request, deadline: Instant) -> FileRun {
        let run = self.run_file_once(request, deadline);
        // A worker leaves on its own after a file that poisoned its CUDA contexts; if the
        // request went to it while it was leaving, it closed without a word about this file
        // (status 0, nothing reported): not this file's fault, so a fresh worker takes it.
        let left_between_files =
            matches!(run.end, FileEnd::Exited(st) if st.success()) && run.reports.is_empty();
        if left_between_files {
            return self.run_file_once(request, deadline);
        }
        run
    }

    fn run_file_once(&mut self, request: &Request, deadline: Instant) -> FileRun {
        if self.worker.as_mut().is_some_and(Worker::has_exited) {
            self.worker = None;
        }
        if Instant::now() >= deadline {
            return FileRun::ended(Vec::new(), FileEnd::TimedOut);
        }
        let line = match serde_json::to_string(request) {
            Ok(line) => line,
            Err(e) => {
                let why = format!("cannot encode the request for the test process: {e}");
                return FileRun::ended(Vec::new(), FileEnd::Done(Some(why)));
            }
        };
        let worker = match &mut self.worker {
            Some(worker) => worker,
            None => match self.command.spawn() {
                Ok(worker) => {
                    self.started += 1;
                    self.worker.insert(worker)
                }
                Err(e) => return FileRun::ended(Vec::new(), FileEnd::SpawnFailed(e)),
            },
        };
        worker.stderr.clear();
        worker.send(&line);
        let mut reports = Vec::new();
        let answer = loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match worker.lines.recv_timeout(left) {
                Ok(line) => match parse_line(&line) {
                    Some(Message::Report(report)) => reports.push(report),
                    Some(Message::Done(done)) if done.done == request.file => {
                        break Answer::Done(done.error);
                    }
                    // A malformed request is answered without the file's name.
                    Some(Message::Done(done)) if done.done.is_empty() => {
                        break Answer::Done(done.error);
                    }
                    Some(Message::Done(_)) | None => {}
                },
                Err(RecvTimeoutError::Timeout) => break Answer::TimedOut,
                Err(RecvTimeoutError::Disconnected) => break Answer::Closed,
            }
        };
        match answer {
            Answer::Done(error) => FileRun::ended(reports, FileEnd::Done(error)),
            Answer::TimedOut => {
                self.kill();
                FileRun::ended(reports, FileEnd::TimedOut)
            }
            Answer::Closed => match wait_until(&mut worker.child, deadline) {
                Some(status) => {
                    let stderr_tail = worker.stderr.text(Instant::now() + GRACE);
                    self.worker = None;
                    FileRun {
                        reports,
                        end: FileEnd::Exited(status),
                        stderr_tail,
                    }
                }
                None => {
                    self.kill();
                    FileRun::ended(reports, FileEnd::TimedOut)
                }
            },
        }
    }

    /// Kills the worker, if any. Its reader threads are left to finish on their own: a process
    /// the worker started could keep the pipes open.
    fn kill(&mut self) {
        if let Some(mut worker) = self.worker.take() {
            let _ = worker.child.kill();
        }
    }
}

/// Waits for `child` to exit, but not past `deadline`; `None` if it is still running then.
fn wait_until(child: &mut Child, deadline: Instant) -> Option<ExitStatus> {
    let mut pause = Duration::from_millis(1);
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Some(status),
            Ok(None) => {}
            Err(_) => return child.wait().ok(),
        }
        let now = Instant::now();
        if now >= deadline {
            return None;
        }
        thread::sleep(pause.min(deadline - now));
        pause = (pause * 2).min(Duration::from_millis(50));
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use crate::test::outcome::Status;

    fn sh(script: &str) -> WorkerSlot {
        WorkerSlot::new(WorkerCommand {
            program: "sh".into(),
            args: vec!["-c".into(), script.into()],
        })
    }

    fn request(file: &str) -> Request {
        Request {
            file: file.to_string(),
            start: 0,
        }
    }

    fn within(d: Duration) -> Instant {
        Instant::now() + d
    }

    #[test]
    fn collects_reports_and_ignores_other_lines() {
        let mut slot = sh(r#"read req
            echo '{"index":0,"status":"passed"}'; echo noise; printf 'trace'
            echo '{"index":2,"status":"failed","message":"m"}'
            echo '{"done":"other.fut"}'; echo '{"done":"a.fut"}'; exec sleep 30"#);
        let run = slot.run_file(&request("a.fut"), within(Duration::from_secs(10)));
        assert!(matches!(run.end, FileEnd::Done(None)), "{run:?}");
        assert_eq!(run.reports.len(), 2);
        assert_eq!(run.reports[1].index, 2);
        assert_eq!(run.reports[1].verdict.status, Status::Failed);
    }

    #[test]
    fn one_worker_answers_many_requests() {
        let mut slot = sh(r#"while IFS= read -r req; do
                file=${req#*\"file\":\"}; file=${file%%\"*}
                echo '{"index":0,"status":"passed"}'; printf '{"done":"%s"}\n' "$file"
            done"#);
        for i in 0..20 {
            let run = slot.run_file(
                &request(&format!("f{i}.fut")),
                within(Duration::from_secs(10)),
            );
            assert!(matches!(run.end, FileEnd::Done(None)), "{run:?}");
            assert_eq!(run.reports.len(), 1);
        }
        assert_eq!(slot.started(), 1);
    }

    #[test]
    fn a_file_the_worker_cannot_test_fails_with_its_reason() {
        let mut slot = sh(r#"read req; echo '{"done":"a.fut","error":"cannot read a.fut"}'"#);
        let run = slot.run_file(&request("a.fut"), within(Duration::from_secs(10)));
        assert!(!run.crashed());
        assert_eq!(
            run.unreported_reason(Duration::from_secs(10)),
            "cannot read a.fut"
        );
    }

    #[test]
    fn kills_a_looping_worker_keeps_earlier_reports_and_starts_another() {
        let mut slot = sh(r#"read req; echo '{"index":0,"status":"passed"}'; exec sleep 30"#);
        let start = Instant::now();
        let run = slot.run_file(&request("a.fut"), within(Duration::from_millis(300)));
        assert!(start.elapsed() < Duration::from_secs(10));
        assert!(matches!(run.end, FileEnd::TimedOut));
        assert_eq!(run.reports.len(), 1);
        assert_eq!(
            run.unreported_reason(Duration::from_millis(300)),
            "timed out (after 0.3 s)"
        );
        let again = slot.run_file(&request("b.fut"), within(Duration::from_millis(300)));
        assert_eq!(again.reports.len(), 1);
        assert_eq!(slot.started(), 2);
    }

    #[test]
    fn describes_a_crash_with_its_signal_and_only_this_files_stderr() {
        let mut slot = sh(r#"read req; echo 'earlier file' >&2
            echo '{"done":"a.fut"}'; read req; echo 'stack overflow' >&2; kill -ABRT $$"#);
        let first = slot.run_file(&request("a.fut"), within(Duration::from_secs(10)));
        assert!(matches!(first.end, FileEnd::Done(None)), "{first:?}");
        // Give the first file's stderr time to arrive before the next file begins.
        thread::sleep(Duration::from_millis(100));
        let run = slot.run_file(&request("b.fut"), within(Duration::from_secs(10)));
        assert!(run.crashed());
        let reason = run.unreported_reason(Duration::from_secs(10));
        assert!(reason.contains("signal 6 (SIGABRT)"), "{reason}");
        assert!(reason.ends_with(":\nstack overflow"), "{reason}");
    }

    #[test]
    fn a_worker_that_died_idle_is_replaced() {
        let mut slot = sh(r#"read req; echo '{"done":"a.fut"}'; exit 3"#);
        let first = slot.run_file(&request("a.fut"), within(Duration::from_secs(10)));
        assert!(matches!(first.end, FileEnd::Done(None)), "{first:?}");
        thread::sleep(Duration::from_millis(100));
        let second = slot.run_file(&request("a.fut"), within(Duration::from_secs(10)));
        assert!(matches!(second.end, FileEnd::Done(None)), "{second:?}");
        assert_eq!(slot.started(), 2);
    }

    /// The worker leaves after a file (as after a sticky CUDA error) but is still exiting when
    /// the next request is sent: that file goes to a fresh worker instead of failing with
    /// "exited with status 0".
    #[test]
    fn a_file_sent_to_a_leaving_worker_goes_to_a_fresh_one() {
        let mut slot = sh(r#"read req; echo '{"done":"a.fut"}'; sleep 0.3; exit 0"#);
        let first = slot.run_file(&request("a.fut"), within(Duration::from_secs(10)));
        assert!(matches!(first.end, FileEnd::Done(None)), "{first:?}");
        let second = slot.run_file(&request("a.fut"), within(Duration::from_secs(10)));
        assert!(matches!(second.end, FileEnd::Done(None)), "{second:?}");
        assert_eq!(slot.started(), 2);
    }

    #[test]
    fn reports_spawn_failures() {
        let mut slot = WorkerSlot::new(WorkerCommand {
            program: "/nonexistent/futhark-rs-worker".into(),
            args: Vec::new(),
        });
        let run = slot.run_file(&request("a.fut"), within(Duration::from_secs(1)));
        assert!(matches!(run.end, FileEnd::SpawnFailed(_)));
    }
}
