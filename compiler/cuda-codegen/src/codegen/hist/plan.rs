//! How a histogram is launched, from its sizes and the device's figures: a pure function
//! (the runtime calls it with the driver's numbers; tests call it with fixed ones).
//!
//! After seed 001 (section 4.3.2): threads T = min(hardware threads, N); in shared memory
//! the cooperation level (threads per subhistogram) is C = min(H, B) and a block keeps
//! M = ⌈B / C⌉ subhistograms, fewer when they do not fit in its shared memory. The thesis
//! hard-codes 12K buckets (Kepler, 48 KiB); here the budget is what the device lets one
//! block have (227 KiB on Hopper). A histogram larger than that is split into chunks of
//! buckets processed in passes over the input (each pass updates the buckets of its
//! chunk only), while the passes stay few; beyond that the buckets are updated in global
//! memory, where C = H gives one subhistogram for every H ≥ T, the destination itself,
//! so there is no combine step.

/// What the planner needs to know about the device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HistDevice {
    pub multiprocessors: u32,
    /// Dynamic shared memory one block may have (after opting in).
    pub shared_per_block: usize,
    pub shared_per_multiprocessor: usize,
    /// Resident threads per multiprocessor.
    pub threads_per_multiprocessor: u32,
}

impl HistDevice {
    /// An H200 / H100 SXM (sm_90).
    pub const H200: HistDevice = HistDevice {
        multiprocessors: 132,
        shared_per_block: 232_448,
        shared_per_multiprocessor: 233_472,
        threads_per_multiprocessor: 2048,
    };
}

/// Where the buckets are updated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HistMemory {
    Shared,
    Global,
}

/// Overrides of the planner's choices (`CudaOptions::hist`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HistTuning {
    /// Threads per block of the shared-memory entry (a multiple of 32, at most 1024).
    pub block: u32,
    /// Most shared memory a block may use for its subhistograms (`None`: the device's).
    pub shared_bytes: Option<usize>,
    /// Most passes over the input before global memory is used instead.
    pub max_passes: u32,
    /// Force one memory (`None`: choose).
    pub memory: Option<HistMemory>,
}

impl Default for HistTuning {
    fn default() -> Self {
        HistTuning {
            block: 1024,
            shared_bytes: None,
            max_passes: 4,
            memory: None,
        }
    }
}

/// The launch of a histogram.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HistLaunch {
    /// Subhistograms in shared memory.
    Shared {
        block: u32,
        /// Subhistograms per block (M).
        nsub: u32,
        /// Buckets per pass; the last chunk may be smaller.
        chunk: i64,
        passes: u32,
        /// Dynamic shared memory of a block.
        shared_bytes: usize,
        /// Blocks that fit on one multiprocessor by shared memory and threads.
        blocks_per_sm: u32,
    },
    /// Atomics straight into the destination (one subhistogram).
    Global,
}

/// Bytes of shared memory `buckets` buckets take, with arrays of `arrays` bytes per
/// bucket each starting 8-byte aligned (as the kernel carves them).
pub fn shared_bytes(arrays: &[usize], buckets: i64) -> usize {
    arrays
        .iter()
        .map(|a| (buckets.max(0) as usize * a).div_ceil(8) * 8)
        .sum()
}

/// Chooses the launch of a histogram of `h` buckets over `n` elements whose shared-memory
/// buckets take `arrays` bytes (see [`shared_bytes`]).
pub fn plan(n: i64, h: i64, arrays: &[usize], dev: &HistDevice, tune: &HistTuning) -> HistLaunch {
    let block = (tune.block.clamp(32, 1024) / 32) * 32;
    let per_bucket: usize = arrays.iter().sum::<usize>().max(1);
    // Leave room for the 8-byte alignment of each array.
    let budget = tune
        .shared_bytes
        .map_or(dev.shared_per_block, |b| b.min(dev.shared_per_block))
        .saturating_sub(8 * arrays.len());
    let fit = (budget / per_bucket) as i64;
    let global = tune.memory == Some(HistMemory::Global) || fit == 0 || h <= 0 || n <= 0;
    if global {
        return HistLaunch::Global;
    }
    let passes = div_up(h, fit).max(1);
    if passes > tune.max_passes.max(1) as i64 && tune.memory != Some(HistMemory::Shared) {
        return HistLaunch::Global;
    }
    // Equal chunks: the fewer buckets per block, the more blocks stay resident.
    let chunk = div_up(h, passes);
    let coop = chunk.min(block as i64);
    let by_threads = div_up(block as i64, coop);
    let by_memory = (fit / chunk).max(1);
    let nsub = by_threads.min(by_memory) as u32;
    let bytes = shared_bytes(arrays, chunk * nsub as i64);
    // Each block also holds about 1 KiB the system reserves.
    let blocks_per_sm = (dev.shared_per_multiprocessor / (bytes + 1024).max(1))
        .min((dev.threads_per_multiprocessor / block) as usize)
        .max(1) as u32;
    HistLaunch::Shared {
        block,
        nsub,
        chunk,
        passes: passes as u32,
        shared_bytes: bytes,
        blocks_per_sm,
    }
}

