//! The CUDA backend: each kernel program's kernels are generated, compiled (NVRTC, with the
//! disk cache) and loaded once; launches run in order on one GPU's stream; arrays stay in
//! device memory until host code needs them.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use futhark_cuda::runtime::device::device_count;
use futhark_cuda::runtime::peer::{StreamMark, TimedMark};
use futhark_cuda::runtime::{DeviceBuffer, Gpu, nvrtc};
use futhark_cuda::{
    CodegenOptions, GeneratedKernel, LaunchPlan, canonicalize, generate_program_with,
};
use futhark_ir::soacs::KernelDef;
use futhark_ir::types::PrimType;
use futhark_ir::{SegOp, Size};
use futhark_options::ExecOptions;
use futhark_values::Buffer;

use crate::backend::{
    Backend, CACHE_PROFILE, CODEGEN_PROFILE, KernelProfile, LOAD_PROFILE, NVRTC_PROFILE,
    PeerBackend, Stamp,
};
use crate::error::{ExecError, Result};
use crate::multi::Multi;
use crate::prim::filled;

/// Why the CUDA backend cannot run here, or `None` when a GPU and NVRTC are usable. Never
/// panics without a driver.
pub fn cuda_unavailable_reason() -> Option<String> {
    match device_count() {
        Err(e) => return Some(e.to_string()),
        Ok(0) => return Some("the CUDA driver found no GPU".into()),
        Ok(_) => {}
    }
    if !nvrtc::available() {
        return Some(futhark_cuda::runtime::CudaError::NoNvrtc.to_string());
    }
    None
}

/// Buffers whose last handle went, waiting to go back to the allocator, with the copies
/// other GPUs may still be making of them.
type FreeList = Rc<RefCell<Vec<(DeviceBuffer, Vec<StreamMark>)>>>;

/// A device buffer handle; dropping the last one returns the memory to the allocator.
///
/// `readers` are marks in other GPUs' streams after copies they queued out of this buffer:
/// work on this buffer's own GPU that overwrites it (a kernel writing it in place, or a
/// later owner of its memory) must wait for them first. Keeping this per buffer, instead of
/// making the source GPU wait for every copy out of it, leaves the source free to run on
/// (the copy sits in the destination's stream behind that GPU's earlier work).
#[derive(Debug)]
pub struct CudaBuf {
    buf: Option<DeviceBuffer>,
    freed: FreeList,
    readers: RefCell<Vec<StreamMark>>,
}

impl CudaBuf {
    fn get(&self) -> Result<&DeviceBuffer> {
        self.buf
            .as_ref()
            .ok_or_else(|| ExecError::Backend("use of a freed device buffer".into()))
    }
}

impl Drop for CudaBuf {
    fn drop(&mut self) {
        if let Some(b) = self.buf.take() {
            let readers = std::mem::take(self.readers.get_mut());
            self.freed.borrow_mut().push((b, readers));
        }
    }
}

fn backend_err(e: impl std::fmt::Display) -> ExecError {
    ExecError::Backend(e.to_string())
}

/// Kernels on one GPU: one device of a [`CudaBackend`].
pub struct CudaDevice {
    gpu: Gpu,
    /// How kernels are generated for this device (tiling, tile shapes, fma).
    codegen: CodegenOptions,
    /// Per kernel program: its generated kernels, in launch order, named uniquely.
    generated: HashMap<String, Rc<[GeneratedKernel]>>,
    /// Per kernel program, worked out at its first launch: what each launch needs.
    layouts: HashMap<String, Rc<Layout>>,
    freed: FreeList,
    /// Host-device transfers, for the profile.
    uploaded: u64,
    downloaded: u64,
    /// Whether every copy out of a buffer makes its GPU wait for the copy at once (the old
    /// two-way ordering), rather than only work that overwrites the buffer
    /// (`ExecOptions::two_way_peer_copies`, for comparisons).
    two_way_copies: bool,
    /// Wall time of generating CUDA C for prepared programs, for the profile.
    codegen_ms: f64,
    /// Intra-block programs run as their one kernel (`CudaOptions::intra_kernel`).
    intra_kernel: bool,
}

