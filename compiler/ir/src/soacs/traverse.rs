//! Walking the SOAC IR: free variables, substitution and renaming, and fresh names.
//!
//! Every variable position is visited: atoms, array operands, SOAC inputs and
//! destinations, and the dimensions of every type. Binders are visited before the uses
//! they scope over, so a renamer can give each binder a fresh name and rewrite its uses in
//! one pass. The IR has no shadowing, which is what makes "uses minus binders" the free
//! variables and a single global renaming map sound.

use std::borrow::Cow;
use std::collections::{BTreeSet, HashMap, HashSet};

use super::syntax::*;

/// Makes fresh names `base_N`, with N above every suffix already used in a program.
#[derive(Clone, Debug, Default)]
pub struct NameSource {
    next: u64,
}

impl NameSource {
    pub fn new() -> NameSource {
        NameSource { next: 0 }
    }

    /// A source whose names cannot clash with any name in `prog`.
    pub fn for_program(prog: &Program) -> NameSource {
        let mut ns = NameSource::new();
        let mut note = |n: &Name| {
            if let Some(k) = suffix(n) {
                ns.next = ns.next.max(k + 1);
            }
        };
        for f in &prog.funs {
            note(&f.name);
            let mut c = Collect::default();
            c.fun(f);
            c.uses.iter().chain(&c.binds).for_each(&mut note);
        }
        ns
    }

    /// A fresh name; a numeric suffix on `base` is replaced.
    pub fn fresh(&mut self, base: &str) -> Name {
        let stem = match suffix(base) {
            Some(_) => base.rsplit_once('_').map_or(base, |(s, _)| s),
            None => base,
        };
        let stem: String = stem
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        let stem = if stem.is_empty() || stem.starts_with(|c: char| c.is_ascii_digit()) {
            format!("v{stem}")
        } else {
            stem
        };
        let n = self.next;
        self.next += 1;
        format!("{stem}_{n}")
    }
}

