//! Building, indexing, slicing and updating arrays in their flat representations.
//!
//! Index expressions are first checked against the shape and turned into a [`Plan`]: the
//! shape of the result plus the "cells" (positions in the row-major space of the indexed
//! dimensions) it selects. The same plan then applies to a primitive buffer, to every field of
//! a record array, or to boxed elements, with each cell standing for a contiguous block of the
//! dimensions that were not indexed. A plan whose cells are one contiguous run of a primitive
//! array becomes a view into the same buffer instead of a copy.

use std::rc::Rc;

use futhark_values::{Buffer, PrimType};

use crate::errors::{Result, RuntimeError, err};
use crate::prim::Prim;
use crate::value::{
    Array, ArrayData, Name, Record, TypeDesc, Value, buf_copy, buf_extend, buf_get, buf_push,
    buf_set, prim_zero,
};

/// One index of an index expression, evaluated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DimIdx {
    Fix(i64),
    Slice {
        start: Option<i64>,
        end: Option<i64>,
        stride: Option<i64>,
    },
}

/// Which positions of the indexed dimensions a plan selects.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cells {
    /// `len` consecutive cells from `start`.
    Range(usize, usize),
    List(Vec<usize>),
}

impl Cells {
    fn len(&self) -> usize {
        match self {
            Cells::Range(_, n) => *n,
            Cells::List(v) => v.len(),
        }
    }

    fn get(&self, i: usize) -> usize {
        match self {
            Cells::Range(s, _) => s + i,
            Cells::List(v) => v[i],
        }
    }
}

/// A checked index expression: how many leading dimensions it consumes, the dimensions it
/// keeps from slices, and the selected cells.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    pub indexed: usize,
    pub slice_dims: Vec<i64>,
    pub cells: Cells,
}

fn show_index(idx: &[DimIdx]) -> String {
    let parts: Vec<String> = idx
        .iter()
        .map(|d| match *d {
            DimIdx::Fix(i) => i.to_string(),
            DimIdx::Slice { start, end, stride } => {
                let mut s = String::new();
                if let Some(x) = start {
                    s.push_str(&x.to_string());
                }
                s.push(':');
                if let Some(x) = end {
                    s.push_str(&x.to_string());
                }
                if let Some(x) = stride {
                    s.push(':');
                    s.push_str(&x.to_string());
                }
                s
            }
        })
        .collect();
    format!("[{}]", parts.join(", "))
}

/// Shape as the error messages show it: `[2][3]`.
pub fn show_shape(shape: &[i64]) -> String {
    shape.iter().map(|d| format!("[{d}]")).collect()
}

