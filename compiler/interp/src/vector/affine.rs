//! Symbolic index lanes of flattened nested maps (`V::Aff`).
//!
//! When a map nested inside vectorised code is flattened (see `flat.rs`), its lanes are the
//! rows of the outer lanes times the elements of each row: lane `l` is element `l mod k` of
//! row `l / k`. The outer `iota`'s variable is then `c + l / k` and the inner one's
//! `l mod k`, and index arithmetic on them (`i - 1`, `j + 1`, `i * m + j`) stays of the form
//! `c + a·(l / k) + b·(l mod k)`. Indexing with such lanes is a view when it runs through
//! memory consecutively (`a[i, j]`, `a[i - 1, j]`, `a[i, j + 1]` with the inner size the
//! row length) and a strided gather otherwise, without making the indices concrete.

use std::rc::Rc;

use futhark_values::{Buffer, PrimType};

use super::{Fail, V, VResult};
use crate::prim::Prim;
use crate::prim_ops::{IntCmp, MonoBin, OvOp};
use crate::value::{Array, ArrayData, Value};

/// `i64` lanes `c + a·(l / k) + b·(l mod k)` for lane `l`, over whole rows of `k` lanes.
/// Every lane's value is representable (checked where one is made), so computing it with
/// wrapping arithmetic gives the exact value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Aff {
    pub c: i64,
    pub a: i64,
    pub b: i64,
    pub k: i64,
}

impl Aff {
    /// A checked affine form over `n` lanes: `None` when `k` does not divide `n` or some lane's
    /// value would not be representable.
    pub fn new(c: i128, a: i128, b: i128, k: usize, n: usize) -> Option<Aff> {
        if k == 0 || n == 0 || !n.is_multiple_of(k) {
            return None;
        }
        let rows = (n / k) as i128;
        let k1 = k as i128 - 1;
        let lo = c + (a * (rows - 1)).min(0) + (b * k1).min(0);
        let hi = c + (a * (rows - 1)).max(0) + (b * k1).max(0);
        let fits = |x: i128| i64::try_from(x).is_ok();
        (fits(lo) && fits(hi) && fits(c) && fits(a) && fits(b)).then_some(Aff {
            c: c as i64,
            a: a as i64,
            b: b as i64,
            k: k as i64,
        })
    }

    /// The value of lane `t` of row `r`.
    #[inline]
    fn at(self, r: usize, t: usize) -> i64 {
        self.c
            .wrapping_add(self.a.wrapping_mul(r as i64))
            .wrapping_add(self.b.wrapping_mul(t as i64))
    }

    fn rows(self, n: usize) -> usize {
        n / self.k as usize
    }

    /// The lanes made concrete.
    pub fn values(self, n: usize) -> Value {
        let k = self.k as usize;
        let mut out = Vec::with_capacity(n);
        for r in 0..self.rows(n) {
            let base = self.at(r, 0);
            out.extend((0..k as i64).map(|t| base.wrapping_add(self.b.wrapping_mul(t))));
        }
        Value::Array(Rc::new(Array::from_buffer(
            vec![n as i64],
            Buffer::I64(out),
        )))
    }

    /// The smallest and largest lane value.
    fn bounds(self, n: usize) -> (i128, i128) {
        let rows = self.rows(n) as i128;
        let (c, a, b, k1) = (
            self.c as i128,
            self.a as i128,
            self.b as i128,
            self.k as i128 - 1,
        );
        (
            c + (a * (rows - 1)).min(0) + (b * k1).min(0),
            c + (a * (rows - 1)).max(0) + (b * k1).max(0),
        )
    }
}

