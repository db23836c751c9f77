//! Helpers of vectorised evaluation: operands of kernels, gathering and merging lanes,
//! broadcasting uniform values, and the walks over expressions that find lane variables.

use std::rc::Rc;

use futhark_values::{Buffer, PrimType};

use super::{Fail, V, VFrame, VResult};
use crate::array::{self, row};
use crate::eval::Frame;
use crate::ir::{Capture, DimPat, Exp, IdxExp, LitPat, Pat, ShapePat, Slot};
use crate::kernels::Arg;
use crate::prim::Prim;
use crate::prim_ops;
use crate::value::{Array, ArrayData, Value};

/// Owned operand storage for `prim_call`.
pub(super) enum Holder {
    Scalar(Prim),
    Lanes(Rc<Buffer>, usize),
}

pub(super) fn with_args<R>(a: &V, b: &V, f: impl FnOnce(Arg<'_>, Arg<'_>) -> R) -> VResult<R> {
    type Operand = (Option<Prim>, Option<(Rc<Buffer>, usize)>);
    let arg = |v: &V| -> VResult<Operand> {
        match v {
            V::Uni(Value::Prim(p)) => Ok((Some(*p), None)),
            V::Lanes(x) => {
                let (buf, off, _) = prim_lanes(x)?;
                Ok((None, Some((buf.clone(), off))))
            }
            _ => Err(Fail::No),
        }
    };
    let (pa, la) = arg(a)?;
    let (pb, lb) = arg(b)?;
    let aa = match (&pa, &la) {
        (Some(p), _) => Arg::Scalar(*p),
        (_, Some((buf, off))) => Arg::Lanes(buf, *off),
        _ => return Err(Fail::No),
    };
    let bb = match (&pb, &lb) {
        (Some(p), _) => Arg::Scalar(*p),
        (_, Some((buf, off))) => Arg::Lanes(buf, *off),
        _ => return Err(Fail::No),
    };
    Ok(f(aa, bb))
}

/// The buffer of a one-dimensional primitive lanes value.
pub(super) fn prim_lanes(v: &Value) -> VResult<(&Rc<Buffer>, usize, usize)> {
    match v {
        Value::Array(a) if a.rank() == 1 => match &a.data {
            ArrayData::Prim { buf, offset } => Ok((buf, *offset, a.len())),
            // Boxed scalars (dual numbers) depend on the data, not the code.
            ArrayData::Boxed(_) => Err(Fail::Retry),
            _ => Err(Fail::No),
        },
        _ => Err(Fail::No),
    }
}

pub(super) fn prim_type_of(v: &V) -> Option<PrimType> {
    match v {
        V::Uni(Value::Prim(p)) => Some(p.ty()),
        V::Lanes(Value::Array(a)) if a.rank() == 1 => a.prim_type(),
        V::Seq(_) | V::Wrap(..) | V::Aff(_) => Some(PrimType::I64),
        _ => None,
    }
}

/// The lanes of a value at the given positions (of `n`).
pub(super) fn subset(v: &V, which: &[usize], n: usize) -> VResult<V> {
    Ok(match v {
        V::Uni(_) => v.clone(),
        V::Lanes(x) => V::Lanes(gather_rows(x, which).ok_or(Fail::No)?),
        // A subset of a sequence is no longer consecutive.
        V::Seq(_) | V::Wrap(..) | V::Aff(_) => match super::seq::plain(v.clone(), n) {
            V::Lanes(x) => V::Lanes(gather_rows(&x, which).ok_or(Fail::No)?),
            _ => return Err(Fail::No),
        },
        V::Fun(lf) => {
            let mut cenv = Vec::with_capacity(lf.cenv.len());
            for c in &lf.cenv {
                cenv.push(subset(c, which, n)?);
            }
            V::Fun(Rc::new(super::LaneFun {
                lam: lf.lam.clone(),
                env: lf.env.clone(),
                cenv,
            }))
        }
    })
}

/// Whether lane `k` counts under an optional mask.
fn counts(mask: Option<&[bool]>, k: usize) -> bool {
    mask.is_none_or(|m| m.get(k).copied().unwrap_or(true))
}