/// Checks an index expression against a shape and computes its plan.
pub fn plan(shape: &[i64], idx: &[DimIdx]) -> Result<Plan> {
    let oob = || {
        RuntimeError::new(format!(
            "Index {} out of bounds for array of shape {}.",
            show_index(idx),
            show_shape(shape)
        ))
    };
    if idx.len() > shape.len() {
        return Err(oob());
    }
    // Per indexed dimension: the list of selected positions as (start, count, stride).
    let mut dims: Vec<(i64, i64, i64, bool)> = Vec::with_capacity(idx.len());
    for (d, ix) in idx.iter().enumerate() {
        let n = shape[d];
        match *ix {
            DimIdx::Fix(i) => {
                if i < 0 || i >= n {
                    return Err(oob());
                }
                dims.push((i, 1, 1, false));
            }
            DimIdx::Slice { start, end, stride } => {
                let s = stride.unwrap_or(1);
                if s == 0 {
                    return Err(oob());
                }
                let (i, j) = if s > 0 {
                    (start.unwrap_or(0), end.unwrap_or(n))
                } else {
                    (start.unwrap_or(n - 1), end.unwrap_or(-1))
                };
                // ceil((j - i) / s), never negative.
                let diff = j - i;
                let count = if (diff > 0) == (s > 0) && diff != 0 {
                    (diff + s - s.signum()) / s
                } else {
                    0
                };
                if count > 0 {
                    let last = i + (count - 1) * s;
                    let ok_start = i >= 0 && i < n;
                    let ok_last = last >= 0 && last < n;
                    let ok_end = if s > 0 {
                        j <= n && j >= i
                    } else {
                        j >= -1 && j <= i
                    };
                    if !(ok_start && ok_last && ok_end) {
                        return Err(oob());
                    }
                } else if diff != 0 && (diff > 0) != (s > 0) {
                    // The end is on the wrong side of the start.
                    return Err(oob());
                }
                dims.push((i, count, s, true));
            }
        }
    }
    let slice_dims: Vec<i64> = dims.iter().filter(|d| d.3).map(|d| d.1).collect();
    // Strides of the indexed dimensions within the cell space.
    let k = idx.len();
    let mut strides = vec![1usize; k];
    for d in (0..k.saturating_sub(1)).rev() {
        strides[d] = strides[d + 1] * shape[d + 1].max(0) as usize;
    }
    let total: usize = slice_dims.iter().map(|&c| c as usize).product();
    let base: usize = dims
        .iter()
        .zip(&strides)
        .map(|(&(i, c, _, _), &st)| if c > 0 { i as usize * st } else { 0 })
        .sum();
    // Contiguous when every slice but the last is a single position and the last slice has
    // stride 1, and it is the last index.
    let contiguous = match dims.iter().rposition(|d| d.3) {
        None => true,
        Some(p) => p == k - 1 && dims[p].2 == 1 && dims[..p].iter().all(|d| !d.3 || d.1 == 1),
    };
    let cells = if total == 0 {
        Cells::Range(0, 0)
    } else if contiguous {
        Cells::Range(base, total)
    } else {
        let mut out = Vec::with_capacity(total);
        let mut counter = vec![0i64; k];
        loop {
            let mut cell = 0usize;
            for d in 0..k {
                let (i, _, s, _) = dims[d];
                cell += (i + counter[d] * s) as usize * strides[d];
            }
            out.push(cell);
            // Advance the odometer over the slice dimensions.
            let mut d = k;
            loop {
                if d == 0 {
                    return Ok(Plan {
                        indexed: k,
                        slice_dims,
                        cells: Cells::List(out),
                    });
                }
                d -= 1;
                counter[d] += 1;
                if counter[d] < dims[d].1 {
                    break;
                }
                counter[d] = 0;
            }
        }
    };
    Ok(Plan {
        indexed: k,
        slice_dims,
        cells,
    })
}

/// Evaluates `arr[idx]`.
pub fn index(arr: &Rc<Array>, idx: &[DimIdx]) -> Result<Value> {
    // The common case `a[i]` needs no plan.
    if let [DimIdx::Fix(i)] = idx {
        let n = arr.shape.first().copied().unwrap_or(0);
        if *i >= 0 && *i < n {
            return Ok(row(arr, *i as usize));
        }
    }
    let p = plan(&arr.shape, idx)?;
    Ok(apply_plan(arr, &p))
}

