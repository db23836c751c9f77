//! Several GPUs together: peer access between every pair, copies between devices, and
//! ordering across their streams with events instead of device-wide synchronisation.
//!
//! Peer access is what makes the copies fast: with it on (and `cuMemAlloc` buffers, which
//! the allocator uses), `cuMemcpyPeerAsync` runs over NVLink at ~395 GB/s on the lent H200
//! pairs; without it the driver stages through the host (notes/GPU.md).

use cudarc::driver::{result, sys};

use super::alloc::DeviceBuffer;
use super::device::Gpu;
use super::error::{CudaError, Result};

/// Which ordered pairs `(i, j)` of GPUs have peer access (GPU `i` may read `j`'s memory).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PeerAccess {
    pub matrix: Vec<Vec<bool>>,
}

impl PeerAccess {
    /// True when every pair of distinct GPUs can reach each other directly.
    pub fn all(&self) -> bool {
        self.matrix
            .iter()
            .enumerate()
            .all(|(i, row)| row.iter().enumerate().all(|(j, &ok)| ok || i == j))
    }
}

/// Enables peer access between every pair of `gpus` that supports it, and reports which do.
/// Enabling is idempotent: a pair already enabled counts as enabled.
pub fn enable_peer_access<G: std::borrow::Borrow<Gpu>>(gpus: &[G]) -> Result<PeerAccess> {
    let n = gpus.len();
    let mut matrix = vec![vec![false; n]; n];
    for (i, a) in gpus.iter().map(|g| g.borrow()).enumerate() {
        for (j, b) in gpus.iter().map(|g| g.borrow()).enumerate() {
            if i == j {
                matrix[i][j] = true;
                continue;
            }
            let dev = |g: &Gpu| {
                result::device::get(g.info.ordinal as i32)
                    .map_err(|e| CudaError::driver("cuDeviceGet", e))
            };
            let (da, db) = (dev(a)?, dev(b)?);
            let mut can = 0;
            // SAFETY: both devices exist; `can` is a valid out-pointer.
            unsafe { sys::cuDeviceCanAccessPeer(&mut can, da, db) }
                .result()
                .map_err(|e| CudaError::driver("cuDeviceCanAccessPeer", e))?;
            if can == 0 {
                continue;
            }
            a.bind()?;
            // SAFETY: `a`'s context is current and `b`'s context is retained by `b`.
            let r = unsafe { sys::cuCtxEnablePeerAccess(b.ctx, 0) };
            match r {
                sys::CUresult::CUDA_SUCCESS
                | sys::CUresult::CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED => matrix[i][j] = true,
                other => {
                    return Err(CudaError::driver(
                        "cuCtxEnablePeerAccess",
                        result::DriverError(other),
                    ));
                }
            }
        }
    }
    Ok(PeerAccess { matrix })
}

/// Events without timing, kept for reuse: every copy between GPUs records two marks, and
/// creating and destroying an event each time cost the host microseconds per copy.
/// Re-recording an event that a stream already waits for is safe: a wait takes the record
/// current when it is queued.
pub type EventPool = std::sync::Arc<std::sync::Mutex<Vec<sys::CUevent>>>;

/// A point in a GPU's stream that other streams can wait for.
#[derive(Debug)]
pub struct StreamMark {
    event: sys::CUevent,
    /// Where the event goes back when the mark is dropped.
    pool: EventPool,
}

/// A point in a GPU's stream that records when it is reached, for timing work on the GPU
/// without waiting for it (unlike [`StreamMark`], its event keeps timing on).
#[derive(Debug)]
pub struct TimedMark {
    event: sys::CUevent,
}

impl Gpu {
    /// Marks the current end of this GPU's stream.
    pub fn mark(&self) -> Result<StreamMark> {
        self.bind()?;
        let spare = self.marks.lock().ok().and_then(|mut v| v.pop());
        let event = match spare {
            Some(e) => e,
            None => result::event::create(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING)
                .map_err(|e| CudaError::driver("cuEventCreate", e))?,
        };
        let mark = StreamMark {
            event,
            pool: self.marks.clone(),
        };
        // SAFETY: the event belongs to this context (the pool is this GPU's); the stream is
        // ours. On error `mark` returns the event to the pool.
        unsafe { result::event::record(mark.event, self.stream) }
            .map_err(|e| CudaError::driver("cuEventRecord", e))?;
        Ok(mark)
    }

    /// Marks the current end of this GPU's stream with a timed event.
    pub fn timed_mark(&self) -> Result<TimedMark> {
        self.bind()?;
        let event = result::event::create(sys::CUevent_flags::CU_EVENT_DEFAULT)
            .map_err(|e| CudaError::driver("cuEventCreate", e))?;
        let mark = TimedMark { event };
        // SAFETY: the event was just created in this context; the stream is ours. On error
        // `mark` destroys the event.
        unsafe { result::event::record(mark.event, self.stream) }
            .map_err(|e| CudaError::driver("cuEventRecord", e))?;
        Ok(mark)
    }