impl CudaDevice {
    /// Opens GPU `ordinal` with `options`' runtime switches, or says why CUDA is not usable
    /// (`open_backend` is the way in; `CudaBackend::open_gpus` opens each GPU with this).
    pub fn open_with(ordinal: usize, options: &ExecOptions) -> Result<CudaDevice> {
        if let Some(reason) = cuda_unavailable_reason() {
            return Err(ExecError::Backend(reason));
        }
        let gpu = Gpu::open_with(ordinal, &options.cuda).map_err(backend_err)?;
        let codegen =
            CodegenOptions::from_options(&options.cuda, Some(gpu.info.max_shared_per_block));
        Ok(CudaDevice {
            gpu,
            codegen,
            generated: HashMap::new(),
            layouts: HashMap::new(),
            freed: Rc::new(RefCell::new(Vec::new())),
            uploaded: 0,
            downloaded: 0,
            two_way_copies: options.two_way_peer_copies,
            codegen_ms: 0.0,
            intra_kernel: options.cuda.intra_kernel,
        })
    }

    /// A description of the device, for messages.
    pub fn device_name(&self) -> String {
        format!("{} ({})", self.gpu.info.name, self.gpu.info.arch())
    }

    /// Returns freed buffers to the allocator; whoever gets their memory next is queued
    /// after the copies other GPUs were still making of them.
    fn reclaim(&mut self) -> Result<()> {
        let freed: Vec<(DeviceBuffer, Vec<StreamMark>)> =
            self.freed.borrow_mut().drain(..).collect();
        for (b, readers) in freed {
            self.wait_for_all(&readers)?;
            self.gpu.free(b);
        }
        Ok(())
    }

    /// Orders this GPU's later work after the copies other GPUs are making of `buf`, before
    /// that work overwrites it.
    /// The GPU itself (for NCCL transfers queued on its stream).
    pub(crate) fn gpu(&self) -> &Gpu {
        &self.gpu
    }

    /// A buffer's device memory (an error once freed).
    pub(crate) fn memory(buf: &CudaBuf) -> Result<&DeviceBuffer> {
        buf.get()
    }

    /// Orders work that overwrites `buf` after the copies that read it.
    pub(crate) fn before_overwrite(&mut self, buf: &CudaBuf) -> Result<()> {
        let readers = std::mem::take(&mut *buf.readers.borrow_mut());
        self.wait_for_all(&readers)
    }

    /// Orders this GPU's later work after every mark in `marks`.
    fn wait_for_all(&mut self, marks: &[StreamMark]) -> Result<()> {
        for m in marks {
            self.gpu.wait_for(m).map_err(backend_err)?;
        }
        Ok(())
    }

    fn wrap(&self, buf: DeviceBuffer) -> Rc<CudaBuf> {
        Rc::new(CudaBuf {
            buf: Some(buf),
            freed: self.freed.clone(),
            readers: RefCell::new(Vec::new()),
        })
    }
}

/// The most shared memory an intra-block kernel's block may take (of Hopper's 227 KiB):
/// more would leave a multiprocessor a single block, which cannot hide its barriers.
const INTRA_SHARED_MAX: usize = 96 * 1024;

/// What every launch of one kernel program needs, worked out once.
#[derive(Debug)]
struct Layout {
    /// The arrays its kernels write (by declaration index).
    written: Vec<usize>,
    /// Per generated kernel: the declaration index of each of its array arguments.
    args: Vec<Vec<usize>>,
}

impl Layout {
    fn of(kd: &KernelDef, gks: &[GeneratedKernel]) -> Result<Layout> {
        let decls = &kd.program.arrays;
        let args = gks
            .iter()
            .map(|gk| {
                gk.arrays
                    .iter()
                    .map(|a| {
                        decls.iter().position(|d| d.name == a.name).ok_or_else(|| {
                            ExecError::Backend(format!(
                                "kernel `{}` uses an undeclared array",
                                gk.name
                            ))
                        })
                    })
                    .collect::<Result<Vec<usize>>>()
            })
            .collect::<Result<_>>()?;
        Ok(Layout {
            written: crate::backend::written_arrays(&kd.program),
            args,
        })
    }
}

/// Bytes for `len` elements: at least one element, as `Gpu::run` expects every array to
/// have room for one (a shapeless array is one element) and zero-byte allocations are
/// avoided.
fn alloc_bytes(elem: PrimType, len: usize) -> usize {
    len.max(1) * elem.size_bytes()
}

