//! The IR type checker: run after every pass that produces kernel IR (and in tests), so a
//! malformed kernel is reported as a compiler bug before CUDA is generated.
//!
//! It checks scoping (every variable bound before use, no shadowing of sizes or indices),
//! the types of every expression and statement, the arity and types of operators and
//! neutral elements, and that result arrays have the element types and shapes each
//! segmented operation requires (see `kernel.rs`).

use std::collections::HashMap;

use thiserror::Error;

use crate::exp::{BinOp, Body, Exp, Lambda, Name, Stm};
use crate::kernel::{ArrayDecl, Kernel, KernelProgram, SegOp, SegSpace, Size};
use crate::types::{PrimType, PrimValue};

/// A type error in kernel IR.
#[derive(Debug, Clone, PartialEq, Error)]
#[error("IR type error{}: {message}", kernel.as_ref().map(|k| format!(" in kernel `{k}`")).unwrap_or_default())]
pub struct TypeError {
    pub kernel: Option<Name>,
    pub message: String,
}

#[derive(Clone, Copy)]
struct VarInfo {
    ty: PrimType,
    mutable: bool,
}

struct Checker<'a> {
    prog: &'a KernelProgram,
    kernel: Option<Name>,
    scopes: Vec<HashMap<Name, VarInfo>>,
    /// Set while checking an operator: operators are closed functions of their parameters
    /// (the code generator emits them as standalone device functions).
    in_operator: bool,
}

/// Checks a whole program.
pub fn check_program(prog: &KernelProgram) -> Result<(), TypeError> {
    let mut c = Checker {
        prog,
        kernel: None,
        scopes: vec![HashMap::new()],
        in_operator: false,
    };
    for (i, s) in prog.sizes.iter().enumerate() {
        c.ident(s)?;
        if prog.sizes[..i].contains(s) {
            return c.err(format!("size parameter `{s}` declared twice"));
        }
        c.bind(s, PrimType::I64, false)?;
    }
    for (i, a) in prog.arrays.iter().enumerate() {
        c.ident(&a.name)?;
        if prog.arrays[..i].iter().any(|b| b.name == a.name) || prog.sizes.contains(&a.name) {
            return c.err(format!("array `{}` declared twice", a.name));
        }
        for s in &a.shape {
            c.size(s)?;
        }
    }
    for (i, k) in prog.kernels.iter().enumerate() {
        if prog.kernels[..i].iter().any(|o| o.name == k.name) {
            return c.err(format!("kernel `{}` declared twice", k.name));
        }
        c.kernel = Some(k.name.clone());
        c.ident(&k.name)?;
        c.check_kernel(k)?;
        c.kernel = None;
    }
    if prog.intra.is_some() {
        crate::intra::intra_violation(prog)
            .or_else(|e| c.err(format!("intra-block program: {e}")))?;
    }
    Ok(())
}

impl<'a> Checker<'a> {
    fn err<T>(&self, message: String) -> Result<T, TypeError> {
        Err(TypeError {
            kernel: self.kernel.clone(),
            message,
        })
    }

    /// Names become C identifiers, so they must be ones.
    fn ident(&self, n: &str) -> Result<(), TypeError> {
        let ok = n
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if ok {
            Ok(())
        } else {
            self.err(format!("`{n}` is not a valid identifier"))
        }
    }

    fn lookup(&self, n: &str) -> Option<VarInfo> {
        self.scopes.iter().rev().find_map(|s| s.get(n).copied())
    }

    fn bind(&mut self, n: &str, ty: PrimType, mutable: bool) -> Result<(), TypeError> {
        self.ident(n)?;
        if self.lookup(n).is_some() || self.prog.array(n).is_some() {
            return self.err(format!("`{n}` is bound twice (the IR has no shadowing)"));
        }
        if let Some(scope) = self.scopes.last_mut() {
            scope.insert(n.to_string(), VarInfo { ty, mutable });
        }
        Ok(())
    }

