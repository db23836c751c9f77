//! The flat (LMAD) view intrinsics: `flat_index_Nd arr offset n1 s1 …` reads the cells
//! `offset + Σ iₖ·sₖ` of a one-dimensional array as an N-dimensional array, and
//! `flat_update_Nd arr offset s1 … v` writes `v` there.
//!
//! Both become a `map` over the flattened index space computing each cell's position, with
//! the interpreter's check (`Flat index p out of bounds for array of length n.`, first
//! failure in row-major order) as an `Assert` inside it; the read is then a gather (a `map`
//! indexing the array) and the write a `scatter` of the flattened `v`.

use futhark_ir::soacs::{
    BinOp, Body, CmpOp, DimIndex, Exp as IExp, Lambda, Pat, Soac, SubExp, Type,
};
use futhark_ir::types::PrimType;
use futhark_syntax::Span;

use crate::error::{LResult, LowerError};
use crate::exp::atom;
use crate::state::Lowerer;
use crate::value::Value;

impl<'a> Lowerer<'a> {
    /// `flat_index_Nd`: `args` are the array, the offset, then (size, stride) pairs.
    pub fn flat_index(&mut self, args: &[Value<'a>], span: Span) -> LResult<Value<'a>> {
        let (arr, rest) = args
            .split_first()
            .ok_or_else(|| LowerError::internal(Some(span), "flat_index arguments"))?;
        let ints = self.i64_args(rest, span)?;
        let (offset, pairs) = ints
            .split_first()
            .ok_or_else(|| LowerError::internal(Some(span), "flat_index offset"))?;
        let dims: Vec<(SubExp, SubExp)> = pairs
            .chunks(2)
            .map(|c| (c[0].clone(), c.get(1).cloned().unwrap_or(SubExp::i64(0))))
            .collect();
        let len = self.outer_len(arr, span)?;
        let (total, pos) = self.flat_positions(offset, &dims, &len, span)?;
        let shape: Vec<SubExp> = dims.iter().map(|(n, _)| n.clone()).collect();
        let leaves = arr.leaves();
        let p = self.param("p", Type::Prim(PrimType::I64));
        let (stms, (res, ret)) = self.block(|this| {
            let mut res = Vec::new();
            let mut ret = Vec::new();
            for (s, t) in &leaves {
                let name = s
                    .as_var()
                    .cloned()
                    .ok_or_else(|| LowerError::internal(Some(span), "an array constant"))?;
                let rt = t.row();
                let r = this.located(span, |this| {
                    this.bind(
                        "flat_elem",
                        rt.clone(),
                        IExp::Index(name, vec![DimIndex::Fix(SubExp::Var(p.name.clone()))]),
                    )
                });
                res.push(r);
                ret.push(rt);
            }
            Ok((res, ret))
        })?;
        let ts: Vec<Type> = ret.iter().map(|t| t.array_of(total.clone())).collect();
        let lam = Lambda {
            params: vec![p.clone()],
            body: Body::new(stms, res),
            ret,
        };
        let outs = self.bind_soac(
            ts,
            Soac::Map {
                w: total,
                lam,
                arrs: vec![pos],
            },
        );
        let mut shaped = Vec::new();
        for (s, t) in outs {
            let mut sh = shape.clone();
            sh.extend(t.shape().iter().skip(1).cloned());
            shaped.push(self.reshape_leaf(&s, &t, sh, span)?);
        }
        arr.rebuild(&mut shaped.into_iter())
            .ok_or_else(|| LowerError::internal(Some(span), "flat_index result"))
    }

    /// `flat_update_Nd`: `args` are the array, the offset, the N strides, then the values.
    pub fn flat_update(&mut self, args: &[Value<'a>], span: Span) -> LResult<Value<'a>> {
        let (dest, rest) = args
            .split_first()
            .ok_or_else(|| LowerError::internal(Some(span), "flat_update arguments"))?;
        let (v, rest) = rest
            .split_last()
            .ok_or_else(|| LowerError::internal(Some(span), "flat_update values"))?;
        let ints = self.i64_args(rest, span)?;
        let (offset, strides) = ints
            .split_first()
            .ok_or_else(|| LowerError::internal(Some(span), "flat_update offset"))?;
        let vt = v.leaves().first().map(|(_, t)| t.clone()).ok_or_else(|| {
            LowerError::unsupported(Some(span), "`flat_update` of values without data")
        })?;
        let rank = strides.len();
        if vt.rank() < rank {
            return Err(LowerError::internal(Some(span), "flat_update value rank"));
        }
        let dims: Vec<(SubExp, SubExp)> = vt.shape()[..rank]
            .iter()
            .cloned()
            .zip(strides.iter().cloned())
            .collect();
        let len = self.outer_len(dest, span)?;
        let (total, pos) = self.flat_positions(offset, &dims, &len, span)?;
        let flat_v = v.map_leaves(&mut |s, t| {
            let mut sh = vec![total.clone()];
            sh.extend(t.shape()[rank..].iter().cloned());
            self.reshape_leaf(s, t, sh, span)
        })?;
        let is = Value::Atom(
            SubExp::Var(pos),
            Type::array(PrimType::I64, vec![total.clone()]),
        );
        self.soac_scatter(1, dest, &is, &flat_v, span)
    }

    fn i64_args(&mut self, vals: &[Value<'a>], span: Span) -> LResult<Vec<SubExp>> {
        vals.iter()
            .map(|v| {
                let s = atom(v, span)?;
                Ok(self.int_to_i64(s))
            })
            .collect()
    }

    fn outer_len(&self, arr: &Value<'a>, span: Span) -> LResult<SubExp> {
        arr.outer_dim().ok_or_else(|| {
            LowerError::unsupported(Some(span), "a flat view of an array without data")
        })
    }

    fn reshape_leaf(
        &mut self,
        s: &SubExp,
        t: &Type,
        shape: Vec<SubExp>,
        span: Span,
    ) -> LResult<(SubExp, Type)> {
        if t.shape() == shape.as_slice() {
            return Ok((s.clone(), t.clone()));
        }
        let arr = s
            .as_var()
            .cloned()
            .ok_or_else(|| LowerError::internal(Some(span), "reshaping a constant"))?;
        let rt = t.with_shape(shape.clone());
        let r = self.located(span, |this| {
            this.bind("flat_view", rt.clone(), IExp::Reshape { shape, arr })
        });
        Ok((r, rt))
    }

    /// The positions `offset + Σ iₖ·sₖ` over the index space `dims` (size, stride) in
    /// row-major order, each checked against `len` as the interpreter checks it: the number
    /// of cells and the `[total]i64` array of positions.
    fn flat_positions(
        &mut self,
        offset: &SubExp,
        dims: &[(SubExp, SubExp)],
        len: &SubExp,
        span: Span,
    ) -> LResult<(SubExp, String)> {
        let i64t = Type::Prim(PrimType::I64);
        let bool_t = Type::Prim(PrimType::Bool);
        let mut total = SubExp::i64(1);
        for (n, _) in dims {
            total = self.mul64(total, n.clone());
        }
        let iota = self.bind(
            "flat_iota",
            Type::array(PrimType::I64, vec![total.clone()]),
            IExp::Iota {
                n: total.clone(),
                start: SubExp::i64(0),
                stride: SubExp::i64(1),
                ty: PrimType::I64,
            },
        );
        let j = self.param("j", i64t.clone());
        let (stms, pos) = self.block(|this| {
            let mut rest = SubExp::Var(j.name.clone());
            let mut pos = offset.clone();
            for (k, (n, s)) in dims.iter().enumerate().rev() {
                let i = if k == 0 {
                    rest.clone()
                } else {
                    this.bind(
                        "flat_i",
                        i64t.clone(),
                        IExp::BinOp(BinOp::SRem, rest.clone(), n.clone()),
                    )
                };
                if k > 0 {
                    rest = this.bind(
                        "flat_rest",
                        i64t.clone(),
                        IExp::BinOp(BinOp::SQuot, rest.clone(), n.clone()),
                    );
                }
                let step = this.mul64(i, s.clone());
                pos = this.add64(pos, step);
            }
            let lo = this.bind(
                "flat_lo",
                bool_t.clone(),
                IExp::CmpOp(CmpOp::SLe, SubExp::i64(0), pos.clone()),
            );
            let hi = this.bind(
                "flat_hi",
                bool_t.clone(),
                IExp::CmpOp(CmpOp::SLt, pos.clone(), len.clone()),
            );
            let ok = this.bind(
                "flat_ok",
                bool_t.clone(),
                IExp::BinOp(BinOp::LogAnd, lo, hi),
            );
            this.located(span, |this| {
                this.emit(
                    Pat::default(),
                    IExp::Assert {
                        cond: ok,
                        msg: "Flat index {} out of bounds for array of length {}.".into(),
                        args: vec![pos.clone(), len.clone()],
                    },
                )
            });
            Ok(pos)
        })?;
        let lam = Lambda {
            params: vec![j],
            body: Body::new(stms, vec![pos]),
            ret: vec![i64t],
        };
        let arrs = vec![
            iota.as_var()
                .cloned()
                .ok_or_else(|| LowerError::internal(Some(span), "flat iota"))?,
        ];
        let outs = self.bind_soac(
            vec![Type::array(PrimType::I64, vec![total.clone()])],
            Soac::Map {
                w: total.clone(),
                lam,
                arrs,
            },
        );
        let pos = outs
            .into_iter()
            .next()
            .and_then(|(s, _)| s.as_var().cloned())
            .ok_or_else(|| LowerError::internal(Some(span), "flat positions"))?;
        Ok((total, pos))
    }
}
