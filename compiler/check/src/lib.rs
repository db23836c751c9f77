//! Type checker for Futhark: imports, modules, name resolution, type inference with sizes,
//! uniqueness, and the embedded prelude.
//!
//! Everything here is a pure function of its inputs: files arrive as parsed ASTs and imports
//! are resolved by the caller, who checks imported files first and hands their exported
//! scopes to [`check_file`] through a closure.
//!
//! - [`CheckContext::new`] loads the prelude once; every user file implicitly opens it.
//! - [`check_file`] checks a file and returns what it exports, the side tables
//!   ([`TypeInfo`]) and diagnostics.
//! - [`check_file_cached`] does the same after an edit, replaying the top-level
//!   declarations the edit did not touch (same result, less work).
//! - [`check_exp`], [`check_exp_cell`] and [`check_decs_incremental`] serve a REPL: they
//!   type an expression (and bind a cell's value to `it`) or a cell of declarations in a
//!   scope built from earlier cells.

mod causality;
mod checker;
pub mod env;
mod incremental;
pub mod info;
pub mod intrinsics;
mod modmatch;
mod modules;
pub mod prelude;
pub mod pretty;
pub mod render;
mod sigprint;
mod sigs;
mod terms;
mod typeexp;
pub mod types;
pub mod unify;
mod uniqueness;
mod valbind;

use std::sync::Arc;

use futhark_syntax::ast::{Dec, Exp, SourceFile};
use futhark_syntax::{Diagnostic, FileId};

pub use env::{Env, FileScope};
pub use incremental::{FileCache, check_file_cached};
pub use info::{DefInfo, DefKind, DefRef, EntryInfo, EntryParam, TypeInfo};
pub use prelude::PreludeFile;
pub use sigprint::{print_env, print_mod};
pub use types::{PrimType, RetType, Size, TParam, Type, VName};

use checker::Checker;
use intrinsics::Intrinsics;

/// The checker's fixed context: the intrinsics and the checked prelude.
pub struct CheckContext {
    intrinsics: Intrinsics,
    prelude_files: Vec<PreludeFile>,
    prelude_env: Env,
    prelude_diagnostics: Vec<Diagnostic>,
    prelude_info: TypeInfo,
    prelude_asts: Vec<(PreludeFile, Arc<SourceFile>)>,
    /// The intrinsics plus the prelude, built once: every file starts from a copy.
    initial: Env,
}

impl Default for CheckContext {
    fn default() -> Self {
        CheckContext::new()
    }
}

impl CheckContext {
    /// Parses and checks the embedded prelude.
    pub fn new() -> CheckContext {
        let intrinsics = intrinsics::build();
        let files = prelude::prelude_files();
        let loaded = prelude::load(&intrinsics, &files);
        let mut initial = intrinsics.env.clone();
        initial.extend(&loaded.env);
        CheckContext {
            initial,
            intrinsics,
            prelude_files: files,
            prelude_env: loaded.env,
            prelude_diagnostics: loaded.diagnostics,
            prelude_info: loaded.info,
            prelude_asts: loaded.asts,
        }
    }

    /// The embedded prelude sources with their virtual paths and file ids.
    pub fn prelude_files(&self) -> &[PreludeFile] {
        &self.prelude_files
    }

    /// The prelude's files with their parsed trees (parsed once, when the context is built).
    pub fn prelude_asts(&self) -> &[(PreludeFile, Arc<SourceFile>)] {
        &self.prelude_asts
    }

    /// Diagnostics from checking the prelude itself (empty when the prelude is healthy).
    pub fn prelude_diagnostics(&self) -> &[Diagnostic] {
        &self.prelude_diagnostics
    }

    /// Types and resolutions inside the prelude (for goto-definition into it).
    pub fn prelude_info(&self) -> &TypeInfo {
        &self.prelude_info
    }

    /// What the prelude exports.
    pub fn prelude_env(&self) -> &Env {
        &self.prelude_env
    }

    /// The scope a user file starts with: the initial environment plus the prelude. A REPL
    /// starts from this.
    pub fn initial_scope(&self) -> FileScope {
        FileScope {
            env: self.initial.clone(),
        }
    }
}

/// The result of checking a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckedFile {
    /// What the file exports to importers (for [`check_decs_incremental`]: everything in
    /// scope after the cell).
    pub scope: Arc<FileScope>,
    /// Everything in scope at the end of the file, `local` names included: what a REPL
    /// that loaded the file sees (the same as `scope` for a cell).
    pub visible: Arc<FileScope>,
    pub info: TypeInfo,
    pub diagnostics: Vec<Diagnostic>,
}

/// Checks a file. `imports` maps an import path as written (`"lib/foo"`, `"../bar"`) to the
/// scope exported by that file, already checked by the caller (`None`: missing, already
/// reported by the caller).
pub fn check_file(
    ctx: &CheckContext,
    file: FileId,
    ast: &SourceFile,
    imports: &dyn Fn(&str) -> Option<Arc<FileScope>>,
) -> CheckedFile {
    let env = ctx.initial_scope().env;
    let mut c = Checker::new(&ctx.intrinsics, file, env, imports);
    c.defined.push(Default::default());
    c.check_top_decs(&ast.decs, None, None);
    CheckedFile {
        scope: Arc::new(FileScope { env: c.exports }),
        visible: Arc::new(FileScope { env: c.env }),
        info: c.info,
        diagnostics: c.diags,
    }
}

