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
/// The interpreter receives the program's files in dependency order (texts from the
/// database, so editor buffers and test fixtures are seen as they are) and builds its own
/// program from them with the checker's side tables.
pub fn load_interpreter(db: &Database, file: File) -> Result<Box<dyn Program>, LoadError> {
    let diags = typecheck(db, file)?;
    if diags.iter().any(Diagnostic::is_error) {
        return Err(LoadError::Compile(diags));
    }
    let graph = futhark_db::import_graph(db, file);
    let sources: Vec<(String, String)> = graph
        .order
        .iter()
        .map(|f| (f.path(db).display().to_string(), f.text(db).clone()))
        .collect();
    let root = file.path(db).display().to_string();
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
    let checked =
        futhark_interp::checked::check_sources(futhark_db::check_context(), sources, &root)
            .map_err(load_error)?;
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
            Ok(_) | Err(LoadError::Compile(_)) => Ok(()),
        },
        Stage::Cuda => Err(Unavailable(Stage::Cuda)),
    }
}
