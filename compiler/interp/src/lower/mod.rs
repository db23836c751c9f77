//! Lowering: declarations are processed in order, each lowered to the internal form against
//! the names known at that point and evaluated at once, so that later code can refer to its
//! value as a constant.
//!
//! Modules exist only here, at lowering time: a module is a [`Scope`] of values, modules,
//! types and module types; a functor keeps its body's syntax and the environment it was
//! defined in, and applying it processes the body again with the argument bound. Module
//! types only matter for which names an ascription lets through.

mod exp;
mod lambda;
mod liveness;
mod pat;
mod sizes;
mod types;

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use futhark_syntax::ast::{self, DecKind, ModExp, ModExpKind, SigExp, SigExpKind, SpecKind};
use futhark_syntax::{FileId, Span};

use crate::errors::{Result, RuntimeError};
use crate::eval::Machine;
use crate::intrinsics::Intrinsic;
use crate::ir::{self, Slot};
use crate::prim_fns::PrimFn;
use crate::prim_ops::OvOp;
use crate::program::{PRELUDE_MAIN, Program, SourceMap, TypeHints, resolve_import};
use crate::value::{Builtin, Fun, Name, TypeDesc, Value};

pub use exp::FnCtx;

/// What a module name denotes.
#[derive(Clone, Debug)]
pub enum Module {
    Struct(Rc<Scope>),
    Functor(Rc<Functor>),
    /// The built-in `intrinsics` module.
    Intrinsics,
}

/// A parametric module: its parameter, body and the environment of its definition.
#[derive(Debug)]
pub struct Functor {
    pub param: Name,
    pub body: ModExp,
    pub ret: Option<SigExp>,
    pub env: Env,
    pub file: FileCtx,
}

/// A type abbreviation.
#[derive(Debug)]
pub struct TypeDef {
    pub params: Vec<ast::TypeParam>,
    pub body: ast::TypeExp,
    pub env: Env,
}

/// A module type: its syntax and where it was defined.
#[derive(Debug)]
pub struct SigDef {
    pub sig: SigExp,
    pub env: Env,
}

/// The names of one namespace level.
#[derive(Clone, Debug, Default)]
pub struct Scope {
    pub vals: HashMap<Name, Value>,
    pub mods: HashMap<Name, Module>,
    pub types: HashMap<Name, Rc<TypeDef>>,
    pub sigs: HashMap<Name, Rc<SigDef>>,
}

impl Scope {
    /// Adds every name of `other`, shadowing.
    pub fn extend(&mut self, other: &Scope) {
        for (k, v) in &other.vals {
            self.vals.insert(k.clone(), v.clone());
        }
        for (k, v) in &other.mods {
            self.mods.insert(k.clone(), v.clone());
        }
        for (k, v) in &other.types {
            self.types.insert(k.clone(), v.clone());
        }
        for (k, v) in &other.sigs {
            self.sigs.insert(k.clone(), v.clone());
        }
    }
}

/// The static environment: scopes from the outermost (initial environment) inwards.
#[derive(Clone, Debug, Default)]
pub struct Env {
    pub layers: Vec<Rc<RefCell<Scope>>>,
}

impl Env {
    pub fn lookup_val(&self, name: &str) -> Option<Value> {
        self.layers
            .iter()
            .rev()
            .find_map(|l| l.borrow().vals.get(name).cloned())
    }

    pub fn lookup_mod(&self, name: &str) -> Option<Module> {
        self.layers
            .iter()
            .rev()
            .find_map(|l| l.borrow().mods.get(name).cloned())
    }

    pub fn lookup_type(&self, name: &str) -> Option<Rc<TypeDef>> {
        self.layers
            .iter()
            .rev()
            .find_map(|l| l.borrow().types.get(name).cloned())
    }

    pub fn lookup_sig(&self, name: &str) -> Option<Rc<SigDef>> {
        self.layers
            .iter()
            .rev()
            .find_map(|l| l.borrow().sigs.get(name).cloned())
    }