/// Extends flat cell positions by one more index dimension of size `dim`. Out-of-bounds
/// indices in lanes that do not count (see `VFrame::mask`) are clamped.
pub(super) fn add_index(
    cells: &mut [usize],
    v: &V,
    dim: i64,
    mask: Option<&[bool]>,
) -> VResult<()> {
    let check = |i: i64| {
        if i < 0 || i >= dim {
            Err(Fail::Retry)
        } else {
            Ok(i as usize)
        }
    };
    let dim_u = dim as usize;
    match v {
        V::Seq(_) | V::Wrap(..) | V::Aff(_) | V::Fun(_) => return Err(Fail::No),
        V::Uni(x) => {
            let i = check(x.as_i64().ok_or(Fail::Retry)?)?;
            for c in cells.iter_mut() {
                *c = *c * dim_u + i;
            }
        }
        V::Lanes(x) => {
            let (buf, off, k) = prim_lanes(x)?;
            if k != cells.len() {
                return Err(Fail::No);
            }
            macro_rules! go {
                ($v:expr) => {{
                    let idx = &$v[off..off + k];
                    // Check the bounds first so the update loop has no branches.
                    let out = |i: i64| i < 0 || i >= dim;
                    if idx.iter().any(|&i| out(i as i64)) {
                        let bad = idx
                            .iter()
                            .enumerate()
                            .any(|(l, &i)| out(i as i64) && counts(mask, l));
                        if bad || dim == 0 {
                            return Err(Fail::Retry);
                        }
                        for (c, &i) in cells.iter_mut().zip(idx) {
                            *c = *c * dim_u + (i as i64).clamp(0, dim - 1) as usize;
                        }
                    } else {
                        for (c, &i) in cells.iter_mut().zip(idx) {
                            *c = *c * dim_u + i as usize;
                        }
                    }
                }};
            }
            match &**buf {
                Buffer::I64(v) => go!(v),
                Buffer::I32(v) => go!(v),
                Buffer::I16(v) => go!(v),
                Buffer::I8(v) => go!(v),
                _ => return Err(Fail::No),
            }
        }
    }
    Ok(())
}

/// The field arrays of a record array.
pub(super) fn record_fields(v: &Value) -> Option<Vec<(crate::value::Name, Value)>> {
    match v {
        Value::Array(a) => match &a.data {
            ArrayData::Record { names, fields } => Some(
                names
                    .iter()
                    .cloned()
                    .zip(fields.iter().map(|f| Value::Array(f.clone())))
                    .collect(),
            ),
            _ => None,
        },
        _ => None,
    }
}

/// `n` copies of a value as lanes.
pub(super) fn broadcast(v: &Value, n: usize) -> Option<Value> {
    Some(match v {
        Value::Prim(p) => Value::Array(Rc::new(Array::from_buffer(
            vec![n as i64],
            crate::value::buf_fill(*p, n),
        ))),
        Value::Record(r) => {
            let mut fields = Vec::with_capacity(r.values.len());
            for x in &r.values {
                match broadcast(x, n)? {
                    Value::Array(a) => fields.push(a),
                    _ => return None,
                }
            }
            Value::Array(Rc::new(Array {
                shape: vec![n as i64],
                data: ArrayData::Record {
                    names: r.names.clone(),
                    fields,
                },
            }))
        }
        Value::Array(_) => {
            return array::stack(vec![v.clone(); n], None).ok();
        }
        _ => Value::Array(Rc::new(Array {
            shape: vec![n as i64],
            data: ArrayData::Boxed(Rc::new(vec![v.clone(); n])),
        })),
    })
}

/// The rows of a lanes value at the given positions.
pub(super) fn gather_rows(v: &Value, idx: &[usize]) -> Option<Value> {
    let Value::Array(a) = v else {
        return None;
    };
    let p = array::Plan {
        indexed: 1,
        slice_dims: vec![idx.len() as i64],
        cells: array::Cells::List(idx.to_vec()),
    };
    Some(array::apply_plan(a, &p))
}

