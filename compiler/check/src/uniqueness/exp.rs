//! Abstract interpretation of expressions for uniqueness: variables, applications (with
//! consuming parameters), in-place updates and the binding forms.

use std::collections::{BTreeMap, BTreeSet};

use futhark_syntax::Span;
use futhark_syntax::ast::{DimIndex, Exp, ExpKind, Pat, QualName, RecordField, UpdateStep};

use super::{Als, Uniq, V, VKind, can_alias, has_array, prune, strip};
use crate::info::DefKind;
use crate::types::{Name, Type, VName};

impl Uniq<'_, '_> {
    pub(super) fn exp(&mut self, e: &Exp) -> V {
        if self.c.too_deep() {
            return V::fresh();
        }
        self.c.depth += 1;
        let v = self.exp_inner(e);
        self.c.depth -= 1;
        let t = self.ty(e.span).cloned();
        V {
            als: prune(v.als, t.as_ref()),
            consumes: v.consumes,
        }
    }

    pub(super) fn var(&mut self, qn: &QualName, span: Span) -> V {
        let (key, fields): (Span, Vec<&str>) = match self.c.info.resolutions.get(&qn.span) {
            Some(_) => (qn.span, vec![]),
            None => match qn.quals.first() {
                Some(q) => (
                    q.span,
                    qn.quals[1..]
                        .iter()
                        .map(|x| x.name.as_str())
                        .chain(std::iter::once(qn.name.name.as_str()))
                        .collect(),
                ),
                None => return V::fresh(),
            },
        };
        let Some(d) = self.c.info.resolutions.get(&key).cloned() else {
            return V::fresh();
        };
        if !self.vars.contains_key(&d.vname) {
            // A global (or intrinsic). Functions alias nothing; constants alias themselves.
            let t = self.ty(span).cloned().or_else(|| self.ty(qn.span).cloned());
            // Without a recorded type we assume a function (they alias nothing).
            let is_fun = t.as_ref().is_none_or(|t| t.is_fun()) || d.kind == DefKind::Intrinsic;
            // Constants with size parameters are instantiated afresh at each use.
            let sized = d
                .span
                .and_then(|s| self.c.info.defs.get(&s))
                .is_some_and(|di| di.tparams.iter().any(|p| p.is_size()));
            if is_fun || sized || !matches!(d.kind, DefKind::Value) {
                return V::fresh();
            }
            self.bind(&d.vname, &d.name, Als::none(), VKind::Global);
            if t.as_ref().is_some_and(has_array) {
                self.global_arrays.insert(d.vname.clone());
            }
            if let Some(i) = self.vars.get_mut(&d.vname) {
                i.depth = 0;
            }
        }
        let info = self.vars[&d.vname].clone();
        let mut own = BTreeSet::new();
        own.insert(d.vname.clone());
        let mut als = info.als.add(&own);
        let all = als.all();
        self.observe(&d.vname, &all, span);
        for f in fields {
            als = als.field(f);
        }
        V::of(als)
    }

