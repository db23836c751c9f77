//! Device memory: a caching allocator over `cuMemAlloc`, and pinned host staging buffers.
//!
//! Buffers come from `cuMemAlloc_v2`, not the stream-ordered pool that cudarc's `alloc`
//! uses: pool memory is not peer-accessible (notes/GPU.md), and multi-GPU runs will copy
//! and read across devices. Freed buffers go to a free list keyed by size class (four
//! classes per power of two, eight from 64 KiB: at most 25% is wasted, 12.5% on large
//! arrays) and are reused by later allocations on the same stream, which keeps
//! `cuMemAlloc`/`cuMemFree` (which synchronise) out of the steady state.

use std::collections::HashMap;

use cudarc::driver::{result, sys};

use super::error::{CudaError, Result};

/// A block of device memory (freed through `Allocator::free`).
#[derive(Debug)]
pub struct DeviceBuffer {
    pub ptr: sys::CUdeviceptr,
    /// The size asked for.
    pub bytes: usize,
    /// The size class actually allocated.
    class: usize,
}

/// The size class of a request: 256 bytes at least, else rounded up to a quarter power of
/// two, and from 64 KiB to an eighth (a large array's peak footprint stays within 12.5% of
/// what it asked for).
pub fn size_class(bytes: usize) -> usize {
    if bytes <= 256 {
        return 256;
    }
    let top = usize::BITS - 1 - bytes.leading_zeros();
    let split = if bytes >= 1 << 16 { 3 } else { 2 };
    let step = 1usize << top.saturating_sub(split);
    bytes.div_ceil(step) * step
}

/// Per-device caching allocator.
#[derive(Debug)]
pub struct Allocator {
    device: usize,
    free: HashMap<usize, Vec<sys::CUdeviceptr>>,
    /// Bytes held in the free lists.
    pub cached_bytes: usize,
    /// Bytes handed out and not yet freed.
    pub live_bytes: usize,
    /// Calls that reached `cuMemAlloc`.
    pub driver_allocs: u64,
    /// The most bytes handed out at once (size classes: at most a quarter over the
    /// requests), for `--profile`.
    pub peak_bytes: usize,
}

impl Allocator {
    pub fn new(device: usize) -> Allocator {
        Allocator {
            device,
            free: HashMap::new(),
            cached_bytes: 0,
            live_bytes: 0,
            driver_allocs: 0,
            peak_bytes: 0,
        }
    }

    /// Allocates at least `bytes` (the caller's context must be current). On exhaustion the
    /// cache is released and the allocation retried once before reporting out-of-memory.
    pub fn alloc(&mut self, bytes: usize) -> Result<DeviceBuffer> {
        let class = size_class(bytes);
        if let Some(ptr) = self.free.get_mut(&class).and_then(|v| v.pop()) {
            self.cached_bytes -= class;
            self.live_bytes += class;
            self.peak_bytes = self.peak_bytes.max(self.live_bytes);
            return Ok(DeviceBuffer { ptr, bytes, class });
        }
        // SAFETY: plain allocation in the current context.
        let ptr = match unsafe { result::malloc_sync(class) } {
            Ok(p) => p,
            Err(e) if e.0 == sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY => {
                self.release_cached();
                // SAFETY: as above.
                match unsafe { result::malloc_sync(class) } {
                    Ok(p) => p,
                    Err(_) => {
                        let free = result::mem_get_info().map(|(f, _)| f).unwrap_or(0);
                        return Err(CudaError::OutOfMemory {
                            device: self.device,
                            requested: class,
                            free,
                        });
                    }
                }
            }
            Err(e) => return Err(CudaError::driver("cuMemAlloc", e)),
        };
        self.driver_allocs += 1;
        self.live_bytes += class;
        self.peak_bytes = self.peak_bytes.max(self.live_bytes);
        Ok(DeviceBuffer { ptr, bytes, class })
    }

    /// Returns a buffer to the cache. Work already queued on the device's stream that uses
    /// it stays correct: later users are queued on the same stream, after it.
    pub fn free(&mut self, buf: DeviceBuffer) {
        self.live_bytes -= buf.class;
        self.cached_bytes += buf.class;
        self.free.entry(buf.class).or_default().push(buf.ptr);
    }

    /// Gives cached blocks back to the driver.
    pub fn release_cached(&mut self) {
        for (_, ptrs) in self.free.drain() {
            for p in ptrs {
                // SAFETY: each pointer came from cuMemAlloc and is not in use.
                let _ = unsafe { result::free_sync(p) };
            }
        }
        self.cached_bytes = 0;
    }

    /// Releases the cache (called when the GPU is dropped; live buffers go with the context).
    pub(crate) fn release_all(&mut self) {
        self.release_cached();
    }
}

/// Pinned host memory used to stage transfers (pageable copies run at ~9 GB/s; pinned ones
/// at the link's speed).
#[derive(Debug, Default)]
pub struct Staging {
    ptr: Option<(*mut u8, usize)>,
}

impl Staging {
    /// A pinned buffer of at least `bytes`, reusing the previous one when it is big enough.
    pub(crate) fn get(&mut self, bytes: usize) -> Result<&mut [u8]> {
        if self.ptr.is_none_or(|(_, len)| len < bytes) {
            self.destroy();
            // SAFETY: plain pinned allocation; freed in `destroy`.
            let p = unsafe { result::malloc_host(bytes.max(1), 0) }
                .map_err(|e| CudaError::driver("cuMemHostAlloc", e))?;
            self.ptr = Some((p as *mut u8, bytes.max(1)));
        }
        match self.ptr {
            // SAFETY: the allocation is `len` bytes and owned by `self`.
            Some((p, len)) => Ok(unsafe { std::slice::from_raw_parts_mut(p, len) }),
            None => Err(CudaError::Cache("no staging buffer".into())),
        }
    }

    pub(crate) fn destroy(&mut self) {
        if let Some((p, _)) = self.ptr.take() {
            // SAFETY: allocated by cuMemHostAlloc in `get`.
            let _ = unsafe { result::free_host(p as *mut std::ffi::c_void) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::size_class;

    #[test]
    fn size_classes_waste_at_most_a_quarter() {
        assert_eq!(size_class(1), 256);
        assert_eq!(size_class(1000), 1024);
        assert_eq!(size_class(1025), 1280);
        assert_eq!(size_class(1 << 30), 1 << 30);
        for b in [300usize, 5000, 123_456, 99_999_999] {
            let c = size_class(b);
            assert!(c >= b && (c - b) * 4 <= c, "{b} -> {c}");
        }
        for b in [65_536usize, 400_000, 99_999_999] {
            let c = size_class(b);
            assert!(c >= b && (c - b) * 8 <= c, "{b} -> {c}");
        }
    }
}
