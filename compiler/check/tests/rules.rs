//! The language's rules, one directory per rule under `tests/rules/`: each `.fut` file is a
//! small program that breaks the rule, with a Futhark-style test block naming what must come
//! out (`-- error: REGEX` for a rejection, `-- warning: REGEX` for an accepted program that
//! warns). The regexes follow the wording of Futhark's own messages, so a program written for
//! Futhark's test runner reads the same here. A near miss that must be accepted without any
//! diagnostic says `-- warning: ^$`, as Futhark's own tests do.
//!
//! Run one rule with `RULE=loops cargo test -p futhark-check --test rules -- --nocapture`;
//! `RULES_SHOW=1` also prints each program's first diagnostic.

mod common;

use std::collections::BTreeMap;
use std::path::Path;

use common::{Loader, expected_error, fut_files};
use futhark_check::CheckContext;
use futhark_check::render::render;

enum Expect {
    Error(String),
    Warning(String),
    Accept,
}

fn expectation(text: &str) -> Option<Expect> {
    if let Some(re) = expected_error(text) {
        return Some(Expect::Error(re));
    }
    let mut in_block = false;
    for l in text.lines() {
        if l.trim_end() == "-- ==" {
            in_block = true;
            continue;
        }
        if !in_block {
            continue;
        }
        let Some(rest) = l.strip_prefix("--") else {
            break;
        };
        let rest = rest.trim();
        if let Some(re) = rest.strip_prefix("warning:") {
            let re = re.trim();
            return Some(if re == "^$" {
                Expect::Accept
            } else {
                Expect::Warning(re.to_string())
            });
        }
    }
    None
}

#[test]
fn rule_programs() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/rules");
    let only = std::env::var("RULE").ok();
    let ctx = CheckContext::new();
    let mut failures = Vec::new();
    let mut per_rule: BTreeMap<String, usize> = BTreeMap::new();
    let files = fut_files(&dir);
    for path in &files {
        let rel = path.strip_prefix(&dir).unwrap().display().to_string();
        let rule = rel.split('/').next().unwrap_or("").to_string();
        if only.as_ref().is_some_and(|r| *r != rule) {
            continue;
        }
        let text = std::fs::read_to_string(path).unwrap();
        let Some(expect) = expectation(&text) else {
            failures.push(format!(
                "{rel}: no `-- error:`/`-- warning:`/`-- accept` line"
            ));
            continue;
        };
        *per_rule.entry(rule).or_default() += 1;
        let mut loader = Loader::new(&ctx);
        let c = loader.check_text(path, &text);
        let errors: Vec<String> = c
            .diagnostics
            .iter()
            .filter(|d| d.is_error())
            .map(|d| render(d, &rel, &text))
            .collect();
        let warnings: Vec<String> = c
            .diagnostics
            .iter()
            .filter(|d| !d.is_error())
            .map(|d| render(d, &rel, &text))
            .collect();
        if std::env::var("RULES_SHOW").is_ok() {
            let first = errors.first().or(warnings.first());
            eprintln!("== {rel}\n{}", first.map_or("(none)", |s| s.as_str()));
        }
        let matches = |re: &str, got: &[String]| {
            let r = regex::RegexBuilder::new(re)
                .dot_matches_new_line(true)
                .build()
                .unwrap_or_else(|e| panic!("{rel}: bad regex {re}: {e}"));
            got.iter().any(|s| r.is_match(s))
        };
        match expect {
            Expect::Error(re) => {
                if errors.is_empty() {
                    failures.push(format!("{rel}: accepted, expected error /{re}/"));
                } else if !matches(&re, &errors) {
                    failures.push(format!(
                        "{rel}: message does not match /{re}/:\n    {}",
                        errors[0].replace('\n', "\n    ")
                    ));
                }
            }
            Expect::Warning(re) => {
                if !errors.is_empty() {
                    failures.push(format!(
                        "{rel}: rejected, expected only warning /{re}/:\n    {}",
                        errors[0].replace('\n', "\n    ")
                    ));
                } else if !matches(&re, &warnings) {
                    failures.push(format!(
                        "{rel}: no warning matches /{re}/ (got {warnings:?})"
                    ));
                }
            }
            Expect::Accept => {
                if let Some(e) = errors.first().or(warnings.first()) {
                    failures.push(format!(
                        "{rel}: expected no diagnostics, got:\n    {}",
                        e.replace('\n', "\n    ")
                    ));
                }
            }
        }
    }
    for (rule, n) in &per_rule {
        eprintln!("{rule:>24}: {n}");
    }
    let total: usize = per_rule.values().sum();
    eprintln!("{total} rule programs, {} failing", failures.len());
    for f in &failures {
        eprintln!("FAIL {f}");
    }
    assert!(only.is_some() || total >= 150, "only {total} rule programs");
    assert!(
        failures.is_empty(),
        "{} rule programs failed",
        failures.len()
    );
}
