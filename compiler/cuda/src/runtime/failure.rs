//! Run-time checks that fail inside kernels: the per-GPU failure slot.
//!
//! Every module's `fut_err` points at one small buffer of its GPU and its `fut_module`
//! holds the module's number here (both set when the module is loaded). A failing thread
//! records `(module << 32) | (check + 1)` and its message arguments in the slot (the first
//! failure wins, see the prelude) and goes on without touching memory outside its arrays.
//! The host reads the slot only where it waits for the GPU anyway — when it copies data
//! back, and at the end of an entry point — so checks add no synchronisation per launch;
//! it then clears the slot, so the context and the next run are unaffected.

use std::ffi::{CString, c_void};

use cudarc::driver::sys;
use futhark_ir::PrimType;

use super::alloc::DeviceBuffer;
use super::device::Gpu;
use super::error::{CudaError, Result};
use crate::codegen::emit::CheckSite;

/// Words of the slot: the code, then the message arguments (`FUT_ERR_ARGS` in the prelude).
const SLOT_WORDS: usize = 1 + 32;

/// The failure slot of one GPU.
#[derive(Debug, Default)]
pub struct FailureSlot {
    buf: Option<DeviceBuffer>,
    /// Loaded modules by number: kernel name and checks.
    modules: Vec<(String, Vec<CheckSite>)>,
}

/// A check that failed in a kernel, worded as the interpreter words it.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelFailure {
    pub kernel: String,
    pub message: String,
    pub loc: Option<String>,
}

impl Gpu {
    /// Points a freshly loaded module's `fut_err` at this GPU's slot and numbers it.
    pub(crate) fn register_module(
        &mut self,
        module: sys::CUmodule,
        name: &str,
        checks: &[CheckSite],
    ) -> Result<()> {
        if self.failures.buf.is_none() {
            let buf = self.alloc.alloc(SLOT_WORDS * 8)?;
            // SAFETY: the buffer holds SLOT_WORDS words; the memset is ordered on the stream
            // before any kernel that could write the slot.
            unsafe { sys::cuMemsetD32Async(buf.ptr, 0, SLOT_WORDS * 2, self.stream) }
                .result()
                .map_err(|e| CudaError::driver("cuMemsetD32Async", e))?;
            self.failures.buf = Some(buf);
        }
        let slot = self.failures.buf.as_ref().map(|b| b.ptr).unwrap_or(0);
        let number = u32::try_from(self.failures.modules.len()).unwrap_or(u32::MAX);
        self.failures
            .modules
            .push((name.to_string(), checks.to_vec()));
        set_global(module, "fut_err", &slot.to_le_bytes())?;
        set_global(module, "fut_module", &number.to_le_bytes())
    }

    /// The first check that failed since the last call, if any: waits for the GPU's
    /// queue, then clears the slot.
    pub fn take_failure(&mut self) -> Result<Option<KernelFailure>> {
        let Some(buf) = self.failures.buf.take() else {
            return Ok(None);
        };
        let mut words = [0u64; SLOT_WORDS];
        let read = self.download(&buf, &mut words);
        let ptr = buf.ptr;
        self.failures.buf = Some(buf);
        read?;
        let stream = self.stream;
        if words[0] == 0 {
            return Ok(None);
        }
        // SAFETY: the slot holds SLOT_WORDS words; later kernels are queued after the
        // clearing.
        unsafe { sys::cuMemsetD32Async(ptr, 0, SLOT_WORDS * 2, stream) }
            .result()
            .map_err(|e| CudaError::driver("cuMemsetD32Async", e))?;
        let module = (words[0] >> 32) as usize;
        let check = (words[0] & 0xffff_ffff) as usize - 1;
        let Some((kernel, sites)) = self.failures.modules.get(module) else {
            return Err(CudaError::Launch {
                kernel: format!("module {module}"),
                message: "a run-time check failed in a module that was not loaded".into(),
            });
        };
        let Some(site) = sites.get(check) else {
            return Err(CudaError::Launch {
                kernel: kernel.clone(),
                message: format!("run-time check {check} failed, but the kernel has no such check"),
            });
        };
        Ok(Some(KernelFailure {
            kernel: kernel.clone(),
            message: decode(site, &words[1..]),
            loc: site.loc.clone(),
        }))
    }
}

/// The message of a failed check, its holes filled with the recorded values.
pub fn decode(site: &CheckSite, words: &[u64]) -> String {
    let shown: Vec<String> = site
        .arg_types
        .iter()
        .zip(words)
        .map(|(t, &w)| show(*t, w))
        .collect();
    futhark_ir::soacs::message::fill(&site.msg, &shown)
}

/// A value as the slot holds it (see `check_arg` in the emitter): integers sign- or
/// zero-extended, floats as the bits of an `f64`.
fn show(t: PrimType, w: u64) -> String {
    use futhark_ir::PrimValue as V;
    let v = match t {
        PrimType::Bool => V::Bool(w != 0),
        PrimType::I8 => V::I8(w as i8),
        PrimType::I16 => V::I16(w as i16),
        PrimType::I32 => V::I32(w as i32),
        PrimType::I64 => V::I64(w as i64),
        PrimType::U8 => V::U8(w as u8),
        PrimType::U16 => V::U16(w as u16),
        PrimType::U32 => V::U32(w as u32),
        PrimType::U64 => V::U64(w),
        PrimType::F16 | PrimType::F32 | PrimType::F64 => V::from_f64(t, f64::from_bits(w)),
    };
    futhark_ir::soacs::message::show(v)
}

/// Writes a module's `__device__` variable (synchronously: nothing of the module runs yet).
fn set_global(module: sys::CUmodule, name: &str, bytes: &[u8]) -> Result<()> {
    let cname = CString::new(name).unwrap_or_default();
    let mut ptr: sys::CUdeviceptr = 0;
    let mut size: usize = 0;
    // SAFETY: the module is loaded; the name is NUL-terminated; the pointers are valid.
    unsafe { sys::cuModuleGetGlobal_v2(&mut ptr, &mut size, module, cname.as_ptr()) }
        .result()
        .map_err(|e| CudaError::driver(format!("cuModuleGetGlobal({name})"), e))?;
    if size != bytes.len() {
        return Err(CudaError::Launch {
            kernel: name.into(),
            message: format!("module variable of {size} bytes, expected {}", bytes.len()),
        });
    }
    // SAFETY: `ptr` addresses `size` bytes of device memory.
    unsafe { sys::cuMemcpyHtoD_v2(ptr, bytes.as_ptr() as *const c_void, bytes.len()) }
        .result()
        .map_err(|e| CudaError::driver(format!("cuMemcpyHtoD({name})"), e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decoding_fills_holes_with_typed_values() {
        let site = CheckSite {
            msg: "Index [{}] out of bounds for array of shape [{}].".into(),
            arg_types: vec![PrimType::I64, PrimType::I64],
            loc: None,
        };
        assert_eq!(
            decode(&site, &[(-3i64) as u64, 10]),
            "Index [-3] out of bounds for array of shape [10]."
        );
        let site = CheckSite {
            msg: "Range {}..<{} is invalid.".into(),
            arg_types: vec![PrimType::I32, PrimType::U8],
            loc: None,
        };
        assert_eq!(
            decode(&site, &[(-1i64) as u64, 200]),
            "Range -1..<200 is invalid."
        );
    }
}
