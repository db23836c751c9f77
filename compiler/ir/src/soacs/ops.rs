//! Scalar operations of the SOAC IR, with Futhark's semantics spelled out in the operator.
//!
//! Unlike the kernel IR's type-directed operators, these say *which* division, comparison
//! or shift they are (`SDiv` floors, `SQuot` truncates, `ULt` compares bit patterns as
//! unsigned), because the prelude reinterprets unsigned values as signed ones of the same
//! width (`intrinsics.udiv32` is applied to `i32` operands). Each operator knows which
//! operand types it accepts and what it returns, so the IR checker needs no inference.

use crate::types::PrimType;

/// Binary operators whose operands share one type, and whose result has that type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    /// Wrapping on integers, IEEE on floats.
    Add,
    Sub,
    Mul,
    /// Integer power (non-negative exponent) or float power.
    Pow,
    /// Signed division rounding toward negative infinity (Futhark's `/` on signed ints).
    SDiv,
    /// Unsigned division of the bit patterns.
    UDiv,
    /// Signed division rounding toward zero (`//`).
    SQuot,
    /// Modulus matching `SDiv` (the sign of the divisor).
    SMod,
    UMod,
    /// Remainder matching `SQuot` (the sign of the dividend).
    SRem,
    FDiv,
    /// Float remainder with the sign of the dividend (C `fmod`).
    FMod,
    SMin,
    UMin,
    /// NaN-ignoring float minimum.
    FMin,
    SMax,
    UMax,
    FMax,
    Shl,
    /// Logical right shift.
    LShr,
    /// Arithmetic right shift.
    AShr,
    And,
    Or,
    Xor,
    LogAnd,
    LogOr,
}

impl BinOp {
    pub const ALL: [BinOp; 26] = [
        BinOp::Add,
        BinOp::Sub,
        BinOp::Mul,
        BinOp::Pow,
        BinOp::SDiv,
        BinOp::UDiv,
        BinOp::SQuot,
        BinOp::SMod,
        BinOp::UMod,
        BinOp::SRem,
        BinOp::FDiv,
        BinOp::FMod,
        BinOp::SMin,
        BinOp::UMin,
        BinOp::FMin,
        BinOp::SMax,
        BinOp::UMax,
        BinOp::FMax,
        BinOp::Shl,
        BinOp::LShr,
        BinOp::AShr,
        BinOp::And,
        BinOp::Or,
        BinOp::Xor,
        BinOp::LogAnd,
        BinOp::LogOr,
    ];

    pub fn name(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Pow => "**",
            BinOp::SDiv => "sdiv",
            BinOp::UDiv => "udiv",
            BinOp::SQuot => "squot",
            BinOp::SMod => "smod",
            BinOp::UMod => "umod",
            BinOp::SRem => "srem",
            BinOp::FDiv => "/",
            BinOp::FMod => "fmod",
            BinOp::SMin => "smin",
            BinOp::UMin => "umin",
            BinOp::FMin => "fmin",
            BinOp::SMax => "smax",
            BinOp::UMax => "umax",
            BinOp::FMax => "fmax",
            BinOp::Shl => "<<",
            BinOp::LShr => ">>>",
            BinOp::AShr => ">>",
            BinOp::And => "&",
            BinOp::Or => "|",
            BinOp::Xor => "^",
            BinOp::LogAnd => "&&",
            BinOp::LogOr => "||",
        }
    }

    /// Whether the operator is written between its operands by the printer.
    pub fn is_infix(self) -> bool {
        !self.name().chars().all(|c| c.is_ascii_alphabetic())
    }

    /// Whether operands of type `t` are accepted.
    pub fn accepts(self, t: PrimType) -> bool {
        match self {
            BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Pow => t != PrimType::Bool,
            BinOp::SDiv
            | BinOp::UDiv
            | BinOp::SQuot
            | BinOp::SMod
            | BinOp::UMod
            | BinOp::SRem
            | BinOp::SMin
            | BinOp::UMin
            | BinOp::SMax
            | BinOp::UMax
            | BinOp::Shl
            | BinOp::LShr
            | BinOp::AShr
            | BinOp::And
            | BinOp::Or
            | BinOp::Xor => t.is_int(),
            BinOp::FDiv | BinOp::FMod | BinOp::FMin | BinOp::FMax => t.is_float(),
            BinOp::LogAnd | BinOp::LogOr => t == PrimType::Bool,
        }
    }

    /// Operators for which `a op b == b op a` (float `+`/`*` included, as reductions may
    /// reassociate them anyway).
    pub fn is_commutative(self) -> bool {
        matches!(
            self,
            BinOp::Add
                | BinOp::Mul
                | BinOp::SMin
                | BinOp::UMin
                | BinOp::FMin
                | BinOp::SMax
                | BinOp::UMax
                | BinOp::FMax
                | BinOp::And
                | BinOp::Or
                | BinOp::Xor
                | BinOp::LogAnd
                | BinOp::LogOr
        )
    }

    /// Whether evaluating the operator can fail at run time (division by zero, a negative
    /// integer exponent), so it must
    /// not be hoisted out of a branch.
    pub fn can_fail(self) -> bool {
        matches!(
            self,
            BinOp::SDiv
                | BinOp::UDiv
                | BinOp::SQuot
                | BinOp::SMod
                | BinOp::UMod
                | BinOp::SRem
                // An integer power with a negative exponent (a float power cannot fail,
                // but the operator is the same).
                | BinOp::Pow
        )
    }
}

