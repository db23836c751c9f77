//! Uniqueness in loops (consumed parameters consume their initial values; their new
//! values must not alias outside variables or each other), matches and functions.

use std::collections::BTreeSet;

use futhark_syntax::Span;
use futhark_syntax::ast::{Case, Exp, ExpKind, LoopForm, Pat, PatKind};

use super::{Als, Uniq, V, VKind, prune, strip};
use crate::types::{Name, Type, VName};

impl Uniq<'_, '_> {
    pub(super) fn loop_(
        &mut self,
        pat: &Pat,
        init: Option<&Exp>,
        form: &LoopForm,
        body: &Exp,
        span: Span,
    ) -> V {
        let init_v = match init {
            Some(e) => self.exp(e),
            None => V::of(self.init_from_names(pat)),
        };
        let mut params = Vec::new();
        self.pat_vars(pat, &mut params);
        // Bound-by-name loop parameters are the variables of the pattern itself.
        match form {
            LoopForm::For { bound, .. } => {
                self.exp(bound);
            }
            LoopForm::ForIn { array, .. } => {
                self.exp(array);
            }
            LoopForm::While(_) => {}
        }
        let array_als = match form {
            LoopForm::ForIn { array, .. } => {
                self.c.info.exp_types.get(&array.span).cloned().map(|_| ())
            }
            _ => None,
        };
        let _ = array_als;
        self.depth += 1;
        let annotated_nonunique = pat_annotated_nonunique(pat);
        self.bind_loop_pat(pat, annotated_nonunique);
        if let LoopForm::For { var, .. } = form
            && let Some(d) = self.c.info.resolutions.get(&var.span).cloned()
        {
            self.bind(&d.vname, &var.name, Als::none(), VKind::Local);
        }
        if let LoopForm::ForIn { pat: ip, array } = form {
            let als = self.array_elem_als(array);
            self.bind_pat(ip, &als, &VKind::Local);
        }
        self.observed.push(Vec::new());
        let saved = self.consumed.clone();
        if let LoopForm::While(c) = form {
            self.exp(c);
        }
        let b = self.exp(body);
        let mut observed = self.observed.pop().unwrap_or_default();
        self.depth -= 1;
        // Only variables from outside the loop are interesting below.
        observed.retain(|(v, _)| self.vars.get(v).is_some_and(|i| i.depth <= self.depth));
        if let Some(parent) = self.observed.last_mut() {
            parent.extend(observed.iter().cloned());
        }
        // Which loop parameters were consumed (or declared unique)?
        let consumed_params: Vec<VName> = params
            .iter()
            .filter(|p| self.consumed.contains_key(*p) && !saved.contains_key(*p))
            .cloned()
            .collect();
        let mut consumed_positions = Vec::new();
        self.param_positions(
            pat,
            &Als::none(),
            &mut Vec::new(),
            &mut consumed_positions,
            &consumed_params,
        );
        // The initial values of consumed parameters are consumed by the loop.
        let mut init_consumed = BTreeSet::new();
        for path in &consumed_positions {
            let a = als_at(&init_v.als, path);
            init_consumed.extend(a.all());
        }
        if !init_consumed.is_empty() {
            // Variables observed in the loop body that alias what the loop consumes.
            for (v, sp) in &observed {
                if params.contains(v) {
                    continue;
                }
                let mut vs = self.vars.get(v).map(|i| i.als.all()).unwrap_or_default();
                vs.insert(v.clone());
                if vs.intersection(&init_consumed).next().is_some() {
                    let n = self.display(v);
                    self.err(
                        "use-after-consume",
                        *sp,
                        format!("Loop body uses \"{n}\", but this was consumed by the loop (it aliases a consumed initial value)."),
                    );
                    break;
                }
            }
            self.consume(&init_consumed, init.map(|e| e.span).unwrap_or(span));
        }
        // Consuming parameters: those the body consumes and those declared unique.
        let mut consuming = consumed_positions.clone();
        for p in self.unique_param_positions(pat) {
            if !consuming.contains(&p) {
                consuming.push(p);
            }
        }
        // New values of consuming parameters may not alias variables from outside the loop.
        let mut reported = false;
        for path in &consuming {
            let new = als_at(&b.als, path).all();
            let pname = path_param_name(pat, path).unwrap_or_else(|| "parameter".into());
            for x in &new {
                // Only variables from outside the loop matter.
                if params.contains(x)
                    || self
                        .vars
                        .get(x)
                        .is_none_or(|i| i.kind == VKind::Synthetic || i.depth > self.depth)
                {
                    continue;
                }
                let n = self.display(x);
                self.err(
                    "consuming-loop-param-aliases",
                    body.span,
                    format!("Return value for consuming loop parameter \"{pname}\" aliases \"{n}\", a variable from outside the loop."),
                );
                reported = true;
                break;
            }
        }
        // In the order of the parameters: a new value may not alias what an earlier
        // consuming parameter got, and a consuming parameter's new value may not alias any
        // earlier new value.
        let mut all_positions = Vec::new();
        self.param_positions(
            pat,
            &Als::none(),
            &mut Vec::new(),
            &mut all_positions,
            &params,
        );
        let (mut cons, mut obs) = (BTreeSet::new(), BTreeSet::new());
        for path in &all_positions {
            if reported {
                break;
            }
            let new = als_at(&b.als, path).all();
            let pname = path_param_name(pat, path).unwrap_or_else(|| "parameter".into());
            let is_consuming = consuming.contains(path);
            if new.intersection(&cons).next().is_some() {
                self.err(
                    "loop-parameter-aliases-other",
                    body.span,
                    format!("Return value for loop parameter \"{pname}\" aliases other consumed loop parameter."),
                );
                reported = true;
            } else if is_consuming && new.intersection(&obs).next().is_some() {
                self.err(
                    "aliases-previously-returned",
                    body.span,
                    format!("Return value for consuming loop parameter \"{pname}\" aliases previously returned value."),
                );
                reported = true;
            }
            if is_consuming {
                cons.extend(new);
            } else {
                obs.extend(new);
            }
        }
        // The loop's value aliases the initial values not consumed and the body's result.
        let mut result = b.als.remove(&params);
        let kept = remove_paths(&init_v.als, &consumed_positions);
        result = result.union(&kept);
        V::of(result)
    }

