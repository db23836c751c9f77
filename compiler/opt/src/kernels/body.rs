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
    /// A slice of `base`: one entry per leading dimension of `base`, fixed or a strided
    /// range; indexing fills the first range.
    Slice {
        base: Box<View>,
        dims: Vec<SliceDim>,
    },
}

/// One dimension of a [`View::Slice`].
#[derive(Clone, Debug)]
pub enum SliceDim {
    Fix(KExp),
    Range { start: KExp, stride: KExp },
}

/// One index of a read or write, evaluated in the kernel.
#[derive(Clone, Debug)]
enum KIdx {
    Fix(KExp),
    Slice { start: KExp, stride: KExp },
}

/// A run-time check of a kernel body, located at the statement it comes from (the host
/// decides later which checks it makes itself: `checks::mark_uniform`).
fn check(cond: KExp, msg: String, args: Vec<KExp>, loc: Option<&std::rc::Rc<str>>) -> KStm {
    KStm::Check(futhark_ir::Check {
        cond,
        msg,
        args,
        loc: loc.map(|l| l.to_string()),
        uniform: false,
    })
}

/// Applies fixed indices one by one.
fn index_all(v: KVal, idx: impl IntoIterator<Item = KExp>) -> KVal {
    let mut v = v;
    for i in idx {
        v = match v {
            KVal::Array(view) => view.index(i, None),
            s => s,
        };
    }
    v
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
            View::Slice { base, dims } => {
                let mut dims = dims.clone();
                match dims
                    .iter()
                    .position(|d| matches!(d, SliceDim::Range { .. }))
                {
                    Some(pos) => {
                        if let SliceDim::Range { start, stride } = &dims[pos] {
                            let one = KExp::i64(1);
                            let zero = KExp::i64(0);
                            let scaled = if *stride == one {
                                i
                            } else {
                                i.times(stride.clone())
                            };
                            let e = if *start == zero {
                                scaled
                            } else {
                                start.clone().plus(scaled)
                            };
                            dims[pos] = SliceDim::Fix(e);
                        }
                    }
                    None => dims.push(SliceDim::Fix(i)),
                }
                if dims.iter().all(|d| matches!(d, SliceDim::Fix(_))) {
                    let fixed = dims.into_iter().filter_map(|d| match d {
                        SliceDim::Fix(e) => Some(e),
                        SliceDim::Range { .. } => None,
                    });
                    index_all(KVal::Array((**base).clone()), fixed)
                } else {
                    KVal::Array(View::Slice {
                        base: base.clone(),
                        dims,
                    })
                }
            }
        }
    }

    /// The kernel array behind a view of a device array.
    pub fn decl(&self) -> Option<&Name> {
        match self {
            View::Global { decl, .. } => Some(decl),
            View::Slice { base, .. } => base.decl(),
            View::Iota { .. } | View::Replicate { .. } => None,
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

    fn launch_shape(&mut self, ty: &Type) -> TResult<Vec<Size>> {
        ty.shape().iter().map(|d| self.launch_size(d)).collect()
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
        loc: Option<&std::rc::Rc<str>>,
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
        loc: Option<&std::rc::Rc<str>>,
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
                if let Some((cond, msg)) = scalar::operand_check(*op, &y, t) {
                    out.push(check(cond, msg.into(), Vec::new(), s.loc.as_ref()));
                }
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
                let v = KVal::Array(self.view(arr)?);
                let (idx, ok) = self.checked_indices(arr, idx, s.loc.as_ref(), out)?;
                let p = one()?;
                let v = match ok {
                    Some(ok) if p.ty.rank() == 0 => match self.index_val(v, idx)? {
                        KVal::Scalar(e, t) => {
                            let zero = KExp::Const(PrimValue::from_f64(t, 0.0));
                            KVal::Scalar(KExp::select(KExp::var(&ok), e, zero), t)
                        }
                        KVal::Array(_) => return Err("a scalar index giving an array".into()),
                    },
                    ok => self.index_val(v, Self::guarded(idx, ok.as_deref()))?,
                };
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
            Exp::Replicate { shape, value } if shape.len() == 1 && one()?.ty.rank() == 1 => {
                let (value, elem) = self.scalar_typed(value)?;
                self.env.insert(
                    one()?.name.clone(),
                    KVal::Array(View::Replicate { value, elem }),
                );
            }
            Exp::Replicate { shape, value } => {
                let p = one()?;
                let v = self.val(value)?;
                let launch = self.launch_shape(&p.ty)?;
                let dims = self.dims(&p.ty)?;
                let view = self.alloc(p.ty.elem(), launch);
                self.store(KVal::Array(view.clone()), v, shape.len(), &dims, out)?;
                self.env.insert(p.name.clone(), KVal::Array(view));
            }
            Exp::ArrayLit(items, _) => {
                let p = one()?;
                let launch = self.launch_shape(&p.ty)?;
                let dims = self.dims(&p.ty)?;
                let view = self.alloc(p.ty.elem(), launch);
                for (k, it) in items.iter().enumerate() {
                    let v = self.val(it)?;
                    let dst = view.index(KExp::i64(k as i64), None);
                    self.store(dst, v, 0, &dims[1..], out)?;
                }
                self.env.insert(p.name.clone(), KVal::Array(view));
            }
            Exp::Concat { arrs, .. } => {
                let p = one()?;
                let launch = self.launch_shape(&p.ty)?;
                let dims = self.dims(&p.ty)?;
                let view = self.alloc(p.ty.elem(), launch);
                let mut offset = KExp::i64(0);
                for a in arrs {
                    let src = self.val(&SubExp::var(a))?;
                    let ty = self.type_of(a)?;
                    let n = self.dims(&ty)?.into_iter().next().unwrap_or(KExp::i64(0));
                    let j = self.fresh("j");
                    let mut body = Vec::new();
                    let dst = view.index(offset.clone().plus(KExp::var(&j)), None);
                    let row = index_all(src, [KExp::var(&j)]);
                    self.store(dst, row, 0, &dims[1..], &mut body)?;
                    out.push(KStm::For {
                        var: j,
                        bound: n.clone(),
                        body,
                    });
                    offset = offset.plus(n);
                }
                self.env.insert(p.name.clone(), KVal::Array(view));
            }
            Exp::Update(arr, idx, v) => {
                let p = one()?;
                let ty = self.type_of(arr)?;
                let mut view = self.view(arr)?;
                if !self.is_scratch(&view) {
                    view = self.materialize(KVal::Array(view), &ty, out)?;
                }
                let src = self.val(v)?;
                let vdims = match v {
                    SubExp::Var(n) => {
                        let t = self.type_of(n)?;
                        self.dims(&t)?
                    }
                    SubExp::Const(_) => Vec::new(),
                };
                let (idx, ok) = self.checked_indices(arr, idx, s.loc.as_ref(), out)?;
                let idx = Self::guarded(idx, ok.as_deref());
                let dst = self.index_val(KVal::Array(view.clone()), idx)?;
                self.store(dst, src, 0, &vdims, out)?;
                self.env.insert(p.name.clone(), KVal::Array(view));
            }
            Exp::Copy(a) => {
                let v = self.val(&SubExp::var(a))?;
                let p = one()?;
                // A per-thread array is copied: the copy may be updated in place.
                let v = match v {
                    KVal::Array(view) if self.is_scratch(&view) => {
                        KVal::Array(self.materialize(KVal::Array(view), &p.ty, out)?)
                    }
                    v => v,
                };
                self.env.insert(p.name.clone(), v);
            }
            Exp::Rearrange { perm, arr } => {
                let v = rearranged(self.view(arr)?, perm)
                    .ok_or("transposing a row inside a kernel thread")?;
                self.env.insert(one()?.name.clone(), KVal::Array(v));
            }
            Exp::Reshape { shape, arr } => {
                let mut dims = Vec::new();
                for d in shape {
                    let d = self.launch_size(d).map_err(|_| {
                        "reshaping to a size computed inside a kernel thread".to_string()
                    })?;
                    dims.push(d);
                }
                self.reshape_check(arr, shape, s.loc.as_ref(), out)?;
                let src = self.view(arr)?;
                let v = match src {
                    // The same value at every index, whatever the shape.
                    View::Replicate { .. } => src,
                    src => match reshaped(src.clone(), dims.clone()) {
                        Some(v) => v,
                        None => {
                            // A view that is not a row-major block (a slice, a transposed
                            // row, an iota) is first copied into per-thread storage.
                            let ty = self.type_of(arr)?;
                            let copy = self.materialize(KVal::Array(src), &ty, out)?;
                            reshaped(copy, dims).ok_or("reshaping a row inside a kernel thread")?
                        }
                    },
                };
                self.env.insert(one()?.name.clone(), KVal::Array(v));
            }
            Exp::Assert { cond, msg, args } => {
                let cond = self.scalar(cond)?;
                let args = args
                    .iter()
                    .map(|a| self.scalar(a))
                    .collect::<TResult<Vec<_>>>()?;
                out.push(check(cond, msg.clone(), args, s.loc.as_ref()));
            }
            Exp::If {
                cond,
                then_body,
                else_body,
                ..
            } => {
                let c = self.scalar(cond)?;
                // Scalars become mutable variables, arrays per-thread arrays.
                let mut slots: Vec<(KVal, Vec<KExp>)> = Vec::new();
                for p in elems {
                    match &p.ty {
                        Type::Prim(t) => {
                            out.push(KStm::Mut {
                                name: p.name.clone(),
                                ty: *t,
                                init: KExp::Const(PrimValue::from_f64(*t, 0.0)),
                            });
                            slots.push((KVal::Scalar(KExp::var(&p.name), *t), Vec::new()));
                        }
                        ty @ Type::Array(..) => {
                            let launch = self.launch_shape(ty)?;
                            let dims = self.dims(ty)?;
                            let view = self.alloc(ty.elem(), launch);
                            slots.push((KVal::Array(view), dims));
                        }
                    }
                }
                let mut branches = Vec::new();
                for body in [then_body, else_body] {
                    let mut stms = Vec::new();
                    let rs = self.body(body, &mut stms)?;
                    for ((slot, dims), r) in slots.iter().zip(rs) {
                        match (slot, r) {
                            (KVal::Scalar(KExp::Var(n), _), KVal::Scalar(e, _)) => {
                                stms.push(KStm::Assign {
                                    name: n.clone(),
                                    exp: e,
                                })
                            }
                            (KVal::Array(_), r @ KVal::Array(_)) => {
                                self.store(slot.clone(), r, 0, dims, &mut stms)?
                            }
                            _ => return Err("a branch of mismatched results in a kernel".into()),
                        }
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
                for (p, (slot, _)) in elems.iter().zip(slots) {
                    self.env.insert(p.name.clone(), slot);
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
            Exp::Soac(Soac::Map { w, lam, arrs }) => self.seq_map(s, w, lam, arrs, out)?,
            Exp::Soac(Soac::Scan {
                w,
                op,
                nes,
                map,
                arrs,
            }) => self.seq_scan(s, w, op, nes, map, arrs, out)?,
            Exp::Soac(Soac::Scatter {
                w,
                dests,
                ranks,
                map,
                arrs,
            }) => self.seq_scatter(s, w, dests, ranks, map, arrs, out)?,
            Exp::Soac(Soac::Hist {
                w,
                dests,
                rank,
                op,
                map,
                arrs,
                ..
            }) => self.seq_hist(s, w, dests, *rank, op, map, arrs, out)?,
            Exp::Apply { func, .. } => {
                return Err(format!(
                    "calling `{func}` (a recursive function) inside a kernel"
                ));
            }
            Exp::Launch(_) => {
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
        // Array parameters live in per-thread arrays of their own.
        let mut arrays: Vec<(usize, View, Vec<KExp>)> = Vec::new();
        for (k, (p, init)) in params.iter().enumerate() {
            let t = match &p.ty {
                Type::Prim(t) => *t,
                ty @ Type::Array(..) => {
                    let v = self.val(init)?;
                    let view = self.materialize(v, ty, out)?;
                    let dims = self.dims(ty)?;
                    self.env.insert(p.name.clone(), KVal::Array(view.clone()));
                    arrays.push((k, view, dims));
                    continue;
                }
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
        let all = self.body(body, &mut stms)?;
        let mut rs = Vec::new();
        let mut array_rs = Vec::new();
        for (k, r) in all.into_iter().enumerate() {
            if arrays.iter().any(|(i, _, _)| *i == k) {
                array_rs.push(r);
            } else {
                match r {
                    KVal::Scalar(e, _) => rs.push(e),
                    KVal::Array(_) => return Err("a loop of mismatched results".into()),
                }
            }
        }
        // Array results go to their parameters' arrays; a result that is another
        // parameter's array goes through a temporary first.
        let param_decls: Vec<Name> = arrays
            .iter()
            .filter_map(|(_, v, _)| v.decl().cloned())
            .collect();
        let mut later = Vec::new();
        for ((_, view, dims), r) in arrays.iter().zip(array_rs) {
            let same = matches!((&r, view), (KVal::Array(a), b) if same_view(a, b));
            if same {
                continue;
            }
            let aliased =
                matches!(&r, KVal::Array(a) if a.decl().is_some_and(|d| param_decls.contains(d)));
            if aliased {
                let launch: Vec<Size> = match view {
                    View::Global { dims: d, .. } => d[1..].to_vec(),
                    _ => return Err("a loop over arrays inside a kernel thread".into()),
                };
                let tmp = self.alloc(view_elem(view), launch);
                self.store(KVal::Array(tmp.clone()), r, 0, dims, &mut stms)?;
                later.push((view.clone(), KVal::Array(tmp), dims.clone()));
            } else {
                self.store(KVal::Array(view.clone()), r, 0, dims, &mut stms)?;
            }
        }
        for (view, tmp, dims) in later {
            self.store(KVal::Array(view), tmp, 0, &dims, &mut stms)?;
        }
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
        let mut muts = muts.into_iter();
        let mut arrays = arrays.into_iter();
        for p in &s.pat.elems {
            let v = match &p.ty {
                Type::Prim(_) => muts.next().map(|(n, t)| KVal::Scalar(KExp::var(&n), t)),
                Type::Array(..) => arrays.next().map(|(_, v, _)| KVal::Array(v)),
            };
            if let Some(v) = v {
                self.env.insert(p.name.clone(), v);
            }
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
        // Scalar accumulators are mutable variables; array ones per-thread arrays.
        let mut accs: Vec<(KVal, Vec<KExp>)> = Vec::new();
        for (p, ne) in s.pat.elems.iter().zip(nes) {
            match &p.ty {
                Type::Prim(t) => {
                    let init = self.scalar(ne)?;
                    let acc = format!("{}_acc", p.name);
                    out.push(KStm::Mut {
                        name: acc.clone(),
                        ty: *t,
                        init,
                    });
                    accs.push((KVal::Scalar(KExp::var(&acc), *t), Vec::new()));
                }
                ty @ Type::Array(..) => {
                    let v = self.val(ne)?;
                    let view = self.materialize(v, ty, out)?;
                    let dims = self.dims(ty)?;
                    accs.push((KVal::Array(view), dims));
                }
            }
        }
        let j = format!("{}_j", s.pat.elems.first().map_or("r", |p| p.name.as_str()));
        let mut stms = Vec::new();
        self.bind_rows(&map.params, &views, &KExp::var(&j));
        let vals = self.body(&map.body, &mut stms)?;
        for (p, (acc, _)) in op.params[..k].iter().zip(&accs) {
            self.env.insert(p.name.clone(), acc.clone());
        }
        for (p, v) in op.params[k..].iter().zip(vals) {
            match v {
                KVal::Scalar(e, t) => self.let_(&mut stms, &p.name, t, e),
                a => {
                    self.env.insert(p.name.clone(), a);
                }
            }
        }
        // The first element starts the accumulator (as the interpreter folds), the others
        // are combined with the operator.
        let mut first = Vec::new();
        for ((acc, dims), p) in accs.iter().zip(&op.params[k..]) {
            let v = self.val(&SubExp::var(&p.name))?;
            match (acc, v) {
                (KVal::Scalar(KExp::Var(n), _), KVal::Scalar(e, _)) => first.push(KStm::Assign {
                    name: n.clone(),
                    exp: e,
                }),
                (_, v) => self.store(acc.clone(), v, 0, dims, &mut first)?,
            }
        }
        let mut rest = Vec::new();
        let rs = self.body(&op.body, &mut rest)?;
        for ((acc, dims), r) in accs.iter().zip(rs) {
            match (acc, r) {
                (KVal::Scalar(KExp::Var(n), _), KVal::Scalar(e, _)) => rest.push(KStm::Assign {
                    name: n.clone(),
                    exp: e,
                }),
                (KVal::Array(a), KVal::Array(r)) if same_view(a, &r) => {}
                (KVal::Array(_), r @ KVal::Array(_)) => {
                    self.store(acc.clone(), r, 0, dims, &mut rest)?
                }
                _ => return Err("a reduction of mismatched results inside a kernel".into()),
            }
        }
        stms.push(KStm::If {
            cond: KExp::cmp(futhark_ir::CmpOp::Eq, KExp::var(&j), KExp::i64(0)),
            then_branch: first,
            else_branch: rest,
        });
        out.push(KStm::For {
            var: j,
            bound,
            body: stms,
        });
        for (p, (acc, _)) in s.pat.elems.iter().zip(accs) {
            self.env.insert(p.name.clone(), acc);
        }
        Ok(())
    }

    /// A map inside a thread: a sequential loop writing per-thread arrays.
    fn seq_map(
        &mut self,
        s: &Stm,
        w: &SubExp,
        lam: &Lambda,
        arrs: &[Name],
        out: &mut Vec<KStm>,
    ) -> TResult<()> {
        let views = arrs
            .iter()
            .map(|a| self.view(a))
            .collect::<TResult<Vec<_>>>()?;
        let bound = self.scalar(w)?;
        let mut results = Vec::new();
        for p in &s.pat.elems {
            let launch = self.launch_shape(&p.ty)?;
            let dims = self.dims(&p.ty)?;
            let view = self.alloc(p.ty.elem(), launch);
            results.push((view, dims));
        }
        let j = self.fresh("j");
        let mut stms = Vec::new();
        self.bind_rows(&lam.params, &views, &KExp::var(&j));
        let rs = self.body(&lam.body, &mut stms)?;
        for ((view, dims), r) in results.iter().zip(rs) {
            let dst = view.index(KExp::var(&j), None);
            self.store(dst, r, 0, &dims[1..], &mut stms)?;
        }
        out.push(KStm::For {
            var: j,
            bound,
            body: stms,
        });
        for (p, (view, _)) in s.pat.elems.iter().zip(results) {
            self.env.insert(p.name.clone(), KVal::Array(view));
        }
        Ok(())
    }

    /// A scanomap inside a thread: sequential, with scalar accumulators.
    #[allow(clippy::too_many_arguments)]
    fn seq_scan(
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
        // Accumulators as in `seq_reduce`; each step's value is stored at row j.
        let mut accs: Vec<(KVal, Vec<KExp>)> = Vec::new();
        let mut results = Vec::new();
        for (p, ne) in s.pat.elems.iter().zip(nes) {
            let row = p.ty.row();
            match &row {
                Type::Prim(t) => {
                    let init = self.scalar(ne)?;
                    let acc = self.fresh("acc");
                    out.push(KStm::Mut {
                        name: acc.clone(),
                        ty: *t,
                        init,
                    });
                    accs.push((KVal::Scalar(KExp::var(&acc), *t), Vec::new()));
                }
                ty @ Type::Array(..) => {
                    let v = self.val(ne)?;
                    let view = self.materialize(v, ty, out)?;
                    let dims = self.dims(ty)?;
                    accs.push((KVal::Array(view), dims));
                }
            }
            let launch = self.launch_shape(&p.ty)?;
            results.push(self.alloc(p.ty.elem(), launch));
        }
        let j = self.fresh("j");
        let mut stms = Vec::new();
        self.bind_rows(&map.params, &views, &KExp::var(&j));
        let vals = self.body(&map.body, &mut stms)?;
        for (p, (acc, _)) in op.params[..k].iter().zip(&accs) {
            self.env.insert(p.name.clone(), acc.clone());
        }
        for (p, v) in op.params[k..].iter().zip(vals) {
            match v {
                KVal::Scalar(e, t) => self.let_(&mut stms, &p.name, t, e),
                a => {
                    self.env.insert(p.name.clone(), a);
                }
            }
        }
        let rs = self.body(&op.body, &mut stms)?;
        for (((acc, dims), view), r) in accs.iter().zip(&results).zip(rs) {
            match (acc, r) {
                (KVal::Scalar(KExp::Var(n), _), KVal::Scalar(e, _)) => stms.push(KStm::Assign {
                    name: n.clone(),
                    exp: e,
                }),
                (KVal::Array(a), KVal::Array(r)) if same_view(a, &r) => {}
                (KVal::Array(_), r @ KVal::Array(_)) => {
                    self.store(acc.clone(), r, 0, dims, &mut stms)?
                }
                _ => return Err("a scan of mismatched results inside a kernel".into()),
            }
            let dst = view.index(KExp::var(&j), None);
            self.store(dst, acc.clone(), 0, dims, &mut stms)?;
        }
        out.push(KStm::For {
            var: j,
            bound,
            body: stms,
        });
        for (p, view) in s.pat.elems.iter().zip(results) {
            self.env.insert(p.name.clone(), KVal::Array(view));
        }
        Ok(())
    }

    /// Consumed destinations as per-thread arrays (copied unless they already are).
    fn dest_views(&mut self, dests: &[Name], out: &mut Vec<KStm>) -> TResult<Vec<(View, Type)>> {
        let mut views = Vec::new();
        for d in dests {
            let ty = self.type_of(d)?;
            let mut view = self.view(d)?;
            if !self.is_scratch(&view) {
                view = self.materialize(KVal::Array(view), &ty, out)?;
            }
            views.push((view, ty));
        }
        Ok(views)
    }

    /// `0 <= i < n` for every index of a point.
    fn in_bounds(&mut self, idx: &[KExp], ty: &Type) -> TResult<KExp> {
        let dims = self.dims(ty)?;
        let mut cond = KExp::Const(PrimValue::Bool(true));
        for (i, d) in idx.iter().zip(dims) {
            let ok = KExp::bin(
                futhark_ir::BinOp::LogAnd,
                KExp::cmp(futhark_ir::CmpOp::Ge, i.clone(), KExp::i64(0)),
                KExp::cmp(futhark_ir::CmpOp::Lt, i.clone(), d),
            );
            cond = KExp::bin(futhark_ir::BinOp::LogAnd, cond, ok);
        }
        Ok(cond)
    }

    /// A scatter inside a thread: sequential writes into per-thread copies.
    #[allow(clippy::too_many_arguments)]
    fn seq_scatter(
        &mut self,
        s: &Stm,
        w: &SubExp,
        dests: &[Name],
        ranks: &[usize],
        map: &Lambda,
        arrs: &[Name],
        out: &mut Vec<KStm>,
    ) -> TResult<()> {
        let views = arrs
            .iter()
            .map(|a| self.view(a))
            .collect::<TResult<Vec<_>>>()?;
        let bound = self.scalar(w)?;
        let dviews = self.dest_views(dests, out)?;
        let j = self.fresh("j");
        let mut stms = Vec::new();
        self.bind_rows(&map.params, &views, &KExp::var(&j));
        let vals = self.body(&map.body, &mut stms)?;
        let mut vals = vals.into_iter();
        for ((view, ty), r) in dviews.iter().zip(ranks) {
            let mut idx = Vec::new();
            for _ in 0..*r {
                match vals.next() {
                    Some(KVal::Scalar(e, _)) => idx.push(e),
                    _ => return Err("a scatter without indices inside a kernel thread".into()),
                }
            }
            let v = vals
                .next()
                .ok_or("a scatter without a value inside a kernel thread")?;
            let dims = self.dims(ty)?;
            let cond = self.in_bounds(&idx, ty)?;
            let dst = index_all(KVal::Array(view.clone()), idx);
            let mut w = Vec::new();
            self.store(dst, v, 0, dims.get(*r..).unwrap_or(&[]), &mut w)?;
            stms.push(KStm::If {
                cond,
                then_branch: w,
                else_branch: Vec::new(),
            });
        }
        out.push(KStm::For {
            var: j,
            bound,
            body: stms,
        });
        for (p, (view, _)) in s.pat.elems.iter().zip(dviews) {
            self.env.insert(p.name.clone(), KVal::Array(view));
        }
        Ok(())
    }

    /// A histogram inside a thread: sequential updates of per-thread copies.
    #[allow(clippy::too_many_arguments)]
    fn seq_hist(
        &mut self,
        s: &Stm,
        w: &SubExp,
        dests: &[Name],
        rank: usize,
        op: &Lambda,
        map: &Lambda,
        arrs: &[Name],
        out: &mut Vec<KStm>,
    ) -> TResult<()> {
        let views = arrs
            .iter()
            .map(|a| self.view(a))
            .collect::<TResult<Vec<_>>>()?;
        let bound = self.scalar(w)?;
        let dviews = self.dest_views(dests, out)?;
        let k = dests.len();
        let j = self.fresh("j");
        let mut stms = Vec::new();
        self.bind_rows(&map.params, &views, &KExp::var(&j));
        let vals = self.scalar_body(&map.body, &mut stms)?;
        if vals.len() != rank + k || dviews.iter().any(|(_, t)| t.rank() != rank) {
            return Err("a histogram of rows inside a kernel thread".into());
        }
        let idx = vals[..rank].to_vec();
        let Some((_, ty0)) = dviews.first() else {
            return Err("a histogram without destinations".into());
        };
        let ty0 = ty0.clone();
        let cond = self.in_bounds(&idx, &ty0)?;
        let mut upd = Vec::new();
        for (p, (view, ty)) in op.params[..k].iter().zip(&dviews) {
            let old = index_all(KVal::Array(view.clone()), idx.clone());
            let KVal::Scalar(e, _) = old else {
                return Err("a histogram of rows inside a kernel thread".into());
            };
            self.let_(&mut upd, &p.name, ty.elem(), e);
        }
        for (p, v) in op.params[k..].iter().zip(&vals[rank..]) {
            let t = p.ty.elem();
            self.let_(&mut upd, &p.name, t, v.clone());
        }
        let rs = self.scalar_body(&op.body, &mut upd)?;
        for ((view, ty), r) in dviews.iter().zip(rs) {
            let dst = index_all(KVal::Array(view.clone()), idx.clone());
            self.store(dst, KVal::Scalar(r, ty.elem()), 0, &[], &mut upd)?;
        }
        stms.push(KStm::If {
            cond,
            then_branch: upd,
            else_branch: Vec::new(),
        });
        out.push(KStm::For {
            var: j,
            bound,
            body: stms,
        });
        for (p, (view, _)) in s.pat.elems.iter().zip(dviews) {
            self.env.insert(p.name.clone(), KVal::Array(view));
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

/// A whole row-major device array (or row of one) seen with another shape (`None` for
/// other views).
fn reshaped(v: View, new: Vec<Size>) -> Option<View> {
    match v {
        View::Global {
            decl,
            perm,
            prefix,
            elem,
            dims,
        } if perm.iter().enumerate().all(|(a, b)| a == *b) => {
            let mut all: Vec<Size> = dims[..prefix.len().min(dims.len())].to_vec();
            all.extend(new);
            Some(View::Global {
                decl,
                perm: (0..all.len()).collect(),
                dims: all,
                prefix,
                elem,
            })
        }
        _ => None,
    }
}

fn same_view(a: &View, b: &View) -> bool {
    match (a, b) {
        (
            View::Global {
                decl: d1,
                prefix: p1,
                perm: q1,
                ..
            },
            View::Global {
                decl: d2,
                prefix: p2,
                perm: q2,
                ..
            },
        ) => d1 == d2 && p1 == p2 && q1 == q2,
        _ => false,
    }
}

fn view_elem(v: &View) -> PrimType {
    match v {
        View::Global { elem, .. } | View::Replicate { elem, .. } => *elem,
        View::Iota { ty, .. } => *ty,
        View::Slice { base, .. } => view_elem(base),
    }
}

fn short(e: &Exp) -> String {
    let s = e.to_string();
    s.split('(').next().unwrap_or("").to_string()
}
