//! Binding forms: `let` (with size binders), local functions, lambdas, in-place updates
//! (`with`), and the shared machinery for checking a function definition (type and size
//! parameters, parameters, return type, existential results).

use futhark_syntax::Span;
use futhark_syntax::ast::{DimIndex, Exp, Ident, Pat, PatKind, TypeExp, TypeParam, UpdateStep};

use crate::checker::{Checker, Local, LocalKind};
use crate::env::TypeBinding;
use crate::info::{DefKind, DefRef};
use crate::terms::pat::PatBind;
use crate::typeexp::AnonMode;
use crate::types::{Arrow, Name, RetType, Size, TParam, Type, VName};
use crate::unify::{Constraint, UnknownSource};

/// The result of checking a function definition.
#[derive(Clone, Debug)]
pub struct FunResult {
    pub tparams: Vec<TParam>,
    pub ret: RetType,
    /// The full function type (an arrow chain, or the body type for constants).
    pub ty: Type,
}

/// How a size binder is used in the type annotations of a pattern: (as an array size
/// outside function types, at all).
fn size_name_uses(p: &Pat, name: &str) -> (bool, bool) {
    use futhark_syntax::ast::{ExpKind, SizeExp, TypeArg as A, TypeExp, TypeExpKind as K};
    fn in_type(t: &TypeExp, name: &str, in_fun: bool, out: &mut (bool, bool)) {
        let is_name = |s: &SizeExp| matches!(s, SizeExp::Exp(e) if matches!(&e.kind, ExpKind::Var(q) if q.quals.is_empty() && q.name.name == name));
        match &t.kind {
            K::Array { size, elem } => {
                if is_name(size) {
                    out.1 = true;
                    if !in_fun {
                        out.0 = true;
                    }
                }
                in_type(elem, name, in_fun, out);
            }
            K::Arrow { from, to, .. } => {
                in_type(from, name, true, out);
                in_type(to, name, true, out);
            }
            K::Parens(x) | K::Unique(x) => in_type(x, name, in_fun, out),
            K::Tuple(ts) => ts.iter().for_each(|x| in_type(x, name, in_fun, out)),
            K::Record(fs) => fs.iter().for_each(|(_, x)| in_type(x, name, in_fun, out)),
            K::Sum(cs) => cs
                .iter()
                .flat_map(|(_, ts)| ts)
                .for_each(|x| in_type(x, name, in_fun, out)),
            K::Apply(f, a) => {
                in_type(f, name, in_fun, out);
                match a {
                    A::Type(x) => in_type(x, name, in_fun, out),
                    A::Size(s) => {
                        if is_name(s) {
                            out.1 = true;
                            if !in_fun {
                                out.0 = true;
                            }
                        }
                    }
                }
            }
            K::Existential { ty, .. } => in_type(ty, name, in_fun, out),
            K::Var(_) | K::Error => {}
        }
    }
    fn in_pat(p: &Pat, name: &str, out: &mut (bool, bool)) {
        match &p.kind {
            PatKind::Ascript(q, t) => {
                in_type(t, name, false, out);
                in_pat(q, name, out);
            }
            PatKind::Parens(q) | PatKind::Attr(_, q) => in_pat(q, name, out),
            PatKind::Tuple(ps) | PatKind::Constr(_, ps) => {
                ps.iter().for_each(|q| in_pat(q, name, out))
            }
            PatKind::Record(fs) => fs.iter().for_each(|(_, q)| in_pat(q, name, out)),
            _ => {}
        }
    }
    let mut out = (false, false);
    in_pat(p, name, &mut out);
    out
}

/// `t` with the field at `path` replaced by `v`.
fn replace_field_type(t: &Type, path: &[&str], v: &Type) -> Type {
    match (t, path.split_first()) {
        (_, None) => v.clone(),
        (Type::Record(fs), Some((f, rest))) => {
            let mut fs = fs.clone();
            if let Some(x) = fs.get(*f).cloned() {
                fs.insert(Name::from(*f), replace_field_type(&x, rest, v));
            }
            Type::Record(fs)
        }
        _ => t.clone(),
    }
}

