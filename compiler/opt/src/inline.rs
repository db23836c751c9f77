//! `inline`: replaces every call of a non-recursive function by the function's body, and
//! drops functions no entry point reaches.
//!
//! The callee's body is renamed (fresh binders) with its parameters replaced by the
//! arguments; the call's pattern names, existential sizes included, are then substituted
//! by the body's results in the rest of the caller. Recursive functions stay as calls.

use std::collections::{HashMap, HashSet};

use futhark_ir::soacs::{
    Body, Exp, FunDef, Name, NameSource, Program, Rewriter, SubExp, Type, renamed_body,
};

use crate::util::{binder_types, inner_bodies_mut};

/// The `inline` pass.
pub fn inline(mut prog: Program) -> Program {
    let recursive = recursive_functions(&prog);
    let mut ns = NameSource::for_program(&prog);
    let mut types: HashMap<Name, Type> = HashMap::new();
    for f in &prog.funs {
        types.extend(binder_types(f));
    }
    for _ in 0..32 {
        let callees: HashMap<Name, FunDef> = prog
            .funs
            .iter()
            .filter(|f| !recursive.contains(&f.name))
            .map(|f| (f.name.clone(), f.clone()))
            .collect();
        let mut changed = false;
        for f in &mut prog.funs {
            let mut i = Inliner {
                callees: &callees,
                ns: &mut ns,
                types: &mut types,
                changed: false,
            };
            i.body(&mut f.body);
            changed |= i.changed;
        }
        if !changed {
            break;
        }
    }
    remove_unreachable(&mut prog);
    // A callee's parameters may have been the same array: in-place updates need copies.
    futhark_ir::soacs::insert_copies(&mut prog, &mut ns);
    prog
}

struct Inliner<'a> {
    callees: &'a HashMap<Name, FunDef>,
    ns: &'a mut NameSource,
    types: &'a mut HashMap<Name, Type>,
    changed: bool,
}

impl Inliner<'_> {
    fn type_of(&self, s: &SubExp) -> Option<Type> {
        match s {
            SubExp::Const(c) => Some(Type::Prim(c.ty())),
            SubExp::Var(v) => self.types.get(v).cloned(),
        }
    }

    fn body(&mut self, b: &mut Body) {
        let stms = std::mem::take(&mut b.stms);
        let mut out = Vec::with_capacity(stms.len());
        let mut subst: HashMap<Name, SubExp> = HashMap::new();
        for mut stm in stms {
            if !subst.is_empty() {
                Rewriter::subst(&subst).stm(&mut stm);
            }
            inner_bodies_mut(&mut stm.exp, &mut |bb| self.body(bb));
            let callee = match &stm.exp {
                Exp::Apply { func, args, .. } => self.callees.get(func).map(|f| (f, args.clone())),
                _ => None,
            };
            let Some((callee, args)) = callee else {
                out.push(stm);
                continue;
            };
            let map: HashMap<Name, SubExp> = callee
                .params
                .iter()
                .map(|p| p.name.clone())
                .zip(args)
                .collect();
            let inlined = renamed_body(&callee.body, map, self.ns);
            let fake = FunDef {
                name: String::new(),
                entry: None,
                params: Vec::new(),
                ret: Vec::new(),
                body: inlined,
            };
            self.types.extend(binder_types(&fake));
            let mut inlined = fake.body;
            if let Some(site) = &stm.loc {
                called_from(&mut inlined, site);
            }
            for c in &stm.pat.ctx {
                'find: for (p, r) in stm.pat.elems.iter().zip(&inlined.result) {
                    if let Some(t) = self.type_of(r) {
                        for (pd, rd) in p.ty.shape().iter().zip(t.shape()) {
                            if pd.as_var() == Some(c) {
                                subst.insert(c.clone(), rd.clone());
                                break 'find;
                            }
                        }
                    }
                }
            }
            for (p, r) in stm.pat.elems.iter().zip(&inlined.result) {
                subst.insert(p.name.clone(), r.clone());
            }
            out.extend(inlined.stms);
            self.changed = true;
        }
        for r in &mut b.result {
            if let SubExp::Var(v) = r
                && let Some(s) = subst.get(v)
            {
                *r = s.clone();
            }
        }
        b.stms = out;
    }
}

/// Adds the call at `site` to the backtrace of every located statement of an inlined body.
fn called_from(b: &mut Body, site: &str) {
    for stm in &mut b.stms {
        if let Some(loc) = &stm.loc {
            stm.loc = Some(futhark_ir::loc::called_from(loc, site).into());
        }
        inner_bodies_mut(&mut stm.exp, &mut |bb| called_from(bb, site));
    }
}

/// Names of the functions each function calls (anywhere in its body).
fn calls(f: &FunDef) -> HashSet<Name> {
    fn body(b: &Body, out: &mut HashSet<Name>) {
        for s in &b.stms {
            exp(&s.exp, out);
        }
    }
    fn exp(e: &Exp, out: &mut HashSet<Name>) {
        match e {
            Exp::Apply { func, .. } => {
                out.insert(func.clone());
            }
            Exp::If {
                then_body,
                else_body,
                ..
            } => {
                body(then_body, out);
                body(else_body, out);
            }
            Exp::Loop { body: b, .. } => body(b, out),
            Exp::Soac(s) => {
                for l in crate::util::soac_lambdas(s) {
                    body(&l.body, out);
                }
            }
            _ => {}
        }
    }
    let mut out = HashSet::new();
    body(&f.body, &mut out);
    out
}

/// Functions that can reach themselves through calls.
fn recursive_functions(prog: &Program) -> HashSet<Name> {
    let graph: HashMap<Name, HashSet<Name>> = prog
        .funs
        .iter()
        .map(|f| (f.name.clone(), calls(f)))
        .collect();
    let mut out = HashSet::new();
    for f in graph.keys() {
        let mut stack: Vec<&Name> = graph[f].iter().collect();
        let mut seen: HashSet<&Name> = HashSet::new();
        while let Some(g) = stack.pop() {
            if g == f {
                out.insert(f.clone());
                break;
            }
            if seen.insert(g)
                && let Some(next) = graph.get(g)
            {
                stack.extend(next.iter());
            }
        }
    }
    out
}

/// Keeps entry points and the functions they reach.
fn remove_unreachable(prog: &mut Program) {
    let graph: HashMap<Name, HashSet<Name>> = prog
        .funs
        .iter()
        .map(|f| (f.name.clone(), calls(f)))
        .collect();
    let mut live: HashSet<Name> = HashSet::new();
    let mut stack: Vec<Name> = prog.entries().map(|f| f.name.clone()).collect();
    while let Some(f) = stack.pop() {
        if live.insert(f.clone())
            && let Some(next) = graph.get(&f)
        {
            stack.extend(next.iter().cloned());
        }
    }
    prog.funs.retain(|f| live.contains(&f.name));
}