/// Comparisons; the result is `bool`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpOp {
    /// Equality on any primitive type.
    Eq,
    SLt,
    SLe,
    ULt,
    ULe,
    FLt,
    FLe,
    /// `false < true`.
    BLt,
    BLe,
}

impl CmpOp {
    pub const ALL: [CmpOp; 9] = [
        CmpOp::Eq,
        CmpOp::SLt,
        CmpOp::SLe,
        CmpOp::ULt,
        CmpOp::ULe,
        CmpOp::FLt,
        CmpOp::FLe,
        CmpOp::BLt,
        CmpOp::BLe,
    ];

    pub fn name(self) -> &'static str {
        match self {
            CmpOp::Eq => "==",
            CmpOp::SLt => "slt",
            CmpOp::SLe => "sle",
            CmpOp::ULt => "ult",
            CmpOp::ULe => "ule",
            CmpOp::FLt => "<",
            CmpOp::FLe => "<=",
            CmpOp::BLt => "blt",
            CmpOp::BLe => "ble",
        }
    }

    pub fn accepts(self, t: PrimType) -> bool {
        match self {
            CmpOp::Eq => true,
            CmpOp::SLt | CmpOp::SLe | CmpOp::ULt | CmpOp::ULe => t.is_int(),
            CmpOp::FLt | CmpOp::FLe => t.is_float(),
            CmpOp::BLt | CmpOp::BLe => t == PrimType::Bool,
        }
    }

    /// The strict or non-strict "less than" for values of type `t`, signed or not as the
    /// type says.
    pub fn less(t: PrimType, strict: bool) -> CmpOp {
        match (t, strict) {
            (PrimType::Bool, true) => CmpOp::BLt,
            (PrimType::Bool, false) => CmpOp::BLe,
            (t, true) if t.is_float() => CmpOp::FLt,
            (t, false) if t.is_float() => CmpOp::FLe,
            (t, true) if t.is_unsigned() => CmpOp::ULt,
            (t, false) if t.is_unsigned() => CmpOp::ULe,
            (_, true) => CmpOp::SLt,
            (_, false) => CmpOp::SLe,
        }
    }
}

/// Unary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnOp {
    /// Arithmetic negation (wrapping on integers).
    Neg,
    /// Logical negation of a `bool`.
    Not,
    /// Bitwise complement of an integer.
    Complement,
    SAbs,
    FAbs,
    SSignum,
    USignum,
    FSignum,
    /// Set bits, leading zeros, trailing zeros: integer in, `i32` out.
    Popc,
    Clz,
    Ctz,
}

impl UnOp {
    pub const ALL: [UnOp; 11] = [
        UnOp::Neg,
        UnOp::Not,
        UnOp::Complement,
        UnOp::SAbs,
        UnOp::FAbs,
        UnOp::SSignum,
        UnOp::USignum,
        UnOp::FSignum,
        UnOp::Popc,
        UnOp::Clz,
        UnOp::Ctz,
    ];

    pub fn name(self) -> &'static str {
        match self {
            UnOp::Neg => "neg",
            UnOp::Not => "!",
            UnOp::Complement => "complement",
            UnOp::SAbs => "sabs",
            UnOp::FAbs => "fabs",
            UnOp::SSignum => "ssignum",
            UnOp::USignum => "usignum",
            UnOp::FSignum => "fsignum",
            UnOp::Popc => "popc",
            UnOp::Clz => "clz",
            UnOp::Ctz => "ctz",
        }
    }

    /// The result type for an operand of type `t`, or `None` if the operand is not accepted.
    pub fn result(self, t: PrimType) -> Option<PrimType> {
        let ok = match self {
            UnOp::Neg => t != PrimType::Bool,
            UnOp::Not => t == PrimType::Bool,
            UnOp::Complement
            | UnOp::SAbs
            | UnOp::SSignum
            | UnOp::USignum
            | UnOp::Popc
            | UnOp::Clz
            | UnOp::Ctz => t.is_int(),
            UnOp::FAbs | UnOp::FSignum => t.is_float(),
        };
        match self {
            _ if !ok => None,
            UnOp::Popc | UnOp::Clz | UnOp::Ctz => Some(PrimType::I32),
            _ => Some(t),
        }
    }
}

