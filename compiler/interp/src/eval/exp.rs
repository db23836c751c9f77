//! Evaluation of expressions.

use std::rc::Rc;

use futhark_syntax::Span;
use futhark_syntax::ast::RangeKind;

use super::{Frame, Machine, bind_pat, match_shape, prim_result, unit};
use crate::array::{self, DimIdx};
use crate::errors::{Result, RuntimeError};
use crate::ir::{Capture, Exp, FlexLit, IdxExp, Loop, LoopForm, UpdStep};
use crate::prim::Prim;
use crate::prim_ops::{self, OvOp};
use crate::value::{Array, Fun, Record, SumValue, Value, buf_push};

pub fn eval(m: &mut Machine, e: &Exp, f: &mut Frame<'_>) -> Result<Value> {
    match e {
        Exp::Const(v) => Ok(v.clone()),
        Exp::FlexLit(l) => Ok(Value::Prim(l.at(None))),
        Exp::Local(s) => Ok(f.slots[*s as usize].clone()),
        Exp::LocalMove(s) => Ok(std::mem::replace(&mut f.slots[*s as usize], unit())),
        Exp::Captured(s) => Ok(f.env[*s as usize].clone()),
        Exp::SelfRef => match f.this {
            Some(fun) => Ok(Value::Fun(fun.clone())),
            None => Err(RuntimeError::new("recursive reference outside a function")),
        },
        Exp::Tuple(es) => {
            let mut vals = Vec::with_capacity(es.len());
            for e in es {
                vals.push(eval(m, e, f)?);
            }
            Ok(Value::tuple(vals))
        }
        Exp::Record { exps, names, order } => {
            let mut vals = Vec::with_capacity(exps.len());
            for e in exps {
                vals.push(Some(eval(m, e, f)?));
            }
            let values = order
                .iter()
                .map(|&i| vals[i].take().unwrap_or_else(unit))
                .collect();
            Ok(Value::Record(Rc::new(Record {
                names: names.clone(),
                values,
            })))
        }
        Exp::ArrayLit {
            elems,
            row_type,
            span,
        } => {
            let mut rows = Vec::with_capacity(elems.len());
            for e in elems {
                rows.push(eval(m, e, f)?);
            }
            array::stack(rows, row_type.as_ref()).map_err(|e| e.with_span(*span))
        }
        Exp::Constr(name, es) => {
            let mut payload = Vec::with_capacity(es.len());
            for e in es {
                payload.push(eval(m, e, f)?);
            }
            Ok(Value::Sum(Rc::new(SumValue {
                ctor: name.clone(),
                payload,
            })))
        }
        Exp::Project(e, name, span) => {
            let v = eval(m, e, f)?;
            project(v, name, *span)
        }
        Exp::Index(e, idx, span) => {
            let v = eval(m, e, f)?;
            let idx = eval_idx(m, idx, f)?;
            match v {
                Value::Array(a) => array::index(&a, &idx).map_err(|e| e.with_span(*span)),
                _ => Err(RuntimeError::at(*span, "Cannot index a non-array value.")),
            }
        }
        Exp::Apply(fe, args, span) => {
            let fv = eval(m, fe, f)?;
            let mut vals = Vec::with_capacity(args.len());
            for a in args {
                vals.push(eval(m, a, f)?);
            }
            m.apply(fv, vals, *span)
        }
        Exp::PrimCall(pf, args, span) => {
            let mut prims = [Prim::Bool(false); 3];
            let mut typed = None;
            for (i, a) in args.iter().enumerate().take(3) {
                if matches!(a, Exp::FlexLit(_)) {
                    continue;
                }
                match eval(m, a, f)? {
                    Value::Prim(p) => {
                        prims[i] = p;
                        typed = typed.or(Some(p.ty()));
                    }
                    d @ Value::Dual(_) => {
                        return prim_call_dual(m, *pf, args, &prims[..i], d, f)
                            .map_err(|e| e.with_span(*span));
                    }
                    _ => {
                        return Err(RuntimeError::at(
                            *span,
                            "primitive operation applied to a non-primitive value",
                        ));
                    }
                }
            }
            // Untyped literals take the type of the first typed argument.
            for (i, a) in args.iter().enumerate().take(3) {
                if let Exp::FlexLit(l) = a {
                    prims[i] = l.at(typed);
                }
            }
            prim_result(pf.apply(&prims[..args.len().min(3)]), *span)
        }
        Exp::BinOp(op, a, b, span) => {
            // An untyped literal takes the type of the other operand.
            if let Exp::FlexLit(l) = &**a {
                let y = eval(m, b, f)?;
                let x = Value::Prim(l.at(y.as_prim().map(|p| p.ty())));
                return binop(*op, &x, &y, *span);
            }
            let x = eval(m, a, f)?;
            let y = match &**b {
                Exp::FlexLit(l) => Value::Prim(l.at(x.as_prim().map(|p| p.ty()))),
                b => eval(m, b, f)?,
            };
            binop(*op, &x, &y, *span)
        }
        Exp::And(a, b) => {
            if truth(eval(m, a, f)?)? {
                Ok(Value::bool(truth(eval(m, b, f)?)?))
            } else {
                Ok(Value::bool(false))
            }
        }
        Exp::Or(a, b) => {
            if truth(eval(m, a, f)?)? {
                Ok(Value::bool(true))
            } else {
                Ok(Value::bool(truth(eval(m, b, f)?)?))
            }
        }
        Exp::Neg(e, span) => match eval(m, e, f)? {
            Value::Prim(p) => prim_result(prim_ops::negate(p), *span),
            d @ Value::Dual(_) => crate::ad::prim_fn(crate::prim_fns::PrimFn::Neg, &[d]),
            _ => Err(RuntimeError::at(
                *span,
                "Cannot negate a non-primitive value.",
            )),
        },
        Exp::Not(e, span) => match eval(m, e, f)? {
            Value::Prim(p) => prim_result(prim_ops::not(p), *span),
            _ => Err(RuntimeError::at(
                *span,
                "Cannot apply ! to a non-primitive value.",
            )),
        },
        Exp::If(c, t, e) => {
            if truth(eval(m, c, f)?)? {
                eval(m, t, f)
            } else {
                eval(m, e, f)
            }
        }
        Exp::Let(p, v, body) => {
            let v = eval(m, v, f)?;
            if !bind_pat(m, p, v, f)? {
                return Err(RuntimeError::new("Pattern match failure in let-binding."));
            }
            eval(m, body, f)
        }
        Exp::Lambda(lam) => {
            let env: Rc<[Value]> = lam
                .captures
                .iter()
                .map(|c| match c {
                    Capture::Local(s) => f.slots[*s as usize].clone(),
                    Capture::Captured(s) => f.env[*s as usize].clone(),
                    Capture::SelfRef => f.this.map(|t| Value::Fun(t.clone())).unwrap_or_else(unit),
                })
                .collect();
            Ok(Value::Fun(Rc::new(Fun::Closure {
                lam: lam.clone(),
                env,
            })))
        }
        Exp::Loop(l) => eval_loop(m, l, f),
        Exp::Match(e, cases, span) => {
            let v = eval(m, e, f)?;
            for (p, body) in cases {
                if bind_pat(m, p, v.clone(), f)? {
                    return eval(m, body, f);
                }
            }
            Err(RuntimeError::at(
                *span,
                "Unmatched case in match expression.",
            ))
        }
        Exp::Update {
            target,
            path,
            value,
            span,
        } => {
            // The value and indices first, so that the target's last use is the move.
            let v = eval(m, value, f)?;
            let mut steps = Vec::with_capacity(path.len());
            for s in path {
                steps.push(match s {
                    UpdStep::Index(idx, _) => Step::Index(eval_idx(m, idx, f)?),
                    UpdStep::Field(n) => Step::Field(n.clone()),
                });
            }
            let t = eval(m, target, f)?;
            update_path(t, &steps, v).map_err(|e| e.with_span(*span))
        }
        Exp::Range {
            start,
            second,
            end,
            kind,
            span,
        } => {
            let s = eval(m, start, f)?;
            let ty = s.as_prim().map(|p| p.ty());
            let typed = |m: &mut Machine, e: &Exp, f: &mut Frame<'_>| -> Result<Value> {
                match e {
                    Exp::FlexLit(l) => Ok(Value::Prim(l.at(ty))),
                    e => eval(m, e, f),
                }
            };
            let sec = match second {
                Some(e) => Some(typed(m, e, f)?),
                None => None,
            };
            let en = typed(m, end, f)?;
            range(&s, sec.as_ref(), &en, *kind).map_err(|e| e.with_span(*span))
        }
        Exp::Coerce(e, shape, span) => {
            let v = eval(m, e, f)?;
            coerce(m, shape, &v, f).map_err(|e| e.with_span(*span))?;
            Ok(v)
        }
        Exp::Assert {
            cond,
            body,
            text,
            span,
        } => {
            if truth(eval(m, cond, f)?)? {
                eval(m, body, f)
            } else {
                Err(RuntimeError::at(
                    *span,
                    format!("Assertion is false: {text}"),
                ))
            }
        }
        Exp::SizeArgs(fe, sizes) => {
            let fv = eval(m, fe, f)?;
            let Value::Fun(fun) = fv else {
                return Ok(fv);
            };
            let mut vals = Vec::with_capacity(sizes.len());
            for (s, e) in sizes {
                // A size that cannot be computed here is left for the arguments to bind.
                if let Ok(v) = eval(m, e, f) {
                    vals.push((*s, v));
                }
            }
            Ok(Value::Fun(Rc::new(Fun::Sized { fun, sizes: vals })))
        }
        Exp::EmptyRows(x, dims, elem) => {
            let v = eval(m, x, f)?;
            let Value::Array(a) = &v else {
                return Ok(v);
            };
            if a.shape.first() != Some(&0) {
                return Ok(v);
            }
            let mut shape = vec![0];
            for d in dims {
                match eval(m, d, f)?.as_i64() {
                    Some(k) if k >= 0 => shape.push(k),
                    _ => return Ok(v),
                }
            }
            if a.shape == shape {
                return Ok(v);
            }
            Ok(crate::array::blank(&crate::value::TypeDesc::Array(
                shape,
                Box::new(crate::value::TypeDesc::Prim(*elem)),
            )))
        }
        Exp::Hole(span) => Err(RuntimeError::at(
            *span,
            format!("Reached a hole at {}.", (m.describe)(*span)),
        )),
        Exp::Trace(e, tag, span) => {
            let v = eval(m, e, f)?;
            let loc = (m.describe)(*span);
            let text = match tag {
                Some(t) => format!("Trace at {loc} ({t}): {}", crate::show::show(&v)),
                None => format!("Trace at {loc}: {}", crate::show::show(&v)),
            };
            m.emit_trace(&text);
            Ok(v)
        }
    }
}

