//! The SOAC IR type checker. Passes run it after themselves in tests and debug builds, so a
//! pass that breaks the IR is caught at the pass, with the function named.
//!
//! It checks: every variable is bound before use and never shadowed; operator operand and
//! result types; index, slice and update shapes; SOAC inputs have the SOAC's width as
//! outer size and lambdas take their rows; operator and neutral-element types agree;
//! branch, loop and call results match their declared types (dimensions compared
//! syntactically, existential ones excepted); size parameters are `i64`; and consumption:
//! a consumed array (by an update, a histogram or a scatter) is not used afterwards and is
//! not free in the lambda or loop that consumes it.

use std::collections::{HashMap, HashSet};

use thiserror::Error;

use super::syntax::*;
use crate::kernel::{KernelProgram, Size};
use crate::types::PrimType;

/// An error in SOAC IR: a bug in the pass that produced it.
#[derive(Debug, Clone, PartialEq, Error)]
#[error("SOAC IR error{}: {message}", fun.as_ref().map(|f| format!(" in `{f}`")).unwrap_or_default())]
pub struct CheckError {
    pub fun: Option<Name>,
    pub message: String,
}

type Res<T> = Result<T, CheckError>;

struct Scope {
    vars: HashMap<Name, Type>,
    /// Lambdas and loop bodies: names bound outside may not be consumed inside.
    boundary: bool,
}

struct Checker<'a> {
    prog: &'a Program,
    fun: Option<Name>,
    scopes: Vec<Scope>,
    consumed: HashSet<Name>,
}

/// Checks every function of a program.
pub fn check_program(prog: &Program) -> Res<()> {
    let mut names = HashSet::new();
    for f in &prog.funs {
        if !names.insert(f.name.as_str()) {
            return Err(CheckError {
                fun: None,
                message: format!("function `{}` defined twice", f.name),
            });
        }
    }
    for f in &prog.funs {
        check_fun(prog, f)?;
    }
    Ok(())
}

/// Checks one function in the context of its program (for calls and kernels).
pub fn check_fun(prog: &Program, f: &FunDef) -> Res<()> {
    let mut c = Checker {
        prog,
        fun: Some(f.name.clone()),
        scopes: vec![Scope {
            vars: HashMap::new(),
            boundary: true,
        }],
        consumed: HashSet::new(),
    };
    for p in &f.params {
        c.check_type(&p.ty)?;
        c.bind(&p.name, p.ty.clone())?;
    }
    for t in &f.ret {
        for d in t.shape() {
            if let ExtSize::Free(s) = d {
                c.size(s)?;
            }
        }
    }
    let res = c.body_types(&f.body)?;
    c.match_ext(&res, &f.ret, "function result")
}

