//! Native loops over flat buffers: reductions, scans and histograms with primitive
//! operators, and the element-wise operations of vectorised evaluation.
//!
//! The common operators (`+`, `*`, `min`, `max`, bitwise, …) get loops of their own so the
//! compiler can optimise them as it would a hand-written Rust loop; the rest go through the
//! generic element functions of `prim_ops`, which share their semantics.

use std::rc::Rc;

use futhark_values::{Buffer, PrimType};

use crate::ir::BinFn;
use crate::prim::Prim;
use crate::prim_fns::PrimFn;
use crate::prim_ops::{
    ArithError, BoolBin, Float, FloatBin, FloatCmp, Int, IntBin, IntCmp, MonoBin, resolve,
};
use crate::value::{Array, buf_get, buf_set};

/// The monomorphic operation a binary function stands for at type `ty`, if it is one that
/// reductions can use directly.
pub fn mono_of(f: BinFn, ty: PrimType) -> Option<MonoBin> {
    match f {
        BinFn::Ov(op) => {
            let r = resolve(op, ty)?;
            (!r.swap && !r.negate).then_some(r.op)
        }
        BinFn::Prim(pf) => match pf {
            PrimFn::IntBin(o) => Some(MonoBin::Int(o)),
            PrimFn::FloatBin(o) => Some(MonoBin::Float(o)),
            PrimFn::BoolBin(o) => Some(MonoBin::Bool(o)),
            PrimFn::IntCmp(o) => Some(MonoBin::IntCmp(o)),
            PrimFn::FloatCmp(o) => Some(MonoBin::FloatCmp(o)),
            _ => None,
        },
    }
}

macro_rules! float_fold {
    ($o:expr, $ne:expr, $xs:expr) => {{
        let xs = $xs;
        match $o {
            FloatBin::Add => xs.iter().fold($ne, |a, &x| a + x),
            FloatBin::Mul => xs.iter().fold($ne, |a, &x| a * x),
            FloatBin::Min => xs.iter().fold($ne, |a, &x| a.min(x)),
            FloatBin::Max => xs.iter().fold($ne, |a, &x| a.max(x)),
            o => xs.iter().fold($ne, |a, &x| Float::bin(o, a, x)),
        }
    }};
}

macro_rules! int_fold {
    ($o:expr, $ne:expr, $xs:expr) => {{
        let xs = $xs;
        match $o {
            IntBin::Add => Ok(xs.iter().fold($ne, |a, &x| a.wrapping_add(x))),
            IntBin::Mul => Ok(xs.iter().fold($ne, |a, &x| a.wrapping_mul(x))),
            IntBin::And => Ok(xs.iter().fold($ne, |a, &x| a & x)),
            IntBin::Or => Ok(xs.iter().fold($ne, |a, &x| a | x)),
            IntBin::Xor => Ok(xs.iter().fold($ne, |a, &x| a ^ x)),
            o => xs.iter().try_fold($ne, |a, &x| Int::bin(o, a, x)),
        }
    }};
}

