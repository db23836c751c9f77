//! The small kernel programs that combine the pieces of a split launch: an ordered
//! reduction of per-device partials, the scan of the pieces' totals and the carry map that
//! adds them, and the bucket-wise fold of subhistograms. They are built from the kernel's
//! own operator, so every combine runs on a device, in device order.

use futhark_ir::husk::{Combine, Husk, apply_op};
use futhark_ir::soacs::KernelDef;
use futhark_ir::types::PrimType;
use futhark_ir::{
    ArrayDecl, Body, Exp, Kernel, KernelProgram, Lambda, SegMap, SegOp, SegRed, SegScan, SegSpace,
    Size,
};

use super::place::copy_between;
use crate::backend::PeerBackend;
use crate::error::{ExecError, Result};

/// Per result, each active device's `(device, buffer)`, in device order.
pub(crate) type PerDevice<B> = Vec<Vec<(usize, B)>>;

/// The index of the helper kernels (distinct from any operator parameter of the front end,
/// whose names never contain `husk_`).
const IDX: &str = "husk_i";

/// A kernel's piece and combine programs.
#[derive(Clone, Debug)]
pub(crate) struct Helpers {
    pub piece: KernelDef,
    /// Reduce: folds `k` partial arrays of `g` elements into `k` scalars.
    pub red: Option<KernelDef>,
    /// Scan: the inclusive scan of the pieces' last elements, and the carry map.
    pub scan: Option<(KernelDef, KernelDef)>,
    /// Histogram: `o = op(a, b)` bucket-wise.
    pub hist: Option<KernelDef>,
    /// Histogram: per result, `o[i] = neutral` (the subhistograms of the devices after the
    /// first start from the neutral element, filled on the device, not uploaded).
    pub fill: Vec<KernelDef>,
}

fn decl(name: String, elem: PrimType, shape: Vec<Size>) -> ArrayDecl {
    ArrayDecl { name, elem, shape }
}

fn def(kernel: &str, suffix: &str, program: KernelProgram) -> KernelDef {
    KernelDef {
        name: format!("{kernel}__{suffix}"),
        program,
    }
}

/// The operator's component types (its first half of parameters).
fn components(op: &Lambda) -> Vec<PrimType> {
    op.params[..op.params.len() / 2]
        .iter()
        .map(|(_, t)| *t)
        .collect()
}

fn names(prefix: &str, k: usize) -> Vec<String> {
    (0..k).map(|j| format!("{prefix}{j}")).collect()
}

fn reads(arrays: &[String], at: Exp) -> Vec<Exp> {
    arrays.iter().map(|a| Exp::read(a, at.clone())).collect()
}