/// Interleaves the lanes of two branches back into `n` lanes.
pub(super) fn merge(n: usize, yes: &[usize], t: &Value, no: &[usize], f: &Value) -> Option<Value> {
    let (Value::Array(ta), Value::Array(fa)) = (t, f) else {
        return None;
    };
    match (&ta.data, &fa.data) {
        (
            ArrayData::Prim {
                buf: tb,
                offset: to,
            },
            ArrayData::Prim {
                buf: fb,
                offset: fo,
            },
        ) if ta.rank() == 1 && fa.rank() == 1 && tb.elem_type() == fb.elem_type() => {
            macro_rules! scatter2 {
                ($($var:ident),*) => {
                    match (&**tb, &**fb) {
                        $((Buffer::$var(x), Buffer::$var(y)) => {
                            let mut out = vec![Default::default(); n];
                            for (j, &i) in yes.iter().enumerate() {
                                out[i] = x[to + j];
                            }
                            for (j, &i) in no.iter().enumerate() {
                                out[i] = y[fo + j];
                            }
                            Buffer::$var(out)
                        })*
                        _ => return None,
                    }
                };
            }
            let out = scatter2!(I8, I16, I32, I64, U8, U16, U32, U64, F16, F32, F64, Bool);
            Some(Value::Array(Rc::new(Array::from_buffer(
                vec![n as i64],
                out,
            ))))
        }
        (
            ArrayData::Prim {
                buf: tb,
                offset: to,
            },
            ArrayData::Prim {
                buf: fb,
                offset: fo,
            },
        ) if ta.shape[1..] == fa.shape[1..] && tb.elem_type() == fb.elem_type() => {
            let inner: usize = ta.shape[1..].iter().map(|&d| d as usize).product();
            let mut out = Buffer::zeros(tb.elem_type(), n * inner);
            for (j, &i) in yes.iter().enumerate() {
                crate::value::buf_copy(&mut out, i * inner, tb, to + j * inner, inner);
            }
            for (j, &i) in no.iter().enumerate() {
                crate::value::buf_copy(&mut out, i * inner, fb, fo + j * inner, inner);
            }
            let mut shape = ta.shape.clone();
            shape[0] = n as i64;
            Some(Value::Array(Rc::new(Array::from_buffer(shape, out))))
        }
        (ArrayData::Record { names, fields: tf }, ArrayData::Record { fields: ff, .. })
            if tf.len() == ff.len() =>
        {
            let mut fields = Vec::with_capacity(tf.len());
            for (x, y) in tf.iter().zip(ff) {
                match merge(
                    n,
                    yes,
                    &Value::Array(x.clone()),
                    no,
                    &Value::Array(y.clone()),
                )? {
                    Value::Array(m) => fields.push(m),
                    _ => return None,
                }
            }
            Some(Value::Array(Rc::new(Array {
                shape: vec![n as i64],
                data: ArrayData::Record {
                    names: names.clone(),
                    fields,
                },
            })))
        }
        _ => {
            let mut rows = vec![Value::unit(); n];
            for (j, &i) in yes.iter().enumerate() {
                rows[i] = row(ta, j);
            }
            for (j, &i) in no.iter().enumerate() {
                rows[i] = row(fa, j);
            }
            array::stack(rows, None).ok()
        }
    }
}

/// Whether evaluating `e` on any lane cannot fail (so it may run on lanes that a
/// condition would have excluded).
pub(super) fn is_safe(e: &Exp) -> bool {
    use prim_ops::OvOp as O;
    match e {
        Exp::Const(_) | Exp::FlexLit(_) | Exp::Local(_) | Exp::LocalMove(_) | Exp::Captured(_) => {
            true
        }
        Exp::BinOp(op, a, b, _) => {
            !matches!(op, O::Div | O::Mod | O::Quot | O::Rem | O::Pow) && is_safe(a) && is_safe(b)
        }
        Exp::And(a, b) | Exp::Or(a, b) => is_safe(a) && is_safe(b),
        Exp::Not(x, _) | Exp::Neg(x, _) | Exp::Project(x, _, _) => is_safe(x),
        Exp::Tuple(es) => es.iter().all(is_safe),
        Exp::If(c, t, f) => is_safe(c) && is_safe(t) && is_safe(f),
        _ => false,
    }
}