/// A primitive call where argument `at` turned out to be dual: evaluates the remaining
/// arguments and applies the derivative rules.
fn prim_call_dual(
    m: &mut Machine,
    pf: crate::prim_fns::PrimFn,
    args: &[Exp],
    before: &[Prim],
    first: Value,
    f: &mut Frame<'_>,
) -> Result<Value> {
    let ty = crate::ad::base(&first).map(|p| p.ty());
    let at = before.len();
    let mut vals = Vec::with_capacity(args.len());
    for (i, a) in args.iter().enumerate() {
        vals.push(match a {
            Exp::FlexLit(l) => Value::Prim(l.at(ty)),
            _ if i < at => Value::Prim(before[i]),
            _ if i == at => first.clone(),
            a => eval(m, a, f)?,
        });
    }
    crate::ad::prim_fn(pf, &vals)
}

/// Checks `v :> t`, with the reference interpreter's message on failure.
fn coerce(
    m: &mut Machine,
    shape: &crate::ir::ShapePat,
    v: &Value,
    f: &mut Frame<'_>,
) -> Result<()> {
    use crate::ir::{DimPat, ShapePat};
    let (ShapePat::Array(dims, elem), Value::Array(a)) = (shape, v) else {
        return match_shape(m, shape, v, f, 0, true);
    };
    if !matches!(**elem, ShapePat::Any) {
        return match_shape(m, shape, v, f, 0, true);
    }
    let mut expected = Vec::with_capacity(dims.len());
    for d in dims {
        expected.push(match d {
            DimPat::Any | DimPat::Bind(_) => None,
            DimPat::Same(s) => f.slots[*s as usize].as_i64(),
            DimPat::Check(e) => eval(m, e, f)?.as_i64(),
        });
    }
    let actual = &a.shape;
    let ok = expected
        .iter()
        .enumerate()
        .all(|(i, e)| e.is_none_or(|e| actual.get(i) == Some(&e)));
    if ok {
        return match_shape(m, shape, v, f, 0, true);
    }
    let dims_text: String = expected
        .iter()
        .enumerate()
        .map(|(i, e)| match e {
            Some(k) => format!("[{k}]"),
            None => format!("[{}]", actual.get(i).copied().unwrap_or(0)),
        })
        .collect();
    let elem_name = match &a.data {
        crate::value::ArrayData::Prim { buf, .. } => buf.elem_type().name().to_string(),
        _ => "t".to_string(),
    };
    let rest: String = actual[dims.len().min(actual.len())..]
        .iter()
        .map(|d| format!("[{d}]"))
        .collect();
    let shape_text: Vec<String> = actual.iter().map(|d| d.to_string()).collect();
    Err(RuntimeError::new(format!(
        "Value of (core language) shape ({}) cannot match shape of type \"{dims_text}{rest}{elem_name}\".",
        shape_text.join(", ")
    )))
}