/// Row `i` of an array (assumed in bounds).
pub fn row(arr: &Rc<Array>, i: usize) -> Value {
    let inner: usize = arr.shape[1..].iter().map(|&d| d as usize).product();
    match &arr.data {
        ArrayData::Prim { buf, offset } => {
            if arr.shape.len() == 1 {
                Value::Prim(buf_get(buf, offset + i))
            } else {
                Value::Array(Rc::new(Array {
                    shape: arr.shape[1..].to_vec(),
                    data: ArrayData::Prim {
                        buf: buf.clone(),
                        offset: offset + i * inner,
                    },
                }))
            }
        }
        ArrayData::Record { names, fields } => {
            let values: Vec<Value> = fields.iter().map(|f| row(f, i)).collect();
            if arr.shape.len() == 1 {
                Value::Record(Rc::new(Record {
                    names: names.clone(),
                    values,
                }))
            } else {
                let fields = values
                    .into_iter()
                    .map(|v| match v {
                        Value::Array(a) => a,
                        other => Rc::new(scalar_array(other)),
                    })
                    .collect();
                Value::Array(Rc::new(Array {
                    shape: arr.shape[1..].to_vec(),
                    data: ArrayData::Record {
                        names: names.clone(),
                        fields,
                    },
                }))
            }
        }
        ArrayData::Boxed(elems) => {
            if arr.shape.len() == 1 {
                elems[i].clone()
            } else {
                Value::Array(Rc::new(Array {
                    shape: arr.shape[1..].to_vec(),
                    data: ArrayData::Boxed(Rc::new(elems[i * inner..(i + 1) * inner].to_vec())),
                }))
            }
        }
    }
}

/// A rank-0 "array" never exists; record fields of rank-1 record arrays index to scalars.
/// This wraps a scalar field value for a rank-0 record array, which only arises transiently.
fn scalar_array(v: Value) -> Array {
    match v {
        Value::Prim(p) => {
            let mut buf = Buffer::new(p.ty());
            buf_push(&mut buf, p);
            Array::from_buffer(vec![], buf)
        }
        other => Array {
            shape: vec![],
            data: ArrayData::Boxed(Rc::new(vec![other])),
        },
    }
}

/// Applies a checked plan.
pub fn apply_plan(arr: &Rc<Array>, p: &Plan) -> Value {
    let mut out_shape = p.slice_dims.clone();
    out_shape.extend_from_slice(&arr.shape[p.indexed..]);
    match &arr.data {
        ArrayData::Prim { buf, offset } => {
            let inner: usize = arr.shape[p.indexed..].iter().map(|&d| d as usize).product();
            if out_shape.is_empty() {
                return Value::Prim(buf_get(buf, offset + p.cells.get(0)));
            }
            let data = match &p.cells {
                Cells::Range(start, _) => ArrayData::Prim {
                    buf: buf.clone(),
                    offset: offset + start * inner,
                },
                Cells::List(cells) if inner == 1 => {
                    // Element gathers (vectorised indexing) are the hot case.
                    let off = *offset;
                    let out = futhark_values::map_buffer!(&**buf, v => cells.iter().map(|&c| v[off + c]).collect());
                    ArrayData::Prim {
                        buf: Rc::new(out),
                        offset: 0,
                    }
                }
                Cells::List(cells) => {
                    let mut out = Buffer::with_capacity(buf.elem_type(), cells.len() * inner);
                    for &c in cells {
                        buf_extend(&mut out, buf, offset + c * inner, inner);
                    }
                    ArrayData::Prim {
                        buf: Rc::new(out),
                        offset: 0,
                    }
                }
            };
            Value::Array(Rc::new(Array {
                shape: out_shape,
                data,
            }))
        }
        ArrayData::Record { names, fields } => {
            let values: Vec<Value> = fields.iter().map(|f| apply_plan(f, p)).collect();
            let rank = p.slice_dims.len() + arr.shape.len() - p.indexed;
            if rank == 0 {
                Value::Record(Rc::new(Record {
                    names: names.clone(),
                    values,
                }))
            } else {
                let fields = values
                    .into_iter()
                    .map(|v| match v {
                        Value::Array(a) => a,
                        other => Rc::new(scalar_array(other)),
                    })
                    .collect();
                Value::Array(Rc::new(Array {
                    shape: out_shape,
                    data: ArrayData::Record {
                        names: names.clone(),
                        fields,
                    },
                }))
            }
        }
        ArrayData::Boxed(elems) => {
            let inner: usize = arr.shape[p.indexed..].iter().map(|&d| d as usize).product();
            if out_shape.is_empty() {
                return elems[p.cells.get(0)].clone();
            }
            let mut out = Vec::with_capacity(p.cells.len() * inner);
            for i in 0..p.cells.len() {
                let c = p.cells.get(i);
                out.extend_from_slice(&elems[c * inner..(c + 1) * inner]);
            }
            Value::Array(Rc::new(Array {
                shape: out_shape,
                data: ArrayData::Boxed(Rc::new(out)),
            }))
        }
    }
}

