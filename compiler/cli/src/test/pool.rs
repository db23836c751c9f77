//! Running child processes with a deadline: collects the JSON report lines a child prints,
//! kills it when its time is up, and describes how it ended, so the runner survives programs
//! that crash the process (stack overflow, abort) or never finish.

use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread;
use std::time::{Duration, Instant};

use super::outcome::ChildReport;

/// How much of a child's standard error is kept for the failure message: bytes, then lines.
const STDERR_TAIL: usize = 2000;
const STDERR_LINES: usize = 8;

/// How a child process ended.
#[derive(Debug)]
pub enum ChildEnd {
    /// It exited (normally or by a signal) before the deadline.
    Exited(ExitStatus),
    /// It was still running at the deadline and was killed.
    TimedOut,
    /// It could not be started.
    SpawnFailed(std::io::Error),
}

/// Everything learnt from one child run.
#[derive(Debug)]
pub struct ChildRun {
    /// The report lines it printed, in order (other lines are ignored).
    pub reports: Vec<ChildReport>,
    /// How it ended.
    pub end: ChildEnd,
    /// The end of what it wrote to standard error.
    pub stderr_tail: String,
}

impl ChildRun {
    /// Why the items a child did not report have no result, for their failure message.
    pub fn unreported_reason(&self, timeout: Duration) -> String {
        let mut msg = match &self.end {
            ChildEnd::TimedOut => return format!("timed out (after {})", seconds(timeout)),
            ChildEnd::SpawnFailed(e) => return format!("cannot start the test process: {e}"),
            ChildEnd::Exited(status) => describe_status(*status),
        };
        let lines: Vec<&str> = self.stderr_tail.trim().lines().collect();
        if !lines.is_empty() {
            msg.push_str(":\n");
            msg.push_str(&lines[lines.len().saturating_sub(STDERR_LINES)..].join("\n"));
        }
        msg
    }

    /// Whether the child died (by a signal or a failure exit status) rather than finishing or
    /// running out of time.
    pub fn crashed(&self) -> bool {
        matches!(self.end, ChildEnd::Exited(status) if !status.success())
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

/// Runs `command` until it exits or `timeout` passes, reading its report lines as they come.
pub fn run_child(command: &mut Command, timeout: Duration) -> ChildRun {
    let deadline = Instant::now() + timeout;
    let mut child = match command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
    {
        Ok(child) => child,
        Err(e) => {
            return ChildRun {
                reports: Vec::new(),
                end: ChildEnd::SpawnFailed(e),
                stderr_tail: String::new(),
            };
        }
    };
    let (tx, rx) = mpsc::channel::<String>();
    let stdout = child.stdout.take();
    let out_reader = thread::spawn(move || {
        if let Some(stdout) = stdout {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        }
    });
    let stderr = child.stderr.take();
    let err_reader = thread::spawn(move || read_tail(stderr));

    let mut reports = Vec::new();
    let mut timed_out = false;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(line) => reports.extend(parse_report(&line)),
            Err(RecvTimeoutError::Disconnected) => break,
            Err(RecvTimeoutError::Timeout) => {
                timed_out = true;
                break;
            }
        }
    }
    let status = if timed_out {
        None
    } else {
        wait_until(&mut child, deadline)
    };
    let (end, stderr_tail) = match status {
        Some(status) => {
            let _ = out_reader.join();
            (
                ChildEnd::Exited(status),
                err_reader.join().unwrap_or_default(),
            )
        }
        None => {
            // Killing fails only if it has exited meanwhile; the wait reaps it either way. The
            // reader threads are left to finish on their own: a process the child started
            // could keep the pipes open.
            let _ = child.kill();
            let _ = child.wait();
            (ChildEnd::TimedOut, String::new())
        }
    };
    ChildRun {
        reports,
        end,
        stderr_tail,
    }
}

/// The report on `line`, if any. A report is looked for anywhere on the line, in case the
/// program under test printed something without a final newline just before it.
fn parse_report(line: &str) -> Option<ChildReport> {
    let start = line.find(REPORT_START)?;
    serde_json::from_str(&line[start..]).ok()
}

/// How every report line begins (the field order of [`ChildReport`]).
const REPORT_START: &str = "{\"index\":";

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

/// Reads `r` to the end, keeping only the last [`STDERR_TAIL`] bytes.
fn read_tail(r: Option<impl Read>) -> String {
    let Some(mut r) = r else {
        return String::new();
    };
    let mut tail: Vec<u8> = Vec::new();
    let mut buf = [0u8; 8192];
    loop {
        match r.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                tail.extend_from_slice(&buf[..n]);
                if tail.len() > 2 * STDERR_TAIL {
                    tail.drain(..tail.len() - STDERR_TAIL);
                }
            }
        }
    }
    if tail.len() > STDERR_TAIL {
        tail.drain(..tail.len() - STDERR_TAIL);
    }
    String::from_utf8_lossy(&tail).into_owned()
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use crate::test::outcome::Status;

    fn sh(script: &str) -> Command {
        let mut c = Command::new("sh");
        c.arg("-c").arg(script);
        c
    }

    #[test]
    fn collects_reports_and_ignores_other_lines() {
        let run = run_child(
            &mut sh(
                r#"echo '{"index":0,"status":"passed"}'; echo noise; printf 'trace'; echo '{"index":2,"status":"failed","message":"m"}'"#,
            ),
            Duration::from_secs(10),
        );
        assert!(matches!(run.end, ChildEnd::Exited(s) if s.success()));
        assert_eq!(run.reports.len(), 2);
        assert_eq!(run.reports[1].index, 2);
        assert_eq!(run.reports[1].verdict.status, Status::Failed);
    }

    #[test]
    fn kills_a_looping_child_and_keeps_earlier_reports() {
        let start = Instant::now();
        let run = run_child(
            &mut sh(r#"echo '{"index":0,"status":"passed"}'; exec sleep 30"#),
            Duration::from_millis(300),
        );
        assert!(start.elapsed() < Duration::from_secs(10));
        assert!(matches!(run.end, ChildEnd::TimedOut));
        assert_eq!(run.reports.len(), 1);
        assert_eq!(
            run.unreported_reason(Duration::from_millis(300)),
            "timed out (after 0.3 s)"
        );
    }

    #[test]
    fn describes_a_crash_with_its_signal_and_stderr() {
        let run = run_child(
            &mut sh("echo 'stack overflow' >&2; kill -ABRT $$"),
            Duration::from_secs(10),
        );
        let reason = run.unreported_reason(Duration::from_secs(10));
        assert!(reason.contains("signal 6 (SIGABRT)"), "{reason}");
        assert!(reason.ends_with("stack overflow"), "{reason}");
    }

    #[test]
    fn reports_spawn_failures() {
        let run = run_child(
            &mut Command::new("/nonexistent/futhark-rs-child"),
            Duration::from_secs(1),
        );
        assert!(matches!(run.end, ChildEnd::SpawnFailed(_)));
    }
}
