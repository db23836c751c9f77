//! `flatmap f xs`: every element's segment concatenated, with the segments' lengths, start
//! flags, offsets and fixed values (the prelude describes the five results).
//!
//! Lowered as SOACs that the kernel pipeline flattens: a `map` gives each element's segment
//! length and fixed value, an inclusive `scan` and a `reduce` of the lengths give the
//! offsets and the total `m`, and a `map` over `iota m` finds each position's segment by a
//! binary search of the offsets (the last segment starting at or before it, which is never
//! empty), applies `f` to that segment's element again and takes the position's element of
//! the segment. Work O(m · cost of f); no array of thread-computed size survives unless
//! `f` itself builds one (then extraction falls back as for any such map).

use std::rc::Rc;

use futhark_ir::soacs::{
    BinOp, Body, CmpOp, DimIndex, Exp as IExp, ExtType, LoopForm, Param, Soac, SubExp, Type,
};
use futhark_ir::types::PrimType;
use futhark_syntax::Span;

use crate::error::{LResult, LowerError};
use crate::soac::{names, row_of};
use crate::state::Lowerer;
use crate::value::{Closure, Value};

/// The segment and the fixed value of one result of `f`.
fn split<'a>(r: Value<'a>, span: Span) -> LResult<(Value<'a>, Value<'a>)> {
    match (r.field("0"), r.field("1")) {
        (Some(seg), Some(c)) => Ok((seg.clone(), c.clone())),
        _ => Err(LowerError::internal(Some(span), "flatmap function result")),
    }
}

