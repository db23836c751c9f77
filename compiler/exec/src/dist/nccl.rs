//! The communicator of GPU runs: NCCL point-to-point transfers between the ranks' GPUs and
//! broadcasts of the values the host reads back, queued on each GPU's own stream. One GPU
//! per rank (one process per GPU: `srun --ntasks-per-node=8`, `mpirun -npernode 8`,
//! `torchrun --nproc-per-node 8`).
//!
//! Not yet run on hardware (no GPU cluster here): it compiles against cudarc 0.19's NCCL API
//! and follows the same protocol as the store communicator that the tests run.

use std::rc::Rc;
use std::sync::atomic::{AtomicUsize, Ordering};

use futhark_cuda::runtime::nccl;
use futhark_ir::types::PrimType;
use futhark_options::Launch;
use futhark_values::Buffer;

use super::{Communicator, rendezvous};
use crate::backend::Backend;
use crate::cuda::{CudaBuf, CudaDevice};
use crate::error::{ExecError, Result};

fn err(e: futhark_cuda::runtime::CudaError) -> ExecError {
    ExecError::Distributed(e.to_string())
}

/// This rank's member of the run's NCCL communicator.
pub(crate) struct NcclComm {
    comm: nccl::NcclComm,
}

impl NcclComm {
    /// Joins the run's communicator on `dev`: rank 0 makes the unique id and publishes it in
    /// the rendezvous store; every rank says it is ready before NCCL's own bootstrap starts,
    /// so that a rank that never came is a store timeout rather than a wait in NCCL.
    pub(crate) fn join(dev: &CudaDevice, launch: &Launch) -> Result<NcclComm> {
        if !nccl::available() {
            return Err(err(futhark_cuda::runtime::CudaError::NoNccl));
        }
        let store = rendezvous(launch)?;
        // Each opening of the backend (a program of `bench`, say) is a new communicator:
        // every rank opens them in the same order, so the count names the same one.
        static JOINS: AtomicUsize = AtomicUsize::new(0);
        let k = JOINS.fetch_add(1, Ordering::Relaxed);
        let id = if launch.rank == 0 {
            let id = nccl::unique_id().map_err(err)?;
            store.set(&format!("nccl/{k}/id"), &id)?;
            id
        } else {
            let bytes = store.get(&format!("nccl/{k}/id"))?;
            <[u8; 128]>::try_from(bytes.as_slice())
                .map_err(|_| ExecError::Distributed("a malformed NCCL unique id".into()))?
        };
        store.set(&format!("nccl/{k}/ready/{}", launch.rank), &[])?;
        for r in 0..launch.world {
            store.get(&format!("nccl/{k}/ready/{r}"))?;
        }
        let comm = nccl::NcclComm::join(dev.gpu(), launch.rank, launch.world, &id).map_err(err)?;
        Ok(NcclComm { comm })
    }
}

impl Communicator<CudaDevice> for NcclComm {
    fn rank(&self) -> usize {
        self.comm.rank
    }

    fn world(&self) -> usize {
        self.comm.world
    }

    fn send(
        &mut self,
        dev: &mut CudaDevice,
        src: &Rc<CudaBuf>,
        src_off: usize,
        len: usize,
        elem: PrimType,
        to: usize,
    ) -> Result<()> {
        let w = elem.size_bytes();
        let mem = CudaDevice::memory(src)?;
        self.comm
            .send(dev.gpu(), mem, src_off * w, len * w, to)
            .map_err(err)
    }

    fn recv(
        &mut self,
        dev: &mut CudaDevice,
        dst: &mut Rc<CudaBuf>,
        dst_off: usize,
        len: usize,
        elem: PrimType,
        from: usize,
    ) -> Result<()> {
        let w = elem.size_bytes();
        dev.before_overwrite(dst)?;
        let mem = CudaDevice::memory(dst)?;
        self.comm
            .recv(dev.gpu(), mem, dst_off * w, len * w, from)
            .map_err(err)
    }

    /// The length first (8 bytes), then the bytes, each an `ncclBroadcast` through a
    /// device buffer of `dev`.
    fn broadcast(&mut self, dev: &mut CudaDevice, bytes: &mut Vec<u8>, root: usize) -> Result<()> {
        let mine = self.comm.rank == root;
        let len = Rc::new(Buffer::U64(vec![bytes.len() as u64]));
        let len_buf = dev.upload(&len)?;
        self.comm
            .broadcast(dev.gpu(), CudaDevice::memory(&len_buf)?, 8, root)
            .map_err(err)?;
        let n = match &*dev.download(&len_buf, PrimType::U64, 1)? {
            Buffer::U64(v) if v.len() == 1 => v[0] as usize,
            _ => {
                return Err(ExecError::Distributed(
                    "a malformed broadcast length".into(),
                ));
            }
        };
        if n == 0 {
            bytes.clear();
            return Ok(());
        }
        let data = if mine {
            dev.upload(&Rc::new(Buffer::U8(std::mem::take(bytes))))?
        } else {
            dev.alloc(PrimType::U8, n)?
        };
        self.comm
            .broadcast(dev.gpu(), CudaDevice::memory(&data)?, n, root)
            .map_err(err)?;
        match Rc::unwrap_or_clone(dev.download(&data, PrimType::U8, n)?) {
            Buffer::U8(v) => {
                *bytes = v;
                Ok(())
            }
            _ => Err(ExecError::Distributed("a malformed broadcast".into())),
        }
    }
}
