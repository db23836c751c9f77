//! Where an array's elements are across devices, and the copies that bring them where a
//! launch needs them.

use std::cell::RefCell;
use std::ops::Range;
use std::rc::Rc;

use futhark_ir::types::PrimType;
use futhark_values::Buffer;

use crate::backend::PeerBackend;
use crate::error::{ExecError, Result};

/// An array spread over devices. Every representation it holds has the same elements: whole
/// copies on some devices, and/or one partition by rows. A fresh output has none until the
/// launch that writes it places it.
#[derive(Debug)]
pub struct MultiBuf<B> {
    pub elem: PrimType,
    /// Elements.
    pub len: usize,
    state: RefCell<State<B>>,
}

#[derive(Debug)]
struct State<B> {
    /// Whole copies, by device.
    whole: Vec<Option<B>>,
    /// Element ranges by device (contiguous, in device order, covering `0..len`) and the
    /// buffer holding each non-empty range.
    parts: Option<Parts<B>>,
    /// For a small array the host uploaded: its elements, uploaded to another device when a
    /// launch there needs them (straight from the host, so it waits for nothing queued on
    /// the device that has it, and devices that never need it never get it).
    host: Option<Rc<Buffer>>,
    /// The split kernel whose pieces wrote the current partition, while nothing else has
    /// written the array: copies it causes later are charged to that kernel's next decision.
    producer: Option<Rc<str>>,
}

/// A partition: element ranges by device and the buffer of each non-empty one.
type Parts<B> = (Vec<Range<usize>>, Vec<Option<B>>);

impl<B: Clone> MultiBuf<B> {
    pub(crate) fn new(elem: PrimType, len: usize, devices: usize) -> MultiBuf<B> {
        MultiBuf {
            elem,
            len,
            state: RefCell::new(State {
                whole: vec![None; devices],
                parts: None,
                host: None,
                producer: None,
            }),
        }
    }

    /// After a write: the elements are exactly `buf` on device `g`.
    pub(crate) fn set_whole(&self, g: usize, buf: B) {
        let mut st = self.state.borrow_mut();
        st.whole.iter_mut().for_each(|w| *w = None);
        st.whole[g] = Some(buf);
        st.parts = None;
        st.host = None;
        st.producer = None;
    }

    /// Uploaded from the host: `buf` on device `g`, and the host's elements for any other
    /// device that needs them.
    pub(crate) fn set_uploaded(&self, g: usize, buf: B, host: Rc<Buffer>) {
        self.set_whole(g, buf);
        self.state.borrow_mut().host = Some(host);
    }

    /// After a split write: the elements are exactly these parts.
    pub(crate) fn set_parts(&self, ranges: Vec<Range<usize>>, parts: Vec<Option<B>>) {
        let mut st = self.state.borrow_mut();
        st.whole.iter_mut().for_each(|w| *w = None);
        st.parts = Some((ranges, parts));
        st.host = None;
        st.producer = None;
    }

    /// Records that the pieces of kernel `k` wrote the current partition.
    pub(crate) fn set_producer(&self, k: Rc<str>) {
        self.state.borrow_mut().producer = Some(k);
    }

    /// The split kernel that wrote the current partition, if one did.
    pub(crate) fn producer(&self) -> Option<Rc<str>> {
        self.state.borrow().producer.clone()
    }

    /// Which devices hold a whole copy, and whether it is partitioned (for the cost model).
    pub(crate) fn layout(&self) -> (Vec<bool>, Option<Vec<Range<usize>>>) {
        let st = self.state.borrow();
        (
            st.whole
                .iter()
                .map(|w| w.is_some() || st.host.is_some())
                .collect(),
            st.parts.as_ref().map(|(r, _)| r.clone()),
        )
    }
}

/// Two distinct devices of a slice, mutably.
fn pair<D>(devs: &mut [D], a: usize, b: usize) -> (&mut D, &mut D) {
    debug_assert_ne!(a, b);
    if a < b {
        let (lo, hi) = devs.split_at_mut(b);
        (&mut lo[a], &mut hi[0])
    } else {
        let (lo, hi) = devs.split_at_mut(a);
        (&mut hi[0], &mut lo[b])
    }
}

