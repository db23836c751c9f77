//! `loop` expressions. The loop parameter's type is the initial value's type with every size
//! replaced by a size variable. After checking the body, sizes that the body left unchanged
//! are the initial sizes (loop-invariant); sizes the body constrained must agree with the
//! body's result; the others vary between iterations and become unknown sizes of the loop's
//! result.

use futhark_syntax::Span;
use futhark_syntax::ast::{Exp, ExpKind, LoopForm, Pat, PatKind, QualName};

use crate::checker::Checker;
use crate::terms::pat::PatBind;
use crate::typeexp::AnonMode;
use crate::types::{PrimType, Size, Type, VName};
use crate::unify::UnknownSource;

impl Checker<'_> {
    pub fn check_loop(
        &mut self,
        pat: &Pat,
        init: Option<&Exp>,
        form: &LoopForm,
        body: &Exp,
        span: Span,
    ) -> Type {
        let init_t = match init {
            Some(e) => self.check_exp(e),
            None => self.loop_init_from_pattern(pat),
        };
        let init_t = self.uni.zonk(&init_t);
        // Every size of the initial value becomes a size variable of the parameter, created
        // outside the loop so nothing bound inside the body can be assigned to it.
        let mut gens: Vec<(VName, Size)> = Vec::new();
        let param_t = self.generalise_sizes(&init_t, span, &mut gens);

        let mark = self.scope_mark();
        self.level += 1;
        let mut binds: Vec<PatBind> = Vec::new();
        let pt = self.check_pat(pat, None, AnonMode::Param, &mut binds);
        if let Err(e) = self.uni.unify(&pt, &param_t) {
            self.report_unify(
                pat.span,
                "Initial value of loop does not match the loop parameter.",
                &pt,
                &param_t,
                e,
            );
        }
        if let Err(e) = self
            .uni
            .at_most_lifted(&pt, crate::types::Liftedness::SizeLifted)
        {
            self.error(
                "functional-loop",
                pat.span,
                format!(
                    "Loop parameters may not be of function type: {}",
                    e.message()
                ),
            );
        }
        self.pending_irrefutable.push((pat.clone(), pt.clone()));
        self.bind_pat(&binds);
        self.loop_param_binds
            .insert(pat.span, binds.iter().map(|b| b.vname.clone()).collect());

        match form {
            LoopForm::For { var, bound } => {
                let bt = self.check_exp(bound);
                if let Err(e) = self.uni.must_be_one_of(&bt, &PrimType::integers()) {
                    self.error(
                        "type-mismatch",
                        bound.span,
                        format!("Loop bound must be an integer: {}", e.message()),
                    );
                }
                let v = self.fresh(&var.name);
                self.record_type(var.span, &bt);
                self.resolve_to(
                    var.span,
                    &crate::info::DefRef::new(
                        &v,
                        crate::info::DefKind::Local,
                        Some(var.span),
                        None,
                    ),
                );
                self.bind_local(var, v, bt);
            }
            LoopForm::ForIn { pat: ipat, array } => {
                let at = self.check_exp(array);
                let elem = self.new_tyvar("t", array.span);
                let n = self.new_sizevar("n", array.span);
                let arr = Type::array(elem.clone(), vec![Size::Var(n)], false);
                if let Err(e) = self.uni.unify(&arr, &at) {
                    self.report_unify(
                        array.span,
                        "Loop iterates over a value that is not an array.",
                        &arr,
                        &at,
                        e,
                    );
                }
                let elem = self.uni.resolve(&at).row().unwrap_or(elem);
                let mut ib = Vec::new();
                let it = self.check_pat(ipat, Some(&elem), AnonMode::Ascribe, &mut ib);
                self.pending_irrefutable.push((ipat.clone(), it));
                self.bind_pat(&ib);
            }
            LoopForm::While(cond) => {
                let ct = self.check_exp(cond);
                self.expect(
                    cond.span,
                    "Condition of while-loop must have type bool.",
                    &Type::bool(),
                    &ct,
                );
            }
        }

        let bt = self.check_exp(body);
        self.scope_reset(mark);
        self.level -= 1;

        // A parameter's size may not be a size made inside the loop body.
        for (g, _) in &gens {
            if let Size::Var(u) = self.uni.zonk_size(&Size::Var(g.clone())) {
                let inner = self
                    .uni
                    .rigid
                    .get(&u)
                    .is_some_and(|r| r.unknown.is_some() && r.level > self.level);
                if inner {
                    self.error(
                        "loop-variant-escape",
                        body.span,
                        format!(
                            "The size of a loop parameter is \"{}\", a size created inside the loop body.",
                            u.name()
                        ),
                    );
                    return Type::Error;
                }
            }
        }
        // Compare the body's result with the parameter, position by position.
        let pz = self.uni.zonk(&pt);
        let bz = self.uni.zonk(&bt);
        if let Err(e) = self.uni.unify_ignoring_sizes(&pz, &bz) {
            self.report_unify(
                body.span,
                "Loop body does not have expected type.",
                &pz,
                &bz,
                e,
            );
            return Type::Error;
        }
        let mut pairs = Vec::new();
        collect_dims(&self.uni.zonk(&pz), &self.uni.zonk(&bz), &mut pairs);
        let init_of = |gens: &[(VName, Size)], g: &VName| {
            gens.iter().find(|(x, _)| x == g).map(|(_, s)| s.clone())
        };
        let mut variant: Vec<(VName, Size)> = Vec::new();
        let mut invariant: Vec<VName> = Vec::new();
        for (p, b) in pairs {
            let p = self.uni.zonk_size(&p);
            let b = self.uni.zonk_size(&b);
            match &p {
                Size::Var(g) if self.uni.loop_vars.contains(g) && self.uni.is_free_var(g) => {
                    let init = init_of(&gens, g).map(|s| self.uni.zonk_size(&s));
                    if p == b || init.as_ref() == Some(&b) {
                        invariant.push(g.clone());
                    } else if !variant.iter().any(|(x, _)| x == g) {
                        variant.push((g.clone(), b.clone()));
                    }
                }
                _ => {
                    if p != b
                        && let Err(e) = self.uni.unify_size(&p, &b)
                    {
                        self.report_unify(
                            body.span,
                            "Loop body does not have expected type.",
                            &pz,
                            &bz,
                            e,
                        );
                        return Type::Error;
                    }
                }
            }
        }
        // A size cannot both stay the same and change.
        if let Some((g, b)) = variant.iter().find(|(g, _)| invariant.contains(g)) {
            let init = init_of(&gens, g).unwrap_or(Size::Var(g.clone()));
            let err = crate::unify::UnifyError::Sizes {
                expected: self.uni.zonk_size(&init),
                actual: b.clone(),
            };
            self.report_unify(
                body.span,
                "Loop body does not have expected type.",
                &pz,
                &bz,
                err,
            );
            return Type::Error;
        }
        // Invariant sizes are the initial ones; variant sizes are unknown after the loop.
        let mut loop_unknowns = Vec::new();
        for (g, _init_size) in &gens {
            if variant.iter().any(|(x, _)| x == g) && self.uni.is_free_var(g) {
                let u = self.new_unknown(g.name(), UnknownSource::Loop, span);
                let _ = self
                    .uni
                    .unify_size(&Size::Var(g.clone()), &Size::Var(u.clone()));
                loop_unknowns.push(Size::Var(u));
            }
        }
        for (g, init_size) in &gens {
            if self.uni.is_free_var(g) {
                let _ = self.uni.unify_size(&Size::Var(g.clone()), init_size);
                continue;
            }
            let cur = self.uni.zonk_size(&Size::Var(g.clone()));
            if loop_unknowns.contains(&cur) {
                continue;
            }
            if let Err(e) = self.uni.unify_size(&cur, init_size) {
                self.report_unify(
                    span,
                    "Initial value of loop does not have the type of the loop parameter.",
                    &pz,
                    &init_t,
                    e,
                );
            }
        }
        let result = self.uni.zonk(&pt);
        let names: Vec<PatBind> = binds;
        self.unscope(&result, &names, None, span)
    }

    /// Replaces every size in `t` by a fresh size variable, remembering the original.
    fn generalise_sizes(&mut self, t: &Type, span: Span, gens: &mut Vec<(VName, Size)>) -> Type {
        // Arrays are walked positionally so equal sizes in different positions get separate
        // variables (they may vary independently).
        self.regen(t, span, gens)
    }

    fn regen(&mut self, t: &Type, span: Span, gens: &mut Vec<(VName, Size)>) -> Type {
        match t {
            Type::Array(a) => {
                let shape = a
                    .shape
                    .iter()
                    .map(|d| {
                        let g = self.uni.new_sizevar("loop_d", self.level, span);
                        self.def_vars.push(g.clone());
                        self.uni.loop_vars.insert(g.clone());
                        gens.push((g.clone(), d.clone()));
                        Size::Var(g)
                    })
                    .collect();
                let elem = self.regen(&a.elem, span, gens);
                Type::array(elem, shape, a.unique)
            }
            Type::Record(fs) => Type::Record(
                fs.iter()
                    .map(|(k, x)| (k.clone(), self.regen(x, span, gens)))
                    .collect(),
            ),
            Type::Sum(cs) => Type::Sum(
                cs.iter()
                    .map(|(k, xs)| {
                        (
                            k.clone(),
                            xs.iter().map(|x| self.regen(x, span, gens)).collect(),
                        )
                    })
                    .collect(),
            ),
            _ => t.clone(),
        }
    }

    /// Without `= init`, the loop's initial value is the variables of the same names.
    fn loop_init_from_pattern(&mut self, pat: &Pat) -> Type {
        match &pat.kind {
            PatKind::Id(x) => {
                let qn = QualName {
                    quals: vec![],
                    name: x.clone(),
                    span: x.span,
                };
                self.check_var(&qn, x.span)
            }
            PatKind::Parens(p) | PatKind::Attr(_, p) => self.loop_init_from_pattern(p),
            PatKind::Ascript(p, _) => self.loop_init_from_pattern(p),
            PatKind::Tuple(ps) => {
                let ts = ps.iter().map(|p| self.loop_init_from_pattern(p)).collect();
                Type::tuple(ts)
            }
            PatKind::Record(fs) => Type::Record(
                fs.iter()
                    .map(|(f, p)| {
                        (
                            crate::types::Name::from(f.name.as_str()),
                            self.loop_init_from_pattern(p),
                        )
                    })
                    .collect(),
            ),
            _ => {
                self.error(
                    "type-error",
                    pat.span,
                    "Loop without initial value needs a pattern of variables.",
                );
                Type::Error
            }
        }
    }
}

/// Pairs up the array dimensions of two structurally equal types.
fn collect_dims(a: &Type, b: &Type, out: &mut Vec<(Size, Size)>) {
    match (a, b) {
        (Type::Array(x), Type::Array(y)) => {
            for (d1, d2) in x.shape.iter().zip(&y.shape) {
                out.push((d1.clone(), d2.clone()));
            }
            collect_dims(&x.elem, &y.elem, out);
        }
        (Type::Record(f1), Type::Record(f2)) => {
            for (k, t) in f1 {
                if let Some(u) = f2.get(k) {
                    collect_dims(t, u, out);
                }
            }
        }
        (Type::Sum(c1), Type::Sum(c2)) => {
            for (k, ts) in c1 {
                if let Some(us) = c2.get(k) {
                    for (t, u) in ts.iter().zip(us) {
                        collect_dims(t, u, out);
                    }
                }
            }
        }
        _ => {}
    }
}

#[allow(dead_code)]
fn is_var(e: &Exp) -> bool {
    matches!(e.kind, ExpKind::Var(_))
}
