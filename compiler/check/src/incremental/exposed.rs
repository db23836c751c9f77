//! The unique names a declaration's bindings expose to later declarations, and what the
//! unifier knows about those it made.

use rustc_hash::FxHashSet;

use crate::env::{Env, MTy, Mod, TypeBinding, ValBinding};
use crate::modules::DecOutcome;
use crate::types::{RetType, Size, TParam, Type, VName};
use crate::unify::{Constraint, RigidInfo, Unifier, VarInfo};

/// Variables and rigid names with what the unifier knows about them.
pub(super) type UnifierEntries = (Vec<(VName, VarInfo)>, Vec<(VName, RigidInfo)>);

fn in_type(t: &Type, out: &mut Vec<VName>) {
    t.each_tyvar(&mut |v| out.push(v.clone()));
    out.extend(t.size_vars());
}

fn in_tparams(ps: &[TParam], out: &mut Vec<VName>) {
    out.extend(ps.iter().map(|p| p.name().clone()));
}

fn in_ret(r: &RetType, out: &mut Vec<VName>) {
    out.extend(r.ext.iter().cloned());
    in_type(&r.ty, out);
}

fn in_val(b: &ValBinding, out: &mut Vec<VName>) {
    out.push(b.vname.clone());
    if let crate::env::Scheme::Poly(ps, t) = &*b.scheme {
        in_tparams(ps, out);
        in_type(t, out);
    }
}

fn in_typeb(b: &TypeBinding, out: &mut Vec<VName>) {
    out.push(b.def.vname.clone());
    in_tparams(&b.params, out);
    in_ret(&b.ty, out);
}

fn in_env(e: &Env, out: &mut Vec<VName>) {
    e.vals.values().for_each(|b| in_val(b, out));
    e.types.values().for_each(|b| in_typeb(b, out));
    for b in e.mods.values() {
        out.push(b.vname.clone());
        in_mod(&b.m, out);
    }
    for b in e.modtypes.values() {
        out.push(b.def.vname.clone());
        in_mty(&b.mty, out);
    }
}

fn in_mod(m: &Mod, out: &mut Vec<VName>) {
    match m {
        Mod::Env(e) => in_env(e, out),
        Mod::Fun(f) => {
            in_mty(&f.param, out);
            in_mty(&f.ret, out);
        }
    }
}

fn in_mty(m: &MTy, out: &mut Vec<VName>) {
    for a in &m.abs {
        out.push(a.vname.clone());
        in_tparams(&a.params, out);
    }
    in_mod(&m.m, out);
}

/// The unique names in what a declaration bound.
pub(super) fn exposed(o: &DecOutcome) -> Vec<VName> {
    let mut out = Vec::new();
    match o {
        DecOutcome::Val(_, b, _) => in_val(b, &mut out),
        DecOutcome::Type(_, b, _) => in_typeb(b, &mut out),
        DecOutcome::Mod(_, b, _) => {
            out.push(b.vname.clone());
            in_mod(&b.m, &mut out);
        }
        DecOutcome::ModType(_, b, _) => {
            out.push(b.def.vname.clone());
            in_mty(&b.mty, &mut out);
        }
        DecOutcome::Open(e) => in_env(e, &mut out),
    }
    out
}

fn in_size(s: &Size, out: &mut Vec<VName>) {
    s.each_var(&mut |v| out.push(v.clone()));
}

/// The unifier's entries (variables and rigid names) for `names` and the names their
/// solutions mention, as far as `own` holds for them.
pub(super) fn unifier_entries(
    uni: &Unifier,
    names: Vec<VName>,
    own: &dyn Fn(&VName) -> bool,
) -> UnifierEntries {
    let (mut vars, mut rigid) = (Vec::new(), Vec::new());
    let mut seen: FxHashSet<VName> = FxHashSet::default();
    let mut work = names;
    while let Some(v) = work.pop() {
        if !own(&v) || !seen.insert(v.clone()) {
            continue;
        }
        if let Some(x) = uni.vars.get(&v) {
            match &x.constraint {
                Constraint::Solved(t) => in_type(t, &mut work),
                Constraint::SizeSolved(s) => in_size(s, &mut work),
                Constraint::HasFields(fs) => fs.values().for_each(|t| in_type(t, &mut work)),
                Constraint::HasConstrs(cs) => {
                    cs.values().flatten().for_each(|t| in_type(t, &mut work))
                }
                Constraint::Free(_)
                | Constraint::Overloaded(_)
                | Constraint::Equality
                | Constraint::SizeFree => {}
            }
            vars.push((v.clone(), x.clone()));
        }
        if let Some(x) = uni.rigid.get(&v) {
            rigid.push((v.clone(), x.clone()));
        }
    }
    (vars, rigid)
}
