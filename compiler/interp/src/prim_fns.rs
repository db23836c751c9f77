//! The monomorphic primitive intrinsics (`intrinsics.add32`, `intrinsics.sqrt64`,
//! `intrinsics.sitofp_i32_f64`, …): their names, arities and meaning.
//!
//! Names are decoded rather than tabulated: a name is an operation stem plus a width or a
//! pair of types, following the naming scheme of Futhark's primitive layer.

use futhark_values::PrimType;

use crate::prim::Prim;
use crate::prim_ops::{
    self, ArithError, BoolBin, FloatBin, FloatCmp, FloatTern, FloatUn, IntBin, IntCmp, IntUn,
};

/// One primitive intrinsic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PrimFn {
    IntBin(IntBin),
    IntBinSafe(IntBin),
    IntCmp(IntCmp),
    IntUn(IntUn),
    MadHi(bool),
    FloatBin(FloatBin),
    FloatCmp(FloatCmp),
    FloatUn(FloatUn),
    FloatTern(FloatTern),
    Ldexp,
    BoolBin(BoolBin),
    /// `neg_T`.
    Neg,
    /// `cond_T`: `(c, a, b)` selects.
    Cond,
    /// Integer to integer, zero-extending (`zext`), to the given type.
    ZExt(PrimType),
    /// Integer to integer, sign-extending (`sext`).
    SExt(PrimType),
    FpConv(PrimType),
    FpToSi(PrimType),
    FpToUi(PrimType),
    SiToFp(PrimType),
    UiToFp(PrimType),
    FpToBits,
    BitsToFp,
    IToB,
    BToI(PrimType),
    FToB,
    BToF(PrimType),
    /// `sign_iN`/`unsign_iN`: reinterpret the bits as the given type.
    Reinterpret(PrimType),
}

impl PrimFn {
    /// Number of components of the argument tuple.
    pub fn arity(self) -> usize {
        match self {
            PrimFn::IntBin(_)
            | PrimFn::IntBinSafe(_)
            | PrimFn::IntCmp(_)
            | PrimFn::FloatBin(_)
            | PrimFn::FloatCmp(_)
            | PrimFn::Ldexp
            | PrimFn::BoolBin(_) => 2,
            PrimFn::MadHi(_) | PrimFn::FloatTern(_) | PrimFn::Cond => 3,
            _ => 1,
        }
    }

    /// Applies the operation to scalars (`args.len() == self.arity()`).
    pub fn apply(self, args: &[Prim]) -> Result<Prim, ArithError> {
        let bad = ArithError::BadOperands;
        let a = *args.first().ok_or(bad)?;
        let b = || args.get(1).copied().ok_or(bad);
        let c = || args.get(2).copied().ok_or(bad);
        match self {
            PrimFn::IntBin(op) => prim_ops::int_bin(op, a, b()?),
            PrimFn::IntBinSafe(op) => prim_ops::int_bin_safe(op, a, b()?),
            PrimFn::IntCmp(op) => prim_ops::int_cmp(op, a, b()?),
            PrimFn::IntUn(op) => prim_ops::int_un(op, a),
            PrimFn::MadHi(signed) => prim_ops::int_mad_hi(signed, a, b()?, c()?),
            PrimFn::FloatBin(op) => prim_ops::float_bin(op, a, b()?),
            PrimFn::FloatCmp(op) => prim_ops::float_cmp(op, a, b()?),
            PrimFn::FloatUn(op) => prim_ops::float_un(op, a),
            PrimFn::FloatTern(op) => prim_ops::float_tern(op, a, b()?, c()?),
            PrimFn::Ldexp => prim_ops::float_ldexp(a, b()?),
            PrimFn::BoolBin(op) => prim_ops::bool_bin(op, a, b()?),
            PrimFn::Neg => prim_ops::negate(a),
            PrimFn::Cond => match a {
                Prim::Bool(t) => Ok(if t { b()? } else { c()? }),
                _ => Err(bad),
            },
            PrimFn::ZExt(to) => Ok(Prim::int_from_bits(to, a.int_bits().ok_or(bad)?)),
            PrimFn::SExt(to) => Ok(Prim::int_from_bits(to, signed_value(a).ok_or(bad)? as u64)),
            PrimFn::FpConv(to) => {
                a.as_f64().ok_or(bad)?;
                Ok(a.convert(to))
            }
            PrimFn::FpToSi(to) | PrimFn::FpToUi(to) => {
                let x = a.as_f64().ok_or(bad)?;
                Ok(Prim::int_from_bits(to, crate::prim::float_to_int_bits(x)))
            }
            PrimFn::SiToFp(to) => Ok(Prim::from_f64(to, signed_value(a).ok_or(bad)? as f64)
                .pipe_f32(to, || signed_value(a).map(|v| v as f32))),
            PrimFn::UiToFp(to) => Ok(Prim::from_f64(to, a.int_bits().ok_or(bad)? as f64)
                .pipe_f32(to, || a.int_bits().map(|v| v as f32))),
            PrimFn::FpToBits => prim_ops::float_to_bits(a),
            PrimFn::BitsToFp => prim_ops::bits_to_float(a),
            PrimFn::IToB => Ok(Prim::Bool(a.int_bits().ok_or(bad)? != 0)),
            PrimFn::BToI(to) | PrimFn::BToF(to) => match a {
                Prim::Bool(_) => Ok(a.convert(to)),
                _ => Err(bad),
            },
            PrimFn::FToB => Ok(Prim::Bool(a.as_f64().ok_or(bad)? != 0.0)),
            PrimFn::Reinterpret(to) => Ok(Prim::int_from_bits(to, a.int_bits().ok_or(bad)?)),
        }
    }

