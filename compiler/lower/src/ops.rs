//! Scalar operations: the overloaded built-in operators (typed by their operands) and the
//! primitive intrinsics the prelude is written with (`intrinsics.fadd32`, `sext_i8_i64`,
//! …), each mapped to one IR operation.

use futhark_ir::soacs::{BinOp, CmpOp, ConvOp, Exp as IExp, MathFn, SubExp, Type, UnOp};
use futhark_ir::types::{PrimType, PrimValue};
use futhark_syntax::Span;

use crate::error::{LResult, LowerError};
use crate::exp::atom;
use crate::state::Lowerer;
use crate::value::Value;

fn int_type(bits: u32) -> Option<PrimType> {
    Some(match bits {
        8 => PrimType::I8,
        16 => PrimType::I16,
        32 => PrimType::I32,
        64 => PrimType::I64,
        _ => return None,
    })
}

fn uint_type(bits: u32) -> Option<PrimType> {
    Some(match bits {
        8 => PrimType::U8,
        16 => PrimType::U16,
        32 => PrimType::U32,
        64 => PrimType::U64,
        _ => return None,
    })
}

/// `("sdiv", 32)` from `sdiv32`, `("log2", 32)` from `log2_32`.
fn split_width(name: &str) -> Option<(&str, u32)> {
    let digits = name.len() - name.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    if digits == 0 {
        return None;
    }
    let (prefix, w) = name.split_at(name.len() - digits);
    let prefix = prefix.strip_suffix('_').unwrap_or(prefix);
    Some((prefix, w.parse().ok()?))
}

/// What a primitive intrinsic does.
enum PrimOp {
    Bin(BinOp),
    Cmp(CmpOp),
    Un(UnOp),
    Conv(ConvOp),
    Math(MathFn),
}

fn int_binop(prefix: &str) -> Option<BinOp> {
    let p = prefix
        .strip_suffix("_nw")
        .or_else(|| prefix.strip_suffix("_safe"))
        .unwrap_or(prefix);
    Some(match p {
        "add" => BinOp::Add,
        "sub" => BinOp::Sub,
        "mul" => BinOp::Mul,
        "sdiv" => BinOp::SDiv,
        "udiv" => BinOp::UDiv,
        "smod" => BinOp::SMod,
        "umod" => BinOp::UMod,
        "squot" => BinOp::SQuot,
        "srem" => BinOp::SRem,
        "smin" => BinOp::SMin,
        "smax" => BinOp::SMax,
        "umin" => BinOp::UMin,
        "umax" => BinOp::UMax,
        "shl" => BinOp::Shl,
        "lshr" => BinOp::LShr,
        "ashr" => BinOp::AShr,
        "and" => BinOp::And,
        "or" => BinOp::Or,
        "xor" => BinOp::Xor,
        "pow" => BinOp::Pow,
        _ => return None,
    })
}

/// Parses a primitive intrinsic's name into its operation.
fn parse_prim(name: &str) -> Option<PrimOp> {
    // Conversions: `op_from_to`.
    let parts: Vec<&str> = name.split('_').collect();
    if let [op, _, to] = parts.as_slice()
        && let Some(to) = PrimType::from_name(to)
    {
        let c = match *op {
            "zext" => ConvOp::ZExt(to),
            "sext" => ConvOp::SExt(to),
            "fpconv" => ConvOp::FpConv(to),
            "fptosi" => ConvOp::FpToSi(to),
            "fptoui" => ConvOp::FpToUi(to),
            "sitofp" => ConvOp::SiToFp(to),
            "uitofp" => ConvOp::UiToFp(to),
            "fptobits" | "bitstofp" => ConvOp::BitCast(to),
            "itob" => ConvOp::IToB,
            "btoi" => ConvOp::BToI(to),
            "ftob" => ConvOp::FToB,
            "btof" => ConvOp::BToF(to),
            _ => return None,
        };
        return Some(PrimOp::Conv(c));
    }
    if let Some(t) = name.strip_prefix("sign_") {
        let bits = split_width(t)?.1;
        return int_type(bits).map(|t| PrimOp::Conv(ConvOp::BitCast(t)));
    }
    if let Some(t) = name.strip_prefix("unsign_") {
        let bits = split_width(t)?.1;
        return uint_type(bits).map(|t| PrimOp::Conv(ConvOp::BitCast(t)));
    }
    match name {
        "eq_bool" => return Some(PrimOp::Cmp(CmpOp::Eq)),
        "llt" => return Some(PrimOp::Cmp(CmpOp::BLt)),
        "lle" => return Some(PrimOp::Cmp(CmpOp::BLe)),
        "logand" => return Some(PrimOp::Bin(BinOp::LogAnd)),
        "logor" => return Some(PrimOp::Bin(BinOp::LogOr)),
        _ => {}
    }
    if name.starts_with("neg_") {
        return Some(PrimOp::Un(UnOp::Neg));
    }
    if name.starts_with("eq_") {
        return Some(PrimOp::Cmp(CmpOp::Eq));
    }
    let (prefix, _) = split_width(name)?;
    if let Some(op) = int_binop(prefix) {
        return Some(PrimOp::Bin(op));
    }
    Some(match prefix {
        "fadd" => PrimOp::Bin(BinOp::Add),
        "fsub" => PrimOp::Bin(BinOp::Sub),
        "fmul" => PrimOp::Bin(BinOp::Mul),
        "fdiv" => PrimOp::Bin(BinOp::FDiv),
        "fmod" => PrimOp::Bin(BinOp::FMod),
        "fpow" => PrimOp::Bin(BinOp::Pow),
        "fmin" => PrimOp::Bin(BinOp::FMin),
        "fmax" => PrimOp::Bin(BinOp::FMax),
        "fabs" => PrimOp::Un(UnOp::FAbs),
        "fsignum" => PrimOp::Un(UnOp::FSignum),
        "lt" => PrimOp::Cmp(CmpOp::FLt),
        "le" => PrimOp::Cmp(CmpOp::FLe),
        "slt" => PrimOp::Cmp(CmpOp::SLt),
        "sle" => PrimOp::Cmp(CmpOp::SLe),
        "ult" => PrimOp::Cmp(CmpOp::ULt),
        "ule" => PrimOp::Cmp(CmpOp::ULe),
        "complement" => PrimOp::Un(UnOp::Complement),
        "abs" => PrimOp::Un(UnOp::SAbs),
        "ssignum" => PrimOp::Un(UnOp::SSignum),
        "usignum" => PrimOp::Un(UnOp::USignum),
        "clz" => PrimOp::Un(UnOp::Clz),
        "ctz" => PrimOp::Un(UnOp::Ctz),
        "popc" => PrimOp::Un(UnOp::Popc),
        p => PrimOp::Math(MathFn::from_name(p)?),
    })
}

