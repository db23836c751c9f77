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
        let f = self
            .program()
            .funs
            .iter()
            .find(|f| f.entry.as_ref().is_some_and(|e| e.name == entry))
            .cloned()
            .ok_or_else(|| ExecError::Args(format!("Unknown entry point: {entry}")))?;
        let mut vals: Vec<Val<B::Buf>> = Vec::new();
        for v in entry_args(&f, args)? {
            vals.push(match v {
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
        self.backend().synchronize()?;
        let start = Instant::now();
        let results = self.call(&f.name, vals)?;
        self.backend().synchronize()?;
        let took = start.elapsed();
        drop(results);
        Ok(took)
    }
}
