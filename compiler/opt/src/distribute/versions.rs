//! Reductions inside a map, in two versions. A map whose lambda's only SOACs are
//! reductions runs well as one map whose threads each reduce sequentially, when the map alone
//! fills the GPU.
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
    Body, CmpOp, Exp, Lambda, Name, NameSource, Param, Pat, Soac, Stm, SubExp, Type, body_types,
    renamed_lambda,
};
use futhark_ir::types::PrimType;

use super::{is_soac, stm_uses};

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
/// With `always`, the distributed version only, whatever the width (a contraction inside
/// another map: see [`contraction`]).
pub(super) fn version_reductions(stm: &Stm, ns: &mut NameSource, always: bool) -> Option<Vec<Stm>> {
    let Exp::Soac(Soac::Map { w, lam, arrs }) = &stm.exp else {
        return None;
    };
    if !stm.pat.ctx.is_empty() || ends_in_only_soac(lam) {
        return None;
    }
    if !always && w.as_i64().is_some_and(|c| c >= SEGRED_MAX_OUTER) {
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
        // Without the other version, the last map binds the statement's own names (a copy
        // of its results would become a kernel of its own inside another map).
        let (pat, res) = if always {
            let res = stm.pat.elems.iter().map(|p| SubExp::Var(p.name.clone()));
            (stm.pat.clone(), res.collect())
        } else {
            fresh_binders(&stm.pat, ns)
        };
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
    if always || w.as_i64().is_some() {
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

/// Whether a map (inside another map's lambda) holds one reduction, with scalar statements
/// around it, that reads a row of the map's own input and an array from outside the map:
/// a contraction such as `alpha * sum (map2 (*) arow bcol) + beta * c` (sgemm). Distributed
/// (a map of the reduction, then a map of the rest), the nest with the outer map is a
/// segmented reduction the code generator tiles, where kept whole each thread would run
/// its reduction sequentially, untiled.
pub(super) fn contraction(stm: &Stm) -> bool {
    let Exp::Soac(Soac::Map { lam, .. }) = &stm.exp else {
        return false;
    };
    let params: HashSet<&Name> = lam.params.iter().map(|p| &p.name).collect();
    let mut bound: HashSet<&Name> = params.clone();
    for s in &lam.body.stms {
        bound.extend(s.pat.names());
    }
    let mut soacs = lam.body.stms.iter().filter(|s| is_soac(s));
    let (Some(red), None) = (soacs.next(), soacs.next()) else {
        return false;
    };
    let Exp::Soac(Soac::Reduce { arrs, .. }) = &red.exp else {
        return false;
    };
    red.pat.elems.iter().all(|p| !p.ty.is_array())
        && arrs.iter().any(|a| params.contains(a))
        && arrs.iter().any(|a| !bound.contains(a))
}

/// The statements of `b` followed by binding `stm`'s pattern to its results.
fn bind_body(stm: &Stm, b: Body) -> Vec<Stm> {
    let mut out = b.stms;
    for (p, r) in stm.pat.elems.iter().zip(b.result) {
        if r.as_var() != Some(&p.name) {
            out.push(Stm::new(Pat::new(vec![p.clone()]), Exp::SubExp(r)));
        }
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
