//! [`Session`]: the incremental evaluation engine behind the REPL and the notebook.
//!
//! Each cell is parsed, type-checked against the scope that earlier cells built, and only
//! then evaluated by the interpreter's thread. The checker's scope is replaced only when the
//! whole cell succeeded, so a syntax, type or run-time error leaves the session as it was.
//! Every cell's text is a file of the salsa database (named `[N]`), so diagnostics render
//! with source excerpts like any file's.
//!
//! An expression cell binds its value to `it`: the checker sees `def it = <exp>` built
//! from the parsed expression (so its spans are the user's), and the interpreter evaluates
//! the text `def it = <exp>` and then `it` (the [`SpanMap`](crate::spans::SpanMap) removes
//! the prefix from locations).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use futhark_check::{CheckContext, FileScope};
use futhark_db::{Database, File};
use futhark_interp::RuntimeError;
use futhark_syntax::ast::{Dec, DecKind, Exp};
use futhark_syntax::{Diagnostic, FileId, Severity};

use crate::backend::{BackendChoice, Placement, place, probe_gpus};
use crate::format::{FormatOptions, format_value};
use crate::outcome::{CellError, CellOutcome, ErrorKind, Evaluated, Shown, Timing};
use crate::program::{self, Defs};
use crate::spans::Origin;
use crate::worker::{Part, Reply, Worker};

/// The text put in front of an expression so that the interpreter binds it to `it`.
const IT_PREFIX: &str = "def it = ";

/// How a session starts.
#[derive(Clone, Debug, Default)]
pub struct Options {
    pub backend: BackendChoice,
    /// GPUs to use (`None`: every visible one).
    pub gpus: Option<usize>,
    pub format: FormatOptions,
}

/// Stops the cell that is running; cheap to clone and to send to another thread (a Ctrl-C
/// handler, the notebook's control channel).
#[derive(Clone, Debug)]
pub struct Interrupter(Arc<AtomicBool>);

impl Interrupter {
    pub fn interrupt(&self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// What loading a file reports besides success.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LoadReport {
    pub warnings: Vec<Diagnostic>,
    pub time: Duration,
}

/// An evaluation session. See the module documentation.
pub struct Session {
    db: Database,
    ctx: &'static CheckContext,
    scope: Arc<FileScope>,
    /// Top-level definitions of the loaded program and the cells (for size arguments).
    defs: Defs,
    worker: Worker,
    interrupt: Arc<AtomicBool>,
    next_cell: usize,
    loaded: Option<PathBuf>,
    options: Options,
    placement: Placement,
    last: Option<Timing>,
    /// Whether faces should print timing after each cell (`:time on`).
    pub show_time: bool,
}

impl Session {
    /// A session with nothing loaded (the prelude only).
    pub fn new(options: Options) -> Result<Session, CellError> {
        let ctx = futhark_db::check_context();
        let interrupt = Arc::new(AtomicBool::new(false));
        let mut db = Database::new();
        let root = db.set_file(program::EMPTY_ROOT, "");
        let built = program::build(ctx, &db, root);
        let worker = start_worker(built.program, interrupt.clone())?;
        let placement = place(options.backend, options.gpus, probe_gpus());
        Ok(Session {
            db,
            ctx,
            scope: Arc::new(ctx.initial_scope()),
            defs: built.defs,
            worker,
            interrupt,
            next_cell: 0,
            loaded: None,
            options,
            placement,
            last: None,
            show_time: false,
        })
    }

    /// The number the next cell will get.
    pub fn next_cell(&self) -> usize {
        self.next_cell
    }

    /// Counts an input that is not a cell (a command), so numbering follows the prompts.
    pub fn skip_cell(&mut self) {
        self.next_cell += 1;
    }

    pub fn interrupter(&self) -> Interrupter {
        Interrupter(self.interrupt.clone())
    }

    /// The file loaded last, if any.
    pub fn loaded_file(&self) -> Option<&Path> {
        self.loaded.as_deref()
    }

    /// The scope cells are checked in: the prelude, the loaded file, earlier cells.
    pub fn scope(&self) -> &FileScope {
        &self.scope
    }

    pub fn options(&self) -> &Options {
        &self.options
    }

    /// Where cells run now, and why when it is not what was asked for.
    pub fn placement(&self) -> &Placement {
        &self.placement
    }

    /// Chooses the backend; returns the new placement.
    pub fn set_backend(&mut self, backend: BackendChoice) -> &Placement {
        self.options.backend = backend;
        self.placement = place(backend, self.options.gpus, probe_gpus());
        &self.placement
    }

    /// Limits the GPUs used (`None`: all); returns the new placement.
    pub fn set_gpus(&mut self, gpus: Option<usize>) -> &Placement {
        self.options.gpus = gpus;
        self.placement = place(self.options.backend, gpus, probe_gpus());
        &self.placement
    }

