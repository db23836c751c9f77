//! Compiling, loading and launching generated kernels, and host-device transfers.
//!
//! `Gpu::run` takes one IR kernel's arrays and sizes, picks the entry point and launch
//! shape from the kernel's `LaunchPlan` (segment sizes, histogram size, the device's shared
//! memory and occupancy), allocates scratch memory from the caching allocator, and records
//! the launch in the timer with the bytes it must move.

use std::collections::{BTreeMap, HashMap};
use std::ffi::{CString, c_void};

use cudarc::driver::{result, sys};
use futhark_ir::Size;

use super::alloc::DeviceBuffer;
use super::cache::KernelCache;
use super::device::Gpu;
use super::error::{CudaError, Result};
use super::nvrtc;
use super::timing::KernelStats;
use super::units::{self, Unit};
use crate::codegen::scan::warp_slot;
use crate::codegen::{GeneratedKernel, LaunchPlan, TilePlan, WARP_SCAN_MAX};

mod hist;

/// A generated kernel loaded on a GPU.
pub struct LoadedKernel {
    /// Shared, so a launch can hold it while it borrows the GPU mutably without copying the
    /// kernel's source (tens of KB) on every launch.
    pub generated: std::rc::Rc<GeneratedKernel>,
    /// One module per compile unit (`units::split`): every entry's function is in `funcs`.
    pub(crate) modules: Vec<sys::CUmodule>,
    funcs: HashMap<String, sys::CUfunction>,
    /// Dynamic shared memory each entry has been opted in to.
    shared_limit: HashMap<String, usize>,
    /// Answers of the driver's occupancy queries, which depend only on the entry and the
    /// launch shape (asked on every launch otherwise, some microseconds each):
    /// `(entry, block, shared) -> resident blocks per multiprocessor`, and the suggested
    /// block per entry. Few entries per kernel, so a list.
    occupancy: Vec<(String, u32, usize, u32)>,
    suggested: Vec<(String, u32)>,
    /// Whether the cubin came from the disk cache.
    pub from_cache: bool,
}

/// A compile unit's cubin and whether it came from the cache, or why it did not compile.
type UnitCubin = Result<(Vec<u8>, bool)>;

/// Element types that may be copied to and from the device as raw bytes.
pub trait Element: Copy + Default {}
impl Element for u8 {}
impl Element for i8 {}
impl Element for u16 {}
impl Element for i16 {}
impl Element for u32 {}
impl Element for i32 {}
impl Element for u64 {}
impl Element for i64 {}
impl Element for f32 {}
impl Element for f64 {}

const STAGING_CHUNK: usize = 64 << 20;

/// Writes of at most this many bytes go by memsets queued on the stream (see `write_small`).
const SMALL_WRITE: usize = 32;
/// Shared memory a block may use without opting in.
const DEFAULT_SHARED: usize = 48 * 1024;

/// The largest grid (x dimension) a launch may have.
const MAX_GRID: u64 = i32::MAX as u64;

/// One launch: entry, grid, block, dynamic shared memory and the extra arguments after the
/// arrays and sizes.
struct Launch {
    entry: String,
    grid: u32,
    block: u32,
    shared: usize,
    extra: Vec<u64>,
}

impl Gpu {
    /// Compiles (or fetches from the disk cache) and loads a generated kernel.
    pub fn load(&mut self, gk: &GeneratedKernel) -> Result<()> {
        self.load_all(std::slice::from_ref(gk))
    }

