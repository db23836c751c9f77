//! The seam between the command line and the compiler stages that are still being built.
//!
//! `futhark-rs test`, `run` and friends never call the type checker or the interpreter
//! directly: they call [`typecheck`] and [`load_interpreter`] here. Until a stage lands, its
//! function returns [`Unavailable`] and the subcommands that need it say so and exit with
//! status 2. Plugging a stage in means filling in exactly one function body:
//!
//! - [`typecheck`]: return the type checker's diagnostics for a file (all of them, errors and
//!   warnings; an empty list means the program is accepted).
//! - [`load_interpreter`]: type-check a program and hand back something implementing
//!   [`Program`], whose [`Program::call`] runs one entry point on argument values.
//! - [`load_compiled`]: the same for the program compiled to kernels, run by the executor
//!   on the CPU reference backend or on CUDA.
//!
//! Whether a stage is available is found out by asking it about an empty program
//! ([`available`]), so there is no second switch to keep in sync.

use std::fmt;
use std::time::{Duration, Instant};

use futhark_db::{Database, File};
pub use futhark_exec::KernelProfile;
use futhark_exec::{ExecOptions, Executor, Opened, Target, UseBackend};
pub use futhark_options::CompileOptions;
use futhark_syntax::Diagnostic;
use futhark_values::Value;

/// A compiler stage the command line may need.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// The type checker (`futhark-check`, through the database).
    TypeChecker,
    /// The reference interpreter (`futhark-interp`).
    Interpreter,
    /// The compiled program on the CPU executor (`futhark-exec`'s reference backend).
    Compiled,
    /// The CUDA backend.
    Cuda,
}

impl fmt::Display for Stage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Stage::TypeChecker => "type checker",
            Stage::Interpreter => "interpreter",
            Stage::Compiled => "compiled-program executor",
            Stage::Cuda => "CUDA backend",
        })
    }
}

/// A stage that this build does not have yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the {0} is not available in this build yet")]
pub struct Unavailable(pub Stage);

/// Why a program could not be loaded for execution.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The stage needed is missing from this build.
    #[error(transparent)]
    Unavailable(#[from] Unavailable),
    /// The backend cannot run here (no GPU, no driver, no NVRTC), with the reason.
    #[error("{0}")]
    NoDevice(String),
    /// The program has errors; the diagnostics include at least one error.
    #[error("the program has {} error(s)", .0.iter().filter(|d| d.is_error()).count())]
    Compile(Vec<Diagnostic>),
}

/// A run-time failure of an entry point (including arguments of the wrong type or number).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct RunError {
    /// The full text the user sees: the message, its location and backtrace. Test blocks'
    /// `error: REGEX` is matched against this text.
    pub message: String,
}

impl RunError {
    /// A run-time error with the given rendered text.
    pub fn new(message: impl Into<String>) -> RunError {
        RunError {
            message: message.into(),
        }
    }
}

/// A loaded, type-checked program whose entry points can be called.
pub trait Program {
    /// Calls entry point `entry` with `args` (one value per parameter, tuples and records
    /// flattened as the data format writes them) and returns its results the same way.
    fn call(&mut self, entry: &str, args: Vec<Value>) -> Result<Vec<Value>, RunError>;

    /// Per-kernel statistics of the calls so far (compiled backends only).
    fn profile(&mut self) -> Option<Result<Vec<KernelProfile>, RunError>> {
        None
    }

    /// What compilation had to run slowly (SOACs compiled to sequential host loops), one
    /// sentence each; `run` and `bench` print them as notes.
    fn slow_paths(&self) -> Vec<String> {
        Vec::new()
    }

    /// Whether kernel launches are timed for [`Program::profile`] (compiled backends; on
    /// by default). `run` and `bench` turn it off unless `--profile` is given.
    fn set_profiling(&mut self, _on: bool) {}

    /// The time of one call, as `bench` reports it: compiled backends exclude copying the
    /// arguments to the device and the results back, as `futhark bench` does.
    fn time_call(&mut self, entry: &str, args: Vec<Value>) -> Result<Duration, RunError> {
        let start = Instant::now();
        self.call(entry, args)?;
        Ok(start.elapsed())
    }

