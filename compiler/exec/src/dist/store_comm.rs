//! The communicator of the CPU twin (`--backend ir --distributed`) and of CI: transfers go
//! through the rendezvous store as values under keys that name sender, receiver and a
//! sequence number. It stands in for NCCL at exactly its boundary — the rest of a
//! distributed run (launch variables, rendezvous, the rank-aware device slots, every
//! placement and combine) is the same code a GPU run uses. Not meant to be fast: every byte
//! passes through rank 0's store.

use std::collections::HashMap;
use std::rc::Rc;

use futhark_ir::types::PrimType;
use futhark_values::Buffer;

use super::{Communicator, Store};
use crate::backend::PeerBackend;
use crate::cpu::CpuBackend;
use crate::error::{ExecError, Result};

/// Transfers between the ranks' CPU devices through the store.
pub struct StoreComm {
    store: &'static Store,
    rank: usize,
    world: usize,
    /// Transfers so far, by (sender, receiver): the next key's sequence number.
    sent: HashMap<(usize, usize), u64>,
    broadcasts: u64,
}

impl StoreComm {
    pub fn new(store: &'static Store, rank: usize, world: usize) -> StoreComm {
        StoreComm {
            store,
            rank,
            world,
            sent: HashMap::new(),
            broadcasts: 0,
        }
    }

    fn key(&mut self, from: usize, to: usize) -> String {
        let n = self.sent.entry((from, to)).or_default();
        *n += 1;
        format!("p2p/{from}/{to}/{n}")
    }
}

impl Communicator<CpuBackend> for StoreComm {
    fn rank(&self) -> usize {
        self.rank
    }

    fn world(&self) -> usize {
        self.world
    }

    fn send(
        &mut self,
        _dev: &mut CpuBackend,
        src: &Rc<Buffer>,
        src_off: usize,
        len: usize,
        _elem: PrimType,
        to: usize,
    ) -> Result<()> {
        let piece = src
            .slice(src_off, src_off + len)
            .ok_or_else(|| ExecError::malformed("a transfer outside a buffer"))?;
        let key = self.key(self.rank, to);
        self.store.set(&key, &piece.to_le_bytes())
    }

    fn recv(
        &mut self,
        dev: &mut CpuBackend,
        dst: &mut Rc<Buffer>,
        dst_off: usize,
        len: usize,
        elem: PrimType,
        from: usize,
    ) -> Result<()> {
        let key = self.key(from, self.rank);
        let bytes = self.store.take(&key)?;
        let piece = Buffer::from_le_bytes(elem, &bytes)
            .filter(|b| b.len() == len)
            .ok_or_else(|| {
                ExecError::Distributed(format!(
                    "rank {from} sent {} bytes where {len} elements of {elem:?} were expected",
                    bytes.len()
                ))
            })?;
        dev.copy_into(dst, dst_off, None, &Rc::new(piece), 0, len, elem)
    }

    fn broadcast(&mut self, _dev: &mut CpuBackend, bytes: &mut Vec<u8>, root: usize) -> Result<()> {
        self.broadcasts += 1;
        let n = self.broadcasts;
        if self.rank == root {
            for r in (0..self.world).filter(|&r| r != root) {
                self.store.set(&format!("bcast/{n}/{r}"), bytes)?;
            }
        } else {
            *bytes = self.store.take(&format!("bcast/{n}/{}", self.rank))?;
        }
        Ok(())
    }
}
