//! The scalar operators of the SOAC IR (host code), with Futhark's semantics: flooring
//! signed division, wrapping integer arithmetic, operators that say how they read bits.

use futhark_ir::soacs::{BinOp, CmpOp, ConvOp, MathFn, UnOp};
use futhark_ir::types::{PrimType, PrimValue};

use crate::error::{ExecError, Result};
use crate::prim::{bitcast, float, from_f64, from_int, int, sint, uint, width};

fn div_zero() -> ExecError {
    ExecError::runtime("division by zero")
}

/// Integer power by squaring, wrapping; a negative exponent is an error.
pub fn ipow(t: PrimType, base: i128, exp: i128) -> Result<PrimValue> {
    if exp < 0 {
        return Err(ExecError::runtime("Negative exponent"));
    }
    // Reduced to the type after every step, so products stay within `i128`.
    let wrap = |x: i128| int(from_int(t, x));
    let (mut acc, mut b, mut e) = (1i128, wrap(base), exp);
    while e > 0 {
        if e & 1 == 1 {
            acc = wrap(acc.wrapping_mul(b));
        }
        b = wrap(b.wrapping_mul(b));
        e >>= 1;
    }
    Ok(from_int(t, acc))
}

/// A shift amount as a count, or `None` when it is at least the width (or negative).
fn shift_amount(t: PrimType, b: PrimValue) -> Option<u32> {
    let n = uint(b);
    (n < width(t) as i128).then_some(n as u32)
}

pub fn binop(op: BinOp, a: PrimValue, b: PrimValue) -> Result<PrimValue> {
    let t = a.ty();
    if t.is_float() {
        let (x, y) = (float(a), float(b));
        let r = match op {
            BinOp::Add => x + y,
            BinOp::Sub => x - y,
            BinOp::Mul => x * y,
            BinOp::FDiv => x / y,
            BinOp::Pow => x.powf(y),
            BinOp::FMod => x % y,
            BinOp::FMin | BinOp::SMin => x.min(y),
            BinOp::FMax | BinOp::SMax => x.max(y),
            _ => return Err(bad_operands(op.name(), a)),
        };
        return Ok(from_f64(t, r));
    }
    if t == PrimType::Bool {
        let (x, y) = (int(a) != 0, int(b) != 0);
        return Ok(PrimValue::Bool(match op {
            BinOp::LogAnd | BinOp::And => x && y,
            BinOp::LogOr | BinOp::Or => x || y,
            BinOp::Xor => x ^ y,
            _ => return Err(bad_operands(op.name(), a)),
        }));
    }
    let bits_of = |x: i128| x & ((1i128 << width(t)) - 1);
    Ok(match op {
        BinOp::Add => from_int(t, int(a).wrapping_add(int(b))),
        BinOp::Sub => from_int(t, int(a).wrapping_sub(int(b))),
        BinOp::Mul => from_int(t, int(a).wrapping_mul(int(b))),
        BinOp::Pow => ipow(t, int(a), int(b))?,
        BinOp::SDiv | BinOp::SMod => {
            let (x, y) = (sint(a), sint(b));
            if y == 0 {
                return Err(div_zero());
            }
            let (q, r) = (x / y, x % y);
            let adjust = r != 0 && ((r < 0) != (y < 0));
            if op == BinOp::SDiv {
                from_int(t, if adjust { q - 1 } else { q })
            } else {
                from_int(t, if adjust { r + y } else { r })
            }
        }
        BinOp::SQuot | BinOp::SRem => {
            let (x, y) = (sint(a), sint(b));
            if y == 0 {
                return Err(div_zero());
            }
            from_int(t, if op == BinOp::SQuot { x / y } else { x % y })
        }
        BinOp::UDiv | BinOp::UMod => {
            let (x, y) = (uint(a), uint(b));
            if y == 0 {
                return Err(div_zero());
            }
            from_int(t, if op == BinOp::UDiv { x / y } else { x % y })
        }
        BinOp::SMin => from_int(t, sint(a).min(sint(b))),
        BinOp::SMax => from_int(t, sint(a).max(sint(b))),
        BinOp::UMin => from_int(t, uint(a).min(uint(b))),
        BinOp::UMax => from_int(t, uint(a).max(uint(b))),
        BinOp::Shl => match shift_amount(t, b) {
            Some(n) => from_int(t, bits_of(uint(a) << n)),
            None => from_int(t, 0),
        },
        BinOp::LShr => match shift_amount(t, b) {
            Some(n) => from_int(t, uint(a) >> n),
            None => from_int(t, 0),
        },
        BinOp::AShr => match shift_amount(t, b) {
            Some(n) => from_int(t, sint(a) >> n),
            None => from_int(t, if sint(a) < 0 { -1 } else { 0 }),
        },
        BinOp::And => from_int(t, uint(a) & uint(b)),
        BinOp::Or => from_int(t, uint(a) | uint(b)),
        BinOp::Xor => from_int(t, uint(a) ^ uint(b)),
        BinOp::FDiv | BinOp::FMod | BinOp::FMin | BinOp::FMax | BinOp::LogAnd | BinOp::LogOr => {
            return Err(bad_operands(op.name(), a));
        }
    })
}

