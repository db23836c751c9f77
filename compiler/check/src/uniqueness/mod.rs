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

use futhark_syntax::ast::{Exp, ExpKind, Pat, PatKind, ValBind};
use futhark_syntax::{Label, Span};
use rustc_hash::FxHashMap;

use crate::checker::Checker;
use crate::types::{Name, Type, VName};

mod exp;
mod loops;

/// The variables a value may alias, per record field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Als {
    Leaf(BTreeSet<VName>),
    Rec(BTreeMap<Name, Als>),
}

impl Als {
    pub(super) fn none() -> Als {
        Als::Leaf(BTreeSet::new())
    }

    pub(super) fn all(&self) -> BTreeSet<VName> {
        match self {
            Als::Leaf(s) => s.clone(),
            Als::Rec(m) => m.values().flat_map(|a| a.all()).collect(),
        }
    }

    pub(super) fn union(&self, other: &Als) -> Als {
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
    pub(super) fn add(&self, extra: &BTreeSet<VName>) -> Als {
        match self {
            Als::Leaf(s) => Als::Leaf(s.union(extra).cloned().collect()),
            Als::Rec(m) => Als::Rec(m.iter().map(|(k, a)| (k.clone(), a.add(extra))).collect()),
        }
    }

    pub(super) fn remove(&self, gone: &[VName]) -> Als {
        match self {
            Als::Leaf(s) => Als::Leaf(s.iter().filter(|v| !gone.contains(v)).cloned().collect()),
            Als::Rec(m) => Als::Rec(m.iter().map(|(k, a)| (k.clone(), a.remove(gone))).collect()),
        }
    }

    pub(super) fn field(&self, f: &str) -> Als {
        match self {
            Als::Rec(m) => m.get(f).cloned().unwrap_or_else(Als::none),
            leaf => leaf.clone(),
        }
    }

    /// The leaves as (alias set, is unique) pairs against a type.
    pub(super) fn leaves_with<'t>(&self, t: &'t Type, out: &mut Vec<(BTreeSet<VName>, &'t Type)>) {
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
pub(super) fn can_alias(t: &Type) -> bool {
    match t {
        Type::Prim(_) => false,
        Type::Array(_) | Type::Var(_) | Type::Error | Type::Arrow(_) => true,
        Type::Record(fs) => fs.values().any(can_alias),
        Type::Sum(cs) => cs.values().flatten().any(can_alias),
    }
}

pub(super) fn has_array(t: &Type) -> bool {
    match t {
        Type::Array(_) => true,
        Type::Record(fs) => fs.values().any(has_array),
        Type::Sum(cs) => cs.values().flatten().any(has_array),
        _ => false,
    }
}

/// Drops aliases from parts of a value whose type cannot alias.
pub(super) fn prune(a: Als, t: Option<&Type>) -> Als {
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
pub(super) enum VKind {
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
pub(super) struct VInfo {
    name: String,
    als: Als,
    kind: VKind,
    /// The function/loop nesting depth at which the variable was bound; variables bound
    /// outside the current function or loop body are not consumable inside it.
    depth: u32,
}

/// The abstract value of an expression.
#[derive(Clone, Debug)]
pub(super) struct V {
    als: Als,
    /// A function value whose application has already consumed something (a partial
    /// application of a consuming function).
    consumes: bool,
}

impl V {
    pub(super) fn fresh() -> V {
        V {
            als: Als::none(),
            consumes: false,
        }
    }

    pub(super) fn of(als: Als) -> V {
        V {
            als,
            consumes: false,
        }
    }
}

pub(super) struct Uniq<'c, 'a> {
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

pub(super) fn strip(e: &Exp) -> &Exp {
    match &e.kind {
        ExpKind::Parens(x) | ExpKind::Attr(_, x) => strip(x),
        _ => e,
    }
}

impl<'c, 'a> Uniq<'c, 'a> {
    pub(super) fn new(c: &'c mut Checker<'a>) -> Uniq<'c, 'a> {
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

    pub(super) fn ty(&self, span: Span) -> Option<&Type> {
        self.c.info.exp_types.get(&span)
    }

    pub(super) fn err(
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

    pub(super) fn bind(&mut self, v: &VName, name: &str, als: Als, kind: VKind) {
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

    pub(super) fn display(&self, v: &VName) -> String {
        self.vars
            .get(v)
            .map(|i| i.name.clone())
            .unwrap_or_else(|| v.name().to_string())
    }

    /// A use of variable `v` (whose value aliases `als`).
    pub(super) fn observe(&mut self, v: &VName, als: &BTreeSet<VName>, span: Span) {
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
    pub(super) fn consume(&mut self, als: &BTreeSet<VName>, span: Span) {
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

    pub(super) fn synthetic(&mut self, desc: String) -> VName {
        self.synth += 1;
        let v = VName::new(Name::from(desc.as_str()), u64::MAX - self.synth as u64);
        self.bind(&v, &desc, Als::none(), VKind::Synthetic);
        v
    }

    // ------------------------------------------------------------------------------------
    // Patterns

    /// Binds the names of a pattern to the parts of a value.
    pub(super) fn bind_pat(&mut self, p: &Pat, als: &Als, kind: &VKind) {
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

    pub(super) fn pat_vars(&self, p: &Pat, out: &mut Vec<VName>) {
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
    pub(super) fn pat_unique_ascription(&self, p: &Pat) -> Option<(Span, String)> {
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

    pub(super) fn ty_of_pat(&self, p: &Pat) -> Option<Type> {
        match &p.kind {
            PatKind::Id(x) => self.ty(x.span).cloned(),
            PatKind::Parens(q) | PatKind::Attr(_, q) | PatKind::Ascript(q, _) => self.ty_of_pat(q),
            _ => None,
        }
    }

    // ------------------------------------------------------------------------------------
    // Expressions

    pub(super) fn pat_type(&self, p: &Pat) -> Option<Type> {
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
    pub(super) fn lambda_ret_type(&self, span: Span, n: usize) -> Option<Type> {
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
    pub(super) fn infer_unique(&self, als: &Als, t: &Type) -> Type {
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
    pub(super) fn check_globals(&mut self, als: &Als, span: Span) {
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
    pub(super) fn check_result(&mut self, als: &Als, t: &Type, fname: &str, span: Span) {
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
    pub(super) fn size_exps_in_pat(&mut self, p: &Pat) {
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

    pub(super) fn size_exps_in_type(&mut self, te: &futhark_syntax::ast::TypeExp) {
        use futhark_syntax::ast::{SizeExp, TypeArg as A, TypeExpKind as K};
        match &te.kind {
            K::Array { size, elem } => {
                if let SizeExp::Exp(e) = size
                    && !matches!(e.kind, ExpKind::Var(_) | ExpKind::Literal(_))
                {
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
        (!declared && !vb.params.is_empty()).then(|| u.infer_unique(&b.als, ret))
    }

    /// Checks uniqueness in a standalone expression (a REPL expression).
    pub fn uniqueness_check_exp(&mut self, e: &Exp) {
        let mut u = Uniq::new(self);
        u.exp(e);
    }
}
