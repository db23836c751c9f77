//! Results of test cases: what the runner prints, counts and writes with `--json`, and the
//! verdicts a worker process sends for each case it ran (see [`super::protocol`]).

use serde::{Deserialize, Serialize};

/// How a case ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// It did what the test block asks.
    Passed,
    /// It did not (or could not be run).
    Failed,
    /// It was not run in this mode.
    Skipped,
}

/// Why a case was skipped; the summary counts each kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SkipKind {
    /// The program has no test block (run modes only).
    NoTestBlock,
    /// A program or case tag excludes it in this mode.
    Tag,
    /// The program expects a compile error, which a syntax check cannot judge.
    ExpectsCompileError,
    /// A `structure` check (counts of the reference compiler's IR nodes: not portable).
    Structure,
    /// A `warning:` check.
    Warning,
    /// A `script input` case (FutharkScript is not supported yet).
    ScriptInput,
    /// A `property:` block.
    Property,
    /// Not started before the run's `--time-limit` ran out.
    TimeLimit,
}

impl SkipKind {
    /// How the summary names this kind.
    pub fn describe(self) -> &'static str {
        match self {
            SkipKind::NoTestBlock => "without a test block",
            SkipKind::Tag => "excluded by tags",
            SkipKind::ExpectsCompileError => "expecting a compile error",
            SkipKind::Structure => "structure tests",
            SkipKind::Warning => "warning tests",
            SkipKind::ScriptInput => "script inputs",
            SkipKind::Property => "property tests",
            SkipKind::TimeLimit => "not started within --time-limit",
        }
    }
}

/// The result of one case (or of a whole program, in the checking modes).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CaseResult {
    /// The program's path as the runner found it.
    pub file: String,
    /// The entry point, for run cases.
    pub entry: Option<String>,
    /// The case's dataset name (or what was checked, for structure and warning tests).
    pub case: Option<String>,
    /// How it ended.
    pub status: Status,
    /// Why it failed or was skipped, or a note on a pass.
    pub message: Option<String>,
    /// For skipped cases, the kind of reason.
    #[serde(skip)]
    pub skip: Option<SkipKind>,
    /// For programs expecting a compile error that were rejected: whether an error message
    /// matched the expected regex.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub regex_matched: Option<bool>,
}

/// The verdict on one case, before it is tied to its file and name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    /// How it ended.
    pub status: Status,
    /// Why it failed, or a note on a pass.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// See [`CaseResult::regex_matched`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub regex_matched: Option<bool>,
}

impl Verdict {
    /// A pass.
    pub fn pass() -> Verdict {
        Verdict {
            status: Status::Passed,
            message: None,
            regex_matched: None,
        }
    }

    /// A pass with a note.
    pub fn pass_with(note: impl Into<String>) -> Verdict {
        Verdict {
            message: Some(note.into()),
            ..Verdict::pass()
        }
    }

    /// A failure with its reason.
    pub fn fail(message: impl Into<String>) -> Verdict {
        Verdict {
            status: Status::Failed,
            message: Some(message.into()),
            regex_matched: None,
        }
    }
}