/// `x op y` where one operand is affine and the other an `i64` scalar or affine with the same
/// row length: stays affine for `+`, `-` and `*` by a scalar; `None` otherwise (the caller
/// makes the operands concrete).
pub(super) fn arith(op: OvOp, x: &V, y: &V, n: usize) -> Option<V> {
    let lift = |v: &V| -> Option<(i128, i128, i128, Option<i64>)> {
        match v {
            V::Aff(f) => Some((f.c as i128, f.a as i128, f.b as i128, Some(f.k))),
            V::Uni(Value::Prim(Prim::I64(c))) => Some((*c as i128, 0, 0, None)),
            _ => None,
        }
    };
    let (x3, y3) = (lift(x)?, lift(y)?);
    let k = match (x3.3, y3.3) {
        (Some(p), Some(q)) if p == q => p,
        (Some(p), None) | (None, Some(p)) => p,
        _ => return None,
    } as usize;
    let (c, a, b) = match op {
        OvOp::Add => (x3.0 + y3.0, x3.1 + y3.1, x3.2 + y3.2),
        OvOp::Sub => (x3.0 - y3.0, x3.1 - y3.1, x3.2 - y3.2),
        OvOp::Mul => match (x3.3, y3.3) {
            (Some(_), None) => (x3.0 * y3.0, x3.1 * y3.0, x3.2 * y3.0),
            (None, Some(_)) => (y3.0 * x3.0, y3.1 * x3.0, y3.2 * x3.0),
            _ => return None,
        },
        _ => return None,
    };
    Aff::new(c, a, b, k, n).map(V::Aff)
}

/// A comparison of affine lanes with an `i64` scalar, lane by lane without making the lanes
/// concrete; `None` for other operands and operators.
pub(super) fn compare(op: OvOp, x: &V, y: &V, n: usize) -> Option<Value> {
    let (f, c, aff_first) = match (x, y) {
        (V::Aff(f), V::Uni(Value::Prim(Prim::I64(c)))) => (*f, *c, true),
        (V::Uni(Value::Prim(Prim::I64(c))), V::Aff(f)) => (*f, *c, false),
        _ => return None,
    };
    let r = crate::prim_ops::resolve(op, PrimType::I64)?;
    let MonoBin::IntCmp(o) = r.op else {
        return None;
    };
    // After resolving, the operation is `lhs o rhs`, negated if `r.negate`.
    let aff_left = aff_first != r.swap;
    let holds = |v: i64| -> bool {
        let (p, q) = if aff_left { (v, c) } else { (c, v) };
        match o {
            IntCmp::Eq => p == q,
            IntCmp::SLt => p < q,
            IntCmp::SLe => p <= q,
            IntCmp::ULt => (p as u64) < (q as u64),
            IntCmp::ULe => (p as u64) <= (q as u64),
        }
    };
    let k = f.k as usize;
    let mut out = Vec::with_capacity(n);
    for row in 0..f.rows(n) {
        let base = f.at(row, 0);
        let v = |t: usize| base.wrapping_add(f.b.wrapping_mul(t as i64));
        // Within a row the lanes are linear in the column, so where the comparison holds is
        // a run of columns for `==` and the signed orders: two fills per row.
        let run = match o {
            IntCmp::Eq if f.b == 0 => Some(if holds(base) { (0, k) } else { (0, 0) }),
            IntCmp::Eq => {
                let d = c as i128 - base as i128;
                let b = f.b as i128;
                Some(if d % b == 0 && (0..k as i128).contains(&(d / b)) {
                    ((d / b) as usize, (d / b) as usize + 1)
                } else {
                    (0, 0)
                })
            }
            IntCmp::SLt | IntCmp::SLe => Some(true_run(k, |t| holds(v(t)))),
            IntCmp::ULt | IntCmp::ULe => None,
        };
        match run {
            Some((s, e)) => {
                let e = e.max(s);
                out.extend(std::iter::repeat_n(r.negate, s));
                out.extend(std::iter::repeat_n(!r.negate, e - s));
                out.extend(std::iter::repeat_n(r.negate, k - e));
            }
            None => out.extend((0..k).map(|t| holds(v(t)) != r.negate)),
        }
    }
    Some(Value::Array(Rc::new(Array::from_buffer(
        vec![n as i64],
        Buffer::Bool(out),
    ))))
}

