//! The second-order array combinators: map, reduce, scan, histograms, flatmap, partition and
//! accumulators.
//!
//! Each tries, in order: a native loop when the function is a known primitive operator
//! (`(+)`, `f32.max`, …) over a primitive array; vectorised evaluation of the lambda body
//! over whole arrays (`vector.rs`); and finally a call of the function per element.

use std::cell::RefCell;
use std::rc::Rc;

use futhark_syntax::Span;

use crate::array::{self, DimIdx, row};
use crate::errors::{Result, RuntimeError, err};
use crate::eval::Machine;
use crate::ir::BinFn;
use crate::kernels;
use crate::rows::RowCollector;
use crate::value::{Acc, Array, ArrayData, Builtin, Fun, Value};
use crate::vector;

fn arr(v: &Value) -> Result<&Rc<Array>> {
    v.as_array()
        .ok_or_else(|| RuntimeError::new("SOAC applied to a non-array"))
}

/// The binary primitive operation a function value stands for, if any.
pub fn fun_binop(f: &Value) -> Option<BinFn> {
    let Value::Fun(f) = f else {
        return None;
    };
    match &**f {
        Fun::Builtin(Builtin::Op(op)) => Some(BinFn::Ov(*op)),
        Fun::Closure { lam, .. } => lam.binop,
        _ => None,
    }
}

/// `map f xs`.
pub fn map(m: &mut Machine, f: &Value, xs: &Value, span: Span) -> Result<Value> {
    let a = arr(xs)?;
    if m.vectorise
        && let Some(v) = vector::map(m, f, a, span)?
    {
        return Ok(v);
    }
    let n = a.len();
    let mut rows = RowCollector::new(n);
    for i in 0..n {
        rows.push(m.apply(f.clone(), vec![row(a, i)], span)?);
    }
    rows.finish().map_err(|e| e.with_span(span))
}

/// `reduce op ne xs`.
pub fn reduce(m: &mut Machine, f: &Value, ne: Value, xs: &Value, span: Span) -> Result<Value> {
    let a = arr(xs)?;
    if a.is_empty() {
        return Ok(ne);
    }
    if let (Some(op), Some((buf, off, n)), Value::Prim(nep)) = (fun_binop(f), a.prim_slice(), &ne)
        && a.rank() == 1
        && let Some(r) = kernels::fold(op, *nep, buf, off, n)
    {
        return crate::eval::prim_result(r, span);
    }
    if m.vectorise
        && let Some(v) = vector::reduce(m, f, a, span)?
    {
        return Ok(v);
    }
    let mut acc = ne;
    for i in 0..a.len() {
        acc = m.apply(f.clone(), vec![acc, row(a, i)], span)?;
    }
    Ok(acc)
}

/// `scan op ne xs` (inclusive).
pub fn scan(m: &mut Machine, f: &Value, ne: Value, xs: &Value, span: Span) -> Result<Value> {
    let a = arr(xs)?;
    if a.is_empty() {
        return Ok(xs.clone());
    }
    if let (Some(op), Some((buf, off, n)), Value::Prim(nep)) = (fun_binop(f), a.prim_slice(), &ne)
        && a.rank() == 1
        && let Some(r) = kernels::scan(op, *nep, buf, off, n)
    {
        let out = r.map_err(|e| RuntimeError::at(span, e.message()))?;
        return Ok(Value::Array(Rc::new(Array::from_buffer(
            vec![n as i64],
            out,
        ))));
    }
    if m.vectorise
        && let Some(v) = vector::scan(m, f, a, span)?
    {
        return Ok(v);
    }
    let mut rows = Vec::with_capacity(a.len());
    let mut acc: Option<Value> = None;
    for i in 0..a.len() {
        let x = row(a, i);
        let next = match acc {
            None => x,
            Some(p) => m.apply(f.clone(), vec![p, x], span)?,
        };
        rows.push(next.clone());
        acc = Some(next);
    }
    let _ = ne;
    array::stack(rows, None).map_err(|e| e.with_span(span))
}

/// `hist_Nd dest op ne is vs`: combines each value into its bin.
pub fn hist(
    m: &mut Machine,
    dest: Value,
    f: &Value,
    ne: Value,
    is: &Value,
    vs: &Value,
    span: Span,
) -> Result<Value> {
    let _ = ne;
    let Value::Array(mut dest) = dest else {
        return err("hist into a non-array");
    };
    let vals = arr(vs)?;
    // Native path: primitive bins, a primitive operator, one-dimensional indices.
    if let (Some(op), Some(ia)) = (fun_binop(f), is.as_array())
        && dest.rank() == 1
        && vals.rank() == 1
        && ia.prim_slice().is_some()
        && let Some(r) = kernels::hist(op, &mut dest, ia, vals)
    {
        r.map_err(|e| RuntimeError::at(span, e.message()))?;
        return Ok(Value::Array(dest));
    }
    let tuples = crate::array_ops::index_tuples(is)?;
    for (j, t) in tuples.iter().enumerate() {
        if t.len() <= dest.shape.len() && t.iter().zip(&dest.shape).all(|(&i, &n)| i >= 0 && i < n)
        {
            let idx: Vec<DimIdx> = t.iter().map(|&i| DimIdx::Fix(i)).collect();
            let old = array::index(&dest, &idx)?;
            let new = m.apply(f.clone(), vec![old, row(vals, j)], span)?;
            dest = array::update(dest, &idx, &new)?;
        }
    }
    Ok(Value::Array(dest))
}