    /// Compiles (or fetches from the disk cache) and loads several generated kernels: each
    /// module's compile units (the module whole, or one per entry with
    /// `CudaOptions::split_entries`, `units::split`) that the cache lacks are compiled side by side
    /// (`nvrtc::compile_many`), then every kernel's units are loaded in order. A kernel
    /// whose split units do not all compile is compiled whole instead, so the split can
    /// never fail a kernel that compiles. The first failure in order is returned.
    pub fn load_all(&mut self, gks: &[GeneratedKernel]) -> Result<()> {
        self.bind()?;
        let arch = self.info.arch();
        let opts = nvrtc::options_with(&arch, self.options.fmad);
        let version = nvrtc::version()?;
        let looked_up = std::time::Instant::now();
        let whole = |gk: &GeneratedKernel| units::whole(&gk.source, &gk.plan.entries());
        let mut units: Vec<Vec<Unit>> = gks
            .iter()
            .map(|gk| {
                if self.options.split_entries {
                    units::split(&gk.source, &gk.plan.entries())
                } else {
                    whole(gk)
                }
            })
            .collect();
        let (mut cubins, mut compiling) = self.compile_units(&units, &opts, &arch, version);
        // A split kernel with a unit that failed: compiled whole, as it would be unsplit.
        let failed: Vec<usize> = (0..gks.len())
            .filter(|&i| units[i].len() > 1 && cubins[i].iter().any(|c| c.is_err()))
            .collect();
        if !failed.is_empty() {
            let retry: Vec<Vec<Unit>> = failed.iter().map(|&i| whole(&gks[i])).collect();
            let (again, more) = self.compile_units(&retry, &opts, &arch, version);
            compiling += more;
            for ((&i, u), c) in failed.iter().zip(retry).zip(again) {
                units[i] = u;
                cubins[i] = c;
            }
        }
        // NVRTC's time is counted by `compile_units`; the rest so far is the cache's.
        self.cache_ms += (looked_up.elapsed().as_secs_f64() * 1e3 - compiling).max(0.0);
        let loading = std::time::Instant::now();
        for ((gk, units), cubins) in gks.iter().zip(&units).zip(cubins) {
            let mut modules = Vec::with_capacity(units.len());
            for (unit, cubin) in units.iter().zip(cubins) {
                let (cubin, from_cache) = cubin?;
                modules.push((unit, cubin, from_cache));
            }
            self.load_units(gk, modules)?;
        }
        self.load_ms += loading.elapsed().as_secs_f64() * 1e3;
        Ok(())
    }

    /// The cubin of every unit, from the cache or compiled (each distinct source once, side
    /// by side), with whether it came from the cache; compiled ones are stored in it. Also
    /// the milliseconds NVRTC took.
    fn compile_units(
        &mut self,
        units: &[Vec<Unit>],
        opts: &[String],
        arch: &str,
        version: (i32, i32),
    ) -> (Vec<Vec<UnitCubin>>, f64) {
        let keys: Vec<Vec<String>> = units
            .iter()
            .map(|us| {
                us.iter()
                    .map(|u| KernelCache::key(&u.source, opts, arch, version))
                    .collect()
            })
            .collect();
        let mut found: HashMap<&str, Vec<u8>> = HashMap::new();
        // Each missing source once (a program may generate the same module twice).
        let mut jobs: Vec<(&str, &Unit)> = Vec::new();
        let mut queued: std::collections::HashSet<&str> = std::collections::HashSet::new();
        for (us, ks) in units.iter().zip(&keys) {
            for (u, k) in us.iter().zip(ks) {
                if found.contains_key(k.as_str()) || !queued.insert(k.as_str()) {
                    continue;
                }
                match self.cache.get(k) {
                    Some(c) => {
                        found.insert(k, c);
                    }
                    None => jobs.push((k, u)),
                }
            }
        }
        let sources: Vec<(&str, &str)> = jobs
            .iter()
            .map(|(_, u)| (u.source.as_str(), u.entries[0].as_str()))
            .collect();
        let t0 = std::time::Instant::now();
        let compiled = nvrtc::compile_many(
            &sources,
            opts,
            nvrtc::compile_threads(self.options.nvrtc_threads),
        );
        let mut ms = 0.0;
        if !sources.is_empty() {
            self.nvrtc_compiles += sources.len() as u64;
            ms = t0.elapsed().as_secs_f64() * 1e3;
            self.nvrtc_ms += ms;
        }
        let mut fresh: HashMap<&str, std::result::Result<Vec<u8>, CudaError>> = HashMap::new();
        for ((k, _), res) in jobs.iter().zip(compiled) {
            fresh.insert(
                k,
                res.map(|c| {
                    self.cache.put(k, &c.cubin);
                    c.cubin
                }),
            );
        }
        let cubins = keys
            .iter()
            .map(|ks| {
                ks.iter()
                    .map(|k| match (found.get(k.as_str()), fresh.get(k.as_str())) {
                        (Some(c), _) => Ok((c.clone(), true)),
                        (None, Some(Ok(c))) => Ok((c.clone(), false)),
                        (None, Some(Err(e))) => Err(e.clone()),
                        (None, None) => Err(CudaError::Nvrtc {
                            what: k.clone(),
                            message: "no cubin was compiled for this module".into(),
                        }),
                    })
                    .collect()
            })
            .collect();
        (cubins, ms)
    }