    /// Times calls of `entry` while `more` (given the times so far) says so, at least one.
    fn time_calls(
        &mut self,
        entry: &str,
        args: &[Value],
        more: &mut dyn FnMut(&[Duration]) -> bool,
    ) -> Result<Vec<Duration>, RunError> {
        let mut times = Vec::new();
        loop {
            times.push(self.time_call(entry, args.to_vec())?);
            if !more(&times) {
                return Ok(times);
            }
        }
    }
}

/// Where a compiled program runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExecBackend {
    /// Kernels interpreted on the CPU (the reference for the GPU path), as many simulated
    /// devices as `ExecOptions::gpus` says (split launches are checked this way).
    Cpu,
    /// Kernels on the NVIDIA GPUs (`ExecOptions::gpus` of them, else all).
    Cuda,
}

/// A database whose compilation uses `options` (the `--unsafe` and tuning switches of the
/// command line and the environment).
pub fn database(options: &CompileOptions) -> Database {
    let mut db = Database::new();
    db.set_compile_options(*options);
    db
}

/// Compiles `file` to kernels (with the database's compile options) and loads it on
/// `backend`, opened as `options` say. Programs the GPU path cannot compile are
/// `LoadError::Compile`, with the compiler's reason as the diagnostic.
pub fn load_compiled(
    db: &Database,
    file: File,
    backend: ExecBackend,
    options: &ExecOptions,
) -> Result<Box<dyn Program>, LoadError> {
    let diags = typecheck(db, file)?;
    if diags.iter().any(Diagnostic::is_error) {
        return Err(LoadError::Compile(diags));
    }
    if backend == ExecBackend::Cuda
        && let Some(reason) = futhark_exec::cuda_unavailable_reason()
    {
        return Err(LoadError::NoDevice(reason));
    }
    let prog = futhark_db::compile(db, file, futhark_db::IrStage::Kernels)
        .map_err(|e| LoadError::Compile(e.diagnostics(db, file)))?;
    let load_error = |message: String| {
        let at = futhark_syntax::Span::new(file.id(db), 0, 0);
        LoadError::Compile(vec![Diagnostic::error(
            "backend-load",
            at,
            format!(
                "the {} backend cannot load this program: {message}",
                backend_name(backend)
            ),
        )])
    };
    let target = match backend {
        ExecBackend::Cpu => Target::Cpu,
        ExecBackend::Cuda => Target::Cuda,
    };
    let opened = futhark_exec::open_backend(target, None, options, MakeProgram(prog));
    match opened {
        Ok(made) => made.map_err(|e| load_error(e.to_string())),
        Err(e) if backend == ExecBackend::Cuda || options.gpus_invalid.is_some() => {
            Err(LoadError::NoDevice(e.to_string()))
        }
        Err(e) => Err(load_error(e.to_string())),
    }
}

/// Builds an executor for a program on whatever backend was opened.
struct MakeProgram(futhark_ir::soacs::Program);

impl UseBackend for MakeProgram {
    type Out = Result<Box<dyn Program>, futhark_exec::ExecError>;

    fn with<B: futhark_exec::Backend + 'static>(self, backend: B, _: &Opened) -> Self::Out {
        let slow_paths = self.0.slow_paths.iter().map(ToString::to_string).collect();
        let exec = Executor::new(self.0, backend)?;
        Ok(Box::new(CompiledProgram { exec, slow_paths }))
    }
}

fn backend_name(b: ExecBackend) -> &'static str {
    match b {
        ExecBackend::Cpu => "CPU",
        ExecBackend::Cuda => "CUDA",
    }
}

/// A compiled program on the executor.
struct CompiledProgram<B: futhark_exec::Backend> {
    exec: Executor<B>,
    slow_paths: Vec<String>,
}