/// A C identifier from a kernel name: every kernel of every program gets a distinct name
/// on the GPU.
fn c_name(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

impl Backend for CudaDevice {
    type Buf = Rc<CudaBuf>;

    fn name(&self) -> &'static str {
        "cuda"
    }

    fn prepare(&mut self, kernels: &[KernelDef]) -> Result<()> {
        // Generate every module first, then compile them together: NVRTC runs on several
        // threads, which matters for programs of a hundred kernels (the AD tests).
        let generating = std::time::Instant::now();
        let mut generated = Vec::with_capacity(kernels.len());
        for kd in kernels {
            let mut kp = kd.program.clone();
            // The one-kernel version of an intra-block program is compiled only when it
            // may run.
            if !self.intra_kernel {
                kp.intra = None;
            }
            for k in &mut kp.kernels {
                k.name = c_name(&format!("{}_{}", kd.name, k.name));
            }
            let mut gks = generate_program_with(&kp, &self.codegen)
                .map_err(|e| ExecError::Unsupported(format!("kernel `{}`: {e}", kd.name)))?;
            // Named by content: a kernel seen before under other IR names (an earlier
            // cell, an earlier run) is found in the module caches, not compiled again.
            gks.iter_mut().for_each(canonicalize);
            generated.push((kd.name.clone(), gks));
        }
        self.codegen_ms += generating.elapsed().as_secs_f64() * 1e3;
        let all: Vec<_> = generated
            .iter()
            .flat_map(|(_, gks)| gks.iter().cloned())
            .collect();
        self.gpu.load_all(&all).map_err(backend_err)?;
        for (name, gks) in generated {
            self.generated.insert(name, gks.into());
        }
        Ok(())
    }

    fn upload(&mut self, data: &Rc<Buffer>) -> Result<Rc<CudaBuf>> {
        self.reclaim()?;
        let elem = data.elem_type();
        let bytes = data.to_le_bytes();
        let buf = self
            .gpu
            .alloc(alloc_bytes(elem, data.len()))
            .map_err(backend_err)?;
        if !bytes.is_empty() {
            self.gpu.write(&buf, &bytes).map_err(backend_err)?;
        }
        self.uploaded += bytes.len() as u64;
        Ok(self.wrap(buf))
    }

    fn download(&mut self, buf: &Rc<CudaBuf>, elem: PrimType, len: usize) -> Result<Rc<Buffer>> {
        let mut bytes = vec![0u8; len * elem.size_bytes()];
        if !bytes.is_empty() {
            self.gpu
                .download(buf.get()?, &mut bytes)
                .map_err(backend_err)?;
        }
        // Host code must not act on what a kernel whose check failed computed.
        self.check_failures()?;
        self.downloaded += bytes.len() as u64;
        Buffer::from_le_bytes(elem, &bytes)
            .map(Rc::new)
            .ok_or_else(|| ExecError::Backend("downloaded bytes do not form elements".into()))
    }

    fn alloc(&mut self, elem: PrimType, len: usize) -> Result<Rc<CudaBuf>> {
        self.reclaim()?;
        let buf = self
            .gpu
            .alloc(alloc_bytes(elem, len))
            .map_err(backend_err)?;
        Ok(self.wrap(buf))
    }

    fn unique(&mut self, buf: Rc<CudaBuf>, elem: PrimType, len: usize) -> Result<Rc<CudaBuf>> {
        if Rc::strong_count(&buf) == 1 {
            return Ok(buf);
        }
        let fresh = self.alloc(elem, len)?;
        let bytes = len * elem.size_bytes();
        if bytes > 0 {
            self.gpu
                .copy(fresh.get()?, buf.get()?, bytes)
                .map_err(backend_err)?;
        }
        Ok(fresh)
    }

    fn launch(&mut self, kd: &KernelDef, sizes: &[i64], arrays: &mut [Rc<CudaBuf>]) -> Result<()> {
        let gks =
            self.generated.get(&kd.name).cloned().ok_or_else(|| {
                ExecError::Backend(format!("kernel `{}` was not prepared", kd.name))
            })?;
        let layout = match self.layouts.get(&kd.name) {
            Some(l) => l.clone(),
            None => {
                let l = Rc::new(Layout::of(kd, &gks)?);
                self.layouts.insert(kd.name.clone(), l.clone());
                l
            }
        };
        for &i in layout.written.iter() {
            if let Some(a) = arrays.get(i) {
                self.before_overwrite(a)?;
            }
        }
        let decls = &kd.program.arrays;
        let size_of = |sz: &Size| match sz {
            Size::Const(c) => *c,
            Size::Param(p) => kd
                .program
                .sizes
                .iter()
                .position(|n| n == p)
                .map(|i| sizes[i])
                .unwrap_or(0),
        };
        // An intra-block program runs as its one kernel when a row's buffers fit in shared
        // memory (the generator puts that version last), else as its kernels in order.
        if self.intra_kernel
            && kd.program.intra.is_some()
            && gks.len() == kd.program.kernels.len() + 1
            && let Some(gk) = gks.last()
            && let LaunchPlan::Intra(plan) = &gk.plan
            && plan.shared_bytes(size_of(&plan.inner)) <= INTRA_SHARED_MAX
        {
            let args = layout.args.last().cloned().unwrap_or_default();
            let mut bufs: Vec<&DeviceBuffer> = Vec::with_capacity(args.len());
            for &i in &args {
                bufs.push(arrays[i].get()?);
            }
            self.gpu.run(&gk.name, &bufs, sizes).map_err(backend_err)?;
            return Ok(());
        }
        for ((kernel, gk), args) in kd.program.kernels.iter().zip(gks.iter()).zip(&layout.args) {
            // Empty grids are skipped (CUDA rejects them); a reduction over empty segments
            // still owes each segment its neutral element, written from the host.
            let dims: Vec<i64> = kernel
                .op
                .space()
                .dims
                .iter()
                .map(|(_, s)| size_of(s))
                .collect();
            let (segments, inner) = match dims.split_last() {
                Some((inner, outer)) => (outer.iter().product::<i64>(), *inner),
                None => (1, 1),
            };
            if segments <= 0 {
                continue;
            }
            if inner <= 0 {
                if let SegOp::Red(r) = &kernel.op {
                    for (out, ne) in r.outputs.iter().zip(&r.neutral) {
                        let i = decls.iter().position(|d| d.name == *out).ok_or_else(|| {
                            ExecError::Backend(format!(
                                "kernel `{}` writes an undeclared array",
                                gk.name
                            ))
                        })?;
                        let bytes = filled(*ne, segments as usize).to_le_bytes();
                        self.gpu
                            .write(arrays[i].get()?, &bytes)
                            .map_err(backend_err)?;
                    }
                }
                continue;
            }
            let mut bufs: Vec<&DeviceBuffer> = Vec::with_capacity(args.len());
            for &i in args {
                bufs.push(arrays[i].get()?);
            }
            // `Gpu::run` takes the program's sizes in order, as the kernel program lists them.
            self.gpu.run(&gk.name, &bufs, sizes).map_err(backend_err)?;
        }
        Ok(())
    }

    fn profile(&mut self) -> Result<Vec<KernelProfile>> {
        let stats = self.gpu.report().map_err(backend_err)?;
        let mut out: Vec<KernelProfile> = stats
            .into_iter()
            .map(|(name, s)| KernelProfile {
                name,
                launches: s.launches,
                total_ms: s.total_ms,
                bytes: s.bytes,
            })
            .collect();
        out.push(KernelProfile {
            name: "(host to device)".into(),
            launches: 0,
            total_ms: 0.0,
            bytes: self.uploaded,
        });
        out.push(KernelProfile {
            name: "(device to host)".into(),
            launches: 0,
            total_ms: 0.0,
            bytes: self.downloaded,
        });
        out.push(KernelProfile {
            name: NVRTC_PROFILE.into(),
            launches: self.gpu.nvrtc_compiles,
            total_ms: self.gpu.nvrtc_ms,
            bytes: 0,
        });
        for (name, ms) in [
            (CODEGEN_PROFILE, self.codegen_ms),
            (CACHE_PROFILE, self.gpu.cache_ms),
            (LOAD_PROFILE, self.gpu.load_ms),
        ] {
            out.push(KernelProfile {
                name: name.into(),
                launches: 0,
                total_ms: ms,
                bytes: 0,
            });
        }
        out.push(KernelProfile {
            name: "(peak device memory)".into(),
            launches: 0,
            total_ms: 0.0,
            bytes: self.gpu.alloc.peak_bytes as u64,
        });
        Ok(out)
    }

    fn set_profiling(&mut self, on: bool) {
        self.gpu.timer.set_enabled(on);
    }

    fn synchronize(&mut self) -> Result<()> {
        self.gpu.synchronize().map_err(backend_err)
    }

    fn check_failures(&mut self) -> Result<()> {
        match self.gpu.take_failure().map_err(backend_err)? {
            None => Ok(()),
            Some(f) => Err(ExecError::runtime_at(f.message, f.loc)),
        }
    }
}

