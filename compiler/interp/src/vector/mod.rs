//! Vectorised evaluation: a lambda body evaluated once over whole arrays.
//!
//! When `map f xs` runs, `f`'s parameter is bound to all of `xs` at once ("lanes"), and the
//! body is evaluated with element-wise semantics: arithmetic on lanes runs a native loop over
//! the buffers, a literal or a free variable is the same in every lane ("uniform"), indexing
//! a uniform array with lane indices gathers, tuples of lanes are record arrays, and calls of
//! known functions are evaluated the same way inside. A conditional whose condition differs
//! between lanes evaluates each branch on all lanes under a mask of the lanes that take it
//! (indexing checks bounds only in those) and selects per lane; when that fails in a lane
//! that does not count, it splits the lanes, evaluates each branch on its own lanes and
//! merges the results. Mapped `iota`s stay symbolic sequences, so `a[j - 1]` is a view and
//! `a[(j + r) % n]` two slice copies; maps nested over rows run in `nested`, and maps whose
//! function captures lane values (`map (\j -> a[i, j]) (iota m)` with `i` a lane) run
//! flattened over all elements of all lanes in `flat`. Anything else
//! (loops over lane values, other SOACs over lanes, recursion, sum types) makes the attempt
//! fail, and the caller falls back to applying the function per element: a structural
//! failure is remembered on the lambda so it is not retried, and a run-time error (an index
//! out of bounds in some lane, say) is reproduced exactly by the per-element evaluation.
//!
//! Sub-expressions that mention no lane variable are evaluated once by the ordinary
//! evaluator, so loops and SOACs over free variables inside a mapped function still work.
//!
//! Here: the evaluator of expressions over lanes; `branch` conditionals, `apply` calls and
//! operators, `index` indexing.

use std::rc::Rc;

use futhark_syntax::Span;

mod affine;
mod apply;
mod branch;
mod flat;
mod index;
mod lanes;
mod nested;
mod seq;

use lanes::{
    Var, bind_sizes, broadcast, is_safe, prim_lanes, prim_type_of, record_fields,
    shape_binds_nothing, walk_vars,
};
use seq::{as_seq, plain, seq_compare, seq_lanes, wrap_lanes};

use crate::array::{self, DimIdx, row};
use crate::errors::Result;
use crate::eval::exp::project;
use crate::eval::{Frame, Machine, unit};
use crate::ir::{Capture, Exp, Lambda, Pat};
use crate::kernels::{self, Arg};
use crate::prim::Prim;
use crate::prim_fns::PrimFn;
use crate::prim_ops::{self};
use crate::value::{Array, ArrayData, Builtin, Fun, Record, Value, buf_get, tuple_names};

/// A value during vectorised evaluation.
#[derive(Clone, Debug)]
enum V {
    /// The same value in every lane.
    Uni(Value),
    /// One value per lane: an array whose rows are the lanes.
    Lanes(Value),
    /// `i64` lanes counting up from the given start (a mapped `iota`, shifted): kept
    /// symbolic so that `a[j]`, `a[j - 1]` are views and `j + 1` costs nothing. Only slots
    /// and [`Cx::eval_seq`] hold it; [`Cx::eval`] turns it into `Lanes`.
    Seq(i64),
    /// `i64` lanes counting up from the start and wrapping to 0 at the modulus (`(j + r) % n`,
    /// with `0 <= start < modulus`), so that indexing with them copies two runs.
    Wrap(i64, i64),
    /// Index lanes of a flattened nested map (see `affine.rs`); like `Seq`, only slots and
    /// [`Cx::eval_seq`] hold it.
    Aff(affine::Aff),
    /// A function that captures lane values (`\j -> a[i, j]` with `i` a lane variable).
    Fun(Rc<LaneFun>),
}

/// A lambda closed over values of which some differ between lanes.
#[derive(Debug)]
struct LaneFun {
    lam: Rc<Lambda>,
    /// The captured values, with units where they are lanes (for the ordinary evaluator,
    /// which only sees expressions that read no lanes).
    env: Vec<Value>,
    /// The captured values.
    cenv: Vec<V>,
}

/// Why vectorised evaluation stopped.
enum Fail {
    /// The code cannot be vectorised (remembered on the lambda).
    No,
    /// A function called from the code could not be vectorised with these arguments; the
    /// caller may still succeed with other function arguments, so nothing is remembered.
    Callee,
    /// It failed at run time; the per-element fallback will reproduce or avoid the error.
    Retry,
}

