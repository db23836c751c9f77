//! Patterns: binding the names of an irrefutable pattern to the parts of a value, and
//! testing a `match` case's pattern against a value.

use futhark_ir::soacs::{BinOp, CmpOp, Exp as IExp, SubExp, Type};
use futhark_ir::types::{PrimType, PrimValue};
use futhark_syntax::Span;
use futhark_syntax::ast::{Pat, PatKind, ProjStep, UpdateStep};

use crate::error::{LResult, LowerError};
use crate::exp::project;
use crate::state::Lowerer;
use crate::value::{Ctx, Value};

impl<'a> Lowerer<'a> {
    /// Binds the names of `p` to the parts of `v`.
    pub fn bind_pat(&mut self, p: &'a Pat, v: Value<'a>, ctx: Ctx<'a>) -> LResult<Ctx<'a>> {
        match &p.kind {
            PatKind::Id(x) => {
                let mut ctx = ctx.bind(&x.name, v.clone());
                if let Some(t) = self.info(x.span)?.exp_types.get(&x.span) {
                    let mut found = Vec::new();
                    crate::apply::size_vars_in_type(t, &v, 0, &mut found);
                    for (vn, d) in found {
                        ctx = ctx.bind_size_id(vn.id, d);
                    }
                }
                Ok(ctx)
            }
            PatKind::Wildcard | PatKind::Literal(_) => Ok(ctx),
            PatKind::Parens(q) | PatKind::Attr(_, q) | PatKind::Ascript(q, _) => {
                self.bind_pat(q, v, ctx)
            }
            PatKind::Tuple(ps) => {
                let comps = if ps.is_empty() {
                    Vec::new()
                } else {
                    v.components()
                };
                if comps.len() != ps.len() {
                    return Err(LowerError::internal(Some(p.span), "tuple pattern arity"));
                }
                let mut ctx = ctx;
                for (q, c) in ps.iter().zip(comps) {
                    ctx = self.bind_pat(q, c, ctx)?;
                }
                Ok(ctx)
            }
            PatKind::Record(fs) => {
                let mut ctx = ctx;
                for (name, q) in fs {
                    let f = project(v.clone(), &name.name, p.span)?;
                    ctx = self.bind_pat(q, f, ctx)?;
                }
                Ok(ctx)
            }
            PatKind::Constr(c, ps) => {
                let Value::Sum(layout, _, payloads) = &v else {
                    return Err(LowerError::internal(
                        Some(p.span),
                        "constructor pattern on a non-sum",
                    ));
                };
                let k = layout
                    .index(&c.name)
                    .ok_or_else(|| LowerError::internal(Some(p.span), "unknown constructor"))?;
                let mut ctx = ctx;
                for (q, pv) in ps.iter().zip(payloads[k].clone()) {
                    ctx = self.bind_pat(q, pv, ctx)?;
                }
                Ok(ctx)
            }
            PatKind::Error => Err(LowerError::internal(Some(p.span), "erroneous pattern")),
        }
    }

    /// The condition under which `v` matches `p` (`None`: always).
    pub fn pat_test(&mut self, p: &'a Pat, v: &Value<'a>) -> LResult<Option<SubExp>> {
        match &p.kind {
            PatKind::Id(_) | PatKind::Wildcard => Ok(None),
            PatKind::Parens(q) | PatKind::Attr(_, q) | PatKind::Ascript(q, _) => {
                self.pat_test(q, v)
            }
            PatKind::Literal(lit) => {
                let Value::Atom(s, t) = v else {
                    return Err(LowerError::internal(
                        Some(p.span),
                        "literal pattern on a non-scalar",
                    ));
                };
                let want = match t {
                    Type::Prim(pt) => *pt,
                    _ => {
                        return Err(LowerError::unsupported(
                            Some(p.span),
                            "array literal patterns",
                        ));
                    }
                };
                let c = self.literal(lit, Some(want))?;
                Ok(Some(self.bind(
                    "m",
                    Type::Prim(PrimType::Bool),
                    IExp::CmpOp(CmpOp::Eq, s.clone(), SubExp::Const(c)),
                )))
            }
            PatKind::Tuple(ps) => {
                let comps = if ps.is_empty() {
                    Vec::new()
                } else {
                    v.components()
                };
                let mut acc = None;
                for (q, c) in ps.iter().zip(comps) {
                    let t = self.pat_test(q, &c)?;
                    acc = self.and(acc, t);
                }
                Ok(acc)
            }
            PatKind::Record(fs) => {
                let mut acc = None;
                for (name, q) in fs {
                    let f = project(v.clone(), &name.name, p.span)?;
                    let t = self.pat_test(q, &f)?;
                    acc = self.and(acc, t);
                }
                Ok(acc)
            }
            PatKind::Constr(c, ps) => {
                let Value::Sum(layout, tag, payloads) = v else {
                    return Err(LowerError::internal(
                        Some(p.span),
                        "constructor pattern on a non-sum",
                    ));
                };
                let k = layout
                    .index(&c.name)
                    .ok_or_else(|| LowerError::internal(Some(p.span), "unknown constructor"))?;
                let tag = crate::exp::atom(tag, p.span)?;
                let mut acc = if layout.ctors.len() == 1 {
                    None
                } else {
                    Some(self.bind(
                        "is",
                        Type::Prim(PrimType::Bool),
                        IExp::CmpOp(CmpOp::Eq, tag, SubExp::Const(PrimValue::I8(k as i8))),
                    ))
                };
                for (q, pv) in ps.iter().zip(payloads[k].clone()) {
                    let t = self.pat_test(q, &pv)?;
                    acc = self.and(acc, t);
                }
                Ok(acc)
            }
            PatKind::Error => Err(LowerError::internal(Some(p.span), "erroneous pattern")),
        }
    }

    fn and(&mut self, a: Option<SubExp>, b: Option<SubExp>) -> Option<SubExp> {
        match (a, b) {
            (None, x) | (x, None) => x,
            (Some(x), Some(y)) => Some(self.bind(
                "m",
                Type::Prim(PrimType::Bool),
                IExp::BinOp(BinOp::LogAnd, x, y),
            )),
        }
    }

    /// `(.a.b[i])` applied to a value.
    pub fn project_steps(
        &mut self,
        mut v: Value<'a>,
        steps: &'a [ProjStep],
        ctx: &Ctx<'a>,
    ) -> LResult<Value<'a>> {
        for s in steps {
            v = match s {
                UpdateStep::Field(f) => project(v, &f.name, f.span)?,
                UpdateStep::Index(idx, span) => self.index_value(v, idx, *span, ctx)?,
            };
        }
        Ok(v)
    }

    /// The value bound to each name of a loop pattern (for `loop p for …` without `=`).
    pub fn value_of_pat(&mut self, p: &'a Pat, ctx: &Ctx<'a>, span: Span) -> LResult<Value<'a>> {
        match &p.kind {
            PatKind::Id(x) => self.name_value(&x.name, x.span, ctx),
            PatKind::Parens(q) | PatKind::Attr(_, q) | PatKind::Ascript(q, _) => {
                self.value_of_pat(q, ctx, span)
            }
            PatKind::Tuple(ps) => Ok(Value::tuple(
                ps.iter()
                    .map(|q| self.value_of_pat(q, ctx, span))
                    .collect::<LResult<_>>()?,
            )),
            PatKind::Record(fs) => Ok(Value::record(
                fs.iter()
                    .map(|(n, q)| Ok((n.name.clone(), self.value_of_pat(q, ctx, span)?)))
                    .collect::<LResult<_>>()?,
            )),
            _ => Err(LowerError::unsupported(
                Some(span),
                "a loop without initial values whose pattern is not made of names",
            )),
        }
    }
}