/// Builds the programs a kernel's husk needs.
pub(crate) fn build(kernel: &str, h: &Husk, original: &KernelProgram) -> Result<Helpers> {
    let piece = def(kernel, "piece", h.piece.clone());
    let g = Size::param("g");
    let n = Size::param("n");
    let idx = || Exp::var(IDX);
    let mut out = Helpers {
        piece,
        red: None,
        scan: None,
        hist: None,
        fill: Vec::new(),
    };
    let check = |op: &Lambda| -> Result<()> {
        if !op.params.len().is_multiple_of(2) || op.params.is_empty() {
            return Err(ExecError::malformed(format!(
                "kernel `{kernel}`: an operator with {} parameters",
                op.params.len()
            )));
        }
        Ok(())
    };
    match &h.combine {
        Combine::Rows => {}
        Combine::Reduce { op, neutral } => {
            check(op)?;
            let ts = components(op);
            let (ps, rs) = (names("p", ts.len()), names("r", ts.len()));
            let mut arrays: Vec<ArrayDecl> = ps
                .iter()
                .zip(&ts)
                .map(|(p, t)| decl(p.clone(), *t, vec![g.clone()]))
                .collect();
            arrays.extend(rs.iter().zip(&ts).map(|(r, t)| decl(r.clone(), *t, vec![])));
            out.red = Some(def(
                kernel,
                "red",
                KernelProgram {
                    intra: None,
                    sizes: vec!["g".into()],
                    arrays,
                    kernels: vec![Kernel {
                        name: "combine".into(),
                        op: SegOp::Red(SegRed {
                            space: SegSpace::flat(IDX, g.clone()),
                            body: Body::results(reads(&ps, idx())),
                            op: op.clone(),
                            neutral: neutral.clone(),
                            commutative: false,
                            outputs: rs,
                        }),
                    }],
                },
            ));
        }
        Combine::ScanCarry { op } => {
            check(op)?;
            let ts = components(op);
            let k = ts.len();
            let (ls, ss) = (names("l", k), names("s", k));
            let mut arrays: Vec<ArrayDecl> = ls
                .iter()
                .zip(&ts)
                .map(|(l, t)| decl(l.clone(), *t, vec![g.clone()]))
                .collect();
            arrays.extend(
                ss.iter()
                    .zip(&ts)
                    .map(|(s, t)| decl(s.clone(), *t, vec![g.clone()])),
            );
            // The scan's own neutral element (a backend may start its scan from it).
            let neutral = match original.kernels.first().map(|k| &k.op) {
                Some(SegOp::Scan(s)) => s.neutral.clone(),
                _ => return Err(ExecError::malformed("a split scan that is not a scan")),
            };
            let scan = def(
                kernel,
                "scan",
                KernelProgram {
                    intra: None,
                    sizes: vec!["g".into()],
                    arrays,
                    kernels: vec![Kernel {
                        name: "totals".into(),
                        op: SegOp::Scan(SegScan {
                            space: SegSpace::flat(IDX, g.clone()),
                            body: Body::results(reads(&ls, idx())),
                            op: op.clone(),
                            neutral,
                            outputs: ss,
                        }),
                    }],
                },
            );
            let (cs, xs, ys) = (names("c", k), names("x", k), names("y", k));
            let mut arrays: Vec<ArrayDecl> = cs
                .iter()
                .zip(&ts)
                .map(|(c, t)| decl(c.clone(), *t, vec![]))
                .collect();
            for (a, t) in xs.iter().chain(&ys).zip(ts.iter().chain(&ts)) {
                arrays.push(decl(a.clone(), *t, vec![n.clone()]));
            }
            let carry = def(
                kernel,
                "carry",
                KernelProgram {
                    intra: None,
                    sizes: vec!["n".into()],
                    arrays,
                    kernels: vec![Kernel {
                        name: "carry".into(),
                        op: SegOp::Map(SegMap {
                            space: SegSpace::flat(IDX, n.clone()),
                            body: apply_op(op, reads(&cs, Exp::i64(0)), reads(&xs, idx())),
                            outputs: ys,
                        }),
                    }],
                },
            );
            out.scan = Some((scan, carry));
        }
        Combine::Hist { op, neutral } => {
            check(op)?;
            let ts = components(op);
            let k = ts.len();
            for (j, (ne, t)) in neutral.iter().zip(&ts).enumerate() {
                out.fill.push(def(
                    kernel,
                    &format!("fill{j}"),
                    KernelProgram {
                        intra: None,
                        sizes: vec!["n".into()],
                        arrays: vec![decl("o".into(), *t, vec![n.clone()])],
                        kernels: vec![Kernel {
                            name: "fill".into(),
                            op: SegOp::Map(SegMap {
                                space: SegSpace::flat(IDX, n.clone()),
                                body: Body::results(vec![Exp::Const(*ne)]),
                                outputs: vec!["o".into()],
                            }),
                        }],
                    },
                ));
            }
            let (as_, bs, os) = (names("a", k), names("b", k), names("o", k));
            let mut arrays = Vec::new();
            for group in [&as_, &bs, &os] {
                for (a, t) in group.iter().zip(&ts) {
                    arrays.push(decl(a.clone(), *t, vec![n.clone()]));
                }
            }
            out.hist = Some(def(
                kernel,
                "hist",
                KernelProgram {
                    intra: None,
                    sizes: vec!["n".into()],
                    arrays,
                    kernels: vec![Kernel {
                        name: "merge".into(),
                        op: SegOp::Map(SegMap {
                            space: SegSpace::flat(IDX, n),
                            body: apply_op(op, reads(&as_, idx()), reads(&bs, idx())),
                            outputs: os,
                        }),
                    }],
                },
            ));
        }
    }
    Ok(out)
}

impl Helpers {
    /// Every program, for preparing them on the devices.
    pub(crate) fn all(&self) -> Vec<KernelDef> {
        let mut v = vec![self.piece.clone()];
        v.extend(self.red.clone());
        if let Some((s, c)) = &self.scan {
            v.push(s.clone());
            v.push(c.clone());
        }
        v.extend(self.hist.clone());
        v.extend(self.fill.iter().cloned());
        v
    }
}

fn missing(what: &str) -> ExecError {
    ExecError::malformed(format!("split launch without its {what} program"))
}