fn truth(v: Value) -> Result<bool> {
    v.as_bool()
        .ok_or_else(|| RuntimeError::new("Condition is not a boolean."))
}

/// Field projection.
pub fn project(v: Value, name: &str, span: Span) -> Result<Value> {
    match v {
        Value::Record(r) => match r.names.iter().position(|n| &**n == name) {
            Some(i) => Ok(match Rc::try_unwrap(r) {
                Ok(mut rec) => rec.values.swap_remove(i),
                Err(r) => r.values[i].clone(),
            }),
            None => Err(RuntimeError::at(
                span,
                format!("Record has no field {name}."),
            )),
        },
        _ => Err(RuntimeError::at(
            span,
            format!("Cannot project field {name} of a non-record."),
        )),
    }
}

/// Evaluates index expressions to `i64` indices.
pub fn eval_idx(m: &mut Machine, idx: &[IdxExp], f: &mut Frame<'_>) -> Result<Vec<DimIdx>> {
    let mut out = Vec::with_capacity(idx.len());
    let int = |m: &mut Machine, e: &Exp, f: &mut Frame<'_>| -> Result<i64> {
        match e {
            Exp::FlexLit(FlexLit::Int(v)) => Ok(*v as i64),
            e => eval(m, e, f)?
                .as_i64()
                .ok_or_else(|| RuntimeError::new("Index is not an integer.")),
        }
    };
    for i in idx {
        out.push(match i {
            IdxExp::Fix(e) => DimIdx::Fix(int(m, e, f)?),
            IdxExp::Slice(a, b, c) => {
                let opt =
                    |e: &Option<Exp>, m: &mut Machine, f: &mut Frame<'_>| -> Result<Option<i64>> {
                        match e {
                            Some(e) => Ok(Some(int(m, e, f)?)),
                            None => Ok(None),
                        }
                    };
                let start = opt(a, m, f)?;
                let end = opt(b, m, f)?;
                let stride = opt(c, m, f)?;
                DimIdx::Slice { start, end, stride }
            }
        });
    }
    Ok(out)
}