type VResult<T> = std::result::Result<T, Fail>;

struct VFrame<'a> {
    slots: Vec<Option<V>>,
    env: &'a [Value],
    n: usize,
    /// The lanes whose results count, when a conditional evaluates its branches on all lanes
    /// (see [`Cx::speculate`]): indexing checks bounds only on these, the rest read clamped
    /// indices and their results are discarded. `None` when every lane counts.
    mask: Option<Rc<[bool]>>,
    /// The captured values when the function being evaluated captures lanes (`env` then
    /// holds units in their places).
    cenv: Option<&'a [V]>,
}

/// Maximum nesting of vectorised calls (recursion is not vectorised, but deep call chains
/// of small functions are fine).
const MAX_DEPTH: u32 = 64;

/// A closure's lambda, captured values, and the arguments already given to it.
type ClosureParts = (Rc<Lambda>, Rc<[Value]>, Vec<Value>);

/// The closure inside a function value plus the arguments already given to it.
fn closure_parts(f: &Value) -> Option<ClosureParts> {
    let Value::Fun(f) = f else {
        return None;
    };
    match &**f {
        Fun::Closure { lam, env } => Some((lam.clone(), env.clone(), Vec::new())),
        Fun::Partial { fun, args } => {
            let (lam, env, mut first) = closure_parts(&Value::Fun(fun.clone()))?;
            first.extend(args.iter().cloned());
            Some((lam, env, first))
        }
        Fun::Builtin(_) | Fun::Sized { .. } => None,
    }
}

/// Runs `f` over lanes given for its trailing parameters; `None` when not vectorisable.
fn run(m: &mut Machine, f: &Value, lanes: Vec<Value>, n: usize) -> Result<Option<Value>> {
    let Some((lam, env, first)) = closure_parts(f) else {
        return Ok(None);
    };
    if lam.no_vector.get() || first.len() + lanes.len() != lam.params.len() {
        return Ok(None);
    }
    let mut vf = VFrame {
        slots: vec![None; lam.nslots],
        env: &env,
        n,
        mask: None,
        cenv: None,
    };
    let mut cx = Cx { m, depth: 0 };
    let args = first.into_iter().map(V::Uni).chain(
        lanes
            .into_iter()
            .map(|x| as_seq(&x).map(V::Seq).unwrap_or(V::Lanes(x))),
    );
    let mut result = Ok(());
    for (p, a) in lam.params.iter().zip(args) {
        if let Err(e) = cx.bind(p, a, &mut vf) {
            result = Err(e);
            break;
        }
    }
    let out = result.and_then(|()| cx.eval(&lam.body, &mut vf));
    match out {
        // A result that has no lanes (a function) is left to the per-element path.
        Ok(v) => Ok(cx.lanes(v, n).ok()),
        Err(Fail::No) => {
            lam.no_vector.set(true);
            Ok(None)
        }
        Err(Fail::Retry | Fail::Callee) => Ok(None),
    }
}

/// `map f xs` by vectorised evaluation; `None` when not possible.
pub fn map(m: &mut Machine, f: &Value, xs: &Rc<Array>, _span: Span) -> Result<Option<Value>> {
    if let Value::Fun(fun) = f
        && let Fun::Builtin(Builtin::Prim(pf)) = &**fun
        && pf.arity() == 1
        && let Some((buf, off, n)) = xs.prim_slice()
        && xs.rank() == 1
    {
        return Ok(kernels::lanes_prim(*pf, &[Arg::Lanes(buf, off)], n)
            .ok()
            .map(|b| Value::Array(Rc::new(Array::from_buffer(vec![n as i64], b)))));
    }
    run(m, f, vec![Value::Array(xs.clone())], xs.len())
}

