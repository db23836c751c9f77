//! The state of one checking session (a file, a REPL cell or an expression): the unifier,
//! the module-level environment, the stack of local term bindings, the current level, and
//! the diagnostics and side tables being produced. The checking logic itself lives in
//! `terms/`, `typeexp.rs`, `modules.rs` and friends as further `impl Checker` blocks.

use std::sync::Arc;

use futhark_syntax::ast::{Ident, QualName};
use futhark_syntax::{Diagnostic, FileId, Span};
use rustc_hash::FxHashMap;

use crate::env::{Env, FileScope, MTyBinding, Mod, ModBinding, TypeBinding, ValBinding};
use crate::info::{DefKind, DefRef, TypeInfo};
use crate::intrinsics::Intrinsics;
use crate::types::{Name, TParam, Type, VName};
use crate::unify::{Unifier, UnifyError, UnknownSource};

/// How deeply expressions may nest before we give up instead of overflowing the stack.
pub const MAX_DEPTH: u32 = 400;

/// The most stack the checker may use, whatever the build profile (like the parser's
/// budget): past it, input counts as nested too deeply. This leaves a 2 MiB thread enough
/// room for its caller.
pub const STACK_BUDGET: usize = 1 << 20;

/// The address of a local in the calling frame: a cheap reading of the stack pointer.
#[inline(always)]
pub fn stack_position() -> usize {
    let probe = 0u8;
    std::hint::black_box(&probe) as *const u8 as usize
}

/// A local term-level binding.
#[derive(Clone, Debug)]
pub struct Local {
    pub name: Name,
    pub vname: VName,
    pub kind: LocalKind,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum LocalKind {
    /// A variable or local function. Local functions may have explicit type parameters.
    Val { tparams: Vec<TParam>, ty: Type },
    /// A type parameter of an enclosing function (also used for size parameters' type side).
    Type(TypeBinding),
}

/// A literal whose type is decided at the end of its top-level definition.
#[derive(Clone, Debug)]
pub struct PendingLiteral {
    pub span: Span,
    /// Suffixed literals wrap instead of being range-checked.
    pub suffixed: bool,
    pub ty: Type,
    pub kind: LitValue,
}

#[derive(Clone, Debug)]
pub enum LitValue {
    Int { value: u128, negative: bool },
    Float { value: f64, negative: bool },
    Char,
}

/// What a value name resolved to.
#[derive(Clone, Debug)]
pub enum ValRef {
    Local {
        vname: VName,
        tparams: Vec<TParam>,
        ty: Type,
        def: DefRef,
    },
    Global(ValBinding),
}

pub struct Checker<'a> {
    pub intrinsics: &'a Intrinsics,
    pub uni: Unifier,
    pub diags: Vec<Diagnostic>,
    pub info: TypeInfo,
    /// The module-level environment in scope.
    pub env: Env,
    /// What the module being checked exports so far.
    pub exports: Env,
    pub locals: Vec<Local>,
    pub level: u32,
    pub depth: u32,
    pub imports: &'a dyn Fn(&str) -> Option<Arc<FileScope>>,
    /// Expression types recorded during the current top-level definition; zonked when it
    /// ends.
    pub pending_types: Vec<(Span, Type)>,
    pub pending_literals: Vec<PendingLiteral>,
    pub pending_empty_rows: Vec<(Span, Type)>,
    /// Unknown sizes created in the current definition, with the span of the expression
    /// whose evaluation produces them (for the causality check).
    pub produced: FxHashMap<VName, Span>,
    /// Type and size variables created in the current top-level definition.
    pub def_vars: Vec<VName>,
    /// Set while checking the prelude: its files see only the initial environment.
    pub in_prelude: bool,
    /// Set inside a parametric module or module type body; entries are rejected there.
    pub module_depth: u32,
    /// Path of module names enclosing the current declaration (for qualified display names
    /// of abstract types).
    pub mod_path: Vec<Name>,
    /// Diagnostics already reported at these spans (avoids duplicates).
    reported: FxHashMap<Span, ()>,
    /// The recursive function being defined, for the restrictions on recursive calls.
    pub rec_info: Option<crate::terms::apply::RecInfo>,
    /// Whether the function being defined referred to itself.
    pub rec_used: bool,
    /// Set while checking the function part of an application.
    pub in_apply_head: bool,
    /// Where size variables came from, for "ambiguous size" messages.
    pub var_origin: FxHashMap<VName, String>,
    /// Size variables whose only constraint is a compound size matched against another size
    /// in an application (left to a run-time check if something else determines them):
    /// where, and the application's message should nothing determine them.
    pub dynamic_origin: FxHashMap<VName, (Span, String)>,
    /// `match` expressions to check for exhaustiveness when the definition is done.
    pub pending_matches: Vec<(Span, Type, Vec<futhark_syntax::ast::Pat>)>,
    /// Patterns that must be irrefutable, checked when the definition is done.
    pub pending_irrefutable: Vec<(futhark_syntax::ast::Pat, Type)>,
    /// Index of the first diagnostic of the current declaration.
    pub def_diag_start: usize,
    /// The name bound by `let a[i] = v` sugar, keyed by the span of `a`.
    pub let_with_binds: FxHashMap<Span, VName>,
    /// Names bound by loop parameter patterns, keyed by the pattern's span.
    pub loop_param_binds: FxHashMap<Span, Vec<VName>>,
    /// Names defined in each enclosing module body (for duplicate definitions).
    pub defined: Vec<rustc_hash::FxHashSet<(crate::env::Namespace, Name)>>,
    /// Abstract types created by ascriptions and applications (collected for functors).
    pub created_abs: Vec<crate::env::AbsType>,
    /// Liftedness of abstract types and type parameters by name.
    pub abstract_lifted: FxHashMap<VName, crate::types::Liftedness>,
    /// Modules opened by `M.(e)`, with the number of locals at the point of opening: names
    /// of the module hide locals bound outside the parentheses.
    pub qual_open: Vec<(usize, Arc<Env>)>,
    /// Sizes chosen for size-lifted types in parameters during one substitution.
    pub subst_memo: Vec<(String, Vec<(VName, crate::types::Size)>)>,
    /// Whether [`Checker::subst_memo`] is in use (not when matching module types).
    pub subst_share: bool,
    /// Whether substituting into module contents shares sizes between parameter and result
    /// occurrences of a size-lifted type (for functor results; not for module types).
    pub share_in_env: bool,
    /// [`stack_position`] when checking started.
    pub stack_base: usize,
    /// Whether sum types inferred only from constructors are an error when left ambiguous.
    pub ambiguous_sums: bool,
    /// Definitions whose types involve overloaded types defaulted to `i32`/`f64`.
    pub defaulted_defs: rustc_hash::FxHashSet<VName>,
    /// Top-level declarations replayed from a previous check (see `incremental.rs`).
    pub replayed: usize,
    /// Set when a top-level declaration wrote side tables outside its own text, which
    /// rules out replaying (see `incremental.rs`).
    pub strays: bool,
}

