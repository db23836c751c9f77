//! Whole-array intrinsics that move data without calling functions: zip, unzip, concat,
//! transpose, flatten, unflatten, scatter and the flat (LMAD) index/update intrinsics.

use std::rc::Rc;

use futhark_values::Buffer;

use crate::array::{self, Cells, DimIdx, Plan, row, show_shape};
use crate::errors::{Result, RuntimeError, err};
use crate::value::{Array, ArrayData, Value, buf_copy, buf_extend, tuple_names};

fn arr(v: &Value) -> Result<&Rc<Array>> {
    match v.as_array() {
        Some(a) if !a.shape.is_empty() => Ok(a),
        _ => Err(RuntimeError::new("expected an array")),
    }
}

/// `zip as bs …`: a record array over the given arrays (no copying).
pub fn zip(parts: &[Value]) -> Result<Value> {
    let mut fields = Vec::with_capacity(parts.len());
    let mut n = None;
    for p in parts {
        let a = arr(p)?.clone();
        match n {
            None => n = Some(a.len()),
            Some(k) if k != a.len() => {
                return err(format!(
                    "Cannot zip arrays of different lengths {k} and {}.",
                    a.len()
                ));
            }
            _ => {}
        }
        fields.push(a);
    }
    Ok(Value::Array(Rc::new(Array {
        shape: vec![n.unwrap_or(0) as i64],
        data: ArrayData::Record {
            names: tuple_names(parts.len()),
            fields,
        },
    })))
}

/// `unzip xs`: the component arrays of an array of pairs.
pub fn unzip(v: &Value) -> Result<Value> {
    let a = array::as_record_array(arr(v)?)?;
    match &a.data {
        ArrayData::Record { fields, .. } => Ok(Value::tuple(
            fields
                .iter()
                .map(|f| Value::Array(outer_view(f, &a.shape)))
                .collect(),
        )),
        _ => err("unzip of a non-record array"),
    }
}

/// A field array as seen from outside its record array (its shape starts with `outer`).
fn outer_view(f: &Rc<Array>, _outer: &[i64]) -> Rc<Array> {
    f.clone()
}

/// `concat a b` along the outer dimension.
pub fn concat(a: &Value, b: &Value) -> Result<Value> {
    let (x, y) = (arr(a)?, arr(b)?);
    if x.shape[1..] != y.shape[1..] {
        return err(format!(
            "Cannot concatenate arrays of shapes {} and {}.",
            show_shape(&x.shape),
            show_shape(&y.shape)
        ));
    }
    let mut shape = x.shape.clone();
    shape[0] = x.shape[0] + y.shape[0];
    match (&x.data, &y.data) {
        (
            ArrayData::Prim {
                buf: bx,
                offset: ox,
            },
            ArrayData::Prim {
                buf: by,
                offset: oy,
            },
        ) => {
            let mut out = Buffer::with_capacity(bx.elem_type(), x.elems() + y.elems());
            if !buf_extend(&mut out, bx, *ox, x.elems())
                || !buf_extend(&mut out, by, *oy, y.elems())
            {
                return err("Cannot concatenate arrays of different element types.");
            }
            Ok(Value::Array(Rc::new(Array::from_buffer(shape, out))))
        }
        (ArrayData::Record { names, fields: fx }, ArrayData::Record { fields: fy, .. })
            if fx.len() == fy.len() =>
        {
            let mut fields = Vec::with_capacity(fx.len());
            for (p, q) in fx.iter().zip(fy) {
                match concat(&Value::Array(p.clone()), &Value::Array(q.clone()))? {
                    Value::Array(c) => fields.push(c),
                    _ => return err("bad concat"),
                }
            }
            Ok(Value::Array(Rc::new(Array {
                shape,
                data: ArrayData::Record {
                    names: names.clone(),
                    fields,
                },
            })))
        }
        _ => {
            let mut rows: Vec<Value> = (0..x.len()).map(|i| row(x, i)).collect();
            rows.extend((0..y.len()).map(|i| row(y, i)));
            if rows.is_empty() {
                return Ok(a.clone());
            }
            array::stack(rows, None)
        }
    }
}

