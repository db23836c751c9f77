//! REPL and notebook cells as a tracked query: [`check_cell`] checks one cell (its text, a
//! [`File`]) against the environment an earlier cell, a loaded program or the prelude left
//! ([`CellEnv`]), so each cell is parsed and checked once, and a chain of cells that did not
//! change is not checked again.
//!
//! A cell is declarations, an expression, or declarations followed by an expression on a
//! line of its own at column 0 ([`split_cell`]: notebooks invite `def sq (x: i32) = x * x`
//! then `sq 3`). An expression's value is bound to `it` (`futhark_check::check_exp_cell`).
//! What a session keeps of a cell depends on how running it goes, so the environment a
//! cell leaves is either [`CellEnv::Declared`] (its declarations only) or
//! [`CellEnv::After`] (its declarations and `it`).
//!
//! A long session must not make a long chain: verifying a query after an edit walks its
//! dependencies recursively, and each cell's result holds a scope. So [`CellChain`] (the
//! environment a session stands in) starts again from a [`Snapshot`] of the scope every
//! [`CHAIN_LINKS`] cells, and the database keeps only the last [`CELLS_KEPT`] cells'
//! results ([`Database::trim_cells`](crate::Database::trim_cells)).

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use futhark_check::{CheckedExpCell, CheckedFile, FileScope};
use futhark_syntax::ast::{Dec, Exp};
use futhark_syntax::{Diagnostic, FileId};

use crate::files::{Db, File};
use crate::{check, check_context, imports};

/// The name an expression cell binds its value to.
pub const IT: &str = "it";

/// One evaluation of a cell: its text and the environment it is checked in. A session makes
/// one per cell it evaluates; the environment names the cell before it.
#[salsa::input(debug)]
pub struct Cell {
    /// The cell's text, as a database file (named `[N]` by the session).
    #[returns(copy)]
    pub file: File,
    #[returns(copy)]
    pub env: CellEnv,
}

/// Where the names a cell sees come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CellEnv {
    /// The prelude alone: a session with nothing loaded.
    Prelude,
    /// A loaded program: everything its root file sees, `local` names included.
    Loaded(File),
    /// An earlier cell's declarations (its expression, if any, did not count).
    Declared(Cell),
    /// An earlier cell as a whole: its declarations and, for an expression, `it`.
    After(Cell),
    /// A scope taken from earlier cells ([`CellChain`]).
    Snapshot(Snapshot),
}

/// A scope that earlier cells left, as an input: where a long chain of cells starts again.
#[salsa::input]
pub struct Snapshot {
    #[returns(ref)]
    pub scope: Arc<FileScope>,
}

/// Its id only: the scope is large.
impl std::fmt::Debug for Snapshot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use salsa::plumbing::AsId;
        write!(f, "Snapshot({:?})", self.as_id())
    }
}

/// How many cells a chain links before it starts again from a [`Snapshot`].
pub const CHAIN_LINKS: usize = 32;

/// The environment a session's next cell is checked in, moving on as cells succeed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CellChain {
    env: CellEnv,
    /// Cells linked since the chain last started.
    links: usize,
}

impl CellChain {
    /// A chain starting at `env` (the prelude or a loaded program).
    pub fn new(env: CellEnv) -> CellChain {
        CellChain { env, links: 0 }
    }

    /// Where the next cell's names come from.
    pub fn env(&self) -> CellEnv {
        self.env
    }

    /// Moves on to `env` (a cell's [`CellEnv::Declared`] or [`CellEnv::After`]), whose
    /// scope is `scope`; every [`CHAIN_LINKS`] cells, to a snapshot of `scope` instead.
    pub fn advance(&mut self, db: &dyn Db, env: CellEnv, scope: &Arc<FileScope>) {
        self.links += 1;
        if self.links >= CHAIN_LINKS {
            self.env = CellEnv::Snapshot(Snapshot::new(db, scope.clone()));
            self.links = 0;
        } else {
            self.env = env;
        }
    }
}

