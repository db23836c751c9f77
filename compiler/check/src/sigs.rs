//! Module types: specifications (`val`, `type`, `module`, `include`), refinement with
//! `with`, and parametric module types. Abstract types get unique names and are listed in
//! the resulting [`MTy`] with their path.

use std::sync::Arc;

use futhark_syntax::Span;
use futhark_syntax::ast::{
    Ident, SigExp, SigExpKind, SizeExp, Spec, SpecKind, TypeArg as AstTypeArg, TypeExp, TypeExpKind,
};

use crate::checker::{Checker, qual_string};
use crate::env::{AbsType, Env, FunSig, MTy, Mod, ModBinding, Scheme, TypeBinding, ValBinding};
use crate::info::{DefKind, DefRef};
use crate::modmatch::SubstMap;
use crate::typeexp::AnonMode;
use crate::types::{Liftedness, Name, RetType, Size, Subst, TParam, Type, TypeArg, TypeVar};

/// A `[]` left of an arrow in a value specification.
pub(crate) fn anonymous_param_size(te: &TypeExp) -> Option<Span> {
    fn in_type(te: &TypeExp, in_param: bool) -> Option<Span> {
        match &te.kind {
            TypeExpKind::Array { size, elem } => {
                if in_param && let SizeExp::Anonymous(sp) = size {
                    return Some(*sp);
                }
                in_type(elem, in_param)
            }
            TypeExpKind::Arrow { from, to, .. } => {
                in_type(from, true).or_else(|| in_type(to, in_param))
            }
            TypeExpKind::Parens(t) | TypeExpKind::Unique(t) => in_type(t, in_param),
            TypeExpKind::Tuple(ts) => ts.iter().find_map(|t| in_type(t, in_param)),
            TypeExpKind::Record(fs) => fs.iter().find_map(|(_, t)| in_type(t, in_param)),
            TypeExpKind::Apply(f, a) => in_type(f, in_param).or_else(|| match a {
                AstTypeArg::Type(t) => in_type(t, in_param),
                AstTypeArg::Size(SizeExp::Anonymous(sp)) if in_param => Some(*sp),
                AstTypeArg::Size(_) => None,
            }),
            TypeExpKind::Sum(cs) => cs
                .iter()
                .flat_map(|(_, ts)| ts)
                .find_map(|t| in_type(t, in_param)),
            TypeExpKind::Existential { ty, .. } => in_type(ty, in_param),
            _ => None,
        }
    }
    match &te.kind {
        TypeExpKind::Arrow { .. } => in_type(te, false),
        _ => None,
    }
}

/// Named parameters bound twice in one function type.
fn duplicate_param_name(te: &TypeExp, seen: &mut Vec<String>) -> Option<Ident> {
    match &te.kind {
        TypeExpKind::Arrow { param, from: _, to } => {
            if let Some(p) = param {
                if seen.contains(&p.name) {
                    return Some(p.clone());
                }
                seen.push(p.name.clone());
            }
            duplicate_param_name(to, seen)
        }
        TypeExpKind::Parens(t) => duplicate_param_name(t, seen),
        _ => None,
    }
}

