//! Result sizes of specialised functions as formulas of their parameters.
//!
//! A function's result sizes that are not parameters are existential at its calls (`[?0]t`),
//! so a call in a lambda gives a result whose size the lambda computes — an irregular array
//! as far as the enclosing `map` can tell (`map2 concat xss yss`). When such a size is
//! arithmetic on the parameters (`n + m` for `concat`), each call also computes it from its
//! arguments and coerces the (one-dimensional) result to it: a size the lambda can then
//! hoist out of the `map` like any other.

use futhark_ir::soacs::{BinOp, Exp as IExp, ExtSize, ExtType, Stm, SubExp, Type};
use futhark_ir::types::PrimType;

use crate::state::{Lowerer, Spec};

/// How a result size is computed from a function's parameters.
#[derive(Clone, Debug)]
pub enum Formula {
    Param(usize),
    Const(SubExp),
    Bin(BinOp, Box<Formula>, Box<Formula>),
}

/// One formula (or none) per existential result size `Ext(i)` of a function whose body is
/// `stms`, results `leaves` and parameters `params` (in the order `ret_types` numbers them).
pub fn size_formulas(
    stms: &[Stm],
    leaves: &[(SubExp, Type)],
    params: &[String],
) -> Vec<Option<Formula>> {
    let mut exts: Vec<SubExp> = Vec::new();
    for (_, t) in leaves {
        for d in t.shape() {
            let is_param = d.as_var().is_some_and(|v| params.contains(v));
            if matches!(d, SubExp::Var(_)) && !is_param && !exts.contains(d) {
                exts.push(d.clone());
            }
        }
    }
    exts.iter().map(|d| formula(d, stms, params, 0)).collect()
}

fn formula(d: &SubExp, stms: &[Stm], params: &[String], depth: usize) -> Option<Formula> {
    let v = match d {
        SubExp::Const(_) => return Some(Formula::Const(d.clone())),
        SubExp::Var(v) => v,
    };
    if let Some(i) = params.iter().position(|p| p == v) {
        return Some(Formula::Param(i));
    }
    if depth > 16 {
        return None;
    }
    let stm = stms
        .iter()
        .find(|s| s.pat.ctx.is_empty() && s.pat.elems.len() == 1 && &s.pat.elems[0].name == v)?;
    match &stm.exp {
        IExp::SubExp(x) => formula(x, stms, params, depth + 1),
        IExp::BinOp(
            op @ (BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::SMax | BinOp::SMin),
            a,
            b,
        ) => Some(Formula::Bin(
            *op,
            Box::new(formula(a, stms, params, depth + 1)?),
            Box::new(formula(b, stms, params, depth + 1)?),
        )),
        _ => None,
    }
}

impl<'a> Lowerer<'a> {
    /// The results of a call of `spec` with `args` (bound with result types `ret`), the
    /// one-dimensional ones whose size has a formula coerced to that size computed here.
    pub fn pin_result_sizes(
        &mut self,
        spec: &Spec<'a>,
        args: &[SubExp],
        ret: &[ExtType],
        outs: Vec<(SubExp, Type)>,
    ) -> Vec<(SubExp, Type)> {
        outs.into_iter()
            .zip(ret)
            .map(|((s, t), rt)| {
                let (Some(ExtSize::Ext(i)), 1, Some(arr)) =
                    (rt.shape().first(), rt.rank(), s.as_var().cloned())
                else {
                    return (s, t);
                };
                let Some(Some(f)) = spec.size_formulas.get(*i) else {
                    return (s, t);
                };
                let Some(n) = self.eval_formula(f, args) else {
                    return (s, t);
                };
                let nt = t.with_shape(vec![n.clone()]);
                let r = self.bind(
                    "sized",
                    nt.clone(),
                    IExp::Reshape {
                        shape: vec![n],
                        arr,
                    },
                );
                (r, nt)
            })
            .collect()
    }

    fn eval_formula(&mut self, f: &Formula, args: &[SubExp]) -> Option<SubExp> {
        Some(match f {
            Formula::Param(i) => args.get(*i)?.clone(),
            Formula::Const(c) => c.clone(),
            Formula::Bin(op, a, b) => {
                let a = self.eval_formula(a, args)?;
                let b = self.eval_formula(b, args)?;
                self.bind("size", Type::Prim(PrimType::I64), IExp::BinOp(*op, a, b))
            }
        })
    }
}
