//! Calls inside vectorised evaluation: functions and closures applied to lanes, operators
//! and primitive functions over lane buffers.

use std::rc::Rc;

use futhark_syntax::Span;
use futhark_values::Buffer;

use super::lanes::{Holder, prim_lanes, prim_type_of, record_fields, with_args};
use super::seq::plain;

use crate::eval::exp::binop;
use crate::eval::unit;
use crate::intrinsics::Intrinsic;
use crate::kernels::{self, Arg};
use crate::prim_fns::PrimFn;
use crate::prim_ops::{self, resolve};
use crate::value::{Array, Builtin, Fun, Value};

use super::*;

impl Cx<'_> {
    pub(super) fn apply(
        &mut self,
        f: V,
        args: Vec<V>,
        n: usize,
        vf_mask: &Option<Rc<[bool]>>,
        span: Span,
    ) -> VResult<V> {
        let fv = match f {
            V::Uni(fv) => fv,
            V::Fun(lf) => return self.apply_lane_fun(&lf, args, n, vf_mask, span),
            _ => return Err(Fail::No),
        };
        if args.iter().all(|a| matches!(a, V::Uni(_))) {
            let vals = args
                .into_iter()
                .map(|a| match a {
                    V::Uni(x) | V::Lanes(x) => x,
                    _ => unit(),
                })
                .collect();
            return self.m.apply(fv, vals, span).map(V::Uni).or_else(retry);
        }
        let Value::Fun(fun) = &fv else {
            return Err(Fail::No);
        };
        match &**fun {
            Fun::Builtin(Builtin::Op(op)) if args.len() == 2 => {
                let mut it = args.into_iter();
                let (Some(a), Some(b)) = (it.next(), it.next()) else {
                    return Err(Fail::No);
                };
                self.binop(*op, a, b, n, span)
            }
            Fun::Builtin(Builtin::Prim(pf)) if args.len() == 1 => {
                let arg = args.into_iter().next().ok_or(Fail::No)?;
                let parts = match plain(arg, n) {
                    V::Seq(_) | V::Wrap(..) | V::Aff(_) | V::Fun(_) => return Err(Fail::No),
                    V::Uni(x) => x.tuple_elems().into_iter().map(V::Uni).collect(),
                    V::Lanes(x) => match record_fields(&x) {
                        Some(fs) if pf.arity() > 1 => {
                            fs.into_iter().map(|(_, f)| V::Lanes(f)).collect()
                        }
                        _ => vec![V::Lanes(x)],
                    },
                };
                self.prim_call(*pf, parts, n)
            }
            Fun::Builtin(Builtin::Neg) if args.len() == 1 => self.prim_call(PrimFn::Neg, args, n),
            Fun::Builtin(Builtin::Intrinsic(Intrinsic::Zip)) if args.len() == 2 => {
                let parts: Vec<Value> = args
                    .into_iter()
                    .map(|a| match a {
                        V::Lanes(x) => Some(x),
                        _ => None,
                    })
                    .collect::<Option<_>>()
                    .ok_or(Fail::No)?;
                nested::zip_lanes(&parts).map(V::Lanes).ok_or(Fail::No)
            }
            Fun::Builtin(Builtin::Intrinsic(Intrinsic::Map)) if args.len() == 2 => {
                let mut it = args.into_iter();
                let (g, xs) = match (it.next(), it.next()) {
                    (Some(V::Fun(g)), Some(xs)) => return self.flat_map(&g, xs, n, vf_mask),
                    (Some(V::Uni(g)), Some(V::Lanes(xs))) => (g, xs),
                    _ => return Err(Fail::No),
                };
                // Not remembered: the same code may vectorise with another `g`.
                nested::map_lanes(self.m, &g, &xs)
                    .map(V::Lanes)
                    .ok_or(Fail::Callee)
            }
            Fun::Builtin(_) | Fun::Sized { .. } => Err(Fail::No),
            Fun::Partial { fun, args: first } => {
                let mut all: Vec<V> = first.iter().cloned().map(V::Uni).collect();
                all.extend(args);
                self.apply(V::Uni(Value::Fun(fun.clone())), all, n, vf_mask, span)
            }
            Fun::Closure { lam, env } => {
                let arity = lam.params.len();
                if args.len() < arity {
                    return Err(Fail::No);
                }
                if self.depth >= MAX_DEPTH || lam.no_vector.get() {
                    return Err(Fail::Callee);
                }
                let mut args = args;
                let rest = args.split_off(arity);
                let mut sub = VFrame {
                    slots: vec![None; lam.nslots],
                    env,
                    n,
                    mask: vf_mask.clone(),
                    cenv: None,
                };
                for (p, a) in lam.params.iter().zip(args) {
                    self.bind(p, a, &mut sub).map_err(|e| match e {
                        Fail::No => Fail::Callee,
                        e => e,
                    })?;
                }
                self.depth += 1;
                let r = self.eval(&lam.body, &mut sub);
                self.depth -= 1;
                let r = r.map_err(|e| match e {
                    Fail::No => {
                        lam.no_vector.set(true);
                        Fail::Callee
                    }
                    e => e,
                })?;
                if rest.is_empty() {
                    Ok(r)
                } else {
                    self.apply(r, rest, n, vf_mask, span)
                }
            }
        }
    }

    /// Calls a function that captures lanes.
    pub(super) fn apply_lane_fun(
        &mut self,
        lf: &LaneFun,
        mut args: Vec<V>,
        n: usize,
        vf_mask: &Option<Rc<[bool]>>,
        span: Span,
    ) -> VResult<V> {
        let arity = lf.lam.params.len();
        if args.len() < arity || self.depth >= MAX_DEPTH {
            return Err(Fail::No);
        }
        let rest = args.split_off(arity);
        let mut sub = VFrame {
            slots: vec![None; lf.lam.nslots],
            env: &lf.env,
            n,
            mask: vf_mask.clone(),
            cenv: Some(&lf.cenv),
        };
        for (p, a) in lf.lam.params.iter().zip(args) {
            self.bind(p, a, &mut sub)?;
        }
        self.depth += 1;
        let r = self.eval(&lf.lam.body, &mut sub);
        self.depth -= 1;
        let r = r?;
        if rest.is_empty() {
            Ok(r)
        } else {
            self.apply(r, rest, n, vf_mask, span)
        }
    }

    pub(super) fn binop(
        &mut self,
        op: prim_ops::OvOp,
        x: V,
        y: V,
        n: usize,
        span: Span,
    ) -> VResult<V> {
        if let (V::Uni(a), V::Uni(b)) = (&x, &y) {
            return binop(op, a, b, span).map(V::Uni).or_else(retry);
        }
        let ty = prim_type_of(&x)
            .or_else(|| prim_type_of(&y))
            .ok_or(Fail::No)?;
        let r = resolve(op, ty).ok_or(Fail::No)?;
        let (a, b) = if r.swap { (y, x) } else { (x, y) };
        // A temporary nobody else holds (`(a + b) + c`) takes the result in place.
        let a = match lanes::update_in_place(r.op, a, &b, n) {
            Ok(done) => return Ok(V::Lanes(done)),
            Err(a) => a,
        };
        let out = with_args(&a, &b, |aa, bb| kernels::lanes_bin(r.op, aa, bb, n))?;
        let out = out.ok_or(Fail::No)?.or_else(retry)?;
        let out = if r.negate {
            match out {
                Buffer::Bool(v) => Buffer::Bool(v.into_iter().map(|b| !b).collect()),
                _ => return Err(Fail::No),
            }
        } else {
            out
        };
        Ok(V::Lanes(Value::Array(Rc::new(Array::from_buffer(
            vec![n as i64],
            out,
        )))))
    }

    pub(super) fn prim_call(&mut self, pf: PrimFn, args: Vec<V>, n: usize) -> VResult<V> {
        if args.iter().all(|a| matches!(a, V::Uni(_))) {
            let mut prims = Vec::with_capacity(args.len());
            for a in &args {
                match a {
                    V::Uni(Value::Prim(p)) => prims.push(*p),
                    _ => return Err(Fail::Retry),
                }
            }
            return pf
                .apply(&prims)
                .map(|p| V::Uni(Value::Prim(p)))
                .or_else(retry);
        }
        let mut holders: Vec<Holder> = Vec::with_capacity(args.len());
        for a in &args {
            holders.push(match a {
                V::Uni(Value::Prim(p)) => Holder::Scalar(*p),
                V::Lanes(v) => {
                    let (buf, off, k) = prim_lanes(v)?;
                    if k != n {
                        return Err(Fail::No);
                    }
                    Holder::Lanes(buf.clone(), off)
                }
                _ => return Err(Fail::No),
            });
        }
        let argv: Vec<Arg<'_>> = holders
            .iter()
            .map(|h| match h {
                Holder::Scalar(p) => Arg::Scalar(*p),
                Holder::Lanes(b, off) => Arg::Lanes(b, *off),
            })
            .collect();
        let out = kernels::lanes_prim(pf, &argv, n).or_else(retry)?;
        Ok(V::Lanes(Value::Array(Rc::new(Array::from_buffer(
            vec![n as i64],
            out,
        )))))
    }
}
