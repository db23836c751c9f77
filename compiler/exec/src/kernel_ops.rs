//! The scalar operators of the kernel IR, with the C semantics the CUDA code generator
//! gives them: operators chosen by operand type, truncating integer division. Where C
//! leaves a result undefined (division by zero, over-wide shifts) the result here is 0 or
//! the natural saturation, never a failure: kernels cannot report errors.

use futhark_ir::types::{PrimType, PrimValue};
use futhark_ir::{BinOp, CmpOp, MathFn, UnOp};

use crate::error::{ExecError, Result};
use crate::host_ops::ipow;
use crate::prim::{float, from_f64, from_int, int, uint, width};

pub fn binop(op: BinOp, a: PrimValue, b: PrimValue) -> Result<PrimValue> {
    let t = a.ty();
    if t.is_float() {
        let (x, y) = (float(a), float(b));
        let r = match op {
            BinOp::Add => x + y,
            BinOp::Sub => x - y,
            BinOp::Mul => x * y,
            BinOp::Div => x / y,
            BinOp::Rem => x % y,
            BinOp::Min => x.min(y),
            BinOp::Max => x.max(y),
            BinOp::Pow => x.powf(y),
            _ => return Err(bad(op, t)),
        };
        return Ok(from_f64(t, r));
    }
    if t == PrimType::Bool {
        let (x, y) = (int(a) != 0, int(b) != 0);
        return Ok(PrimValue::Bool(match op {
            BinOp::LogAnd | BinOp::And | BinOp::Min | BinOp::Mul => x && y,
            BinOp::LogOr | BinOp::Or | BinOp::Max => x || y,
            BinOp::Xor | BinOp::Add | BinOp::Sub => x ^ y,
            _ => return Err(bad(op, t)),
        }));
    }
    let (x, y) = (int(a), int(b));
    let w = width(t);
    Ok(match op {
        BinOp::Add => from_int(t, x.wrapping_add(y)),
        BinOp::Sub => from_int(t, x.wrapping_sub(y)),
        BinOp::Mul => from_int(t, x.wrapping_mul(y)),
        BinOp::Div if y == 0 => from_int(t, 0),
        BinOp::Rem if y == 0 => from_int(t, 0),
        BinOp::Div => from_int(t, x / y),
        BinOp::Rem => from_int(t, x % y),
        BinOp::Min => from_int(t, x.min(y)),
        BinOp::Max => from_int(t, x.max(y)),
        BinOp::Pow => ipow(t, x, y.max(0))?,
        BinOp::And => from_int(t, uint(a) & uint(b)),
        BinOp::Or => from_int(t, uint(a) | uint(b)),
        BinOp::Xor => from_int(t, uint(a) ^ uint(b)),
        BinOp::Shl if (0..w as i128).contains(&y) => from_int(t, uint(a) << y),
        BinOp::Shr if (0..w as i128).contains(&y) => from_int(t, x >> y),
        BinOp::Shl => from_int(t, 0),
        BinOp::Shr => from_int(t, if x < 0 { -1 } else { 0 }),
        BinOp::LogAnd | BinOp::LogOr => return Err(bad(op, t)),
    })
}

fn bad(op: BinOp, t: PrimType) -> ExecError {
    ExecError::malformed(format!("kernel operator `{}` on {t}", op.name()))
}

pub fn cmpop(op: CmpOp, a: PrimValue, b: PrimValue) -> bool {
    if a.ty().is_float() {
        let (x, y) = (float(a), float(b));
        return match op {
            CmpOp::Eq => x == y,
            CmpOp::Ne => x != y,
            CmpOp::Lt => x < y,
            CmpOp::Le => x <= y,
            CmpOp::Gt => x > y,
            CmpOp::Ge => x >= y,
        };
    }
    let (x, y) = (int(a), int(b));
    match op {
        CmpOp::Eq => x == y,
        CmpOp::Ne => x != y,
        CmpOp::Lt => x < y,
        CmpOp::Le => x <= y,
        CmpOp::Gt => x > y,
        CmpOp::Ge => x >= y,
    }
}

