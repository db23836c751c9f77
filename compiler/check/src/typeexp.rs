//! Resolving type expressions (`[n]i32`, `t [n] a`, `?[k].[k]f32`, `(x: i64) -> [x]i32`)
//! to semantic types: name lookup, application of abbreviations, size expressions,
//! anonymous sizes (whose meaning depends on where the type is written), uniqueness and
//! liftedness.

use std::collections::BTreeMap;

use futhark_syntax::Span;
use futhark_syntax::ast::{
    ExpKind, LitKind, QualName, SizeExp, TypeArg as AstTypeArg, TypeExp, TypeExpKind,
};

use crate::checker::{Checker, qual_string};
use crate::info::{DefKind, DefRef};
use crate::types::{
    Arrow, Liftedness, Name, PrimType, RetType, Size, TParam, Type, TypeArg, apply_type_fn,
};
use crate::unify::UnknownSource;

/// What an anonymous size `[]` means where the type is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AnonMode {
    /// A parameter type: an implicit size parameter (a size variable to be inferred).
    Param,
    /// A return type or the body of an abbreviation: an existential size.
    Existential,
    /// A type ascription `e : t`: matches any size.
    Ascribe,
    /// A size coercion `e :> t`: a fresh unknown size.
    Coerce,
}

/// A resolved type expression.
#[derive(Clone, Debug)]
pub struct Resolved {
    pub ty: Type,
    /// Existential sizes introduced at the top (by `[]` in existential mode or `?[n].`).
    pub ext: Vec<crate::types::VName>,
    pub lifted: Liftedness,
}

