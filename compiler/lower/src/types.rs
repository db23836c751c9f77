//! From the checker's types to lowering shapes: sum layouts, placeholder values, and
//! instantiating type variables from the arguments of a call.
//!
//! Lowering takes the types of values from the values themselves; the checker's types are
//! needed only where a value must be made from nothing: the unused payloads of a sum
//! constructor, an empty array literal, and the inputs of an entry point. Inside a
//! polymorphic function (or a functor body) those types mention type variables, which
//! [`unify`] binds from the arguments the function was called with.

use std::rc::Rc;

use futhark_check::types::Type as CType;
use futhark_ir::soacs::{Exp, SubExp, Type};
use futhark_ir::types::PrimType;
use futhark_syntax::Span;

use crate::error::{LResult, LowerError};
use crate::state::{Lowerer, zero};
use crate::value::{SumLayout, TSubst, VTy, Value, field_order};

/// The shape of values of a checker type.
pub fn vty_of(t: &CType, tsubst: &TSubst, span: Span) -> LResult<VTy> {
    Ok(match t {
        CType::Prim(p) => VTy::Prim(*p),
        CType::Array(a) => {
            let mut v = vty_of(&a.elem, tsubst, span)?;
            for _ in &a.shape {
                v = VTy::Array(Box::new(v));
            }
            v
        }
        CType::Record(fs) => {
            let mut out = Vec::new();
            for (k, ft) in fs {
                out.push((k.to_string(), vty_of(ft, tsubst, span)?));
            }
            out.sort_by(|a, b| field_order(&a.0, &b.0));
            VTy::Record(out)
        }
        CType::Sum(cs) => VTy::Sum(Rc::new(layout_of(cs, tsubst, span)?)),
        CType::Var(v) => match tsubst.get(&v.name.id) {
            Some(t) => t.clone(),
            None => {
                return Err(LowerError::unsupported(
                    Some(span),
                    format!(
                        "the type `{}` is not known here (abstract or polymorphic)",
                        v.name
                    ),
                ));
            }
        },
        CType::Arrow(_) => {
            return Err(LowerError::unsupported(
                Some(span),
                "functions stored in data (records or sums)",
            ));
        }
        CType::Error => return Err(LowerError::internal(Some(span), "erroneous type")),
    })
}

/// The layout of a sum type: constructors in name order.
pub fn layout_of(
    cs: &std::collections::BTreeMap<futhark_check::types::Name, Vec<CType>>,
    tsubst: &TSubst,
    span: Span,
) -> LResult<SumLayout> {
    let mut ctors = Vec::new();
    for (name, ts) in cs {
        let payload = ts
            .iter()
            .map(|t| vty_of(t, tsubst, span))
            .collect::<LResult<Vec<_>>>()?;
        ctors.push((name.to_string(), payload));
    }
    Ok(SumLayout { ctors })
}

/// Binds the type variables of `t` to the shapes of `v` (whose leaves have `peeled` more
/// array dimensions than `t` describes).
pub fn unify(t: &CType, v: &Value<'_>, peeled: usize, out: &mut TSubst) {
    match t {
        CType::Var(tv) if tv.args.is_empty() => {
            if let Some(vt) = v.vty(peeled) {
                out.entry(tv.name.id).or_insert(vt);
            }
        }
        CType::Array(a) => unify(&a.elem, v, peeled + a.shape.len(), out),
        CType::Record(fs) => {
            for (k, ft) in fs {
                if let Some(fv) = v.field(k) {
                    unify(ft, fv, peeled, out);
                }
            }
        }
        CType::Sum(cs) => {
            if let Value::Sum(_, _, ps) = v {
                for ((_, ts), pv) in cs.iter().zip(ps) {
                    for (t, p) in ts.iter().zip(pv) {
                        unify(t, p, peeled, out);
                    }
                }
            }
        }
        _ => {}
    }
}

impl<'a> Lowerer<'a> {
    /// A placeholder value of shape `t` as an array with outer dimensions `dims`: zeros,
    /// and empty arrays for inner array dimensions.
    pub fn blank(&mut self, t: &VTy, dims: &[SubExp]) -> Value<'a> {
        match t {
            VTy::Prim(p) => {
                let z = SubExp::Const(zero(*p));
                if dims.is_empty() {
                    Value::prim(z, *p)
                } else {
                    let ty = Type::Array(*p, dims.to_vec());
                    let s = self.bind(
                        "blank",
                        ty.clone(),
                        Exp::Replicate {
                            shape: dims.to_vec(),
                            value: z,
                        },
                    );
                    Value::Atom(s, ty)
                }
            }
            VTy::Array(inner) => {
                let mut d = dims.to_vec();
                d.push(SubExp::i64(0));
                self.blank(inner, &d)
            }
            VTy::Record(fs) => Value::Record(
                fs.iter()
                    .map(|(n, ft)| (n.clone(), self.blank(ft, dims)))
                    .collect(),
            ),
            VTy::Sum(l) => {
                let tag = self.blank(&VTy::Prim(PrimType::I8), dims);
                let payloads = l
                    .ctors
                    .iter()
                    .map(|(_, ts)| ts.iter().map(|t| self.blank(t, dims)).collect())
                    .collect();
                Value::Sum(l.clone(), Box::new(tag), payloads)
            }
        }
    }
}
