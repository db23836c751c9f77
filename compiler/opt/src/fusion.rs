//! `fuse`: SOAC fusion within each body.
//!
//! **Vertical.** A `map` whose results feed a later SOAC of the same width as inputs (and
//! nothing else) is merged into that SOAC's map lambda: `reduce op ne (map f xs)` becomes
//! one redomap, `map g (map f xs)` one map, and likewise for scans, histograms and
//! scatters. When the consumer is a `map`, producer results used elsewhere too (only after
//! the consumer) become extra results of the fused map. The producer moves to the
//! consumer's place, so nothing in between may consume its inputs.
//!
//! **Horizontal.** Two `map`s of the same width whose lambdas contain no SOACs, where the
//! second does not depend on anything bound from the first on, become one map with the
//! results of both: one kernel reading shared inputs once.

use std::collections::{HashMap, HashSet};

use futhark_ir::soacs::{
    Body, Exp, KernelArg, Lambda, Name, NameSource, Pat, Program, Rewriter, Soac, Stm, SubExp,
    free_in_exp, free_in_lambda, renamed_lambda, uses_in_exp,
};

use crate::util::{inner_bodies_mut, soac_lambdas};

/// The `fuse` pass.
pub fn fuse(mut prog: Program) -> Program {
    let mut ns = NameSource::for_program(&prog);
    for f in &mut prog.funs {
        fuse_body(&mut f.body, &mut ns);
    }
    prog
}

fn fuse_body(b: &mut Body, ns: &mut NameSource) {
    for stm in &mut b.stms {
        inner_bodies_mut(&mut stm.exp, &mut |bb| fuse_body(bb, ns));
    }
    while vertical_once(b, ns) {}
    while horizontal_once(b) {}
}

/// Names an expression consumes (conservatively: arrays passed to calls and loops too).
fn consumed(e: &Exp) -> Vec<Name> {
    match e {
        Exp::Update(a, ..) => vec![a.clone()],
        Exp::Soac(Soac::Hist { dests, .. }) | Exp::Soac(Soac::Scatter { dests, .. }) => {
            dests.clone()
        }
        Exp::Launch(l) => l
            .args
            .iter()
            .filter_map(|a| match a {
                KernelArg::InOut(n) => Some(n.clone()),
                _ => None,
            })
            .collect(),
        Exp::Apply { args, .. } => args.iter().filter_map(|a| a.as_var().cloned()).collect(),
        Exp::Loop { params, .. } => params
            .iter()
            .filter_map(|(_, i)| i.as_var().cloned())
            .collect(),
        _ => Vec::new(),
    }
}

/// Whether `name` occurs in `e` anywhere other than as one of the SOAC's input arrays.
fn used_besides_input(e: &Exp, name: &str) -> bool {
    let Exp::Soac(s) = e else {
        return uses_in_exp(e).contains(name);
    };
    if s.width().as_var().is_some_and(|v| v == name) {
        return true;
    }
    if soac_lambdas(s)
        .iter()
        .any(|l| free_in_lambda(l).contains(name))
    {
        return true;
    }
    match s {
        Soac::Reduce { nes, .. } | Soac::Scan { nes, .. } => {
            nes.iter().any(|n| n.as_var().is_some_and(|v| v == name))
        }
        Soac::Hist { dests, nes, .. } => {
            dests.iter().any(|d| d == name)
                || nes.iter().any(|n| n.as_var().is_some_and(|v| v == name))
        }
        Soac::Scatter { dests, .. } => dests.iter().any(|d| d == name),
        Soac::Map { .. } => false,
    }
}

fn uses_name(s: &Stm, name: &str) -> bool {
    uses_in_exp(&s.exp).contains(name)
        || s.pat.elems.iter().any(|p| {
            p.ty.shape()
                .iter()
                .any(|d| d.as_var().is_some_and(|v| v == name))
        })
}

/// Performs one vertical fusion in `b`; false when there is none to do.
fn vertical_once(b: &mut Body, ns: &mut NameSource) -> bool {
    for c in 0..b.stms.len() {
        let Exp::Soac(cons) = &b.stms[c].exp else {
            continue;
        };
        for input in cons.inputs().to_vec() {
            let Some(p) = (0..c)
                .rev()
                .find(|&i| b.stms[i].pat.elems.iter().any(|e| e.name == input))
            else {
                continue;
            };
            if let Some(stm) = try_vertical(b, p, c, ns) {
                b.stms[c] = stm;
                b.stms.remove(p);
                return true;
            }
        }
    }
    false
}

