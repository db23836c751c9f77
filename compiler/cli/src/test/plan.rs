//! What the runner does with one program in a given mode: a list of items, each a case to
//! check or a case skipped (with the reason) or failed before running.
//!
//! The parent process and the worker that runs a file compute the same plan from the same
//! source, so the worker's reports name items by their index, and the parent knows which items
//! a worker that died or timed out never reported.

use futhark_testspec::{BlockBody, CaseInput, RunCase, RunMode, TestSpec};

use super::mode::Mode;
use super::outcome::SkipKind;

/// One thing to report on.
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    /// The entry point, for run cases.
    pub entry: Option<String>,
    /// The case name, or what is checked.
    pub case: Option<String>,
    /// What to do.
    pub action: Action,
}

/// What an item asks for.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// Nothing to run: skipped for this reason.
    Skip(SkipKind, String),
    /// Nothing to run: failed already (e.g. a malformed test block).
    Fail(String),
    /// The program must parse without errors.
    Parse,
    /// The program must type-check, or, with a regex, be rejected (ideally with a matching
    /// message).
    Typecheck {
        /// The regex of an expected compile error.
        expect_error: Option<String>,
    },
    /// The program must fail to compile (run modes).
    MustNotCompile {
        /// The regex the error should match.
        regex: String,
    },
    /// The program must compile; it has a test block but no cases.
    MustCompile,
    /// Run `case` on entry point `entry` and check its outcome.
    Run {
        /// The entry point.
        entry: String,
        /// The case.
        case: RunCase,
    },
}

impl Action {
    /// Whether a worker process has to run this item.
    pub fn needs_worker(&self) -> bool {
        !matches!(self, Action::Skip(..) | Action::Fail(_))
    }
}

impl Item {
    fn whole(action: Action) -> Item {
        Item {
            entry: None,
            case: None,
            action,
        }
    }
}

/// The items of a program with source `source` in `mode`.
pub fn plan(source: &str, mode: Mode, run_mode: &RunMode) -> Vec<Item> {
    let spec = match TestSpec::parse(source) {
        Ok(spec) => spec,
        Err(e) => {
            return vec![Item::whole(Action::Fail(format!(
                "malformed test block: {e}"
            )))];
        }
    };
    if let Some(tag) = spec.tags().into_iter().find(|t| run_mode.excludes(t)) {
        let reason = format!("program tagged `{tag}`");
        return if mode.runs_cases() && spec.runs().next().is_some() {
            spec.runs()
                .map(|(entry, case)| Item {
                    entry: Some(entry.to_string()),
                    case: Some(case.dataset_name()),
                    action: Action::Skip(SkipKind::Tag, reason.clone()),
                })
                .collect()
        } else {
            vec![Item::whole(Action::Skip(SkipKind::Tag, reason))]
        };
    }
    match mode {
        Mode::Parse => vec![Item::whole(match spec.compile_error() {
            Some(_) => Action::Skip(
                SkipKind::ExpectsCompileError,
                "expects a compile error, which a syntax check cannot judge".to_string(),
            ),
            None => Action::Parse,
        })],
        Mode::Typecheck => vec![Item::whole(Action::Typecheck {
            expect_error: spec.compile_error().map(str::to_string),
        })],
        Mode::Interp | Mode::Ir | Mode::Cuda => plan_runs(&spec, run_mode),
    }
}

/// The items of the run modes: one per (entry point, case), plus structure, warning and
/// property checks (skipped).
fn plan_runs(spec: &TestSpec, run_mode: &RunMode) -> Vec<Item> {
    if spec.blocks.is_empty() {
        return vec![Item::whole(Action::Skip(
            SkipKind::NoTestBlock,
            "no test block".to_string(),
        ))];
    }
    if let Some(regex) = spec.compile_error() {
        return vec![Item::whole(Action::MustNotCompile {
            regex: regex.to_string(),
        })];
    }
    let mut items = Vec::new();
    let mut has_cases = false;
    for block in &spec.blocks {
        let run = match &block.body {
            BlockBody::Run(run) => run,
            BlockBody::Property { names } => {
                for name in names {
                    items.push(Item {
                        entry: Some(name.clone()),
                        case: Some("property".to_string()),
                        action: Action::Skip(
                            SkipKind::Property,
                            "property tests are not supported".to_string(),
                        ),
                    });
                }
                continue;
            }
            BlockBody::CompileError { .. } => continue,
        };
        for entry in &run.entries {
            for case in &run.cases {
                has_cases = true;
                items.push(Item {
                    entry: Some(entry.clone()),
                    case: Some(case.dataset_name()),
                    action: case_action(entry, case, run_mode),
                });
            }
        }
        for s in &run.structures {
            let pipeline = match s.pipeline.name() {
                "" => String::new(),
                name => format!(" {name}"),
            };
            items.push(Item {
                entry: None,
                case: Some(format!("structure{pipeline} (line {})", s.line)),
                action: Action::Skip(
                    SkipKind::Structure,
                    "structure tests count the reference compiler's IR".to_string(),
                ),
            });
        }
        for w in &run.warnings {
            items.push(Item {
                entry: None,
                case: Some(format!("warning (line {})", w.line)),
                action: Action::Skip(
                    SkipKind::Warning,
                    "warning tests are not checked yet".to_string(),
                ),
            });
        }
    }
    if !has_cases && !items.iter().any(|i| i.entry.is_some()) {
        items.insert(
            0,
            Item {
                entry: None,
                case: Some("compiles".to_string()),
                action: Action::MustCompile,
            },
        );
    }
    items
}

