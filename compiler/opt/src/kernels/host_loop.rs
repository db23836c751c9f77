//! The last resort of kernel extraction: a SOAC that neither flattens into a segmented
//! operation nor runs in one kernel thread (its threads compute array sizes no host bound
//! covers, return arrays, or loop with no counter) becomes a sequential `for` loop over its
//! elements in host code. The loop's body is the SOAC's lambdas, renamed, in host code:
//! SOACs inside them are extracted as kernels of their own, and the rest (growing arrays,
//! `while` loops) is what host code always runs. Slow — one iteration per element — but it
//! never refuses a program the interpreter runs, and its order of evaluation is the
//! interpreter's (a reduction folds left to right, a scatter writes in element order).
//!
//! [`rewrite`] finds the SOAC statement by its first result's name and replaces it.

use futhark_ir::loc;
use futhark_ir::soacs::{
    BinOp, Body, CmpOp, DimIndex, Exp, Lambda, LoopForm, Name, NameSource, Param, Pat, Soac, Stm,
    SubExp, Type, renamed_lambda,
};
use futhark_ir::types::{PrimType, PrimValue};

/// Replaces the host-level SOAC statement whose first result is `name` (in `body` or the
/// branches and loop bodies of its host code) by a sequential host loop; the SOAC's kind
/// and source position when it did, `None` when there is none or it cannot be rewritten.
pub(super) fn rewrite(body: &mut Body, name: &str, ns: &mut NameSource) -> Option<Rewritten> {
    for i in 0..body.stms.len() {
        let stm = &mut body.stms[i];
        let hit = matches!(stm.exp, Exp::Soac(_))
            && stm.pat.elems.first().is_some_and(|p| p.name == name);
        if hit {
            let Exp::Soac(soac) = &stm.exp else {
                return None;
            };
            let done = Rewritten {
                soac: soac.kind_name(),
                at: stm.loc.as_deref().and_then(user_site),
            };
            let stms = host_loop(stm, soac, ns)?;
            body.stms.splice(i..=i, stms);
            return Some(done);
        }
        let found = match &mut stm.exp {
            Exp::If {
                then_body,
                else_body,
                ..
            } => rewrite(then_body, name, ns).or_else(|| rewrite(else_body, name, ns)),
            Exp::Loop { body, .. } => rewrite(body, name, ns),
            _ => None,
        };
        if found.is_some() {
            return found;
        }
    }
    None
}

/// The innermost position of a location outside the prelude: where the user wrote the
/// `map` whose prelude definition applies the intrinsic.
fn user_site(l: &str) -> Option<String> {
    std::iter::once(loc::position(l))
        .chain(loc::frames(l))
        .find(|p| !p.starts_with("/prelude/"))
        .map(str::to_string)
}

/// Which SOAC [`rewrite`] turned into a host loop, and where the source has it.
pub(super) struct Rewritten {
    pub soac: &'static str,
    pub at: Option<String>,
}

/// Builds host statements one at a time.
struct Emit<'n> {
    ns: &'n mut NameSource,
    stms: Vec<Stm>,
}

impl Emit<'_> {
    fn bind(&mut self, base: &str, ty: Type, exp: Exp) -> SubExp {
        let n = self.ns.fresh(base);
        self.stms.push(Stm::new(Pat::one(&n, ty), exp));
        SubExp::Var(n)
    }

    fn bool(&mut self, exp: Exp) -> SubExp {
        self.bind("inside", Type::Prim(PrimType::Bool), exp)
    }

    /// Binds a lambda's parameters to `args` and appends its statements; its results.
    fn inline(&mut self, lam: &Lambda, args: &[SubExp]) -> Vec<SubExp> {
        for (p, a) in lam.params.iter().zip(args) {
            self.stms.push(Stm::new(
                Pat::one(&p.name, p.ty.clone()),
                Exp::SubExp(a.clone()),
            ));
        }
        self.stms.extend(lam.body.stms.iter().cloned());
        lam.body.result.clone()
    }

    /// Binds a lambda's parameters to row `i` of `arrs` (array rows copied, since a lambda
    /// may consume its parameters) and appends its statements; its results.
    fn inline_rows(&mut self, lam: &Lambda, arrs: &[Name], i: &SubExp) -> Vec<SubExp> {
        for (p, a) in lam.params.iter().zip(arrs) {
            let idx = Exp::Index(a.clone(), vec![DimIndex::Fix(i.clone())]);
            if p.ty.is_array() {
                let row = self.bind("row", p.ty.clone(), idx);
                let SubExp::Var(row) = row else { continue };
                self.stms
                    .push(Stm::new(Pat::one(&p.name, p.ty.clone()), Exp::Copy(row)));
            } else {
                self.stms
                    .push(Stm::new(Pat::one(&p.name, p.ty.clone()), idx));
            }
        }
        self.stms.extend(lam.body.stms.iter().cloned());
        lam.body.result.clone()
    }

    /// `0 <= idx[k] < dims[k]` for every `k`.
    fn inside(&mut self, idx: &[SubExp], dims: &[SubExp]) -> SubExp {
        let mut acc = SubExp::Const(PrimValue::Bool(true));
        for (i, d) in idx.iter().zip(dims) {
            let lo = self.bool(Exp::CmpOp(CmpOp::SLe, SubExp::i64(0), i.clone()));
            let hi = self.bool(Exp::CmpOp(CmpOp::SLt, i.clone(), d.clone()));
            let both = self.bool(Exp::BinOp(BinOp::LogAnd, lo, hi));
            acc = self.bool(Exp::BinOp(BinOp::LogAnd, acc, both));
        }
        acc
    }
}

