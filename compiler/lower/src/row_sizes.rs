//! Maps whose lambda computes the size of its result from its argument (`\xs ys -> opaque
//! (concat xs ys)`, `replicate (n / 2) x`): Futhark's arrays are regular, so every row has
//! the size of the first. The lambda is applied to the first row before the map, in host
//! code, to learn those sizes (0 for an empty map), and the map's rows are coerced to them
//! (a checked reshape, failing as a size coercion does when a row differs).

use std::cell::RefCell;

use futhark_ir::soacs::{CmpOp, Exp as IExp, SubExp, Type};
use futhark_ir::types::PrimType;
use futhark_syntax::Span;

use crate::error::{LResult, LowerError};
use crate::exp::atom;
use crate::state::Lowerer;
use crate::value::Value;

/// The error [`Lowerer::make_lambda`] gives for such a lambda.
pub const IRREGULAR: &str =
    "a lambda whose result size depends on its argument (an irregular array)";

impl<'a> Lowerer<'a> {
    /// The types of `f`'s results on the first row of `arr` (of outer size `w`), with every
    /// size 0 when `arr` is empty.
    pub fn first_row_types(
        &mut self,
        f: &Value<'a>,
        arr: &Value<'a>,
        w: &SubExp,
        span: Span,
    ) -> LResult<Vec<Type>> {
        let nonempty = self.bind(
            "nonempty",
            Type::Prim(PrimType::Bool),
            IExp::CmpOp(CmpOp::SLt, SubExp::i64(0), w.clone()),
        );
        let shapes: RefCell<Vec<Type>> = RefCell::new(Vec::new());
        let dims = self.if_value(
            nonempty,
            |this| {
                let x = this.index_leaves(arr, &[SubExp::i64(0)])?;
                let r = this.apply_in_intrinsic(f.clone(), vec![x], span)?;
                let leaves = r.leaves();
                let mut ds = Vec::new();
                for (_, t) in &leaves {
                    ds.extend(
                        t.shape()
                            .iter()
                            .map(|d| Value::prim(d.clone(), PrimType::I64)),
                    );
                }
                *shapes.borrow_mut() = leaves.into_iter().map(|(_, t)| t).collect();
                Ok(Value::Record(
                    ds.into_iter()
                        .enumerate()
                        .map(|(i, d)| (i.to_string(), d))
                        .collect(),
                ))
            },
            |_| {
                let n: usize = shapes.borrow().iter().map(Type::rank).sum();
                Ok(Value::Record(
                    (0..n)
                        .map(|i| (i.to_string(), Value::prim(SubExp::i64(0), PrimType::I64)))
                        .collect(),
                ))
            },
            span,
        )?;
        let mut dims = match dims {
            Value::Record(fs) => fs.into_iter().map(|(_, v)| v),
            _ => return Err(LowerError::internal(Some(span), "first row sizes")),
        };
        let mut out = Vec::new();
        for t in shapes.into_inner() {
            let mut shape = Vec::new();
            for _ in 0..t.rank() {
                let d = dims
                    .next()
                    .ok_or_else(|| LowerError::internal(Some(span), "first row sizes"))?;
                shape.push(atom(&d, span)?);
            }
            out.push(t.with_shape(shape));
        }
        Ok(out)
    }
}

impl<'a> Lowerer<'a> {
    /// [`Lowerer::make_lambda`] for a function applied to the values `args` themselves
    /// (the AD intrinsics): when its result sizes are computed from the arguments, `f` is
    /// applied to `args` once in the enclosing code to learn them.
    pub fn make_lambda_at(
        &mut self,
        f: &Value<'a>,
        args: &[Value<'a>],
        span: Span,
    ) -> LResult<(futhark_ir::soacs::Lambda, Value<'a>)> {
        match self.make_lambda(f, args, None, span) {
            Err(e) if e.message == IRREGULAR => {
                let r = self.apply_in_intrinsic(f.clone(), args.to_vec(), span)?;
                let want: Vec<Type> = r.leaves().into_iter().map(|(_, t)| t).collect();
                self.make_lambda(f, args, Some(&want), span)
            }
            r => r,
        }
    }
}
