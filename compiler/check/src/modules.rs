//! Declarations and module expressions: `def`, `type`, `module`, `module type`, `open`,
//! `import`, `local`; module bodies, functors (parametric modules) and their application,
//! and duplicate-definition checks.

use std::sync::Arc;

use futhark_syntax::Span;
use futhark_syntax::ast::{
    Dec, DecKind, ModBind, ModExp, ModExpKind, ModParam, SigExp, StrLit, TypeBind,
};
use rustc_hash::FxHashSet;

use crate::checker::{Checker, qual_string};
use crate::env::{
    Env, FileScope, FunSig, MTy, MTyBinding, Mod, ModBinding, Namespace, TypeBinding, ValBinding,
};
use crate::info::{DefKind, DefRef};
use crate::typeexp::AnonMode;

/// What a top-level-style declaration binds: a name with its binding and the span of the
/// defining name (for duplicate definitions), or the contents of an opened module.
#[derive(Clone, Debug)]
pub(crate) enum DecOutcome {
    Val(Name, ValBinding, Span),
    Type(Name, TypeBinding, Span),
    Mod(Name, ModBinding, Span),
    ModType(Name, MTyBinding, Span),
    Open(Arc<Env>),
}
use crate::types::{Liftedness, Name, RetType, TParam};

impl Checker<'_> {
    /// Checks declarations in order, each seeing the ones before it.
    pub fn check_decs(&mut self, decs: &[Dec]) {
        for d in decs {
            self.check_dec(d, false);
        }
    }

    fn define(&mut self, ns: Namespace, name: &Name, span: Span) {
        let what = match ns {
            Namespace::Val => "value",
            Namespace::Type => "type",
            Namespace::Mod => "module",
            Namespace::ModType => "module type",
        };
        if let Some(set) = self.defined.last_mut() {
            // Values and modules share a namespace.
            let key_ns = if ns == Namespace::Mod {
                Namespace::Val
            } else {
                ns
            };
            if !set.insert((key_ns, name.clone())) {
                self.error(
                    "duplicate-definition",
                    span,
                    format!("Duplicate definition of {what} \"{name}\"."),
                );
            }
        }
    }

    /// Brings a checked value declaration into scope (and into the exports unless `local`).
    pub(crate) fn bind_top_val(&mut self, name: &Name, b: &ValBinding, span: Span, local: bool) {
        self.define(Namespace::Val, name, span);
        self.env.insert_val(name.clone(), b.clone());
        if !local {
            self.exports.insert_val(name.clone(), b.clone());
        }
    }

    pub fn check_dec(&mut self, dec: &Dec, local: bool) {
        self.def_diag_start = self.diags.len();
        match &dec.kind {
            DecKind::Error => {}
            DecKind::Import(path) => {
                if let Some(scope) = self.import_scope(path) {
                    self.env.extend(&scope.env);
                }
            }
            DecKind::Local(inner) => self.check_dec(inner, true),
            _ => {
                if let Some(o) = self.check_dec_outcome(dec) {
                    self.bind_outcome(&o, local);
                }
            }
        }
    }

    /// Checks a value, type, module, module type or `open` declaration and returns what it
    /// binds, without bringing it into scope (see [`Checker::bind_outcome`]). `None` for
    /// other declarations and for those that bind nothing.
    pub(crate) fn check_dec_outcome(&mut self, dec: &Dec) -> Option<DecOutcome> {
        match &dec.kind {
            DecKind::Val(vb) => {
                let (name, b) = self.check_valbind(dec, vb)?;
                Some(DecOutcome::Val(name, b, vb.name.span))
            }
            DecKind::Type(tb) => {
                let (name, b) = self.check_typebind(dec, tb);
                Some(DecOutcome::Type(name, b, tb.name.span))
            }
            DecKind::Module(mb) => {
                let (name, b) = self.check_modbind(dec, mb);
                Some(DecOutcome::Mod(name, b, mb.name.span))
            }
            DecKind::ModuleType(mtb) => {
                self.begin_def();
                let mty = self.check_sigexp(&mtb.sig);
                self.finish_def(None);
                let name = Name::from(mtb.name.name.as_str());
                let v = self.fresh(&mtb.name.name);
                let doc = dec.doc.as_ref().map(|d| Arc::<str>::from(d.text.as_str()));
                let def = DefRef::new(&v, DefKind::ModuleType, Some(mtb.name.span), doc);
                self.resolve_to(mtb.name.span, &def);
                Some(DecOutcome::ModType(
                    name,
                    MTyBinding { mty, def },
                    mtb.name.span,
                ))
            }
            DecKind::Open(me) => match self.check_modexp(me, "") {
                Mod::Env(e) => Some(DecOutcome::Open(e)),
                Mod::Fun(_) => {
                    self.error(
                        "module-is-parametric",
                        me.span,
                        "Cannot open a parametric module: the module is a parametric module and must be applied first.",
                    );
                    None
                }
            },
            DecKind::Error | DecKind::Import(_) | DecKind::Local(_) => None,
        }
    }

    /// Brings what a declaration bound into scope (and into the exports unless `local`).
    pub(crate) fn bind_outcome(&mut self, o: &DecOutcome, local: bool) {
        match o {
            DecOutcome::Val(name, b, span) => self.bind_top_val(name, b, *span, local),
            DecOutcome::Type(name, b, span) => {
                self.define(Namespace::Type, name, *span);
                self.env.insert_type(name.clone(), b.clone());
                if !local {
                    self.exports.insert_type(name.clone(), b.clone());
                }
            }
            DecOutcome::Mod(name, b, span) => {
                self.define(Namespace::Mod, name, *span);
                self.env.insert_mod(name.clone(), b.clone());
                if !local {
                    self.exports.insert_mod(name.clone(), b.clone());
                }
            }
            DecOutcome::ModType(name, b, span) => {
                self.define(Namespace::ModType, name, *span);
                self.env.insert_modtype(name.clone(), b.clone());
                if !local {
                    self.exports.insert_modtype(name.clone(), b.clone());
                }
            }
            DecOutcome::Open(e) => {
                self.env.extend(e);
                if !local {
                    self.exports.extend(e);
                }
            }
        }
    }

    /// The scope exported by an imported file.
    fn import_scope(&mut self, path: &StrLit) -> Option<Arc<FileScope>> {
        if path.value.starts_with("/prelude") && !self.in_prelude {
            self.error(
                "import-prelude",
                path.span,
                format!(
                    "The prelude file \"{}\" may not be explicitly imported.",
                    path.value
                ),
            );
            return None;
        }
        (self.imports)(&path.value)
    }

    pub fn check_typebind(&mut self, dec: &Dec, tb: &TypeBind) -> (Name, TypeBinding) {
        self.begin_def();
        let doc = dec.doc.as_ref().map(|d| Arc::<str>::from(d.text.as_str()));
        let b = self.check_type_def(&tb.name, tb.liftedness, &tb.tparams, &tb.ty, doc);
        self.finish_def(None);
        (Name::from(tb.name.name.as_str()), b)
    }

    /// Checks `type [~|^] name params = ty` (also used for type specs with a definition).
    pub fn check_type_def(
        &mut self,
        name: &futhark_syntax::ast::Ident,
        lifted: Liftedness,
        tparams: &[futhark_syntax::ast::TypeParam],
        te: &futhark_syntax::ast::TypeExp,
        doc: Option<Arc<str>>,
    ) -> TypeBinding {
        if let Some(sp) = crate::sigs::anonymous_param_size(te) {
            self.error(
                "anonymous-nonconstructive",
                sp,
                format!(
                    "Type abbreviation contains an anonymous size not used constructively as an array size: the one in a function parameter of \"{}\".",
                    name.name
                ),
            );
        }
        let mark = self.scope_mark();
        self.level += 1;
        let tps = self.bind_tparams(tparams);
        let r = self.resolve_type(te, AnonMode::Existential);
        self.scope_reset(mark);
        self.level -= 1;
        // Sizes left to infer inside function parameters of the abbreviation (reported
        // above as non-constructive) are fixed so they do not count as ambiguous.
        for v in self.uni.zonk(&r.ty).free_size_vars() {
            if self.uni.is_free_var(&v) {
                let n = self.fresh(v.name());
                self.uni.bind_rigid(&n, 0);
                let _ = self
                    .uni
                    .unify_size(&crate::types::Size::Var(v), &crate::types::Size::Var(n));
            }
        }
        let ty = self.uni.zonk(&r.ty);
        let used = ty.size_vars();
        for (tp, ast_tp) in tps.iter().zip(tparams) {
            if let TParam::Size { name: n } = tp
                && !used.contains(n)
            {
                self.error(
                    "unused-size",
                    ast_tp.name().span,
                    format!(
                        "Size parameter \"[{}]\" unused in type \"{}\".",
                        n.name(),
                        name.name
                    ),
                );
            }
        }
        // Hidden sizes must be array dimensions outside of function types.
        let mut constructive = Vec::new();
        ty.each_size(&mut |s, c| {
            if c && let crate::types::Size::Var(v) = s {
                constructive.push(v.clone());
            }
        });
        for e in &r.ext {
            if !constructive.contains(e) {
                self.error(
                    "anonymous-nonconstructive",
                    te.span,
                    format!(
                        "Type abbreviation contains an anonymous size not used constructively as an array size (in \"{}\").",
                        name.name
                    ),
                );
                break;
            }
        }
        // What the body needs, apart from hidden sizes of its own: the liftedness of the
        // types it mentions, and functions.
        let mut needed = r.lifted;
        if ty.contains_fun() {
            needed = Liftedness::Lifted;
        }
        // Type parameters used in the body count with their liftedness.
        for tp in &tps {
            if let TParam::Type { name: n, lifted: l } = tp {
                let mut occurs = false;
                ty.each_tyvar(&mut |v| occurs |= v == n);
                if occurs && *l > Liftedness::Unlifted {
                    needed = needed.max(*l);
                }
            }
        }
        let problem = if needed == Liftedness::Lifted && lifted < Liftedness::Lifted {
            Some(format!(
                "Non-lifted type abbreviations may not contain functions: \"{}\" is lifted; use \"type^\".",
                name.name
            ))
        } else if needed == Liftedness::SizeLifted && lifted < Liftedness::SizeLifted {
            Some(format!(
                "Non-size-lifted type abbreviations may not contain size-lifted types: \"{}\" is size-lifted (hides sizes); use \"type~\".",
                name.name
            ))
        } else if lifted == Liftedness::Unlifted && !r.ext.is_empty() {
            Some(format!(
                "Non-lifted type abbreviations may not use existential sizes in their definition: \"{}\" is size-lifted (hides sizes); use \"type~\" or add size parameters to \"{}\".",
                name.name, name.name
            ))
        } else {
            None
        };
        if let Some(msg) = problem {
            self.error("non-lifted-abbreviation", name.span, msg);
        }
        let v = self.fresh(&name.name);
        let def = DefRef::new(&v, DefKind::Type, Some(name.span), doc);
        self.resolve_to(name.span, &def);
        TypeBinding {
            params: tps,
            ty: RetType { ext: r.ext, ty },
            lifted,
            def,
        }
    }

    fn check_modbind(&mut self, dec: &Dec, mb: &ModBind) -> (Name, ModBinding) {
        let name = Name::from(mb.name.name.as_str());
        let mut path: Vec<String> = self.mod_path.iter().map(|x| x.to_string()).collect();
        path.push(mb.name.name.clone());
        let bind_path = path.join(".");
        self.mod_path.push(name.clone());
        let m = if mb.params.is_empty() {
            let m = self.check_modexp(&mb.body, &bind_path);
            self.settle_names();
            match &mb.sig {
                Some(sig) => {
                    let mty = self.check_sigexp_top(sig);
                    match self.ascribe(&m, &mty, mb.body.span, &bind_path) {
                        Some((m, abs)) => {
                            self.created_abs.extend(abs);
                            m
                        }
                        None => mty.m,
                    }
                }
                None => m,
            }
        } else {
            self.check_functor(&mb.params, mb.sig.as_ref(), &mb.body, &bind_path)
        };
        self.mod_path.pop();
        let v = self.fresh(&mb.name.name);
        let doc = dec.doc.as_ref().map(|d| Arc::<str>::from(d.text.as_str()));
        let def = DefRef::new(&v, DefKind::Module, Some(mb.name.name_span()), doc);
        self.resolve_to(mb.name.span, &def);
        (name, ModBinding { vname: v, m, def })
    }

    /// In a top-level module declaration, moves the name counter to a round number after a
    /// module body or functor argument, so that the names made after it (by ascription,
    /// functor application and the module's own name) stay the same when an edit inside
    /// the body makes it use a few more or fewer names; then the module's binding compares
    /// equal and the declarations using it can be replayed (see `incremental`). Fresh and
    /// incremental checks both do this.
    fn settle_names(&mut self) {
        const ROUND: u32 = 1 << 10;
        if self.mod_path.len() == 1 {
            let c = self.uni.supply.counter();
            if let Some(up) = c.checked_next_multiple_of(ROUND) {
                self.uni.supply.set_counter(up);
            }
        }
    }

    /// Checks a module type at declaration level (with its own definition state).
    fn check_sigexp_top(&mut self, sig: &SigExp) -> MTy {
        self.begin_def();
        let mty = self.check_sigexp(sig);
        self.finish_def(None);
        mty
    }

    /// Checks a parametric module `(P1: mt1) (P2: mt2) … [: sig] = body`.
    fn check_functor(
        &mut self,
        params: &[ModParam],
        sig: Option<&SigExp>,
        body: &ModExp,
        bind_path: &str,
    ) -> Mod {
        let Some((p, rest)) = params.split_first() else {
            return self.check_modexp(body, bind_path);
        };
        // The parameter's abstract types are named after it (`S.t`), as the body writes
        // them, so that types shown inside the functor (hover, inlay hints, errors) read
        // as written.
        let pmty = self.check_sigexp_top(&p.sig);
        let pmty = self.freshen_mty(&pmty, &p.name.name);
        let saved_env = self.env.clone();
        let saved_abs = self.created_abs.len();
        let pv = self.fresh(&p.name.name);
        let def = DefRef::new(&pv, DefKind::Module, Some(p.name.span), None);
        self.resolve_to(p.name.span, &def);
        self.env.insert_mod(
            Name::from(p.name.name.as_str()),
            ModBinding {
                vname: pv,
                m: pmty.m.clone(),
                def,
            },
        );
        self.module_depth += 1;
        let inner = if rest.is_empty() {
            let m = self.check_modexp(body, bind_path);
            self.settle_names();
            match sig {
                Some(sig) => {
                    let mty = self.check_sigexp_top(sig);
                    match self.ascribe(&m, &mty, body.span, bind_path) {
                        Some((m, abs)) => {
                            self.created_abs.extend(abs);
                            m
                        }
                        None => mty.m,
                    }
                }
                None => m,
            }
        } else {
            self.check_functor(rest, sig, body, bind_path)
        };
        self.module_depth -= 1;
        let abs = self.created_abs.split_off(saved_abs);
        self.env = saved_env;
        Mod::Fun(Arc::new(FunSig {
            param_name: Name::from(p.name.name.as_str()),
            param: pmty,
            ret: MTy { abs, m: inner },
        }))
    }

    pub fn check_modexp(&mut self, me: &ModExp, bind_path: &str) -> Mod {
        if self.too_deep() {
            self.error("too-deep", me.span, "Module expression nested too deeply.");
            return Mod::Env(Arc::new(Env::default()));
        }
        self.depth += 1;
        let m = self.check_modexp_inner(me, bind_path);
        self.depth -= 1;
        m
    }

    fn check_modexp_inner(&mut self, me: &ModExp, bind_path: &str) -> Mod {
        let empty = || Mod::Env(Arc::new(Env::default()));
        match &me.kind {
            ModExpKind::Error => empty(),
            ModExpKind::Parens(m) => self.check_modexp(m, bind_path),
            ModExpKind::Var(qn) => match self.lookup_mod(qn) {
                Some(b) => {
                    if b.vname == self.intrinsics.intrinsics_mod && !self.in_prelude {
                        self.error(
                            "intrinsics-module",
                            qn.span,
                            "The 'intrinsics' module may not be used in module expressions.",
                        );
                        return empty();
                    }
                    self.resolve_to(qn.span, &b.def);
                    b.m
                }
                None => {
                    if !self.diags.iter().any(|d| d.span == qn.span) {
                        self.error(
                            "unknown-name",
                            qn.span,
                            format!("Unknown module \"{}\".", qual_string(qn)),
                        );
                    }
                    empty()
                }
            },
            ModExpKind::Import(path) => match self.import_scope(path) {
                Some(scope) => Mod::Env(Arc::new(scope.env.clone())),
                None => empty(),
            },
            ModExpKind::Decs(decs) => {
                let saved_env = self.env.clone();
                let saved_exports = std::mem::take(&mut self.exports);
                self.defined.push(FxHashSet::default());
                self.check_decs(decs);
                self.defined.pop();
                let out = std::mem::replace(&mut self.exports, saved_exports);
                self.env = saved_env;
                Mod::Env(Arc::new(out))
            }
            ModExpKind::Apply(f, a) => {
                let fm = self.check_modexp(f, bind_path);
                let am = self.check_modexp(a, bind_path);
                self.settle_names();
                match fm {
                    Mod::Fun(sig) => match self.apply_functor(&sig, &am, me.span, bind_path) {
                        Some((m, abs)) => {
                            self.created_abs.extend(abs);
                            m
                        }
                        None => sig.ret.m.clone(),
                    },
                    Mod::Env(_) => {
                        self.error(
                            "module-not-parametric",
                            f.span,
                            "Cannot apply non-parametric module.",
                        );
                        empty()
                    }
                }
            }
            ModExpKind::Ascript(m, sig) => {
                let m = self.check_modexp(m, bind_path);
                self.settle_names();
                let mty = self.check_sigexp_top(sig);
                match self.ascribe(&m, &mty, me.span, bind_path) {
                    Some((m, abs)) => {
                        self.created_abs.extend(abs);
                        m
                    }
                    None => mty.m,
                }
            }
            ModExpKind::Lambda { param, ret, body } => {
                self.check_functor(std::slice::from_ref(param), ret.as_ref(), body, bind_path)
            }
        }
    }
}

trait NameSpan {
    fn name_span(&self) -> Span;
}

impl NameSpan for futhark_syntax::ast::Ident {
    fn name_span(&self) -> Span {
        self.span
    }
}
