//! Running a `-- >>> expr` example on the interpreter, through the REPL's
//! [`futhark_session::Session`]: load the file, evaluate the expression, report the value
//! and its type or the rendered error.
//!
//! The editor's buffers may be unsaved: the file and everything it imports are handed to
//! the session as the server's database holds them (`Session::load_sources`), and become
//! the session database's inputs under their own paths; nothing is written to disk.
//!
//! A time limit guards the server against an example that loops: a watchdog raises the
//! session's interrupt flag once the limit has passed (and keeps raising it, as the worker
//! clears the flag when a new evaluation starts), and the request gives up waiting a little
//! later in case the interpreter does not notice.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

use futhark_session::{
    BackendChoice, CellError, ErrorKind, Evaluated, Interrupter, Options, Session,
};
use serde_json::{Value, json};

/// How long past the time limit a request waits for an interpreter that ignores its
/// interrupt flag.
const GRACE: Duration = Duration::from_secs(3);

/// What to evaluate: the example, its file and the text of every file in its program.
#[derive(Clone, Debug)]
pub struct Job {
    pub root: PathBuf,
    /// `root` and the files it imports, with the server's text of each.
    pub files: Vec<(PathBuf, String)>,
    pub expr: String,
    /// The output the comment expects, if it says.
    pub expected: Option<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    Value {
        text: String,
        ty: String,
    },
    /// A syntax, type or run-time error: its kind, first line and full rendering.
    Error {
        kind: &'static str,
        summary: String,
        rendered: String,
    },
    TimedOut,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    pub expr: String,
    pub outcome: Outcome,
    pub expected: Option<String>,
    /// `#[trace]` lines printed while evaluating.
    pub trace: Vec<String>,
    pub limit: Duration,
}

impl Report {
    /// Whether the value is what the comment expects (`None`: nothing expected, or no value).
    pub fn matches(&self) -> Option<bool> {
        match (&self.outcome, &self.expected) {
            (Outcome::Value { text, .. }, Some(exp)) => {
                Some(futhark_ide::example_matches(exp, text))
            }
            _ => None,
        }
    }

    pub fn is_error(&self) -> bool {
        !matches!(self.outcome, Outcome::Value { .. }) || self.matches() == Some(false)
    }

    /// One line, for a code lens title or a notification.
    pub fn headline(&self) -> String {
        match &self.outcome {
            Outcome::Value { text, ty } => {
                let mut s = format!("{} : {ty}", first_line(text, 80));
                match (self.matches(), &self.expected) {
                    (Some(true), _) => s.push_str("  ✓"),
                    (Some(false), Some(exp)) => {
                        s.push_str(&format!("  ✗ expected {}", first_line(exp, 40)))
                    }
                    _ => {}
                }
                s
            }
            Outcome::Error { kind, summary, .. } => {
                format!("{}: {}", kind_text(kind), first_line(summary, 80))
            }
            Outcome::TimedOut => format!("stopped after {}", seconds(self.limit)),
        }
    }

    /// The whole report: the expression, trace lines, then the value or the error.
    pub fn message(&self) -> String {
        let mut out = format!(">>> {}\n", self.expr);
        for line in &self.trace {
            out.push_str(line);
            out.push('\n');
        }
        match &self.outcome {
            Outcome::Value { text, ty } => {
                out.push_str(&format!("{text}\n: {ty}"));
                if let (Some(false), Some(exp)) = (self.matches(), &self.expected) {
                    out.push_str(&format!("\nexpected:\n{exp}"));
                }
            }
            Outcome::Error { rendered, .. } => out.push_str(rendered),
            Outcome::TimedOut => out.push_str(&format!(
                "evaluation stopped: it ran longer than the time limit of {}",
                seconds(self.limit)
            )),
        }
        out
    }

    /// The answer to `workspace/executeCommand`.
    pub fn to_json(&self) -> Value {
        let (status, value, ty, error) = match &self.outcome {
            Outcome::Value { text, ty } => ("value", Some(text.as_str()), Some(ty.as_str()), None),
            Outcome::Error { kind, summary, .. } => ("error", None, None, Some((*kind, summary))),
            Outcome::TimedOut => ("timeout", None, None, None),
        };
        json!({
            "expr": self.expr,
            "status": status,
            "value": value,
            "type": ty,
            "errorKind": error.map(|e| e.0),
            "error": error.map(|e| e.1),
            "expected": self.expected,
            "matches": self.matches(),
            "trace": self.trace,
            "headline": self.headline(),
            "message": self.message(),
        })
    }
}