    pub(super) fn exp_inner(&mut self, e: &Exp) -> V {
        match &e.kind {
            ExpKind::Literal(_) | ExpKind::StringLit(_) | ExpKind::Hole | ExpKind::Error => {
                V::fresh()
            }
            ExpKind::ProjectSection(_) => V::fresh(),
            ExpKind::Var(qn) => self.var(qn, e.span),
            ExpKind::OpSection { op, .. } => self.var(op, e.span),
            ExpKind::Parens(x) | ExpKind::Attr(_, x) | ExpKind::QualParens(_, x) => self.exp(x),
            ExpKind::Ascript(x, _) | ExpKind::Coerce(x, _) => self.exp(x),
            ExpKind::Constr(_, args) => {
                let mut s = BTreeSet::new();
                for a in args {
                    s.extend(self.exp(a).als.all());
                }
                V::of(Als::Leaf(s))
            }
            ExpKind::Tuple(es) => {
                let mut m = BTreeMap::new();
                for (i, x) in es.iter().enumerate() {
                    m.insert(Name::from(i.to_string()), self.exp(x).als);
                }
                V::of(Als::Rec(m))
            }
            ExpKind::Record(fs) => {
                let mut m = BTreeMap::new();
                for f in fs {
                    let (n, v) = match f {
                        RecordField::Explicit(n, x) => (n, self.exp(x)),
                        RecordField::Pun(n) => {
                            let qn = QualName {
                                quals: vec![],
                                name: n.clone(),
                                span: n.span,
                            };
                            (n, self.var(&qn, n.span))
                        }
                    };
                    m.insert(Name::from(n.name.as_str()), v.als);
                }
                V::of(Als::Rec(m))
            }
            ExpKind::ArrayLit(es) => {
                // An array literal is a fresh array (its elements are copied in).
                for x in es {
                    self.exp(x);
                }
                V::fresh()
            }
            ExpKind::Project(x, f) => V::of(self.exp(x).als.field(&f.name)),
            ExpKind::Index(x, idxs) => {
                let v = self.exp(x);
                self.indices(idxs);
                V::of(Als::Leaf(v.als.all()))
            }
            ExpKind::Negate(x) | ExpKind::Not(x) => {
                self.exp(x);
                V::fresh()
            }
            ExpKind::Range {
                start, second, end, ..
            } => {
                self.exp(start);
                if let Some(s) = second {
                    self.exp(s);
                }
                self.exp(end);
                V::fresh()
            }
            ExpKind::Assert { cond, body } => {
                self.exp(cond);
                self.exp(body)
            }
            ExpKind::Apply(f, args) => {
                let refs: Vec<&Exp> = args.iter().collect();
                self.apply(f, &refs, e.span)
            }
            ExpKind::BinOp { op, lhs, rhs, .. } => {
                let opname = op.name.name.as_str();
                // The pipes lose the uniqueness of the piped function's result in their own
                // type, so look at the function's type instead.
                if op.quals.is_empty() && opname == "|>" {
                    let rt = self.ret_of(rhs.span);
                    return self.apply_ret(rhs, &[lhs], e.span, rt);
                }
                if op.quals.is_empty() && opname == "<|" {
                    let rt = self.ret_of(lhs.span);
                    return self.apply_ret(lhs, &[rhs], e.span, rt);
                }
                let fake = Exp {
                    kind: ExpKind::Var(op.clone()),
                    span: op.span,
                };
                self.apply(&fake, &[lhs, rhs], e.span)
            }
            ExpKind::LeftSection { op, lhs, .. } => {
                let f = self.var(op, op.span);
                let l = self.exp(lhs);
                let consumes = self.param_unique(op.span, 0);
                if consumes {
                    self.consume(&l.als.all(), lhs.span);
                }
                let mut s = f.als.all();
                s.extend(l.als.all());
                V {
                    als: Als::Leaf(s),
                    consumes: consumes || f.consumes,
                }
            }
            ExpKind::RightSection { op, rhs, .. } => {
                let f = self.var(op, op.span);
                let r = self.exp(rhs);
                let consumes = self.param_unique(op.span, 1);
                if consumes {
                    self.consume(&r.als.all(), rhs.span);
                }
                let mut s = f.als.all();
                s.extend(r.als.all());
                V {
                    als: Als::Leaf(s),
                    consumes: consumes || f.consumes,
                }
            }
            ExpKind::If { cond, then, els } => {
                self.exp(cond);
                let saved = self.consumed.clone();
                let a = self.exp(then);
                let after_then = std::mem::replace(&mut self.consumed, saved.clone());
                let b = self.exp(els);
                self.consumed.extend(after_then);
                // What a branch consumed cannot be aliased by the result any more (the other
                // branch's value is used only when this one did not run).
                let gone: Vec<VName> = self
                    .consumed
                    .keys()
                    .filter(|k| !saved.contains_key(*k))
                    .cloned()
                    .collect();
                V::of(a.als.union(&b.als).remove(&gone))
            }
            ExpKind::Let {
                pat, value, body, ..
            } => {
                let v = self.exp(value);
                self.let_value_checks(pat, &v, value.span);
                self.bind_pat(pat, &v.als, &VKind::Local);
                self.exp(body)
            }
            ExpKind::LetFun {
                name,
                params,
                value,
                body,
                ..
            } => {
                let f = self.function(params, value, None, e.span);
                if let Some(d) = self.c.info.resolutions.get(&name.span).cloned() {
                    self.bind(&d.vname, &name.name, f.als, VKind::Local);
                }
                self.exp(body)
            }
            ExpKind::Lambda { params, body, ret } => {
                let ret_t = ret
                    .as_ref()
                    .and_then(|_| self.lambda_ret_type(e.span, params.len()));
                self.function(params, body, ret_t, e.span)
            }
            ExpKind::LetWith {
                dest,
                path,
                value,
                body,
            } => {
                let qn = QualName {
                    quals: vec![],
                    name: dest.clone(),
                    span: dest.span,
                };
                self.path_indices(path);
                let v = self.exp(value);
                let target = self.var(&qn, dest.span);
                let r = self.update_with(target, path, v, value.span, e.span);
                if let Some(v) = self.c.let_with_binds.get(&dest.span).cloned() {
                    self.bind(&v, &dest.name, r.als, VKind::Local);
                }
                self.exp(body)
            }
            ExpKind::Update {
                target,
                path,
                value,
            } => {
                // Indices and the new value are evaluated before the array is updated.
                self.path_indices(path);
                let v = self.exp(value);
                let t = self.exp(target);
                self.update_with(t, path, v, value.span, e.span)
            }
            ExpKind::Loop {
                pat,
                init,
                form,
                body,
            } => self.loop_(pat, init.as_deref(), form, body, e.span),
            ExpKind::Match { scrutinee, cases } => self.match_(scrutinee, cases),
        }
    }