/// Checks a cell of declarations in a scope built from earlier cells. The returned scope is
/// everything visible afterwards (earlier names plus the new ones, shadowing).
pub fn check_decs_incremental(
    ctx: &CheckContext,
    scope: &FileScope,
    file: FileId,
    decs: &[Dec],
    imports: &dyn Fn(&str) -> Option<Arc<FileScope>>,
) -> CheckedFile {
    let mut c = Checker::new(&ctx.intrinsics, file, scope.env.clone(), imports);
    // Each cell may redefine names of earlier cells.
    c.defined.push(Default::default());
    c.check_decs(decs);
    let scope = Arc::new(FileScope { env: c.env });
    CheckedFile {
        visible: scope.clone(),
        scope,
        info: c.info,
        diagnostics: c.diags,
    }
}

/// The result of typing an expression in a scope.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckedExp {
    pub ty: Type,
    /// The type as a REPL's `:type` shows it: sizes nothing pins down stay generic
    /// (`[n]i32 -> *[n]i32` for `map (+1)`) instead of defaulting to 0 as in `ty`.
    pub general: Type,
    pub info: TypeInfo,
    pub diagnostics: Vec<Diagnostic>,
}

/// Types an expression (for the REPL) in a scope built from earlier cells.
pub fn check_exp(ctx: &CheckContext, scope: &FileScope, file: FileId, exp: &Exp) -> CheckedExp {
    let no_imports = |_: &str| None;
    let mut c = Checker::new(&ctx.intrinsics, file, scope.env.clone(), &no_imports);
    c.begin_def();
    let t = c.check_exp(exp);
    c.apply_defaults();
    let general = general_sizes(&c, &t);
    c.finish_def(None);
    c.uniqueness_check_exp(exp);
    let ty = c.uni.zonk(&t);
    CheckedExp {
        ty,
        general,
        info: c.info,
        diagnostics: c.diags,
    }
}

/// An expression cell, checked once ([`check_exp_cell`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckedExpCell {
    /// The expression as [`check_exp`] types it.
    pub exp: CheckedExp,
    /// The scope with the cell's name bound to the expression's value, as after
    /// `def it = <exp>`; `None` when the expression has errors or its type cannot be
    /// generalised (the value can still be shown).
    pub bound: Option<Arc<FileScope>>,
}

/// Types an expression cell and binds its value to `name` (a REPL's `it`) in one pass:
/// the expression's type, side tables and diagnostics are [`check_exp`]'s, and the binding
/// is the one `def name = <exp>` checked in the same scope makes (its type generalised),
/// declared at the empty span `at` (the expression's start). The expression is checked
/// once.
pub fn check_exp_cell(
    ctx: &CheckContext,
    scope: &FileScope,
    file: FileId,
    exp: &Exp,
    name: &str,
) -> CheckedExpCell {
    let no_imports = |_: &str| None;
    let mut c = Checker::new(&ctx.intrinsics, file, scope.env.clone(), &no_imports);
    c.begin_def();
    let t = c.check_exp(exp);
    c.apply_defaults();
    let general = general_sizes(&c, &t);
    let before_finish = c.uni.clone();
    c.finish_def(None);
    c.uniqueness_check_exp(exp);
    let ty = c.uni.zonk(&t);
    let diagnostics = std::mem::take(&mut c.diags);
    let info = std::mem::take(&mut c.info);
    let at = futhark_syntax::Span::new(file, exp.span.start, exp.span.start);
    let bound = (!diagnostics.iter().any(Diagnostic::is_error)
        && c.bind_checked_exp(name, at, &t, before_finish))
    .then(|| Arc::new(FileScope { env: c.env }));
    CheckedExpCell {
        exp: CheckedExp {
            ty,
            general,
            info,
            diagnostics,
        },
        bound,
    }
}

/// `t` with its unresolved size variables named `n`, `m`, `k`, … in order of appearance.
fn general_sizes(c: &Checker, t: &Type) -> Type {
    let t = c.uni.zonk(t);
    let mut free: Vec<VName> = Vec::new();
    let mut taken: Vec<String> = Vec::new();
    for v in t.size_vars() {
        if !c.uni.is_free_var(&v) {
            taken.push(v.name().to_string());
        } else if !free.contains(&v) {
            free.push(v);
        }
    }
    // Names the type does not already use for sizes in scope (`[n]` of a `def n`).
    let names: Vec<String> = ["n", "m", "k", "l", "p", "q"]
        .iter()
        .map(|n| n.to_string())
        .chain((0..).map(|i| format!("n{i}")))
        .filter(|n| !taken.contains(n))
        .take(free.len())
        .collect();
    t.subst_sizes(&|v| {
        let i = free.iter().position(|w| w == v)?;
        Some(Size::Var(VName::new(names.get(i)?.clone(), 0)))
    })
}

/// `CheckContext` and results are shared across threads by the database.
const _: () = {
    const fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<CheckContext>();
    assert_send_sync::<CheckedFile>();
};

/// Prints the signature of a module (for a REPL's `:mtype`), or `None` if the scope has no
/// such module. `path` is a dotted name like `"f32"` or `"M.N"`.
pub fn module_signature(scope: &FileScope, path: &str) -> Option<String> {
    let mut env = &scope.env;
    let parts: Vec<&str> = path.split('.').collect();
    for (i, p) in parts.iter().enumerate() {
        let b = env.mods.get(*p)?;
        if i + 1 == parts.len() {
            return Some(print_mod(&b.m));
        }
        match &b.m {
            env::Mod::Env(e) => env = e,
            env::Mod::Fun(_) => return None,
        }
    }
    None
}