impl Checker<'_> {
    pub fn check_sigexp(&mut self, se: &SigExp) -> MTy {
        if self.too_deep() {
            self.error("too-deep", se.span, "Module type nested too deeply.");
            return empty_mty();
        }
        self.depth += 1;
        let r = self.check_sigexp_inner(se);
        self.depth -= 1;
        r
    }

    fn check_sigexp_inner(&mut self, se: &SigExp) -> MTy {
        match &se.kind {
            SigExpKind::Error => empty_mty(),
            SigExpKind::Parens(s) => self.check_sigexp(s),
            SigExpKind::Var(qn) => match self.lookup_modtype(qn) {
                Some(b) => {
                    self.resolve_to(qn.span, &b.def);
                    self.freshen_mty(&b.mty, "")
                }
                None => {
                    if !self.diags.iter().any(|d| d.span == qn.span) {
                        self.error(
                            "unknown-name",
                            qn.span,
                            format!("Unknown module type \"{}\".", qual_string(qn)),
                        );
                    }
                    empty_mty()
                }
            },
            SigExpKind::Specs(specs) => {
                let saved = self.env.clone();
                let mut senv = Env::default();
                let mut abs = Vec::new();
                // Names specified so far, by namespace (values and modules share one).
                let mut specified: Vec<(bool, &str)> = Vec::new();
                for spec in specs {
                    let named = match &spec.kind {
                        SpecKind::Val { name, .. } => Some((true, name, "value")),
                        SpecKind::Module { name, .. } => Some((true, name, "module")),
                        SpecKind::Type { name, .. } => Some((false, name, "type")),
                        SpecKind::Include(_) | SpecKind::Error => None,
                    };
                    if let Some((term, name, what)) = named {
                        if specified.contains(&(term, name.name.as_str())) {
                            self.error(
                                "duplicate-definition",
                                name.span,
                                format!(
                                    "Duplicate definition of {what} \"{}\" in a module type.",
                                    name.name
                                ),
                            );
                        }
                        specified.push((term, name.name.as_str()));
                    }
                    self.env = saved.clone();
                    self.env.extend(&senv);
                    self.check_spec(spec, &mut senv, &mut abs);
                }
                self.env = saved;
                MTy {
                    abs,
                    m: Mod::Env(Arc::new(senv)),
                }
            }
            SigExpKind::With {
                sig,
                name,
                tparams,
                ty,
            } => {
                let mty = self.check_sigexp(sig);
                self.refine(mty, name, tparams, ty, se.span)
            }
            SigExpKind::Arrow { param, from, to } => {
                let pmty = self.check_sigexp(from);
                let saved = self.env.clone();
                let pname = match param {
                    Some(p) => {
                        let v = self.fresh(&p.name);
                        let def = DefRef::new(&v, DefKind::Module, Some(p.span), None);
                        self.resolve_to(p.span, &def);
                        self.env.insert_mod(
                            Name::from(p.name.as_str()),
                            ModBinding {
                                vname: v,
                                m: pmty.m.clone(),
                                def,
                            },
                        );
                        Name::from(p.name.as_str())
                    }
                    None => Name::from("_"),
                };
                let rmty = self.check_sigexp(to);
                self.env = saved;
                MTy {
                    abs: vec![],
                    m: Mod::Fun(Arc::new(FunSig {
                        param_name: pname,
                        param: pmty,
                        ret: rmty,
                    })),
                }
            }
        }
    }

    fn check_spec(&mut self, spec: &Spec, senv: &mut Env, abs: &mut Vec<AbsType>) {
        let doc = spec.doc.as_ref().map(|d| Arc::<str>::from(d.text.as_str()));
        match &spec.kind {
            SpecKind::Error => {}
            SpecKind::Val { name, tparams, ty } => {
                if let Some(sp) = anonymous_param_size(ty) {
                    self.error(
                        "anonymous-size-in-spec",
                        sp,
                        format!(
                            "All function parameters must have non-anonymous sizes: add size parameters to value specification \"{}\".",
                            name.name
                        ),
                    );
                }
                if let Some(dup) = duplicate_param_name(ty, &mut Vec::new()) {
                    self.error(
                        "duplicate-binding",
                        dup.span,
                        format!(
                            "Parameter \"{}\" is also bound by an earlier parameter.",
                            dup.name
                        ),
                    );
                }
                let mark = self.scope_mark();
                self.level += 1;
                let tps = self.bind_tparams(tparams);
                let r = self.resolve_type(ty, AnonMode::Existential);
                self.scope_reset(mark);
                self.level -= 1;
                let t = self.uni.zonk(&r.ty);
                let v = self.fresh(&name.name);
                let def = DefRef::new(&v, DefKind::Value, Some(name.span), doc);
                self.resolve_to(name.span, &def);
                senv.insert_val(
                    Name::from(name.name.as_str()),
                    ValBinding {
                        vname: v,
                        scheme: std::sync::Arc::new(Scheme::Poly(tps, t)),
                        def,
                    },
                );
            }
            SpecKind::Type {
                liftedness,
                name,
                tparams,
                def: Some(te),
            } => {
                let b = self.check_type_def(name, *liftedness, tparams, te, doc);
                senv.insert_type(Name::from(name.name.as_str()), b);
            }
            SpecKind::Type {
                liftedness,
                name,
                tparams,
                def: None,
            } => {
                let mark = self.scope_mark();
                let tps = self.bind_tparams(tparams);
                self.scope_reset(mark);
                let v = self.fresh(&name.name);
                self.abstract_lifted.insert(v.clone(), *liftedness);
                self.uni.abstract_lifted.insert(v.clone(), *liftedness);
                let def = DefRef::new(&v, DefKind::Type, Some(name.span), doc);
                self.resolve_to(name.span, &def);
                let args = tps
                    .iter()
                    .map(|p| match p {
                        TParam::Size { name } => TypeArg::Size(Size::Var(name.clone())),
                        TParam::Type { name, .. } => TypeArg::Type(Type::var(name.clone())),
                    })
                    .collect();
                let tname = Name::from(name.name.as_str());
                abs.retain(|a| a.path.as_slice() != [tname.clone()]);
                abs.push(AbsType {
                    vname: v.clone(),
                    params: tps.clone(),
                    lifted: *liftedness,
                    path: vec![tname.clone()],
                });
                senv.insert_type(
                    tname,
                    TypeBinding {
                        params: tps,
                        ty: RetType::plain(Type::Var(TypeVar {
                            name: v,
                            unique: false,
                            args,
                        })),
                        lifted: *liftedness,
                        def,
                    },
                );
            }
            SpecKind::Module { name, sig } => {
                let mty = self.check_sigexp(sig);
                let mname = Name::from(name.name.as_str());
                for a in mty.abs {
                    let mut path = vec![mname.clone()];
                    path.extend(a.path);
                    abs.push(AbsType { path, ..a });
                }
                let v = self.fresh(&name.name);
                let def = DefRef::new(&v, DefKind::Module, Some(name.span), doc);
                self.resolve_to(name.span, &def);
                senv.insert_mod(
                    mname,
                    ModBinding {
                        vname: v,
                        m: mty.m,
                        def,
                    },
                );
            }
            SpecKind::Include(sig) => {
                let mty = self.check_sigexp(sig);
                match &mty.m {
                    Mod::Env(e) => {
                        for t in e.types.keys() {
                            if senv.types.contains_key(t) {
                                self.warn(
                                    "include-shadows",
                                    spec.span,
                                    format!("Inclusion shadows type \"{t}\"."),
                                );
                            }
                        }
                        senv.extend(e);
                        for a in mty.abs {
                            abs.retain(|x| x.path != a.path);
                            abs.push(a);
                        }
                    }
                    Mod::Fun(_) => {
                        self.error(
                            "module-is-parametric",
                            sig.span,
                            "Cannot include a parametric module type.",
                        );
                    }
                }
            }
        }
    }

    /// `mt with p.t 'a = τ`: makes an abstract type concrete.
    fn refine(
        &mut self,
        mty: MTy,
        qn: &futhark_syntax::ast::QualName,
        tparams: &[futhark_syntax::ast::TypeParam],
        te: &TypeExp,
        span: Span,
    ) -> MTy {
        let mut path: Vec<Name> = qn
            .quals
            .iter()
            .map(|q| Name::from(q.name.as_str()))
            .collect();
        path.push(Name::from(qn.name.name.as_str()));
        let pstr = qual_string(qn);
        let Some(idx) = mty.abs.iter().position(|a| a.path == path) else {
            if type_exists(&mty.m, &path) {
                self.error(
                    "not-abstract",
                    qn.span,
                    format!(
                        "Cannot refine \"{pstr}\": it is not an abstract type of the module type."
                    ),
                );
            } else {
                self.error(
                    "unknown-type",
                    qn.span,
                    format!("Cannot refine \"{pstr}\": the module type has no such abstract type."),
                );
            }
            return mty;
        };
        let a = mty.abs[idx].clone();
        let mark = self.scope_mark();
        self.level += 1;
        let tps = self.bind_tparams(tparams);
        let r = self.resolve_type(te, AnonMode::Existential);
        self.scope_reset(mark);
        self.level -= 1;
        if !r.ext.is_empty() && a.lifted == Liftedness::Unlifted {
            self.error(
                "anonymous-size-in-spec",
                te.span,
                format!(
                    "Anonymous dimensions are not allowed here: the refinement of \"{pstr}\" must name its sizes."
                ),
            );
        }
        let compatible = tps.len() == a.params.len()
            && tps.iter().zip(&a.params).all(|(x, y)| match (x, y) {
                (TParam::Size { .. }, TParam::Size { .. }) => true,
                (TParam::Type { lifted: lx, .. }, TParam::Type { lifted: ly, .. }) => lx >= ly,
                _ => false,
            });
        if !compatible {
            self.error(
                "refine-mismatch",
                span,
                format!(
                    "Cannot refine a type having parameters \"{}\" with a type having parameters \"{}\".",
                    crate::pretty::tparams_prefix(&a.params).trim_end(),
                    crate::pretty::tparams_prefix(&tps).trim_end()
                ),
            );
            return mty;
        }
        let mut needed = r.lifted;
        if !r.ext.is_empty() {
            needed = needed.max(Liftedness::SizeLifted);
        }
        if r.ty.contains_fun() {
            needed = Liftedness::Lifted;
        }
        let _ = needed;
        let mut s = SubstMap::default();
        s.insert(
            a.vname.clone(),
            Subst::TypeFn(
                tps,
                RetType {
                    ext: r.ext,
                    ty: r.ty,
                },
            ),
        );
        let mut abs = mty.abs.clone();
        abs.remove(idx);
        let m = self.subst_mod(&mty.m, &s);
        MTy { abs, m }
    }
}

fn type_exists(m: &Mod, path: &[Name]) -> bool {
    match (m, path) {
        (Mod::Env(e), [t]) => e.types.contains_key(t),
        (Mod::Env(e), [m, rest @ ..]) => e.mods.get(m).is_some_and(|b| type_exists(&b.m, rest)),
        _ => false,
    }
}

fn empty_mty() -> MTy {
    MTy {
        abs: vec![],
        m: Mod::Env(Arc::new(Env::default())),
    }
}
