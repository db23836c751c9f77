//! Primitive values as the executor computes with them: element access to typed buffers, and
//! numeric views of `PrimValue` (integers as `i128` by bit pattern, floats as `f64`).

use futhark_ir::types::{PrimType, PrimValue, f16_bits_to_f32, f32_to_f16_bits};
use futhark_values::{Buffer, f16};

use crate::error::{ExecError, Result};

/// Element `i` of a buffer (the caller checks bounds).
pub fn get(buf: &Buffer, i: usize) -> Option<PrimValue> {
    Some(match buf {
        Buffer::Bool(v) => PrimValue::Bool(*v.get(i)?),
        Buffer::I8(v) => PrimValue::I8(*v.get(i)?),
        Buffer::I16(v) => PrimValue::I16(*v.get(i)?),
        Buffer::I32(v) => PrimValue::I32(*v.get(i)?),
        Buffer::I64(v) => PrimValue::I64(*v.get(i)?),
        Buffer::U8(v) => PrimValue::U8(*v.get(i)?),
        Buffer::U16(v) => PrimValue::U16(*v.get(i)?),
        Buffer::U32(v) => PrimValue::U32(*v.get(i)?),
        Buffer::U64(v) => PrimValue::U64(*v.get(i)?),
        Buffer::F16(v) => PrimValue::F16(v.get(i)?.to_bits()),
        Buffer::F32(v) => PrimValue::F32(*v.get(i)?),
        Buffer::F64(v) => PrimValue::F64(*v.get(i)?),
    })
}

/// Sets element `i` of a buffer, converting the value's bits to the buffer's type if they
/// differ (they do not in well-typed programs). Out-of-range indices are an error.
pub fn set(buf: &mut Buffer, i: usize, x: PrimValue) -> Result<()> {
    let x = if x.ty() == buf.elem_type() {
        x
    } else {
        return Err(ExecError::malformed(format!(
            "storing a {} into a {} array",
            x.ty(),
            buf.elem_type().name()
        )));
    };
    let oob = || ExecError::malformed(format!("write at {i} out of bounds"));
    match (buf, x) {
        (Buffer::Bool(v), PrimValue::Bool(x)) => *v.get_mut(i).ok_or_else(oob)? = x,
        (Buffer::I8(v), PrimValue::I8(x)) => *v.get_mut(i).ok_or_else(oob)? = x,
        (Buffer::I16(v), PrimValue::I16(x)) => *v.get_mut(i).ok_or_else(oob)? = x,
        (Buffer::I32(v), PrimValue::I32(x)) => *v.get_mut(i).ok_or_else(oob)? = x,
        (Buffer::I64(v), PrimValue::I64(x)) => *v.get_mut(i).ok_or_else(oob)? = x,
        (Buffer::U8(v), PrimValue::U8(x)) => *v.get_mut(i).ok_or_else(oob)? = x,
        (Buffer::U16(v), PrimValue::U16(x)) => *v.get_mut(i).ok_or_else(oob)? = x,
        (Buffer::U32(v), PrimValue::U32(x)) => *v.get_mut(i).ok_or_else(oob)? = x,
        (Buffer::U64(v), PrimValue::U64(x)) => *v.get_mut(i).ok_or_else(oob)? = x,
        (Buffer::F16(v), PrimValue::F16(x)) => *v.get_mut(i).ok_or_else(oob)? = f16::from_bits(x),
        (Buffer::F32(v), PrimValue::F32(x)) => *v.get_mut(i).ok_or_else(oob)? = x,
        (Buffer::F64(v), PrimValue::F64(x)) => *v.get_mut(i).ok_or_else(oob)? = x,
        _ => return Err(ExecError::malformed("element type mismatch")),
    }
    Ok(())
}

/// A buffer of `n` copies of `x`.
pub fn filled(x: PrimValue, n: usize) -> Buffer {
    match x {
        PrimValue::Bool(x) => Buffer::Bool(vec![x; n]),
        PrimValue::I8(x) => Buffer::I8(vec![x; n]),
        PrimValue::I16(x) => Buffer::I16(vec![x; n]),
        PrimValue::I32(x) => Buffer::I32(vec![x; n]),
        PrimValue::I64(x) => Buffer::I64(vec![x; n]),
        PrimValue::U8(x) => Buffer::U8(vec![x; n]),
        PrimValue::U16(x) => Buffer::U16(vec![x; n]),
        PrimValue::U32(x) => Buffer::U32(vec![x; n]),
        PrimValue::U64(x) => Buffer::U64(vec![x; n]),
        PrimValue::F16(x) => Buffer::F16(vec![f16::from_bits(x); n]),
        PrimValue::F32(x) => Buffer::F32(vec![x; n]),
        PrimValue::F64(x) => Buffer::F64(vec![x; n]),
    }
}

/// An empty buffer of element type `t`.
pub fn empty(t: PrimType) -> Buffer {
    Buffer::new(t)
}

/// A buffer of the given elements, all of type `t`.
pub fn from_values(t: PrimType, xs: impl IntoIterator<Item = PrimValue>) -> Result<Buffer> {
    let mut b = Buffer::new(t);
    for x in xs {
        push(&mut b, x)?;
    }
    Ok(b)
}

