//! Defunctorisation: modules exist only while lowering.
//!
//! Declarations are processed in order into [`Scope`]s of values, modules and module types,
//! by name, as the checker resolved them. A module is a scope; a functor keeps its body's
//! syntax and the environment of its definition, and applying it processes the body again
//! with the argument bound to the parameter, so every application gets its own definitions
//! (and its own specialisations of them). Module types matter only for which names an
//! ascription lets through. Definitions are not lowered here: a `def` becomes a
//! [`Def`] that is lowered when (and as often as) it is used.

use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use futhark_syntax::FileId;
use futhark_syntax::ast::{
    Dec, DecKind, ModExp, ModExpKind, ModParam, QualName, SigExp, SigExpKind, SpecKind,
};

use crate::error::{LResult, LowerError};
use crate::state::Lowerer;
use crate::value::Def;

/// What a value name denotes at module level.
#[derive(Clone, Debug)]
pub enum Binding<'a> {
    Def(Rc<Def<'a>>),
    Intrinsic(String),
    Op(String),
}

/// What a module name denotes.
#[derive(Clone, Debug)]
pub enum Module<'a> {
    Struct(Rc<Scope<'a>>),
    Functor(Rc<Functor<'a>>),
    /// The built-in `intrinsics` module: every member is an intrinsic.
    Intrinsics,
}

/// A parametric module: remaining parameters, body, result signature and the environment
/// of its definition (with the parameters applied so far).
#[derive(Debug)]
pub struct Functor<'a> {
    pub params: Vec<&'a ModParam>,
    pub ret: Option<&'a SigExp>,
    pub body: &'a ModExp,
    pub env: Env<'a>,
    /// The file the functor is written in (imports in its body resolve from there).
    pub file: FileId,
}

/// A module type and where it was defined.
#[derive(Debug)]
pub struct SigDef<'a> {
    pub sig: &'a SigExp,
    pub env: Env<'a>,
}

/// The names bound at one level.
#[derive(Clone, Debug, Default)]
pub struct Scope<'a> {
    pub vals: HashMap<String, Binding<'a>>,
    pub mods: HashMap<String, Module<'a>>,
    pub sigs: HashMap<String, Rc<SigDef<'a>>>,
}

impl<'a> Scope<'a> {
    /// Values and modules share a namespace: binding one hides the other.
    pub fn insert_val(&mut self, name: &str, b: Binding<'a>) {
        self.mods.remove(name);
        self.vals.insert(name.to_string(), b);
    }

    pub fn insert_mod(&mut self, name: &str, m: Module<'a>) {
        self.vals.remove(name);
        self.mods.insert(name.to_string(), m);
    }

    /// Adds every binding of `other`, shadowing (as `open` does).
    pub fn extend(&mut self, other: &Scope<'a>) {
        for (k, v) in &other.vals {
            self.insert_val(k, v.clone());
        }
        for (k, m) in &other.mods {
            self.insert_mod(k, m.clone());
        }
        for (k, s) in &other.sigs {
            self.sigs.insert(k.clone(), s.clone());
        }
    }
}

/// The names in scope: a persistent list of bindings and opened scopes, newest first, so
/// a definition keeps seeing exactly what was declared before it.
#[derive(Clone, Debug, Default)]
pub struct Env<'a>(Option<Rc<EnvNode<'a>>>);

#[derive(Debug)]
struct EnvNode<'a> {
    item: EnvItem<'a>,
    next: Env<'a>,
}

