//! `cse`: common subexpression elimination.
//!
//! A statement computing the same expression as an earlier one in scope (same operator,
//! same operands) is replaced by the earlier result. Only expressions with scalar results
//! and no side conditions are shared: two equal arrays may not be merged, because either
//! may later be consumed by an in-place update.

use std::collections::HashMap;

use futhark_ir::soacs::{Body, Exp, Name, Program, Rewriter, SubExp};

use crate::util::inner_bodies_mut;

/// The `cse` pass.
pub fn cse(mut prog: Program) -> Program {
    for f in &mut prog.funs {
        let mut c = Cse {
            subst: HashMap::new(),
            seen: HashMap::new(),
            added: Vec::new(),
        };
        c.body(&mut f.body);
    }
    prog
}

struct Cse {
    subst: HashMap<Name, SubExp>,
    /// The expressions in scope (printed) and their results.
    seen: HashMap<String, Vec<SubExp>>,
    /// Keys of `seen` in the order they were added: a body removes its own when it ends,
    /// so an inner body sees the outer scope without a copy of it (copying the scope for
    /// every statement was quadratic in the length of a body).
    added: Vec<String>,
}

/// Whether an expression may be shared: pure, scalar-producing, without bodies.
fn shareable(e: &Exp) -> bool {
    matches!(
        e,
        Exp::BinOp(..)
            | Exp::CmpOp(..)
            | Exp::UnOp(..)
            | Exp::Conv(..)
            | Exp::Math(..)
            | Exp::Index(..)
    )
}

impl Cse {
    fn body(&mut self, b: &mut Body) {
        let scope = self.added.len();
        let stms = std::mem::take(&mut b.stms);
        let mut out = Vec::with_capacity(stms.len());
        for mut stm in stms {
            if !self.subst.is_empty() {
                Rewriter::subst(&self.subst).stm(&mut stm);
            }
            inner_bodies_mut(&mut stm.exp, &mut |bb| self.body(bb));
            let scalar = stm.pat.ctx.is_empty() && stm.pat.elems.iter().all(|p| !p.ty.is_array());
            if scalar && shareable(&stm.exp) {
                let key = stm.exp.to_string();
                if let Some(prev) = self.seen.get(&key) {
                    for (p, r) in stm.pat.elems.iter().zip(prev) {
                        self.subst.insert(p.name.clone(), r.clone());
                    }
                    continue;
                }
                self.added.push(key.clone());
                self.seen.insert(
                    key,
                    stm.pat
                        .elems
                        .iter()
                        .map(|p| SubExp::Var(p.name.clone()))
                        .collect(),
                );
            }
            out.push(stm);
        }
        if !self.subst.is_empty() {
            for r in &mut b.result {
                if let SubExp::Var(v) = r
                    && let Some(s) = self.subst.get(v)
                {
                    *r = s.clone();
                }
            }
        }
        b.stms = out;
        for key in self.added.drain(scope..) {
            self.seen.remove(&key);
        }
    }
}
