//! Syntactic name resolution: one walk over a file's AST with lexical scopes (parameters,
//! `let`, patterns, `loop`, `match`, lambdas) and the module system (top-level and module
//! members, `open`, `import`, `local`, module types, functors), producing every definition
//! in the file and every name occurrence resolved to its definition.
//!
//! The walk is the [`file_index`] query, cached per file; other files are seen only
//! through their [`FileIndex::exports`], so editing a file re-walks it and the files that
//! import it. The same walker, run with a cursor, captures the names in scope there
//! ([`scope_at`], for completion).
//!
//! See Note [syntactic resolution]: this is not the type checker. It follows the scoping
//! rules exactly but cannot know the type of a record, so `r.f` links `r` and leaves `f`
//! as a field; the checker's resolutions can replace it later (see [`crate::types`]).

mod modules;
mod terms;

use std::path::Path;
use std::sync::Arc;

use futhark_db::{Db, File, ResolvedImport};
use futhark_syntax::Span;

use crate::TextRange;
use crate::defs::{Def, DefKind, Ns};
use crate::env::{DefId, DefLoc, Env, ModEntry};
use crate::prelude::{PRELUDE_ROOT, is_prelude_path};

/// How a name occurrence should be classified (for semantic tokens and completion).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NameClass {
    Function,
    Value,
    Local,
    Param,
    Type,
    TypeParam,
    Module,
    ModuleType,
    Operator,
    Constructor,
    Field,
    /// The path string of an `import`.
    File,
}

impl NameClass {
    pub(crate) fn of_def(kind: DefKind) -> NameClass {
        match kind {
            DefKind::Function | DefKind::LocalFunction | DefKind::Entry => NameClass::Function,
            DefKind::Value => NameClass::Value,
            DefKind::Local => NameClass::Local,
            DefKind::Param => NameClass::Param,
            DefKind::Type => NameClass::Type,
            DefKind::TypeParam | DefKind::SizeParam => NameClass::TypeParam,
            DefKind::Module | DefKind::Functor | DefKind::ModuleParam => NameClass::Module,
            DefKind::ModuleType => NameClass::ModuleType,
        }
    }
}

/// What an occurrence refers to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    Def(DefLoc),
    /// A built-in with no source: a primitive type, an overloaded operator, `intrinsics`.
    Builtin,
    /// An imported file (the occurrence is the path string of an `import`).
    File(File),
    /// Nothing in scope has this name (the checker will report it).
    Unresolved,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    Definition,
    Reference,
}

/// One name in the file, resolved.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Occurrence {
    /// The name itself (for `M.x`, just `x`; the `M` is an occurrence of its own).
    pub span: Span,
    pub target: Target,
    pub class: NameClass,
    pub role: Role,
    /// A record pun (`{x}` in an expression or pattern): the name is both a field and a
    /// variable, so renaming the variable must write `x = new`.
    pub pun: bool,
}

/// Everything name resolution knows about one file.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct FileIndex {
    pub defs: Vec<Def>,
    /// Sorted by start offset.
    pub occurrences: Vec<Occurrence>,
    /// What the file exports to importers (top-level, non-`local` names).
    pub exports: Arc<Env>,
}

impl FileIndex {
    pub fn def(&self, id: DefId) -> Option<&Def> {
        self.defs.get(id.0 as usize)
    }

    /// The name at `offset`: one containing it, or else one ending exactly there (the
    /// cursor just after a name).
    pub fn occurrence_at(&self, offset: u32) -> Option<&Occurrence> {
        let after = self.occurrences.partition_point(|o| o.span.start <= offset);
        let candidates = &self.occurrences[after.saturating_sub(4)..after];
        let inside = candidates
            .iter()
            .rev()
            .filter(|o| o.span.start <= offset && offset < o.span.end)
            .min_by_key(|o| (o.span.len(), o.class == NameClass::Field));
        inside.or_else(|| {
            candidates
                .iter()
                .rev()
                .find(|o| o.span.end == offset && !o.span.is_empty())
        })
    }