#[derive(Debug)]
enum EnvItem<'a> {
    Val(String, Binding<'a>),
    Mod(String, Module<'a>),
    Sig(String, Rc<SigDef<'a>>),
    /// An opened module, an imported file or the initial environment.
    Scope(Rc<Scope<'a>>),
}

/// A value or module found by name.
pub enum Found<'a> {
    Val(Binding<'a>),
    Mod(Module<'a>),
}

impl<'a> Env<'a> {
    fn push(&self, item: EnvItem<'a>) -> Env<'a> {
        Env(Some(Rc::new(EnvNode {
            item,
            next: self.clone(),
        })))
    }

    pub fn with_scope(&self, scope: Rc<Scope<'a>>) -> Env<'a> {
        self.push(EnvItem::Scope(scope))
    }

    pub fn with_layer(&self, scope: Scope<'a>) -> Env<'a> {
        self.with_scope(Rc::new(scope))
    }

    pub fn with_val(&self, name: &str, b: Binding<'a>) -> Env<'a> {
        self.push(EnvItem::Val(name.to_string(), b))
    }

    pub fn with_mod(&self, name: &str, m: Module<'a>) -> Env<'a> {
        self.push(EnvItem::Mod(name.to_string(), m))
    }

    fn with_sig(&self, name: &str, s: Rc<SigDef<'a>>) -> Env<'a> {
        self.push(EnvItem::Sig(name.to_string(), s))
    }

    /// Finds a name in the shared value/module namespace.
    pub fn lookup(&self, name: &str) -> Option<Found<'a>> {
        let mut cur = &self.0;
        while let Some(node) = cur {
            match &node.item {
                EnvItem::Val(n, b) if n == name => return Some(Found::Val(b.clone())),
                EnvItem::Mod(n, m) if n == name => return Some(Found::Mod(m.clone())),
                EnvItem::Scope(s) => {
                    if let Some(b) = s.vals.get(name) {
                        return Some(Found::Val(b.clone()));
                    }
                    if let Some(m) = s.mods.get(name) {
                        return Some(Found::Mod(m.clone()));
                    }
                }
                _ => {}
            }
            cur = &node.next.0;
        }
        None
    }

    pub fn lookup_mod(&self, name: &str) -> Option<Module<'a>> {
        match self.lookup(name)? {
            Found::Mod(m) => Some(m),
            Found::Val(_) => None,
        }
    }

    pub fn lookup_sig(&self, name: &str) -> Option<Rc<SigDef<'a>>> {
        let mut cur = &self.0;
        while let Some(node) = cur {
            match &node.item {
                EnvItem::Sig(n, s) if n == name => return Some(s.clone()),
                EnvItem::Scope(sc) => {
                    if let Some(s) = sc.sigs.get(name) {
                        return Some(s.clone());
                    }
                }
                _ => {}
            }
            cur = &node.next.0;
        }
        None
    }

    /// Follows a module path (`M.N`) from this environment.
    pub fn module_path(&self, quals: &[futhark_syntax::ast::Ident]) -> Option<Module<'a>> {
        let (first, rest) = quals.split_first()?;
        let mut m = self.lookup_mod(&first.name)?;
        for q in rest {
            m = member_mod(&m, &q.name)?;
        }
        Some(m)
    }
}

/// A module member of a module.
pub fn member_mod<'a>(m: &Module<'a>, name: &str) -> Option<Module<'a>> {
    match m {
        Module::Struct(s) => s.mods.get(name).cloned(),
        Module::Functor(_) | Module::Intrinsics => None,
    }
}

/// A value member of a module.
pub fn member_val<'a>(m: &Module<'a>, name: &str) -> Option<Binding<'a>> {
    match m {
        Module::Struct(s) => s.vals.get(name).cloned(),
        Module::Intrinsics => Some(Binding::Intrinsic(name.to_string())),
        Module::Functor(_) => None,
    }
}

/// The names a module type lets through: values, and modules with their own names
/// (`None`: everything, for a module whose type could not be followed).
#[derive(Clone, Debug, Default)]
struct SigNames {
    vals: HashSet<String>,
    mods: HashMap<String, Option<SigNames>>,
}

fn sig_names(sig: &SigExp, env: &Env<'_>, depth: usize) -> Option<SigNames> {
    if depth > 64 {
        return None;
    }
    match &sig.kind {
        SigExpKind::Var(qn) => {
            let def = lookup_sig_path(env, qn)?;
            sig_names(def.sig, &def.env, depth + 1)
        }
        SigExpKind::Parens(s) => sig_names(s, env, depth + 1),
        SigExpKind::With { sig, .. } => sig_names(sig, env, depth + 1),
        SigExpKind::Specs(specs) => {
            let mut names = SigNames::default();
            for spec in specs {
                match &spec.kind {
                    SpecKind::Val { name, .. } => {
                        names.vals.insert(name.name.clone());
                    }
                    SpecKind::Module { name, sig } => {
                        names
                            .mods
                            .insert(name.name.clone(), sig_names(sig, env, depth + 1));
                    }
                    SpecKind::Include(s) => {
                        let inner = sig_names(s, env, depth + 1)?;
                        names.vals.extend(inner.vals);
                        names.mods.extend(inner.mods);
                    }
                    SpecKind::Type { .. } | SpecKind::Error => {}
                }
            }
            Some(names)
        }
        SigExpKind::Arrow { .. } | SigExpKind::Error => None,
    }
}

fn lookup_sig_path<'a>(env: &Env<'a>, qn: &QualName) -> Option<Rc<SigDef<'a>>> {
    if qn.quals.is_empty() {
        return env.lookup_sig(&qn.name.name);
    }
    match env.module_path(&qn.quals)? {
        Module::Struct(s) => s.sigs.get(&qn.name.name).cloned(),
        _ => None,
    }
}