impl<B: futhark_exec::Backend> Program for CompiledProgram<B> {
    fn call(&mut self, entry: &str, args: Vec<Value>) -> Result<Vec<Value>, RunError> {
        self.exec
            .call_entry(entry, args)
            .map_err(|e| RunError::new(e.to_string()))
    }

    fn set_profiling(&mut self, on: bool) {
        self.exec.backend().set_profiling(on);
    }

    fn slow_paths(&self) -> Vec<String> {
        self.slow_paths.clone()
    }

    fn profile(&mut self) -> Option<Result<Vec<KernelProfile>, RunError>> {
        Some(
            self.exec
                .backend()
                .profile()
                .map_err(|e| RunError::new(e.to_string())),
        )
    }

    fn time_call(&mut self, entry: &str, args: Vec<Value>) -> Result<Duration, RunError> {
        self.exec
            .time_entry(entry, args)
            .map_err(|e| RunError::new(e.to_string()))
    }

    fn time_calls(
        &mut self,
        entry: &str,
        args: &[Value],
        more: &mut dyn FnMut(&[Duration]) -> bool,
    ) -> Result<Vec<Duration>, RunError> {
        self.exec
            .time_entry_runs(entry, args, more)
            .map_err(|e| RunError::new(e.to_string()))
    }
}

/// Type-checks `file` (and what it imports) and returns every diagnostic: errors and warnings.
/// The program is accepted when no diagnostic is an error.
///
/// Diagnostics of imported files count too: a program whose library fails to check is
/// rejected.
pub fn typecheck(db: &Database, file: File) -> Result<Vec<Diagnostic>, Unavailable> {
    Ok(futhark_db::program_diagnostics(db, file)
        .into_iter()
        .flat_map(|(_, diags)| diags)
        .collect())
}

/// Type-checks `file` and prepares it for running on the reference interpreter.
///
/// The interpreter's program is built from the database's parse and check results
/// ([`futhark_db::interp_program`]): each file is checked once.
pub fn load_interpreter(db: &Database, file: File) -> Result<Box<dyn Program>, LoadError> {
    let diags = typecheck(db, file)?;
    if diags.iter().any(Diagnostic::is_error) {
        return Err(LoadError::Compile(diags));
    }
    // A program the checker accepted but the interpreter cannot load is reported like a
    // compile error at the top of the file, with the interpreter's reason.
    let load_error = |message: String| {
        let at = futhark_syntax::Span::new(file.id(db), 0, 0);
        LoadError::Compile(vec![Diagnostic::error(
            "interpreter-load",
            at,
            format!("the interpreter cannot load this program: {message}"),
        )])
    };
    let checked = futhark_db::interp_program(db, file);
    let locations = checked.program.clone();
    let interp =
        futhark_interp::Interpreter::new(checked.program).map_err(|e| load_error(e.message))?;
    Ok(Box::new(InterpretedProgram { interp, locations }))
}

/// The reference interpreter behind [`Program`].
struct InterpretedProgram {
    interp: futhark_interp::Interpreter,
    /// The program's sources, to describe error locations as `path:line:col`.
    locations: futhark_interp::program::Program,
}

impl Program for InterpretedProgram {
    fn call(&mut self, entry: &str, args: Vec<Value>) -> Result<Vec<Value>, RunError> {
        self.interp.call_entry(entry, args).map_err(|e| {
            let sources = futhark_interp::SourceMap::new(&self.locations);
            RunError::new(e.render(&|span| sources.describe(span)))
        })
    }
}

/// Whether `stage` is present in this build: asks it about an empty program.
pub fn available(stage: Stage) -> Result<(), Unavailable> {
    let mut db = Database::new();
    let file = db.set_file("<availability probe>.fut", "");
    match stage {
        Stage::TypeChecker => typecheck(&db, file).map(drop),
        Stage::Interpreter => match load_interpreter(&db, file) {
            Err(LoadError::Unavailable(u)) => Err(u),
            Ok(_) | Err(LoadError::Compile(_) | LoadError::NoDevice(_)) => Ok(()),
        },
        Stage::Compiled | Stage::Cuda => Ok(()),
    }
}