/// Applies an overloaded binary operator to two values.
pub fn binop(op: OvOp, x: &Value, y: &Value, span: Span) -> Result<Value> {
    match (x, y) {
        (Value::Dual(_), Value::Prim(_) | Value::Dual(_)) | (Value::Prim(_), Value::Dual(_)) => {
            crate::ad::ov(op, x, y).map_err(|e| e.with_span(span))
        }
        (Value::Prim(a), Value::Prim(b)) => {
            // Mixed types arise only from literals the checker did not type; convert the
            // right operand rather than fail.
            let b = if a.ty() != b.ty() {
                b.convert(a.ty())
            } else {
                *b
            };
            prim_result(prim_ops::overloaded(op, *a, b), span)
        }
        _ => match op {
            OvOp::Eq => Ok(Value::bool(array::equal(x, y))),
            OvOp::Neq => Ok(Value::bool(!array::equal(x, y))),
            _ => Err(RuntimeError::at(
                span,
                format!("Operator {} applied to non-primitive values.", op.name()),
            )),
        },
    }
}

enum Step {
    Index(Vec<DimIdx>),
    Field(crate::value::Name),
}

/// `base with steps = v`.
fn update_path(base: Value, steps: &[Step], v: Value) -> Result<Value> {
    let Some((first, rest)) = steps.split_first() else {
        return Ok(v);
    };
    match (first, base) {
        (Step::Field(name), Value::Record(mut r)) => {
            let i = r
                .names
                .iter()
                .position(|n| n == name)
                .ok_or_else(|| RuntimeError::new(format!("Record has no field {name}.")))?;
            let rec = Rc::make_mut(&mut r);
            let old = std::mem::replace(&mut rec.values[i], unit());
            rec.values[i] = update_path(old, rest, v)?;
            Ok(Value::Record(r))
        }
        (Step::Index(idx), Value::Array(a)) => {
            if rest.is_empty() {
                return Ok(Value::Array(array::update(a, idx, &v)?));
            }
            let inner = array::index(&a, idx)?;
            let inner = update_path(inner, rest, v)?;
            Ok(Value::Array(array::update(a, idx, &inner)?))
        }
        _ => Err(RuntimeError::new("Invalid update of a value.")),
    }
}

