//! The lowering entry points: `jvp2` inlined at a call, and `vjp2` as one forward pass per
//! input element dotted with the cotangent.

use futhark_ir::soacs::{
    BinOp, Body, ConvOp, DimIndex, Exp, ExtType, Lambda, LoopForm, Name, Pat, Soac, Stm, SubExp,
    Type,
};
use futhark_ir::types::{PrimType, PrimValue};

use crate::error::{LResult, LowerError};
use crate::state::Lowerer;

use super::{Jvp, const_of, zero_of};

impl<'a> Lowerer<'a> {
    /// A lambda applied to `xs` with tangents `dxs` (`None` for zero), its statements
    /// emitted in the current block: the primal results and their tangents.
    pub fn jvp_inline(
        &mut self,
        lam: &Lambda,
        xs: &[SubExp],
        dxs: &[Option<SubExp>],
    ) -> LResult<(Vec<SubExp>, Vec<SubExp>)> {
        let lam = futhark_ir::soacs::renamed_lambda(lam, &mut self.ns);
        // Tangents whose sizes are named differently from the parameters' are coerced.
        let mut dxs = dxs.to_vec();
        for (p, dx) in lam.params.iter().zip(dxs.iter_mut()) {
            if let Some(SubExp::Var(v)) = dx.clone()
                && p.ty.is_array()
                && self.type_of(&SubExp::Var(v.clone())).shape() != p.ty.shape()
            {
                *dx = Some(self.bind(
                    "coerce",
                    p.ty.clone(),
                    Exp::Reshape {
                        shape: p.ty.shape().to_vec(),
                        arr: v,
                    },
                ));
            }
        }
        let mut j = Jvp::new(self);
        let mut out = Vec::new();
        for ((p, x), dx) in lam.params.iter().zip(xs).zip(&dxs) {
            j.note(p);
            out.push(Stm::new(
                Pat::one(&p.name, p.ty.clone()),
                Exp::SubExp(x.clone()),
            ));
            if let Some(dx) = dx
                && p.ty.elem() != PrimType::Bool
            {
                j.tan.insert(p.name.clone(), dx.clone());
            }
        }
        let (stms, tans) = j.body(&lam.body)?;
        out.extend(stms);
        for s in out {
            self.emit(s.pat, s.exp);
        }
        Ok((lam.body.result.clone(), tans))
    }