/// Appends one element.
pub fn push(buf: &mut Buffer, x: PrimValue) -> Result<()> {
    match (buf, x) {
        (Buffer::Bool(v), PrimValue::Bool(x)) => v.push(x),
        (Buffer::I8(v), PrimValue::I8(x)) => v.push(x),
        (Buffer::I16(v), PrimValue::I16(x)) => v.push(x),
        (Buffer::I32(v), PrimValue::I32(x)) => v.push(x),
        (Buffer::I64(v), PrimValue::I64(x)) => v.push(x),
        (Buffer::U8(v), PrimValue::U8(x)) => v.push(x),
        (Buffer::U16(v), PrimValue::U16(x)) => v.push(x),
        (Buffer::U32(v), PrimValue::U32(x)) => v.push(x),
        (Buffer::U64(v), PrimValue::U64(x)) => v.push(x),
        (Buffer::F16(v), PrimValue::F16(x)) => v.push(f16::from_bits(x)),
        (Buffer::F32(v), PrimValue::F32(x)) => v.push(x),
        (Buffer::F64(v), PrimValue::F64(x)) => v.push(x),
        (b, x) => {
            return Err(ExecError::malformed(format!(
                "a {} element in a {} array",
                x.ty(),
                b.elem_type().name()
            )));
        }
    }
    Ok(())
}

/// The elements of `buf` at the given flat positions, in order.
pub fn gather(buf: &Buffer, idx: &[usize]) -> Result<Buffer> {
    let len = buf.len();
    if let Some(bad) = idx.iter().find(|&&i| i >= len) {
        return Err(ExecError::malformed(format!(
            "read at {bad} of {len} elements"
        )));
    }
    Ok(futhark_values::map_buffer!(buf, v => idx.iter().map(|&i| v[i]).collect()))
}

/// The bits of an integer or `bool` value, zero-extended.
pub fn bits(v: PrimValue) -> u64 {
    match v {
        PrimValue::Bool(b) => b as u64,
        PrimValue::I8(x) => x as u8 as u64,
        PrimValue::I16(x) => x as u16 as u64,
        PrimValue::I32(x) => x as u32 as u64,
        PrimValue::I64(x) => x as u64,
        PrimValue::U8(x) => x as u64,
        PrimValue::U16(x) => x as u64,
        PrimValue::U32(x) => x as u64,
        PrimValue::U64(x) => x,
        PrimValue::F16(x) => x as u64,
        PrimValue::F32(x) => x.to_bits() as u64,
        PrimValue::F64(x) => x.to_bits(),
    }
}

/// Width of a type in bits (`bool` counts as 8).
pub fn width(t: PrimType) -> u32 {
    t.size_bytes() as u32 * 8
}

/// The value's bits read as a signed integer of its width.
pub fn sint(v: PrimValue) -> i128 {
    let w = width(v.ty());
    let b = bits(v) as i128;
    let shift = 128 - w;
    (b << shift) >> shift
}

/// The value's bits read as an unsigned integer of its width.
pub fn uint(v: PrimValue) -> i128 {
    bits(v) as i128
}

/// The integer value by its type's signedness.
pub fn int(v: PrimValue) -> i128 {
    if v.ty().is_unsigned() || v.ty() == PrimType::Bool {
        uint(v)
    } else {
        sint(v)
    }
}

/// An integer of type `t` from `x`, wrapping.
pub fn from_int(t: PrimType, x: i128) -> PrimValue {
    match t {
        PrimType::Bool => PrimValue::Bool(x != 0),
        PrimType::I8 => PrimValue::I8(x as i8),
        PrimType::I16 => PrimValue::I16(x as i16),
        PrimType::I32 => PrimValue::I32(x as i32),
        PrimType::I64 => PrimValue::I64(x as i64),
        PrimType::U8 => PrimValue::U8(x as u8),
        PrimType::U16 => PrimValue::U16(x as u16),
        PrimType::U32 => PrimValue::U32(x as u32),
        PrimType::U64 => PrimValue::U64(x as u64),
        PrimType::F16 | PrimType::F32 | PrimType::F64 => from_f64(t, x as f64),
    }
}

/// A float value as `f64`.
pub fn float(v: PrimValue) -> f64 {
    match v {
        PrimValue::F16(b) => f16_bits_to_f32(b) as f64,
        PrimValue::F32(x) => x as f64,
        PrimValue::F64(x) => x,
        other => int(other) as f64,
    }
}

/// A value of float type `t` from `x` (integers truncate toward zero, saturating).
pub fn from_f64(t: PrimType, x: f64) -> PrimValue {
    match t {
        PrimType::F16 => PrimValue::F16(f32_to_f16_bits(x as f32)),
        PrimType::F32 => PrimValue::F32(x as f32),
        PrimType::F64 => PrimValue::F64(x),
        PrimType::Bool => PrimValue::Bool(x != 0.0),
        _ => from_int(t, float_to_int(x, t)),
    }
}

/// Float to integer of type `t`: truncation; out-of-range values wrap through `i128`
/// (NaN gives 0).
fn float_to_int(x: f64, t: PrimType) -> i128 {
    let x = x.trunc();
    if t.is_unsigned() && x >= 0.0 {
        x as u64 as i128
    } else {
        x as i64 as i128
    }
}

/// The value read as `i64` (sizes and indices).
pub fn as_i64(v: PrimValue) -> Result<i64> {
    if v.ty().is_int() {
        Ok(int(v) as i64)
    } else {
        Err(ExecError::malformed(format!(
            "expected an integer, got {v}"
        )))
    }
}

/// The value read as `bool`.
pub fn as_bool(v: PrimValue) -> Result<bool> {
    match v {
        PrimValue::Bool(b) => Ok(b),
        other => Err(ExecError::malformed(format!(
            "expected a bool, got {other}"
        ))),
    }
}

/// The value reinterpreted (same bits) as type `t` of the same width.
pub fn bitcast(v: PrimValue, t: PrimType) -> PrimValue {
    let b = bits(v);
    match t {
        PrimType::F16 => PrimValue::F16(b as u16),
        PrimType::F32 => PrimValue::F32(f32::from_bits(b as u32)),
        PrimType::F64 => PrimValue::F64(f64::from_bits(b)),
        _ => from_int(t, b as i128),
    }
}