    /// A copy whose layers no longer change (for functors defined now and applied later).
    pub fn snapshot(&self) -> Env {
        let mut flat = Scope::default();
        for l in &self.layers {
            flat.extend(&l.borrow());
        }
        Env {
            layers: vec![Rc::new(RefCell::new(flat))],
        }
    }

    fn with_layer(&self, layer: Rc<RefCell<Scope>>) -> Env {
        let mut layers = self.layers.clone();
        layers.push(layer);
        Env { layers }
    }
}

/// Which file is being lowered (for imports and the prelude rule).
#[derive(Clone, Debug)]
pub struct FileCtx {
    pub path: String,
    pub id: FileId,
}

/// An entry point of the root file.
#[derive(Clone, Debug)]
pub struct Entry {
    pub name: String,
    pub fun: Value,
    /// Parameter types (tuples take several input values); `None` when not annotated.
    pub params: Vec<Option<TypeDesc>>,
    pub span: Span,
}

/// The state of lowering a program.
pub struct Lowerer {
    pub machine: Machine,
    pub hints: TypeHints,
    pub sources: Rc<RefCell<SourceMap>>,
    pub program: Program,
    /// Exports of files already processed, by path.
    files: HashMap<String, Rc<Scope>>,
    /// Files being processed (import cycles).
    loading: Vec<String>,
    pub initial: Env,
    /// Entry points of the root file, in order.
    pub entries: Vec<Entry>,
    /// The environment at the end of the root file (for REPL expressions).
    pub root_env: Option<(Env, Rc<RefCell<Scope>>, FileCtx)>,
}

/// The initial environment: the overloaded operators and the `intrinsics` module.
fn initial_env() -> Env {
    let mut s = Scope::default();
    for op in [
        "+", "-", "*", "/", "%", "**", "//", "%%", "<<", ">>", "&", "|", "^", "==", "!=", "<",
        "<=", ">", ">=", "&&", "||",
    ] {
        if let Some(o) = OvOp::from_name(op) {
            s.vals.insert(
                Name::from(op),
                Value::Fun(Rc::new(Fun::Builtin(Builtin::Op(o)))),
            );
        }
    }
    s.mods.insert(Name::from("intrinsics"), Module::Intrinsics);
    Env {
        layers: vec![Rc::new(RefCell::new(s))],
    }
}

/// A member of the `intrinsics` module.
pub fn intrinsic_value(name: &str) -> Option<Value> {
    let b = if let Some(i) = Intrinsic::lookup(name) {
        Builtin::Intrinsic(i)
    } else if let Some(p) = PrimFn::lookup(name) {
        Builtin::Prim(p)
    } else if let Some(o) = OvOp::from_name(name) {
        Builtin::Op(o)
    } else if name == "neg" {
        Builtin::Neg
    } else if name == "!" {
        Builtin::Not
    } else {
        return None;
    };
    Some(Value::Fun(Rc::new(Fun::Builtin(b))))
}

impl Lowerer {
    pub fn new(program: Program, machine: Machine, sources: Rc<RefCell<SourceMap>>) -> Lowerer {
        Lowerer {
            machine,
            hints: program.hints.clone(),
            sources,
            program,
            files: HashMap::new(),
            loading: Vec::new(),
            initial: initial_env(),
            entries: Vec::new(),
            root_env: None,
        }
    }

    /// Processes the root file (and everything it imports).
    pub fn load_root(&mut self) -> Result<()> {
        let root = self.program.root.clone();
        self.load_file(&root, true)?;
        Ok(())
    }

