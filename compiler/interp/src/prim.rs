//! Scalar values of the twelve primitive types, and the conversions between them that the
//! language defines (sign/zero extension, float truncation, bool to number and back).

use std::fmt;

use futhark_values::PrimType;
use half::f16;

/// One primitive scalar.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Prim {
    I8(i8),
    I16(i16),
    I32(i32),
    I64(i64),
    U8(u8),
    U16(u16),
    U32(u32),
    U64(u64),
    F16(f16),
    F32(f32),
    F64(f64),
    Bool(bool),
}

impl Prim {
    /// The type of this scalar.
    pub fn ty(self) -> PrimType {
        match self {
            Prim::I8(_) => PrimType::I8,
            Prim::I16(_) => PrimType::I16,
            Prim::I32(_) => PrimType::I32,
            Prim::I64(_) => PrimType::I64,
            Prim::U8(_) => PrimType::U8,
            Prim::U16(_) => PrimType::U16,
            Prim::U32(_) => PrimType::U32,
            Prim::U64(_) => PrimType::U64,
            Prim::F16(_) => PrimType::F16,
            Prim::F32(_) => PrimType::F32,
            Prim::F64(_) => PrimType::F64,
            Prim::Bool(_) => PrimType::Bool,
        }
    }

    /// The bit pattern of an integer or bool, zero-extended to 64 bits.
    pub fn int_bits(self) -> Option<u64> {
        Some(match self {
            Prim::I8(x) => x as u8 as u64,
            Prim::I16(x) => x as u16 as u64,
            Prim::I32(x) => x as u32 as u64,
            Prim::I64(x) => x as u64,
            Prim::U8(x) => x as u64,
            Prim::U16(x) => x as u64,
            Prim::U32(x) => x as u64,
            Prim::U64(x) => x,
            Prim::Bool(b) => b as u64,
            _ => return None,
        })
    }

    /// The value of an integer as an `i128` (signed types sign-extend, unsigned zero-extend).
    pub fn as_i128(self) -> Option<i128> {
        Some(match self {
            Prim::I8(x) => x as i128,
            Prim::I16(x) => x as i128,
            Prim::I32(x) => x as i128,
            Prim::I64(x) => x as i128,
            Prim::U8(x) => x as i128,
            Prim::U16(x) => x as i128,
            Prim::U32(x) => x as i128,
            Prim::U64(x) => x as i128,
            _ => return None,
        })
    }

    /// An integer as `i64` (unsigned 64-bit values reinterpret their bits).
    pub fn as_i64(self) -> Option<i64> {
        self.as_i128().map(|x| x as i64)
    }

    /// A float as `f64`.
    pub fn as_f64(self) -> Option<f64> {
        match self {
            Prim::F16(x) => Some(x.to_f64()),
            Prim::F32(x) => Some(x as f64),
            Prim::F64(x) => Some(x),
            _ => None,
        }
    }

    /// The boolean, if this is one.
    pub fn as_bool(self) -> Option<bool> {
        match self {
            Prim::Bool(b) => Some(b),
            _ => None,
        }
    }

    /// An integer of type `ty` with the low bits of `bits` (wrapping).
    pub fn int_from_bits(ty: PrimType, bits: u64) -> Prim {
        match ty {
            PrimType::I8 => Prim::I8(bits as i8),
            PrimType::I16 => Prim::I16(bits as i16),
            PrimType::I32 => Prim::I32(bits as i32),
            PrimType::I64 => Prim::I64(bits as i64),
            PrimType::U8 => Prim::U8(bits as u8),
            PrimType::U16 => Prim::U16(bits as u16),
            PrimType::U32 => Prim::U32(bits as u32),
            PrimType::U64 => Prim::U64(bits),
            PrimType::Bool => Prim::Bool(bits != 0),
            PrimType::F16 => Prim::F16(f16::from_bits(bits as u16)),
            PrimType::F32 => Prim::F32(f32::from_bits(bits as u32)),
            PrimType::F64 => Prim::F64(f64::from_bits(bits)),
        }
    }

    /// A float of type `ty` (rounded) from an `f64`; integer types truncate.
    pub fn from_f64(ty: PrimType, x: f64) -> Prim {
        match ty {
            PrimType::F16 => Prim::F16(f16::from_f64(x)),
            PrimType::F32 => Prim::F32(x as f32),
            PrimType::F64 => Prim::F64(x),
            PrimType::Bool => Prim::Bool(x != 0.0),
            _ => Prim::int_from_bits(ty, float_to_int_bits(x)),
        }
    }

    /// The zero (or `false`) of a type.
    pub fn zero(ty: PrimType) -> Prim {
        Prim::int_from_bits(ty, 0)
    }

