//! `for` and `while` loops inside a kernel thread: loop-carried scalars and arrays, and
//! the bound a `while` loop is guarded by.

use std::collections::HashMap;

use futhark_ir::soacs::{Body, Exp, LoopForm, Name, Stm, SubExp, Type};
use futhark_ir::types::{PrimType, PrimValue};
use futhark_ir::{Exp as KExp, Size, Stm as KStm};

use super::view::{same_view, view_elem};
use super::{KVal, TResult, Translator, View};

impl Translator<'_> {
    pub(super) fn loop_(
        &mut self,
        s: &Stm,
        params: &[(futhark_ir::soacs::Param, SubExp)],
        form: &LoopForm,
        body: &Body,
        out: &mut Vec<KStm>,
    ) -> TResult<()> {
        let mut muts = Vec::new();
        // Array parameters live in per-thread arrays of their own.
        let mut arrays: Vec<(usize, View, Vec<KExp>)> = Vec::new();
        for (k, (p, init)) in params.iter().enumerate() {
            let t = match &p.ty {
                Type::Prim(t) => *t,
                ty @ Type::Array(..) => {
                    let v = self.val(init)?;
                    let view = self.materialize(v, ty, out)?;
                    let dims = self.dims(ty)?;
                    self.env.insert(p.name.clone(), KVal::Array(view.clone()));
                    arrays.push((k, view, dims));
                    continue;
                }
            };
            let init = self.scalar(init)?;
            out.push(KStm::Mut {
                name: p.name.clone(),
                ty: t,
                init,
            });
            self.env
                .insert(p.name.clone(), KVal::Scalar(KExp::var(&p.name), t));
            muts.push((p.name.clone(), t));
        }
        let mut stms = Vec::new();
        // A while loop runs as a `for` over an upper bound on its iterations, each
        // iteration guarded by the condition.
        let (counter, bound, guard) = match form {
            LoopForm::For { var, bound } => {
                let (bound, bt) = self.scalar_typed(bound)?;
                let counter = format!("{var}_k");
                if bt == PrimType::I64 {
                    self.env.insert(
                        var.clone(),
                        KVal::Scalar(KExp::var(&counter), PrimType::I64),
                    );
                } else {
                    self.let_(&mut stms, var, bt, KExp::conv(bt, KExp::var(&counter)));
                }
                let bound = if bt == PrimType::I64 {
                    bound
                } else {
                    KExp::conv(PrimType::I64, bound)
                };
                (counter, bound, None)
            }
            LoopForm::While { cond } => {
                let bound = self.while_bound(params, cond, body)?;
                (format!("{cond}_k"), bound, Some(KExp::var(cond)))
            }
        };
        let all = self.body(body, &mut stms)?;
        let mut rs = Vec::new();
        let mut array_rs = Vec::new();
        for (k, r) in all.into_iter().enumerate() {
            if arrays.iter().any(|(i, _, _)| *i == k) {
                array_rs.push(r);
            } else {
                match r {
                    KVal::Scalar(e, _) => rs.push(e),
                    KVal::Array(_) => return Err("a loop of mismatched results".into()),
                }
            }
        }
        // Array results go to their parameters' arrays; a result that is another
        // parameter's array goes through a temporary first.
        let param_decls: Vec<Name> = arrays
            .iter()
            .filter_map(|(_, v, _)| v.decl().cloned())
            .collect();
        let mut later = Vec::new();
        for ((_, view, dims), r) in arrays.iter().zip(array_rs) {
            let same = matches!((&r, view), (KVal::Array(a), b) if same_view(a, b));
            if same {
                continue;
            }
            let aliased =
                matches!(&r, KVal::Array(a) if a.decl().is_some_and(|d| param_decls.contains(d)));
            if aliased {
                let launch: Vec<Size> = match view {
                    View::Global { dims: d, .. } => d[1..].to_vec(),
                    _ => return Err("a loop over arrays inside a kernel thread".into()),
                };
                let tmp = self.alloc(view_elem(view), launch);
                self.store(KVal::Array(tmp.clone()), r, 0, dims, &mut stms)?;
                later.push((view.clone(), KVal::Array(tmp), dims.clone()));
            } else {
                self.store(KVal::Array(view.clone()), r, 0, dims, &mut stms)?;
            }
        }
        for (view, tmp, dims) in later {
            self.store(KVal::Array(view), tmp, 0, &dims, &mut stms)?;
        }
        let temps: Vec<String> = muts.iter().map(|(n, _)| format!("{n}_next")).collect();
        for ((tmp, (_, t)), r) in temps.iter().zip(&muts).zip(rs) {
            stms.push(KStm::let_(tmp, *t, r));
        }
        for (tmp, (n, _)) in temps.iter().zip(&muts) {
            stms.push(KStm::Assign {
                name: n.clone(),
                exp: KExp::var(tmp),
            });
        }
        let stms = match guard {
            Some(cond) => vec![KStm::If {
                cond,
                then_branch: stms,
                else_branch: Vec::new(),
            }],
            None => stms,
        };
        out.push(KStm::For {
            var: counter,
            bound,
            body: stms,
        });
        let mut muts = muts.into_iter();
        let mut arrays = arrays.into_iter();
        for p in &s.pat.elems {
            let v = match &p.ty {
                Type::Prim(_) => muts.next().map(|(n, t)| KVal::Scalar(KExp::var(&n), t)),
                Type::Array(..) => arrays.next().map(|(_, v, _)| KVal::Array(v)),
            };
            if let Some(v) = v {
                self.env.insert(p.name.clone(), v);
            }
        }
        Ok(())
    }

    /// An upper bound on the iterations of `while cond`, from a conjunct `i' < n` of the
    /// condition where `i' = i + 1` is the next value of a parameter `i` and `n` is fixed:
    /// at most `n - i0 + 1` iterations for an initial `i0`.
    fn while_bound(
        &mut self,
        params: &[(futhark_ir::soacs::Param, SubExp)],
        cond: &Name,
        body: &Body,
    ) -> TResult<KExp> {
        let none = || "a while loop inside a kernel whose iterations no counter bounds".to_string();
        let defs: HashMap<&Name, &Exp> = body
            .stms
            .iter()
            .filter_map(|s| match s.pat.elems.as_slice() {
                [p] => Some((&p.name, &s.exp)),
                _ => None,
            })
            .collect();
        let index = |n: &Name| params.iter().position(|(p, _)| &p.name == n);
        let ci = index(cond).ok_or_else(none)?;
        let mut todo: Vec<&Name> = body
            .result
            .get(ci)
            .and_then(|r| r.as_var())
            .into_iter()
            .collect();
        while let Some(v) = todo.pop() {
            match defs.get(v) {
                Some(Exp::BinOp(futhark_ir::soacs::BinOp::LogAnd, a, b)) => {
                    todo.extend(a.as_var());
                    todo.extend(b.as_var());
                }
                Some(Exp::If {
                    cond: c, else_body, ..
                }) if else_body.stms.is_empty()
                    && else_body.result == [SubExp::Const(PrimValue::Bool(false))] =>
                {
                    todo.extend(c.as_var());
                }
                Some(Exp::CmpOp(op, a, b)) => {
                    use futhark_ir::soacs::CmpOp;
                    let inclusive = match op {
                        CmpOp::SLt | CmpOp::ULt => false,
                        CmpOp::SLe | CmpOp::ULe => true,
                        _ => continue,
                    };
                    // `a` is the next value of a parameter counting up by one.
                    let Some(next) = a.as_var() else { continue };
                    let Some(Exp::BinOp(futhark_ir::soacs::BinOp::Add, SubExp::Var(p), one)) =
                        defs.get(next)
                    else {
                        continue;
                    };
                    let Some(pi) = index(p) else { continue };
                    let counts_up = one
                        .as_const()
                        .is_some_and(|c| c == PrimValue::from_f64(c.ty(), 1.0))
                        && body.result.get(pi) == Some(a);
                    let fixed = b
                        .as_var()
                        .is_none_or(|n| !defs.contains_key(n) && index(n).is_none());
                    if !counts_up || !fixed {
                        continue;
                    }
                    let (n, nt) = self.scalar_typed(b)?;
                    let (i0, it) = self.scalar_typed(&params[pi].1)?;
                    let to64 = |e: KExp, t: PrimType| {
                        if t == PrimType::I64 {
                            e
                        } else {
                            KExp::conv(PrimType::I64, e)
                        }
                    };
                    let slack = if inclusive { 2 } else { 1 };
                    let count = KExp::bin(futhark_ir::BinOp::Sub, to64(n, nt), to64(i0, it))
                        .plus(KExp::i64(slack));
                    return Ok(KExp::bin(futhark_ir::BinOp::Max, count, KExp::i64(0)));
                }
                _ => {}
            }
        }
        Err(none())
    }
}
