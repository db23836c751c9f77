//! Automatic differentiation: `jvp2`, `vjp2`, `jmp2`, `mjp2`.
//!
//! Forward mode uses dual numbers: the input's numeric leaves become [`Dual`]s tagged with a
//! fresh number, and every primitive operation on a dual applies its derivative rule (the
//! rules below). Tags keep nested differentiations apart. Reverse mode runs forward mode once
//! per numeric leaf of the input, with a one-hot tangent, and takes the dot product of each
//! directional derivative with the cotangent. That costs one evaluation per input scalar,
//! which is what an interpreter can afford for the small inputs AD is tested on.
//!
//! Integers are differentiated too (their tangents are integers), as in the reference.

use std::rc::Rc;

use futhark_syntax::Span;

use crate::array::{flat_elems, from_flat_elems};
use crate::errors::{Result, RuntimeError};
use crate::eval::Machine;
use crate::prim::Prim;
use crate::prim_fns::PrimFn;
use crate::prim_ops::{self, FloatBin, FloatTern, FloatUn, IntBin, IntUn, OvOp};
use crate::value::{Dual, Record, SumValue, Value};

fn arith(r: std::result::Result<Prim, prim_ops::ArithError>) -> Result<Value> {
    r.map(Value::Prim)
        .map_err(|e| RuntimeError::new(e.message()))
}

/// The innermost scalar of a (possibly nested) dual.
pub fn base(v: &Value) -> Option<Prim> {
    match v {
        Value::Prim(p) => Some(*p),
        Value::Dual(d) => base(&d.primal),
        _ => None,
    }
}

/// The value with every dual replaced by its innermost primal.
pub fn strip(v: &Value) -> Value {
    match v {
        Value::Dual(d) => strip(&d.primal),
        v => v.clone(),
    }
}

fn konst(like: &Value, c: f64) -> Value {
    let ty = base(like).map_or(futhark_values::PrimType::F64, |p| p.ty());
    Value::Prim(if ty.is_float() {
        Prim::from_f64(ty, c)
    } else {
        Prim::int_from_bits(ty, c as i64 as u64)
    })
}

fn zero(like: &Value) -> Value {
    konst(like, 0.0)
}

fn is_zero(v: &Value) -> bool {
    matches!(v, Value::Prim(p) if p.as_f64().map_or_else(|| p.int_bits() == Some(0), |x| x == 0.0))
}

fn top_tag(vals: &[&Value]) -> Option<u32> {
    vals.iter()
        .filter_map(|v| match v {
            Value::Dual(d) => Some(d.tag),
            _ => None,
        })
        .max()
}

/// (primal, tangent) of `v` with respect to differentiation `tag`.
fn split(v: &Value, tag: u32) -> (Value, Value) {
    match v {
        Value::Dual(d) if d.tag == tag => (d.primal.clone(), d.tangent.clone()),
        v => (v.clone(), zero(v)),
    }
}

fn mk(tag: u32, primal: Value, tangent: Value) -> Value {
    Value::Dual(Rc::new(Dual {
        tag,
        primal,
        tangent,
    }))
}

// Value-level arithmetic used by the rules; works on nested duals.
fn add(a: &Value, b: &Value) -> Result<Value> {
    if is_zero(b) {
        return Ok(a.clone());
    }
    if is_zero(a) {
        return Ok(b.clone());
    }
    ov(OvOp::Add, a, b)
}
fn sub(a: &Value, b: &Value) -> Result<Value> {
    ov(OvOp::Sub, a, b)
}
fn mul(a: &Value, b: &Value) -> Result<Value> {
    if is_zero(a) || is_zero(b) {
        return Ok(zero(a));
    }
    ov(OvOp::Mul, a, b)
}
fn div(a: &Value, b: &Value) -> Result<Value> {
    ov(OvOp::Div, a, b)
}
fn un(op: FloatUn, a: &Value) -> Result<Value> {
    prim_fn(PrimFn::FloatUn(op), std::slice::from_ref(a))
}
fn neg(a: &Value) -> Result<Value> {
    prim_fn(PrimFn::Neg, std::slice::from_ref(a))
}

