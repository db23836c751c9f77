//! Translating SOAC IR bodies into kernel-IR statements: what one thread of a kernel runs.
//!
//! Inside a kernel a SOAC IR variable is either a scalar (a kernel expression) or an
//! array *view*: a device array with some leading indices fixed (a row of a row …), an
//! `iota` (element `j` is `start + j*stride`) or a replicated scalar. Indexing a view down
//! to a scalar reads the device array at the row-major flat index. Host variables used in
//! the body become kernel inputs on first use: `i64` scalars as size parameters, other
//! scalars as one-element arrays, arrays as arrays. Sequential constructs — branches,
//! `for` loops and reductions over views — become kernel `If`, `For` and mutable
//! accumulators; anything producing an array inside a thread is not supported.

use std::collections::HashMap;

use futhark_ir::soacs::{
    Body, DimIndex, Exp, KernelArg, Lambda, LoopForm, Name, Soac, Stm, SubExp, Type,
};
use futhark_ir::types::{PrimType, PrimValue};
use futhark_ir::{ArrayDecl, Exp as KExp, Size, Stm as KStm};

use super::scalar;

/// How a kernel can read an array.
#[derive(Clone, Debug)]
pub enum View {
    /// `decl[prefix…]` of a device array whose full (row-major) shape is `dims`, seen with
    /// its dimensions permuted: logical dimension `i` is stored dimension `perm[i]`.
    Global {
        decl: Name,
        dims: Vec<Size>,
        perm: Vec<usize>,
        prefix: Vec<KExp>,
        elem: PrimType,
    },
    /// `start + j * stride` for index `j` (a one-dimensional `iota`).
    Iota {
        start: KExp,
        stride: KExp,
        ty: PrimType,
    },
    /// The same scalar at every index.
    Replicate { value: KExp, elem: PrimType },
}

impl View {
    /// The view with one more leading index, and, if that reaches a scalar, the read.
    pub fn index(&self, i: KExp, flat: Option<&(Vec<KExp>, KExp)>) -> KVal {
        match self {
            View::Global {
                decl,
                dims,
                perm,
                prefix,
                elem,
            } => {
                let mut prefix = prefix.clone();
                prefix.push(i);
                if prefix.len() < dims.len() {
                    return KVal::Array(View::Global {
                        decl: decl.clone(),
                        dims: dims.clone(),
                        perm: perm.clone(),
                        prefix,
                        elem: *elem,
                    });
                }
                let identity = perm.iter().enumerate().all(|(a, b)| a == *b);
                // The space's own flat index when reading the whole space in order.
                if let Some((idx, f)) = flat
                    && *idx == prefix
                    && identity
                {
                    return KVal::Scalar(KExp::read(decl, f.clone()), *elem);
                }
                // Stored index `perm[i]` is logical index `i`.
                let mut stored = prefix.clone();
                for (i, p) in perm.iter().enumerate() {
                    if let (Some(slot), Some(e)) = (stored.get_mut(*p), prefix.get(i)) {
                        *slot = e.clone();
                    }
                }
                let mut acc: Option<KExp> = None;
                for (e, d) in stored.into_iter().zip(dims) {
                    acc = Some(match acc {
                        None => e,
                        Some(a) => a.times(d.to_exp()).plus(e),
                    });
                }
                KVal::Scalar(KExp::read(decl, acc.unwrap_or(KExp::i64(0))), *elem)
            }
            View::Iota { start, stride, ty } => {
                let j = if *ty == PrimType::I64 {
                    i
                } else {
                    KExp::conv(*ty, i)
                };
                let one = KExp::Const(PrimValue::from_f64(*ty, 1.0));
                let zero = KExp::Const(PrimValue::from_f64(*ty, 0.0));
                let scaled = if *stride == one {
                    j
                } else {
                    j.times(stride.clone())
                };
                let e = if *start == zero {
                    scaled
                } else {
                    start.clone().plus(scaled)
                };
                KVal::Scalar(e, *ty)
            }
            View::Replicate { value, elem } => KVal::Scalar(value.clone(), *elem),
        }
    }
}