/// Copies `len` elements from `src` on device `from` into `dst` on device `to`, counting the
/// bytes that cross between devices.
#[allow(clippy::too_many_arguments)]
pub(crate) fn copy_between<D: PeerBackend>(
    devs: &mut [D],
    to: usize,
    dst: &mut D::Buf,
    dst_off: usize,
    from: usize,
    src: &D::Buf,
    src_off: usize,
    len: usize,
    elem: PrimType,
    moved: &mut u64,
) -> Result<()> {
    if len == 0 {
        return Ok(());
    }
    if to == from {
        devs[to].copy_into(dst, dst_off, None, src, src_off, len, elem)
    } else {
        *moved += (len * elem.size_bytes()) as u64;
        let (d, s) = pair(devs, to, from);
        d.copy_into(dst, dst_off, Some(s), src, src_off, len, elem)
    }
}

/// The whole array on device `g`, copied there (and kept) if it is not there yet.
pub(crate) fn whole_on<D: PeerBackend>(
    devs: &mut [D],
    g: usize,
    a: &MultiBuf<D::Buf>,
    moved: &mut u64,
) -> Result<D::Buf> {
    if let Some(b) = &a.state.borrow().whole[g] {
        return Ok(b.clone());
    }
    let host = a.state.borrow().host.clone();
    if let Some(host) = host {
        let dst = devs[g].upload(&host)?;
        a.state.borrow_mut().whole[g] = Some(dst.clone());
        return Ok(dst);
    }
    let mut dst = devs[g].alloc(a.elem, a.len)?;
    let source = {
        let st = a.state.borrow();
        // Prefer the nearest whole copy (lowest device number); else the parts.
        match st.whole.iter().position(Option::is_some) {
            Some(h) => Some((h, st.whole[h].clone())),
            None => None,
        }
    };
    match source {
        Some((h, Some(src))) => {
            copy_between(devs, g, &mut dst, 0, h, &src, 0, a.len, a.elem, moved)?;
        }
        _ => {
            let parts = a.state.borrow().parts.clone();
            // Without parts it was never written: a fresh output placed here.
            if let Some((ranges, bufs)) = parts {
                {
                    for (h, (r, b)) in ranges.iter().zip(&bufs).enumerate() {
                        if let Some(b) = b {
                            copy_between(
                                devs,
                                g,
                                &mut dst,
                                r.start,
                                h,
                                b,
                                0,
                                r.end - r.start,
                                a.elem,
                                moved,
                            )?;
                        }
                    }
                }
            }
        }
    }
    a.state.borrow_mut().whole[g] = Some(dst.clone());
    Ok(dst)
}

/// The array partitioned as `ranges` (one element range per device), made (and kept) from
/// whatever it holds now. Returns each device's buffer (`None` for empty ranges).
pub(crate) fn partition<D: PeerBackend>(
    devs: &mut [D],
    a: &MultiBuf<D::Buf>,
    ranges: &[Range<usize>],
    moved: &mut u64,
) -> Result<Vec<Option<D::Buf>>> {
    if let Some((r, bufs)) = &a.state.borrow().parts
        && r.as_slice() == ranges
    {
        return Ok(bufs.clone());
    }
    if a.state.borrow().host.is_some() {
        // Small and on the host: a whole copy on each device that gets rows, from the host.
        for (g, r) in ranges.iter().enumerate() {
            if r.end > r.start {
                whole_on(devs, g, a, moved)?;
            }
        }
    }
    let (whole, old_parts) = {
        let st = a.state.borrow();
        (st.whole.clone(), st.parts.clone())
    };
    let mut out = Vec::with_capacity(ranges.len());
    for (g, r) in ranges.iter().enumerate() {
        let len = r.end - r.start;
        if len == 0 {
            out.push(None);
            continue;
        }
        let mut dst = devs[g].alloc(a.elem, len)?;
        // A whole copy on this device, else on any device, else the old parts that overlap.
        let src = whole[g].clone().map(|b| (g, b)).or_else(|| {
            whole
                .iter()
                .enumerate()
                .find_map(|(h, b)| b.clone().map(|b| (h, b)))
        });
        if let Some((h, b)) = src {
            copy_between(devs, g, &mut dst, 0, h, &b, r.start, len, a.elem, moved)?;
        } else if let Some((pr, pb)) = &old_parts {
            for (h, (q, b)) in pr.iter().zip(pb).enumerate() {
                let (lo, hi) = (q.start.max(r.start), q.end.min(r.end));
                if lo < hi
                    && let Some(b) = b
                {
                    copy_between(
                        devs,
                        g,
                        &mut dst,
                        lo - r.start,
                        h,
                        b,
                        lo - q.start,
                        hi - lo,
                        a.elem,
                        moved,
                    )?;
                }
            }
        } else {
            return Err(ExecError::Backend(
                "an array read before anything was written to it".into(),
            ));
        }
        out.push(Some(dst));
    }
    // Keep the partition beside the whole copies (the old partition, if any, is replaced:
    // one partition is kept at a time).
    a.state.borrow_mut().parts = Some((ranges.to_vec(), out.clone()));
    Ok(out)
}

