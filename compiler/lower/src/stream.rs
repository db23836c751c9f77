//! The accumulator intrinsics: `scatter_stream dest f xs` and `hist_stream dest op ne f xs`
//! thread an accumulator over `dest` through `f` for each element of `xs` in order, and
//! `acc_write acc i v` (inside `f`) writes `v` to bucket `i` — or combines it with `op`
//! as `op old v` — when `i` is in range, and does nothing otherwise.
//!
//! Lowered as the interpreter defines them: a sequential `for` loop over the elements whose
//! parameters are `dest`'s arrays; the accumulator is the array itself and `acc_write` an
//! in-place update behind a range test. Inside a kernel thread the loop runs in the thread;
//! at host level its body's SOACs become kernels. While `f` is being lowered every call is
//! inlined, so each `acc_write` sees the operator of the stream it writes to.

use futhark_ir::soacs::{
    BinOp, Body, CmpOp, DimIndex, Exp as IExp, ExtType, LoopForm, Param, SubExp, Type,
};
use futhark_ir::types::{PrimType, PrimValue};
use futhark_syntax::Span;

use crate::error::{LResult, LowerError};
use crate::exp::atom;
use crate::state::Lowerer;
use crate::value::Value;

impl<'a> Lowerer<'a> {
    /// `scatter_stream` (`op` is `None`) or `hist_stream`.
    pub fn acc_stream(
        &mut self,
        dest: &Value<'a>,
        op: Option<Value<'a>>,
        f: &Value<'a>,
        xs: &Value<'a>,
        span: Span,
    ) -> LResult<Value<'a>> {
        let n = xs.outer_dim().ok_or_else(|| {
            LowerError::unsupported(Some(span), "an accumulator stream over values without data")
        })?;
        let leaves = dest.leaves();
        let params: Vec<Param> = leaves
            .iter()
            .map(|(_, t)| self.param("acc", t.clone()))
            .collect();
        let acc = dest
            .rebuild(
                &mut params
                    .iter()
                    .map(|p| (SubExp::Var(p.name.clone()), p.ty.clone())),
            )
            .ok_or_else(|| LowerError::internal(Some(span), "accumulator structure"))?;
        let i = self.fresh("i");
        self.declare(&i, Type::Prim(PrimType::I64));
        self.acc_ops.push(op);
        let r = self.block(|this| {
            let x = this.index_leaves(xs, &[SubExp::Var(i.clone())])?;
            let r = this.apply_in_intrinsic(f.clone(), vec![acc, x], span)?;
            let res = r.leaves();
            if res.len() != params.len() {
                return Err(LowerError::internal(Some(span), "accumulator result"));
            }
            Ok(res.into_iter().map(|(s, _)| s).collect::<Vec<_>>())
        });
        self.acc_ops.pop();
        let (stms, results) = r?;
        let ret: Vec<ExtType> = params.iter().map(|p| p.ty.to_ext()).collect();
        let outs = self.bind_ext(
            "stream",
            &ret,
            IExp::Loop {
                params: params
                    .into_iter()
                    .zip(leaves.iter().map(|(s, _)| s.clone()))
                    .collect(),
                form: LoopForm::For { var: i, bound: n },
                body: Body::new(stms, results),
            },
        );
        dest.rebuild(&mut outs.into_iter())
            .ok_or_else(|| LowerError::internal(Some(span), "stream result"))
    }

    /// `acc_write acc i v` inside the function of the innermost stream.
    pub fn acc_write(
        &mut self,
        acc: &Value<'a>,
        i: &Value<'a>,
        v: &Value<'a>,
        span: Span,
    ) -> LResult<Value<'a>> {
        let Some(op) = self.acc_ops.last().cloned() else {
            return Err(LowerError::unsupported(
                Some(span),
                "`acc_write` outside an accumulator stream",
            ));
        };
        let i = atom(i, span)?;
        let i = self.int_to_i64(i);
        let len = acc
            .outer_dim()
            .ok_or_else(|| LowerError::internal(Some(span), "accumulator without data"))?;
        let bool_t = Type::Prim(PrimType::Bool);
        let lo = self.bind(
            "acc_lo",
            bool_t.clone(),
            IExp::CmpOp(CmpOp::SLe, SubExp::Const(PrimValue::I64(0)), i.clone()),
        );
        let hi = self.bind(
            "acc_hi",
            bool_t.clone(),
            IExp::CmpOp(CmpOp::SLt, i.clone(), len),
        );
        let inside = self.bind("acc_in", bool_t, IExp::BinOp(BinOp::LogAnd, lo, hi));
        let acc2 = acc.clone();
        self.if_value(
            inside,
            |this| {
                let new = match &op {
                    Some(op) => {
                        let old = this.index_leaves(acc, std::slice::from_ref(&i))?;
                        this.apply_in_intrinsic(op.clone(), vec![old, v.clone()], span)?
                    }
                    None => v.clone(),
                };
                this.write_row(acc, &i, &new, span)
            },
            |_| Ok(acc2),
            span,
        )
    }

    /// `acc with [i] = new`, leaf by leaf.
    fn write_row(
        &mut self,
        acc: &Value<'a>,
        i: &SubExp,
        new: &Value<'a>,
        span: Span,
    ) -> LResult<Value<'a>> {
        let news = new.leaves();
        let mut it = news.into_iter();
        acc.map_leaves(&mut |s, t| {
            let (nv, nt) = it
                .next()
                .ok_or_else(|| LowerError::internal(Some(span), "accumulator value"))?;
            let nv = self
                .coerce_atom(nv, &nt, &t.row())
                .map_err(|e| e.at(span))?;
            let arr = s
                .as_var()
                .cloned()
                .ok_or_else(|| LowerError::internal(Some(span), "accumulator constant"))?;
            let r = self.bind(
                "acc_upd",
                t.clone(),
                IExp::Update(arr, vec![DimIndex::Fix(i.clone())], nv),
            );
            Ok((r, t.clone()))
        })
    }
}