pub(super) fn shape_binds_nothing(shape: &ShapePat) -> bool {
    match shape {
        ShapePat::Any | crate::ir::ShapePat::Prim(_) => true,
        ShapePat::Array(dims, elem) => {
            dims.iter().all(|d| !matches!(d, DimPat::Bind(_))) && shape_binds_nothing(elem)
        }
        ShapePat::Record(fs) => fs.iter().all(|(_, s)| shape_binds_nothing(s)),
    }
}

/// Copies the size slots a uniform pattern bound into the vector frame.
pub(super) fn bind_sizes(shape: &ShapePat, tmp: &Frame<'_>, vf: &mut VFrame<'_>) {
    match shape {
        ShapePat::Any | crate::ir::ShapePat::Prim(_) => {}
        ShapePat::Array(dims, elem) => {
            for d in dims {
                if let DimPat::Bind(s) = d {
                    vf.slots[*s as usize] = Some(V::Uni(tmp.slots[*s as usize].clone()));
                }
            }
            bind_sizes(elem, tmp, vf);
        }
        ShapePat::Record(fs) => fs.iter().for_each(|(_, s)| bind_sizes(s, tmp, vf)),
    }
}

/// A variable an expression reads: a slot of its frame or a captured value.
#[derive(Clone, Copy)]
pub(super) enum Var {
    Local(Slot),
    Captured(Slot),
}

/// Calls `f` on every variable an expression reads (including lambda captures).
pub(super) fn walk_vars(e: &Exp, f: &mut dyn FnMut(Var)) {
    fn idx(is: &[IdxExp], f: &mut dyn FnMut(Var)) {
        for i in is {
            match i {
                IdxExp::Fix(x) => walk_vars(x, f),
                IdxExp::Slice(a, b, c) => [a, b, c]
                    .into_iter()
                    .flatten()
                    .for_each(|x| walk_vars(x, f)),
            }
        }
    }
    match e {
        Exp::Local(s) | Exp::LocalMove(s) => f(Var::Local(*s)),
        Exp::Captured(s) => f(Var::Captured(*s)),
        Exp::Lambda(lam) => {
            for c in &lam.captures {
                match c {
                    Capture::Local(s) => f(Var::Local(*s)),
                    Capture::Captured(s) => f(Var::Captured(*s)),
                    Capture::SelfRef => {}
                }
            }
        }
        Exp::Tuple(es) | Exp::Constr(_, es) | Exp::PrimCall(_, es, _) => {
            es.iter().for_each(|x| walk_vars(x, f))
        }
        Exp::Record { exps, .. } => exps.iter().for_each(|x| walk_vars(x, f)),
        Exp::ArrayLit { elems, .. } => elems.iter().for_each(|x| walk_vars(x, f)),
        Exp::Project(x, _, _) | Exp::Neg(x, _) | Exp::Not(x, _) | Exp::Trace(x, _, _) => {
            walk_vars(x, f)
        }
        Exp::Coerce(x, shape, _) => {
            walk_vars(x, f);
            shape_slots(shape, f);
        }
        Exp::Index(x, is, _) => {
            walk_vars(x, f);
            idx(is, f);
        }
        Exp::Apply(g, args, _) => {
            walk_vars(g, f);
            args.iter().for_each(|x| walk_vars(x, f));
        }
        Exp::BinOp(_, a, b, _) | Exp::And(a, b) | Exp::Or(a, b) => {
            walk_vars(a, f);
            walk_vars(b, f);
        }
        Exp::If(c, t, e2) => {
            walk_vars(c, f);
            walk_vars(t, f);
            walk_vars(e2, f);
        }
        Exp::Let(p, v, b) => {
            pat_slots(p, f);
            walk_vars(v, f);
            walk_vars(b, f);
        }
        Exp::Loop(l) => {
            walk_vars(&l.init, f);
            match &l.form {
                crate::ir::LoopForm::For(_, b)
                | crate::ir::LoopForm::ForIn(_, b)
                | crate::ir::LoopForm::While(b) => walk_vars(b, f),
            }
            walk_vars(&l.body, f);
        }
        Exp::Match(s, cases, _) => {
            walk_vars(s, f);
            cases.iter().for_each(|(_, b)| walk_vars(b, f));
        }
        Exp::Update {
            target,
            path,
            value,
            ..
        } => {
            walk_vars(target, f);
            for st in path {
                if let crate::ir::UpdStep::Index(is, _) = st {
                    idx(is, f);
                }
            }
            walk_vars(value, f);
        }
        Exp::Range {
            start, second, end, ..
        } => {
            walk_vars(start, f);
            if let Some(s) = second {
                walk_vars(s, f);
            }
            walk_vars(end, f);
        }
        Exp::Assert { cond, body, .. } => {
            walk_vars(cond, f);
            walk_vars(body, f);
        }
        Exp::SizeArgs(x, sizes) => {
            walk_vars(x, f);
            sizes.iter().for_each(|(_, e)| walk_vars(e, f));
        }
        Exp::EmptyRows(x, dims, _) => {
            walk_vars(x, f);
            dims.iter().for_each(|e| walk_vars(e, f));
        }
        _ => {}
    }
}