/// An overloaded operator where an operand may be dual.
pub fn ov(op: OvOp, a: &Value, b: &Value) -> Result<Value> {
    let Some(tag) = top_tag(&[a, b]) else {
        return match (a, b) {
            (Value::Prim(x), Value::Prim(y)) => arith(prim_ops::overloaded(op, *x, *y)),
            _ => Err(RuntimeError::new("arithmetic on non-numeric values")),
        };
    };
    let (ap, at) = split(a, tag);
    let (bp, bt) = split(b, tag);
    let float = base(a).is_some_and(|p| p.ty().is_float());
    match op {
        OvOp::Add | OvOp::Sub => {
            let p = ov(op, &ap, &bp)?;
            let t = if op == OvOp::Add {
                add(&at, &bt)?
            } else {
                sub(&at, &bt)?
            };
            Ok(mk(tag, p, t))
        }
        OvOp::Mul => {
            let p = ov(op, &ap, &bp)?;
            let t = add(&mul(&at, &bp)?, &mul(&ap, &bt)?)?;
            Ok(mk(tag, p, t))
        }
        OvOp::Div | OvOp::Quot => {
            let p = ov(op, &ap, &bp)?;
            // (a/b)' = (a'·b − a·b') / b²
            let num = sub(&mul(&at, &bp)?, &mul(&ap, &bt)?)?;
            let t = ov(op, &num, &mul(&bp, &bp)?)?;
            Ok(mk(tag, p, t))
        }
        OvOp::Mod | OvOp::Rem => {
            let p = ov(op, &ap, &bp)?;
            // a mod b = a − b·⌊a/b⌋, so the derivative is a' − b'·⌊a/b⌋.
            let q = if float {
                un(FloatUn::Floor, &ov(OvOp::Div, &ap, &bp)?)?
            } else {
                ov(OvOp::Div, &ap, &bp)?
            };
            let t = sub(&at, &mul(&bt, &q)?)?;
            Ok(mk(tag, p, t))
        }
        OvOp::Pow => pow(tag, &ap, &at, &bp, &bt, float),
        OvOp::Eq
        | OvOp::Neq
        | OvOp::Lt
        | OvOp::Le
        | OvOp::Gt
        | OvOp::Ge
        | OvOp::LogAnd
        | OvOp::LogOr => ov(op, &strip(a), &strip(b)),
        OvOp::Shl | OvOp::Shr | OvOp::BAnd | OvOp::BOr | OvOp::Xor => {
            let p = ov(op, &ap, &bp)?;
            Ok(mk(tag, p.clone(), zero(&p)))
        }
    }
}

fn pow(tag: u32, ap: &Value, at: &Value, bp: &Value, bt: &Value, float: bool) -> Result<Value> {
    let p = ov(OvOp::Pow, ap, bp)?;
    // (a^b)' = b·a^(b−1)·a' + a^b·ln(a)·b'
    let bm1 = sub(bp, &konst(bp, 1.0))?;
    let t1 = if is_zero(at) {
        zero(ap)
    } else if float || !is_zero(bp) {
        mul(&mul(bp, &ov(OvOp::Pow, ap, &bm1)?)?, at)?
    } else {
        zero(ap)
    };
    let t2 = if is_zero(bt) || !float {
        zero(ap)
    } else {
        mul(&mul(&p, &un(FloatUn::Log, ap)?)?, bt)?
    };
    Ok(mk(tag, p, add(&t1, &t2)?))
}