    /// Loads a kernel's compiled units and looks up their entry points.
    fn load_units(
        &mut self,
        gk: &GeneratedKernel,
        units: Vec<(&Unit, Vec<u8>, bool)>,
    ) -> Result<()> {
        let mut modules = Vec::with_capacity(units.len());
        let mut funcs = HashMap::new();
        let from_cache = units.iter().all(|(_, _, c)| *c);
        for (unit, cubin, _) in units {
            // SAFETY: `cubin` is a complete cubin image produced by NVRTC for this device.
            let module = unsafe { result::module::load_data(cubin.as_ptr() as *const c_void) }
                .map_err(|e| CudaError::driver("cuModuleLoadData", e))?;
            modules.push(module);
            for entry in &unit.entries {
                let cname = CString::new(entry.as_str()).unwrap_or_default();
                // SAFETY: the module is loaded; the name is NUL-terminated.
                let f = unsafe { result::module::get_function(module, cname) }
                    .map_err(|e| CudaError::driver(format!("cuModuleGetFunction({entry})"), e))?;
                funcs.insert(entry.to_string(), f);
            }
            // Each unit has its own copy of the failure slot's globals.
            self.register_module(module, &gk.name, &gk.checks)?;
        }
        if let Some(old) = self.kernels.insert(
            gk.name.clone(),
            LoadedKernel {
                generated: std::rc::Rc::new(gk.clone()),
                modules,
                funcs,
                shared_limit: HashMap::new(),
                occupancy: Vec::new(),
                suggested: Vec::new(),
                from_cache,
            },
        ) {
            for m in old.modules {
                // SAFETY: the replaced modules are no longer referenced.
                let _ = unsafe { result::module::unload(m) };
            }
        }
        Ok(())
    }

    /// Whether a loaded kernel's cubin came from the disk cache.
    pub fn loaded_from_cache(&self, name: &str) -> Option<bool> {
        self.kernels.get(name).map(|k| k.from_cache)
    }

    /// Allocates device memory.
    pub fn alloc(&mut self, bytes: usize) -> Result<DeviceBuffer> {
        self.bind()?;
        let t0 = self.timer.tracing().then(super::timing::host_us);
        let before = self.alloc.driver_allocs;
        let buf = self.alloc.alloc(bytes)?;
        if let Some(t0) = t0
            && self.alloc.driver_allocs != before
        {
            self.timer.note_host("(cuMemAlloc)", t0);
        }
        Ok(buf)
    }

    /// Returns device memory to the cache.
    pub fn free(&mut self, buf: DeviceBuffer) {
        self.alloc.free(buf);
    }

    /// Copies host data to a new device buffer through pinned staging memory.
    pub fn upload<T: Element>(&mut self, data: &[T]) -> Result<DeviceBuffer> {
        let buf = self.alloc(std::mem::size_of_val(data))?;
        self.write(&buf, data)?;
        Ok(buf)
    }

    /// Copies host data into an existing buffer.
    pub fn write<T: Element>(&mut self, buf: &DeviceBuffer, data: &[T]) -> Result<()> {
        self.bind()?;
        let bytes = std::mem::size_of_val(data);
        if bytes > buf.bytes {
            return Err(CudaError::Launch {
                kernel: "upload".into(),
                message: format!("{bytes} bytes do not fit a buffer of {}", buf.bytes),
            });
        }
        // SAFETY: `T: Element` types are plain data without padding.
        let src = unsafe { std::slice::from_raw_parts(data.as_ptr() as *const u8, bytes) };
        let stream = self.stream;
        if bytes <= SMALL_WRITE {
            return self.write_small(buf, src);
        }
        let t0 = super::timing::host_us();
        for (i, chunk) in src.chunks(STAGING_CHUNK).enumerate() {
            let staging = self.staging.get(chunk.len().min(STAGING_CHUNK))?;
            staging[..chunk.len()].copy_from_slice(chunk);
            // SAFETY: the pinned staging buffer and the device range are both large enough;
            // the stream is synchronised before the staging buffer is reused.
            unsafe {
                sys::cuMemcpyHtoDAsync_v2(
                    buf.ptr + (i * STAGING_CHUNK) as u64,
                    staging.as_ptr() as *const c_void,
                    chunk.len(),
                    stream,
                )
                .result()
                .map_err(|e| CudaError::driver("cuMemcpyHtoDAsync", e))?;
                result::stream::synchronize(stream)
                    .map_err(|e| CudaError::driver("cuStreamSynchronize", e))?;
            }
        }
        self.timer.note_host("(upload, synchronous)", t0);
        Ok(())
    }

