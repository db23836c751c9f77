//! Sizes the checker inferred at a use, as terms over names in scope there: the size
//! arguments of a function that cannot read them from its arguments (`unflatten`), and the
//! row shape of an application's empty result.

use futhark_syntax::Span;
use futhark_syntax::ast::{self, QualName};

use super::exp::LowerCx;
use super::lambda::apply;
use crate::ir::Exp;
use crate::value::{Fun, Value};

impl LowerCx<'_> {
    /// Adds the sizes the checker inferred at this use, for a function that needs them.
    pub(super) fn with_size_args(&mut self, e: Exp, qn: &QualName) -> Exp {
        let Exp::Const(Value::Fun(f)) = &e else {
            return e;
        };
        let Fun::Closure { lam, .. } = &**f else {
            return e;
        };
        if lam.size_params.is_empty() {
            return e;
        }
        let Some(args) = self
            .lw
            .hints
            .size_args_at(&qn.span)
            .or_else(|| self.lw.hints.size_args_at(&qn.name.span))
            .cloned()
        else {
            return e;
        };
        let mut sizes = Vec::new();
        for (name, se) in &args {
            let Some(&(_, slot)) = lam.size_params.iter().find(|(n, _)| **n == **name) else {
                continue;
            };
            if let Some(x) = self.size_exp(se, qn.span) {
                sizes.push((slot, x));
            }
        }
        if sizes.is_empty() {
            e
        } else {
            Exp::SizeArgs(Box::new(e), sizes)
        }
    }

    /// `e` (an application at `span`) with the row shape the checker gave its result, for
    /// when the result is empty; `e` itself when there is none or it is not in scope here.
    pub(super) fn empty_rows(&mut self, e: Exp, span: Span) -> Exp {
        let Some((dims, elem)) = self.lw.hints.empty_rows_at(&span).cloned() else {
            return e;
        };
        let mut ds = Vec::with_capacity(dims.len());
        for d in &dims {
            match self.size_exp(d, span) {
                Some(x) => ds.push(x),
                None => return e,
            }
        }
        Exp::EmptyRows(Box::new(e), ds, elem)
    }

    fn size_exp(&mut self, se: &crate::program::SizeExpr, span: Span) -> Option<Exp> {
        use crate::program::SizeExpr as S;
        let name = |n: &str| QualName {
            quals: Vec::new(),
            name: ast::Ident {
                name: n.to_string(),
                span,
            },
            span,
        };
        Some(match se {
            S::Lit(k) => Exp::Const(Value::i64(*k)),
            S::Var(n) => self.var_plain(&name(n)).ok()?,
            S::BinOp(op, a, b) => {
                let o = crate::prim_ops::OvOp::from_name(op)?;
                Exp::BinOp(
                    o,
                    Box::new(self.size_exp(a, span)?),
                    Box::new(self.size_exp(b, span)?),
                    span,
                )
            }
            S::Apply(f, args) => {
                // A size is an `i64`, so an application of a function named for a primitive
                // type (the checker keeps names, not module paths) is `i64.<t>`, the
                // conversion from `t`: the global `u32`, say, would give a `u32`.
                let fe = if futhark_check::PrimType::from_name(f).is_some() {
                    let conv = QualName {
                        quals: vec![ast::Ident {
                            name: "i64".to_string(),
                            span,
                        }],
                        ..name(f)
                    };
                    self.var_plain(&conv).ok()?
                } else {
                    self.var_plain(&name(f)).ok()?
                };
                let mut xs = Vec::with_capacity(args.len());
                for a in args {
                    xs.push(self.size_exp(a, span)?);
                }
                apply(fe, xs, span)
            }
        })
    }
}