/// `flatmap f xs`: see the prelude's description of the five results.
pub fn flatmap(m: &mut Machine, f: &Value, xs: &Value, span: Span) -> Result<Value> {
    let a = arr(xs)?;
    let n = a.len();
    let mut lens = Vec::with_capacity(n);
    let mut segs: Vec<Value> = Vec::new();
    let mut fixed = Vec::with_capacity(n);
    let mut has_fixed = false;
    for i in 0..n {
        let r = m.apply(f.clone(), vec![row(a, i)], span)?;
        let (seg, c) = match &r {
            Value::Record(rec)
                if rec.values.len() == 2 && matches!(rec.values[0], Value::Array(_)) =>
            {
                has_fixed = true;
                (rec.values[0].clone(), Some(rec.values[1].clone()))
            }
            _ => (r.clone(), None),
        };
        let sa = arr(&seg)?;
        lens.push(sa.len() as i64);
        for j in 0..sa.len() {
            segs.push(row(sa, j));
        }
        if let Some(c) = c {
            fixed.push(c);
        }
    }
    let mut flags = Vec::with_capacity(segs.len());
    let mut offsets = Vec::with_capacity(n);
    let mut off = 0i64;
    for &l in &lens {
        offsets.push(off);
        for k in 0..l {
            flags.push(k == 0);
        }
        off += l;
    }
    let mut out = vec![
        Value::from_i64s(lens),
        Value::from_bools(flags),
        Value::from_i64s(offsets),
        array::stack(segs, None)?,
    ];
    if has_fixed {
        out.push(array::stack(fixed, None)?);
    }
    Ok(Value::tuple(out))
}

/// `partition k f xs`: stable k-way partition; returns (grouped elements, counts).
pub fn partition(m: &mut Machine, k: &Value, f: &Value, xs: &Value, span: Span) -> Result<Value> {
    let a = arr(xs)?;
    let k = k.as_i64().unwrap_or(0).max(0) as usize;
    let mut classes = Vec::with_capacity(a.len());
    for i in 0..a.len() {
        let c = m.apply(f.clone(), vec![row(a, i)], span)?;
        classes.push(c.as_i64().unwrap_or(-1));
    }
    let mut counts = vec![0i64; k];
    let mut order: Vec<usize> = Vec::with_capacity(a.len());
    for (class, count) in counts.iter_mut().enumerate() {
        for (i, &c) in classes.iter().enumerate() {
            if c == class as i64 {
                order.push(i);
                *count += 1;
            }
        }
    }
    for (i, &c) in classes.iter().enumerate() {
        if c < 0 || c >= k as i64 {
            order.push(i);
        }
    }
    let rows: Vec<Value> = order.iter().map(|&i| row(a, i)).collect();
    let grouped = if rows.is_empty() {
        xs.clone()
    } else {
        array::stack(rows, None)?
    };
    Ok(Value::tuple(vec![grouped, Value::from_i64s(counts)]))
}

/// `acc_write acc i v`.
pub fn acc_write(m: &mut Machine, acc: Value, i: &Value, v: Value, span: Span) -> Result<Value> {
    let Value::Acc(cell) = &acc else {
        return err("acc_write on a non-accumulator");
    };
    let idx: Vec<DimIdx> = i
        .tuple_elems()
        .iter()
        .map(|x| DimIdx::Fix(x.as_i64().unwrap_or(-1)))
        .collect();
    let (array, op) = {
        let mut st = cell.borrow_mut();
        (
            std::mem::replace(&mut st.array, Value::unit()),
            st.op.clone(),
        )
    };
    let Value::Array(mut a) = array else {
        return err("accumulator over a non-array");
    };
    let inside = idx.len() <= a.shape.len()
        && idx
            .iter()
            .zip(&a.shape)
            .all(|(d, &n)| matches!(d, DimIdx::Fix(i) if *i >= 0 && *i < n));
    if inside {
        let new = match &op {
            Some((f, _)) => {
                let old = array::index(&a, &idx)?;
                m.apply(f.clone(), vec![old, v], span)?
            }
            None => v,
        };
        a = array::update(a, &idx, &new)?;
    }
    cell.borrow_mut().array = Value::Array(a);
    Ok(acc)
}

/// `scatter_stream`/`hist_stream`: threads an accumulator over `dest` through `f`.
pub fn stream(
    m: &mut Machine,
    dest: Value,
    op: Option<(Value, Value)>,
    f: &Value,
    xs: &Value,
    span: Span,
) -> Result<Value> {
    let a = arr(xs)?;
    let cell = Rc::new(RefCell::new(Acc { array: dest, op }));
    let mut acc = Value::Acc(cell.clone());
    for i in 0..a.len() {
        acc = m.apply(f.clone(), vec![acc, row(a, i)], span)?;
    }
    drop(acc);
    let out = std::mem::replace(&mut cell.borrow_mut().array, Value::unit());
    Ok(out)
}

impl Value {
    /// A one-dimensional `i64` array.
    pub fn from_i64s(v: Vec<i64>) -> Value {
        let n = v.len() as i64;
        Value::Array(Rc::new(Array::from_buffer(
            vec![n],
            futhark_values::Buffer::I64(v),
        )))
    }

    /// A one-dimensional `bool` array.
    pub fn from_bools(v: Vec<bool>) -> Value {
        let n = v.len() as i64;
        Value::Array(Rc::new(Array::from_buffer(
            vec![n],
            futhark_values::Buffer::Bool(v),
        )))
    }
}

/// Whether an array is stored as a record of arrays.
pub fn is_record_array(a: &Array) -> bool {
    matches!(a.data, ArrayData::Record { .. })
}
