//! What a use of a definition tells a call that its arguments cannot: the checker's
//! instance type at the use gives the size parameters (`unflatten`'s `n` and `m`) and the
//! type parameters (a function argument's result type, a type only the result names) that
//! the arguments' shapes do not fix, as terms over names in scope at the use.

use std::collections::HashMap;
use std::rc::Rc;

use futhark_check::types::{Size as CSize, Type as CType};
use futhark_ir::soacs::SubExp;
use futhark_ir::types::PrimType;
use futhark_syntax::Span;

use crate::apply::size_params;
use crate::error::{LResult, LowerError};
use crate::state::Lowerer;
use crate::value::{Ctx, Def, Inst, TSubst, Value};

impl<'a> Lowerer<'a> {
    /// The type parameters of `def` that its instance at this use fixes, as the caller
    /// sees them: a type that only a function argument's result or the result type names
    /// (`map_opt f` with `f: a -> b`, `concatmap`'s `[]b`) is not found by unifying the
    /// parameters with the arguments' values.
    pub(crate) fn call_types(
        &mut self,
        def: &Rc<Def<'a>>,
        inst: Option<&Inst<'a>>,
        span: Span,
    ) -> LResult<TSubst> {
        let mut out = TSubst::new();
        let Some(inst) = inst else {
            return Ok(out);
        };
        let vb = def.vb;
        if let Some(decl) = self.info(vb.name.span)?.defs.get(&vb.name.span) {
            types_from_instance(&decl.ty, inst.ty, &inst.ctx.tsubst, span, &mut out);
        }
        Ok(out)
    }

