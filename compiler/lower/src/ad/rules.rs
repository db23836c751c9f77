//! The tangent rules of scalar operations: arithmetic, comparisons and selections,
//! conversions, and the math functions' derivatives.

use futhark_ir::soacs::{BinOp, Body, CmpOp, ConvOp, Exp, MathFn, Pat, Stm, SubExp, Type, UnOp};
use futhark_ir::types::PrimType;

use crate::error::LResult;

use super::{Jvp, const_of, unsupported, zero_of};

impl Jvp<'_, '_> {
    /// The tangent of a scalar operation, given the operands and their tangents.
    pub(super) fn scalar(
        &mut self,
        exp: &Exp,
        res: &SubExp,
        out: &mut Vec<Stm>,
    ) -> LResult<Option<SubExp>> {
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
}