/// Makes a primitive array's buffer exclusively owned and starting at offset 0, copying only
/// when it is shared or a view; returns the buffer for mutation.
pub fn unique_buf(arr: &mut Array) -> Option<&mut Buffer> {
    let n = arr.elems();
    let ArrayData::Prim { buf, offset } = &mut arr.data else {
        return None;
    };
    if *offset != 0 || buf.len() != n {
        let copy = crate::value::buf_range(buf, *offset, n);
        *buf = Rc::new(copy);
        *offset = 0;
    }
    Some(Rc::make_mut(buf))
}

/// `arr with [idx] = v`, in place when `arr` is the only reference.
pub fn update(mut arr: Rc<Array>, idx: &[DimIdx], v: &Value) -> Result<Rc<Array>> {
    // Fast path: one fixed index into a one-dimensional primitive array.
    if let ([DimIdx::Fix(i)], Value::Prim(x)) = (idx, v)
        && arr.shape.len() == 1
        && *i >= 0
        && *i < arr.shape[0]
    {
        let a = Rc::make_mut(&mut arr);
        if let Some(buf) = unique_buf(a)
            && buf_set(buf, *i as usize, *x)
        {
            return Ok(arr);
        }
    }
    let p = plan(&arr.shape, idx)?;
    if contains_dual(v) && matches!(arr.data, ArrayData::Prim { .. }) {
        arr = Rc::new(to_boxed(&arr));
    }
    let mut expect = p.slice_dims.clone();
    expect.extend_from_slice(&arr.shape[p.indexed..]);
    let got = v.shape();
    let got = &got[..got.len().min(expect.len())];
    if got != expect.as_slice() {
        return err(format!(
            "Cannot update array of shape {} at index {} with value of shape {}.",
            show_shape(&arr.shape),
            show_index(idx),
            show_shape(&v.shape())
        ));
    }
    write_plan(Rc::make_mut(&mut arr), &p, v)?;
    Ok(arr)
}

/// Whether a value holds dual numbers (which primitive buffers cannot store).
fn contains_dual(v: &Value) -> bool {
    match v {
        Value::Dual(_) => true,
        Value::Array(a) => match &a.data {
            ArrayData::Boxed(es) => es.iter().any(contains_dual),
            ArrayData::Record { fields, .. } => fields
                .iter()
                .any(|f| contains_dual(&Value::Array(f.clone()))),
            ArrayData::Prim { .. } => false,
        },
        Value::Record(r) => r.values.iter().any(contains_dual),
        _ => false,
    }
}

/// The same array with boxed elements.
pub fn to_boxed(a: &Rc<Array>) -> Array {
    match &a.data {
        ArrayData::Record { names, fields } => Array {
            shape: a.shape.clone(),
            data: ArrayData::Record {
                names: names.clone(),
                fields: fields.iter().map(|f| Rc::new(to_boxed(f))).collect(),
            },
        },
        _ => Array {
            shape: a.shape.clone(),
            data: ArrayData::Boxed(Rc::new(flat_elems(&Value::Array(a.clone())))),
        },
    }
}

/// Writes `v` through a plan computed elsewhere (flat updates).
pub fn update_plan(mut arr: Rc<Array>, p: &Plan, v: &Value) -> Result<Rc<Array>> {
    write_plan(Rc::make_mut(&mut arr), p, v)?;
    Ok(arr)
}

