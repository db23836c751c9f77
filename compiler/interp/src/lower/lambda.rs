//! Building calls and lambdas in the internal form: applications of known functions are
//! simplified (primitive operations become direct calls, forwarding functions are looked
//! through, pipes become applications), and finished lambdas get their liveness pass and a
//! description of what calling them amounts to.

use std::cell::Cell;

use futhark_syntax::Span;

use super::exp::FnCtx;
use super::liveness;
use crate::ir::{BinFn, Exp, Lambda, Pat, Slot, Wrapper};
use crate::value::{Builtin, Fun, Name, Value};

/// An application, simplified when the function is known: primitive operations become
/// direct calls, forwarding functions are looked through, and pipes become applications.
pub fn apply(f: Exp, args: Vec<Exp>, span: Span) -> Exp {
    if let Exp::Const(Value::Fun(fun)) = &f {
        match &**fun {
            Fun::Builtin(Builtin::Prim(pf)) if args.len() == 1 => {
                let mut args = args;
                let arg = args.pop().unwrap_or(Exp::Tuple(Vec::new()));
                return match arg {
                    Exp::Tuple(items) if items.len() == pf.arity() => {
                        Exp::PrimCall(*pf, items, span)
                    }
                    arg if pf.arity() == 1 => Exp::PrimCall(*pf, vec![arg], span),
                    arg => Exp::Apply(Box::new(f), vec![arg], span),
                };
            }
            Fun::Builtin(Builtin::Op(op)) if args.len() == 2 => {
                let mut it = args.into_iter();
                let (a, b) = (it.next(), it.next());
                if let (Some(a), Some(b)) = (a, b) {
                    return Exp::BinOp(*op, Box::new(a), Box::new(b), span);
                }
                return Exp::Hole(span);
            }
            Fun::Builtin(Builtin::Neg) if args.len() == 1 => {
                let mut args = args;
                let a = args.pop().unwrap_or(Exp::Hole(span));
                return Exp::Neg(Box::new(a), span);
            }
            Fun::Closure { lam, .. } if args.len() == lam.params.len() => {
                if let Some(w) = &lam.wrapper {
                    // Untyped literals take the parameter's type before the call goes away.
                    let mut args: Vec<Exp> = args
                        .into_iter()
                        .zip(&lam.params)
                        .map(|(a, p)| match (a, p) {
                            (Exp::FlexLit(l), Pat::Sized(_, crate::ir::ShapePat::Prim(t))) => {
                                Exp::Const(Value::Prim(l.at(Some(*t))))
                            }
                            (a, _) => a,
                        })
                        .collect();
                    return match w.clone() {
                        Wrapper::Prim(pf) => Exp::PrimCall(pf, args, span),
                        Wrapper::Ov(op) => {
                            let b = args.pop();
                            let a = args.pop();
                            match (a, b) {
                                (Some(a), Some(b)) => {
                                    Exp::BinOp(op, Box::new(a), Box::new(b), span)
                                }
                                _ => Exp::Hole(span),
                            }
                        }
                        Wrapper::Value(v) => apply(Exp::Const(v), args, span),
                        Wrapper::PipeFwd => {
                            let g = args.pop();
                            let x = args.pop();
                            match (g, x) {
                                (Some(g), Some(x)) => apply_more(g, x, span),
                                _ => Exp::Hole(span),
                            }
                        }
                        Wrapper::PipeBwd => {
                            let x = args.pop();
                            let g = args.pop();
                            match (g, x) {
                                (Some(g), Some(x)) => apply_more(g, x, span),
                                _ => Exp::Hole(span),
                            }
                        }
                    };
                }
            }
            _ => {}
        }
    }
    if let Exp::Apply(g, mut first, _) = f {
        // `(f a) b` is `f a b`: one call node, so saturated calls are seen as such.
        first.extend(args);
        return apply(*g, first, span);
    }
    Exp::Apply(Box::new(f), args, span)
}

/// `g x` where `g` may itself be an application to extend.
fn apply_more(g: Exp, x: Exp, span: Span) -> Exp {
    apply(g, vec![x], span)
}

