//! A device slot of a distributed run: one of the run's devices as this rank sees it, either
//! one of its own (launches and copies run) or another rank's (launches are skipped, and a
//! copy to or from it is a transfer through the [`Communicator`]).

use std::cell::RefCell;
use std::rc::Rc;

use futhark_ir::soacs::KernelDef;
use futhark_ir::types::PrimType;
use futhark_values::Buffer;

use super::Communicator;
use crate::backend::{Backend, KernelProfile, PeerBackend};
use crate::error::{ExecError, Result};

/// A buffer of a device slot: its storage on this rank's device, or a stand-in for one that
/// another rank holds.
#[derive(Clone, Debug)]
pub enum Held<B> {
    Here(B),
    Elsewhere,
}

/// What the slots of one rank share: its devices and the communicator.
struct Node<D: PeerBackend> {
    devs: Vec<D>,
    comm: Box<dyn Communicator<D>>,
    rank: usize,
    world: usize,
}

/// Device `g` of the run, as this rank sees it.
pub struct Ranked<D: PeerBackend> {
    g: usize,
    /// The rank driving device `g`, and its index among that rank's devices.
    owner: usize,
    local: usize,
    node: Rc<RefCell<Node<D>>>,
    name: &'static str,
    description: String,
    threads: usize,
}

pub(super) fn slots<D: PeerBackend>(
    local: Vec<D>,
    comm: Box<dyn Communicator<D>>,
) -> Result<Vec<Ranked<D>>> {
    let per_rank = local.len();
    let Some(first) = local.first() else {
        return Err(ExecError::Distributed("a rank without a device".into()));
    };
    // The devices of every rank are taken to be like this rank's (the cost model's threads
    // must be the same number on every rank, or the ranks would decide differently).
    let (name, description, threads) = (first.name(), first.describe(), first.threads());
    let (rank, world) = (comm.rank(), comm.world());
    let node = Rc::new(RefCell::new(Node {
        devs: local,
        comm,
        rank,
        world,
    }));
    Ok((0..per_rank * world)
        .map(|g| Ranked {
            g,
            owner: g / per_rank,
            local: g % per_rank,
            node: node.clone(),
            name,
            description: description.clone(),
            threads,
        })
        .collect())
}

impl<D: PeerBackend> Ranked<D> {
    /// Whether this rank drives the device.
    pub fn is_local(&self) -> bool {
        self.owner == self.node.borrow().rank
    }

    /// The device's index in the run.
    pub fn index(&self) -> usize {
        self.g
    }

    /// `f` on this rank's device, or `other` when another rank drives it.
    fn on<T>(
        &mut self,
        f: impl FnOnce(&mut D) -> Result<T>,
        other: impl FnOnce() -> T,
    ) -> Result<T> {
        let mut node = self.node.borrow_mut();
        if self.owner == node.rank {
            f(&mut node.devs[self.local])
        } else {
            Ok(other())
        }
    }
}

fn here<B>(b: &Held<B>) -> Result<&B> {
    match b {
        Held::Here(b) => Ok(b),
        Held::Elsewhere => Err(ExecError::Distributed(
            "a buffer of another rank's device used on this rank's".into(),
        )),
    }
}

impl<D: PeerBackend> Backend for Ranked<D> {
    type Buf = Held<D::Buf>;