/// `reduce op ne xs[off..off+n]` with a primitive operator; `None` if not applicable.
pub fn fold(
    f: BinFn,
    ne: Prim,
    buf: &Buffer,
    off: usize,
    n: usize,
) -> Option<Result<Prim, ArithError>> {
    let op = mono_of(f, ne.ty())?;
    if ne.ty() != buf.elem_type() {
        return None;
    }
    Some(match (op, buf, ne) {
        (MonoBin::Float(o), Buffer::F32(v), Prim::F32(z)) => {
            Ok(Prim::F32(float_fold!(o, z, &v[off..off + n])))
        }
        (MonoBin::Float(o), Buffer::F64(v), Prim::F64(z)) => {
            Ok(Prim::F64(float_fold!(o, z, &v[off..off + n])))
        }
        (MonoBin::Int(o), Buffer::I8(v), Prim::I8(z)) => {
            int_fold!(o, z, &v[off..off + n]).map(Prim::I8)
        }
        (MonoBin::Int(o), Buffer::I16(v), Prim::I16(z)) => {
            int_fold!(o, z, &v[off..off + n]).map(Prim::I16)
        }
        (MonoBin::Int(o), Buffer::I32(v), Prim::I32(z)) => {
            int_fold!(o, z, &v[off..off + n]).map(Prim::I32)
        }
        (MonoBin::Int(o), Buffer::I64(v), Prim::I64(z)) => {
            int_fold!(o, z, &v[off..off + n]).map(Prim::I64)
        }
        (MonoBin::Int(o), Buffer::U8(v), Prim::U8(z)) => {
            int_fold!(o, z, &v[off..off + n]).map(Prim::U8)
        }
        (MonoBin::Int(o), Buffer::U16(v), Prim::U16(z)) => {
            int_fold!(o, z, &v[off..off + n]).map(Prim::U16)
        }
        (MonoBin::Int(o), Buffer::U32(v), Prim::U32(z)) => {
            int_fold!(o, z, &v[off..off + n]).map(Prim::U32)
        }
        (MonoBin::Int(o), Buffer::U64(v), Prim::U64(z)) => {
            int_fold!(o, z, &v[off..off + n]).map(Prim::U64)
        }
        _ => {
            // Everything else (f16, bool, comparisons): element by element.
            let mut acc = ne;
            for i in 0..n {
                match crate::prim_ops::mono_bin(op, acc, buf_get(buf, off + i)) {
                    Ok(x) => acc = x,
                    Err(e) => return Some(Err(e)),
                }
            }
            Ok(acc)
        }
    })
}

/// Inclusive `scan op ne xs` with a primitive operator; `None` if not applicable.
pub fn scan(
    f: BinFn,
    ne: Prim,
    buf: &Buffer,
    off: usize,
    n: usize,
) -> Option<Result<Buffer, ArithError>> {
    let op = mono_of(f, ne.ty())?;
    if ne.ty() != buf.elem_type() {
        return None;
    }
    macro_rules! sc {
        ($v:expr, $var:ident, $step:expr) => {{
            let xs = &$v[off..off + n];
            let mut out = Vec::with_capacity(n);
            let mut acc = None;
            for &x in xs {
                let next = match acc {
                    None => x,
                    Some(a) => $step(a, x)?,
                };
                out.push(next);
                acc = Some(next);
            }
            Ok(Buffer::$var(out))
        }};
    }
    let run = || -> Result<Buffer, ArithError> {
        match (op, buf) {
            (MonoBin::Float(o), Buffer::F32(v)) => {
                sc!(v, F32, |a, x| Ok::<f32, ArithError>(Float::bin(o, a, x)))
            }
            (MonoBin::Float(o), Buffer::F64(v)) => {
                sc!(v, F64, |a, x| Ok::<f64, ArithError>(Float::bin(o, a, x)))
            }
            (MonoBin::Int(o), Buffer::I32(v)) => sc!(v, I32, |a, x| <i32 as Int>::bin(o, a, x)),
            (MonoBin::Int(o), Buffer::I64(v)) => sc!(v, I64, |a, x| <i64 as Int>::bin(o, a, x)),
            (MonoBin::Int(o), Buffer::U32(v)) => sc!(v, U32, |a, x| <u32 as Int>::bin(o, a, x)),
            (MonoBin::Int(o), Buffer::U64(v)) => sc!(v, U64, |a, x| <u64 as Int>::bin(o, a, x)),
            _ => {
                let mut out = Buffer::with_capacity(buf.elem_type(), n);
                let mut acc: Option<Prim> = None;
                for i in 0..n {
                    let x = buf_get(buf, off + i);
                    let next = match acc {
                        None => x,
                        Some(a) => crate::prim_ops::mono_bin(op, a, x)?,
                    };
                    crate::value::buf_push(&mut out, next);
                    acc = Some(next);
                }
                Ok(out)
            }
        }
    };
    Some(run())
}

