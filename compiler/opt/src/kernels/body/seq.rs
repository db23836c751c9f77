//! Sequential SOACs inside a kernel thread: reduce (redomap), map, scan, scatter and
//! histogram become loops with mutable accumulators.

use futhark_ir::soacs::{Lambda, Name, Stm, SubExp, Type};
use futhark_ir::types::PrimValue;
use futhark_ir::{Exp as KExp, Stm as KStm};

use super::view::{index_all, same_view};
use super::{KVal, TResult, Translator, View};

impl Translator<'_> {
    /// A redomap inside a thread: a sequential loop with mutable accumulators.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn seq_reduce(
        &mut self,
        s: &Stm,
        w: &SubExp,
        op: &Lambda,
        nes: &[SubExp],
        map: &Lambda,
        arrs: &[Name],
        out: &mut Vec<KStm>,
    ) -> TResult<()> {
        let views = arrs
            .iter()
            .map(|a| self.view(a))
            .collect::<TResult<Vec<_>>>()?;
        let bound = self.scalar(w)?;
        let k = nes.len();
        // Scalar accumulators are mutable variables; array ones per-thread arrays.
        let mut accs: Vec<(KVal, Vec<KExp>)> = Vec::new();
        for (p, ne) in s.pat.elems.iter().zip(nes) {
            match &p.ty {
                Type::Prim(t) => {
                    let init = self.scalar(ne)?;
                    let acc = format!("{}_acc", p.name);
                    out.push(KStm::Mut {
                        name: acc.clone(),
                        ty: *t,
                        init,
                    });
                    accs.push((KVal::Scalar(KExp::var(&acc), *t), Vec::new()));
                }
                ty @ Type::Array(..) => {
                    let v = self.val(ne)?;
                    let view = self.materialize(v, ty, out)?;
                    let dims = self.dims(ty)?;
                    accs.push((KVal::Array(view), dims));
                }
            }
        }
        let j = format!("{}_j", s.pat.elems.first().map_or("r", |p| p.name.as_str()));
        let mut stms = Vec::new();
        self.bind_rows(&map.params, &views, &KExp::var(&j));
        let vals = self.body(&map.body, &mut stms)?;
        for (p, (acc, _)) in op.params[..k].iter().zip(&accs) {
            self.env.insert(p.name.clone(), acc.clone());
        }
        for (p, v) in op.params[k..].iter().zip(vals) {
            match v {
                KVal::Scalar(e, t) => self.let_(&mut stms, &p.name, t, e),
                a => {
                    self.env.insert(p.name.clone(), a);
                }
            }
        }
        // The first element starts the accumulator (as the interpreter folds), the others
        // are combined with the operator.
        let mut first = Vec::new();
        for ((acc, dims), p) in accs.iter().zip(&op.params[k..]) {
            let v = self.val(&SubExp::var(&p.name))?;
            match (acc, v) {
                (KVal::Scalar(KExp::Var(n), _), KVal::Scalar(e, _)) => first.push(KStm::Assign {
                    name: n.clone(),
                    exp: e,
                }),
                (_, v) => self.store(acc.clone(), v, 0, dims, &mut first)?,
            }
        }
        let mut rest = Vec::new();
        let rs = self.body(&op.body, &mut rest)?;
        for ((acc, dims), r) in accs.iter().zip(rs) {
            match (acc, r) {
                (KVal::Scalar(KExp::Var(n), _), KVal::Scalar(e, _)) => rest.push(KStm::Assign {
                    name: n.clone(),
                    exp: e,
                }),
                (KVal::Array(a), KVal::Array(r)) if same_view(a, &r) => {}
                (KVal::Array(_), r @ KVal::Array(_)) => {
                    self.store(acc.clone(), r, 0, dims, &mut rest)?
                }
                _ => return Err("a reduction of mismatched results inside a kernel".into()),
            }
        }
        stms.push(KStm::If {
            cond: KExp::cmp(futhark_ir::CmpOp::Eq, KExp::var(&j), KExp::i64(0)),
            then_branch: first,
            else_branch: rest,
        });
        out.push(KStm::For {
            var: j,
            bound,
            body: stms,
        });
        for (p, (acc, _)) in s.pat.elems.iter().zip(accs) {
            self.env.insert(p.name.clone(), acc);
        }
        Ok(())
    }

    /// A map inside a thread: a sequential loop writing per-thread arrays.
    pub(super) fn seq_map(
        &mut self,
        s: &Stm,
        w: &SubExp,
        lam: &Lambda,
        arrs: &[Name],
        out: &mut Vec<KStm>,
    ) -> TResult<()> {
        let views = arrs
            .iter()
            .map(|a| self.view(a))
            .collect::<TResult<Vec<_>>>()?;
        let bound = self.scalar(w)?;
        let mut results = Vec::new();
        for p in &s.pat.elems {
            let launch = self.launch_shape(&p.ty)?;
            let dims = self.dims(&p.ty)?;
            let view = self.alloc(p.ty.elem(), launch);
            results.push((view, dims));
        }
        let j = self.fresh("j");
        let mut stms = Vec::new();
        self.bind_rows(&lam.params, &views, &KExp::var(&j));
        let rs = self.body(&lam.body, &mut stms)?;
        for ((view, dims), r) in results.iter().zip(rs) {
            let dst = view.index(KExp::var(&j), None);
            self.store(dst, r, 0, &dims[1..], &mut stms)?;
        }
        out.push(KStm::For {
            var: j,
            bound,
            body: stms,
        });
        for (p, (view, _)) in s.pat.elems.iter().zip(results) {
            self.env.insert(p.name.clone(), KVal::Array(view));
        }
        Ok(())
    }

    /// A scanomap inside a thread: sequential, with scalar accumulators.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn seq_scan(
        &mut self,
        s: &Stm,
        w: &SubExp,
        op: &Lambda,
        nes: &[SubExp],
        map: &Lambda,
        arrs: &[Name],
        out: &mut Vec<KStm>,
    ) -> TResult<()> {
        let views = arrs
            .iter()
            .map(|a| self.view(a))
            .collect::<TResult<Vec<_>>>()?;
        let bound = self.scalar(w)?;
        let k = nes.len();
        // Accumulators as in `seq_reduce`; each step's value is stored at row j.
        let mut accs: Vec<(KVal, Vec<KExp>)> = Vec::new();
        let mut results = Vec::new();
        for (p, ne) in s.pat.elems.iter().zip(nes) {
            let row = p.ty.row();
            match &row {
                Type::Prim(t) => {
                    let init = self.scalar(ne)?;
                    let acc = self.fresh("acc");
                    out.push(KStm::Mut {
                        name: acc.clone(),
                        ty: *t,
                        init,
                    });
                    accs.push((KVal::Scalar(KExp::var(&acc), *t), Vec::new()));
                }
                ty @ Type::Array(..) => {
                    let v = self.val(ne)?;
                    let view = self.materialize(v, ty, out)?;
                    let dims = self.dims(ty)?;
                    accs.push((KVal::Array(view), dims));
                }
            }
            let launch = self.launch_shape(&p.ty)?;
            results.push(self.alloc(p.ty.elem(), launch));
        }
        let j = self.fresh("j");
        let mut stms = Vec::new();
        self.bind_rows(&map.params, &views, &KExp::var(&j));
        let vals = self.body(&map.body, &mut stms)?;
        for (p, (acc, _)) in op.params[..k].iter().zip(&accs) {
            self.env.insert(p.name.clone(), acc.clone());
        }
        for (p, v) in op.params[k..].iter().zip(vals) {
            match v {
                KVal::Scalar(e, t) => self.let_(&mut stms, &p.name, t, e),
                a => {
                    self.env.insert(p.name.clone(), a);
                }
            }
        }
        let rs = self.body(&op.body, &mut stms)?;
        for (((acc, dims), view), r) in accs.iter().zip(&results).zip(rs) {
            match (acc, r) {
                (KVal::Scalar(KExp::Var(n), _), KVal::Scalar(e, _)) => stms.push(KStm::Assign {
                    name: n.clone(),
                    exp: e,
                }),
                (KVal::Array(a), KVal::Array(r)) if same_view(a, &r) => {}
                (KVal::Array(_), r @ KVal::Array(_)) => {
                    self.store(acc.clone(), r, 0, dims, &mut stms)?
                }
                _ => return Err("a scan of mismatched results inside a kernel".into()),
            }
            let dst = view.index(KExp::var(&j), None);
            self.store(dst, acc.clone(), 0, dims, &mut stms)?;
        }
        out.push(KStm::For {
            var: j,
            bound,
            body: stms,
        });
        for (p, view) in s.pat.elems.iter().zip(results) {
            self.env.insert(p.name.clone(), KVal::Array(view));
        }
        Ok(())
    }

    /// Consumed destinations as per-thread arrays (copied unless they already are).
    fn dest_views(&mut self, dests: &[Name], out: &mut Vec<KStm>) -> TResult<Vec<(View, Type)>> {
        let mut views = Vec::new();
        for d in dests {
            let ty = self.type_of(d)?;
            let mut view = self.view(d)?;
            if !self.is_scratch(&view) {
                view = self.materialize(KVal::Array(view), &ty, out)?;
            }
            views.push((view, ty));
        }
        Ok(views)
    }

    /// `0 <= i < n` for every index of a point.
    fn in_bounds(&mut self, idx: &[KExp], ty: &Type) -> TResult<KExp> {
        let dims = self.dims(ty)?;
        let mut cond = KExp::Const(PrimValue::Bool(true));
        for (i, d) in idx.iter().zip(dims) {
            let ok = KExp::bin(
                futhark_ir::BinOp::LogAnd,
                KExp::cmp(futhark_ir::CmpOp::Ge, i.clone(), KExp::i64(0)),
                KExp::cmp(futhark_ir::CmpOp::Lt, i.clone(), d),
            );
            cond = KExp::bin(futhark_ir::BinOp::LogAnd, cond, ok);
        }
        Ok(cond)
    }

    /// A scatter inside a thread: sequential writes into per-thread copies.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn seq_scatter(
        &mut self,
        s: &Stm,
        w: &SubExp,
        dests: &[Name],
        ranks: &[usize],
        map: &Lambda,
        arrs: &[Name],
        out: &mut Vec<KStm>,
    ) -> TResult<()> {
        let views = arrs
            .iter()
            .map(|a| self.view(a))
            .collect::<TResult<Vec<_>>>()?;
        let bound = self.scalar(w)?;
        let dviews = self.dest_views(dests, out)?;
        let j = self.fresh("j");
        let mut stms = Vec::new();
        self.bind_rows(&map.params, &views, &KExp::var(&j));
        let vals = self.body(&map.body, &mut stms)?;
        let mut vals = vals.into_iter();
        for ((view, ty), r) in dviews.iter().zip(ranks) {
            let mut idx = Vec::new();
            for _ in 0..*r {
                match vals.next() {
                    Some(KVal::Scalar(e, _)) => idx.push(e),
                    _ => return Err("a scatter without indices inside a kernel thread".into()),
                }
            }
            let v = vals
                .next()
                .ok_or("a scatter without a value inside a kernel thread")?;
            let dims = self.dims(ty)?;
            let cond = self.in_bounds(&idx, ty)?;
            let dst = index_all(KVal::Array(view.clone()), idx);
            let mut w = Vec::new();
            self.store(dst, v, 0, dims.get(*r..).unwrap_or(&[]), &mut w)?;
            stms.push(KStm::If {
                cond,
                then_branch: w,
                else_branch: Vec::new(),
            });
        }
        out.push(KStm::For {
            var: j,
            bound,
            body: stms,
        });
        for (p, (view, _)) in s.pat.elems.iter().zip(dviews) {
            self.env.insert(p.name.clone(), KVal::Array(view));
        }
        Ok(())
    }

    /// A histogram inside a thread: sequential updates of per-thread copies.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn seq_hist(
        &mut self,
        s: &Stm,
        w: &SubExp,
        dests: &[Name],
        rank: usize,
        op: &Lambda,
        map: &Lambda,
        arrs: &[Name],
        out: &mut Vec<KStm>,
    ) -> TResult<()> {
        let views = arrs
            .iter()
            .map(|a| self.view(a))
            .collect::<TResult<Vec<_>>>()?;
        let bound = self.scalar(w)?;
        let dviews = self.dest_views(dests, out)?;
        let k = dests.len();
        let j = self.fresh("j");
        let mut stms = Vec::new();
        self.bind_rows(&map.params, &views, &KExp::var(&j));
        let vals = self.scalar_body(&map.body, &mut stms)?;
        if vals.len() != rank + k || dviews.iter().any(|(_, t)| t.rank() != rank) {
            return Err("a histogram of rows inside a kernel thread".into());
        }
        let idx = vals[..rank].to_vec();
        let Some((_, ty0)) = dviews.first() else {
            return Err("a histogram without destinations".into());
        };
        let ty0 = ty0.clone();
        let cond = self.in_bounds(&idx, &ty0)?;
        let mut upd = Vec::new();
        for (p, (view, ty)) in op.params[..k].iter().zip(&dviews) {
            let old = index_all(KVal::Array(view.clone()), idx.clone());
            let KVal::Scalar(e, _) = old else {
                return Err("a histogram of rows inside a kernel thread".into());
            };
            self.let_(&mut upd, &p.name, ty.elem(), e);
        }
        for (p, v) in op.params[k..].iter().zip(&vals[rank..]) {
            let t = p.ty.elem();
            self.let_(&mut upd, &p.name, t, v.clone());
        }
        let rs = self.scalar_body(&op.body, &mut upd)?;
        for ((view, ty), r) in dviews.iter().zip(rs) {
            let dst = index_all(KVal::Array(view.clone()), idx.clone());
            self.store(dst, KVal::Scalar(r, ty.elem()), 0, &[], &mut upd)?;
        }
        stms.push(KStm::If {
            cond,
            then_branch: upd,
            else_branch: Vec::new(),
        });
        out.push(KStm::For {
            var: j,
            bound,
            body: stms,
        });
        for (p, (view, _)) in s.pat.elems.iter().zip(dviews) {
            self.env.insert(p.name.clone(), KVal::Array(view));
        }
        Ok(())
    }
}
