//! `futhark-rs ir`: print a program's IR after lowering (`soacs`), after the SOAC
//! optimisations (`fused`), after kernel extraction (`kernels`: host code, then each
//! kernel program), or after any named pass of the pipeline.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use futhark_db::{CompileError, Database, Db, File, IrStage, compile, lower_file, render};
use futhark_ide::ir_view::render::render_program;
use futhark_ir::soacs::Program;
use futhark_syntax::{Diagnostic, Span};

/// The stages `--stage` accepts.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum StageArg {
    /// As lowering produced it: first-order, monomorphic SOAC IR (alias: `core`).
    #[value(alias = "core")]
    Soacs,
    /// After simplification, inlining and fusion.
    Fused,
    /// After kernel extraction: host code launching kernel programs.
    Kernels,
}

impl From<StageArg> for IrStage {
    fn from(s: StageArg) -> IrStage {
        match s {
            StageArg::Soacs => IrStage::Soacs,
            StageArg::Fused => IrStage::Fused,
            StageArg::Kernels => IrStage::Kernels,
        }
    }
}

#[derive(Args)]
pub struct IrArgs {
    /// The program (a .fut file with entry points).
    program: PathBuf,
    /// How far to compile.
    #[arg(long, value_enum, default_value = "soacs")]
    stage: StageArg,
    /// Stop after the first pass of the pipeline with this name (e.g. `inline`, `fuse`,
    /// `extract-kernels`) instead of at a stage.
    #[arg(long, value_name = "NAME", conflicts_with = "stage")]
    pass: Option<String>,
}

pub fn run(args: IrArgs, options: &futhark_options::Options) -> ExitCode {
    let mut db = Database::new();
    db.set_compile_options(options.compile);
    let Some(file) = load(&db, &args.program) else {
        return ExitCode::FAILURE;
    };
    let compiled = match &args.pass {
        Some(name) => compile_until(&db, file, name),
        None => compile(&db, file, args.stage.into()).map_err(Failure::Compile),
    };
    match compiled {
        Ok(prog) => {
            warn_if_no_entries(&db, file, &prog);
            emit(&render_program(&prog))
        }
        Err(f) => f.report(&db, file),
    }
}

/// Why a program could not be shown.
pub enum Failure {
    Compile(CompileError),
    /// Another error, reported at the start of the program.
    Other(Diagnostic),
}

impl Failure {
    /// Prints the failure as rendered diagnostics on stderr; the exit status to use.
    pub fn report(&self, db: &dyn Db, file: File) -> ExitCode {
        let diags = match self {
            Failure::Compile(e) => e.diagnostics(db, file),
            Failure::Other(d) => vec![d.clone()],
        };
        let color = std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
        eprint!("{}", render::render_terminal(db, &diags, color));
        ExitCode::FAILURE
    }

    /// An error with `message`, placed at the start of `file`.
    pub fn at_start(db: &dyn Db, file: File, code: &'static str, message: String) -> Failure {
        Failure::Other(Diagnostic::error(
            code,
            Span::new(file.id(db), 0, 0),
            message,
        ))
    }
}

/// The program at `path`, or `None` after saying it cannot be read.
pub fn load(db: &Database, path: &std::path::Path) -> Option<File> {
    let file = db.load_file(path);
    if file.is_none() {
        eprintln!("error: cannot read {}", path.display());
    }
    file
}

/// Writes `text` to stdout; a closed pipe (`| head`) is not an error.
pub fn emit(text: &str) -> ExitCode {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: cannot write the output: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Tells on stderr that a program without entry points compiles to nothing.
pub fn warn_if_no_entries(db: &dyn Db, file: File, prog: &Program) {
    if prog.entries().next().is_none() {
        eprintln!(
            "warning: {} has no entry points, so nothing of it is compiled",
            file.path(db).display()
        );
    }
}

/// The program after the first pass called `name`.
fn compile_until(db: &dyn Db, file: File, name: &str) -> Result<Program, Failure> {
    let options = db.settings().compile(db);
    let Some(passes) = futhark_opt::pipeline_until(name, &options) else {
        let mut names: Vec<&str> = futhark_opt::pipeline_for(&options)
            .iter()
            .map(|p| p.name)
            .collect();
        names.dedup();
        let mut seen = std::collections::HashSet::new();
        names.retain(|n| seen.insert(*n));
        return Err(Failure::at_start(
            db,
            file,
            "unknown-pass",
            format!("no pass is called `{name}` (passes: {})", names.join(", ")),
        ));
    };
    let prog = lower_file(db, file).map_err(Failure::Compile)?;
    futhark_opt::run_pipeline(prog, &passes, cfg!(debug_assertions))
        .map_err(|e| Failure::Compile(CompileError::Pass(e)))
}
