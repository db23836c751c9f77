//! `futhark-rs run PROGRAM [-e ENTRY]`: reads the entry point's arguments from standard input
//! (text or binary data, mixed), runs it, and prints the results, one value per line (or in the
//! binary format with `-b`).
//!
//! The program is loaded before standard input is read, so compile errors are reported
//! without waiting for input. Exit status: 0 on success, 1 for errors in the program, its input
//! or at run time, 2 when the chosen backend is not available in this build.

use std::io::{self, BufWriter, IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use futhark_db::{Database, Db, render};

use crate::data::{self, Format, InputError};
use crate::engine::{self, LoadError, RunError, Stage, Unavailable};

#[derive(Args)]
pub struct RunArgs {
    /// The program to run.
    program: PathBuf,
    /// The entry point to call.
    #[arg(short = 'e', long, default_value = "main")]
    entry: String,
    /// Where to run it; `auto` picks the interpreter until a compiled backend is available.
    #[arg(long, value_enum, default_value_t = Backend::Auto)]
    backend: Backend,
    /// Print results in the binary data format.
    #[arg(short = 'b', long)]
    binary: bool,
}

/// Where `run` executes the program.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Backend {
    /// The reference interpreter.
    Interp,
    /// Compiled for an NVIDIA GPU.
    Cuda,
    /// The fastest backend available.
    Auto,
}

/// What can go wrong in `futhark-rs run`.
#[derive(Debug, thiserror::Error)]
enum RunCommandError {
    #[error(transparent)]
    Unavailable(#[from] Unavailable),
    #[error("cannot read {0}")]
    Missing(PathBuf),
    /// Diagnostics were printed already; this only sets the exit status.
    #[error("{0} has errors")]
    Compile(PathBuf),
    #[error(transparent)]
    Input(#[from] InputError),
    #[error(transparent)]
    Run(#[from] RunError),
    #[error("cannot write output: {0}")]
    Write(io::Error),
}

pub fn run(args: RunArgs) -> ExitCode {
    match run_program(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(RunCommandError::Write(e)) if e.kind() == io::ErrorKind::BrokenPipe => {
            ExitCode::SUCCESS
        }
        Err(RunCommandError::Unavailable(u)) => {
            eprintln!("error: {u}; `futhark-rs run` cannot execute programs yet");
            ExitCode::from(2)
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run_program(args: &RunArgs) -> Result<(), RunCommandError> {
    let stage = match args.backend {
        Backend::Interp | Backend::Auto => Stage::Interpreter,
        Backend::Cuda => Stage::Cuda,
    };
    if stage == Stage::Cuda {
        return Err(Unavailable(Stage::Cuda).into());
    }
    let db = Database::new();
    let file = db
        .load_file(&args.program)
        .ok_or_else(|| RunCommandError::Missing(args.program.clone()))?;
    let mut program = match engine::load_interpreter(&db, file) {
        Ok(p) => p,
        Err(LoadError::Unavailable(u)) => return Err(u.into()),
        Err(LoadError::Compile(diags)) => {
            let color = io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
            eprint!("{}", render::render_terminal(&db, &diags, color));
            return Err(RunCommandError::Compile(args.program.clone()));
        }
    };
    let inputs = data::read_stdin_values()?;
    let results = program.call(&args.entry, inputs)?;
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    data::write_values(&mut out, &results, Format::from_flag(args.binary))
        .and_then(|()| out.flush())
        .map_err(RunCommandError::Write)
}