/// Keeps only what `names` lets through.
fn filter<'a>(m: Module<'a>, names: &SigNames) -> Module<'a> {
    match m {
        Module::Struct(s) => {
            let mut out = Scope::default();
            for (k, v) in &s.vals {
                if names.vals.contains(k) {
                    out.vals.insert(k.clone(), v.clone());
                }
            }
            for (k, sub) in &s.mods {
                if let Some(inner) = names.mods.get(k) {
                    let sub = match inner {
                        Some(n) => filter(sub.clone(), n),
                        None => sub.clone(),
                    };
                    out.mods.insert(k.clone(), sub);
                }
            }
            out.sigs = s.sigs.clone();
            Module::Struct(Rc::new(out))
        }
        m => m,
    }
}

fn ascribe<'a>(m: Module<'a>, sig: &SigExp, env: &Env<'a>) -> Module<'a> {
    match sig_names(sig, env, 0) {
        Some(names) => filter(m, &names),
        None => m,
    }
}

impl<'a> Lowerer<'a> {
    /// The environment every file starts from: the overloaded operators and `intrinsics`.
    pub fn initial_env(&self) -> Env<'a> {
        let mut s = Scope::default();
        for op in [
            "+", "-", "*", "/", "%", "**", "//", "%%", ">>", "<<", "&", "^", "|", "&&", "||", "==",
            "!=", "<", "<=", ">", ">=",
        ] {
            s.vals.insert(op.to_string(), Binding::Op(op.to_string()));
        }
        s.mods.insert("intrinsics".to_string(), Module::Intrinsics);
        Env::default().with_layer(s)
    }

    /// What a file exports, processing it (and its imports) the first time.
    pub fn file_scope(&mut self, file: FileId) -> LResult<Rc<Scope<'a>>> {
        if let Some(s) = self.file_scopes.get(&file) {
            return Ok(s.clone());
        }
        if self.loading.contains(&file) {
            return Err(LowerError::internal(None, "import cycle"));
        }
        let Some(input) = self.files.get(&file).cloned() else {
            return Err(LowerError::internal(None, format!("unknown file {file:?}")));
        };
        self.loading.push(file);
        let mut env = self.initial_env();
        if !input.is_prelude {
            let prelude = self.prelude_main;
            let p = self.file_scope(prelude)?;
            env = env.with_scope(p);
        }
        let mut exports = Scope::default();
        let ast: &'a futhark_syntax::ast::SourceFile = input.ast;
        let r = self.decs(&ast.decs, &mut env, &mut exports, file);
        self.loading.pop();
        r?;
        self.file_envs.insert(file, env);
        let exports = Rc::new(exports);
        self.file_scopes.insert(file, exports.clone());
        Ok(exports)
    }

    /// The environment at the end of a file (for lowering its entry points).
    pub fn file_env(&mut self, file: FileId) -> LResult<Env<'a>> {
        if let Some(e) = self.file_envs.get(&file) {
            return Ok(e.clone());
        }
        self.file_scope(file)?;
        self.file_envs
            .get(&file)
            .cloned()
            .ok_or_else(|| LowerError::internal(None, "file environment missing"))
    }

    fn decs(
        &mut self,
        decs: &'a [Dec],
        env: &mut Env<'a>,
        exports: &mut Scope<'a>,
        file: FileId,
    ) -> LResult<()> {
        for d in decs {
            self.dec(d, env, exports, false, file)?;
        }
        Ok(())
    }

    fn dec(
        &mut self,
        d: &'a Dec,
        env: &mut Env<'a>,
        exports: &mut Scope<'a>,
        local: bool,
        file: FileId,
    ) -> LResult<()> {
        match &d.kind {
            DecKind::Val(vb) => {
                self.next_def += 1;
                let def = Rc::new(Def {
                    vb,
                    env: env.clone(),
                    id: self.next_def,
                });
                let b = Binding::Def(def);
                *env = env.with_val(&vb.name.name, b.clone());
                if !local {
                    exports.insert_val(&vb.name.name, b);
                }
            }
            DecKind::Type(_) | DecKind::Error => {}
            DecKind::Module(mb) => {
                let m = if mb.params.is_empty() {
                    let m = self.modexp(&mb.body, env, file)?;
                    match &mb.sig {
                        Some(sig) => ascribe(m, sig, env),
                        None => m,
                    }
                } else {
                    Module::Functor(Rc::new(Functor {
                        params: mb.params.iter().collect(),
                        ret: mb.sig.as_ref(),
                        body: &mb.body,
                        env: env.clone(),
                        file,
                    }))
                };
                *env = env.with_mod(&mb.name.name, m.clone());
                if !local {
                    exports.insert_mod(&mb.name.name, m);
                }
            }
            DecKind::ModuleType(mtb) => {
                let s = Rc::new(SigDef {
                    sig: &mtb.sig,
                    env: env.clone(),
                });
                *env = env.with_sig(&mtb.name.name, s.clone());
                if !local {
                    exports.sigs.insert(mtb.name.name.clone(), s);
                }
            }
            DecKind::Open(me) => {
                if let Module::Struct(s) = self.modexp(me, env, file)? {
                    *env = env.with_scope(s.clone());
                    if !local {
                        exports.extend(&s);
                    }
                }
            }
            DecKind::Import(path) => {
                let target = self.resolve_import(file, &path.value)?;
                let s = self.file_scope(target)?;
                *env = env.with_scope(s);
            }
            DecKind::Local(inner) => self.dec(inner, env, exports, true, file)?,
        }
        Ok(())
    }

    fn resolve_import(&self, from: FileId, written: &str) -> LResult<FileId> {
        self.files
            .get(&from)
            .and_then(|f| f.imports.get(written).copied())
            .ok_or_else(|| LowerError::internal(None, format!("unresolved import \"{written}\"")))
    }

    /// Evaluates a module expression.
    pub fn modexp(&mut self, me: &'a ModExp, env: &Env<'a>, file: FileId) -> LResult<Module<'a>> {
        match &me.kind {
            ModExpKind::Var(qn) => {
                let found = if qn.quals.is_empty() {
                    env.lookup_mod(&qn.name.name)
                } else {
                    env.module_path(&qn.quals)
                        .and_then(|m| member_mod(&m, &qn.name.name))
                };
                found.ok_or_else(|| {
                    LowerError::internal(
                        Some(qn.span),
                        format!("unknown module `{}`", qn.name.name),
                    )
                })
            }
            ModExpKind::Parens(m) => self.modexp(m, env, file),
            ModExpKind::Import(path) => {
                let target = self.resolve_import(file, &path.value)?;
                Ok(Module::Struct(self.file_scope(target)?))
            }
            ModExpKind::Decs(decs) => {
                let mut inner = env.clone();
                let mut exports = Scope::default();
                for d in decs {
                    self.dec(d, &mut inner, &mut exports, false, file)?;
                }
                Ok(Module::Struct(Rc::new(exports)))
            }
            ModExpKind::Apply(f, a) => {
                let fm = self.modexp(f, env, file)?;
                let am = self.modexp(a, env, file)?;
                match fm {
                    Module::Functor(fun) => self.apply_functor(&fun, am),
                    _ => Err(LowerError::internal(
                        Some(f.span),
                        "not a parametric module",
                    )),
                }
            }
            ModExpKind::Ascript(m, sig) => {
                let m = self.modexp(m, env, file)?;
                Ok(ascribe(m, sig, env))
            }
            ModExpKind::Lambda { param, ret, body } => Ok(Module::Functor(Rc::new(Functor {
                params: vec![param],
                ret: ret.as_ref(),
                body,
                env: env.clone(),
                file,
            }))),
            ModExpKind::Error => Err(LowerError::internal(Some(me.span), "erroneous module")),
        }
    }

    fn apply_functor(&mut self, fun: &Functor<'a>, arg: Module<'a>) -> LResult<Module<'a>> {
        let Some((param, rest)) = fun.params.split_first() else {
            return Err(LowerError::internal(None, "functor without parameters"));
        };
        let env = fun.env.with_mod(&param.name.name, arg);
        if !rest.is_empty() {
            return Ok(Module::Functor(Rc::new(Functor {
                params: rest.to_vec(),
                ret: fun.ret,
                body: fun.body,
                env,
                file: fun.file,
            })));
        }
        let m = self.modexp(fun.body, &env, fun.file)?;
        Ok(match fun.ret {
            Some(sig) => ascribe(m, sig, &env),
            None => m,
        })
    }
}
