//! Last-use analysis: a read of a local variable that no later code can observe becomes a
//! move out of the frame ([`Exp::LocalMove`]). Values then have a single owner when they
//! are updated, so `a with [i] = v` and loops that update their parameters work in place.
//!
//! The analysis walks expressions in reverse evaluation order with the set of slots that
//! are read later. Branches start from the same set; a loop body treats every variable from
//! outside the loop that it reads as live throughout, since the next iteration reads it
//! again.

use std::collections::HashSet;

use crate::ir::{Capture, DimPat, Exp, IdxExp, LoopForm, Pat, ShapePat, Slot, UpdStep};

type Live = HashSet<Slot>;

/// Rewrites last reads into moves in a function body.
pub fn run(e: &mut Exp, _params: &[Slot]) {
    let mut live = Live::new();
    go(e, &mut live);
}

fn go(e: &mut Exp, live: &mut Live) {
    match e {
        Exp::Const(_) | Exp::FlexLit(_) | Exp::Captured(_) | Exp::SelfRef | Exp::Hole(_) => {}
        Exp::Local(s) => {
            let s = *s;
            if live.insert(s) {
                *e = Exp::LocalMove(s);
            }
        }
        Exp::LocalMove(s) => {
            live.insert(*s);
        }
        Exp::Tuple(es) | Exp::Constr(_, es) | Exp::PrimCall(_, es, _) => {
            es.iter_mut().rev().for_each(|x| go(x, live))
        }
        Exp::Record { exps, .. } => exps.iter_mut().rev().for_each(|x| go(x, live)),
        Exp::ArrayLit { elems, .. } => elems.iter_mut().rev().for_each(|x| go(x, live)),
        Exp::Project(x, _, _) | Exp::Neg(x, _) | Exp::Not(x, _) | Exp::Trace(x, _, _) => {
            go(x, live)
        }
        Exp::Index(x, idx, _) => {
            idx_rev(idx, live);
            go(x, live);
        }
        Exp::Apply(f, args, _) => {
            args.iter_mut().rev().for_each(|x| go(x, live));
            go(f, live);
        }
        Exp::BinOp(_, a, b, _) => {
            go(b, live);
            go(a, live);
        }
        Exp::And(a, b) | Exp::Or(a, b) => {
            let mut lb = live.clone();
            go(b, &mut lb);
            live.extend(lb);
            go(a, live);
        }
        Exp::If(c, t, f) => {
            let mut lt = live.clone();
            go(t, &mut lt);
            let mut lf = live.clone();
            go(f, &mut lf);
            *live = lt;
            live.extend(lf);
            go(c, live);
        }
        Exp::Let(p, v, body) => {
            go(body, live);
            unbind(p, live);
            go(v, live);
        }
        Exp::Lambda(lam) => {
            for c in &lam.captures {
                if let Capture::Local(s) = c {
                    live.insert(*s);
                }
            }
        }
        Exp::Loop(l) => {
            let mut inside_refs = Live::new();
            let mut inside_bound = Live::new();
            refs(&l.body, &mut inside_refs);
            bound_in(&l.body, &mut inside_bound);
            pat_bound(&l.pat, &mut inside_bound);
            pat_reads(&l.pat, &mut inside_refs);
            match &l.form {
                LoopForm::For(s, _) => {
                    inside_bound.insert(*s);
                }
                LoopForm::ForIn(p, _) => {
                    pat_bound(p, &mut inside_bound);
                    pat_reads(p, &mut inside_refs);
                }
                LoopForm::While(c) => {
                    refs(c, &mut inside_refs);
                    bound_in(c, &mut inside_bound);
                }
            }
            let outer: Live = inside_refs.difference(&inside_bound).copied().collect();
            let mut lb: Live = live.union(&outer).copied().collect();
            go(&mut l.body, &mut lb);
            if let LoopForm::While(c) = &mut l.form {
                go(c, &mut lb);
            }
            live.extend(outer);
            match &mut l.form {
                LoopForm::For(_, b) | LoopForm::ForIn(_, b) => go(b, live),
                LoopForm::While(_) => {}
            }
            go(&mut l.init, live);
        }
        Exp::Match(s, cases, _) => {
            let after = live.clone();
            for (p, body) in cases.iter_mut() {
                let mut lc = after.clone();
                go(body, &mut lc);
                unbind(p, &mut lc);
                live.extend(lc);
            }
            go(s, live);
        }
        Exp::Update {
            target,
            path,
            value,
            ..
        } => {
            go(target, live);
            for st in path.iter_mut().rev() {
                if let UpdStep::Index(idx, _) = st {
                    idx_rev(idx, live);
                }
            }
            go(value, live);
        }
        Exp::Range {
            start, second, end, ..
        } => {
            go(end, live);
            if let Some(s) = second {
                go(s, live);
            }
            go(start, live);
        }
        Exp::Coerce(x, shape, _) => {
            shape_reads(shape, live);
            go(x, live);
        }
        Exp::Assert { cond, body, .. } => {
            go(body, live);
            go(cond, live);
        }
        Exp::SizeArgs(x, sizes) => {
            sizes.iter_mut().rev().for_each(|(_, e)| go(e, live));
            go(x, live);
        }
        Exp::EmptyRows(x, dims, _) => {
            dims.iter_mut().rev().for_each(|e| go(e, live));
            go(x, live);
        }
    }
}

