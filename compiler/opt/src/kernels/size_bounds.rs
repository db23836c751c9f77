//! Launch-time bounds for sizes computed inside kernel threads.
//!
//! A thread's local arrays live in per-thread storage of `[threads] ++ shape`, allocated
//! before the launch, so `shape` must be known on the host. When a SOAC does not extract
//! because a local array's size is computed by the thread (`iota n` for a row's `n`,
//! `replicate (k + 1) x`), the host first computes the largest value that size takes over
//! the SOAC's points: a `redomap` (`map` of the statements the size depends on,
//! `reduce max`) placed before the SOAC, extracted into a kernel like any other, and the
//! SOAC is extracted again with the bounds known. The storage is then that bound in that
//! dimension; the thread still uses its own size for everything else (loops, checks, what
//! it reads back), so a row of storage is only partly used.
//!
//! Only sizes computed from the lambda parameters by scalar statements at the top of the
//! SOAC's lambda, or at the top of the lambda of a SOAC there (and so on, a few levels
//! down: the bound is then a maximum of maxima), are bounded this way; a size from a loop,
//! a branch or an array operation stays unsupported.

use std::collections::{BTreeSet, HashMap, HashSet};

use futhark_ir::soacs::traverse::{binders_in_body, body_types, free_in_exp, renamed_lambda};
use futhark_ir::soacs::{
    BinOp, Body, DimIndex, Exp, Lambda, Name, NameSource, Param, Pat, Soac, Stm, SubExp, Type,
};
use futhark_ir::types::PrimType;

use crate::util::soac_lambdas;

/// What the slicing consults: the type of every name of the function.
struct Cx<'t> {
    types: &'t HashMap<Name, Type>,
}

/// For each size computed at the top of `soac`'s lambda and used in the shape of an array
/// its threads make, the size and a statement binding its maximum over the points.
pub(super) fn bound_stms(
    soac: &Soac,
    types: &HashMap<Name, Type>,
    ns: &mut NameSource,
) -> Vec<(Name, Stm)> {
    let cx = Cx { types };
    let mut local: HashMap<Name, Type> = HashMap::new();
    for lam in soac_lambdas(soac) {
        for p in &lam.params {
            local.insert(p.name.clone(), p.ty.clone());
        }
        body_types(&lam.body, &mut local);
    }
    let mut sizes: BTreeSet<Name> = BTreeSet::new();
    for t in local.values() {
        for d in t.shape() {
            if let SubExp::Var(v) = d
                && local.contains_key(v)
            {
                sizes.insert(v.clone());
            }
        }
    }
    let lam = soac.map_lambda();
    let mut out = Vec::new();
    for d in sizes {
        if local.get(&d) != Some(&Type::Prim(PrimType::I64)) {
            continue;
        }
        let Some((stms, r)) = bound_body(&cx, lam, &d, &local, ns, 0) else {
            continue;
        };
        let i64t = Type::Prim(PrimType::I64);
        let map = renamed_lambda(
            &Lambda {
                params: lam.params.clone(),
                body: Body::new(stms, vec![r]),
                ret: vec![i64t.clone()],
            },
            ns,
        );
        let bound = ns.fresh(&format!("{d}_bound"));
        let stm = Stm::new(
            Pat::one(&bound, i64t),
            Exp::Soac(Soac::Reduce {
                w: soac.width().clone(),
                comm: true,
                op: max_lambda(ns),
                nes: vec![SubExp::i64(0)],
                map,
                arrs: soac.inputs().to_vec(),
            }),
        );
        out.push((d, stm));
    }
    out
}