pub fn unop(op: UnOp, a: PrimValue) -> PrimValue {
    let t = a.ty();
    match op {
        UnOp::Neg if t.is_float() => from_f64(t, -float(a)),
        UnOp::Neg => from_int(t, int(a).wrapping_neg()),
        UnOp::Not if t == PrimType::Bool => PrimValue::Bool(int(a) == 0),
        UnOp::Not => from_int(t, !uint(a)),
        UnOp::Abs if t.is_float() => from_f64(t, float(a).abs()),
        UnOp::Abs => from_int(t, int(a).abs()),
        UnOp::Signum if t.is_float() => {
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
        UnOp::Signum => from_int(t, int(a).signum()),
    }
}

/// C conversion to `to`: integers wrap, floats truncate toward zero, `bool` is `!= 0`.
pub fn conv(to: PrimType, a: PrimValue) -> PrimValue {
    let from = a.ty();
    if to == PrimType::Bool {
        return PrimValue::Bool(if from.is_float() {
            float(a) != 0.0
        } else {
            uint(a) != 0
        });
    }
    if from.is_float() || to.is_float() {
        return from_f64(to, float(a));
    }
    from_int(to, int(a))
}

pub fn math(f: MathFn, args: &[PrimValue]) -> Result<PrimValue> {
    use futhark_ir::soacs::{ConvOp, MathFn as H, UnOp as HU};
    let Some(&first) = args.first() else {
        return Err(ExecError::malformed(format!(
            "`{}` without arguments",
            f.name()
        )));
    };
    let t = first.ty();
    let x = float(first);
    let y = args.get(1).map(|v| float(*v)).unwrap_or(0.0);
    let z = args.get(2).map(|v| float(*v)).unwrap_or(0.0);
    // The functions the host executor shares, with the same semantics.
    let host = |h: H| crate::host_ops::math(h, args);
    let r = match f {
        MathFn::Sqrt => x.sqrt(),
        MathFn::Exp => x.exp(),
        MathFn::Log => x.ln(),
        MathFn::Sin => x.sin(),
        MathFn::Cos => x.cos(),
        MathFn::Tan => x.tan(),
        MathFn::Tanh => x.tanh(),
        MathFn::Floor => x.floor(),
        MathFn::Ceil => x.ceil(),
        MathFn::Round => x.round_ties_even(),
        MathFn::Atan2 => x.atan2(y),
        MathFn::Fma => x.mul_add(y, z),
        MathFn::IsNan => return Ok(PrimValue::Bool(x.is_nan())),
        MathFn::IsInf => return Ok(PrimValue::Bool(x.is_infinite())),
        MathFn::Cbrt => return host(H::Cbrt),
        MathFn::Log2 => return host(H::Log2),
        MathFn::Log10 => return host(H::Log10),
        MathFn::Log1p => return host(H::Log1p),
        MathFn::Asin => return host(H::Asin),
        MathFn::Acos => return host(H::Acos),
        MathFn::Atan => return host(H::Atan),
        MathFn::Sinh => return host(H::Sinh),
        MathFn::Cosh => return host(H::Cosh),
        MathFn::Asinh => return host(H::Asinh),
        MathFn::Acosh => return host(H::Acosh),
        MathFn::Atanh => return host(H::Atanh),
        MathFn::Gamma => return host(H::Gamma),
        MathFn::Lgamma => return host(H::Lgamma),
        MathFn::Erf => return host(H::Erf),
        MathFn::Erfc => return host(H::Erfc),
        MathFn::Hypot => return host(H::Hypot),
        MathFn::NextAfter => return host(H::NextAfter),
        MathFn::CopySign => return host(H::CopySign),
        MathFn::Ldexp => return host(H::Ldexp),
        MathFn::MulHi if t.is_signed() => return host(H::SMulHi),
        MathFn::MulHi => return host(H::UMulHi),
        MathFn::MadHi if t.is_signed() => return host(H::SMadHi),
        MathFn::MadHi => return host(H::UMadHi),
        MathFn::Popc => return crate::host_ops::unop(HU::Popc, first),
        MathFn::Clz => return crate::host_ops::unop(HU::Clz, first),
        MathFn::Ctz => return crate::host_ops::unop(HU::Ctz, first),
        MathFn::ToBits | MathFn::FromBits => {
            let to = f.result_type(&[t]).map_err(ExecError::malformed)?;
            return crate::host_ops::conv(ConvOp::BitCast(to), first);
        }
    };
    Ok(from_f64(t, r))
}
