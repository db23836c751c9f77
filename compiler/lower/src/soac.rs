//! The array intrinsics: SOACs (`map`, `reduce`, `scan`, `hist_*`, `scatter_*`), which
//! keep their function arguments as IR lambdas, and the structural ones (`zip`, `unzip`,
//! `concat`, `transpose`, `flatten`, `unflatten`, `manifest`), which act leaf by leaf.

use std::collections::HashSet;

use futhark_ir::soacs::{
    Body, Exp as IExp, Lambda, Name, Param, Soac, SubExp, Type, binders_in_body,
};
use futhark_ir::types::PrimType;
use futhark_syntax::Span;

use crate::error::{LResult, LowerError};
use crate::exp::atom;
use crate::state::Lowerer;
use crate::value::Value;

/// The value of one row of an array value (types only; the atoms are meaningless).
pub(crate) fn row_of<'a>(v: &Value<'a>) -> Value<'a> {
    v.map_leaves::<()>(&mut |s, t| Ok((s.clone(), t.row())))
        .unwrap_or_else(|_| v.clone())
}

/// The leaves of an array value as variable names.
pub(crate) fn names(v: &Value<'_>, span: Span) -> LResult<Vec<Name>> {
    v.leaves()
        .into_iter()
        .map(|(s, _)| {
            s.as_var()
                .cloned()
                .ok_or_else(|| LowerError::internal(Some(span), "an array that is a constant"))
        })
        .collect()
}

fn types(v: &Value<'_>) -> Vec<Type> {
    v.leaves().into_iter().map(|(_, t)| t).collect()
}

