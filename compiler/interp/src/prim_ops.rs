//! The primitive operations: integer, float and bool arithmetic, comparisons and
//! conversions, on scalars. The same element functions drive the whole-array kernels in
//! `kernels.rs`, so scalar and vectorised evaluation cannot disagree.
//!
//! Integer operations are written once per width over a trait implemented by both the signed
//! and the unsigned Rust type of that width: the operation decides the interpretation of the
//! bits (`SDiv` floors as signed, `UDiv` divides as unsigned), exactly as Futhark's primitive
//! layer, which does not distinguish signedness in its types.

use half::f16;

use crate::prim::Prim;
use futhark_values::special;

/// Binary integer operations; operands and result share one integer type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IntBin {
    Add,
    Sub,
    Mul,
    SDiv,
    SMod,
    SQuot,
    SRem,
    UDiv,
    UMod,
    SDivUp,
    UDivUp,
    SMin,
    SMax,
    UMin,
    UMax,
    Shl,
    LShr,
    AShr,
    And,
    Or,
    Xor,
    SPow,
    UPow,
    SMulHi,
    UMulHi,
}

/// Integer comparisons.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IntCmp {
    Eq,
    SLt,
    SLe,
    ULt,
    ULe,
}

/// Unary integer operations. `Clz`, `Ctz` and `Popc` return `i32`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IntUn {
    Complement,
    Abs,
    SSignum,
    USignum,
    Neg,
    Clz,
    Ctz,
    Popc,
}

/// Binary float operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FloatBin {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    Pow,
    Min,
    Max,
    Atan2,
    Atan2Pi,
    Hypot,
    NextAfter,
    CopySign,
}

/// Float comparisons.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FloatCmp {
    Eq,
    Lt,
    Le,
}

/// Unary float operations (`IsInf` and `IsNan` return `bool`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FloatUn {
    Sqrt,
    Rsqrt,
    Cbrt,
    Log,
    Log2,
    Log10,
    Log1p,
    Exp,
    Sin,
    Cos,
    Tan,
    SinPi,
    CosPi,
    TanPi,
    Asin,
    Acos,
    Atan,
    AsinPi,
    AcosPi,
    AtanPi,
    Sinh,
    Cosh,
    Tanh,
    Asinh,
    Acosh,
    Atanh,
    Gamma,
    Lgamma,
    Erf,
    Erfc,
    Round,
    Ceil,
    Floor,
    Trunc,
    Abs,
    Signum,
    Neg,
    IsInf,
    IsNan,
}

/// Boolean binary operations (`false < true`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BoolBin {
    And,
    Or,
    Eq,
    Lt,
    Le,
}

/// Three-operand float operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FloatTern {
    Lerp,
    Mad,
    Fma,
}

/// Why a primitive operation failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArithError {
    DivisionByZero,
    NegativeExponent,
    /// The operands have types the operation does not accept (an interpreter bug or an
    /// unchecked program).
    BadOperands,
}

impl ArithError {
    pub fn message(self) -> &'static str {
        match self {
            ArithError::DivisionByZero => "division by zero",
            ArithError::NegativeExponent => "Negative exponent",
            ArithError::BadOperands => "primitive operation applied to operands of the wrong type",
        }
    }
}

/// Integer element types, signed and unsigned alike; see the module doc.
pub trait Int: Copy + PartialEq + 'static {
    fn bin(op: IntBin, x: Self, y: Self) -> Result<Self, ArithError>;
    fn cmp(op: IntCmp, x: Self, y: Self) -> bool;
    fn un(op: IntUn, x: Self) -> Self;
    /// `Clz`, `Ctz`, `Popc`.
    fn count(op: IntUn, x: Self) -> i32;
    /// Division variants that give zero for a zero divisor (`*_safe` intrinsics).
    fn bin_safe(op: IntBin, x: Self, y: Self) -> Self;
    fn mad_hi(signed: bool, a: Self, b: Self, c: Self) -> Self;
}

