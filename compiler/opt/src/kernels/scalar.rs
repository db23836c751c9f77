//! Scalar operations of the SOAC IR as kernel-IR expressions.
//!
//! The kernel IR's operators are C's, chosen by operand type (truncating integer division,
//! `>>` arithmetic on signed types). Futhark's flooring division and modulus are built
//! from them with a select, and operations on bit patterns of another signedness (the
//! prelude's `udiv32` on `i32`) go through conversions to the unsigned type of the same
//! width and back.

use futhark_ir::soacs::{BinOp, CmpOp, ConvOp, MathFn, UnOp};
use futhark_ir::types::{PrimType, PrimValue};
use futhark_ir::{BinOp as KBin, CmpOp as KCmp, Exp as KExp, MathFn as KMath, UnOp as KUn};

/// The unsigned type of the same width as integer type `t`.
fn unsigned(t: PrimType) -> PrimType {
    match t {
        PrimType::I8 | PrimType::U8 => PrimType::U8,
        PrimType::I16 | PrimType::U16 => PrimType::U16,
        PrimType::I32 | PrimType::U32 => PrimType::U32,
        _ => PrimType::U64,
    }
}

/// The signed type of the same width as integer type `t`.
fn signed(t: PrimType) -> PrimType {
    match t {
        PrimType::I8 | PrimType::U8 => PrimType::I8,
        PrimType::I16 | PrimType::U16 => PrimType::I16,
        PrimType::I32 | PrimType::U32 => PrimType::I32,
        _ => PrimType::I64,
    }
}

fn zero(t: PrimType) -> KExp {
    KExp::Const(PrimValue::from_f64(t, 0.0))
}

/// `op` applied to `a` and `b` reinterpreted as type `via`, the result converted back to `t`.
fn via(op: KBin, a: KExp, b: KExp, t: PrimType, via: PrimType) -> KExp {
    if t == via {
        return KExp::bin(op, a, b);
    }
    KExp::conv(t, KExp::bin(op, KExp::conv(via, a), KExp::conv(via, b)))
}

/// A binary operation of operand type `t`.
/// `0 <= x < n` for `i64` operands, as one unsigned comparison.
pub fn below(x: KExp, n: KExp) -> KExp {
    if let (KExp::Const(PrimValue::I64(a)), KExp::Const(PrimValue::I64(b))) = (&x, &n) {
        return KExp::Const(PrimValue::Bool(*a >= 0 && a < b));
    }
    KExp::cmp(
        KCmp::Lt,
        KExp::conv(PrimType::U64, x),
        KExp::conv(PrimType::U64, n),
    )
}

/// The check an integer operator needs before it runs, as (condition, message): a
/// divisor other than zero, an exponent that is not negative. `None` for operators that
/// cannot fail and for constant operands that pass.
pub fn operand_check(op: BinOp, b: &KExp, t: PrimType) -> Option<(KExp, &'static str)> {
    if !t.is_int() || !op.can_fail() {
        return None;
    }
    if let KExp::Const(c) = b
        && let Some(v) = const_int(*c)
    {
        let fails = if op == BinOp::Pow { v < 0 } else { v == 0 };
        if !fails {
            return None;
        }
    }
    Some(if op == BinOp::Pow {
        if t.is_unsigned() {
            return None;
        }
        (KExp::cmp(KCmp::Ge, b.clone(), zero(t)), "Negative exponent")
    } else {
        (KExp::cmp(KCmp::Ne, b.clone(), zero(t)), "division by zero")
    })
}

fn const_int(c: PrimValue) -> Option<i128> {
    Some(match c {
        PrimValue::I8(x) => x.into(),
        PrimValue::I16(x) => x.into(),
        PrimValue::I32(x) => x.into(),
        PrimValue::I64(x) => x.into(),
        PrimValue::U8(x) => x.into(),
        PrimValue::U16(x) => x.into(),
        PrimValue::U32(x) => x.into(),
        PrimValue::U64(x) => x.into(),
        _ => return None,
    })
}

