//! `distribute`: splits a `map` whose lambda computes several SOACs into one map per SOAC
//! (map distribution), so each becomes a perfect nest that kernel extraction flattens.
//!
//! The lambda's statements are cut after every SOAC. Each piece becomes a map over the
//! same width taking the rows of the original inputs it uses, plus, as arrays, the values
//! earlier pieces computed that it needs; the last piece gives the original results. A
//! value whose size is only known inside the lambda cannot be carried between pieces,
//! and then the map is left as it is (its inner SOACs run sequentially per thread).
//!
//! **Reductions: two versions.** A map whose lambda's only SOACs are reductions runs well
//! as one map whose threads each reduce sequentially, when the map alone fills the GPU.
//! When it does not (n-body: 10^5 bodies, fewer threads than one wave of an H200), the
//! reductions are better as segmented reductions over `outer x inner` points. In host code
//! such a map becomes (incremental flattening, as in Futhark):
//!
//! ```text
//! if w < SEGRED_MAX_OUTER  -- 2^19
//! then  -- one map ... redomap perfect nest per reduction (a SegRed), then a map of the rest
//! else  -- the map as it was (one thread per element, inner reductions sequential)
//! ```
//!
//! Each reduction's nest recomputes the scalar statements it depends on per element; the
//! last map recomputes the other statements and reads the reductions' results as arrays.

use std::collections::{HashMap, HashSet};

use futhark_ir::soacs::{
    Body, CmpOp, Exp, Lambda, Name, NameSource, Param, Pat, Program, Rewriter, Soac, Stm, SubExp,
    Type, body_types, renamed_lambda, uses_in_exp,
};
use futhark_ir::types::PrimType;

use crate::interchange;
use crate::util::inner_bodies_mut;

/// The `distribute` pass.
pub fn distribute(mut prog: Program) -> Program {
    let mut ns = NameSource::for_program(&prog);
    for f in &mut prog.funs {
        body(&mut f.body, &mut ns, true);
    }
    prog
}

/// Outer widths from which a map whose lambda reduces keeps its reductions sequential in
/// each thread. An H100/H200 holds 132 SMs x 2048 = 270k resident threads: below that the
/// map leaves SMs idle (and its few warps per SM hide no latency) while the segmented
/// reductions' `outer x inner` points fill them, and split over GPUs by segments. Measured
/// on an H200 with n-body (n^2 interactions): segmented reductions take about 28 ms per
/// 10^10 interactions at any size (28 ms at 100k bodies, 48 ms at 131071, 3.1 s at 2^20-1);
/// the map took 85 ms at 100k, 111 ms at 131072 and 1.8 s at 2^20 (16 ms per 10^10 once it
/// fills the GPU several times). The crossover lies between 2^17 and 2^20; 2^19 is about
/// two waves of one H200, from where the map's version is the better one.
pub const SEGRED_MAX_OUTER: i64 = 1 << 19;

/// Reductions over a known width below this stay sequential in the thread (a segment that
/// short is no work for a block, and the map's version is as good).
pub const SEGRED_MIN_INNER: i64 = 64;

/// `host`: the body is host code (a function body, or a branch or loop body in one), where
/// a run-time choice between versions can launch different kernels.
fn body(b: &mut Body, ns: &mut NameSource, host: bool) {
    let stms = std::mem::take(&mut b.stms);
    for mut stm in stms {
        let inner_host = host && matches!(stm.exp, Exp::If { .. } | Exp::Loop { .. });
        inner_bodies_mut(&mut stm.exp, &mut |bb| body(bb, ns, inner_host));
        match distribute_map(&stm, ns, host) {
            Some(new) => b.stms.extend(new),
            None => match host.then(|| version_reductions(&stm, ns)).flatten() {
                Some(new) => b.stms.extend(new),
                None => b.stms.push(stm),
            },
        }
    }
}

fn is_soac(s: &Stm) -> bool {
    matches!(s.exp, Exp::Soac(_))
}

