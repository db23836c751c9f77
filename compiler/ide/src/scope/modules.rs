//! The walk over declarations, module expressions and module types: module-level
//! bindings, `open`/`import`/`local`, modules and functors, specs and sealing.

use std::sync::Arc;

use futhark_syntax::ast::{
    Dec, DecKind, DocComment, ModBind, ModExp, ModExpKind, SigExp, SigExpKind, Spec, SpecKind,
    ValBind, ValKeyword,
};

use super::terms::PARAM;
use super::{Level, NameClass, Target, Walker};
use crate::TextRange;
use crate::defs::{self, DefKind, Ns, snippet};
use crate::env::{DefLoc, Env, ModEntry};

impl Walker<'_> {
    /// Declarations in order, each seeing the earlier ones. `region` is the extent of the
    /// enclosing file or module body, for capturing the scope between declarations.
    pub(super) fn decs(&mut self, decs: &[Dec], region: TextRange) {
        let mut boundary_done = false;
        for dec in decs {
            if !boundary_done && self.cursor.is_some_and(|c| dec.span.start >= c) {
                self.capture(region);
                boundary_done = true;
            }
            self.dec(dec, false, None);
        }
        if !boundary_done {
            self.capture(region);
        }
    }

    fn dec(&mut self, dec: &Dec, local: bool, outer_doc: Option<&DocComment>) {
        let doc = dec.doc.as_ref().or(outer_doc).map(|d| d.text.clone());
        match &dec.kind {
            DecKind::Val(v) => self.val_bind(dec, v, local, doc),
            DecKind::Type(t) => {
                let mut def = self.def(&t.name.name, DefKind::Type, t.name.span, dec.span);
                def.signature = defs::type_signature(
                    self.text,
                    t.liftedness,
                    &t.name.name,
                    &t.tparams,
                    Some(&t.ty),
                );
                def.doc = doc;
                let loc = self.new_def(def);
                let mark = self.mark();
                self.tparams(&t.tparams);
                self.ty(&t.ty);
                self.reset(mark);
                self.bind_level(Ns::Type, &t.name.name, loc, local);
            }
            DecKind::Module(m) => self.mod_bind(dec, m, local, doc),
            DecKind::ModuleType(m) => {
                let mut def = self.def(&m.name.name, DefKind::ModuleType, m.name.span, dec.span);
                def.signature = format!("module type {}", m.name.name);
                def.doc = doc;
                let loc = self.new_def(def);
                self.containers.push(loc.id);
                let env = self.sig_exp(&m.sig);
                self.containers.pop();
                self.set_members(loc, &env);
                let entry = ModEntry {
                    def: Some(loc),
                    env,
                };
                self.bind_level_module(Ns::ModType, &m.name.name, entry, local);
            }
            DecKind::Open(m) => {
                let env = self.mod_exp(m);
                self.open_in_level(&env, local);
            }
            DecKind::Import(lit) => {
                // `import "x"` is `local open import "x"`: visible here, not re-exported.
                let env = self.import_env(lit);
                self.open_in_level(&env, true);
            }
            DecKind::Local(inner) => self.dec(inner, true, dec.doc.as_ref().or(outer_doc)),
            DecKind::Error => {}
        }
    }

    fn val_bind(&mut self, dec: &Dec, v: &ValBind, local: bool, doc: Option<String>) {
        let kind = if v.keyword == ValKeyword::Entry {
            DefKind::Entry
        } else if v.params.is_empty() {
            DefKind::Value
        } else {
            DefKind::Function
        };
        let (signature, params) = defs::val_signature(self.text, v);
        let mut def = self.def(&v.name.name, kind, v.name.span, dec.span);
        def.signature = signature;
        def.params = params;
        def.doc = doc;
        let loc = self.new_def(def);
        // Bound before the body: a top-level function may call itself.
        self.bind_level(Ns::Val, &v.name.name, loc, local);
        if self.skippable(dec.span) {
            return;
        }
        let mark = self.mark();
        self.tparams(&v.tparams);
        for p in &v.params {
            self.pat(p, PARAM);
        }
        if let Some(ret) = &v.ret {
            self.ty(ret);
        }
        self.capture(TextRange::new(v.name.span.end, dec.span.end));
        self.exp(&v.body);
        self.reset(mark);
    }

    fn mod_bind(
        &mut self,
        dec: &futhark_syntax::ast::Dec,
        m: &ModBind,
        local: bool,
        doc: Option<String>,
    ) {
        let kind = if m.params.is_empty() {
            DefKind::Module
        } else {
            DefKind::Functor
        };
        let mut signature = format!("module {}", m.name.name);
        for p in &m.params {
            signature.push(' ');
            signature.push_str(&snippet(self.text, p.span));
        }
        if let Some(sig) = &m.sig {
            signature.push_str(" : ");
            signature.push_str(&snippet(self.text, sig.span));
        }
        let mut def = self.def(&m.name.name, kind, m.name.span, dec.span);
        def.signature = signature;
        def.doc = doc;
        let loc = self.new_def(def);
        self.containers.push(loc.id);
        self.levels.push(Level::default());
        for p in &m.params {
            let env = self.sig_exp(&p.sig);
            self.module_param(&p.name, p.span, env);
        }
        let sig_env = m.sig.as_ref().map(|s| self.sig_exp(s));
        let body_env = self.mod_exp(&m.body);
        self.levels.pop();
        self.containers.pop();
        let env = match sig_env {
            Some(sig_env) => self.seal(body_env, &sig_env),
            None => body_env,
        };
        self.set_members(loc, &env);
        let entry = ModEntry {
            def: Some(loc),
            env,
        };
        self.bind_level_module(Ns::Mod, &m.name.name, entry, local);
    }

    /// Binds a module parameter `(P: S)` in the innermost level.
    fn module_param(
        &mut self,
        name: &futhark_syntax::ast::Ident,
        span: futhark_syntax::Span,
        env: Arc<Env>,
    ) {
        let mut def = self.def(&name.name, DefKind::ModuleParam, name.span, span);
        def.signature = snippet(self.text, span);
        def.members = Some(env.clone());
        let loc = self.new_def(def);
        let entry = ModEntry {
            def: Some(loc),
            env,
        };
        self.bind_level_module(Ns::Mod, &name.name, entry, true);
    }

    fn set_members(&mut self, loc: DefLoc, env: &Arc<Env>) {
        if let Some(def) = self.defs.get_mut(loc.id.0 as usize) {
            def.members = Some(env.clone());
        }
    }

    /// A module body seen through a module type: the names of the module type, each
    /// resolved to the body's definition where there is one. Body definitions without a
    /// doc comment of their own remember the spec (hover shows its documentation).
    fn seal(&mut self, body: Arc<Env>, sig: &Env) -> Arc<Env> {
        if sig.is_empty() {
            return body;
        }
        let mut out = Env::default();
        for (name, spec) in &sig.vals {
            let chosen = body.vals.get(name).copied().unwrap_or(*spec);
            self.link_spec(chosen, *spec);
            out.vals.insert(name.clone(), chosen);
        }
        for (name, spec) in &sig.types {
            let chosen = body.types.get(name).copied().unwrap_or(*spec);
            self.link_spec(chosen, *spec);
            out.types.insert(name.clone(), chosen);
        }
        for (name, spec) in &sig.mods {
            let chosen = body.mods.get(name).cloned().unwrap_or_else(|| spec.clone());
            out.mods.insert(name.clone(), chosen);
        }
        for (name, spec) in &sig.mtys {
            let chosen = body.mtys.get(name).cloned().unwrap_or_else(|| spec.clone());
            out.mtys.insert(name.clone(), chosen);
        }
        Arc::new(out)
    }

    fn link_spec(&mut self, def: DefLoc, spec: DefLoc) {
        if def == spec || def.file != self.file {
            return;
        }
        if let Some(d) = self.defs.get_mut(def.id.0 as usize)
            && d.spec.is_none()
        {
            d.spec = Some(spec);
        }
    }

    // -----------------------------------------------------------------------------------
    // Module expressions

    pub(super) fn mod_exp(&mut self, m: &ModExp) -> Arc<Env> {
        match &m.kind {
            ModExpKind::Var(qn) => {
                let path: Vec<_> = qn
                    .quals
                    .iter()
                    .chain(std::iter::once(&qn.name))
                    .cloned()
                    .collect();
                self.module_path(&path).unwrap_or_default()
            }
            ModExpKind::Parens(inner) => self.mod_exp(inner),
            ModExpKind::Import(lit) => self.import_env(lit),
            ModExpKind::Decs(decs) => {
                self.levels.push(Level::default());
                self.decs(decs, m.span.into());
                let level = self.levels.pop().unwrap_or_default();
                Arc::new(level.exports)
            }
            ModExpKind::Apply(f, arg) => {
                // The result has the functor body's members (navigation lands there).
                let env = self.mod_exp(f);
                self.mod_exp(arg);
                env
            }
            ModExpKind::Ascript(inner, sig) => {
                let env = self.mod_exp(inner);
                let sig_env = self.sig_exp(sig);
                self.seal(env, &sig_env)
            }
            ModExpKind::Lambda { param, ret, body } => {
                self.levels.push(Level::default());
                let env = self.sig_exp(&param.sig);
                self.module_param(&param.name, param.span, env);
                if let Some(ret) = ret {
                    self.sig_exp(ret);
                }
                let env = self.mod_exp(body);
                self.levels.pop();
                env
            }
            ModExpKind::Error => Arc::default(),
        }
    }

    // -----------------------------------------------------------------------------------
    // Module types

    pub(super) fn sig_exp(&mut self, s: &SigExp) -> Arc<Env> {
        match &s.kind {
            SigExpKind::Var(qn) => {
                let entry = if qn.quals.is_empty() {
                    self.lookup_mty(&qn.name.name)
                } else {
                    self.module_path(&qn.quals)
                        .and_then(|env| env.mtys.get(&qn.name.name).cloned())
                };
                match entry {
                    Some(entry) => {
                        let target = entry.def.map_or(Target::Unresolved, Target::Def);
                        self.reference(qn.name.span, target, NameClass::ModuleType);
                        entry.env
                    }
                    None => {
                        self.reference(qn.name.span, Target::Unresolved, NameClass::ModuleType);
                        Arc::default()
                    }
                }
            }
            SigExpKind::Parens(inner) => self.sig_exp(inner),
            SigExpKind::Specs(specs) => {
                self.levels.push(Level::default());
                for spec in specs {
                    self.spec(spec);
                }
                let level = self.levels.pop().unwrap_or_default();
                Arc::new(level.exports)
            }
            SigExpKind::With {
                sig,
                name,
                tparams,
                ty,
            } => {
                let env = self.sig_exp(sig);
                // The refined type is named inside the module type.
                let mut inner = env.clone();
                for q in &name.quals {
                    let next = inner.mods.get(&q.name).cloned();
                    self.module_ref(q, next.as_ref().and_then(|n| n.def));
                    inner = next.map(|n| n.env).unwrap_or_default();
                }
                let found = inner.types.get(&name.name.name).copied();
                self.reference_def(name.name.span, found, NameClass::Type);
                let mark = self.mark();
                self.tparams(tparams);
                self.ty(ty);
                self.reset(mark);
                env
            }
            SigExpKind::Arrow { param, from, to } => {
                let from_env = self.sig_exp(from);
                self.levels.push(Level::default());
                if let Some(p) = param {
                    self.module_param(p, p.span, from_env);
                }
                let env = self.sig_exp(to);
                self.levels.pop();
                env
            }
            SigExpKind::Error => Arc::default(),
        }
    }

    fn spec(&mut self, spec: &Spec) {
        let doc = spec.doc.as_ref().map(|d| d.text.clone());
        match &spec.kind {
            SpecKind::Val { name, tparams, ty } => {
                let kind = if defs::is_function_type(ty) {
                    DefKind::Function
                } else {
                    DefKind::Value
                };
                let (signature, params) =
                    defs::val_spec_signature(self.text, &name.name, tparams, ty);
                let mut def = self.def(&name.name, kind, name.span, spec.span);
                def.signature = signature;
                def.params = params;
                def.doc = doc;
                def.is_spec = true;
                let loc = self.new_def(def);
                let mark = self.mark();
                self.tparams(tparams);
                self.ty(ty);
                self.reset(mark);
                self.bind_level(Ns::Val, &name.name, loc, false);
            }
            SpecKind::Type {
                liftedness,
                name,
                tparams,
                def: body,
            } => {
                let mut def = self.def(&name.name, DefKind::Type, name.span, spec.span);
                def.signature = defs::type_signature(
                    self.text,
                    *liftedness,
                    &name.name,
                    tparams,
                    body.as_ref(),
                );
                def.doc = doc;
                def.is_spec = true;
                let loc = self.new_def(def);
                let mark = self.mark();
                self.tparams(tparams);
                if let Some(body) = body {
                    self.ty(body);
                }
                self.reset(mark);
                self.bind_level(Ns::Type, &name.name, loc, false);
            }
            SpecKind::Module { name, sig } => {
                let env = self.sig_exp(sig);
                let mut def = self.def(&name.name, DefKind::Module, name.span, spec.span);
                def.signature = format!("module {} : {}", name.name, snippet(self.text, sig.span));
                def.doc = doc;
                def.is_spec = true;
                def.members = Some(env.clone());
                let loc = self.new_def(def);
                let entry = ModEntry {
                    def: Some(loc),
                    env,
                };
                self.bind_level_module(Ns::Mod, &name.name, entry, false);
            }
            SpecKind::Include(sig) => {
                let env = self.sig_exp(sig);
                self.open_in_level(&env, false);
            }
            SpecKind::Error => {}
        }
    }
}