impl PeerBackend for CudaDevice {
    fn copy_into(
        &mut self,
        dst: &mut Rc<CudaBuf>,
        dst_off: usize,
        from: Option<&mut CudaDevice>,
        src: &Rc<CudaBuf>,
        src_off: usize,
        len: usize,
        elem: PrimType,
    ) -> Result<()> {
        let w = elem.size_bytes();
        self.before_overwrite(dst)?;
        match from {
            None => self
                .gpu
                .copy_within(dst.get()?, dst_off * w, src.get()?, src_off * w, len * w)
                .map_err(backend_err),
            Some(peer) => {
                // The copy runs on this GPU's stream after the source's producer, and the
                // source's later work (reusing its memory) waits for the copy.
                let ready = peer.gpu.mark().map_err(backend_err)?;
                self.gpu.wait_for(&ready).map_err(backend_err)?;
                self.gpu
                    .copy_from_peer(
                        dst.get()?,
                        dst_off * w,
                        &peer.gpu,
                        src.get()?,
                        src_off * w,
                        len * w,
                    )
                    .map_err(backend_err)?;
                let done = self.gpu.mark().map_err(backend_err)?;
                if self.two_way_copies {
                    peer.gpu.wait_for(&done).map_err(backend_err)
                } else {
                    src.readers.borrow_mut().push(done);
                    Ok(())
                }
            }
        }
    }

