//! The CUDA backend: each kernel program's kernels are generated, compiled (NVRTC, with the
//! disk cache) and loaded once; launches run in order on one GPU's stream; arrays stay in
//! device memory until host code needs them.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use futhark_cuda::runtime::device::device_count;
use futhark_cuda::runtime::{DeviceBuffer, Gpu, nvrtc};
use futhark_cuda::{GeneratedKernel, generate_program};
use futhark_ir::soacs::KernelDef;
use futhark_ir::types::PrimType;
use futhark_ir::{SegOp, Size};
use futhark_values::Buffer;

use crate::backend::{Backend, KernelProfile};
use crate::error::{ExecError, Result};
use crate::prim::{filled, to_vtype};

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

/// Buffers whose last handle went, waiting to go back to the allocator.
type FreeList = Rc<RefCell<Vec<DeviceBuffer>>>;

/// A device buffer handle; dropping the last one returns the memory to the allocator.
#[derive(Debug)]
pub struct CudaBuf {
    buf: Option<DeviceBuffer>,
    freed: FreeList,
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
            self.freed.borrow_mut().push(b);
        }
    }
}

fn backend_err(e: impl std::fmt::Display) -> ExecError {
    ExecError::Backend(e.to_string())
}

/// Kernels on one GPU.
pub struct CudaBackend {
    gpu: Gpu,
    /// Per kernel program: its generated kernels, in launch order, named uniquely.
    generated: HashMap<String, Vec<GeneratedKernel>>,
    freed: FreeList,
    /// Host-device transfers, for the profile.
    uploaded: u64,
    downloaded: u64,
}

impl CudaBackend {
    /// Opens GPU `ordinal`, or says why CUDA is not usable.
    pub fn open(ordinal: usize) -> Result<CudaBackend> {
        if let Some(reason) = cuda_unavailable_reason() {
            return Err(ExecError::Backend(reason));
        }
        let gpu = Gpu::open(ordinal).map_err(backend_err)?;
        Ok(CudaBackend {
            gpu,
            generated: HashMap::new(),
            freed: Rc::new(RefCell::new(Vec::new())),
            uploaded: 0,
            downloaded: 0,
        })
    }

    /// Opens the first `count` visible GPUs (all of them when `None`, or as many as
    /// `FUTHARK_GPUS` says when it is set). Until the multi-GPU runtime lands this uses
    /// the first GPU only, and [`CudaBackend::gpu_count`] says so.
    pub fn open_gpus(count: Option<usize>) -> Result<CudaBackend> {
        if count == Some(0) {
            return Err(ExecError::Backend("at least one GPU is needed".into()));
        }
        CudaBackend::open(0)
    }

    /// How many GPUs launches are spread over.
    pub fn gpu_count(&self) -> usize {
        1
    }

    /// A description of the device, for messages.
    pub fn device_name(&self) -> String {
        format!("{} ({})", self.gpu.info.name, self.gpu.info.arch())
    }

    fn reclaim(&mut self) {
        let freed: Vec<DeviceBuffer> = self.freed.borrow_mut().drain(..).collect();
        for b in freed {
            self.gpu.free(b);
        }
    }

    fn wrap(&self, buf: DeviceBuffer) -> Rc<CudaBuf> {
        Rc::new(CudaBuf {
            buf: Some(buf),
            freed: self.freed.clone(),
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

impl Backend for CudaBackend {
    type Buf = Rc<CudaBuf>;

    fn name(&self) -> &'static str {
        "cuda"
    }

    fn prepare(&mut self, kernels: &[KernelDef]) -> Result<()> {
        for kd in kernels {
            let mut kp = kd.program.clone();
            for k in &mut kp.kernels {
                k.name = c_name(&format!("{}_{}", kd.name, k.name));
            }
            let gks = generate_program(&kp)
                .map_err(|e| ExecError::Unsupported(format!("kernel `{}`: {e}", kd.name)))?;
            for gk in &gks {
                self.gpu.load(gk).map_err(backend_err)?;
            }
            self.generated.insert(kd.name.clone(), gks);
        }
        Ok(())
    }

    fn upload(&mut self, data: &Rc<Buffer>) -> Result<Rc<CudaBuf>> {
        self.reclaim();
        let elem = crate::prim::from_vtype(data.elem_type());
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
        self.downloaded += bytes.len() as u64;
        Buffer::from_le_bytes(to_vtype(elem), &bytes)
            .map(Rc::new)
            .ok_or_else(|| ExecError::Backend("downloaded bytes do not form elements".into()))
    }

    fn alloc(&mut self, elem: PrimType, len: usize) -> Result<Rc<CudaBuf>> {
        self.reclaim();
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
        for (kernel, gk) in kd.program.kernels.iter().zip(&gks) {
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
            let mut bufs: Vec<&DeviceBuffer> = Vec::with_capacity(gk.arrays.len());
            for a in &gk.arrays {
                let i = decls.iter().position(|d| d.name == a.name).ok_or_else(|| {
                    ExecError::Backend(format!("kernel `{}` uses an undeclared array", gk.name))
                })?;
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
        Ok(out)
    }
}
