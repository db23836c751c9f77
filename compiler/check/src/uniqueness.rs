//! Uniqueness and aliasing, checked after type inference on each finished definition.
//!
//! An abstract interpretation walks the definition in evaluation order, computing for every
//! expression which variables its value may alias (per record field), and which variables
//! have been consumed (by in-place updates, by being passed to `*` parameters, or by
//! initialising a loop parameter the loop consumes). It reports the errors of the error
//! index: use after consumption, consuming what is not consumable (observing parameters,
//! globals, variables free in a function or loop body), aliased unique results, aliasing
//! loop parameters, self-aliased arguments and functions that perform consumption.

use std::collections::{BTreeMap, BTreeSet};

use futhark_syntax::ast::{
    Case, DimIndex, Exp, ExpKind, LoopForm, Pat, PatKind, QualName, RecordField, UpdateStep,
    ValBind,
};
use futhark_syntax::{Label, Span};
use rustc_hash::FxHashMap;

use crate::checker::Checker;
use crate::info::DefKind;
use crate::types::{Name, Type, VName};

/// The variables a value may alias, per record field.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Als {
    Leaf(BTreeSet<VName>),
    Rec(BTreeMap<Name, Als>),
}

impl Als {
    fn none() -> Als {
        Als::Leaf(BTreeSet::new())
    }

    fn all(&self) -> BTreeSet<VName> {
        match self {
            Als::Leaf(s) => s.clone(),
            Als::Rec(m) => m.values().flat_map(|a| a.all()).collect(),
        }
    }

    fn union(&self, other: &Als) -> Als {
        match (self, other) {
            (Als::Rec(a), Als::Rec(b)) if a.keys().eq(b.keys()) => {
                Als::Rec(a.iter().map(|(k, x)| (k.clone(), x.union(&b[k]))).collect())
            }
            _ => {
                let mut s = self.all();
                s.extend(other.all());
                Als::Leaf(s)
            }
        }
    }

    /// Adds `extra` to every leaf.
    fn add(&self, extra: &BTreeSet<VName>) -> Als {
        match self {
            Als::Leaf(s) => Als::Leaf(s.union(extra).cloned().collect()),
            Als::Rec(m) => Als::Rec(m.iter().map(|(k, a)| (k.clone(), a.add(extra))).collect()),
        }
    }

    fn remove(&self, gone: &[VName]) -> Als {
        match self {
            Als::Leaf(s) => Als::Leaf(s.iter().filter(|v| !gone.contains(v)).cloned().collect()),
            Als::Rec(m) => Als::Rec(m.iter().map(|(k, a)| (k.clone(), a.remove(gone))).collect()),
        }
    }

    fn field(&self, f: &str) -> Als {
        match self {
            Als::Rec(m) => m.get(f).cloned().unwrap_or_else(Als::none),
            leaf => leaf.clone(),
        }
    }

    /// The leaves as (alias set, is unique) pairs against a type.
    fn leaves_with<'t>(&self, t: &'t Type, out: &mut Vec<(BTreeSet<VName>, &'t Type)>) {
        match (self, t) {
            (Als::Rec(m), Type::Record(fs)) => {
                for (k, ft) in fs {
                    m.get(k)
                        .cloned()
                        .unwrap_or_else(Als::none)
                        .leaves_with(ft, out);
                }
            }
            (a, t) => out.push((a.all(), t)),
        }
    }
}

/// Whether values of a type can alias anything (they contain arrays or unknown types).
fn can_alias(t: &Type) -> bool {
    match t {
        Type::Prim(_) => false,
        Type::Array(_) | Type::Var(_) | Type::Error | Type::Arrow(_) => true,
        Type::Record(fs) => fs.values().any(can_alias),
        Type::Sum(cs) => cs.values().flatten().any(can_alias),
    }
}

fn has_array(t: &Type) -> bool {
    match t {
        Type::Array(_) => true,
        Type::Record(fs) => fs.values().any(has_array),
        Type::Sum(cs) => cs.values().flatten().any(has_array),
        _ => false,
    }
}