/// A primitive intrinsic where an argument may be dual.
pub fn prim_fn(pf: PrimFn, args: &[Value]) -> Result<Value> {
    let refs: Vec<&Value> = args.iter().collect();
    let Some(tag) = top_tag(&refs) else {
        let mut prims = Vec::with_capacity(args.len());
        for a in args {
            match a {
                Value::Prim(p) => prims.push(*p),
                _ => {
                    return Err(RuntimeError::new(
                        "primitive operation applied to a non-primitive value",
                    ));
                }
            }
        }
        return arith(pf.apply(&prims));
    };
    let parts: Vec<(Value, Value)> = args.iter().map(|a| split(a, tag)).collect();
    let primals: Vec<Value> = parts.iter().map(|p| p.0.clone()).collect();
    let p = prim_fn(pf, &primals)?;
    let (a, da) = parts[0].clone();
    let arg = |i: usize| {
        parts
            .get(i)
            .cloned()
            .unwrap_or_else(|| (zero(&a), zero(&a)))
    };
    let t = match pf {
        PrimFn::IntBin(op) | PrimFn::IntBinSafe(op) => {
            let (_b, db) = arg(1);
            let o = match op {
                IntBin::Add => Some(OvOp::Add),
                IntBin::Sub => Some(OvOp::Sub),
                IntBin::Mul => Some(OvOp::Mul),
                IntBin::SDiv | IntBin::UDiv | IntBin::SQuot => Some(OvOp::Div),
                IntBin::SMod | IntBin::UMod | IntBin::SRem => Some(OvOp::Mod),
                IntBin::SPow | IntBin::UPow => Some(OvOp::Pow),
                _ => None,
            };
            match op {
                IntBin::SMin | IntBin::UMin | IntBin::SMax | IntBin::UMax => {
                    let pick_a = strip(&p).as_prim() == strip(&a).as_prim();
                    if pick_a { da } else { db }
                }
                _ => match o {
                    Some(o) => return ov(o, &args[0], &args[1]),
                    None => zero(&p),
                },
            }
        }
        PrimFn::FloatBin(op) => {
            let (b, db) = arg(1);
            match op {
                FloatBin::Add => return ov(OvOp::Add, &args[0], &args[1]),
                FloatBin::Sub => return ov(OvOp::Sub, &args[0], &args[1]),
                FloatBin::Mul => return ov(OvOp::Mul, &args[0], &args[1]),
                FloatBin::Div => return ov(OvOp::Div, &args[0], &args[1]),
                FloatBin::Mod => return ov(OvOp::Mod, &args[0], &args[1]),
                FloatBin::Pow => return pow(tag, &a, &da, &b, &db, true),
                FloatBin::Min | FloatBin::Max => {
                    let pick_a = match (base(&p), base(&a)) {
                        (Some(x), Some(y)) => x == y || (x.as_f64().is_some_and(f64::is_nan)),
                        _ => true,
                    };
                    if pick_a { da } else { db }
                }
                FloatBin::Atan2 | FloatBin::Atan2Pi => {
                    // atan2(y, x)' = (x·y' − y·x') / (x² + y²)
                    let num = sub(&mul(&b, &da)?, &mul(&a, &db)?)?;
                    let den = add(&mul(&a, &a)?, &mul(&b, &b)?)?;
                    let t = div(&num, &den)?;
                    if op == FloatBin::Atan2Pi {
                        div(&t, &konst(&a, std::f64::consts::PI))?
                    } else {
                        t
                    }
                }
                FloatBin::Hypot => div(&add(&mul(&a, &da)?, &mul(&b, &db)?)?, &p)?,
                FloatBin::NextAfter => da,
                FloatBin::CopySign => {
                    let s = mul(
                        &un(FloatUn::Signum, &a)?,
                        &un(
                            FloatUn::Signum,
                            &prim_fn(PrimFn::FloatBin(FloatBin::CopySign), &[konst(&a, 1.0), b])?,
                        )?,
                    )?;
                    mul(&s, &da)?
                }
            }
        }
        PrimFn::FloatUn(op) => float_rule(op, &a, &da, &p)?,
        PrimFn::IntUn(op) => match op {
            IntUn::Neg => neg(&da)?,
            IntUn::Abs => mul(
                &prim_fn(PrimFn::IntUn(IntUn::SSignum), std::slice::from_ref(&a))?,
                &da,
            )?,
            _ => zero(&p),
        },
        PrimFn::Neg => neg(&da)?,
        PrimFn::FloatTern(op) => {
            let (b, db) = arg(1);
            let (c, dc) = arg(2);
            match op {
                FloatTern::Mad | FloatTern::Fma => add(&add(&mul(&da, &b)?, &mul(&a, &db)?)?, &dc)?,
                FloatTern::Lerp => {
                    // a + (b − a)·t, with t clamped to [0, 1].
                    let inside = base(&c)
                        .and_then(|x| x.as_f64())
                        .is_some_and(|x| (0.0..=1.0).contains(&x));
                    let tc = if inside {
                        c.clone()
                    } else {
                        un(FloatUn::Round, &c)?
                    };
                    let one_m = sub(&konst(&a, 1.0), &tc)?;
                    let mut t = add(&mul(&da, &one_m)?, &mul(&db, &tc)?)?;
                    if inside {
                        t = add(&t, &mul(&sub(&b, &a)?, &dc)?)?;
                    }
                    t
                }
            }
        }
        PrimFn::Ldexp => {
            let (b, _) = arg(1);
            prim_fn(PrimFn::Ldexp, &[da, b])?
        }
        PrimFn::FpConv(_)
        | PrimFn::Reinterpret(_)
        | PrimFn::ZExt(_)
        | PrimFn::SExt(_)
        | PrimFn::FpToSi(_)
        | PrimFn::FpToUi(_)
        | PrimFn::SiToFp(_)
        | PrimFn::UiToFp(_) => prim_fn(pf, &[da])?,
        PrimFn::Cond => {
            let c = strip(&args[0]).as_bool() == Some(true);
            let (_, tb) = arg(1);
            let (_, tc) = arg(2);
            if c { tb } else { tc }
        }
        // Comparisons, tests and conversions to other kinds carry no derivative.
        _ => return Ok(p),
    };
    if matches!(p, Value::Prim(Prim::Bool(_))) {
        return Ok(p);
    }
    Ok(mk(tag, p, t))
}

