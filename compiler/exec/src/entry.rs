//! Entry points: data-format values in, data-format values out. A Futhark parameter of a
//! tuple or record type arrives as several values (and an array of tuples as several
//! arrays), one per IR parameter; size parameters are read from the inputs' shapes.

use std::rc::Rc;

use futhark_ir::soacs::{FunDef, SubExp};
use futhark_ir::types::PrimValue;
use futhark_values::Value;

use crate::backend::Backend;
use crate::error::{ExecError, Result};
use crate::host::Executor;
use crate::prim;
use crate::value::{Array, Data, Val};

impl<B: Backend> Executor<B> {
    /// The names of the program's entry points.
    pub fn entry_names(&self) -> Vec<String> {
        self.program()
            .entries()
            .filter_map(|f| f.entry.as_ref().map(|e| e.name.clone()))
            .collect()
    }

    /// Calls entry point `entry` on data-format values and returns its results.
    pub fn call_entry(&mut self, entry: &str, args: Vec<Value>) -> Result<Vec<Value>> {
        let f = self
            .program()
            .funs
            .iter()
            .find(|f| f.entry.as_ref().is_some_and(|e| e.name == entry))
            .cloned()
            .ok_or_else(|| ExecError::Args(format!("Unknown entry point: {entry}")))?;
        let ir_args = entry_args(&f, args)?;
        let results = self.call(&f.name, ir_args)?;
        results.into_iter().map(|v| self.value_of(v)).collect()
    }

    fn value_of(&mut self, v: Val<B::Buf>) -> Result<Value> {
        match v {
            Val::Prim(p) => Ok(Value::new(Vec::new(), prim::filled(p, 1))
                .map_err(|e| ExecError::malformed(e.to_string()))?),
            Val::Arr(a) => {
                let buf = self.host(&a)?;
                let buf = Rc::try_unwrap(buf).unwrap_or_else(|b| (*b).clone());
                Value::new(a.shape, buf).map_err(|e| ExecError::malformed(e.to_string()))
            }
        }
    }
}

/// The IR arguments of an entry function: sizes from the shapes, then the values.
pub(crate) fn entry_args<D>(f: &FunDef, args: Vec<Value>) -> Result<Vec<Val<D>>> {
    let ep = f
        .entry
        .as_ref()
        .ok_or_else(|| ExecError::malformed("not an entry point"))?;
    let n_values: usize = ep.params.iter().map(|p| p.values).sum();
    let n_sizes =
        f.params.len().checked_sub(n_values).ok_or_else(|| {
            ExecError::malformed("entry point with fewer parameters than its values")
        })?;
    if args.len() != n_values {
        return Err(ExecError::Args(format!(
            "Entry point \"{}\" expects {} argument(s) of types {}, but got {}.",
            ep.name,
            n_values,
            ep.params
                .iter()
                .map(|p| p.futhark_type.as_str())
                .collect::<Vec<_>>()
                .join(" "),
            args.len()
        )));
    }
    let (size_params, value_params) = f.params.split_at(n_sizes);
    let mut sizes: Vec<Option<i64>> = vec![None; n_sizes];
    for (k, (p, v)) in value_params.iter().zip(&args).enumerate() {
        let want = p.ty.elem();
        if v.elem_type() != want || v.rank() != p.ty.rank() {
            return Err(ExecError::Args(format!(
                "Entry point \"{}\": argument #{k} should have type {}, but has type {}{}.",
                ep.name,
                type_text(p.ty.rank(), want),
                "[]".repeat(v.rank()),
                v.elem_type().name()
            )));
        }
        for (d, n) in p.ty.shape().iter().zip(v.shape()) {
            match d {
                SubExp::Var(name) => {
                    if let Some(i) = size_params.iter().position(|s| s.name == *name) {
                        match sizes[i] {
                            None => sizes[i] = Some(*n),
                            Some(m) if m == *n => {}
                            Some(m) => {
                                return Err(ExecError::Args(format!(
                                    "Entry point \"{}\": argument #{k} has size {n} where {m} was expected (size `{name}`).",
                                    ep.name
                                )));
                            }
                        }
                    }
                }
                SubExp::Const(c) => {
                    if prim::as_i64(*c).ok() != Some(*n) {
                        return Err(ExecError::Args(format!(
                            "Entry point \"{}\": argument #{k} has size {n} where {c} was expected.",
                            ep.name
                        )));
                    }
                }
            }
        }
    }
    let mut out: Vec<Val<D>> = sizes
        .into_iter()
        .map(|s| Val::Prim(PrimValue::I64(s.unwrap_or(0))))
        .collect();
    for (p, v) in value_params.iter().zip(args) {
        let elem = p.ty.elem();
        let (shape, buf) = v.into_parts();
        if shape.is_empty() && !p.ty.is_array() {
            let x = prim::get(&buf, 0).ok_or_else(|| ExecError::malformed("empty scalar"))?;
            out.push(Val::Prim(x));
        } else {
            debug_assert_eq!(buf.elem_type(), elem);
            out.push(Val::Arr(Array {
                elem,
                shape,
                data: Data::Host(Rc::new(buf)),
            }));
        }
    }
    Ok(out)
}

fn type_text(rank: usize, elem: futhark_ir::types::PrimType) -> String {
    format!("{}{elem}", "[]".repeat(rank))
}
