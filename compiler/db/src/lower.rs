//! The way from a checked program to the IR every backend and IR view starts from.
//!
//! [`lower_file`] lowers the program rooted at a file (its imports included) to SOAC IR;
//! [`compile`] runs the optimiser up to a chosen [`IrStage`]. Both read the database's
//! parse and check results, so an editor buffer, a REPL cell or a test fixture is compiled
//! exactly as it was checked, with the compile options of the database's
//! [`Settings`](crate::Settings) input. Compilation is the tracked query `compiled`, keyed
//! by (root file, stage, compile options): compiling a program that did not change with
//! the same options again is a lookup, and a program lowered once serves every stage.

use std::sync::Arc;

use futhark_ir::soacs::Program;
use futhark_lower::{SourceUnit, lower_program};
use futhark_opt::{PassError, pipeline_for, run_pipeline, soac_pipeline};
use futhark_options::CompileOptions;
use futhark_syntax::{Diagnostic, Severity, Span};

use crate::{Db, File, check, check_context, import_graph, imports, parse};

/// How far [`compile`] takes a program.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IrStage {
    /// As lowering produced it: first-order, monomorphic SOAC IR.
    Soacs,
    /// After simplification, inlining and fusion (the SOAC passes of the pipeline).
    Fused,
    /// After kernel extraction: host code launching kernel programs.
    Kernels,
}

impl IrStage {
    pub const ALL: [IrStage; 3] = [IrStage::Soacs, IrStage::Fused, IrStage::Kernels];

    pub fn name(self) -> &'static str {
        match self {
            IrStage::Soacs => "soacs",
            IrStage::Fused => "fused",
            IrStage::Kernels => "kernels",
        }
    }

    /// The stage called `name` (`core` is accepted for `soacs`, as the LSP names it).
    pub fn from_name(name: &str) -> Option<IrStage> {
        match name {
            "soacs" | "core" => Some(IrStage::Soacs),
            "fused" => Some(IrStage::Fused),
            "kernels" => Some(IrStage::Kernels),
            _ => None,
        }
    }
}

/// Why a program could not be compiled to the stage asked for.
#[derive(Clone, Debug, thiserror::Error)]
pub enum CompileError {
    /// The program does not parse or type-check (the errors, never empty).
    #[error("the program has {} error(s)", .0.len())]
    Check(Vec<Diagnostic>),
    /// Lowering does not support something the program uses (diagnostics with locations).
    #[error("{}", .0.first().map(|d| d.message.as_str()).unwrap_or("lowering failed"))]
    Lower(Vec<Diagnostic>),
    /// An optimiser pass rejected the program (unsupported construct, or a compiler bug).
    #[error("{0}")]
    Pass(PassError),
}

impl CompileError {
    /// The error as diagnostics; a pass error is placed at the start of `root`.
    pub fn diagnostics(&self, db: &dyn Db, root: File) -> Vec<Diagnostic> {
        match self {
            CompileError::Check(ds) | CompileError::Lower(ds) => ds.clone(),
            CompileError::Pass(e) => vec![Diagnostic::error(
                if e.unsupported {
                    "gpu-unsupported"
                } else {
                    "compiler-bug"
                },
                Span::new(root.id(db), 0, 0),
                e.to_string(),
            )],
        }
    }
}