macro_rules! int_impl {
    ($t:ty, $s:ty, $u:ty, $bits:expr) => {
        impl Int for $t {
            #[inline(always)]
            fn bin(op: IntBin, x: Self, y: Self) -> Result<Self, ArithError> {
                let (sx, sy) = (x as $s, y as $s);
                let (ux, uy) = (x as $u, y as $u);
                Ok(match op {
                    IntBin::Add => x.wrapping_add(y),
                    IntBin::Sub => x.wrapping_sub(y),
                    IntBin::Mul => x.wrapping_mul(y),
                    IntBin::SDiv => {
                        if sy == 0 {
                            return Err(ArithError::DivisionByZero);
                        }
                        let q = sx.wrapping_div(sy);
                        let r = sx.wrapping_rem(sy);
                        (if r != 0 && ((r < 0) != (sy < 0)) {
                            q.wrapping_sub(1)
                        } else {
                            q
                        }) as $t
                    }
                    IntBin::SMod => {
                        if sy == 0 {
                            return Err(ArithError::DivisionByZero);
                        }
                        let r = sx.wrapping_rem(sy);
                        (if r != 0 && ((r < 0) != (sy < 0)) {
                            r.wrapping_add(sy)
                        } else {
                            r
                        }) as $t
                    }
                    IntBin::SQuot => {
                        if sy == 0 {
                            return Err(ArithError::DivisionByZero);
                        }
                        sx.wrapping_div(sy) as $t
                    }
                    IntBin::SRem => {
                        if sy == 0 {
                            return Err(ArithError::DivisionByZero);
                        }
                        sx.wrapping_rem(sy) as $t
                    }
                    IntBin::UDiv => {
                        if uy == 0 {
                            return Err(ArithError::DivisionByZero);
                        }
                        (ux / uy) as $t
                    }
                    IntBin::UMod => {
                        if uy == 0 {
                            return Err(ArithError::DivisionByZero);
                        }
                        (ux % uy) as $t
                    }
                    IntBin::SDivUp => {
                        if sy == 0 {
                            return Err(ArithError::DivisionByZero);
                        }
                        let q = sx.wrapping_div(sy);
                        let r = sx.wrapping_rem(sy);
                        (if r != 0 && ((r < 0) == (sy < 0)) {
                            q.wrapping_add(1)
                        } else {
                            q
                        }) as $t
                    }
                    IntBin::UDivUp => {
                        if uy == 0 {
                            return Err(ArithError::DivisionByZero);
                        }
                        (ux / uy + if ux % uy != 0 { 1 } else { 0 }) as $t
                    }
                    IntBin::SMin => sx.min(sy) as $t,
                    IntBin::SMax => sx.max(sy) as $t,
                    IntBin::UMin => ux.min(uy) as $t,
                    IntBin::UMax => ux.max(uy) as $t,
                    IntBin::Shl => {
                        if sy < 0 || uy >= $bits {
                            0
                        } else {
                            (ux << uy) as $t
                        }
                    }
                    IntBin::LShr => {
                        if sy < 0 || uy >= $bits {
                            0
                        } else {
                            (ux >> uy) as $t
                        }
                    }
                    IntBin::AShr => {
                        if sy < 0 || uy >= $bits {
                            if sx < 0 { (-1 as $s) as $t } else { 0 }
                        } else {
                            (sx >> uy) as $t
                        }
                    }
                    IntBin::And => x & y,
                    IntBin::Or => x | y,
                    IntBin::Xor => x ^ y,
                    IntBin::SPow => {
                        if sy < 0 {
                            return Err(ArithError::NegativeExponent);
                        }
                        pow_bits(ux as u64, uy as u64) as $t
                    }
                    IntBin::UPow => pow_bits(ux as u64, uy as u64) as $t,
                    IntBin::SMulHi => (((sx as i128) * (sy as i128)) >> $bits) as $t,
                    IntBin::UMulHi => (((ux as u128) * (uy as u128)) >> $bits) as $t,
                })
            }

            #[inline(always)]
            fn cmp(op: IntCmp, x: Self, y: Self) -> bool {
                match op {
                    IntCmp::Eq => x == y,
                    IntCmp::SLt => (x as $s) < (y as $s),
                    IntCmp::SLe => (x as $s) <= (y as $s),
                    IntCmp::ULt => (x as $u) < (y as $u),
                    IntCmp::ULe => (x as $u) <= (y as $u),
                }
            }

            #[inline(always)]
            fn un(op: IntUn, x: Self) -> Self {
                let sx = x as $s;
                match op {
                    IntUn::Complement => !x,
                    IntUn::Abs => sx.wrapping_abs() as $t,
                    IntUn::SSignum => sx.signum() as $t,
                    IntUn::USignum => (x != 0) as $t,
                    IntUn::Neg => (0 as $t).wrapping_sub(x),
                    IntUn::Clz | IntUn::Ctz | IntUn::Popc => Self::count(op, x) as $t,
                }
            }

            #[inline(always)]
            fn count(op: IntUn, x: Self) -> i32 {
                let ux = x as $u;
                match op {
                    IntUn::Clz => ux.leading_zeros() as i32,
                    IntUn::Ctz => ux.trailing_zeros() as i32,
                    _ => ux.count_ones() as i32,
                }
            }

            fn bin_safe(op: IntBin, x: Self, y: Self) -> Self {
                Self::bin(op, x, y).unwrap_or(0 as $t)
            }

            fn mad_hi(signed: bool, a: Self, b: Self, c: Self) -> Self {
                let op = if signed {
                    IntBin::SMulHi
                } else {
                    IntBin::UMulHi
                };
                Self::bin(op, a, b).unwrap_or(0 as $t).wrapping_add(c)
            }
        }
    };
}

