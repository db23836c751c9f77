//! Timing an entry point the way `futhark bench` does: arguments are on the device before
//! the clock starts, results stay there, and the clock stops when the devices are done.

use std::time::{Duration, Instant};

use futhark_values::Value;

use crate::backend::Backend;
use crate::entry::entry_args;
use crate::error::{ExecError, Result};
use crate::host::Executor;
use crate::value::{Array, Data, Val};

impl<B: Backend> Executor<B> {
    /// The time of one call of entry point `entry`, excluding the transfers of its
    /// arguments and results.
    pub fn time_entry(&mut self, entry: &str, args: Vec<Value>) -> Result<Duration> {
        let mut once = true;
        let runs = self.time_entry_runs(entry, &args, &mut |_| std::mem::take(&mut once))?;
        Ok(runs[0])
    }

    /// Times calls of `entry` on `args` while `more` (given the times so far) says so, at
    /// least one. The arguments are uploaded once and stay on the devices between calls, as
    /// a program's arrays do: a multi-GPU run keeps the partitions its first call made, so
    /// later calls show the resident steady state (`bench` discards a warm-up call). When
    /// the entry consumes an argument (a `*` parameter) every call gets fresh device copies
    /// of the arguments, made before its clock starts, so no call sees what an earlier one
    /// overwrote.
    pub fn time_entry_runs(
        &mut self,
        entry: &str,
        args: &[Value],
        more: &mut dyn FnMut(&[Duration]) -> bool,
    ) -> Result<Vec<Duration>> {
        let f = self
            .program()
            .funs
            .iter()
            .find(|f| f.entry.as_ref().is_some_and(|e| e.name == entry))
            .cloned()
            .ok_or_else(|| ExecError::Args(format!("Unknown entry point: {entry}")))?;
        // A `*` anywhere in a parameter's type (a unique component, or a size written
        // with a product) copies: the old, always safe way.
        let consumes = f
            .entry
            .as_ref()
            .is_some_and(|e| e.params.iter().any(|p| p.futhark_type.contains('*')));
        let mut pristine: Vec<Val<B::Buf>> = Vec::new();
        for v in entry_args(&f, args.to_vec())? {
            pristine.push(match v {
                Val::Arr(Array {
                    elem,
                    shape,
                    data: Data::Host(h),
                }) => Val::Arr(Array {
                    elem,
                    shape,
                    data: Data::Device(self.backend().upload(&h)?),
                }),
                other => other,
            });
        }
        let mut times = Vec::new();
        loop {
            let mut vals = Vec::with_capacity(pristine.len());
            for v in &pristine {
                vals.push(match v {
                    Val::Arr(Array {
                        elem,
                        shape,
                        data: Data::Device(d),
                    }) if consumes => {
                        let len = shape.iter().product::<i64>().max(0) as usize;
                        // `pristine` still holds `d`, so this is a copy.
                        let copy = self.backend().unique(d.clone(), *elem, len)?;
                        Val::Arr(Array {
                            elem: *elem,
                            shape: shape.clone(),
                            data: Data::Device(copy),
                        })
                    }
                    // Shared with `pristine`: an in-place update would copy it first
                    // (`Backend::unique`), but an entry that consumes nothing makes none.
                    other => other.clone(),
                });
            }
            self.backend().synchronize()?;
            let start = Instant::now();
            let results = self.call(&f.name, vals)?;
            self.backend().synchronize()?;
            times.push(start.elapsed());
            drop(results);
            if !more(&times) {
                return Ok(times);
            }
        }
    }
}
