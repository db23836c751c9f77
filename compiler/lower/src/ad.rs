//! Forward-mode automatic differentiation of SOAC IR (`jvp2`), and reverse mode (`vjp2`) as
//! one forward pass per input element.
//!
//! [`Jvp`] rewrites statements so that every numeric value `x` gets a tangent `x'` computed
//! beside it (dual numbers, unrolled): arithmetic and math functions by their derivative
//! rules, array operations applied to the tangents, branches and loops carrying tangents as
//! extra results and parameters, SOACs with dual lambdas (a reduction's operator on pairs
//! `(x, x')` is associative whenever the original is), and calls of program functions
//! inlined first. A value whose tangent is known to be zero has none (`None`), so primal-only
//! computations cost nothing extra. Integers are differentiated too, as in the interpreter.

use std::collections::HashMap;

use futhark_ir::soacs::{
    BinOp, Body, CmpOp, ConvOp, DimIndex, Exp, ExtType, Lambda, LoopForm, MathFn, Name, Param, Pat,
    Soac, Stm, SubExp, Type, UnOp, renamed_body,
};
use futhark_ir::types::{PrimType, PrimValue};

use crate::error::{LResult, LowerError};
use crate::state::Lowerer;

fn unsupported(what: impl Into<String>) -> LowerError {
    LowerError::unsupported(None, what)
}

/// The zero of a primitive type (`false` for `bool`).
fn zero_of(t: PrimType) -> SubExp {
    SubExp::Const(PrimValue::from_f64(t, 0.0))
}

fn const_of(t: PrimType, x: f64) -> SubExp {
    SubExp::Const(PrimValue::from_f64(t, x))
}

/// Differentiates statements; tangents of free variables come from `tan`.
pub struct Jvp<'l, 'a> {
    pub lw: &'l mut Lowerer<'a>,
    pub tan: HashMap<Name, SubExp>,
    /// Types of the names seen (parameters and pattern elements).
    pub types: HashMap<Name, Type>,
    depth: usize,
}

impl<'l, 'a> Jvp<'l, 'a> {
    pub fn new(lw: &'l mut Lowerer<'a>) -> Jvp<'l, 'a> {
        Jvp {
            lw,
            tan: HashMap::new(),
            types: HashMap::new(),
            depth: 0,
        }
    }

    fn ty(&self, s: &SubExp) -> Type {
        match s {
            SubExp::Const(c) => Type::Prim(c.ty()),
            SubExp::Var(v) => self
                .types
                .get(v)
                .cloned()
                .unwrap_or_else(|| self.lw.type_of(s)),
        }
    }

    fn note(&mut self, p: &Param) {
        self.types.insert(p.name.clone(), p.ty.clone());
    }

    fn bind(&mut self, out: &mut Vec<Stm>, base: &str, ty: Type, exp: Exp) -> SubExp {
        let name = self.lw.fresh(base);
        self.lw.declare(&name, ty.clone());
        self.types.insert(name.clone(), ty.clone());
        out.push(Stm::new(Pat::one(&name, ty), exp));
        SubExp::Var(name)
    }

    fn tangent(&self, s: &SubExp) -> Option<SubExp> {
        match s {
            SubExp::Const(_) => None,
            SubExp::Var(v) => self.tan.get(v).cloned(),
        }
    }

    /// A zero value of a type.
    fn zero(&mut self, ty: &Type, out: &mut Vec<Stm>) -> SubExp {
        match ty {
            Type::Prim(t) => zero_of(*t),
            Type::Array(t, shape) => self.bind(
                out,
                "zero",
                ty.clone(),
                Exp::Replicate {
                    shape: shape.clone(),
                    value: zero_of(*t),
                },
            ),
        }
    }

    fn tangent_or_zero(&mut self, s: &SubExp, out: &mut Vec<Stm>) -> SubExp {
        match self.tangent(s) {
            Some(t) => t,
            None => {
                let ty = self.ty(s);
                self.zero(&ty, out)
            }
        }
    }

    /// A fresh parameter like `p`, as its tangent.
    fn tangent_param(&mut self, p: &Param) -> Param {
        let name = self.lw.fresh(&format!("{}_tan", p.name));
        self.lw.declare(&name, p.ty.clone());
        let q = Param::new(&name, p.ty.clone());
        self.note(&q);
        q
    }