    /// `vjp2`: for each element of each numeric leaf of the input, one forward pass with a
    /// one-hot tangent, dotted with the cotangent `dys` (a host loop per leaf).
    pub fn vjp_leaves(
        &mut self,
        lam: &Lambda,
        xs: &[(SubExp, Type)],
        dys: &[(SubExp, Type)],
    ) -> LResult<Vec<SubExp>> {
        let i64t = Type::Prim(PrimType::I64);
        let mut grads = Vec::new();
        for (j, (_, xt)) in xs.iter().enumerate() {
            let t = xt.elem();
            if t == PrimType::Bool {
                let g = match xt {
                    Type::Prim(_) => SubExp::Const(PrimValue::Bool(false)),
                    Type::Array(_, shape) => self.bind(
                        "grad",
                        xt.clone(),
                        Exp::Replicate {
                            shape: shape.clone(),
                            value: SubExp::Const(PrimValue::Bool(false)),
                        },
                    ),
                };
                grads.push(g);
                continue;
            }
            // n = number of elements of the leaf.
            let mut n = SubExp::i64(1);
            for d in xt.shape() {
                n = self.bind("n", i64t.clone(), Exp::BinOp(BinOp::Mul, n, d.clone()));
            }
            let gty = Type::Array(t, vec![n.clone()]);
            let zeros = self.bind(
                "grad0",
                gty.clone(),
                Exp::Replicate {
                    shape: vec![n.clone()],
                    value: zero_of(t),
                },
            );
            let g = self.param("g", gty.clone());
            let k = self.fresh("k");
            self.declare(&k, i64t.clone());
            let (stms, res) = self.block(|this| {
                // The one-hot tangent of leaf j.
                let dx = match xt {
                    Type::Prim(_) => const_of(t, 1.0),
                    Type::Array(_, shape) => {
                        let z = this.bind(
                            "onehot",
                            gty.clone(),
                            Exp::Replicate {
                                shape: vec![n.clone()],
                                value: zero_of(t),
                            },
                        );
                        let SubExp::Var(z) = z else {
                            return Err(LowerError::internal(None, "one-hot array"));
                        };
                        let z = this.bind(
                            "onehot",
                            gty.clone(),
                            Exp::Update(z, vec![DimIndex::Fix(SubExp::var(&k))], const_of(t, 1.0)),
                        );
                        let SubExp::Var(z) = z else {
                            return Err(LowerError::internal(None, "one-hot array"));
                        };
                        this.bind(
                            "onehot",
                            xt.clone(),
                            Exp::Reshape {
                                shape: shape.clone(),
                                arr: z,
                            },
                        )
                    }
                };
                let xs_atoms: Vec<SubExp> = xs.iter().map(|(s, _)| s.clone()).collect();
                let dxs: Vec<Option<SubExp>> = (0..xs.len())
                    .map(|i| if i == j { Some(dx.clone()) } else { None })
                    .collect();
                let (_, tans) = this.jvp_inline(lam, &xs_atoms, &dxs)?;
                let mut acc: Option<SubExp> = None;
                for ((dy, dyt), tn) in dys.iter().zip(&tans) {
                    let e = dyt.elem();
                    if e == PrimType::Bool {
                        continue;
                    }
                    let dot = match dyt {
                        Type::Prim(_) => this.bind(
                            "dot",
                            Type::Prim(e),
                            Exp::BinOp(BinOp::Mul, dy.clone(), tn.clone()),
                        ),
                        Type::Array(_, shape) => this.dot(dy, tn, e, shape)?,
                    };
                    let dot = this.convert(dot, e, t);
                    acc = Some(match acc {
                        None => dot,
                        Some(a) => this.bind("dot", Type::Prim(t), Exp::BinOp(BinOp::Add, a, dot)),
                    });
                }
                let dot = acc.unwrap_or(zero_of(t));
                let g2 = this.bind(
                    "grad",
                    gty.clone(),
                    Exp::Update(g.name.clone(), vec![DimIndex::Fix(SubExp::var(&k))], dot),
                );
                Ok(vec![g2])
            })?;
            let out = self.bind(
                "grad",
                gty.clone(),
                Exp::Loop {
                    params: vec![(g.clone(), zeros)],
                    form: LoopForm::For {
                        var: k.clone(),
                        bound: n.clone(),
                    },
                    body: Body::new(stms, res),
                },
            );
            let SubExp::Var(out) = out else {
                return Err(LowerError::internal(None, "gradient array"));
            };
            let g = match xt {
                Type::Prim(_) => self.bind(
                    "grad",
                    xt.clone(),
                    Exp::Index(out, vec![DimIndex::Fix(SubExp::i64(0))]),
                ),
                Type::Array(_, shape) => self.bind(
                    "grad",
                    xt.clone(),
                    Exp::Reshape {
                        shape: shape.clone(),
                        arr: out,
                    },
                ),
            };
            grads.push(g);
        }
        Ok(grads)
    }

