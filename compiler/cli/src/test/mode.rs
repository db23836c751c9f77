//! The modes of `futhark-rs test`: how far each program is taken, which compiler stage that
//! needs, and which tags exclude programs and cases.

use std::fmt;

use clap::ValueEnum;
use futhark_testspec::RunMode;

use crate::engine::{self, Stage, Unavailable};

/// How far the runner takes each program.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Mode {
    /// Every program must parse (programs expecting a compile error are skipped).
    Parse,
    /// Every program must type-check, or be rejected if its test block says `error:`.
    Typecheck,
    /// Run every case on the reference interpreter and check the results.
    Interp,
    /// Run every case compiled for the GPU.
    Cuda,
}

impl Mode {
    /// The name as given to `--mode`.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Parse => "parse",
            Mode::Typecheck => "typecheck",
            Mode::Interp => "interp",
            Mode::Cuda => "cuda",
        }
    }

    /// The compiler stage this mode needs beyond the parser, if any.
    pub fn stage(self) -> Option<Stage> {
        match self {
            Mode::Parse => None,
            Mode::Typecheck => Some(Stage::TypeChecker),
            Mode::Interp => Some(Stage::Interpreter),
            Mode::Cuda => Some(Stage::Cuda),
        }
    }

    /// Fails if this build lacks the stage the mode needs.
    pub fn check_available(self) -> Result<(), Unavailable> {
        match self.stage() {
            Some(stage) => engine::available(stage),
            None => Ok(()),
        }
    }

    /// Whether cases are executed (rather than only whole programs checked).
    pub fn runs_cases(self) -> bool {
        matches!(self, Mode::Interp | Mode::Cuda)
    }

    /// The tag exclusions of this mode plus the user's `--exclude` tags. The checking modes use
    /// their own backend names, so `no_cuda` and the like do not skip programs there.
    pub fn run_mode(self, extra_excludes: &[String]) -> RunMode {
        let mut mode = match self {
            Mode::Interp => RunMode::interpreter(),
            Mode::Cuda => RunMode::compiled("cuda"),
            Mode::Parse | Mode::Typecheck => RunMode::compiled(self.name()),
        };
        mode.exclude.extend(extra_excludes.iter().cloned());
        mode
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