/// A one-dimensional histogram with a primitive operator, in place on `dest`.
pub fn hist(
    f: BinFn,
    dest: &mut Rc<Array>,
    is: &Array,
    vals: &Array,
) -> Option<Result<(), ArithError>> {
    let ty = dest.prim_type()?;
    let op = mono_of(f, ty)?;
    let (ibuf, ioff, n) = is.prim_slice()?;
    let (vbuf, voff, _) = vals.prim_slice()?;
    if vbuf.elem_type() != ty {
        return None;
    }
    let Buffer::I64(idx) = ibuf else {
        return None;
    };
    let idx = &idx[ioff..ioff + n];
    let len = dest.shape[0];
    let vbuf = vbuf.clone();
    let d = Rc::make_mut(dest);
    let buf = crate::array::unique_buf(d)?;
    macro_rules! h {
        ($d:expr, $v:expr, $step:expr) => {{
            for (j, &i) in idx.iter().enumerate() {
                if i >= 0 && i < len {
                    let i = i as usize;
                    $d[i] = $step($d[i], $v[voff + j])?;
                }
            }
            Ok(())
        }};
    }
    let mut run = || -> Result<(), ArithError> {
        match (op, &mut *buf, &vbuf) {
            (MonoBin::Float(o), Buffer::F32(d), Buffer::F32(v)) => {
                h!(d, v, |a, x| Ok::<f32, ArithError>(Float::bin(o, a, x)))
            }
            (MonoBin::Float(o), Buffer::F64(d), Buffer::F64(v)) => {
                h!(d, v, |a, x| Ok::<f64, ArithError>(Float::bin(o, a, x)))
            }
            (MonoBin::Int(o), Buffer::I32(d), Buffer::I32(v)) => {
                h!(d, v, |a, x| <i32 as Int>::bin(o, a, x))
            }
            (MonoBin::Int(o), Buffer::I64(d), Buffer::I64(v)) => {
                h!(d, v, |a, x| <i64 as Int>::bin(o, a, x))
            }
            _ => {
                for (j, &i) in idx.iter().enumerate() {
                    if i >= 0 && i < len {
                        let old = buf_get(buf, i as usize);
                        let new = crate::prim_ops::mono_bin(op, old, buf_get(&vbuf, voff + j))?;
                        buf_set(buf, i as usize, new);
                    }
                }
                Ok(())
            }
        }
    };
    Some(run())
}

// ---------------------------------------------------------------------------------------------
// Element-wise operations for vectorised evaluation

/// An operand of an element-wise operation: a scalar broadcast to every lane, or `n`
/// elements of a buffer from an offset.
#[derive(Clone, Copy)]
pub enum Arg<'a> {
    Scalar(Prim),
    Lanes(&'a Buffer, usize),
}

impl Arg<'_> {
    fn ty(&self) -> PrimType {
        match self {
            Arg::Scalar(p) => p.ty(),
            Arg::Lanes(b, _) => b.elem_type(),
        }
    }

    fn get(&self, i: usize) -> Prim {
        match self {
            Arg::Scalar(p) => *p,
            Arg::Lanes(b, off) => buf_get(b, off + i),
        }
    }
}

/// A typed view of an operand.
enum T<'a, X> {
    S(X),
    V(&'a [X]),
}

fn zipw<X: Copy, U>(a: T<'_, X>, b: T<'_, X>, n: usize, f: impl Fn(X, X) -> U) -> Vec<U> {
    match (a, b) {
        (T::V(a), T::V(b)) => a[..n].iter().zip(&b[..n]).map(|(&x, &y)| f(x, y)).collect(),
        (T::V(a), T::S(y)) => a[..n].iter().map(|&x| f(x, y)).collect(),
        (T::S(x), T::V(b)) => b[..n].iter().map(|&y| f(x, y)).collect(),
        (T::S(x), T::S(y)) => (0..n).map(|_| f(x, y)).collect(),
    }
}