    pub(super) fn array_elem_als(&mut self, array: &Exp) -> Als {
        // Elements of an array alias the array (the array expression was already analysed;
        // re-derive its aliases without observing it again).
        match &strip(array).kind {
            ExpKind::Var(qn) => match self.c.info.resolutions.get(&qn.span) {
                Some(d) => {
                    let mut s = self
                        .vars
                        .get(&d.vname)
                        .map(|i| i.als.all())
                        .unwrap_or_default();
                    s.insert(d.vname.clone());
                    Als::Leaf(s)
                }
                None => Als::none(),
            },
            _ => Als::none(),
        }
    }

    /// Without `= init`, the loop's initial value is the same-named variables in scope.
    pub(super) fn init_from_names(&mut self, p: &Pat) -> Als {
        match &p.kind {
            PatKind::Id(x) => {
                // The occurrence was resolved to the outer variable by the type checker at
                // the identifier; the loop parameter itself shares its span, so look the
                // outer one up by name among bound variables.
                let outer = self
                    .vars
                    .iter()
                    .filter(|(_, i)| i.name == x.name)
                    .max_by_key(|(v, _)| v.id)
                    .map(|(v, i)| (v.clone(), i.als.clone()));
                match outer {
                    Some((v, a)) => {
                        let mut s = BTreeSet::new();
                        s.insert(v.clone());
                        let all = a.add(&s).all();
                        self.observe(&v, &all, x.span);
                        a.add(&s)
                    }
                    None => Als::none(),
                }
            }
            PatKind::Parens(q) | PatKind::Attr(_, q) | PatKind::Ascript(q, _) => {
                self.init_from_names(q)
            }
            PatKind::Tuple(ps) => Als::Rec(
                ps.iter()
                    .enumerate()
                    .map(|(i, q)| (Name::from(i.to_string()), self.init_from_names(q)))
                    .collect(),
            ),
            PatKind::Record(fs) => Als::Rec(
                fs.iter()
                    .map(|(f, q)| (Name::from(f.name.as_str()), self.init_from_names(q)))
                    .collect(),
            ),
            _ => Als::none(),
        }
    }

