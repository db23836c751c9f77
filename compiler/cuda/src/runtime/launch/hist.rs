//! The launches of a histogram: `codegen::hist::plan` chooses shared-memory passes or
//! global memory from the device's figures and `CudaOptions::hist`; this queues them, with
//! the scratch words of packed buckets (filled by `_pack`, written back by `_unpack`) or
//! the zeroed per-bucket locks of locked ones.

use futhark_ir::Size;

use super::super::alloc::DeviceBuffer;
use super::super::device::Gpu;
use super::super::error::Result;
use super::Launch;
use crate::codegen::HistPlan;
use crate::codegen::hist::plan::{self, HistDevice, HistLaunch, HistMemory, HistTuning};

/// Threads per block of the bucket-wise `_pack`/`_unpack` entries.
const PACK_BLOCK: u32 = 256;

impl Gpu {
    /// The device's figures as the planner takes them.
    pub fn hist_device(&self) -> HistDevice {
        HistDevice {
            multiprocessors: self.info.multiprocessors,
            shared_per_block: self.info.max_shared_per_block,
            shared_per_multiprocessor: self.info.shared_per_multiprocessor,
            threads_per_multiprocessor: self.info.threads_per_multiprocessor,
        }
    }

    /// The planner's overrides from the options.
    pub fn hist_tuning(&self) -> HistTuning {
        let o = &self.options.hist;
        HistTuning {
            block: o.block,
            shared_bytes: o.shared_bytes,
            max_passes: o.max_passes,
            memory: o.shared.map(|s| {
                if s {
                    HistMemory::Shared
                } else {
                    HistMemory::Global
                }
            }),
        }
    }

    pub(super) fn hist_launches(
        &mut self,
        name: &str,
        h: &HistPlan,
        n: i64,
        eval: &dyn Fn(&Size) -> i64,
        scratch: &mut Vec<DeviceBuffer>,
    ) -> Result<Vec<Launch>> {
        let buckets = eval(&h.buckets).max(0);
        if n <= 0 || buckets == 0 {
            return Ok(vec![]);
        }
        let sms = self.info.multiprocessors;
        let (mut words, mut locks) = (0u64, 0u64);
        if h.pack_entries.is_some() {
            let w = self.alloc.alloc(buckets as usize * 8)?;
            words = w.ptr;
            scratch.push(w);
        }
        if h.locks {
            let l = self.alloc.alloc(buckets as usize * 4)?;
            self.memset_u32(&l, 0, buckets as usize)?;
            locks = l.ptr;
            scratch.push(l);
        }
        let bucket_grid = (buckets as u64)
            .div_ceil(PACK_BLOCK as u64)
            .min(sms as u64 * 16) as u32;
        let mut launches = Vec::new();
        if let Some((pack, _)) = &h.pack_entries {
            launches.push(Launch {
                entry: pack.clone(),
                grid: bucket_grid,
                block: PACK_BLOCK,
                shared: 0,
                extra: vec![words, locks],
            });
        }
        let dev = self.hist_device();
        let mut tuning = self.hist_tuning();
        if !h.native {
            // Buckets updated by compare-and-swap (packed pairs, CAS loops) or under locks
            // stay in shared memory only while one pass holds them: every pass re-reads the
            // input, and contended CAS in shared memory costs more than global atomics do
            // (H200: argmax over 2^28 at H = 65536, 3 passes 9.5 ms; at H = 2^20 in global
            // memory 2.9 ms).
            tuning.max_passes = 1;
        }
        match plan::plan(n, buckets, &h.shared_arrays, &dev, &tuning) {
            HistLaunch::Shared {
                block,
                nsub,
                chunk,
                passes,
                shared_bytes,
                ..
            } => {
                let block = block.min(h.block_size);
                let resident = sms * self.occupancy(name, &h.shared_entry, block, shared_bytes)?;
                // T = min(hardware threads, N): at most the resident blocks, at least
                // four elements per thread.
                let grid = (n as u64)
                    .div_ceil(block as u64 * 4)
                    .min(resident as u64)
                    .max(1) as u32;
                for p in 0..passes as i64 {
                    let lo = p * chunk;
                    let hc = chunk.min(buckets - lo);
                    launches.push(Launch {
                        entry: h.shared_entry.clone(),
                        grid,
                        block,
                        shared: shared_bytes,
                        extra: vec![lo as u64, hc as u64, nsub as u64, words, locks],
                    });
                }
            }
            HistLaunch::Global => {
                let block = self.suggested_block(name, &h.global_entry)?;
                let resident = sms * self.occupancy(name, &h.global_entry, block, 0)?;
                launches.push(Launch {
                    entry: h.global_entry.clone(),
                    grid: (n as u64)
                        .div_ceil(block as u64)
                        .min(resident as u64)
                        .max(1) as u32,
                    block,
                    shared: 0,
                    extra: vec![words, locks],
                });
            }
        }
        if let Some((_, unpack)) = &h.pack_entries {
            launches.push(Launch {
                entry: unpack.clone(),
                grid: bucket_grid,
                block: PACK_BLOCK,
                shared: 0,
                extra: vec![words, locks],
            });
        }
        Ok(launches)
    }
}