    pub(super) fn indices(&mut self, idxs: &[DimIndex]) {
        for i in idxs {
            match i {
                DimIndex::Fix(x) => {
                    self.exp(x);
                }
                DimIndex::Slice {
                    start, end, stride, ..
                } => {
                    for x in [start, end, stride].into_iter().flatten() {
                        self.exp(x);
                    }
                }
            }
        }
    }

    /// Whether parameter `i` of the function whose type is recorded at `span` is unique.
    pub(super) fn param_unique(&self, span: Span, i: usize) -> bool {
        let mut t = match self.ty(span) {
            Some(t) => t.clone(),
            None => return false,
        };
        for _ in 0..i {
            match t {
                Type::Arrow(a) => t = a.ret.ty.clone(),
                _ => return false,
            }
        }
        matches!(&t, Type::Arrow(a) if a.param.is_unique())
    }

    pub(super) fn let_value_checks(&mut self, pat: &Pat, v: &V, span: Span) {
        if v.consumes {
            self.err(
                "contains-consumption",
                span,
                "Let-bound expression of higher-order type contains consumption: a function value that performs consumption may not be bound with let.".into(),
            );
        }
        if let Some((ps, name)) = self.pat_unique_ascription(pat) {
            for x in v.als.all() {
                if !self.is_consumable(&x) {
                    let n = self.display(&x);
                    self.err(
                        "return-aliased",
                        ps,
                        format!("Unique-typed binding \"{name}\" is aliased to \"{n}\", which is not consumable."),
                    );
                    break;
                }
            }
        }
    }

    pub(super) fn is_consumable(&self, x: &VName) -> bool {
        match self.vars.get(x) {
            None => true,
            Some(i) => match i.kind {
                VKind::Local | VKind::Synthetic => true,
                VKind::Param { consumable } | VKind::LoopParam { consumable } => consumable,
                VKind::Global => false,
            },
        }
    }

    pub(super) fn apply(&mut self, f: &Exp, args: &[&Exp], span: Span) -> V {
        self.apply_ret(f, args, span, None)
    }

    /// The result type of the function whose type is recorded at `span`.
    pub(super) fn ret_of(&self, span: Span) -> Option<Type> {
        match self.ty(span) {
            Some(Type::Arrow(a)) => Some(a.ret.ty.clone()),
            _ => None,
        }
    }

