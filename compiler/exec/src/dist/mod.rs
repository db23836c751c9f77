//! One program over the devices of several processes (`--distributed`): each process — a
//! *rank* — drives its own devices, and the multi-device layer above ([`crate::Multi`]) still
//! sees all of the run's devices, in rank order.
//!
//! Communication between devices is [`crate::PeerBackend::copy_into`]. Within one process its
//! implementation is the peer copy (`CudaDevice`: `cuMemcpyPeerAsync`; `CpuBackend`: buffer
//! copies). Across processes it is [`Ranked`]: a copy between devices of two ranks is a
//! point-to-point send on the source's rank and the matching receive on the destination's,
//! through a [`Communicator`] — NCCL on GPUs (`nccl.rs`), the rendezvous store for the CPU
//! twin and CI (`store_comm.rs`). Launches on another rank's device are skipped; values read
//! back to the host (results, loop conditions, sizes) are broadcast from the rank that owns
//! the device, so every rank's host code takes the same path. Every rank runs the same host
//! code on the same inputs and makes the same decisions (split or not, row boundaries,
//! placements), so sends and receives pair up in the same order on every rank without any
//! other coordination. Balancing by measured times is off (times differ between ranks).
//!
//! Module map: `store` (the TCP rendezvous store on `MASTER_ADDR:MASTER_PORT`), `ranked` (a
//! device slot of a distributed run), `store_comm` (the communicator over the store),
//! `nccl` (the communicator over NCCL; `cuda` feature).

#[cfg(feature = "cuda")]
mod nccl;
mod ranked;
mod store;
mod store_comm;

use std::sync::Mutex;

use futhark_ir::types::PrimType;
use futhark_options::Launch;

use crate::backend::PeerBackend;
use crate::error::{ExecError, Result};

#[cfg(feature = "cuda")]
pub(crate) use nccl::NcclComm;
pub use ranked::{Held, Ranked};
pub use store::Store;
pub use store_comm::StoreComm;

/// Transfers between the devices of different ranks of one run. Every rank calls the same
/// operations in the same order; a `send` is matched by the `recv` of the same transfer on
/// the other rank.
pub trait Communicator<D: PeerBackend> {
    /// This rank.
    fn rank(&self) -> usize;

    /// How many ranks there are.
    fn world(&self) -> usize;

    /// Sends `len` elements of `src` (a buffer of the local device `dev`) from element
    /// `src_off` to rank `to`.
    #[allow(clippy::too_many_arguments)]
    fn send(
        &mut self,
        dev: &mut D,
        src: &D::Buf,
        src_off: usize,
        len: usize,
        elem: PrimType,
        to: usize,
    ) -> Result<()>;

    /// Receives `len` elements from rank `from` into `dst` (of the local device `dev`) at
    /// element `dst_off`.
    #[allow(clippy::too_many_arguments)]
    fn recv(
        &mut self,
        dev: &mut D,
        dst: &mut D::Buf,
        dst_off: usize,
        len: usize,
        elem: PrimType,
        from: usize,
    ) -> Result<()>;

    /// Host bytes from rank `root` to every rank (`bytes` is replaced on the others); `dev`
    /// is a local device the transfer may stage through.
    fn broadcast(&mut self, dev: &mut D, bytes: &mut Vec<u8>, root: usize) -> Result<()>;
}

/// This process's connection to the run's rendezvous store, made once.
static STORE: Mutex<Option<&'static Store>> = Mutex::new(None);

/// The rendezvous store of `launch`, joined at the first call (rank 0 starts serving it).
pub fn rendezvous(launch: &Launch) -> Result<&'static Store> {
    let mut held = STORE
        .lock()
        .map_err(|_| ExecError::Distributed("the rendezvous failed earlier".into()))?;
    if let Some(s) = *held {
        return Ok(s);
    }
    let s: &'static Store = Box::leak(Box::new(Store::join(launch)?));
    *held = Some(s);
    Ok(s)
}

/// What rank 0 read, on every rank: rank 0 passes `Some(bytes)` and publishes them under
/// `key`, the others pass `None` and wait for them.
pub fn share(launch: &Launch, key: &str, bytes: Option<Vec<u8>>) -> Result<Vec<u8>> {
    if launch.world == 1 {
        return Ok(bytes.unwrap_or_default());
    }
    let store = rendezvous(launch)?;
    match bytes {
        Some(b) if launch.rank == 0 => {
            store.set(&format!("share/{key}"), &b)?;
            Ok(b)
        }
        _ => store.get(&format!("share/{key}")),
    }
}

/// The end of a run: rank 0 (which serves the store) waits until every other rank is done
/// with it, so that none loses the store halfway through its last request.
pub fn finish(launch: &Launch) -> Result<()> {
    if launch.world == 1 {
        return Ok(());
    }
    let store = rendezvous(launch)?;
    if launch.rank == 0 {
        for r in 1..launch.world {
            store.take(&format!("done/{r}"))?;
        }
        Ok(())
    } else {
        store.set(&format!("done/{}", launch.rank), &[])
    }
}

/// The device slots of a distributed run: `per_rank` devices on each of `launch.world`
/// ranks, this rank's being `local` (exactly `per_rank` of them).
pub fn slots<D: PeerBackend + 'static>(
    local: Vec<D>,
    comm: Box<dyn Communicator<D>>,
) -> Result<Vec<Ranked<D>>> {
    ranked::slots(local, comm)
}