    fn size(&self, s: &Size) -> Result<(), TypeError> {
        match s {
            // A negative extent is an invalid size (a slice that ends before it starts) whose
            // check fails at run time before anything of that size is made, as with a size
            // parameter that holds one.
            Size::Const(_) => Ok(()),
            Size::Param(p) if self.prog.sizes.contains(p) => Ok(()),
            Size::Param(p) => self.err(format!("unknown size parameter `{p}`")),
        }
    }

    fn array(&self, n: &str) -> Result<&'a ArrayDecl, TypeError> {
        match self.prog.array(n) {
            Some(a) => Ok(a),
            None => self.err(format!("unknown array `{n}`")),
        }
    }

    fn exp(&self, e: &Exp) -> Result<PrimType, TypeError> {
        match e {
            Exp::Const(v) => Ok(v.ty()),
            Exp::Var(v) => match self.lookup(v) {
                Some(info) => Ok(info.ty),
                None => self.err(format!("unbound variable `{v}`")),
            },
            Exp::Bin(op, a, b) => {
                let (ta, tb) = (self.exp(a)?, self.exp(b)?);
                if ta != tb {
                    return self.err(format!("`{}` applied to {ta} and {tb} in `{e}`", op.name()));
                }
                if !op.accepts(ta) {
                    return self.err(format!("`{}` does not apply to {ta} in `{e}`", op.name()));
                }
                Ok(match op {
                    BinOp::LogAnd | BinOp::LogOr => PrimType::Bool,
                    _ => ta,
                })
            }
            Exp::Cmp(op, a, b) => {
                let (ta, tb) = (self.exp(a)?, self.exp(b)?);
                if ta != tb {
                    return self.err(format!("`{}` compares {ta} with {tb} in `{e}`", op.name()));
                }
                Ok(PrimType::Bool)
            }
            Exp::Un(op, a) => {
                let t = self.exp(a)?;
                if !op.accepts(t) {
                    return self.err(format!("`{}` does not apply to {t}", op.name()));
                }
                Ok(t)
            }
            Exp::Conv(to, a) => {
                self.exp(a)?;
                Ok(*to)
            }
            Exp::Math(f, args) => {
                let mut ts = Vec::new();
                for a in args {
                    ts.push(self.exp(a)?);
                }
                match f.result_type(&ts) {
                    Ok(t) => Ok(t),
                    Err(m) => self.err(m),
                }
            }
            Exp::Select(c, t, f) => {
                if self.exp(c)? != PrimType::Bool {
                    return self.err(format!("condition of `{e}` is not bool"));
                }
                let (tt, tf) = (self.exp(t)?, self.exp(f)?);
                if tt != tf {
                    return self.err(format!("branches of `{e}` have types {tt} and {tf}"));
                }
                Ok(tt)
            }
            Exp::Read(a, i) => {
                if self.in_operator {
                    return self.err(format!("operators may not read arrays (`{e}`)"));
                }
                let arr = self.array(a)?;
                self.expect(i, PrimType::I64, "array index")?;
                Ok(arr.elem)
            }
        }
    }

    fn expect(&self, e: &Exp, ty: PrimType, what: &str) -> Result<(), TypeError> {
        let t = self.exp(e)?;
        if t != ty {
            return self.err(format!("{what} `{e}` has type {t}, expected {ty}"));
        }
        Ok(())
    }

    fn stms(&mut self, stms: &[Stm]) -> Result<(), TypeError> {
        for s in stms {
            match s {
                Stm::Let { name, ty, exp }
                | Stm::Mut {
                    name,
                    ty,
                    init: exp,
                } => {
                    self.expect(exp, *ty, &format!("definition of `{name}`"))?;
                    self.bind(name, *ty, matches!(s, Stm::Mut { .. }))?;
                }
                Stm::Assign { name, exp } => match self.lookup(name) {
                    Some(VarInfo { ty, mutable: true }) => {
                        self.expect(exp, ty, &format!("assignment to `{name}`"))?
                    }
                    Some(_) => return self.err(format!("`{name}` is not mutable")),
                    None => return self.err(format!("assignment to unbound `{name}`")),
                },
                Stm::For { var, bound, body } => {
                    self.expect(bound, PrimType::I64, "loop bound")?;
                    self.scopes.push(HashMap::new());
                    self.bind(var, PrimType::I64, false)?;
                    self.stms(body)?;
                    self.scopes.pop();
                }
                Stm::If {
                    cond,
                    then_branch,
                    else_branch,
                } => {
                    self.expect(cond, PrimType::Bool, "condition")?;
                    for branch in [then_branch, else_branch] {
                        self.scopes.push(HashMap::new());
                        self.stms(branch)?;
                        self.scopes.pop();
                    }
                }
                Stm::Write {
                    array,
                    index,
                    value,
                } => {
                    if self.in_operator {
                        return self.err(format!("operators may not write arrays (`{array}`)"));
                    }
                    let arr = self.array(array)?;
                    self.expect(index, PrimType::I64, "write index")?;
                    self.expect(value, arr.elem, &format!("value written to `{array}`"))?;
                }
                Stm::Check(c) => {
                    self.expect(&c.cond, PrimType::Bool, "check condition")?;
                    let holes = crate::soacs::message::holes(&c.msg);
                    if holes != c.args.len() {
                        return self.err(format!(
                            "check message {:?} has {holes} holes for {} arguments",
                            c.msg,
                            c.args.len()
                        ));
                    }
                    for a in &c.args {
                        self.exp(a)?;
                    }
                }
            }
        }
        Ok(())
    }

    /// Checks a body in a fresh scope and returns its result types.
    fn body(&mut self, body: &Body) -> Result<Vec<PrimType>, TypeError> {
        self.scopes.push(HashMap::new());
        let res = self.stms(&body.stms).and_then(|_| {
            body.results
                .iter()
                .map(|r| self.exp(r))
                .collect::<Result<Vec<_>, _>>()
        });
        self.scopes.pop();
        res
    }

    fn lambda(&mut self, lam: &Lambda, operand: &[PrimType]) -> Result<(), TypeError> {
        let k = operand.len();
        if lam.params.len() != 2 * k {
            return self.err(format!(
                "operator takes {} parameters, expected {} for a {k}-tuple",
                lam.params.len(),
                2 * k
            ));
        }
        let saved = std::mem::replace(&mut self.scopes, vec![HashMap::new()]);
        self.in_operator = true;
        let res = (|| {
            for (i, (n, t)) in lam.params.iter().enumerate() {
                if *t != operand[i % k] {
                    return self.err(format!("operator parameter `{n}` has type {t}"));
                }
                self.bind(n, *t, false)?;
            }
            let results = self.body(&lam.body)?;
            if results != operand {
                return self.err(format!(
                    "operator returns {}, expected {}",
                    types(&results),
                    types(operand)
                ));
            }
            Ok(())
        })();
        self.in_operator = false;
        self.scopes = saved;
        res
    }

    fn outputs(&self, names: &[Name], elems: &[PrimType], shape: &[Size]) -> Result<(), TypeError> {
        if names.len() != elems.len() {
            return self.err(format!(
                "{} result arrays for {} results",
                names.len(),
                elems.len()
            ));
        }
        for (n, t) in names.iter().zip(elems) {
            let a = self.array(n)?;
            if a.elem != *t {
                return self.err(format!(
                    "result array `{n}` holds {}, result is {t}",
                    a.elem
                ));
            }
            if a.shape != shape {
                let want: String = shape.iter().map(|s| format!("[{s}]")).collect();
                let got: String = a.shape.iter().map(|s| format!("[{s}]")).collect();
                return self.err(format!(
                    "result array `{n}` has shape {got}, expected {want}"
                ));
            }
        }
        Ok(())
    }

    fn space(&mut self, space: &SegSpace) -> Result<Vec<Size>, TypeError> {
        if space.dims.is_empty() {
            return self.err("segment space has no dimensions".into());
        }
        self.bind(&space.flat, PrimType::I64, false)?;
        for (n, s) in &space.dims {
            self.size(s)?;
            if *n != space.flat {
                self.bind(n, PrimType::I64, false)?;
            } else if space.dims.len() != 1 {
                return self.err("only a one-dimensional space may name its index `flat`".into());
            }
        }
        Ok(space.dims.iter().map(|d| d.1.clone()).collect())
    }

    fn neutral(&self, ne: &[PrimValue]) -> Result<Vec<PrimType>, TypeError> {
        if ne.is_empty() {
            return self.err("operator has no neutral element".into());
        }
        Ok(ne.iter().map(|v| v.ty()).collect())
    }

    fn check_kernel(&mut self, k: &Kernel) -> Result<(), TypeError> {
        self.scopes.push(HashMap::new());
        let res = self.check_op(&k.op);
        self.scopes.pop();
        res
    }

    fn check_op(&mut self, op: &SegOp) -> Result<(), TypeError> {
        let shape = self.space(op.space())?;
        let results = self.body(op.body())?;
        match op {
            SegOp::Map(m) => self.outputs(&m.outputs, &results, &shape),
            SegOp::Red(r) => {
                let ts = self.neutral(&r.neutral)?;
                self.same(&results, &ts)?;
                self.lambda(&r.op, &ts)?;
                self.outputs(&r.outputs, &ts, &shape[..shape.len() - 1])
            }
            SegOp::Scan(s) => {
                let ts = self.neutral(&s.neutral)?;
                self.same(&results, &ts)?;
                self.lambda(&s.op, &ts)?;
                self.outputs(&s.outputs, &ts, &shape)
            }
            SegOp::Hist(h) => {
                if shape.len() != 1 {
                    return self.err("segmented histograms are not supported yet".into());
                }
                self.size(&h.num_buckets)?;
                let ts = self.neutral(&h.neutral)?;
                if results.first() != Some(&PrimType::I64) {
                    return self.err("a histogram body's first result is its i64 bucket".into());
                }
                self.same(&results[1..], &ts)?;
                self.lambda(&h.op, &ts)?;
                self.outputs(&h.dests, &ts, std::slice::from_ref(&h.num_buckets))
            }
            SegOp::Scatter(s) => {
                if shape.len() != 1 {
                    return self.err("segmented scatter is not supported yet".into());
                }
                if results.len() != 2 * s.dests.len() || s.dests.is_empty() {
                    return self.err(format!(
                        "scatter into {} arrays needs {} results, body gives {}",
                        s.dests.len(),
                        2 * s.dests.len(),
                        results.len()
                    ));
                }
                for (i, d) in s.dests.iter().enumerate() {
                    let a = self.array(d)?;
                    if results[2 * i] != PrimType::I64 {
                        return self.err(format!("scatter index for `{d}` is not i64"));
                    }
                    if results[2 * i + 1] != a.elem {
                        return self.err(format!(
                            "scatter value for `{d}` is {}, array holds {}",
                            results[2 * i + 1],
                            a.elem
                        ));
                    }
                }
                Ok(())
            }
        }
    }

    fn same(&self, got: &[PrimType], want: &[PrimType]) -> Result<(), TypeError> {
        if got != want {
            return self.err(format!(
                "body returns {}, neutral element has type {}",
                types(got),
                types(want)
            ));
        }
        Ok(())
    }
}

fn types(ts: &[PrimType]) -> String {
    let v: Vec<&str> = ts.iter().map(|t| t.name()).collect();
    format!("({})", v.join(", "))
}
