//! Host-side array operations of host code: indexing and slicing, in-place updates,
//! iota, replicate, rearrange and concatenation, on host buffers.

use futhark_ir::types::{PrimType, PrimValue};
use futhark_values::Buffer;

use crate::error::{ExecError, Result};
use crate::prim::{self, from_int};
use crate::value::{elems, show_shape};

/// One evaluated dimension of an index.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Idx {
    Fix(i64),
    Slice { start: i64, len: i64, stride: i64 },
}

/// `[i, a:b:s]` as Futhark's messages print an index.
pub fn show_index(idx: &[Idx]) -> String {
    let parts: Vec<String> = idx
        .iter()
        .map(|i| match *i {
            Idx::Fix(x) => x.to_string(),
            Idx::Slice { start, len, stride } => {
                let end = start + len * stride;
                if stride == 1 {
                    format!("{start}:{end}")
                } else {
                    format!("{start}:{end}:{stride}")
                }
            }
        })
        .collect();
    format!("[{}]", parts.join(", "))
}

fn out_of_bounds(shape: &[i64], idx: &[Idx]) -> ExecError {
    ExecError::runtime(format!(
        "Index {} out of bounds for array of shape {}.",
        show_index(idx),
        show_shape(shape)
    ))
}

/// What an index selects: the result shape and, per dimension of the source, the
/// positions taken (all of an unindexed dimension).
pub struct Selection {
    pub shape: Vec<i64>,
    per_dim: Vec<Vec<i64>>,
    src_shape: Vec<i64>,
}

impl Selection {
    /// Checks `idx` against `shape` (Futhark's rules: a slice of length 0 is always valid).
    pub fn new(shape: &[i64], idx: &[Idx]) -> Result<Selection> {
        if idx.len() > shape.len() {
            return Err(out_of_bounds(shape, idx));
        }
        let mut out_shape = Vec::new();
        let mut per_dim = Vec::new();
        for (k, &n) in shape.iter().enumerate() {
            match idx.get(k) {
                Some(Idx::Fix(i)) => {
                    if *i < 0 || *i >= n {
                        return Err(out_of_bounds(shape, idx));
                    }
                    per_dim.push(vec![*i]);
                }
                Some(Idx::Slice { start, len, stride }) => {
                    let (start, len, stride) = (*start, *len, *stride);
                    if len < 0 {
                        return Err(out_of_bounds(shape, idx));
                    }
                    if len > 0 {
                        let last = start + (len - 1) * stride;
                        if start < 0 || start >= n || last < 0 || last >= n {
                            return Err(out_of_bounds(shape, idx));
                        }
                    }
                    out_shape.push(len);
                    per_dim.push((0..len).map(|j| start + j * stride).collect());
                }
                None => {
                    out_shape.push(n);
                    per_dim.push((0..n).collect());
                }
            }
        }
        Ok(Selection {
            shape: out_shape,
            per_dim,
            src_shape: shape.to_vec(),
        })
    }

    /// The flat positions selected, row-major in the result's order.
    pub fn positions(&self) -> Vec<usize> {
        let mut strides = vec![1i64; self.src_shape.len()];
        for k in (0..self.src_shape.len().saturating_sub(1)).rev() {
            strides[k] = strides[k + 1] * self.src_shape[k + 1].max(0);
        }
        let mut out = vec![0i64];
        for (k, pos) in self.per_dim.iter().enumerate() {
            let mut next = Vec::with_capacity(out.len() * pos.len());
            for base in &out {
                for p in pos {
                    next.push(base + p * strides[k]);
                }
            }
            out = next;
        }
        out.into_iter().map(|p| p as usize).collect()
    }

    /// The selected positions as one contiguous range `(start, len)`, if they are one.
    pub fn contiguous(positions: &[usize]) -> Option<(usize, usize)> {
        let start = positions.first().copied().unwrap_or(0);
        positions
            .iter()
            .enumerate()
            .all(|(j, p)| *p == start + j)
            .then_some((start, positions.len()))
    }
}

/// Evaluated index against a shape, as a `Selection`.
pub fn select(shape: &[i64], idx: &[Idx]) -> Result<Selection> {
    Selection::new(shape, idx)
}

/// Writes `src` (one element per selected position, in order) into `dst`.
pub fn scatter_into(dst: &mut Buffer, positions: &[usize], src: &Buffer) -> Result<()> {
    if src.len() != positions.len() {
        return Err(ExecError::malformed("update with a value of another size"));
    }
    for (j, &p) in positions.iter().enumerate() {
        let v = prim::get(src, j).ok_or_else(|| ExecError::malformed("update source"))?;
        prim::set(dst, p, v)?;
    }
    Ok(())
}

/// `[start, start+stride, …]`, `n` elements of integer type `t`.
pub fn iota(n: i64, start: PrimValue, stride: PrimValue, t: PrimType) -> Result<Buffer> {
    let (s, d) = (prim::int(start), prim::int(stride));
    prim::from_values(
        t,
        (0..n.max(0)).map(|i| from_int(t, s.wrapping_add(d.wrapping_mul(i as i128)))),
    )
}

/// `times` copies of `row`.
pub fn tile(row: &Buffer, times: usize) -> Buffer {
    futhark_values::map_buffer!(row, v => {
        let mut out = Vec::with_capacity(v.len() * times);
        for _ in 0..times {
            out.extend_from_slice(v);
        }
        out
    })
}

/// Dimensions permuted: result dimension i is dimension `perm[i]` of the source.
pub fn rearrange(buf: &Buffer, shape: &[i64], perm: &[usize]) -> Result<(Vec<i64>, Buffer)> {
    if perm.len() != shape.len() || perm.iter().any(|&p| p >= shape.len()) {
        return Err(ExecError::malformed(
            "rearrange permutation does not fit the rank",
        ));
    }
    let new_shape: Vec<i64> = perm.iter().map(|&p| shape[p]).collect();
    let rank = shape.len();
    let mut src_strides = vec![1usize; rank];
    for k in (0..rank.saturating_sub(1)).rev() {
        src_strides[k] = src_strides[k + 1] * shape[k + 1].max(0) as usize;
    }
    let n = elems(&new_shape);
    let mut positions = Vec::with_capacity(n);
    let mut idx = vec![0i64; rank];
    for _ in 0..n {
        let p: usize = (0..rank)
            .map(|i| idx[i] as usize * src_strides[perm[i]])
            .sum();
        positions.push(p);
        for k in (0..rank).rev() {
            idx[k] += 1;
            if idx[k] < new_shape[k] {
                break;
            }
            idx[k] = 0;
        }
    }
    Ok((new_shape, prim::gather(buf, &positions)?))
}