    /// The exports of a file, processing it the first time.
    fn load_file(&mut self, path: &str, is_root: bool) -> Result<Rc<Scope>> {
        if let Some(s) = self.files.get(path) {
            return Ok(s.clone());
        }
        if self.loading.iter().any(|p| p == path) {
            return Err(RuntimeError::new(format!("Import cycle involving {path}.")));
        }
        let Some(unit) = self.program.file(path).cloned() else {
            return Err(RuntimeError::new(format!("Unknown file imported: {path}")));
        };
        self.loading.push(path.to_string());
        let file = FileCtx {
            path: path.to_string(),
            id: unit.id,
        };
        let defs = Rc::new(RefCell::new(Scope::default()));
        let env = self.initial.with_layer(defs.clone());
        if !path.starts_with("/prelude/") && self.program.file(PRELUDE_MAIN).is_some() {
            let prelude = self.load_file(PRELUDE_MAIN, false)?;
            defs.borrow_mut().extend(&prelude);
        }
        let mut exports = Scope::default();
        let result = self.decs(&unit.ast.decs, &env, &defs, &mut exports, &file, is_root);
        self.loading.pop();
        result?;
        if is_root {
            self.root_env = Some((env, defs, file));
        }
        let exports = Rc::new(exports);
        self.files.insert(path.to_string(), exports.clone());
        Ok(exports)
    }