impl Checker<'_> {
    pub fn resolve_type(&mut self, te: &TypeExp, mode: AnonMode) -> Resolved {
        let mut ext = Vec::new();
        let (ty, lifted) = self.resolve_te(te, mode, &mut ext);
        Resolved { ty, ext, lifted }
    }

    fn resolve_te(
        &mut self,
        te: &TypeExp,
        mode: AnonMode,
        ext: &mut Vec<crate::types::VName>,
    ) -> (Type, Liftedness) {
        if self.too_deep() {
            self.error("too-deep", te.span, "Type expression nested too deeply.");
            return (Type::Error, Liftedness::Lifted);
        }
        self.depth += 1;
        let r = self.resolve_te_inner(te, mode, ext);
        self.depth -= 1;
        r
    }

    fn resolve_te_inner(
        &mut self,
        te: &TypeExp,
        mode: AnonMode,
        ext: &mut Vec<crate::types::VName>,
    ) -> (Type, Liftedness) {
        match &te.kind {
            TypeExpKind::Error => (Type::Error, Liftedness::Unlifted),
            TypeExpKind::Parens(t) => self.resolve_te(t, mode, ext),
            TypeExpKind::Var(_) | TypeExpKind::Apply(..) => self.resolve_app(te, mode, ext),
            TypeExpKind::Tuple(ts) => {
                let mut elems = Vec::new();
                let mut l = Liftedness::Unlifted;
                for t in ts {
                    let (t, tl) = self.resolve_te(t, mode, ext);
                    l = l.max(tl);
                    elems.push(t);
                }
                (Type::tuple(elems), l)
            }
            TypeExpKind::Record(fs) => {
                let mut m = BTreeMap::new();
                let mut l = Liftedness::Unlifted;
                for (f, t) in fs {
                    let (t, tl) = self.resolve_te(t, mode, ext);
                    l = l.max(tl);
                    if m.insert(Name::from(f.name.as_str()), t).is_some() {
                        self.error(
                            "duplicate-field",
                            f.span,
                            format!(
                                "Duplicate fields: field \"{}\" appears more than once.",
                                f.name
                            ),
                        );
                    }
                }
                (Type::Record(m), l)
            }
            TypeExpKind::Array { size, elem } => {
                let d = self.resolve_dim(size, mode, ext);
                let (et, el) = self.resolve_te(elem, mode, ext);
                if el != Liftedness::Unlifted || et.is_fun() {
                    let what = match &elem.kind {
                        TypeExpKind::Var(qn) => qual_string(qn),
                        _ => et.to_string(),
                    };
                    self.error(
                        "lifted-array-element",
                        elem.span,
                        format!("Cannot create array with elements of lifted type \"{what}\" (might contain function or hidden sizes)."),
                    );
                    return (Type::Error, Liftedness::Unlifted);
                }
                (Type::array(et, vec![d], false), Liftedness::Unlifted)
            }
            TypeExpKind::Unique(t) => {
                let (t, l) = self.resolve_te(t, mode, ext);
                if !may_contain_array(&t) {
                    self.warn(
                        "unique-no-effect",
                        te.span,
                        format!("Declaring \"{t}\" as unique has no effect."),
                    );
                }
                (t.with_unique(true), l)
            }
            TypeExpKind::Arrow { param, from, to } => {
                let mark = self.scope_mark();
                let pmode = AnonMode::Param;
                let (pt, _) = self.resolve_te(from, pmode, ext);
                let pname = param.as_ref().map(|p| {
                    let v = self.fresh(&p.name);
                    self.bind_local(p, v.clone(), pt.clone());
                    self.resolve_to(p.span, &DefRef::new(&v, DefKind::Local, Some(p.span), None));
                    v
                });
                // Anonymous sizes right of an arrow are existential in that arrow's result.
                let rmode = match mode {
                    AnonMode::Param | AnonMode::Existential => AnonMode::Existential,
                    m => m,
                };
                let mut inner_ext = Vec::new();
                let (rt, _) = self.resolve_te(to, rmode, &mut inner_ext);
                self.scope_reset(mark);
                let (ret_ext, outer): (Vec<_>, Vec<_>) = if rmode == AnonMode::Existential {
                    (inner_ext, vec![])
                } else {
                    (vec![], inner_ext)
                };
                ext.extend(outer);
                // A parameter name only matters if the result refers to it.
                let pname = pname.filter(|p| rt.size_vars().contains(p));
                (
                    Type::Arrow(Box::new(Arrow {
                        param_name: pname,
                        param: pt,
                        ret: RetType {
                            ext: ret_ext,
                            ty: rt,
                        },
                    })),
                    Liftedness::Lifted,
                )
            }
            TypeExpKind::Sum(cs) => {
                let mut m = BTreeMap::new();
                let mut l = Liftedness::Unlifted;
                for (c, ts) in cs {
                    let mut payload = Vec::new();
                    for t in ts {
                        let (t, tl) = self.resolve_te(t, mode, ext);
                        l = l.max(tl);
                        payload.push(t);
                    }
                    if m.insert(Name::from(c.name.as_str()), payload).is_some() {
                        self.error(
                            "duplicate-constructor",
                            c.span,
                            format!("Duplicate constructor \"#{}\" in sum type.", c.name),
                        );
                    }
                }
                (Type::Sum(m), l)
            }
            TypeExpKind::Existential { sizes, ty } => {
                let mark = self.scope_mark();
                let mut names = Vec::new();
                // In a parameter or ascription, `?[n].` sizes are simply to be inferred.
                let flexible = matches!(mode, AnonMode::Param | AnonMode::Ascribe);
                for s in sizes {
                    let v = if flexible {
                        self.new_sizevar(&s.name, s.span)
                    } else {
                        self.fresh(&s.name)
                    };
                    if flexible {
                        self.locals.push(crate::checker::Local {
                            name: Name::from(s.name.as_str()),
                            vname: v.clone(),
                            kind: crate::checker::LocalKind::Val {
                                tparams: vec![],
                                ty: Type::i64(),
                            },
                            span: s.span,
                        });
                    } else {
                        self.bind_local(s, v.clone(), Type::i64());
                    }
                    self.resolve_to(
                        s.span,
                        &DefRef::new(&v, DefKind::SizeParam, Some(s.span), None),
                    );
                    names.push(v);
                }
                let (t, l) = self.resolve_te(ty, mode, ext);
                self.scope_reset(mark);
                let used = t.size_vars();
                let mut constructive = Vec::new();
                t.each_size(&mut |s, c| {
                    if c && let Size::Var(v) = s {
                        constructive.push(v.clone());
                    }
                });
                for (v, s) in names.iter().zip(sizes) {
                    if !used.contains(v) || !constructive.contains(v) {
                        self.error(
                            "unused-existential",
                            s.span,
                            format!("Existential size \"{}\" not used as array size (it must be used constructively).", s.name),
                        );
                    }
                }
                if flexible {
                    return (t, l);
                }
                ext.extend(names);
                (t, l.max(Liftedness::SizeLifted))
            }
        }
    }

    /// Resolves a possibly applied type name: `t`, `M.t`, `t [n] a`.
    fn resolve_app(
        &mut self,
        te: &TypeExp,
        mode: AnonMode,
        ext: &mut Vec<crate::types::VName>,
    ) -> (Type, Liftedness) {
        let mut args = Vec::new();
        let mut head = te;
        while let TypeExpKind::Apply(f, a) = &head.kind {
            args.push(a);
            head = f;
        }
        args.reverse();
        let head = strip_parens(head);
        let qn = match &head.kind {
            TypeExpKind::Var(qn) => qn,
            _ => {
                self.error(
                    "type-error",
                    head.span,
                    "Only named types can be applied to arguments.",
                );
                return (Type::Error, Liftedness::Unlifted);
            }
        };
        let Some(b) = self.lookup_type(qn) else {
            if !self.diags.iter().any(|d| d.span == qn.span) {
                self.error(
                    "unknown-type",
                    qn.span,
                    format!("Unknown type \"{}\".", qual_string(qn)),
                );
            }
            return (Type::Error, Liftedness::Unlifted);
        };
        self.resolve_to(qn.name.span, &b.def);
        if b.params.len() != args.len() {
            self.error(
                "type-arity",
                te.span,
                format!(
                    "Type \"{}\" requires {} arguments, but {} were given (not fully saturated).",
                    qual_string(qn),
                    b.params.len(),
                    args.len()
                ),
            );
            return (Type::Error, b.lifted);
        }
        let mut targs = Vec::new();
        let mut l = b.lifted;
        for (p, a) in b.params.iter().zip(&args) {
            match (p, a) {
                (TParam::Size { .. }, AstTypeArg::Size(s)) => {
                    targs.push(TypeArg::Size(self.resolve_dim(s, mode, ext)));
                }
                (
                    TParam::Type {
                        lifted,
                        name: pname,
                    },
                    AstTypeArg::Type(t),
                ) => {
                    let named = matches!(
                        strip_parens(t).kind,
                        TypeExpKind::Var(_) | TypeExpKind::Apply(..)
                    );
                    let (t, tl) = self.resolve_te(t, mode, ext);
                    // A lifted abbreviation (`type^`) may take lifted arguments.
                    if tl > (*lifted).max(b.lifted) && named {
                        self.error(
                            "type-arity",
                            te.span,
                            format!(
                                "Type argument \"{t}\" to \"{}\" may not contain size-lifted or lifted types, as parameter \"{}\" is not lifted.",
                                qual_string(qn),
                                pname.name()
                            ),
                        );
                    }
                    if *lifted == Liftedness::Unlifted && tl > Liftedness::Unlifted {
                        l = l.max(tl);
                    }
                    targs.push(TypeArg::Type(t));
                }
                (TParam::Size { name }, AstTypeArg::Type(_)) => {
                    self.error(
                        "type-arity",
                        te.span,
                        format!(
                            "Type \"{}\" expects a size argument for \"[{}]\".",
                            qual_string(qn),
                            name.name()
                        ),
                    );
                    return (Type::Error, l);
                }
                (TParam::Type { name, .. }, AstTypeArg::Size(_)) => {
                    self.error(
                        "type-arity",
                        te.span,
                        format!(
                            "Type \"{}\" expects a type argument for \"{}\".",
                            qual_string(qn),
                            name.name()
                        ),
                    );
                    return (Type::Error, l);
                }
            }
        }
        let body = apply_type_fn(&b.params, &b.ty, &targs);
        // Existential sizes of the abbreviation are instantiated according to the context.
        let mut ty = body.ty;
        if !body.ext.is_empty() {
            let mut map = Vec::new();
            for e in &body.ext {
                let s = self.anon_size(mode, te.span, ext);
                map.push((e.clone(), s));
            }
            ty = ty.subst_sizes(&|v| map.iter().find(|(e, _)| e == v).map(|(_, s)| s.clone()));
        }
        (ty, l)
    }

    /// A fresh size for an anonymous dimension in the given mode.
    fn anon_size(
        &mut self,
        mode: AnonMode,
        span: Span,
        ext: &mut Vec<crate::types::VName>,
    ) -> Size {
        match mode {
            AnonMode::Param | AnonMode::Ascribe => Size::Var(self.new_sizevar("d", span)),
            AnonMode::Existential => {
                let v = self.fresh("d");
                ext.push(v.clone());
                Size::Var(v)
            }
            AnonMode::Coerce => Size::Var(self.new_unknown("d", UnknownSource::Coerce, span)),
        }
    }

    pub fn resolve_dim(
        &mut self,
        s: &SizeExp,
        mode: AnonMode,
        ext: &mut Vec<crate::types::VName>,
    ) -> Size {
        match s {
            SizeExp::Anonymous(span) => self.anon_size(mode, *span, ext),
            SizeExp::Exp(e) => self.size_from_exp(e),
        }
    }

    /// Checks an expression used as a size (`[n]`, `[n+1]`) and converts it to a size term.
    pub fn size_from_exp(&mut self, e: &futhark_syntax::ast::Exp) -> Size {
        match &e.kind {
            ExpKind::Literal(lit) => {
                if let LitKind::Int { value, .. } = &lit.kind {
                    self.info.literal_types.insert(lit.span, PrimType::I64);
                    self.record_type(e.span, &Type::i64());
                    return Size::Lit((*value).min(i64::MAX as u128) as i64);
                }
            }
            ExpKind::Var(qn)
                if qn
                    .quals
                    .first()
                    .is_none_or(|q| !self.is_value_name(&q.name)) =>
            {
                if let Some(s) = self.size_var_lookup(qn) {
                    return s;
                }
            }
            _ => {}
        }
        let t = self.check_exp(e);
        if !self.expect(
            e.span,
            "Size expression must have type i64.",
            &Type::i64(),
            &t,
        ) {
            return Size::Lit(0);
        }
        match self.exp_to_size(e) {
            Some(s) => s,
            None => Size::Var(self.new_unknown("d", UnknownSource::Arg(None), e.span)),
        }
    }

    /// Looks up a size name `n` in a type, checking that it has type `i64`.
    fn size_var_lookup(&mut self, qn: &QualName) -> Option<Size> {
        let r = self.find_val(qn)?;
        let (vname, ty, def) = match r {
            crate::checker::ValRef::Local { vname, ty, def, .. } => (vname, ty, def),
            crate::checker::ValRef::Global(b) => match &*b.scheme {
                crate::env::Scheme::Poly(ps, t) if ps.is_empty() => (
                    b.vname.clone(),
                    t.clone(),
                    crate::info::DefRef {
                        vname: b.vname.clone(),
                        ..b.def.clone()
                    },
                ),
                _ => return None,
            },
        };
        self.resolve_to(qn.span, &def);
        if !self.expect(
            qn.span,
            &format!("Size \"{}\" must have type i64.", qual_string(qn)),
            &Type::i64(),
            &ty,
        ) {
            return Some(Size::Lit(0));
        }
        self.record_type(qn.span, &Type::i64());
        Some(Size::Var(vname))
    }
}

fn strip_parens(te: &TypeExp) -> &TypeExp {
    match &te.kind {
        TypeExpKind::Parens(t) => strip_parens(t),
        _ => te,
    }
}

/// Whether a value of type `t` may hold an array, so that uniqueness means something.
fn may_contain_array(t: &Type) -> bool {
    match t {
        Type::Prim(_) => false,
        Type::Record(fs) => fs.values().any(may_contain_array),
        Type::Sum(cs) => cs.values().flatten().any(may_contain_array),
        _ => true,
    }
}
