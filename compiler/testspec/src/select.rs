//! Deciding which programs and cases a runner skips, from their tags.
//!
//! As in the reference `futhark test`, the same exclusion list applies to program tags (from
//! `tags { ... }`) and case tags (the words before `input`): `disable`, `notest` (or `nobench`
//! when benchmarking), `no_<backend>`, any extra `--exclude` tags, and, when interpreting,
//! `compiled`.

use crate::names::dataset_name;
use crate::spec::{BlockBody, RunBlock, RunCase, TestSpec};

/// How the runner is executing programs; determines which tags exclude them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunMode {
    /// Interpreted runs also skip cases tagged `compiled`.
    pub interpreted: bool,
    /// Backend name: programs and cases tagged `no_<backend>` are skipped.
    pub backend: String,
    /// Further excluded tags (`disable` and `notest`/`nobench` are included by the
    /// constructors).
    pub exclude: Vec<String>,
}

impl RunMode {
    /// Testing with the interpreter. Its `no_<backend>` tag is `no_interpreter`.
    pub fn interpreter() -> Self {
        RunMode {
            interpreted: true,
            backend: "interpreter".to_string(),
            exclude: vec!["disable".to_string(), "notest".to_string()],
        }
    }

    /// Testing compiled code of `backend` (e.g. `"c"`, `"cuda"`).
    pub fn compiled(backend: &str) -> Self {
        RunMode {
            interpreted: false,
            backend: backend.to_string(),
            exclude: vec!["disable".to_string(), "notest".to_string()],
        }
    }

    /// Benchmarking compiled code of `backend`: skips `nobench` instead of `notest`.
    pub fn bench(backend: &str) -> Self {
        RunMode {
            interpreted: false,
            backend: backend.to_string(),
            exclude: vec!["disable".to_string(), "nobench".to_string()],
        }
    }

    /// Whether a program or case carrying `tag` is skipped in this mode.
    pub fn excludes(&self, tag: &str) -> bool {
        self.exclude.iter().any(|t| t == tag)
            || tag.strip_prefix("no_") == Some(self.backend.as_str())
            || (self.interpreted && tag == "compiled")
    }
}

impl TestSpec {
    /// Program tags: the union of the `tags { ... }` of all blocks, in order, without
    /// duplicates. (The reference only reads tags in the first block; no corpus program
    /// puts them elsewhere, and taking all of them can only skip more, never less.)
    pub fn tags(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for t in self.blocks.iter().flat_map(|b| &b.tags) {
            if !out.contains(&t.as_str()) {
                out.push(t);
            }
        }
        out
    }

    /// Whether any block has program tag `tag`.
    pub fn has_tag(&self, tag: &str) -> bool {
        self.blocks.iter().any(|b| b.tags.iter().any(|t| t == tag))
    }

    /// Whether the whole program is skipped in `mode` (e.g. tagged `disable` or `no_cuda`).
    pub fn is_excluded(&self, mode: &RunMode) -> bool {
        self.blocks
            .iter()
            .flat_map(|b| &b.tags)
            .any(|t| mode.excludes(t))
    }

    /// The expected compile error's regex, if the program must fail to compile.
    pub fn compile_error(&self) -> Option<&str> {
        self.blocks.iter().find_map(|b| match &b.body {
            BlockBody::CompileError { regex } => Some(regex.as_str()),
            _ => None,
        })
    }

    /// The run blocks (input/output cases with their entry points).
    pub fn run_blocks(&self) -> impl Iterator<Item = &RunBlock> {
        self.blocks.iter().filter_map(|b| match &b.body {
            BlockBody::Run(r) => Some(r),
            _ => None,
        })
    }

    /// Every `(entry point, case)` pair to run: each case of a block once per entry point
    /// of that block.
    pub fn runs(&self) -> impl Iterator<Item = (&str, &RunCase)> {
        self.run_blocks().flat_map(|r| {
            r.entries
                .iter()
                .flat_map(move |e| r.cases.iter().map(move |c| (e.as_str(), c)))
        })
    }

    /// Number of `structure` checks in the program.
    pub fn structure_count(&self) -> usize {
        self.run_blocks().map(|r| r.structures.len()).sum()
    }

    /// Number of `warning:` checks in the program.
    pub fn warning_count(&self) -> usize {
        self.run_blocks().map(|r| r.warnings.len()).sum()
    }

    /// Property entry points named by `property:` blocks.
    pub fn properties(&self) -> impl Iterator<Item = &str> {
        self.blocks
            .iter()
            .flat_map(|b| match &b.body {
                BlockBody::Property { names } => names.as_slice(),
                _ => &[],
            })
            .map(String::as_str)
    }
}

impl RunCase {
    /// Whether the case has tag `tag` (`compiled`, `nobench`, `random`, ...).
    pub fn has_tag(&self, tag: &str) -> bool {
        self.tags.iter().any(|t| t == tag)
    }

    /// Whether the case is skipped in `mode` (e.g. `compiled` when interpreting, `notest`,
    /// `no_<backend>`). Program-level exclusion is checked separately with
    /// [`TestSpec::is_excluded`].
    pub fn is_excluded(&self, mode: &RunMode) -> bool {
        self.tags.iter().any(|t| mode.excludes(t))
    }

    /// The dataset name: explicit, or generated as described at [`dataset_name`].
    pub fn dataset_name(&self) -> String {
        dataset_name(self)
    }
}