    /// Timing of the last cell that ran.
    pub fn last_timing(&self) -> Option<Timing> {
        self.last
    }

    /// The database (for rendering and for analyses of cells).
    pub fn db(&self) -> &Database {
        &self.db
    }

    /// Renders diagnostics with source excerpts (ANSI colours when `color`).
    pub fn render(&self, diagnostics: &[Diagnostic], color: bool) -> String {
        futhark_db::render::render_terminal(&self.db, diagnostics, color)
    }

    /// Renders an error: its diagnostics, then its detail.
    pub fn render_error(&self, e: &CellError, color: bool) -> String {
        let mut out = self.render(&e.diagnostics, color);
        if let Some(d) = &e.detail {
            if !out.is_empty() && !out.ends_with('\n') {
                out.push('\n');
            }
            out.push_str(d);
        }
        out.trim_end().to_string()
    }

    /// Loads a program, replacing everything defined so far. On failure the session is
    /// unchanged.
    pub fn load(&mut self, path: &Path) -> Result<LoadReport, CellError> {
        let start = Instant::now();
        let text = std::fs::read_to_string(path).map_err(|e| {
            CellError::message(ErrorKind::Usage, format!("{}: {e}", path.display()))
        })?;
        let file = self.db.set_file(path, text);
        let mut errors = Vec::new();
        let mut warnings = Vec::new();
        for (_, diags) in futhark_db::program_diagnostics(&self.db, file) {
            for d in diags {
                if d.severity == Severity::Error {
                    errors.push(d);
                } else {
                    warnings.push(d);
                }
            }
        }
        if !errors.is_empty() {
            let kind = if errors.iter().all(|d| d.code == "syntax-error") {
                ErrorKind::Syntax
            } else {
                ErrorKind::Type
            };
            return Err(CellError::from_diagnostics(kind, errors));
        }
        let built = program::build(self.ctx, &self.db, file);
        let worker = start_worker(built.program, self.interrupt.clone())?;
        // The REPL sees everything the file defines, `local` names included, so the file's
        // declarations are checked as one cell rather than as a file's exports.
        let decs = futhark_db::parse(&self.db, file).file.decs.clone();
        let imports = import_scopes(&self.db, file);
        let checked = futhark_check::check_decs_incremental(
            self.ctx,
            &self.ctx.initial_scope(),
            file.id(&self.db),
            &decs,
            &|p: &str| imports.get(p).cloned(),
        );
        self.worker = worker;
        self.scope = checked.scope;
        self.defs = built.defs;
        self.loaded = Some(path.to_path_buf());
        Ok(LoadReport {
            warnings,
            time: start.elapsed(),
        })
    }

    /// Loads the last loaded file again (or empties the session when none was).
    pub fn reload(&mut self) -> Result<LoadReport, CellError> {
        match self.loaded.clone() {
            Some(p) => self.load(&p),
            None => {
                let start = Instant::now();
                let root = self.db.set_file(program::EMPTY_ROOT, "");
                let built = program::build(self.ctx, &self.db, root);
                self.worker = start_worker(built.program, self.interrupt.clone())?;
                self.scope = Arc::new(self.ctx.initial_scope());
                self.defs = built.defs;
                Ok(LoadReport {
                    warnings: Vec::new(),
                    time: start.elapsed(),
                })
            }
        }
    }

    /// Evaluates a cell. `#[trace]` lines go to `on_trace` as they are printed.
    pub fn eval(&mut self, text: &str, on_trace: &mut dyn FnMut(&str)) -> CellOutcome {
        let start = Instant::now();
        let number = self.next_cell;
        self.next_cell += 1;
        let mut timing = Timing::default();
        let mut warnings = Vec::new();
        let result = self.eval_inner(number, text, on_trace, &mut timing, &mut warnings);
        timing.total = start.elapsed();
        if result.is_ok() {
            self.last = Some(timing);
        }
        CellOutcome {
            number,
            result,
            warnings,
            timing,
            device: self.placement.device,
        }
    }