    /// Writes a few bytes (a scalar argument) with memsets queued on the stream: no staging
    /// buffer, so no wait for the device (a staged upload must wait before reusing its
    /// buffer, which drained the queue at every scalar a loop passed to a kernel).
    fn write_small(&mut self, buf: &DeviceBuffer, src: &[u8]) -> Result<()> {
        let stream = self.stream;
        let set = |r: sys::CUresult| {
            r.result()
                .map_err(|e| CudaError::driver("cuMemsetAsync", e))
        };
        if src.len().is_multiple_of(4) && buf.ptr.is_multiple_of(4) {
            for (i, w) in src.chunks_exact(4).enumerate() {
                let v = u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
                // SAFETY: the word lies in the buffer (the caller checked the length).
                set(unsafe { sys::cuMemsetD32Async(buf.ptr + 4 * i as u64, v, 1, stream) })?;
            }
        } else {
            for (i, &b) in src.iter().enumerate() {
                // SAFETY: as above, byte by byte.
                set(unsafe { sys::cuMemsetD8Async(buf.ptr + i as u64, b, 1, stream) })?;
            }
        }
        Ok(())
    }

    /// Copies a device buffer's first `out.len()` elements to the host.
    pub fn download<T: Element>(&mut self, buf: &DeviceBuffer, out: &mut [T]) -> Result<()> {
        self.bind()?;
        let bytes = std::mem::size_of_val(out);
        if bytes > buf.bytes {
            return Err(CudaError::Launch {
                kernel: "download".into(),
                message: format!("{bytes} bytes asked of a buffer of {}", buf.bytes),
            });
        }
        // SAFETY: as in `write`; every byte pattern is a valid `T: Element`.
        let dst = unsafe { std::slice::from_raw_parts_mut(out.as_mut_ptr() as *mut u8, bytes) };
        let stream = self.stream;
        let t0 = super::timing::host_us();
        for (i, chunk) in dst.chunks_mut(STAGING_CHUNK).enumerate() {
            let staging = self.staging.get(chunk.len().min(STAGING_CHUNK))?;
            // SAFETY: as in `write`.
            unsafe {
                sys::cuMemcpyDtoHAsync_v2(
                    staging.as_mut_ptr() as *mut c_void,
                    buf.ptr + (i * STAGING_CHUNK) as u64,
                    chunk.len(),
                    stream,
                )
                .result()
                .map_err(|e| CudaError::driver("cuMemcpyDtoHAsync", e))?;
                result::stream::synchronize(stream)
                    .map_err(|e| CudaError::driver("cuStreamSynchronize", e))?;
            }
            chunk.copy_from_slice(&staging[..chunk.len()]);
        }
        self.timer.note_host("(download, synchronous)", t0);
        Ok(())
    }

    /// Fills `count` 32-bit words of a buffer (queued on the stream).
    pub fn memset_u32(&mut self, buf: &DeviceBuffer, value: u32, count: usize) -> Result<()> {
        self.bind()?;
        // SAFETY: the range lies in the buffer (checked).
        if count * 4 > buf.bytes {
            return Err(CudaError::Launch {
                kernel: "memset".into(),
                message: "range outside the buffer".into(),
            });
        }
        unsafe { sys::cuMemsetD32Async(buf.ptr, value, count, self.stream) }
            .result()
            .map_err(|e| CudaError::driver("cuMemsetD32Async", e))
    }

    /// A timed device-to-device copy (recorded as `copy`): the bandwidth baseline.
    pub fn copy(&mut self, dst: &DeviceBuffer, src: &DeviceBuffer, bytes: usize) -> Result<()> {
        self.bind()?;
        if bytes > dst.bytes || bytes > src.bytes {
            return Err(CudaError::Launch {
                kernel: "copy".into(),
                message: "range outside a buffer".into(),
            });
        }
        let stream = self.stream;
        let ev = self.timer.start(stream)?;
        // SAFETY: both ranges lie in their buffers (checked).
        unsafe { sys::cuMemcpyDtoDAsync_v2(dst.ptr, src.ptr, bytes, stream) }
            .result()
            .map_err(|e| CudaError::driver("cuMemcpyDtoDAsync", e))?;
        self.timer.end(stream, "copy", 2 * bytes as u64, ev)
    }

    /// Waits for all launches and returns the per-kernel statistics so far.
    pub fn report(&mut self) -> Result<BTreeMap<String, KernelStats>> {
        self.bind()?;
        self.timer.collect()?;
        Ok(self.timer.stats().clone())
    }