fn suffix(n: &str) -> Option<u64> {
    let (_, s) = n.rsplit_once('_')?;
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// Collects used and bound names.
#[derive(Default)]
struct Collect {
    uses: HashSet<Name>,
    binds: HashSet<Name>,
}

impl Collect {
    fn se(&mut self, s: &SubExp) {
        if let SubExp::Var(v) = s {
            self.uses.insert(v.clone());
        }
    }

    fn name(&mut self, n: &Name) {
        self.uses.insert(n.clone());
    }

    fn ty(&mut self, t: &Type) {
        t.shape().iter().for_each(|d| self.se(d));
    }

    fn param(&mut self, p: &Param) {
        self.ty(&p.ty);
        self.binds.insert(p.name.clone());
    }

    fn ext(&mut self, t: &ExtType) {
        for d in t.shape() {
            if let ExtSize::Free(s) = d {
                self.se(s);
            }
        }
    }

    fn fun(&mut self, f: &FunDef) {
        f.params.iter().for_each(|p| self.param(p));
        f.ret.iter().for_each(|t| self.ext(t));
        self.body(&f.body);
    }

    fn body(&mut self, b: &Body) {
        for s in &b.stms {
            self.exp(&s.exp);
            s.pat.ctx.iter().for_each(|c| {
                self.binds.insert(c.clone());
            });
            s.pat.elems.iter().for_each(|p| self.param(p));
        }
        b.result.iter().for_each(|r| self.se(r));
    }

    fn lambda(&mut self, l: &Lambda) {
        l.params.iter().for_each(|p| self.param(p));
        l.ret.iter().for_each(|t| self.ty(t));
        self.body(&l.body);
    }

    fn idx(&mut self, idx: &[DimIndex]) {
        for i in idx {
            match i {
                DimIndex::Fix(x) => self.se(x),
                DimIndex::Slice { start, len, stride } => {
                    self.se(start);
                    self.se(len);
                    self.se(stride);
                }
            }
        }
    }

    fn exp(&mut self, e: &Exp) {
        match e {
            Exp::SubExp(a) | Exp::UnOp(_, a) | Exp::Conv(_, a) => self.se(a),
            Exp::BinOp(_, a, b) | Exp::CmpOp(_, a, b) => {
                self.se(a);
                self.se(b);
            }
            Exp::Math(_, args) => args.iter().for_each(|a| self.se(a)),
            Exp::ArrayLit(xs, t) => {
                xs.iter().for_each(|x| self.se(x));
                self.ty(t);
            }
            Exp::Index(a, idx) => {
                self.name(a);
                self.idx(idx);
            }
            Exp::Update(a, idx, v) => {
                self.name(a);
                self.idx(idx);
                self.se(v);
            }
            Exp::Iota {
                n, start, stride, ..
            } => {
                self.se(n);
                self.se(start);
                self.se(stride);
            }
            Exp::Replicate { shape, value } => {
                shape.iter().for_each(|d| self.se(d));
                self.se(value);
            }
            Exp::Reshape { shape, arr } => {
                shape.iter().for_each(|d| self.se(d));
                self.name(arr);
            }
            Exp::Rearrange { arr, .. } | Exp::Copy(arr) => self.name(arr),
            Exp::Concat { arrs, size } => {
                arrs.iter().for_each(|a| self.name(a));
                self.se(size);
            }
            Exp::Assert { cond, args, .. } => {
                self.se(cond);
                args.iter().for_each(|a| self.se(a));
            }
            Exp::If {
                cond,
                then_body,
                else_body,
                ret,
            } => {
                self.se(cond);
                self.body(then_body);
                self.body(else_body);
                ret.iter().for_each(|t| self.ext(t));
            }
            Exp::Loop { params, form, body } => {
                params.iter().for_each(|(_, i)| self.se(i));
                params.iter().for_each(|(p, _)| self.param(p));
                match form {
                    LoopForm::For { var, bound } => {
                        self.se(bound);
                        self.binds.insert(var.clone());
                    }
                    LoopForm::While { cond } => self.name(cond),
                }
                self.body(body);
            }
            Exp::Apply { args, ret, .. } => {
                args.iter().for_each(|a| self.se(a));
                ret.iter().for_each(|t| self.ext(t));
            }
            Exp::Soac(s) => self.soac(s),
            Exp::Launch(l) => {
                l.sizes.iter().for_each(|s| self.se(s));
                for a in &l.args {
                    match a {
                        KernelArg::In(s) => self.se(s),
                        KernelArg::Out => {}
                        KernelArg::InOut(n) => self.name(n),
                    }
                }
            }
        }
    }

    fn soac(&mut self, s: &Soac) {
        self.se(s.width());
        s.inputs().iter().for_each(|a| self.name(a));
        match s {
            Soac::Map { lam, .. } => self.lambda(lam),
            Soac::Reduce { op, nes, map, .. } | Soac::Scan { op, nes, map, .. } => {
                self.lambda(op);
                nes.iter().for_each(|n| self.se(n));
                self.lambda(map);
            }
            Soac::Hist {
                dests,
                op,
                nes,
                map,
                ..
            } => {
                dests.iter().for_each(|d| self.name(d));
                self.lambda(op);
                nes.iter().for_each(|n| self.se(n));
                self.lambda(map);
            }
            Soac::Scatter { dests, map, .. } => {
                dests.iter().for_each(|d| self.name(d));
                self.lambda(map);
            }
        }
    }

    fn free(self) -> BTreeSet<Name> {
        self.uses
            .into_iter()
            .filter(|u| !self.binds.contains(u))
            .collect()
    }
}

/// Variables used but not bound in a body.
pub fn free_in_body(b: &Body) -> BTreeSet<Name> {
    let mut c = Collect::default();
    c.body(b);
    c.free()
}

/// Variables used but not bound in a lambda.
pub fn free_in_lambda(l: &Lambda) -> BTreeSet<Name> {
    let mut c = Collect::default();
    c.lambda(l);
    c.free()
}

/// Variables used but not bound in an expression.
pub fn free_in_exp(e: &Exp) -> BTreeSet<Name> {
    let mut c = Collect::default();
    c.exp(e);
    c.free()
}

/// Every variable an expression uses, bound inside it or not.
pub fn uses_in_exp(e: &Exp) -> HashSet<Name> {
    let mut c = Collect::default();
    c.exp(e);
    c.uses
}

/// Every name a body binds (at any depth).
pub fn binders_in_body(b: &Body) -> HashSet<Name> {
    let mut c = Collect::default();
    c.body(b);
    c.binds
}

/// Rewrites uses through `map`, and (with `fresh`) gives every binder a fresh name.
pub struct Rewriter<'a> {
    pub map: Cow<'a, HashMap<Name, SubExp>>,
    pub fresh: Option<&'a mut NameSource>,
}