    pub(super) fn apply_ret(&mut self, f: &Exp, args: &[&Exp], span: Span, ret: Option<Type>) -> V {
        let fv = self.exp(f);
        let fname = match &strip(f).kind {
            ExpKind::Var(qn) => crate::checker::qual_string(qn),
            _ => "function".into(),
        };
        let mut vals = Vec::new();
        for a in args {
            vals.push(self.exp(a));
        }
        let mut ft = self
            .ty(strip(f).span)
            .cloned()
            .or_else(|| self.ty(f.span).cloned());
        // The result of a function from a local variable may alias whatever the function
        // captured; globals capture nothing.
        let mut observing: BTreeSet<VName> = fv
            .als
            .all()
            .into_iter()
            .filter(|x| self.vars.get(x).is_none_or(|i| i.kind != VKind::Global))
            .collect();
        let mut consumes_any = fv.consumes;
        for (i, (a, v)) in args.iter().zip(&vals).enumerate() {
            let param = match &ft {
                Some(Type::Arrow(arr)) => {
                    let p = arr.param.clone();
                    ft = Some(arr.ret.ty.clone());
                    Some(p)
                }
                _ => {
                    ft = None;
                    None
                }
            };
            if v.consumes {
                self.err(
                    "consuming-argument",
                    a.span,
                    "Argument of functional type contains consumption: a function that performs consumption may not be passed as an argument.".into(),
                );
            }
            let unique = param.as_ref().is_some_and(|p| p.is_unique());
            if unique {
                // The argument's parts must not alias each other…
                if let Als::Rec(m) = &v.als {
                    // A tuple variable appears in all its components without them sharing.
                    let tuple_vars: BTreeSet<VName> = v
                        .als
                        .all()
                        .into_iter()
                        .filter(|x| {
                            self.vars
                                .get(x)
                                .is_some_and(|i| matches!(i.als, Als::Rec(_)))
                        })
                        .collect();
                    let parts: Vec<BTreeSet<VName>> = m
                        .values()
                        .map(|x| x.all().difference(&tuple_vars).cloned().collect())
                        .collect();
                    let mut clash = false;
                    for (j, p) in parts.iter().enumerate() {
                        for q in &parts[j + 1..] {
                            if p.intersection(q).next().is_some() {
                                clash = true;
                            }
                        }
                    }
                    if clash {
                        self.err(
                            "self-aliasing-arg",
                            a.span,
                            format!("Argument passed for consuming parameter is self-aliased (in a call of \"{fname}\")."),
                        );
                    }
                }
                // …nor any other argument.
                let mine = v.als.all();
                for (j, w) in vals.iter().enumerate() {
                    if j != i && w.als.all().intersection(&mine).next().is_some() {
                        self.err(
                            "self-aliasing-arg",
                            a.span,
                            format!("Argument is consumed by \"{fname}\", but is also aliased by another argument."),
                        );
                        break;
                    }
                }
                self.consume(&mine, a.span);
                // Consuming a fresh value makes no difference to the function value.
                consumes_any |= !mine.is_empty();
            } else {
                observing.extend(v.als.all());
            }
        }
        let rt = ret.or_else(|| self.ty(span).cloned());
        match rt {
            Some(t) if t.is_fun() => V {
                als: Als::Leaf(observing),
                consumes: consumes_any,
            },
            Some(t) => {
                let synth = if can_alias(&t) && !t.is_unique() {
                    Some(self.synthetic(format!("result of applying \"{fname}\"")))
                } else {
                    None
                };
                let als = self.result_als(&t, &observing, synth.as_ref());
                V::of(als)
            }
            None => V::of(Als::Leaf(observing)),
        }
    }

    /// Aliases of a call result of type `t`: unique parts are fresh, others alias the
    /// observed arguments and the call's own anonymous result.
    pub(super) fn result_als(
        &self,
        t: &Type,
        observing: &BTreeSet<VName>,
        synth: Option<&VName>,
    ) -> Als {
        match t {
            Type::Record(fs) => Als::Rec(
                fs.iter()
                    .map(|(k, ft)| (k.clone(), self.result_als(ft, observing, synth)))
                    .collect(),
            ),
            t if !can_alias(t) || t.is_unique() => Als::none(),
            _ => {
                let mut s = observing.clone();
                if let Some(v) = synth {
                    s.insert(v.clone());
                }
                Als::Leaf(s)
            }
        }
    }

    pub(super) fn path_indices(&mut self, path: &[UpdateStep]) {
        for s in path {
            if let UpdateStep::Index(idxs, _) = s {
                self.indices(idxs);
            }
        }
    }

    pub(super) fn update_with(
        &mut self,
        target: V,
        path: &[UpdateStep],
        v: V,
        value_span: Span,
        span: Span,
    ) -> V {
        let in_place = path.iter().any(|s| matches!(s, UpdateStep::Index(..)));
        if in_place {
            let tall = target.als.all();
            if v.als.all().intersection(&tall).next().is_some() {
                self.err(
                    "in-place-alias",
                    value_span,
                    "The value assigned by an in-place update aliases the array being updated."
                        .into(),
                );
            }
            self.consume(&tall, span);
            V::fresh()
        } else {
            V::of(replace_field(&target.als, path, &v.als))
        }
    }
}

/// The aliases of a record after `r with f.g = v`.
pub(super) fn replace_field(a: &Als, path: &[UpdateStep], v: &Als) -> Als {
    match path.first() {
        None => v.clone(),
        Some(UpdateStep::Field(f)) => match a {
            Als::Rec(m) => {
                let mut m = m.clone();
                let cur = m.get(f.name.as_str()).cloned().unwrap_or_else(Als::none);
                m.insert(
                    Name::from(f.name.as_str()),
                    replace_field(&cur, &path[1..], v),
                );
                Als::Rec(m)
            }
            leaf => leaf.union(v),
        },
        Some(UpdateStep::Index(..)) => a.union(v),
    }
}