int_impl!(i8, i8, u8, 8);
int_impl!(u8, i8, u8, 8);
int_impl!(i16, i16, u16, 16);
int_impl!(u16, i16, u16, 16);
int_impl!(i32, i32, u32, 32);
int_impl!(u32, i32, u32, 32);
int_impl!(i64, i64, u64, 64);
int_impl!(u64, i64, u64, 64);

/// Wrapping exponentiation by squaring on bit patterns (the result's low bits are right for
/// every width).
fn pow_bits(mut base: u64, mut exp: u64) -> u64 {
    let mut acc: u64 = 1;
    while exp > 0 {
        if exp & 1 == 1 {
            acc = acc.wrapping_mul(base);
        }
        base = base.wrapping_mul(base);
        exp >>= 1;
    }
    acc
}

/// Float element types (`f16` is computed in `f32`).
pub trait Float: Copy + PartialEq + 'static {
    fn bin(op: FloatBin, x: Self, y: Self) -> Self;
    fn cmp(op: FloatCmp, x: Self, y: Self) -> bool;
    fn un(op: FloatUn, x: Self) -> Self;
    fn test(op: FloatUn, x: Self) -> bool;
    fn tern(op: FloatTern, a: Self, b: Self, c: Self) -> Self;
    fn ldexp(x: Self, n: i32) -> Self;
}