/// `reduce f ne xs` as a tree of vectorised applications of `f` to adjacent pairs, which
/// keeps the order of operands (the operator need only be associative).
pub fn reduce(m: &mut Machine, f: &Value, xs: &Rc<Array>, _span: Span) -> Result<Option<Value>> {
    let mut cur = xs.clone();
    while cur.len() > 1 {
        let len = cur.len() as i64;
        let h = len / 2;
        let pick = |start: i64| {
            array::index(
                &cur,
                &[DimIdx::Slice {
                    start: Some(start),
                    end: Some(2 * h),
                    stride: Some(2),
                }],
            )
        };
        let (left, right) = (pick(0)?, pick(1)?);
        let Some(res) = run(m, f, vec![left, right], h as usize)? else {
            return Ok(None);
        };
        let res = if len % 2 == 1 {
            let last = array::index(
                &cur,
                &[DimIdx::Slice {
                    start: Some(len - 1),
                    end: Some(len),
                    stride: None,
                }],
            )?;
            crate::array_ops::concat(&res, &last)?
        } else {
            res
        };
        match res {
            Value::Array(a) => cur = a,
            _ => return Ok(None),
        }
    }
    Ok(Some(row(&cur, 0)))
}

/// Inclusive `scan f ne xs` by Hillis and Steele's doubling, each step vectorised.
pub fn scan(m: &mut Machine, f: &Value, xs: &Rc<Array>, _span: Span) -> Result<Option<Value>> {
    let n = xs.len() as i64;
    let mut cur = Value::Array(xs.clone());
    let mut d = 1i64;
    while d < n {
        let Value::Array(c) = &cur else {
            return Ok(None);
        };
        let slice = |a: i64, b: i64| {
            array::index(
                c,
                &[DimIdx::Slice {
                    start: Some(a),
                    end: Some(b),
                    stride: None,
                }],
            )
        };
        let (left, right, keep) = (slice(0, n - d)?, slice(d, n)?, slice(0, d)?);
        let Some(res) = run(m, f, vec![left, right], (n - d) as usize)? else {
            return Ok(None);
        };
        cur = crate::array_ops::concat(&keep, &res)?;
        d *= 2;
    }
    Ok(Some(cur))
}

struct Cx<'m> {
    m: &'m mut Machine,
    depth: u32,
}

fn retry<T>(_: impl std::fmt::Debug) -> VResult<T> {
    Err(Fail::Retry)
}