/// Conversions between primitive types; each names its target type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ConvOp {
    /// Zero-extend or truncate an integer.
    ZExt(PrimType),
    /// Sign-extend or truncate an integer.
    SExt(PrimType),
    FpConv(PrimType),
    /// Float to integer, truncating, read as signed / unsigned.
    FpToSi(PrimType),
    FpToUi(PrimType),
    SiToFp(PrimType),
    UiToFp(PrimType),
    /// Integer to `bool` (non-zero) and back (0 or 1).
    IToB,
    BToI(PrimType),
    FToB,
    BToF(PrimType),
    /// Reinterpret the bits as another type of the same width (`sign_i32`, `to_bits`).
    BitCast(PrimType),
}

impl ConvOp {
    pub fn name(self) -> &'static str {
        match self {
            ConvOp::ZExt(_) => "zext",
            ConvOp::SExt(_) => "sext",
            ConvOp::FpConv(_) => "fpconv",
            ConvOp::FpToSi(_) => "fptosi",
            ConvOp::FpToUi(_) => "fptoui",
            ConvOp::SiToFp(_) => "sitofp",
            ConvOp::UiToFp(_) => "uitofp",
            ConvOp::IToB => "itob",
            ConvOp::BToI(_) => "btoi",
            ConvOp::FToB => "ftob",
            ConvOp::BToF(_) => "btof",
            ConvOp::BitCast(_) => "bitcast",
        }
    }

    pub fn target(self) -> PrimType {
        match self {
            ConvOp::IToB | ConvOp::FToB => PrimType::Bool,
            ConvOp::ZExt(t)
            | ConvOp::SExt(t)
            | ConvOp::FpConv(t)
            | ConvOp::FpToSi(t)
            | ConvOp::FpToUi(t)
            | ConvOp::SiToFp(t)
            | ConvOp::UiToFp(t)
            | ConvOp::BToI(t)
            | ConvOp::BToF(t)
            | ConvOp::BitCast(t) => t,
        }
    }

    /// Whether `from` is a valid source type and the target fits the family.
    pub fn accepts(self, from: PrimType) -> bool {
        let to = self.target();
        match self {
            ConvOp::ZExt(_) | ConvOp::SExt(_) => from.is_int() && to.is_int(),
            ConvOp::FpConv(_) => from.is_float() && to.is_float(),
            ConvOp::FpToSi(_) | ConvOp::FpToUi(_) => from.is_float() && to.is_int(),
            ConvOp::SiToFp(_) | ConvOp::UiToFp(_) => from.is_int() && to.is_float(),
            ConvOp::IToB => from.is_int(),
            ConvOp::BToI(_) => from == PrimType::Bool && to.is_int(),
            ConvOp::FToB => from.is_float(),
            ConvOp::BToF(_) => from == PrimType::Bool && to.is_float(),
            ConvOp::BitCast(_) => from != PrimType::Bool && from.size_bytes() == to.size_bytes(),
        }
    }
}

/// Math functions. Float functions take and give one float type (except where noted).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MathFn {
    Sqrt,
    Rsqrt,
    Cbrt,
    Exp,
    Log,
    Log2,
    Log10,
    Log1p,
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
    /// Binary float functions.
    Atan2,
    Atan2Pi,
    Hypot,
    NextAfter,
    CopySign,
    /// `x * 2^k` with `k: i32`.
    Ldexp,
    /// Ternary float functions.
    Lerp,
    Mad,
    Fma,
    /// `bool` results.
    IsNan,
    IsInf,
    /// Integer functions: high half of the product, plus an addend for `MadHi`.
    SMulHi,
    UMulHi,
    SMadHi,
    UMadHi,
}