    /// Size parameters of `def` that no argument's shape gives, evaluated from the type the
    /// definition was used at.
    pub fn call_sizes(
        &mut self,
        def: &Rc<Def<'a>>,
        inst: Option<&Inst<'a>>,
        args: &[Value<'a>],
        span: Span,
    ) -> LResult<Vec<(String, SubExp)>> {
        let vb = def.vb;
        let names = size_params(vb);
        let Some(inst) = inst else {
            return Ok(Vec::new());
        };
        if names.is_empty() {
            return Ok(Vec::new());
        }
        let mut found = HashMap::new();
        for (p, a) in vb.params.iter().zip(args) {
            self.sizes_in_pat(p, a, &names, &mut found)?;
        }
        let missing: Vec<&str> = names
            .iter()
            .copied()
            .filter(|n| !found.contains_key(*n))
            .collect();
        if missing.is_empty() {
            return Ok(Vec::new());
        }
        let Some(decl) = self.info(vb.name.span)?.defs.get(&vb.name.span) else {
            return Ok(Vec::new());
        };
        let mut sizes = HashMap::new();
        sizes_from_instance(&decl.ty, inst.ty, &missing, &mut sizes);
        let mut out = Vec::new();
        for n in missing {
            if let Some(sz) = sizes.get(n)
                && let Ok(se) = self.eval_size(sz, &inst.ctx, span)
            {
                out.push((n.to_string(), se));
            }
        }
        Ok(out)
    }

    /// A checker size term, evaluated in the context it was written in.
    pub(crate) fn eval_size(&mut self, s: &CSize, ctx: &Ctx<'a>, span: Span) -> LResult<SubExp> {
        let v = match s {
            CSize::Lit(k) => return Ok(SubExp::i64(*k)),
            CSize::Var(v) => match ctx
                .size_id(v.id)
                .or_else(|| self.size_ids.get(&v.id).cloned())
            {
                Some(d) => return Ok(d),
                None => self.name_value(v.name(), span, ctx)?,
            },
            CSize::BinOp(op, a, b) => {
                let x = self.eval_size(a, ctx, span)?;
                let y = self.eval_size(b, ctx, span)?;
                self.overloaded(
                    op.name(),
                    vec![Value::prim(x, PrimType::I64), Value::prim(y, PrimType::I64)],
                    span,
                )?
            }
            // A size is an `i64`, so an application of a function named for an integer type
            // (the checker keeps names, not module paths) is `i64.<t>`, the conversion from
            // `t`, and every term here is already evaluated to an `i64`.
            CSize::Apply(f, args)
                if args.len() == 1 && PrimType::from_name(f.name()).is_some_and(|t| t.is_int()) =>
            {
                return self.eval_size(&args[0], ctx, span);
            }
            CSize::Apply(f, args) => {
                let fv = self.name_value(f.name(), span, ctx)?;
                let mut vals = Vec::new();
                for a in args {
                    vals.push(Value::prim(self.eval_size(a, ctx, span)?, PrimType::I64));
                }
                self.apply_value(fv, vals, span)?
            }
            _ => return Err(LowerError::unsupported(Some(span), "this size expression")),
        };
        let a = crate::exp::atom(&v, span)?;
        Ok(self.int_to_i64(a))
    }
}

/// Matches a definition's declared type with the type it was used at, recording what each
/// of the named size parameters was instantiated to.
fn sizes_from_instance(
    decl: &CType,
    inst: &CType,
    names: &[&str],
    out: &mut HashMap<String, CSize>,
) {
    match (decl, inst) {
        (CType::Array(a), CType::Array(b)) => {
            for (x, y) in a.shape.iter().zip(&b.shape) {
                if let CSize::Var(v) = x
                    && names.contains(&v.name())
                    && !out.contains_key(v.name())
                {
                    out.insert(v.name().to_string(), y.clone());
                }
            }
            sizes_from_instance(&a.elem, &b.elem, names, out);
        }
        (CType::Record(fa), CType::Record(fb)) => {
            for (k, t) in fa {
                if let Some(u) = fb.get(k) {
                    sizes_from_instance(t, u, names, out);
                }
            }
        }
        (CType::Sum(ca), CType::Sum(cb)) => {
            for (k, ts) in ca {
                if let Some(us) = cb.get(k) {
                    for (t, u) in ts.iter().zip(us) {
                        sizes_from_instance(t, u, names, out);
                    }
                }
            }
        }
        (CType::Arrow(a), CType::Arrow(b)) => {
            sizes_from_instance(&a.param, &b.param, names, out);
            sizes_from_instance(&a.ret.ty, &b.ret.ty, names, out);
        }
        _ => {}
    }
}

/// Binds the type parameters of a definition's declared type `decl` to what its instance
/// `inst` has in their places (where the caller knows those types, `tsubst`).
fn types_from_instance(decl: &CType, inst: &CType, tsubst: &TSubst, span: Span, out: &mut TSubst) {
    match (decl, inst) {
        (CType::Var(tv), t) if tv.args.is_empty() => {
            if !out.contains_key(&tv.name.id)
                && let Ok(v) = crate::types::vty_of(t, tsubst, span)
            {
                out.insert(tv.name.id, v);
            }
        }
        (CType::Array(a), CType::Array(b)) if b.shape.len() >= a.shape.len() => {
            // `[n]a` at `[n][m]i32`: `a` is `[m]i32`.
            let rest = if b.shape.len() == a.shape.len() {
                b.elem.clone()
            } else {
                CType::Array(Box::new(futhark_check::types::ArrayType {
                    unique: b.unique,
                    shape: b.shape[a.shape.len()..].to_vec(),
                    elem: b.elem.clone(),
                }))
            };
            types_from_instance(&a.elem, &rest, tsubst, span, out);
        }
        (CType::Record(fa), CType::Record(fb)) => {
            for (k, t) in fa {
                if let Some(u) = fb.get(k) {
                    types_from_instance(t, u, tsubst, span, out);
                }
            }
        }
        (CType::Sum(ca), CType::Sum(cb)) => {
            for (k, ts) in ca {
                if let Some(us) = cb.get(k) {
                    for (t, u) in ts.iter().zip(us) {
                        types_from_instance(t, u, tsubst, span, out);
                    }
                }
            }
        }
        (CType::Arrow(a), CType::Arrow(b)) => {
            types_from_instance(&a.param, &b.param, tsubst, span, out);
            types_from_instance(&a.ret.ty, &b.ret.ty, tsubst, span, out);
        }
        _ => {}
    }
}
