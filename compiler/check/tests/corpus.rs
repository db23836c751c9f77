//! The conformance corpus: every program expecting a type error must be rejected (ideally
//! with a message matching its regex) and every other program accepted. The benchmarks must
//! all be accepted. The counts are ratchet floors: improving them is welcome, regressing
//! them fails.

mod common;

use std::collections::BTreeMap;

use common::{Loader, expected_error, fut_files, shared_dir};
use futhark_check::CheckContext;

/// Lowest acceptable counts (raise these as the checker improves). Reached: 303/304 error
/// programs rejected (99.7%), 298/304 with a matching message (98.0%), 1865/1866 other
/// programs accepted (99.9%).
const MIN_REJECTED: usize = 303;
const MIN_MATCHED: usize = 298;
const MIN_ACCEPTED: usize = 1865;

#[test]
fn conformance_corpus() {
    let dir = shared_dir().join("conformance/futhark-tests");
    if !dir.exists() {
        eprintln!("skipping: {} not found", dir.display());
        return;
    }
    let ctx = CheckContext::new();
    let mut loader = Loader::new(&ctx);
    let (mut err_total, mut rejected, mut matched) = (0usize, 0usize, 0usize);
    let (mut ok_total, mut accepted) = (0usize, 0usize);
    let mut false_rejects: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut false_accepts: Vec<String> = Vec::new();
    let mut mismatched: Vec<String> = Vec::new();
    for path in fut_files(&dir) {
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let rel = path
            .strip_prefix(&dir)
            .unwrap_or(&path)
            .display()
            .to_string();
        let expect = expected_error(&text);
        let checked = loader.check_text(&path, &text);
        let errors = checked.errors();
        let rendered: Vec<String> = checked
            .diagnostics
            .iter()
            .filter(|d| d.is_error())
            .map(|d| futhark_check::render::render(d, &rel, &text))
            .collect();
        match expect {
            Some(re) => {
                err_total += 1;
                if errors.is_empty() {
                    false_accepts.push(format!("{rel}  (expected: {re})"));
                } else {
                    rejected += 1;
                    let regex = regex::RegexBuilder::new(&re)
                        .dot_matches_new_line(true)
                        .build();
                    let ok = match regex {
                        Ok(r) => rendered.iter().any(|s| r.is_match(s)),
                        Err(_) => rendered.iter().any(|s| s.contains(&re)),
                    };
                    if ok {
                        matched += 1;
                    } else {
                        let first = rendered.first().cloned().unwrap_or_default();
                        mismatched.push(format!(
                            "{rel}  (expected: {re})\n    got: {}",
                            first.replace('\n', "\n         ")
                        ));
                    }
                }
            }
            None => {
                ok_total += 1;
                if errors.is_empty() {
                    accepted += 1;
                } else {
                    let first = rendered.first().cloned().unwrap_or_default();
                    let key = first
                        .lines()
                        .next()
                        .unwrap_or("")
                        .split_once(": error: ")
                        .map(|x| x.1)
                        .unwrap_or("")
                        .to_string();
                    false_rejects.entry(key).or_default().push(first);
                }
            }
        }
    }
    let pct = |a: usize, b: usize| {
        if b == 0 {
            100.0
        } else {
            100.0 * a as f64 / b as f64
        }
    };
    let mut groups: Vec<(&String, &Vec<String>)> = false_rejects.iter().collect();
    groups.sort_by_key(|(_, v)| std::cmp::Reverse(v.len()));
    eprintln!(
        "=== wrongly rejected ({} files, grouped by first error) ===",
        ok_total - accepted
    );
    for (k, v) in groups {
        eprintln!("--- [{}] {k}", v.len());
        for f in v {
            eprintln!("  {}", f.replace('\n', "\n    "));
        }
    }
    eprintln!("=== wrongly accepted ({}) ===", false_accepts.len());
    for f in &false_accepts {
        eprintln!("  {f}");
    }
    eprintln!(
        "=== rejected with a non-matching message ({}) ===",
        mismatched.len()
    );
    for f in &mismatched {
        eprintln!("  {f}");
    }
    eprintln!(
        "corpus: error programs rejected {rejected}/{err_total} ({:.1}%), with matching message {matched}/{err_total} ({:.1}%); other programs accepted {accepted}/{ok_total} ({:.1}%)",
        pct(rejected, err_total),
        pct(matched, err_total),
        pct(accepted, ok_total)
    );
    assert!(
        rejected >= MIN_REJECTED,
        "rejected {rejected} < {MIN_REJECTED}"
    );
    assert!(matched >= MIN_MATCHED, "matched {matched} < {MIN_MATCHED}");
    assert!(
        accepted >= MIN_ACCEPTED,
        "accepted {accepted} < {MIN_ACCEPTED}"
    );
}

#[test]
fn benchmarks_accepted() {
    let dir = shared_dir().join("benchmarks");
    if !dir.exists() {
        eprintln!("skipping: {} not found", dir.display());
        return;
    }
    let ctx = CheckContext::new();
    let mut loader = Loader::new(&ctx);
    let mut failures = Vec::new();
    let files = fut_files(&dir);
    for path in &files {
        let c = loader.check_path(path);
        let rel = path
            .strip_prefix(&dir)
            .unwrap_or(path)
            .display()
            .to_string();
        let errs: Vec<String> = c
            .diagnostics
            .iter()
            .filter(|d| d.is_error())
            .map(|d| futhark_check::render::render(d, &rel, &c.text))
            .collect();
        if !errs.is_empty() {
            failures.push(errs[0].clone());
        }
    }
    for f in &failures {
        eprintln!("{f}\n");
    }
    eprintln!(
        "benchmarks: {}/{} accepted",
        files.len() - failures.len(),
        files.len()
    );
    assert!(
        failures.is_empty(),
        "{} benchmark files rejected",
        failures.len()
    );
}