    /// Milliseconds from `start` to `end` (timed marks of this GPU, `start` recorded
    /// first), or `None` while the stream has not reached `end`. Never blocks.
    pub fn elapsed_ms(&self, start: &TimedMark, end: &TimedMark) -> Result<Option<f32>> {
        self.bind()?;
        let not_ready = |e: &result::DriverError| e.0 == sys::CUresult::CUDA_ERROR_NOT_READY;
        // `end` reached implies `start` reached: both are on this GPU's one stream.
        // SAFETY: the event is alive (owned by `end`).
        match unsafe { result::event::query(end.event) } {
            Ok(()) => {}
            Err(e) if not_ready(&e) => return Ok(None),
            Err(e) => return Err(CudaError::driver("cuEventQuery", e)),
        }
        // SAFETY: both events are alive, created with timing and recorded on this stream.
        match unsafe { result::event::elapsed(start.event, end.event) } {
            Ok(ms) => Ok(Some(ms)),
            Err(e) if not_ready(&e) => Ok(None),
            Err(e) => Err(CudaError::driver("cuEventElapsedTime", e)),
        }
    }

    /// Makes later work on this GPU's stream wait for `mark` (of any GPU), without blocking
    /// the host.
    pub fn wait_for(&mut self, mark: &StreamMark) -> Result<()> {
        self.bind()?;
        self.timer.note_wait();
        // SAFETY: the event is alive (owned by `mark`) and the stream is ours.
        unsafe { sys::cuStreamWaitEvent(self.stream, mark.event, 0) }
            .result()
            .map_err(|e| CudaError::driver("cuStreamWaitEvent", e))
    }

    /// Copies `bytes` from `src` (at byte offset `src_off`, on GPU `from`) into `dst` (at
    /// `dst_off`, on this GPU), queued on this GPU's stream and recorded in its timer as
    /// `peer-copy`. The caller orders it after `from`'s producer with [`Gpu::wait_for`].
    pub fn copy_from_peer(
        &mut self,
        dst: &DeviceBuffer,
        dst_off: usize,
        from: &Gpu,
        src: &DeviceBuffer,
        src_off: usize,
        bytes: usize,
    ) -> Result<()> {
        if dst_off + bytes > dst.bytes || src_off + bytes > src.bytes {
            return Err(CudaError::Launch {
                kernel: "peer-copy".into(),
                message: format!(
                    "range outside a buffer: {bytes} bytes at {src_off} of {} into {dst_off} of {}",
                    src.bytes, dst.bytes
                ),
            });
        }
        if bytes == 0 {
            return Ok(());
        }
        self.bind()?;
        let stream = self.stream;
        let ev = self.timer.start(stream)?;
        // SAFETY: both ranges lie in their buffers (checked); both contexts are retained.
        unsafe {
            sys::cuMemcpyPeerAsync(
                dst.ptr + dst_off as u64,
                self.ctx,
                src.ptr + src_off as u64,
                from.ctx,
                bytes,
                stream,
            )
        }
        .result()
        .map_err(|e| CudaError::driver("cuMemcpyPeerAsync", e))?;
        self.timer.end(stream, "peer-copy", bytes as u64, ev)
    }
}

impl Gpu {
    /// Copies `bytes` from `src` at byte offset `src_off` into `dst` at `dst_off`, both on
    /// this GPU, queued on its stream and recorded as `copy`.
    pub fn copy_within(
        &mut self,
        dst: &DeviceBuffer,
        dst_off: usize,
        src: &DeviceBuffer,
        src_off: usize,
        bytes: usize,
    ) -> Result<()> {
        if dst_off + bytes > dst.bytes || src_off + bytes > src.bytes {
            return Err(CudaError::Launch {
                kernel: "copy".into(),
                message: format!(
                    "range outside a buffer: {bytes} bytes at {src_off} of {} into {dst_off} of {}",
                    src.bytes, dst.bytes
                ),
            });
        }
        if bytes == 0 {
            return Ok(());
        }
        self.bind()?;
        let stream = self.stream;
        let ev = self.timer.start(stream)?;
        // SAFETY: both ranges lie in their buffers (checked).
        unsafe {
            sys::cuMemcpyDtoDAsync_v2(
                dst.ptr + dst_off as u64,
                src.ptr + src_off as u64,
                bytes,
                stream,
            )
        }
        .result()
        .map_err(|e| CudaError::driver("cuMemcpyDtoDAsync", e))?;
        self.timer.end(stream, "copy", 2 * bytes as u64, ev)
    }
}

impl Drop for StreamMark {
    fn drop(&mut self) {
        match self.pool.lock() {
            Ok(mut spare) => spare.push(self.event),
            // SAFETY: the event was created by `Gpu::mark`; destroying an event whose record
            // is still pending is allowed (the driver releases it when it completes).
            Err(_) => {
                let _ = unsafe { result::event::destroy(self.event) };
            }
        }
    }
}

/// Destroys the pooled events (the GPU's context must be current).
pub(crate) fn destroy_pool(pool: &EventPool) {
    if let Ok(mut spare) = pool.lock() {
        for e in spare.drain(..) {
            // SAFETY: each event was created by `Gpu::mark` and no mark holds it any more.
            let _ = unsafe { result::event::destroy(e) };
        }
    }
}

impl Drop for TimedMark {
    fn drop(&mut self) {
        // SAFETY: the event was created by `Gpu::timed_mark`; as for `StreamMark`, a pending
        // record does not prevent destroying it.
        let _ = unsafe { result::event::destroy(self.event) };
    }
}