fn idx_rev(idx: &mut [IdxExp], live: &mut Live) {
    for i in idx.iter_mut().rev() {
        match i {
            IdxExp::Fix(x) => go(x, live),
            IdxExp::Slice(a, b, c) => {
                for x in [c, b, a].into_iter().flatten() {
                    go(x, live);
                }
            }
        }
    }
}

/// Removes the slots a pattern binds and adds those its size checks read.
fn unbind(p: &Pat, live: &mut Live) {
    let mut b = Live::new();
    pat_bound(p, &mut b);
    for s in b {
        live.remove(&s);
    }
    pat_reads(p, live);
}

fn pat_bound(p: &Pat, out: &mut Live) {
    match p {
        Pat::Bind(s) => {
            out.insert(*s);
        }
        Pat::Wild | Pat::Lit(_) => {}
        Pat::Record(fs) => fs.iter().for_each(|(_, q)| pat_bound(q, out)),
        Pat::Tuple(ps) | Pat::Constr(_, ps) => ps.iter().for_each(|q| pat_bound(q, out)),
        Pat::Sized(q, shape) => {
            pat_bound(q, out);
            shape_binds(shape, out);
        }
    }
}

fn shape_binds(shape: &ShapePat, out: &mut Live) {
    match shape {
        ShapePat::Any | crate::ir::ShapePat::Prim(_) => {}
        ShapePat::Record(fs) => fs.iter().for_each(|(_, s)| shape_binds(s, out)),
        ShapePat::Array(dims, elem) => {
            for d in dims {
                if let DimPat::Bind(s) = d {
                    out.insert(*s);
                }
            }
            shape_binds(elem, out);
        }
    }
}

fn pat_reads(p: &Pat, out: &mut Live) {
    match p {
        Pat::Record(fs) => fs.iter().for_each(|(_, q)| pat_reads(q, out)),
        Pat::Tuple(ps) | Pat::Constr(_, ps) => ps.iter().for_each(|q| pat_reads(q, out)),
        Pat::Sized(q, shape) => {
            pat_reads(q, out);
            shape_reads(shape, out);
        }
        _ => {}
    }
}

fn shape_reads(shape: &ShapePat, out: &mut Live) {
    match shape {
        ShapePat::Any | crate::ir::ShapePat::Prim(_) => {}
        ShapePat::Record(fs) => fs.iter().for_each(|(_, s)| shape_reads(s, out)),
        ShapePat::Array(dims, elem) => {
            for d in dims {
                match d {
                    DimPat::Same(s) => {
                        out.insert(*s);
                    }
                    DimPat::Check(e) => refs(e, out),
                    _ => {}
                }
            }
            shape_reads(elem, out);
        }
    }
}

