//! NCCL between the GPUs of several processes (a distributed run): one communicator per
//! process and GPU, made from a unique id that rank 0 creates and the rendezvous hands to the
//! others. Transfers are bytes (`ncclUint8`) at a device buffer's offset, queued on the GPU's
//! own stream, so they are ordered with its kernels and copies like any other work.
//!
//! libnccl is loaded on first use; cudarc panics when a library it needs is absent, so
//! [`available`] is asked first and a missing libnccl is [`CudaError::NoNccl`].
//!
//! Not yet run on hardware: it is written against cudarc 0.19's `nccl::result` API and
//! compiles, but no test here has a GPU.

use std::ffi::c_char;
use std::mem::MaybeUninit;

use cudarc::nccl::{result, sys};

use super::alloc::DeviceBuffer;
use super::device::Gpu;
use super::error::{CudaError, Result};

/// Whether libnccl can be loaded (probing with cudarc's candidate names only).
pub fn available() -> bool {
    // SAFETY: only tries to dlopen the library.
    unsafe { sys::is_culib_present() }
}

fn require() -> Result<()> {
    if available() {
        Ok(())
    } else {
        Err(CudaError::NoNccl)
    }
}

fn nccl_err(what: &str, e: result::NcclError) -> CudaError {
    CudaError::Nccl {
        what: what.to_string(),
        message: format!("{:?}", e.0),
    }
}

/// A new unique id for a run's communicators (rank 0 makes it and shares it).
pub fn unique_id() -> Result<[u8; 128]> {
    require()?;
    let id = result::get_uniqueid().map_err(|e| nccl_err("ncclGetUniqueId", e))?;
    Ok(id.internal.map(|c| c as u8))
}

/// This process's member of a run's NCCL communicator, bound to one GPU.
pub struct NcclComm {
    comm: sys::ncclComm_t,
    pub rank: usize,
    pub world: usize,
}

impl NcclComm {
    /// Joins the communicator of `world` ranks that `id` names, as `rank`, on `gpu`. Blocks
    /// until every rank has joined (NCCL's own bootstrap, over the network).
    pub fn join(gpu: &Gpu, rank: usize, world: usize, id: &[u8; 128]) -> Result<NcclComm> {
        require()?;
        gpu.bind()?;
        let id = sys::ncclUniqueId {
            internal: id.map(|b| b as c_char),
        };
        let mut comm = MaybeUninit::uninit();
        // SAFETY: `comm` is written by ncclCommInitRank before it is read.
        let comm = unsafe {
            result::comm_init_rank(comm.as_mut_ptr(), world as i32, id, rank as i32)
                .map_err(|e| nccl_err("ncclCommInitRank", e))?;
            comm.assume_init()
        };
        Ok(NcclComm { comm, rank, world })
    }

    fn stream(gpu: &Gpu) -> sys::cudaStream_t {
        gpu.stream as sys::cudaStream_t
    }

    /// Sends `bytes` bytes of `buf` from byte `off` to rank `peer` (queued on `gpu`'s stream).
    pub fn send(
        &self,
        gpu: &Gpu,
        buf: &DeviceBuffer,
        off: usize,
        bytes: usize,
        peer: usize,
    ) -> Result<()> {
        check_range(buf, off, bytes)?;
        gpu.bind()?;
        // SAFETY: the range lies inside `buf`, which stays allocated while the stream uses it
        // (its memory is reused only by work queued after this on the same stream).
        unsafe {
            result::send(
                (buf.ptr + off as u64) as *const _,
                bytes,
                sys::ncclDataType_t::ncclUint8,
                peer as i32,
                self.comm,
                Self::stream(gpu),
            )
        }
        .map(|_| ())
        .map_err(|e| nccl_err("ncclSend", e))
    }

    /// Receives `bytes` bytes from rank `peer` into `buf` at byte `off`.
    pub fn recv(
        &self,
        gpu: &Gpu,
        buf: &DeviceBuffer,
        off: usize,
        bytes: usize,
        peer: usize,
    ) -> Result<()> {
        check_range(buf, off, bytes)?;
        gpu.bind()?;
        // SAFETY: as in `send`.
        unsafe {
            result::recv(
                (buf.ptr + off as u64) as *mut _,
                bytes,
                sys::ncclDataType_t::ncclUint8,
                peer as i32,
                self.comm,
                Self::stream(gpu),
            )
        }
        .map(|_| ())
        .map_err(|e| nccl_err("ncclRecv", e))
    }

    /// Broadcasts the first `bytes` bytes of `buf` from rank `root` into every rank's `buf`.
    pub fn broadcast(
        &self,
        gpu: &Gpu,
        buf: &DeviceBuffer,
        bytes: usize,
        root: usize,
    ) -> Result<()> {
        check_range(buf, 0, bytes)?;
        gpu.bind()?;
        let p = buf.ptr as *mut std::ffi::c_void;
        // SAFETY: as in `send`; in place, as ncclBroadcast allows.
        unsafe {
            result::broadcast(
                p,
                p,
                bytes,
                sys::ncclDataType_t::ncclUint8,
                root as i32,
                self.comm,
                Self::stream(gpu),
            )
        }
        .map(|_| ())
        .map_err(|e| nccl_err("ncclBroadcast", e))
    }
}

fn check_range(buf: &DeviceBuffer, off: usize, bytes: usize) -> Result<()> {
    if off + bytes > buf.bytes {
        return Err(CudaError::Nccl {
            what: "transfer".into(),
            message: format!(
                "bytes {off}..{} outside a buffer of {} bytes",
                off + bytes,
                buf.bytes
            ),
        });
    }
    Ok(())
}

impl Drop for NcclComm {
    fn drop(&mut self) {
        // SAFETY: the communicator was made by ncclCommInitRank and is destroyed once.
        // An error here (a peer that failed) is not worth a panic at exit.
        let _ = unsafe { result::comm_destroy(self.comm) };
    }
}