pub fn binop(op: BinOp, a: KExp, b: KExp, t: PrimType) -> Result<KExp, String> {
    Ok(match op {
        BinOp::Add => KExp::bin(KBin::Add, a, b),
        BinOp::Sub => KExp::bin(KBin::Sub, a, b),
        BinOp::Mul => KExp::bin(KBin::Mul, a, b),
        BinOp::Pow => KExp::bin(KBin::Pow, a, b),
        BinOp::FDiv => KExp::bin(KBin::Div, a, b),
        BinOp::FMod => KExp::bin(KBin::Rem, a, b),
        BinOp::FMin | BinOp::SMin => via(KBin::Min, a, b, t, signed_or(t)),
        BinOp::FMax | BinOp::SMax => via(KBin::Max, a, b, t, signed_or(t)),
        BinOp::UMin => via(KBin::Min, a, b, t, unsigned(t)),
        BinOp::UMax => via(KBin::Max, a, b, t, unsigned(t)),
        BinOp::SQuot => via(KBin::Div, a, b, t, signed(t)),
        BinOp::SRem => via(KBin::Rem, a, b, t, signed(t)),
        BinOp::UDiv => via(KBin::Div, a, b, t, unsigned(t)),
        BinOp::UMod => via(KBin::Rem, a, b, t, unsigned(t)),
        BinOp::SDiv if t.is_unsigned() => KExp::bin(KBin::Div, a, b),
        BinOp::SMod if t.is_unsigned() => KExp::bin(KBin::Rem, a, b),
        BinOp::SDiv | BinOp::SMod => {
            // q = a / b, r = a % b (truncating); when r != 0 and the signs of r and b
            // differ, floor division is q - 1 and the modulus r + b.
            let q = KExp::bin(KBin::Div, a.clone(), b.clone());
            let r = KExp::bin(KBin::Rem, a, b.clone());
            let adjust = KExp::bin(
                KBin::LogAnd,
                KExp::cmp(KCmp::Ne, r.clone(), zero(t)),
                KExp::cmp(
                    KCmp::Ne,
                    KExp::cmp(KCmp::Lt, r.clone(), zero(t)),
                    KExp::cmp(KCmp::Lt, b.clone(), zero(t)),
                ),
            );
            let one = KExp::Const(PrimValue::from_f64(t, 1.0));
            if op == BinOp::SDiv {
                KExp::select(adjust, KExp::bin(KBin::Sub, q.clone(), one), q)
            } else {
                KExp::select(adjust, KExp::bin(KBin::Add, r.clone(), b), r)
            }
        }
        BinOp::Shl => KExp::bin(KBin::Shl, a, b),
        BinOp::AShr => via(KBin::Shr, a, b, t, signed(t)),
        BinOp::LShr => via(KBin::Shr, a, b, t, unsigned(t)),
        BinOp::And => KExp::bin(KBin::And, a, b),
        BinOp::Or => KExp::bin(KBin::Or, a, b),
        BinOp::Xor => KExp::bin(KBin::Xor, a, b),
        BinOp::LogAnd => KExp::bin(KBin::LogAnd, a, b),
        BinOp::LogOr => KExp::bin(KBin::LogOr, a, b),
    })
}

fn signed_or(t: PrimType) -> PrimType {
    if t.is_int() { signed(t) } else { t }
}

/// A comparison of operands of type `t`.
pub fn cmpop(op: CmpOp, a: KExp, b: KExp, t: PrimType) -> KExp {
    let conv = |x: KExp, to: PrimType| if to == t { x } else { KExp::conv(to, x) };
    match op {
        CmpOp::Eq => KExp::cmp(KCmp::Eq, a, b),
        CmpOp::SLt => KExp::cmp(KCmp::Lt, conv(a, signed(t)), conv(b, signed(t))),
        CmpOp::SLe => KExp::cmp(KCmp::Le, conv(a, signed(t)), conv(b, signed(t))),
        CmpOp::ULt => KExp::cmp(KCmp::Lt, conv(a, unsigned(t)), conv(b, unsigned(t))),
        CmpOp::ULe => KExp::cmp(KCmp::Le, conv(a, unsigned(t)), conv(b, unsigned(t))),
        CmpOp::FLt | CmpOp::BLt => KExp::cmp(KCmp::Lt, a, b),
        CmpOp::FLe | CmpOp::BLe => KExp::cmp(KCmp::Le, a, b),
    }
}