impl Cx<'_> {
    /// The lanes of a value (broadcasting a uniform one).
    fn lanes(&mut self, v: V, n: usize) -> VResult<Value> {
        match v {
            V::Lanes(x) => Ok(x),
            V::Uni(x) => broadcast(&x, n).ok_or(Fail::No),
            V::Seq(start) => Ok(seq_lanes(start, n)),
            V::Wrap(start, modulus) => Ok(wrap_lanes(start, modulus, n)),
            V::Aff(f) => Ok(f.values(n)),
            V::Fun(_) => Err(Fail::No),
        }
    }

    /// A captured value.
    fn captured(&self, s: u32, vf: &VFrame<'_>) -> V {
        match vf.cenv {
            Some(c) => c[s as usize].clone(),
            None => V::Uni(vf.env[s as usize].clone()),
        }
    }

    fn bind(&mut self, p: &Pat, v: V, vf: &mut VFrame<'_>) -> VResult<()> {
        if let (Pat::Bind(s), v) = (p, &v) {
            vf.slots[*s as usize] = Some(v.clone());
            return Ok(());
        }
        match (p, plain(v, vf.n)) {
            (Pat::Wild, _) => Ok(()),
            (Pat::Sized(inner, shape), v) => {
                // Sizes of uniform values bind as usual; lanes all have the same shape (arrays
                // are regular), so theirs bind from the dimensions after the lane dimension.
                let (x, skip) = match &v {
                    V::Uni(x) => (x, 0),
                    V::Lanes(x) => (x, 1),
                    V::Seq(_) | V::Wrap(..) | V::Aff(_) | V::Fun(_) => {
                        return self.bind(inner, v, vf);
                    }
                };
                if skip == 0 || !shape_binds_nothing(shape) {
                    let mut tmp = Frame::new(vf.slots.len(), vf.env, None);
                    for (slot, s) in tmp.slots.iter_mut().zip(&vf.slots) {
                        if let Some(V::Uni(u)) = s {
                            *slot = u.clone();
                        }
                    }
                    crate::eval::match_shape(self.m, shape, x, &mut tmp, skip, false)
                        .or_else(retry)?;
                    bind_sizes(shape, &tmp, vf);
                }
                self.bind(inner, v, vf)
            }
            (Pat::Tuple(ps), V::Uni(x)) => {
                let parts = x.tuple_elems();
                if parts.len() != ps.len() {
                    return Err(Fail::Retry);
                }
                for (p, x) in ps.iter().zip(parts) {
                    self.bind(p, V::Uni(x), vf)?;
                }
                Ok(())
            }
            (Pat::Tuple(ps), V::Lanes(x)) => {
                let fields = record_fields(&x).ok_or(Fail::No)?;
                if fields.len() != ps.len() {
                    return Err(Fail::No);
                }
                for (p, (_, f)) in ps.iter().zip(fields) {
                    self.bind(p, V::Lanes(f), vf)?;
                }
                Ok(())
            }
            (Pat::Record(fs), V::Uni(x)) => {
                for (name, p) in fs {
                    let f = x.field(name).cloned().ok_or(Fail::Retry)?;
                    self.bind(p, V::Uni(f), vf)?;
                }
                Ok(())
            }
            (Pat::Record(fs), V::Lanes(x)) => {
                let fields = record_fields(&x).ok_or(Fail::No)?;
                for (name, p) in fs {
                    let f = fields
                        .iter()
                        .find(|(n, _)| n == name)
                        .map(|(_, f)| f.clone())
                        .ok_or(Fail::No)?;
                    self.bind(p, V::Lanes(f), vf)?;
                }
                Ok(())
            }
            _ => Err(Fail::No),
        }
    }

    /// Whether an expression reads any slot or captured value holding lanes.
    fn mentions_lanes(&self, e: &Exp, vf: &VFrame<'_>) -> bool {
        let mut found = false;
        let lanes = |v: Option<&V>| v.is_some_and(|v| !matches!(v, V::Uni(_)));
        walk_vars(e, &mut |v| match v {
            Var::Local(s) => found |= lanes(vf.slots.get(s as usize).and_then(|x| x.as_ref())),
            Var::Captured(s) => found |= lanes(vf.cenv.and_then(|c| c.get(s as usize))),
        });
        found
    }

    /// Evaluates a lane-free expression with the ordinary evaluator.
    fn scalar(&mut self, e: &Exp, vf: &VFrame<'_>) -> VResult<V> {
        let mut frame = Frame::new(vf.slots.len(), vf.env, None);
        for (i, s) in vf.slots.iter().enumerate() {
            if let Some(V::Uni(v)) = s {
                frame.slots[i] = v.clone();
            }
        }
        self.m.eval(e, &mut frame).map(V::Uni).or_else(retry)
    }

    fn eval(&mut self, e: &Exp, vf: &mut VFrame<'_>) -> VResult<V> {
        match e {
            Exp::Const(v) => Ok(V::Uni(v.clone())),
            Exp::FlexLit(l) => Ok(V::Uni(Value::Prim(l.at(None)))),
            Exp::Local(s) | Exp::LocalMove(s) => {
                let v = vf.slots[*s as usize].clone().ok_or(Fail::No)?;
                Ok(plain(v, vf.n))
            }
            Exp::Captured(s) => Ok(plain(self.captured(*s, vf), vf.n)),
            Exp::Tuple(es) => {
                let mut vals = Vec::with_capacity(es.len());
                for x in es {
                    vals.push(self.eval(x, vf)?);
                }
                let names = tuple_names(vals.len());
                self.record(names, vals, vf.n)
            }
            Exp::Record { exps, names, order } => {
                let mut vals = Vec::with_capacity(exps.len());
                for x in exps {
                    vals.push(Some(self.eval(x, vf)?));
                }
                let sorted = order
                    .iter()
                    .map(|&i| vals[i].take().unwrap_or(V::Uni(unit())))
                    .collect();
                self.record(names.clone(), sorted, vf.n)
            }
            Exp::Project(x, name, span) => match self.eval(x, vf)? {
                V::Uni(v) => project(v, name, *span).map(V::Uni).or_else(retry),
                V::Seq(_) | V::Wrap(..) | V::Aff(_) | V::Fun(_) => Err(Fail::No),
                V::Lanes(v) => {
                    let fields = record_fields(&v).ok_or(Fail::No)?;
                    fields
                        .into_iter()
                        .find(|(n, _)| n == name)
                        .map(|(_, f)| V::Lanes(f))
                        .ok_or(Fail::No)
                }
            },
            Exp::Index(a, idx, _) => self.index(a, idx, vf),
            Exp::Apply(fe, args, span) => {
                let f = self.eval(fe, vf)?;
                let mut vals = Vec::with_capacity(args.len());
                for a in args {
                    vals.push(self.eval(a, vf)?);
                }
                self.apply(f, vals, vf.n, &vf.mask, *span)
            }
            Exp::PrimCall(pf, args, _) => {
                let mut vals = Vec::with_capacity(args.len());
                let mut ty = None;
                for a in args {
                    if matches!(a, Exp::FlexLit(_)) {
                        vals.push(None);
                        continue;
                    }
                    let v = self.eval(a, vf)?;
                    ty = ty.or_else(|| prim_type_of(&v));
                    vals.push(Some(v));
                }
                let vals: Vec<V> = vals
                    .into_iter()
                    .zip(args)
                    .map(|(v, a)| match (v, a) {
                        (Some(v), _) => v,
                        (None, Exp::FlexLit(l)) => V::Uni(Value::Prim(l.at(ty))),
                        (None, _) => V::Uni(unit()),
                    })
                    .collect();
                self.prim_call(*pf, vals, vf.n)
            }
            Exp::BinOp(..) => {
                let v = self.eval_seq(e, vf)?;
                Ok(plain(v, vf.n))
            }
            Exp::And(a, b) | Exp::Or(a, b) => {
                let is_and = matches!(e, Exp::And(..));
                let c = self.eval(a, vf)?;
                if matches!(c, V::Lanes(_)) && is_safe(b) {
                    // Both sides over all lanes: cheaper than splitting the lanes.
                    let d = self.eval(b, vf)?;
                    let op = if is_and {
                        prim_ops::OvOp::LogAnd
                    } else {
                        prim_ops::OvOp::LogOr
                    };
                    return self.binop(op, c, d, vf.n, Span::default());
                }
                if is_and {
                    self.cond(c, b, &Exp::Const(Value::bool(false)), vf)
                } else {
                    self.cond(c, &Exp::Const(Value::bool(true)), b, vf)
                }
            }
            Exp::Neg(x, _) => {
                let v = self.eval(x, vf)?;
                self.prim_call(PrimFn::Neg, vec![v], vf.n)
            }
            Exp::Not(x, _) => match self.eval(x, vf)? {
                V::Uni(Value::Prim(p)) => prim_ops::not(p)
                    .map(|p| V::Uni(Value::Prim(p)))
                    .or_else(retry),
                V::Lanes(v) => {
                    let (buf, off, n) = prim_lanes(&v)?;
                    let out = kernels::generic_lanes(buf.elem_type(), n, |i| {
                        prim_ops::not(buf_get(buf, off + i))
                    })
                    .or_else(retry)?;
                    Ok(V::Lanes(Value::Array(Rc::new(Array::from_buffer(
                        vec![n as i64],
                        out,
                    )))))
                }
                _ => Err(Fail::No),
            },
            Exp::If(c, t, f) => {
                let cv = self.eval(c, vf)?;
                self.cond(cv, t, f, vf)
            }
            Exp::Let(p, v, body) => {
                let x = self.eval(v, vf)?;
                self.bind(p, x, vf)?;
                self.eval(body, vf)
            }
            Exp::Lambda(lam) => {
                let mut cenv = Vec::with_capacity(lam.captures.len());
                for c in &lam.captures {
                    cenv.push(match c {
                        Capture::Local(s) => vf.slots[*s as usize].clone().ok_or(Fail::No)?,
                        Capture::Captured(s) => self.captured(*s, vf),
                        Capture::SelfRef => return Err(Fail::No),
                    });
                }
                let env = cenv
                    .iter()
                    .map(|v| match v {
                        V::Uni(x) => x.clone(),
                        _ => unit(),
                    })
                    .collect::<Vec<_>>();
                if cenv.iter().all(|v| matches!(v, V::Uni(_))) {
                    return Ok(V::Uni(Value::Fun(Rc::new(Fun::Closure {
                        lam: lam.clone(),
                        env: Rc::from(env),
                    }))));
                }
                Ok(V::Fun(Rc::new(LaneFun {
                    lam: lam.clone(),
                    env,
                    cenv,
                })))
            }
            Exp::Assert { cond, body, .. } => match self.eval(cond, vf)? {
                V::Uni(c) if c.as_bool() == Some(true) => self.eval(body, vf),
                V::Lanes(c) => {
                    let (buf, off, n) = prim_lanes(&c)?;
                    let counts = |i: usize| vf.mask.as_ref().is_none_or(|m| m[i]);
                    if (0..n).all(|i| !counts(i) || buf_get(buf, off + i) == Prim::Bool(true)) {
                        self.eval(body, vf)
                    } else {
                        Err(Fail::Retry)
                    }
                }
                _ => Err(Fail::Retry),
            },
            Exp::SelfRef | Exp::Trace(..) => Err(Fail::No),
            // Lanes of a vectorised application are never an empty result's rows.
            Exp::EmptyRows(x, _, _) => self.eval(x, vf),
            Exp::Hole(_) => Err(Fail::Retry),
            _ => {
                if self.mentions_lanes(e, vf) {
                    Err(Fail::No)
                } else {
                    self.scalar(e, vf)
                }
            }
        }
    }

    /// [`Cx::eval`], except that index arithmetic on a sequence (`j`, `j + 1`, `i - 1`)
    /// stays symbolic.
    fn eval_seq(&mut self, e: &Exp, vf: &mut VFrame<'_>) -> VResult<V> {
        match e {
            Exp::Local(s) | Exp::LocalMove(s) => vf.slots[*s as usize].clone().ok_or(Fail::No),
            Exp::Captured(s) => Ok(self.captured(*s, vf)),
            Exp::BinOp(op, a, b, span) => {
                let (x, y) = if let Exp::FlexLit(l) = &**a {
                    let y = self.eval_seq(b, vf)?;
                    (V::Uni(Value::Prim(l.at(prim_type_of(&y)))), y)
                } else {
                    let x = self.eval_seq(a, vf)?;
                    let y = match &**b {
                        Exp::FlexLit(l) => V::Uni(Value::Prim(l.at(prim_type_of(&x)))),
                        b => self.eval_seq(b, vf)?,
                    };
                    (x, y)
                };
                if matches!(x, V::Aff(_)) || matches!(y, V::Aff(_)) {
                    if let Some(out) = affine::compare(*op, &x, &y, vf.n) {
                        return Ok(V::Lanes(out));
                    }
                    if let Some(v) = affine::arith(*op, &x, &y, vf.n) {
                        return Ok(v);
                    }
                }
                use prim_ops::OvOp as O;
                let shift = match (op, &x, &y) {
                    (O::Add, V::Seq(s), V::Uni(Value::Prim(Prim::I64(c))))
                    | (O::Add, V::Uni(Value::Prim(Prim::I64(c))), V::Seq(s)) => s.checked_add(*c),
                    (O::Sub, V::Seq(s), V::Uni(Value::Prim(Prim::I64(c)))) => s.checked_sub(*c),
                    (O::Mod, V::Seq(s), V::Uni(Value::Prim(Prim::I64(d)))) if *d > 0 => {
                        return Ok(V::Wrap(s.rem_euclid(*d), *d));
                    }
                    _ => None,
                };
                if let Some(out) = seq_compare(*op, &x, &y, vf.n) {
                    return Ok(V::Lanes(out));
                }
                // The sequence's last element must stay representable too.
                match shift {
                    Some(s) if s.checked_add(vf.n as i64).is_some() => Ok(V::Seq(s)),
                    _ => {
                        let n = vf.n;
                        self.binop(*op, plain(x, n), plain(y, n), n, *span)
                    }
                }
            }
            e => self.eval(e, vf),
        }
    }

    fn record(&mut self, names: Rc<[crate::value::Name]>, vals: Vec<V>, n: usize) -> VResult<V> {
        if vals.iter().all(|v| matches!(v, V::Uni(_))) {
            let values = vals
                .into_iter()
                .map(|v| match v {
                    V::Uni(x) | V::Lanes(x) => x,
                    _ => unit(),
                })
                .collect();
            return Ok(V::Uni(Value::Record(Rc::new(Record { names, values }))));
        }
        let mut fields = Vec::with_capacity(vals.len());
        for v in vals {
            match self.lanes(v, n)? {
                Value::Array(a) => fields.push(a),
                _ => return Err(Fail::No),
            }
        }
        Ok(V::Lanes(Value::Array(Rc::new(Array {
            shape: vec![n as i64],
            data: ArrayData::Record { names, fields },
        }))))
    }
}