    fn eval_inner(
        &mut self,
        number: usize,
        text: &str,
        on_trace: &mut dyn FnMut(&str),
        timing: &mut Timing,
        warnings: &mut Vec<Diagnostic>,
    ) -> Result<Evaluated, CellError> {
        let check_start = Instant::now();
        let name = format!("[{number}]");
        let file = self.db.set_file(&name, text);
        let id = file.id(&self.db);
        let cell = parse_cell(id, text);
        if !cell.errors.is_empty() {
            return Err(CellError::from_diagnostics(ErrorKind::Syntax, cell.errors));
        }
        let imports = import_scopes(&self.db, file);
        let imports = |p: &str| imports.get(p).cloned();
        let mut scope = self.scope.clone();
        let origin = |shift: usize| Origin {
            shift: shift as u32,
            name: name.clone(),
            text: Arc::from(text),
        };
        let Some(exp) = cell.exp else {
            if cell.decs.is_empty() {
                timing.check = check_start.elapsed();
                return Ok(Evaluated::Nothing);
            }
            let checked =
                futhark_check::check_decs_incremental(self.ctx, &scope, id, &cell.decs, &imports);
            split_diagnostics(checked.diagnostics, warnings)?;
            let hints = program::hints_for(self.ctx, &checked.info, &self.defs);
            timing.check = check_start.elapsed();
            let parts = vec![Part {
                text: text.to_string(),
                file: Some(id),
                hints,
                origin: Some(origin(0)),
            }];
            self.run(parts, on_trace, timing)?;
            self.scope = checked.scope;
            self.defs.extend(checked.info.defs);
            return Ok(Evaluated::Declared(declared_names(&cell.decs)));
        };
        let checked = futhark_check::check_exp(self.ctx, &scope, id, &exp);
        split_diagnostics(checked.diagnostics, warnings)?;
        let ty = checked.ty.to_string();
        let hints = program::shift_hints(
            program::hints_for(self.ctx, &checked.info, &self.defs),
            id,
            IT_PREFIX.len() as u32,
        );
        let with_it = bind_it(self.ctx, &scope, id, exp, &imports);
        timing.check = check_start.elapsed();
        let parts = vec![
            Part {
                text: format!("{IT_PREFIX}{text}"),
                file: Some(id),
                hints,
                origin: Some(origin(IT_PREFIX.len())),
            },
            Part {
                text: "it".to_string(),
                file: None,
                hints: Default::default(),
                origin: None,
            },
        ];
        let value = self.run(parts, on_trace, timing)?;
        if let Some(s) = with_it {
            scope = s;
        }
        self.scope = scope;
        match value {
            Some(value) => {
                let text = format_value(&value, self.options.format);
                Ok(Evaluated::Value(Shown { value, ty, text }))
            }
            None => Ok(Evaluated::Nothing),
        }
    }

    /// Sends texts to the interpreter and waits for the answer, passing trace lines on.
    fn run(
        &mut self,
        parts: Vec<Part>,
        on_trace: &mut dyn FnMut(&str),
        timing: &mut Timing,
    ) -> Result<Option<crate::value::ValueView>, CellError> {
        self.worker.eval(parts).map_err(runtime_error)?;
        let (result, eval) = wait(&self.worker, on_trace)?;
        timing.eval = eval;
        result.map_err(runtime_error)
    }

    /// The type of an expression (`:type`), checked in the current scope.
    pub fn type_of(&mut self, text: &str) -> Result<String, CellError> {
        // A polymorphic name shows its scheme rather than one defaulted instance.
        if let Some(scheme) = crate::inspect::value_scheme(&self.scope, text) {
            return Ok(scheme);
        }
        let file = self.db.set_file("[:type]", text);
        let id = file.id(&self.db);
        let (exp, errors) = futhark_syntax::parse_exp(id, text);
        if !errors.is_empty() {
            return Err(CellError::from_diagnostics(ErrorKind::Syntax, errors));
        }
        let Some(exp) = exp else {
            return Err(CellError::message(ErrorKind::Usage, "no expression given"));
        };
        let checked = futhark_check::check_exp(self.ctx, &self.scope, id, &exp);
        // A size nothing pins down (`:type map f`) matters for running, not for typing.
        let diagnostics = checked
            .diagnostics
            .into_iter()
            .filter(|d| d.code != "ambiguous-size")
            .collect();
        split_diagnostics(diagnostics, &mut Vec::new())?;
        Ok(checked.ty.to_string())
    }

