//! Helpers shared by the passes: the lambdas of a SOAC, and visiting every body of an
//! expression.

pub use futhark_ir::soacs::binder_types;
use futhark_ir::soacs::{Body, Exp, Lambda, Soac};

/// The lambdas of a SOAC.
pub fn soac_lambdas(s: &Soac) -> Vec<&Lambda> {
    match s {
        Soac::Map { lam, .. } => vec![lam],
        Soac::Reduce { op, map, .. } | Soac::Scan { op, map, .. } | Soac::Hist { op, map, .. } => {
            vec![op, map]
        }
        Soac::Scatter { map, .. } => vec![map],
    }
}

/// The lambdas of a SOAC, mutably.
pub fn soac_lambdas_mut(s: &mut Soac) -> Vec<&mut Lambda> {
    match s {
        Soac::Map { lam, .. } => vec![lam],
        Soac::Reduce { op, map, .. } | Soac::Scan { op, map, .. } | Soac::Hist { op, map, .. } => {
            vec![op, map]
        }
        Soac::Scatter { map, .. } => vec![map],
    }
}

/// Calls `f` on every body directly inside an expression (branches, loop bodies, lambda
/// bodies).
pub fn inner_bodies_mut(e: &mut Exp, f: &mut dyn FnMut(&mut Body)) {
    match e {
        Exp::If {
            then_body,
            else_body,
            ..
        } => {
            f(then_body);
            f(else_body);
        }
        Exp::Loop { body, .. } => f(body),
        Exp::Soac(s) => soac_lambdas_mut(s).into_iter().for_each(|l| f(&mut l.body)),
        _ => {}
    }
}