fn try_vertical(b: &Body, p: usize, c: usize, ns: &mut NameSource) -> Option<Stm> {
    let prod = &b.stms[p];
    let cons = &b.stms[c];
    let (
        Exp::Soac(Soac::Map {
            w: pw,
            lam: plam,
            arrs: parrs,
        }),
        Exp::Soac(csoac),
    ) = (&prod.exp, &cons.exp)
    else {
        return None;
    };
    if !prod.pat.ctx.is_empty() || pw != csoac.width() {
        return None;
    }
    let results: Vec<Name> = prod.pat.elems.iter().map(|e| e.name.clone()).collect();
    let is_map = matches!(csoac, Soac::Map { .. });
    // Each producer result: fused only (false) or also needed after the consumer (true).
    let mut keep = Vec::new();
    for (k, r) in results.iter().enumerate() {
        if used_besides_input(&cons.exp, r) || b.stms[p + 1..c].iter().any(|s| uses_name(s, r)) {
            return None;
        }
        let after = b.stms[c + 1..].iter().any(|s| uses_name(s, r))
            || b.result.iter().any(|x| x.as_var() == Some(r));
        if after {
            if !is_map {
                return None;
            }
            keep.push(k);
        }
    }
    // The producer's inputs must survive until the consumer, and must not be what the
    // consumer writes (a scatter reading its own destination would race).
    let mut needed: HashSet<Name> = parrs.iter().cloned().collect();
    needed.extend(free_in_lambda(plam));
    if let Soac::Hist { dests, .. } | Soac::Scatter { dests, .. } = csoac
        && dests.iter().any(|d| needed.contains(d))
    {
        return None;
    }
    if b.stms[p + 1..c]
        .iter()
        .any(|s| consumed(&s.exp).iter().any(|n| needed.contains(n)))
    {
        return None;
    }
    let plam = renamed_lambda(plam, ns);
    let cmap = csoac.map_lambda();
    let (lam, arrs) = compose(&plam, parrs, &results, cmap, csoac.inputs(), &keep);
    let mut soac = csoac.clone();
    let mut pat = cons.pat.clone();
    match &mut soac {
        Soac::Map {
            lam: l, arrs: a, ..
        } => {
            *l = lam;
            *a = arrs;
            for k in &keep {
                pat.elems.push(prod.pat.elems[*k].clone());
            }
        }
        Soac::Reduce { map, arrs: a, .. }
        | Soac::Scan { map, arrs: a, .. }
        | Soac::Hist { map, arrs: a, .. }
        | Soac::Scatter { map, arrs: a, .. } => {
            *map = lam;
            *a = arrs;
        }
    }
    Some(Stm::new(pat, Exp::Soac(soac)))
}

/// The consumer's map lambda with the producer's lambda composed in front of it.
fn compose(
    plam: &Lambda,
    parrs: &[Name],
    presults: &[Name],
    cmap: &Lambda,
    carrs: &[Name],
    keep: &[usize],
) -> (Lambda, Vec<Name>) {
    let mut params = plam.params.clone();
    let mut arrs = parrs.to_vec();
    let mut subst: HashMap<Name, SubExp> = HashMap::new();
    for (param, arr) in cmap.params.iter().zip(carrs) {
        match presults.iter().position(|r| r == arr) {
            Some(k) => {
                subst.insert(param.name.clone(), plam.body.result[k].clone());
            }
            None => {
                params.push(param.clone());
                arrs.push(arr.clone());
            }
        }
    }
    let mut cbody = cmap.body.clone();
    Rewriter::subst(&subst).body(&mut cbody);
    let mut stms = plam.body.stms.clone();
    stms.extend(cbody.stms);
    let mut result = cbody.result;
    let mut ret = cmap.ret.clone();
    for k in keep {
        result.push(plam.body.result[*k].clone());
        ret.push(plam.ret[*k].clone());
    }
    (
        Lambda {
            params,
            body: Body::new(stms, result),
            ret,
        },
        arrs,
    )
}

/// Whether a lambda's body holds no SOAC (it becomes straight-line kernel code).
fn flat_lambda(l: &Lambda) -> bool {
    l.body.stms.iter().all(|s| !matches!(s.exp, Exp::Soac(_)))
}

/// Performs one horizontal fusion of two maps in `b`; false when there is none to do.
fn horizontal_once(b: &mut Body) -> bool {
    for i in 0..b.stms.len() {
        let Exp::Soac(Soac::Map { w: wi, lam: li, .. }) = &b.stms[i].exp else {
            continue;
        };
        if !b.stms[i].pat.ctx.is_empty() || !flat_lambda(li) {
            continue;
        }
        for j in i + 1..b.stms.len() {
            let Exp::Soac(Soac::Map { w: wj, lam: lj, .. }) = &b.stms[j].exp else {
                continue;
            };
            if wi != wj || !b.stms[j].pat.ctx.is_empty() || !flat_lambda(lj) {
                continue;
            }
            let mut deps: HashSet<Name> = free_in_exp(&b.stms[j].exp).into_iter().collect();
            for p in &b.stms[j].pat.elems {
                deps.extend(p.ty.shape().iter().filter_map(|d| d.as_var().cloned()));
            }
            let bound_between = b.stms[i..j]
                .iter()
                .any(|s| s.pat.names().any(|n| deps.contains(n)));
            if bound_between {
                continue;
            }
            let second = b.stms.remove(j);
            let first = &mut b.stms[i];
            let (
                Exp::Soac(Soac::Map {
                    lam: l1, arrs: a1, ..
                }),
                Exp::Soac(Soac::Map {
                    lam: l2, arrs: a2, ..
                }),
            ) = (&mut first.exp, second.exp)
            else {
                return false;
            };
            l1.params.extend(l2.params);
            l1.body.stms.extend(l2.body.stms);
            l1.body.result.extend(l2.body.result);
            l1.ret.extend(l2.ret);
            a1.extend(a2);
            first.pat = Pat {
                ctx: Vec::new(),
                elems: first
                    .pat
                    .elems
                    .iter()
                    .cloned()
                    .chain(second.pat.elems)
                    .collect(),
            };
            return true;
        }
    }
    false
}