/// `transpose a`: swaps the two outer dimensions.
pub fn transpose(v: &Value) -> Result<Value> {
    let a = arr(v)?;
    if a.shape.len() < 2 {
        return err("Cannot transpose an array of rank less than 2.");
    }
    let (n, m) = (a.shape[0] as usize, a.shape[1] as usize);
    let mut shape = a.shape.clone();
    shape.swap(0, 1);
    match &a.data {
        ArrayData::Prim { buf, offset } => {
            let inner: usize = a.shape[2..].iter().map(|&d| d as usize).product();
            let mut out = Buffer::zeros(buf.elem_type(), n * m * inner);
            for i in 0..n {
                for j in 0..m {
                    let src = offset + (i * m + j) * inner;
                    let dst = (j * n + i) * inner;
                    buf_copy(&mut out, dst, buf, src, inner);
                }
            }
            Ok(Value::Array(Rc::new(Array::from_buffer(shape, out))))
        }
        ArrayData::Record { names, fields } => {
            let mut out = Vec::with_capacity(fields.len());
            for f in fields {
                match transpose(&Value::Array(f.clone()))? {
                    Value::Array(t) => out.push(t),
                    _ => return err("bad transpose"),
                }
            }
            Ok(Value::Array(Rc::new(Array {
                shape,
                data: ArrayData::Record {
                    names: names.clone(),
                    fields: out,
                },
            })))
        }
        ArrayData::Boxed(elems) => {
            let inner: usize = a.shape[2..].iter().map(|&d| d as usize).product();
            let mut out = Vec::with_capacity(elems.len());
            for j in 0..m {
                for i in 0..n {
                    let src = (i * m + j) * inner;
                    out.extend_from_slice(&elems[src..src + inner]);
                }
            }
            Ok(Value::Array(Rc::new(Array {
                shape,
                data: ArrayData::Boxed(Rc::new(out)),
            })))
        }
    }
}

/// `flatten a`: merges the two outer dimensions.
pub fn flatten(v: &Value) -> Result<Value> {
    let a = arr(v)?;
    if a.shape.len() < 2 {
        return err("Cannot flatten an array of rank less than 2.");
    }
    let mut shape = vec![a.shape[0] * a.shape[1]];
    shape.extend_from_slice(&a.shape[2..]);
    array::reshape(a, shape)
}

/// `unflatten n m a`: splits the outer dimension.
pub fn unflatten(n: &Value, m: &Value, v: &Value) -> Result<Value> {
    let a = arr(v)?;
    let (Some(n), Some(m)) = (n.as_i64(), m.as_i64()) else {
        return err("unflatten sizes must be integers");
    };
    if n < 0 || m < 0 || n.checked_mul(m) != Some(a.shape[0]) {
        return err(format!(
            "Cannot unflatten array of shape {} to shape [{n}][{m}].",
            show_shape(&a.shape)
        ));
    }
    let mut shape = vec![n, m];
    shape.extend_from_slice(&a.shape[1..]);
    array::reshape(a, shape)
}

/// Index tuples of scatter-like operations: one `Vec<i64>` per element.
pub fn index_tuples(is: &Value) -> Result<Vec<Vec<i64>>> {
    let a = arr(is)?;
    let n = a.len();
    let cols: Vec<Rc<Array>> = match &a.data {
        ArrayData::Record { fields, .. } => fields.clone(),
        _ => vec![a.clone()],
    };
    let mut out = vec![Vec::with_capacity(cols.len()); n];
    for c in &cols {
        let c = array::as_prim_array(c)?;
        let (buf, off, _) = c
            .prim_slice()
            .ok_or_else(|| RuntimeError::new("bad indices"))?;
        for (i, o) in out.iter_mut().enumerate() {
            o.push(crate::value::buf_get(buf, off + i).as_i64().unwrap_or(-1));
        }
    }
    Ok(out)
}