    fn prim(&mut self, out: &mut Vec<Stm>, t: PrimType, e: Exp) -> SubExp {
        self.bind(out, "d", Type::Prim(t), e)
    }

    fn bin(&mut self, out: &mut Vec<Stm>, t: PrimType, op: BinOp, a: SubExp, b: SubExp) -> SubExp {
        self.prim(out, t, Exp::BinOp(op, a, b))
    }

    fn mul(&mut self, out: &mut Vec<Stm>, t: PrimType, a: SubExp, b: SubExp) -> SubExp {
        self.bin(out, t, BinOp::Mul, a, b)
    }

    fn div(&mut self, out: &mut Vec<Stm>, t: PrimType, a: SubExp, b: SubExp) -> SubExp {
        let op = if t.is_float() {
            BinOp::FDiv
        } else {
            BinOp::SQuot
        };
        self.bin(out, t, op, a, b)
    }

    fn math(&mut self, out: &mut Vec<Stm>, t: PrimType, f: MathFn, args: Vec<SubExp>) -> SubExp {
        self.prim(out, t, Exp::Math(f, args))
    }

    /// `sum` of optional terms (`None` when all are zero).
    fn sum(
        &mut self,
        out: &mut Vec<Stm>,
        t: PrimType,
        terms: Vec<Option<SubExp>>,
    ) -> Option<SubExp> {
        let mut acc: Option<SubExp> = None;
        for x in terms.into_iter().flatten() {
            acc = Some(match acc {
                None => x,
                Some(a) => self.bin(out, t, BinOp::Add, a, x),
            });
        }
        acc
    }

    /// The tangent of a scalar operation, given the operands and their tangents.
    fn scalar(&mut self, exp: &Exp, res: &SubExp, out: &mut Vec<Stm>) -> LResult<Option<SubExp>> {
        Ok(match exp {
            Exp::BinOp(op, a, b) => {
                let (ta, tb) = (self.tangent(a), self.tangent(b));
                if ta.is_none() && tb.is_none() {
                    return Ok(None);
                }
                let t = self.ty(a).elem();
                if t == PrimType::Bool {
                    return Ok(None);
                }
                match op {
                    BinOp::Add => self.sum(out, t, vec![ta, tb]),
                    BinOp::Sub => {
                        let nb = tb.map(|x| self.prim(out, t, Exp::UnOp(UnOp::Neg, x)));
                        self.sum(out, t, vec![ta, nb])
                    }
                    BinOp::Mul => {
                        let x = ta.map(|ta| self.mul(out, t, ta, b.clone()));
                        let y = tb.map(|tb| self.mul(out, t, a.clone(), tb));
                        self.sum(out, t, vec![x, y])
                    }
                    BinOp::FDiv | BinOp::SDiv | BinOp::SQuot | BinOp::UDiv => {
                        // (ta - res * tb) / b
                        let nb = tb.map(|tb| {
                            let p = self.mul(out, t, res.clone(), tb);
                            self.prim(out, t, Exp::UnOp(UnOp::Neg, p))
                        });
                        let num = self.sum(out, t, vec![ta, nb]);
                        num.map(|n| self.div(out, t, n, b.clone()))
                    }
                    BinOp::Pow if t.is_float() => {
                        // b * a^(b-1) * ta + res * log a * tb
                        let x = ta.map(|ta| {
                            let bm1 = self.bin(out, t, BinOp::Sub, b.clone(), const_of(t, 1.0));
                            let p = self.bin(out, t, BinOp::Pow, a.clone(), bm1);
                            let q = self.mul(out, t, b.clone(), p);
                            self.mul(out, t, q, ta)
                        });
                        let y = tb.map(|tb| {
                            let l = self.math(out, t, MathFn::Log, vec![a.clone()]);
                            let q = self.mul(out, t, res.clone(), l);
                            self.mul(out, t, q, tb)
                        });
                        self.sum(out, t, vec![x, y])
                    }
                    BinOp::SMin
                    | BinOp::UMin
                    | BinOp::FMin
                    | BinOp::SMax
                    | BinOp::UMax
                    | BinOp::FMax => {
                        let cmp = match op {
                            BinOp::FMin | BinOp::FMax => CmpOp::FLe,
                            BinOp::UMin | BinOp::UMax => CmpOp::ULe,
                            _ => CmpOp::SLe,
                        };
                        let min = matches!(op, BinOp::SMin | BinOp::UMin | BinOp::FMin);
                        // a is chosen when a <= b (min) or b <= a (max).
                        let c = if min {
                            self.bind(
                                out,
                                "c",
                                Type::Prim(PrimType::Bool),
                                Exp::CmpOp(cmp, a.clone(), b.clone()),
                            )
                        } else {
                            self.bind(
                                out,
                                "c",
                                Type::Prim(PrimType::Bool),
                                Exp::CmpOp(cmp, b.clone(), a.clone()),
                            )
                        };
                        let ta = ta.unwrap_or(zero_of(t));
                        let tb = tb.unwrap_or(zero_of(t));
                        Some(self.select(out, t, c, ta, tb))
                    }
                    BinOp::FMod => ta,
                    _ => None,
                }
            }
            Exp::UnOp(op, a) => {
                let Some(ta) = self.tangent(a) else {
                    return Ok(None);
                };
                let t = self.ty(a).elem();
                match op {
                    UnOp::Neg => Some(self.prim(out, t, Exp::UnOp(UnOp::Neg, ta))),
                    UnOp::FAbs | UnOp::SAbs => {
                        let sg = if *op == UnOp::FAbs {
                            UnOp::FSignum
                        } else {
                            UnOp::SSignum
                        };
                        let s = self.prim(out, t, Exp::UnOp(sg, a.clone()));
                        Some(self.mul(out, t, s, ta))
                    }
                    _ => None,
                }
            }
            Exp::Conv(op, a) => {
                let Some(ta) = self.tangent(a) else {
                    return Ok(None);
                };
                let to = op.target();
                match op {
                    ConvOp::ZExt(_)
                    | ConvOp::SExt(_)
                    | ConvOp::FpConv(_)
                    | ConvOp::FpToSi(_)
                    | ConvOp::FpToUi(_)
                    | ConvOp::SiToFp(_)
                    | ConvOp::UiToFp(_)
                    | ConvOp::BitCast(_) => Some(self.prim(out, to, Exp::Conv(*op, ta))),
                    _ => None,
                }
            }
            Exp::Math(f, args) => self.math_rule(*f, args, res, out)?,
            _ => None,
        })
    }

