//! Control flow: `if`, `match` (a chain of tests on tags and literals) and `loop`.
//!
//! Branch results whose sizes differ become existential sizes of the `if`. A loop is first
//! lowered with its parameters' sizes fixed to the initial values'; when the body produces
//! other sizes, the loop is lowered again with those dimensions turned into loop
//! parameters of their own (so a growing array is `loop (n, xs: [n]t)`).

use std::collections::HashSet;

use futhark_ir::soacs::{
    Body, Exp as IExp, ExtSize, ExtType, LoopForm, Name, Param, SubExp, Type, binders_in_body,
};
use futhark_ir::types::{PrimType, PrimValue};
use futhark_syntax::Span;
use futhark_syntax::ast::{Case, Exp, LoopForm as AstLoopForm, Pat};

use crate::error::{LResult, LowerError};
use crate::exp::atom;
use crate::state::Lowerer;
use crate::value::{Ctx, Value};

impl<'a> Lowerer<'a> {
    /// `if cond then … else …` with each branch lowered by a closure.
    pub fn if_value(
        &mut self,
        cond: SubExp,
        then_f: impl FnOnce(&mut Self) -> LResult<Value<'a>>,
        else_f: impl FnOnce(&mut Self) -> LResult<Value<'a>>,
        span: Span,
    ) -> LResult<Value<'a>> {
        if let SubExp::Const(PrimValue::Bool(b)) = cond {
            return if b { then_f(self) } else { else_f(self) };
        }
        let (ts, tv) = self.block(then_f)?;
        let (es, ev) = self.block(else_f)?;
        if tv.has_fun() || ev.has_fun() {
            return Err(LowerError::unsupported(
                Some(span),
                "a branch returning a function",
            ));
        }
        let tl = tv.leaves();
        let el = ev.leaves();
        if tl.len() != el.len() {
            return Err(LowerError::internal(
                Some(span),
                "branches of different shapes",
            ));
        }
        let then_body = Body::new(ts, tl.iter().map(|(s, _)| s.clone()).collect());
        let else_body = Body::new(es, el.iter().map(|(s, _)| s.clone()).collect());
        let mut inner: HashSet<Name> = binders_in_body(&then_body);
        inner.extend(binders_in_body(&else_body));
        let mut exts: Vec<(SubExp, SubExp)> = Vec::new();
        let mut ret = Vec::new();
        for ((_, tt), (_, et)) in tl.iter().zip(&el) {
            if tt.elem() != et.elem() || tt.rank() != et.rank() {
                return Err(LowerError::internal(
                    Some(span),
                    format!("branches give {tt} and {et}"),
                ));
            }
            let dims = tt
                .shape()
                .iter()
                .zip(et.shape())
                .map(|(a, b)| {
                    let local = a.as_var().is_some_and(|v| inner.contains(v));
                    if a == b && !local {
                        ExtSize::Free(a.clone())
                    } else {
                        let key = (a.clone(), b.clone());
                        let i = match exts.iter().position(|k| *k == key) {
                            Some(i) => i,
                            None => {
                                exts.push(key);
                                exts.len() - 1
                            }
                        };
                        ExtSize::Ext(i)
                    }
                })
                .collect();
            ret.push(ExtType::array(tt.elem(), dims));
        }
        let outs = self.bind_ext(
            "r",
            &ret,
            IExp::If {
                cond,
                then_body,
                else_body,
                ret: ret.clone(),
            },
        );
        tv.rebuild(&mut outs.into_iter())
            .ok_or_else(|| LowerError::internal(Some(span), "branch structure"))
    }

    /// `match v case p1 -> e1 case p2 -> e2 …`.
    pub fn match_value(
        &mut self,
        v: Value<'a>,
        cases: &'a [Case],
        ctx: &Ctx<'a>,
        span: Span,
    ) -> LResult<Value<'a>> {
        let Some((case, rest)) = cases.split_first() else {
            return Err(LowerError::internal(Some(span), "match without cases"));
        };
        let test = if rest.is_empty() {
            None
        } else {
            self.pat_test(&case.pat, &v)?
        };
        match test {
            None => {
                let inner = self.bind_pat(&case.pat, v, ctx.clone())?;
                self.exp(&case.body, &inner)
            }
            Some(c) => {
                let v2 = v.clone();
                self.if_value(
                    c,
                    |this| {
                        let inner = this.bind_pat(&case.pat, v, ctx.clone())?;
                        this.exp(&case.body, &inner)
                    },
                    |this| this.match_value(v2, rest, ctx, span),
                    case.span,
                )
            }
        }
    }

    /// `loop pat = init for … do body`.
    pub fn loop_value(
        &mut self,
        pat: &'a Pat,
        init: Option<&'a Exp>,
        form: &'a AstLoopForm,
        body: &'a Exp,
        ctx: &Ctx<'a>,
        span: Span,
    ) -> LResult<Value<'a>> {
        let init_v = match init {
            Some(e) => self.exp(e, ctx)?,
            None => self.value_of_pat(pat, ctx, span)?,
        };
        if init_v.has_fun() {
            return Err(LowerError::unsupported(
                Some(span),
                "loop parameters holding functions",
            ));
        }
        // What the form needs, evaluated once before the loop.
        let (bound, array) = match form {
            AstLoopForm::For { bound, .. } => (Some(atom(&self.exp(bound, ctx)?, span)?), None),
            AstLoopForm::ForIn { array, .. } => {
                let arr = self.exp(array, ctx)?;
                let n = arr.outer_dim().ok_or_else(|| {
                    LowerError::unsupported(Some(span), "`for … in` over an array without data")
                })?;
                (Some(n), Some(arr))
            }
            AstLoopForm::While(_) => (None, None),
        };
        let init_leaves = init_v.leaves();
        let mut variant: Vec<Vec<bool>> = init_leaves
            .iter()
            .map(|(_, t)| vec![false; t.rank()])
            .collect();
        for _attempt in 0..4 {
            let mut size_params: Vec<(Param, SubExp)> = Vec::new();
            let mut value_params: Vec<(Param, SubExp)> = Vec::new();
            for (i, (s, t)) in init_leaves.iter().enumerate() {
                let mut dims = Vec::new();
                for (j, d) in t.shape().iter().enumerate() {
                    if variant[i][j] {
                        let p = self.param("sz", Type::Prim(PrimType::I64));
                        dims.push(SubExp::Var(p.name.clone()));
                        size_params.push((p, d.clone()));
                    } else {
                        dims.push(d.clone());
                    }
                }
                let p = self.param("acc", t.with_shape(dims));
                value_params.push((p, s.clone()));
            }
            let pv = init_v
                .rebuild(
                    &mut value_params
                        .iter()
                        .map(|(p, _)| (SubExp::Var(p.name.clone()), p.ty.clone())),
                )
                .ok_or_else(|| LowerError::internal(Some(span), "loop structure"))?;
            let mut cond_param = None;
            if let AstLoopForm::While(c) = form {
                let at_init = self.bind_pat(pat, init_v.clone(), ctx.clone())?;
                let c0 = atom(&self.exp(c, &at_init)?, c.span)?;
                cond_param = Some((self.param("cond", Type::Prim(PrimType::Bool)), c0));
            }
            let loop_var = match form {
                AstLoopForm::For { .. } | AstLoopForm::ForIn { .. } => {
                    let t = bound.as_ref().map_or(PrimType::I64, |b| self.prim_of(b));
                    let name = self.fresh("i");
                    self.declare(&name, Type::Prim(t));
                    Some((name, t))
                }
                AstLoopForm::While(_) => None,
            };
            let (stms, (nv, cond_next)) = self.block(|this| {
                let mut inner = this.bind_pat(pat, pv.clone(), ctx.clone())?;
                match form {
                    AstLoopForm::For { var, .. } => {
                        if let Some((i, t)) = &loop_var {
                            inner = inner.bind(&var.name, Value::prim(SubExp::Var(i.clone()), *t));
                        }
                    }
                    AstLoopForm::ForIn { pat: xp, .. } => {
                        if let (Some((i, _)), Some(arr)) = (&loop_var, &array) {
                            let x = this.index_leaves(arr, &[SubExp::Var(i.clone())])?;
                            inner = this.bind_pat(xp, x, inner)?;
                        }
                    }
                    AstLoopForm::While(_) => {}
                }
                let nv = this.exp(body, &inner)?;
                let cond_next = match form {
                    AstLoopForm::While(c) => {
                        let after = this.bind_pat(pat, nv.clone(), ctx.clone())?;
                        Some(atom(&this.exp(c, &after)?, c.span)?)
                    }
                    _ => None,
                };
                Ok((nv, cond_next))
            })?;
            let res = nv.leaves();
            if res.len() != value_params.len() {
                return Err(LowerError::internal(
                    Some(span),
                    "loop body of another shape",
                ));
            }
            let mut changed = false;
            for (i, ((_, rt), (p, _))) in res.iter().zip(&value_params).enumerate() {
                if rt.elem() != p.ty.elem() || rt.rank() != p.ty.rank() {
                    return Err(LowerError::internal(
                        Some(span),
                        format!("loop parameter {} becomes {rt}", p.ty),
                    ));
                }
                for (j, (a, b)) in rt.shape().iter().zip(p.ty.shape()).enumerate() {
                    if !variant[i][j] && a != b {
                        variant[i][j] = true;
                        changed = true;
                    }
                }
            }
            if changed {
                continue;
            }
            // Next values of the size parameters: the result dimensions they stand for.
            let mut results = Vec::new();
            for (i, (_, rt)) in res.iter().enumerate() {
                for (j, d) in rt.shape().iter().enumerate() {
                    if variant[i][j] {
                        results.push(d.clone());
                    }
                }
            }
            results.extend(res.iter().map(|(s, _)| s.clone()));
            let mut params = size_params;
            let n_sizes = params.len();
            params.extend(value_params);
            let lform = match (&loop_var, &cond_param) {
                (Some((i, _)), _) => LoopForm::For {
                    var: i.clone(),
                    bound: bound.clone().unwrap_or(SubExp::i64(0)),
                },
                (None, Some((c, _))) => LoopForm::While {
                    cond: c.name.clone(),
                },
                (None, None) => return Err(LowerError::internal(Some(span), "loop form")),
            };
            if let (Some(c), Some(next)) = (cond_param, cond_next) {
                params.push(c);
                results.push(next);
            }
            let names: Vec<Name> = params.iter().map(|(p, _)| p.name.clone()).collect();
            let ret: Vec<ExtType> = params
                .iter()
                .map(|(p, _)| {
                    p.ty.map_dims(|d| {
                        match d.as_var().and_then(|v| names.iter().position(|n| n == v)) {
                            Some(k) => ExtSize::Ext(k),
                            None => ExtSize::Free(d.clone()),
                        }
                    })
                })
                .collect();
            let outs = self.bind_ext(
                "loop",
                &ret,
                IExp::Loop {
                    params,
                    form: lform,
                    body: Body::new(stms, results),
                },
            );
            let values: Vec<(SubExp, Type)> = outs
                .into_iter()
                .skip(n_sizes)
                .take(init_leaves.len())
                .collect();
            return init_v
                .rebuild(&mut values.into_iter())
                .ok_or_else(|| LowerError::internal(Some(span), "loop structure"));
        }
        Err(LowerError::unsupported(
            Some(span),
            "a loop whose array sizes could not be determined",
        ))
    }
}
