//! The CPU backend as one of several simulated devices: copies between them are copies
//! between host buffers. `test --mode ir --gpus N` runs split launches this way, so the
//! husk runtime is checked without GPUs.

use std::rc::Rc;
use std::time::Instant;

use futhark_ir::types::PrimType;
use futhark_values::Buffer;

use crate::backend::{PeerBackend, Stamp};
use crate::cpu::CpuBackend;
use crate::error::{ExecError, Result};

impl PeerBackend for CpuBackend {
    fn copy_into(
        &mut self,
        dst: &mut Rc<Buffer>,
        dst_off: usize,
        _from: Option<&mut CpuBackend>,
        src: &Rc<Buffer>,
        src_off: usize,
        len: usize,
        _elem: PrimType,
    ) -> Result<()> {
        let out_of_range = || ExecError::malformed("a copy between devices outside a buffer");
        if dst_off + len > dst.len() {
            return Err(out_of_range());
        }
        let piece = src.slice(src_off, src_off + len).ok_or_else(out_of_range)?;
        let mut joined = dst.slice(0, dst_off).ok_or_else(out_of_range)?;
        let tail = dst
            .slice(dst_off + len, dst.len())
            .ok_or_else(out_of_range)?;
        for part in [&piece, &tail] {
            joined
                .extend_from(part)
                .map_err(|e| ExecError::malformed(e.to_string()))?;
        }
        *dst = Rc::new(joined);
        Ok(())
    }

    // Launches run to completion before `launch` returns, so a host clock read between
    // them times the work exactly, and is always ready.
    fn stamp(&mut self) -> Result<Option<Stamp>> {
        Ok(Some(Stamp::new(Instant::now())))
    }

    fn elapsed_ms(&mut self, start: &Stamp, end: &Stamp) -> Result<Option<f64>> {
        match (start.get::<Instant>(), end.get::<Instant>()) {
            (Some(a), Some(b)) => Ok(Some(b.saturating_duration_since(*a).as_secs_f64() * 1e3)),
            _ => Err(ExecError::Backend(
                "a stamp of another kind of device".into(),
            )),
        }
    }
}
