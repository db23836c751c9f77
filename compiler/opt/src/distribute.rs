//! `distribute`: splits a `map` whose lambda computes several SOACs into one map per SOAC
//! (map distribution), so each becomes a perfect nest that kernel extraction flattens.
//!
//! The lambda's statements are cut after every SOAC. Each piece becomes a map over the
//! same width taking the rows of the original inputs it uses, plus, as arrays, the values
//! earlier pieces computed that it needs; the last piece gives the original results. A
//! value whose size is only known inside the lambda cannot be carried between pieces,
//! and then the map is left as it is (its inner SOACs run sequentially per thread).

use std::collections::{HashMap, HashSet};

use futhark_ir::soacs::{
    Body, Exp, Lambda, Name, NameSource, Param, Pat, Program, Rewriter, Soac, Stm, SubExp, Type,
    body_types, uses_in_exp,
};

use crate::util::inner_bodies_mut;

/// The `distribute` pass.
pub fn distribute(mut prog: Program) -> Program {
    let mut ns = NameSource::for_program(&prog);
    for f in &mut prog.funs {
        body(&mut f.body, &mut ns);
    }
    prog
}

fn body(b: &mut Body, ns: &mut NameSource) {
    let stms = std::mem::take(&mut b.stms);
    for mut stm in stms {
        inner_bodies_mut(&mut stm.exp, &mut |bb| body(bb, ns));
        match distribute_map(&stm, ns) {
            Some(new) => b.stms.extend(new),
            None => b.stms.push(stm),
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

/// The maps replacing a map statement, if it is worth distributing.
fn distribute_map(stm: &Stm, ns: &mut NameSource) -> Option<Vec<Stm>> {
    let Exp::Soac(Soac::Map { w, lam, arrs }) = &stm.exp else {
        return None;
    };
    // Reductions run fine sequentially in a thread; a perfect nest is flattened as is.
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
    // Pieces: statements up to and including each SOAC, then the trailing rest.
    let mut pieces: Vec<Vec<&Stm>> = Vec::new();
    let mut cur = Vec::new();
    for s in &lam.body.stms {
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
    let bound_in: Vec<HashSet<Name>> = pieces
        .iter()
        .map(|ss| ss.iter().flat_map(|s| s.pat.names().cloned()).collect())
        .collect();
    let uses_in: Vec<HashSet<Name>> = pieces
        .iter()
        .map(|ss| ss.iter().flat_map(|s| stm_uses(s)).collect())
        .collect();
    let last = pieces.len() - 1;
    let final_uses: HashSet<Name> = lam
        .body
        .result
        .iter()
        .filter_map(|r| r.as_var().cloned())
        .collect();
    // Values each piece computes that later pieces (or the results) need.
    let mut carried: Vec<Vec<Name>> = Vec::new();
    for k in 0..last {
        let mut out: Vec<Name> = bound_in[k]
            .iter()
            .filter(|v| uses_in[k + 1..].iter().any(|u| u.contains(*v)) || final_uses.contains(*v))
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
        let pat = if k == last {
            stm.pat.clone()
        } else {
            let mut elems = Vec::new();
            for (v, t) in carried[k].iter().zip(&ret) {
                let name = ns.fresh(&format!("{v}_dist"));
                carried_arrays.insert(v.clone(), name.clone());
                elems.push(Param::new(&name, t.array_of(w.clone())));
            }
            Pat::new(elems)
        };
        out.push(Stm::new(
            pat,
            Exp::Soac(Soac::Map {
                w: w.clone(),
                lam: Lambda { params, body, ret },
                arrs: inputs,
            }),
        ));
    }
    Some(out)
}