/// Folds each result's partials (one per active device, in device order) on device `first`.
pub(crate) fn combine_reduce<D: PeerBackend>(
    devs: &mut [D],
    helpers: &Helpers,
    elems: &[PrimType],
    first: usize,
    partials: Vec<Vec<(usize, D::Buf)>>,
    moved: &mut u64,
) -> Result<Vec<D::Buf>> {
    let red = helpers.red.as_ref().ok_or_else(|| missing("reduction"))?;
    let count = partials.first().map_or(0, Vec::len);
    let mut bufs = Vec::new();
    for (res, &t) in partials.iter().zip(elems) {
        let mut p = devs[first].alloc(t, count)?;
        for (j, (g, b)) in res.iter().enumerate() {
            copy_between(devs, first, &mut p, j, *g, b, 0, 1, t, moved)?;
        }
        bufs.push(p);
    }
    for &t in elems {
        bufs.push(devs[first].alloc(t, 1)?);
    }
    devs[first].launch(red, &[count as i64], &mut bufs)?;
    Ok(bufs.split_off(elems.len()))
}

/// Adds to each piece of a split scan the scan of the earlier pieces' totals. `pieces`
/// holds, per result, each active device's `(device, buffer, length)` in device order.
pub(crate) fn combine_scan<D: PeerBackend>(
    devs: &mut [D],
    helpers: &Helpers,
    elems: &[PrimType],
    pieces: Vec<Vec<(usize, D::Buf, usize)>>,
    moved: &mut u64,
) -> Result<PerDevice<D::Buf>> {
    let (scan, carry) = helpers.scan.as_ref().ok_or_else(|| missing("scan"))?;
    let count = pieces.first().map_or(0, Vec::len);
    let strip = |pieces: Vec<Vec<(usize, D::Buf, usize)>>| {
        pieces
            .into_iter()
            .map(|r| r.into_iter().map(|(g, b, _)| (g, b)).collect())
            .collect()
    };
    if count <= 1 {
        return Ok(strip(pieces));
    }
    let first = pieces[0][0].0;
    // The pieces' last elements, gathered on the first device, then scanned.
    let mut bufs = Vec::new();
    for (res, &t) in pieces.iter().zip(elems) {
        let mut l = devs[first].alloc(t, count)?;
        for (j, (g, b, len)) in res.iter().enumerate() {
            copy_between(devs, first, &mut l, j, *g, b, len - 1, 1, t, moved)?;
        }
        bufs.push(l);
    }
    for &t in elems {
        bufs.push(devs[first].alloc(t, count)?);
    }
    devs[first].launch(scan, &[count as i64], &mut bufs)?;
    let totals = bufs.split_off(elems.len());
    let mut out = strip(pieces.clone());
    for j in 1..count {
        let (g, len) = (pieces[0][j].0, pieces[0][j].2);
        let mut args = Vec::new();
        for (s, &t) in totals.iter().zip(elems) {
            let mut c = devs[g].alloc(t, 1)?;
            copy_between(devs, g, &mut c, 0, first, s, j - 1, 1, t, moved)?;
            args.push(c);
        }
        for res in &pieces {
            args.push(res[j].1.clone());
        }
        for &t in elems {
            args.push(devs[g].alloc(t, len)?);
        }
        devs[g].launch(carry, &[len as i64], &mut args)?;
        let ys = args.split_off(2 * elems.len());
        for (r, y) in out.iter_mut().zip(ys) {
            r[j].1 = y;
        }
    }
    Ok(out)
}

/// Folds the subhistograms of every active device into the first one's, bucket-wise in
/// device order. `subs` holds, per result, each active device's `(device, buffer)`.
pub(crate) fn combine_hist<D: PeerBackend>(
    devs: &mut [D],
    helpers: &Helpers,
    elems: &[PrimType],
    buckets: usize,
    subs: Vec<Vec<(usize, D::Buf)>>,
    moved: &mut u64,
) -> Result<Vec<D::Buf>> {
    let hist = helpers.hist.as_ref().ok_or_else(|| missing("histogram"))?;
    let count = subs.first().map_or(0, Vec::len);
    if count == 0 {
        return Err(ExecError::malformed("histogram split over no device"));
    }
    let first = subs[0][0].0;
    let mut acc: Vec<D::Buf> = subs.iter().map(|r| r[0].1.clone()).collect();
    for j in 1..count {
        let g = subs[0][j].0;
        let mut args = acc.clone();
        for (res, &t) in subs.iter().zip(elems) {
            let mut b = devs[first].alloc(t, buckets)?;
            copy_between(devs, first, &mut b, 0, g, &res[j].1, 0, buckets, t, moved)?;
            args.push(b);
        }
        for &t in elems {
            args.push(devs[first].alloc(t, buckets)?);
        }
        devs[first].launch(hist, &[buckets as i64], &mut args)?;
        acc = args.split_off(2 * elems.len());
    }
    Ok(acc)
}