    /// Every occurrence referring to `target`, in source order.
    pub fn occurrences_of(&self, target: DefLoc) -> impl Iterator<Item = &Occurrence> {
        self.occurrences
            .iter()
            .filter(move |o| o.target == Target::Def(target))
    }
}

/// Resolves every name in `file`. Cached per file; depends on the file's parse, its
/// imports, and the exports of the files it imports (and of the prelude), so an edit that
/// does not change a file's exports does not re-walk its importers' dependents.
#[salsa::tracked(returns(ref))]
pub fn file_index(db: &dyn Db, file: File) -> FileIndex {
    let mut walker = Walker::new(db, file, None);
    walker.run();
    walker.finish()
}

/// The definition a location points to.
pub(crate) fn def_at(db: &dyn Db, loc: DefLoc) -> Option<&Def> {
    file_index(db, loc.file).def(loc.id)
}

/// The names visible at one point, innermost first.
#[derive(Clone, Debug, Default)]
pub(crate) struct ScopeAt {
    pub layers: Vec<Layer>,
    /// The file walked, and the definitions of that walk: it skipped the bodies that do
    /// not contain the cursor, so its ids of the file's own definitions are not those of
    /// [`file_index`] (see [`ScopeAt::def`]).
    file: Option<File>,
    own_defs: Vec<Def>,
}

#[derive(Clone, Debug)]
pub(crate) enum Layer {
    /// Local bindings, innermost first.
    Locals(Vec<(String, DefLoc)>),
    Env(Arc<Env>),
}

impl ScopeAt {
    /// The definition a location in this scope refers to.
    pub(crate) fn def<'a>(&'a self, db: &'a dyn Db, loc: DefLoc) -> Option<&'a Def> {
        if Some(loc.file) == self.file {
            self.own_defs.get(loc.id.0 as usize)
        } else {
            def_at(db, loc)
        }
    }

    /// Resolves a module path (`M`, `M.N`) as seen from here.
    pub(crate) fn module(&self, path: &[&str]) -> Option<Arc<Env>> {
        let (first, rest) = path.split_first()?;
        let mut env = self.layers.iter().find_map(|layer| match layer {
            Layer::Env(env) => env.mods.get(*first).map(|m| m.env.clone()),
            Layer::Locals(_) => None,
        })?;
        for name in rest {
            env = env.mods.get(*name)?.env.clone();
        }
        Some(env)
    }
}

/// The names in scope at `offset` in `file` (a fresh walk that skips the bodies of
/// declarations not containing the cursor).
pub(crate) fn scope_at(db: &dyn Db, file: File, offset: u32) -> ScopeAt {
    let mut walker = Walker::new(db, file, Some(offset));
    walker.run();
    let mut scope = walker.captured.map(|(_, s)| s).unwrap_or_default();
    scope.file = Some(file);
    scope.own_defs = walker.defs;
    scope
}

/// How deep the walk descends; the parser bounds nesting well below this, so it only
/// guards against stack exhaustion if that bound ever grows.
const MAX_WALK_DEPTH: u32 = 1000;

/// The primitive types, which are built in rather than defined by the prelude.
pub(crate) const PRIM_TYPES: [&str; 12] = [
    "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f16", "f32", "f64", "bool",
];

struct LocalBinding {
    name: String,
    loc: DefLoc,
}

/// One module level: names visible at this level (own declarations plus opened modules)
/// and the names it exports.
#[derive(Default)]
struct Level {
    scope: Env,
    exports: Env,
}