    fn describe(&self) -> String {
        self.device_name()
    }

    fn threads(&self) -> usize {
        // 2048 resident threads per multiprocessor on every architecture the backend targets.
        self.gpu.info.multiprocessors as usize * 2048
    }

    fn stamp(&mut self) -> Result<Option<Stamp>> {
        let mark = self.gpu.timed_mark().map_err(backend_err)?;
        Ok(Some(Stamp::new(mark)))
    }

    fn elapsed_ms(&mut self, start: &Stamp, end: &Stamp) -> Result<Option<f64>> {
        match (start.get::<TimedMark>(), end.get::<TimedMark>()) {
            (Some(a), Some(b)) => Ok(self
                .gpu
                .elapsed_ms(a, b)
                .map_err(backend_err)?
                .map(f64::from)),
            _ => Err(ExecError::Backend(
                "a stamp of another kind of device".into(),
            )),
        }
    }
}

/// Every GPU the program may use, as one backend: launches are split over them when that
/// pays (see [`crate::Multi`]); with one GPU everything runs on it directly.
pub type CudaBackend = Multi<CudaDevice>;

impl Multi<CudaDevice> {
    /// The first `count` visible GPUs (`None`: all of them), opened and spread over as
    /// `options` say. Asking for more GPUs than there are is an error; peer access is
    /// enabled between every pair that supports it.
    pub fn open_gpus(count: Option<usize>, options: &ExecOptions) -> Result<CudaBackend> {
        if let Some(reason) = cuda_unavailable_reason() {
            return Err(ExecError::Backend(reason));
        }
        let visible = device_count().map_err(backend_err)?;
        let wanted = count.unwrap_or(visible);
        if wanted == 0 {
            return Err(ExecError::Backend("at least one GPU is needed".into()));
        }
        if wanted > visible {
            return Err(ExecError::Backend(format!(
                "{wanted} GPUs were asked for, but {visible} {} visible",
                if visible == 1 { "is" } else { "are" }
            )));
        }
        let devs = (0..wanted)
            .map(|i| CudaDevice::open_with(i, options))
            .collect::<Result<Vec<_>>>()?;
        if devs.len() > 1 {
            let gpus: Vec<&Gpu> = devs.iter().map(|d| &d.gpu).collect();
            futhark_cuda::runtime::peer::enable_peer_access(&gpus).map_err(backend_err)?;
        }
        Multi::with_options(devs, options)
    }

    /// How many GPUs launches are spread over.
    pub fn gpu_count(&self) -> usize {
        self.device_count()
    }

    /// The GPUs, for messages: `NVIDIA H200 (sm_90)` or `2× NVIDIA H200 (sm_90)`.
    pub fn device_name(&mut self) -> String {
        let names: Vec<String> = self.devices().iter().map(|d| d.device_name()).collect();
        if names.iter().all(|n| *n == names[0]) && names.len() > 1 {
            format!("{}× {}", names.len(), names[0])
        } else {
            names.join(", ")
        }
    }
}