fn stm_uses(s: &Stm) -> HashSet<Name> {
    let mut u = uses_in_exp(&s.exp);
    for p in &s.pat.elems {
        u.extend(p.ty.shape().iter().filter_map(|d| d.as_var().cloned()));
    }
    u
}

/// The maps replacing a map statement, if it is worth distributing. Loops that interchange
/// with the map and array operations that lift out of it (see [`interchange`]) are pieces of
/// their own; `host` says whether `stm` is in host code (passed on to the bodies of
/// interchanged loops).
fn distribute_map(stm: &Stm, ns: &mut NameSource, host: bool) -> Option<Vec<Stm>> {
    let Exp::Soac(Soac::Map { lam, .. }) = &stm.exp else {
        return None;
    };
    let mut local: HashSet<Name> = lam.params.iter().map(|p| p.name.clone()).collect();
    for s in &lam.body.stms {
        local.extend(s.pat.ctx.iter().cloned());
        local.extend(s.pat.names().cloned());
    }
    let alone = |s: &Stm| {
        interchange::interchangeable(s, &local)
            || (matches!(s.exp, Exp::Rearrange { .. } | Exp::Reshape { .. })
                && interchange::liftable(s))
    };
    let loops = lam
        .body
        .stms
        .iter()
        .any(|s| interchange::interchangeable(s, &local));
    if loops {
        if let [only] = lam.body.stms.as_slice()
            && interchange::interchangeable(only, &local)
        {
            return interchanged(stm, ns, host);
        }
        return distribute_pieces(stm, ns, host, &alone);
    }
    if !lam.body.stms.iter().any(alone) {
        simple_map(stm)?;
    }
    distribute_pieces(stm, ns, host, &alone)
}

/// `stm` interchanged with its lambda's loop, the new loop's body distributed in turn.
fn interchanged(stm: &Stm, ns: &mut NameSource, host: bool) -> Option<Vec<Stm>> {
    let mut out = interchange::interchange(stm, ns)?;
    for s in &mut out {
        if let Exp::Loop { body: b, .. } = &mut s.exp {
            body(b, ns, host);
        }
    }
    Some(out)
}

/// `Some(())` when a map (without loops or array operations to take out) is worth
/// distributing: not when its only SOACs are reductions (they run fine sequentially in a
/// thread), nor when it is a perfect nest already (flattened as is).
fn simple_map(stm: &Stm) -> Option<()> {
    let Exp::Soac(Soac::Map { lam, .. }) = &stm.exp else {
        return None;
    };
    let soacs: Vec<&Soac> = lam
        .body
        .stms
        .iter()
        .filter_map(|s| match &s.exp {
            Exp::Soac(x) => Some(x),
            _ => None,
        })
        .collect();
    if soacs.iter().all(|s| matches!(s, Soac::Reduce { .. })) {
        return None;
    }
    if let [only] = soacs.as_slice()
        && let Some(last) = lam.body.stms.last()
        && matches!(&last.exp, Exp::Soac(x) if std::ptr::eq(x, *only))
        && last
            .pat
            .elems
            .iter()
            .map(|p| SubExp::Var(p.name.clone()))
            .eq(lam.body.result.iter().cloned())
    {
        return None;
    }
    Some(())
}