pub(crate) struct Walker<'db> {
    db: &'db dyn Db,
    file: File,
    text: &'db str,
    imports: &'db [ResolvedImport],
    defs: Vec<Def>,
    occs: Vec<Occurrence>,
    /// Local bindings of the value and type namespaces, outermost first.
    locals: Vec<LocalBinding>,
    /// Modules opened inside expressions (`M.(e)`), with the `locals` length at the time.
    opened: Vec<(usize, Arc<Env>)>,
    levels: Vec<Level>,
    /// The implicit prelude (empty for the prelude's own files).
    prelude: Arc<Env>,
    /// Enclosing module and module-type definitions.
    containers: Vec<DefId>,
    /// The cursor whose scope we are capturing, if any.
    cursor: Option<u32>,
    /// The best capture so far: the length of the region it came from, and the scope.
    captured: Option<(u32, ScopeAt)>,
    depth: u32,
}

impl<'db> Walker<'db> {
    fn new(db: &'db dyn Db, file: File, cursor: Option<u32>) -> Walker<'db> {
        let prelude = if is_prelude_path(file.path(db)) {
            Arc::default()
        } else {
            match db.load_file(Path::new(PRELUDE_ROOT)) {
                Some(p) if p != file => file_index(db, p).exports.clone(),
                _ => Arc::default(),
            }
        };
        Walker {
            db,
            file,
            text: file.text(db),
            imports: futhark_db::imports(db, file),
            defs: Vec::new(),
            occs: Vec::new(),
            locals: Vec::new(),
            opened: Vec::new(),
            levels: Vec::new(),
            prelude,
            containers: Vec::new(),
            cursor,
            captured: None,
            depth: 0,
        }
    }

    fn run(&mut self) {
        let parsed = futhark_db::parse(self.db, self.file);
        self.levels.push(Level::default());
        let whole = TextRange::new(0, u32::MAX);
        self.decs(&parsed.file.decs, whole);
    }

    fn finish(mut self) -> FileIndex {
        let exports = self.levels.pop().map(|l| l.exports).unwrap_or_default();
        self.occs.sort_by_key(|o| (o.span.start, o.span.end));
        FileIndex {
            defs: self.defs,
            occurrences: self.occs,
            exports: Arc::new(exports),
        }
    }

    // -----------------------------------------------------------------------------------
    // Definitions and occurrences

    fn new_def(&mut self, def: Def) -> DefLoc {
        let id = DefId(self.defs.len() as u32);
        let loc = DefLoc {
            file: self.file,
            id,
            kind: def.kind,
        };
        self.occs.push(Occurrence {
            span: def.name_span,
            target: Target::Def(loc),
            class: NameClass::of_def(def.kind),
            role: Role::Definition,
            pun: false,
        });
        self.defs.push(def);
        loc
    }

    /// A definition with the common fields filled in.
    fn def(&self, name: &str, kind: DefKind, name_span: Span, full_span: Span) -> Def {
        Def {
            name: name.to_string(),
            kind,
            name_span,
            full_span,
            signature: String::new(),
            params: Vec::new(),
            doc: None,
            container: self.containers.last().copied(),
            is_spec: false,
            spec: None,
            members: None,
        }
    }

    fn reference(&mut self, span: Span, target: Target, class: NameClass) {
        self.occs.push(Occurrence {
            span,
            target,
            class,
            role: Role::Reference,
            pun: false,
        });
    }

    fn reference_def(&mut self, span: Span, found: Option<DefLoc>, fallback: NameClass) {
        match found {
            Some(loc) => self.reference(span, Target::Def(loc), NameClass::of_def(loc.kind)),
            None => self.reference(span, Target::Unresolved, fallback),
        }
    }

    // -----------------------------------------------------------------------------------
    // Binding

    fn mark(&self) -> (usize, usize) {
        (self.locals.len(), self.opened.len())
    }

    fn reset(&mut self, mark: (usize, usize)) {
        self.locals.truncate(mark.0);
        self.opened.truncate(mark.1);
    }

    fn bind_local(&mut self, name: &str, loc: DefLoc) {
        self.locals.push(LocalBinding {
            name: name.to_string(),
            loc,
        });
    }

    /// Binds a module-level name in the innermost level (and exports it unless `local`).
    fn bind_level(&mut self, ns: Ns, name: &str, loc: DefLoc, local: bool) {
        let Some(level) = self.levels.last_mut() else {
            return;
        };
        let envs: &mut [&mut Env] = if local {
            &mut [&mut level.scope]
        } else {
            &mut [&mut level.scope, &mut level.exports]
        };
        for env in envs.iter_mut() {
            match ns {
                Ns::Val => {
                    env.vals.insert(name.to_string(), loc);
                }
                Ns::Type => {
                    env.types.insert(name.to_string(), loc);
                }
                Ns::Mod | Ns::ModType => {}
            }
        }
    }

    fn bind_level_module(&mut self, ns: Ns, name: &str, entry: ModEntry, local: bool) {
        let Some(level) = self.levels.last_mut() else {
            return;
        };
        let map = |env: &mut Env| match ns {
            Ns::ModType => {
                env.mtys.insert(name.to_string(), entry.clone());
            }
            _ => {
                env.mods.insert(name.to_string(), entry.clone());
            }
        };
        map(&mut level.scope);
        if !local {
            map(&mut level.exports);
        }
    }

    fn open_in_level(&mut self, env: &Env, local: bool) {
        if let Some(level) = self.levels.last_mut() {
            level.scope.extend(env);
            if !local {
                level.exports.extend(env);
            }
        }
    }

    // -----------------------------------------------------------------------------------
    // Look-up

    /// Looks `name` up through locals (and modules opened inside expressions), then the
    /// module levels from the innermost out, then the prelude.
    fn lookup<T>(
        &self,
        name: &str,
        ns: Ns,
        in_env: impl Fn(&Env) -> Option<T>,
        of_local: impl Fn(DefLoc) -> T,
    ) -> Option<T> {
        let mut top = self.locals.len();
        let local = |from: usize, to: usize| {
            self.locals[from..to]
                .iter()
                .rev()
                .find(|l| l.name == name && l.loc.kind.namespace() == ns)
                .map(|l| of_local(l.loc))
        };
        for (mark, env) in self.opened.iter().rev() {
            if let Some(found) = local(*mark, top) {
                return Some(found);
            }
            if let Some(found) = in_env(env) {
                return Some(found);
            }
            top = *mark;
        }
        if let Some(found) = local(0, top) {
            return Some(found);
        }
        self.levels
            .iter()
            .rev()
            .find_map(|level| in_env(&level.scope))
            .or_else(|| in_env(&self.prelude))
    }

    fn lookup_val(&self, name: &str) -> Option<DefLoc> {
        self.lookup(name, Ns::Val, |env| env.vals.get(name).copied(), |l| l)
    }

    fn lookup_type(&self, name: &str) -> Option<DefLoc> {
        self.lookup(name, Ns::Type, |env| env.types.get(name).copied(), |l| l)
    }

    fn lookup_mod(&self, name: &str) -> Option<ModEntry> {
        self.lookup(
            name,
            Ns::Mod,
            |env| env.mods.get(name).cloned(),
            module_of_local,
        )
    }

    fn lookup_mty(&self, name: &str) -> Option<ModEntry> {
        self.lookup(
            name,
            Ns::ModType,
            |env| env.mtys.get(name).cloned(),
            module_of_local,
        )
    }

    /// A local value binding (not a module-level one) named `name`.
    fn local_val(&self, name: &str) -> Option<DefLoc> {
        self.locals
            .iter()
            .rev()
            .find(|l| l.name == name && l.loc.kind.namespace() == Ns::Val)
            .map(|l| l.loc)
    }

    // -----------------------------------------------------------------------------------
    // Capturing the scope at a cursor (completion)

    /// Records the current scope if `region` contains the cursor and is no larger than
    /// the region of the best capture so far (inner regions win; among equals, the later).
    fn capture(&mut self, region: TextRange) {
        let Some(cursor) = self.cursor else {
            return;
        };
        if !self.reaches(region, cursor) {
            return;
        }
        let len = region.end.saturating_sub(region.start);
        if self.captured.as_ref().is_some_and(|(best, _)| len > *best) {
            return;
        }
        let snapshot = self.snapshot();
        self.captured = Some((len, snapshot));
    }

    /// True if `region` contains the cursor, or ends before it with only spaces between
    /// (`f x |`), unless the cursor starts a line (then it begins something new).
    fn reaches(&self, region: TextRange, cursor: u32) -> bool {
        if region.touches(cursor) {
            return true;
        }
        let (start, end) = (region.start as usize, region.end as usize);
        let cursor = cursor as usize;
        let bytes = self.text.as_bytes();
        let at_line_start = cursor == 0 || bytes.get(cursor - 1) == Some(&b'\n');
        start <= cursor
            && end < cursor
            && !at_line_start
            && bytes
                .get(end..cursor)
                .is_some_and(|gap| gap.iter().all(u8::is_ascii_whitespace))
    }

    fn snapshot(&self) -> ScopeAt {
        let mut layers = Vec::new();
        let chunk = |from: usize, to: usize| -> Vec<(String, DefLoc)> {
            self.locals[from..to]
                .iter()
                .rev()
                .map(|l| (l.name.clone(), l.loc))
                .collect()
        };
        let mut top = self.locals.len();
        for (mark, env) in self.opened.iter().rev() {
            layers.push(Layer::Locals(chunk(*mark, top)));
            layers.push(Layer::Env(env.clone()));
            top = *mark;
        }
        layers.push(Layer::Locals(chunk(0, top)));
        for level in self.levels.iter().rev() {
            layers.push(Layer::Env(Arc::new(level.scope.clone())));
        }
        layers.push(Layer::Env(self.prelude.clone()));
        ScopeAt {
            layers,
            ..ScopeAt::default()
        }
    }

    /// True when capturing and `span` cannot contain the cursor, so a declaration's body
    /// need not be walked.
    fn skippable(&self, span: Span) -> bool {
        self.cursor.is_some_and(|c| !self.reaches(span.into(), c))
    }

    // -----------------------------------------------------------------------------------
    // Imports

    /// The exports of the file an `import` string names (empty if it does not resolve or
    /// closes an import cycle), recording the string as an occurrence of the file.
    fn import_env(&mut self, lit: &futhark_syntax::ast::StrLit) -> Arc<Env> {
        let target = self
            .imports
            .iter()
            .find(|i| i.span == lit.span)
            .and_then(|i| i.target);
        let Some(target) = target else {
            return Arc::default();
        };
        self.reference(lit.span, Target::File(target), NameClass::File);
        let cyclic = target == self.file
            || futhark_db::import_graph(self.db, target)
                .order
                .contains(&self.file);
        if cyclic {
            return Arc::default();
        }
        file_index(self.db, target).exports.clone()
    }
}

/// Module parameters are bound in module levels, never as locals, so no local is found in
/// the module namespaces; this only gives `lookup` the shape of its answer.
fn module_of_local(loc: DefLoc) -> ModEntry {
    ModEntry {
        def: Some(loc),
        env: Arc::default(),
    }
}

// Note [syntactic resolution]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~
// Futhark resolves `a.b.c` by scope: the longest prefix naming a module path is the path
// and the rest are record fields. A local variable shadows a module of the same name
// (terms and modules share a namespace), so `x.f` with a local `x` is a projection even if
// a module `x` exists. Top-level declarations see only earlier ones, except that a
// function may call itself; local functions are not recursive. `let a[i] = v` updates an
// existing variable rather than binding a new one, so later uses of `a` resolve to the
// original binding (renaming it renames them all). Modules sealed by a module type expose
// the names of the module type, resolved to the module body's definitions (so navigation
// lands on the implementation) with the spec's doc comment as a fallback for hover.
