//! Entry points: an IR function per `entry` whose parameters are the flattened inputs with
//! every dimension read from the input's shape, followed by checks that dimensions the
//! Futhark type says are equal (or constant) really are, before the entry's body runs.

use std::collections::HashMap;

use futhark_check::EntryInfo;
use futhark_check::types::{Size as CSize, Type as CType};
use futhark_ir::soacs::{
    Body, CmpOp, EntryPoint, EntryValue, Exp as IExp, FunDef, Param, Pat, SubExp, Type,
};
use futhark_ir::types::PrimType;
use futhark_syntax::Span;

use crate::apply::ret_types;
use crate::error::{LResult, LowerError};
use crate::modenv::{Binding, Env, Found};
use crate::state::Lowerer;
use crate::value::{Ctx, Value};

/// One IR input made for an entry parameter: the parameter and, per dimension, the
/// checker's size for it.
struct Input {
    param: Param,
    sizes: Vec<CSize>,
    /// The entry parameter it belongs to.
    of: usize,
}

impl<'a> Lowerer<'a> {
    /// Lowers one entry point found in the environment at the end of the root file.
    pub fn entry(&mut self, e: &EntryInfo, env: &Env<'a>) -> LResult<FunDef> {
        let span = e.span;
        let def = match env.lookup(&e.name) {
            Some(Found::Val(Binding::Def(d))) => d,
            _ => return Err(LowerError::internal(Some(span), "entry point not found")),
        };
        let mut size_params: Vec<Param> = Vec::new();
        let mut inputs: Vec<Input> = Vec::new();
        let mut args = Vec::new();
        let mut counts = Vec::new();
        for (i, p) in e.params.iter().enumerate() {
            let before = inputs.len();
            let v =
                self.entry_input(&p.ty, &mut Vec::new(), &mut size_params, &mut inputs, span)?;
            inputs[before..].iter_mut().for_each(|input| input.of = i);
            counts.push(inputs.len() - before);
            args.push(v);
        }
        // Named `i64` parameters: sizes may be written in them (`(n: i64) (xs: [n]i32)`, also
        // where the checker inferred it, or `[x + 1]`).
        // Known by the checker's unique names: an inferred size may print as a parameter's
        // name and be another variable.
        let mut scalars = Ctx::new(env.clone());
        let mut scalar_ids = std::collections::HashSet::new();
        for (i, (p, v)) in e.params.iter().zip(&args).enumerate() {
            let (Some(name), CType::Prim(futhark_check::types::PrimType::I64)) = (&p.name, &p.ty)
            else {
                continue;
            };
            let Some(x) = def
                .vb
                .params
                .get(i)
                .and_then(futhark_syntax::ast::Pat::simple_name)
            else {
                continue;
            };
            if let Some(r) = self.info(x.span)?.resolutions.get(&x.span) {
                scalars = scalars.bind(name, v.clone());
                scalar_ids.insert(r.vname.id);
            }
        }
        let (stms, result) = self.block(|this| {
            // Dimensions with the same size variable must agree; literal sizes, sizes that are
            // parameters and sizes computed from them must match.
            let mut canon: HashMap<u64, SubExp> = HashMap::new();
            let mut fixed: HashMap<String, SubExp> = HashMap::new();
            for input in &inputs {
                for (d, s) in input.param.ty.shape().iter().zip(&input.sizes) {
                    let mut names_a_scalar = false;
                    s.each_var(&mut |v| names_a_scalar |= scalar_ids.contains(&v.id));
                    // The interpreter checks a size variable's second use itself (and
                    // the compiled entry point words it the same); the checks it does not
                    // make (literal sizes, sizes given by parameters) are the compiled entry
                    // point's own, worded as Futhark's compiled entry points word them.
                    let interpreted = matches!(s, CSize::Var(v) if canon.contains_key(&v.id));
                    let want = match s {
                        CSize::Var(v) if canon.contains_key(&v.id) => canon.get(&v.id).cloned(),
                        CSize::Lit(k) => Some(SubExp::i64(*k)),
                        _ if names_a_scalar => {
                            let w = this.eval_size(s, &scalars, span).ok();
                            if let (CSize::Var(v), Some(w)) = (s, &w) {
                                canon.insert(v.id, w.clone());
                            }
                            w
                        }
                        CSize::Var(v) => {
                            canon.insert(v.id, d.clone());
                            None
                        }
                        _ => None,
                    };
                    if let (Some(w), Some(dn)) = (want, d.as_var()) {
                        let ok = this.bind(
                            "size_ok",
                            Type::Prim(PrimType::Bool),
                            IExp::CmpOp(CmpOp::Eq, d.clone(), w.clone()),
                        );
                        let dims = input.param.ty.shape();
                        let (msg, args) = if interpreted {
                            // As the interpreter words it, with the input's whole shape.
                            let shape = "[{}]".repeat(dims.len());
                            let msg = format!(
                                "Sizes do not match: dimension of size {{}} where {{}} was expected (shape {shape})."
                            );
                            let mut args = vec![d.clone(), w.clone()];
                            args.extend(dims.iter().cloned());
                            (msg, args)
                        } else {
                            // Futhark's compiled entry points say "invalid size" here; ours
                            // also say which argument and what was expected.
                            let msg = format!(
                                "entry point `{}`: invalid size of argument {} (of type {}): {{}} where {{}} was expected.",
                                futhark_ir::soacs::message::escape(e.name.as_ref()),
                                input.of + 1,
                                futhark_ir::soacs::message::escape(
                                    &e.params[input.of].ty.to_string()
                                ),
                            );
                            (msg, vec![d.clone(), w.clone()])
                        };
                        // Located where the interpreter reports it: the entry's definition.
                        let at = if interpreted { def.vb.span } else { span };
                        this.located(at, |this| {
                            this.emit(
                                Pat::default(),
                                IExp::Assert {
                                    cond: ok,
                                    msg,
                                    args,
                                },
                            )
                        });
                        fixed.insert(dn.clone(), w);
                    }
                }
            }
            // Inputs with checked dimensions are reshaped to the canonical sizes.
            let mut renamed = Vec::new();
            for input in &inputs {
                let t = &input.param.ty;
                let want = t.map_dims(|d| match d.as_var().and_then(|v| fixed.get(v)) {
                    Some(w) => w.clone(),
                    None => d.clone(),
                });
                let s = this.coerce_atom(SubExp::Var(input.param.name.clone()), t, &want)?;
                renamed.push((s, want));
            }
            let mut it = renamed.into_iter();
            let args: Vec<Value<'a>> = args
                .iter()
                .map(|a| a.rebuild(&mut it))
                .collect::<Option<_>>()
                .ok_or_else(|| LowerError::internal(Some(span), "entry arguments"))?;
            // A point-free entry (`entry f = g x`) is a constant whose value is applied.
            let f = if def.vb.params.is_empty() {
                this.inline_def(&def, Vec::new(), Vec::new(), Default::default(), span)?
            } else {
                Value::Fun(std::rc::Rc::new(crate::value::Closure::Def(
                    def.clone(),
                    None,
                )))
            };
            // The call's frame is the whole definition, as the interpreter's backtrace ends
            // (even when the entry point only forwards to another function).
            this.in_frame(def.vb.span, |this| this.apply_in_intrinsic(f, args, span))
        })?;
        if result.has_fun() {
            return Err(LowerError::unsupported(
                Some(span),
                "an entry point returning a function",
            ));
        }
        let mut params = size_params;
        params.extend(inputs.into_iter().map(|i| i.param));
        let names: Vec<String> = params.iter().map(|p| p.name.clone()).collect();
        let leaves = result.leaves();
        let ret = ret_types(&leaves, &names);
        let results = match e.ret.ty.as_tuple() {
            Some(ts) if !ts.is_empty() => result
                .components()
                .iter()
                .zip(ts)
                .map(|(v, t)| EntryValue {
                    futhark_type: t.to_string(),
                    values: v.leaves().len(),
                })
                .collect(),
            _ => vec![EntryValue {
                futhark_type: e.ret.ty.to_string(),
                values: leaves.len(),
            }],
        };
        let entry = EntryPoint {
            name: e.name.to_string(),
            params: e
                .params
                .iter()
                .zip(&counts)
                .map(|(p, n)| EntryValue {
                    futhark_type: p.ty.to_string(),
                    values: *n,
                })
                .collect(),
            results,
        };
        let name = self.fresh(&format!("entry_{}", e.name));
        Ok(FunDef {
            name,
            entry: Some(entry),
            params,
            ret,
            body: Body::new(stms, leaves.into_iter().map(|(s, _)| s).collect()),
        })
    }