    /// Decodes an intrinsic name.
    pub fn lookup(name: &str) -> Option<PrimFn> {
        if let Some(f) = conversion(name) {
            return Some(f);
        }
        if let Some(f) = fixed(name) {
            return Some(f);
        }
        // Stem plus a width, possibly separated by `_` (`log2_32`, `atan2_64`).
        let digits = name.trim_end_matches(|c: char| c.is_ascii_digit());
        let width = &name[digits.len()..];
        let stem = digits.strip_suffix('_').unwrap_or(digits);
        if !matches!(width, "8" | "16" | "32" | "64") {
            return None;
        }
        if let Some(op) = int_stem(stem) {
            return Some(op);
        }
        if width != "8"
            && let Some(op) = float_stem(stem)
        {
            return Some(op);
        }
        None
    }
}

/// Helper so that `sitofp`/`uitofp` into `f32` round once from the integer (not via `f64`).
trait PipeF32 {
    fn pipe_f32(self, to: PrimType, direct: impl Fn() -> Option<f32>) -> Prim;
}

impl PipeF32 for Prim {
    fn pipe_f32(self, to: PrimType, direct: impl Fn() -> Option<f32>) -> Prim {
        match (to, direct()) {
            (PrimType::F32, Some(x)) => Prim::F32(x),
            _ => self,
        }
    }
}

/// The signed value of an integer's bit pattern at its own width.
fn signed_value(a: Prim) -> Option<i128> {
    let bits = a.int_bits()?;
    Some(match a.ty().size_bytes() {
        1 => bits as u8 as i8 as i128,
        2 => bits as u16 as i16 as i128,
        4 => bits as u32 as i32 as i128,
        _ => bits as i64 as i128,
    })
}

fn int_type(name: &str) -> Option<PrimType> {
    match name {
        "i8" => Some(PrimType::I8),
        "i16" => Some(PrimType::I16),
        "i32" => Some(PrimType::I32),
        "i64" => Some(PrimType::I64),
        _ => None,
    }
}

fn float_type(name: &str) -> Option<PrimType> {
    match name {
        "f16" => Some(PrimType::F16),
        "f32" => Some(PrimType::F32),
        "f64" => Some(PrimType::F64),
        _ => None,
    }
}

/// `zext_i8_i32`, `fptosi_f32_i64`, `sign_i8`, `btof_bool_f32`, ….
fn conversion(name: &str) -> Option<PrimFn> {
    let parts: Vec<&str> = name.split('_').collect();
    match parts.as_slice() {
        ["sign", t] => int_type(t).map(PrimFn::Reinterpret),
        ["unsign", t] => int_type(t).map(|t| PrimFn::Reinterpret(unsigned_of(t))),
        ["zext", a, b] => int_type(a).and(int_type(b)).map(PrimFn::ZExt),
        ["sext", a, b] => int_type(a).and(int_type(b)).map(PrimFn::SExt),
        ["fpconv", a, b] => float_type(a).and(float_type(b)).map(PrimFn::FpConv),
        ["fptosi", a, b] => float_type(a).and(int_type(b)).map(PrimFn::FpToSi),
        ["fptoui", a, b] => float_type(a).and(int_type(b)).map(PrimFn::FpToUi),
        ["sitofp", a, b] => int_type(a).and(float_type(b)).map(PrimFn::SiToFp),
        ["uitofp", a, b] => int_type(a).and(float_type(b)).map(PrimFn::UiToFp),
        ["fptobits", a, b] => float_type(a).and(int_type(b)).map(|_| PrimFn::FpToBits),
        ["bitstofp", a, b] => int_type(a).and(float_type(b)).map(|_| PrimFn::BitsToFp),
        ["itob", a, "bool"] => int_type(a).map(|_| PrimFn::IToB),
        ["btoi", "bool", b] => int_type(b).map(PrimFn::BToI),
        ["ftob", a, "bool"] => float_type(a).map(|_| PrimFn::FToB),
        ["btof", "bool", b] => float_type(b).map(PrimFn::BToF),
        ["neg", t] => {
            (int_type(t).is_some() || float_type(t).is_some() || *t == "bool" || *t == "unit")
                .then_some(PrimFn::Neg)
        }
        ["cond", _] => Some(PrimFn::Cond),
        _ => None,
    }
}

