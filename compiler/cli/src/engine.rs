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
//!
//! Whether a stage is available is found out by asking it about an empty program
//! ([`available`]), so there is no second switch to keep in sync.

use std::fmt;

use futhark_db::{Database, File};
use futhark_syntax::Diagnostic;
use futhark_values::Value;

/// A compiler stage the command line may need.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// The type checker (`futhark-check`, through the database).
    TypeChecker,
    /// The reference interpreter (`futhark-interp`).
    Interpreter,
    /// The CUDA backend.
    Cuda,
}

impl fmt::Display for Stage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Stage::TypeChecker => "type checker",
            Stage::Interpreter => "interpreter",
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
    /// The program has errors; the diagnostics include at least one error.
    #[allow(
        dead_code,
        reason = "built by the interpreter adapter once it is plugged in"
    )]
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
    #[allow(
        dead_code,
        reason = "used by the interpreter adapter once it is plugged in"
    )]
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
/// **Plug point:** replace the body with: type-check (return [`LoadError::Compile`] with the
/// diagnostics if any is an error), then build the interpreter's program and wrap it in a type
/// implementing [`Program`] that converts the interpreter's run-time errors into [`RunError`]s
/// (rendered with location and backtrace).
pub fn load_interpreter(db: &Database, file: File) -> Result<Box<dyn Program>, LoadError> {
    let _ = (db, file);
    Err(Unavailable(Stage::Interpreter).into())
}

/// Whether `stage` is present in this build: asks it about an empty program.
pub fn available(stage: Stage) -> Result<(), Unavailable> {
    let mut db = Database::new();
    let file = db.set_file("<availability probe>.fut", "");
    match stage {
        Stage::TypeChecker => typecheck(&db, file).map(drop),
        Stage::Interpreter => match load_interpreter(&db, file) {
            Err(LoadError::Unavailable(u)) => Err(u),
            Ok(_) | Err(LoadError::Compile(_)) => Ok(()),
        },
        Stage::Cuda => Err(Unavailable(Stage::Cuda)),
    }
}
