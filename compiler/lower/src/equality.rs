//! `==` on arrays, as the interpreter defines it: equal shapes and equal elements (floats
//! compared with `==`). The shapes are compared on the spot; only when they agree are both
//! arrays flattened and compared elementwise by a `redomap` (`map (==)`, `reduce (&&)`).

use futhark_ir::soacs::{BinOp, Body, CmpOp, Exp as IExp, Lambda, Soac, SubExp, Type};
use futhark_ir::types::PrimType;
use futhark_syntax::Span;

use crate::error::{LResult, LowerError};
use crate::exp::atom;
use crate::state::Lowerer;
use crate::value::Value;

impl<'a> Lowerer<'a> {
    /// Whether two array leaves of the same rank and element type are equal.
    pub fn array_equal(
        &mut self,
        x: &SubExp,
        tx: &Type,
        y: &SubExp,
        ty: &Type,
        span: Span,
    ) -> LResult<SubExp> {
        let bool_t = Type::Prim(PrimType::Bool);
        if tx.rank() != ty.rank() {
            return Err(LowerError::internal(
                Some(span),
                "`==` on arrays of different ranks",
            ));
        }
        let mut same = SubExp::bool(true);
        for (a, b) in tx.shape().iter().zip(ty.shape()) {
            if a == b {
                continue;
            }
            let e = self.bind(
                "same_dim",
                bool_t.clone(),
                IExp::CmpOp(CmpOp::Eq, a.clone(), b.clone()),
            );
            same = if same == SubExp::bool(true) {
                e
            } else {
                self.bind(
                    "same_shape",
                    bool_t.clone(),
                    IExp::BinOp(BinOp::LogAnd, same, e),
                )
            };
        }
        let (xn, yn) = match (x.as_var(), y.as_var()) {
            (Some(a), Some(b)) => (a.clone(), b.clone()),
            _ => return Err(LowerError::internal(Some(span), "`==` on array constants")),
        };
        let (tx, elem) = (tx.clone(), tx.elem());
        let v = self.if_value(
            same,
            |this| {
                let mut total = SubExp::i64(1);
                for d in tx.shape() {
                    total = this.mul64(total, d.clone());
                }
                let flat_t = Type::array(elem, vec![total.clone()]);
                let flat = |this: &mut Self, arr: String| -> String {
                    let r = this.bind(
                        "eq_flat",
                        flat_t.clone(),
                        IExp::Reshape {
                            shape: vec![total.clone()],
                            arr,
                        },
                    );
                    r.as_var().cloned().unwrap_or_default()
                };
                let (fx, fy) = (flat(this, xn.clone()), flat(this, yn.clone()));
                let map = this.elem_lambda(elem, |this, a, b| {
                    this.bind(
                        "eq",
                        Type::Prim(PrimType::Bool),
                        IExp::CmpOp(CmpOp::Eq, a, b),
                    )
                })?;
                let op = this.elem_lambda(PrimType::Bool, |this, a, b| {
                    this.bind(
                        "and",
                        Type::Prim(PrimType::Bool),
                        IExp::BinOp(BinOp::LogAnd, a, b),
                    )
                })?;
                let outs = this.bind_soac(
                    vec![Type::Prim(PrimType::Bool)],
                    Soac::Reduce {
                        w: total,
                        comm: true,
                        op,
                        nes: vec![SubExp::bool(true)],
                        map,
                        arrs: vec![fx, fy],
                    },
                );
                let r = outs
                    .into_iter()
                    .next()
                    .map(|(s, _)| s)
                    .ok_or_else(|| LowerError::internal(Some(span), "array equality"))?;
                Ok(Value::prim(r, PrimType::Bool))
            },
            |_| Ok(Value::prim(SubExp::bool(false), PrimType::Bool)),
            span,
        )?;
        atom(&v, span)
    }

    /// `\a b -> f a b` on two scalars of type `t`, giving a `bool`.
    fn elem_lambda(
        &mut self,
        t: PrimType,
        f: impl FnOnce(&mut Self, SubExp, SubExp) -> SubExp,
    ) -> LResult<Lambda> {
        let a = self.param("a", Type::Prim(t));
        let b = self.param("b", Type::Prim(t));
        let (av, bv) = (SubExp::Var(a.name.clone()), SubExp::Var(b.name.clone()));
        let (stms, r) = self.block(|this| Ok(f(this, av, bv)))?;
        Ok(Lambda {
            params: vec![a, b],
            body: Body::new(stms, vec![r]),
            ret: vec![Type::Prim(PrimType::Bool)],
        })
    }
}
