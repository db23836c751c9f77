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

/// Calls `visit` on each pair of places in a definition's declared type `decl` and the type
/// `inst` it was used at that stand for each other, the whole types first. A type
/// parameter standing for an array meets the rest of the instance's dimensions: `[n]a` at
/// `[n][m]i32` pairs `a` with `[m]i32`.
fn zip_instance(decl: &CType, inst: &CType, visit: &mut dyn FnMut(&CType, &CType)) {
    visit(decl, inst);
    match (decl, inst) {
        (CType::Array(a), CType::Array(b)) if b.shape.len() > a.shape.len() => {
            let rest = CType::Array(Box::new(futhark_check::types::ArrayType {
                unique: b.unique,
                shape: b.shape[a.shape.len()..].to_vec(),
                elem: b.elem.clone(),
            }));
            zip_instance(&a.elem, &rest, visit);
        }
        (CType::Array(a), CType::Array(b)) => zip_instance(&a.elem, &b.elem, visit),
        (CType::Record(fa), CType::Record(fb)) => {
            for (k, t) in fa {
                if let Some(u) = fb.get(k) {
                    zip_instance(t, u, visit);
                }
            }
        }
        (CType::Sum(ca), CType::Sum(cb)) => {
            for (k, ts) in ca {
                if let Some(us) = cb.get(k) {
                    for (t, u) in ts.iter().zip(us) {
                        zip_instance(t, u, visit);
                    }
                }
            }
        }
        (CType::Arrow(a), CType::Arrow(b)) => {
            zip_instance(&a.param, &b.param, visit);
            zip_instance(&a.ret.ty, &b.ret.ty, visit);
        }
        _ => {}
    }
}

/// What each of the named size parameters of `decl` was instantiated to in `inst`.
fn sizes_from_instance(
    decl: &CType,
    inst: &CType,
    names: &[&str],
    out: &mut HashMap<String, CSize>,
) {
    zip_instance(decl, inst, &mut |d, i| {
        let (CType::Array(a), CType::Array(b)) = (d, i) else {
            return;
        };
        for (x, y) in a.shape.iter().zip(&b.shape) {
            if let CSize::Var(v) = x
                && names.contains(&v.name())
                && !out.contains_key(v.name())
            {
                out.insert(v.name().to_string(), y.clone());
            }
        }
    });
}

/// Binds the type parameters of `decl` to what `inst` has in their places (where the
/// caller knows those types, `tsubst`).
fn types_from_instance(decl: &CType, inst: &CType, tsubst: &TSubst, span: Span, out: &mut TSubst) {
    zip_instance(decl, inst, &mut |d, t| {
        if let CType::Var(tv) = d
            && tv.args.is_empty()
            && !out.contains_key(&tv.name.id)
            && let Ok(v) = crate::types::vty_of(t, tsubst, span)
        {
            out.insert(tv.name.id, v);
        }
    });
}
