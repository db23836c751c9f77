//! Rewrites of one-statement maps that map distribution makes, so that what was inside a
//! map runs as host code around kernels instead of sequentially in each thread:
//!
//! - **map–loop interchange** (incremental flattening's rule for a `loop` inside a `map`):
//!
//!   ```text
//!   map w (\x -> loop (acc = init) for i < n do body) xs
//!   ==>
//!   loop (accs = [init for each x]) for i < n do
//!     map w (\x acc -> body) xs accs
//!   ```
//!
//!   valid when `n` and the loop's parameter types do not depend on `x`; the map inside
//!   the new loop is then distributed in turn, so the parallelism inside the loop body
//!   (maps, scans, reductions over rows) becomes segmented operations over `w` more points.
//! - **lifting** a map of one array operation on the rows of its input into the operation
//!   on the whole array: `map (\r -> rearrange p r) xs` is `rearrange (0, p + 1) xs`, and
//!   likewise a copy, a reshape, and a replicate of a value the map does not bind.

use std::collections::HashSet;

use futhark_ir::soacs::{
    Body, Exp, Lambda, LoopForm, Name, NameSource, Param, Pat, Soac, Stm, SubExp, Type,
    free_in_body,
};

/// Whether `s` (a statement of a map's lambda, which binds `local`) is a loop to
/// interchange with the map: a `for` loop whose bound and parameter types are known
/// outside the lambda and whose body holds parallelism worth flattening.
pub(crate) fn interchangeable(s: &Stm, local: &HashSet<Name>) -> bool {
    let Exp::Loop {
        params,
        form: LoopForm::For { bound, .. },
        body,
    } = &s.exp
    else {
        return false;
    };
    let outside = |e: &SubExp| e.as_var().is_none_or(|v| !local.contains(v));
    s.pat.ctx.is_empty()
        && outside(bound)
        && params.iter().all(|(p, _)| p.ty.shape().iter().all(outside))
        && has_soac(body)
}

/// Whether a body holds a SOAC anywhere (in branches and loops too).
fn has_soac(b: &Body) -> bool {
    b.stms.iter().any(|s| match &s.exp {
        Exp::Soac(_) => true,
        Exp::If {
            then_body,
            else_body,
            ..
        } => has_soac(then_body) || has_soac(else_body),
        Exp::Loop { body, .. } => has_soac(body),
        _ => false,
    })
}

/// Whether `s` is an array operation that [`lift`] turns into one on the whole array.
pub(crate) fn liftable(s: &Stm) -> bool {
    s.pat.ctx.is_empty()
        && s.pat.elems.len() == 1
        && matches!(
            s.exp,
            Exp::Rearrange { .. } | Exp::Copy(_) | Exp::Reshape { .. }
        )
}

