//! [`Session`]: the incremental evaluation engine behind the REPL and the notebook.
//!
//! Each cell is parsed, type-checked against the scope that earlier cells built, and only
//! then evaluated by the interpreter's thread. Every cell's text is a file of the salsa
//! database (named `[N]`), so diagnostics render with source excerpts like any file's, and
//! checking it is the database's tracked query `futhark_db::check_cell`, over the cell's
//! text and the environment the session stands in ([`CellChain`]: the prelude, the loaded
//! program, an earlier cell, or every so often a snapshot of the scope so that the chain
//! stays short). The session's environment moves on only when a cell (or its declarations)
//! succeeded, so a syntax, type or run-time error leaves the session as it was; after each
//! cell the database drops all but the recent cells' checks (`Database::trim_cells`).
//!
//! An expression cell binds its value to `it`: the checker types the expression once and
//! binds `it` as `def it = <exp>` would (`futhark_check::check_exp_cell`), and the
//! interpreter evaluates the text `def it = <exp>` and then `it` (the
//! [`SpanMap`](crate::spans::SpanMap) removes the prefix from locations).
//!
//! When the placement is compiled (CUDA, or the CPU executor), an expression cell is
//! compiled instead, as the entry point of a program made of the loaded file, the
//! declaration cells and the cell ([`Session::cell_program`]), and run by the
//! [`Runner`](crate::compiled::Runner) that lives as long as the session; its result stays
//! resident there as `it`. A top-level `let x = e` whose value has a data form
//! ([`Layout`]) runs the same way, as the expression `let x = e in x`, once: `x` stays
//! resident and later compiled cells take it as a parameter like `it` (its text is not part
//! of their programs); another declaration of `x` forgets the resident value. Other `let`
//! cells are declarations, as on the interpreter. The interpreter is the session's
//! reference state: the cells that ran compiled are queued (`pending`) and replayed on it
//! only when a later cell needs the interpreter (a fallback, or `:backend interp`), so a
//! session that stays on the GPU never recomputes on the interpreter.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use futhark_check::{CheckContext, FileScope};
use futhark_db::{CellChain, CellEnv, Database, File, IrStage};
use futhark_exec::{ExecOptions, Opened, Target, UseBackend};
use futhark_interp::RuntimeError;
use futhark_syntax::{Diagnostic, Severity};

use crate::backend::{BackendChoice, Device, Placement, place, probe_gpus};
use crate::cell_errors::{cell_position, compiled_error, runtime_error, split_diagnostics};
use crate::cell_program::{DeclCell, mentions, program_text};
use crate::compiled::{CELL_ENTRY, Compiled, Layout, Ran, RunError, Runner};
use crate::format::{FormatOptions, format_value};
use crate::outcome::{CellError, CellOutcome, ErrorKind, Evaluated, Profile, Shown, Timing};
use crate::program::{self, Defs};
use crate::spans::Origin;
use crate::worker::{Part, Reply, Worker};

mod declare;
use declare::Decl;

/// The text put in front of an expression so that the interpreter binds it to `it`.
const IT_PREFIX: &str = "def it = ";

/// The database path of the program a compiled cell becomes.
pub(crate) const CELL_PROGRAM: &str = "[cell program]";

/// Where a cell ran and what the compiled path measured.
struct Placed {
    device: Device,
    location: String,
    note: Option<String>,
    profile: Option<Profile>,
}

/// The last cell that ran, for `:profile`.
#[derive(Clone, Debug)]
pub struct LastCell {
    pub number: usize,
    pub location: String,
    pub timing: Timing,
    pub note: Option<String>,
    pub profile: Option<Profile>,
}

/// How a session starts.
#[derive(Clone, Debug, Default)]
pub struct Options {
    pub backend: BackendChoice,
    /// GPUs to use (`None`: every visible one).
    pub gpus: Option<usize>,
    pub format: FormatOptions,
    /// Compiled cells leave out their run-time checks (`:unsafe`, as `--unsafe`).
    pub unsafe_checks: bool,
    /// What the face's environment and flags say about compiling and running
    /// (`futhark_options::from_env` at the edge); `gpus` and `unsafe_checks` above take
    /// precedence over its GPU count and safety.
    pub base: futhark_options::Options,
}