    /// Runs a loaded kernel on `arrays` (in the kernel's array order) and `sizes` (in the
    /// program's size order). Queued on the stream; errors in the kernel itself surface at
    /// the next synchronisation.
    pub fn run(&mut self, name: &str, arrays: &[&DeviceBuffer], sizes: &[i64]) -> Result<()> {
        self.bind()?;
        let lk = self.kernels.get(name).ok_or_else(|| CudaError::Launch {
            kernel: name.into(),
            message: "not loaded".into(),
        })?;
        let gk = lk.generated.clone();
        let err = |message: String| CudaError::Launch {
            kernel: gk.label.clone(),
            message,
        };
        if arrays.len() != gk.arrays.len() || sizes.len() != gk.sizes.len() {
            return Err(err(format!(
                "takes {} arrays and {} sizes, given {} and {}",
                gk.arrays.len(),
                gk.sizes.len(),
                arrays.len(),
                sizes.len()
            )));
        }
        // A handful of sizes: a linear search beats building a map on every launch.
        let eval = |s: &Size| -> i64 {
            match s {
                Size::Const(c) => *c,
                Size::Param(p) => gk.sizes.iter().position(|n| n == p).map_or(0, |i| sizes[i]),
            }
        };
        let prod = |ss: &[Size]| -> i64 { ss.iter().map(eval).product() };
        // Size parameters also carry scalar values (strides, offsets), which may be
        // negative; only array extents must not be.
        if let Some(a) = gk
            .arrays
            .iter()
            .find(|a| a.shape.iter().any(|d| eval(d) < 0))
        {
            return Err(err(format!("array `{}` has a negative extent", a.name)));
        }
        let mut bytes_moved = 0u64;
        let points = match &gk.plan {
            LaunchPlan::Map { elements, .. } => prod(elements),
            _ => 0,
        };
        for (a, buf) in gk.arrays.iter().zip(arrays) {
            let need = prod(&a.shape).max(1) as usize * a.elem.size_bytes();
            if buf.bytes < need {
                return Err(err(format!(
                    "array `{}` needs {need} bytes, its buffer has {}",
                    a.name, buf.bytes
                )));
            }
            bytes_moved += match (&gk.plan, a.written) {
                (LaunchPlan::Map { .. }, true) => need.min(points as usize * a.elem.size_bytes()),
                _ => need,
            } as u64;
        }
        let mut base: Vec<u64> = arrays.iter().map(|b| b.ptr).collect();
        base.extend(sizes.iter().map(|s| *s as u64));

        // Scratch buffers live until the launches are queued; freeing them into the cache
        // right after is safe because later users queue behind on the same stream.
        let mut scratch: Vec<DeviceBuffer> = Vec::new();
        let launches = self.plan_launches(name, &gk, &prod, &eval, &mut scratch)?;
        let mut result = Ok(());
        for l in &launches {
            let mut vals = base.clone();
            vals.extend(&l.extra);
            let bytes = bytes_moved / launches.len() as u64;
            if let Err(e) = self.launch(name, &gk.label, l, &mut vals, bytes) {
                result = Err(e);
                break;
            }
        }
        for s in scratch {
            self.alloc.free(s);
        }
        result
    }

    fn func(&self, kernel: &str, entry: &str) -> Result<sys::CUfunction> {
        self.kernels
            .get(kernel)
            .and_then(|k| k.funcs.get(entry).copied())
            .ok_or_else(|| CudaError::Launch {
                kernel: kernel.into(),
                message: format!("entry `{entry}` not loaded"),
            })
    }

    /// Resident blocks per multiprocessor for an entry.
    fn occupancy(&mut self, kernel: &str, entry: &str, block: u32, shared: usize) -> Result<u32> {
        if let Some(lk) = self.kernels.get(kernel)
            && let Some(&(.., n)) = lk
                .occupancy
                .iter()
                .find(|(e, b, s, _)| e == entry && *b == block && *s == shared)
        {
            return Ok(n);
        }
        let f = self.func(kernel, entry)?;
        self.allow_shared(kernel, entry, shared)?;
        // SAFETY: `f` is a loaded function.
        let n = unsafe {
            result::occupancy::max_active_block_per_multiprocessor(f, block as i32, shared)
        }
        .map_err(|e| CudaError::driver("cuOccupancyMaxActiveBlocksPerMultiprocessor", e))?;
        let n = n.max(1) as u32;
        if let Some(lk) = self.kernels.get_mut(kernel) {
            lk.occupancy.push((entry.to_string(), block, shared, n));
        }
        Ok(n)
    }