/// Statements of `lam`'s body (and their result) computing an upper bound of `d` for one
/// application of `lam`: the statements `d` depends on when it is bound at the top of
/// the body; when it is bound inside a SOAC there, the maximum over that SOAC's points of
/// its bound there (depth-limited).
fn bound_body(
    cx: &Cx<'_>,
    lam: &Lambda,
    d: &Name,
    local: &HashMap<Name, Type>,
    ns: &mut NameSource,
    depth: usize,
) -> Option<(Vec<Stm>, SubExp)> {
    let at_top = lam.params.iter().any(|p| &p.name == d)
        || lam.body.stms.iter().any(|s| {
            s.pat.names().any(|n| n == d)
                || matches!(&s.exp, Exp::If { then_body, else_body, .. }
                    if binders_in_body(then_body).contains(d)
                        || binders_in_body(else_body).contains(d))
        });
    if at_top {
        let need = BTreeSet::from([d.clone()]);
        return Some((slice(cx, lam, need, local)?, SubExp::Var(d.clone())));
    }
    if depth > 4 {
        return None;
    }
    let inner = lam.body.stms.iter().find_map(|s| match &s.exp {
        Exp::Soac(inner) if binds(inner.map_lambda(), d) => Some(inner),
        _ => None,
    })?;
    let (stms, r) = bound_body(cx, inner.map_lambda(), d, local, ns, depth + 1)?;
    let i64t = Type::Prim(PrimType::I64);
    let b = ns.fresh(&format!("{d}_bound"));
    let reduce = Stm::new(
        Pat::one(&b, i64t.clone()),
        Exp::Soac(Soac::Reduce {
            w: inner.width().clone(),
            comm: true,
            op: max_lambda(ns),
            nes: vec![SubExp::i64(0)],
            map: Lambda {
                params: inner.map_lambda().params.clone(),
                body: Body::new(stms, vec![r]),
                ret: vec![i64t],
            },
            arrs: inner.inputs().to_vec(),
        }),
    );
    let need: BTreeSet<Name> = free_in_exp(&reduce.exp)
        .into_iter()
        .filter(|v| local.contains_key(v))
        .collect();
    let mut stms = slice(cx, lam, need, local)?;
    stms.push(reduce);
    Some((stms, SubExp::Var(b)))
}

/// Whether `d` is bound in `lam` (as a parameter or anywhere in its body).
fn binds(lam: &Lambda, d: &Name) -> bool {
    lam.params.iter().any(|p| &p.name == d) || binders_in_body(&lam.body).contains(d)
}

/// The statements at the top of `lam`'s body that the names `need` depend on, if they are
/// all scalar computations (or branches, of which only the sizes are computed) and depend
/// on nothing else of the lambda's but its parameters.
fn slice(
    cx: &Cx<'_>,
    lam: &Lambda,
    need: BTreeSet<Name>,
    local: &HashMap<Name, Type>,
) -> Option<Vec<Stm>> {
    let params: HashSet<&Name> = lam.params.iter().map(|p| &p.name).collect();
    let (picked, rest) = slice_stms(cx, &lam.body.stms, need, local, 0)?;
    if rest.iter().any(|n| !params.contains(n)) {
        return None;
    }
    Some(picked)
}

/// The statements of `stms` that the names `need` depend on (scalar statements, and
/// branches reduced to the scalars and sizes needed of them), and the names of `local`
/// they need from outside `stms`.
fn slice_stms(
    cx: &Cx<'_>,
    stms: &[Stm],
    mut need: BTreeSet<Name>,
    local: &HashMap<Name, Type>,
    depth: usize,
) -> Option<(Vec<Stm>, BTreeSet<Name>)> {
    let mut picked = Vec::new();
    for stm in stms.iter().rev() {
        let mut wanted: Vec<Name> = stm
            .pat
            .names()
            .filter(|n| need.contains(*n))
            .cloned()
            .collect();
        if let Exp::If {
            then_body,
            else_body,
            ..
        } = &stm.exp
        {
            let mut inside = binders_in_body(then_body);
            inside.extend(binders_in_body(else_body));
            wanted.extend(need.iter().filter(|n| inside.contains(*n)).cloned());
        }
        if wanted.is_empty() {
            continue;
        }
        let stm = if scalar_stm(stm) {
            stm.clone()
        } else {
            branch_sizes(cx, stm, &wanted, local, depth)?
        };
        for n in stm.pat.names() {
            need.remove(n);
        }
        need.extend(
            free_in_exp(&stm.exp)
                .into_iter()
                .filter(|v| local.contains_key(v)),
        );
        picked.push(stm);
    }
    picked.reverse();
    Some((picked, need))
}

