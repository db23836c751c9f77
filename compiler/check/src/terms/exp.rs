//! Checking the simpler expression forms: literals, variables, constructors, records,
//! arrays, projections, sections, ranges, ascriptions, coercions and conditionals.

use std::collections::BTreeMap;
use std::sync::Arc;

use futhark_syntax::Span;
use futhark_syntax::ast::{
    Exp, ExpKind, Ident, LitKind, Literal, QualName, RangeKind, RecordField, TypeExp, UpdateStep,
};

use crate::checker::{Checker, LitValue, PendingLiteral, ValRef, qual_string};
use crate::env::{Env, Overload, Scheme};
use crate::info::DefRef;
use crate::typeexp::AnonMode;
use crate::types::{Arrow, Liftedness, Name, PrimType, RetType, Size, Subst, TParam, Type, VName};
use crate::unify::{Constraint, UnknownSource};

impl Checker<'_> {
    pub fn check_literal(&mut self, lit: &Literal, negated: bool) -> Type {
        let (ty, value) = match &lit.kind {
            LitKind::Bool(_) => return Type::bool(),
            LitKind::Int {
                value,
                negative,
                suffix,
            } => {
                let ty = match suffix {
                    Some(s) => Type::Prim(s.prim_type()),
                    None => Type::var(self.new_var_with(
                        "t",
                        Constraint::Overloaded(PrimType::numeric()),
                        lit.span,
                    )),
                };
                (
                    ty,
                    LitValue::Int {
                        value: *value,
                        negative: *negative || negated,
                    },
                )
            }
            LitKind::Float {
                negative, suffix, ..
            } => {
                let ty = match suffix {
                    Some(s) => Type::Prim(s.prim_type()),
                    None => Type::var(self.new_var_with(
                        "t",
                        Constraint::Overloaded(PrimType::FLOATS.to_vec()),
                        lit.span,
                    )),
                };
                (
                    ty,
                    LitValue::Float {
                        value: lit.kind.float_value().unwrap_or(0.0),
                        negative: *negative || negated,
                    },
                )
            }
            LitKind::Char(_) => (
                Type::var(self.new_var_with(
                    "t",
                    Constraint::Overloaded(PrimType::numeric()),
                    lit.span,
                )),
                LitValue::Char,
            ),
        };
        let suffixed = matches!(
            &lit.kind,
            LitKind::Int {
                suffix: Some(_),
                ..
            } | LitKind::Float {
                suffix: Some(_),
                ..
            }
        );
        self.pending_literals.push(PendingLiteral {
            span: lit.span,
            suffixed,
            ty: ty.clone(),
            kind: value,
        });
        ty
    }

    /// Instantiates the type of a value reference with fresh type and size variables.
    pub fn instantiate(&mut self, r: &ValRef, span: Span) -> Type {
        match r {
            ValRef::Local { tparams, ty, .. } => self.instantiate_scheme(tparams, ty, span),
            ValRef::Global(b) => match &*b.scheme {
                Scheme::Poly(ps, t) => self.instantiate_scheme(ps, t, span),
                Scheme::Overloaded(o) => self.instantiate_overload(*o, span),
            },
        }
    }

    pub fn instantiate_scheme(&mut self, ps: &[TParam], t: &Type, span: Span) -> Type {
        if ps.is_empty() {
            return t.clone();
        }
        let mut map: Vec<(crate::types::VName, Subst)> = Vec::new();
        for p in ps {
            match p {
                TParam::Type { name, lifted } => {
                    let v = self.new_var_with(name.name(), Constraint::Free(*lifted), span);
                    map.push((name.clone(), Subst::Type(Type::var(v))));
                }
                TParam::Size { name } => {
                    let v = self.new_sizevar(name.name(), span);
                    map.push((name.clone(), Subst::Size(Size::Var(v))));
                }
            }
        }
        t.subst(&|v| map.iter().find(|(n, _)| n == v).map(|(_, s)| s.clone()))
    }

    fn instantiate_overload(&mut self, o: Overload, span: Span) -> Type {
        let binary = |t: Type, r: Type| Type::arrow(t.clone(), Type::arrow(t, r));
        match o {
            Overload::Arith => {
                let t = Type::var(self.new_var_with(
                    "t",
                    Constraint::Overloaded(PrimType::numeric()),
                    span,
                ));
                binary(t.clone(), t)
            }
            Overload::IntArith => {
                let t = Type::var(self.new_var_with(
                    "t",
                    Constraint::Overloaded(PrimType::integers()),
                    span,
                ));
                binary(t.clone(), t)
            }
            Overload::Logic => binary(Type::bool(), Type::bool()),
            Overload::Equality => {
                let t = Type::var(self.new_var_with("t", Constraint::Equality, span));
                binary(t, Type::bool())
            }
            Overload::Ordering => {
                let t = Type::var(self.new_var_with(
                    "t",
                    Constraint::Overloaded(PrimType::ALL.to_vec()),
                    span,
                ));
                binary(t, Type::bool())
            }
            Overload::Not => {
                let mut ps = PrimType::integers();
                ps.push(PrimType::Bool);
                let t = Type::var(self.new_var_with("t", Constraint::Overloaded(ps), span));
                Type::arrow(t.clone(), t)
            }
            Overload::Neg => {
                let mut ps = PrimType::numeric();
                ps.push(PrimType::Bool);
                let t = Type::var(self.new_var_with("t", Constraint::Overloaded(ps), span));
                Type::arrow(t.clone(), t)
            }
        }
    }

    /// Looks up and instantiates a value name, reporting unknown names.
    pub fn check_var(&mut self, qn: &QualName, span: Span) -> Type {
        // `r.x.y` where `r` is a value: field projections, not module qualification.
        if let Some(first) = qn.quals.first() {
            if self.is_value_name(&first.name) {
                let base = QualName {
                    quals: vec![],
                    name: first.clone(),
                    span: first.span,
                };
                let mut t = self.check_var(&base, first.span);
                self.record_type(first.span, &t);
                for f in qn.quals[1..].iter().chain(std::iter::once(&qn.name)) {
                    t = self.project(&t, f, span);
                }
                return t;
            }
            // A module path followed by a value and then fields. Walks shared module
            // environments rather than copying the scope (this runs for every `M.x`).
            let mut cur: Option<Arc<Env>> = None;
            for (i, q) in qn.quals.iter().enumerate() {
                let env: &Env = cur.as_deref().unwrap_or(&self.env);
                if let Some(mb) = env.mods.get(q.name.as_str()) {
                    match &mb.m {
                        crate::env::Mod::Env(e) => {
                            let (e, def) = (e.clone(), mb.def.clone());
                            self.info.resolutions.insert(q.span, def);
                            cur = Some(e);
                        }
                        crate::env::Mod::Fun(_) => break,
                    }
                } else if i > 0
                    && let Some(b) = env.vals.get(q.name.as_str()).cloned()
                {
                    self.resolve_to(
                        q.span,
                        &DefRef {
                            vname: b.vname.clone(),
                            ..b.def.clone()
                        },
                    );
                    let mut t = self.instantiate(&ValRef::Global(b), q.span);
                    for f in qn.quals[i + 1..].iter().chain(std::iter::once(&qn.name)) {
                        t = self.project(&t, f, span);
                    }
                    return t;
                } else {
                    break;
                }
            }
        }
        if qn.name.name.starts_with('_') && qn.quals.is_empty() && qn.name.name.len() > 1 {
            self.error(
                "underscore-use",
                qn.span,
                format!(
                    "Variable \"{}\" starts with an underscore and may not be used.",
                    qn.name.name
                ),
            );
            return Type::Error;
        }
        let Some(r) = self.find_val(qn) else {
            if !self
                .diags
                .iter()
                .any(|d| d.span.start <= qn.span.start && d.span.end >= qn.span.end && d.is_error())
            {
                self.error(
                    "unknown-name",
                    qn.span,
                    format!("Unknown name \"{}\".", qual_string(qn)),
                );
            }
            return Type::Error;
        };
        let def = match &r {
            ValRef::Local { def, .. } => def.clone(),
            // The binding's own name (which differs from the definition's inside functors
            // and sealed modules) is what sizes refer to.
            ValRef::Global(b) => DefRef {
                vname: b.vname.clone(),
                ..b.def.clone()
            },
        };
        if let (Some(q), ValRef::Global(_)) = (qn.quals.first(), &r)
            && q.name == "intrinsics"
            && !self.in_prelude
        {
            self.warn(
                "intrinsics-use",
                qn.span,
                format!(
                    "Using intrinsic functions directly can easily crash the compiler or result in wrong code generation (\"{}\"; prefer the prelude).",
                    qn.name.name
                ),
            );
        }
        self.resolve_to(qn.span, &def);
        let in_head = std::mem::replace(&mut self.in_apply_head, false);
        if let Some(rec) = &self.rec_info
            && rec.vname == def.vname
        {
            self.rec_used = true;
            if !in_head && rec.params.iter().any(|(_, f)| *f) {
                let name = rec.name.clone();
                self.error(
                        "recursion",
                        qn.span,
                        format!(
                            "Recursive function \"{name}\" with a higher-order parameter may only be used in a saturated application."
                        ),
                    );
            }
        }
        let before = self.def_vars.len();
        let t = self.instantiate(&r, span);
        let origin = format!(
            "instantiated size parameter of \"{}\", from use as function argument",
            qual_string(qn)
        );
        for v in &self.def_vars[before..] {
            self.var_origin.insert(v.clone(), origin.clone());
        }
        t
    }

    pub fn project(&mut self, t: &Type, field: &Ident, span: Span) -> Type {
        let name = Name::from(field.name.as_str());
        match self.uni.must_have_field(t, &name, self.level, span) {
            Ok(ft) => {
                if let Type::Var(v) = &ft {
                    self.def_vars.push(v.name.clone());
                }
                ft
            }
            Err(e) => {
                self.error("type-mismatch", field.span, e.message());
                Type::Error
            }
        }
    }

    pub fn check_constr(&mut self, c: &Ident, args: &[Exp], span: Span) -> Type {
        let payload: Vec<Type> = args.iter().map(|a| self.check_exp(a)).collect();
        let v = self.new_var_with("sum", Constraint::Free(Liftedness::Lifted), span);
        let t = Type::var(v);
        if let Err(e) = self
            .uni
            .must_have_constr(&t, &Name::from(c.name.as_str()), &payload)
        {
            self.error("type-mismatch", span, e.message());
        }
        t
    }

    pub(crate) fn check_record(&mut self, fs: &[RecordField]) -> Type {
        let mut m: BTreeMap<Name, Type> = BTreeMap::new();
        let mut spans: Vec<(Name, Span)> = Vec::new();
        for f in fs {
            let (name, t) = match f {
                RecordField::Explicit(n, e) => (n, self.check_exp(e)),
                RecordField::Pun(n) => {
                    let qn = QualName {
                        quals: vec![],
                        name: n.clone(),
                        span: n.span,
                    };
                    let t = self.check_var(&qn, n.span);
                    self.record_type(n.span, &t);
                    (n, t)
                }
            };
            let key = Name::from(name.name.as_str());
            if let Some((_, prev)) = spans.iter().find(|(k, _)| *k == key) {
                let prev = *prev;
                self.error(
                    "duplicate-field",
                    name.span,
                    format!("Field \"{}\" previously defined.", name.name),
                )
                .labels
                .push(futhark_syntax::Label {
                    span: prev,
                    message: "previously defined here".into(),
                });
            }
            spans.push((key.clone(), name.span));
            m.insert(key, t);
        }
        Type::Record(m)
    }

    pub(crate) fn check_array_lit(&mut self, es: &[Exp], span: Span) -> Type {
        if es.is_empty() {
            let v = self.new_var_with("t", Constraint::Free(Liftedness::Unlifted), span);
            let row = Type::var(v);
            self.pending_empty_rows.push((span, row.clone()));
            return Type::array(row, vec![Size::Lit(0)], false);
        }
        let t0 = self.check_exp(&es[0]);
        for e in &es[1..] {
            let t = self.check_exp(e);
            self.expect(
                e.span,
                "Elements of array literal have different types.",
                &t0,
                &t,
            );
        }
        if let Err(err) = self.uni.zero_order(&t0) {
            self.error(
                "functional-array",
                span,
                format!(
                    "Cannot create array: the array element type \"{}\" is lifted or functional. {}",
                    self.uni.zonk(&t0),
                    err.message()
                ),
            );
            return Type::Error;
        }
        Type::array(t0, vec![Size::Lit(es.len() as i64)], false)
    }

    pub(crate) fn check_qual_parens(&mut self, qn: &QualName, inner: &Exp) -> Type {
        let mut path = qn.quals.clone();
        path.push(qn.name.clone());
        let Some(menv) = self.lookup_mod_path(&path) else {
            return Type::Error;
        };
        let saved = self.env.clone();
        self.env.extend(&menv);
        self.qual_open.push((self.locals.len(), menv.clone()));
        let t = self.check_exp(inner);
        self.qual_open.pop();
        self.env = saved;
        t
    }

    pub(crate) fn check_negate(&mut self, inner: &Exp, span: Span) -> Type {
        let t = if let ExpKind::Literal(lit) = &inner.kind {
            let t = self.check_literal(lit, true);
            self.record_type(inner.span, &t);
            t
        } else {
            self.check_exp(inner)
        };
        let ps = PrimType::numeric();
        if let Err(e) = self.uni.must_be_one_of(&t, &ps) {
            self.error(
                "type-mismatch",
                span,
                format!(
                    "Cannot negate a value of type \"{}\": {}",
                    self.uni.zonk(&t),
                    e.message()
                ),
            );
        }
        t
    }

    /// `(.a.b)`, `(.[i])`: a function projecting from its argument.
    pub(crate) fn check_project_section(&mut self, steps: &[UpdateStep], span: Span) -> Type {
        let arg = self.new_tyvar("t", span);
        let mut t = arg.clone();
        for s in steps {
            t = match s {
                UpdateStep::Field(f) => self.project(&t, f, span),
                UpdateStep::Index(idxs, sp) => self.check_index_steps(&t, idxs, *sp),
            };
        }
        self.produced_at(span, span);
        Type::arrow(arg, t)
    }

    pub(crate) fn check_range(
        &mut self,
        start: &Exp,
        second: Option<&Exp>,
        end: &Exp,
        kind: RangeKind,
        span: Span,
    ) -> Type {
        let ts = self.check_exp(start);
        if let Err(e) = self.uni.must_be_one_of(&ts, &PrimType::integers()) {
            self.error(
                "type-mismatch",
                start.span,
                format!("Range bounds must be integers: {}", e.message()),
            );
        }
        if let Some(s) = second {
            let t2 = self.check_exp(s);
            self.expect(
                s.span,
                "Range components must have the same type.",
                &ts,
                &t2,
            );
        }
        let te = self.check_exp(end);
        self.expect(
            end.span,
            "Range components must have the same type.",
            &ts,
            &te,
        );
        let is_lit = |e: &Exp, n: u128| matches!(&strip(e).kind, ExpKind::Literal(Literal { kind: LitKind::Int { value, negative: false, .. }, .. }) if *value == n);
        let elem_ok = matches!(
            self.uni.resolve(&ts),
            Type::Prim(PrimType::I64) | Type::Var(_)
        );
        let size = if !elem_ok {
            None
        } else {
            match (second, kind) {
                (None, RangeKind::UpToExclusive) if is_lit(start, 0) => self.exp_to_size(end),
                (Some(s), RangeKind::UpToExclusive) if is_lit(start, 0) && is_lit(s, 1) => {
                    self.exp_to_size(end)
                }
                (Some(s), RangeKind::Inclusive) if is_lit(start, 1) && is_lit(s, 2) => {
                    self.exp_to_size(end)
                }
                (None, RangeKind::UpToExclusive) => {
                    match (self.exp_to_size(end), self.exp_to_size(start)) {
                        (Some(b), Some(a)) => self.size_binop("-", b, a),
                        _ => None,
                    }
                }
                (None, RangeKind::Inclusive) => {
                    match (self.exp_to_size(end), self.exp_to_size(start)) {
                        (Some(b), Some(a)) => {
                            let d = if is_lit(start, 0) {
                                Some(b)
                            } else {
                                self.size_binop("-", b, a)
                            };
                            d.and_then(|d| self.size_binop("+", d, Size::Lit(1)))
                        }
                        _ => None,
                    }
                }
                _ => None,
            }
        };
        let d = match size {
            Some(s) => s,
            None => Size::Var(self.new_unknown("d", UnknownSource::Range, span)),
        };
        Type::array(ts, vec![d], false)
    }

    /// Attributes unknown sizes made within `inner` (not by an expression of their own) to
    /// the expression at `outer`, for the causality check.
    pub fn produced_at(&mut self, inner: Span, outer: Span) {
        for s in self.produced.values_mut() {
            if s.start >= inner.start && s.end <= inner.end && s.file == inner.file {
                *s = outer;
            }
        }
    }

    pub fn size_binop(&self, op: &str, a: Size, b: Size) -> Option<Size> {
        let v = self.op_name(op)?;
        Some(Size::BinOp(v, Box::new(a), Box::new(b)))
    }

    pub(crate) fn check_ascript(&mut self, inner: &Exp, te: &TypeExp) -> Type {
        let t = self.check_exp(inner);
        let r = self.resolve_type(te, AnonMode::Ascribe);
        self.expect(
            inner.span,
            "Expression does not have expected type from type ascription.",
            &r.ty,
            &t,
        );
        let u = self.uni.resolve(&t).is_unique();
        r.ty.with_unique(u)
    }

    pub(crate) fn check_coerce(&mut self, inner: &Exp, te: &TypeExp, span: Span) -> Type {
        let t = self.check_exp(inner);
        let r = self.resolve_type(te, AnonMode::Coerce);
        self.produced_at(te.span, span);
        // The coerced expression's sizes are whatever it has: where the coercion names a
        // size, the part of the expression's type that only the coercion determines gets a
        // fresh size instead, which stays ambiguous unless something else fixes it. (An
        // anonymous size of the coercion is an unknown size made here and may stand for the
        // expression's size.)
        let mut fresh = Vec::new();
        self.bind_unknown_parts(&r.ty, &t, span, &mut fresh);
        for v in fresh {
            self.def_vars.push(v.clone());
            self.var_origin.insert(v, "from size coercion".into());
        }
        if let Err(e) = self.uni.unify_ignoring_sizes(&r.ty, &t) {
            self.report_unify(
                span,
                "Expression does not have expected type in size coercion.",
                &r.ty,
                &t,
                e,
            );
        }
        r.ty
    }

    /// Where the coerced expression's type `src` is still an unknown type at a place where
    /// the coercion's type `target` has arrays, binds it to `target` with fresh sizes.
    fn bind_unknown_parts(
        &mut self,
        target: &Type,
        src: &Type,
        span: Span,
        fresh: &mut Vec<VName>,
    ) {
        let target = self.uni.resolve(target);
        match (&target, self.uni.resolve(src)) {
            (_, Type::Var(tv)) if self.uni.is_free_var(&tv.name) && target_has_array(&target) => {
                let any = self.any_sizes(&target, span, fresh);
                let _ = self.uni.unify(&Type::Var(tv), &any);
            }
            (Type::Array(a), Type::Array(b)) => {
                self.bind_unknown_parts(&a.elem, &b.elem, span, fresh)
            }
            (Type::Record(fa), Type::Record(fb)) => {
                for (k, x) in fa {
                    if let Some(y) = fb.get(k) {
                        self.bind_unknown_parts(x, y, span, fresh);
                    }
                }
            }
            (Type::Sum(ca), Type::Sum(cb)) => {
                for (k, xs) in ca {
                    if let Some(ys) = cb.get(k) {
                        for (x, y) in xs.iter().zip(ys) {
                            self.bind_unknown_parts(x, y, span, fresh);
                        }
                    }
                }
            }
            _ => {}
        }
    }

    /// `t` with every array dimension outside function types replaced by a fresh size
    /// variable (collected in `fresh`), except the unknown sizes the coercion at `span`
    /// made for its anonymous dimensions.
    fn any_sizes(&mut self, t: &Type, span: Span, fresh: &mut Vec<VName>) -> Type {
        match self.uni.resolve(t) {
            Type::Array(a) => {
                let shape = a
                    .shape
                    .iter()
                    .map(|d| match d {
                        Size::Var(u) if self.produced.get(u) == Some(&span) => d.clone(),
                        _ => {
                            let v = self.uni.new_var("d", u32::MAX, Constraint::SizeFree, span);
                            fresh.push(v.clone());
                            Size::Var(v)
                        }
                    })
                    .collect();
                let elem = self.any_sizes(&a.elem, span, fresh);
                Type::array(elem, shape, a.unique)
            }
            Type::Record(fs) => Type::Record(
                fs.iter()
                    .map(|(k, x)| (k.clone(), self.any_sizes(x, span, fresh)))
                    .collect(),
            ),
            Type::Sum(cs) => Type::Sum(
                cs.iter()
                    .map(|(k, xs)| {
                        (
                            k.clone(),
                            xs.iter().map(|x| self.any_sizes(x, span, fresh)).collect(),
                        )
                    })
                    .collect(),
            ),
            other => other,
        }
    }

    pub(crate) fn check_if(&mut self, cond: &Exp, then: &Exp, els: &Exp, span: Span) -> Type {
        let tc = self.check_exp(cond);
        self.expect(
            cond.span,
            "Condition of if-expression must have type bool.",
            &Type::bool(),
            &tc,
        );
        let t1 = self.check_exp(then);
        let t2 = self.check_exp(els);
        let t = self.branch_type(
            &t1,
            &t2,
            span,
            "Branches of if-expression have different types.",
        );
        self.no_function_result(&t, span, "Conditional expression");
        t
    }

    /// Unifies two branch types, letting sizes differ (they become unknown).
    pub fn branch_type(&mut self, t1: &Type, t2: &Type, span: Span, context: &str) -> Type {
        match self.uni.unify_branches(t1, t2, self.level, span) {
            Ok(t) => {
                for v in std::mem::take(&mut self.uni.created) {
                    self.produced.insert(v, span);
                }
                let u1 = self.uni.resolve(t1).is_unique();
                let u2 = self.uni.resolve(t2).is_unique();
                t.with_unique(u1 && u2)
            }
            Err(e) => {
                self.uni.created.clear();
                self.report_unify(span, context, t1, t2, e);
                Type::Error
            }
        }
    }

    /// `if`, `match` and loops may not return functions.
    pub fn no_function_result(&mut self, t: &Type, span: Span, what: &str) {
        if let Err(e) = self
            .uni
            .at_most_lifted(t, crate::types::Liftedness::SizeLifted)
        {
            self.error(
                "functional-branch",
                span,
                format!(
                    "{what} may not be of function type \"{}\". {}",
                    self.uni.zonk(t),
                    e.message()
                ),
            );
        }
    }

    /// Checks an operator used as a value: `(+)`.
    pub(crate) fn check_op_section(&mut self, op: &QualName, span: Span) -> Type {
        self.check_var(op, span)
    }

    /// `(e op)` is `\y -> e op y`.
    pub(crate) fn check_left_section(&mut self, op: &QualName, lhs: &Exp, span: Span) -> Type {
        let ft = self.check_var(op, op.span);
        self.record_type(op.span, &ft);
        let lt = self.check_exp(lhs);
        let fname = qual_string(op);
        self.apply_one(Some(&fname), &ft, lhs, &lt, span, 1, 2)
    }

    /// `(op e)` is `\x -> x op e`.
    pub(crate) fn check_right_section(&mut self, op: &QualName, rhs: &Exp, span: Span) -> Type {
        let ft = self.check_var(op, op.span);
        self.record_type(op.span, &ft);
        let rt = self.check_exp(rhs);
        let fname = qual_string(op);
        let ft = self.as_arrow(&ft, span, Some(&fname));
        let Type::Arrow(a1) = ft else {
            return Type::Error;
        };
        let second = self.as_arrow(&a1.ret.ty, span, Some(&fname));
        let Type::Arrow(a2) = second else {
            return Type::Error;
        };
        if let Err(e) = self.uni.unify(&a2.param, &rt) {
            let summary = exp_summary(rhs);
            self.report_unify(
                rhs.span,
                &format!("Cannot apply \"{fname}\" to \"{summary}\" (invalid type)."),
                &a2.param,
                &rt,
                e,
            );
        }
        let mut ret = a2.ret.clone();
        if let Some(p) = &a2.param_name {
            let s = self.arg_size(rhs, span, Some(&fname));
            ret.ty = ret.ty.subst_sizes(&|v| (v == p).then(|| s.clone()));
        }
        let ret = self.instantiate_ext(&ret, span, Some(&fname));
        Type::Arrow(Box::new(Arrow {
            param_name: a1.param_name.clone(),
            param: a1.param.clone(),
            ret: RetType::plain(ret),
        }))
    }
}