impl<'a> Lowerer<'a> {
    /// A built-in overloaded operator applied to its operands.
    pub fn overloaded(&mut self, op: &str, args: Vec<Value<'a>>, span: Span) -> LResult<Value<'a>> {
        let bool_t = Type::Prim(PrimType::Bool);
        match op {
            "==" | "!=" => {
                let [a, b] = <[Value<'a>; 2]>::try_from(args)
                    .map_err(|_| LowerError::internal(Some(span), "arity of =="))?;
                let eq = self.equal(&a, &b, span)?;
                let r = if op == "!=" {
                    self.bind("ne", bool_t, IExp::UnOp(UnOp::Not, eq))
                } else {
                    eq
                };
                return Ok(Value::prim(r, PrimType::Bool));
            }
            "neg" | "!" => {
                let a = atom(
                    args.first()
                        .ok_or_else(|| LowerError::internal(Some(span), "arity"))?,
                    span,
                )?;
                let t = self.prim_of(&a);
                if op == "neg"
                    && let Some(c) = a.as_const()
                    && let Some(n) = negate_const(c)
                {
                    return Ok(Value::prim(SubExp::Const(n), t));
                }
                let u = match (op, t) {
                    (_, PrimType::Bool) => UnOp::Not,
                    ("neg", _) => UnOp::Neg,
                    _ => UnOp::Complement,
                };
                let r = self.bind("u", Type::Prim(t), IExp::UnOp(u, a));
                return Ok(Value::prim(r, t));
            }
            _ => {}
        }
        let [a, b] = <[Value<'a>; 2]>::try_from(args)
            .map_err(|_| LowerError::internal(Some(span), "arity of a binary operator"))?;
        let (a, b) = (atom(&a, span)?, atom(&b, span)?);
        let t = self.prim_of(&a);
        let (float, unsigned) = (t.is_float(), t.is_unsigned());
        let bin = match op {
            "+" => Some(BinOp::Add),
            "-" => Some(BinOp::Sub),
            "*" => Some(BinOp::Mul),
            "**" => Some(BinOp::Pow),
            "/" if float => Some(BinOp::FDiv),
            "/" | "//" if unsigned => Some(BinOp::UDiv),
            "/" => Some(BinOp::SDiv),
            "//" => Some(BinOp::SQuot),
            "%" if float => Some(BinOp::FMod),
            "%" | "%%" if unsigned => Some(BinOp::UMod),
            "%" => Some(BinOp::SMod),
            "%%" => Some(BinOp::SRem),
            ">>" if unsigned => Some(BinOp::LShr),
            ">>" => Some(BinOp::AShr),
            "<<" => Some(BinOp::Shl),
            "&" => Some(BinOp::And),
            "|" => Some(BinOp::Or),
            "^" => Some(BinOp::Xor),
            "&&" => Some(BinOp::LogAnd),
            "||" => Some(BinOp::LogOr),
            _ => None,
        };
        if let Some(bop) = bin {
            let e = IExp::BinOp(bop, a, b);
            let r = if bop.can_fail() {
                self.located(span, |this| this.bind("b", Type::Prim(t), e))
            } else {
                self.bind("b", Type::Prim(t), e)
            };
            return Ok(Value::prim(r, t));
        }
        let (cmp, x, y) = match op {
            "<" => (CmpOp::less(t, true), a, b),
            "<=" => (CmpOp::less(t, false), a, b),
            ">" => (CmpOp::less(t, true), b, a),
            ">=" => (CmpOp::less(t, false), b, a),
            _ => {
                return Err(LowerError::internal(
                    Some(span),
                    format!("unknown operator `{op}`"),
                ));
            }
        };
        let r = self.bind("c", bool_t, IExp::CmpOp(cmp, x, y));
        Ok(Value::prim(r, PrimType::Bool))
    }

    /// Structural equality of two values (scalars only inside).
    pub fn equal(&mut self, a: &Value<'a>, b: &Value<'a>, span: Span) -> LResult<SubExp> {
        let (la, lb) = (a.leaves(), b.leaves());
        if la.len() != lb.len() {
            return Err(LowerError::internal(
                Some(span),
                "comparing values of different shapes",
            ));
        }
        let mut acc: Option<SubExp> = None;
        for ((x, tx), (y, ty)) in la.into_iter().zip(lb) {
            let e = if tx.is_array() {
                self.array_equal(&x, &tx, &y, &ty, span)?
            } else {
                self.bind(
                    "eq",
                    Type::Prim(PrimType::Bool),
                    IExp::CmpOp(CmpOp::Eq, x, y),
                )
            };
            acc = Some(match acc {
                None => e,
                Some(p) => self.bind(
                    "eq",
                    Type::Prim(PrimType::Bool),
                    IExp::BinOp(BinOp::LogAnd, p, e),
                ),
            });
        }
        Ok(acc.unwrap_or(SubExp::Const(PrimValue::Bool(true))))
    }

    /// A primitive intrinsic applied to its (tuple) argument, or `None` if `name` is not one.
    pub fn prim_intrinsic(
        &mut self,
        name: &str,
        arg: &Value<'a>,
        span: Span,
    ) -> LResult<Option<Value<'a>>> {
        if name.starts_with("cond_") {
            let comps = arg.components();
            let [c, x, y] = comps.as_slice() else {
                return Err(LowerError::internal(Some(span), "arity of cond"));
            };
            let c = atom(c, span)?;
            let (x, y) = (x.clone(), y.clone());
            return self.if_value(c, |_| Ok(x), |_| Ok(y), span).map(Some);
        }
        let Some(op) = parse_prim(name) else {
            return Ok(None);
        };
        let args: Vec<SubExp> = arg
            .components()
            .iter()
            .map(|c| atom(c, span))
            .collect::<LResult<_>>()?;
        let first = args
            .first()
            .cloned()
            .ok_or_else(|| LowerError::internal(Some(span), "intrinsic without arguments"))?;
        let t = self.prim_of(&first);
        let (exp, rt) = match op {
            PrimOp::Bin(b) => {
                let [x, y] = two(args, span)?;
                (IExp::BinOp(b, x, y), t)
            }
            PrimOp::Cmp(c) => {
                let [x, y] = two(args, span)?;
                (IExp::CmpOp(c, x, y), PrimType::Bool)
            }
            PrimOp::Un(u) => {
                let rt = u.result(t).unwrap_or(t);
                let u = if u == UnOp::Neg && t == PrimType::Bool {
                    UnOp::Not
                } else {
                    u
                };
                (IExp::UnOp(u, first), rt)
            }
            PrimOp::Conv(c) => (IExp::Conv(c, first), c.target()),
            PrimOp::Math(f) => {
                let ts: Vec<PrimType> = args.iter().map(|a| self.prim_of(a)).collect();
                let rt = f.result(&ts).ok_or_else(|| {
                    LowerError::internal(Some(span), format!("bad arguments to {name}"))
                })?;
                (IExp::Math(f, args), rt)
            }
        };
        let r = self.bind("p", Type::Prim(rt), exp);
        Ok(Some(Value::prim(r, rt)))
    }
}

/// `-c` for a numeric constant (wrapping), so literals like `-1` stay constants.
fn negate_const(c: PrimValue) -> Option<PrimValue> {
    Some(match c {
        PrimValue::I8(x) => PrimValue::I8(x.wrapping_neg()),
        PrimValue::I16(x) => PrimValue::I16(x.wrapping_neg()),
        PrimValue::I32(x) => PrimValue::I32(x.wrapping_neg()),
        PrimValue::I64(x) => PrimValue::I64(x.wrapping_neg()),
        PrimValue::U8(x) => PrimValue::U8(x.wrapping_neg()),
        PrimValue::U16(x) => PrimValue::U16(x.wrapping_neg()),
        PrimValue::U32(x) => PrimValue::U32(x.wrapping_neg()),
        PrimValue::U64(x) => PrimValue::U64(x.wrapping_neg()),
        PrimValue::F16(b) => PrimValue::F16(b ^ 0x8000),
        PrimValue::F32(x) => PrimValue::F32(-x),
        PrimValue::F64(x) => PrimValue::F64(-x),
        PrimValue::Bool(_) => return None,
    })
}

fn two(args: Vec<SubExp>, span: Span) -> LResult<[SubExp; 2]> {
    <[SubExp; 2]>::try_from(args)
        .map_err(|_| LowerError::internal(Some(span), "binary intrinsic arity"))
}