macro_rules! float_impl {
    ($t:ident, $bits:ty) => {
        impl Float for $t {
            #[inline(always)]
            fn bin(op: FloatBin, x: Self, y: Self) -> Self {
                use std::$t::consts::PI;
                match op {
                    FloatBin::Add => x + y,
                    FloatBin::Sub => x - y,
                    FloatBin::Mul => x * y,
                    FloatBin::Div => x / y,
                    // The reference interpreter's float modulus floors, like integer `%`.
                    FloatBin::Mod => {
                        if y.is_infinite() && x.is_finite() {
                            if (x < 0.0) == (y < 0.0) || x == 0.0 {
                                x
                            } else {
                                y
                            }
                        } else {
                            x - y * (x / y).floor()
                        }
                    }
                    FloatBin::Pow => x.powf(y),
                    FloatBin::Min => x.min(y),
                    FloatBin::Max => x.max(y),
                    FloatBin::Atan2 => x.atan2(y),
                    FloatBin::Atan2Pi => x.atan2(y) / PI,
                    FloatBin::Hypot => x.hypot(y),
                    FloatBin::NextAfter => next_after(x, y),
                    FloatBin::CopySign => x.copysign(y),
                }
            }

            #[inline(always)]
            fn cmp(op: FloatCmp, x: Self, y: Self) -> bool {
                match op {
                    FloatCmp::Eq => x == y,
                    FloatCmp::Lt => x < y,
                    FloatCmp::Le => x <= y,
                }
            }

            #[inline(always)]
            fn un(op: FloatUn, x: Self) -> Self {
                use std::$t::consts::PI;
                match op {
                    FloatUn::Sqrt => x.sqrt(),
                    FloatUn::Rsqrt => 1.0 / x.sqrt(),
                    FloatUn::Cbrt => x.cbrt(),
                    FloatUn::Log => x.ln(),
                    FloatUn::Log2 => x.log2(),
                    FloatUn::Log10 => x.log10(),
                    FloatUn::Log1p => x.ln_1p(),
                    FloatUn::Exp => x.exp(),
                    FloatUn::Sin => x.sin(),
                    FloatUn::Cos => x.cos(),
                    FloatUn::Tan => x.tan(),
                    FloatUn::SinPi => (x * PI).sin(),
                    FloatUn::CosPi => (x * PI).cos(),
                    FloatUn::TanPi => (x * PI).tan(),
                    FloatUn::Asin => x.asin(),
                    FloatUn::Acos => x.acos(),
                    FloatUn::Atan => x.atan(),
                    FloatUn::AsinPi => x.asin() / PI,
                    FloatUn::AcosPi => x.acos() / PI,
                    FloatUn::AtanPi => x.atan() / PI,
                    FloatUn::Sinh => x.sinh(),
                    FloatUn::Cosh => x.cosh(),
                    FloatUn::Tanh => x.tanh(),
                    FloatUn::Asinh => x.asinh(),
                    FloatUn::Acosh => x.acosh(),
                    FloatUn::Atanh => x.atanh(),
                    FloatUn::Gamma => special::gamma(x as f64) as $t,
                    FloatUn::Lgamma => special::lgamma(x as f64) as $t,
                    FloatUn::Erf => special::erf(x as f64) as $t,
                    FloatUn::Erfc => special::erfc(x as f64) as $t,
                    FloatUn::Round => x.round_ties_even(),
                    FloatUn::Ceil => x.ceil(),
                    FloatUn::Floor => x.floor(),
                    FloatUn::Trunc => x.trunc(),
                    FloatUn::Abs => x.abs(),
                    FloatUn::Signum => {
                        if x > 0.0 {
                            1.0
                        } else if x < 0.0 {
                            -1.0
                        } else {
                            x
                        }
                    }
                    FloatUn::Neg => -x,
                    FloatUn::IsInf | FloatUn::IsNan => Self::test(op, x) as u8 as $t,
                }
            }

            #[inline(always)]
            fn test(op: FloatUn, x: Self) -> bool {
                match op {
                    FloatUn::IsInf => x.is_infinite(),
                    _ => x.is_nan(),
                }
            }

            #[inline(always)]
            fn tern(op: FloatTern, a: Self, b: Self, c: Self) -> Self {
                match op {
                    FloatTern::Lerp => a + (b - a) * c.clamp(0.0, 1.0),
                    FloatTern::Mad => a * b + c,
                    FloatTern::Fma => a.mul_add(b, c),
                }
            }

            fn ldexp(x: Self, n: i32) -> Self {
                // Two steps so that 2ⁿ itself does not overflow when x is tiny.
                let half = n / 2;
                x * (2.0 as $t).powi(half) * (2.0 as $t).powi(n - half)
            }
        }

        /// The next representable value after `x` toward `y`.
        fn next_after_impl(x: $t, y: $t) -> $t {
            if x.is_nan() || y.is_nan() {
                return <$t>::NAN;
            }
            if x == y {
                return y;
            }
            if x == 0.0 {
                let tiny = <$t>::from_bits(1);
                return if y > 0.0 { tiny } else { -tiny };
            }
            let bits = x.to_bits();
            let up = (y > x) == (x > 0.0);
            <$t>::from_bits(if up { bits + 1 } else { bits - 1 })
        }
    };
}