    /// The block size the driver suggests for an entry without shared memory.
    fn suggested_block(&mut self, kernel: &str, entry: &str) -> Result<u32> {
        if let Some(lk) = self.kernels.get(kernel)
            && let Some(&(_, b)) = lk.suggested.iter().find(|(e, _)| e == entry)
        {
            return Ok(b);
        }
        let f = self.func(kernel, entry)?;
        // SAFETY: `f` is a loaded function; no shared-memory callback.
        let (_, block) = unsafe { result::occupancy::max_potential_block_size(f, None, 0, 1024) }
            .map_err(|e| CudaError::driver("cuOccupancyMaxPotentialBlockSize", e))?;
        // Whole warps only: the reductions' shuffles assume them.
        let block = ((block.max(32) as u32) / 32) * 32;
        if let Some(lk) = self.kernels.get_mut(kernel) {
            lk.suggested.push((entry.to_string(), block));
        }
        Ok(block)
    }

    /// Opts an entry in to more than 48 KiB of dynamic shared memory when it needs it.
    fn allow_shared(&mut self, kernel: &str, entry: &str, shared: usize) -> Result<()> {
        if shared <= DEFAULT_SHARED {
            return Ok(());
        }
        if shared > self.info.max_shared_per_block {
            return Err(CudaError::Launch {
                kernel: kernel.into(),
                message: format!(
                    "needs {shared} bytes of shared memory; the device allows {}",
                    self.info.max_shared_per_block
                ),
            });
        }
        let f = self.func(kernel, entry)?;
        let lk = self
            .kernels
            .get_mut(kernel)
            .ok_or_else(|| CudaError::Launch {
                kernel: kernel.into(),
                message: "not loaded".into(),
            })?;
        if lk.shared_limit.get(entry).is_some_and(|s| *s >= shared) {
            return Ok(());
        }
        // SAFETY: `f` is a loaded function; the value is within the device's limit.
        unsafe {
            sys::cuFuncSetAttribute(
                f,
                sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                shared as i32,
            )
        }
        .result()
        .map_err(|e| CudaError::driver("cuFuncSetAttribute", e))?;
        lk.shared_limit.insert(entry.to_string(), shared);
        Ok(())
    }

    /// Launches entry `l.entry` of module `kernel`, timed under `label`.
    fn launch(
        &mut self,
        kernel: &str,
        label: &str,
        l: &Launch,
        vals: &mut [u64],
        bytes: u64,
    ) -> Result<()> {
        if l.grid == 0 {
            return Ok(());
        }
        let f = self.func(kernel, &l.entry)?;
        self.allow_shared(kernel, &l.entry, l.shared)?;
        let mut ptrs: Vec<*mut c_void> = vals
            .iter_mut()
            .map(|v| v as *mut u64 as *mut c_void)
            .collect();
        let stream = self.stream;
        let ev = self.timer.start(stream)?;
        // SAFETY: the argument list matches the entry's C signature: 8-byte pointers and
        // sizes, then the plan's extra arguments (8 bytes each, or a 4-byte int read from the
        // low half of a little-endian u64). All buffers were checked to be large enough.
        if self.pdl {
            // SAFETY: as above; the attribute and the config outlive the call.
            unsafe { launch_dependent(f, l, stream, &mut ptrs) }
                .map_err(|e| CudaError::driver(format!("cuLaunchKernelEx({})", l.entry), e))?;
        } else {
            // SAFETY: see above.
            unsafe {
                result::launch_kernel(
                    f,
                    (l.grid, 1, 1),
                    (l.block, 1, 1),
                    l.shared as u32,
                    stream,
                    &mut ptrs,
                )
            }
            .map_err(|e| CudaError::driver(format!("cuLaunchKernel({})", l.entry), e))?;
        }
        self.timer.end(stream, label, bytes, ev)
    }

