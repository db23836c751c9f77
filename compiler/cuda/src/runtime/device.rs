//! Device discovery and the per-GPU state: one context, one stream, one caching allocator
//! and the loaded modules for each GPU. The number of GPUs is decided at run time; nothing
//! here assumes one, so a later multi-GPU runner opens several `Gpu`s.

use std::collections::HashMap;
use std::sync::OnceLock;

use cudarc::driver::{result, sys};
use futhark_options::CudaOptions;

use super::alloc::Allocator;
use super::cache::KernelCache;
use super::error::{CudaError, Result};
use super::launch::LoadedKernel;
use super::timing::Timer;

/// What the runtime needs to know about a device.
#[derive(Clone, Debug, PartialEq)]
pub struct DeviceInfo {
    pub ordinal: usize,
    pub name: String,
    pub compute_capability: (i32, i32),
    pub multiprocessors: u32,
    /// Largest dynamic shared memory one block may ask for (after opting in).
    pub max_shared_per_block: usize,
    pub shared_per_multiprocessor: usize,
    /// Resident threads per multiprocessor.
    pub threads_per_multiprocessor: u32,
    pub l2_bytes: usize,
    pub total_memory: usize,
}

impl DeviceInfo {
    /// The NVRTC architecture of the device, e.g. `sm_90`.
    pub fn arch(&self) -> String {
        format!(
            "sm_{}{}",
            self.compute_capability.0, self.compute_capability.1
        )
    }
}

/// Loads the driver and initialises it, once. Never panics: a missing `libcuda` is
/// `CudaError::NoDriver`.
pub fn init() -> Result<()> {
    static INIT: OnceLock<Result<(), String>> = OnceLock::new();
    let r = INIT.get_or_init(|| {
        // SAFETY: probes dlopen with cudarc's candidate names only.
        if !unsafe { sys::is_culib_present() } {
            return Err("no driver".into());
        }
        result::init().map_err(|e| format!("{e:?}"))
    });
    match r {
        Ok(()) => Ok(()),
        Err(m) if m == "no driver" => Err(CudaError::NoDriver),
        Err(m) => Err(CudaError::Driver {
            what: "cuInit".into(),
            message: m.clone(),
        }),
    }
}

/// The number of GPUs the driver sees (0 is not an error here; `Gpu::open` says so).
pub fn device_count() -> Result<usize> {
    init()?;
    let n = result::device::get_count().map_err(|e| CudaError::driver("cuDeviceGetCount", e))?;
    Ok(n.max(0) as usize)
}