mod f32_impl {
    use super::*;
    float_impl!(f32, u32);
    fn next_after(x: f32, y: f32) -> f32 {
        next_after_impl(x, y)
    }
}

mod f64_impl {
    use super::*;
    float_impl!(f64, u64);
    fn next_after(x: f64, y: f64) -> f64 {
        next_after_impl(x, y)
    }
}

/// `nextafter` for `f16`, on its own bit patterns.
fn next_after_f16(x: f16, y: f16) -> f16 {
    if x.is_nan() || y.is_nan() {
        return f16::NAN;
    }
    if x == y {
        return y;
    }
    if x.to_f32() == 0.0 {
        let tiny = f16::from_bits(1);
        return if y > x { tiny } else { -tiny };
    }
    let bits = x.to_bits();
    let up = (y > x) == (x.to_f32() > 0.0);
    f16::from_bits(if up { bits + 1 } else { bits - 1 })
}

// ---------------------------------------------------------------------------------------------
// Scalar dispatch on `Prim`

macro_rules! int_dispatch2 {
    ($a:expr, $b:expr, |$x:ident, $y:ident| $body:expr, $wrap:ident) => {
        match ($a, $b) {
            (Prim::I8($x), Prim::I8($y)) => Prim::I8($wrap!($body)),
            (Prim::I16($x), Prim::I16($y)) => Prim::I16($wrap!($body)),
            (Prim::I32($x), Prim::I32($y)) => Prim::I32($wrap!($body)),
            (Prim::I64($x), Prim::I64($y)) => Prim::I64($wrap!($body)),
            (Prim::U8($x), Prim::U8($y)) => Prim::U8($wrap!($body)),
            (Prim::U16($x), Prim::U16($y)) => Prim::U16($wrap!($body)),
            (Prim::U32($x), Prim::U32($y)) => Prim::U32($wrap!($body)),
            (Prim::U64($x), Prim::U64($y)) => Prim::U64($wrap!($body)),
            _ => return Err(ArithError::BadOperands),
        }
    };
}

macro_rules! try_id {
    ($e:expr) => {
        $e?
    };
}

macro_rules! plain_id {
    ($e:expr) => {
        $e
    };
}

/// A binary integer operation on two scalars of the same integer type.
pub fn int_bin(op: IntBin, a: Prim, b: Prim) -> Result<Prim, ArithError> {
    Ok(int_dispatch2!(a, b, |x, y| Int::bin(op, x, y), try_id))
}

/// A `*_safe` integer division: zero for a zero divisor.
pub fn int_bin_safe(op: IntBin, a: Prim, b: Prim) -> Result<Prim, ArithError> {
    Ok(int_dispatch2!(
        a,
        b,
        |x, y| Int::bin_safe(op, x, y),
        plain_id
    ))
}

/// An integer comparison.
pub fn int_cmp(op: IntCmp, a: Prim, b: Prim) -> Result<Prim, ArithError> {
    Ok(Prim::Bool(match (a, b) {
        (Prim::I8(x), Prim::I8(y)) => Int::cmp(op, x, y),
        (Prim::I16(x), Prim::I16(y)) => Int::cmp(op, x, y),
        (Prim::I32(x), Prim::I32(y)) => Int::cmp(op, x, y),
        (Prim::I64(x), Prim::I64(y)) => Int::cmp(op, x, y),
        (Prim::U8(x), Prim::U8(y)) => Int::cmp(op, x, y),
        (Prim::U16(x), Prim::U16(y)) => Int::cmp(op, x, y),
        (Prim::U32(x), Prim::U32(y)) => Int::cmp(op, x, y),
        (Prim::U64(x), Prim::U64(y)) => Int::cmp(op, x, y),
        _ => return Err(ArithError::BadOperands),
    }))
}