/// Where a predicate of the columns `0..k` holds, given that it changes at most once
/// (monotone): `(start, end)`.
fn true_run(k: usize, p: impl Fn(usize) -> bool) -> (usize, usize) {
    if k == 0 {
        return (0, 0);
    }
    let first = p(0);
    // The first column where it differs from column 0.
    let (mut lo, mut hi) = (1, k);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if p(mid) == first {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    if first { (0, lo) } else { (lo, k) }
}

/// `a[x0, x1, …]` of a primitive array with one index per dimension, each an `i64` scalar or
/// affine lanes (at least one affine, all of the same row length). `None` when the operands
/// do not have that form. Lanes whose indices are out of bounds fail unless they do not
/// count under `mask`, in which case they read some element of `a` (their values are
/// discarded).
pub(super) fn index(
    a: &Array,
    fixed: &[V],
    n: usize,
    mask: Option<&[bool]>,
) -> Option<VResult<Value>> {
    let ArrayData::Prim { buf, offset } = &a.data else {
        return None;
    };
    if fixed.len() != a.rank() || n == 0 {
        return None;
    }
    let mut k = None;
    let mut dims = Vec::with_capacity(fixed.len());
    for v in fixed {
        match v {
            V::Aff(f) => {
                if k.is_some_and(|k| k != f.k) {
                    return None;
                }
                k = Some(f.k);
                dims.push(*f);
            }
            V::Uni(x) => dims.push(Aff {
                c: x.as_i64()?,
                a: 0,
                b: 0,
                k: 0,
            }),
            _ => return None,
        }
    }
    let k = k?;
    for d in &mut dims {
        d.k = k;
    }
    let ku = k as usize;
    if !n.is_multiple_of(ku) {
        return None;
    }
    // The flat position, as an affine form of i128 coefficients.
    let (mut c, mut fa, mut fb, mut stride) = (0i128, 0i128, 0i128, 1i128);
    let mut inside = true;
    for (d, f) in dims.iter().enumerate().rev() {
        let dim = a.shape[d] as i128;
        let (lo, hi) = f.bounds(n);
        inside &= lo >= 0 && hi < dim;
        c += f.c as i128 * stride;
        fa += f.a as i128 * stride;
        fb += f.b as i128 * stride;
        stride *= dim;
    }
    let off = *offset as i128;
    let rows = n / ku;
    if !inside {
        // Which lanes are out of bounds: all must be lanes that do not count.
        let Some(m) = mask else {
            return Some(Err(Fail::Retry));
        };
        let mut any_in = false;
        for r in 0..rows {
            // The columns in bounds in every dimension: a run, as each index is linear in
            // the column.
            let (mut s, mut e) = (0, ku);
            for (f, &dim) in dims.iter().zip(&a.shape) {
                let (s1, e1) = true_run(ku, |t| f.at(r, t) >= 0);
                let (s2, e2) = true_run(ku, |t| f.at(r, t) < dim);
                s = s.max(s1).max(s2);
                e = e.min(e1).min(e2);
            }
            let e = e.max(s);
            let row = &m[(r * ku).min(m.len())..((r + 1) * ku).min(m.len())];
            if row.len() != ku || row[..s].iter().chain(&row[e..]).any(|&c| c) {
                return Some(Err(Fail::Retry));
            }
            any_in |= e > s;
        }
        if !any_in || a.shape.contains(&0) {
            // Nothing that counts reads anything (the caller's values are all discarded).
            return Some(Err(Fail::Retry));
        }
    }
    let buf_len = buf.len() as i128;
    // Consecutive positions: a view, when every position read lies inside the buffer.
    if fb == 1 && fa == k as i128 {
        let start = off + c;
        if start >= 0 && start + n as i128 <= buf_len {
            return Some(Ok(Value::Array(Rc::new(Array {
                shape: vec![n as i64],
                data: ArrayData::Prim {
                    buf: buf.clone(),
                    offset: start as usize,
                },
            }))));
        }
    }
    // A strided gather, positions clamped into the buffer for lanes that do not count.
    let (lo, hi) = {
        let f = Aff::new(c, fa, fb, ku, n)?;
        f.bounds(n)
    };
    let (c, fa, fb) = (c as i64, fa as i64, fb as i64);
    let clamp_needed = !inside && (off + lo < 0 || off + hi >= buf_len);
    let last = (buf_len - 1).max(0) as i64;
    let off = off as i64;
    let pos = move |r: usize, t: usize| -> usize {
        let p = off
            .wrapping_add(c)
            .wrapping_add(fa.wrapping_mul(r as i64))
            .wrapping_add(fb.wrapping_mul(t as i64));
        if clamp_needed {
            p.clamp(0, last) as usize
        } else {
            p as usize
        }
    };
    if buf.is_empty() {
        return Some(Err(Fail::Retry));
    }
    let out = futhark_values::map_buffer!(&**buf, v => {
        let mut out = Vec::with_capacity(n);
        for r in 0..rows {
            out.extend((0..ku).map(|t| v[pos(r, t)]));
        }
        out
    });
    Some(Ok(Value::Array(Rc::new(Array::from_buffer(
        vec![n as i64],
        out,
    )))))
}