fn float_rule(op: FloatUn, a: &Value, da: &Value, p: &Value) -> Result<Value> {
    use std::f64::consts::{LN_2, LN_10, PI};
    let one = konst(a, 1.0);
    let k = |c: f64| konst(a, c);
    let d = match op {
        FloatUn::Sqrt => div(&one, &mul(&k(2.0), p)?)?,
        FloatUn::Rsqrt => neg(&div(p, &mul(&k(2.0), a)?)?)?,
        FloatUn::Cbrt => div(&one, &mul(&k(3.0), &mul(p, p)?)?)?,
        FloatUn::Exp => p.clone(),
        FloatUn::Log => div(&one, a)?,
        FloatUn::Log2 => div(&one, &mul(a, &k(LN_2))?)?,
        FloatUn::Log10 => div(&one, &mul(a, &k(LN_10))?)?,
        FloatUn::Log1p => div(&one, &add(&one, a)?)?,
        FloatUn::Sin => un(FloatUn::Cos, a)?,
        FloatUn::Cos => neg(&un(FloatUn::Sin, a)?)?,
        FloatUn::Tan => {
            let c = un(FloatUn::Cos, a)?;
            div(&one, &mul(&c, &c)?)?
        }
        FloatUn::SinPi => mul(&k(PI), &un(FloatUn::CosPi, a)?)?,
        FloatUn::CosPi => neg(&mul(&k(PI), &un(FloatUn::SinPi, a)?)?)?,
        FloatUn::TanPi => {
            let c = un(FloatUn::CosPi, a)?;
            div(&k(PI), &mul(&c, &c)?)?
        }
        FloatUn::Asin | FloatUn::AsinPi | FloatUn::Acos | FloatUn::AcosPi => {
            let r = div(&one, &un(FloatUn::Sqrt, &sub(&one, &mul(a, a)?)?)?)?;
            let r = if matches!(op, FloatUn::Acos | FloatUn::AcosPi) {
                neg(&r)?
            } else {
                r
            };
            if matches!(op, FloatUn::AsinPi | FloatUn::AcosPi) {
                div(&r, &k(PI))?
            } else {
                r
            }
        }
        FloatUn::Atan | FloatUn::AtanPi => {
            let r = div(&one, &add(&one, &mul(a, a)?)?)?;
            if op == FloatUn::AtanPi {
                div(&r, &k(PI))?
            } else {
                r
            }
        }
        FloatUn::Sinh => un(FloatUn::Cosh, a)?,
        FloatUn::Cosh => un(FloatUn::Sinh, a)?,
        FloatUn::Tanh => sub(&one, &mul(p, p)?)?,
        FloatUn::Asinh => div(&one, &un(FloatUn::Sqrt, &add(&mul(a, a)?, &one)?)?)?,
        FloatUn::Acosh => div(&one, &un(FloatUn::Sqrt, &sub(&mul(a, a)?, &one)?)?)?,
        FloatUn::Atanh => div(&one, &sub(&one, &mul(a, a)?)?)?,
        FloatUn::Erf | FloatUn::Erfc => {
            let g = mul(&k(2.0 / PI.sqrt()), &un(FloatUn::Exp, &neg(&mul(a, a)?)?)?)?;
            if op == FloatUn::Erfc { neg(&g)? } else { g }
        }
        FloatUn::Gamma => mul(p, &digamma_v(a)?)?,
        FloatUn::Lgamma => digamma_v(a)?,
        FloatUn::Abs => un(FloatUn::Signum, a)?,
        FloatUn::Neg => neg(&one)?,
        FloatUn::Signum
        | FloatUn::Round
        | FloatUn::Ceil
        | FloatUn::Floor
        | FloatUn::Trunc
        | FloatUn::IsInf
        | FloatUn::IsNan => zero(a),
    };
    mul(&d, da)
}

