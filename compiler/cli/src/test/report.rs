//! What `futhark-rs test` prints: each failure with its file, entry point, case and message,
//! then a table per top-level folder, the reasons for skips, and the totals line
//! `N passed, N failed, N skipped` (always the last line).

use std::collections::{BTreeMap, HashMap};
use std::io::{self, Write};

use super::outcome::{CaseResult, SkipKind, Status};

/// Passed, failed and skipped counts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// Cases that passed.
    pub passed: usize,
    /// Cases that failed.
    pub failed: usize,
    /// Cases that were skipped.
    pub skipped: usize,
}

impl Counts {
    pub(super) fn add(&mut self, status: Status) {
        match status {
            Status::Passed => self.passed += 1,
            Status::Failed => self.failed += 1,
            Status::Skipped => self.skipped += 1,
        }
    }
}

/// Everything the summary needs, accumulated file by file.
#[derive(Debug, Default)]
pub struct Summary {
    /// Totals over all results.
    pub totals: Counts,
    /// Counts per folder, in the order folders were first seen.
    groups: Vec<(String, Counts)>,
    group_index: HashMap<String, usize>,
    /// Skips per reason.
    skips: BTreeMap<SkipKind, usize>,
    /// Programs rejected as expected, and how many of those matched the test's regex.
    rejections: usize,
    rejections_matched: usize,
}

impl Summary {
    /// Counts the results of one file, which belongs to folder `group`.
    pub fn add(&mut self, group: &str, results: &[CaseResult]) {
        let index = match self.group_index.get(group) {
            Some(&i) => i,
            None => {
                self.groups.push((group.to_string(), Counts::default()));
                self.group_index
                    .insert(group.to_string(), self.groups.len() - 1);
                self.groups.len() - 1
            }
        };
        for r in results {
            self.totals.add(r.status);
            self.groups[index].1.add(r.status);
            if let Some(kind) = r.skip {
                *self.skips.entry(kind).or_default() += 1;
            }
            if let Some(matched) = r.regex_matched {
                self.rejections += 1;
                self.rejections_matched += usize::from(matched);
            }
        }
    }

    /// Prints the folder table, the skip reasons, the regex statistics and the totals line.
    pub fn print(&self, out: &mut impl Write) -> io::Result<()> {
        if !self.groups.is_empty() {
            let width = self
                .groups
                .iter()
                .map(|(g, _)| g.chars().count())
                .max()
                .unwrap_or(0)
                .max("folder".len());
            writeln!(out)?;
            writeln!(
                out,
                "{:<width$}  {:>7}  {:>7}  {:>7}",
                "folder", "passed", "failed", "skipped"
            )?;
            for (group, c) in &self.groups {
                writeln!(
                    out,
                    "{group:<width$}  {:>7}  {:>7}  {:>7}",
                    c.passed, c.failed, c.skipped
                )?;
            }
            writeln!(out)?;
        }
        if !self.skips.is_empty() {
            let parts: Vec<String> = self
                .skips
                .iter()
                .map(|(kind, n)| format!("{n} {}", kind.describe()))
                .collect();
            writeln!(out, "skipped: {}", parts.join(", "))?;
        }
        if self.rejections > 0 {
            writeln!(
                out,
                "expected compile errors: {} of {} rejections matched the test's regex",
                self.rejections_matched, self.rejections
            )?;
        }
        let t = self.totals;
        writeln!(
            out,
            "{} passed, {} failed, {} skipped",
            t.passed, t.failed, t.skipped
        )
    }
}

/// Prints every failed result of one file.
pub fn print_failures(out: &mut impl Write, results: &[CaseResult]) -> io::Result<()> {
    for r in results.iter().filter(|r| r.status == Status::Failed) {
        let mut what = Vec::new();
        if let Some(entry) = &r.entry {
            what.push(format!("entry {entry}"));
        }
        if let Some(case) = &r.case {
            what.push(format!("case {case}"));
        }
        let what = if what.is_empty() {
            String::new()
        } else {
            format!(" ({})", what.join(", "))
        };
        writeln!(out, "FAILED {}{what}:", r.file)?;
        let message = r.message.as_deref().unwrap_or("(no message)");
        for line in message.lines() {
            writeln!(out, "  {line}")?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(status: Status, skip: Option<SkipKind>) -> CaseResult {
        CaseResult {
            file: "dir/a.fut".to_string(),
            entry: Some("main".to_string()),
            case: Some("#0 (\"1\")".to_string()),
            status,
            message: Some("result differs: value #0: expected 2i32, got 3i32".to_string()),
            skip,
            regex_matched: None,
        }
    }

    #[test]
    fn failures_name_file_entry_and_case() {
        let mut out = Vec::new();
        print_failures(
            &mut out,
            &[result(Status::Failed, None), result(Status::Passed, None)],
        )
        .unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "FAILED dir/a.fut (entry main, case #0 (\"1\")):\n  result differs: value #0: expected 2i32, got 3i32\n"
        );
    }

    #[test]
    fn summary_ends_with_totals() {
        let mut s = Summary::default();
        s.add("dir", &[result(Status::Passed, None)]);
        s.add(
            "dir/sub",
            &[
                result(Status::Failed, None),
                result(Status::Skipped, Some(SkipKind::Structure)),
            ],
        );
        let mut out = Vec::new();
        s.print(&mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.contains("dir/sub        0        1        1"),
            "{text}"
        );
        assert!(text.contains("skipped: 1 structure tests"), "{text}");
        assert_eq!(text.lines().last(), Some("1 passed, 1 failed, 1 skipped"));
    }
}