fn pat_slots(p: &Pat, f: &mut dyn FnMut(Var)) {
    match p {
        Pat::Sized(q, shape) => {
            pat_slots(q, f);
            shape_slots(shape, f);
        }
        Pat::Tuple(ps) | Pat::Constr(_, ps) => ps.iter().for_each(|q| pat_slots(q, f)),
        Pat::Record(fs) => fs.iter().for_each(|(_, q)| pat_slots(q, f)),
        Pat::Lit(LitPat::Known(_) | LitPat::Flex(_)) | Pat::Bind(_) | Pat::Wild => {}
    }
}

fn shape_slots(shape: &ShapePat, f: &mut dyn FnMut(Var)) {
    match shape {
        ShapePat::Any | crate::ir::ShapePat::Prim(_) => {}
        ShapePat::Array(dims, elem) => {
            for d in dims {
                match d {
                    DimPat::Same(s) => f(Var::Local(*s)),
                    DimPat::Check(e) => walk_vars(e, f),
                    _ => {}
                }
            }
            shape_slots(elem, f);
        }
        ShapePat::Record(fs) => fs.iter().for_each(|(_, s)| shape_slots(s, f)),
    }
}

/// `a[first..first + n]` of a one-dimensional primitive array as a view of the same buffer;
/// `None` when some of it is out of bounds in a lane that counts (or outside the buffer).
/// Lanes that do not count may read past the array's ends (their values are discarded)
/// while still inside the buffer; those lanes are a prefix (below 0) and a suffix (from the
/// length on).
pub(super) fn seq_view(a: &Array, first: i64, n: usize, mask: Option<&[bool]>) -> Option<Value> {
    let ArrayData::Prim { buf, offset } = &a.data else {
        return None;
    };
    if n == 0 {
        return None;
    }
    let len = a.len() as i64;
    let last = first.checked_add(n as i64 - 1)?;
    let inside = first >= 0 && last < len;
    let start = (*offset as i64).checked_add(first)?;
    let in_buffer = start >= 0 && start + n as i64 <= buf.len() as i64;
    let spare = || {
        let below = first.clamp(i64::MIN + 1, 0).unsigned_abs().min(n as u64) as usize;
        let from = len.saturating_sub(first).clamp(0, n as i64) as usize;
        (0..below).chain(from..n).all(|l| !counts(mask, l))
    };
    if inside || (mask.is_some() && in_buffer && len > 0 && spare()) {
        return Some(Value::Array(Rc::new(Array {
            shape: vec![n as i64],
            data: ArrayData::Prim {
                buf: buf.clone(),
                offset: start as usize,
            },
        })));
    }
    None
}