    /// Chooses entries and launch shapes for a plan.
    fn plan_launches(
        &mut self,
        name: &str,
        gk: &GeneratedKernel,
        prod: &dyn Fn(&[Size]) -> i64,
        eval: &dyn Fn(&Size) -> i64,
        scratch: &mut Vec<DeviceBuffer>,
    ) -> Result<Vec<Launch>> {
        let sms = self.info.multiprocessors;
        Ok(match &gk.plan {
            LaunchPlan::Map {
                entry,
                elements,
                vector_width,
            } => {
                let n = prod(elements) as u64;
                let block = self.suggested_block(name, entry)?;
                let resident = sms * self.occupancy(name, entry, block, 0)?;
                let units = n.div_ceil(*vector_width as u64).div_ceil(block as u64);
                // One resident wave with grid-stride loops suits even work; uneven work
                // (threads running loops) gets a block per slice of points, which the
                // hardware hands out as blocks finish.
                let cap = if gk.loops { MAX_GRID } else { resident as u64 };
                vec![Launch {
                    entry: entry.clone(),
                    grid: units.min(cap) as u32,
                    block,
                    shared: 0,
                    extra: vec![],
                }]
            }
            LaunchPlan::Red(r) => {
                let segs = prod(&r.segments);
                let len = eval(&r.inner);
                if segs == 0 {
                    return Ok(vec![]);
                }
                // A contraction runs tiled: with the largest tiles that make a block per
                // multiprocessor, else the largest that make half as many (or any, for a
                // short `k`). Tiles must be a quarter filled (a batch of 3×3 products keeps
                // the thread and warp entries), and a few long reductions keep the block
                // entry's parallelism.
                let choice = |t: &TilePlan| {
                    let (rows, cols) = (eval(&t.rows), t.cols.as_ref().map(eval).unwrap_or(1));
                    let per_batch = div_up(rows, t.bm as i64) * div_up(cols, t.bn as i64);
                    let tiles = prod(&t.batch) * per_batch;
                    let filled = 4 * rows * cols >= per_batch * (t.bm * t.bn) as i64;
                    (filled && tiles <= MAX_GRID as i64).then_some(tiles)
                };
                let full = |t: &&TilePlan| choice(t).is_some_and(|n| n >= sms as i64);
                let half =
                    |t: &&TilePlan| choice(t).is_some_and(|n| n >= (sms as i64) / 2 || len < 1024);
                if let Some(t) = r
                    .tiled
                    .iter()
                    .find(full)
                    .or_else(|| r.tiled.iter().find(half))
                {
                    return Ok(vec![Launch {
                        entry: t.entry.clone(),
                        grid: choice(t).unwrap_or(0) as u32,
                        block: t.threads,
                        shared: t.shared,
                        extra: vec![],
                    }]);
                }
                let b = r.block_size;
                if segs == 1 || len >= 8192 {
                    let resident =
                        (sms * self.occupancy(name, &r.block_entry, b, r.block_shared)?) as i64;
                    let bps = div_up(resident, segs).clamp(1, (len / 4096).max(1));
                    let mut extra = vec![bps as u64, 0, 0];
                    if bps > 1 {
                        let partials = self.alloc.alloc((segs * bps) as usize * r.acc_size)?;
                        let counters = self.alloc.alloc(segs as usize * 4)?;
                        self.memset_u32(&counters, 0, segs as usize)?;
                        extra = vec![bps as u64, partials.ptr, counters.ptr];
                        scratch.push(partials);
                        scratch.push(counters);
                    }
                    vec![Launch {
                        entry: r.block_entry.clone(),
                        grid: (segs * bps).min(resident) as u32,
                        block: b,
                        shared: r.block_shared,
                        extra,
                    }]
                } else if len >= 64 {
                    let resident = (sms * self.occupancy(name, &r.warp_entry, b, 0)?) as i64;
                    vec![Launch {
                        entry: r.warp_entry.clone(),
                        grid: div_up(segs * 32, b as i64).min(resident) as u32,
                        block: b,
                        shared: 0,
                        extra: vec![],
                    }]
                } else {
                    let resident = (sms * self.occupancy(name, &r.thread_entry, b, 0)?) as i64;
                    vec![Launch {
                        entry: r.thread_entry.clone(),
                        grid: div_up(segs, b as i64).min(resident) as u32,
                        block: b,
                        shared: 0,
                        extra: vec![],
                    }]
                }
            }
            LaunchPlan::Scan(s) => {
                let segs = prod(&s.segments);
                let len = eval(&s.inner);
                let n = segs * len;
                if n == 0 {
                    return Ok(vec![]);
                }
                if let Some(thread) = s.thread_entry.as_ref().filter(|_| len <= 16) {
                    let b = 256u32;
                    let resident = (sms * self.occupancy(name, thread, b, 0)?) as i64;
                    return Ok(vec![Launch {
                        entry: thread.clone(),
                        grid: div_up(segs, b as i64).min(resident) as u32,
                        block: b,
                        shared: 0,
                        extra: vec![],
                    }]);
                }
                // Segments that fit a warp: one warp each, no look-back. Blocks of up to 8
                // warps, fewer where the accumulator is large (no shared-memory opt-in).
                let slot = warp_slot(s.acc_size);
                if let Some(warp) = s.warp_entry.as_ref().filter(|_| len <= WARP_SCAN_MAX)
                    && self.options.warp_scan
                    && slot <= DEFAULT_SHARED
                {
                    let warps = (DEFAULT_SHARED / slot).clamp(1, 8) as u32;
                    let (b, shared) = (warps * 32, warps as usize * slot);
                    let resident = (sms * self.occupancy(name, warp, b, shared)?) as i64;
                    return Ok(vec![Launch {
                        entry: warp.clone(),
                        grid: div_up(segs, warps as i64).min(resident) as u32,
                        block: b,
                        shared,
                        extra: vec![],
                    }]);
                }
                let tiles = (n as u64).div_ceil(s.tile);
                if tiles > u32::MAX as u64 {
                    return Err(CudaError::Launch {
                        kernel: name.into(),
                        message: format!("{n} elements need more than 2^32 tiles"),
                    });
                }
                // The tile counter and the status words share one buffer so that a single
                // memset clears both (the counter gets a 128-byte line of its own).
                let word = if s.packed { 8 } else { 4 };
                let status_bytes = 128 + tiles as usize * word;
                let status = self.alloc.alloc(status_bytes)?;
                self.memset_u32(&status, 0, status_bytes / 4)?;
                let mut extra = vec![status.ptr, status.ptr + 128];
                scratch.push(status);
                if !s.packed {
                    let aggs = self.alloc.alloc(tiles as usize * s.acc_size)?;
                    let prefs = self.alloc.alloc(tiles as usize * s.acc_size)?;
                    extra.extend([aggs.ptr, prefs.ptr]);
                    scratch.extend([aggs, prefs]);
                }
                vec![Launch {
                    entry: s.lookback_entry.clone(),
                    grid: tiles as u32,
                    block: s.block_size,
                    shared: s.shared_bytes,
                    extra,
                }]
            }
            LaunchPlan::Hist(h) => self.hist_launches(name, h, prod(&h.elements), eval, scratch)?,
            LaunchPlan::Intra(p) => {
                let (rows, m) = (prod(&p.rows), eval(&p.inner));
                if rows <= 0 || m <= 0 {
                    return Ok(vec![]);
                }
                let block = p.block(m, self.options.intra_seq);
                let shared = p.shared_bytes(m);
                self.allow_shared(name, &p.entry, shared)?;
                let resident = sms * self.occupancy(name, &p.entry, block, shared)?.max(1);
                vec![Launch {
                    entry: p.entry.clone(),
                    grid: (rows as u64).min(resident as u64 * 8).min(MAX_GRID) as u32,
                    block,
                    shared,
                    extra: vec![],
                }]
            }
        })
    }
}