/// The first `len` elements on the host.
pub(crate) fn download<D: PeerBackend>(
    devs: &mut [D],
    a: &MultiBuf<D::Buf>,
    elem: PrimType,
    len: usize,
) -> Result<Rc<Buffer>> {
    let (whole, parts) = {
        let st = a.state.borrow();
        (st.whole.clone(), st.parts.clone())
    };
    if let Some((g, b)) = whole
        .iter()
        .enumerate()
        .find_map(|(g, b)| b.clone().map(|b| (g, b)))
    {
        return devs[g].download(&b, elem, len);
    }
    let Some((ranges, bufs)) = parts else {
        // Never written: contents unspecified.
        return Ok(Rc::new(Buffer::zeros(elem, len)));
    };
    let mut out = Buffer::new(elem);
    for (g, (r, b)) in ranges.iter().zip(&bufs).enumerate() {
        if r.start >= len {
            break;
        }
        if let Some(b) = b {
            let take = r.end.min(len) - r.start;
            let part = devs[g].download(b, elem, take)?;
            out.extend_from(&part)
                .map_err(|e| ExecError::Backend(e.to_string()))?;
        }
    }
    Ok(Rc::new(out))
}

/// A copy that shares no storage with `a` (for an in-place update of a shared array).
pub(crate) fn copy<D: PeerBackend>(
    devs: &mut [D],
    a: &MultiBuf<D::Buf>,
) -> Result<MultiBuf<D::Buf>> {
    let out = MultiBuf::new(a.elem, a.len, devs.len());
    let (whole, parts) = {
        let st = a.state.borrow();
        (st.whole.clone(), st.parts.clone())
    };
    if let Some((g, b)) = whole
        .iter()
        .enumerate()
        .find_map(|(g, b)| b.clone().map(|b| (g, b)))
    {
        let mut dst = devs[g].alloc(a.elem, a.len)?;
        devs[g].copy_into(&mut dst, 0, None, &b, 0, a.len, a.elem)?;
        out.set_whole(g, dst);
    } else if let Some((ranges, bufs)) = parts {
        let mut fresh = Vec::with_capacity(bufs.len());
        for (g, (r, b)) in ranges.iter().zip(&bufs).enumerate() {
            fresh.push(match b {
                Some(b) => {
                    let mut dst = devs[g].alloc(a.elem, r.end - r.start)?;
                    devs[g].copy_into(&mut dst, 0, None, b, 0, r.end - r.start, a.elem)?;
                    Some(dst)
                }
                None => None,
            });
        }
        out.set_parts(ranges, fresh);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::Backend;
    use crate::cpu::CpuBackend;

    #[test]
    fn a_small_upload_reaches_other_devices_only_when_needed_and_from_the_host() {
        let mut devs: Vec<CpuBackend> = (0..3).map(|_| CpuBackend::new()).collect();
        let host = Rc::new(Buffer::I64(vec![7, 8, 9]));
        let a = MultiBuf::new(PrimType::I64, 3, devs.len());
        a.set_uploaded(0, devs[0].upload(&host).unwrap(), host.clone());
        // Only device 0 holds a copy, but every device counts as having it for the cost model.
        assert!(a.state.borrow().whole[1].is_none());
        assert_eq!(a.layout().0, vec![true, true, true]);
        let mut moved = 0;
        let b = whole_on(&mut devs, 2, &a, &mut moved).unwrap();
        assert_eq!(
            moved, 0,
            "uploaded from the host, not copied between devices"
        );
        assert_eq!(*devs[2].download(&b, PrimType::I64, 3).unwrap(), *host);
        assert!(a.state.borrow().whole[1].is_none());
        // Rows for devices 0 and 1 only: device 2 gets nothing more, nothing crosses devices.
        let parts = partition(&mut devs, &a, &[0..2, 2..3, 3..3], &mut moved).unwrap();
        assert_eq!(moved, 0);
        assert_eq!(
            *devs[1]
                .download(parts[1].as_ref().unwrap(), PrimType::I64, 1)
                .unwrap(),
            Buffer::I64(vec![9])
        );
        assert!(parts[2].is_none());
        // A write drops the host copy: the elements are what the device holds now.
        a.set_whole(
            1,
            devs[1]
                .upload(&Rc::new(Buffer::I64(vec![1, 2, 3])))
                .unwrap(),
        );
        assert_eq!(a.layout().0, vec![false, true, false]);
    }
}
