//! Copies for in-place updates of shared arrays.
//!
//! Lowering (and copy propagation or inlining after it) shares arrays freely: `zip xs ys` is the pair of `xs` and `ys`, not a new
//! array, and a tuple of the same array twice holds one array. Futhark lets a unique
//! result (`zip`'s is) be consumed while its source stays usable, so an in-place update of
//! such a value would clobber an array that is read later. This step finds every consumed
//! array that is used again afterwards in the same body and gives the consumer a copy.
//! A loop whose body updates a parameter consumes that parameter's initial value.

use std::collections::{HashMap, HashSet};

use super::syntax::{Body, Exp, Lambda, Name, Param, Pat, Program, Soac, Stm, SubExp, Type};
use super::traverse::{NameSource, Rewriter, binder_types, binders_in_body, uses_in_exp};

/// Inserts copies where a consumed array is used after its consumption (run by lowering
/// and by the passes that substitute names).
pub fn insert_copies(prog: &mut Program, ns: &mut NameSource) {
    for f in &mut prog.funs {
        let types = binder_types(f);
        fix_body(&mut f.body, &types, ns);
    }
}

/// Variables an expression consumes that are bound outside it.
fn consumed(e: &Exp) -> HashSet<Name> {
    match e {
        Exp::Update(a, ..) => HashSet::from([a.clone()]),
        Exp::Soac(Soac::Hist { dests, .. }) | Exp::Soac(Soac::Scatter { dests, .. }) => {
            dests.iter().cloned().collect()
        }
        Exp::If {
            then_body,
            else_body,
            ..
        } => {
            let mut out = consumed_in(then_body);
            out.extend(consumed_in(else_body));
            out
        }
        Exp::Loop { params, body, .. } => {
            let inside = consumed_in_deep(body);
            params
                .iter()
                .filter(|(p, _)| inside.contains(&p.name))
                .filter_map(|(_, init)| init.as_var().cloned())
                .collect()
        }
        _ => HashSet::new(),
    }
}

/// Names consumed by a body's statements and bound outside it.
fn consumed_in(b: &Body) -> HashSet<Name> {
    let bound = binders_in_body(b);
    b.stms
        .iter()
        .flat_map(|s| consumed(&s.exp))
        .filter(|n| !bound.contains(n))
        .collect()
}

/// Names consumed anywhere in a body (loop parameters are consumed in nested bodies too).
fn consumed_in_deep(b: &Body) -> HashSet<Name> {
    let mut out = HashSet::new();
    for s in &b.stms {
        out.extend(consumed(&s.exp));
        if let Exp::Loop { body, .. } = &s.exp {
            out.extend(consumed_in_deep(body));
        }
    }
    out
}

fn fix_body(b: &mut Body, types: &HashMap<Name, Type>, ns: &mut NameSource) {
    for s in &mut b.stms {
        match &mut s.exp {
            Exp::If {
                then_body,
                else_body,
                ..
            } => {
                fix_body(then_body, types, ns);
                fix_body(else_body, types, ns);
            }
            Exp::Loop { body, .. } => fix_body(body, types, ns),
            Exp::Soac(soac) => {
                for l in soac_lambdas_mut(soac) {
                    fix_body(&mut l.body, types, ns);
                }
            }
            _ => {}
        }
    }
    // The last statement (the body's result counts as `len`) using each name, from one
    // walk over the statements: asking "is it used later?" of every consumer by walking
    // the rest of the body was quadratic (76% of compiling the AD tests with hundreds of
    // statements per body). The copies inserted below use only the consumed names, before
    // their consumer, and the renaming touches only the consumer, so these stay exact.
    let len = b.stms.len();
    let mut last_use: HashMap<Name, usize> = HashMap::new();
    for (j, s) in b.stms.iter().enumerate() {
        for n in uses_in_exp(&s.exp) {
            last_use.insert(n, j);
        }
    }
    for r in &b.result {
        if let Some(v) = r.as_var() {
            last_use.insert(v.clone(), len);
        }
    }
    let mut out = Vec::with_capacity(len);
    for (i, mut stm) in std::mem::take(&mut b.stms).into_iter().enumerate() {
        let mut names: Vec<Name> = consumed(&stm.exp).into_iter().collect();
        names.sort();
        let mut renames: HashMap<Name, SubExp> = HashMap::new();
        for c in names {
            let Some(ty) = types.get(&c) else { continue };
            if last_use.get(&c).is_none_or(|&j| j <= i) || !ty.is_array() {
                continue;
            }
            let copy = ns.fresh(&format!("{c}_copy"));
            out.push(Stm::new(
                Pat::new(vec![Param::new(&copy, ty.clone())]),
                Exp::Copy(c.clone()),
            ));
            renames.insert(c, SubExp::Var(copy));
        }
        if !renames.is_empty() {
            Rewriter::subst(&renames).stm(&mut stm);
        }
        out.push(stm);
    }
    b.stms = out;
}

fn soac_lambdas_mut(s: &mut Soac) -> Vec<&mut Lambda> {
    match s {
        Soac::Map { lam, .. } => vec![lam],
        Soac::Reduce { op, map, .. } | Soac::Scan { op, map, .. } | Soac::Hist { op, map, .. } => {
            vec![op, map]
        }
        Soac::Scatter { map, .. } => vec![map],
    }
}
