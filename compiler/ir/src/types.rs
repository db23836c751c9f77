//! Primitive types (the one `futhark_prim::PrimType`, re-exported) and constants of the
//! kernel IR.
//!
//! Every scalar in a kernel body has one of twelve primitive types. Constants carry their type
//! (`PrimValue`), so a neutral element or a literal never needs inference. `f16` constants are
//! stored as their IEEE bit pattern: Rust has no stable `f16`, and the bits are what the CUDA
//! code needs anyway.

use std::fmt;

pub use futhark_prim::PrimType;

/// A typed constant.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PrimValue {
    Bool(bool),
    I8(i8),
    I16(i16),
    I32(i32),
    I64(i64),
    U8(u8),
    U16(u16),
    U32(u32),
    U64(u64),
    /// IEEE binary16 bit pattern.
    F16(u16),
    F32(f32),
    F64(f64),
}

impl PrimValue {
    pub fn ty(self) -> PrimType {
        match self {
            PrimValue::Bool(_) => PrimType::Bool,
            PrimValue::I8(_) => PrimType::I8,
            PrimValue::I16(_) => PrimType::I16,
            PrimValue::I32(_) => PrimType::I32,
            PrimValue::I64(_) => PrimType::I64,
            PrimValue::U8(_) => PrimType::U8,
            PrimValue::U16(_) => PrimType::U16,
            PrimValue::U32(_) => PrimType::U32,
            PrimValue::U64(_) => PrimType::U64,
            PrimValue::F16(_) => PrimType::F16,
            PrimValue::F32(_) => PrimType::F32,
            PrimValue::F64(_) => PrimType::F64,
        }
    }

    /// The value `x` converted to type `ty` (as a Futhark conversion would; floats saturate
    /// nowhere, they truncate like C). Used to build constants such as neutral elements
    /// generically over all types.
    pub fn from_f64(ty: PrimType, x: f64) -> PrimValue {
        match ty {
            PrimType::Bool => PrimValue::Bool(x != 0.0),
            PrimType::I8 => PrimValue::I8(x as i8),
            PrimType::I16 => PrimValue::I16(x as i16),
            PrimType::I32 => PrimValue::I32(x as i32),
            PrimType::I64 => PrimValue::I64(x as i64),
            PrimType::U8 => PrimValue::U8(x as u8),
            PrimType::U16 => PrimValue::U16(x as u16),
            PrimType::U32 => PrimValue::U32(x as u32),
            PrimType::U64 => PrimValue::U64(x as u64),
            PrimType::F16 => PrimValue::F16(f32_to_f16_bits(x as f32)),
            PrimType::F32 => PrimValue::F32(x as f32),
            PrimType::F64 => PrimValue::F64(x),
        }
    }

    /// The smallest value of a type (`-inf` for floats): the neutral element of `max`.
    pub fn min_value(ty: PrimType) -> PrimValue {
        match ty {
            PrimType::Bool => PrimValue::Bool(false),
            PrimType::I8 => PrimValue::I8(i8::MIN),
            PrimType::I16 => PrimValue::I16(i16::MIN),
            PrimType::I32 => PrimValue::I32(i32::MIN),
            PrimType::I64 => PrimValue::I64(i64::MIN),
            PrimType::U8 => PrimValue::U8(0),
            PrimType::U16 => PrimValue::U16(0),
            PrimType::U32 => PrimValue::U32(0),
            PrimType::U64 => PrimValue::U64(0),
            PrimType::F16 => PrimValue::F16(0xfc00),
            PrimType::F32 => PrimValue::F32(f32::NEG_INFINITY),
            PrimType::F64 => PrimValue::F64(f64::NEG_INFINITY),
        }
    }

    /// The largest value of a type (`+inf` for floats): the neutral element of `min`.
    pub fn max_value(ty: PrimType) -> PrimValue {
        match ty {
            PrimType::Bool => PrimValue::Bool(true),
            PrimType::I8 => PrimValue::I8(i8::MAX),
            PrimType::I16 => PrimValue::I16(i16::MAX),
            PrimType::I32 => PrimValue::I32(i32::MAX),
            PrimType::I64 => PrimValue::I64(i64::MAX),
            PrimType::U8 => PrimValue::U8(u8::MAX),
            PrimType::U16 => PrimValue::U16(u16::MAX),
            PrimType::U32 => PrimValue::U32(u32::MAX),
            PrimType::U64 => PrimValue::U64(u64::MAX),
            PrimType::F16 => PrimValue::F16(0x7c00),
            PrimType::F32 => PrimValue::F32(f32::INFINITY),
            PrimType::F64 => PrimValue::F64(f64::INFINITY),
        }
    }
}