impl MathFn {
    pub fn name(self) -> &'static str {
        match self {
            MathFn::Sqrt => "sqrt",
            MathFn::Rsqrt => "rsqrt",
            MathFn::Cbrt => "cbrt",
            MathFn::Exp => "exp",
            MathFn::Log => "log",
            MathFn::Log2 => "log2",
            MathFn::Log10 => "log10",
            MathFn::Log1p => "log1p",
            MathFn::Sin => "sin",
            MathFn::Cos => "cos",
            MathFn::Tan => "tan",
            MathFn::SinPi => "sinpi",
            MathFn::CosPi => "cospi",
            MathFn::TanPi => "tanpi",
            MathFn::Asin => "asin",
            MathFn::Acos => "acos",
            MathFn::Atan => "atan",
            MathFn::AsinPi => "asinpi",
            MathFn::AcosPi => "acospi",
            MathFn::AtanPi => "atanpi",
            MathFn::Sinh => "sinh",
            MathFn::Cosh => "cosh",
            MathFn::Tanh => "tanh",
            MathFn::Asinh => "asinh",
            MathFn::Acosh => "acosh",
            MathFn::Atanh => "atanh",
            MathFn::Gamma => "gamma",
            MathFn::Lgamma => "lgamma",
            MathFn::Erf => "erf",
            MathFn::Erfc => "erfc",
            MathFn::Round => "round",
            MathFn::Ceil => "ceil",
            MathFn::Floor => "floor",
            MathFn::Atan2 => "atan2",
            MathFn::Atan2Pi => "atan2pi",
            MathFn::Hypot => "hypot",
            MathFn::NextAfter => "nextafter",
            MathFn::CopySign => "copysign",
            MathFn::Ldexp => "ldexp",
            MathFn::Lerp => "lerp",
            MathFn::Mad => "mad",
            MathFn::Fma => "fma",
            MathFn::IsNan => "isnan",
            MathFn::IsInf => "isinf",
            MathFn::SMulHi => "smul_hi",
            MathFn::UMulHi => "umul_hi",
            MathFn::SMadHi => "smad_hi",
            MathFn::UMadHi => "umad_hi",
        }
    }

    /// Every function, for parsing names and tests.
    pub const ALL: [MathFn; 48] = [
        MathFn::Sqrt,
        MathFn::Rsqrt,
        MathFn::Cbrt,
        MathFn::Exp,
        MathFn::Log,
        MathFn::Log2,
        MathFn::Log10,
        MathFn::Log1p,
        MathFn::Sin,
        MathFn::Cos,
        MathFn::Tan,
        MathFn::SinPi,
        MathFn::CosPi,
        MathFn::TanPi,
        MathFn::Asin,
        MathFn::Acos,
        MathFn::Atan,
        MathFn::AsinPi,
        MathFn::AcosPi,
        MathFn::AtanPi,
        MathFn::Sinh,
        MathFn::Cosh,
        MathFn::Tanh,
        MathFn::Asinh,
        MathFn::Acosh,
        MathFn::Atanh,
        MathFn::Gamma,
        MathFn::Lgamma,
        MathFn::Erf,
        MathFn::Erfc,
        MathFn::Round,
        MathFn::Ceil,
        MathFn::Floor,
        MathFn::Atan2,
        MathFn::Atan2Pi,
        MathFn::Hypot,
        MathFn::NextAfter,
        MathFn::CopySign,
        MathFn::Ldexp,
        MathFn::Lerp,
        MathFn::Mad,
        MathFn::Fma,
        MathFn::IsNan,
        MathFn::IsInf,
        MathFn::SMulHi,
        MathFn::UMulHi,
        MathFn::SMadHi,
        MathFn::UMadHi,
    ];

    pub fn from_name(s: &str) -> Option<MathFn> {
        MathFn::ALL.into_iter().find(|f| f.name() == s)
    }

    pub fn arity(self) -> usize {
        match self {
            MathFn::Atan2
            | MathFn::Atan2Pi
            | MathFn::Hypot
            | MathFn::NextAfter
            | MathFn::CopySign
            | MathFn::Ldexp
            | MathFn::SMulHi
            | MathFn::UMulHi => 2,
            MathFn::Lerp | MathFn::Mad | MathFn::Fma | MathFn::SMadHi | MathFn::UMadHi => 3,
            _ => 1,
        }
    }

    /// The result type for the given argument types, or `None` if they are not accepted.
    pub fn result(self, args: &[PrimType]) -> Option<PrimType> {
        let first = *args.first()?;
        if args.len() != self.arity() {
            return None;
        }
        match self {
            MathFn::SMulHi | MathFn::UMulHi | MathFn::SMadHi | MathFn::UMadHi => {
                (first.is_int() && args.iter().all(|a| *a == first)).then_some(first)
            }
            MathFn::Ldexp => {
                (first.is_float() && args.get(1) == Some(&PrimType::I32)).then_some(first)
            }
            MathFn::IsNan | MathFn::IsInf => first.is_float().then_some(PrimType::Bool),
            _ => (first.is_float() && args.iter().all(|a| *a == first)).then_some(first),
        }
    }
}