/// Every slot an expression reads.
fn refs(e: &Exp, out: &mut Live) {
    walk(e, &mut |x| match x {
        Exp::Local(s) | Exp::LocalMove(s) => {
            out.insert(*s);
        }
        Exp::Lambda(lam) => {
            for c in &lam.captures {
                if let Capture::Local(s) = c {
                    out.insert(*s);
                }
            }
        }
        Exp::Coerce(_, shape, _) => shape_reads(shape, out),
        _ => {}
    });
}

/// Every slot bound inside an expression.
fn bound_in(e: &Exp, out: &mut Live) {
    walk(e, &mut |x| match x {
        Exp::Let(p, _, _) => pat_bound(p, out),
        Exp::Match(_, cases, _) => cases.iter().for_each(|(p, _)| pat_bound(p, out)),
        Exp::Loop(l) => {
            pat_bound(&l.pat, out);
            match &l.form {
                LoopForm::For(s, _) => {
                    out.insert(*s);
                }
                LoopForm::ForIn(p, _) => pat_bound(p, out),
                LoopForm::While(_) => {}
            }
        }
        _ => {}
    });
}

/// Calls `f` on every sub-expression (not entering lambda bodies, which have their own
/// frames).
fn walk(e: &Exp, f: &mut dyn FnMut(&Exp)) {
    f(e);
    let idx = |idx: &[IdxExp], f: &mut dyn FnMut(&Exp)| {
        for i in idx {
            match i {
                IdxExp::Fix(x) => walk(x, f),
                IdxExp::Slice(a, b, c) => {
                    for x in [a, b, c].into_iter().flatten() {
                        walk(x, f);
                    }
                }
            }
        }
    };
    match e {
        Exp::Tuple(es) | Exp::Constr(_, es) | Exp::PrimCall(_, es, _) => {
            es.iter().for_each(|x| walk(x, f))
        }
        Exp::Record { exps, .. } => exps.iter().for_each(|x| walk(x, f)),
        Exp::ArrayLit { elems, .. } => elems.iter().for_each(|x| walk(x, f)),
        Exp::Project(x, _, _)
        | Exp::Neg(x, _)
        | Exp::Not(x, _)
        | Exp::Trace(x, _, _)
        | Exp::Coerce(x, _, _) => walk(x, f),
        Exp::Index(x, is, _) => {
            walk(x, f);
            idx(is, f);
        }
        Exp::Apply(g, args, _) => {
            walk(g, f);
            args.iter().for_each(|x| walk(x, f));
        }
        Exp::BinOp(_, a, b, _) | Exp::And(a, b) | Exp::Or(a, b) => {
            walk(a, f);
            walk(b, f);
        }
        Exp::If(c, t, e2) => {
            walk(c, f);
            walk(t, f);
            walk(e2, f);
        }
        Exp::Let(_, v, b) => {
            walk(v, f);
            walk(b, f);
        }
        Exp::Loop(l) => {
            walk(&l.init, f);
            match &l.form {
                LoopForm::For(_, b) | LoopForm::ForIn(_, b) | LoopForm::While(b) => walk(b, f),
            }
            walk(&l.body, f);
        }
        Exp::Match(s, cases, _) => {
            walk(s, f);
            cases.iter().for_each(|(_, b)| walk(b, f));
        }
        Exp::Update {
            target,
            path,
            value,
            ..
        } => {
            walk(target, f);
            for st in path {
                if let UpdStep::Index(is, _) = st {
                    idx(is, f);
                }
            }
            walk(value, f);
        }
        Exp::Range {
            start, second, end, ..
        } => {
            walk(start, f);
            if let Some(s) = second {
                walk(s, f);
            }
            walk(end, f);
        }
        Exp::Assert { cond, body, .. } => {
            walk(cond, f);
            walk(body, f);
        }
        Exp::SizeArgs(x, sizes) => {
            walk(x, f);
            sizes.iter().for_each(|(_, e)| walk(e, f));
        }
        Exp::EmptyRows(x, dims, _) => {
            walk(x, f);
            dims.iter().for_each(|e| walk(e, f));
        }
        _ => {}
    }
}