/// Drops aliases from parts of a value whose type cannot alias.
fn prune(a: Als, t: Option<&Type>) -> Als {
    let Some(t) = t else { return a };
    match (a, t) {
        (Als::Rec(m), Type::Record(fs)) => Als::Rec(
            fs.iter()
                .map(|(k, ft)| {
                    (
                        k.clone(),
                        prune(m.get(k).cloned().unwrap_or_else(Als::none), Some(ft)),
                    )
                })
                .collect(),
        ),
        (a, Type::Record(fs)) => {
            let s = a.all();
            Als::Rec(
                fs.iter()
                    .map(|(k, ft)| (k.clone(), prune(Als::Leaf(s.clone()), Some(ft))))
                    .collect(),
            )
        }
        (a, t) => {
            if can_alias(t) {
                Als::Leaf(a.all())
            } else {
                Als::none()
            }
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum VKind {
    /// A `let`, `case` or lambda/loop-local binding.
    Local,
    /// A function parameter; consumable when its type is unique.
    Param {
        consumable: bool,
    },
    LoopParam {
        consumable: bool,
    },
    /// A top-level constant or module value.
    Global,
    /// The anonymous result of a call, which its components may share.
    Synthetic,
}

#[derive(Clone, Debug)]
struct VInfo {
    name: String,
    als: Als,
    kind: VKind,
    /// The function/loop nesting depth at which the variable was bound; variables bound
    /// outside the current function or loop body are not consumable inside it.
    depth: u32,
}

/// The abstract value of an expression.
#[derive(Clone, Debug)]
struct V {
    als: Als,
    /// A function value whose application has already consumed something (a partial
    /// application of a consuming function).
    consumes: bool,
}

impl V {
    fn fresh() -> V {
        V {
            als: Als::none(),
            consumes: false,
        }
    }

    fn of(als: Als) -> V {
        V {
            als,
            consumes: false,
        }
    }
}

struct Uniq<'c, 'a> {
    c: &'c mut Checker<'a>,
    vars: FxHashMap<VName, VInfo>,
    consumed: FxHashMap<VName, Span>,
    depth: u32,
    /// Variables observed inside the loop bodies being analysed (one list per loop).
    observed: Vec<Vec<(VName, Span)>>,
    /// Set while analysing size expressions, where nothing may be consumed.
    in_size: bool,
    errors: u32,
    synth: u32,
    /// Globals whose type contains arrays (functions may not return these).
    global_arrays: BTreeSet<VName>,
}

fn strip(e: &Exp) -> &Exp {
    match &e.kind {
        ExpKind::Parens(x) | ExpKind::Attr(_, x) => strip(x),
        _ => e,
    }
}

impl<'c, 'a> Uniq<'c, 'a> {
    fn new(c: &'c mut Checker<'a>) -> Uniq<'c, 'a> {
        Uniq {
            c,
            vars: FxHashMap::default(),
            consumed: FxHashMap::default(),
            depth: 0,
            observed: Vec::new(),
            in_size: false,
            errors: 0,
            synth: 0,
            global_arrays: BTreeSet::new(),
        }
    }

    fn ty(&self, span: Span) -> Option<&Type> {
        self.c.info.exp_types.get(&span)
    }

    fn err(
        &mut self,
        code: &'static str,
        span: Span,
        msg: String,
    ) -> Option<&mut futhark_syntax::Diagnostic> {
        // One uniqueness error per definition is plenty; later ones tend to be echoes.
        if self.errors >= 3 {
            return None;
        }
        self.errors += 1;
        Some(self.c.error(code, span, msg))
    }

    fn bind(&mut self, v: &VName, name: &str, als: Als, kind: VKind) {
        self.vars.insert(
            v.clone(),
            VInfo {
                name: name.to_string(),
                als,
                kind,
                depth: self.depth,
            },
        );
    }

    fn display(&self, v: &VName) -> String {
        self.vars
            .get(v)
            .map(|i| i.name.clone())
            .unwrap_or_else(|| v.name().to_string())
    }

    /// A use of variable `v` (whose value aliases `als`).
    fn observe(&mut self, v: &VName, als: &BTreeSet<VName>, span: Span) {
        if let Some(obs) = self.observed.last_mut() {
            obs.push((v.clone(), span));
        }
        let mut order: Vec<&VName> = vec![v];
        order.extend(als.iter().filter(|x| *x != v));
        for x in order {
            if let Some(at) = self.consumed.get(x).copied() {
                let name = self.display(x);
                if let Some(d) = self.err(
                    "use-after-consume",
                    span,
                    format!("Using \"{name}\", but this was consumed."),
                ) {
                    d.labels.push(Label {
                        span: at,
                        message: "consumed here".into(),
                    });
                }
                return;
            }
        }
    }

    /// Consumes every variable of an alias set, checking that each is consumable.
    fn consume(&mut self, als: &BTreeSet<VName>, span: Span) {
        for x in als {
            let info = self.vars.get(x).cloned();
            let ok = match &info {
                None => true,
                Some(i) => {
                    let own = match i.kind {
                        VKind::Local | VKind::Synthetic => true,
                        VKind::Param { consumable } | VKind::LoopParam { consumable } => consumable,
                        VKind::Global => false,
                    };
                    own && (i.depth >= self.depth || i.kind == VKind::Synthetic) && !self.in_size
                }
            };
            if !ok {
                let i = info.unwrap_or(VInfo {
                    name: x.name().to_string(),
                    als: Als::none(),
                    kind: VKind::Local,
                    depth: 0,
                });
                let why = if self.in_size {
                    " (size expressions may not consume)"
                } else {
                    match i.kind {
                        VKind::Global => " (it is a global constant)",
                        _ if i.depth < self.depth => " (it is free in this function or loop body)",
                        _ => "",
                    }
                };
                self.err(
                    "not-consumable",
                    span,
                    format!(
                        "Consuming variable \"{}\", which is not consumable{why}.",
                        i.name
                    ),
                );
                return;
            }
        }
        for x in als {
            self.consumed.insert(x.clone(), span);
        }
    }

    fn synthetic(&mut self, desc: String) -> VName {
        self.synth += 1;
        let v = VName::new(Name::from(desc.as_str()), u64::MAX - self.synth as u64);
        self.bind(&v, &desc, Als::none(), VKind::Synthetic);
        v
    }

    // ------------------------------------------------------------------------------------
    // Patterns

    /// Binds the names of a pattern to the parts of a value.
    fn bind_pat(&mut self, p: &Pat, als: &Als, kind: &VKind) {
        match &p.kind {
            PatKind::Id(x) => {
                if let Some(d) = self.c.info.resolutions.get(&x.span).cloned() {
                    let t = self.ty(x.span).cloned();
                    let a = prune(als.clone(), t.as_ref());
                    self.bind(&d.vname, &x.name, a, kind.clone());
                }
            }
            PatKind::Wildcard | PatKind::Literal(_) | PatKind::Error => {}
            PatKind::Parens(q) | PatKind::Attr(_, q) | PatKind::Ascript(q, _) => {
                self.bind_pat(q, als, kind)
            }
            PatKind::Tuple(ps) => {
                for (i, q) in ps.iter().enumerate() {
                    self.bind_pat(q, &als.field(&i.to_string()), kind);
                }
            }
            PatKind::Record(fs) => {
                for (f, q) in fs {
                    self.bind_pat(q, &als.field(&f.name), kind);
                }
            }
            PatKind::Constr(_, ps) => {
                let all = Als::Leaf(als.all());
                for q in ps {
                    self.bind_pat(q, &all, kind);
                }
            }
        }
    }

    fn pat_vars(&self, p: &Pat, out: &mut Vec<VName>) {
        match &p.kind {
            PatKind::Id(x) => {
                if let Some(d) = self.c.info.resolutions.get(&x.span) {
                    out.push(d.vname.clone());
                }
            }
            PatKind::Parens(q) | PatKind::Attr(_, q) | PatKind::Ascript(q, _) => {
                self.pat_vars(q, out)
            }
            PatKind::Tuple(ps) | PatKind::Constr(_, ps) => {
                ps.iter().for_each(|q| self.pat_vars(q, out))
            }
            PatKind::Record(fs) => fs.iter().for_each(|(_, q)| self.pat_vars(q, out)),
            _ => {}
        }
    }

    /// True if the pattern ascribes a unique type somewhere.
    fn pat_unique_ascription(&self, p: &Pat) -> Option<(Span, String)> {
        match &p.kind {
            PatKind::Ascript(q, _) => {
                let t = self.ty_of_pat(q)?;
                if t.is_unique() {
                    let name = match &q.kind {
                        PatKind::Id(x) => x.name.clone(),
                        _ => "pattern".into(),
                    };
                    return Some((p.span, name));
                }
                None
            }
            PatKind::Parens(q) | PatKind::Attr(_, q) => self.pat_unique_ascription(q),
            _ => None,
        }
    }

    fn ty_of_pat(&self, p: &Pat) -> Option<Type> {
        match &p.kind {
            PatKind::Id(x) => self.ty(x.span).cloned(),
            PatKind::Parens(q) | PatKind::Attr(_, q) | PatKind::Ascript(q, _) => self.ty_of_pat(q),
            _ => None,
        }
    }

    // ------------------------------------------------------------------------------------
    // Expressions

    fn exp(&mut self, e: &Exp) -> V {
        if self.c.depth > crate::checker::MAX_DEPTH {
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

    fn var(&mut self, qn: &QualName, span: Span) -> V {
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

    fn exp_inner(&mut self, e: &Exp) -> V {
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
                let target = self.var(&qn, dest.span);
                let r = self.update(target, path, value, e.span);
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
                // The new value is evaluated before the array is updated.
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

    fn indices(&mut self, idxs: &[DimIndex]) {
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
    fn param_unique(&self, span: Span, i: usize) -> bool {
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

    fn let_value_checks(&mut self, pat: &Pat, v: &V, span: Span) {
        if v.consumes {
            self.err(
                "contains-consumption",
                span,
                "A function that performs consumption may not be bound with let (contains-consumption).".into(),
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

    fn is_consumable(&self, x: &VName) -> bool {
        match self.vars.get(x) {
            None => true,
            Some(i) => match i.kind {
                VKind::Local | VKind::Synthetic => true,
                VKind::Param { consumable } | VKind::LoopParam { consumable } => consumable,
                VKind::Global => false,
            },
        }
    }

    fn apply(&mut self, f: &Exp, args: &[&Exp], span: Span) -> V {
        self.apply_ret(f, args, span, None)
    }

    /// The result type of the function whose type is recorded at `span`.
    fn ret_of(&self, span: Span) -> Option<Type> {
        match self.ty(span) {
            Some(Type::Arrow(a)) => Some(a.ret.ty.clone()),
            _ => None,
        }
    }

    fn apply_ret(&mut self, f: &Exp, args: &[&Exp], span: Span, ret: Option<Type>) -> V {
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
        let mut observing = fv.als.all();
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
                    "A function that performs consumption may not be passed as an argument (consumption).".into(),
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
                            format!("Argument passed for consuming parameter of \"{fname}\" is self-aliased."),
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
                consumes_any = true;
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
    fn result_als(&self, t: &Type, observing: &BTreeSet<VName>, synth: Option<&VName>) -> Als {
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

    fn update(&mut self, target: V, path: &[UpdateStep], value: &Exp, span: Span) -> V {
        let v = self.exp(value);
        self.update_with(target, path, v, value.span, span)
    }

    fn update_with(
        &mut self,
        target: V,
        path: &[UpdateStep],
        v: V,
        value_span: Span,
        span: Span,
    ) -> V {
        for s in path {
            if let UpdateStep::Index(idxs, _) = s {
                self.indices(idxs);
            }
        }
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

    fn loop_(
        &mut self,
        pat: &Pat,
        init: Option<&Exp>,
        form: &LoopForm,
        body: &Exp,
        span: Span,
    ) -> V {
        let init_v = match init {
            Some(e) => self.exp(e),
            None => {
                let mut vars = Vec::new();
                self.pat_vars_by_name(pat, &mut vars);
                V::of(self.init_from_names(pat))
            }
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
            && let Some(d) = self.c.info.resolutions.get(&var.span).cloned() {
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
        // New values of consumed parameters may not alias free variables or each other.
        for path in &consumed_positions {
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
                    format!("Loop parameter \"{pname}\" aliases \"{n}\" after an iteration, but \"{pname}\" is consumed by the loop."),
                );
                break;
            }
        }
        let unique_positions = self.unique_param_positions(pat);
        for (i, p) in unique_positions.iter().enumerate() {
            for q in &unique_positions[i + 1..] {
                let a = als_at(&b.als, p).all();
                let c = als_at(&b.als, q).all();
                if a.intersection(&c).next().is_some() {
                    let pname = path_param_name(pat, q).unwrap_or_else(|| "parameter".into());
                    self.err(
                        "loop-parameter-aliases-other",
                        body.span,
                        format!("Loop parameter \"{pname}\" aliases other consumed loop parameter after an iteration."),
                    );
                }
            }
        }
        // The loop's value aliases the initial values not consumed and the body's result.
        let mut result = b.als.remove(&params);
        let kept = remove_paths(&init_v.als, &consumed_positions);
        result = result.union(&kept);
        V::of(result)
    }

    fn array_elem_als(&mut self, array: &Exp) -> Als {
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

    fn pat_vars_by_name(&self, _p: &Pat, _out: &mut Vec<VName>) {}

    /// Without `= init`, the loop's initial value is the same-named variables in scope.
    fn init_from_names(&mut self, p: &Pat) -> Als {
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

    fn bind_loop_pat(&mut self, p: &Pat, nonunique: bool) {
        let mut vs = Vec::new();
        self.pat_vars(p, &mut vs);
        let mut names = Vec::new();
        collect_names(p, &mut names);
        for (v, n) in vs.iter().zip(names) {
            self.bind(
                v,
                &n,
                Als::none(),
                VKind::LoopParam {
                    consumable: !nonunique,
                },
            );
        }
    }

    /// The field paths of loop parameters (in the pattern) that are in `which`.
    fn param_positions(
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
                    && which.contains(&d.vname) {
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
    fn unique_param_positions(&self, p: &Pat) -> Vec<Vec<Name>> {
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

    fn match_(&mut self, scrutinee: &Exp, cases: &[Case]) -> V {
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
    fn function(&mut self, params: &[Pat], body: &Exp, ret: Option<Type>, _span: Span) -> V {
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

    fn pat_type(&self, p: &Pat) -> Option<Type> {
        match &p.kind {
            PatKind::Id(x) => self.ty(x.span).cloned(),
            PatKind::Parens(q) | PatKind::Attr(_, q) | PatKind::Ascript(q, _) => self.pat_type(q),
            PatKind::Tuple(ps) => {
                let ts: Option<Vec<Type>> = ps.iter().map(|q| self.pat_type(q)).collect();
                ts.map(Type::tuple)
            }
            PatKind::Record(fs) => {
                let mut m = BTreeMap::new();
                for (f, q) in fs {
                    m.insert(Name::from(f.name.as_str()), self.pat_type(q)?);
                }
                Some(Type::Record(m))
            }
            _ => None,
        }
    }

    /// The declared return type of a lambda with `n` parameters, from its recorded type.
    fn lambda_ret_type(&self, span: Span, n: usize) -> Option<Type> {
        let mut t = self.ty(span)?.clone();
        for _ in 0..n {
            match t {
                Type::Arrow(a) => t = a.ret.ty.clone(),
                _ => return None,
            }
        }
        Some(t)
    }

    /// The uniqueness of an undeclared result type: a part is unique when it aliases
    /// nothing from outside the function.
    fn infer_unique(&self, als: &Als, t: &Type) -> Type {
        match (als, t) {
            (_, Type::Record(fs)) => Type::Record(
                fs.iter()
                    .map(|(k, ft)| (k.clone(), self.infer_unique(&als.field(k), ft)))
                    .collect(),
            ),
            (a, t) if can_alias(t) && !t.is_fun() => {
                let fresh = a.all().iter().all(|x| {
                    self.vars.get(x).is_none_or(|i| {
                        matches!(
                            i.kind,
                            VKind::Local | VKind::Synthetic | VKind::LoopParam { .. }
                        )
                    })
                });
                t.clone().with_unique(fresh)
            }
            _ => t.clone(),
        }
    }

    /// Results may not alias global constants.
    fn check_globals(&mut self, als: &Als, span: Span) {
        for x in als.all() {
            if self.vars.get(&x).is_some_and(|i| i.kind == VKind::Global)
                && self.global_arrays.contains(&x)
            {
                let n = self.display(&x);
                self.err(
                    "alias-free-variable",
                    span,
                    format!(
                        "Function result aliases the free variable \"{n}\" (a global constant)."
                    ),
                );
                return;
            }
        }
    }

    /// Checks a function result against its (declared) type: unique parts must not alias
    /// anything non-consumable nor each other; nothing may alias a global.
    fn check_result(&mut self, als: &Als, t: &Type, fname: &str, span: Span) {
        self.check_globals(als, span);
        let mut leaves = Vec::new();
        als.leaves_with(t, &mut leaves);
        let uniques: Vec<&BTreeSet<VName>> = leaves
            .iter()
            .filter(|(_, lt)| lt.is_unique() && can_alias(lt))
            .map(|(s, _)| s)
            .collect();
        for s in uniques {
            for x in s.iter() {
                if !self.is_consumable(x) {
                    let n = self.display(x);
                    self.err(
                        "return-aliased",
                        span,
                        format!("Unique-typed return value of \"{fname}\" is aliased to \"{n}\", which is not consumable."),
                    );
                    return;
                }
            }
        }
        for (i, (s, st)) in leaves.iter().enumerate() {
            if !(st.is_unique() && can_alias(st)) {
                continue;
            }
            for (j, (o, ot)) in leaves.iter().enumerate() {
                if i == j || !can_alias(ot) {
                    continue;
                }
                if s.intersection(o).next().is_some() {
                    self.err(
                        "unique-return-aliased",
                        span,
                        format!(
                            "A unique-typed component of the return value of \"{fname}\" is aliased to some other component."
                        ),
                    );
                    return;
                }
            }
        }
    }

    /// Analyses expressions in the size annotations of parameters: they may not consume.
    fn size_exps_in_pat(&mut self, p: &Pat) {
        match &p.kind {
            PatKind::Ascript(q, te) => {
                self.size_exps_in_type(te);
                self.size_exps_in_pat(q);
            }
            PatKind::Parens(q) | PatKind::Attr(_, q) => self.size_exps_in_pat(q),
            PatKind::Tuple(ps) | PatKind::Constr(_, ps) => {
                ps.iter().for_each(|q| self.size_exps_in_pat(q))
            }
            PatKind::Record(fs) => fs.iter().for_each(|(_, q)| self.size_exps_in_pat(q)),
            _ => {}
        }
    }

    fn size_exps_in_type(&mut self, te: &futhark_syntax::ast::TypeExp) {
        use futhark_syntax::ast::{SizeExp, TypeArg as A, TypeExpKind as K};
        match &te.kind {
            K::Array { size, elem } => {
                if let SizeExp::Exp(e) = size
                    && !matches!(e.kind, ExpKind::Var(_) | ExpKind::Literal(_)) {
                        let saved = self.in_size;
                        self.in_size = true;
                        self.exp(e);
                        self.in_size = saved;
                    }
                self.size_exps_in_type(elem);
            }
            K::Parens(t) | K::Unique(t) => self.size_exps_in_type(t),
            K::Tuple(ts) => ts.iter().for_each(|t| self.size_exps_in_type(t)),
            K::Record(fs) => fs.iter().for_each(|(_, t)| self.size_exps_in_type(t)),
            K::Apply(f, a) => {
                self.size_exps_in_type(f);
                if let A::Type(t) = a {
                    self.size_exps_in_type(t);
                }
            }
            _ => {}
        }
    }
}

fn collect_names(p: &Pat, out: &mut Vec<String>) {
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
fn pat_annotated_nonunique(p: &Pat) -> bool {
    match &p.kind {
        PatKind::Ascript(_, te) => !type_exp_unique(te),
        PatKind::Parens(q) | PatKind::Attr(_, q) => pat_annotated_nonunique(q),
        _ => false,
    }
}

fn pat_has_unique_ascription(p: &Pat) -> bool {
    match &p.kind {
        PatKind::Ascript(q, te) => type_exp_unique(te) || pat_has_unique_ascription(q),
        PatKind::Parens(q) | PatKind::Attr(_, q) => pat_has_unique_ascription(q),
        PatKind::Tuple(ps) => ps.iter().any(pat_has_unique_ascription),
        PatKind::Record(fs) => fs.iter().any(|(_, q)| pat_has_unique_ascription(q)),
        _ => false,
    }
}

fn type_exp_unique(te: &futhark_syntax::ast::TypeExp) -> bool {
    use futhark_syntax::ast::TypeExpKind as K;
    match &te.kind {
        K::Unique(_) => true,
        K::Parens(t) => type_exp_unique(t),
        K::Tuple(ts) => ts.iter().any(type_exp_unique),
        K::Record(fs) => fs.iter().any(|(_, t)| type_exp_unique(t)),
        _ => false,
    }
}

fn als_at(a: &Als, path: &[Name]) -> Als {
    let mut cur = a.clone();
    for p in path {
        cur = cur.field(p);
    }
    cur
}

fn remove_paths(a: &Als, paths: &[Vec<Name>]) -> Als {
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

fn path_param_name(p: &Pat, path: &[Name]) -> Option<String> {
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

/// The aliases of a record after `r with f.g = v`.
fn replace_field(a: &Als, path: &[UpdateStep], v: &Als) -> Als {
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

impl Checker<'_> {
    /// Checks uniqueness and aliasing in a finished top-level definition. `ret` is its result
    /// type and `declared` whether it was written by the programmer.
    pub fn uniqueness_check(&mut self, vb: &ValBind, ret: &Type, declared: bool) -> Option<Type> {
        let mut u = Uniq::new(self);
        u.depth = 1;
        for p in &vb.params {
            u.size_exps_in_pat(p);
            let t = u.pat_type(p);
            let consumable = t.as_ref().is_some_and(|t| t.is_unique());
            u.bind_pat(p, &Als::none(), &VKind::Param { consumable });
        }
        let b = u.exp(&vb.body);
        if declared {
            if vb.params.is_empty() {
                // A constant may be another constant.
                let mut v = u.vars.clone();
                v.retain(|_, i| i.kind != VKind::Global);
                let saved = std::mem::replace(&mut u.vars, v);
                u.check_result(&b.als, ret, &vb.name.name, vb.body.span);
                u.vars = saved;
            } else {
                u.check_result(&b.als, ret, &vb.name.name, vb.body.span);
            }
        } else if !vb.params.is_empty() {
            u.check_globals(&b.als, vb.body.span);
        }
        let inferred = (!declared && !vb.params.is_empty()).then(|| u.infer_unique(&b.als, ret));
        if vb.params.is_empty() && ret.is_unique() && declared {
            u.err(
                "unique-constant",
                vb.name.span,
                format!(
                    "A top-level constant cannot have a unique type: \"{}\".",
                    vb.name.name
                ),
            );
        }
        inferred
    }

    /// Checks uniqueness in a standalone expression (a REPL expression).
    pub fn uniqueness_check_exp(&mut self, e: &Exp) {
        let mut u = Uniq::new(self);
        u.exp(e);
    }
}