/// A unary operation of operand type `t`.
pub fn unop(op: UnOp, a: KExp, t: PrimType) -> Result<KExp, String> {
    Ok(match op {
        UnOp::Neg => KExp::un(KUn::Neg, a),
        UnOp::Not | UnOp::Complement => KExp::un(KUn::Not, a),
        UnOp::SAbs | UnOp::FAbs => KExp::un(KUn::Abs, a),
        UnOp::SSignum | UnOp::FSignum => KExp::un(KUn::Signum, a),
        UnOp::USignum => KExp::conv(t, KExp::cmp(KCmp::Ne, a, zero(t))),
        UnOp::Popc => KExp::Math(KMath::Popc, vec![a]),
        UnOp::Clz => KExp::Math(KMath::Clz, vec![a]),
        UnOp::Ctz => KExp::Math(KMath::Ctz, vec![a]),
    })
}

/// A conversion from type `from`.
pub fn conv(op: ConvOp, a: KExp, from: PrimType) -> Result<KExp, String> {
    let to = op.target();
    Ok(match op {
        ConvOp::SExt(_) | ConvOp::SiToFp(_) => KExp::conv(
            to,
            if from.is_unsigned() {
                KExp::conv(signed(from), a)
            } else {
                a
            },
        ),
        ConvOp::ZExt(_) | ConvOp::UiToFp(_) => KExp::conv(
            to,
            if from.is_signed() {
                KExp::conv(unsigned(from), a)
            } else {
                a
            },
        ),
        ConvOp::FpToSi(_) | ConvOp::FpToUi(_) => {
            // Infinities and NaN convert to 0, as in the interpreter (C leaves them undefined).
            let bad = KExp::bin(
                KBin::LogOr,
                KExp::Math(KMath::IsInf, vec![a.clone()]),
                KExp::Math(KMath::IsNan, vec![a.clone()]),
            );
            KExp::select(bad, zero(to), KExp::conv(to, a))
        }
        ConvOp::FpConv(_) | ConvOp::BToI(_) => KExp::conv(to, a),
        ConvOp::BToF(_) => KExp::conv(to, a),
        ConvOp::IToB | ConvOp::FToB => KExp::cmp(KCmp::Ne, a, zero(from)),
        ConvOp::BitCast(_) if from.is_int() && to.is_int() => KExp::conv(to, a),
        ConvOp::BitCast(_) if from.is_float() && to.is_int() => {
            let bits = KExp::Math(KMath::ToBits, vec![a]);
            let signed = match from {
                PrimType::F16 => PrimType::I16,
                PrimType::F32 => PrimType::I32,
                _ => PrimType::I64,
            };
            if to == signed {
                bits
            } else {
                KExp::conv(to, bits)
            }
        }
        ConvOp::BitCast(_) if from.is_int() && to.is_float() => {
            KExp::Math(KMath::FromBits, vec![a])
        }
        ConvOp::BitCast(_) => return Err("reinterpreting bits of this type in a kernel".into()),
    })
}

fn conv_to(e: KExp, from: PrimType, to: PrimType) -> KExp {
    if from == to { e } else { KExp::conv(to, e) }
}