fn kind_text(kind: &str) -> &str {
    match kind {
        "SyntaxError" => "syntax error",
        "TypeError" => "type error",
        "RuntimeError" => "run-time error",
        _ => "error",
    }
}

fn first_line(s: &str, max: usize) -> String {
    let line = s.lines().next().unwrap_or_default();
    if line.chars().count() > max || s.lines().nth(1).is_some() {
        let cut: String = line.chars().take(max).collect();
        format!("{cut}…")
    } else {
        line.to_string()
    }
}

fn seconds(d: Duration) -> String {
    format!("{:.1} s", d.as_secs_f64())
}

/// Evaluates `job` on a blocking thread, within `limit`.
pub async fn run(job: Job, limit: Duration) -> Report {
    let (expr, expected) = (job.expr.clone(), job.expected.clone());
    let task = tokio::task::spawn_blocking(move || evaluate(&job, limit));
    let outcome = match tokio::time::timeout(limit + GRACE, task).await {
        Ok(Ok(report)) => return report,
        Ok(Err(_)) => Outcome::Error {
            kind: "InternalError",
            summary: "the evaluation thread failed".to_string(),
            rendered: "internal error: the evaluation thread failed".to_string(),
        },
        // The thread goes on until the interpreter sees its interrupt flag.
        Err(_) => Outcome::TimedOut,
    };
    Report {
        expr,
        outcome,
        expected,
        trace: Vec::new(),
        limit,
    }
}

/// Evaluates `job` here (a blocking call); a panic becomes an internal error.
pub fn evaluate(job: &Job, limit: Duration) -> Report {
    let mut trace = Vec::new();
    let outcome = catch_unwind(AssertUnwindSafe(|| evaluate_in(job, limit, &mut trace)))
        .unwrap_or_else(|p| {
            let what = p
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_string());
            Outcome::Error {
                kind: "InternalError",
                summary: format!("internal error: {what}"),
                rendered: format!("internal error while evaluating: {what}"),
            }
        });
    Report {
        expr: job.expr.clone(),
        outcome,
        expected: job.expected.clone(),
        trace,
        limit,
    }
}

fn evaluate_in(job: &Job, limit: Duration, trace: &mut Vec<String>) -> Outcome {
    let start = Instant::now();
    let options = Options {
        backend: BackendChoice::Interp,
        ..Options::default()
    };
    let mut session = match Session::new(options) {
        Ok(s) => s,
        Err(e) => return error(None, &e, ""),
    };
    let Some(remaining) = limit.checked_sub(start.elapsed()) else {
        return Outcome::TimedOut;
    };
    let dog = Watchdog::start(session.interrupter(), remaining);
    if let Err(e) = session.load_sources(&job.root, &job.files) {
        let timed_out = dog.stop();
        return match e.kind {
            ErrorKind::Interrupted if timed_out => Outcome::TimedOut,
            _ => error(Some(&session), &e, "the program has errors: "),
        };
    }
    let outcome = session.eval(&job.expr, &mut |line| trace.push(line.to_string()));
    let timed_out = dog.stop();
    match outcome.result {
        Ok(Evaluated::Value(shown)) => Outcome::Value {
            text: shown.text.text,
            ty: shown.ty,
        },
        Ok(Evaluated::Declared(_) | Evaluated::Nothing) => {
            usage("`-- >>>` expects an expression, not declarations".to_string())
        }
        Err(e) if e.kind == ErrorKind::Interrupted && timed_out => Outcome::TimedOut,
        Err(e) => error(Some(&session), &e, ""),
    }
}

fn usage(message: String) -> Outcome {
    Outcome::Error {
        kind: ErrorKind::Usage.ename(),
        summary: message.clone(),
        rendered: message,
    }
}

fn error(session: Option<&Session>, e: &CellError, prefix: &str) -> Outcome {
    let rendered = match session {
        Some(s) => s.render_error(e, false),
        None => e.detail.clone().unwrap_or_else(|| e.summary.clone()),
    };
    Outcome::Error {
        kind: e.kind.ename(),
        summary: format!("{prefix}{}", e.summary),
        rendered: format!("{prefix}{rendered}"),
    }
}

