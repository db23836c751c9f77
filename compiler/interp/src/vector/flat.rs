//! Maps nested inside vectorised code whose function captures lane values:
//! `map (\i -> map (\j -> a[i, j] + a[i - 1, j]) (iota m)) (iota n)`.
//!
//! The inner map runs once over all elements of all lanes, block by block of whole lanes
//! (rows): a block of `r` lanes with rows of `k` elements is evaluated as `r · k` lanes, lane
//! `l` being element `l mod k` of row `l / k`. The inner function's captured lane values are
//! repeated `k` times each (a mapped `iota`'s variable becomes the affine `c + l / k`, so
//! indexing with it stays a view), its argument is the rows' elements (an `iota` becomes
//! `l mod k`), and the results are the rows of the map's result. What cannot be evaluated so
//! makes the enclosing attempt fail without remembering anything (`Fail::Callee`), and the
//! enclosing map then applies its function per element, where the inner map is vectorised
//! on its own.

use std::rc::Rc;

use super::affine::Aff;
use super::lanes::gather_rows;
use super::nested::{append, merge_outer, owned, rows, split_outer};
use super::seq::{as_seq, plain};
use super::{Cx, Fail, LaneFun, MAX_DEPTH, V, VFrame, VResult};
use crate::value::{Array, ArrayData, Value};

/// About how many elements one evaluation of the inner function covers.
const BLOCK: usize = 16 * 1024;

/// Lanes `r0 .. r0 + rows` of `v` (of `n` lanes), each repeated `k` times.
fn expand(v: &V, r0: usize, rows: usize, k: usize, n: usize) -> VResult<V> {
    Ok(match v {
        V::Uni(_) => v.clone(),
        V::Seq(s) => match Aff::new(*s as i128 + r0 as i128, 1, 0, k, rows * k) {
            Some(f) => V::Aff(f),
            None => V::Lanes(repeat(&super::seq::seq_lanes(*s, n), r0, rows, k)?),
        },
        V::Lanes(x) => V::Lanes(repeat(x, r0, rows, k)?),
        V::Wrap(..) | V::Aff(_) => match plain(v.clone(), n) {
            V::Lanes(x) => V::Lanes(repeat(&x, r0, rows, k)?),
            _ => return Err(Fail::No),
        },
        V::Fun(lf) => {
            let mut cenv = Vec::with_capacity(lf.cenv.len());
            for c in &lf.cenv {
                cenv.push(expand(c, r0, rows, k, n)?);
            }
            V::Fun(Rc::new(LaneFun {
                lam: lf.lam.clone(),
                env: lf.env.clone(),
                cenv,
            }))
        }
    })
}

/// Whether each element of `x` is a scalar or a record of scalars: repeating those is cheap,
/// while repeating array elements `k` times would copy `k` times their size.
fn scalar_elements(a: &Array) -> bool {
    a.rank() == 1
        && match &a.data {
            ArrayData::Prim { .. } => true,
            ArrayData::Record { fields, .. } => fields.iter().all(|f| scalar_elements(f)),
            ArrayData::Boxed(_) => false,
        }
}

/// Rows `r0 .. r0 + rows` of `x`, each repeated `k` times; only for scalar elements.
fn repeat(x: &Value, r0: usize, rows: usize, k: usize) -> VResult<Value> {
    let Value::Array(a) = x else {
        return Err(Fail::No);
    };
    if a.len() < r0 + rows || !scalar_elements(a) {
        return Err(Fail::No);
    }
    let idx: Vec<usize> = (r0..r0 + rows)
        .flat_map(|r| std::iter::repeat_n(r, k))
        .collect();
    gather_rows(x, &idx).ok_or(Fail::No)
}

/// Whether [`expand`] of `v` copies no more than the block's lanes.
fn cheap_to_expand(v: &V) -> bool {
    match v {
        V::Lanes(Value::Array(a)) => scalar_elements(a),
        V::Lanes(_) => false,
        V::Fun(lf) => lf.cenv.iter().all(cheap_to_expand),
        V::Uni(_) | V::Seq(_) | V::Wrap(..) | V::Aff(_) => true,
    }
}

