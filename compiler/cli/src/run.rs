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
use futhark_options::{ExecOptions, Options, Safety};

use crate::engine::{self, ExecBackend, LoadError, RunError, Unavailable};

#[derive(Args)]
pub struct RunArgs {
    /// The program to run.
    program: PathBuf,
    /// The entry point to call.
    #[arg(short = 'e', long, default_value = "main")]
    entry: String,
    /// Where to run it: `auto` uses CUDA when a GPU is visible and the program compiles for
    /// it, else the interpreter (saying why on standard error).
    #[arg(long, value_enum, default_value_t = Backend::Auto)]
    backend: Backend,
    /// Print results in the binary data format.
    #[arg(short = 'b', long)]
    binary: bool,
    /// Print per-kernel time, launches and bytes moved to standard error (compiled backends).
    #[arg(long)]
    profile: bool,
    /// Leave out the run-time checks inside GPU kernels (bounds, division by zero,
    /// assertions), as Futhark's `--unsafe`: faster, and a program that fails a check gives
    /// undefined results instead of an error. The interpreter always checks.
    #[arg(long = "unsafe")]
    pub unsafe_checks: bool,
    /// Run as one rank of a distributed run over the GPUs of several processes or hosts
    /// (one process per GPU; the CPU twin with `--backend ir`). The rank, the number of ranks
    /// and the rendezvous come from the launcher (mpirun, srun or torchrun-style variables,
    /// and MASTER_ADDR/MASTER_PORT). Rank 0 reads the inputs and writes the results.
    #[arg(long)]
    distributed: bool,
    /// In a distributed run, the longest wait for another rank at any step, in seconds.
    #[arg(long, value_name = "SECS", default_value_t = futhark_options::DEFAULT_TIMEOUT.as_secs())]
    dist_timeout: u64,
}

/// Where `run` executes the program.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Backend {
    /// The reference interpreter.
    Interp,
    /// Compiled for an NVIDIA GPU.
    Cuda,
    /// Compiled to kernels, run on the CPU executor (the GPU path without a GPU).
    Ir,
    /// CUDA when possible, else the interpreter.
    Auto,
}