/// ψ(x) of the innermost primal (derivatives of derivatives of gamma are not supported).
fn digamma_v(a: &Value) -> Result<Value> {
    let x = base(a).and_then(|p| p.as_f64()).unwrap_or(f64::NAN);
    Ok(konst(a, digamma(x)))
}

fn digamma(mut x: f64) -> f64 {
    let mut r = 0.0;
    if x <= 0.0 && x == x.floor() {
        return f64::NAN;
    }
    if x < 0.0 {
        // Reflection: ψ(1−x) − ψ(x) = π cot(πx).
        return digamma(1.0 - x) - std::f64::consts::PI / (std::f64::consts::PI * x).tan();
    }
    while x < 6.0 {
        r -= 1.0 / x;
        x += 1.0;
    }
    let f = 1.0 / (x * x);
    r + x.ln()
        - 0.5 / x
        - f * (1.0 / 12.0 - f * (1.0 / 120.0 - f * (1.0 / 252.0 - f * (1.0 / 240.0 - f / 132.0))))
}

// ---------------------------------------------------------------------------------------------
// Structure walking

/// Combines two values of the same structure leaf by leaf.
fn zip_leaves(
    x: &Value,
    y: &Value,
    f: &mut dyn FnMut(&Value, &Value) -> Result<Value>,
) -> Result<Value> {
    match (x, y) {
        (Value::Record(a), Value::Record(b)) if a.values.len() == b.values.len() => {
            let mut values = Vec::with_capacity(a.values.len());
            for (p, q) in a.values.iter().zip(&b.values) {
                values.push(zip_leaves(p, q, f)?);
            }
            Ok(Value::Record(Rc::new(Record {
                names: a.names.clone(),
                values,
            })))
        }
        (Value::Array(a), Value::Array(_)) => {
            let xs = flat_elems(x);
            let ys = flat_elems(y);
            if xs.len() != ys.len() {
                return Err(RuntimeError::new(
                    "AD: tangent and value have different shapes",
                ));
            }
            let mut out = Vec::with_capacity(xs.len());
            for (p, q) in xs.iter().zip(&ys) {
                out.push(zip_leaves(p, q, f)?);
            }
            from_flat_elems(a.shape.clone(), out)
        }
        (Value::Sum(a), Value::Sum(b)) if a.payload.len() == b.payload.len() => {
            let mut payload = Vec::with_capacity(a.payload.len());
            for (p, q) in a.payload.iter().zip(&b.payload) {
                payload.push(zip_leaves(p, q, f)?);
            }
            Ok(Value::Sum(Rc::new(SumValue {
                ctor: a.ctor.clone(),
                payload,
            })))
        }
        _ => f(x, y),
    }
}

/// Maps the leaves of a value.
fn map_leaves(x: &Value, f: &mut dyn FnMut(&Value) -> Result<Value>) -> Result<Value> {
    zip_leaves(x, x, &mut |a, _| f(a))
}

fn is_numeric_leaf(v: &Value) -> bool {
    match v {
        Value::Prim(p) => p.ty() != futhark_values::PrimType::Bool,
        Value::Dual(_) => true,
        _ => false,
    }
}

/// Attaches tangents to the numeric leaves of `x`.
fn attach(x: &Value, dx: &Value, tag: u32) -> Result<Value> {
    zip_leaves(x, dx, &mut |a, t| {
        Ok(if is_numeric_leaf(a) {
            mk(tag, a.clone(), t.clone())
        } else {
            a.clone()
        })
    })
}

/// Splits a result into its primal and its tangent for differentiation `tag`.
fn detach(y: &Value, tag: u32) -> Result<(Value, Value)> {
    let p = map_leaves(y, &mut |v| Ok(split(v, tag).0))?;
    let t = map_leaves(y, &mut |v| {
        Ok(match v {
            Value::Prim(Prim::Bool(_)) => Value::bool(false),
            v if is_numeric_leaf(v) => split(v, tag).1,
            v => v.clone(),
        })
    })?;
    Ok((p, t))
}