    /// Processes declarations in order, adding to `defs` (visible) and `exports`.
    pub fn decs(
        &mut self,
        decs: &[ast::Dec],
        env: &Env,
        defs: &Rc<RefCell<Scope>>,
        exports: &mut Scope,
        file: &FileCtx,
        is_root: bool,
    ) -> Result<()> {
        for d in decs {
            self.dec(d, env, defs, exports, file, is_root, false)?;
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn dec(
        &mut self,
        d: &ast::Dec,
        env: &Env,
        defs: &Rc<RefCell<Scope>>,
        exports: &mut Scope,
        file: &FileCtx,
        is_root: bool,
        local: bool,
    ) -> Result<()> {
        let mut added = Scope::default();
        match &d.kind {
            DecKind::Val(vb) => {
                let v = self.val_bind(vb, env)?;
                let is_entry = vb.keyword == ast::ValKeyword::Entry
                    || (is_root && vb.name.name == "main" && !local);
                if is_root && is_entry && self.is_top(env) {
                    let params = match self.hints.entry_params.get(&vb.name.name) {
                        Some(ts) if ts.len() == vb.params.len() => {
                            ts.iter().cloned().map(Some).collect()
                        }
                        _ => vb
                            .params
                            .iter()
                            .map(|p| types::param_type_desc(self, p, env))
                            .collect(),
                    };
                    self.entries.retain(|e| e.name != vb.name.name);
                    self.entries.push(Entry {
                        name: vb.name.name.clone(),
                        fun: v.clone(),
                        params,
                        span: vb.span,
                    });
                }
                added.vals.insert(Name::from(vb.name.name.as_str()), v);
            }
            DecKind::Type(tb) => {
                added.types.insert(
                    Name::from(tb.name.name.as_str()),
                    Rc::new(TypeDef {
                        params: tb.tparams.clone(),
                        body: tb.ty.clone(),
                        env: env.clone(),
                    }),
                );
            }
            DecKind::ModuleType(mt) => {
                added.sigs.insert(
                    Name::from(mt.name.name.as_str()),
                    Rc::new(SigDef {
                        sig: mt.sig.clone(),
                        env: env.clone(),
                    }),
                );
            }
            DecKind::Module(mb) => {
                let m = if mb.params.is_empty() {
                    let m = self.mod_exp(&mb.body, env, file)?;
                    match &mb.sig {
                        Some(sig) => self.ascribe(m, sig, env),
                        None => m,
                    }
                } else {
                    // `module F (A: S) (B: T) : R = e` is nested functors.
                    let mut body = mb.body.clone();
                    let mut ret = mb.sig.clone();
                    for p in mb.params.iter().skip(1).rev() {
                        body = ModExp {
                            span: body.span,
                            kind: ModExpKind::Lambda {
                                param: p.clone(),
                                ret: ret.take(),
                                body: Box::new(body),
                            },
                        };
                    }
                    Module::Functor(Rc::new(Functor {
                        param: Name::from(mb.params[0].name.name.as_str()),
                        body,
                        ret,
                        env: env.snapshot(),
                        file: file.clone(),
                    }))
                };
                added.mods.insert(Name::from(mb.name.name.as_str()), m);
            }
            DecKind::Open(me) => {
                let m = self.mod_exp(me, env, file)?;
                if let Module::Struct(s) = m {
                    added.extend(&s);
                }
            }
            DecKind::Import(path) => {
                let target = resolve_import(&file.path, &path.value);
                let s = self.load_file(&target, false)?;
                defs.borrow_mut().extend(&s);
                return Ok(());
            }
            DecKind::Local(inner) => {
                let mut ignored = Scope::default();
                return self.dec(inner, env, defs, &mut ignored, file, is_root, true);
            }
            DecKind::Error => {}
        }
        defs.borrow_mut().extend(&added);
        if !local {
            exports.extend(&added);
        }
        Ok(())
    }

    /// Whether `env` is a file's top level (initial layer plus the file's own).
    fn is_top(&self, env: &Env) -> bool {
        env.layers.len() == 2
    }

    /// Lowers and evaluates a value binding.
    fn val_bind(&mut self, vb: &ast::ValBind, env: &Env) -> Result<Value> {
        let name = Name::from(vb.name.name.as_str());
        let has_params = !vb.params.is_empty();
        let mut ctx = FnCtx::new(if has_params { Some(name.clone()) } else { None });
        let mut lx = exp::LowerCx::new(self, env.clone());
        lx.fns.push(std::mem::take(&mut ctx));
        lx.declare_sizes(&vb.tparams);
        if !has_params {
            let body = lx.exp(&vb.body)?;
            let body = match &vb.ret {
                Some(t) => lx.ascribe_literal(body, t),
                None => body,
            };
            let ctx = lx.fns.pop().unwrap_or_default();
            let mut body = body;
            liveness::run(&mut body, &[]);
            return self.machine.eval_closed(&body, ctx.nslots as usize);
        }
        let mut params = Vec::with_capacity(vb.params.len());
        for p in &vb.params {
            params.push(lx.pat(p)?);
        }
        let body = lx.exp(&vb.body)?;
        let body = match &vb.ret {
            Some(t) => lx.ascribe_literal(body, t),
            None => body,
        };
        let ctx = lx.fns.pop().unwrap_or_default();
        let lam = lambda::make_lambda(Some(name), params, body, ctx, vb.span);
        Ok(Value::Fun(Rc::new(Fun::Closure {
            lam: Rc::new(lam),
            env: Rc::from(Vec::new()),
        })))
    }

    /// Evaluates a module expression.
    fn mod_exp(&mut self, me: &ModExp, env: &Env, file: &FileCtx) -> Result<Module> {
        match &me.kind {
            ModExpKind::Var(qn) => self.lookup_module(qn, env),
            ModExpKind::Parens(inner) => self.mod_exp(inner, env, file),
            ModExpKind::Import(path) => {
                let target = resolve_import(&file.path, &path.value);
                Ok(Module::Struct(self.load_file(&target, false)?))
            }
            ModExpKind::Decs(decs) => {
                let defs = Rc::new(RefCell::new(Scope::default()));
                let inner = env.with_layer(defs.clone());
                let mut exports = Scope::default();
                self.decs(decs, &inner, &defs, &mut exports, file, false)?;
                Ok(Module::Struct(Rc::new(exports)))
            }
            ModExpKind::Apply(f, arg) => {
                let fm = self.mod_exp(f, env, file)?;
                let am = self.mod_exp(arg, env, file)?;
                self.apply_functor(fm, am, me.span)
            }
            ModExpKind::Ascript(m, sig) => {
                let m = self.mod_exp(m, env, file)?;
                Ok(self.ascribe(m, sig, env))
            }
            ModExpKind::Lambda { param, ret, body } => Ok(Module::Functor(Rc::new(Functor {
                param: Name::from(param.name.name.as_str()),
                body: (**body).clone(),
                ret: ret.clone(),
                env: env.snapshot(),
                file: file.clone(),
            }))),
            ModExpKind::Error => Ok(Module::Struct(Rc::new(Scope::default()))),
        }
    }

    fn apply_functor(&mut self, f: Module, arg: Module, span: Span) -> Result<Module> {
        let Module::Functor(f) = f else {
            return Err(RuntimeError::at(
                span,
                "Cannot apply a module that is not parametric.",
            ));
        };
        let layer = Rc::new(RefCell::new(Scope::default()));
        layer.borrow_mut().mods.insert(f.param.clone(), arg);
        let env = f.env.with_layer(layer);
        let m = self.mod_exp(&f.body, &env, &f.file)?;
        Ok(match &f.ret {
            Some(sig) => self.ascribe(m, sig, &env),
            None => m,
        })
    }

    /// Restricts a module to the names its module type lists.
    fn ascribe(&mut self, m: Module, sig: &SigExp, env: &Env) -> Module {
        let Module::Struct(s) = &m else {
            return m;
        };
        let Some(names) = sig_names(sig, env) else {
            return m;
        };
        let mut out = Scope::default();
        for (k, v) in &s.vals {
            if names.contains(&**k) {
                out.vals.insert(k.clone(), v.clone());
            }
        }
        for (k, v) in &s.mods {
            if names.contains(&**k) {
                out.mods.insert(k.clone(), v.clone());
            }
        }
        out.types = s.types.clone();
        out.sigs = s.sigs.clone();
        Module::Struct(Rc::new(out))
    }

    /// Resolves a module path.
    pub fn lookup_module(&self, qn: &ast::QualName, env: &Env) -> Result<Module> {
        let mut path: Vec<&str> = qn.quals.iter().map(|q| q.name.as_str()).collect();
        path.push(&qn.name.name);
        module_path(env, &path)
            .ok_or_else(|| RuntimeError::at(qn.span, format!("Unknown module {}.", path.join("."))))
    }
}

/// Resolves a module path starting in `env`.
pub fn module_path(env: &Env, path: &[&str]) -> Option<Module> {
    let (first, rest) = path.split_first()?;
    let mut m = env.lookup_mod(first)?;
    for p in rest {
        m = match m {
            Module::Struct(s) => s.mods.get(*p)?.clone(),
            _ => return None,
        };
    }
    Some(m)
}

/// The value and module names a module type declares; `None` when it cannot be resolved
/// (then nothing is hidden).
fn sig_names(sig: &SigExp, env: &Env) -> Option<std::collections::HashSet<String>> {
    match &sig.kind {
        SigExpKind::Var(qn) => {
            if !qn.quals.is_empty() {
                return None;
            }
            let def = env.lookup_sig(&qn.name.name)?;
            sig_names(&def.sig, &def.env)
        }
        SigExpKind::Parens(inner) => sig_names(inner, env),
        SigExpKind::With { sig, .. } => sig_names(sig, env),
        SigExpKind::Specs(specs) => {
            let mut out = std::collections::HashSet::new();
            for s in specs {
                match &s.kind {
                    SpecKind::Val { name, .. } => {
                        out.insert(name.name.clone());
                    }
                    SpecKind::Module { name, .. } => {
                        out.insert(name.name.clone());
                    }
                    SpecKind::Include(inner) => out.extend(sig_names(inner, env)?),
                    SpecKind::Type { .. } | SpecKind::Error => {}
                }
            }
            Some(out)
        }
        SigExpKind::Arrow { .. } | SigExpKind::Error => None,
    }
}

/// A fresh slot in a function context.
pub fn fresh_slot(ctx: &mut FnCtx) -> Slot {
    let s = ctx.nslots;
    ctx.nslots += 1;
    s
}

/// Re-exported for the evaluator of REPL expressions.
pub use exp::LowerCx;

/// The internal form's lambda type, re-exported for convenience.
pub type Lambda = ir::Lambda;
