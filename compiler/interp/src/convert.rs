//! Conversion between run-time values and `futhark_values::Value` (the data-format values
//! that entry points take and return).

use std::rc::Rc;

use futhark_values as fv;

use crate::array::{as_prim_array, row};
use crate::errors::{Result, err};
use crate::value::{Array, ArrayData, TypeDesc, Value, buf_get, buf_range};

/// A data value as a run-time value (no copy of the elements beyond the move).
pub fn from_external(v: fv::Value) -> Value {
    if v.is_scalar() {
        let (_, buf) = v.into_parts();
        return Value::Prim(buf_get(&buf, 0));
    }
    let (shape, buf) = v.into_parts();
    Value::Array(Rc::new(Array::from_buffer(shape, buf)))
}

/// Splits a run-time result into data values: tuples become several values, and arrays of
/// tuples become one array per component (as entry points return them).
pub fn to_external(v: &Value) -> Result<Vec<fv::Value>> {
    let mut out = Vec::new();
    flatten_into(v, &mut out)?;
    Ok(out)
}

/// [`to_external`] for a value the caller gives up: an array that owns its whole buffer
/// hands the buffer over instead of copying it.
pub fn into_external(v: Value) -> Result<Vec<fv::Value>> {
    let mut out = Vec::new();
    move_into(v, &mut out)?;
    Ok(out)
}

fn move_into(v: Value, out: &mut Vec<fv::Value>) -> Result<()> {
    let owned = match v {
        Value::Array(a) => match Rc::try_unwrap(a) {
            Ok(arr) => arr,
            Err(a) => return flatten_into(&Value::Array(a), out),
        },
        Value::Record(r) => {
            return match Rc::try_unwrap(r) {
                Ok(rec) => rec.values.into_iter().try_for_each(|x| move_into(x, out)),
                Err(r) => flatten_into(&Value::Record(r), out),
            };
        }
        v => return flatten_into(&v, out),
    };
    let elems = owned.elems();
    match owned.data {
        ArrayData::Prim { buf, offset: 0 } if buf.len() == elems => match Rc::try_unwrap(buf) {
            Ok(buf) => {
                out.push(
                    fv::Value::new(owned.shape, buf)
                        .map_err(|e| crate::errors::RuntimeError::new(e.to_string()))?,
                );
                Ok(())
            }
            Err(buf) => flatten_into(
                &Value::Array(Rc::new(Array {
                    shape: owned.shape,
                    data: ArrayData::Prim { buf, offset: 0 },
                })),
                out,
            ),
        },
        data => flatten_into(
            &Value::Array(Rc::new(Array {
                shape: owned.shape,
                data,
            })),
            out,
        ),
    }
}

fn flatten_into(v: &Value, out: &mut Vec<fv::Value>) -> Result<()> {
    match v {
        Value::Prim(p) => {
            let mut buf = fv::Buffer::new(p.ty());
            crate::value::buf_push(&mut buf, *p);
            out.push(
                fv::Value::new(Vec::new(), buf)
                    .map_err(|e| crate::errors::RuntimeError::new(e.to_string()))?,
            );
            Ok(())
        }
        Value::Record(r) => {
            for x in &r.values {
                flatten_into(x, out)?;
            }
            Ok(())
        }
        Value::Array(a) => match &a.data {
            ArrayData::Prim { buf, offset } => {
                let data = buf_range(buf, *offset, a.elems());
                out.push(
                    fv::Value::new(a.shape.clone(), data)
                        .map_err(|e| crate::errors::RuntimeError::new(e.to_string()))?,
                );
                Ok(())
            }
            ArrayData::Record { fields, .. } => {
                for f in fields {
                    flatten_into(&Value::Array(f.clone()), out)?;
                }
                Ok(())
            }
            ArrayData::Boxed(_) => {
                if a.is_empty() {
                    return err("Cannot return an empty array of unknown element type.");
                }
                match as_prim_array(a) {
                    Ok(p) => flatten_into(&Value::Array(p), out),
                    Err(_) => {
                        // Arrays of records stored boxed: regroup them through the rows.
                        let rows: Vec<Value> = (0..a.len()).map(|i| row(a, i)).collect();
                        let stacked = crate::array::stack(rows, None)?;
                        match &stacked {
                            Value::Array(s) if !matches!(s.data, ArrayData::Boxed(_)) => {
                                flatten_into(&stacked, out)
                            }
                            _ => err("Cannot return a value of this type from an entry point."),
                        }
                    }
                }
            }
        },
        Value::Sum(_) | Value::Fun(_) | Value::Acc(_) | Value::Dual(_) => {
            err("Cannot return a value of this type from an entry point.")
        }
    }
}

/// Number of data values a parameter of this type takes.
pub fn leaf_count(t: &TypeDesc) -> usize {
    match t {
        TypeDesc::Record(_, ts) => ts.iter().map(leaf_count).sum(),
        TypeDesc::Array(_, elem) => match &**elem {
            TypeDesc::Record(..) => leaf_count(elem),
            _ => 1,
        },
        _ => 1,
    }
}

/// Builds a parameter value of type `t` from data values (tuples take several).
pub fn assemble(t: &TypeDesc, vals: &mut impl Iterator<Item = fv::Value>) -> Result<Value> {
    match t {
        TypeDesc::Record(names, ts) => {
            let mut values = Vec::with_capacity(ts.len());
            for ft in ts {
                values.push(assemble(ft, vals)?);
            }
            Ok(Value::Record(Rc::new(crate::value::Record {
                names: names
                    .iter()
                    .map(|n| crate::value::Name::from(n.as_str()))
                    .collect(),
                values,
            })))
        }
        TypeDesc::Array(dims, elem) => match &**elem {
            TypeDesc::Record(names, ts) => {
                let mut fields = Vec::with_capacity(ts.len());
                for ft in ts {
                    let sub = TypeDesc::Array(dims.clone(), Box::new(ft.clone()));
                    match assemble(&sub, vals)? {
                        Value::Array(a) => fields.push(a),
                        _ => return err("expected an array argument"),
                    }
                }
                let shape = fields
                    .first()
                    .map(|f| f.shape[..dims.len().min(f.shape.len())].to_vec())
                    .unwrap_or_default();
                Ok(Value::Array(Rc::new(Array {
                    shape,
                    data: ArrayData::Record {
                        names: names
                            .iter()
                            .map(|n| crate::value::Name::from(n.as_str()))
                            .collect(),
                        fields,
                    },
                })))
            }
            _ => next(vals),
        },
        _ => next(vals),
    }
}

fn next(vals: &mut impl Iterator<Item = fv::Value>) -> Result<Value> {
    vals.next()
        .map(from_external)
        .ok_or_else(|| crate::errors::RuntimeError::new("Too few arguments for the entry point."))
}

/// Gives empty arrays whose element type was never known (results of mapping over nothing)
/// the element type of the declared result type `t`.
pub fn fix_empty(v: Value, t: &TypeDesc) -> Value {
    match (v, t) {
        (Value::Array(a), TypeDesc::Array(_, elem))
            if a.is_empty() && matches!(a.data, ArrayData::Boxed(_)) =>
        {
            crate::array::blank(&TypeDesc::Array(a.shape.clone(), elem.clone()))
        }
        (Value::Record(r), TypeDesc::Record(_, ts)) if r.values.len() == ts.len() => {
            let values = r
                .values
                .iter()
                .cloned()
                .zip(ts)
                .map(|(v, t)| fix_empty(v, t))
                .collect();
            Value::Record(Rc::new(crate::value::Record {
                names: r.names.clone(),
                values,
            }))
        }
        (v, _) => v,
    }
}