/// What a SOAC IR variable is inside a kernel.
#[derive(Clone, Debug)]
pub enum KVal {
    Scalar(KExp, PrimType),
    Array(View),
}

/// The inputs a kernel needs from the host, collected while translating its body.
#[derive(Default)]
pub struct Inputs {
    /// Size parameters: kernel name and host value.
    pub sizes: Vec<(Name, SubExp)>,
    /// Arrays: declaration and how the host passes it.
    pub arrays: Vec<(ArrayDecl, KernelArg)>,
}

impl Inputs {
    /// The kernel size for a host dimension (a constant, or a size parameter).
    pub fn size(&mut self, d: &SubExp) -> Size {
        match d {
            SubExp::Const(c) => Size::Const(c_i64(*c)),
            SubExp::Var(v) => {
                if !self.sizes.iter().any(|(n, _)| n == v) {
                    self.sizes.push((v.clone(), d.clone()));
                }
                Size::Param(v.clone())
            }
        }
    }

    /// Declares a host array (or scalar, shapeless) as a kernel input.
    pub fn array(&mut self, name: &str, ty: &Type) -> ArrayDecl {
        if let Some((d, _)) = self.arrays.iter().find(|(d, _)| d.name == name) {
            return d.clone();
        }
        let shape = ty.shape().iter().map(|d| self.size(d)).collect();
        let decl = ArrayDecl {
            name: name.to_string(),
            elem: ty.elem(),
            shape,
        };
        self.arrays
            .push((decl.clone(), KernelArg::In(SubExp::Var(name.to_string()))));
        decl
    }
}

fn c_i64(c: PrimValue) -> i64 {
    match c {
        PrimValue::I64(x) => x,
        _ => 0,
    }
}

/// Translates bodies for one kernel.
pub struct Translator<'a> {
    pub host_types: &'a HashMap<Name, Type>,
    /// Host definitions that can be read as views instead of arrays (`iota`, `replicate`).
    pub host_defs: &'a HashMap<Name, Exp>,
    pub env: HashMap<Name, KVal>,
    pub inputs: Inputs,
    /// The space's indices and flat index, for recognising identity reads.
    pub flat: Option<(Vec<KExp>, KExp)>,
}

pub type TResult<T> = Result<T, String>;