fn try_zipw<X: Copy, U>(
    a: T<'_, X>,
    b: T<'_, X>,
    n: usize,
    f: impl Fn(X, X) -> Result<U, ArithError>,
) -> Result<Vec<U>, ArithError> {
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let x = match &a {
            T::S(x) => *x,
            T::V(v) => v[i],
        };
        let y = match &b {
            T::S(y) => *y,
            T::V(v) => v[i],
        };
        out.push(f(x, y)?);
    }
    Ok(out)
}

macro_rules! typed {
    ($arg:expr, $var:ident) => {
        match $arg {
            Arg::Scalar(Prim::$var(x)) => T::S(x),
            Arg::Lanes(Buffer::$var(v), off) => T::V(&v[off..]),
            _ => return None,
        }
    };
}

macro_rules! float_lanes {
    ($o:expr, $a:expr, $b:expr, $n:expr) => {
        match $o {
            FloatBin::Add => zipw($a, $b, $n, |x, y| x + y),
            FloatBin::Sub => zipw($a, $b, $n, |x, y| x - y),
            FloatBin::Mul => zipw($a, $b, $n, |x, y| x * y),
            FloatBin::Div => zipw($a, $b, $n, |x, y| x / y),
            FloatBin::Min => zipw($a, $b, $n, |x, y| x.min(y)),
            FloatBin::Max => zipw($a, $b, $n, |x, y| x.max(y)),
            o => zipw($a, $b, $n, |x, y| Float::bin(o, x, y)),
        }
    };
}

macro_rules! int_lanes {
    ($o:expr, $a:expr, $b:expr, $n:expr) => {
        match $o {
            IntBin::Add => Ok(zipw($a, $b, $n, |x, y| x.wrapping_add(y))),
            IntBin::Sub => Ok(zipw($a, $b, $n, |x, y| x.wrapping_sub(y))),
            IntBin::Mul => Ok(zipw($a, $b, $n, |x, y| x.wrapping_mul(y))),
            IntBin::And => Ok(zipw($a, $b, $n, |x, y| x & y)),
            IntBin::Or => Ok(zipw($a, $b, $n, |x, y| x | y)),
            IntBin::Xor => Ok(zipw($a, $b, $n, |x, y| x ^ y)),
            o => try_zipw($a, $b, $n, |x, y| Int::bin(o, x, y)),
        }
    };
}

/// One loop per comparison, so the operator is not matched per element.
macro_rules! cmp_lanes {
    ($o:expr, $a:expr, $b:expr, $n:expr, Float) => {
        match $o {
            FloatCmp::Eq => zipw($a, $b, $n, |x, y| x == y),
            FloatCmp::Lt => zipw($a, $b, $n, |x, y| x < y),
            FloatCmp::Le => zipw($a, $b, $n, |x, y| x <= y),
        }
    };
    ($o:expr, $a:expr, $b:expr, $n:expr, Int) => {
        match $o {
            IntCmp::Eq => zipw($a, $b, $n, |x, y| Int::cmp(IntCmp::Eq, x, y)),
            IntCmp::SLt => zipw($a, $b, $n, |x, y| Int::cmp(IntCmp::SLt, x, y)),
            IntCmp::SLe => zipw($a, $b, $n, |x, y| Int::cmp(IntCmp::SLe, x, y)),
            IntCmp::ULt => zipw($a, $b, $n, |x, y| Int::cmp(IntCmp::ULt, x, y)),
            IntCmp::ULe => zipw($a, $b, $n, |x, y| Int::cmp(IntCmp::ULe, x, y)),
        }
    };
}