/// Writes `v` (shaped like the plan's result) into the selected cells.
fn write_plan(arr: &mut Array, p: &Plan, v: &Value) -> Result<()> {
    let inner: usize = arr.shape[p.indexed..].iter().map(|&d| d as usize).product();
    match &mut arr.data {
        ArrayData::Prim { .. } => {
            let buf = unique_buf(arr).ok_or_else(|| RuntimeError::new("bad update"))?;
            match v {
                Value::Prim(x) => {
                    if !buf_set(buf, p.cells.get(0), *x) {
                        return err("Cannot update array with a value of another type.");
                    }
                }
                Value::Array(src) => {
                    let src = as_prim_array(src)?;
                    let (sbuf, soff, _) = src
                        .prim_slice()
                        .ok_or_else(|| RuntimeError::new("bad update"))?;
                    for i in 0..p.cells.len() {
                        let c = p.cells.get(i);
                        if !buf_copy(buf, c * inner, sbuf, soff + i * inner, inner) {
                            return err("Cannot update array with a value of another type.");
                        }
                    }
                }
                _ => return err("Cannot update a primitive array with a non-primitive value."),
            }
        }
        ArrayData::Record { names, fields } => {
            let rank = p.slice_dims.len() + arr.shape.len() - p.indexed;
            for f in fields.iter_mut() {
                if contains_dual(v) && matches!(f.data, ArrayData::Prim { .. }) {
                    *f = Rc::new(to_boxed(f));
                }
            }
            for (j, f) in fields.iter_mut().enumerate() {
                let fv = if rank == 0 {
                    v.field(&names[j]).cloned()
                } else {
                    match v {
                        Value::Array(a) => match &as_record_array(a)?.data {
                            ArrayData::Record { fields, .. } => {
                                fields.get(j).map(|x| Value::Array(x.clone()))
                            }
                            _ => None,
                        },
                        _ => None,
                    }
                };
                let fv = fv.ok_or_else(|| {
                    RuntimeError::new("Cannot update record array: field mismatch.")
                })?;
                write_plan(Rc::make_mut(f), p, &fv)?;
            }
        }
        ArrayData::Boxed(elems) => {
            let elems = Rc::make_mut(elems);
            if p.slice_dims.is_empty() && inner == 1 {
                elems[p.cells.get(0)] = v.clone();
            } else {
                let src = flat_elems(v);
                for i in 0..p.cells.len() {
                    let c = p.cells.get(i);
                    elems[c * inner..(c + 1) * inner]
                        .clone_from_slice(&src[i * inner..(i + 1) * inner]);
                }
            }
        }
    }
    Ok(())
}

/// All innermost (non-array) elements of a value in row-major order.
pub fn flat_elems(v: &Value) -> Vec<Value> {
    match v {
        Value::Array(a) => {
            let mut out = Vec::with_capacity(a.elems());
            collect_elems(a, &mut out);
            out
        }
        other => vec![other.clone()],
    }
}

fn collect_elems(a: &Rc<Array>, out: &mut Vec<Value>) {
    match &a.data {
        ArrayData::Prim { buf, offset } => {
            out.extend((0..a.elems()).map(|i| Value::Prim(buf_get(buf, offset + i))))
        }
        ArrayData::Boxed(elems) => out.extend(elems.iter().cloned()),
        ArrayData::Record { .. } => {
            for i in 0..a.len() {
                match row(a, i) {
                    Value::Array(r) => collect_elems(&r, out),
                    other => out.push(other),
                }
            }
        }
    }
}

/// The array as a primitive array, converting boxed primitive elements.
pub fn as_prim_array(a: &Rc<Array>) -> Result<Rc<Array>> {
    match &a.data {
        ArrayData::Prim { .. } => Ok(a.clone()),
        _ => {
            let elems = flat_elems(&Value::Array(a.clone()));
            let ty = match elems.first().and_then(Value::as_prim) {
                Some(p) => p.ty(),
                None => return err("expected an array of primitive values"),
            };
            let mut buf = Buffer::with_capacity(ty, elems.len());
            for e in elems {
                match e.as_prim() {
                    Some(p) if buf_push(&mut buf, p) => {}
                    _ => return err("expected an array of primitive values"),
                }
            }
            Ok(Rc::new(Array::from_buffer(a.shape.clone(), buf)))
        }
    }
}