/// A unary integer operation; the counting operations give `i32`.
pub fn int_un(op: IntUn, a: Prim) -> Result<Prim, ArithError> {
    if matches!(op, IntUn::Clz | IntUn::Ctz | IntUn::Popc) {
        return Ok(Prim::I32(match a {
            Prim::I8(x) => Int::count(op, x),
            Prim::I16(x) => Int::count(op, x),
            Prim::I32(x) => Int::count(op, x),
            Prim::I64(x) => Int::count(op, x),
            Prim::U8(x) => Int::count(op, x),
            Prim::U16(x) => Int::count(op, x),
            Prim::U32(x) => Int::count(op, x),
            Prim::U64(x) => Int::count(op, x),
            _ => return Err(ArithError::BadOperands),
        }));
    }
    Ok(match a {
        Prim::I8(x) => Prim::I8(Int::un(op, x)),
        Prim::I16(x) => Prim::I16(Int::un(op, x)),
        Prim::I32(x) => Prim::I32(Int::un(op, x)),
        Prim::I64(x) => Prim::I64(Int::un(op, x)),
        Prim::U8(x) => Prim::U8(Int::un(op, x)),
        Prim::U16(x) => Prim::U16(Int::un(op, x)),
        Prim::U32(x) => Prim::U32(Int::un(op, x)),
        Prim::U64(x) => Prim::U64(Int::un(op, x)),
        _ => return Err(ArithError::BadOperands),
    })
}

/// `smad_hi`/`umad_hi`.
pub fn int_mad_hi(signed: bool, a: Prim, b: Prim, c: Prim) -> Result<Prim, ArithError> {
    Ok(match (a, b, c) {
        (Prim::I8(x), Prim::I8(y), Prim::I8(z)) => Prim::I8(Int::mad_hi(signed, x, y, z)),
        (Prim::I16(x), Prim::I16(y), Prim::I16(z)) => Prim::I16(Int::mad_hi(signed, x, y, z)),
        (Prim::I32(x), Prim::I32(y), Prim::I32(z)) => Prim::I32(Int::mad_hi(signed, x, y, z)),
        (Prim::I64(x), Prim::I64(y), Prim::I64(z)) => Prim::I64(Int::mad_hi(signed, x, y, z)),
        (Prim::U8(x), Prim::U8(y), Prim::U8(z)) => Prim::U8(Int::mad_hi(signed, x, y, z)),
        (Prim::U16(x), Prim::U16(y), Prim::U16(z)) => Prim::U16(Int::mad_hi(signed, x, y, z)),
        (Prim::U32(x), Prim::U32(y), Prim::U32(z)) => Prim::U32(Int::mad_hi(signed, x, y, z)),
        (Prim::U64(x), Prim::U64(y), Prim::U64(z)) => Prim::U64(Int::mad_hi(signed, x, y, z)),
        _ => return Err(ArithError::BadOperands),
    })
}

/// A binary float operation.
pub fn float_bin(op: FloatBin, a: Prim, b: Prim) -> Result<Prim, ArithError> {
    Ok(match (a, b) {
        (Prim::F16(x), Prim::F16(y)) => Prim::F16(match op {
            FloatBin::NextAfter => next_after_f16(x, y),
            _ => f16::from_f32(Float::bin(op, x.to_f32(), y.to_f32())),
        }),
        (Prim::F32(x), Prim::F32(y)) => Prim::F32(Float::bin(op, x, y)),
        (Prim::F64(x), Prim::F64(y)) => Prim::F64(Float::bin(op, x, y)),
        _ => return Err(ArithError::BadOperands),
    })
}

/// A float comparison.
pub fn float_cmp(op: FloatCmp, a: Prim, b: Prim) -> Result<Prim, ArithError> {
    Ok(Prim::Bool(match (a, b) {
        (Prim::F16(x), Prim::F16(y)) => Float::cmp(op, x.to_f32(), y.to_f32()),
        (Prim::F32(x), Prim::F32(y)) => Float::cmp(op, x, y),
        (Prim::F64(x), Prim::F64(y)) => Float::cmp(op, x, y),
        _ => return Err(ArithError::BadOperands),
    }))
}