    fn select(
        &mut self,
        out: &mut Vec<Stm>,
        t: PrimType,
        c: SubExp,
        x: SubExp,
        y: SubExp,
    ) -> SubExp {
        let ty = Type::Prim(t);
        let name = self.lw.fresh("sel");
        self.lw.declare(&name, ty.clone());
        self.types.insert(name.clone(), ty.clone());
        out.push(Stm::new(
            Pat::one(&name, ty.clone()),
            Exp::If {
                cond: c,
                then_body: Body::new(Vec::new(), vec![x]),
                else_body: Body::new(Vec::new(), vec![y]),
                ret: vec![ty.to_ext()],
            },
        ));
        SubExp::Var(name)
    }

    fn math_rule(
        &mut self,
        f: MathFn,
        args: &[SubExp],
        res: &SubExp,
        out: &mut Vec<Stm>,
    ) -> LResult<Option<SubExp>> {
        let ts: Vec<Option<SubExp>> = args.iter().map(|a| self.tangent(a)).collect();
        if ts.iter().all(Option::is_none) {
            return Ok(None);
        }
        let t = self.ty(&args[0]).elem();
        let x = args[0].clone();
        let one = const_of(t, 1.0);
        // The derivative of a unary function at x, times the tangent.
        let unary = |this: &mut Self, out: &mut Vec<Stm>, d: SubExp| -> Option<SubExp> {
            ts[0].clone().map(|tx| this.mul(out, t, d, tx))
        };
        Ok(match f {
            MathFn::Sqrt => {
                let two = self.mul(out, t, const_of(t, 2.0), res.clone());
                let d = self.div(out, t, one, two);
                unary(self, out, d)
            }
            MathFn::Exp => unary(self, out, res.clone()),
            MathFn::Log => {
                let d = self.div(out, t, one, x);
                unary(self, out, d)
            }
            MathFn::Log2 | MathFn::Log10 => {
                let base = if f == MathFn::Log2 { 2.0f64 } else { 10.0 };
                let k = self.mul(out, t, x, const_of(t, base.ln()));
                let d = self.div(out, t, one, k);
                unary(self, out, d)
            }
            MathFn::Log1p => {
                let k = self.bin(out, t, BinOp::Add, x, one.clone());
                let d = self.div(out, t, one, k);
                unary(self, out, d)
            }
            MathFn::Sin => {
                let d = self.math(out, t, MathFn::Cos, vec![x]);
                unary(self, out, d)
            }
            MathFn::Cos => {
                let s = self.math(out, t, MathFn::Sin, vec![x]);
                let d = self.prim(out, t, Exp::UnOp(UnOp::Neg, s));
                unary(self, out, d)
            }
            MathFn::Tan => {
                let c = self.math(out, t, MathFn::Cos, vec![x]);
                let c2 = self.mul(out, t, c.clone(), c);
                let d = self.div(out, t, one, c2);
                unary(self, out, d)
            }
            MathFn::Tanh => {
                let r2 = self.mul(out, t, res.clone(), res.clone());
                let d = self.bin(out, t, BinOp::Sub, one, r2);
                unary(self, out, d)
            }
            MathFn::Sinh => {
                let d = self.math(out, t, MathFn::Cosh, vec![x]);
                unary(self, out, d)
            }
            MathFn::Cosh => {
                let d = self.math(out, t, MathFn::Sinh, vec![x]);
                unary(self, out, d)
            }
            MathFn::Asin | MathFn::Acos => {
                let x2 = self.mul(out, t, x.clone(), x);
                let k = self.bin(out, t, BinOp::Sub, one.clone(), x2);
                let s = self.math(out, t, MathFn::Sqrt, vec![k]);
                let d = self.div(out, t, one, s);
                let d = if f == MathFn::Acos {
                    self.prim(out, t, Exp::UnOp(UnOp::Neg, d))
                } else {
                    d
                };
                unary(self, out, d)
            }
            MathFn::Atan => {
                let x2 = self.mul(out, t, x.clone(), x);
                let k = self.bin(out, t, BinOp::Add, one.clone(), x2);
                let d = self.div(out, t, one, k);
                unary(self, out, d)
            }
            MathFn::Floor | MathFn::Ceil | MathFn::Round | MathFn::IsNan | MathFn::IsInf => None,
            MathFn::Atan2 => {
                // d atan2(y, x) = (x dy - y dx) / (x² + y²)
                let (y, xx) = (args[0].clone(), args[1].clone());
                let y2 = self.mul(out, t, y.clone(), y.clone());
                let x2 = self.mul(out, t, xx.clone(), xx.clone());
                let den = self.bin(out, t, BinOp::Add, x2, y2);
                let a = ts[0].clone().map(|dy| self.mul(out, t, xx, dy));
                let b = ts[1].clone().map(|dx| {
                    let p = self.mul(out, t, y, dx);
                    self.prim(out, t, Exp::UnOp(UnOp::Neg, p))
                });
                let num = self.sum(out, t, vec![a, b]);
                num.map(|n| self.div(out, t, n, den))
            }
            MathFn::Fma | MathFn::Mad => {
                let (a, b) = (args[0].clone(), args[1].clone());
                let x1 = ts[0].clone().map(|ta| self.mul(out, t, ta, b));
                let x2 = ts[1].clone().map(|tb| self.mul(out, t, a, tb));
                self.sum(out, t, vec![x1, x2, ts[2].clone()])
            }
            MathFn::Lerp => {
                // a + (b - a) w
                let (a, b, w) = (args[0].clone(), args[1].clone(), args[2].clone());
                let omw = self.bin(out, t, BinOp::Sub, one, w.clone());
                let x1 = ts[0].clone().map(|ta| self.mul(out, t, ta, omw));
                let x2 = ts[1].clone().map(|tb| self.mul(out, t, tb, w));
                let x3 = ts[2].clone().map(|tw| {
                    let d = self.bin(out, t, BinOp::Sub, b, a);
                    self.mul(out, t, d, tw)
                });
                self.sum(out, t, vec![x1, x2, x3])
            }
            f => return Err(unsupported(format!("differentiating `{}`", f.name()))),
        })
    }