impl Options {
    /// The compile options of the session's database.
    fn compile(&self) -> futhark_options::CompileOptions {
        futhark_options::CompileOptions {
            safety: futhark_options::Safety::from_unsafe(self.unsafe_checks),
            ..self.base.compile
        }
    }
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
    /// Where the next cell's names come from.
    chain: CellChain,
    /// The scope of `chain`'s environment.
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
    last_cell: Option<LastCell>,
    /// Every expression cell that ran, by number (for `:compare`).
    ran_cells: Vec<LastCell>,
    /// The compiled path's backend and resident values, opened at the first compiled cell.
    runner: Option<Box<dyn Runner>>,
    /// The placement `runner` was opened for, and its number of devices.
    runner_for: Option<(Device, usize)>,
    /// Backends opened before for other placements (`:gpus 1` after `:gpus 2` finds its
    /// backend with its kernels loaded); they hold no values.
    parked: Vec<((Device, usize), Box<dyn Runner>)>,
    /// The texts of the declaration cells since the last load, in order.
    decl_texts: Vec<DeclCell>,
    /// Cells that ran compiled, not yet evaluated by the interpreter.
    pending: Vec<Part>,
    /// The program of the last expression cell (for `:ir` and `:kernels`).
    last_program: Option<Result<String, String>>,
    /// The text of the last expression cell.
    last_exp: String,
    /// Whether faces should print timing after each cell (`:time on`).
    pub show_time: bool,
}

impl Session {
    /// A session with nothing loaded (the prelude only).
    pub fn new(options: Options) -> Result<Session, CellError> {
        let ctx = futhark_db::check_context();
        let interrupt = Arc::new(AtomicBool::new(false));
        let mut db = Database::new();
        db.set_compile_options(options.compile());
        let root = db.set_file(program::EMPTY_ROOT, "");
        let built = program::build(&db, root);
        let worker = start_worker(built.program, interrupt.clone())?;
        let placement = place(
            options.backend,
            options.gpus,
            probe_gpus(options.base.face.no_gpu),
        );
        let mut session = Session {
            db,
            ctx,
            chain: CellChain::new(CellEnv::Prelude),
            scope: futhark_db::prelude_scope(),
            defs: built.defs,
            worker,
            interrupt,
            next_cell: 0,
            loaded: None,
            options,
            placement,
            last: None,
            last_cell: None,
            ran_cells: Vec::new(),
            runner: None,
            runner_for: None,
            parked: Vec::new(),
            decl_texts: Vec::new(),
            pending: Vec::new(),
            last_program: None,
            last_exp: String::new(),
            show_time: false,
        };
        session.replace();
        Ok(session)
    }

    /// The number the next cell will get.
    pub fn next_cell(&self) -> usize {
        self.next_cell
    }

    /// Counts an input that is not a cell (a command), so numbering follows the prompts.
    pub fn skip_cell(&mut self) {
        self.next_cell += 1;
    }