/// Slot of a parameter pattern that simply binds a name.
fn plain_param(p: &Pat) -> Option<Slot> {
    match p {
        Pat::Bind(s) => Some(*s),
        Pat::Sized(inner, _) => plain_param(inner),
        _ => None,
    }
}

fn is_local(e: &Exp, s: Slot) -> bool {
    matches!(e, Exp::Local(x) | Exp::LocalMove(x) if *x == s)
}

/// Finishes a lambda: liveness, and what calls of it may be simplified to.
pub fn make_lambda(
    name: Option<Name>,
    params: Vec<Pat>,
    mut body: Exp,
    ctx: FnCtx,
    span: Span,
) -> Lambda {
    let slots: Option<Vec<Slot>> = params.iter().map(plain_param).collect();
    let wrapper = slots.as_ref().and_then(|ps| wrapper_of(&body, ps));
    let binop = match (&wrapper, params.len()) {
        (Some(Wrapper::Ov(op)), 2) => Some(BinFn::Ov(*op)),
        (Some(Wrapper::Prim(pf)), 2) if pf.arity() == 2 => Some(BinFn::Prim(*pf)),
        (Some(Wrapper::Value(Value::Fun(f))), 2) => match &**f {
            Fun::Builtin(Builtin::Op(op)) => Some(BinFn::Ov(*op)),
            Fun::Closure { lam, .. } => lam.binop,
            _ => None,
        },
        _ => None,
    };
    let bound: Vec<Slot> = (0..ctx.nslots).collect();
    liveness::run(&mut body, &bound);
    // Only sizes that no parameter's shape binds need values from the call site.
    let mut bound_by_params = Vec::new();
    for p in &params {
        pat_size_binds(p, &mut bound_by_params);
    }
    let size_params = ctx
        .size_names
        .into_iter()
        .filter(|(_, s)| !bound_by_params.contains(s))
        .collect();
    Lambda {
        name,
        params,
        body,
        nslots: ctx.nslots as usize,
        captures: ctx.captures,
        span,
        no_vector: Cell::new(false),
        binop,
        wrapper,
        size_params,
    }
}

fn pat_size_binds(p: &Pat, out: &mut Vec<Slot>) {
    fn shape(sp: &crate::ir::ShapePat, out: &mut Vec<Slot>) {
        match sp {
            crate::ir::ShapePat::Any | crate::ir::ShapePat::Prim(_) => {}
            crate::ir::ShapePat::Array(dims, elem) => {
                for d in dims {
                    if let crate::ir::DimPat::Bind(s) = d {
                        out.push(*s);
                    }
                }
                shape(elem, out);
            }
            crate::ir::ShapePat::Record(fs) => fs.iter().for_each(|(_, x)| shape(x, out)),
        }
    }
    match p {
        Pat::Sized(q, sp) => {
            pat_size_binds(q, out);
            shape(sp, out);
        }
        Pat::Tuple(ps) | Pat::Constr(_, ps) => ps.iter().for_each(|q| pat_size_binds(q, out)),
        Pat::Record(fs) => fs.iter().for_each(|(_, q)| pat_size_binds(q, out)),
        _ => {}
    }
}

fn wrapper_of(body: &Exp, ps: &[Slot]) -> Option<Wrapper> {
    let all_params =
        |args: &[Exp]| args.len() == ps.len() && args.iter().zip(ps).all(|(a, &s)| is_local(a, s));
    match body {
        Exp::PrimCall(pf, args, _) if all_params(args) => Some(Wrapper::Prim(*pf)),
        Exp::BinOp(op, a, b, _) if ps.len() == 2 && is_local(a, ps[0]) && is_local(b, ps[1]) => {
            Some(Wrapper::Ov(*op))
        }
        Exp::Apply(f, args, _) => {
            if ps.len() == 2 && args.len() == 1 {
                if is_local(f, ps[1]) && is_local(&args[0], ps[0]) {
                    return Some(Wrapper::PipeFwd);
                }
                if is_local(f, ps[0]) && is_local(&args[0], ps[1]) {
                    return Some(Wrapper::PipeBwd);
                }
            }
            match &**f {
                Exp::Const(v @ Value::Fun(_)) if all_params(args) => {
                    Some(Wrapper::Value(v.clone()))
                }
                _ => None,
            }
        }
        _ => None,
    }
}
