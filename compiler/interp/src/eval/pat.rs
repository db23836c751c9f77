//! Pattern matching and binding, including the sizes that type ascriptions bind or check.

use std::rc::Rc;

use super::{Frame, Machine};
use crate::array::show_shape;
use crate::errors::{Result, RuntimeError};
use crate::ir::{DimPat, LitPat, Pat, ShapePat};
use crate::value::{ArrayData, Value};

/// Binds `v` to `p`, storing into the frame's slots. Returns false if a refutable part of
/// the pattern does not match (slots may then be partly written).
pub fn bind_pat(m: &mut Machine, p: &Pat, v: Value, f: &mut Frame<'_>) -> Result<bool> {
    match p {
        Pat::Bind(s) => {
            f.slots[*s as usize] = v;
            Ok(true)
        }
        Pat::Wild => Ok(true),
        Pat::Tuple(ps) => {
            let Value::Record(r) = v else {
                return Ok(false);
            };
            if r.values.len() != ps.len() {
                return Ok(false);
            }
            let values = match Rc::try_unwrap(r) {
                Ok(rec) => rec.values,
                Err(r) => r.values.clone(),
            };
            for (p, v) in ps.iter().zip(values) {
                if !bind_pat(m, p, v, f)? {
                    return Ok(false);
                }
            }
            Ok(true)
        }
        Pat::Record(fields) => {
            let Value::Record(r) = v else {
                return Ok(false);
            };
            for (name, p) in fields {
                let Some(i) = r.names.iter().position(|n| n == name) else {
                    return Ok(false);
                };
                if !bind_pat(m, p, r.values[i].clone(), f)? {
                    return Ok(false);
                }
            }
            Ok(true)
        }
        Pat::Lit(l) => {
            let Value::Prim(x) = v else {
                return Ok(false);
            };
            let lit = match l {
                LitPat::Known(p) => *p,
                LitPat::Flex(fl) => fl.at(Some(x.ty())),
            };
            Ok(crate::array::equal(&Value::Prim(lit), &Value::Prim(x)))
        }
        Pat::Constr(name, ps) => {
            let Value::Sum(s) = v else {
                return Ok(false);
            };
            if &s.ctor != name || s.payload.len() != ps.len() {
                return Ok(false);
            }
            for (p, v) in ps.iter().zip(s.payload.iter()) {
                if !bind_pat(m, p, v.clone(), f)? {
                    return Ok(false);
                }
            }
            Ok(true)
        }
        Pat::Sized(p, shape) => {
            if let (ShapePat::Prim(t), Value::Prim(x)) = (shape, &v)
                && x.ty() != *t
                && x.ty() != futhark_values::PrimType::Bool
            {
                return bind_pat(m, p, Value::Prim(x.convert(*t)), f);
            }
            match_shape(m, shape, &v, f, 0, false)?;
            bind_pat(m, p, v, f)
        }
    }
}

/// Binds or checks the sizes of `shape` against the value. `skip` counts leading dimensions
/// already accounted for (inside the elements of a record array). With `coerce`, mismatches
/// are reported as a failed size coercion.
pub fn match_shape(
    m: &mut Machine,
    shape: &ShapePat,
    v: &Value,
    f: &mut Frame<'_>,
    skip: usize,
    coerce: bool,
) -> Result<()> {
    match shape {
        ShapePat::Any | crate::ir::ShapePat::Prim(_) => Ok(()),
        ShapePat::Record(fields) => {
            match v {
                Value::Record(r) => {
                    for (name, sp) in fields {
                        if let Some(i) = r.names.iter().position(|n| n == name) {
                            match_shape(m, sp, &r.values[i], f, 0, coerce)?;
                        }
                    }
                }
                Value::Array(a) => {
                    // A record array: each field array carries the outer dimensions first.
                    if let ArrayData::Record {
                        names,
                        fields: arrs,
                    } = &a.data
                    {
                        for (name, sp) in fields {
                            if let Some(i) = names.iter().position(|n| n == name) {
                                let fv = Value::Array(arrs[i].clone());
                                match_shape(m, sp, &fv, f, skip, coerce)?;
                            }
                        }
                    }
                }
                _ => {}
            }
            Ok(())
        }
        ShapePat::Array(dims, elem) => {
            let Value::Array(a) = v else {
                return Ok(());
            };
            let actual = a.shape.clone();
            for (i, d) in dims.iter().enumerate() {
                let Some(&n) = actual.get(skip + i) else {
                    break;
                };
                let expected = match d {
                    DimPat::Any => continue,
                    DimPat::Bind(s) => {
                        f.slots[*s as usize] = Value::i64(n);
                        continue;
                    }
                    DimPat::Same(s) => f.slots[*s as usize].as_i64(),
                    DimPat::Check(e) => m.eval(e, f)?.as_i64(),
                };
                if let Some(expected) = expected
                    && expected != n
                {
                    let msg = if coerce {
                        format!(
                            "Value of shape {} cannot match shape of type with dimension {} = {expected}.",
                            show_shape(&actual),
                            skip + i
                        )
                    } else {
                        format!(
                            "Sizes do not match: dimension of size {n} where {expected} was expected (shape {}).",
                            show_shape(&actual)
                        )
                    };
                    return Err(RuntimeError::new(msg));
                }
            }
            match &**elem {
                ShapePat::Any | crate::ir::ShapePat::Prim(_) => Ok(()),
                inner => match_shape(m, inner, v, f, skip + dims.len(), coerce),
            }
        }
    }
}