    /// Converts to type `to` the way the number modules do (`f32.i64 x`, `i8.u16 x`, ...):
    /// integers extend by their own signedness and truncate; floats truncate toward zero;
    /// bools are 0/1; anything non-zero becomes `true`.
    pub fn convert(self, to: PrimType) -> Prim {
        if self.ty() == to {
            return self;
        }
        match self {
            Prim::Bool(b) => {
                if to.is_float() {
                    Prim::from_f64(to, b as u8 as f64)
                } else {
                    Prim::int_from_bits(to, b as u64)
                }
            }
            Prim::F16(_) | Prim::F32(_) | Prim::F64(_) => {
                let x = self.as_f64().unwrap_or(0.0);
                match to {
                    PrimType::F16 => match self {
                        Prim::F32(y) => Prim::F16(f16::from_f32(y)),
                        _ => Prim::F16(f16::from_f64(x)),
                    },
                    PrimType::F32 => Prim::F32(x as f32),
                    PrimType::F64 => Prim::F64(x),
                    PrimType::Bool => Prim::Bool(x != 0.0),
                    _ => Prim::int_from_bits(to, float_to_int_bits(x)),
                }
            }
            _ => {
                let v = self.as_i128().unwrap_or(0);
                match to {
                    PrimType::F16 => Prim::F16(f16::from_f64(v as f64)),
                    PrimType::F32 => Prim::F32(v as f32),
                    PrimType::F64 => Prim::F64(v as f64),
                    PrimType::Bool => Prim::Bool(v != 0),
                    _ => Prim::int_from_bits(to, v as u64),
                }
            }
        }
    }
}

/// Truncates a float toward zero into a 64-bit pattern. Values beyond `i64` that fit `u64`
/// convert as unsigned, so both `fptosi` and `fptoui` can take the low bits of the result.
pub fn float_to_int_bits(x: f64) -> u64 {
    if !x.is_finite() {
        0
    } else if x >= 9.223_372_036_854_776e18 {
        x as u64
    } else {
        x as i64 as u64
    }
}

impl fmt::Display for Prim {
    /// The value-format spelling: `1i32`, `2.5f32`, `f64.nan`, `true`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fn float(f: &mut fmt::Formatter<'_>, x: f64, suffix: &str, digits: usize) -> fmt::Result {
            if x.is_nan() {
                write!(f, "{suffix}.nan")
            } else if x.is_infinite() {
                if x > 0.0 {
                    write!(f, "{suffix}.inf")
                } else {
                    write!(f, "-{suffix}.inf")
                }
            } else {
                let s = format!("{x:.digits$e}");
                // Shortest of Rust's round-trip form and a fixed number of significant digits.
                let plain = format!("{x}");
                if plain.len() <= s.len() {
                    write!(f, "{plain}{suffix}")
                } else {
                    write!(f, "{s}{suffix}")
                }
            }
        }
        match *self {
            Prim::I8(x) => write!(f, "{x}i8"),
            Prim::I16(x) => write!(f, "{x}i16"),
            Prim::I32(x) => write!(f, "{x}i32"),
            Prim::I64(x) => write!(f, "{x}i64"),
            Prim::U8(x) => write!(f, "{x}u8"),
            Prim::U16(x) => write!(f, "{x}u16"),
            Prim::U32(x) => write!(f, "{x}u32"),
            Prim::U64(x) => write!(f, "{x}u64"),
            Prim::F16(x) => float(f, x.to_f64(), "f16", 4),
            Prim::F32(x) => {
                let plain = format!("{x}");
                if x.is_finite() && plain.len() < 16 {
                    write!(f, "{plain}f32")
                } else {
                    float(f, x as f64, "f32", 8)
                }
            }
            Prim::F64(x) => float(f, x, "f64", 16),
            Prim::Bool(b) => write!(f, "{b}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions_follow_the_module_rules() {
        assert_eq!(Prim::I8(-1).convert(PrimType::U64), Prim::U64(u64::MAX));
        assert_eq!(Prim::U8(255).convert(PrimType::I32), Prim::I32(255));
        assert_eq!(Prim::I64(-1).convert(PrimType::U32), Prim::U32(u32::MAX));
        assert_eq!(Prim::F32(-2.7).convert(PrimType::I32), Prim::I32(-2));
        assert_eq!(Prim::F64(-1.0).convert(PrimType::U8), Prim::U8(255));
        assert_eq!(Prim::I32(3).convert(PrimType::Bool), Prim::Bool(true));
        assert_eq!(Prim::Bool(true).convert(PrimType::F32), Prim::F32(1.0));
        assert_eq!(
            Prim::U64(u64::MAX).convert(PrimType::F64),
            Prim::F64(u64::MAX as f64)
        );
    }
}