    /// Numbers the next cell `n` (a notebook's `execution_count`); numbers must not repeat.
    pub fn set_next_cell(&mut self, n: usize) {
        self.next_cell = n;
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

    /// Chooses the backend; returns the new placement. A compiled placement opens its
    /// backend now, so that the placement names the device (or says why it cannot).
    pub fn set_backend(&mut self, backend: BackendChoice) -> &Placement {
        self.options.backend = backend;
        self.replace();
        &self.placement
    }

    /// Limits the GPUs used (`None`: all); returns the new placement. The GPUs are opened
    /// again with the new count; resident values move through the host.
    pub fn set_gpus(&mut self, gpus: Option<usize>) -> &Placement {
        self.options.gpus = gpus;
        self.replace();
        &self.placement
    }

    /// Compiled cells leave out (`true`) or keep their run-time checks from now on.
    pub fn set_unsafe(&mut self, on: bool) {
        self.options.unsafe_checks = on;
        self.db.set_compile_options(self.options.compile());
    }

    fn replace(&mut self) {
        self.placement = place(
            self.options.backend,
            self.options.gpus,
            probe_gpus(self.options.base.face.no_gpu),
        );
        if self.placement.device.is_compiled()
            && let Err(why) = self.ensure_runner()
        {
            self.placement = self.unusable(why);
        }
    }

    /// The placement when the compiled backend cannot be opened.
    fn unusable(&self, why: String) -> Placement {
        Placement {
            device: Device::Interpreter,
            note: Some(match self.options.backend {
                BackendChoice::Auto => format!("{why}; running on the interpreter"),
                b => format!("the {b} backend was requested, but {why}"),
            }),
        }
    }

    /// Where cells run, in words: `the interpreter`, `cuda: 1 GPU (NVIDIA H100 (sm_90))`.
    pub fn location(&self) -> String {
        match (&self.runner, self.placement.device) {
            (_, Device::Interpreter) => "the interpreter".to_string(),
            (Some(r), d) if self.runner_for.map(|w| w.0) == Some(d) => r.label(),
            (_, d) => format!("the {d}"),
        }
    }

    /// The last cell that ran successfully: where, how long, and its kernels.
    pub fn last_cell(&self) -> Option<&LastCell> {
        self.last_cell.as_ref()
    }

    /// The expression cells that ran successfully, oldest first.
    pub fn ran_cells(&self) -> &[LastCell] {
        &self.ran_cells
    }

    /// The names kept resident by the compiled path, with their types.
    pub fn residents(&self) -> Vec<(String, String)> {
        self.runner
            .as_ref()
            .map(|r| {
                r.residents()
                    .into_iter()
                    .map(|(n, l)| (n, l.annotation()))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Opens the compiled backend the placement asks for, if it is not open; values
    /// resident on a previous one move over through the host.
    fn ensure_runner(&mut self) -> Result<(), String> {
        let device = self.placement.device;
        let count = match device {
            Device::Gpus(n) => n,
            // The CPU executor stands in for as many GPUs as asked for (one by default).
            _ => self.options.gpus.unwrap_or(1).max(1),
        };
        let want = (device, count);
        if self.runner.is_some() && self.runner_for == Some(want) {
            return Ok(());
        }
        let mut carried = Vec::new();
        if let (Some(mut r), Some(key)) = (self.runner.take(), self.runner_for.take()) {
            carried = r.take_host();
            self.parked.push((key, r));
        }
        let mut runner: Box<dyn Runner> = match self.parked.iter().position(|p| p.0 == want) {
            Some(i) => self.parked.swap_remove(i).1,
            None => match device {
                Device::Interpreter => return Err("no compiled backend is placed".to_string()),
                Device::CpuExecutor => open_cpu(count, &self.options.base.exec)?,
                Device::Gpus(n) => open_cuda(n, &self.options.base.exec)?,
            },
        };
        for (name, layout, vals) in carried {
            runner.keep(&name, layout, vals);
        }
        runner.set_interrupt(self.interrupt.clone());
        self.runner = Some(runner);
        self.runner_for = Some(want);
        Ok(())
    }

    /// The program an expression cell becomes on the compiled path: the loaded file
    /// (opened), each declaration cell in a module of its own (so a later cell may redefine
    /// a name, as in the session), and the expression as an entry point taking the
    /// resident values as parameters.
    /// Only the resident values the expression mentions become parameters, so a cell that
    /// does not use `it` compiles to the same program (and kernels) whatever `it` holds.
    ///
    /// A declaration cell that mentions a resident value (`def y = it + 1`) cannot be part
    /// of the program (the value is a parameter of the entry point, not a definition), so
    /// it is left out and the names it defines are marked: an expression that uses one of
    /// them (or a later declaration that does) has no program, and the cell runs on the
    /// interpreter. Leaving such a declaration out silently would let an older definition
    /// of the same name answer instead.
    pub fn cell_program(&self, exp: &str) -> Result<String, String> {
        let residents = self
            .runner
            .as_ref()
            .map(|r| r.residents())
            .unwrap_or_default();
        program_text(self.loaded.as_deref(), &self.decl_texts, exp, &residents)
    }

    /// The program of the last expression cell, and the offset of its entry point.
    fn last_program_file(&mut self) -> Result<(File, u32), CellError> {
        let text = match self.last_program.clone() {
            Some(Ok(text)) => text,
            Some(Err(why)) => return Err(CellError::message(ErrorKind::Usage, why)),
            None => {
                return Err(CellError::message(
                    ErrorKind::Usage,
                    "no expression cell has run yet",
                ));
            }
        };
        let at = text.find(&format!("entry {CELL_ENTRY}")).unwrap_or(0) as u32;
        Ok((self.db.set_file(CELL_PROGRAM, text), at))
    }

    /// The IR of the last expression cell's entry point at `stage`.
    pub fn last_ir(&mut self, stage: IrStage) -> Result<String, CellError> {
        let (file, at) = self.last_program_file()?;
        let view = futhark_ide::ir_view::show_ir(&self.db, file, Some(at), stage);
        Ok(view.text)
    }

    /// The CUDA source of the kernels the last expression cell launches.
    pub fn last_kernels(&mut self) -> Result<String, CellError> {
        let (file, at) = self.last_program_file()?;
        let view = futhark_ide::ir_view::show_cuda(&self.db, file, Some(at));
        Ok(view.text)
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
        let text = std::fs::read_to_string(path).map_err(|e| {
            CellError::message(ErrorKind::Usage, format!("{}: {e}", path.display()))
        })?;
        self.load_text(path, text)
    }

    /// Loads the program rooted at `root` whose files are given as texts (editor buffers,
    /// saved or not): they become the database's inputs, so nothing is read from or written
    /// to disk for them; imports not among `files` are read from disk. On failure the
    /// session is unchanged, apart from knowing the texts.
    pub fn load_sources(
        &mut self,
        root: &Path,
        files: &[(PathBuf, String)],
    ) -> Result<LoadReport, CellError> {
        let mut root_text = None;
        for (path, text) in files {
            if path == root {
                root_text = Some(text.clone());
            } else {
                self.db.set_file(path, text.clone());
            }
        }
        match root_text {
            Some(text) => self.load_text(root, text),
            None => self.load(root),
        }
    }

    /// Loads `text` as the program's root file at `path`.
    fn load_text(&mut self, path: &Path, text: String) -> Result<LoadReport, CellError> {
        let start = Instant::now();
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
        let built = program::build(&self.db, file);
        let worker = start_worker(built.program, self.interrupt.clone())?;
        // The REPL sees everything the file defines, `local` names included: the database's
        // check of the file (done above) keeps that scope, so the file is checked once.
        let visible = futhark_db::check(&self.db, file).0.visible.clone();
        self.worker = worker;
        self.chain = CellChain::new(CellEnv::Loaded(file));
        self.scope = visible;
        self.defs = built.defs;
        self.loaded = Some(path.to_path_buf());
        self.forget_cells();
        Ok(LoadReport {
            warnings,
            time: start.elapsed(),
        })
    }

    /// Forgets what the cells defined (after a load).
    fn forget_cells(&mut self) {
        self.decl_texts.clear();
        self.pending.clear();
        self.last_program = None;
        if let Some(r) = &mut self.runner {
            r.clear();
        }
    }

    /// Loads the last loaded file again (or empties the session when none was).
    pub fn reload(&mut self) -> Result<LoadReport, CellError> {
        match self.loaded.clone() {
            Some(p) => self.load(&p),
            None => {
                let start = Instant::now();
                let root = self.db.set_file(program::EMPTY_ROOT, "");
                let built = program::build(&self.db, root);
                self.worker = start_worker(built.program, self.interrupt.clone())?;
                self.chain = CellChain::new(CellEnv::Prelude);
                self.scope = futhark_db::prelude_scope();
                self.defs = built.defs;
                self.forget_cells();
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
        let mut ran = Placed {
            device: Device::Interpreter,
            location: "the interpreter".to_string(),
            note: None,
            profile: None,
        };
        let result = self.eval_inner(number, text, on_trace, &mut timing, &mut warnings, &mut ran);
        timing.total = start.elapsed();
        // Only the recent cells' checks are kept (each holds a scope).
        self.db.trim_cells();
        if result.is_ok() {
            self.last = Some(timing);
            let cell = LastCell {
                number,
                location: ran.location.clone(),
                timing,
                note: ran.note.clone(),
                profile: ran.profile.clone(),
            };
            if matches!(result, Ok(Evaluated::Value(_))) {
                self.ran_cells.push(cell.clone());
            }
            self.last_cell = Some(cell);
        }
        CellOutcome {
            number,
            result,
            warnings,
            timing,
            device: ran.device,
            location: ran.location,
            note: ran.note,
            profile: ran.profile,
        }
    }

    fn eval_inner(
        &mut self,
        number: usize,
        text: &str,
        on_trace: &mut dyn FnMut(&str),
        timing: &mut Timing,
        warnings: &mut Vec<Diagnostic>,
        ran: &mut Placed,
    ) -> Result<Evaluated, CellError> {
        let check_start = Instant::now();
        let name = format!("[{number}]");
        let file = self.db.set_file(&name, text);
        let id = file.id(&self.db);
        let cell = futhark_db::Cell::new(&self.db, file, self.chain.env());
        let checked = futhark_db::check_cell(&self.db, cell).0.clone();
        timing.check = check_start.elapsed();
        if !checked.syntax.is_empty() {
            return Err(CellError::from_diagnostics(
                ErrorKind::Syntax,
                checked.syntax.clone(),
            ));
        }
        let origin = |shift: usize| Origin {
            shift: shift as u32,
            name: name.clone(),
            text: Arc::from(text),
        };
        // Declarations followed by an expression line: the declarations run first, then
        // the expression is evaluated from the same file with the declarations blanked.
        if let Some(decls) = &checked.decls {
            let names = self.declare(
                Decl {
                    id,
                    text: &text[..checked.exp_at],
                    decs: &checked.decs,
                    checked: decls,
                    env: CellEnv::Declared(cell),
                    origin: origin(0),
                },
                on_trace,
                timing,
                warnings,
                ran,
            )?;
            if checked.exp.is_none() {
                return Ok(Evaluated::Declared(names));
            }
        }
        let Some(cell_exp) = &checked.checked_exp else {
            return Ok(Evaluated::Nothing);
        };
        let hints_start = Instant::now();
        // The expression's text as the interpreter sees it: `def it = <exp>`, or over the
        // blanked declarations so that offsets stay the file's.
        let (text, it_text, shift) = match &checked.exp_text {
            Some(t) => (
                t.as_str(),
                format!("{IT_PREFIX}{}", &t[IT_PREFIX.len()..]),
                0,
            ),
            None => (text, format!("{IT_PREFIX}{text}"), IT_PREFIX.len()),
        };
        split_diagnostics(cell_exp.exp.diagnostics.clone(), warnings)?;
        let ty = cell_exp.exp.ty.to_string();
        let layout = Layout::of(&cell_exp.exp.ty);
        let hints = program::shift_hints(
            program::hints_for(self.ctx, &cell_exp.exp.info, &self.defs),
            id,
            shift as u32,
        );
        timing.check += hints_start.elapsed();
        self.last_program = Some(self.cell_program(text));
        self.last_exp = text.to_string();
        let mut parts = vec![
            Part {
                text: it_text,
                file: Some(id),
                hints,
                origin: Some(origin(shift)),
            },
            Part {
                text: "it".to_string(),
                file: None,
                hints: Default::default(),
                origin: None,
            },
        ];
        if self.options.backend == BackendChoice::Cuda && !self.placement.device.is_compiled() {
            let why = self.placement.note.clone().unwrap_or_else(|| {
                "the CUDA backend was requested, but no GPU is usable".to_string()
            });
            return Err(CellError::message(ErrorKind::Usage, why));
        }
        if self.placement.device.is_compiled() {
            match self
                .run_compiled(layout.as_ref(), "it", true, &name, timing, ran)
                .and_then(|r| {
                    r.value.ok_or_else(|| {
                        RunError::Cannot("the compiled path gave no value to show".to_string())
                    })
                }) {
                Ok(value) => {
                    // The interpreter evaluates `def it = …` when it next runs a cell.
                    parts.truncate(1);
                    self.pending.extend(parts);
                    self.move_to(CellEnv::After(cell), checked.after().clone());
                    let text = format_value(&value, self.options.format);
                    return Ok(Evaluated::Value(Shown { value, ty, text }));
                }
                Err(RunError::Program(msg)) => {
                    // The error came from the compiled backend: say so in the report.
                    ran.device = self.placement.device;
                    ran.location = self.location();
                    let program = self.last_program.clone().and_then(Result::ok);
                    let file_of = |path: &str| {
                        let f = futhark_db::Db::load_file(&self.db, std::path::Path::new(path))?;
                        Some((f.id(&self.db), f.text(&self.db).to_string()))
                    };
                    return Err(compiled_error(msg, program.as_deref(), id, text, &file_of));
                }
                Err(RunError::Cannot(why)) => {
                    if self.options.backend != BackendChoice::Auto {
                        return Err(CellError::message(
                            ErrorKind::Usage,
                            format!("{} cannot run this cell: {why}", self.location()),
                        ));
                    }
                    *ran = Placed {
                        device: Device::Interpreter,
                        location: "the interpreter".to_string(),
                        note: Some(format!(
                            "ran on the interpreter: {} cannot run this cell: {why}",
                            self.location()
                        )),
                        profile: None,
                    };
                    timing.compile = Duration::ZERO;
                }
            }
        }
        self.flush_pending()?;
        let value = self.run(parts, on_trace, timing)?;
        self.move_to(CellEnv::After(cell), checked.after().clone());
        // The interpreter's result becomes the resident `it` where it has a data form, so
        // a later compiled cell can use it; otherwise the compiled path forgets `it`.
        if let Some(r) = &mut self.runner {
            match (&layout, &value) {
                (Some(l), Some(v)) => match l.flatten(v) {
                    Some(vals) => r.keep("it", l.clone(), vals),
                    None => r.forget("it"),
                },
                _ => r.forget("it"),
            }
        }
        match value {
            Some(value) => {
                let text = format_value(&value, self.options.format);
                Ok(Evaluated::Value(Shown { value, ty, text }))
            }
            None => Ok(Evaluated::Nothing),
        }
    }

    /// Moves the session on to `env`, whose scope is `scope` (a cell, or its declarations,
    /// succeeded).
    fn move_to(&mut self, env: CellEnv, scope: Arc<FileScope>) {
        self.chain.advance(&self.db, env, &scope);
        self.scope = scope;
    }

    /// Runs the last expression cell's program on the compiled backend; its result stays
    /// resident as `bind`, and comes to the host only if `show`.
    fn run_compiled(
        &mut self,
        layout: Option<&Layout>,
        bind: &str,
        show: bool,
        cell: &str,
        timing: &mut Timing,
        ran: &mut Placed,
    ) -> Result<Ran, RunError> {
        let layout = layout.ok_or_else(|| {
            RunError::Cannot(
                "the compiled path keeps and shows primitives, arrays of primitives and tuples \
                 of them, not values of this cell's type"
                    .to_string(),
            )
        })?;
        self.ensure_runner().map_err(RunError::Cannot)?;
        let text = match self.last_program.clone() {
            Some(Ok(text)) => text,
            Some(Err(why)) => return Err(RunError::Cannot(why)),
            None => return Err(RunError::Cannot("the cell has no program".to_string())),
        };
        let file = self.db.set_file(CELL_PROGRAM, text.clone());
        let start = Instant::now();
        let prog = futhark_db::compile(&self.db, file, IrStage::Kernels).map_err(|e| {
            let diags = e.diagnostics(&self.db, file);
            let first = diags
                .iter()
                .find(|d| d.is_error())
                .map(|d| d.message.clone())
                .unwrap_or_else(|| e.to_string());
            RunError::Cannot(format!("it does not compile for the GPU path: {first}"))
        })?;
        let lower = start.elapsed();
        // SOACs compiled to sequential host loops: said with the result, as a fallback is,
        // at the cell's own positions.
        let slow: Vec<String> = prog
            .slow_paths
            .iter()
            .map(|p| {
                let mut p = p.clone();
                p.at = p.at.map(|a| cell_position(&a, Some(&text), cell));
                p.to_string()
            })
            .collect();
        let Some(runner) = self.runner.as_mut() else {
            return Err(RunError::Cannot(
                "the compiled backend is not open".to_string(),
            ));
        };
        let params: Vec<String> = runner
            .residents()
            .into_iter()
            .map(|r| r.0)
            .filter(|n| mentions(&self.last_exp, n))
            .collect();
        let r = runner.run(prog, &params, layout, bind, show)?;
        timing.compile = lower + r.prepare;
        timing.eval = r.run;
        *ran = Placed {
            device: runner.device(),
            location: runner.label(),
            note: (!slow.is_empty()).then(|| slow.join("\nnote: ")),
            profile: Some(Profile {
                kernels: r.kernels.clone(),
                notes: r.notes.clone(),
                lower,
                prepare: r.prepare,
                new_kernels: r.new_kernels,
                nvrtc: r.nvrtc,
                prepare_parts: r.prepare_parts,
                uploaded: r.uploaded,
                downloaded: r.downloaded,
            }),
        };
        Ok(r)
    }

    /// Evaluates on the interpreter the cells that ran compiled since it last ran one.
    fn flush_pending(&mut self) -> Result<(), CellError> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let parts = std::mem::take(&mut self.pending);
        self.worker.eval(parts).map_err(runtime_error)?;
        // Trace lines were the compiled cells' to print, not the replay's.
        let (result, _) = wait(&self.worker, &mut |_| {})?;
        result.map(drop).map_err(|e| {
            let mut e = runtime_error(e);
            e.summary = format!(
                "replaying earlier compiled cells on the interpreter failed: {}",
                e.summary
            );
            e
        })
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
        Ok(checked.general.to_string())
    }

    /// The signature of a module in scope (`:mtype`).
    pub fn module_type(&self, path: &str) -> Option<String> {
        futhark_check::module_signature(&self.scope, path.trim())
    }
}

/// The CPU reference backend as `n` devices that kernels are spread over, as on `n` GPUs.
fn open_cpu(n: usize, options: &ExecOptions) -> Result<Box<dyn Runner>, String> {
    futhark_exec::open_backend(Target::Cpu, Some(n), options, MakeRunner)
        .map_err(|e| format!("the CPU executor cannot be opened: {e}"))
}

/// Opens `n` GPUs as a compiled backend.
#[cfg(feature = "cuda")]
fn open_cuda(n: usize, options: &ExecOptions) -> Result<Box<dyn Runner>, String> {
    futhark_exec::open_backend(Target::Cuda, Some(n), options, MakeRunner)
        .map_err(|e| format!("the GPUs cannot be opened: {e}"))
}

#[cfg(not(feature = "cuda"))]
fn open_cuda(_: usize, _: &ExecOptions) -> Result<Box<dyn Runner>, String> {
    Err("this build has no CUDA support".to_string())
}

/// A compiled cell runner on whatever backend the factory opened.
struct MakeRunner;

impl UseBackend for MakeRunner {
    type Out = Box<dyn Runner>;

    fn with<B: futhark_exec::Backend + 'static>(self, backend: B, opened: &Opened) -> Self::Out {
        let (label, device) = match opened.target {
            Target::Cpu => (
                match opened.devices {
                    1 => "the CPU executor".to_string(),
                    n => format!("the CPU executor ({n} devices)"),
                },
                Device::CpuExecutor,
            ),
            Target::Cuda => {
                let device = Device::Gpus(opened.devices);
                (format!("cuda: {device} ({})", opened.name), device)
            }
        };
        Box::new(Compiled::new(backend, label, device))
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

impl Drop for Session {
    fn drop(&mut self) {
        // Stop a cell still running so the interpreter's thread can end.
        self.interrupt.store(true, Ordering::Relaxed);
    }
}