/// A branch computing only the names `wanted` of `stm`'s (an `if`): scalar results, and
/// sizes of array results, each taken from the branch's result types.
fn branch_sizes(
    cx: &Cx<'_>,
    stm: &Stm,
    wanted: &[Name],
    local: &HashMap<Name, Type>,
    depth: usize,
) -> Option<Stm> {
    let Exp::If {
        cond,
        then_body,
        else_body,
        ret,
    } = &stm.exp
    else {
        return None;
    };
    if depth > 8 {
        return None;
    }
    // Where each wanted name comes from: (result, dimension) or a scalar result.
    let mut origins = Vec::new();
    for n in wanted {
        if let Some(c) = stm.pat.ctx.iter().position(|x| x == n) {
            let at = ret.iter().enumerate().find_map(|(i, t)| {
                t.shape()
                    .iter()
                    .position(|d| *d == futhark_ir::soacs::ExtSize::Ext(c))
                    .map(|j| (i, Some(j)))
            })?;
            origins.push(at);
        } else if let Some(i) = stm.pat.elems.iter().position(|p| &p.name == n) {
            if stm.pat.elems[i].ty.is_array() {
                return None;
            }
            origins.push((i, None));
        } else {
            // Bound inside a branch: its value there, 0 on the other side.
            origins.push((usize::MAX, None));
        }
    }
    let mut bodies = Vec::new();
    for body in [then_body, else_body] {
        let mut result = Vec::new();
        let inside = binders_in_body(body);
        for (&(i, dim), n) in origins.iter().zip(wanted) {
            if i == usize::MAX {
                result.push(if inside.contains(n) {
                    SubExp::Var(n.clone())
                } else {
                    SubExp::i64(0)
                });
                continue;
            }
            let r = body.result.get(i)?;
            result.push(match dim {
                None => r.clone(),
                Some(j) => match r {
                    SubExp::Var(v) => cx.types.get(v)?.shape().get(j)?.clone(),
                    SubExp::Const(_) => return None,
                },
            });
        }
        let need: BTreeSet<Name> = result
            .iter()
            .filter_map(|r| r.as_var().cloned())
            .filter(|v| local.contains_key(v))
            .collect();
        let (stms, _) = slice_stms(cx, &body.stms, need, local, depth + 1)?;
        bodies.push(Body::new(stms, result));
    }
    let else_b = bodies.pop()?;
    let then_b = bodies.pop()?;
    let i64t = Type::Prim(PrimType::I64);
    let elems = wanted
        .iter()
        .zip(&origins)
        .map(|(n, &(i, dim))| {
            let ty = match (stm.pat.elems.get(i), dim) {
                (Some(p), None) => p.ty.clone(),
                _ => i64t.clone(),
            };
            Param::new(n, ty)
        })
        .collect::<Vec<_>>();
    let ret = elems.iter().map(|p| p.ty.to_ext()).collect();
    Some(Stm::new(
        Pat::new(elems),
        Exp::If {
            cond: cond.clone(),
            then_body: then_b,
            else_body: else_b,
            ret,
        },
    ))
}

/// `\a b -> smax a b` on `i64`.
fn max_lambda(ns: &mut NameSource) -> Lambda {
    let i64t = Type::Prim(PrimType::I64);
    let a = Param::new(&ns.fresh("a"), i64t.clone());
    let b = Param::new(&ns.fresh("b"), i64t.clone());
    let m = ns.fresh("max");
    let stm = Stm::new(
        Pat::one(&m, i64t.clone()),
        Exp::BinOp(
            BinOp::SMax,
            SubExp::Var(a.name.clone()),
            SubExp::Var(b.name.clone()),
        ),
    );
    Lambda {
        params: vec![a, b],
        body: Body::new(vec![stm], vec![SubExp::Var(m)]),
        ret: vec![i64t],
    }
}

/// A statement computing scalars from scalars (or reading one element of an array).
fn scalar_stm(stm: &Stm) -> bool {
    stm.pat.ctx.is_empty()
        && stm.pat.elems.iter().all(|p| !p.ty.is_array())
        && match &stm.exp {
            Exp::SubExp(_)
            | Exp::BinOp(..)
            | Exp::CmpOp(..)
            | Exp::UnOp(..)
            | Exp::Conv(..)
            | Exp::Math(..) => true,
            Exp::Index(_, idx) => idx.iter().all(DimIndex::is_fix),
            _ => false,
        }
}