impl<'a> Rewriter<'a> {
    /// Substitutes uses only.
    pub fn subst(map: &'a HashMap<Name, SubExp>) -> Rewriter<'a> {
        Rewriter {
            map: Cow::Borrowed(map),
            fresh: None,
        }
    }

    /// Renames every binder (and substitutes `map` in uses).
    pub fn renamer(ns: &'a mut NameSource) -> Rewriter<'a> {
        Rewriter {
            map: Cow::Owned(HashMap::new()),
            fresh: Some(ns),
        }
    }

    fn se(&self, s: &mut SubExp) {
        if let SubExp::Var(v) = s
            && let Some(r) = self.map.get(v)
        {
            *s = r.clone();
        }
    }

    fn name(&self, n: &mut Name) {
        if let Some(SubExp::Var(r)) = self.map.get(n) {
            *n = r.clone();
        }
    }

    fn bind(&mut self, n: &mut Name) {
        if let Some(ns) = self.fresh.as_deref_mut() {
            let new = ns.fresh(n);
            self.map
                .to_mut()
                .insert(n.clone(), SubExp::Var(new.clone()));
            *n = new;
        }
    }

    fn ty(&self, t: &mut Type) {
        if let TypeBase::Array(_, shape) = t {
            shape.iter_mut().for_each(|d| self.se(d));
        }
    }

    fn ext(&self, t: &mut ExtType) {
        if let TypeBase::Array(_, shape) = t {
            for d in shape {
                if let ExtSize::Free(s) = d {
                    self.se(s);
                }
            }
        }
    }

    fn param(&mut self, p: &mut Param) {
        self.ty(&mut p.ty);
        self.bind(&mut p.name);
    }

    pub fn fun(&mut self, f: &mut FunDef) {
        f.params.iter_mut().for_each(|p| self.param(p));
        f.ret.iter_mut().for_each(|t| self.ext(t));
        self.body(&mut f.body);
    }

    pub fn body(&mut self, b: &mut Body) {
        for s in &mut b.stms {
            self.stm(s);
        }
        b.result.iter_mut().for_each(|r| self.se(r));
    }

    pub fn stm(&mut self, s: &mut Stm) {
        self.exp(&mut s.exp);
        s.pat.ctx.iter_mut().for_each(|c| self.bind(c));
        s.pat.elems.iter_mut().for_each(|p| self.param(p));
    }

    pub fn lambda(&mut self, l: &mut Lambda) {
        l.params.iter_mut().for_each(|p| self.param(p));
        l.ret.iter_mut().for_each(|t| self.ty(t));
        self.body(&mut l.body);
    }

    fn idx(&self, idx: &mut [DimIndex]) {
        for i in idx {
            match i {
                DimIndex::Fix(x) => self.se(x),
                DimIndex::Slice { start, len, stride } => {
                    self.se(start);
                    self.se(len);
                    self.se(stride);
                }
            }
        }
    }

    pub fn exp(&mut self, e: &mut Exp) {
        match e {
            Exp::SubExp(a) | Exp::UnOp(_, a) | Exp::Conv(_, a) => self.se(a),
            Exp::BinOp(_, a, b) | Exp::CmpOp(_, a, b) => {
                self.se(a);
                self.se(b);
            }
            Exp::Math(_, args) => args.iter_mut().for_each(|a| self.se(a)),
            Exp::ArrayLit(xs, t) => {
                xs.iter_mut().for_each(|x| self.se(x));
                self.ty(t);
            }
            Exp::Index(a, idx) => {
                self.name(a);
                self.idx(idx);
            }
            Exp::Update(a, idx, v) => {
                self.name(a);
                self.idx(idx);
                self.se(v);
            }
            Exp::Iota {
                n, start, stride, ..
            } => {
                self.se(n);
                self.se(start);
                self.se(stride);
            }
            Exp::Replicate { shape, value } => {
                shape.iter_mut().for_each(|d| self.se(d));
                self.se(value);
            }
            Exp::Reshape { shape, arr } => {
                shape.iter_mut().for_each(|d| self.se(d));
                self.name(arr);
            }
            Exp::Rearrange { arr, .. } | Exp::Copy(arr) => self.name(arr),
            Exp::Concat { arrs, size } => {
                arrs.iter_mut().for_each(|a| self.name(a));
                self.se(size);
            }
            Exp::Assert { cond, args, .. } => {
                self.se(cond);
                args.iter_mut().for_each(|a| self.se(a));
            }
            Exp::If {
                cond,
                then_body,
                else_body,
                ret,
            } => {
                self.se(cond);
                self.body(then_body);
                self.body(else_body);
                ret.iter_mut().for_each(|t| self.ext(t));
            }
            Exp::Loop { params, form, body } => {
                params.iter_mut().for_each(|(_, i)| self.se(i));
                params.iter_mut().for_each(|(p, _)| self.param(p));
                match form {
                    LoopForm::For { var, bound } => {
                        self.se(bound);
                        self.bind(var);
                    }
                    LoopForm::While { cond } => self.name(cond),
                }
                self.body(body);
            }
            Exp::Apply { args, ret, .. } => {
                args.iter_mut().for_each(|a| self.se(a));
                ret.iter_mut().for_each(|t| self.ext(t));
            }
            Exp::Soac(s) => self.soac(s),
            Exp::Launch(l) => {
                l.sizes.iter_mut().for_each(|s| self.se(s));
                for a in &mut l.args {
                    match a {
                        KernelArg::In(s) => self.se(s),
                        KernelArg::Out => {}
                        KernelArg::InOut(n) => self.name(n),
                    }
                }
            }
        }
    }

    fn soac(&mut self, s: &mut Soac) {
        match s {
            Soac::Map { w, lam, arrs } => {
                self.se(w);
                arrs.iter_mut().for_each(|a| self.name(a));
                self.lambda(lam);
            }
            Soac::Reduce {
                w,
                op,
                nes,
                map,
                arrs,
                ..
            }
            | Soac::Scan {
                w,
                op,
                nes,
                map,
                arrs,
            } => {
                self.se(w);
                arrs.iter_mut().for_each(|a| self.name(a));
                self.lambda(op);
                nes.iter_mut().for_each(|n| self.se(n));
                self.lambda(map);
            }
            Soac::Hist {
                w,
                dests,
                op,
                nes,
                map,
                arrs,
                ..
            } => {
                self.se(w);
                arrs.iter_mut().for_each(|a| self.name(a));
                dests.iter_mut().for_each(|d| self.name(d));
                self.lambda(op);
                nes.iter_mut().for_each(|n| self.se(n));
                self.lambda(map);
            }
            Soac::Scatter {
                w,
                dests,
                map,
                arrs,
                ..
            } => {
                self.se(w);
                arrs.iter_mut().for_each(|a| self.name(a));
                dests.iter_mut().for_each(|d| self.name(d));
                self.lambda(map);
            }
        }
    }
}

/// A copy of `l` with every binder renamed, so it can be placed next to the original.
pub fn renamed_lambda(l: &Lambda, ns: &mut NameSource) -> Lambda {
    let mut l = l.clone();
    Rewriter::renamer(ns).lambda(&mut l);
    l
}

/// A copy of `b` with every binder renamed and `map` applied to its free variables.
pub fn renamed_body(b: &Body, map: HashMap<Name, SubExp>, ns: &mut NameSource) -> Body {
    let mut b = b.clone();
    let mut r = Rewriter::renamer(ns);
    r.map = Cow::Owned(map);
    r.body(&mut b);
    b
}

/// The type of every name bound in a function (parameters, patterns, lambda and loop
/// parameters, loop counters).
pub fn binder_types(f: &FunDef) -> HashMap<Name, Type> {
    let mut out = HashMap::new();
    for p in &f.params {
        out.insert(p.name.clone(), p.ty.clone());
    }
    body_types(&f.body, &mut out);
    out
}

/// The types of the names bound in a body (at any depth), added to `out`.
pub fn body_types(b: &Body, out: &mut HashMap<Name, Type>) {
    for s in &b.stms {
        for c in &s.pat.ctx {
            out.insert(c.clone(), Type::Prim(crate::types::PrimType::I64));
        }
        for p in &s.pat.elems {
            out.insert(p.name.clone(), p.ty.clone());
        }
        exp_types(&s.exp, out);
    }
}

fn lambda_types(l: &Lambda, out: &mut HashMap<Name, Type>) {
    for p in &l.params {
        out.insert(p.name.clone(), p.ty.clone());
    }
    body_types(&l.body, out);
}

fn exp_types(e: &Exp, out: &mut HashMap<Name, Type>) {
    match e {
        Exp::If {
            then_body,
            else_body,
            ..
        } => {
            body_types(then_body, out);
            body_types(else_body, out);
        }
        Exp::Loop { params, form, body } => {
            for (p, _) in params {
                out.insert(p.name.clone(), p.ty.clone());
            }
            if let LoopForm::For { var, bound } = form {
                let t = match bound {
                    SubExp::Const(c) => Type::Prim(c.ty()),
                    SubExp::Var(v) => out
                        .get(v)
                        .cloned()
                        .unwrap_or(Type::Prim(crate::types::PrimType::I64)),
                };
                out.insert(var.clone(), t);
            }
            body_types(body, out);
        }
        Exp::Soac(s) => match s {
            Soac::Map { lam, .. } => lambda_types(lam, out),
            Soac::Reduce { op, map, .. }
            | Soac::Scan { op, map, .. }
            | Soac::Hist { op, map, .. } => {
                lambda_types(op, out);
                lambda_types(map, out);
            }
            Soac::Scatter { map, .. } => lambda_types(map, out),
        },
        _ => {}
    }
}