/// A variable from `names` occurring in a size of a function parameter type within `t`.
fn find_param_sizes(t: &Type, names: &[VName], out: &mut Option<VName>) {
    match t {
        Type::Arrow(a) => {
            for v in a.param.free_size_vars() {
                if names.contains(&v) && out.is_none() {
                    *out = Some(v);
                }
            }
            find_param_sizes(&a.ret.ty, names, out);
        }
        Type::Record(fs) => fs.values().for_each(|x| find_param_sizes(x, names, out)),
        _ => {}
    }
}

fn simple_param_name(p: &Pat) -> Option<&Ident> {
    match &p.kind {
        PatKind::Id(x) => Some(x),
        PatKind::Parens(q) | PatKind::Ascript(q, _) | PatKind::Attr(_, q) => simple_param_name(q),
        _ => None,
    }
}

impl Checker<'_> {
    /// Binds explicit type and size parameters as rigid names at the current level.
    pub fn bind_tparams(&mut self, tps: &[TypeParam]) -> Vec<TParam> {
        let mut out = Vec::new();
        let mut seen: Vec<&str> = Vec::new();
        for tp in tps {
            let id = tp.name();
            if seen.contains(&id.name.as_str()) {
                self.error(
                    "duplicate-binding",
                    id.span,
                    format!(
                        "Type parameter \"{}\" is also bound elsewhere; it was previously defined.",
                        id.name
                    ),
                );
            }
            seen.push(&id.name);
            let v = self.fresh(&id.name);
            self.uni.bind_rigid(&v, self.level);
            match tp {
                TypeParam::Size(_) => {
                    self.resolve_to(
                        id.span,
                        &DefRef::new(&v, DefKind::SizeParam, Some(id.span), None),
                    );
                    self.locals.push(Local {
                        name: Name::from(id.name.as_str()),
                        vname: v.clone(),
                        kind: LocalKind::Val {
                            tparams: vec![],
                            ty: Type::i64(),
                        },
                        span: id.span,
                    });
                    out.push(TParam::Size { name: v });
                }
                TypeParam::Type(_, lifted) => {
                    self.uni.abstract_lifted.insert(v.clone(), *lifted);
                    let def = DefRef::new(&v, DefKind::TypeParam, Some(id.span), None);
                    self.resolve_to(id.span, &def);
                    self.locals.push(Local {
                        name: Name::from(id.name.as_str()),
                        vname: v.clone(),
                        kind: LocalKind::Type(TypeBinding {
                            params: vec![],
                            ty: RetType::plain(Type::var(v.clone())),
                            lifted: *lifted,
                            def,
                        }),
                        span: id.span,
                    });
                    out.push(TParam::Type {
                        name: v,
                        lifted: *lifted,
                    });
                }
            }
        }
        out
    }

    /// Checks parameters one at a time (each may refer to the names of earlier ones in its
    /// type), binding their names. Duplicate names across parameters are errors.
    pub fn check_params(
        &mut self,
        params: &[Pat],
        expected: &[Option<Type>],
    ) -> Vec<(Type, Vec<PatBind>)> {
        let mut out: Vec<(Type, Vec<PatBind>)> = Vec::new();
        for (i, p) in params.iter().enumerate() {
            self.level += 1;
            let mut binds = Vec::new();
            let exp = expected.get(i).cloned().flatten();
            let t = match exp {
                Some(e) => {
                    let pt = self.check_pat(p, None, AnonMode::Param, &mut binds);
                    if let Err(err) = self.uni.unify(&pt, &e) {
                        self.report_unify(
                            p.span,
                            "Parameter does not match the expected type.",
                            &pt,
                            &e,
                            err,
                        );
                    }
                    pt
                }
                None => self.check_pat(p, None, AnonMode::Param, &mut binds),
            };
            // A parameter's own name is deeper than its type, so its size cannot refer to it.
            self.level += 1;
            self.pending_irrefutable.push((p.clone(), t.clone()));
            for b in &binds {
                if out
                    .iter()
                    .flat_map(|(_, bs)| bs)
                    .any(|o| o.ident.name == b.ident.name)
                {
                    self.error(
                        "duplicate-binding",
                        b.ident.span,
                        format!(
                            "Parameter \"{}\" is also bound by an earlier parameter.",
                            b.ident.name
                        ),
                    );
                }
            }
            self.bind_pat(&binds);
            out.push((t, binds));
        }
        out
    }

    /// Builds an arrow type from checked parameters; a parameter is named when it is a plain
    /// variable that later types refer to.
    pub fn fun_type(
        &self,
        params: &[(Type, Vec<PatBind>)],
        param_pats: &[Pat],
        ret: RetType,
    ) -> Type {
        let mut t = ret;
        for (i, (pt, binds)) in params.iter().enumerate().rev() {
            let name = param_pats
                .get(i)
                .and_then(simple_param_name)
                .and_then(|x| binds.iter().find(|b| b.ident.name == x.name))
                .map(|b| b.vname.clone());
            let name = name.filter(|v| self.uni.zonk(&t.ty).size_vars().contains(v));
            t = RetType::plain(Type::Arrow(Box::new(Arrow {
                param_name: name,
                param: pt.clone(),
                ret: t,
            })));
        }
        t.ty
    }

    /// Turns rigid sizes of `t` bound deeper than `level` (inside a function body) into
    /// existentials.
    pub fn existentialise(&mut self, t: &Type, level: u32, keep: &[VName]) -> RetType {
        let t = self.uni.zonk(t);
        let mut ext = Vec::new();
        let mut map = Vec::new();
        for v in t.free_size_vars() {
            if keep.contains(&v) {
                continue;
            }
            let deep = match self.uni.rigid.get(&v) {
                Some(r) => r.level > level,
                None => false,
            };
            if deep {
                let e = self.fresh(v.name());
                map.push((v.clone(), Size::Var(e.clone())));
                ext.push(e);
            }
        }
        let ty = t.subst_sizes(&|v| map.iter().find(|(a, _)| a == v).map(|(_, s)| s.clone()));
        RetType { ext, ty }
    }

    /// Checks a function definition: type parameters, parameters, optional return type and
    /// body. Leaves names unbound afterwards. `self_name` binds the function itself (for
    /// recursion) with a monomorphic type while checking the body.
    #[allow(clippy::too_many_arguments)]
    pub fn check_function(
        &mut self,
        tparams: &[TypeParam],
        params: &[Pat],
        ret: Option<&TypeExp>,
        body: &Exp,
        span: Span,
        expected_params: &[Option<Type>],
        self_name: Option<(&Ident, VName)>,
    ) -> FunResult {
        let mark = self.scope_mark();
        let outer_level = self.level;
        self.level += 1;
        let tps = self.bind_tparams(tparams);
        let ps = self.check_params(params, expected_params);
        let declared = ret.map(|te| self.resolve_type(te, AnonMode::Existential));
        // Names bound inside tuple or record parameter patterns cannot be referred to by
        // the function's type.
        if let (Some(r), Some(te)) = (&declared, ret) {
            let inner: Vec<&PatBind> = params
                .iter()
                .zip(&ps)
                .filter(|(p, _)| simple_param_name(p).is_none())
                .flat_map(|(_, (_, bs))| bs.iter())
                .collect();
            let used = self.uni.zonk(&r.ty).free_size_vars();
            if let Some(b) = inner.iter().find(|b| used.contains(&b.vname)) {
                self.error(
                    "inaccessible-size",
                    te.span,
                    format!(
                        "The return type refers to size \"{}\" which will not be accessible to the caller, as it is bound inside a parameter pattern.",
                        b.ident.name
                    ),
                );
            }
        }
        // Every size parameter must be the size of something the function takes (or, for
        // a size chosen by the caller, returns).
        {
            let mut used: Vec<VName> = Vec::new();
            for (t, _) in &ps {
                used.extend(self.uni.zonk(t).size_vars());
            }
            if let Some(r) = &declared {
                used.extend(self.uni.zonk(&r.ty).size_vars());
            }
            for (tp, ast_tp) in tps.iter().zip(tparams) {
                if let TParam::Size { name: n } = tp
                    && !used.contains(n)
                {
                    self.error(
                        "unused-size",
                        ast_tp.name().span,
                        format!("Size [{}] unused in pattern.", n.name()),
                    );
                }
            }
        }
        // A parameter of the same name hides the function itself.
        let self_name = self_name.filter(|(id, _)| {
            !ps.iter()
                .flat_map(|(_, bs)| bs)
                .any(|b| b.ident.name == id.name)
        });
        // Nor does an earlier definition of the same name (old programs refer to it).
        let self_name = self_name.filter(|(id, _)| !self.env.vals.contains_key(id.name.as_str()));
        if let Some((id, v)) = &self_name {
            self.rec_info = Some(self.make_rec_info(&id.name, v, &ps, params));
            let rt = match &declared {
                Some(r) if r.ext.is_empty() => r.ty.clone(),
                _ => self.new_tyvar("ret", span),
            };
            let ft = self.fun_type(&ps, params, RetType::plain(rt));
            self.uni.bind_rigid(v, outer_level);
            self.locals.push(Local {
                name: Name::from(id.name.as_str()),
                vname: v.clone(),
                // Recursion is monomorphic in types but may vary the size parameters.
                kind: LocalKind::Val {
                    tparams: tps.iter().filter(|p| p.is_size()).cloned().collect(),
                    ty: ft,
                },
                span: id.span,
            });
        }
        // The body is one level deeper than the last parameter, so sizes made in the body
        // can be told apart from parameters.
        self.level += 1;
        let body_level = self.level;
        let bt = self.check_exp(body);
        self.check_param_sizes_accessible(params, &ps);
        // A declared return type's anonymous sizes are inferred from the body; sizes made
        // inside the body then become existential, as for an undeclared return type.
        let result_ty = match declared {
            Some(r) => {
                let mut map = Vec::new();
                let used = r.ty.free_size_vars();
                for e in &r.ext {
                    let v = self
                        .uni
                        .new_var(e.name(), u32::MAX, Constraint::SizeFree, span);
                    if used.contains(e) {
                        self.def_vars.push(v.clone());
                    }
                    map.push((e.clone(), Size::Var(v)));
                }
                let inst =
                    r.ty.subst_sizes(&|v| map.iter().find(|(a, _)| a == v).map(|(_, s)| s.clone()));
                if let Err(err) = self.uni.unify(&inst, &bt) {
                    self.report_unify(
                        body.span,
                        "Function body does not have expected type.",
                        &r.ty,
                        &bt,
                        err,
                    );
                }
                inst
            }
            None => bt.clone(),
        };
        let ret = {
            let keep: Vec<VName> = ps
                .iter()
                .flat_map(|(_, bs)| bs.iter().map(|b| b.vname.clone()))
                .collect();
            let mut r = self.existentialise(&result_ty, body_level - 1, &[]);
            // Names bound inside non-trivial parameter patterns cannot be referred to
            // by a parameter name either; they become existential too.
            let named: Vec<VName> = params
                .iter()
                .zip(&ps)
                .filter_map(|(p, (_, bs))| {
                    let x = simple_param_name(p)?;
                    bs.iter()
                        .find(|b| b.ident.name == x.name)
                        .map(|b| b.vname.clone())
                })
                .collect();
            let inner: Vec<VName> = keep
                .iter()
                .filter(|v| !named.contains(v))
                .cloned()
                .collect();
            if !inner.is_empty() {
                let mut map = Vec::new();
                for v in r.ty.free_size_vars() {
                    if inner.contains(&v) {
                        let e = self.fresh(v.name());
                        map.push((v.clone(), Size::Var(e.clone())));
                        r.ext.push(e);
                    }
                }
                r.ty =
                    r.ty.subst_sizes(&|v| map.iter().find(|(a, _)| a == v).map(|(_, s)| s.clone()));
            }
            r
        };
        let ty = self.fun_type(&ps, params, ret.clone());
        self.scope_reset(mark);
        self.level = outer_level;
        FunResult {
            tparams: tps,
            ret,
            ty,
        }
    }

    /// A parameter's type may name an earlier parameter only when that parameter is named
    /// as a whole: a name bound inside a tuple or record pattern is not part of the
    /// function's type, so the caller could never supply the size.
    fn check_param_sizes_accessible(&mut self, params: &[Pat], ps: &[(Type, Vec<PatBind>)]) {
        let mut hidden: Vec<&PatBind> = Vec::new();
        for (p, (t, bs)) in params.iter().zip(ps) {
            let zt = self.uni.zonk(t);
            let sizes = zt.free_size_vars();
            if let Some(b) = hidden.iter().find(|b| sizes.contains(&b.vname)) {
                let what = match simple_param_name(p) {
                    Some(x) => format!("Parameter \"{}\"", x.name),
                    None => "A parameter".to_string(),
                };
                self.error(
                    "inaccessible-size",
                    p.span,
                    format!(
                        "{what} refers to size \"{}\" which will not be accessible to the caller, as it is bound inside a tuple or record pattern. Ascribe a type that does not mention \"{}\", or take it as a parameter of its own.",
                        b.ident.name, b.ident.name
                    ),
                );
                return;
            }
            if simple_param_name(p).is_none() {
                hidden.extend(bs.iter());
            }
        }
    }

    pub fn check_lambda(
        &mut self,
        params: &[Pat],
        ret: Option<&TypeExp>,
        body: &Exp,
        span: Span,
    ) -> Type {
        self.check_lambda_expected(params, ret, body, span, None)
    }

    pub fn check_lambda_expected(
        &mut self,
        params: &[Pat],
        ret: Option<&TypeExp>,
        body: &Exp,
        span: Span,
        expected: Option<&Type>,
    ) -> Type {
        let mut exp_params = Vec::new();
        if let Some(e) = expected {
            let mut cur = self.uni.resolve(e);
            for _ in params {
                match cur {
                    Type::Arrow(a) => {
                        exp_params.push(Some(a.param.clone()));
                        cur = self.uni.resolve(&a.ret.ty);
                    }
                    _ => break,
                }
            }
        }
        let r = self.check_function(&[], params, ret, body, span, &exp_params, None);
        r.ty
    }

    pub fn check_let(
        &mut self,
        sizes: &[Ident],
        pat: &Pat,
        value: &Exp,
        body: &Exp,
        span: Span,
    ) -> Type {
        let vt = self.check_exp(value);
        let mark = self.scope_mark();
        self.level += 1;
        // Size binders `let [n] …` are size variables solved by matching the value's type.
        let mut size_vars = Vec::new();
        for s in sizes {
            if size_vars
                .iter()
                .any(|(x, _): &(Ident, VName)| x.name == s.name)
            {
                self.error(
                    "duplicate-binding",
                    s.span,
                    format!(
                        "Size \"{}\" is also bound elsewhere in this binding.",
                        s.name
                    ),
                );
            }
            let v = self.new_sizevar(&s.name, s.span);
            self.resolve_to(
                s.span,
                &DefRef::new(&v, DefKind::SizeParam, Some(s.span), None),
            );
            self.locals.push(Local {
                name: Name::from(s.name.as_str()),
                vname: v.clone(),
                kind: LocalKind::Val {
                    tparams: vec![],
                    ty: Type::i64(),
                },
                span: s.span,
            });
            size_vars.push((s.clone(), v));
        }
        let mut binds = Vec::new();
        let pt = self.check_pat(pat, Some(&vt), AnonMode::Ascribe, &mut binds);
        for (s, v) in &size_vars {
            if binds.iter().any(|b| b.ident.name == s.name) {
                self.error(
                    "duplicate-binding",
                    s.span,
                    format!("Size \"{}\" is also bound by the pattern.", s.name),
                );
            }
            let zpt = self.uni.zonk(&pt);
            let (constructive, any) = size_name_uses(pat, &s.name);
            if any && !constructive {
                self.error(
                    "unused-size",
                    s.span,
                    format!(
                        "Cannot bind [{}] as it is only used inside a function type.",
                        s.name
                    ),
                );
                continue;
            }
            let used = zpt.size_vars().contains(v)
                || !matches!(self.uni.zonk_size(&Size::Var(v.clone())), Size::Var(ref w) if w == v);
            if !used {
                self.error(
                    "unused-size",
                    s.span,
                    format!("Size [{}] unused in pattern.", s.name),
                );
            }
        }
        // The size binders now stand for whatever sizes the value has; sizes that stayed
        // unknown are ambiguous.
        for (s, v) in &size_vars {
            if let Size::Var(w) = self.uni.zonk_size(&Size::Var(v.clone()))
                && self.uni.is_free_var(&w)
            {
                self.error(
                    "ambiguous-size",
                    s.span,
                    format!("Ambiguous size \"{}\".", s.name),
                );
                let _ = self.uni.unify_size(&Size::Var(w), &Size::Lit(0));
            }
        }
        self.pending_irrefutable.push((pat.clone(), pt.clone()));
        self.bind_pat(&binds);
        let bt = self.check_exp(body);
        self.scope_reset(mark);
        self.level -= 1;
        self.unscope(&bt, &binds, Some(value), span)
    }

    /// Sizes in a `let` body's type that refer to names going out of scope: a single `i64`
    /// variable bound to a size term is replaced by that term; anything else becomes a fresh
    /// unknown size produced by the `let`.
    pub fn unscope(
        &mut self,
        t: &Type,
        binds: &[PatBind],
        value: Option<&Exp>,
        span: Span,
    ) -> Type {
        let t = self.uni.zonk(t);
        let names: Vec<VName> = binds.iter().map(|b| b.vname.clone()).collect();
        let mentioned: Vec<VName> = t
            .free_size_vars()
            .into_iter()
            .filter(|v| names.contains(v))
            .collect();
        if mentioned.is_empty() {
            return t;
        }
        // An out-of-scope size in a function parameter makes the function unusable.
        let mut in_param = None;
        find_param_sizes(&t, &names, &mut in_param);
        if let Some(v) = in_param {
            self.error(
                "unknown-param-def",
                span,
                format!(
                    "Cannot generalise the type. Unknown size \"{}\" in parameter of a function type (the size goes out of scope, so the function could not be applied).",
                    v.name()
                ),
            );
        }
        let direct = match (binds, value) {
            ([b], Some(v))
                if matches!(
                    self.uni.resolve(&b.ty),
                    Type::Prim(crate::types::PrimType::I64)
                ) =>
            {
                self.exp_to_size(v).map(|s| (b.vname.clone(), s))
            }
            _ => None,
        };
        let mut map: Vec<(VName, Size)> = Vec::new();
        for v in mentioned {
            match &direct {
                Some((n, s)) if *n == v => map.push((v, s.clone())),
                _ => {
                    let u = self.new_unknown(
                        v.name(),
                        UnknownSource::OutOfScope(v.name().to_string()),
                        span,
                    );
                    map.push((v, Size::Var(u)));
                }
            }
        }
        t.subst_sizes(&|w| map.iter().find(|(n, _)| n == w).map(|(_, s)| s.clone()))
    }

    pub fn check_letfun(
        &mut self,
        name: &Ident,
        tparams: &[TypeParam],
        params: &[Pat],
        ret: Option<&TypeExp>,
        value: &Exp,
        body: &Exp,
    ) -> Type {
        let r = self.check_function(tparams, params, ret, value, value.span, &[], None);
        let v = self.fresh(&name.name);
        self.resolve_to(
            name.span,
            &DefRef::new(&v, DefKind::Local, Some(name.span), None),
        );
        self.record_type(name.span, &r.ty);
        let mark = self.scope_mark();
        self.level += 1;
        self.uni.bind_rigid(&v, self.level);
        self.locals.push(Local {
            name: Name::from(name.name.as_str()),
            vname: v,
            kind: LocalKind::Val {
                tparams: r.tparams.clone(),
                ty: r.ty.clone(),
            },
            span: name.span,
        });
        let t = self.check_exp(body);
        self.scope_reset(mark);
        self.level -= 1;
        t
    }

    pub fn check_letwith(
        &mut self,
        dest: &Ident,
        path: &[UpdateStep],
        value: &Exp,
        body: &Exp,
        span: Span,
    ) -> Type {
        let qn = futhark_syntax::ast::QualName {
            quals: vec![],
            name: dest.clone(),
            span: dest.span,
        };
        let t = self.check_var(&qn, dest.span);
        self.record_type(dest.span, &t);
        let new_t = self.check_update(&t, path, value, span, &dest.name);
        let mark = self.scope_mark();
        self.level += 1;
        let v = self.fresh(&dest.name);
        let binds = vec![PatBind {
            ident: dest.clone(),
            vname: v.clone(),
            ty: new_t.clone(),
        }];
        self.bind_pat(&binds);
        self.let_with_binds.insert(dest.span, v);
        let bt = self.check_exp(body);
        self.scope_reset(mark);
        self.level -= 1;
        self.unscope(&bt, &binds, None, span)
    }

    /// `target with path = value`: the type of the target is unchanged.
    pub fn check_update(
        &mut self,
        target: &Type,
        path: &[UpdateStep],
        value: &Exp,
        span: Span,
        target_text: &str,
    ) -> Type {
        let vt = self.check_exp(value);
        let slot = self.update_slot(target, path, span, target_text);
        match slot {
            Some((slot_t, Some(field))) => {
                // A field may change its sizes but not its type.
                if let Err(_e) = self.uni.unify_ignoring_sizes(&slot_t, &vt) {
                    let st = self.uni.zonk(&slot_t);
                    let vz = self.uni.zonk(&vt);
                    self.error(
                        "type-mismatch",
                        value.span,
                        format!(
                            "Cannot update record field \"{field}\" with a value of type \"{vz}\"; the field has type \"{st}\"."
                        ),
                    );
                } else if path.iter().all(|s| matches!(s, UpdateStep::Field(_))) {
                    // The updated field takes the sizes of the new value.
                    let names: Vec<&str> = path
                        .iter()
                        .filter_map(|s| match s {
                            UpdateStep::Field(f) => Some(f.name.as_str()),
                            _ => None,
                        })
                        .collect();
                    let z = self.uni.zonk(target);
                    return replace_field_type(&z, &names, &self.uni.zonk(&vt));
                }
            }
            Some((slot_t, None)) => {
                // Slices are checked for shape at run time.
                let sliced = path.iter().any(|s| {
                    matches!(s, UpdateStep::Index(idxs, _) if idxs.iter().any(|i| matches!(i, DimIndex::Slice { .. })))
                });
                let r = if sliced {
                    self.uni.unify_ignoring_sizes(&slot_t, &vt)
                } else {
                    self.uni.unify(&slot_t, &vt)
                };
                if let Err(e) = r {
                    self.report_unify(
                        value.span,
                        "Value of in-place update does not have the type of the updated part.",
                        &slot_t,
                        &vt,
                        e,
                    );
                }
            }
            None => {}
        }
        target.clone()
    }

    /// The type of the part of `t` designated by an update path, and the last field name
    /// when the path ends in a field.
    fn update_slot(
        &mut self,
        t: &Type,
        path: &[UpdateStep],
        span: Span,
        target_text: &str,
    ) -> Option<(Type, Option<String>)> {
        let mut cur = t.clone();
        let mut last_field = None;
        for step in path {
            match step {
                UpdateStep::Field(f) => {
                    let r = self.uni.resolve(&cur);
                    match &r {
                        Type::Record(m) => match m.get(f.name.as_str()) {
                            Some(ft) => cur = ft.clone(),
                            None => {
                                self.error(
                                    "type-mismatch",
                                    f.span,
                                    format!(
                                        "Record of type \"{}\" has no field \"{}\" to update.",
                                        self.uni.zonk(&r),
                                        f.name
                                    ),
                                );
                                return None;
                            }
                        },
                        Type::Error => return None,
                        Type::Var(v) if self.uni.is_free_var(&v.name) => {
                            self.error(
                                "record-type-not-known",
                                f.span,
                                format!(
                                    "Full type of \"{target_text}\" is not known at this point: cannot update field \"{}\" (annotate the record's type where it is bound).",
                                    f.name
                                ),
                            );
                            cur = self.project(&r, f, span);
                        }
                        _ => {
                            self.error(
                                "record-type-not-known",
                                f.span,
                                format!(
                                    "Full type of \"{}\" is not known, or it is not a record; cannot update field \"{}\" of a value with type that must be a record.",
                                    self.uni.zonk(&r),
                                    f.name
                                ),
                            );
                            return None;
                        }
                    }
                    last_field = Some(f.name.clone());
                }
                UpdateStep::Index(idxs, sp) => {
                    cur = self.check_index_steps(&cur, idxs, *sp);
                    last_field = None;
                    let _ = idxs.iter().any(|i| matches!(i, DimIndex::Slice { .. }));
                }
            }
        }
        Some((cur, last_field))
    }
}
