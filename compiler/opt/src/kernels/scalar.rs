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
        BinOp::SDiv if t.is_unsigned_int() => KExp::bin(KBin::Div, a, b),
        BinOp::SMod if t.is_unsigned_int() => KExp::bin(KBin::Rem, a, b),
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
        UnOp::Popc | UnOp::Clz | UnOp::Ctz => {
            return Err(format!("`{}` in a kernel", op.name()));
        }
    })
}

/// A conversion from type `from`.
pub fn conv(op: ConvOp, a: KExp, from: PrimType) -> Result<KExp, String> {
    let to = op.target();
    Ok(match op {
        ConvOp::SExt(_) | ConvOp::SiToFp(_) => KExp::conv(
            to,
            if from.is_unsigned_int() {
                KExp::conv(signed(from), a)
            } else {
                a
            },
        ),
        ConvOp::ZExt(_) | ConvOp::UiToFp(_) => KExp::conv(
            to,
            if from.is_signed_int() {
                KExp::conv(unsigned(from), a)
            } else {
                a
            },
        ),
        ConvOp::FpConv(_) | ConvOp::FpToSi(_) | ConvOp::FpToUi(_) | ConvOp::BToI(_) => {
            KExp::conv(to, a)
        }
        ConvOp::BToF(_) => KExp::conv(to, a),
        ConvOp::IToB | ConvOp::FToB => KExp::cmp(KCmp::Ne, a, zero(from)),
        ConvOp::BitCast(_) if from.is_int() && to.is_int() => KExp::conv(to, a),
        ConvOp::BitCast(_) => return Err("reinterpreting float bits in a kernel".into()),
    })
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
