//! Per-kernel timing with CUDA events, and the statistics a run reports.
//!
//! Every launch is bracketed by two events (created with `CU_EVENT_DEFAULT`: the
//! `DISABLE_TIMING` flag would make them useless here). Events are read only when a report is
//! asked for, so timing adds no synchronisation between launches. Used events are kept for
//! reuse.
//!
//! With `FUTHARK_TRACE=PATH` set, each GPU also keeps a timeline: per launch, when the host
//! issued it and when the GPU ran it, on one clock (the host's, from an event recorded on
//! the idle stream when the GPU was opened), written to `PATH.gpuN.tsv` when the GPU is
//! closed. `bench/multi/trace_gaps.py` reads it: which gaps between kernels the host caused
//! and which a wait for another GPU did.

use std::collections::BTreeMap;
use std::io::Write;
use std::sync::OnceLock;
use std::time::Instant;

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

/// The host clock every trace is on: microseconds since the first call.
pub fn host_us() -> f64 {
    static T0: OnceLock<Instant> = OnceLock::new();
    T0.get_or_init(Instant::now).elapsed().as_secs_f64() * 1e6
}

/// The host side of one traced launch.
#[derive(Clone, Copy, Debug)]
struct Issue {
    /// Host time (µs) when the launch call began and when it returned.
    called: f64,
    returned: f64,
    /// Whether a wait for another stream's mark was queued since the previous launch.
    after_wait: bool,
}

/// One finished launch on the host clock.
#[derive(Clone, Debug)]
pub struct TraceRow {
    pub name: String,
    pub gpu_start: f64,
    pub gpu_end: f64,
    pub called: f64,
    pub returned: f64,
    pub after_wait: bool,
}

/// A GPU's timeline: the origin event (recorded on the idle stream at `origin_us`) and the
/// rows so far; host-only spans (allocations, downloads) go in `rows` with no GPU times.
#[derive(Debug)]
pub struct Trace {
    origin: sys::CUevent,
    origin_us: f64,
    waited: bool,
    pub rows: Vec<TraceRow>,
}

type Pending = (String, u64, sys::CUevent, sys::CUevent, Option<Issue>);

/// Pending event pairs and accumulated statistics.
#[derive(Debug, Default)]
pub struct Timer {
    pending: Vec<Pending>,
    spare: Vec<sys::CUevent>,
    stats: BTreeMap<String, KernelStats>,
    trace: Option<Trace>,
    /// Host time when the launch being recorded was started (traced timers only).
    started: Option<f64>,
    /// Launches are not timed (no events recorded) unless a profile may be asked for.
    off: bool,
}

impl Timer {
    fn event(&mut self) -> Result<sys::CUevent> {
        match self.spare.pop() {
            Some(e) => Ok(e),
            None => result::event::create(sys::CUevent_flags::CU_EVENT_DEFAULT)
                .map_err(|e| CudaError::driver("cuEventCreate", e)),
        }
    }

    /// Starts a timeline on the (idle) `stream` (see the module documentation).
    pub(crate) fn start_trace(&mut self, stream: sys::CUstream) -> Result<()> {
        let origin = self.event()?;
        let origin_us = host_us();
        // SAFETY: the event and stream belong to the current context.
        unsafe { result::event::record(origin, stream) }
            .map_err(|e| CudaError::driver("cuEventRecord", e))?;
        self.trace = Some(Trace {
            origin,
            origin_us,
            waited: false,
            rows: Vec::new(),
        });
        Ok(())
    }

    /// Notes that the stream was made to wait for another stream (traced timers only).
    pub(crate) fn note_wait(&mut self) {
        if let Some(t) = &mut self.trace {
            t.waited = true;
        }
    }

    /// Adds a host-only span (`since` to now, µs on [`host_us`]'s clock) to the timeline.
    pub(crate) fn note_host(&mut self, name: &str, since: f64) {
        if let Some(t) = &mut self.trace {
            t.rows.push(TraceRow {
                name: name.to_string(),
                gpu_start: f64::NAN,
                gpu_end: f64::NAN,
                called: since,
                returned: host_us(),
                after_wait: false,
            });
        }
    }

    /// Whether a timeline is kept.
    pub fn tracing(&self) -> bool {
        self.trace.is_some()
    }

    /// Turns timing of launches on or off (on by default; a timeline keeps it on). Off, a
    /// launch costs the host two event records less, and reports have nothing new.
    pub fn set_enabled(&mut self, on: bool) {
        self.off = !on;
    }

    /// Records the start of a launch on `stream`; returns the token for `end` (`None`
    /// when timing is off).
    pub(crate) fn start(&mut self, stream: sys::CUstream) -> Result<Option<sys::CUevent>> {
        if self.off && self.trace.is_none() {
            return Ok(None);
        }
        if self.trace.is_some() {
            self.started = Some(host_us());
        }
        let ev = self.event()?;
        // SAFETY: the event and stream belong to the current context.
        unsafe { result::event::record(ev, stream) }
            .map_err(|e| CudaError::driver("cuEventRecord", e))?;
        Ok(Some(ev))
    }