/// A unary float operation (`IsInf`/`IsNan` give `bool`).
pub fn float_un(op: FloatUn, a: Prim) -> Result<Prim, ArithError> {
    if matches!(op, FloatUn::IsInf | FloatUn::IsNan) {
        return Ok(Prim::Bool(match a {
            Prim::F16(x) => Float::test(op, x.to_f32()),
            Prim::F32(x) => Float::test(op, x),
            Prim::F64(x) => Float::test(op, x),
            _ => return Err(ArithError::BadOperands),
        }));
    }
    Ok(match a {
        Prim::F16(x) => Prim::F16(match op {
            FloatUn::Neg => -x,
            FloatUn::Abs => f16::from_bits(x.to_bits() & 0x7fff),
            _ => f16::from_f32(Float::un(op, x.to_f32())),
        }),
        Prim::F32(x) => Prim::F32(Float::un(op, x)),
        Prim::F64(x) => Prim::F64(Float::un(op, x)),
        _ => return Err(ArithError::BadOperands),
    })
}

/// `lerp`, `mad`, `fma`.
pub fn float_tern(op: FloatTern, a: Prim, b: Prim, c: Prim) -> Result<Prim, ArithError> {
    Ok(match (a, b, c) {
        (Prim::F16(x), Prim::F16(y), Prim::F16(z)) => Prim::F16(f16::from_f32(Float::tern(
            op,
            x.to_f32(),
            y.to_f32(),
            z.to_f32(),
        ))),
        (Prim::F32(x), Prim::F32(y), Prim::F32(z)) => Prim::F32(Float::tern(op, x, y, z)),
        (Prim::F64(x), Prim::F64(y), Prim::F64(z)) => Prim::F64(Float::tern(op, x, y, z)),
        _ => return Err(ArithError::BadOperands),
    })
}

/// `ldexp`: x·2ⁿ with an `i32` exponent.
pub fn float_ldexp(a: Prim, n: Prim) -> Result<Prim, ArithError> {
    let Prim::I32(n) = n else {
        return Err(ArithError::BadOperands);
    };
    Ok(match a {
        Prim::F16(x) => Prim::F16(f16::from_f32(Float::ldexp(x.to_f32(), n))),
        Prim::F32(x) => Prim::F32(Float::ldexp(x, n)),
        Prim::F64(x) => Prim::F64(Float::ldexp(x, n)),
        _ => return Err(ArithError::BadOperands),
    })
}

/// Boolean operations.
pub fn bool_bin(op: BoolBin, a: Prim, b: Prim) -> Result<Prim, ArithError> {
    let (Prim::Bool(x), Prim::Bool(y)) = (a, b) else {
        return Err(ArithError::BadOperands);
    };
    Ok(Prim::Bool(match op {
        BoolBin::And => x && y,
        BoolBin::Or => x || y,
        BoolBin::Eq => x == y,
        BoolBin::Lt => !x & y,
        BoolBin::Le => x <= y,
    }))
}

/// Bit-level float/integer reinterpretation: `fptobits` (float to same-width signed int).
pub fn float_to_bits(a: Prim) -> Result<Prim, ArithError> {
    Ok(match a {
        Prim::F16(x) => Prim::I16(x.to_bits() as i16),
        Prim::F32(x) => Prim::I32(x.to_bits() as i32),
        Prim::F64(x) => Prim::I64(x.to_bits() as i64),
        _ => return Err(ArithError::BadOperands),
    })
}

/// `bitstofp`: an integer's bits as the float of the same width.
pub fn bits_to_float(a: Prim) -> Result<Prim, ArithError> {
    let bits = a.int_bits().ok_or(ArithError::BadOperands)?;
    Ok(match a.ty().size_bytes() {
        2 => Prim::F16(f16::from_bits(bits as u16)),
        4 => Prim::F32(f32::from_bits(bits as u32)),
        8 => Prim::F64(f64::from_bits(bits)),
        _ => return Err(ArithError::BadOperands),
    })
}

pub use crate::overloaded::{MonoBin, OvOp, Resolved, mono_bin, negate, not, overloaded, resolve};
