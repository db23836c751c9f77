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
//!
//! Here: the translator's state and indexing; `view` the view algebra, `stm` one statement,
//! `loops` loops, `seq` the sequential SOACs.

use std::collections::HashMap;

use futhark_ir::soacs::{Body, DimIndex, Exp, KernelArg, Lambda, Name, SubExp, Type};
use futhark_ir::types::{PrimType, PrimValue};
use futhark_ir::{ArrayDecl, Exp as KExp, Size, Stm as KStm};

use super::scalar;

mod loops;
mod seq;
mod stm;
mod view;

pub use view::{KVal, SliceDim, View};
use view::{index_all, rearranged, reshaped};

/// One index of a read or write, evaluated in the kernel.
#[derive(Clone, Debug)]
enum KIdx {
    Fix(KExp),
    Slice { start: KExp, stride: KExp },
}

/// A run-time check of a kernel body, located at the statement it comes from (the host
/// decides later which checks it makes itself: `checks::mark_uniform`).
fn check(cond: KExp, msg: String, args: Vec<KExp>, loc: Option<&std::sync::Arc<str>>) -> KStm {
    KStm::Check(futhark_ir::Check {
        cond,
        msg,
        args,
        loc: loc.map(|l| l.to_string()),
        uniform: false,
    })
}

/// The inputs a kernel needs from the host, collected while translating its body.
#[derive(Default, Clone)]
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
#[derive(Clone)]
pub struct Translator<'a> {
    pub host_types: &'a HashMap<Name, Type>,
    /// Host definitions that can be read as views instead of arrays (`iota`, `replicate`).
    pub host_defs: &'a HashMap<Name, Exp>,
    pub env: HashMap<Name, KVal>,
    pub inputs: Inputs,
    /// The space's indices and flat index, for recognising identity reads.
    pub flat: Option<(Vec<KExp>, KExp)>,
    /// Per-thread arrays (memory expansion): kernel arrays of shape `[threads] ++ local`,
    /// one slice per point of the space, indexed by the point's flat index.
    pub scratch: Vec<ArrayDecl>,
    /// Names bound inside the kernel's lambdas (their sizes are not known at launch).
    pub thread_local: std::collections::HashSet<Name>,
    /// Host bounds of sizes computed inside the threads: per-thread storage is allocated
    /// at the bound (`kernels/size_bounds.rs`).
    pub bounds: HashMap<Name, SubExp>,
    /// A prefix fresh in the program for the names this translator makes.
    pub prefix: Name,
    pub counter: usize,
}

pub type TResult<T> = Result<T, String>;