impl Translator<'_> {
    /// The kernel value of an atom (declaring host inputs on first use).
    pub fn val(&mut self, s: &SubExp) -> TResult<KVal> {
        match s {
            SubExp::Const(c) => Ok(KVal::Scalar(KExp::Const(*c), c.ty())),
            SubExp::Var(v) => {
                if let Some(k) = self.env.get(v) {
                    return Ok(k.clone());
                }
                let k = self.host_value(v)?;
                self.env.insert(v.clone(), k.clone());
                Ok(k)
            }
        }
    }

    fn host_value(&mut self, v: &str) -> TResult<KVal> {
        if let Some(view) = self.host_view(v)? {
            return Ok(KVal::Array(view));
        }
        let ty = self
            .host_types
            .get(v)
            .cloned()
            .ok_or_else(|| format!("unknown variable `{v}`"))?;
        match &ty {
            Type::Prim(PrimType::I64) => {
                self.inputs.size(&SubExp::var(v));
                Ok(KVal::Scalar(KExp::var(v), PrimType::I64))
            }
            Type::Prim(t) => {
                self.inputs.array(v, &ty);
                Ok(KVal::Scalar(KExp::read(v, KExp::i64(0)), *t))
            }
            Type::Array(..) => {
                let decl = self.inputs.array(v, &ty);
                Ok(KVal::Array(View::Global {
                    decl: decl.name,
                    perm: (0..decl.shape.len()).collect(),
                    dims: decl.shape,
                    prefix: Vec::new(),
                    elem: decl.elem,
                }))
            }
        }
    }

    /// A host array defined by an `iota` or a scalar `replicate`, as a view.
    fn host_view(&mut self, v: &str) -> TResult<Option<View>> {
        Ok(match self.host_defs.get(v) {
            Some(Exp::Iota {
                start, stride, ty, ..
            }) => {
                let (start, stride, ty) = (start.clone(), stride.clone(), *ty);
                Some(View::Iota {
                    start: self.scalar(&start)?,
                    stride: self.scalar(&stride)?,
                    ty,
                })
            }
            Some(Exp::Replicate { shape, value }) if shape.len() == 1 => {
                let value = value.clone();
                match self.val(&value)? {
                    KVal::Scalar(e, t) => Some(View::Replicate { value: e, elem: t }),
                    KVal::Array(_) => None,
                }
            }
            Some(Exp::Rearrange { perm, arr }) => {
                let (perm, arr) = (perm.clone(), arr.clone());
                let v = self.view(&arr)?;
                rearranged(v, &perm)
            }
            Some(Exp::Reshape { shape, arr }) => {
                let (shape, arr) = (shape.clone(), arr.clone());
                let v = self.view(&arr)?;
                let dims = shape.iter().map(|d| self.inputs.size(d)).collect();
                reshaped(v, dims)
            }
            _ => None,
        })
    }

    pub fn scalar(&mut self, s: &SubExp) -> TResult<KExp> {
        match self.val(s)? {
            KVal::Scalar(e, _) => Ok(e),
            KVal::Array(_) => Err(format!("`{s}` is an array where a scalar is needed")),
        }
    }

    fn scalar_typed(&mut self, s: &SubExp) -> TResult<(KExp, PrimType)> {
        match self.val(s)? {
            KVal::Scalar(e, t) => Ok((e, t)),
            KVal::Array(_) => Err(format!("`{s}` is an array where a scalar is needed")),
        }
    }

    pub fn view(&mut self, name: &str) -> TResult<View> {
        match self.val(&SubExp::var(name))? {
            KVal::Array(v) => Ok(v),
            KVal::Scalar(..) => Err(format!("`{name}` is a scalar where an array is needed")),
        }
    }

    /// Binds lambda parameters to the rows at index `i` of the given views.
    pub fn bind_rows(&mut self, params: &[futhark_ir::soacs::Param], views: &[View], i: &KExp) {
        for (p, v) in params.iter().zip(views) {
            let row = v.index(i.clone(), self.flat.as_ref());
            self.env.insert(p.name.clone(), row);
        }
    }

    /// Translates a body; returns its results.
    pub fn body(&mut self, b: &Body, out: &mut Vec<KStm>) -> TResult<Vec<KVal>> {
        for s in &b.stms {
            self.stm(s, out)?;
        }
        b.result.iter().map(|r| self.val(r)).collect()
    }

    /// Translates a body whose results must be scalars.
    pub fn scalar_body(&mut self, b: &Body, out: &mut Vec<KStm>) -> TResult<Vec<KExp>> {
        self.body(b, out)?
            .into_iter()
            .map(|v| match v {
                KVal::Scalar(e, _) => Ok(e),
                KVal::Array(_) => Err("an array result inside a kernel thread".to_string()),
            })
            .collect()
    }

    fn let_(&mut self, out: &mut Vec<KStm>, name: &str, t: PrimType, e: KExp) {
        out.push(KStm::let_(name, t, e));
        self.env
            .insert(name.to_string(), KVal::Scalar(KExp::var(name), t));
    }

    pub fn stm(&mut self, s: &Stm, out: &mut Vec<KStm>) -> TResult<()> {
        let elems = &s.pat.elems;
        let one = || {
            elems
                .first()
                .ok_or_else(|| "a statement without results".to_string())
        };
        match &s.exp {
            Exp::SubExp(x) => {
                let p = one()?;
                match self.val(x)? {
                    KVal::Scalar(e, t) => self.let_(out, &p.name, t, e),
                    v @ KVal::Array(_) => {
                        self.env.insert(p.name.clone(), v);
                    }
                }
            }
            Exp::BinOp(op, a, b) => {
                let (x, t) = self.scalar_typed(a)?;
                let y = self.scalar(b)?;
                let e = scalar::binop(*op, x, y, t)?;
                self.let_(out, &one()?.name, t, e);
            }
            Exp::CmpOp(op, a, b) => {
                let (x, t) = self.scalar_typed(a)?;
                let y = self.scalar(b)?;
                self.let_(
                    out,
                    &one()?.name,
                    PrimType::Bool,
                    scalar::cmpop(*op, x, y, t),
                );
            }
            Exp::UnOp(op, a) => {
                let (x, t) = self.scalar_typed(a)?;
                let e = scalar::unop(*op, x, t)?;
                self.let_(out, &one()?.name, one()?.ty.elem(), e);
            }
            Exp::Conv(op, a) => {
                let (x, t) = self.scalar_typed(a)?;
                let e = scalar::conv(*op, x, t)?;
                self.let_(out, &one()?.name, op.target(), e);
            }
            Exp::Math(f, args) => {
                let mut xs = Vec::new();
                let mut t = PrimType::F32;
                for (i, a) in args.iter().enumerate() {
                    let (x, ta) = self.scalar_typed(a)?;
                    if i == 0 {
                        t = ta;
                    }
                    xs.push(x);
                }
                let e = scalar::math(*f, xs, t)?;
                self.let_(out, &one()?.name, one()?.ty.elem(), e);
            }
            Exp::Index(arr, idx) => {
                let mut v = KVal::Array(self.view(arr)?);
                for i in idx {
                    let DimIndex::Fix(x) = i else {
                        return Err("slicing inside a kernel".into());
                    };
                    let x = self.scalar(x)?;
                    v = match v {
                        KVal::Array(view) => view.index(x, None),
                        KVal::Scalar(..) => return Err("too many indices".into()),
                    };
                }
                let p = one()?;
                match v {
                    KVal::Scalar(e, t) => self.let_(out, &p.name, t, e),
                    a => {
                        self.env.insert(p.name.clone(), a);
                    }
                }
            }
            Exp::Iota {
                start, stride, ty, ..
            } => {
                let view = View::Iota {
                    start: self.scalar(start)?,
                    stride: self.scalar(stride)?,
                    ty: *ty,
                };
                self.env.insert(one()?.name.clone(), KVal::Array(view));
            }
            Exp::Replicate { shape, value } if shape.len() == 1 => {
                let (value, elem) = self.scalar_typed(value)?;
                self.env.insert(
                    one()?.name.clone(),
                    KVal::Array(View::Replicate { value, elem }),
                );
            }
            Exp::Copy(a) => {
                let v = self.val(&SubExp::var(a))?;
                self.env.insert(one()?.name.clone(), v);
            }
            Exp::Rearrange { perm, arr } => {
                let v = rearranged(self.view(arr)?, perm)
                    .ok_or("transposing a row inside a kernel thread")?;
                self.env.insert(one()?.name.clone(), KVal::Array(v));
            }
            Exp::Reshape { shape, arr } => {
                let mut dims = Vec::new();
                for d in shape {
                    if d.as_var().is_some_and(|v| self.env.contains_key(v)) {
                        return Err("reshaping to a size computed inside a kernel thread".into());
                    }
                    dims.push(self.inputs.size(d));
                }
                let v = reshaped(self.view(arr)?, dims)
                    .ok_or("reshaping a row inside a kernel thread")?;
                self.env.insert(one()?.name.clone(), KVal::Array(v));
            }
            Exp::Assert { .. } => {}
            Exp::If {
                cond,
                then_body,
                else_body,
                ..
            } => {
                let c = self.scalar(cond)?;
                let mut muts = Vec::new();
                for p in elems {
                    let Type::Prim(t) = p.ty else {
                        return Err("a branch returning an array inside a kernel thread".into());
                    };
                    out.push(KStm::Mut {
                        name: p.name.clone(),
                        ty: t,
                        init: KExp::Const(PrimValue::from_f64(t, 0.0)),
                    });
                    muts.push((p.name.clone(), t));
                }
                let mut branches = Vec::new();
                for body in [then_body, else_body] {
                    let mut stms = Vec::new();
                    let rs = self.scalar_body(body, &mut stms)?;
                    for ((n, _), r) in muts.iter().zip(rs) {
                        stms.push(KStm::Assign {
                            name: n.clone(),
                            exp: r,
                        });
                    }
                    branches.push(stms);
                }
                let else_branch = branches.pop().unwrap_or_default();
                let then_branch = branches.pop().unwrap_or_default();
                out.push(KStm::If {
                    cond: c,
                    then_branch,
                    else_branch,
                });
                for (n, t) in muts {
                    self.env.insert(n.clone(), KVal::Scalar(KExp::var(&n), t));
                }
            }
            Exp::Loop { params, form, body } => self.loop_(s, params, form, body, out)?,
            Exp::Soac(Soac::Reduce {
                w,
                op,
                nes,
                map,
                arrs,
                ..
            }) => self.seq_reduce(s, w, op, nes, map, arrs, out)?,
            Exp::Soac(soac) => {
                return Err(format!("a {} inside a kernel thread", soac.kind_name()));
            }
            Exp::Apply { func, .. } => {
                return Err(format!(
                    "calling `{func}` (a recursive function) inside a kernel"
                ));
            }
            Exp::ArrayLit(..)
            | Exp::Update(..)
            | Exp::Replicate { .. }
            | Exp::Concat { .. }
            | Exp::Launch(_) => {
                return Err(format!("`{}` inside a kernel thread", short(&s.exp)));
            }
        }
        Ok(())
    }

    fn loop_(
        &mut self,
        s: &Stm,
        params: &[(futhark_ir::soacs::Param, SubExp)],
        form: &LoopForm,
        body: &Body,
        out: &mut Vec<KStm>,
    ) -> TResult<()> {
        let mut muts = Vec::new();
        for (p, init) in params {
            let Type::Prim(t) = p.ty else {
                return Err("a loop over arrays inside a kernel thread".into());
            };
            let init = self.scalar(init)?;
            out.push(KStm::Mut {
                name: p.name.clone(),
                ty: t,
                init,
            });
            self.env
                .insert(p.name.clone(), KVal::Scalar(KExp::var(&p.name), t));
            muts.push((p.name.clone(), t));
        }
        let mut stms = Vec::new();
        // A while loop runs as a `for` over an upper bound on its iterations, each
        // iteration guarded by the condition.
        let (counter, bound, guard) = match form {
            LoopForm::For { var, bound } => {
                let (bound, bt) = self.scalar_typed(bound)?;
                let counter = format!("{var}_k");
                if bt == PrimType::I64 {
                    self.env.insert(
                        var.clone(),
                        KVal::Scalar(KExp::var(&counter), PrimType::I64),
                    );
                } else {
                    self.let_(&mut stms, var, bt, KExp::conv(bt, KExp::var(&counter)));
                }
                let bound = if bt == PrimType::I64 {
                    bound
                } else {
                    KExp::conv(PrimType::I64, bound)
                };
                (counter, bound, None)
            }
            LoopForm::While { cond } => {
                let bound = self.while_bound(params, cond, body)?;
                (format!("{cond}_k"), bound, Some(KExp::var(cond)))
            }
        };
        let rs = self.scalar_body(body, &mut stms)?;
        let temps: Vec<String> = muts.iter().map(|(n, _)| format!("{n}_next")).collect();
        for ((tmp, (_, t)), r) in temps.iter().zip(&muts).zip(rs) {
            stms.push(KStm::let_(tmp, *t, r));
        }
        for (tmp, (n, _)) in temps.iter().zip(&muts) {
            stms.push(KStm::Assign {
                name: n.clone(),
                exp: KExp::var(tmp),
            });
        }
        let stms = match guard {
            Some(cond) => vec![KStm::If {
                cond,
                then_branch: stms,
                else_branch: Vec::new(),
            }],
            None => stms,
        };
        out.push(KStm::For {
            var: counter,
            bound,
            body: stms,
        });
        for (p, (n, t)) in s.pat.elems.iter().zip(muts) {
            self.env
                .insert(p.name.clone(), KVal::Scalar(KExp::var(&n), t));
        }
        Ok(())
    }

    /// An upper bound on the iterations of `while cond`, from a conjunct `i' < n` of the
    /// condition where `i' = i + 1` is the next value of a parameter `i` and `n` is fixed:
    /// at most `n - i0 + 1` iterations for an initial `i0`.
    fn while_bound(
        &mut self,
        params: &[(futhark_ir::soacs::Param, SubExp)],
        cond: &Name,
        body: &Body,
    ) -> TResult<KExp> {
        let none = || "a while loop inside a kernel whose iterations no counter bounds".to_string();
        let defs: HashMap<&Name, &Exp> = body
            .stms
            .iter()
            .filter_map(|s| match s.pat.elems.as_slice() {
                [p] => Some((&p.name, &s.exp)),
                _ => None,
            })
            .collect();
        let index = |n: &Name| params.iter().position(|(p, _)| &p.name == n);
        let ci = index(cond).ok_or_else(none)?;
        let mut todo: Vec<&Name> = body
            .result
            .get(ci)
            .and_then(|r| r.as_var())
            .into_iter()
            .collect();
        while let Some(v) = todo.pop() {
            match defs.get(v) {
                Some(Exp::BinOp(futhark_ir::soacs::BinOp::LogAnd, a, b)) => {
                    todo.extend(a.as_var());
                    todo.extend(b.as_var());
                }
                Some(Exp::If {
                    cond: c, else_body, ..
                }) if else_body.stms.is_empty()
                    && else_body.result == [SubExp::Const(PrimValue::Bool(false))] =>
                {
                    todo.extend(c.as_var());
                }
                Some(Exp::CmpOp(op, a, b)) => {
                    use futhark_ir::soacs::CmpOp;
                    let inclusive = match op {
                        CmpOp::SLt | CmpOp::ULt => false,
                        CmpOp::SLe | CmpOp::ULe => true,
                        _ => continue,
                    };
                    // `a` is the next value of a parameter counting up by one.
                    let Some(next) = a.as_var() else { continue };
                    let Some(Exp::BinOp(futhark_ir::soacs::BinOp::Add, SubExp::Var(p), one)) =
                        defs.get(next)
                    else {
                        continue;
                    };
                    let Some(pi) = index(p) else { continue };
                    let counts_up = one
                        .as_const()
                        .is_some_and(|c| c == PrimValue::from_f64(c.ty(), 1.0))
                        && body.result.get(pi) == Some(a);
                    let fixed = b
                        .as_var()
                        .is_none_or(|n| !defs.contains_key(n) && index(n).is_none());
                    if !counts_up || !fixed {
                        continue;
                    }
                    let (n, nt) = self.scalar_typed(b)?;
                    let (i0, it) = self.scalar_typed(&params[pi].1)?;
                    let to64 = |e: KExp, t: PrimType| {
                        if t == PrimType::I64 {
                            e
                        } else {
                            KExp::conv(PrimType::I64, e)
                        }
                    };
                    let slack = if inclusive { 2 } else { 1 };
                    let count = KExp::bin(futhark_ir::BinOp::Sub, to64(n, nt), to64(i0, it))
                        .plus(KExp::i64(slack));
                    return Ok(KExp::bin(futhark_ir::BinOp::Max, count, KExp::i64(0)));
                }
                _ => {}
            }
        }
        Err(none())
    }

    /// A redomap inside a thread: a sequential loop with mutable accumulators.
    #[allow(clippy::too_many_arguments)]
    fn seq_reduce(
        &mut self,
        s: &Stm,
        w: &SubExp,
        op: &Lambda,
        nes: &[SubExp],
        map: &Lambda,
        arrs: &[Name],
        out: &mut Vec<KStm>,
    ) -> TResult<()> {
        let views = arrs
            .iter()
            .map(|a| self.view(a))
            .collect::<TResult<Vec<_>>>()?;
        let bound = self.scalar(w)?;
        let k = nes.len();
        let mut accs = Vec::new();
        for (p, ne) in s.pat.elems.iter().zip(nes) {
            let Type::Prim(t) = p.ty else {
                return Err("an array-valued reduction inside a kernel thread".into());
            };
            let init = self.scalar(ne)?;
            let acc = format!("{}_acc", p.name);
            out.push(KStm::Mut {
                name: acc.clone(),
                ty: t,
                init,
            });
            accs.push((acc, t));
        }
        let j = format!("{}_j", s.pat.elems.first().map_or("r", |p| p.name.as_str()));
        let mut stms = Vec::new();
        self.bind_rows(&map.params, &views, &KExp::var(&j));
        let vals = self.scalar_body(&map.body, &mut stms)?;
        for ((p, (acc, t)), _) in op.params[..k].iter().zip(&accs).zip(0..) {
            self.env
                .insert(p.name.clone(), KVal::Scalar(KExp::var(acc), *t));
        }
        for (i, (p, v)) in op.params[k..].iter().zip(vals).enumerate() {
            let t = accs[i].1;
            self.let_(&mut stms, &p.name, t, v);
        }
        let rs = self.scalar_body(&op.body, &mut stms)?;
        for ((acc, _), r) in accs.iter().zip(rs) {
            stms.push(KStm::Assign {
                name: acc.clone(),
                exp: r,
            });
        }
        out.push(KStm::For {
            var: j,
            bound,
            body: stms,
        });
        for (p, (acc, t)) in s.pat.elems.iter().zip(accs) {
            self.env
                .insert(p.name.clone(), KVal::Scalar(KExp::var(&acc), t));
        }
        Ok(())
    }

    /// An operator lambda as a closed kernel lambda (no free variables allowed).
    pub fn operator(&mut self, op: &Lambda) -> TResult<futhark_ir::Lambda> {
        let saved = std::mem::take(&mut self.env);
        let saved_inputs = self.inputs.arrays.len() + self.inputs.sizes.len();
        let mut params = Vec::new();
        for p in &op.params {
            let Type::Prim(t) = p.ty else {
                return Err("an operator on arrays".into());
            };
            self.env
                .insert(p.name.clone(), KVal::Scalar(KExp::var(&p.name), t));
            params.push((p.name.clone(), t));
        }
        let mut stms = Vec::new();
        let r = self.scalar_body(&op.body, &mut stms);
        self.env = saved;
        let results = r?;
        if self.inputs.arrays.len() + self.inputs.sizes.len() != saved_inputs {
            return Err("an operator that uses variables from outside it".into());
        }
        Ok(futhark_ir::Lambda {
            params,
            body: futhark_ir::Body::new(stms, results),
        })
    }
}