fn case_action(entry: &str, case: &RunCase, run_mode: &RunMode) -> Action {
    if let Some(tag) = case.tags.iter().find(|t| run_mode.excludes(t)) {
        return Action::Skip(SkipKind::Tag, format!("case tagged `{tag}`"));
    }
    match case.input {
        CaseInput::Script(_) | CaseInput::ScriptFile(_) => Action::Skip(
            SkipKind::ScriptInput,
            "script inputs are not supported yet".to_string(),
        ),
        _ => Action::Run {
            entry: entry.to_string(),
            case: case.clone(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn actions(src: &str, mode: Mode) -> Vec<Action> {
        plan(src, mode, &mode.run_mode(&[]))
            .into_iter()
            .map(|i| i.action)
            .collect()
    }

    #[test]
    fn parse_mode_checks_every_program_but_compile_error_tests() {
        assert_eq!(actions("def main = 1", Mode::Parse), vec![Action::Parse]);
        assert!(matches!(
            actions("-- ==\n-- error: Unknown\ndef main = x", Mode::Parse)[..],
            [Action::Skip(SkipKind::ExpectsCompileError, _)]
        ));
    }

    #[test]
    fn typecheck_mode_carries_the_regex() {
        assert_eq!(
            actions("-- ==\n-- error: Unknown\ndef main = x", Mode::Typecheck),
            vec![Action::Typecheck {
                expect_error: Some("Unknown".to_string())
            }]
        );
    }

    #[test]
    fn run_mode_lists_cases_per_entry_and_skips() {
        let src = "-- ==\n-- entry: a b\n-- input { 1 } output { 2 }\n-- compiled input { 3 }\n\
                   -- script input { f 1 }\n-- structure { Map 1 }\ndef a (x: i32) = x + 1";
        let items = plan(src, Mode::Interp, &Mode::Interp.run_mode(&[]));
        assert_eq!(items.len(), 7);
        assert!(matches!(items[0].action, Action::Run { .. }));
        assert_eq!(items[0].entry.as_deref(), Some("a"));
        assert!(matches!(items[1].action, Action::Skip(SkipKind::Tag, _)));
        assert!(matches!(
            items[2].action,
            Action::Skip(SkipKind::ScriptInput, _)
        ));
        assert_eq!(items[3].entry.as_deref(), Some("b"));
        assert!(matches!(
            items[6].action,
            Action::Skip(SkipKind::Structure, _)
        ));
    }

    #[test]
    fn excluded_programs_skip_every_case() {
        let src =
            "-- ==\n-- tags { disable }\n-- input { 1 }\n-- input { 2 }\ndef main (x: i32) = x";
        let acts = actions(src, Mode::Interp);
        assert_eq!(acts.len(), 2);
        assert!(
            acts.iter()
                .all(|a| matches!(a, Action::Skip(SkipKind::Tag, _)))
        );
        let user = plan(
            "-- ==\n-- tags { slow }\ndef main = 1",
            Mode::Parse,
            &Mode::Parse.run_mode(&["slow".to_string()]),
        );
        assert!(matches!(user[0].action, Action::Skip(SkipKind::Tag, _)));
    }

    #[test]
    fn no_test_block_is_skipped_when_running_and_caseless_blocks_must_compile() {
        assert!(matches!(
            actions("def main = 1", Mode::Interp)[..],
            [Action::Skip(SkipKind::NoTestBlock, _)]
        ));
        assert_eq!(
            actions("-- ==\n-- structure { Map 1 }\ndef main = 1", Mode::Interp)[0],
            Action::MustCompile
        );
    }

    #[test]
    fn malformed_blocks_fail() {
        assert!(matches!(
            actions("-- ==\n-- input { 1\ndef main = 1", Mode::Parse)[..],
            [Action::Fail(_)]
        ));
    }
}