impl Translator<'_> {
    /// A fresh kernel-local name.
    pub fn fresh(&mut self, base: &str) -> Name {
        self.counter += 1;
        format!("{}_{base}{}", self.prefix, self.counter)
    }

    /// The size parameter holding the number of points of the space (scratch rows).
    pub fn threads_name(&self) -> Name {
        format!("{}_threads", self.prefix)
    }

    /// The variable holding the point's flat index (bound at the start of the body).
    pub fn thread_name(&self) -> Name {
        format!("{}_thread", self.prefix)
    }

    /// A fresh per-thread array of the given (launch-time) shape.
    fn alloc(&mut self, elem: PrimType, shape: Vec<Size>) -> View {
        let name = self.fresh("mem");
        let mut dims = vec![Size::Param(self.threads_name())];
        dims.extend(shape);
        self.scratch.push(ArrayDecl {
            name: name.clone(),
            elem,
            shape: dims.clone(),
        });
        View::Global {
            decl: name,
            perm: (0..dims.len()).collect(),
            dims,
            prefix: vec![KExp::var(&self.thread_name())],
            elem,
        }
    }

    fn is_scratch(&self, v: &View) -> bool {
        matches!(v, View::Global { decl, .. } if self.scratch.iter().any(|d| &d.name == decl))
    }

    /// A dimension as a size known when the kernel launches.
    pub fn launch_size(&mut self, d: &SubExp) -> TResult<Size> {
        match d {
            SubExp::Const(c) => Ok(Size::Const(c_i64(*c))),
            SubExp::Var(v) => match self.env.get(v) {
                None if !self.thread_local.contains(v) => Ok(self.inputs.size(d)),
                Some(KVal::Scalar(KExp::Var(p), PrimType::I64))
                    if self.inputs.sizes.iter().any(|(n, _)| n == p) =>
                {
                    Ok(Size::Param(p.clone()))
                }
                Some(KVal::Scalar(KExp::Const(PrimValue::I64(c)), _)) => Ok(Size::Const(*c)),
                _ => Err("an array whose size is computed inside a kernel thread".into()),
            },
        }
    }

    /// The launch-time shape of per-thread storage for a value of type `ty`: its sizes, or
    /// host bounds of those computed by the thread.
    fn launch_shape(&mut self, ty: &Type) -> TResult<Vec<Size>> {
        ty.shape()
            .iter()
            .map(|d| match self.launch_size(d) {
                Err(e) => match d.as_var().and_then(|v| self.bounds.get(v)).cloned() {
                    Some(b) => Ok(self.inputs.size(&b)),
                    None => Err(e),
                },
                ok => ok,
            })
            .collect()
    }

    /// Fails unless the free dimensions of a view of a device array, but the first, are
    /// stored at their own extents (not at a bound of a size computed by the thread, which
    /// pads the rows), so that the view is a row-major block that can be reshaped.
    fn unpadded(&self, v: &View) -> TResult<()> {
        let View::Global { dims, prefix, .. } = v else {
            return Ok(());
        };
        let bound = |s: &Size| matches!(s, Size::Param(p) if self.bounds.values().any(|b| b.as_var() == Some(p)));
        if dims.iter().skip(prefix.len() + 1).any(bound) {
            return Err("reshaping a row of thread-sized storage inside a kernel thread".into());
        }
        Ok(())
    }

    /// The extents of a type as kernel expressions.
    fn dims(&mut self, ty: &Type) -> TResult<Vec<KExp>> {
        ty.shape().iter().map(|d| self.scalar(d)).collect()
    }

    fn type_of(&self, v: &str) -> TResult<Type> {
        self.host_types
            .get(v)
            .cloned()
            .ok_or_else(|| format!("unknown variable `{v}`"))
    }

    /// Statements storing `src` into the location `dst`, both of extents `shape`; the
    /// first `bcast` dimensions index `dst` only (replication).
    fn store(
        &mut self,
        dst: KVal,
        src: KVal,
        bcast: usize,
        shape: &[KExp],
        out: &mut Vec<KStm>,
    ) -> TResult<()> {
        let Some((n, rest)) = shape.split_first() else {
            let KVal::Scalar(loc, _) = dst else {
                return Err("an array stored where a scalar goes inside a kernel thread".into());
            };
            let KExp::Read(array, index) = loc else {
                return Err("writing to a read-only array inside a kernel thread".into());
            };
            let KVal::Scalar(value, _) = src else {
                return Err("an array stored where a scalar goes inside a kernel thread".into());
            };
            out.push(KStm::Write {
                array,
                index: *index,
                value,
            });
            return Ok(());
        };
        let i = self.fresh("i");
        let mut body = Vec::new();
        let d = index_all(dst, [KExp::var(&i)]);
        let s = if bcast > 0 {
            src
        } else {
            index_all(src, [KExp::var(&i)])
        };
        self.store(d, s, bcast.saturating_sub(1), rest, &mut body)?;
        out.push(KStm::For {
            var: i,
            bound: n.clone(),
            body,
        });
        Ok(())
    }

    /// Statements storing `src` into the location `dst` (both of extents `shape`).
    pub fn store_into(
        &mut self,
        dst: KVal,
        src: KVal,
        shape: &[KExp],
        out: &mut Vec<KStm>,
    ) -> TResult<()> {
        self.store(dst, src, 0, shape, out)
    }

    /// A copy of `v` (of type `ty`) in a fresh per-thread array.
    fn materialize(&mut self, v: KVal, ty: &Type, out: &mut Vec<KStm>) -> TResult<View> {
        let shape = self.launch_shape(ty)?;
        let dims = self.dims(ty)?;
        let view = self.alloc(ty.elem(), shape);
        self.store(KVal::Array(view.clone()), v, 0, &dims, out)?;
        Ok(view)
    }

    /// `v` indexed by `idx` (fixed indices and strided slices, already evaluated).
    fn index_val(&mut self, v: KVal, idx: Vec<KIdx>) -> TResult<KVal> {
        if idx.iter().all(|i| matches!(i, KIdx::Fix(_))) {
            let mut v = v;
            for i in idx {
                let KIdx::Fix(x) = i else { continue };
                v = match v {
                    KVal::Array(view) => view.index(x, None),
                    KVal::Scalar(..) => return Err("too many indices".into()),
                };
            }
            return Ok(v);
        }
        let KVal::Array(base) = v else {
            return Err("slicing a scalar".into());
        };
        let dims = idx
            .into_iter()
            .map(|i| match i {
                KIdx::Fix(x) => SliceDim::Fix(x),
                KIdx::Slice { start, stride } => SliceDim::Range { start, stride },
            })
            .collect();
        Ok(KVal::Array(View::Slice {
            base: Box::new(base),
            dims,
        }))
    }

    /// The indices `idx` of `arr` evaluated in the kernel, with the bounds check Futhark
    /// makes (a fixed index in `0..n`; a slice of length 0 always valid, else its first and
    /// last elements in `0..n`) emitted before them; also the name of the check's
    /// condition. A thread whose check fails must go on without touching memory outside
    /// the array: a read of a scalar is skipped (`if ok then a[i] else 0`, which keeps the
    /// read recognisable to the code generator), other uses take the indices of element 0
    /// ([`Translator::guarded`]), which every device buffer has (allocations are never
    /// empty).
    fn checked_indices(
        &mut self,
        arr: &str,
        idx: &[DimIndex],
        loc: Option<&std::sync::Arc<str>>,
        out: &mut Vec<KStm>,
    ) -> TResult<(Vec<KIdx>, Option<Name>)> {
        let ty = self.type_of(arr)?;
        let extents = self.dims(&ty)?;
        let mut conds = Vec::new();
        let mut shown = Vec::new();
        let mut args = Vec::new();
        let mut ks = Vec::new();
        for (i, d) in idx.iter().enumerate() {
            let Some(n) = extents.get(i).cloned() else {
                return Err("more indices than dimensions".into());
            };
            match d {
                DimIndex::Fix(x) => {
                    let x = self.scalar(x)?;
                    conds.push(scalar::below(x.clone(), n));
                    shown.push("{}".to_string());
                    args.push(x.clone());
                    ks.push(KIdx::Fix(x));
                }
                DimIndex::Slice { start, len, stride } => {
                    let (start, len, stride) =
                        (self.scalar(start)?, self.scalar(len)?, self.scalar(stride)?);
                    let last = start
                        .clone()
                        .plus(len.clone().plus(KExp::i64(-1)).times(stride.clone()));
                    let inside = KExp::bin(
                        futhark_ir::BinOp::LogAnd,
                        scalar::below(start.clone(), n.clone()),
                        scalar::below(last, n),
                    );
                    let empty = KExp::cmp(futhark_ir::CmpOp::Eq, len.clone(), KExp::i64(0));
                    let nonneg = KExp::cmp(futhark_ir::CmpOp::Ge, len.clone(), KExp::i64(0));
                    conds.push(KExp::bin(
                        futhark_ir::BinOp::LogAnd,
                        nonneg,
                        KExp::bin(futhark_ir::BinOp::LogOr, empty, inside),
                    ));
                    let end = start.clone().plus(len.times(stride.clone()));
                    if stride == KExp::i64(1) {
                        shown.push("{}:{}".into());
                        args.extend([start.clone(), end]);
                    } else {
                        shown.push("{}:{}:{}".into());
                        args.extend([start.clone(), end, stride.clone()]);
                    }
                    ks.push(KIdx::Slice { start, stride });
                }
            }
        }
        let Some(cond) = conds
            .into_iter()
            .reduce(|a, b| KExp::bin(futhark_ir::BinOp::LogAnd, a, b))
        else {
            return Ok((ks, None));
        };
        let ok = self.fresh("ok");
        out.push(KStm::let_(&ok, PrimType::Bool, cond));
        let shape: String = extents.iter().map(|_| "[{}]").collect();
        args.extend(extents);
        out.push(check(
            KExp::var(&ok),
            format!(
                "Index [{}] out of bounds for array of shape {shape}.",
                shown.join(", ")
            ),
            args,
            loc,
        ));
        Ok((ks, Some(ok)))
    }

    /// Indices whose check `ok` failed become those of element 0.
    fn guarded(ks: Vec<KIdx>, ok: Option<&str>) -> Vec<KIdx> {
        let Some(ok) = ok else { return ks };
        let guard =
            |e: KExp| KExp::Select(Box::new(KExp::var(ok)), Box::new(e), Box::new(KExp::i64(0)));
        ks.into_iter()
            .map(|k| match k {
                KIdx::Fix(x) => KIdx::Fix(guard(x)),
                KIdx::Slice { start, stride } => KIdx::Slice {
                    start: guard(start),
                    stride: guard(stride),
                },
            })
            .collect()
    }

    /// The check of a reshape (a size coercion): the same number of elements, worded as
    /// the host executor words a failed coercion.
    fn reshape_check(
        &mut self,
        arr: &str,
        shape: &[SubExp],
        loc: Option<&std::sync::Arc<str>>,
        out: &mut Vec<KStm>,
    ) -> TResult<()> {
        let ty = self.type_of(arr)?;
        let have = self.dims(&ty)?;
        let want = shape
            .iter()
            .map(|d| self.scalar(d))
            .collect::<TResult<Vec<_>>>()?;
        let product = |ds: &[KExp]| {
            ds.iter()
                .cloned()
                .reduce(|a, b| a.times(b))
                .unwrap_or(KExp::i64(1))
        };
        let cond = KExp::cmp(futhark_ir::CmpOp::Eq, product(&have), product(&want));
        if cond == KExp::cmp(futhark_ir::CmpOp::Eq, product(&have), product(&have)) {
            return Ok(());
        }
        let holes = vec!["{}"; have.len()].join(", ");
        let shown: String = want.iter().map(|_| "[{}]").collect();
        let mut args = have;
        args.extend(want);
        out.push(check(
            cond,
            format!(
                "Value of (core language) shape ({holes}) cannot match shape of type \"{shown}{}\".",
                ty.elem()
            ),
            args,
            loc,
        ));
        Ok(())
    }

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
        if self.thread_local.contains(v) {
            return Err(format!(
                "`{v}`, a size computed inside a kernel thread, used where it is unknown"
            ));
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
