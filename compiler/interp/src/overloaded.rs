//! The overloaded operators of the initial environment (`+`, `<`, `>>`, …) and their
//! resolution, at run time, to a monomorphic primitive operation for the operand type:
//! signed `/` floors, unsigned `>>` is logical, `a > b` is `b < a`, and so on.

use futhark_values::PrimType;

use crate::prim::Prim;
use crate::prim_ops::{
    ArithError, BoolBin, FloatBin, FloatCmp, FloatUn, IntBin, IntCmp, IntUn, bool_bin, float_bin,
    float_cmp, float_un, int_bin, int_cmp, int_un,
};

/// The overloaded operators of the initial environment, resolved on the operand type at
/// run time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OvOp {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    Pow,
    Quot,
    Rem,
    Shl,
    Shr,
    BAnd,
    BOr,
    Xor,
    Eq,
    Neq,
    Lt,
    Le,
    Gt,
    Ge,
    LogAnd,
    LogOr,
}

impl OvOp {
    /// The operator named `name` in the initial environment.
    pub fn from_name(name: &str) -> Option<OvOp> {
        Some(match name {
            "+" => OvOp::Add,
            "-" => OvOp::Sub,
            "*" => OvOp::Mul,
            "/" => OvOp::Div,
            "%" => OvOp::Mod,
            "**" => OvOp::Pow,
            "//" => OvOp::Quot,
            "%%" => OvOp::Rem,
            "<<" => OvOp::Shl,
            ">>" => OvOp::Shr,
            "&" => OvOp::BAnd,
            "|" => OvOp::BOr,
            "^" => OvOp::Xor,
            "==" => OvOp::Eq,
            "!=" => OvOp::Neq,
            "<" => OvOp::Lt,
            "<=" => OvOp::Le,
            ">" => OvOp::Gt,
            ">=" => OvOp::Ge,
            "&&" => OvOp::LogAnd,
            "||" => OvOp::LogOr,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            OvOp::Add => "+",
            OvOp::Sub => "-",
            OvOp::Mul => "*",
            OvOp::Div => "/",
            OvOp::Mod => "%",
            OvOp::Pow => "**",
            OvOp::Quot => "//",
            OvOp::Rem => "%%",
            OvOp::Shl => "<<",
            OvOp::Shr => ">>",
            OvOp::BAnd => "&",
            OvOp::BOr => "|",
            OvOp::Xor => "^",
            OvOp::Eq => "==",
            OvOp::Neq => "!=",
            OvOp::Lt => "<",
            OvOp::Le => "<=",
            OvOp::Gt => ">",
            OvOp::Ge => ">=",
            OvOp::LogAnd => "&&",
            OvOp::LogOr => "||",
        }
    }
}

/// A monomorphic operation an overloaded operator resolves to for one operand type, plus
/// whether the operands are swapped (`a > b` is `b < a`) and the result negated (`!=`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Resolved {
    pub op: MonoBin,
    pub swap: bool,
    pub negate: bool,
}

/// A binary operation at a known type class.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MonoBin {
    Int(IntBin),
    IntCmp(IntCmp),
    Float(FloatBin),
    FloatCmp(FloatCmp),
    Bool(BoolBin),
}