impl<'a> Checker<'a> {
    pub fn new(
        intrinsics: &'a Intrinsics,
        file: FileId,
        env: Env,
        imports: &'a dyn Fn(&str) -> Option<Arc<FileScope>>,
    ) -> Checker<'a> {
        Checker {
            intrinsics,
            uni: Unifier::new(file.0),
            diags: Vec::new(),
            info: TypeInfo::default(),
            env,
            exports: Env::default(),
            locals: Vec::new(),
            level: 0,
            depth: 0,
            imports,
            pending_types: Vec::new(),
            pending_literals: Vec::new(),
            pending_empty_rows: Vec::new(),
            produced: FxHashMap::default(),
            def_vars: Vec::new(),
            in_prelude: false,
            module_depth: 0,
            mod_path: Vec::new(),
            reported: FxHashMap::default(),
            rec_info: None,
            rec_used: false,
            in_apply_head: false,
            var_origin: FxHashMap::default(),
            dynamic_origin: FxHashMap::default(),
            pending_matches: Vec::new(),
            pending_irrefutable: Vec::new(),
            def_diag_start: 0,
            let_with_binds: FxHashMap::default(),
            loop_param_binds: FxHashMap::default(),
            defined: Vec::new(),
            created_abs: Vec::new(),
            abstract_lifted: FxHashMap::default(),
            ambiguous_sums: true,
            stack_base: stack_position(),
            subst_memo: Vec::new(),
            subst_share: true,
            share_in_env: false,
            qual_open: Vec::new(),
            defaulted_defs: Default::default(),
            replayed: 0,
            strays: false,
        }
    }

    /// The file being checked.
    pub fn file(&self) -> FileId {
        FileId(self.uni.supply.file())
    }

    /// True when recursion must stop: too deep or too much stack used.
    pub fn too_deep(&self) -> bool {
        self.depth > MAX_DEPTH || self.stack_base.abs_diff(stack_position()) > STACK_BUDGET
    }

    // -----------------------------------------------------------------------------------
    // Diagnostics

    pub fn error(
        &mut self,
        code: &'static str,
        span: Span,
        msg: impl Into<String>,
    ) -> &mut Diagnostic {
        self.diags.push(Diagnostic::error(code, span, msg));
        self.reported.insert(span, ());
        let n = self.diags.len() - 1;
        &mut self.diags[n]
    }

    pub fn warn(&mut self, code: &'static str, span: Span, msg: impl Into<String>) {
        self.diags.push(Diagnostic::warning(code, span, msg));
    }

    /// Reports a unification failure with a context line such as
    /// "Function body does not have expected type.".
    pub fn report_unify(
        &mut self,
        span: Span,
        context: &str,
        expected: &Type,
        actual: &Type,
        err: UnifyError,
    ) {
        let expected = self.uni.zonk(expected);
        let actual = self.uni.zonk(actual);
        let code = err.code();
        let detail = err.message();
        let notes = self.size_notes(&err);
        let d = self.error(
            code,
            span,
            format!("{context}\nExpected: {expected}\nActual:   {actual}\n{detail}"),
        );
        for n in notes {
            d.notes.push(n);
        }
    }

    /// Notes explaining where unknown sizes in an error came from.
    fn size_notes(&self, err: &UnifyError) -> Vec<String> {
        let mut out = Vec::new();
        if let UnifyError::Sizes { expected, actual } = err {
            for s in [expected, actual] {
                s.each_var(&mut |v| {
                    if let Some(r) = self.uni.rigid.get(v)
                        && let Some((src, _)) = &r.unknown
                    {
                        out.push(format!("\"{}\" {}", v.name(), describe_unknown(src)));
                    }
                });
            }
        }
        out
    }

    /// Unifies and reports failures with `context`. Returns true on success.
    pub fn expect(&mut self, span: Span, context: &str, expected: &Type, actual: &Type) -> bool {
        match self.uni.unify(expected, actual) {
            Ok(()) => true,
            Err(e) => {
                self.report_unify(span, context, expected, actual, e);
                false
            }
        }
    }

    // -----------------------------------------------------------------------------------
    // Fresh names and variables

    pub fn fresh(&mut self, name: &str) -> VName {
        self.uni.fresh_name(name)
    }

    pub fn new_tyvar(&mut self, name: &str, span: Span) -> Type {
        let t = self.uni.new_tyvar(name, self.level, span);
        if let Type::Var(v) = &t {
            self.def_vars.push(v.name.clone());
        }
        t
    }

    pub fn new_var_with(&mut self, name: &str, c: crate::unify::Constraint, span: Span) -> VName {
        let v = self.uni.new_var(name, self.level, c, span);
        self.def_vars.push(v.clone());
        v
    }

    pub fn new_sizevar(&mut self, name: &str, span: Span) -> VName {
        let v = self.uni.new_sizevar(name, self.level, span);
        self.def_vars.push(v.clone());
        v
    }

    /// A fresh unknown size produced by evaluating the expression at `producer`.
    pub fn new_unknown(&mut self, name: &str, src: UnknownSource, producer: Span) -> VName {
        let v = self.uni.new_unknown(name, self.level, src, producer);
        self.uni.created.retain(|x| *x != v);
        self.produced.insert(v.clone(), producer);
        v
    }

    // -----------------------------------------------------------------------------------
    // Levels and local scopes

    pub fn bind_local(&mut self, ident: &Ident, vname: VName, ty: Type) {
        self.uni.bind_rigid(&vname, self.level);
        self.locals.push(Local {
            name: Name::from(ident.name.as_str()),
            vname,
            kind: LocalKind::Val {
                tparams: vec![],
                ty,
            },
            span: ident.span,
        });
    }

    pub fn scope_mark(&self) -> usize {
        self.locals.len()
    }

    pub fn scope_reset(&mut self, mark: usize) {
        self.locals.truncate(mark);
    }

    // -----------------------------------------------------------------------------------
    // Recording side tables

    pub fn record_type(&mut self, span: Span, ty: &Type) {
        self.pending_types.push((span, ty.clone()));
    }

    pub fn resolve_to(&mut self, span: Span, def: &DefRef) {
        self.info.resolutions.insert(span, def.clone());
    }

    // -----------------------------------------------------------------------------------
    // Name lookup

    /// Finds the module named by a path of qualifiers, reporting unknown names.
    pub fn lookup_mod_path(&mut self, quals: &[Ident]) -> Option<Arc<Env>> {
        let mut cur: Option<Arc<Env>> = None;
        for (i, q) in quals.iter().enumerate() {
            let name = q.name.as_str();
            let found = match &cur {
                None => self.env.mods.get(name).cloned(),
                Some(env) => env.mods.get(name).cloned(),
            };
            match found {
                Some(b) => {
                    self.info.resolutions.insert(q.span, b.def.clone());
                    match &b.m {
                        Mod::Env(e) => cur = Some(e.clone()),
                        Mod::Fun(_) => {
                            self.error(
                                "module-is-parametric",
                                q.span,
                                format!("Module \"{name}\" is a parametric module and cannot be accessed with \".\"."),
                            );
                            return None;
                        }
                    }
                }
                None => {
                    let path: Vec<&str> = quals[..=i].iter().map(|q| q.name.as_str()).collect();
                    self.error(
                        "unknown-name",
                        q.span,
                        format!("Unknown module \"{}\".", path.join(".")),
                    );
                    return None;
                }
            }
        }
        cur
    }

    /// True if the name is bound as a term (local or module-level value).
    pub fn is_value_name(&self, name: &str) -> bool {
        self.locals
            .iter()
            .any(|l| l.name.as_ref() == name && matches!(l.kind, LocalKind::Val { .. }))
            || self.env.vals.contains_key(name)
    }

    pub fn lookup_local_val(&self, name: &str) -> Option<&Local> {
        let limit = self
            .qual_open
            .iter()
            .rev()
            .find(|(_, e)| e.vals.contains_key(name))
            .map(|(m, _)| *m);
        self.locals
            .iter()
            .enumerate()
            .rev()
            .take_while(|(i, _)| limit.is_none_or(|m| *i >= m))
            .map(|(_, l)| l)
            .find(|l| l.name.as_ref() == name && matches!(l.kind, LocalKind::Val { .. }))
    }

    /// Looks up a value by qualified name without reporting errors.
    pub fn find_val(&mut self, qn: &QualName) -> Option<ValRef> {
        if qn.quals.is_empty() {
            if let Some(l) = self.lookup_local_val(&qn.name.name)
                && let LocalKind::Val { tparams, ty } = &l.kind
            {
                let def = DefRef::new(&l.vname, DefKind::Local, Some(l.span), None);
                return Some(ValRef::Local {
                    vname: l.vname.clone(),
                    tparams: tparams.clone(),
                    ty: ty.clone(),
                    def,
                });
            }
            return self
                .env
                .vals
                .get(qn.name.name.as_str())
                .cloned()
                .map(ValRef::Global);
        }
        let env = self.lookup_mod_path(&qn.quals)?;
        env.vals
            .get(qn.name.name.as_str())
            .cloned()
            .map(ValRef::Global)
    }

    pub fn lookup_type(&mut self, qn: &QualName) -> Option<TypeBinding> {
        if qn.quals.is_empty() {
            for l in self.locals.iter().rev() {
                if l.name.as_ref() == qn.name.name
                    && let LocalKind::Type(b) = &l.kind
                {
                    return Some(b.clone());
                }
            }
            return self.env.types.get(qn.name.name.as_str()).cloned();
        }
        let env = self.lookup_mod_path(&qn.quals)?;
        env.types.get(qn.name.name.as_str()).cloned()
    }

    pub fn lookup_mod(&mut self, qn: &QualName) -> Option<ModBinding> {
        if qn.quals.is_empty() {
            return self.env.mods.get(qn.name.name.as_str()).cloned();
        }
        let env = self.lookup_mod_path(&qn.quals)?;
        env.mods.get(qn.name.name.as_str()).cloned()
    }

    pub fn lookup_modtype(&mut self, qn: &QualName) -> Option<MTyBinding> {
        if qn.quals.is_empty() {
            return self.env.modtypes.get(qn.name.name.as_str()).cloned();
        }
        let env = self.lookup_mod_path(&qn.quals)?;
        env.modtypes.get(qn.name.name.as_str()).cloned()
    }

    pub fn op_name(&self, op: &str) -> Option<VName> {
        self.intrinsics.op(op).cloned()
    }
}

