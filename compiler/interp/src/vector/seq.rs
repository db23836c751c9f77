//! Symbolic lanes of index arithmetic: a mapped `iota` is a sequence (`V::Seq`), shifting
//! it keeps it one, and `% n` of it is a wrapped sequence (`V::Wrap`). Indexing with them
//! takes views or slice copies instead of gathering; anything else makes them concrete.

use std::rc::Rc;

use futhark_values::Buffer;

use super::V;
use crate::prim::Prim;
use crate::prim_ops::{self, resolve};
use crate::value::{Array, Value};

/// `n` lanes counting up from `start`.
pub(super) fn seq_lanes(start: i64, n: usize) -> Value {
    let v: Vec<i64> = (0..n as i64).map(|k| start.wrapping_add(k)).collect();
    Value::Array(Rc::new(Array::from_buffer(vec![n as i64], Buffer::I64(v))))
}

/// A value with a symbolic sequence made concrete.
pub(super) fn plain(v: V, n: usize) -> V {
    match v {
        V::Seq(start) => V::Lanes(seq_lanes(start, n)),
        V::Wrap(start, modulus) => V::Lanes(wrap_lanes(start, modulus, n)),
        V::Aff(f) => V::Lanes(f.values(n)),
        v => v,
    }
}

/// A comparison of a sequence with an `i64` scalar (`j > 0`, `j < m - 1`), without making
/// the sequence concrete; `None` for other operands and operators.
pub(super) fn seq_compare(op: prim_ops::OvOp, x: &V, y: &V, n: usize) -> Option<Value> {
    use crate::prim_ops::{IntCmp, MonoBin};
    let (s, c, seq_first) = match (x, y) {
        (V::Seq(s), V::Uni(Value::Prim(Prim::I64(c)))) => (*s, *c, true),
        (V::Uni(Value::Prim(Prim::I64(c))), V::Seq(s)) => (*s, *c, false),
        _ => return None,
    };
    let r = resolve(op, futhark_values::PrimType::I64)?;
    let MonoBin::IntCmp(o) = r.op else {
        return None;
    };
    let seq_left = seq_first != r.swap;
    // Lane k holds s + k (never wrapping), so a signed comparison with c holds on a prefix
    // or a suffix of the lanes, and equality on at most one: fills, not per-lane tests.
    let d = c as i128 - s as i128;
    let at = |x: i128| x.clamp(0, n as i128) as usize;
    let (from, to) = match (o, seq_left) {
        (IntCmp::Eq, _) => (at(d), at(d + 1)),
        (IntCmp::SLt, true) => (0, at(d)),
        (IntCmp::SLe, true) => (0, at(d + 1)),
        (IntCmp::SLt, false) => (at(d + 1), n),
        (IntCmp::SLe, false) => (at(d), n),
        // Unsigned comparisons of negative values are not monotone in k.
        _ => return None,
    };
    let mut out = vec![r.negate; n];
    out[from..to.max(from)].fill(!r.negate);
    Some(Value::Array(Rc::new(Array::from_buffer(
        vec![n as i64],
        Buffer::Bool(out),
    ))))
}

/// The start of `x` when it is a one-dimensional `i64` array counting up by one.
pub(super) fn as_seq(x: &Value) -> Option<i64> {
    let Value::Array(a) = x else {
        return None;
    };
    if let crate::value::ArrayData::Prim { buf, offset } = &a.data
        && a.rank() == 1
        && crate::eval::exp::is_shared_iota(buf)
    {
        return Some(*offset as i64);
    }
    let (buf, off, n) = a.prim_slice()?;
    let Buffer::I64(v) = buf else {
        return None;
    };
    let xs = &v[off..off + n];
    let first = *xs.first()?;
    // Branch-free, so the check vectorises; the last element must not have wrapped.
    let ok = xs
        .iter()
        .enumerate()
        .fold(true, |ok, (k, &x)| ok & (x == first.wrapping_add(k as i64)));
    (ok && a.rank() == 1 && first.checked_add(n as i64).is_some()).then_some(first)
}

/// `n` lanes counting up from `start` and wrapping to 0 at `modulus`.
pub(super) fn wrap_lanes(start: i64, modulus: i64, n: usize) -> Value {
    let mut x = start;
    let v: Vec<i64> = (0..n)
        .map(|_| {
            let cur = x;
            x = if x + 1 == modulus { 0 } else { x + 1 };
            cur
        })
        .collect();
    Value::Array(Rc::new(Array::from_buffer(vec![n as i64], Buffer::I64(v))))
}