/// The map statement `stm`, if its lambda is one interchangeable loop giving the lambda's
/// results, as that loop around the map. The new loop's body still has to be distributed.
pub(crate) fn interchange(stm: &Stm, ns: &mut NameSource) -> Option<Vec<Stm>> {
    let Exp::Soac(Soac::Map { w, lam, arrs }) = &stm.exp else {
        return None;
    };
    // Scalar statements before the loop (copies map distribution made of earlier pieces'
    // statements) are computed again in each step.
    let (lp, prefix) = lam.body.stms.split_last()?;
    if !prefix.iter().all(|s| {
        s.pat.ctx.is_empty()
            && s.pat.elems.iter().all(|p| !p.ty.is_array())
            && !matches!(s.exp, Exp::Soac(_) | Exp::Loop { .. } | Exp::If { .. })
    }) {
        return None;
    }
    let mut local: HashSet<Name> = lam.params.iter().map(|p| p.name.clone()).collect();
    for s in lam.body.stms.iter() {
        local.extend(s.pat.names().cloned());
    }
    if !stm.pat.ctx.is_empty() || !interchangeable(lp, &local) {
        return None;
    }
    let Exp::Loop { params, form, body } = &lp.exp else {
        return None;
    };
    // Which loop result each of the map's results is.
    let pos: Vec<usize> = lam
        .body
        .result
        .iter()
        .map(|r| {
            lp.pat
                .elems
                .iter()
                .position(|e| Some(&e.name) == r.as_var())
        })
        .collect::<Option<_>>()?;
    let input_of = |v: &Name| input_of(lam, arrs, v);
    let mut out = Vec::new();
    let mut new_params: Vec<(Param, SubExp)> = Vec::new();
    for (p, init) in params {
        let ty = p.ty.array_of(w.clone());
        // The loop consumes its initial values: give it fresh arrays.
        let exp = match init {
            SubExp::Var(v) if local.contains(v) => Exp::Copy(input_of(v)?),
            other => Exp::Replicate {
                shape: vec![w.clone()],
                value: other.clone(),
            },
        };
        let init_arr = ns.fresh(&format!("{}_init", p.name));
        out.push(Stm::new(Pat::one(&init_arr, ty.clone()), exp));
        new_params.push((
            Param::new(&ns.fresh(&format!("{}_all", p.name)), ty),
            SubExp::Var(init_arr),
        ));
    }
    // The inner map: the lambda's parameters that the loop body uses, then the loop's
    // parameters as rows of the new loop's.
    let mut step_body = body.clone();
    step_body.stms.splice(0..0, prefix.iter().cloned());
    let free = free_in_body(&step_body);
    let mut inner_params = Vec::new();
    let mut inputs = Vec::new();
    for (p, a) in lam.params.iter().zip(arrs) {
        if free.contains(&p.name) {
            inner_params.push(p.clone());
            inputs.push(a.clone());
        }
    }
    for ((p, _), (np, _)) in params.iter().zip(&new_params) {
        inner_params.push(p.clone());
        inputs.push(np.name.clone());
    }
    let ret: Vec<Type> = params.iter().map(|(p, _)| p.ty.clone()).collect();
    let step_elems: Vec<Param> = params
        .iter()
        .map(|(p, _)| {
            Param::new(
                &ns.fresh(&format!("{}_next", p.name)),
                p.ty.array_of(w.clone()),
            )
        })
        .collect();
    let step = Stm::new(
        Pat::new(step_elems.clone()),
        Exp::Soac(Soac::Map {
            w: w.clone(),
            lam: Lambda {
                params: inner_params,
                body: step_body,
                ret,
            },
            arrs: inputs,
        }),
    );
    let loop_body = Body::new(
        vec![step],
        step_elems
            .iter()
            .map(|p| SubExp::Var(p.name.clone()))
            .collect(),
    );
    let results: Vec<Param> = new_params
        .iter()
        .map(|(p, _)| Param::new(&ns.fresh(&format!("{}_res", p.name)), p.ty.clone()))
        .collect();
    out.push(Stm::new(
        Pat::new(results.clone()),
        Exp::Loop {
            params: new_params,
            form: form.clone(),
            body: loop_body,
        },
    ));
    for (e, &i) in stm.pat.elems.iter().zip(&pos) {
        out.push(Stm::new(
            Pat::new(vec![e.clone()]),
            Exp::SubExp(SubExp::Var(results[i].name.clone())),
        ));
    }
    Some(out)
}

/// The input array whose rows the lambda parameter `v` takes.
fn input_of(lam: &Lambda, arrs: &[Name], v: &Name) -> Option<Name> {
    lam.params
        .iter()
        .position(|p| &p.name == v)
        .map(|i| arrs[i].clone())
}

/// The map statement `stm`, if its lambda is one [`liftable`] operation on a row of its
/// input (or on a value bound outside it), as that operation on the whole input.
pub(crate) fn lift(stm: &Stm) -> Option<Stm> {
    let Exp::Soac(Soac::Map { w, lam, arrs }) = &stm.exp else {
        return None;
    };
    let [s] = lam.body.stms.as_slice() else {
        return None;
    };
    let [out] = stm.pat.elems.as_slice() else {
        return None;
    };
    if !stm.pat.ctx.is_empty()
        || !liftable(s)
        || lam.body.result.as_slice() != [SubExp::Var(s.pat.elems[0].name.clone())]
    {
        return None;
    }
    let input_of = |v: &Name| input_of(lam, arrs, v);
    let local: HashSet<&Name> = lam.params.iter().map(|p| &p.name).collect();
    let exp = match &s.exp {
        Exp::Rearrange { perm, arr } => Exp::Rearrange {
            perm: std::iter::once(0)
                .chain(perm.iter().map(|p| p + 1))
                .collect(),
            arr: input_of(arr)?,
        },
        Exp::Copy(arr) => Exp::Copy(input_of(arr)?),
        Exp::Reshape { shape, arr } => {
            if shape
                .iter()
                .any(|d| d.as_var().is_some_and(|v| local.contains(v)))
            {
                return None;
            }
            Exp::Reshape {
                shape: std::iter::once(w.clone())
                    .chain(shape.iter().cloned())
                    .collect(),
                arr: input_of(arr)?,
            }
        }
        _ => return None,
    };
    Some(Stm::new(Pat::new(vec![out.clone()]), exp))
}