    fn name(&self) -> &'static str {
        self.name
    }

    fn prepare(&mut self, kernels: &[KernelDef]) -> Result<()> {
        self.on(|d| d.prepare(kernels), || ())
    }

    fn upload(&mut self, data: &Rc<Buffer>) -> Result<Self::Buf> {
        // Every rank has the host's values (rank 0 shared the inputs).
        self.on(|d| d.upload(data).map(Held::Here), || Held::Elsewhere)
    }

    /// Collective: the owner reads the elements and broadcasts them, so that every rank's
    /// host code sees the same values.
    fn download(&mut self, buf: &Self::Buf, elem: PrimType, len: usize) -> Result<Rc<Buffer>> {
        let mut node = self.node.borrow_mut();
        let node = &mut *node;
        if node.world == 1 {
            return node.devs[self.local].download(here(buf)?, elem, len);
        }
        let mut bytes = if self.owner == node.rank {
            node.devs[self.local]
                .download(here(buf)?, elem, len)?
                .to_le_bytes()
        } else {
            Vec::new()
        };
        node.comm
            .broadcast(&mut node.devs[0], &mut bytes, self.owner)?;
        Buffer::from_le_bytes(elem, &bytes)
            .map(Rc::new)
            .ok_or_else(|| {
                ExecError::Distributed(format!(
                    "rank {} sent {} bytes for {len} elements of {elem:?}",
                    self.owner,
                    bytes.len()
                ))
            })
    }

    fn alloc(&mut self, elem: PrimType, len: usize) -> Result<Self::Buf> {
        self.on(|d| d.alloc(elem, len).map(Held::Here), || Held::Elsewhere)
    }

    fn unique(&mut self, buf: Self::Buf, elem: PrimType, len: usize) -> Result<Self::Buf> {
        self.on(
            |d| d.unique(here(&buf)?.clone(), elem, len).map(Held::Here),
            || Held::Elsewhere,
        )
    }

    fn launch(&mut self, kd: &KernelDef, sizes: &[i64], arrays: &mut [Self::Buf]) -> Result<()> {
        self.on(
            |d| {
                let mut bufs = arrays
                    .iter()
                    .map(|a| here(a).cloned())
                    .collect::<Result<Vec<_>>>()?;
                d.launch(kd, sizes, &mut bufs)?;
                for (a, b) in arrays.iter_mut().zip(bufs) {
                    *a = Held::Here(b);
                }
                Ok(())
            },
            || (),
        )
    }

    fn profile(&mut self) -> Result<Vec<KernelProfile>> {
        self.on(|d| d.profile(), Vec::new)
    }

    fn set_profiling(&mut self, on: bool) {
        let _ = self.on(
            |d| {
                d.set_profiling(on);
                Ok(())
            },
            || (),
        );
    }

    fn synchronize(&mut self) -> Result<()> {
        self.on(|d| d.synchronize(), || ())
    }

    /// Collective: the owner's answer (a failed check's message, or none) is broadcast, so
    /// every rank stops at the same failure.
    fn check_failures(&mut self) -> Result<()> {
        let mut node = self.node.borrow_mut();
        let node = &mut *node;
        if node.world == 1 {
            return node.devs[self.local].check_failures();
        }
        let mut failure = Vec::new();
        let mine = if self.owner == node.rank {
            let r = node.devs[self.local].check_failures();
            if let Err(e) = &r {
                failure = e.to_string().into_bytes();
            }
            Some(r)
        } else {
            None
        };
        node.comm
            .broadcast(&mut node.devs[0], &mut failure, self.owner)?;
        match mine {
            Some(r) => r,
            None if failure.is_empty() => Ok(()),
            None => Err(ExecError::Distributed(format!(
                "rank {}: {}",
                self.owner,
                String::from_utf8_lossy(&failure)
            ))),
        }
    }
}

impl<D: PeerBackend> PeerBackend for Ranked<D> {
    fn copy_into(
        &mut self,
        dst: &mut Self::Buf,
        dst_off: usize,
        from: Option<&mut Self>,
        src: &Self::Buf,
        src_off: usize,
        len: usize,
        elem: PrimType,
    ) -> Result<()> {
        let mut node = self.node.borrow_mut();
        let node = &mut *node;
        let rank = node.rank;
        let Some(from) = from else {
            if self.owner != rank {
                return Ok(());
            }
            let Held::Here(d) = dst else {
                return Err(ExecError::Distributed("a copy into a stand-in".into()));
            };
            return node.devs[self.local].copy_into(
                d,
                dst_off,
                None,
                here(src)?,
                src_off,
                len,
                elem,
            );
        };
        match (self.owner == rank, from.owner == rank) {
            (true, true) => {
                let Held::Here(d) = dst else {
                    return Err(ExecError::Distributed("a copy into a stand-in".into()));
                };
                let (a, b) = (self.local, from.local);
                if a == b {
                    return node.devs[a].copy_into(
                        d,
                        dst_off,
                        None,
                        here(src)?,
                        src_off,
                        len,
                        elem,
                    );
                }
                let (to, source) = if a < b {
                    let (lo, hi) = node.devs.split_at_mut(b);
                    (&mut lo[a], &mut hi[0])
                } else {
                    let (lo, hi) = node.devs.split_at_mut(a);
                    (&mut hi[0], &mut lo[b])
                };
                to.copy_into(d, dst_off, Some(source), here(src)?, src_off, len, elem)
            }
            (true, false) => {
                let Held::Here(d) = dst else {
                    return Err(ExecError::Distributed("a copy into a stand-in".into()));
                };
                node.comm.recv(
                    &mut node.devs[self.local],
                    d,
                    dst_off,
                    len,
                    elem,
                    from.owner,
                )
            }
            (false, true) => node.comm.send(
                &mut node.devs[from.local],
                here(src)?,
                src_off,
                len,
                elem,
                self.owner,
            ),
            (false, false) => Ok(()),
        }
    }

    fn describe(&self) -> String {
        format!("{} (rank {})", self.description, self.owner)
    }

    fn threads(&self) -> usize {
        self.threads
    }
}
