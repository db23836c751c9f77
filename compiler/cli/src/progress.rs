//! Progress of a long command on standard error, shared by `test` and `bench`: a redrawn bar
//! with the items done, a message (the counts so far) and an ETA when standard error is a
//! terminal (coloured unless `NO_COLOR` is set), else a plain line now and then — after a
//! number of items or an interval, whichever comes first, and, where the command asks for
//! it, once at the end.
//!
//! While the bar is up, whatever else the command prints goes through [`Meter::suspend`].
//! The bar's spinner turns on its own (a steady tick), so a long step between items — a CUDA
//! program compiled by NVRTC, say — shows a live spinner with [`Meter::set_message`]
//! saying what is going on.

use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

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

    /// The kind for this process's standard error and environment.
    pub fn detect() -> Self {
        use std::io::IsTerminal;
        Self::for_stderr(
            std::io::stderr().is_terminal(),
            std::env::var_os("NO_COLOR").is_some(),
        )
    }
}

/// When plain lines are printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cadence {
    /// After at least this many more items...
    pub items: usize,
    /// ...or once this much time has passed since the last line (checked as items finish).
    pub interval: Duration,
    /// And a last line when the final item is done.
    pub at_end: bool,
}

/// What is being counted: `test: 3/10 files, …`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Labels {
    /// The command, first on plain lines.
    pub command: &'static str,
    /// The items, plural.
    pub unit: &'static str,
}

/// Items done out of a total, with a message, shown as a bar or as lines.
pub struct Meter {
    labels: Labels,
    cadence: Cadence,
    total: usize,
    done: usize,
    message: String,
    start: Instant,
    show: Show,
}

enum Show {
    Bar(ProgressBar),
    Lines { last: Instant, last_done: usize },
}

impl Meter {
    /// Starts showing the progress over `total` items.
    pub fn start(kind: ProgressKind, labels: Labels, cadence: Cadence, total: usize) -> Self {
        Self::start_at(kind, labels, cadence, total, Instant::now())
    }

    pub fn start_at(
        kind: ProgressKind,
        labels: Labels,
        cadence: Cadence,
        total: usize,
        start: Instant,
    ) -> Self {
        let show = match kind {
            ProgressKind::Bar { color } => {
                let bar = ProgressBar::with_draw_target(
                    Some(total as u64),
                    ProgressDrawTarget::stderr_with_hz(10),
                );
                bar.set_style(bar_style(color, labels.unit));
                bar.enable_steady_tick(Duration::from_millis(250));
                Show::Bar(bar)
            }
            ProgressKind::Lines => Show::Lines {
                last: start,
                last_done: 0,
            },
        };
        Meter {
            labels,
            cadence,
            total,
            done: 0,
            message: String::new(),
            start,
            show,
        }
    }

    /// Sets the message (the counts so far, or what is going on now).
    pub fn set_message(&mut self, message: impl Into<String>) {
        self.message = message.into();
        if let Show::Bar(bar) = &self.show {
            bar.set_message(self.message.clone());
        }
    }

    /// Counts `n` more items done, with the message now; prints a line when one is due.
    pub fn advance(&mut self, n: usize, message: impl Into<String>) {
        self.advance_at(n, message, Instant::now());
    }

    pub fn advance_at(&mut self, n: usize, message: impl Into<String>, now: Instant) {
        self.done += n;
        self.set_message(message);
        let done = self.done;
        let due = match &self.show {
            Show::Bar(bar) => {
                bar.inc(n as u64);
                false
            }
            Show::Lines { last, last_done } => {
                self.cadence
                    .due(done, *last_done, now.duration_since(*last), self.total)
            }
        };
        if due {
            let line = self.line(now);
            if let Show::Lines { last, last_done } = &mut self.show {
                *last = now;
                *last_done = done;
            }
            eprintln!("{line}");
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

    /// The plain line: items done, the message, time so far and the estimate of the time left.
    pub fn line(&self, now: Instant) -> String {
        let elapsed = now.duration_since(self.start);
        let mut text = format!(
            "{}: {}/{} {}",
            self.labels.command, self.done, self.total, self.labels.unit
        );
        if !self.message.is_empty() {
            text.push_str(", ");
            text.push_str(&self.message);
        }
        text.push_str(&format!(", {} elapsed", human(elapsed)));
        if self.done > 0 && self.done < self.total {
            let left = elapsed.mul_f64((self.total - self.done) as f64 / self.done as f64);
            text.push_str(&format!(", about {} left", human(left)));
        }
        text
    }
}

impl Cadence {
    fn due(&self, done: usize, last_done: usize, since_last: Duration, total: usize) -> bool {
        done - last_done >= self.items
            || since_last >= self.interval
            || (self.at_end && done == total && done > last_done)
    }
}

/// The bar's template, coloured or plain, counting `unit`.
fn bar_template(color: bool, unit: &str) -> String {
    if color {
        format!(
            "{{spinner:.green}} [{{elapsed_precise}}] {{bar:30.cyan/blue}} {{pos}}/{{len}} {unit}  {{msg}}  ETA {{eta}}"
        )
    } else {
        format!(
            "{{spinner}} [{{elapsed_precise}}] {{bar:30}} {{pos}}/{{len}} {unit}  {{msg}}  ETA {{eta}}"
        )
    }
}

fn bar_style(color: bool, unit: &str) -> ProgressStyle {
    // A mistake in the template is caught by the tests below.
    ProgressStyle::with_template(&bar_template(color, unit))
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> ")
}

/// `1h 02m`, `4m 05s` or `7s`.
pub fn human(d: Duration) -> String {
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

    const LABELS: Labels = Labels {
        command: "bench",
        unit: "datasets",
    };

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
        for color in [true, false] {
            let t = bar_template(color, "files");
            assert!(ProgressStyle::with_template(&t).is_ok(), "{t}");
            assert!(t.contains("{pos}/{len} files"), "{t}");
        }
    }

    #[test]
    fn lines_by_count_interval_and_at_the_end() {
        let c = Cadence {
            items: 100,
            interval: Duration::from_secs(10),
            at_end: false,
        };
        assert!(!c.due(99, 0, Duration::from_secs(9), 1000));
        assert!(c.due(100, 0, Duration::from_secs(1), 1000));
        assert!(!c.due(150, 100, Duration::from_millis(9999), 1000));
        assert!(c.due(101, 100, Duration::from_secs(10), 1000));
        assert!(!c.due(5, 0, Duration::ZERO, 5));
        let end = Cadence { at_end: true, ..c };
        assert!(end.due(5, 0, Duration::ZERO, 5));
        assert!(!end.due(5, 5, Duration::ZERO, 5));
    }

    #[test]
    fn lines_say_what_is_done_and_estimate_the_rest() {
        let t0 = Instant::now();
        let cadence = Cadence {
            items: 10,
            interval: Duration::from_secs(10),
            at_end: true,
        };
        let mut m = Meter::start_at(ProgressKind::Lines, LABELS, cadence, 4, t0);
        m.advance_at(1, "1 timed, 0 failed", t0 + Duration::from_secs(3));
        assert_eq!(
            m.line(t0 + Duration::from_secs(3)),
            "bench: 1/4 datasets, 1 timed, 0 failed, 3s elapsed, about 9s left"
        );
        m.advance_at(3, "3 timed, 1 failed", t0 + Duration::from_secs(125));
        assert_eq!(
            m.line(t0 + Duration::from_secs(125)),
            "bench: 4/4 datasets, 3 timed, 1 failed, 2m 05s elapsed"
        );
        assert_eq!(human(Duration::from_secs(3725)), "1h 02m");
    }
}