/// A zero-filled array of type `t` (`t` an array type).
fn zeros(t: &Type) -> Exp {
    Exp::Replicate {
        shape: t.shape().to_vec(),
        value: SubExp::Const(PrimValue::from_f64(t.elem(), 0.0)),
    }
}

/// The host statements computing `stm`'s results with a sequential loop over `soac`'s
/// elements; `None` for results of existential size.
fn host_loop(stm: &Stm, soac: &Soac, ns: &mut NameSource) -> Option<Vec<Stm>> {
    if !stm.pat.ctx.is_empty() {
        return None;
    }
    let results: Vec<Param> = stm.pat.elems.clone();
    let w = soac.width().clone();
    let i = ns.fresh("elem");
    let iv = SubExp::Var(i.clone());
    let mut pre = Emit {
        ns,
        stms: Vec::new(),
    };
    // Per loop parameter: the parameter, its initial value, and (in the body) its next value.
    let mut params: Vec<(Param, SubExp)> = Vec::new();
    let mut pat: Vec<Param> = Vec::new();
    let body_stms;
    let next: Vec<SubExp>;
    match soac {
        Soac::Map { lam, arrs, .. } => {
            let lam = renamed_lambda(lam, pre.ns);
            if lam.body.result.len() != results.len() {
                return None;
            }
            for r in &results {
                let init = pre.bind("map_out", r.ty.clone(), zeros(&r.ty));
                params.push((Param::new(&pre.ns.fresh("out"), r.ty.clone()), init));
            }
            let mut b = Emit {
                ns: pre.ns,
                stms: Vec::new(),
            };
            let res = b.inline_rows(&lam, arrs, &iv);
            next = params
                .iter()
                .zip(&res)
                .map(|((p, _), v)| update(&mut b, p, std::slice::from_ref(&iv), v))
                .collect();
            body_stms = b.stms;
            pat = results;
        }
        Soac::Reduce {
            op, nes, map, arrs, ..
        } => {
            let map = renamed_lambda(map, pre.ns);
            let op = renamed_lambda(op, pre.ns);
            if map.body.result.len() != nes.len() || results.len() != nes.len() {
                return None;
            }
            for (r, ne) in results.iter().zip(nes) {
                params.push((Param::new(&pre.ns.fresh("acc"), r.ty.clone()), ne.clone()));
            }
            let mut b = Emit {
                ns: pre.ns,
                stms: Vec::new(),
            };
            let xs = b.inline_rows(&map, arrs, &iv);
            let mut args: Vec<SubExp> = params
                .iter()
                .map(|(p, _)| SubExp::Var(p.name.clone()))
                .collect();
            args.extend(xs);
            next = b.inline(&op, &args);
            body_stms = b.stms;
            pat = results;
        }
        Soac::Scan {
            op, nes, map, arrs, ..
        } => {
            let map = renamed_lambda(map, pre.ns);
            let op = renamed_lambda(op, pre.ns);
            let k = nes.len();
            if map.body.result.len() != k || results.len() != k || op.ret.len() != k {
                return None;
            }
            for (t, ne) in op.ret.iter().zip(nes) {
                let p = Param::new(&pre.ns.fresh("acc"), t.clone());
                pat.push(Param::new(&pre.ns.fresh("last"), t.clone()));
                params.push((p, ne.clone()));
            }
            for r in &results {
                let init = pre.bind("scan_out", r.ty.clone(), zeros(&r.ty));
                params.push((Param::new(&pre.ns.fresh("out"), r.ty.clone()), init));
            }
            let mut b = Emit {
                ns: pre.ns,
                stms: Vec::new(),
            };
            let xs = b.inline_rows(&map, arrs, &iv);
            let mut args: Vec<SubExp> = params[..k]
                .iter()
                .map(|(p, _)| SubExp::Var(p.name.clone()))
                .collect();
            args.extend(xs);
            let accs = b.inline(&op, &args);
            let mut n = accs.clone();
            for (j, a) in accs.iter().enumerate() {
                let (p, _) = &params[k + j];
                n.push(update(&mut b, p, std::slice::from_ref(&iv), a));
            }
            next = n;
            body_stms = b.stms;
            pat.extend(results);
        }
        Soac::Hist {
            dests,
            rank,
            op,
            map,
            arrs,
            ..
        } => {
            let map = renamed_lambda(map, pre.ns);
            let k = dests.len();
            if map.body.result.len() != rank + k || results.len() != k {
                return None;
            }
            for (r, d) in results.iter().zip(dests) {
                params.push((
                    Param::new(&pre.ns.fresh("hist"), r.ty.clone()),
                    SubExp::Var(d.clone()),
                ));
            }
            let mut b = Emit {
                ns: pre.ns,
                stms: Vec::new(),
            };
            let res = b.inline_rows(&map, arrs, &iv);
            let (idx, vals) = res.split_at(*rank);
            let dims: Vec<SubExp> = results[0].ty.shape()[..*rank].to_vec();
            let cond = b.inside(idx, &dims);
            let olds: Vec<Param> = params.iter().map(|(p, _)| p.clone()).collect();
            // In range: each bucket becomes `op old v`.
            let mut t = Emit {
                ns: b.ns,
                stms: Vec::new(),
            };
            let op = renamed_lambda(op, t.ns);
            let mut args = Vec::new();
            for p in &olds {
                let row = p.ty.strip(*rank);
                let idxs = idx.iter().map(|x| DimIndex::Fix(x.clone())).collect();
                args.push(t.bind("old", row, Exp::Index(p.name.clone(), idxs)));
            }
            args.extend(vals.iter().cloned());
            let news = t.inline(&op, &args);
            let then_res: Vec<SubExp> = olds
                .iter()
                .zip(&news)
                .map(|(p, v)| update(&mut t, p, idx, v))
                .collect();
            let then_body = Body::new(t.stms, then_res);
            next = branch(&mut b, cond, then_body, &olds);
            body_stms = b.stms;
            pat = results;
        }
        Soac::Scatter {
            dests,
            ranks,
            map,
            arrs,
            ..
        } => {
            let map = renamed_lambda(map, pre.ns);
            let want: usize = ranks.iter().map(|r| r + 1).sum();
            if map.body.result.len() != want
                || results.len() != dests.len()
                || ranks.len() != dests.len()
            {
                return None;
            }
            for (r, d) in results.iter().zip(dests) {
                params.push((
                    Param::new(&pre.ns.fresh("dest"), r.ty.clone()),
                    SubExp::Var(d.clone()),
                ));
            }
            let mut b = Emit {
                ns: pre.ns,
                stms: Vec::new(),
            };
            let res = b.inline_rows(&map, arrs, &iv);
            let mut at = 0;
            let mut n = Vec::new();
            for ((p, _), r) in params.iter().zip(ranks) {
                let idx = &res[at..at + r];
                let v = &res[at + r];
                at += r + 1;
                let cond = b.inside(idx, &p.ty.shape()[..*r]);
                let mut t = Emit {
                    ns: b.ns,
                    stms: Vec::new(),
                };
                let written = update(&mut t, p, idx, v);
                let then_body = Body::new(t.stms, vec![written]);
                n.extend(branch(&mut b, cond, then_body, std::slice::from_ref(p)));
            }
            next = n;
            body_stms = b.stms;
            pat = results;
        }
    }
    let loop_exp = Exp::Loop {
        params,
        form: LoopForm::For { var: i, bound: w },
        body: Body::new(body_stms, next),
    };
    let mut out = pre.stms;
    let mut s = Stm::new(Pat::new(pat), loop_exp);
    s.loc = stm.loc.clone();
    out.push(s);
    Some(out)
}

/// `p with [idx…] = v`, bound to a fresh name.
fn update(e: &mut Emit<'_>, p: &Param, idx: &[SubExp], v: &SubExp) -> SubExp {
    let idxs = idx.iter().map(|x| DimIndex::Fix(x.clone())).collect();
    e.bind(
        "upd",
        p.ty.clone(),
        Exp::Update(p.name.clone(), idxs, v.clone()),
    )
}

/// `if cond then then_body else olds`, whose results have the types of `olds`.
fn branch(e: &mut Emit<'_>, cond: SubExp, then_body: Body, olds: &[Param]) -> Vec<SubExp> {
    let else_body = Body::new(
        Vec::new(),
        olds.iter().map(|p| SubExp::Var(p.name.clone())).collect(),
    );
    let names: Vec<Param> = olds
        .iter()
        .map(|p| Param::new(&e.ns.fresh("kept"), p.ty.clone()))
        .collect();
    let out = names.iter().map(|p| SubExp::Var(p.name.clone())).collect();
    e.stms.push(Stm::new(
        Pat::new(names),
        Exp::If {
            cond,
            then_body,
            else_body,
            ret: olds.iter().map(|p| p.ty.to_ext()).collect(),
        },
    ));
    out
}