/// `n` lanes of a binary operation; `None` if the operand types do not fit the operation
/// (the caller then falls back to scalar evaluation).
pub fn lanes_bin(
    op: MonoBin,
    a: Arg<'_>,
    b: Arg<'_>,
    n: usize,
) -> Option<Result<Buffer, ArithError>> {
    if a.ty() != b.ty() {
        return None;
    }
    if let Some(out) = div_by_scalar(op, a, b, n) {
        return Some(Ok(out));
    }
    Some(match (op, a.ty()) {
        (MonoBin::Float(o), PrimType::F32) => Ok(Buffer::F32(float_lanes!(
            o,
            typed!(a, F32),
            typed!(b, F32),
            n
        ))),
        (MonoBin::Float(o), PrimType::F64) => Ok(Buffer::F64(float_lanes!(
            o,
            typed!(a, F64),
            typed!(b, F64),
            n
        ))),
        (MonoBin::Int(o), PrimType::I8) => {
            int_lanes!(o, typed!(a, I8), typed!(b, I8), n).map(Buffer::I8)
        }
        (MonoBin::Int(o), PrimType::I16) => {
            int_lanes!(o, typed!(a, I16), typed!(b, I16), n).map(Buffer::I16)
        }
        (MonoBin::Int(o), PrimType::I32) => {
            int_lanes!(o, typed!(a, I32), typed!(b, I32), n).map(Buffer::I32)
        }
        (MonoBin::Int(o), PrimType::I64) => {
            int_lanes!(o, typed!(a, I64), typed!(b, I64), n).map(Buffer::I64)
        }
        (MonoBin::Int(o), PrimType::U8) => {
            int_lanes!(o, typed!(a, U8), typed!(b, U8), n).map(Buffer::U8)
        }
        (MonoBin::Int(o), PrimType::U16) => {
            int_lanes!(o, typed!(a, U16), typed!(b, U16), n).map(Buffer::U16)
        }
        (MonoBin::Int(o), PrimType::U32) => {
            int_lanes!(o, typed!(a, U32), typed!(b, U32), n).map(Buffer::U32)
        }
        (MonoBin::Int(o), PrimType::U64) => {
            int_lanes!(o, typed!(a, U64), typed!(b, U64), n).map(Buffer::U64)
        }
        (MonoBin::FloatCmp(o), PrimType::F32) => Ok(Buffer::Bool(cmp_lanes!(
            o,
            typed!(a, F32),
            typed!(b, F32),
            n,
            Float
        ))),
        (MonoBin::FloatCmp(o), PrimType::F64) => Ok(Buffer::Bool(cmp_lanes!(
            o,
            typed!(a, F64),
            typed!(b, F64),
            n,
            Float
        ))),
        (MonoBin::IntCmp(o), PrimType::I32) => Ok(Buffer::Bool(cmp_lanes!(
            o,
            typed!(a, I32),
            typed!(b, I32),
            n,
            Int
        ))),
        (MonoBin::IntCmp(o), PrimType::I64) => Ok(Buffer::Bool(cmp_lanes!(
            o,
            typed!(a, I64),
            typed!(b, I64),
            n,
            Int
        ))),
        (MonoBin::Bool(o), PrimType::Bool) => {
            let (x, y) = (typed!(a, Bool), typed!(b, Bool));
            Ok(Buffer::Bool(match o {
                BoolBin::And => zipw(x, y, n, |p, q| p & q),
                BoolBin::Or => zipw(x, y, n, |p, q| p | q),
                BoolBin::Eq => zipw(x, y, n, |p, q| p == q),
                BoolBin::Lt => zipw(x, y, n, |p, q| !p & q),
                BoolBin::Le => zipw(x, y, n, |p, q| p <= q),
            }))
        }
        _ => generic_lanes(a.ty(), n, |i| {
            crate::prim_ops::mono_bin(op, a.get(i), b.get(i))
        }),
    })
}