/// `a[ix]` for a one-dimensional primitive array and `i64` lane indices, as one typed loop;
/// `None` when the operands do not have that form. Indices that run consecutively give a
/// view of `a` (no copy); mostly consecutive ones are copied run by run. Out-of-bounds
/// indices of lanes that do not count under `mask` read a clamped index.
pub(super) fn gather_1d(a: &Array, ix: &Value, mask: Option<&[bool]>) -> Option<VResult<Value>> {
    let ArrayData::Prim { buf, offset } = &a.data else {
        return None;
    };
    let Value::Array(ia) = ix else {
        return None;
    };
    let (Buffer::I64(iv), ioff) = (match &ia.data {
        ArrayData::Prim { buf, offset } if ia.rank() == 1 => (&**buf, *offset),
        _ => return None,
    }) else {
        return None;
    };
    let idx = &iv[ioff..ioff + ia.len()];
    let len = a.len() as i64;
    let off = *offset;
    let n = idx.len();
    let out_of_bounds = |i: i64| i < 0 || i >= len;
    let first = idx.first().copied().unwrap_or(0);
    // Where the indices stop running consecutively (counted branch-free, so it vectorises).
    let breaks = idx
        .windows(2)
        .fold(0usize, |b, w| b + usize::from(w[1] != w[0].wrapping_add(1)));
    let consecutive = n > 0 && breaks == 0;
    if consecutive && let Some(v) = seq_view(a, first, n, mask) {
        return Some(Ok(v));
    }
    let clamped: Vec<i64>;
    let idx = if idx.iter().any(|&i| out_of_bounds(i)) {
        let bad = idx
            .iter()
            .enumerate()
            .any(|(l, &i)| out_of_bounds(i) && counts(mask, l));
        if bad || len == 0 {
            return Some(Err(Fail::Retry));
        }
        clamped = idx.iter().map(|&i| i.clamp(0, len - 1)).collect();
        &clamped[..]
    } else {
        idx
    };
    let out = if breaks * 16 < n {
        futhark_values::map_buffer!(&**buf, v => copy_runs(&v[off..], idx))
    } else {
        futhark_values::map_buffer!(&**buf, v => idx.iter().map(|&i| v[off + i as usize]).collect())
    };
    Some(Ok(Value::Array(Rc::new(Array::from_buffer(
        vec![n as i64],
        out,
    )))))
}

/// `idx.map(|i| v[i])` for in-bounds indices that mostly run consecutively: one slice copy
/// per run.
fn copy_runs<X: Copy>(v: &[X], idx: &[i64]) -> Vec<X> {
    let mut out = Vec::with_capacity(idx.len());
    let mut k = 0;
    while k < idx.len() {
        let start = idx[k] as usize;
        let mut e = k + 1;
        while e < idx.len() && idx[e] == idx[e - 1] + 1 {
            e += 1;
        }
        out.extend_from_slice(&v[start..start + (e - k)]);
        k = e;
    }
    out
}

/// Per lane, `t` where `c` holds and `f` elsewhere; `None` for shapes it does not handle.
pub(super) fn select(c: &[bool], t: &Value, f: &Value) -> Option<Value> {
    let (Value::Array(ta), Value::Array(fa)) = (t, f) else {
        return None;
    };
    let n = c.len();
    if ta.shape.first() != Some(&(n as i64)) || ta.shape != fa.shape {
        return None;
    }
    match (&ta.data, &fa.data) {
        (
            ArrayData::Prim {
                buf: tb,
                offset: to,
            },
            ArrayData::Prim {
                buf: fb,
                offset: fo,
            },
        ) => {
            let inner: usize = ta.shape[1..].iter().map(|&d| d as usize).product();
            macro_rules! sel {
                ($($var:ident),*) => {
                    match (&**tb, &**fb) {
                        $((Buffer::$var(x), Buffer::$var(y)) => {
                            let (x, y) = (&x[*to..*to + n * inner], &y[*fo..*fo + n * inner]);
                            if inner == 1 {
                                Buffer::$var(
                                    c.iter()
                                        .zip(x.iter().zip(y))
                                        .map(|(&b, (&p, &q))| if b { p } else { q })
                                        .collect(),
                                )
                            } else {
                                let mut out = Vec::with_capacity(n * inner);
                                for (k, &b) in c.iter().enumerate() {
                                    let src = if b { x } else { y };
                                    out.extend_from_slice(&src[k * inner..(k + 1) * inner]);
                                }
                                Buffer::$var(out)
                            }
                        })*
                        _ => return None,
                    }
                };
            }
            let out = sel!(I8, I16, I32, I64, U8, U16, U32, U64, F16, F32, F64, Bool);
            Some(Value::Array(Rc::new(Array::from_buffer(
                ta.shape.clone(),
                out,
            ))))
        }
        (ArrayData::Record { names, fields: tf }, ArrayData::Record { fields: ff, .. })
            if tf.len() == ff.len() =>
        {
            let mut fields = Vec::with_capacity(tf.len());
            for (x, y) in tf.iter().zip(ff) {
                match select(c, &Value::Array(x.clone()), &Value::Array(y.clone()))? {
                    Value::Array(m) => fields.push(m),
                    _ => return None,
                }
            }
            Some(Value::Array(Rc::new(Array {
                shape: ta.shape.clone(),
                data: ArrayData::Record {
                    names: names.clone(),
                    fields,
                },
            })))
        }
        _ => None,
    }
}