    pub(super) fn bind_loop_pat(&mut self, p: &Pat, nonunique: bool) {
        let mut vs = Vec::new();
        self.pat_vars(p, &mut vs);
        let mut names = Vec::new();
        collect_names(p, &mut names);
        for (v, n) in vs.iter().zip(names) {
            let t = self
                .c
                .info
                .resolutions
                .iter()
                .find(|(_, d)| d.vname == *v)
                .and_then(|(s, _)| self.ty(*s))
                .cloned();
            let als = prune(Als::none(), t.as_ref());
            self.bind(
                v,
                &n,
                als,
                VKind::LoopParam {
                    consumable: !nonunique,
                },
            );
        }
    }

    /// The field paths of loop parameters (in the pattern) that are in `which`.
    pub(super) fn param_positions(
        &self,
        p: &Pat,
        _als: &Als,
        path: &mut Vec<Name>,
        out: &mut Vec<Vec<Name>>,
        which: &[VName],
    ) {
        match &p.kind {
            PatKind::Id(x) => {
                if let Some(d) = self.c.info.resolutions.get(&x.span)
                    && which.contains(&d.vname)
                {
                    out.push(path.clone());
                }
            }
            PatKind::Parens(q) | PatKind::Attr(_, q) | PatKind::Ascript(q, _) => {
                self.param_positions(q, _als, path, out, which)
            }
            PatKind::Tuple(ps) => {
                for (i, q) in ps.iter().enumerate() {
                    path.push(Name::from(i.to_string()));
                    self.param_positions(q, _als, path, out, which);
                    path.pop();
                }
            }
            PatKind::Record(fs) => {
                for (f, q) in fs {
                    path.push(Name::from(f.name.as_str()));
                    self.param_positions(q, _als, path, out, which);
                    path.pop();
                }
            }
            _ => {}
        }
    }

    /// Paths of loop parameters whose type is unique (declared `*`).
    pub(super) fn unique_param_positions(&self, p: &Pat) -> Vec<Vec<Name>> {
        let mut vs = Vec::new();
        self.pat_vars(p, &mut vs);
        let unique: Vec<VName> = vs
            .into_iter()
            .filter(|v| {
                self.c
                    .info
                    .resolutions
                    .iter()
                    .find(|(_, d)| d.vname == *v)
                    .and_then(|(s, _)| self.ty(*s))
                    .is_some_and(|t| t.is_unique())
            })
            .collect();
        let mut out = Vec::new();
        if pat_has_unique_ascription(p) {
            self.param_positions(p, &Als::none(), &mut Vec::new(), &mut out, &unique);
        }
        out
    }

    pub(super) fn match_(&mut self, scrutinee: &Exp, cases: &[Case]) -> V {
        let s = self.exp(scrutinee);
        let saved = self.consumed.clone();
        let mut all_consumed = saved.clone();
        let mut result: Option<Als> = None;
        for c in cases {
            self.consumed = saved.clone();
            self.bind_pat(&c.pat, &s.als, &VKind::Local);
            let b = self.exp(&c.body);
            all_consumed.extend(self.consumed.drain());
            result = Some(match result {
                None => b.als,
                Some(r) => r.union(&b.als),
            });
        }
        let gone: Vec<VName> = all_consumed
            .keys()
            .filter(|k| !saved.contains_key(*k))
            .cloned()
            .collect();
        self.consumed = all_consumed;
        V::of(result.unwrap_or_else(Als::none).remove(&gone))
    }

    /// Analyses a function body (lambda or local function) with its own parameters;
    /// variables from outside are not consumable inside. Returns the function value, which
    /// aliases the variables it captures.
    pub(super) fn function(
        &mut self,
        params: &[Pat],
        body: &Exp,
        ret: Option<Type>,
        _span: Span,
    ) -> V {
        self.depth += 1;
        let mut param_vars = Vec::new();
        for p in params {
            let t = self.pat_type(p);
            let consumable = t.as_ref().is_some_and(|t| t.is_unique());
            self.bind_pat(p, &Als::none(), &VKind::Param { consumable });
            self.pat_vars(p, &mut param_vars);
        }
        self.observed.push(Vec::new());
        let b = self.exp(body);
        let observed = self.observed.pop().unwrap_or_default();
        self.depth -= 1;
        if let Some(parent) = self.observed.last_mut() {
            parent.extend(observed.iter().cloned());
        }
        if let Some(rt) = ret {
            self.check_result(&b.als, &rt, "lambda", body.span);
        } else {
            self.check_globals(&b.als, body.span);
        }
        let mut captured = BTreeSet::new();
        for (v, _) in &observed {
            // Only variables bound outside the function are captured.
            if !param_vars.contains(v)
                && self
                    .vars
                    .get(v)
                    .is_some_and(|i| i.kind != VKind::Global && i.depth <= self.depth)
            {
                captured.insert(v.clone());
                if let Some(i) = self.vars.get(v) {
                    captured.extend(i.als.all());
                }
            }
        }
        V::of(Als::Leaf(captured))
    }
}