/// A device array (or row of one) seen with its remaining dimensions permuted (`None`
/// for other views).
fn rearranged(v: View, p: &[usize]) -> Option<View> {
    match v {
        View::Global {
            decl,
            dims,
            perm,
            prefix,
            elem,
        } => {
            // The permutation of the remaining dimensions, extended over the fixed ones.
            let k = prefix.len();
            let full: Vec<usize> = (0..k).chain(p.iter().map(|x| x + k)).collect();
            Some(View::Global {
                decl,
                dims,
                perm: full
                    .iter()
                    .map(|&i| perm.get(i).copied().unwrap_or(i))
                    .collect(),
                prefix,
                elem,
            })
        }
        _ => None,
    }
}

/// A whole row-major device array seen with another shape (`None` for other views).
fn reshaped(v: View, new: Vec<Size>) -> Option<View> {
    match v {
        View::Global {
            decl,
            perm,
            prefix,
            elem,
            ..
        } if prefix.is_empty() && perm.iter().enumerate().all(|(a, b)| a == *b) => {
            Some(View::Global {
                decl,
                perm: (0..new.len()).collect(),
                dims: new,
                prefix,
                elem,
            })
        }
        _ => None,
    }
}

fn short(e: &Exp) -> String {
    let s = e.to_string();
    s.split('(').next().unwrap_or("").to_string()
}