fn strip(e: &Exp) -> &Exp {
    match &e.kind {
        ExpKind::Parens(x) => strip(x),
        _ => e,
    }
}

/// A short rendering of an expression for error messages (`"xs"`, `"f x"`, `"(a, b)"`).
pub fn exp_summary(e: &Exp) -> String {
    fn go(e: &Exp, depth: u32) -> String {
        if depth > 3 {
            return "...".into();
        }
        match &e.kind {
            ExpKind::Var(qn) => qual_string(qn),
            ExpKind::Literal(l) => match &l.kind {
                LitKind::Int {
                    value,
                    negative,
                    suffix,
                } => format!(
                    "{}{}{}",
                    if *negative { "-" } else { "" },
                    value,
                    suffix.map(|s| s.name()).unwrap_or("")
                ),
                LitKind::Float {
                    text,
                    negative,
                    suffix,
                    ..
                } => format!(
                    "{}{}{}",
                    if *negative { "-" } else { "" },
                    text,
                    suffix.map(|s| s.name()).unwrap_or("")
                ),
                LitKind::Char(c) => format!("'{}'", char::from_u32(*c).unwrap_or('?')),
                LitKind::Bool(b) => b.to_string(),
            },
            ExpKind::Parens(x) => format!("({})", go(x, depth + 1)),
            ExpKind::Tuple(xs) => format!(
                "({})",
                xs.iter()
                    .map(|x| go(x, depth + 1))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            ExpKind::Apply(f, args) => {
                let mut s = go(f, depth + 1);
                for a in args {
                    s.push(' ');
                    s.push_str(&go(a, depth + 1));
                }
                s
            }
            ExpKind::BinOp { op, lhs, rhs, .. } => format!(
                "{} {} {}",
                go(lhs, depth + 1),
                qual_string(op),
                go(rhs, depth + 1)
            ),
            ExpKind::Project(x, f) => format!("{}.{}", go(x, depth + 1), f.name),
            ExpKind::Negate(x) => format!("-{}", go(x, depth + 1)),
            ExpKind::Constr(c, _) => format!("#{}", c.name),
            ExpKind::ArrayLit(xs) if xs.is_empty() => "[]".into(),
            ExpKind::Lambda { .. } => "\\...".into(),
            _ => "...".into(),
        }
    }
    go(e, 0)
}

/// Whether a type has an array somewhere outside function types.
fn target_has_array(t: &Type) -> bool {
    match t {
        Type::Array(_) => true,
        Type::Record(fs) => fs.values().any(target_has_array),
        Type::Sum(cs) => cs.values().flatten().any(target_has_array),
        _ => false,
    }
}
