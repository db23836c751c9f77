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
//!
//! Here: the differentiator and statements; `rules` scalar derivative rules, `soac` SOACs,
//! `vjp` the entry points lowering calls.

use std::collections::HashMap;

use futhark_ir::soacs::{
    BinOp, Body, Exp, ExtType, Lambda, LoopForm, MathFn, Name, Param, Pat, Stm, SubExp, Type,
    renamed_body,
};
use futhark_ir::types::{PrimType, PrimValue};

use crate::error::{LResult, LowerError};
use crate::state::Lowerer;

mod rules;
mod soac;
mod vjp;

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
                // The call's existential sizes are the inlined results' dimensions.
                for c in &s.pat.ctx {
                    let size = s.pat.elems.iter().zip(&body.result).find_map(|(p, r)| {
                        let rt = self.ty(r);
                        p.ty.shape()
                            .iter()
                            .zip(rt.shape())
                            .find(|(pd, _)| pd.as_var() == Some(c))
                            .map(|(_, rd)| rd.clone())
                    });
                    let Some(size) = size else {
                        return Err(unsupported(
                            "differentiating a call with an existential size its results do not show",
                        ));
                    };
                    let ty = Type::Prim(PrimType::I64);
                    self.lw.declare(c, ty.clone());
                    self.types.insert(c.clone(), ty.clone());
                    out.push(Stm::new(Pat::one(c, ty), Exp::SubExp(size)));
                }
                for (p, r) in s.pat.elems.iter().zip(&body.result) {
                    // A result whose type has the call's existential sizes is reshaped to
                    // them (bound to its own dimensions above), so later statements see
                    // the sizes the call's pattern names.
                    let sized =
                        p.ty.shape()
                            .iter()
                            .any(|d| d.as_var().is_some_and(|v| s.pat.ctx.contains(v)));
                    let reshaped = |x: &SubExp| match x {
                        SubExp::Var(a) if sized => Exp::Reshape {
                            shape: p.ty.shape().to_vec(),
                            arr: a.clone(),
                        },
                        _ => Exp::SubExp(x.clone()),
                    };
                    out.push(Stm::new(Pat::one(&p.name, p.ty.clone()), reshaped(r)));
                    if let Some(t) = self.tangent(r) {
                        let t = if sized {
                            let e = reshaped(&t);
                            self.bind(out, &format!("{}_tan", p.name), p.ty.clone(), e)
                        } else {
                            t
                        };
                        self.tan.insert(p.name.clone(), t);
                    }
                }
            }
            Exp::Soac(soac) => self.soac(s, soac, out)?,
            Exp::Launch(_) => return Err(LowerError::internal(None, "a launch before kernels")),
        }
        Ok(())
    }
}