/// The program rooted at `root`, checked and lowered to SOAC IR.
pub fn lower_file(db: &dyn Db, root: File) -> Result<Program, CompileError> {
    let order = import_graph(db, root).order.clone();
    let mut errors = Vec::new();
    let mut asts = Vec::new();
    let mut infos = Vec::new();
    let mut imps = Vec::new();
    let mut paths = Vec::new();
    let mut texts = Vec::new();
    for &f in &order {
        let parsed = parse(db, f);
        errors.extend(parsed.errors.iter().cloned());
        asts.push(parsed.file.clone());
        let checked = check(db, f).0.clone();
        errors.extend(
            checked
                .diagnostics
                .iter()
                .filter(|d| d.severity == Severity::Error)
                .cloned(),
        );
        infos.push(checked);
        imps.push(
            imports(db, f)
                .iter()
                .filter_map(|i| Some((i.written.clone(), i.target?.id(db))))
                .collect::<Vec<_>>(),
        );
        paths.push(f.path(db).display().to_string());
        texts.push(f.text(db).clone());
    }
    if !errors.is_empty() {
        return Err(CompileError::Check(errors));
    }
    let units: Vec<SourceUnit> = order
        .iter()
        .enumerate()
        .map(|(i, f)| SourceUnit {
            id: f.id(db),
            path: &paths[i],
            source: &texts[i],
            ast: &asts[i],
            info: &infos[i].info,
            imports: &imps[i],
        })
        .collect();
    let lowered = lower_program(check_context(), &units, root.id(db));
    lowered
        .program
        .ok_or(CompileError::Lower(lowered.diagnostics))
}

/// The program rooted at `root` compiled to `stage` with the database's compile options,
/// the [`Settings`](crate::Settings) input (the IR checker runs after every pass in debug
/// builds). Changing the options re-runs no query but compilation: parsing and checking do
/// not read them. A copy of [`compile_shared`]'s program (executors own theirs).
pub fn compile(db: &dyn Db, root: File, stage: IrStage) -> Result<Program, CompileError> {
    compile_shared(db, root, stage).map(|p| (*p).clone())
}

/// [`compile`]'s program as the database keeps it: compiling the same program to the same
/// stage with the same options again returns the same `Arc` without compiling.
pub fn compile_shared(
    db: &dyn Db,
    root: File,
    stage: IrStage,
) -> Result<Arc<Program>, CompileError> {
    // Only the kernel pipeline reads the options; the other stages share one result.
    let options = match stage {
        IrStage::Kernels => db.settings().compile(db),
        IrStage::Soacs | IrStage::Fused => CompileOptions::default(),
    };
    compiled(db, CompileKey::new(db, root, stage, options))
        .0
        .clone()
}

/// What [`compiled`] is asked for.
#[salsa::interned(debug)]
struct CompileKey<'db> {
    #[returns(copy)]
    root: File,
    #[returns(copy)]
    stage: IrStage,
    #[returns(copy)]
    options: CompileOptions,
}

/// The result of [`compiled`]. Compared by identity: a re-compilation counts as a change.
#[derive(Clone, Debug)]
struct Compiled(Result<Arc<Program>, CompileError>);

impl PartialEq for Compiled {
    fn eq(&self, other: &Compiled) -> bool {
        match (&self.0, &other.0) {
            (Ok(a), Ok(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

impl Eq for Compiled {}

/// Compiles a program: lowered once ([`IrStage::Soacs`], whatever the options), then the
/// SOAC passes or the kernel pipeline `options` choose.
#[salsa::tracked(returns(ref))]
fn compiled<'db>(db: &'db dyn Db, key: CompileKey<'db>) -> Compiled {
    let root = key.root(db);
    let passes = match key.stage(db) {
        IrStage::Soacs => return Compiled(lower_file(db, root).map(Arc::new)),
        IrStage::Fused => soac_pipeline(),
        IrStage::Kernels => pipeline_for(&key.options(db)),
    };
    let lowered = CompileKey::new(db, root, IrStage::Soacs, CompileOptions::default());
    let prog = match &compiled(db, lowered).0 {
        Ok(prog) => Program::clone(prog),
        Err(e) => return Compiled(Err(e.clone())),
    };
    Compiled(
        run_pipeline(prog, &passes, cfg!(debug_assertions))
            .map(Arc::new)
            .map_err(CompileError::Pass),
    )
}

/// Compiled programs are kept by the database, which threads may share.
const _: () = {
    const fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Program>();
    assert_send_sync::<CompileError>();
};