/// What can go wrong in `futhark-rs run`.
#[derive(Debug, thiserror::Error)]
enum RunCommandError {
    #[error(transparent)]
    Unavailable(#[from] Unavailable),
    /// The chosen backend cannot run on this machine.
    #[error("{0}")]
    NoDevice(String),
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
    #[error(transparent)]
    Launch(#[from] futhark_options::LaunchError),
    #[error("{0}")]
    Distributed(futhark_exec::ExecError),
}

pub fn run(args: RunArgs, mut options: Options) -> ExitCode {
    options.compile.safety = Safety::from_unsafe(args.unsafe_checks);
    if args.distributed {
        // The launcher's variables, read once here and passed down as a value.
        match futhark_options::launch_from_env() {
            Ok(mut launch) => {
                launch.timeout = std::time::Duration::from_secs(args.dist_timeout.max(1));
                options.exec.distributed = Some(launch);
            }
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        }
    }
    let rank = options.exec.distributed.as_ref().map(|l| l.rank);
    // Deeply recursive programs need more stack than the main thread has.
    let worker = std::thread::Builder::new()
        .stack_size(512 << 20)
        .spawn(move || run_program(&args, &options));
    let result = match worker.map(|h| h.join()) {
        Ok(Ok(r)) => r,
        Ok(Err(_)) => {
            eprintln!("error: the program runner panicked");
            return ExitCode::FAILURE;
        }
        Err(e) => {
            eprintln!("error: cannot start the program runner: {e}");
            return ExitCode::FAILURE;
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(RunCommandError::Write(e)) if e.kind() == io::ErrorKind::BrokenPipe => {
            ExitCode::SUCCESS
        }
        Err(RunCommandError::Unavailable(u)) => {
            eprintln!("error: {u}; `futhark-rs run` cannot execute programs yet");
            ExitCode::from(2)
        }
        Err(e @ RunCommandError::NoDevice(_)) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
        Err(e) => {
            match rank {
                Some(r) => eprintln!("error (rank {r}): {e}"),
                None => eprintln!("error: {e}"),
            }
            ExitCode::FAILURE
        }
    }
}

/// Loads the program on the chosen backend; `auto` falls back to the interpreter with a
/// one-line reason. Parts compiled to slow host loops are named in notes on stderr.
pub(crate) fn load(
    db: &Database,
    file: futhark_db::File,
    backend: Backend,
    exec: &ExecOptions,
) -> Result<Box<dyn engine::Program>, LoadError> {
    let loaded = load_on(db, file, backend, exec)?;
    for slow in loaded.slow_paths() {
        eprintln!("note: {slow}");
    }
    Ok(loaded)
}

fn load_on(
    db: &Database,
    file: futhark_db::File,
    backend: Backend,
    exec: &ExecOptions,
) -> Result<Box<dyn engine::Program>, LoadError> {
    match backend {
        Backend::Interp => engine::load_interpreter(db, file),
        Backend::Ir => engine::load_compiled(db, file, ExecBackend::Cpu, exec),
        Backend::Cuda => engine::load_compiled(db, file, ExecBackend::Cuda, exec),
        Backend::Auto => match engine::load_compiled(db, file, ExecBackend::Cuda, exec) {
            Ok(p) => Ok(p),
            Err(LoadError::NoDevice(reason)) => {
                eprintln!("note: running on the interpreter: {reason}");
                engine::load_interpreter(db, file)
            }
            Err(LoadError::Compile(diags))
                if !diags
                    .iter()
                    .any(|d| d.code == "gpu-unsupported" || d.code == "backend-load") =>
            {
                Err(LoadError::Compile(diags))
            }
            Err(LoadError::Compile(diags)) => {
                let why = diags
                    .iter()
                    .find(|d| d.is_error())
                    .map(|d| d.message.clone())
                    .unwrap_or_default();
                eprintln!(
                    "note: running on the interpreter: the GPU path cannot compile this program: {why}"
                );
                engine::load_interpreter(db, file)
            }
            Err(e) => Err(e),
        },
    }
}

fn run_program(args: &RunArgs, options: &Options) -> Result<(), RunCommandError> {
    let db = engine::database(&options.compile);
    let file = db
        .load_file(&args.program)
        .ok_or_else(|| RunCommandError::Missing(args.program.clone()))?;
    let mut program = match load(&db, file, args.backend, &options.exec) {
        Ok(p) => p,
        Err(LoadError::Unavailable(u)) => return Err(u.into()),
        Err(LoadError::NoDevice(reason)) => return Err(RunCommandError::NoDevice(reason)),
        Err(LoadError::Compile(diags)) => {
            let color = io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
            eprint!("{}", render::render_terminal(&db, &diags, color));
            return Err(RunCommandError::Compile(args.program.clone()));
        }
    };
    program.set_profiling(args.profile);
    let launch = options.exec.distributed.as_ref();
    // Rank 0 reads standard input; the other ranks run on what it read.
    let inputs = match launch {
        Some(l) if l.rank > 0 => {
            futhark_exec::dist::share(l, "stdin", None).map_err(RunCommandError::Distributed)?
        }
        Some(l) => futhark_exec::dist::share(
            l,
            "stdin",
            Some(data::read_stdin().map_err(InputError::from)?),
        )
        .map_err(RunCommandError::Distributed)?,
        None => data::read_stdin().map_err(InputError::from)?,
    };
    let inputs = futhark_values::read_values(&inputs).map_err(InputError::from)?;
    let results = program.call(&args.entry, inputs);
    if args.profile {
        print_profile(program.as_mut());
    }
    let results = results?;
    if let Some(l) = launch {
        futhark_exec::dist::finish(l).map_err(RunCommandError::Distributed)?;
        if l.rank > 0 {
            return Ok(());
        }
    }
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    data::write_values(&mut out, &results, Format::from_flag(args.binary))
        .and_then(|()| out.flush())
        .map_err(RunCommandError::Write)
}

/// The `--profile` table on standard error.
pub(crate) fn print_profile(program: &mut dyn engine::Program) {
    match program.profile() {
        None => eprintln!("profile: the interpreter does not profile kernels"),
        Some(Err(e)) => eprintln!("profile: {e}"),
        Some(Ok(rows)) => {
            eprintln!(
                "{:<40} {:>9} {:>12} {:>14} {:>9}",
                "kernel", "launches", "time (ms)", "bytes", "GB/s"
            );
            for r in rows {
                let gbps = if r.total_ms > 0.0 {
                    r.bytes as f64 / (r.total_ms * 1e6)
                } else {
                    0.0
                };
                eprintln!(
                    "{:<40} {:>9} {:>12.3} {:>14} {:>9.1}",
                    r.name, r.launches, r.total_ms, r.bytes, gbps
                );
            }
        }
    }
}