fn unsigned_of(t: PrimType) -> PrimType {
    match t {
        PrimType::I8 => PrimType::U8,
        PrimType::I16 => PrimType::U16,
        PrimType::I32 => PrimType::U32,
        _ => PrimType::U64,
    }
}

fn fixed(name: &str) -> Option<PrimFn> {
    Some(match name {
        "eq_bool" | "eq_unit" => PrimFn::BoolBin(BoolBin::Eq),
        "llt" => PrimFn::BoolBin(BoolBin::Lt),
        "lle" => PrimFn::BoolBin(BoolBin::Le),
        "logand" => PrimFn::BoolBin(BoolBin::And),
        "logor" => PrimFn::BoolBin(BoolBin::Or),
        _ => return None,
    })
}

fn int_stem(stem: &str) -> Option<PrimFn> {
    use IntBin as B;
    let bin = |op| Some(PrimFn::IntBin(op));
    let safe = |op| Some(PrimFn::IntBinSafe(op));
    match stem {
        "add" | "add_nw" => bin(B::Add),
        "sub" | "sub_nw" => bin(B::Sub),
        "mul" | "mul_nw" => bin(B::Mul),
        "sdiv" => bin(B::SDiv),
        "smod" => bin(B::SMod),
        "squot" => bin(B::SQuot),
        "srem" => bin(B::SRem),
        "udiv" => bin(B::UDiv),
        "umod" => bin(B::UMod),
        "sdiv_up" => bin(B::SDivUp),
        "udiv_up" => bin(B::UDivUp),
        "sdiv_safe" => safe(B::SDiv),
        "smod_safe" => safe(B::SMod),
        "squot_safe" => safe(B::SQuot),
        "srem_safe" => safe(B::SRem),
        "udiv_safe" => safe(B::UDiv),
        "umod_safe" => safe(B::UMod),
        "sdiv_up_safe" => safe(B::SDivUp),
        "udiv_up_safe" => safe(B::UDivUp),
        "smin" => bin(B::SMin),
        "smax" => bin(B::SMax),
        "umin" => bin(B::UMin),
        "umax" => bin(B::UMax),
        "shl" => bin(B::Shl),
        "lshr" => bin(B::LShr),
        "ashr" => bin(B::AShr),
        "and" => bin(B::And),
        "or" => bin(B::Or),
        "xor" => bin(B::Xor),
        "pow" => bin(B::SPow),
        "smul_hi" => bin(B::SMulHi),
        "umul_hi" => bin(B::UMulHi),
        "smad_hi" => Some(PrimFn::MadHi(true)),
        "umad_hi" => Some(PrimFn::MadHi(false)),
        "complement" => Some(PrimFn::IntUn(IntUn::Complement)),
        "abs" => Some(PrimFn::IntUn(IntUn::Abs)),
        "ssignum" => Some(PrimFn::IntUn(IntUn::SSignum)),
        "usignum" => Some(PrimFn::IntUn(IntUn::USignum)),
        "clz" => Some(PrimFn::IntUn(IntUn::Clz)),
        "ctz" => Some(PrimFn::IntUn(IntUn::Ctz)),
        "popc" => Some(PrimFn::IntUn(IntUn::Popc)),
        "eq_i" => Some(PrimFn::IntCmp(IntCmp::Eq)),
        "slt" => Some(PrimFn::IntCmp(IntCmp::SLt)),
        "sle" => Some(PrimFn::IntCmp(IntCmp::SLe)),
        "ult" => Some(PrimFn::IntCmp(IntCmp::ULt)),
        "ule" => Some(PrimFn::IntCmp(IntCmp::ULe)),
        _ => None,
    }
}