/// Resolves an overloaded operator at a primitive type; `None` if the type does not support
/// it.
pub fn resolve(op: OvOp, ty: PrimType) -> Option<Resolved> {
    let plain = |op| {
        Some(Resolved {
            op,
            swap: false,
            negate: false,
        })
    };
    let cmp = |lt, le, eq| match op {
        OvOp::Eq => plain(eq),
        OvOp::Neq => Some(Resolved {
            op: eq,
            swap: false,
            negate: true,
        }),
        OvOp::Lt => plain(lt),
        OvOp::Le => plain(le),
        OvOp::Gt => Some(Resolved {
            op: lt,
            swap: true,
            negate: false,
        }),
        OvOp::Ge => Some(Resolved {
            op: le,
            swap: true,
            negate: false,
        }),
        _ => None,
    };
    if ty == PrimType::Bool {
        return match op {
            OvOp::LogAnd => plain(MonoBin::Bool(BoolBin::And)),
            OvOp::LogOr => plain(MonoBin::Bool(BoolBin::Or)),
            _ => cmp(
                MonoBin::Bool(BoolBin::Lt),
                MonoBin::Bool(BoolBin::Le),
                MonoBin::Bool(BoolBin::Eq),
            ),
        };
    }
    if ty.is_float() {
        let f = |o| plain(MonoBin::Float(o));
        return match op {
            OvOp::Add => f(FloatBin::Add),
            OvOp::Sub => f(FloatBin::Sub),
            OvOp::Mul => f(FloatBin::Mul),
            OvOp::Div => f(FloatBin::Div),
            OvOp::Mod => f(FloatBin::Mod),
            OvOp::Pow => f(FloatBin::Pow),
            _ => cmp(
                MonoBin::FloatCmp(FloatCmp::Lt),
                MonoBin::FloatCmp(FloatCmp::Le),
                MonoBin::FloatCmp(FloatCmp::Eq),
            ),
        };
    }
    let signed = ty.is_signed();
    let i = |o| plain(MonoBin::Int(o));
    match op {
        OvOp::Add => i(IntBin::Add),
        OvOp::Sub => i(IntBin::Sub),
        OvOp::Mul => i(IntBin::Mul),
        OvOp::Div => i(if signed { IntBin::SDiv } else { IntBin::UDiv }),
        OvOp::Mod => i(if signed { IntBin::SMod } else { IntBin::UMod }),
        OvOp::Quot => i(if signed { IntBin::SQuot } else { IntBin::UDiv }),
        OvOp::Rem => i(if signed { IntBin::SRem } else { IntBin::UMod }),
        OvOp::Pow => i(if signed { IntBin::SPow } else { IntBin::UPow }),
        OvOp::Shl => i(IntBin::Shl),
        OvOp::Shr => i(if signed { IntBin::AShr } else { IntBin::LShr }),
        OvOp::BAnd => i(IntBin::And),
        OvOp::BOr => i(IntBin::Or),
        OvOp::Xor => i(IntBin::Xor),
        OvOp::LogAnd | OvOp::LogOr => None,
        _ => {
            let (lt, le) = if signed {
                (IntCmp::SLt, IntCmp::SLe)
            } else {
                (IntCmp::ULt, IntCmp::ULe)
            };
            cmp(
                MonoBin::IntCmp(lt),
                MonoBin::IntCmp(le),
                MonoBin::IntCmp(IntCmp::Eq),
            )
        }
    }
}

/// Applies a resolved monomorphic binary operation to two scalars.
pub fn mono_bin(op: MonoBin, a: Prim, b: Prim) -> Result<Prim, ArithError> {
    match op {
        MonoBin::Int(o) => int_bin(o, a, b),
        MonoBin::IntCmp(o) => int_cmp(o, a, b),
        MonoBin::Float(o) => float_bin(o, a, b),
        MonoBin::FloatCmp(o) => float_cmp(o, a, b),
        MonoBin::Bool(o) => bool_bin(o, a, b),
    }
}

/// Applies an overloaded operator to two scalars of the same type.
pub fn overloaded(op: OvOp, a: Prim, b: Prim) -> Result<Prim, ArithError> {
    if a.ty() != b.ty() {
        return Err(ArithError::BadOperands);
    }
    let r = resolve(op, a.ty()).ok_or(ArithError::BadOperands)?;
    let (x, y) = if r.swap { (b, a) } else { (a, b) };
    let res = mono_bin(r.op, x, y)?;
    Ok(if r.negate {
        Prim::Bool(res.as_bool() != Some(true))
    } else {
        res
    })
}

/// Arithmetic negation (`-x`; `!x` on bool for `neg_bool`).
pub fn negate(a: Prim) -> Result<Prim, ArithError> {
    match a {
        Prim::Bool(b) => Ok(Prim::Bool(!b)),
        Prim::F16(_) | Prim::F32(_) | Prim::F64(_) => float_un(FloatUn::Neg, a),
        _ => int_un(IntUn::Neg, a),
    }
}