pub(super) fn collect_names(p: &Pat, out: &mut Vec<String>) {
    match &p.kind {
        PatKind::Id(x) => out.push(x.name.clone()),
        PatKind::Parens(q) | PatKind::Attr(_, q) | PatKind::Ascript(q, _) => collect_names(q, out),
        PatKind::Tuple(ps) | PatKind::Constr(_, ps) => {
            ps.iter().for_each(|q| collect_names(q, out))
        }
        PatKind::Record(fs) => fs.iter().for_each(|(_, q)| collect_names(q, out)),
        _ => {}
    }
}

/// A loop pattern whose type annotation says non-unique makes its parameters unconsumable.
pub(super) fn pat_annotated_nonunique(p: &Pat) -> bool {
    match &p.kind {
        PatKind::Ascript(_, te) => !type_exp_unique(te),
        PatKind::Parens(q) | PatKind::Attr(_, q) => pat_annotated_nonunique(q),
        _ => false,
    }
}

pub(super) fn pat_has_unique_ascription(p: &Pat) -> bool {
    match &p.kind {
        PatKind::Ascript(q, te) => type_exp_unique(te) || pat_has_unique_ascription(q),
        PatKind::Parens(q) | PatKind::Attr(_, q) => pat_has_unique_ascription(q),
        PatKind::Tuple(ps) => ps.iter().any(pat_has_unique_ascription),
        PatKind::Record(fs) => fs.iter().any(|(_, q)| pat_has_unique_ascription(q)),
        _ => false,
    }
}

pub(super) fn type_exp_unique(te: &futhark_syntax::ast::TypeExp) -> bool {
    use futhark_syntax::ast::TypeExpKind as K;
    match &te.kind {
        K::Unique(_) => true,
        K::Parens(t) => type_exp_unique(t),
        K::Tuple(ts) => ts.iter().any(type_exp_unique),
        K::Record(fs) => fs.iter().any(|(_, t)| type_exp_unique(t)),
        _ => false,
    }
}

pub(super) fn als_at(a: &Als, path: &[Name]) -> Als {
    let mut cur = a.clone();
    for p in path {
        cur = cur.field(p);
    }
    cur
}

pub(super) fn remove_paths(a: &Als, paths: &[Vec<Name>]) -> Als {
    if paths.iter().any(|p| p.is_empty()) {
        return Als::none();
    }
    match a {
        Als::Rec(m) => Als::Rec(
            m.iter()
                .map(|(k, x)| {
                    let sub: Vec<Vec<Name>> = paths
                        .iter()
                        .filter(|p| p.first() == Some(k))
                        .map(|p| p[1..].to_vec())
                        .collect();
                    (
                        k.clone(),
                        if sub.is_empty() {
                            x.clone()
                        } else {
                            remove_paths(x, &sub)
                        },
                    )
                })
                .collect(),
        ),
        leaf => {
            if paths.is_empty() {
                leaf.clone()
            } else {
                Als::none()
            }
        }
    }
}

pub(super) fn path_param_name(p: &Pat, path: &[Name]) -> Option<String> {
    match (&p.kind, path) {
        (PatKind::Id(x), []) => Some(x.name.clone()),
        (PatKind::Parens(q) | PatKind::Attr(_, q) | PatKind::Ascript(q, _), _) => {
            path_param_name(q, path)
        }
        (PatKind::Tuple(ps), [f, rest @ ..]) => {
            let i: usize = f.parse().ok()?;
            path_param_name(ps.get(i)?, rest)
        }
        (PatKind::Record(fs), [f, rest @ ..]) => {
            let (_, q) = fs.iter().find(|(n, _)| n.name.as_str() == &**f)?;
            path_param_name(q, rest)
        }
        _ => None,
    }
}
