//! Progress of a `futhark-rs test` run, on standard error (standard output keeps only the
//! failures and the summary), through the shared [`crate::progress::Meter`]: a redrawn bar
//! with the counts so far and an ETA when standard error is a terminal, else a plain line
//! every [`LINE_FILES`] files or [`LINE_INTERVAL`]. Files are counted as their results
//! arrive, in whatever order the workers finish them.

use std::time::{Duration, Instant};

pub use crate::progress::ProgressKind;
use crate::progress::{Cadence, Labels, Meter};

use super::outcome::CaseResult;
use super::report::Counts;

/// A plain progress line is printed after at least this many more files...
pub const LINE_FILES: usize = 100;
/// ...or once this much time has passed since the last line (checked as files finish).
pub const LINE_INTERVAL: Duration = Duration::from_secs(10);

const LABELS: Labels = Labels {
    command: "test",
    unit: "files",
};

const CADENCE: Cadence = Cadence {
    items: LINE_FILES,
    interval: LINE_INTERVAL,
    at_end: false,
};

/// The counts so far and how they are shown.
pub struct Progress {
    meter: Meter,
    counts: Counts,
}

impl Progress {
    /// Starts showing the progress of a run over `total` files.
    pub fn start(kind: ProgressKind, total: usize) -> Self {
        Self::start_at(kind, total, Instant::now())
    }

    fn start_at(kind: ProgressKind, total: usize, start: Instant) -> Self {
        let mut meter = Meter::start_at(kind, LABELS, CADENCE, total, start);
        meter.set_message(counts_text(Counts::default()));
        Progress {
            meter,
            counts: Counts::default(),
        }
    }

    /// Counts one file's results.
    pub fn file_done(&mut self, results: &[CaseResult]) {
        self.file_done_at(results, Instant::now());
    }

    fn file_done_at(&mut self, results: &[CaseResult], now: Instant) {
        for r in results {
            self.counts.add(r.status);
        }
        self.meter.advance_at(1, counts_text(self.counts), now);
    }

    /// Runs `f` (which prints to the same terminal) with the bar cleared, then redraws it.
    pub fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        self.meter.suspend(f)
    }

    /// Ends the display; the bar is left showing the final counts.
    pub fn finish(&self) {
        self.meter.finish();
    }
}

fn counts_text(c: Counts) -> String {
    format!(
        "{} passed, {} failed, {} skipped",
        c.passed, c.failed, c.skipped
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::progress::human;
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
            p.meter.line(t0 + Duration::from_secs(20)),
            "test: 100/400 files, 200 passed, 100 failed, 100 skipped, 20s elapsed, about 1m 00s left"
        );
        assert_eq!(human(Duration::from_secs(3725)), "1h 02m");
    }
}
