//! Per-kernel timing with CUDA events, and the statistics a run reports.
//!
//! Every launch is bracketed by two events (created with `CU_EVENT_DEFAULT`: the
//! `DISABLE_TIMING` flag would make them useless here). Events are read only when a report is
//! asked for, so timing adds no synchronisation between launches. Used events are kept for
//! reuse.

use std::collections::BTreeMap;

use cudarc::driver::{result, sys};

use super::error::{CudaError, Result};

/// Totals for one kernel.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct KernelStats {
    pub launches: u64,
    pub total_ms: f64,
    /// The least bytes the launches had to move through device memory.
    pub bytes: u64,
}

impl KernelStats {
    /// Achieved bandwidth in GB/s (10^9 bytes per second).
    pub fn gbps(&self) -> f64 {
        if self.total_ms > 0.0 {
            self.bytes as f64 / (self.total_ms * 1e6)
        } else {
            0.0
        }
    }
}

/// Pending launches beyond which the finished ones are folded in as launches are recorded.
const FOLD_AT: usize = 4096;

/// Pending event pairs and accumulated statistics.
#[derive(Debug, Default)]
pub struct Timer {
    pending: Vec<(String, u64, sys::CUevent, sys::CUevent)>,
    spare: Vec<sys::CUevent>,
    stats: BTreeMap<String, KernelStats>,
}

impl Timer {
    fn event(&mut self) -> Result<sys::CUevent> {
        match self.spare.pop() {
            Some(e) => Ok(e),
            None => result::event::create(sys::CUevent_flags::CU_EVENT_DEFAULT)
                .map_err(|e| CudaError::driver("cuEventCreate", e)),
        }
    }

    /// Records the start of a launch on `stream`; returns the token for `end`.
    pub(crate) fn start(&mut self, stream: sys::CUstream) -> Result<sys::CUevent> {
        let ev = self.event()?;
        // SAFETY: the event and stream belong to the current context.
        unsafe { result::event::record(ev, stream) }
            .map_err(|e| CudaError::driver("cuEventRecord", e))?;
        Ok(ev)
    }

    /// Records the end of a launch started with `start`.
    pub(crate) fn end(
        &mut self,
        stream: sys::CUstream,
        name: &str,
        bytes: u64,
        start: sys::CUevent,
    ) -> Result<()> {
        let ev = self.event()?;
        // SAFETY: as in `start`.
        unsafe { result::event::record(ev, stream) }
            .map_err(|e| CudaError::driver("cuEventRecord", e))?;
        self.pending.push((name.to_string(), bytes, start, ev));
        if self.pending.len() >= FOLD_AT {
            self.fold_finished()?;
        }
        Ok(())
    }

    /// Folds the oldest pending launches that have finished into the statistics, without
    /// waiting: a session that never asks for a report (a notebook, a long benchmark) would
    /// otherwise keep two events per launch alive for ever.
    fn fold_finished(&mut self) -> Result<()> {
        let mut done = 0;
        for (name, bytes, a, b) in &self.pending {
            // SAFETY: the event was recorded on this context's stream.
            match unsafe { result::event::query(*b) } {
                Ok(()) => {}
                Err(e) if e.0 == sys::CUresult::CUDA_ERROR_NOT_READY => break,
                Err(e) => return Err(CudaError::driver("cuEventQuery", e)),
            }
            // SAFETY: both events were recorded and the second has completed.
            let ms = unsafe { result::event::elapsed(*a, *b) }
                .map_err(|e| CudaError::driver("cuEventElapsedTime", e))?;
            count(&mut self.stats, name, *bytes, ms);
            done += 1;
        }
        for (_, _, a, b) in self.pending.drain(..done) {
            self.spare.push(a);
            self.spare.push(b);
        }
        Ok(())
    }

    /// Waits for the recorded launches and folds them into the statistics.
    pub fn collect(&mut self) -> Result<()> {
        for (name, bytes, a, b) in std::mem::take(&mut self.pending) {
            // SAFETY: both events were recorded on this context's stream.
            let ms = unsafe {
                result::event::synchronize(b)
                    .map_err(|e| CudaError::driver("cuEventSynchronize", e))?;
                result::event::elapsed(a, b)
                    .map_err(|e| CudaError::driver("cuEventElapsedTime", e))?
            };
            count(&mut self.stats, &name, bytes, ms);
            self.spare.push(a);
            self.spare.push(b);
        }
        Ok(())
    }

    /// Statistics per kernel name (after `collect`).
    pub fn stats(&self) -> &BTreeMap<String, KernelStats> {
        &self.stats
    }

    /// Forgets the statistics (events are kept).
    pub fn reset(&mut self) {
        self.stats.clear();
    }

    /// Destroys every event (the context must be current).
    pub(crate) fn destroy(&mut self) {
        let evs: Vec<sys::CUevent> = self
            .pending
            .drain(..)
            .flat_map(|(_, _, a, b)| [a, b])
            .chain(self.spare.drain(..))
            .collect();
        for e in evs {
            // SAFETY: each event was created by this timer.
            let _ = unsafe { result::event::destroy(e) };
        }
    }
}

/// Adds one finished launch of `name` to the statistics.
fn count(stats: &mut BTreeMap<String, KernelStats>, name: &str, bytes: u64, ms: f32) {
    let s = stats.entry(name.to_string()).or_default();
    s.launches += 1;
    s.total_ms += ms as f64;
    s.bytes += bytes;
}