/// `!x`: complement on integers, `not` on bool.
pub fn not(a: Prim) -> Result<Prim, ArithError> {
    match a {
        Prim::Bool(b) => Ok(Prim::Bool(!b)),
        _ => int_un(IntUn::Complement, a),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ov(op: OvOp, a: Prim, b: Prim) -> Prim {
        overloaded(op, a, b).unwrap()
    }

    #[test]
    fn division_signs() {
        assert_eq!(ov(OvOp::Div, Prim::I32(-7), Prim::I32(2)), Prim::I32(-4));
        assert_eq!(ov(OvOp::Mod, Prim::I32(-7), Prim::I32(2)), Prim::I32(1));
        assert_eq!(ov(OvOp::Mod, Prim::I32(7), Prim::I32(-2)), Prim::I32(-1));
        assert_eq!(ov(OvOp::Quot, Prim::I32(-7), Prim::I32(2)), Prim::I32(-3));
        assert_eq!(ov(OvOp::Rem, Prim::I32(-7), Prim::I32(2)), Prim::I32(-1));
        assert_eq!(
            ov(OvOp::Div, Prim::I32(i32::MIN), Prim::I32(-1)),
            Prim::I32(i32::MIN)
        );
        assert_eq!(
            overloaded(OvOp::Div, Prim::I8(1), Prim::I8(0)),
            Err(ArithError::DivisionByZero)
        );
        assert_eq!(ov(OvOp::Div, Prim::U8(250), Prim::U8(7)), Prim::U8(35));
        assert_eq!(
            ov(OvOp::Mod, Prim::F64(-7.5), Prim::F64(2.0)),
            Prim::F64(0.5)
        );
    }

    #[test]
    fn wrapping_and_shifts() {
        assert_eq!(ov(OvOp::Add, Prim::U8(255), Prim::U8(1)), Prim::U8(0));
        assert_eq!(ov(OvOp::Mul, Prim::I8(64), Prim::I8(2)), Prim::I8(-128));
        assert_eq!(ov(OvOp::Shr, Prim::I8(-128), Prim::I8(1)), Prim::I8(-64));
        assert_eq!(ov(OvOp::Shr, Prim::U8(128), Prim::U8(1)), Prim::U8(64));
        assert_eq!(
            ov(OvOp::Pow, Prim::I32(2), Prim::I32(31)),
            Prim::I32(i32::MIN)
        );
        assert_eq!(
            overloaded(OvOp::Pow, Prim::I32(2), Prim::I32(-1)),
            Err(ArithError::NegativeExponent)
        );
        assert_eq!(
            ov(OvOp::Lt, Prim::U32(1), Prim::U32(u32::MAX)),
            Prim::Bool(true)
        );
        assert_eq!(
            ov(OvOp::Lt, Prim::Bool(false), Prim::Bool(true)),
            Prim::Bool(true)
        );
        assert_eq!(ov(OvOp::Ge, Prim::I64(3), Prim::I64(3)), Prim::Bool(true));
        assert_eq!(
            ov(OvOp::Neq, Prim::F32(f32::NAN), Prim::F32(f32::NAN)),
            Prim::Bool(true)
        );
    }

    #[test]
    fn counting_and_hi() {
        assert_eq!(int_un(IntUn::Clz, Prim::I32(1)), Ok(Prim::I32(31)));
        assert_eq!(int_un(IntUn::Popc, Prim::I8(-1)), Ok(Prim::I32(8)));
        assert_eq!(
            int_bin(IntBin::UMulHi, Prim::U8(200), Prim::U8(200)),
            Ok(Prim::U8(156))
        );
        assert_eq!(
            int_bin(IntBin::SMulHi, Prim::I8(-128), Prim::I8(2)),
            Ok(Prim::I8(-1))
        );
    }
}