impl Checker<'_> {
    fn err<T>(&self, message: String) -> Res<T> {
        Err(CheckError {
            fun: self.fun.clone(),
            message,
        })
    }

    fn lookup(&self, n: &str) -> Option<&Type> {
        self.scopes.iter().rev().find_map(|s| s.vars.get(n))
    }

    fn bind(&mut self, n: &str, ty: Type) -> Res<()> {
        if n.is_empty() {
            return self.err("empty variable name".into());
        }
        if self.lookup(n).is_some() {
            return self.err(format!("`{n}` is bound twice (the IR has no shadowing)"));
        }
        if let Some(s) = self.scopes.last_mut() {
            s.vars.insert(n.to_string(), ty);
        }
        Ok(())
    }

    fn push(&mut self, boundary: bool) {
        self.scopes.push(Scope {
            vars: HashMap::new(),
            boundary,
        });
    }

    fn pop(&mut self) {
        if let Some(s) = self.scopes.pop() {
            for n in s.vars.keys() {
                self.consumed.remove(n);
            }
        }
    }

    fn var(&self, n: &str) -> Res<Type> {
        if self.consumed.contains(n) {
            return self.err(format!("`{n}` is used after being consumed"));
        }
        match self.lookup(n) {
            Some(t) => Ok(t.clone()),
            None => self.err(format!("unbound variable `{n}`")),
        }
    }

    fn subexp(&self, s: &SubExp) -> Res<Type> {
        match s {
            SubExp::Const(c) => Ok(Type::Prim(c.ty())),
            SubExp::Var(v) => self.var(v),
        }
    }

    fn prim(&self, s: &SubExp) -> Res<PrimType> {
        match self.subexp(s)? {
            Type::Prim(t) => Ok(t),
            t => self.err(format!("`{s}` has type {t}, expected a scalar")),
        }
    }

    fn expect_prim(&self, s: &SubExp, want: PrimType, what: &str) -> Res<()> {
        let t = self.prim(s)?;
        if t != want {
            return self.err(format!("{what} `{s}` has type {t}, expected {want}"));
        }
        Ok(())
    }

    fn size(&self, s: &SubExp) -> Res<()> {
        self.expect_prim(s, PrimType::I64, "size")
    }

    fn check_type(&self, t: &Type) -> Res<()> {
        t.shape().iter().try_for_each(|d| self.size(d))
    }

    fn array(&self, n: &str) -> Res<Type> {
        let t = self.var(n)?;
        if !t.is_array() {
            return self.err(format!("`{n}` has type {t}, expected an array"));
        }
        Ok(t)
    }

    /// Marks `n` consumed, checking that it is not free in an enclosing lambda or loop.
    fn consume(&mut self, n: &str) -> Res<()> {
        self.var(n)?;
        for s in self.scopes.iter().rev() {
            if s.vars.contains_key(n) {
                break;
            }
            if s.boundary {
                return self.err(format!(
                    "`{n}` is consumed inside a lambda or loop but bound outside it"
                ));
            }
        }
        self.consumed.insert(n.to_string());
        Ok(())
    }

    fn same(&self, got: &Type, want: &Type, what: &str) -> Res<()> {
        if got != want {
            return self.err(format!("{what}: got {got}, expected {want}"));
        }
        Ok(())
    }

    /// Types of a body's results, checked in a new scope (the caller pushes/pops).
    fn body_types(&mut self, body: &Body) -> Res<Vec<Type>> {
        for stm in &body.stms {
            self.stm(stm)?;
        }
        body.result.iter().map(|r| self.subexp(r)).collect()
    }

    fn scoped_body(&mut self, body: &Body, boundary: bool) -> Res<Vec<Type>> {
        self.push(boundary);
        let r = self.body_types(body);
        self.pop();
        r
    }

    /// Compares actual result types with declared ones, where `Ext` dimensions match
    /// anything (consistently).
    fn match_ext(&self, got: &[Type], want: &[ExtType], what: &str) -> Res<()> {
        if got.len() != want.len() {
            return self.err(format!(
                "{what}: {} values, expected {}",
                got.len(),
                want.len()
            ));
        }
        let mut exts: HashMap<usize, SubExp> = HashMap::new();
        for (g, w) in got.iter().zip(want) {
            if g.elem() != w.elem() || g.rank() != w.rank() {
                return self.err(format!("{what}: got {g}, expected {w}"));
            }
            for (gd, wd) in g.shape().iter().zip(w.shape()) {
                match wd {
                    ExtSize::Free(s) if s != gd => {
                        return self.err(format!("{what}: got {g}, expected {w}"));
                    }
                    ExtSize::Free(_) => {}
                    ExtSize::Ext(i) => {
                        if let Some(prev) = exts.insert(*i, gd.clone())
                            && prev != *gd
                        {
                            return self.err(format!(
                                "{what}: existential size ?{i} is both {prev} and {gd}"
                            ));
                        }
                    }
                }
            }
        }
        Ok(())
    }

    fn stm(&mut self, stm: &Stm) -> Res<()> {
        let ts = self.exp(&stm.exp)?;
        let pat = &stm.pat;
        if ts.len() != pat.elems.len() {
            return self.err(format!(
                "pattern binds {} values, expression `{}` gives {}",
                pat.elems.len(),
                stm.exp,
                ts.len()
            ));
        }
        let mut ext_map: HashMap<usize, Name> = HashMap::new();
        for (p, t) in pat.elems.iter().zip(&ts) {
            if p.ty.elem() != t.elem() || p.ty.rank() != t.rank() {
                return self.err(format!(
                    "`{}` declared {}, but `{}` gives {t}",
                    p.name, p.ty, stm.exp
                ));
            }
            for (pd, td) in p.ty.shape().iter().zip(t.shape()) {
                let is_ctx = pd.as_var().is_some_and(|v| pat.ctx.contains(v));
                let ok = match td {
                    ExtSize::Free(s) => s == pd || is_ctx,
                    ExtSize::Ext(i) => {
                        is_ctx
                            && pd.as_var().is_some_and(|v| {
                                ext_map.entry(*i).or_insert_with(|| v.clone()) == v
                            })
                    }
                };
                if !ok {
                    return self.err(format!(
                        "`{}` declared {}, but `{}` gives {t}",
                        p.name, p.ty, stm.exp
                    ));
                }
            }
        }
        for c in &pat.ctx {
            self.bind(c, Type::Prim(PrimType::I64))?;
        }
        for p in &pat.elems {
            self.check_type(&p.ty)?;
            self.bind(&p.name, p.ty.clone())?;
        }
        Ok(())
    }

    fn exp(&mut self, e: &Exp) -> Res<Vec<ExtType>> {
        let one = |t: Type| Ok(vec![t.to_ext()]);
        match e {
            Exp::SubExp(s) => one(self.subexp(s)?),
            Exp::BinOp(op, a, b) => {
                let (ta, tb) = (self.prim(a)?, self.prim(b)?);
                if ta != tb || !op.accepts(ta) {
                    return self.err(format!("`{}` applied to {ta} and {tb}", op.name()));
                }
                one(Type::Prim(ta))
            }
            Exp::CmpOp(op, a, b) => {
                let (ta, tb) = (self.prim(a)?, self.prim(b)?);
                if ta != tb || !op.accepts(ta) {
                    return self.err(format!("`{}` applied to {ta} and {tb}", op.name()));
                }
                one(Type::Prim(PrimType::Bool))
            }
            Exp::UnOp(op, a) => {
                let t = self.prim(a)?;
                match op.result(t) {
                    Some(r) => one(Type::Prim(r)),
                    None => self.err(format!("`{}` applied to {t}", op.name())),
                }
            }
            Exp::Conv(op, a) => {
                let t = self.prim(a)?;
                if !op.accepts(t) {
                    return self.err(format!("`{}` from {t} to {}", op.name(), op.target()));
                }
                one(Type::Prim(op.target()))
            }
            Exp::Math(f, args) => {
                let ts: Vec<PrimType> = args.iter().map(|a| self.prim(a)).collect::<Res<_>>()?;
                match f.result(&ts) {
                    Some(r) => one(Type::Prim(r)),
                    None => self.err(format!("`{}` applied to {ts:?}", f.name())),
                }
            }
            Exp::ArrayLit(elems, t) => {
                self.check_type(t)?;
                for x in elems {
                    let tx = self.subexp(x)?;
                    self.same(&tx, t, "array literal element")?;
                }
                one(t.array_of(SubExp::i64(elems.len() as i64)))
            }
            Exp::Index(a, idx) => one(self.index(a, idx)?),
            Exp::Update(a, idx, v) => {
                let slice_t = self.index(a, idx)?;
                let tv = self.subexp(v)?;
                self.same(&tv, &slice_t, "updated value")?;
                let t = self.array(a)?;
                self.consume(a)?;
                one(t)
            }
            Exp::Iota {
                n,
                start,
                stride,
                ty,
            } => {
                self.size(n)?;
                if !ty.is_int() {
                    return self.err(format!("iota of non-integer type {ty}"));
                }
                self.expect_prim(start, *ty, "iota start")?;
                self.expect_prim(stride, *ty, "iota stride")?;
                one(Type::Array(*ty, vec![n.clone()]))
            }
            Exp::Replicate { shape, value } => {
                shape.iter().try_for_each(|d| self.size(d))?;
                let mut t = self.subexp(value)?;
                for d in shape.iter().rev() {
                    t = t.array_of(d.clone());
                }
                one(t)
            }
            Exp::Reshape { shape, arr } => {
                shape.iter().try_for_each(|d| self.size(d))?;
                let t = self.array(arr)?;
                if shape.is_empty() {
                    return self.err("reshape to rank 0".into());
                }
                one(t.with_shape(shape.clone()))
            }
            Exp::Rearrange { perm, arr } => {
                let t = self.array(arr)?;
                let mut sorted = perm.clone();
                sorted.sort_unstable();
                if sorted != (0..t.rank()).collect::<Vec<_>>() {
                    return self.err(format!("rearrange {perm:?} of {t}"));
                }
                let shape = perm.iter().map(|&i| t.shape()[i].clone()).collect();
                one(t.with_shape(shape))
            }
            Exp::Concat { arrs, size } => {
                self.size(size)?;
                let mut row: Option<Type> = None;
                for a in arrs {
                    let r = self.array(a)?.row();
                    if let Some(prev) = &row {
                        self.same(&r, prev, "concatenated rows")?;
                    }
                    row = Some(r);
                }
                match row {
                    Some(r) => one(r.array_of(size.clone())),
                    None => self.err("concat of no arrays".into()),
                }
            }
            Exp::Copy(a) => one(self.var(a)?),
            Exp::Assert { cond, msg, args } => {
                self.expect_prim(cond, PrimType::Bool, "assertion")?;
                let holes = super::message::holes(msg);
                if holes != args.len() {
                    return self.err(format!(
                        "assertion message {msg:?} has {holes} holes for {} values",
                        args.len()
                    ));
                }
                for a in args {
                    if !matches!(self.subexp(a)?, Type::Prim(_)) {
                        return self.err("an assertion's message values must be scalars".into());
                    }
                }
                Ok(vec![])
            }
            Exp::If {
                cond,
                then_body,
                else_body,
                ret,
            } => {
                self.expect_prim(cond, PrimType::Bool, "condition")?;
                let before = self.consumed.clone();
                let tt = self.scoped_body(then_body, false)?;
                self.match_ext(&tt, ret, "then branch")?;
                let after_then = std::mem::replace(&mut self.consumed, before);
                let te = self.scoped_body(else_body, false)?;
                self.match_ext(&te, ret, "else branch")?;
                self.consumed.extend(after_then);
                Ok(ret.clone())
            }
            Exp::Loop { params, form, body } => self.loop_(params, form, body),
            Exp::Apply { func, args, ret } => self.apply(func, args, ret),
            Exp::Soac(s) => self.soac(s),
            Exp::Launch(l) => self.launch(l),
        }
    }

    fn index(&self, a: &str, idx: &[DimIndex]) -> Res<Type> {
        let t = self.array(a)?;
        if idx.len() > t.rank() {
            return self.err(format!("{} indices into `{a}` of type {t}", idx.len()));
        }
        let mut shape = Vec::new();
        for i in idx {
            match i {
                DimIndex::Fix(x) => self.size(x)?,
                DimIndex::Slice { start, len, stride } => {
                    self.size(start)?;
                    self.size(len)?;
                    self.size(stride)?;
                    shape.push(len.clone());
                }
            }
        }
        shape.extend(t.shape()[idx.len()..].iter().cloned());
        Ok(t.with_shape(shape))
    }

    fn loop_(
        &mut self,
        params: &[(Param, SubExp)],
        form: &LoopForm,
        body: &Body,
    ) -> Res<Vec<ExtType>> {
        // Dimensions that are earlier loop parameters vary: replace them by the values the
        // parameters get (initial values here, body results below).
        let names: Vec<&Name> = params.iter().map(|(p, _)| &p.name).collect();
        let subst = |t: &Type, vals: &[SubExp]| -> Type {
            t.map_dims(
                |d| match d.as_var().and_then(|v| names.iter().position(|n| *n == v)) {
                    Some(i) => vals[i].clone(),
                    None => d.clone(),
                },
            )
        };
        let inits: Vec<SubExp> = params.iter().map(|(_, i)| i.clone()).collect();
        for (p, init) in params {
            let t = self.subexp(init)?;
            self.same(
                &t,
                &subst(&p.ty, &inits),
                &format!("loop parameter `{}`", p.name),
            )?;
        }
        self.push(true);
        let r = (|| {
            for (p, _) in params {
                self.bind(&p.name, p.ty.clone())?;
            }
            match form {
                LoopForm::For { var, bound } => {
                    let t = self.prim(bound)?;
                    if !t.is_int() {
                        return self.err(format!("loop bound of type {t}"));
                    }
                    self.bind(var, Type::Prim(t))?;
                }
                LoopForm::While { cond } => {
                    let is_param = params
                        .iter()
                        .any(|(p, _)| &p.name == cond && p.ty == Type::Prim(PrimType::Bool));
                    if !is_param {
                        return self.err(format!(
                            "while condition `{cond}` is not a bool loop parameter"
                        ));
                    }
                }
            }
            for stm in &body.stms {
                self.stm(stm)?;
            }
            if body.result.len() != params.len() {
                return self.err(format!(
                    "loop body gives {} values for {} parameters",
                    body.result.len(),
                    params.len()
                ));
            }
            for ((p, _), r) in params.iter().zip(&body.result) {
                let t = self.subexp(r)?;
                let want = subst(&p.ty, &body.result);
                self.same(
                    &t,
                    &want,
                    &format!("next value of loop parameter `{}`", p.name),
                )?;
            }
            Ok(())
        })();
        self.pop();
        r?;
        Ok(params
            .iter()
            .map(|(p, _)| {
                p.ty.map_dims(|d| {
                    match d.as_var().and_then(|v| names.iter().position(|n| *n == v)) {
                        Some(i) => ExtSize::Ext(i),
                        None => ExtSize::Free(d.clone()),
                    }
                })
            })
            .collect())
    }

    fn apply(&mut self, func: &str, args: &[SubExp], ret: &[ExtType]) -> Res<Vec<ExtType>> {
        let Some(f) = self.prog.fun(func) else {
            return self.err(format!("call of unknown function `{func}`"));
        };
        if f.params.len() != args.len() {
            return self.err(format!(
                "`{func}` takes {} arguments, given {}",
                f.params.len(),
                args.len()
            ));
        }
        let lookup = |d: &SubExp| match d
            .as_var()
            .and_then(|v| f.params.iter().position(|p| &p.name == v))
        {
            Some(i) => args[i].clone(),
            None => d.clone(),
        };
        for (p, a) in f.params.iter().zip(args) {
            let t = self.subexp(a)?;
            let want = p.ty.map_dims(lookup);
            self.same(&t, &want, &format!("argument for `{}` of `{func}`", p.name))?;
        }
        let want: Vec<ExtType> = f
            .ret
            .iter()
            .map(|t| {
                t.map_dims(|d| match d {
                    ExtSize::Free(s) => ExtSize::Free(lookup(s)),
                    ExtSize::Ext(i) => ExtSize::Ext(*i),
                })
            })
            .collect();
        if want != ret {
            return self.err(format!("call of `{func}` declares a wrong result type"));
        }
        Ok(ret.to_vec())
    }

    /// Checks a lambda whose parameters must have types `params`; returns its result types.
    fn lambda(&mut self, lam: &Lambda, params: &[Type], what: &str) -> Res<Vec<Type>> {
        if lam.params.len() != params.len() {
            return self.err(format!(
                "{what} takes {} parameters, given {}",
                lam.params.len(),
                params.len()
            ));
        }
        for (p, t) in lam.params.iter().zip(params) {
            self.same(&p.ty, t, &format!("{what} parameter `{}`", p.name))?;
        }
        for t in &lam.ret {
            self.check_type(t)?;
        }
        self.push(true);
        let r = (|| {
            for p in &lam.params {
                self.bind(&p.name, p.ty.clone())?;
            }
            let ts = self.body_types(&lam.body)?;
            if ts != lam.ret {
                return self.err(format!(
                    "{what} body gives ({}), declared ({})",
                    types(&ts),
                    types(&lam.ret)
                ));
            }
            Ok(ts)
        })();
        self.pop();
        r
    }

    /// The row types of SOAC inputs, which must have outer size `w`.
    fn rows(&self, w: &SubExp, arrs: &[Name]) -> Res<Vec<Type>> {
        self.size(w)?;
        arrs.iter()
            .map(|a| {
                let t = self.array(a)?;
                if t.outer() != Some(w) {
                    return self.err(format!(
                        "SOAC input `{a}` of type {t} does not have outer size {w}"
                    ));
                }
                Ok(t.row())
            })
            .collect()
    }

    /// Checks an associative operator on `ts` with neutral elements `nes`.
    fn operator(&mut self, op: &Lambda, nes: &[SubExp], ts: &[Type]) -> Res<()> {
        let mut params = ts.to_vec();
        params.extend(ts.iter().cloned());
        let r = self.lambda(op, &params, "operator")?;
        if r != ts {
            return self.err(format!(
                "operator gives ({}), expected ({})",
                types(&r),
                types(ts)
            ));
        }
        if nes.len() != ts.len() {
            return self.err(format!(
                "{} neutral elements for {} values",
                nes.len(),
                ts.len()
            ));
        }
        for (ne, t) in nes.iter().zip(ts) {
            let tn = self.subexp(ne)?;
            self.same(&tn, t, "neutral element")?;
        }
        Ok(())
    }

    fn soac(&mut self, s: &Soac) -> Res<Vec<ExtType>> {
        let w = s.width().clone();
        let rows = self.rows(&w, s.inputs())?;
        let mapped = self.lambda(s.map_lambda(), &rows, "map lambda")?;
        let outer: HashSet<&Name> = self.scopes.iter().flat_map(|s| s.vars.keys()).collect();
        for t in &mapped {
            for d in t.shape() {
                if let SubExp::Var(v) = d
                    && !outer.contains(v)
                {
                    return self.err(format!("lambda result type {t} mentions its own `{v}`"));
                }
            }
        }
        match s {
            Soac::Map { .. } => Ok(mapped
                .iter()
                .map(|t| t.array_of(w.clone()).to_ext())
                .collect()),
            Soac::Reduce { op, nes, .. } => {
                self.operator(op, nes, &mapped)?;
                Ok(mapped.iter().map(Type::to_ext).collect())
            }
            Soac::Scan { op, nes, .. } => {
                self.operator(op, nes, &mapped)?;
                Ok(mapped
                    .iter()
                    .map(|t| t.array_of(w.clone()).to_ext())
                    .collect())
            }
            Soac::Hist {
                dests,
                rank,
                op,
                nes,
                ..
            } => {
                let dts: Vec<Type> = dests.iter().map(|d| self.array(d)).collect::<Res<_>>()?;
                let mut want = vec![Type::Prim(PrimType::I64); *rank];
                let vals: Vec<Type> = dts.iter().map(|t| t.strip(*rank)).collect();
                if dts.iter().any(|t| t.rank() < *rank)
                    || dts
                        .windows(2)
                        .any(|p| p[0].shape()[..*rank] != p[1].shape()[..*rank])
                {
                    return self.err("histogram destinations have different bucket shapes".into());
                }
                want.extend(vals.iter().cloned());
                if mapped != want {
                    return self.err(format!(
                        "histogram map gives ({}), expected ({})",
                        types(&mapped),
                        types(&want)
                    ));
                }
                self.operator(op, nes, &vals)?;
                for d in dests {
                    self.consume(d)?;
                }
                Ok(dts.iter().map(Type::to_ext).collect())
            }
            Soac::Scatter { dests, ranks, .. } => {
                if dests.len() != ranks.len() {
                    return self.err("scatter needs one rank per destination".into());
                }
                let mut want = Vec::new();
                let mut out = Vec::new();
                for (d, r) in dests.iter().zip(ranks) {
                    let t = self.array(d)?;
                    if t.rank() < *r {
                        return self
                            .err(format!("scatter into `{d}` of type {t} with {r} indices"));
                    }
                    want.extend(std::iter::repeat_n(Type::Prim(PrimType::I64), *r));
                    want.push(t.strip(*r));
                    out.push(t.to_ext());
                }
                if mapped != want {
                    return self.err(format!(
                        "scatter map gives ({}), expected ({})",
                        types(&mapped),
                        types(&want)
                    ));
                }
                for d in dests {
                    self.consume(d)?;
                }
                Ok(out)
            }
        }
    }

    fn launch(&mut self, l: &Launch) -> Res<Vec<ExtType>> {
        let Some(k) = self.prog.kernel(&l.kernel) else {
            return self.err(format!("launch of unknown kernel `{}`", l.kernel));
        };
        let kp: &KernelProgram = &k.program;
        if kp.sizes.len() != l.sizes.len() || kp.arrays.len() != l.args.len() {
            return self.err(format!(
                "launch of `{}` with the wrong number of arguments",
                l.kernel
            ));
        }
        for s in &l.sizes {
            self.size(s)?;
        }
        let dim = |s: &Size| match s {
            Size::Const(c) => SubExp::i64(*c),
            Size::Param(p) => match kp.sizes.iter().position(|q| q == p) {
                Some(i) => l.sizes[i].clone(),
                None => SubExp::var(p),
            },
        };
        let mut out = Vec::new();
        for (decl, arg) in kp.arrays.iter().zip(&l.args) {
            let t = Type::array(decl.elem, decl.shape.iter().map(dim).collect());
            match arg {
                KernelArg::In(s) => {
                    let got = self.subexp(s)?;
                    self.same(&got, &t, &format!("kernel array `{}`", decl.name))?;
                }
                KernelArg::Out => out.push(t.to_ext()),
                KernelArg::InOut(n) => {
                    let got = self.var(n)?;
                    self.same(&got, &t, &format!("kernel array `{}`", decl.name))?;
                    self.consume(n)?;
                    out.push(t.to_ext());
                }
            }
        }
        Ok(out)
    }
}

fn types(ts: &[Type]) -> String {
    ts.iter()
        .map(|t| t.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}