/// The array as a record array (converting boxed records).
pub fn as_record_array(a: &Rc<Array>) -> Result<Rc<Array>> {
    match &a.data {
        ArrayData::Record { .. } => Ok(a.clone()),
        _ => {
            let rows: Vec<Value> = (0..a.len()).map(|i| row(a, i)).collect();
            match stack(rows, None)? {
                Value::Array(r) if matches!(r.data, ArrayData::Record { .. }) => Ok(r),
                _ => err("expected an array of records"),
            }
        }
    }
}

/// Stacks values of equal shape into an array with one more dimension. `row_type` gives
/// the row type when there are no rows.
pub fn stack(rows: Vec<Value>, row_type: Option<&TypeDesc>) -> Result<Value> {
    let n = rows.len() as i64;
    let Some(first) = rows.first() else {
        return Ok(match row_type {
            Some(t) => blank(&prepend(0, t)),
            None => Value::Array(Rc::new(Array {
                shape: vec![0],
                data: ArrayData::Boxed(Rc::new(Vec::new())),
            })),
        });
    };
    let has_dual = |rows: &[Value]| rows.iter().any(|r| matches!(r, Value::Dual(_)));
    match first {
        Value::Prim(_) | Value::Dual(_) if has_dual(&rows) => Ok(Value::Array(Rc::new(Array {
            shape: vec![n],
            data: ArrayData::Boxed(Rc::new(rows)),
        }))),
        Value::Prim(p) => {
            let mut buf = Buffer::with_capacity(p.ty(), rows.len());
            for r in &rows {
                match r {
                    Value::Prim(x) if buf_push(&mut buf, *x) => {}
                    _ => return err("Cannot create array: elements have different types."),
                }
            }
            Ok(Value::Array(Rc::new(Array::from_buffer(vec![n], buf))))
        }
        Value::Record(r0) => {
            let names = r0.names.clone();
            let mut cols: Vec<Vec<Value>> = vec![Vec::with_capacity(rows.len()); names.len()];
            for r in rows {
                match r {
                    Value::Record(rec) if rec.names.len() == names.len() => {
                        for (c, v) in cols.iter_mut().zip(rec.values.iter()) {
                            c.push(v.clone());
                        }
                    }
                    _ => return err("Cannot create array: elements have different types."),
                }
            }
            let mut fields = Vec::with_capacity(cols.len());
            for c in cols {
                match stack(c, None)? {
                    Value::Array(a) => fields.push(a),
                    _ => return err("Cannot create array."),
                }
            }
            Ok(Value::Array(Rc::new(Array {
                shape: vec![n],
                data: ArrayData::Record { names, fields },
            })))
        }
        Value::Array(a0) => {
            let row_shape = a0.shape.clone();
            for r in &rows {
                match r {
                    Value::Array(a) if a.shape == row_shape => {}
                    _ => {
                        return err(format!(
                            "Cannot create array: rows of shape {} and {} differ.",
                            show_shape(&row_shape),
                            show_shape(&r.shape())
                        ));
                    }
                }
            }
            let mut shape = vec![n];
            shape.extend_from_slice(&row_shape);
            let arrays: Vec<&Rc<Array>> = rows.iter().filter_map(Value::as_array).collect();
            stack_arrays(shape, &arrays)
        }
        _ => Ok(Value::Array(Rc::new(Array {
            shape: vec![n],
            data: ArrayData::Boxed(Rc::new(rows)),
        }))),
    }
}

