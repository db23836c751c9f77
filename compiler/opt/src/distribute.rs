//! `distribute`: splits a `map` whose lambda computes several SOACs into one map per SOAC
//! (map distribution), so each becomes a perfect nest that kernel extraction flattens.
//!
//! The lambda's statements are cut after every SOAC. Each piece becomes a map over the
//! same width taking the rows of the original inputs it uses, plus, as arrays, the values
//! earlier pieces computed that it needs; the last piece gives the original results. A
//! value whose size is only known inside the lambda cannot be carried between pieces,
//! and then the map is left as it is (its inner SOACs run sequentially per thread).
//!
//! Loops inside the lambda that can move out of the map, and array operations that lift
//! out of it, are pieces of their own (`interchange.rs`). Maps whose SOACs are only
//! reductions get two versions chosen at run time (`versions.rs`); inside another map, a
//! contraction (one reduction of a row of the map's input with an array from outside it)
//! is always distributed, so that the nest becomes a segmented reduction that is tiled.

use std::collections::{HashMap, HashSet};

use futhark_ir::soacs::{
    Body, Exp, Lambda, Name, NameSource, Param, Pat, Program, Rewriter, Soac, Stm, SubExp, Type,
    body_types, renamed_lambda, uses_in_exp,
};

use crate::interchange;
use crate::util::inner_bodies_mut;

mod versions;

use versions::{contraction, version_reductions};

/// The `distribute` pass.
pub fn distribute(mut prog: Program) -> Program {
    let mut ns = NameSource::for_program(&prog);
    for f in &mut prog.funs {
        body(&mut f.body, &mut ns, true);
    }
    prog
}

/// `host`: the body is host code (a function body, or a branch or loop body in one), where
/// a run-time choice between versions can launch different kernels.
fn body(b: &mut Body, ns: &mut NameSource, host: bool) {
    let stms = std::mem::take(&mut b.stms);
    for mut stm in stms {
        let inner_host = host && matches!(stm.exp, Exp::If { .. } | Exp::Loop { .. });
        inner_bodies_mut(&mut stm.exp, &mut |bb| body(bb, ns, inner_host));
        // Distributing the lambda may have made invariant views (`rearrange` of an array
        // from outside, lifted out of an inner map): out in front, not replicated per row.
        b.stms.extend(crate::simplify::hoist_invariant(&mut stm));
        let versions = |stm: &Stm, ns: &mut NameSource| match host {
            true => version_reductions(stm, ns, false),
            false if contraction(stm) => version_reductions(stm, ns, true),
            false => None,
        };
        match distribute_map(&stm, ns, host) {
            Some(new) => b.stms.extend(new),
            None => match versions(&stm, ns) {
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
