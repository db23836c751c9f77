//! Maps nested inside vectorised code: `map (map f) xss`, `map2 (map2 f) xss yss`, … .
//!
//! When the lanes of a vectorised call are rows of arrays (each lane an array of `k`
//! elements), `zip` of such lanes is a record array per lane, and `map g` over them (with
//! `g` the same in every lane) is `g` evaluated once over all `n · k` elements: the lane
//! and element dimensions merge into one (a view, since arrays are stored row-major), `g`
//! runs vectorised, and the result is split back into lanes. The elements are processed in
//! blocks of whole rows, so that the temporaries of `g` stay in cache.

use std::rc::Rc;

use futhark_values::Buffer;

use crate::eval::Machine;
use crate::ir::Exp;
use crate::value::{Array, ArrayData, Value, buf_extend, tuple_names};

/// About how many elements one vectorised evaluation of the inner function covers.
const BLOCK: usize = 16 * 1024;

/// The number of lanes and the row length of a value whose lanes are arrays.
fn lanes_of_rows(v: &Value) -> Option<(usize, usize)> {
    match v {
        Value::Array(a) if a.shape.len() >= 2 && !matches!(a.data, ArrayData::Boxed(_)) => {
            Some((a.shape[0].max(0) as usize, a.shape[1].max(0) as usize))
        }
        _ => None,
    }
}

/// `zip` applied lane by lane to lanes of rows of the same length: a record array per lane.
pub(super) fn zip_lanes(parts: &[Value]) -> Option<Value> {
    let (n, k) = lanes_of_rows(parts.first()?)?;
    let mut fields = Vec::with_capacity(parts.len());
    for p in parts {
        if lanes_of_rows(p)? != (n, k) {
            return None;
        }
        match p {
            Value::Array(a) => fields.push(a.clone()),
            _ => return None,
        }
    }
    Some(Value::Array(Rc::new(Array {
        shape: vec![n as i64, k as i64],
        data: ArrayData::Record {
            names: tuple_names(parts.len()),
            fields,
        },
    })))
}

/// Merges the two outer dimensions (`[n][k]…` to `[n·k]…`) without copying.
pub(super) fn merge_outer(a: &Array) -> Option<Array> {
    let (n, k) = (a.shape.first()?, a.shape.get(1)?);
    let mut shape = vec![n.checked_mul(*k)?];
    shape.extend_from_slice(&a.shape[2..]);
    let data = match &a.data {
        ArrayData::Prim { .. } => a.data.clone(),
        ArrayData::Record { names, fields } => ArrayData::Record {
            names: names.clone(),
            fields: fields
                .iter()
                .map(|f| merge_outer(f).map(Rc::new))
                .collect::<Option<_>>()?,
        },
        ArrayData::Boxed(_) => return None,
    };
    Some(Array { shape, data })
}

/// Splits the outer dimension back into lanes of `k` (`[n·k]…` to `[n][k]…`).
pub(super) fn split_outer(a: &Array, n: usize, k: usize) -> Option<Array> {
    if a.shape.first().copied() != Some((n * k) as i64) {
        return None;
    }
    let mut shape = vec![n as i64, k as i64];
    shape.extend_from_slice(&a.shape[1..]);
    let data = match &a.data {
        ArrayData::Prim { .. } => a.data.clone(),
        ArrayData::Record { names, fields } => ArrayData::Record {
            names: names.clone(),
            fields: fields
                .iter()
                .map(|f| split_outer(f, n, k).map(Rc::new))
                .collect::<Option<_>>()?,
        },
        ArrayData::Boxed(_) => return None,
    };
    Some(Array { shape, data })
}

/// Elements `[start, end)` of the outer dimension, as a view.
pub(super) fn rows(a: &Array, start: usize, end: usize) -> Array {
    let mut shape = a.shape.clone();
    shape[0] = (end - start) as i64;
    let data = match &a.data {
        ArrayData::Prim { buf, offset } => {
            let inner: usize = a.shape[1..].iter().map(|&d| d.max(0) as usize).product();
            ArrayData::Prim {
                buf: buf.clone(),
                offset: offset + start * inner,
            }
        }
        ArrayData::Record { names, fields } => ArrayData::Record {
            names: names.clone(),
            fields: fields
                .iter()
                .map(|f| Rc::new(rows(f, start, end)))
                .collect(),
        },
        ArrayData::Boxed(xs) => ArrayData::Boxed(Rc::new(xs[start..end].to_vec())),
    };
    Array { shape, data }
}