/// The pieces of a map: statements up to and including each SOAC, statements that `alone`
/// picks on their own, then the trailing rest; each piece a map of its own.
fn distribute_pieces(
    stm: &Stm,
    ns: &mut NameSource,
    host: bool,
    alone: &dyn Fn(&Stm) -> bool,
) -> Option<Vec<Stm>> {
    let Exp::Soac(Soac::Map { w, lam, arrs }) = &stm.exp else {
        return None;
    };
    let mut pieces: Vec<Vec<&Stm>> = Vec::new();
    let mut cur = Vec::new();
    for s in &lam.body.stms {
        if alone(s) {
            if !cur.is_empty() {
                pieces.push(std::mem::take(&mut cur));
            }
            pieces.push(vec![s]);
            continue;
        }
        cur.push(s);
        if is_soac(s) {
            pieces.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() {
        pieces.push(cur);
    }
    if pieces.len() < 2 {
        return None;
    }
    let mut types: HashMap<Name, Type> = HashMap::new();
    for p in &lam.params {
        types.insert(p.name.clone(), p.ty.clone());
    }
    body_types(&lam.body, &mut types);
    let local: HashSet<Name> = types.keys().cloned().collect();
    let last = pieces.len() - 1;
    let final_uses: HashSet<Name> = lam
        .body
        .result
        .iter()
        .filter_map(|r| r.as_var().cloned())
        .collect();
    let recomputed = recompute_scalars(&lam.body.stms, &mut pieces, &final_uses);
    let bound_in: Vec<HashSet<Name>> = pieces
        .iter()
        .map(|ss| ss.iter().flat_map(|s| s.pat.names().cloned()).collect())
        .collect();
    // What each piece uses that it does not bind (the last piece: the results too).
    let uses_in: Vec<HashSet<Name>> = pieces
        .iter()
        .enumerate()
        .map(|(k, ss)| {
            let mut u: HashSet<Name> = ss.iter().flat_map(|s| stm_uses(s)).collect();
            if k == last {
                u.extend(final_uses.iter().cloned());
            }
            u.retain(|v| !bound_in[k].contains(v));
            u
        })
        .collect();
    // Values each piece computes that later pieces (or the results) need.
    let mut carried: Vec<Vec<Name>> = Vec::new();
    for k in 0..last {
        let mut out: Vec<Name> = bound_in[k]
            .iter()
            .filter(|v| uses_in[k + 1..].iter().any(|u| u.contains(*v)))
            .cloned()
            .collect();
        out.sort();
        for v in &out {
            // A carried value's type may not depend on names bound in the lambda.
            let t = types.get(v)?;
            if t.shape()
                .iter()
                .any(|d| d.as_var().is_some_and(|x| local.contains(x)))
            {
                return None;
            }
        }
        carried.push(out);
    }
    let mut carried_arrays: HashMap<Name, Name> = HashMap::new();
    let mut out = Vec::new();
    for (k, piece) in pieces.iter().enumerate() {
        let needs = if k == last {
            let mut u = uses_in[k].clone();
            u.extend(final_uses.iter().cloned());
            u
        } else {
            uses_in[k].clone()
        };
        let mut params = Vec::new();
        let mut inputs = Vec::new();
        let mut subst: HashMap<Name, SubExp> = HashMap::new();
        for (p, a) in lam.params.iter().zip(arrs) {
            if needs.contains(&p.name) {
                let np = Param::new(&ns.fresh(&p.name), p.ty.clone());
                subst.insert(p.name.clone(), SubExp::Var(np.name.clone()));
                params.push(np);
                inputs.push(a.clone());
            }
        }
        for v in carried[..k].iter().flatten() {
            if needs.contains(v) {
                let np = Param::new(&ns.fresh(v), types.get(v)?.clone());
                subst.insert(v.clone(), SubExp::Var(np.name.clone()));
                params.push(np);
                inputs.push(carried_arrays.get(v)?.clone());
            }
        }
        let stms: Vec<Stm> = piece.iter().map(|s| (*s).clone()).collect();
        let (result, ret): (Vec<SubExp>, Vec<Type>) = if k == last {
            (lam.body.result.clone(), lam.ret.clone())
        } else {
            carried[k]
                .iter()
                .map(|v| Some((SubExp::Var(v.clone()), types.get(v)?.clone())))
                .collect::<Option<Vec<_>>>()?
                .into_iter()
                .unzip()
        };
        let mut body = Body::new(stms, result);
        Rewriter::subst(&subst).body(&mut body);
        let mut lam = Lambda { params, body, ret };
        if recomputed[k] {
            // Its copies of earlier pieces' statements bind the same names: rename.
            lam = renamed_lambda(&lam, ns);
        }
        let pat = if k == last {
            stm.pat.clone()
        } else {
            let mut elems = Vec::new();
            for (v, t) in carried[k].iter().zip(&lam.ret) {
                let name = ns.fresh(&format!("{v}_dist"));
                carried_arrays.insert(v.clone(), name.clone());
                elems.push(Param::new(&name, t.array_of(w.clone())));
            }
            Pat::new(elems)
        };
        let piece = Stm::new(
            pat,
            Exp::Soac(Soac::Map {
                w: w.clone(),
                lam,
                arrs: inputs,
            }),
        );
        if let Some(new) = interchanged(&piece, ns, host) {
            out.extend(new);
        } else {
            out.push(interchange::lift(&piece).unwrap_or(piece));
        }
    }
    Some(out)
}

/// Gives each piece after the first copies of the cheap scalar statements of earlier pieces
/// that it needs (an index, arithmetic), so that those values need not be carried between
/// pieces as arrays and a piece ending in a SOAC gives only that SOAC's results (a perfect
/// nest). `stms` are the lambda's statements in order; the result says which pieces got
/// copies.
fn recompute_scalars<'s>(
    stms: &'s [Stm],
    pieces: &mut [Vec<&'s Stm>],
    final_uses: &HashSet<Name>,
) -> Vec<bool> {
    let cheap = |s: &Stm| {
        s.pat.ctx.is_empty()
            && s.pat.elems.iter().all(|p| !p.ty.is_array())
            && matches!(
                s.exp,
                Exp::SubExp(_)
                    | Exp::BinOp(..)
                    | Exp::CmpOp(..)
                    | Exp::UnOp(..)
                    | Exp::Conv(..)
                    | Exp::Math(..)
                    | Exp::Index(..)
            )
    };
    // Name -> (piece, index in `stms`) of its cheap defining statement.
    let mut def: HashMap<&Name, (usize, usize)> = HashMap::new();
    for (k, piece) in pieces.iter().enumerate() {
        for s in piece {
            if cheap(s)
                && let Some(i) = stms.iter().position(|x| std::ptr::eq(x, *s))
            {
                for n in s.pat.names() {
                    def.insert(n, (k, i));
                }
            }
        }
    }
    let last = pieces.len().saturating_sub(1);
    let mut changed = vec![false; pieces.len()];
    for k in 1..pieces.len() {
        let bound: HashSet<&Name> = pieces[k].iter().flat_map(|s| s.pat.names()).collect();
        let mut work: Vec<Name> = pieces[k].iter().flat_map(|s| stm_uses(s)).collect();
        if k == last {
            work.extend(final_uses.iter().cloned());
        }
        let mut copies: Vec<usize> = Vec::new();
        while let Some(v) = work.pop() {
            if bound.contains(&v) {
                continue;
            }
            if let Some(&(j, i)) = def.get(&v)
                && j < k
                && !copies.contains(&i)
            {
                copies.push(i);
                work.extend(stm_uses(&stms[i]));
            }
        }
        if copies.is_empty() {
            continue;
        }
        copies.sort_unstable();
        let mut new: Vec<&Stm> = copies.iter().map(|&i| &stms[i]).collect();
        new.append(&mut pieces[k]);
        pieces[k] = new;
        changed[k] = true;
    }
    changed
}

/// Whether a map's lambda is already a perfect nest ending in its only SOAC.
fn ends_in_only_soac(lam: &Lambda) -> bool {
    let mut soacs = lam.body.stms.iter().filter(|s| is_soac(s));
    let (Some(first), None) = (soacs.next(), soacs.next()) else {
        return false;
    };
    lam.body.stms.last().is_some_and(|l| std::ptr::eq(l, first))
        && first
            .pat
            .elems
            .iter()
            .map(|p| SubExp::Var(p.name.clone()))
            .eq(lam.body.result.iter().cloned())
}

/// A map statement (in host code) whose lambda's SOACs are all reductions, as a branch on
/// its width between the distributed version (segmented reductions) and the map itself.
fn version_reductions(stm: &Stm, ns: &mut NameSource) -> Option<Vec<Stm>> {
    let Exp::Soac(Soac::Map { w, lam, arrs }) = &stm.exp else {
        return None;
    };
    if !stm.pat.ctx.is_empty() || ends_in_only_soac(lam) {
        return None;
    }
    if w.as_i64().is_some_and(|c| c >= SEGRED_MAX_OUTER) {
        return None;
    }
    let reds: Vec<usize> = (0..lam.body.stms.len())
        .filter(|&i| is_soac(&lam.body.stms[i]))
        .collect();
    if reds.is_empty() {
        return None;
    }
    for &i in &reds {
        let s = &lam.body.stms[i];
        let Exp::Soac(Soac::Reduce { .. }) = &s.exp else {
            return None;
        };
        if !s.pat.ctx.is_empty() || s.pat.elems.iter().any(|p| p.ty.is_array()) {
            return None;
        }
    }
    let worth = reds.iter().any(|&i| match &lam.body.stms[i].exp {
        Exp::Soac(s) => s.width().as_i64().is_none_or(|c| c >= SEGRED_MIN_INNER),
        _ => false,
    });
    if !worth {
        return None;
    }
    let mut types: HashMap<Name, Type> = HashMap::new();
    for p in &lam.params {
        types.insert(p.name.clone(), p.ty.clone());
    }
    body_types(&lam.body, &mut types);
    let param_input: HashMap<&Name, &Name> = lam.params.iter().map(|p| &p.name).zip(arrs).collect();

    // A map over `w` of `stms` giving `result`: the original inputs it uses, then the
    // reductions' results it uses (from `carried`), its binders renamed.
    let piece = |stms: Vec<Stm>,
                 result: Vec<SubExp>,
                 ret: Vec<Type>,
                 carried: &HashMap<Name, Name>,
                 ns: &mut NameSource|
     -> Option<(Lambda, Vec<Name>)> {
        let mut used: HashSet<Name> = stms.iter().flat_map(stm_uses).collect();
        used.extend(result.iter().filter_map(|r| r.as_var().cloned()));
        let mut params = Vec::new();
        let mut inputs = Vec::new();
        for p in &lam.params {
            if used.contains(&p.name) {
                params.push(p.clone());
                inputs.push((*param_input.get(&p.name)?).clone());
            }
        }
        let mut names: Vec<&Name> = carried.keys().filter(|v| used.contains(*v)).collect();
        names.sort();
        for v in names {
            params.push(Param::new(v, types.get(v)?.clone()));
            inputs.push(carried.get(v)?.clone());
        }
        let l = Lambda {
            params,
            body: Body::new(stms, result),
            ret,
        };
        Some((renamed_lambda(&l, ns), inputs))
    };

    let mut then_stms = Vec::new();
    // Result of a reduction -> the array of them over `w`.
    let mut carried: HashMap<Name, Name> = HashMap::new();
    for &r in &reds {
        let red = &lam.body.stms[r];
        // The statements before it that it depends on (not through other reductions), and
        // the assertions before it (which may guard it).
        let mut needed: HashSet<Name> = stm_uses(red);
        let mut keep = vec![false; r];
        for j in (0..r).rev() {
            let s = &lam.body.stms[j];
            let assertion = matches!(s.exp, Exp::Assert { .. });
            if is_soac(s) || !(assertion || s.pat.names().any(|n| needed.contains(n))) {
                continue;
            }
            keep[j] = true;
            needed.extend(stm_uses(s));
        }
        let mut stms: Vec<Stm> = (0..r)
            .filter(|&j| keep[j])
            .map(|j| lam.body.stms[j].clone())
            .collect();
        stms.push(red.clone());
        let result: Vec<SubExp> = red
            .pat
            .elems
            .iter()
            .map(|p| SubExp::Var(p.name.clone()))
            .collect();
        let ret: Vec<Type> = red.pat.elems.iter().map(|p| p.ty.clone()).collect();
        let (l, inputs) = piece(stms, result, ret.clone(), &carried, ns)?;
        // Only worth it if the nest flattens to a segmented reduction.
        crate::kernels::perfect_nest(&l)?;
        let mut elems = Vec::new();
        for (p, t) in red.pat.elems.iter().zip(&ret) {
            let name = ns.fresh(&format!("{}_dist", p.name));
            carried.insert(p.name.clone(), name.clone());
            elems.push(Param::new(&name, t.array_of(w.clone())));
        }
        then_stms.push(Stm::new(
            Pat::new(elems),
            Exp::Soac(Soac::Map {
                w: w.clone(),
                lam: l,
                arrs: inputs,
            }),
        ));
    }
    // The rest: every other statement (all of them, so that every assertion and bounds
    // check of the original still runs), reading the reductions' results.
    let rest: Vec<Stm> = lam
        .body
        .stms
        .iter()
        .filter(|s| !is_soac(s))
        .cloned()
        .collect();
    let then_result: Vec<SubExp> = if rest.is_empty()
        && lam
            .body
            .result
            .iter()
            .all(|r| r.as_var().is_some_and(|v| carried.contains_key(v)))
    {
        lam.body
            .result
            .iter()
            .map(|r| SubExp::Var(carried[r.as_var().unwrap()].clone()))
            .collect()
    } else {
        let (l, inputs) = piece(rest, lam.body.result.clone(), lam.ret.clone(), &carried, ns)?;
        let (pat, res) = fresh_binders(&stm.pat, ns);
        then_stms.push(Stm::new(
            pat,
            Exp::Soac(Soac::Map {
                w: w.clone(),
                lam: l,
                arrs: inputs,
            }),
        ));
        res
    };
    let then_body = Body::new(then_stms, then_result);
    if w.as_i64().is_some() {
        // A known width below the threshold: the distributed version only.
        return Some(bind_body(stm, then_body));
    }
    // The map as it was, its binders renamed (the other branch has copies of them).
    let (pat, else_result) = fresh_binders(&stm.pat, ns);
    let else_body = Body::new(
        vec![Stm::new(
            pat,
            Exp::Soac(Soac::Map {
                w: w.clone(),
                lam: renamed_lambda(lam, ns),
                arrs: arrs.clone(),
            }),
        )],
        else_result,
    );
    let cond = ns.fresh("segred_fits");
    Some(vec![
        Stm::new(
            Pat::one(&cond, Type::Prim(PrimType::Bool)),
            Exp::CmpOp(CmpOp::SLt, w.clone(), SubExp::i64(SEGRED_MAX_OUTER)),
        ),
        Stm::new(
            stm.pat.clone(),
            Exp::If {
                cond: SubExp::Var(cond),
                then_body,
                else_body,
                ret: stm.pat.elems.iter().map(|p| p.ty.to_ext()).collect(),
            },
        ),
    ])
}

/// The statements of `b` followed by binding `stm`'s pattern to its results.
fn bind_body(stm: &Stm, b: Body) -> Vec<Stm> {
    let mut out = b.stms;
    for (p, r) in stm.pat.elems.iter().zip(b.result) {
        out.push(Stm::new(Pat::new(vec![p.clone()]), Exp::SubExp(r)));
    }
    out
}

/// Fresh copies of `pat`'s binders (for one branch of an `if` that `pat` binds), and those
/// copies as the branch's result.
fn fresh_binders(pat: &Pat, ns: &mut NameSource) -> (Pat, Vec<SubExp>) {
    let elems: Vec<Param> = pat
        .elems
        .iter()
        .map(|p| Param::new(&ns.fresh(&p.name), p.ty.clone()))
        .collect();
    let result = elems.iter().map(|p| SubExp::Var(p.name.clone())).collect();
    (Pat::new(elems), result)
}