    /// `[f 0, …, f (n-1)]` for a function giving values of the types `ts`, as a host loop
    /// filling arrays of `[n] ++ t`.
    pub fn per_row(
        &mut self,
        n: SubExp,
        ts: &[Type],
        mut f: impl FnMut(&mut Self, SubExp) -> LResult<Vec<SubExp>>,
    ) -> LResult<Vec<(SubExp, Type)>> {
        let i64t = Type::Prim(PrimType::I64);
        let mut params = Vec::new();
        let mut tys = Vec::new();
        for t in ts {
            let at = t.array_of(n.clone());
            let mut shape = vec![n.clone()];
            shape.extend(t.shape().iter().cloned());
            let z = self.bind(
                "rows0",
                at.clone(),
                Exp::Replicate {
                    shape,
                    value: zero_of(t.elem()),
                },
            );
            let p = self.param("rows", at.clone());
            params.push((p, z));
            tys.push(at);
        }
        let i = self.fresh("i");
        self.declare(&i, i64t);
        let (stms, res) = self.block(|this| {
            let vals = f(this, SubExp::var(&i))?;
            let mut res = Vec::new();
            for ((p, _), (v, at)) in params.iter().zip(vals.into_iter().zip(&tys)) {
                res.push(this.bind(
                    "rows",
                    at.clone(),
                    Exp::Update(p.name.clone(), vec![DimIndex::Fix(SubExp::var(&i))], v),
                ));
            }
            Ok(res)
        })?;
        let ext: Vec<ExtType> = tys.iter().map(Type::to_ext).collect();
        let outs = self.bind_ext(
            "rows",
            &ext,
            Exp::Loop {
                params,
                form: LoopForm::For { var: i, bound: n },
                body: Body::new(stms, res),
            },
        );
        Ok(outs)
    }

    /// The sum of the elementwise products of two arrays of type `e` and this shape.
    fn dot(&mut self, a: &SubExp, b: &SubExp, e: PrimType, shape: &[SubExp]) -> LResult<SubExp> {
        let i64t = Type::Prim(PrimType::I64);
        let mut n = SubExp::i64(1);
        for d in shape {
            n = self.bind("n", i64t.clone(), Exp::BinOp(BinOp::Mul, n, d.clone()));
        }
        let flat = |this: &mut Self, s: &SubExp| -> LResult<Name> {
            let SubExp::Var(v) = s else {
                return Err(LowerError::internal(None, "dot of a constant"));
            };
            match this.bind(
                "flat",
                Type::Array(e, vec![n.clone()]),
                Exp::Reshape {
                    shape: vec![n.clone()],
                    arr: v.clone(),
                },
            ) {
                SubExp::Var(v) => Ok(v),
                SubExp::Const(_) => Err(LowerError::internal(None, "dot")),
            }
        };
        let fa = flat(self, a)?;
        let fb = flat(self, b)?;
        let pt = Type::Prim(e);
        let (x, y, u, v) = (
            self.param("x", pt.clone()),
            self.param("y", pt.clone()),
            self.param("a", pt.clone()),
            self.param("b", pt.clone()),
        );
        let m = self.fresh("m");
        self.declare(&m, pt.clone());
        let map = Lambda {
            params: vec![x.clone(), y.clone()],
            body: Body::new(
                vec![Stm::new(
                    Pat::one(&m, pt.clone()),
                    Exp::BinOp(BinOp::Mul, SubExp::var(&x.name), SubExp::var(&y.name)),
                )],
                vec![SubExp::var(&m)],
            ),
            ret: vec![pt.clone()],
        };
        let s = self.fresh("s");
        self.declare(&s, pt.clone());
        let op = Lambda {
            params: vec![u.clone(), v.clone()],
            body: Body::new(
                vec![Stm::new(
                    Pat::one(&s, pt.clone()),
                    Exp::BinOp(BinOp::Add, SubExp::var(&u.name), SubExp::var(&v.name)),
                )],
                vec![SubExp::var(&s)],
            ),
            ret: vec![pt.clone()],
        };
        Ok(self.bind(
            "dot",
            pt,
            Exp::Soac(Soac::Reduce {
                w: n,
                comm: true,
                op,
                nes: vec![zero_of(e)],
                map,
                arrs: vec![fa, fb],
            }),
        ))
    }

    fn convert(&mut self, x: SubExp, from: PrimType, to: PrimType) -> SubExp {
        if from == to {
            return x;
        }
        let op = match (from.is_float(), to.is_float()) {
            (true, true) => ConvOp::FpConv(to),
            (false, true) => ConvOp::SiToFp(to),
            (true, false) => ConvOp::FpToSi(to),
            (false, false) => ConvOp::SExt(to),
        };
        self.bind("conv", Type::Prim(to), Exp::Conv(op, x))
    }
}
