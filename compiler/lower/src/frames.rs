//! Backtraces of compiled programs: which calls are frames.
//!
//! The interpreter pushes a frame for each application written in the source and none for
//! the calls an intrinsic makes; it rewrites calls of functions that only forward their
//! parameters into the call they make. Lowering mirrors that (`Lowerer::frames`,
//! `Lowerer::in_frame`), so a compiled error's backtrace is the interpreter's.

use futhark_syntax::ast::ExpKind;

/// Whether `vb` only forwards its parameters to a function or operator: `def (|>) x f =
/// f x`, `def f x y = g x y`, `def f x y = x / y`. The interpreter rewrites calls of such
/// functions into the call or operation they make, so they add no frame of their own to a
/// backtrace, and a built-in operator's error is located at the call.
pub fn forwards(vb: &futhark_syntax::ast::ValBind) -> bool {
    fn var(e: &futhark_syntax::ast::Exp) -> Option<&str> {
        match &e.kind {
            ExpKind::Var(q) if q.quals.is_empty() => Some(q.name.name.as_str()),
            ExpKind::Parens(x) => var(x),
            _ => None,
        }
    }
    let mut body = &vb.body;
    while let ExpKind::Parens(x) = &body.kind {
        body = x;
    }
    let Some(params) = vb
        .params
        .iter()
        .map(|p| p.simple_name().map(|n| n.name.as_str()))
        .collect::<Option<Vec<&str>>>()
    else {
        return false;
    };
    if let ExpKind::BinOp { lhs, rhs, .. } = &body.kind {
        return params.len() == 2 && var(lhs) == Some(params[0]) && var(rhs) == Some(params[1]);
    }
    let ExpKind::Apply(f, args) = &body.kind else {
        return false;
    };
    let Some(args) = args.iter().map(var).collect::<Option<Vec<&str>>>() else {
        return false;
    };
    let Some(f) = var(f) else {
        return false;
    };
    match (params.as_slice(), args.as_slice()) {
        // A pipe: one parameter applied to the other.
        ([a, b], [x]) => (f == *b && x == a) || (f == *a && x == b),
        _ => !params.contains(&f) && args == params,
    }
}