/// Round-to-nearest-even conversion of an `f32` to binary16 bits (enough for constants).
pub fn f32_to_f16_bits(x: f32) -> u16 {
    let bits = x.to_bits();
    let sign = ((bits >> 16) & 0x8000) as u16;
    let exp = ((bits >> 23) & 0xff) as i32;
    let mant = bits & 0x7f_ffff;
    if exp == 0xff {
        // Infinity keeps a zero mantissa; NaN keeps a quiet bit.
        return sign | 0x7c00 | if mant != 0 { 0x200 } else { 0 };
    }
    let e = exp - 127 + 15;
    if e >= 0x1f {
        return sign | 0x7c00;
    }
    if e <= 0 {
        if e < -10 {
            return sign;
        }
        // Subnormal half: shift the full mantissa (with its implicit bit) into place.
        let m = mant | 0x80_0000;
        let shift = (14 - e) as u32;
        let half = m >> shift;
        let rem = m & ((1 << shift) - 1);
        let halfway = 1 << (shift - 1);
        let rounded = if rem > halfway || (rem == halfway && (half & 1) == 1) {
            half + 1
        } else {
            half
        };
        return sign | rounded as u16;
    }
    let half = ((e as u32) << 10) | (mant >> 13);
    let rem = mant & 0x1fff;
    let rounded = if rem > 0x1000 || (rem == 0x1000 && (half & 1) == 1) {
        half + 1
    } else {
        half
    };
    sign | rounded as u16
}

/// Binary16 bits to `f32` (exact).
pub fn f16_bits_to_f32(h: u16) -> f32 {
    let sign = ((h as u32) & 0x8000) << 16;
    let exp = ((h >> 10) & 0x1f) as u32;
    let mant = (h & 0x3ff) as u32;
    let bits = if exp == 0 {
        if mant == 0 {
            sign
        } else {
            // Normalise the subnormal.
            let mut e = 127 - 15 + 1;
            let mut m = mant;
            while m & 0x400 == 0 {
                m <<= 1;
                e -= 1;
            }
            sign | ((e as u32) << 23) | ((m & 0x3ff) << 13)
        }
    } else if exp == 0x1f {
        sign | 0x7f80_0000 | (mant << 13)
    } else {
        sign | ((exp + 127 - 15) << 23) | (mant << 13)
    };
    f32::from_bits(bits)
}

impl fmt::Display for PrimValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            PrimValue::Bool(b) => write!(f, "{b}"),
            PrimValue::I8(x) => write!(f, "{x}i8"),
            PrimValue::I16(x) => write!(f, "{x}i16"),
            PrimValue::I32(x) => write!(f, "{x}i32"),
            PrimValue::I64(x) => write!(f, "{x}i64"),
            PrimValue::U8(x) => write!(f, "{x}u8"),
            PrimValue::U16(x) => write!(f, "{x}u16"),
            PrimValue::U32(x) => write!(f, "{x}u32"),
            PrimValue::U64(x) => write!(f, "{x}u64"),
            PrimValue::F16(b) => write_float(f, f16_bits_to_f32(b) as f64, "f16"),
            PrimValue::F32(x) => write_float(f, x as f64, "f32"),
            PrimValue::F64(x) => write_float(f, x, "f64"),
        }
    }
}

fn write_float(f: &mut fmt::Formatter<'_>, x: f64, suffix: &str) -> fmt::Result {
    if x.is_nan() {
        write!(f, "{suffix}.nan")
    } else if x.is_infinite() {
        let sign = if x < 0.0 { "-" } else { "" };
        write!(f, "{sign}{suffix}.inf")
    } else {
        write!(f, "{x:?}{suffix}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f16_round_trips_representable_values() {
        for x in [
            0.0f32,
            1.0,
            -2.5,
            65504.0,
            6.1035156e-5,
            5.9604645e-8,
            0.333,
        ] {
            let h = f32_to_f16_bits(x);
            let back = f16_bits_to_f32(h);
            assert!((back - x).abs() <= x.abs() * 1e-3 + 6e-8, "{x} -> {back}");
        }
        assert_eq!(f32_to_f16_bits(1.0), 0x3c00);
        assert_eq!(f32_to_f16_bits(f32::INFINITY), 0x7c00);
    }

    #[test]
    fn constants_print_with_their_type() {
        assert_eq!(PrimValue::I32(-3).to_string(), "-3i32");
        assert_eq!(PrimValue::F32(1.5).to_string(), "1.5f32");
        assert_eq!(PrimValue::F64(f64::NEG_INFINITY).to_string(), "-f64.inf");
    }
}
