//! The modes of `futhark-rs test`: how far each program is taken, which compiler stage that
//! needs, and which tags exclude programs and cases.

use std::fmt;

use clap::ValueEnum;
use futhark_testspec::RunMode;

use crate::engine::{self, ExecBackend, Stage, Unavailable};

/// How far the runner takes each program.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Mode {
    /// Every program must parse (programs expecting a compile error are skipped).
    Parse,
    /// Every program must type-check, or be rejected if its test block says `error:`.
    Typecheck,
    /// Run every case on the reference interpreter and check the results.
    Interp,
    /// Run every case compiled to kernels, on the CPU executor (the GPU path without a GPU).
    Ir,
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
            Mode::Ir => "ir",
            Mode::Cuda => "cuda",
        }
    }

    /// The compiler stage this mode needs beyond the parser, if any.
    pub fn stage(self) -> Option<Stage> {
        match self {
            Mode::Parse => None,
            Mode::Typecheck => Some(Stage::TypeChecker),
            Mode::Interp => Some(Stage::Interpreter),
            Mode::Ir => Some(Stage::Compiled),
            Mode::Cuda => Some(Stage::Cuda),
        }
    }

    /// Fails, saying why, if this build lacks the stage the mode needs or (cuda mode) the
    /// machine has no usable GPU.
    pub fn check_available(self) -> Result<(), String> {
        if let Some(stage) = self.stage() {
            engine::available(stage).map_err(|u: Unavailable| u.to_string())?;
        }
        if self == Mode::Cuda
            && let Some(reason) = futhark_exec::cuda_unavailable_reason()
        {
            return Err(format!("the CUDA backend cannot run here: {reason}"));
        }
        Ok(())
    }

    /// Whether cases are executed (rather than only whole programs checked).
    pub fn runs_cases(self) -> bool {
        matches!(self, Mode::Interp | Mode::Ir | Mode::Cuda)
    }

    /// Where cases run in this mode, for the run modes.
    pub fn exec_backend(self) -> Option<ExecBackend> {
        match self {
            Mode::Ir => Some(ExecBackend::Cpu),
            Mode::Cuda => Some(ExecBackend::Cuda),
            Mode::Parse | Mode::Typecheck | Mode::Interp => None,
        }
    }

    /// The tag exclusions of this mode plus the user's `--exclude` tags. The checking modes use
    /// their own backend names, so `no_cuda` and the like do not skip programs there.
    pub fn run_mode(self, extra_excludes: &[String]) -> RunMode {
        let mut mode = match self {
            Mode::Interp => RunMode::interpreter(),
            // The CPU executor runs the GPU path, so it skips what the GPU backends skip.
            Mode::Ir | Mode::Cuda => RunMode::compiled("cuda"),
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
