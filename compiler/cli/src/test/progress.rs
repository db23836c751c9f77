//! Progress of a `futhark-rs test` run, on standard error (standard output keeps only the
//! failures and the summary): a redrawn bar with the counts so far and an ETA when standard
//! error is a terminal, else a plain line every [`LINE_FILES`] files or [`LINE_INTERVAL`].
//! Files are counted as their results arrive, in whatever order the workers finish them.

use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::outcome::CaseResult;
use super::report::Counts;

/// A plain progress line is printed after at least this many more files...
pub const LINE_FILES: usize = 100;
/// ...or once this much time has passed since the last line (checked as files finish).
pub const LINE_INTERVAL: Duration = Duration::from_secs(10);

/// How progress is shown; chosen once, by the caller, from where standard error goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProgressKind {
    /// A bar redrawn in place (standard error is a terminal), coloured unless `color` is off.
    Bar { color: bool },
    /// Plain lines now and then (standard error is a file or a pipe).
    Lines,
}

impl ProgressKind {
    /// The kind for a standard error that is (or is not) a terminal, with `NO_COLOR` set (or
    /// not).
    pub fn for_stderr(is_terminal: bool, no_color: bool) -> Self {
        if is_terminal {
            ProgressKind::Bar { color: !no_color }
        } else {
            ProgressKind::Lines
        }
    }
}

/// The counts so far and how they are shown.
pub struct Progress {
    total: usize,
    done: usize,
    counts: Counts,
    start: Instant,
    show: Show,
}

enum Show {
    Bar(ProgressBar),
    Lines { last: Instant, last_done: usize },
}

impl Progress {
    /// Starts showing the progress of a run over `total` files.
    pub fn start(kind: ProgressKind, total: usize) -> Self {
        Self::start_at(kind, total, Instant::now())
    }

    fn start_at(kind: ProgressKind, total: usize, start: Instant) -> Self {
        let show = match kind {
            ProgressKind::Bar { color } => {
                let bar = ProgressBar::with_draw_target(
                    Some(total as u64),
                    ProgressDrawTarget::stderr_with_hz(10),
                );
                bar.set_style(bar_style(color));
                bar.set_message(counts_text(Counts::default()));
                bar.enable_steady_tick(Duration::from_millis(250));
                Show::Bar(bar)
            }
            ProgressKind::Lines => Show::Lines {
                last: start,
                last_done: 0,
            },
        };
        Progress {
            total,
            done: 0,
            counts: Counts::default(),
            start,
            show,
        }
    }

    /// Counts one file's results.
    pub fn file_done(&mut self, results: &[CaseResult]) {
        self.file_done_at(results, Instant::now());
    }

    fn file_done_at(&mut self, results: &[CaseResult], now: Instant) {
        self.done += 1;
        for r in results {
            self.counts.add(r.status);
        }
        match &mut self.show {
            Show::Bar(bar) => {
                bar.set_message(counts_text(self.counts));
                bar.inc(1);
            }
            Show::Lines { last, last_done } => {
                if line_due(self.done, *last_done, now.duration_since(*last)) {
                    *last = now;
                    *last_done = self.done;
                    eprintln!("{}", self.line(now));
                }
            }
        }
    }

    /// Runs `f` (which prints to the same terminal) with the bar cleared, then redraws it.
    pub fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        match &self.show {
            Show::Bar(bar) => bar.suspend(f),
            Show::Lines { .. } => f(),
        }
    }

    /// Ends the display; the bar is left showing the final counts.
    pub fn finish(&self) {
        if let Show::Bar(bar) = &self.show {
            bar.finish();
        }
    }

    /// The plain line: files done, counts, time so far and the estimate of the time left.
    fn line(&self, now: Instant) -> String {
        let elapsed = now.duration_since(self.start);
        let mut text = format!(
            "test: {}/{} files, {}, {} elapsed",
            self.done,
            self.total,
            counts_text(self.counts),
            human(elapsed)
        );
        if self.done > 0 && self.done < self.total {
            let left = elapsed.mul_f64((self.total - self.done) as f64 / self.done as f64);
            text.push_str(&format!(", about {} left", human(left)));
        }
        text
    }
}

fn line_due(done: usize, last_done: usize, since_last: Duration) -> bool {
    done - last_done >= LINE_FILES || since_last >= LINE_INTERVAL
}

fn counts_text(c: Counts) -> String {
    format!(
        "{} passed, {} failed, {} skipped",
        c.passed, c.failed, c.skipped
    )
}

/// The bar's templates, coloured and plain.
const BAR_COLOR: &str =
    "{spinner:.green} [{elapsed_precise}] {bar:30.cyan/blue} {pos}/{len} files  {msg}  ETA {eta}";
const BAR_PLAIN: &str =
    "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} files  {msg}  ETA {eta}";

fn bar_style(color: bool) -> ProgressStyle {
    let template = if color { BAR_COLOR } else { BAR_PLAIN };
    // The templates are constants; a mistake in them is caught by the tests below.
    ProgressStyle::with_template(template)
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> ")
}

/// `1h 02m`, `4m 05s` or `7s`.
fn human(d: Duration) -> String {
    let s = d.as_secs();
    if s >= 3600 {
        format!("{}h {:02}m", s / 3600, s % 3600 / 60)
    } else if s >= 60 {
        format!("{}m {:02}s", s / 60, s % 60)
    } else {
        format!("{s}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test::outcome::Status;

    fn result(status: Status) -> CaseResult {
        CaseResult {
            file: "f.fut".into(),
            entry: None,
            case: None,
            status,
            message: None,
            skip: None,
            regex_matched: None,
        }
    }

    #[test]
    fn kind_follows_the_terminal_and_no_color() {
        assert_eq!(
            ProgressKind::for_stderr(true, false),
            ProgressKind::Bar { color: true }
        );
        assert_eq!(
            ProgressKind::for_stderr(true, true),
            ProgressKind::Bar { color: false }
        );
        assert_eq!(ProgressKind::for_stderr(false, false), ProgressKind::Lines);
        assert_eq!(ProgressKind::for_stderr(false, true), ProgressKind::Lines);
    }

    #[test]
    fn templates_parse() {
        for t in [BAR_COLOR, BAR_PLAIN] {
            assert!(ProgressStyle::with_template(t).is_ok(), "{t}");
        }
    }

    #[test]
    fn lines_every_hundred_files_or_ten_seconds() {
        assert!(!line_due(99, 0, Duration::from_secs(9)));
        assert!(line_due(100, 0, Duration::from_secs(1)));
        assert!(!line_due(150, 100, Duration::from_millis(9999)));
        assert!(line_due(101, 100, Duration::from_secs(10)));
    }

    #[test]
    fn line_counts_cases_and_estimates_the_rest() {
        let t0 = Instant::now();
        let mut p = Progress::start_at(ProgressKind::Lines, 400, t0);
        let one_file = [
            result(Status::Passed),
            result(Status::Passed),
            result(Status::Failed),
            result(Status::Skipped),
        ];
        for i in 0..100 {
            // Line printing goes to stderr; what it says is checked through `line`.
            p.file_done_at(&one_file, t0 + Duration::from_millis(i * 10));
        }
        assert_eq!(
            p.line(t0 + Duration::from_secs(20)),
            "test: 100/400 files, 200 passed, 100 failed, 100 skipped, 20s elapsed, about 1m 00s left"
        );
        assert_eq!(human(Duration::from_secs(3725)), "1h 02m");
    }
}