/// `scatter dest is vs`: writes `vs[j]` at `is[j]` where in bounds.
pub fn scatter(dest: Value, is: &Value, vs: &Value) -> Result<Value> {
    let Value::Array(mut dest) = dest else {
        return err("scatter into a non-array");
    };
    let vals = arr(vs)?;
    // Fast path: one-dimensional primitive arrays.
    if let (Some(ib), Some((vb, voff, _))) = (
        is.as_array().and_then(|a| a.prim_slice()),
        vals.prim_slice(),
    ) && dest.shape.len() == 1
        && vals.shape.len() == 1
    {
        let (ibuf, ioff, n) = ib;
        if let Buffer::I64(idx) = ibuf {
            let idx = idx[ioff..ioff + n].to_vec();
            let vb = vb.clone();
            let len = dest.shape[0];
            let d = Rc::make_mut(&mut dest);
            if let Some(buf) = array::unique_buf(d) {
                for (j, &i) in idx.iter().enumerate() {
                    if i >= 0 && i < len {
                        buf_copy(buf, i as usize, &vb, voff + j, 1);
                    }
                }
                return Ok(Value::Array(dest));
            }
        }
    }
    let tuples = index_tuples(is)?;
    for (j, t) in tuples.iter().enumerate() {
        if t.iter().zip(&dest.shape).all(|(&i, &n)| i >= 0 && i < n) && t.len() <= dest.shape.len()
        {
            let idx: Vec<DimIdx> = t.iter().map(|&i| DimIdx::Fix(i)).collect();
            let v = row(vals, j);
            dest = array::update(dest, &idx, &v)?;
        }
    }
    Ok(Value::Array(dest))
}

/// The cells of a flat (LMAD) view: `offset + Σ iₖ·sₖ` over the index space `dims`.
fn flat_cells(len: i64, offset: i64, dims: &[(i64, i64)]) -> Result<Vec<usize>> {
    let total: i64 = dims.iter().map(|d| d.0.max(0)).product();
    let mut out = Vec::with_capacity(total as usize);
    let mut counter = vec![0i64; dims.len()];
    if total == 0 {
        return Ok(out);
    }
    loop {
        let pos: i64 = offset + counter.iter().zip(dims).map(|(c, d)| c * d.1).sum::<i64>();
        if pos < 0 || pos >= len {
            return err(format!(
                "Flat index {pos} out of bounds for array of length {len}."
            ));
        }
        out.push(pos as usize);
        let mut d = dims.len();
        loop {
            if d == 0 {
                return Ok(out);
            }
            d -= 1;
            counter[d] += 1;
            if counter[d] < dims[d].0 {
                break;
            }
            counter[d] = 0;
        }
    }
}

/// `flat_index_Nd arr offset n1 s1 …`.
pub fn flat_index(v: &Value, args: &[Value]) -> Result<Value> {
    let a = arr(v)?;
    let ints: Vec<i64> = args.iter().map(|x| x.as_i64().unwrap_or(0)).collect();
    let Some((&offset, rest)) = ints.split_first() else {
        return err("flat_index: missing offset");
    };
    let dims: Vec<(i64, i64)> = rest
        .chunks(2)
        .map(|c| (c[0], *c.get(1).unwrap_or(&0)))
        .collect();
    let cells = flat_cells(a.shape[0], offset, &dims)?;
    let p = Plan {
        indexed: 1,
        slice_dims: dims.iter().map(|d| d.0).collect(),
        cells: Cells::List(cells),
    };
    Ok(array::apply_plan(a, &p))
}

/// `flat_update_Nd arr offset s1 … v`.
pub fn flat_update(dest: Value, args: &[Value], v: &Value) -> Result<Value> {
    let Value::Array(dest) = dest else {
        return err("flat_update of a non-array");
    };
    let ints: Vec<i64> = args.iter().map(|x| x.as_i64().unwrap_or(0)).collect();
    let Some((&offset, strides)) = ints.split_first() else {
        return err("flat_update: missing offset");
    };
    let vshape = v.shape();
    let dims: Vec<(i64, i64)> = strides
        .iter()
        .enumerate()
        .map(|(i, &s)| (*vshape.get(i).unwrap_or(&0), s))
        .collect();
    let cells = flat_cells(dest.shape[0], offset, &dims)?;
    let p = Plan {
        indexed: 1,
        slice_dims: dims.iter().map(|d| d.0).collect(),
        cells: Cells::List(cells),
    };
    Ok(Value::Array(array::update_plan(dest, &p, v)?))
}