    /// Differentiates a body; its results' tangents (materialised) follow.
    pub fn body(&mut self, b: &Body) -> LResult<(Vec<Stm>, Vec<SubExp>)> {
        let mut out = Vec::new();
        for s in &b.stms {
            self.stm(s, &mut out)?;
        }
        let mut tans = Vec::new();
        for r in &b.result {
            tans.push(self.tangent_or_zero(r, &mut out));
        }
        Ok((out, tans))
    }

    /// A lambda on duals: parameters `(x…, x'…)`, results `(y…, y'…)`.
    pub fn lambda(&mut self, l: &Lambda) -> LResult<Lambda> {
        let mut params = l.params.clone();
        let mut tparams = Vec::new();
        for p in &l.params {
            self.note(p);
            let q = self.tangent_param(p);
            self.tan.insert(p.name.clone(), SubExp::Var(q.name.clone()));
            tparams.push(q);
        }
        params.extend(tparams);
        let (stms, tans) = self.body(&l.body)?;
        let mut result = l.body.result.clone();
        result.extend(tans);
        let mut ret = l.ret.clone();
        ret.extend(l.ret.iter().cloned());
        Ok(Lambda {
            params,
            body: Body::new(stms, result),
            ret,
        })
    }

    /// An operator on k-tuples as an operator on k dual pairs: parameters
    /// `(a…, a'…, b…, b'…)`, results `(r…, r'…)`.
    fn operator(&mut self, op: &Lambda) -> LResult<Lambda> {
        let k = op.params.len() / 2;
        let d = self.lambda(op)?;
        let (prim, tans) = d.params.split_at(2 * k);
        let mut params = Vec::new();
        params.extend(prim[..k].iter().cloned());
        params.extend(tans[..k].iter().cloned());
        params.extend(prim[k..].iter().cloned());
        params.extend(tans[k..].iter().cloned());
        Ok(Lambda { params, ..d })
    }