/// Describes one device.
pub fn device_info(ordinal: usize) -> Result<DeviceInfo> {
    let count = device_count()?;
    if count == 0 {
        return Err(CudaError::NoDevice);
    }
    if ordinal >= count {
        return Err(CudaError::BadDevice(ordinal, count));
    }
    let dev =
        result::device::get(ordinal as i32).map_err(|e| CudaError::driver("cuDeviceGet", e))?;
    let attr = |a: sys::CUdevice_attribute| -> Result<i32> {
        // SAFETY: `dev` is a valid device handle.
        unsafe { result::device::get_attribute(dev, a) }
            .map_err(|e| CudaError::driver("cuDeviceGetAttribute", e))
    };
    use sys::CUdevice_attribute as A;
    Ok(DeviceInfo {
        ordinal,
        name: result::device::get_name(dev).map_err(|e| CudaError::driver("cuDeviceGetName", e))?,
        compute_capability: (
            attr(A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?,
            attr(A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?,
        ),
        multiprocessors: attr(A::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)? as u32,
        max_shared_per_block: attr(A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)?
            as usize,
        shared_per_multiprocessor: attr(
            A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR,
        )? as usize,
        threads_per_multiprocessor: attr(A::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR)?
            as u32,
        l2_bytes: attr(A::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)? as usize,
        // SAFETY: `dev` is a valid device handle.
        total_memory: unsafe { result::device::total_mem(dev) }
            .map_err(|e| CudaError::driver("cuDeviceTotalMem", e))?,
    })
}

/// One GPU: its primary context, a stream, an allocator, a pinned staging area, loaded
/// kernels and the timer of the launches made on it.
pub struct Gpu {
    pub info: DeviceInfo,
    pub(crate) ctx: sys::CUcontext,
    pub(crate) stream: sys::CUstream,
    pub alloc: Allocator,
    pub(crate) kernels: HashMap<String, LoadedKernel>,
    pub(crate) cache: KernelCache,
    pub timer: Timer,
    pub(crate) staging: super::alloc::Staging,
    /// Events of dropped [`super::peer::StreamMark`]s, for reuse.
    pub(crate) marks: super::peer::EventPool,
    /// Whether kernels are launched with programmatic dependent launch (see
    /// [`pdl_wanted`]).
    pub pdl: bool,
    /// Where kernels record failed run-time checks (see `failure`).
    pub(crate) failures: super::failure::FailureSlot,
    /// The switches it was opened with (FMA contraction, warp scans, trace, NVRTC threads).
    pub(crate) options: CudaOptions,
    /// Modules NVRTC compiled (neither cache had them), and the wall time it took.
    pub nvrtc_compiles: u64,
    pub nvrtc_ms: f64,
    /// Wall time of the kernel cache's lookups and writes (memory and disk), and of loading
    /// modules (`cuModuleLoadData`, entry lookup, check registration): with `nvrtc_ms`, where
    /// preparing a program's kernels goes.
    pub cache_ms: f64,
    pub load_ms: f64,
}

/// Programmatic dependent launch (compute capability 9.0 and later): a kernel may be
/// scheduled while the one before it on the stream drains; every generated entry starts
/// with `griddepcontrol.wait`, so it reads and writes nothing until its predecessor has
/// finished and its writes are visible. This hides the launch and ramp-up of each kernel
/// behind the tail of the previous one. On unless `CudaOptions::pdl` is off (`FUTHARK_PDL=0`).
pub fn pdl_wanted(info: &DeviceInfo, options: &CudaOptions) -> bool {
    info.compute_capability.0 >= 9 && options.pdl
}

// SAFETY: CUDA contexts and streams may be used from any thread once the context is made
// current there, which every `Gpu` method does first (`bind`). A `Gpu` is used by one
// thread at a time (`&mut self`), which is what a worker-thread-per-GPU runner needs.
unsafe impl Send for Gpu {}

impl Gpu {
    /// Opens GPU `ordinal` with the default options.
    pub fn open(ordinal: usize) -> Result<Gpu> {
        Gpu::open_with(ordinal, &CudaOptions::default())
    }

    /// Opens GPU `ordinal`: retains its primary context and creates a stream.
    pub fn open_with(ordinal: usize, options: &CudaOptions) -> Result<Gpu> {
        let info = device_info(ordinal)?;
        let dev =
            result::device::get(ordinal as i32).map_err(|e| CudaError::driver("cuDeviceGet", e))?;
        // SAFETY: `dev` is valid; the primary context is released in Drop.
        let ctx = unsafe { result::primary_ctx::retain(dev) }
            .map_err(|e| CudaError::driver("cuDevicePrimaryCtxRetain", e))?;
        // SAFETY: `ctx` was just retained.
        unsafe { result::ctx::set_current(ctx) }
            .map_err(|e| CudaError::driver("cuCtxSetCurrent", e))?;
        let stream = result::stream::create(result::stream::StreamKind::NonBlocking)
            .map_err(|e| CudaError::driver("cuStreamCreate", e))?;
        let mut timer = Timer::default();
        if options.trace.is_some() {
            timer.start_trace(stream)?;
        }
        Ok(Gpu {
            pdl: pdl_wanted(&info, options),
            options: options.clone(),
            alloc: Allocator::new(ordinal),
            kernels: HashMap::new(),
            cache: KernelCache::at(options.kernel_cache.as_deref()),
            timer,
            staging: super::alloc::Staging::default(),
            marks: Default::default(),
            failures: Default::default(),
            info,
            ctx,
            stream,
            nvrtc_compiles: 0,
            nvrtc_ms: 0.0,
            cache_ms: 0.0,
            load_ms: 0.0,
        })
    }

    /// Opens every GPU (at most `limit`), with the default options.
    pub fn open_all(limit: Option<usize>) -> Result<Vec<Gpu>> {
        let n = device_count()?;
        if n == 0 {
            return Err(CudaError::NoDevice);
        }
        (0..n.min(limit.unwrap_or(n))).map(Gpu::open).collect()
    }

    /// Makes this GPU's context current on the calling thread.
    pub fn bind(&self) -> Result<()> {
        // SAFETY: the context is retained for the life of `self`.
        unsafe { result::ctx::set_current(self.ctx) }
            .map_err(|e| CudaError::driver("cuCtxSetCurrent", e))
    }

    /// Waits for all work queued on this GPU's stream.
    pub fn synchronize(&self) -> Result<()> {
        self.bind()?;
        // SAFETY: the stream belongs to this context.
        unsafe { result::stream::synchronize(self.stream) }
            .map_err(|e| CudaError::driver("cuStreamSynchronize", e))
    }

    /// Replaces the kernel cache (tests point it at a temporary folder).
    pub fn set_cache(&mut self, cache: KernelCache) {
        self.cache = cache;
    }
}

impl Drop for Gpu {
    fn drop(&mut self) {
        if self.bind().is_ok() {
            // SAFETY: everything freed here was created by this `Gpu`; errors at teardown are
            // ignored (there is nothing left to report them to).
            unsafe {
                let _ = result::stream::synchronize(self.stream);
                if let Some(path) = &self.options.trace {
                    let path = format!("{}.gpu{}.tsv", path.display(), self.info.ordinal);
                    if let Err(e) = self.timer.write_trace(&path) {
                        eprintln!("warning: {e}");
                    }
                }
                self.timer.destroy();
                super::peer::destroy_pool(&self.marks);
                self.staging.destroy();
                for (_, k) in self.kernels.drain() {
                    for m in k.modules {
                        let _ = result::module::unload(m);
                    }
                }
                self.alloc.release_all();
                let _ = result::stream::destroy(self.stream);
                if let Ok(dev) = result::device::get(self.info.ordinal as i32) {
                    let _ = result::primary_ctx::release(dev);
                }
            }
        }
    }
}