/// Concatenates the storage of arrays of one shape into an array of `shape`.
fn stack_arrays(shape: Vec<i64>, arrays: &[&Rc<Array>]) -> Result<Value> {
    let same_kind = |f: fn(&ArrayData) -> bool| arrays.iter().all(|a| f(&a.data));
    if same_kind(|d| matches!(d, ArrayData::Prim { .. })) {
        let ty = arrays[0].prim_type().unwrap_or(PrimType::I32);
        let total: usize = arrays.iter().map(|a| a.elems()).sum();
        let mut buf = Buffer::with_capacity(ty, total);
        for a in arrays {
            if let Some((b, off, len)) = a.prim_slice()
                && !buf_extend(&mut buf, b, off, len)
            {
                return err("Cannot create array: elements have different types.");
            }
        }
        return Ok(Value::Array(Rc::new(Array::from_buffer(shape, buf))));
    }
    if same_kind(|d| matches!(d, ArrayData::Record { .. })) {
        let ArrayData::Record { names, fields } = &arrays[0].data else {
            return err("Cannot create array.");
        };
        let mut out = Vec::with_capacity(fields.len());
        for j in 0..fields.len() {
            let col: Vec<Value> = arrays
                .iter()
                .map(|a| match &a.data {
                    ArrayData::Record { fields, .. } => {
                        fields.get(j).map(|f| Value::Array(f.clone()))
                    }
                    _ => None,
                })
                .collect::<Option<Vec<_>>>()
                .ok_or_else(|| RuntimeError::new("Cannot create array."))?;
            match stack(col, None)? {
                Value::Array(a) => out.push(a),
                _ => return err("Cannot create array."),
            }
        }
        let outer = shape[..arrays[0].shape.len() + 1].to_vec();
        return Ok(Value::Array(Rc::new(Array {
            shape: outer,
            data: ArrayData::Record {
                names: names.clone(),
                fields: out,
            },
        })));
    }
    // Mixed or boxed storage: go through the innermost elements.
    let mut elems = Vec::new();
    for a in arrays {
        collect_elems(a, &mut elems);
    }
    from_flat_elems(shape, elems)
}

/// Builds an array of `shape` from its innermost elements in row-major order.
pub fn from_flat_elems(shape: Vec<i64>, elems: Vec<Value>) -> Result<Value> {
    let dual = elems.iter().any(|e| matches!(e, Value::Dual(_)));
    match elems.first() {
        Some(Value::Prim(p)) if !dual => {
            let mut buf = Buffer::with_capacity(p.ty(), elems.len());
            for e in &elems {
                match e {
                    Value::Prim(x) if buf_push(&mut buf, *x) => {}
                    _ => return err("Cannot create array: elements have different types."),
                }
            }
            Ok(Value::Array(Rc::new(Array::from_buffer(shape, buf))))
        }
        Some(Value::Record(_)) => {
            let flat = match stack(elems, None)? {
                Value::Array(a) => a,
                _ => return err("Cannot create array."),
            };
            reshape(&flat, shape)
        }
        _ => Ok(Value::Array(Rc::new(Array {
            shape,
            data: ArrayData::Boxed(Rc::new(elems)),
        }))),
    }
}

/// The same elements under a new shape of the same size (outer dimensions of record arrays).
pub fn reshape(a: &Rc<Array>, shape: Vec<i64>) -> Result<Value> {
    let old = a.shape.len();
    let data = match &a.data {
        ArrayData::Record { names, fields } => {
            let mut nf = Vec::with_capacity(fields.len());
            for f in fields {
                let mut s = shape.clone();
                s.extend_from_slice(&f.shape[old..]);
                match reshape(f, s)? {
                    Value::Array(x) => nf.push(x),
                    _ => return err("bad reshape"),
                }
            }
            ArrayData::Record {
                names: names.clone(),
                fields: nf,
            }
        }
        d => d.clone(),
    };
    Ok(Value::Array(Rc::new(Array { shape, data })))
}