/// A math function applied to arguments of type `t`.
pub fn math(f: MathFn, mut args: Vec<KExp>, t: PrimType) -> Result<KExp, String> {
    let k = |m: KMath, args: Vec<KExp>| KExp::Math(m, args);
    let one = KExp::Const(PrimValue::from_f64(t, 1.0));
    Ok(match f {
        MathFn::Sqrt => k(KMath::Sqrt, args),
        MathFn::Exp => k(KMath::Exp, args),
        MathFn::Log => k(KMath::Log, args),
        MathFn::Sin => k(KMath::Sin, args),
        MathFn::Cos => k(KMath::Cos, args),
        MathFn::Tan => k(KMath::Tan, args),
        MathFn::Tanh => k(KMath::Tanh, args),
        MathFn::Floor => k(KMath::Floor, args),
        MathFn::Ceil => k(KMath::Ceil, args),
        MathFn::Round => k(KMath::Round, args),
        MathFn::Atan2 => k(KMath::Atan2, args),
        MathFn::Fma | MathFn::Mad => k(KMath::Fma, args),
        MathFn::IsNan => k(KMath::IsNan, args),
        MathFn::IsInf => k(KMath::IsInf, args),
        MathFn::Rsqrt => KExp::bin(KBin::Div, one, k(KMath::Sqrt, args)),
        MathFn::Cbrt => k(KMath::Cbrt, args),
        MathFn::Log2 => k(KMath::Log2, args),
        MathFn::Log10 => k(KMath::Log10, args),
        MathFn::Log1p => k(KMath::Log1p, args),
        MathFn::Asin => k(KMath::Asin, args),
        MathFn::Acos => k(KMath::Acos, args),
        MathFn::Atan => k(KMath::Atan, args),
        MathFn::Sinh => k(KMath::Sinh, args),
        MathFn::Cosh => k(KMath::Cosh, args),
        MathFn::Asinh => k(KMath::Asinh, args),
        MathFn::Acosh => k(KMath::Acosh, args),
        MathFn::Atanh => k(KMath::Atanh, args),
        MathFn::Gamma => k(KMath::Gamma, args),
        MathFn::Lgamma => k(KMath::Lgamma, args),
        MathFn::Erf => k(KMath::Erf, args),
        MathFn::Erfc => k(KMath::Erfc, args),
        MathFn::Hypot => k(KMath::Hypot, args),
        MathFn::NextAfter => k(KMath::NextAfter, args),
        MathFn::CopySign => k(KMath::CopySign, args),
        MathFn::Ldexp => k(KMath::Ldexp, args),
        MathFn::SinPi | MathFn::CosPi | MathFn::TanPi => {
            let pi = KExp::Const(PrimValue::from_f64(t, std::f64::consts::PI));
            let x = args.pop().unwrap_or_else(|| one.clone());
            let m = match f {
                MathFn::SinPi => KMath::Sin,
                MathFn::CosPi => KMath::Cos,
                _ => KMath::Tan,
            };
            k(m, vec![KExp::bin(KBin::Mul, x, pi)])
        }
        MathFn::AsinPi | MathFn::AcosPi | MathFn::AtanPi | MathFn::Atan2Pi => {
            let pi = KExp::Const(PrimValue::from_f64(t, std::f64::consts::PI));
            let m = match f {
                MathFn::AsinPi => KMath::Asin,
                MathFn::AcosPi => KMath::Acos,
                MathFn::AtanPi => KMath::Atan,
                _ => KMath::Atan2,
            };
            KExp::bin(KBin::Div, k(m, args), pi)
        }
        MathFn::SMulHi | MathFn::SMadHi => {
            let m = if f == MathFn::SMulHi {
                KMath::MulHi
            } else {
                KMath::MadHi
            };
            let s = signed(t);
            let e = k(m, args.into_iter().map(|a| conv_to(a, t, s)).collect());
            conv_to(e, s, t)
        }
        MathFn::UMulHi | MathFn::UMadHi => {
            let m = if f == MathFn::UMulHi {
                KMath::MulHi
            } else {
                KMath::MadHi
            };
            let u = unsigned(t);
            let e = k(m, args.into_iter().map(|a| conv_to(a, t, u)).collect());
            conv_to(e, u, t)
        }
        MathFn::Lerp if args.len() == 3 => {
            // a + (b - a) * w
            let w = args.pop().unwrap_or_else(|| one.clone());
            let b = args.pop().unwrap_or_else(|| one.clone());
            let a = args.pop().unwrap_or(one);
            KExp::bin(
                KBin::Add,
                a.clone(),
                KExp::bin(KBin::Mul, KExp::bin(KBin::Sub, b, a), w),
            )
        }
        f => return Err(format!("the math function `{}` in a kernel", f.name())),
    })
}