/// Interrupts a session once its time is up.
struct Watchdog {
    done: mpsc::Sender<()>,
    thread: Option<std::thread::JoinHandle<bool>>,
}

impl Watchdog {
    fn start(interrupter: Interrupter, limit: Duration) -> Watchdog {
        let (done, rx) = mpsc::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("futhark-lsp-watchdog".to_string())
            .spawn(move || {
                if rx.recv_timeout(limit) != Err(RecvTimeoutError::Timeout) {
                    return false;
                }
                loop {
                    interrupter.interrupt();
                    if rx.recv_timeout(Duration::from_millis(20)) != Err(RecvTimeoutError::Timeout)
                    {
                        return true;
                    }
                }
            })
            .ok();
        Watchdog { done, thread }
    }

    /// Stops watching; true if the time limit had passed.
    fn stop(self) -> bool {
        let _ = self.done.send(());
        self.thread.and_then(|t| t.join().ok()).unwrap_or(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(
        dir: &std::path::Path,
        files: &[(&str, &str)],
        expr: &str,
        expected: Option<&str>,
    ) -> Job {
        Job {
            root: dir.join(files[0].0),
            files: files
                .iter()
                .map(|(p, t)| (dir.join(p), t.to_string()))
                .collect(),
            expr: expr.to_string(),
            expected: expected.map(str::to_string),
        }
    }

    const LIMIT: Duration = Duration::from_secs(20);

    // The paths need not exist: the session reads the texts given, never the disk.
    fn dir() -> PathBuf {
        PathBuf::from("/nonexistent/futhark-lsp-test")
    }

    #[test]
    fn evaluates_with_imports_and_unsaved_text() {
        let files = [
            (
                "main.fut",
                "import \"lib/util\"\ndef quad (x: i32) = double (x * x)\n",
            ),
            ("lib/util.fut", "def double (x: i32) = x * 2\n"),
        ];
        let r = evaluate(&job(&dir(), &files, "quad 3", Some("18")), LIMIT);
        assert_eq!(
            r.outcome,
            Outcome::Value {
                text: "18".to_string(),
                ty: "i32".to_string()
            }
        );
        assert_eq!(r.matches(), Some(true));
        let r = evaluate(
            &job(&dir(), &files, "map quad [1, 2]", Some("[2, 9]")),
            LIMIT,
        );
        assert_eq!(r.matches(), Some(false));
        assert!(
            r.headline().contains("✗ expected [2, 9]"),
            "{}",
            r.headline()
        );
    }

    #[test]
    fn type_and_runtime_errors_are_reported_with_original_paths() {
        let files = [("main.fut", "def f (x: i32) = [1, 2][x]\n")];
        let r = evaluate(&job(&dir(), &files, "f true", None), LIMIT);
        let Outcome::Error { kind, .. } = &r.outcome else {
            panic!("{r:?}")
        };
        assert_eq!(*kind, "TypeError");
        let r = evaluate(&job(&dir(), &files, "f 7", None), LIMIT);
        let Outcome::Error { kind, rendered, .. } = &r.outcome else {
            panic!("{r:?}")
        };
        assert_eq!(*kind, "RuntimeError");
        assert!(
            rendered.contains("/nonexistent/futhark-lsp-test/main.fut"),
            "{rendered}"
        );
    }

    #[test]
    fn a_loop_is_stopped_at_the_limit() {
        let files = [(
            "main.fut",
            "def spin (n: i64) = loop i = n while i >= 0 do i + 1\n",
        )];
        let t = Instant::now();
        let r = evaluate(
            &job(&dir(), &files, "spin 0", None),
            Duration::from_millis(300),
        );
        assert_eq!(r.outcome, Outcome::TimedOut, "{r:?}");
        assert!(t.elapsed() < Duration::from_secs(10), "{:?}", t.elapsed());
    }

    #[test]
    fn a_program_with_errors_says_so() {
        let files = [("main.fut", "def f : i32 = true\n")];
        let r = evaluate(&job(&dir(), &files, "1", None), LIMIT);
        let Outcome::Error { summary, .. } = &r.outcome else {
            panic!("{r:?}")
        };
        assert!(summary.starts_with("the program has errors"), "{summary}");
    }
}