fn float_stem(stem: &str) -> Option<PrimFn> {
    use FloatBin as B;
    use FloatUn as U;
    let bin = |op| Some(PrimFn::FloatBin(op));
    let un = |op| Some(PrimFn::FloatUn(op));
    match stem {
        "fadd" => bin(B::Add),
        "fsub" => bin(B::Sub),
        "fmul" => bin(B::Mul),
        "fdiv" => bin(B::Div),
        "fmod" => bin(B::Mod),
        "fpow" => bin(B::Pow),
        "fmin" => bin(B::Min),
        "fmax" => bin(B::Max),
        "atan2" => bin(B::Atan2),
        "atan2pi" => bin(B::Atan2Pi),
        "hypot" => bin(B::Hypot),
        "nextafter" => bin(B::NextAfter),
        "copysign" => bin(B::CopySign),
        "fabs" => un(U::Abs),
        "fsignum" => un(U::Signum),
        "sqrt" => un(U::Sqrt),
        "rsqrt" => un(U::Rsqrt),
        "cbrt" => un(U::Cbrt),
        "log" => un(U::Log),
        "log2" => un(U::Log2),
        "log10" => un(U::Log10),
        "log1p" => un(U::Log1p),
        "exp" => un(U::Exp),
        "sin" => un(U::Sin),
        "cos" => un(U::Cos),
        "tan" => un(U::Tan),
        "sinpi" => un(U::SinPi),
        "cospi" => un(U::CosPi),
        "tanpi" => un(U::TanPi),
        "asin" => un(U::Asin),
        "acos" => un(U::Acos),
        "atan" => un(U::Atan),
        "asinpi" => un(U::AsinPi),
        "acospi" => un(U::AcosPi),
        "atanpi" => un(U::AtanPi),
        "sinh" => un(U::Sinh),
        "cosh" => un(U::Cosh),
        "tanh" => un(U::Tanh),
        "asinh" => un(U::Asinh),
        "acosh" => un(U::Acosh),
        "atanh" => un(U::Atanh),
        "gamma" => un(U::Gamma),
        "lgamma" => un(U::Lgamma),
        "erf" => un(U::Erf),
        "erfc" => un(U::Erfc),
        "round" => un(U::Round),
        "ceil" => un(U::Ceil),
        "floor" => un(U::Floor),
        "trunc" => un(U::Trunc),
        "isinf" => un(U::IsInf),
        "isnan" => un(U::IsNan),
        "eq_f" => Some(PrimFn::FloatCmp(FloatCmp::Eq)),
        "lt" => Some(PrimFn::FloatCmp(FloatCmp::Lt)),
        "le" => Some(PrimFn::FloatCmp(FloatCmp::Le)),
        "lerp" => Some(PrimFn::FloatTern(FloatTern::Lerp)),
        "mad" => Some(PrimFn::FloatTern(FloatTern::Mad)),
        "fma" => Some(PrimFn::FloatTern(FloatTern::Fma)),
        "ldexp" => Some(PrimFn::Ldexp),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_decode() {
        assert_eq!(PrimFn::lookup("add32"), Some(PrimFn::IntBin(IntBin::Add)));
        assert_eq!(
            PrimFn::lookup("log2_64"),
            Some(PrimFn::FloatUn(FloatUn::Log2))
        );
        assert_eq!(
            PrimFn::lookup("atan2_32"),
            Some(PrimFn::FloatBin(FloatBin::Atan2))
        );
        assert_eq!(PrimFn::lookup("eq_i8"), Some(PrimFn::IntCmp(IntCmp::Eq)));
        assert_eq!(
            PrimFn::lookup("eq_f16"),
            Some(PrimFn::FloatCmp(FloatCmp::Eq))
        );
        assert_eq!(PrimFn::lookup("lt32"), Some(PrimFn::FloatCmp(FloatCmp::Lt)));
        assert_eq!(PrimFn::lookup("slt32"), Some(PrimFn::IntCmp(IntCmp::SLt)));
        assert_eq!(
            PrimFn::lookup("sdiv_up_safe64"),
            Some(PrimFn::IntBinSafe(IntBin::SDivUp))
        );
        assert_eq!(
            PrimFn::lookup("sitofp_i32_f64"),
            Some(PrimFn::SiToFp(PrimType::F64))
        );
        assert_eq!(
            PrimFn::lookup("unsign_i8"),
            Some(PrimFn::Reinterpret(PrimType::U8))
        );
        assert_eq!(PrimFn::lookup("fadd8"), None);
        assert_eq!(PrimFn::lookup("map"), None);
    }

    #[test]
    fn conversions() {
        let f = |n: &str, a: Prim| PrimFn::lookup(n).unwrap().apply(&[a]).unwrap();
        assert_eq!(f("zext_i8_i32", Prim::I8(-1)), Prim::I32(255));
        assert_eq!(f("sext_i8_i32", Prim::I8(-1)), Prim::I32(-1));
        assert_eq!(f("sext_i64_i8", Prim::I64(257)), Prim::I8(1));
        assert_eq!(f("uitofp_i8_f32", Prim::I8(-1)), Prim::F32(255.0));
        assert_eq!(f("fptosi_f64_i32", Prim::F64(-3.9)), Prim::I32(-3));
        assert_eq!(
            f("fptobits_f32_i32", Prim::F32(1.0)),
            Prim::I32(0x3f80_0000)
        );
        assert_eq!(f("btoi_bool_i16", Prim::Bool(true)), Prim::I16(1));
    }
}