    /// The signature of a module in scope (`:mtype`).
    pub fn module_type(&self, path: &str) -> Option<String> {
        futhark_check::module_signature(&self.scope, path.trim())
    }
}

/// Parses a cell. `futhark_syntax::parse_cell` reads a cell that starts with an attribute
/// as declarations; an attributed expression (`#[trace] e`) is tried as an expression when
/// that fails.
pub(crate) fn parse_cell(id: FileId, text: &str) -> futhark_syntax::Cell {
    let cell = futhark_syntax::parse_cell(id, text);
    if cell.errors.is_empty() || !text.trim_start().starts_with("#[") {
        return cell;
    }
    match futhark_syntax::parse_exp(id, text) {
        (Some(exp), errors) if errors.is_empty() => futhark_syntax::Cell {
            decs: Vec::new(),
            exp: Some(exp),
            errors,
        },
        _ => cell,
    }
}

/// Starts an interpreter thread and waits until it has loaded its program. (Trace lines
/// printed by the program's top-level definitions go to stderr.)
fn start_worker(
    program: futhark_interp::Program,
    interrupt: Arc<AtomicBool>,
) -> Result<Worker, CellError> {
    let worker = Worker::start(program, interrupt).map_err(runtime_error)?;
    let (result, _) = wait(&worker, &mut |l| eprintln!("{l}"))?;
    result.map_err(runtime_error)?;
    Ok(worker)
}

type WorkerResult = Result<Option<crate::value::ValueView>, RuntimeError>;

fn wait(
    worker: &Worker,
    on_trace: &mut dyn FnMut(&str),
) -> Result<(WorkerResult, Duration), CellError> {
    loop {
        match worker.rx.recv() {
            Ok(Reply::Trace(line)) => on_trace(&line),
            Ok(Reply::Done(r, t)) => return Ok((r, t)),
            Err(_) => {
                return Err(CellError::message(
                    ErrorKind::Runtime,
                    "the interpreter thread has stopped",
                ));
            }
        }
    }
}

/// A run-time error as a located diagnostic with its backtrace as notes.
fn runtime_error(e: RuntimeError) -> CellError {
    if e.interrupted {
        return CellError::message(ErrorKind::Interrupted, "Interrupted.");
    }
    let Some(span) = e.span else {
        return CellError::message(ErrorKind::Runtime, e.message);
    };
    let mut d = Diagnostic::error("runtime-error", span, e.message.clone());
    for (i, s) in e.backtrace.iter().enumerate().skip(1) {
        d = d.with_label(*s, format!("called from here (#{i})"));
    }
    CellError::from_diagnostics(ErrorKind::Runtime, vec![d])
}

/// Errors fail the cell; warnings are kept for the report.
fn split_diagnostics(
    diags: Vec<Diagnostic>,
    warnings: &mut Vec<Diagnostic>,
) -> Result<(), CellError> {
    let (errors, rest): (Vec<_>, Vec<_>) = diags.into_iter().partition(|d| d.is_error());
    warnings.extend(rest);
    if errors.is_empty() {
        Ok(())
    } else {
        Err(CellError::from_diagnostics(ErrorKind::Type, errors))
    }
}

/// The scopes of the files `file` imports, by the path as written.
fn import_scopes(db: &Database, file: File) -> HashMap<String, Arc<FileScope>> {
    let mut out = HashMap::new();
    for dep in futhark_db::imports(db, file) {
        if let Some(target) = dep.target {
            out.insert(
                dep.written.clone(),
                futhark_db::check(db, target).0.scope.clone(),
            );
        }
    }
    out
}

/// The checker's scope after `def it = exp`, built from the parsed expression so that its
/// spans stay the user's. `None` if that binding does not check (the value is still shown).
fn bind_it(
    ctx: &CheckContext,
    scope: &FileScope,
    file: FileId,
    exp: Exp,
    imports: &dyn Fn(&str) -> Option<Arc<FileScope>>,
) -> Option<Arc<FileScope>> {
    let template = futhark_syntax::parse_cell(file, "def it = 0");
    let mut dec = template.decs.into_iter().next()?;
    // The template's own spans point into text that does not exist; make them empty spans
    // at the expression's start so nothing points past the cell's end.
    let at = futhark_syntax::Span::new(file, exp.span.start, exp.span.start);
    dec.span = at;
    match &mut dec.kind {
        DecKind::Val(vb) => {
            vb.name.span = at;
            vb.span = exp.span;
            vb.body = exp;
        }
        _ => return None,
    }
    let checked = futhark_check::check_decs_incremental(ctx, scope, file, &[dec], imports);
    if checked.diagnostics.iter().any(|d| d.is_error()) {
        return None;
    }
    Some(checked.scope)
}

/// The names a list of declarations binds, in order.
fn declared_names(decs: &[Dec]) -> Vec<String> {
    let mut out = Vec::new();
    for d in decs {
        collect_names(d, &mut out);
    }
    out
}

fn collect_names(d: &Dec, out: &mut Vec<String>) {
    match &d.kind {
        DecKind::Val(vb) => out.push(vb.name.name.clone()),
        DecKind::Type(tb) => out.push(tb.name.name.clone()),
        DecKind::Module(mb) => out.push(mb.name.name.clone()),
        DecKind::ModuleType(mt) => out.push(mt.name.name.clone()),
        DecKind::Local(inner) => collect_names(inner, out),
        DecKind::Open(_) | DecKind::Import(_) | DecKind::Error => {}
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        // Stop a cell still running so the interpreter's thread can end.
        self.interrupt.store(true, Ordering::Relaxed);
    }
}