    /// Makes IR parameters for an entry input of checker type `t` under outer sizes.
    fn entry_input(
        &mut self,
        t: &CType,
        outer: &mut Vec<CSize>,
        size_params: &mut Vec<Param>,
        inputs: &mut Vec<Input>,
        span: Span,
    ) -> LResult<Value<'a>> {
        match t {
            CType::Prim(p) => {
                let mut dims = Vec::new();
                for _ in outer.iter() {
                    let sp = self.param("n", Type::Prim(PrimType::I64));
                    dims.push(SubExp::Var(sp.name.clone()));
                    size_params.push(sp);
                }
                let ty = Type::array(*p, dims);
                let param = self.param("in", ty.clone());
                let v = Value::Atom(SubExp::Var(param.name.clone()), ty);
                inputs.push(Input {
                    param,
                    sizes: outer.clone(),
                    of: 0,
                });
                Ok(v)
            }
            CType::Array(a) => {
                let n = outer.len();
                outer.extend(a.shape.iter().cloned());
                let v = self.entry_input(&a.elem, outer, size_params, inputs, span);
                outer.truncate(n);
                v
            }
            CType::Record(fs) => {
                let mut out = Vec::new();
                for (k, ft) in fs {
                    out.push((
                        k.to_string(),
                        self.entry_input(ft, outer, size_params, inputs, span)?,
                    ));
                }
                Ok(Value::record(out))
            }
            CType::Sum(_) => Err(LowerError::unsupported(
                Some(span),
                "sum types as entry point inputs",
            )),
            CType::Var(_) => Err(LowerError::unsupported(
                Some(span),
                "opaque (abstract) types as entry point inputs",
            )),
            CType::Arrow(_) | CType::Error => {
                Err(LowerError::internal(Some(span), "entry input type"))
            }
        }
    }
}