impl<'a> Lowerer<'a> {
    pub fn flatmap(&mut self, f: &Value<'a>, xs: &Value<'a>, span: Span) -> LResult<Value<'a>> {
        let (n, arr) = self.aligned(xs, span)?;
        let i64_t = Type::Prim(PrimType::I64);
        let row = row_of(&arr);
        let arrs = names(&arr, span)?;
        // Lengths and fixed values.
        let (lam, res) =
            self.lambda_with(std::slice::from_ref(&row), None, span, |this, vals| {
                let r = this.apply_in_intrinsic(f.clone(), vals, span)?;
                let (seg, c) = split(r, span)?;
                let len = seg.outer_dim().ok_or_else(|| {
                    LowerError::unsupported(Some(span), "`flatmap` of segments without data")
                })?;
                Ok(Value::tuple(vec![Value::prim(len, PrimType::I64), c]))
            })?;
        let ts = lam.ret.iter().map(|t| t.array_of(n.clone())).collect();
        let outs = self.bind_soac(
            ts,
            Soac::Map {
                w: n.clone(),
                lam,
                arrs: arrs.clone(),
            },
        );
        let res = res
            .rebuild(&mut outs.into_iter())
            .ok_or_else(|| LowerError::internal(Some(span), "flatmap lengths"))?;
        let (lens, cs) = split(res, span)?;
        // Offsets and the total.
        let plus = Value::Fun(Rc::new(Closure::Op("+".into(), None)));
        let zero = Value::prim(SubExp::i64(0), PrimType::I64);
        let ends = self.soac_scan(&plus, &zero, &lens, span)?;
        let m = self.soac_reduce(&plus, &zero, &lens, true, span)?;
        let m = crate::exp::atom(&m, span)?;
        let pairs = Value::tuple(vec![ends, lens.clone()]);
        let (lam, res) = self.lambda_with(&[row_of(&pairs)], None, span, |this, vals| {
            let (e, l) = split(vals[0].clone(), span)?;
            let e = crate::exp::atom(&e, span)?;
            let l = crate::exp::atom(&l, span)?;
            Ok(Value::prim(this.sub64(e, l), PrimType::I64))
        })?;
        let outs = self.bind_soac(
            vec![Type::array(PrimType::I64, vec![n.clone()])],
            Soac::Map {
                w: n.clone(),
                lam,
                arrs: names(&pairs, span)?,
            },
        );
        let offsets = res
            .rebuild(&mut outs.into_iter())
            .ok_or_else(|| LowerError::internal(Some(span), "flatmap offsets"))?;
        let off_arr = crate::exp::atom(&offsets, span)?;
        let SubExp::Var(off_name) = off_arr else {
            return Err(LowerError::internal(Some(span), "flatmap offsets"));
        };
        // Flags and elements, per position.
        let pos = self.bind(
            "pos",
            Type::array(PrimType::I64, vec![m.clone()]),
            IExp::Iota {
                n: m.clone(),
                start: SubExp::i64(0),
                stride: SubExp::i64(1),
                ty: PrimType::I64,
            },
        );
        let SubExp::Var(pos_name) = pos else {
            return Err(LowerError::internal(Some(span), "flatmap positions"));
        };
        let j_row = Value::prim(SubExp::i64(0), PrimType::I64);
        let (lam, res) = self.lambda_with(&[j_row], None, span, |this, vals| {
            let j = crate::exp::atom(&vals[0], span)?;
            let s = this.segment_of(&j, &off_name, &n);
            let off = this.bind(
                "seg_off",
                i64_t.clone(),
                IExp::Index(off_name.clone(), vec![DimIndex::Fix(s.clone())]),
            );
            let k = this.sub64(j.clone(), off.clone());
            let flag = this.bind(
                "seg_start",
                Type::Prim(PrimType::Bool),
                IExp::CmpOp(CmpOp::Eq, j, off),
            );
            let x = this.index_leaves(&arr, &[s])?;
            let r = this.apply_in_intrinsic(f.clone(), vec![x], span)?;
            let (seg, _) = split(r, span)?;
            let elem = this.index_leaves(&seg, &[k])?;
            Ok(Value::tuple(vec![Value::prim(flag, PrimType::Bool), elem]))
        })?;
        let ts = lam.ret.iter().map(|t| t.array_of(m.clone())).collect();
        let outs = self.bind_soac(
            ts,
            Soac::Map {
                w: m,
                lam,
                arrs: vec![pos_name],
            },
        );
        let res = res
            .rebuild(&mut outs.into_iter())
            .ok_or_else(|| LowerError::internal(Some(span), "flatmap elements"))?;
        let (flags, elems) = split(res, span)?;
        Ok(Value::tuple(vec![lens, flags, offsets, elems, cs]))
    }

    /// The last `s < n` with `offsets[s] <= j` (`offsets` non-decreasing, `offsets[0] = 0`):
    /// a binary search of 64 halvings.
    fn segment_of(&mut self, j: &SubExp, offsets: &str, n: &SubExp) -> SubExp {
        let i64_t = Type::Prim(PrimType::I64);
        let lo = self.param("lo", i64_t.clone());
        let hi = self.param("hi", i64_t.clone());
        let it = self.fresh("halving");
        self.declare(&it, i64_t.clone());
        let (stms, next) = self
            .block(|this| {
                let sum = this.add64(SubExp::Var(lo.name.clone()), SubExp::Var(hi.name.clone()));
                let mid = this.bind(
                    "mid",
                    i64_t.clone(),
                    IExp::BinOp(BinOp::SQuot, sum, SubExp::i64(2)),
                );
                let at = this.bind(
                    "mid_off",
                    i64_t.clone(),
                    IExp::Index(offsets.to_string(), vec![DimIndex::Fix(mid.clone())]),
                );
                let le = this.bind(
                    "before",
                    Type::Prim(PrimType::Bool),
                    IExp::CmpOp(CmpOp::SLe, at, j.clone()),
                );
                let ret = vec![ExtType::Prim(PrimType::I64), ExtType::Prim(PrimType::I64)];
                let then_body =
                    Body::new(Vec::new(), vec![mid.clone(), SubExp::Var(hi.name.clone())]);
                let else_body = Body::new(Vec::new(), vec![SubExp::Var(lo.name.clone()), mid]);
                let r = this.bind_ext(
                    "halve",
                    &ret,
                    IExp::If {
                        cond: le,
                        then_body,
                        else_body,
                        ret: ret.clone(),
                    },
                );
                Ok(r.into_iter().map(|(s, _)| s).collect::<Vec<_>>())
            })
            .unwrap_or_default();
        let params: Vec<(Param, SubExp)> = vec![(lo, SubExp::i64(0)), (hi, n.clone())];
        let ret = vec![ExtType::Prim(PrimType::I64), ExtType::Prim(PrimType::I64)];
        let outs = self.bind_ext(
            "search",
            &ret,
            IExp::Loop {
                params,
                form: LoopForm::For {
                    var: it,
                    bound: SubExp::i64(64),
                },
                body: Body::new(stms, next),
            },
        );
        outs[0].0.clone()
    }
}