/// Floored `/` and `%` of signed lanes by a positive scalar, the index arithmetic of
/// stencils (`(i + r) % n`), without the per-element error checks of the generic loop. When
/// every dividend is already within `[-d, 2d)`, `%` is one compare and add per element.
fn div_by_scalar(op: MonoBin, a: Arg<'_>, b: Arg<'_>, n: usize) -> Option<Buffer> {
    macro_rules! go {
        ($v:expr, $off:expr, $d:expr, $var:ident) => {{
            let (xs, d) = (&$v[$off..$off + n], $d);
            if d <= 0 {
                return None;
            }
            match op {
                MonoBin::Int(IntBin::SMod) => {
                    let lo = xs.iter().copied().min().unwrap_or(0);
                    let hi = xs.iter().copied().max().unwrap_or(0);
                    if lo >= -d && hi < d.saturating_mul(2) {
                        Buffer::$var(
                            xs.iter()
                                .map(|&x| {
                                    let x = if x < 0 { x + d } else { x };
                                    if x >= d { x - d } else { x }
                                })
                                .collect(),
                        )
                    } else {
                        Buffer::$var(xs.iter().map(|&x| x.rem_euclid(d)).collect())
                    }
                }
                // For a positive divisor, floored division is Euclidean division.
                MonoBin::Int(IntBin::SDiv) => {
                    Buffer::$var(xs.iter().map(|&x| x.div_euclid(d)).collect())
                }
                _ => return None,
            }
        }};
    }
    Some(match (a, b) {
        (Arg::Lanes(Buffer::I64(v), off), Arg::Scalar(Prim::I64(d))) => go!(v, off, d, I64),
        (Arg::Lanes(Buffer::I32(v), off), Arg::Scalar(Prim::I32(d))) => go!(v, off, d, I32),
        _ => return None,
    })
}

/// Lanes computed element by element through scalar code (rarer operations and types).
pub fn generic_lanes(
    hint: PrimType,
    n: usize,
    f: impl Fn(usize) -> Result<Prim, ArithError>,
) -> Result<Buffer, ArithError> {
    if n == 0 {
        return Ok(Buffer::new(hint));
    }
    let first = f(0)?;
    let mut out = Buffer::with_capacity(first.ty(), n);
    crate::value::buf_push(&mut out, first);
    for i in 1..n {
        if !crate::value::buf_push(&mut out, f(i)?) {
            return Err(ArithError::BadOperands);
        }
    }
    Ok(out)
}

/// `n` lanes of a primitive function of one to three arguments.
pub fn lanes_prim(pf: PrimFn, args: &[Arg<'_>], n: usize) -> Result<Buffer, ArithError> {
    if let (PrimFn::FloatUn(o), [Arg::Lanes(Buffer::F32(v), off)]) = (pf, args)
        && !matches!(
            o,
            crate::prim_ops::FloatUn::IsInf | crate::prim_ops::FloatUn::IsNan
        )
    {
        return Ok(Buffer::F32(
            v[*off..off + n].iter().map(|&x| Float::un(o, x)).collect(),
        ));
    }
    if let (PrimFn::FloatUn(o), [Arg::Lanes(Buffer::F64(v), off)]) = (pf, args)
        && !matches!(
            o,
            crate::prim_ops::FloatUn::IsInf | crate::prim_ops::FloatUn::IsNan
        )
    {
        return Ok(Buffer::F64(
            v[*off..off + n].iter().map(|&x| Float::un(o, x)).collect(),
        ));
    }
    if let [a, b] = args {
        let mono = match pf {
            PrimFn::IntBin(o) => Some(MonoBin::Int(o)),
            PrimFn::FloatBin(o) => Some(MonoBin::Float(o)),
            PrimFn::IntCmp(o) => Some(MonoBin::IntCmp(o)),
            PrimFn::FloatCmp(o) => Some(MonoBin::FloatCmp(o)),
            PrimFn::BoolBin(o) => Some(MonoBin::Bool(o)),
            _ => None,
        };
        if let Some(op) = mono
            && let Some(r) = lanes_bin(op, *a, *b, n)
        {
            return r;
        }
    }
    let hint = args.first().map(|a| a.ty()).unwrap_or(PrimType::Bool);
    generic_lanes(hint, n, |i| {
        let mut prims = [Prim::Bool(false); 3];
        for (k, a) in args.iter().enumerate().take(3) {
            prims[k] = a.get(i);
        }
        pf.apply(&prims[..args.len().min(3)])
    })
}