fn bad_operands(op: &str, a: PrimValue) -> ExecError {
    ExecError::malformed(format!("operator `{op}` applied to {}", a.ty()))
}

pub fn cmpop(op: CmpOp, a: PrimValue, b: PrimValue) -> Result<bool> {
    Ok(match op {
        CmpOp::Eq if a.ty().is_float() => float(a) == float(b),
        CmpOp::Eq => uint(a) == uint(b),
        CmpOp::SLt => sint(a) < sint(b),
        CmpOp::SLe => sint(a) <= sint(b),
        CmpOp::ULt | CmpOp::BLt => uint(a) < uint(b),
        CmpOp::ULe | CmpOp::BLe => uint(a) <= uint(b),
        CmpOp::FLt => float(a) < float(b),
        CmpOp::FLe => float(a) <= float(b),
    })
}

pub fn unop(op: UnOp, a: PrimValue) -> Result<PrimValue> {
    let t = a.ty();
    Ok(match op {
        UnOp::Neg if t.is_float() => from_f64(t, -float(a)),
        UnOp::Neg => from_int(t, int(a).wrapping_neg()),
        UnOp::Not => PrimValue::Bool(int(a) == 0),
        UnOp::Complement => from_int(t, !uint(a)),
        UnOp::SAbs => from_int(t, sint(a).abs()),
        UnOp::FAbs => from_f64(t, float(a).abs()),
        UnOp::SSignum => from_int(t, sint(a).signum()),
        UnOp::USignum => from_int(t, (uint(a) != 0) as i128),
        UnOp::FSignum => {
            let x = float(a);
            from_f64(
                t,
                if x == 0.0 || x.is_nan() {
                    x
                } else {
                    x.signum()
                },
            )
        }
        UnOp::Popc => PrimValue::I32((uint(a) as u128).count_ones() as i32),
        UnOp::Clz => {
            let w = width(t);
            PrimValue::I32(((uint(a) as u128).leading_zeros() - (128 - w)) as i32)
        }
        UnOp::Ctz => {
            let w = width(t);
            PrimValue::I32((uint(a) as u128).trailing_zeros().min(w) as i32)
        }
    })
}

pub fn conv(op: ConvOp, a: PrimValue) -> Result<PrimValue> {
    let to = op.target();
    Ok(match op {
        ConvOp::ZExt(_) => from_int(to, uint(a)),
        ConvOp::SExt(_) => from_int(to, sint(a)),
        ConvOp::FpConv(_) => from_f64(to, float(a)),
        ConvOp::FpToSi(_) | ConvOp::FpToUi(_) => from_f64(to, float(a)),
        ConvOp::SiToFp(_) => from_f64(to, sint(a) as f64),
        ConvOp::UiToFp(_) => from_f64(to, uint(a) as f64),
        ConvOp::IToB => PrimValue::Bool(uint(a) != 0),
        ConvOp::BToI(_) => from_int(to, uint(a)),
        ConvOp::FToB => PrimValue::Bool(float(a) != 0.0),
        ConvOp::BToF(_) => from_f64(to, uint(a) as f64),
        ConvOp::BitCast(_) => bitcast(a, to),
    })
}