fn eval_loop(m: &mut Machine, l: &Loop, f: &mut Frame<'_>) -> Result<Value> {
    let mut acc = eval(m, &l.init, f)?;
    let bind = |m: &mut Machine, acc: Value, f: &mut Frame<'_>| -> Result<()> {
        if bind_pat(m, &l.pat, acc, f)? {
            Ok(())
        } else {
            Err(RuntimeError::at(
                l.span,
                "Loop parameter pattern does not match.",
            ))
        }
    };
    match &l.form {
        LoopForm::For(slot, bound) => {
            let n = eval(m, bound, f)?;
            let Value::Prim(np) = n else {
                return Err(RuntimeError::at(l.span, "Loop bound is not an integer."));
            };
            let count = np.as_i128().unwrap_or(0);
            let ty = np.ty();
            let mut i: i128 = 0;
            while i < count {
                m.tick()?;
                bind(m, acc, f)?;
                f.slots[*slot as usize] = Value::Prim(Prim::int_from_bits(ty, i as u64));
                acc = eval(m, &l.body, f)?;
                i += 1;
            }
            Ok(acc)
        }
        LoopForm::ForIn(xpat, arr) => {
            let xs = eval(m, arr, f)?;
            let Value::Array(xs) = xs else {
                return Err(RuntimeError::at(l.span, "for-in loop over a non-array."));
            };
            for i in 0..xs.len() {
                m.tick()?;
                bind(m, acc, f)?;
                let x = array::row(&xs, i);
                bind_pat(m, xpat, x, f)?;
                acc = eval(m, &l.body, f)?;
            }
            Ok(acc)
        }
        LoopForm::While(cond) => loop {
            m.tick()?;
            bind(m, acc.clone(), f)?;
            if !truth(eval(m, cond, f)?)? {
                return Ok(acc);
            }
            // Rebind so the body holds the only reference to the loop values.
            drop(acc);
            acc = eval(m, &l.body, f)?;
        },
    }
}

/// Ranges `a..<b` of `i64` with `0 <= a <= b` up to this bound are views of one shared
/// buffer holding `0, 1, 2, …` (values are immutable; an in-place update of such an array
/// copies it, as the buffer is shared).
const SHARED_IOTA_MAX: i128 = 1 << 18;