pub fn describe_unknown(src: &UnknownSource) -> String {
    match src {
        UnknownSource::Ret(Some(f)) => format!("is unknown size returned by \"{f}\"."),
        UnknownSource::Ret(None) => "is unknown size returned by function.".into(),
        UnknownSource::Arg(Some(f)) => format!("is value of argument passed to \"{f}\"."),
        UnknownSource::Arg(None) => "is value of argument passed to function.".into(),
        UnknownSource::Slice => "is size produced by slice.".into(),
        UnknownSource::Range => "is unknown length of range.".into(),
        UnknownSource::Cond => "is unknown due to conditional expression.".into(),
        UnknownSource::Loop => "is unknown size of value returned by loop.".into(),
        UnknownSource::OutOfScope(v) => {
            format!("is an unknown size arising from \"{v}\" going out of scope.")
        }
        UnknownSource::Coerce => {
            "is an unknown size arising from empty dimension in coercion.".into()
        }
        UnknownSource::Unify => "is an artificial size invented during unification.".into(),
    }
}

/// Joins a qualified name for messages.
pub fn qual_string(qn: &QualName) -> String {
    let mut s = String::new();
    for q in &qn.quals {
        s.push_str(&q.name);
        s.push('.');
    }
    s.push_str(&qn.name.name);
    s
}