    /// Records the end of a launch started with `start`.
    pub(crate) fn end(
        &mut self,
        stream: sys::CUstream,
        name: &str,
        bytes: u64,
        start: Option<sys::CUevent>,
    ) -> Result<()> {
        let Some(start) = start else {
            return Ok(());
        };
        let ev = self.event()?;
        // SAFETY: as in `start`.
        unsafe { result::event::record(ev, stream) }
            .map_err(|e| CudaError::driver("cuEventRecord", e))?;
        let issue = match (&mut self.trace, self.started.take()) {
            (Some(t), Some(called)) => Some(Issue {
                called,
                returned: host_us(),
                after_wait: std::mem::take(&mut t.waited),
            }),
            _ => None,
        };
        self.pending
            .push((name.to_string(), bytes, start, ev, issue));
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
        for (name, bytes, a, b, issue) in &self.pending {
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
            if let (Some(t), Some(i)) = (&mut self.trace, issue) {
                t.row(name, *a, *b, *i)?;
            }
            done += 1;
        }
        for (_, _, a, b, _) in self.pending.drain(..done) {
            self.spare.push(a);
            self.spare.push(b);
        }
        Ok(())
    }

    /// Waits for the recorded launches and folds them into the statistics. Every launch
    /// was recorded on the GPU's one stream, so once the last has finished all have.
    pub fn collect(&mut self) -> Result<()> {
        if let Some(&(.., last, _)) = self.pending.last() {
            // SAFETY: the event was recorded on this context's stream.
            unsafe { result::event::synchronize(last) }
                .map_err(|e| CudaError::driver("cuEventSynchronize", e))?;
        }
        self.fold_finished()
    }

    /// Collects what is pending and writes the timeline to `path` (traced timers only).
    pub fn write_trace(&mut self, path: &str) -> Result<()> {
        self.collect()?;
        if let Some(t) = &self.trace {
            t.write(path)
                .map_err(|e| CudaError::Cache(format!("cannot write the trace {path}: {e}")))?;
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
            .flat_map(|(_, _, a, b, _)| [a, b])
            .chain(self.spare.drain(..))
            .chain(self.trace.take().map(|t| t.origin))
            .collect();
        for e in evs {
            // SAFETY: each event was created by this timer.
            let _ = unsafe { result::event::destroy(e) };
        }
    }
}

impl Trace {
    /// Adds a finished launch (both events completed).
    fn row(&mut self, name: &str, a: sys::CUevent, b: sys::CUevent, i: Issue) -> Result<()> {
        let since = |e| -> Result<f64> {
            // SAFETY: both events were recorded on this context's stream and have completed.
            let ms = unsafe { result::event::elapsed(self.origin, e) }
                .map_err(|e| CudaError::driver("cuEventElapsedTime", e))?;
            Ok(self.origin_us + f64::from(ms) * 1e3)
        };
        let (gpu_start, gpu_end) = (since(a)?, since(b)?);
        self.rows.push(TraceRow {
            name: name.to_string(),
            gpu_start,
            gpu_end,
            called: i.called,
            returned: i.returned,
            after_wait: i.after_wait,
        });
        Ok(())
    }

    /// Writes the rows as tab-separated text: name, GPU start and end, host call and return
    /// (µs on one clock), and 1 where the launch followed a wait for another GPU.
    pub fn write(&self, path: &str) -> std::io::Result<()> {
        let mut f = std::io::BufWriter::new(std::fs::File::create(path)?);
        writeln!(f, "name\tgpu_start\tgpu_end\tcalled\treturned\tafter_wait")?;
        for r in &self.rows {
            writeln!(
                f,
                "{}\t{:.1}\t{:.1}\t{:.1}\t{:.1}\t{}",
                r.name, r.gpu_start, r.gpu_end, r.called, r.returned, r.after_wait as u8
            )?;
        }
        f.flush()
    }
}

/// Adds one finished launch of `name` to the statistics.
fn count(stats: &mut BTreeMap<String, KernelStats>, name: &str, bytes: u64, ms: f32) {
    let s = stats.entry(name.to_string()).or_default();
    s.launches += 1;
    s.total_ms += ms as f64;
    s.bytes += bytes;
}

#[cfg(test)]
mod tests {
    use super::Timer;

    /// A timer turned off records nothing and never reaches the driver (no CUDA here: a
    /// driver call would fail), so untimed launches cost the host no event records.
    #[test]
    fn a_timer_turned_off_makes_no_driver_calls() {
        let mut t = Timer::default();
        t.set_enabled(false);
        let stream = std::ptr::null_mut();
        let token = t.start(stream).expect("no driver call");
        assert!(token.is_none());
        t.end(stream, "k", 4, token).expect("no driver call");
        t.collect().expect("nothing pending");
        assert!(t.stats().is_empty());
        assert!(!t.tracing());
    }
}