impl<'a> Lowerer<'a> {
    /// An intrinsic applied to all its arguments.
    pub fn intrinsic(
        &mut self,
        name: &str,
        args: Vec<Value<'a>>,
        span: Span,
    ) -> LResult<Value<'a>> {
        let outer = self.soac_site.replace(span);
        let r = self.intrinsic_at(name, args, span);
        self.soac_site = outer;
        r
    }

    fn intrinsic_at(&mut self, name: &str, args: Vec<Value<'a>>, span: Span) -> LResult<Value<'a>> {
        let arg = |i: usize| -> LResult<Value<'a>> {
            args.get(i)
                .cloned()
                .ok_or_else(|| LowerError::internal(Some(span), format!("arity of {name}")))
        };
        match name {
            "map" => self.soac_map(&arg(0)?, &arg(1)?, span),
            "reduce" | "reduce_comm" => {
                self.soac_reduce(&arg(0)?, &arg(1)?, &arg(2)?, name == "reduce_comm", span)
            }
            "scan" => self.soac_scan(&arg(0)?, &arg(1)?, &arg(2)?, span),
            "hist_1d" | "hist_2d" | "hist_3d" => {
                let rank = if name == "hist_1d" {
                    1
                } else if name == "hist_2d" {
                    2
                } else {
                    3
                };
                self.soac_hist(rank, &arg(1)?, &arg(2)?, &arg(3)?, &arg(4)?, &arg(5)?, span)
            }
            "scatter" | "scatter_2d" | "scatter_3d" => {
                let rank = if name == "scatter" {
                    1
                } else if name == "scatter_2d" {
                    2
                } else {
                    3
                };
                self.soac_scatter(rank, &arg(0)?, &arg(1)?, &arg(2)?, span)
            }
            "jvp2" => {
                let (f, x, dx) = (arg(0)?, arg(1)?, arg(2)?);
                let (lam, res) = self.make_lambda_at(&f, std::slice::from_ref(&x), span)?;
                let xs: Vec<SubExp> = x.leaves().into_iter().map(|(s, _)| s).collect();
                let dxs: Vec<Option<SubExp>> =
                    dx.leaves().into_iter().map(|(s, _)| Some(s)).collect();
                if xs.len() != dxs.len() || xs.len() != lam.params.len() {
                    return Err(LowerError::internal(Some(span), "jvp2 argument shapes"));
                }
                let (ys, tans) = self.jvp_inline(&lam, &xs, &dxs).map_err(|e| e.at(span))?;
                let ts: Vec<Type> = lam.ret.clone();
                let y = res
                    .rebuild(&mut ys.into_iter().zip(ts.clone()))
                    .ok_or_else(|| LowerError::internal(Some(span), "jvp2 result"))?;
                let t = res
                    .rebuild(&mut tans.into_iter().zip(ts))
                    .ok_or_else(|| LowerError::internal(Some(span), "jvp2 tangent"))?;
                Ok(Value::tuple(vec![y, t]))
            }
            "vjp2" => {
                let (f, x, dy) = (arg(0)?, arg(1)?, arg(2)?);
                let (lam, res) = self.make_lambda_at(&f, std::slice::from_ref(&x), span)?;
                let xs = x.leaves();
                let dys = dy.leaves();
                if xs.len() != lam.params.len() || dys.len() != lam.ret.len() {
                    return Err(LowerError::internal(Some(span), "vjp2 argument shapes"));
                }
                let atoms: Vec<SubExp> = xs.iter().map(|(s, _)| s.clone()).collect();
                let none: Vec<Option<SubExp>> = vec![None; xs.len()];
                let (ys, _) = self
                    .jvp_inline(&lam, &atoms, &none)
                    .map_err(|e| e.at(span))?;
                let y = res
                    .rebuild(&mut ys.into_iter().zip(lam.ret.clone()))
                    .ok_or_else(|| LowerError::internal(Some(span), "vjp2 result"))?;
                let grads = self.vjp_leaves(&lam, &xs, &dys).map_err(|e| e.at(span))?;
                let g = x
                    .rebuild(&mut grads.into_iter().zip(xs.iter().map(|(_, t)| t.clone())))
                    .ok_or_else(|| LowerError::internal(Some(span), "vjp2 gradient"))?;
                Ok(Value::tuple(vec![y, g]))
            }
            "jmp2" | "mjp2" => {
                let (f, x, ds) = (arg(0)?, arg(1)?, arg(2)?);
                let (lam, res) = self.make_lambda_at(&f, std::slice::from_ref(&x), span)?;
                let xs = x.leaves();
                let atoms: Vec<SubExp> = xs.iter().map(|(s, _)| s.clone()).collect();
                let none: Vec<Option<SubExp>> = vec![None; xs.len()];
                let (ys, _) = self
                    .jvp_inline(&lam, &atoms, &none)
                    .map_err(|e| e.at(span))?;
                let y = res
                    .rebuild(&mut ys.into_iter().zip(lam.ret.clone()))
                    .ok_or_else(|| LowerError::internal(Some(span), "jmp2 result"))?;
                let n = ds
                    .outer_dim()
                    .ok_or_else(|| LowerError::internal(Some(span), "jmp2 directions"))?;
                let drows: Vec<(SubExp, Type)> = ds.leaves();
                let forward = name == "jmp2";
                let ts: Vec<Type> = if forward {
                    lam.ret.clone()
                } else {
                    xs.iter().map(|(_, t)| t.clone()).collect()
                };
                let rows = self
                    .per_row(n, &ts, |this, i| {
                        let mut row = Vec::new();
                        for (d, dt) in &drows {
                            let SubExp::Var(d) = d else {
                                return Err(LowerError::internal(Some(span), "direction"));
                            };
                            let rt = dt.row();
                            let r = this.bind(
                                "dir",
                                rt.clone(),
                                IExp::Index(
                                    d.clone(),
                                    vec![futhark_ir::soacs::DimIndex::Fix(i.clone())],
                                ),
                            );
                            row.push((r, rt));
                        }
                        if forward {
                            let dxs = row.into_iter().map(|(s, _)| Some(s)).collect::<Vec<_>>();
                            Ok(this.jvp_inline(&lam, &atoms, &dxs)?.1)
                        } else {
                            this.vjp_leaves(&lam, &xs, &row)
                        }
                    })
                    .map_err(|e| e.at(span))?;
                let shape = if forward { res.clone() } else { x.clone() };
                let t = shape
                    .rebuild(&mut rows.into_iter())
                    .ok_or_else(|| LowerError::internal(Some(span), "jmp2 tangents"))?;
                Ok(Value::tuple(vec![y, t]))
            }
            "zip" => {
                let a = arg(0)?;
                let b = arg(1)?;
                let b = match a.outer_dim() {
                    Some(n) => self.with_outer(&b, &n)?,
                    None => b,
                };
                Ok(Value::tuple(vec![a, b]))
            }
            "flatmap" => self.flatmap(&arg(0)?, &arg(1)?, span),
            "scatter_stream" => self.acc_stream(&arg(0)?, None, &arg(1)?, &arg(2)?, span),
            "hist_stream" => self.acc_stream(&arg(0)?, Some(arg(1)?), &arg(3)?, &arg(4)?, span),
            "acc_write" => self.acc_write(&arg(0)?, &arg(1)?, &arg(2)?, span),
            "flat_index_2d" | "flat_index_3d" | "flat_index_4d" => self.flat_index(&args, span),
            "flat_update_2d" | "flat_update_3d" | "flat_update_4d" => self.flat_update(&args, span),
            "unzip" => arg(0),
            "concat" => self.concat(&arg(0)?, &arg(1)?, span),
            "transpose" => arg(0)?.map_leaves(&mut |s, t| {
                let mut perm: Vec<usize> = (0..t.rank()).collect();
                if perm.len() < 2 {
                    return Err(LowerError::internal(Some(span), "transpose of a vector"));
                }
                perm.swap(0, 1);
                let shape = perm.iter().map(|&i| t.shape()[i].clone()).collect();
                let rt = t.with_shape(shape);
                let arr = s.as_var().cloned().unwrap_or_default();
                let r = self.bind("tr", rt.clone(), IExp::Rearrange { perm, arr });
                Ok((r, rt))
            }),
            "flatten" => arg(0)?.map_leaves(&mut |s, t| {
                let sh = t.shape();
                if sh.len() < 2 {
                    return Err(LowerError::internal(Some(span), "flatten of a vector"));
                }
                let n = self.mul64(sh[0].clone(), sh[1].clone());
                let mut shape = vec![n];
                shape.extend(sh[2..].iter().cloned());
                self.reshape(s, t, shape)
            }),
            "unflatten" => {
                let n = atom(&arg(0)?, span)?;
                let m = atom(&arg(1)?, span)?;
                let v = arg(2)?;
                if let Some((_, t)) = v.leaves().first() {
                    let t = t.clone();
                    self.located(span, |this| this.check_unflatten(&n, &m, &t));
                }
                v.map_leaves(&mut |s, t| {
                    let mut shape = vec![n.clone(), m.clone()];
                    shape.extend(t.shape().iter().skip(1).cloned());
                    self.reshape(s, t, shape)
                })
            }
            "manifest" => arg(0)?.map_leaves(&mut |s, t| {
                if !t.is_array() {
                    return Ok((s.clone(), t.clone()));
                }
                let arr = s.as_var().cloned().unwrap_or_default();
                let r = self.bind("copy", t.clone(), IExp::Copy(arr));
                Ok((r, t.clone()))
            }),
            _ => {
                let a = arg(0)?;
                match self.prim_intrinsic(name, &a, span)? {
                    Some(v) => Ok(v),
                    None => Err(LowerError::unsupported(
                        Some(span),
                        format!("the intrinsic `{name}`"),
                    )),
                }
            }
        }
    }

    /// Fails as the interpreter does unless `n` and `m` are non-negative and split the
    /// outer dimension of `t` exactly.
    fn check_unflatten(&mut self, n: &SubExp, m: &SubExp, t: &Type) {
        let Some(len) = t.shape().first().cloned() else {
            return;
        };
        let bool_t = Type::Prim(PrimType::Bool);
        let zero = SubExp::i64(0);
        let n_ok = self.bind(
            "n_ok",
            bool_t.clone(),
            IExp::CmpOp(futhark_ir::soacs::CmpOp::SLe, zero.clone(), n.clone()),
        );
        let m_ok = self.bind(
            "m_ok",
            bool_t.clone(),
            IExp::CmpOp(futhark_ir::soacs::CmpOp::SLe, zero, m.clone()),
        );
        let nm = self.mul64(n.clone(), m.clone());
        let same = self.bind(
            "len_ok",
            bool_t.clone(),
            IExp::CmpOp(futhark_ir::soacs::CmpOp::Eq, nm, len),
        );
        let both = self.bind(
            "dims_ok",
            bool_t.clone(),
            IExp::BinOp(futhark_ir::soacs::BinOp::LogAnd, n_ok, m_ok),
        );
        let cond = self.bind(
            "unflatten_ok",
            bool_t,
            IExp::BinOp(futhark_ir::soacs::BinOp::LogAnd, both, same),
        );
        let shape: String = t.shape().iter().map(|_| "[{}]").collect();
        let mut args = t.shape().to_vec();
        args.extend([n.clone(), m.clone()]);
        self.emit(
            futhark_ir::soacs::Pat::default(),
            IExp::Assert {
                cond,
                msg: format!("Cannot unflatten array of shape {shape} to shape [{{}}][{{}}]."),
                args,
            },
        );
    }

    fn reshape(&mut self, s: &SubExp, t: &Type, shape: Vec<SubExp>) -> LResult<(SubExp, Type)> {
        let rt = t.with_shape(shape.clone());
        let arr = s
            .as_var()
            .cloned()
            .ok_or_else(|| LowerError::internal(None, "reshaping a constant"))?;
        let r = self.bind("reshape", rt.clone(), IExp::Reshape { shape, arr });
        Ok((r, rt))
    }

    /// Applies a function value to parameters of the given shapes, in a fresh block: the
    /// IR lambda and its result value. With `want`, results are coerced to those types.
    pub fn make_lambda(
        &mut self,
        f: &Value<'a>,
        args: &[Value<'a>],
        want: Option<&[Type]>,
        span: Span,
    ) -> LResult<(Lambda, Value<'a>)> {
        self.lambda_with(args, want, span, |this, vals| {
            this.apply_in_intrinsic(f.clone(), vals, span)
        })
    }

    /// [`Lowerer::make_lambda`] with the body lowered by `body` from the parameters' values.
    pub fn lambda_with(
        &mut self,
        args: &[Value<'a>],
        want: Option<&[Type]>,
        span: Span,
        body: impl FnOnce(&mut Self, Vec<Value<'a>>) -> LResult<Value<'a>>,
    ) -> LResult<(Lambda, Value<'a>)> {
        let (stms, (params, leaves, result)) = self.block(|this| {
            let mut params = Vec::new();
            let mut vals = Vec::new();
            for sk in args {
                let mut ps = Vec::new();
                for (_, t) in sk.leaves() {
                    ps.push(this.param("x", t));
                }
                let v = sk
                    .rebuild(
                        &mut ps
                            .iter()
                            .map(|p| (SubExp::Var(p.name.clone()), p.ty.clone())),
                    )
                    .ok_or_else(|| LowerError::internal(Some(span), "lambda argument"))?;
                params.extend(ps);
                vals.push(v);
            }
            let r = body(this, vals)?;
            if r.has_fun() {
                return Err(LowerError::unsupported(
                    Some(span),
                    "a lambda returning a function",
                ));
            }
            let mut leaves = r.leaves();
            if let Some(want) = want {
                if want.len() != leaves.len() {
                    return Err(LowerError::internal(Some(span), "lambda result shape"));
                }
                for ((s, t), w) in leaves.iter_mut().zip(want) {
                    *s = this.coerce_atom(s.clone(), t, w).map_err(|e| e.at(span))?;
                    *t = w.clone();
                }
            }
            Ok((params, leaves, r))
        })?;
        let body = Body::new(stms, leaves.iter().map(|(s, _)| s.clone()).collect());
        let mut inner: HashSet<Name> = binders_in_body(&body);
        inner.extend(params.iter().map(|p| p.name.clone()));
        // A result size computed in the lambda from sizes known outside (a size pattern
        // `[]t` of a parameter, `n + 1`) is computed before the SOAC instead.
        let mut defs: std::collections::HashMap<Name, IExp> = Default::default();
        for s in &body.stms {
            if let [p] = s.pat.elems.as_slice()
                && s.pat.ctx.is_empty()
                && matches!(
                    s.exp,
                    IExp::SubExp(_)
                        | IExp::BinOp(
                            futhark_ir::soacs::BinOp::Add
                                | futhark_ir::soacs::BinOp::Sub
                                | futhark_ir::soacs::BinOp::Mul
                                | futhark_ir::soacs::BinOp::SMax
                                | futhark_ir::soacs::BinOp::SMin,
                            _,
                            _
                        )
                )
            {
                defs.insert(p.name.clone(), s.exp.clone());
            }
        }
        let mut hoisted: std::collections::HashMap<Name, SubExp> = Default::default();
        let mut leaves = leaves;
        let mut body = body;
        for (x, t) in leaves.iter_mut() {
            let mut shape = Vec::new();
            for d in t.shape() {
                shape.push(
                    self.hoist_size(d, &defs, &inner, &mut hoisted, 0)
                        .unwrap_or(d.clone()),
                );
            }
            if shape.as_slice() != t.shape()
                && let SubExp::Var(arr) = x.clone()
            {
                // The result, coerced to the outer size (checked when it runs).
                let nt = t.with_shape(shape.clone());
                let name = self.fresh("coerce");
                self.declare(&name, nt.clone());
                body.stms.push(futhark_ir::soacs::Stm::new(
                    futhark_ir::soacs::Pat::one(&name, nt.clone()),
                    IExp::Reshape { shape, arr },
                ));
                *x = SubExp::Var(name);
                *t = nt;
            }
        }
        body.result = leaves.iter().map(|(s, _)| s.clone()).collect();
        let ret: Vec<Type> = leaves.iter().map(|(_, t)| t.clone()).collect();
        for t in &ret {
            if t.shape()
                .iter()
                .any(|d| d.as_var().is_some_and(|v| inner.contains(v)))
            {
                return Err(LowerError::unsupported(
                    Some(span),
                    crate::row_sizes::IRREGULAR,
                ));
            }
        }
        let result = result
            .rebuild(&mut leaves.into_iter())
            .ok_or_else(|| LowerError::internal(Some(span), "lambda result"))?;
        Ok((Lambda { params, body, ret }, result))
    }

    /// A size bound in a lambda as an expression of sizes outside it, bound before the
    /// lambda's SOAC (`None` when it depends on the lambda's own values).
    fn hoist_size(
        &mut self,
        d: &SubExp,
        defs: &std::collections::HashMap<Name, IExp>,
        inner: &HashSet<Name>,
        done: &mut std::collections::HashMap<Name, SubExp>,
        depth: usize,
    ) -> Option<SubExp> {
        let v = match d {
            SubExp::Const(_) => return Some(d.clone()),
            SubExp::Var(v) if !inner.contains(v) => return Some(d.clone()),
            SubExp::Var(v) => v,
        };
        if let Some(x) = done.get(v) {
            return Some(x.clone());
        }
        if depth > 32 {
            return None;
        }
        let r = match defs.get(v)? {
            IExp::SubExp(x) => self.hoist_size(x, defs, inner, done, depth + 1)?,
            IExp::BinOp(op, a, b) => {
                let a = self.hoist_size(a, defs, inner, done, depth + 1)?;
                let b = self.hoist_size(b, defs, inner, done, depth + 1)?;
                self.bind("size", Type::Prim(PrimType::I64), IExp::BinOp(*op, a, b))
            }
            _ => return None,
        };
        done.insert(v.clone(), r.clone());
        Some(r)
    }

    /// `\x… -> x…` on the given types.
    fn identity_lambda(&mut self, ts: &[Type]) -> Lambda {
        let params: Vec<Param> = ts.iter().map(|t| self.param("x", t.clone())).collect();
        let result = params.iter().map(|p| SubExp::Var(p.name.clone())).collect();
        Lambda {
            params,
            body: Body::new(Vec::new(), result),
            ret: ts.to_vec(),
        }
    }

    /// An array value with all leaves of outer size `w` (its first leaf's).
    pub(crate) fn aligned(&mut self, arr: &Value<'a>, span: Span) -> LResult<(SubExp, Value<'a>)> {
        let w = arr.outer_dim().ok_or_else(|| {
            LowerError::unsupported(
                Some(span),
                "a SOAC over an array without data (e.g. of `()`)",
            )
        })?;
        let arr = self.with_outer(arr, &w)?;
        Ok((w, arr))
    }

    pub(crate) fn bind_soac(&mut self, ts: Vec<Type>, soac: Soac) -> Vec<(SubExp, Type)> {
        let ext: Vec<_> = ts.iter().map(Type::to_ext).collect();
        // The SOAC's own statement is located at its application (what a host-loop
        // fallback names), unless an enclosing operation's location is in force.
        let own = match (&self.loc, self.soac_site) {
            (None, Some(span)) => Some(self.location_with_frames(span).into()),
            _ => None,
        };
        let located_here = own.is_some();
        if located_here {
            self.loc = own;
        }
        let outs = self.bind_ext(soac.kind_name(), &ext, IExp::Soac(soac));
        if located_here {
            self.loc = None;
        }
        outs
    }

    fn soac_map(&mut self, f: &Value<'a>, arr: &Value<'a>, span: Span) -> LResult<Value<'a>> {
        let (w, arr) = self.aligned(arr, span)?;
        let (lam, res) = match self.make_lambda(f, &[row_of(&arr)], None, span) {
            Err(e) if e.message == crate::row_sizes::IRREGULAR => {
                let want = self.first_row_types(f, &arr, &w, span)?;
                self.make_lambda(f, &[row_of(&arr)], Some(&want), span)?
            }
            r => r?,
        };
        let ts = lam.ret.iter().map(|t| t.array_of(w.clone())).collect();
        let arrs = names(&arr, span)?;
        let outs = self.bind_soac(ts, Soac::Map { w, lam, arrs });
        res.rebuild(&mut outs.into_iter())
            .ok_or_else(|| LowerError::internal(Some(span), "map result"))
    }

    /// The neutral element's leaves, coerced to the row types of the array.
    fn neutral(&mut self, ne: &Value<'a>, ts: &[Type], span: Span) -> LResult<Vec<SubExp>> {
        let leaves = ne.leaves();
        if leaves.len() != ts.len() {
            return Err(LowerError::internal(Some(span), "neutral element shape"));
        }
        leaves
            .into_iter()
            .zip(ts)
            .map(|((s, t), w)| self.coerce_atom(s, &t, w).map_err(|e| e.at(span)))
            .collect()
    }

    pub(crate) fn soac_reduce(
        &mut self,
        op: &Value<'a>,
        ne: &Value<'a>,
        arr: &Value<'a>,
        comm: bool,
        span: Span,
    ) -> LResult<Value<'a>> {
        let (w, arr) = self.aligned(arr, span)?;
        let row = row_of(&arr);
        let ts = types(&row);
        let nes = self.neutral(ne, &ts, span)?;
        let (op, _) = self.make_lambda(op, &[row.clone(), row.clone()], Some(&ts), span)?;
        let map = self.identity_lambda(&ts);
        let arrs = names(&arr, span)?;
        let outs = self.bind_soac(
            ts,
            Soac::Reduce {
                w,
                comm,
                op,
                nes,
                map,
                arrs,
            },
        );
        row.rebuild(&mut outs.into_iter())
            .ok_or_else(|| LowerError::internal(Some(span), "reduce result"))
    }

    pub(crate) fn soac_scan(
        &mut self,
        op: &Value<'a>,
        ne: &Value<'a>,
        arr: &Value<'a>,
        span: Span,
    ) -> LResult<Value<'a>> {
        let (w, arr) = self.aligned(arr, span)?;
        let row = row_of(&arr);
        let ts = types(&row);
        let nes = self.neutral(ne, &ts, span)?;
        let (op, _) = self.make_lambda(op, &[row.clone(), row.clone()], Some(&ts), span)?;
        let map = self.identity_lambda(&ts);
        let arrs = names(&arr, span)?;
        let out_ts = ts.iter().map(|t| t.array_of(w.clone())).collect();
        let outs = self.bind_soac(
            out_ts,
            Soac::Scan {
                w,
                op,
                nes,
                map,
                arrs,
            },
        );
        arr.rebuild(&mut outs.into_iter())
            .ok_or_else(|| LowerError::internal(Some(span), "scan result"))
    }

    /// A lambda taking rows of `idx` and `vals`, giving, per destination type in `dests`,
    /// the index components then the value (coerced to the destination's element).
    fn index_value_lambda(
        &mut self,
        idx_rows: &[Type],
        val_rows: &[Type],
        dests: &[Type],
        rank: usize,
        shared_index: bool,
        span: Span,
    ) -> LResult<Lambda> {
        let ip: Vec<Param> = idx_rows
            .iter()
            .map(|t| self.param("i", t.clone()))
            .collect();
        let vp: Vec<Param> = val_rows
            .iter()
            .map(|t| self.param("v", t.clone()))
            .collect();
        let (stms, (result, ret)) = self.block(|this| {
            let mut result = Vec::new();
            let mut ret = Vec::new();
            let idx: Vec<SubExp> = ip.iter().map(|p| SubExp::Var(p.name.clone())).collect();
            if shared_index {
                result.extend(idx.iter().cloned());
                ret.extend(std::iter::repeat_n(Type::Prim(PrimType::I64), rank));
            }
            for (p, d) in vp.iter().zip(dests) {
                if !shared_index {
                    result.extend(idx.iter().cloned());
                    ret.extend(std::iter::repeat_n(Type::Prim(PrimType::I64), rank));
                }
                let want = d.strip(rank);
                let v = this
                    .coerce_atom(SubExp::Var(p.name.clone()), &p.ty, &want)
                    .map_err(|e| e.at(span))?;
                result.push(v);
                ret.push(want);
            }
            Ok((result, ret))
        })?;
        let mut params = ip;
        params.extend(vp);
        Ok(Lambda {
            params,
            body: Body::new(stms, result),
            ret,
        })
    }

    #[allow(clippy::too_many_arguments)]
    fn soac_hist(
        &mut self,
        rank: usize,
        dest: &Value<'a>,
        op: &Value<'a>,
        ne: &Value<'a>,
        is: &Value<'a>,
        vals: &Value<'a>,
        span: Span,
    ) -> LResult<Value<'a>> {
        let (w, vals) = self.aligned(vals, span)?;
        let is = self.with_outer(is, &w)?;
        let dts = types(dest);
        let elem_ts: Vec<Type> = dts.iter().map(|t| t.strip(rank)).collect();
        let elem = dest
            .map_leaves::<()>(&mut |s, t| Ok((s.clone(), t.strip(rank))))
            .map_err(|_| LowerError::internal(Some(span), "histogram destination"))?;
        let nes = self.neutral(ne, &elem_ts, span)?;
        let (op, _) = self.make_lambda(op, &[elem.clone(), elem], Some(&elem_ts), span)?;
        let idx_rows = types(&row_of(&is));
        let val_rows = types(&row_of(&vals));
        let map = self.index_value_lambda(&idx_rows, &val_rows, &dts, rank, true, span)?;
        let mut arrs = names(&is, span)?;
        arrs.extend(names(&vals, span)?);
        let dests = names(dest, span)?;
        let outs = self.bind_soac(
            dts,
            Soac::Hist {
                w,
                dests,
                rank,
                op,
                nes,
                map,
                arrs,
            },
        );
        dest.rebuild(&mut outs.into_iter())
            .ok_or_else(|| LowerError::internal(Some(span), "histogram result"))
    }

    pub(crate) fn soac_scatter(
        &mut self,
        rank: usize,
        dest: &Value<'a>,
        is: &Value<'a>,
        vals: &Value<'a>,
        span: Span,
    ) -> LResult<Value<'a>> {
        let (w, vals) = self.aligned(vals, span)?;
        let is = self.with_outer(is, &w)?;
        let dts = types(dest);
        let idx_rows = types(&row_of(&is));
        let val_rows = types(&row_of(&vals));
        let map = self.index_value_lambda(&idx_rows, &val_rows, &dts, rank, false, span)?;
        let mut arrs = names(&is, span)?;
        arrs.extend(names(&vals, span)?);
        let dests = names(dest, span)?;
        let ranks = vec![rank; dests.len()];
        let outs = self.bind_soac(
            dts,
            Soac::Scatter {
                w,
                dests,
                ranks,
                map,
                arrs,
            },
        );
        dest.rebuild(&mut outs.into_iter())
            .ok_or_else(|| LowerError::internal(Some(span), "scatter result"))
    }

    fn concat(&mut self, a: &Value<'a>, b: &Value<'a>, span: Span) -> LResult<Value<'a>> {
        let bl = b.leaves();
        let mut bl = bl.into_iter();
        a.map_leaves(&mut |s, t| {
            let (bs, bt) = bl
                .next()
                .ok_or_else(|| LowerError::internal(Some(span), "concat of different shapes"))?;
            let (Some(n), Some(m)) = (t.outer().cloned(), bt.outer().cloned()) else {
                return Err(LowerError::internal(Some(span), "concat of scalars"));
            };
            let want_b = t.with_shape(
                std::iter::once(m.clone())
                    .chain(t.shape().iter().skip(1).cloned())
                    .collect(),
            );
            let bs = self.coerce_atom(bs, &bt, &want_b)?;
            let size = self.add64(n, m);
            let rt = t.row().array_of(size.clone());
            let arrs = vec![
                s.as_var().cloned().unwrap_or_default(),
                bs.as_var().cloned().unwrap_or_default(),
            ];
            let r = self.bind("concat", rt.clone(), IExp::Concat { arrs, size });
            Ok((r, rt))
        })
    }
}