thread_local! {
    static IOTA: std::cell::RefCell<Rc<futhark_values::Buffer>> =
        std::cell::RefCell::new(Rc::new(futhark_values::Buffer::I64(Vec::new())));
}

/// `a..<end` as a view of the shared buffer, when it fits.
fn shared_iota(a: i128, end: i128) -> Option<Value> {
    if a < 0 || end < a || end > SHARED_IOTA_MAX {
        return None;
    }
    IOTA.with(|cell| {
        let mut buf = cell.borrow_mut();
        if (buf.len() as i128) < end {
            let len = end.max(2 * buf.len() as i128).min(SHARED_IOTA_MAX) as i64;
            *buf = Rc::new(futhark_values::Buffer::I64((0..len).collect()));
        }
        Some(Value::Array(Rc::new(Array {
            shape: vec![(end - a) as i64],
            data: crate::value::ArrayData::Prim {
                buf: buf.clone(),
                offset: a as usize,
            },
        })))
    })
}

/// Whether `buf` is the shared buffer of [`shared_iota`] (element `k` of it is `k`).
pub fn is_shared_iota(buf: &Rc<futhark_values::Buffer>) -> bool {
    IOTA.with(|cell| Rc::ptr_eq(&cell.borrow(), buf))
}

/// `start [.. second] (...|..<|..>) end`.
pub fn range(start: &Value, second: Option<&Value>, end: &Value, kind: RangeKind) -> Result<Value> {
    let (Some(s), Some(e)) = (start.as_prim(), end.as_prim()) else {
        return Err(RuntimeError::new("Range bounds are not integers."));
    };
    let ty = s.ty();
    let get = |p: Prim| p.convert(ty).as_i128().unwrap_or(0);
    let (a, z) = (get(s), get(e));
    let b = second.and_then(Value::as_prim).map(get);
    let op = match kind {
        RangeKind::Inclusive => "...",
        RangeKind::UpToExclusive => "..<",
        RangeKind::DownToExclusive => "..>",
    };
    let invalid = || {
        let mid = b.map(|b| format!("..{b}")).unwrap_or_default();
        RuntimeError::new(format!("Range {a}{mid}{op}{z} is invalid."))
    };
    let step = match b {
        Some(b) => b - a,
        None => {
            if kind == RangeKind::DownToExclusive {
                -1
            } else {
                1
            }
        }
    };
    if step == 0 {
        return Err(invalid());
    }
    let ok = match kind {
        RangeKind::Inclusive => (step > 0 && a <= z) || (step < 0 && a >= z) || a == z,
        RangeKind::UpToExclusive => step > 0 && a <= z,
        RangeKind::DownToExclusive => step < 0 && a >= z,
    };
    if !ok {
        return Err(invalid());
    }
    // The common `a..<b` and `a..1..<b` over i64 (iota) as one typed loop.
    if ty == futhark_values::PrimType::I64 && step == 1 && z < i64::MAX as i128 {
        let end = if kind == RangeKind::Inclusive {
            z + 1
        } else {
            z
        };
        if let Some(v) = shared_iota(a, end) {
            return Ok(v);
        }
        let v: Vec<i64> = (a as i64..end as i64).collect();
        let n = v.len() as i64;
        return Ok(Value::Array(Rc::new(Array::from_buffer(
            vec![n],
            futhark_values::Buffer::I64(v),
        ))));
    }
    let mut buf = futhark_values::Buffer::new(ty);
    let mut x = a;
    loop {
        let inside = match kind {
            RangeKind::Inclusive => {
                if step > 0 {
                    x <= z
                } else {
                    x >= z
                }
            }
            RangeKind::UpToExclusive => x < z,
            RangeKind::DownToExclusive => x > z,
        };
        if !inside {
            break;
        }
        buf_push(&mut buf, Prim::int_from_bits(ty, x as u64));
        x += step;
    }
    let n = buf.len() as i64;
    Ok(Value::Array(Rc::new(Array::from_buffer(vec![n], buf))))
}