/// `v` as an array that owns its one-dimensional primitive buffer of `n` elements outright
/// (nothing else refers to either), so it may be written in place; otherwise `v` back.
fn unique_lanes(v: Value, n: usize) -> Result<Array, Value> {
    let Value::Array(rc) = v else {
        return Err(v);
    };
    if rc.rank() != 1 || rc.len() != n {
        return Err(Value::Array(rc));
    }
    let mut arr = match Rc::try_unwrap(rc) {
        Ok(arr) => arr,
        Err(rc) => return Err(Value::Array(rc)),
    };
    match &mut arr.data {
        ArrayData::Prim { buf, offset: 0 }
            if buf.len() == n && Rc::strong_count(buf) == 1 && Rc::weak_count(buf) == 0 =>
        {
            Ok(arr)
        }
        _ => Err(Value::Array(Rc::new(arr))),
    }
}

/// [`select`], written over the buffer of `t` or of `f` when nothing else refers to it (a
/// temporary of the branch), instead of into a new one.
pub(super) fn select_owned(c: &[bool], t: Value, f: Value) -> Option<Value> {
    let n = c.len();
    // `dst` keeps its lanes where `c` equals `keep`, and takes `src`'s elsewhere.
    let (mut dst, src, keep) = match unique_lanes(t, n) {
        Ok(dst) => (dst, f, true),
        Err(t) => match unique_lanes(f, n) {
            Ok(dst) => (dst, t, false),
            Err(f) => return select(c, &t, &f),
        },
    };
    let done = match (&mut dst.data, &src) {
        (ArrayData::Prim { buf, .. }, Value::Array(sa)) if sa.shape == [n as i64] => {
            match (Rc::get_mut(buf), &sa.data) {
                (
                    Some(d),
                    ArrayData::Prim {
                        buf: sb,
                        offset: so,
                    },
                ) => {
                    macro_rules! blend {
                        ($($var:ident),*) => {
                            match (d, &**sb) {
                                $((Buffer::$var(d), Buffer::$var(s)) => {
                                    let s = &s[*so..*so + n];
                                    for ((x, &y), &b) in d.iter_mut().zip(s).zip(c) {
                                        *x = if b == keep { *x } else { y };
                                    }
                                    true
                                })*
                                _ => false,
                            }
                        };
                    }
                    blend!(I8, I16, I32, I64, U8, U16, U32, U64, F16, F32, F64, Bool)
                }
                _ => false,
            }
        }
        _ => false,
    };
    let dst = Value::Array(Rc::new(dst));
    if done {
        Some(dst)
    } else if keep {
        select(c, &dst, &src)
    } else {
        select(c, &src, &dst)
    }
}