/// A cell, parsed and checked. Compared by identity (see [`CellCheck`]).
#[derive(Clone, Debug)]
pub struct CheckedCell {
    /// Syntax errors; when there are any, nothing was checked.
    pub syntax: Vec<Diagnostic>,
    /// The declarations (maybe none).
    pub decs: Vec<Dec>,
    /// Where the cell's expression starts (the text's length when there is none): the
    /// declarations are the text before it.
    pub exp_at: usize,
    /// The expression, if the cell has one.
    pub exp: Option<Exp>,
    /// For a split cell, the text with the declarations blanked (newlines kept), so that
    /// the expression keeps its offsets.
    pub exp_text: Option<String>,
    /// The scope the cell was checked in.
    pub before: Arc<FileScope>,
    /// The declarations checked (`None` without declarations or with syntax errors); their
    /// `scope` is what the cell sees after them.
    pub decls: Option<CheckedFile>,
    /// The expression checked in the scope after the declarations (`None` without an
    /// expression, or when the declarations have errors).
    pub checked_exp: Option<CheckedExpCell>,
}

impl CheckedCell {
    /// The scope after the declarations ([`CellEnv::Declared`]).
    pub fn declared(&self) -> &Arc<FileScope> {
        self.decls.as_ref().map_or(&self.before, |d| &d.scope)
    }

    /// The scope after the whole cell ([`CellEnv::After`]): `it` bound where the
    /// expression's value could be.
    pub fn after(&self) -> &Arc<FileScope> {
        self.checked_exp
            .as_ref()
            .and_then(|e| e.bound.as_ref())
            .unwrap_or_else(|| self.declared())
    }
}

/// The result of [`check_cell`], shared. Compared by identity: a re-check counts as a
/// change, so later cells are checked again (conservative, never stale).
#[derive(Clone, Debug)]
pub struct CellCheck(pub Arc<CheckedCell>);

