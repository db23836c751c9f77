//! Indexing with lane indices: gathers, views of symbolic sequences and slices.

use super::lanes::add_index;
use super::seq::plain;

use crate::array::{self, DimIdx};
use crate::eval::Frame;
use crate::ir::{Exp, FlexLit, IdxExp};
use crate::value::Value;

use super::*;

impl Cx<'_> {
    pub(super) fn index(&mut self, a: &Exp, idx: &[IdxExp], vf: &mut VFrame<'_>) -> VResult<V> {
        let arr = self.eval(a, vf)?;
        let mut fixed = Vec::with_capacity(idx.len());
        for i in idx {
            match i {
                IdxExp::Fix(x) => fixed.push(match x {
                    Exp::FlexLit(FlexLit::Int(k)) => V::Uni(Value::i64(*k as i64)),
                    x => self.eval_seq(x, vf)?,
                }),
                IdxExp::Slice(..) => {
                    // Slices with lane-dependent parts are not vectorised; uniform ones
                    // are evaluated once.
                    if matches!(arr, V::Uni(_)) && !self.mentions_lanes_idx(idx, vf) {
                        let mut frame = Frame::new(vf.slots.len(), vf.env, None);
                        for (k, s) in vf.slots.iter().enumerate() {
                            if let Some(V::Uni(v)) = s {
                                frame.slots[k] = v.clone();
                            }
                        }
                        let ix =
                            crate::eval::exp::eval_idx(self.m, idx, &mut frame).or_else(retry)?;
                        return match &arr {
                            V::Uni(Value::Array(a)) => {
                                array::index(a, &ix).map(V::Uni).or_else(retry)
                            }
                            _ => Err(Fail::Retry),
                        };
                    }
                    return Err(Fail::No);
                }
            }
        }
        // Uniform leading indices of a uniform array select a view first (no copying), so
        // `a[i, j]` with uniform `i` gathers from one row.
        let mut arr = arr;
        if let V::Uni(Value::Array(a)) = &arr {
            let k = fixed.iter().take_while(|v| matches!(v, V::Uni(_))).count();
            if k > 0 && k < fixed.len() {
                let lead: Vec<DimIdx> = fixed[..k]
                    .iter()
                    .map(|v| match v {
                        V::Uni(x) => DimIdx::Fix(x.as_i64().unwrap_or(-1)),
                        _ => DimIdx::Fix(-1),
                    })
                    .collect();
                let sub = array::index(a, &lead).or_else(retry)?;
                arr = V::Uni(sub);
                fixed.drain(..k);
            }
        }
        if let ([V::Seq(start)], V::Uni(Value::Array(a))) = (fixed.as_slice(), &arr)
            && a.rank() == 1
            && let Some(out) = lanes::seq_view(a, *start, vf.n, vf.mask.as_deref())
        {
            return Ok(V::Lanes(out));
        }
        if let ([V::Wrap(start, modulus)], V::Uni(Value::Array(a))) = (fixed.as_slice(), &arr)
            && a.rank() == 1
            && let Some(out) = lanes::wrapped_copy(a, *start, *modulus, vf.n)
        {
            return Ok(V::Lanes(out));
        }
        if let V::Uni(Value::Array(a)) = &arr
            && fixed.iter().any(|v| matches!(v, V::Aff(_)))
            && let Some(out) = affine::index(a, &fixed, vf.n, vf.mask.as_deref())
        {
            return out.map(V::Lanes);
        }
        let n = vf.n;
        let fixed: Vec<V> = fixed.into_iter().map(|v| plain(v, n)).collect();
        if let ([V::Lanes(ix)], V::Uni(Value::Array(a))) = (fixed.as_slice(), &arr)
            && a.rank() == 1
            && let Some(out) = lanes::gather_1d(a, ix, vf.mask.as_deref())
        {
            return out.map(V::Lanes);
        }
        let all_uni = fixed.iter().all(|v| matches!(v, V::Uni(_)));
        match (&arr, all_uni) {
            (V::Uni(Value::Array(a)), true) => {
                let idx: Vec<DimIdx> = fixed
                    .iter()
                    .map(|v| match v {
                        V::Uni(x) => DimIdx::Fix(x.as_i64().unwrap_or(-1)),
                        _ => DimIdx::Fix(-1),
                    })
                    .collect();
                array::index(a, &idx).map(V::Uni).or_else(retry)
            }
            (V::Uni(_), true) => Err(Fail::Retry),
            _ => {
                let n = vf.n;
                // Lanes of arrays index with the lane number as an extra leading index.
                let (base, mut cols) = match &arr {
                    V::Uni(Value::Array(a)) => (a.clone(), Vec::new()),
                    V::Lanes(Value::Array(a)) => {
                        (a.clone(), vec![(0..n as i64).collect::<Vec<i64>>()])
                    }
                    _ => return Err(Fail::No),
                };
                let mut cells = vec![0usize; n];
                let mut d = 0;
                if !cols.is_empty() {
                    let dim = base.shape[0];
                    if dim < n as i64 {
                        return Err(Fail::Retry);
                    }
                    for (k, c) in cells.iter_mut().enumerate() {
                        *c = k;
                    }
                    d = 1;
                }
                cols.clear();
                for v in &fixed {
                    let Some(&dim) = base.shape.get(d) else {
                        return Err(Fail::Retry);
                    };
                    add_index(&mut cells, v, dim, vf.mask.as_deref())?;
                    d += 1;
                }
                let p = array::Plan {
                    indexed: d,
                    slice_dims: vec![n as i64],
                    cells: array::Cells::List(cells),
                };
                Ok(V::Lanes(array::apply_plan(&base, &p)))
            }
        }
    }

    pub(super) fn mentions_lanes_idx(&self, idx: &[IdxExp], vf: &VFrame<'_>) -> bool {
        idx.iter().any(|i| match i {
            IdxExp::Fix(x) => self.mentions_lanes(x, vf),
            IdxExp::Slice(a, b, c) => [a, b, c]
                .into_iter()
                .flatten()
                .any(|x| self.mentions_lanes(x, vf)),
        })
    }
}