/// Launches `f` allowing it to start before the previous kernel on `stream` has finished
/// (programmatic stream serialization): the generated entries wait for it themselves.
///
/// # Safety
/// `f` is a loaded function whose parameters `args` point to, as for `cuLaunchKernel`.
unsafe fn launch_dependent(
    f: sys::CUfunction,
    l: &Launch,
    stream: sys::CUstream,
    args: &mut [*mut c_void],
) -> std::result::Result<(), result::DriverError> {
    // SAFETY: an all-zero attribute is a valid "ignored" attribute; both fields are set next.
    let mut attr: sys::CUlaunchAttribute = unsafe { std::mem::zeroed() };
    attr.id = sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    attr.value.programmaticStreamSerializationAllowed = 1;
    let config = sys::CUlaunchConfig {
        gridDimX: l.grid,
        gridDimY: 1,
        gridDimZ: 1,
        blockDimX: l.block,
        blockDimY: 1,
        blockDimZ: 1,
        sharedMemBytes: l.shared as u32,
        hStream: stream,
        attrs: &mut attr,
        numAttrs: 1,
    };
    // SAFETY: the caller's contract; `config` and `attr` live until the call returns.
    unsafe { sys::cuLaunchKernelEx(&config, f, args.as_mut_ptr(), std::ptr::null_mut()).result() }
}

/// Ceiling division of non-negative sizes.
fn div_up(a: i64, b: i64) -> i64 {
    (a + b - 1) / b.max(1)
}

impl Gpu {
    /// Runs `f` between two events recorded under `label`: the time of everything it queues
    /// (memsets and scratch set-up included), for benchmarks that compare whole operations.
    pub fn timed(
        &mut self,
        label: &str,
        bytes: u64,
        f: impl FnOnce(&mut Gpu) -> Result<()>,
    ) -> Result<()> {
        self.bind()?;
        let stream = self.stream;
        let ev = self.timer.start(stream)?;
        f(self)?;
        self.timer.end(stream, label, bytes, ev)
    }
}