pub fn math(f: MathFn, args: &[PrimValue]) -> Result<PrimValue> {
    let Some(&first) = args.first() else {
        return Err(ExecError::malformed(format!(
            "`{}` without arguments",
            f.name()
        )));
    };
    if args.len() != f.arity() {
        return Err(ExecError::malformed(format!("arity of `{}`", f.name())));
    }
    let t = first.ty();
    let x = float(first);
    let y = args.get(1).map(|v| float(*v)).unwrap_or(0.0);
    let z = args.get(2).map(|v| float(*v)).unwrap_or(0.0);
    let pi = std::f64::consts::PI;
    let r = match f {
        MathFn::Sqrt => x.sqrt(),
        MathFn::Rsqrt => 1.0 / x.sqrt(),
        MathFn::Cbrt => x.cbrt(),
        MathFn::Exp => x.exp(),
        MathFn::Log => x.ln(),
        MathFn::Log2 => x.log2(),
        MathFn::Log10 => x.log10(),
        MathFn::Log1p => x.ln_1p(),
        MathFn::Sin => x.sin(),
        MathFn::Cos => x.cos(),
        MathFn::Tan => x.tan(),
        MathFn::SinPi => (x * pi).sin(),
        MathFn::CosPi => (x * pi).cos(),
        MathFn::TanPi => (x * pi).tan(),
        MathFn::Asin => x.asin(),
        MathFn::Acos => x.acos(),
        MathFn::Atan => x.atan(),
        MathFn::AsinPi => x.asin() / pi,
        MathFn::AcosPi => x.acos() / pi,
        MathFn::AtanPi => x.atan() / pi,
        MathFn::Sinh => x.sinh(),
        MathFn::Cosh => x.cosh(),
        MathFn::Tanh => x.tanh(),
        MathFn::Asinh => x.asinh(),
        MathFn::Acosh => x.acosh(),
        MathFn::Atanh => x.atanh(),
        MathFn::Gamma => futhark_values::special::gamma(x),
        MathFn::Lgamma => futhark_values::special::lgamma(x),
        MathFn::Erf => futhark_values::special::erf(x),
        MathFn::Erfc => futhark_values::special::erfc(x),
        MathFn::Round => x.round_ties_even(),
        MathFn::Ceil => x.ceil(),
        MathFn::Floor => x.floor(),
        MathFn::Atan2 => x.atan2(y),
        MathFn::Atan2Pi => x.atan2(y) / pi,
        MathFn::Hypot => x.hypot(y),
        MathFn::NextAfter => return Ok(next_after(first, args[1])),
        MathFn::CopySign => x.copysign(y),
        MathFn::Ldexp => x * 2f64.powi(int(args[1]) as i32),
        MathFn::Lerp => x + (y - x) * z,
        MathFn::Mad | MathFn::Fma => x.mul_add(y, z),
        MathFn::IsNan => return Ok(PrimValue::Bool(x.is_nan())),
        MathFn::IsInf => return Ok(PrimValue::Bool(x.is_infinite())),
        MathFn::SMulHi | MathFn::UMulHi | MathFn::SMadHi | MathFn::UMadHi => {
            let w = width(t);
            let read = |v: PrimValue| {
                if matches!(f, MathFn::SMulHi | MathFn::SMadHi) {
                    sint(v)
                } else {
                    uint(v)
                }
            };
            let hi = (read(first).wrapping_mul(read(args[1]))) >> w;
            let hi = if args.len() == 3 {
                hi.wrapping_add(read(args[2]))
            } else {
                hi
            };
            return Ok(from_int(t, hi));
        }
    };
    Ok(from_f64(t, r))
}

/// The next representable value after `x` in the direction of `y`, in `x`'s type.
fn next_after(x: PrimValue, y: PrimValue) -> PrimValue {
    match (x, y) {
        (PrimValue::F32(a), PrimValue::F32(b)) => PrimValue::F32(step_f32(a, b)),
        (PrimValue::F64(a), PrimValue::F64(b)) => PrimValue::F64(step_f64(a, b)),
        _ => x,
    }
}

fn step_f32(a: f32, b: f32) -> f32 {
    if a.is_nan() || b.is_nan() {
        return f32::NAN;
    }
    if a == b {
        return b;
    }
    if a == 0.0 {
        return f32::from_bits(1).copysign(b);
    }
    let bits = a.to_bits();
    f32::from_bits(if (b > a) == (a > 0.0) {
        bits + 1
    } else {
        bits - 1
    })
}

fn step_f64(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        return f64::NAN;
    }
    if a == b {
        return b;
    }
    if a == 0.0 {
        return f64::from_bits(1).copysign(b);
    }
    let bits = a.to_bits();
    f64::from_bits(if (b > a) == (a > 0.0) {
        bits + 1
    } else {
        bits - 1
    })
}