/// Appends the elements of `b` to `a` along the outer dimension (same row types).
pub(super) fn append(a: &mut Array, b: &Array) -> Option<()> {
    let elems = a.elems();
    match (&mut a.data, &b.data) {
        (
            ArrayData::Prim { buf, offset },
            ArrayData::Prim {
                buf: bb,
                offset: bo,
            },
        ) if *offset == 0 && buf.len() == elems && a.shape[1..] == b.shape[1..] => {
            let dst = Rc::make_mut(buf);
            if !buf_extend(dst, bb, *bo, b.elems()) {
                return None;
            }
        }
        (ArrayData::Record { fields, .. }, ArrayData::Record { fields: bf, .. })
            if fields.len() == bf.len() =>
        {
            for (f, g) in fields.iter_mut().zip(bf) {
                append(Rc::make_mut(f), g)?;
            }
        }
        _ => return None,
    }
    a.shape[0] += b.shape[0];
    Some(())
}

/// A copy of `a` that owns its buffers from offset 0, with room for `total` outer elements.
pub(super) fn owned(a: &Array, total: usize) -> Option<Array> {
    let data = match &a.data {
        ArrayData::Prim { buf, offset } => {
            let len = a.elems();
            let per = len / (a.shape[0].max(1) as usize);
            let mut out = Buffer::with_capacity(buf.elem_type(), per * total);
            if !buf_extend(&mut out, buf, *offset, len) {
                return None;
            }
            ArrayData::Prim {
                buf: Rc::new(out),
                offset: 0,
            }
        }
        ArrayData::Record { names, fields } => ArrayData::Record {
            names: names.clone(),
            fields: fields
                .iter()
                .map(|f| owned(f, total).map(Rc::new))
                .collect::<Option<_>>()?,
        },
        ArrayData::Boxed(_) => return None,
    };
    Some(Array {
        shape: a.shape.clone(),
        data,
    })
}

/// Whether `g`'s body is built from its variables by tuples and records only.
fn regroups(g: &Value) -> bool {
    fn go(e: &Exp) -> bool {
        match e {
            Exp::Local(_) | Exp::LocalMove(_) => true,
            Exp::Tuple(es) => es.iter().all(go),
            Exp::Record { exps, .. } => exps.iter().all(go),
            _ => false,
        }
    }
    super::closure_parts(g).is_some_and(|(lam, _, _)| go(&lam.body))
}

/// `map g` in every lane of `xs` (lanes of rows), as one vectorised evaluation of `g` over
/// all elements, block by block. `None` when `g` cannot be vectorised over them.
pub(super) fn map_lanes(m: &mut Machine, g: &Value, xs: &Value) -> Option<Value> {
    let (n, k) = lanes_of_rows(xs)?;
    let Value::Array(xa) = xs else {
        return None;
    };
    if n == 0 || k == 0 {
        return None;
    }
    let flat = merge_outer(xa)?;
    // A function that only regroups its argument (`\(x, (y, z)) -> (x, y, z)` in `zip3`)
    // gives views of its input: one evaluation, no copies.
    let per_block = if regroups(g) { n } else { (BLOCK / k).max(1) };
    let mut out: Option<Array> = None;
    let mut start = 0;
    while start < n {
        let end = (start + per_block).min(n);
        let part = Value::Array(Rc::new(rows(&flat, start * k, end * k)));
        let Ok(Some(Value::Array(r))) = super::run(m, g, vec![part], (end - start) * k) else {
            return None;
        };
        match &mut out {
            None if end == n => out = Some((*r).clone()),
            None => out = Some(owned(&r, n * k)?),
            Some(acc) => append(acc, &r)?,
        }
        start = end;
    }
    let merged = out?;
    Some(Value::Array(Rc::new(split_outer(&merged, n, k)?)))
}