impl Cx<'_> {
    /// `map f xs` in each of `n` lanes, where `f` captures lane values and `xs` is the same
    /// array in every lane or an array per lane.
    pub(super) fn flat_map(
        &mut self,
        f: &LaneFun,
        xs: V,
        n: usize,
        mask: &Option<Rc<[bool]>>,
    ) -> VResult<V> {
        let r = self.flat_map_inner(f, xs, n, mask);
        // Nothing is remembered: the enclosing code may still vectorise per element.
        r.map_err(|e| match e {
            Fail::No => Fail::Callee,
            e => e,
        })
    }

    fn flat_map_inner(
        &mut self,
        f: &LaneFun,
        xs: V,
        n: usize,
        mask: &Option<Rc<[bool]>>,
    ) -> VResult<V> {
        if f.lam.params.len() != 1 || self.depth >= MAX_DEPTH {
            return Err(Fail::No);
        }
        // Captured lanes must be cheap to repeat (checked before any work is done).
        if !f.cenv.iter().all(cheap_to_expand) {
            return Err(Fail::No);
        }
        let (k, seq, per_lane) = match &xs {
            V::Uni(x @ Value::Array(a)) => (a.len(), as_seq(x), None),
            V::Lanes(Value::Array(a))
                if a.rank() >= 2 && !matches!(a.data, ArrayData::Boxed(_)) =>
            {
                (
                    a.shape[1].max(0) as usize,
                    None,
                    Some(merge_outer(a).ok_or(Fail::No)?),
                )
            }
            _ => return Err(Fail::No),
        };
        if n == 0 || k == 0 {
            return Err(Fail::No);
        }
        let per_block = (BLOCK / k).max(1);
        let mut out: Option<Array> = None;
        let mut r0 = 0;
        while r0 < n {
            let r1 = (r0 + per_block).min(n);
            let bn = (r1 - r0) * k;
            let mut cenv = Vec::with_capacity(f.cenv.len());
            for c in &f.cenv {
                cenv.push(expand(c, r0, r1 - r0, k, n)?);
            }
            let arg = match (&xs, seq, &per_lane) {
                (_, Some(s), _) => V::Aff(Aff::new(s as i128, 0, 1, k, bn).ok_or(Fail::No)?),
                (_, None, Some(flat)) => {
                    V::Lanes(Value::Array(Rc::new(rows(flat, r0 * k, r1 * k))))
                }
                (V::Uni(x @ Value::Array(a)), None, None) if scalar_elements(a) => {
                    let idx: Vec<usize> = (r0..r1).flat_map(|_| 0..k).collect();
                    V::Lanes(gather_rows(x, &idx).ok_or(Fail::No)?)
                }
                _ => return Err(Fail::No),
            };
            let bmask: Option<Rc<[bool]>> = mask.as_ref().map(|m| {
                (r0..r1)
                    .flat_map(|r| std::iter::repeat_n(m.get(r).copied().unwrap_or(true), k))
                    .collect()
            });
            let mut sub = VFrame {
                slots: vec![None; f.lam.nslots],
                env: &f.env,
                n: bn,
                mask: bmask,
                cenv: Some(&cenv),
            };
            self.bind(&f.lam.params[0], arg, &mut sub)?;
            self.depth += 1;
            let r = self.eval(&f.lam.body, &mut sub);
            self.depth -= 1;
            let Value::Array(r) = self.lanes(r?, bn)? else {
                return Err(Fail::No);
            };
            match &mut out {
                None if r1 == n => out = Some((*r).clone()),
                None => out = Some(owned(&r, n * k).ok_or(Fail::No)?),
                Some(acc) => append(acc, &r).ok_or(Fail::No)?,
            }
            r0 = r1;
        }
        let merged = out.ok_or(Fail::No)?;
        Ok(V::Lanes(Value::Array(Rc::new(
            split_outer(&merged, n, k).ok_or(Fail::No)?,
        ))))
    }
}