    fn tangent_pat(&mut self, pat: &Pat) -> Vec<Param> {
        pat.elems.iter().map(|p| self.tangent_param(p)).collect()
    }

    fn set_tangents(&mut self, pat: &Pat, tps: &[Param]) {
        for (p, q) in pat.elems.iter().zip(tps) {
            if p.ty.elem() != PrimType::Bool {
                self.tan.insert(p.name.clone(), SubExp::Var(q.name.clone()));
            }
        }
    }

    pub fn stm(&mut self, s: &Stm, out: &mut Vec<Stm>) -> LResult<()> {
        for p in &s.pat.elems {
            self.note(p);
        }
        let one = |pat: &Pat| -> LResult<Param> {
            pat.elems
                .first()
                .cloned()
                .ok_or_else(|| LowerError::internal(None, "a statement without results"))
        };
        match &s.exp {
            Exp::SubExp(_)
            | Exp::BinOp(..)
            | Exp::UnOp(..)
            | Exp::Conv(..)
            | Exp::Math(..)
            | Exp::CmpOp(..) => {
                out.push(s.clone());
                let p = one(&s.pat)?;
                let t = match &s.exp {
                    Exp::SubExp(x) => self.tangent(x),
                    e => self.scalar(e, &SubExp::Var(p.name.clone()), out)?,
                };
                if let Some(t) = t {
                    self.tan.insert(p.name, t);
                }
            }
            Exp::Assert { .. } | Exp::Iota { .. } => out.push(s.clone()),
            Exp::ArrayLit(items, ty) => {
                out.push(s.clone());
                if items.iter().any(|i| self.tangent(i).is_some()) && ty.elem() != PrimType::Bool {
                    let mut ts = Vec::new();
                    for i in items {
                        let t = match self.tangent(i) {
                            Some(t) => t,
                            // A zero of the literal's row type (the item's own type may
                            // name its size differently).
                            None => self.zero(ty, out),
                        };
                        ts.push(t);
                    }
                    let p = one(&s.pat)?;
                    let t = self.bind(out, "lit_tan", p.ty.clone(), Exp::ArrayLit(ts, ty.clone()));
                    self.tan.insert(p.name, t);
                }
            }
            Exp::Index(arr, idx) => {
                out.push(s.clone());
                if let Some(SubExp::Var(ta)) = self.tangent(&SubExp::var(arr)) {
                    let p = one(&s.pat)?;
                    let t = self.bind(out, "idx_tan", p.ty.clone(), Exp::Index(ta, idx.clone()));
                    self.tan.insert(p.name, t);
                }
            }
            Exp::Update(arr, idx, v) => {
                let (ta, tv) = (self.tangent(&SubExp::var(arr)), self.tangent(v));
                let p = one(&s.pat)?;
                if ta.is_some() || tv.is_some() {
                    let ta = self.tangent_or_zero(&SubExp::var(arr), out);
                    let tv = self.tangent_or_zero(v, out);
                    let SubExp::Var(ta) = ta else {
                        return Err(LowerError::internal(None, "tangent of an array"));
                    };
                    out.push(s.clone());
                    let t = self.bind(
                        out,
                        "upd_tan",
                        p.ty.clone(),
                        Exp::Update(ta, idx.clone(), tv),
                    );
                    self.tan.insert(p.name, t);
                } else {
                    out.push(s.clone());
                }
            }
            Exp::Replicate { shape, value } => {
                out.push(s.clone());
                if let Some(tv) = self.tangent(value) {
                    let p = one(&s.pat)?;
                    let t = self.bind(
                        out,
                        "rep_tan",
                        p.ty.clone(),
                        Exp::Replicate {
                            shape: shape.clone(),
                            value: tv,
                        },
                    );
                    self.tan.insert(p.name, t);
                }
            }
            Exp::Reshape { shape, arr } => {
                out.push(s.clone());
                if let Some(SubExp::Var(ta)) = self.tangent(&SubExp::var(arr)) {
                    let p = one(&s.pat)?;
                    let t = self.bind(
                        out,
                        "reshape_tan",
                        p.ty.clone(),
                        Exp::Reshape {
                            shape: shape.clone(),
                            arr: ta,
                        },
                    );
                    self.tan.insert(p.name, t);
                }
            }
            Exp::Rearrange { perm, arr } => {
                out.push(s.clone());
                if let Some(SubExp::Var(ta)) = self.tangent(&SubExp::var(arr)) {
                    let p = one(&s.pat)?;
                    let t = self.bind(
                        out,
                        "tr_tan",
                        p.ty.clone(),
                        Exp::Rearrange {
                            perm: perm.clone(),
                            arr: ta,
                        },
                    );
                    self.tan.insert(p.name, t);
                }
            }
            Exp::Copy(arr) => {
                out.push(s.clone());
                if let Some(SubExp::Var(ta)) = self.tangent(&SubExp::var(arr)) {
                    let p = one(&s.pat)?;
                    let t = self.bind(out, "copy_tan", p.ty.clone(), Exp::Copy(ta));
                    self.tan.insert(p.name, t);
                }
            }
            Exp::Concat { arrs, size } => {
                out.push(s.clone());
                if arrs.iter().any(|a| self.tangent(&SubExp::var(a)).is_some()) {
                    let mut ts = Vec::new();
                    for a in arrs {
                        match self.tangent_or_zero(&SubExp::var(a), out) {
                            SubExp::Var(v) => ts.push(v),
                            SubExp::Const(_) => {
                                return Err(LowerError::internal(None, "tangent of an array"));
                            }
                        }
                    }
                    let p = one(&s.pat)?;
                    let t = self.bind(
                        out,
                        "concat_tan",
                        p.ty.clone(),
                        Exp::Concat {
                            arrs: ts,
                            size: size.clone(),
                        },
                    );
                    self.tan.insert(p.name, t);
                }
            }
            Exp::If {
                cond,
                then_body,
                else_body,
                ret,
            } => {
                let (ts, tr) = self.body(then_body)?;
                let (es, er) = self.body(else_body)?;
                let mut then_res = then_body.result.clone();
                then_res.extend(tr);
                let mut else_res = else_body.result.clone();
                else_res.extend(er);
                let mut ret2: Vec<ExtType> = ret.clone();
                ret2.extend(ret.iter().cloned());
                let tps = self.tangent_pat(&s.pat);
                let mut pat = s.pat.clone();
                pat.elems.extend(tps.iter().cloned());
                out.push(Stm::new(
                    pat,
                    Exp::If {
                        cond: cond.clone(),
                        then_body: Body::new(ts, then_res),
                        else_body: Body::new(es, else_res),
                        ret: ret2,
                    },
                ));
                self.set_tangents(&s.pat, &tps);
            }
            Exp::Loop { params, form, body } => {
                let mut new_params = params.clone();
                let mut tparams = Vec::new();
                for (p, init) in params {
                    self.note(p);
                    let ti = self.tangent_or_zero(init, out);
                    let q = self.tangent_param(p);
                    self.tan.insert(p.name.clone(), SubExp::Var(q.name.clone()));
                    tparams.push((q, ti));
                }
                new_params.extend(tparams);
                if let LoopForm::For { var, .. } = form {
                    self.tan.remove(var);
                }
                let (stms, tans) = self.body(body)?;
                let mut result = body.result.clone();
                result.extend(tans);
                let tps = self.tangent_pat(&s.pat);
                let mut pat = s.pat.clone();
                pat.elems.extend(tps.iter().cloned());
                out.push(Stm::new(
                    pat,
                    Exp::Loop {
                        params: new_params,
                        form: form.clone(),
                        body: Body::new(stms, result),
                    },
                ));
                self.set_tangents(&s.pat, &tps);
            }
            Exp::Apply { func, args, .. } => {
                if !s.pat.ctx.is_empty() {
                    return Err(unsupported("differentiating a call with existential sizes"));
                }
                let Some(f) = self.lw.funs.iter().find(|f| &f.name == func).cloned() else {
                    return Err(unsupported(format!(
                        "differentiating a call of the recursive function `{func}`"
                    )));
                };
                if self.depth > 64 {
                    return Err(unsupported("differentiating deeply nested calls"));
                }
                let map: HashMap<Name, SubExp> = f
                    .params
                    .iter()
                    .zip(args)
                    .map(|(p, a)| (p.name.clone(), a.clone()))
                    .collect();
                let body = renamed_body(&f.body, map, &mut self.lw.ns);
                for (n, t) in futhark_ir::soacs::binder_types(&futhark_ir::soacs::FunDef {
                    name: String::new(),
                    entry: None,
                    params: Vec::new(),
                    ret: Vec::new(),
                    body: body.clone(),
                }) {
                    self.lw.declare(&n, t.clone());
                    self.types.insert(n, t);
                }
                self.depth += 1;
                for st in &body.stms {
                    self.stm(st, out)?;
                }
                self.depth -= 1;
                for (p, r) in s.pat.elems.iter().zip(&body.result) {
                    out.push(Stm::new(
                        Pat::one(&p.name, p.ty.clone()),
                        Exp::SubExp(r.clone()),
                    ));
                    if let Some(t) = self.tangent(r) {
                        self.tan.insert(p.name.clone(), t);
                    }
                }
            }
            Exp::Soac(soac) => self.soac(s, soac, out)?,
            Exp::Launch(_) => return Err(LowerError::internal(None, "a launch before kernels")),
        }
        Ok(())
    }