fn prepend(n: i64, t: &TypeDesc) -> TypeDesc {
    match t {
        TypeDesc::Array(dims, elem) => {
            let mut d = vec![n];
            d.extend_from_slice(dims);
            TypeDesc::Array(d, elem.clone())
        }
        other => TypeDesc::Array(vec![n], Box::new(other.clone())),
    }
}

/// A value of the given type with every element zero (or `false`); the shape of empty arrays.
pub fn blank(t: &TypeDesc) -> Value {
    match t {
        TypeDesc::Prim(p) => Value::Prim(prim_zero(*p)),
        TypeDesc::Record(names, ts) => Value::Record(Rc::new(Record {
            names: names.iter().map(|n| Name::from(n.as_str())).collect(),
            values: ts.iter().map(blank).collect(),
        })),
        TypeDesc::Opaque => Value::unit(),
        TypeDesc::Array(dims, elem) => {
            let n: usize = dims.iter().map(|&d| d.max(0) as usize).product();
            match &**elem {
                TypeDesc::Prim(p) => Value::Array(Rc::new(Array::from_buffer(
                    dims.clone(),
                    crate::value::buf_fill(prim_zero(*p), n),
                ))),
                TypeDesc::Array(inner, e) => {
                    let mut d = dims.clone();
                    d.extend_from_slice(inner);
                    blank(&TypeDesc::Array(d, e.clone()))
                }
                TypeDesc::Record(names, ts) => {
                    let fields = ts
                        .iter()
                        .map(|ft| {
                            match blank(&TypeDesc::Array(dims.clone(), Box::new(ft.clone()))) {
                                Value::Array(a) => a,
                                other => Rc::new(scalar_array(other)),
                            }
                        })
                        .collect();
                    Value::Array(Rc::new(Array {
                        shape: dims.clone(),
                        data: ArrayData::Record {
                            names: names.iter().map(|n| Name::from(n.as_str())).collect(),
                            fields,
                        },
                    }))
                }
                TypeDesc::Opaque => Value::Array(Rc::new(Array {
                    shape: dims.clone(),
                    data: ArrayData::Boxed(Rc::new(vec![Value::unit(); n])),
                })),
            }
        }
    }
}

/// Structural equality; floats compare with `==`.
pub fn equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Prim(x), Value::Prim(y)) => prim_eq(*x, *y),
        (Value::Record(x), Value::Record(y)) => {
            x.names.len() == y.names.len()
                && x.names.iter().zip(y.names.iter()).all(|(p, q)| p == q)
                && x.values.iter().zip(&y.values).all(|(p, q)| equal(p, q))
        }
        (Value::Sum(x), Value::Sum(y)) => {
            x.ctor == y.ctor
                && x.payload.len() == y.payload.len()
                && x.payload.iter().zip(&y.payload).all(|(p, q)| equal(p, q))
        }
        (Value::Array(x), Value::Array(y)) => {
            if x.shape != y.shape {
                return false;
            }
            if let (Some((bx, ox, n)), Some((by, oy, _))) = (x.prim_slice(), y.prim_slice()) {
                return (0..n).all(|i| prim_eq(buf_get(bx, ox + i), buf_get(by, oy + i)));
            }
            (0..x.len()).all(|i| equal(&row(x, i), &row(y, i)))
        }
        _ => false,
    }
}

fn prim_eq(x: Prim, y: Prim) -> bool {
    match (x, y) {
        (Prim::F16(a), Prim::F16(b)) => a == b,
        (Prim::F32(a), Prim::F32(b)) => a == b,
        (Prim::F64(a), Prim::F64(b)) => a == b,
        _ => x == y,
    }
}

/// The field names of a record array, if it is one.
pub fn record_names(a: &Array) -> Option<&Rc<[Name]>> {
    match &a.data {
        ArrayData::Record { names, .. } => Some(names),
        _ => None,
    }
}