/// `jvp2 f x dx`: `(f x, J·dx)`.
pub fn jvp2(m: &mut Machine, f: &Value, x: &Value, dx: &Value, span: Span) -> Result<Value> {
    let tag = m.next_ad_tag();
    let xd = attach(x, dx, tag)?;
    let y = m.apply(f.clone(), vec![xd], span)?;
    let (p, t) = detach(&y, tag)?;
    Ok(Value::tuple(vec![p, t]))
}

/// `vjp2 f x dy`: `(f x, dyᵀ·J)`, one forward pass per numeric leaf of `x`.
pub fn vjp2(m: &mut Machine, f: &Value, x: &Value, dy: &Value, span: Span) -> Result<Value> {
    let mut count = 0usize;
    map_leaves(x, &mut |v| {
        if is_numeric_leaf(v) {
            count += 1;
        }
        Ok(v.clone())
    })?;
    if count == 0 {
        let y = m.apply(f.clone(), vec![x.clone()], span)?;
        let adj = map_leaves(x, &mut |v| Ok(v.clone()))?;
        return Ok(Value::tuple(vec![y, adj]));
    }
    let mut grads = Vec::with_capacity(count);
    let mut primal = None;
    for k in 0..count {
        let mut i = 0usize;
        let onehot = map_leaves(x, &mut |v| {
            Ok(if is_numeric_leaf(v) {
                let r = konst(v, if i == k { 1.0 } else { 0.0 });
                i += 1;
                r
            } else {
                v.clone()
            })
        })?;
        let r = jvp2(m, f, x, &onehot, span)?;
        let parts = r.tuple_elems();
        let (y, jt) = (parts[0].clone(), parts[1].clone());
        let mut acc: Option<Value> = None;
        zip_leaves(dy, &jt, &mut |c, t| {
            if is_numeric_leaf(c) && is_numeric_leaf(t) {
                let prod = ov(OvOp::Mul, c, t)?;
                acc = Some(match acc.take() {
                    None => prod,
                    Some(a) => ov(OvOp::Add, &a, &prod)?,
                });
            }
            Ok(c.clone())
        })?;
        grads.push(acc);
        primal.get_or_insert(y);
    }
    let mut it = grads.into_iter();
    let adj = map_leaves(x, &mut |v| {
        Ok(if is_numeric_leaf(v) {
            match it.next().flatten() {
                // The adjoint has the type of the input leaf.
                Some(g) => match (base(&g), base(v)) {
                    (Some(gp), Some(vp)) if gp.ty() != vp.ty() && matches!(g, Value::Prim(_)) => {
                        Value::Prim(gp.convert(vp.ty()))
                    }
                    _ => g,
                },
                None => zero(v),
            }
        } else if matches!(v, Value::Prim(Prim::Bool(_))) {
            Value::bool(false)
        } else {
            v.clone()
        })
    })?;
    Ok(Value::tuple(vec![primal.unwrap_or_else(Value::unit), adj]))
}

fn rows(v: &Value) -> Result<Vec<Value>> {
    match v {
        Value::Array(a) => Ok((0..a.len()).map(|i| crate::array::row(a, i)).collect()),
        _ => Err(RuntimeError::new("expected an array of tangents")),
    }
}

/// `jmp2 f x dxs`: `jvp2` for each tangent.
pub fn jmp2(m: &mut Machine, f: &Value, x: &Value, dxs: &Value, span: Span) -> Result<Value> {
    let mut outs = Vec::new();
    let mut primal = None;
    for dx in rows(dxs)? {
        let r = jvp2(m, f, x, &dx, span)?.tuple_elems();
        primal.get_or_insert(r[0].clone());
        outs.push(r[1].clone());
    }
    let y = match primal {
        Some(y) => y,
        None => m.apply(f.clone(), vec![x.clone()], span)?,
    };
    Ok(Value::tuple(vec![y, crate::array::stack(outs, None)?]))
}

/// `mjp2 f x dys`: `vjp2` for each cotangent.
pub fn mjp2(m: &mut Machine, f: &Value, x: &Value, dys: &Value, span: Span) -> Result<Value> {
    let mut outs = Vec::new();
    let mut primal = None;
    for dy in rows(dys)? {
        let r = vjp2(m, f, x, &dy, span)?.tuple_elems();
        primal.get_or_insert(r[0].clone());
        outs.push(r[1].clone());
    }
    let y = match primal {
        Some(y) => y,
        None => m.apply(f.clone(), vec![x.clone()], span)?,
    };
    Ok(Value::tuple(vec![y, crate::array::stack(outs, None)?]))
}