/// `a op b` written over `a`'s buffer when `a` is lanes that nothing else refers to and the
/// operation is float or wrapping integer arithmetic of `a`'s type; otherwise `a` back.
pub(super) fn update_in_place(op: prim_ops::MonoBin, a: V, b: &V, n: usize) -> Result<Value, V> {
    use prim_ops::{FloatBin as F, IntBin as I, MonoBin as M};
    let fits = matches!(
        op,
        M::Float(F::Add | F::Sub | F::Mul | F::Div) | M::Int(I::Add | I::Sub | I::Mul)
    );
    let V::Lanes(Value::Array(rc)) = a else {
        return Err(a);
    };
    let unique = fits
        && rc.rank() == 1
        && rc.len() == n
        && matches!(&rc.data, ArrayData::Prim { buf, offset: 0 }
            if buf.len() == n && Rc::strong_count(buf) == 1 && Rc::weak_count(buf) == 0)
        && Rc::strong_count(&rc) == 1
        && Rc::weak_count(&rc) == 0;
    let operand_ok = match b {
        V::Uni(Value::Prim(p)) => rc.prim_type() == Some(p.ty()),
        V::Lanes(v) => matches!(prim_lanes(v), Ok((bb, _, k)) if k == n
            && Some(bb.elem_type()) == rc.prim_type()),
        _ => false,
    };
    if !unique || !operand_ok {
        return Err(V::Lanes(Value::Array(rc)));
    }
    let mut arr = match Rc::try_unwrap(rc) {
        Ok(arr) => arr,
        Err(rc) => return Err(V::Lanes(Value::Array(rc))),
    };
    let ArrayData::Prim { buf, .. } = &mut arr.data else {
        return Err(V::Lanes(Value::Array(Rc::new(arr))));
    };
    let Some(dst) = Rc::get_mut(buf) else {
        return Err(V::Lanes(Value::Array(Rc::new(arr))));
    };
    // Each arm either updates the whole buffer (true) or touches nothing (false).
    macro_rules! go {
        ($d:expr, $var:ident, $f:expr) => {{
            let f = $f;
            match b {
                V::Uni(Value::Prim(Prim::$var(y))) => {
                    $d.iter_mut().for_each(|x| *x = f(*x, *y));
                    true
                }
                V::Lanes(Value::Array(ba)) => match &ba.data {
                    ArrayData::Prim { buf: bb, offset } => match &**bb {
                        Buffer::$var(ys) => {
                            $d.iter_mut()
                                .zip(&ys[*offset..*offset + n])
                                .for_each(|(x, y)| *x = f(*x, *y));
                            true
                        }
                        _ => false,
                    },
                    _ => false,
                },
                _ => false,
            }
        }};
    }
    macro_rules! float {
        ($d:expr, $var:ident, $o:expr) => {
            match $o {
                F::Add => go!($d, $var, |x, y| x + y),
                F::Sub => go!($d, $var, |x, y| x - y),
                F::Mul => go!($d, $var, |x, y| x * y),
                _ => go!($d, $var, |x, y| x / y),
            }
        };
    }
    macro_rules! int {
        ($d:expr, $var:ident, $t:ty, $o:expr) => {
            match $o {
                I::Add => go!($d, $var, |x: $t, y: $t| x.wrapping_add(y)),
                I::Sub => go!($d, $var, |x: $t, y: $t| x.wrapping_sub(y)),
                _ => go!($d, $var, |x: $t, y: $t| x.wrapping_mul(y)),
            }
        };
    }
    let done = match (op, dst) {
        (M::Float(o), Buffer::F32(d)) => float!(d, F32, o),
        (M::Float(o), Buffer::F64(d)) => float!(d, F64, o),
        (M::Int(o), Buffer::I32(d)) => int!(d, I32, i32, o),
        (M::Int(o), Buffer::I64(d)) => int!(d, I64, i64, o),
        _ => false,
    };
    let arr = Value::Array(Rc::new(arr));
    if done { Ok(arr) } else { Err(V::Lanes(arr)) }
}

/// `a[(start + k) % modulus]` for lanes `k < n` of a one-dimensional primitive array, as a
/// copy of whole runs (a rotation); `None` when some index would be out of bounds.
pub(super) fn wrapped_copy(a: &Array, start: i64, modulus: i64, n: usize) -> Option<Value> {
    let ArrayData::Prim { buf, offset } = &a.data else {
        return None;
    };
    if modulus <= 0 || modulus > a.len() as i64 || !(0..modulus).contains(&start) {
        return None;
    }
    let (m, off) = (modulus as usize, *offset);
    let out = futhark_values::map_buffer!(&**buf, v => {
        let src = &v[off..off + m];
        let mut out = Vec::with_capacity(n);
        let mut from = start as usize;
        while out.len() < n {
            let take = (m - from).min(n - out.len());
            out.extend_from_slice(&src[from..from + take]);
            from = 0;
        }
        out
    });
    Some(Value::Array(Rc::new(Array::from_buffer(
        vec![n as i64],
        out,
    ))))
}