/// Ceiling division of positive numbers.
fn div_up(a: i64, b: i64) -> i64 {
    (a + b - 1) / b.max(1)
}

/// Threads that fill the device: T = min(hardware threads, n) of the seed.
pub fn hardware_threads(n: i64, dev: &HistDevice) -> i64 {
    (dev.multiprocessors as i64 * dev.threads_per_multiprocessor as i64).min(n.max(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shared(n: i64, h: i64, arrays: &[usize]) -> (u32, i64, u32, usize) {
        match plan(n, h, arrays, &HistDevice::H200, &HistTuning::default()) {
            HistLaunch::Shared {
                nsub,
                chunk,
                passes,
                shared_bytes,
                ..
            } => (nsub, chunk, passes, shared_bytes),
            HistLaunch::Global => panic!("expected shared memory for H = {h}"),
        }
    }

    const N: i64 = 1 << 28;

    #[test]
    fn small_histograms_get_one_subhistogram_per_cooperating_group() {
        // C = min(H, B): 1024 / 16 = 64 subhistograms of 16 buckets.
        assert_eq!(shared(N, 16, &[4]), (64, 16, 1, 64 * 16 * 4));
        assert_eq!(shared(N, 256, &[4]), (4, 256, 1, 4096));
        // H ≥ B: one subhistogram per block.
        assert_eq!(shared(N, 4096, &[4]), (1, 4096, 1, 16384));
        assert_eq!(shared(N, 2048, &[8]), (1, 2048, 1, 16384));
    }

    #[test]
    fn large_histograms_are_chunked_into_passes() {
        // 65536 f32 buckets = 256 KiB > 227 KiB: two passes of 32768.
        assert_eq!(shared(N, 65536, &[4]), (1, 32768, 2, 131072));
        // Packed (f32, i32) argmax: 512 KiB, three passes.
        let (nsub, chunk, passes, _) = shared(N, 65536, &[8]);
        assert_eq!((nsub, chunk, passes), (1, 21846, 3));
        // A locked (f64, f64, i32) bucket carries its lock word.
        let (_, chunk, passes, bytes) = shared(N, 4096, &[8, 8, 4, 4]);
        assert_eq!((chunk, passes), (4096, 1));
        assert_eq!(bytes, 4096 * 24);
    }

    #[test]
    fn beyond_the_passes_global_memory() {
        let dev = HistDevice::H200;
        let t = HistTuning::default();
        assert_eq!(plan(N, 1 << 20, &[4], &dev, &t), HistLaunch::Global);
        assert_eq!(plan(N, 1 << 24, &[4], &dev, &t), HistLaunch::Global);
        // More passes allowed: 2^20 i32 buckets in 19 passes of 55189.
        let more = HistTuning {
            max_passes: 32,
            ..t
        };
        let HistLaunch::Shared { passes, chunk, .. } = plan(N, 1 << 20, &[4], &dev, &more) else {
            panic!("expected shared");
        };
        assert_eq!(passes, 19);
        assert!(chunk * 19 >= 1 << 20 && shared_bytes(&[4], chunk) <= dev.shared_per_block);
        // C = H: one subhistogram (the destination) for every H ≥ T.
        assert!(hardware_threads(N, &dev) < 1 << 20);
    }

    #[test]
    fn overrides_and_device_figures_are_used() {
        let dev = HistDevice::H200;
        let small = HistTuning {
            shared_bytes: Some(48 * 1024),
            max_passes: 8,
            ..HistTuning::default()
        };
        // 48 KiB: 12286 f32 buckets fit, so 65536 take six passes.
        let HistLaunch::Shared { passes, chunk, .. } = plan(N, 65536, &[4], &dev, &small) else {
            panic!("expected shared");
        };
        assert_eq!((passes, chunk), (6, 10923));
        let global = HistTuning {
            memory: Some(HistMemory::Global),
            ..HistTuning::default()
        };
        assert_eq!(plan(N, 16, &[4], &dev, &global), HistLaunch::Global);
        // A Kepler-like device: 48 KiB per block, 2048 threads per SM.
        let kepler = HistDevice {
            multiprocessors: 15,
            shared_per_block: 48 * 1024,
            shared_per_multiprocessor: 48 * 1024,
            threads_per_multiprocessor: 2048,
        };
        let HistLaunch::Shared {
            passes,
            blocks_per_sm,
            ..
        } = plan(N, 8192, &[4], &kepler, &HistTuning::default())
        else {
            panic!("expected shared");
        };
        assert_eq!((passes, blocks_per_sm), (1, 1));
        // Smaller blocks: more subhistograms per block only when C < B.
        let b256 = HistTuning {
            block: 256,
            ..HistTuning::default()
        };
        let HistLaunch::Shared { nsub, block, .. } = plan(N, 16, &[4], &dev, &b256) else {
            panic!("expected shared");
        };
        assert_eq!((nsub, block), (16, 256));
        // Nothing to do: no launch in shared memory.
        assert_eq!(plan(0, 16, &[4], &dev, &b256), HistLaunch::Global);
    }
}