impl PartialEq for CellCheck {
    fn eq(&self, other: &CellCheck) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for CellCheck {}

/// How many cells' results the database keeps ([`check_cell`]'s LRU capacity). Each holds
/// a scope (tens of KB), so a long session keeps only the recent ones once it calls
/// [`Database::trim_cells`](crate::Database::trim_cells); a session only asks for the
/// cell its environment names, which every new cell touches, so that one stays. A dropped
/// result is checked again if asked for (after the cells before it, up to the chain's
/// start).
pub const CELLS_KEPT: usize = 16;

/// Parses and checks a cell in its environment: the declarations first, then the expression
/// in the scope they leave. Reads the cell's text, the environment's cell (or loaded
/// program) and the files the cell imports, nothing else.
// `lru` takes a literal: keep it equal to `CELLS_KEPT` (the `cells` tests check that the
// kept cells come back without a check).
#[salsa::tracked(lru = 16)]
pub fn check_cell(db: &dyn Db, cell: Cell) -> CellCheck {
    let file = cell.file(db);
    let id = file.id(db);
    let text = file.text(db);
    let before = env_scope(db, cell.env(db));
    let parsed = parse_cell(id, text);
    let split = parsed
        .errors
        .is_empty()
        .then(|| split_cell(id, text))
        .flatten();
    let (decs, exp, exp_text, exp_at) = match split {
        Some(sc) => (sc.decs, Some(sc.exp), Some(sc.exp_text), sc.at),
        None => (parsed.decs, parsed.exp, None, text.len()),
    };
    let mut out = CheckedCell {
        syntax: parsed.errors,
        decs,
        exp_at,
        exp,
        exp_text,
        before,
        decls: None,
        checked_exp: None,
    };
    if !out.syntax.is_empty() {
        return CellCheck(Arc::new(out));
    }
    let ctx = check_context();
    if !out.decs.is_empty() {
        // Only a cell that imports something needs the database's view of its imports
        // (which parses the text as a file).
        let scopes = if text.contains("import") {
            import_scopes(db, file)
        } else {
            HashMap::new()
        };
        let lookup = |p: &str| scopes.get(p).cloned();
        let checked =
            futhark_check::check_decs_incremental(ctx, &out.before, id, &out.decs, &lookup);
        let failed = checked.diagnostics.iter().any(Diagnostic::is_error);
        out.decls = Some(checked);
        if failed {
            return CellCheck(Arc::new(out));
        }
    }
    if let Some(exp) = &out.exp {
        let checked = futhark_check::check_exp_cell(ctx, out.declared(), id, exp, IT);
        out.checked_exp = Some(checked);
    }
    CellCheck(Arc::new(out))
}

/// The scope a cell in `env` starts from.
pub fn env_scope(db: &dyn Db, env: CellEnv) -> Arc<FileScope> {
    match env {
        CellEnv::Prelude => prelude_scope(),
        CellEnv::Loaded(file) => check(db, file).0.visible.clone(),
        CellEnv::Declared(cell) => check_cell(db, cell).0.declared().clone(),
        CellEnv::After(cell) => check_cell(db, cell).0.after().clone(),
        CellEnv::Snapshot(snapshot) => snapshot.scope(db).clone(),
    }
}

/// The scope of a session with nothing loaded: the checker's initial scope (intrinsics and
/// prelude), built once per process.
pub fn prelude_scope() -> Arc<FileScope> {
    static SCOPE: OnceLock<Arc<FileScope>> = OnceLock::new();
    SCOPE
        .get_or_init(|| Arc::new(check_context().initial_scope()))
        .clone()
}

/// The scopes of the files `file` imports, by the path as written.
fn import_scopes(db: &dyn Db, file: File) -> HashMap<String, Arc<FileScope>> {
    let mut out = HashMap::new();
    for dep in imports(db, file) {
        if let Some(target) = dep.target {
            out.insert(dep.written.clone(), check(db, target).0.scope.clone());
        }
    }
    out
}

/// Parses a cell. `futhark_syntax::parse_cell` reads a cell that starts with an attribute
/// as declarations; an attributed expression (`#[trace] e`) is tried as an expression when
/// that fails.
pub fn parse_cell(id: FileId, text: &str) -> futhark_syntax::Cell {
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

/// A cell of declarations followed by an expression on a line of its own at column 0, as
/// notebooks invite (`def sq (x: i32) = x * x` then `sq 3`); Futhark's grammar alone would
/// read the expression as part of the last definition's body (`x * x sq 3`).
pub struct SplitCell {
    /// Where the expression's line starts.
    pub at: usize,
    pub decs: Vec<Dec>,
    pub exp: Exp,
    /// The cell's text with the declarations blanked (newlines kept), so the expression
    /// keeps its offsets.
    pub exp_text: String,
}

/// Words that start a declaration (a line starting with one is no expression).
const DEC_WORDS: [&str; 9] = [
    "def", "let", "type", "module", "open", "import", "local", "entry", "include",
];

/// Splits a cell into declarations and a final expression (see [`SplitCell`]); `None` when
/// the cell is not of that form.
pub fn split_cell(id: FileId, text: &str) -> Option<SplitCell> {
    let starts = text
        .match_indices('\n')
        .map(|(i, _)| i + 1)
        // Room for the `def it = ` the expression is evaluated as.
        .filter(|&i| i > "def it = ".len() && i < text.len());
    for at in starts {
        let line = &text[at..];
        let first = line.chars().next()?;
        let word: String = line
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if first.is_whitespace() || line.starts_with("--") || DEC_WORDS.contains(&word.as_str()) {
            continue;
        }
        let head = futhark_syntax::parse_cell(id, &text[..at]);
        if !head.errors.is_empty() || head.decs.is_empty() || head.exp.is_some() {
            continue;
        }
        let exp_text: String = text[..at]
            .chars()
            .map(|c| if c == '\n' { c } else { ' ' })
            .chain(line.chars())
            .collect();
        if let (Some(exp), errors) = futhark_syntax::parse_exp(id, &exp_text)
            && errors.is_empty()
        {
            return Some(SplitCell {
                at,
                decs: head.decs,
                exp,
                exp_text,
            });
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declarations_then_an_expression_line() {
        let id = FileId(7);
        let text = "def sq (x: i32) = x * x\nsq 3";
        let split = split_cell(id, text).expect("splits");
        assert_eq!(split.at, 24);
        assert_eq!(split.decs.len(), 1);
        assert_eq!(&split.exp_text[24..], "sq 3");
        assert_eq!(split.exp.span.start, 24);
        // Indented continuations, lone declarations and lone expressions do not split.
        assert!(split_cell(id, "def f (x: i32) =\n  x + 1").is_none());
        assert!(split_cell(id, "def a = 1\ndef b = 2").is_none());
        assert!(split_cell(id, "1 +\n2").is_none());
    }
}