    /// Tangent arrays of SOAC inputs (materialised).
    fn input_tangents(&mut self, arrs: &[Name], out: &mut Vec<Stm>) -> LResult<Vec<Name>> {
        let mut ts = Vec::new();
        for a in arrs {
            match self.tangent_or_zero(&SubExp::var(a), out) {
                SubExp::Var(v) => ts.push(v),
                SubExp::Const(_) => return Err(LowerError::internal(None, "tangent of an array")),
            }
        }
        Ok(ts)
    }

    #[allow(clippy::type_complexity)]
    fn dual_redomap(
        &mut self,
        op: &Lambda,
        nes: &[SubExp],
        map: &Lambda,
        arrs: &[Name],
        out: &mut Vec<Stm>,
    ) -> LResult<(Lambda, Vec<SubExp>, Lambda, Vec<Name>)> {
        let tarrs = self.input_tangents(arrs, out)?;
        let map = self.lambda(map)?;
        let op = self.operator(op)?;
        let mut nes2 = nes.to_vec();
        for n in nes {
            let ty = self.ty(n);
            let z = self.zero(&ty, out);
            nes2.push(z);
        }
        let mut arrs = arrs.to_vec();
        arrs.extend(tarrs);
        Ok((op, nes2, map, arrs))
    }

    fn soac(&mut self, s: &Stm, soac: &Soac, out: &mut Vec<Stm>) -> LResult<()> {
        let tps = self.tangent_pat(&s.pat);
        let mut pat = s.pat.clone();
        pat.elems.extend(tps.iter().cloned());
        let exp = match soac {
            Soac::Map { w, lam, arrs } => {
                let tarrs = self.input_tangents(arrs, out)?;
                let lam = self.lambda(lam)?;
                let mut arrs = arrs.clone();
                arrs.extend(tarrs);
                Soac::Map {
                    w: w.clone(),
                    lam,
                    arrs,
                }
            }
            Soac::Reduce {
                w,
                comm,
                op,
                nes,
                map,
                arrs,
            } => {
                let (op, nes, map, arrs) = self.dual_redomap(op, nes, map, arrs, out)?;
                Soac::Reduce {
                    w: w.clone(),
                    comm: *comm,
                    op,
                    nes,
                    map,
                    arrs,
                }
            }
            Soac::Scan {
                w,
                op,
                nes,
                map,
                arrs,
            } => {
                let (op, nes, map, arrs) = self.dual_redomap(op, nes, map, arrs, out)?;
                Soac::Scan {
                    w: w.clone(),
                    op,
                    nes,
                    map,
                    arrs,
                }
            }
            Soac::Scatter {
                w,
                dests,
                ranks,
                map,
                arrs,
            } => {
                let tarrs = self.input_tangents(arrs, out)?;
                let tdests = self.input_tangents(dests, out)?;
                let d = self.lambda(map)?;
                // Results: for each dest its indices then value; then the tangents of all.
                let n = map.body.result.len();
                let (prim, tans) = d.body.result.split_at(n);
                let mut result = prim.to_vec();
                let mut ret = d.ret[..n].to_vec();
                let mut k = 0;
                for r in ranks {
                    result.extend(prim[k..k + r].iter().cloned());
                    ret.extend(d.ret[k..k + r].iter().cloned());
                    result.push(tans[k + r].clone());
                    ret.push(d.ret[n + k + r].clone());
                    k += r + 1;
                }
                let map = Lambda {
                    params: d.params,
                    body: Body::new(d.body.stms, result),
                    ret,
                };
                let mut arrs = arrs.clone();
                arrs.extend(tarrs);
                let mut dests = dests.clone();
                dests.extend(tdests);
                let mut ranks = ranks.clone();
                ranks.extend(ranks.clone());
                Soac::Scatter {
                    w: w.clone(),
                    dests,
                    ranks,
                    map,
                    arrs,
                }
            }
            Soac::Hist {
                w,
                dests,
                rank,
                op,
                nes,
                map,
                arrs,
            } => {
                let tarrs = self.input_tangents(arrs, out)?;
                let tdests = self.input_tangents(dests, out)?;
                let d = self.lambda(map)?;
                let n = map.body.result.len();
                let (prim, tans) = d.body.result.split_at(n);
                let mut result = prim.to_vec();
                result.extend(tans[*rank..].iter().cloned());
                let mut ret = d.ret[..n].to_vec();
                ret.extend(d.ret[n + rank..].iter().cloned());
                let map = Lambda {
                    params: d.params,
                    body: Body::new(d.body.stms, result),
                    ret,
                };
                let op = self.operator(op)?;
                let mut nes2 = nes.clone();
                for ne in nes {
                    let ty = self.ty(ne);
                    let z = self.zero(&ty, out);
                    nes2.push(z);
                }
                let mut arrs = arrs.clone();
                arrs.extend(tarrs);
                let mut dests = dests.clone();
                dests.extend(tdests);
                Soac::Hist {
                    w: w.clone(),
                    dests,
                    rank: *rank,
                    op,
                    nes: nes2,
                    map,
                    arrs,
                }
            }
        };
        out.push(Stm::new(pat, Exp::Soac(exp)));
        self.set_tangents(&s.pat, &tps);
        Ok(())
    }
}

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
