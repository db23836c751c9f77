//! Whether splitting a launch over the devices pays: the single-device time the kernel is
//! expected to take, against what splitting adds (launching on every device, moving the
//! inputs that are not where the pieces need them, combining). Small kernels and
//! copy-bound kernels over data that sits on one device stay there (seed 000 lost 0.22× on
//! CFD and at Mandelbrot depth 100 by splitting such work).

use std::rc::Rc;

use futhark_ir::husk::{Combine, Husk};
use futhark_ir::{Exp, KernelProgram, Stm};

#[cfg(test)]
use super::element_ranges;
use super::place::MultiBuf;
use super::size_value;

/// Device-memory bandwidth assumed for one device (bytes/s); H200-class.
const MEMORY_BW: f64 = 3.0e12;
/// Peer (NVLink) bandwidth between two devices (bytes/s), as measured on the lent pairs.
const PEER_BW: f64 = 3.5e11;
/// Seconds per IR operation per point (a conservative throughput for scalar code).
const OP_TIME: f64 = 1.0e-13;
/// Launching and synchronising one more device (s).
const PER_DEVICE: f64 = 8e-6;
/// A combine step (launches of the small combine kernels and their copies) (s).
const COMBINE: f64 = 30e-6;
/// Trip count assumed for a loop whose bound is not known before the launch.
const UNKNOWN_TRIPS: f64 = 64.0;

/// The estimates behind a decision to split (seconds).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Estimate {
    /// The launch on one device.
    pub single: f64,
    /// The split launch, not counting copies between devices.
    pub fixed: f64,
}

impl Estimate {
    /// Whether splitting pays when `moved` bytes cross between devices.
    pub fn pays(&self, moved: f64) -> bool {
        (self.fixed + moved / PEER_BW) * MARGIN < self.single
    }
}

/// How much faster a split must be expected to be.
const MARGIN: f64 = 1.1;

/// `Ok` when the launch should be split, else why not. `later` is what earlier split
/// launches of this kernel cost afterwards, in bytes copied between devices per launch
/// (their partitioned results gathered or broadcast for the next launches).
///
/// `steady`: the kernel runs repeatedly (a loop's body), so judge it by its steady state:
/// an aligned input that sits whole on one device is not counted as moved, because once
/// the kernels around it split, their partitioned results stay where the next iteration's
/// pieces read them (LocVolCalib's time steps: every kernel reads the previous kernels'
/// results row by row; counted one kernel at a time from a whole start, none would ever
/// split). The caller checks that trust against the bytes the kernel's later split
/// launches actually move ([`Estimate::pays`]).
///
/// `ops` is [`kernel_ops`] for these sizes (the caller keeps it: walking a large body on
/// every launch of a small kernel costs microseconds, as does formatting a reason, which is
/// why a decline is a value that formats itself only when `--profile` prints it).
#[allow(clippy::too_many_arguments)]
pub(crate) fn decide<B: Clone>(
    prog: &KernelProgram,
    h: &Husk,
    sizes: &[i64],
    arrays: &[Rc<MultiBuf<B>>],
    devices: usize,
    threads: usize,
    later: f64,
    ops: f64,
    steady: bool,
) -> Result<Estimate, Declined> {
    let size = |s| size_value(prog, sizes, s);
    let kernel = &prog.kernels[0];
    let space = kernel.op.space();
    let points: f64 = space
        .dims
        .iter()
        .map(|(_, s)| size(s).max(0) as f64)
        .product();
    let rows = size(&h.split).max(0) as usize;
    let active = rows.min(devices);
    if active < 2 {
        return Err(Declined::Rows(rows));
    }
    let bytes: f64 = arrays
        .iter()
        .map(|a| (a.len * a.elem.size_bytes()) as f64)
        .sum();
    // Compute time goes by waves of `threads` points: a kernel with fewer points than the
    // device runs at once takes as long as a full wave (each thread's own loop is the
    // critical path), so splitting it gains nothing.
    let wave = threads.max(1) as f64;
    let compute = |p: f64| (p / wave).ceil() * wave * ops.max(1.0) * OP_TIME;
    // Bytes that must cross between devices before the pieces can run.
    let mut moved = later;
    let mut gather = 0.0;
    for (decl, a) in prog.arrays.iter().zip(arrays) {
        let nbytes = (a.len * a.elem.size_bytes()) as f64;
        let (whole, parts) = a.layout();
        if h.private.contains(&decl.name) {
            continue;
        }
        if h.results.contains(&decl.name) {
            if matches!(h.combine, Combine::Hist { .. }) {
                // Every other subhistogram comes back to device 0.
                moved += nbytes * (active - 1) as f64;
            }
            continue;
        }
        if parts.is_some() && !whole[0] {
            // Kept whole, device 0 would first gather what the others hold.
            gather += nbytes * (devices - 1) as f64 / devices as f64;
        }
        if h.aligned.contains(&decl.name) {
            // Partitioned rows, even or not, are what the pieces take (`common_rows`).
            if parts.is_none() && !whole.iter().all(|w| *w) && !steady {
                moved += nbytes * (active - 1) as f64 / active as f64;
            }
        } else {
            let missing = whole.iter().take(active).filter(|w| !**w).count();
            moved += nbytes * missing as f64;
        }
    }
    let combine = match h.combine {
        Combine::Rows => 0.0,
        _ => COMBINE,
    };
    // A whole launch gathers its partitioned inputs first: in a chain of kernels that keep
    // their results partitioned, keeping one kernel whole costs those copies.
    let single = compute(points) + bytes / MEMORY_BW + gather / PEER_BW;
    let fixed = compute((points / active as f64).ceil())
        + bytes / MEMORY_BW / active as f64
        + PER_DEVICE * active as f64
        + combine;
    let split = fixed + moved / PEER_BW;
    let estimate = Estimate { single, fixed };
    if estimate.pays(moved) {
        Ok(estimate)
    } else {
        Err(Declined::NotPay {
            single,
            split,
            active,
            moved,
        })
    }
}

/// Why a launch was kept on one device.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Declined {
    /// Fewer than two rows to split.
    Rows(usize),
    /// The estimates (seconds, bytes) said no.
    NotPay {
        single: f64,
        split: f64,
        active: usize,
        moved: f64,
    },
}

impl std::fmt::Display for Declined {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Declined::Rows(rows) => write!(f, "{rows} row(s) to split"),
            Declined::NotPay {
                single,
                split,
                active,
                moved,
            } => write!(
                f,
                "splitting would not pay (about {:.0} µs on one GPU, {:.0} µs over {active} with {:.1} MB between GPUs)",
                single * 1e6,
                split * 1e6,
                moved / 1e6
            ),
        }
    }
}

/// Operations per point of the program's (first) kernel under these sizes.
pub(crate) fn kernel_ops(prog: &KernelProgram, sizes: &[i64]) -> f64 {
    let body = prog.kernels[0].op.body();
    body_ops(&body.stms, prog, sizes) + body.results.iter().map(exp_ops).sum::<f64>()
}

/// Operations per point of a body: expression nodes, loops times their trip count (when it
/// is a constant or a size parameter, else a guess).
fn body_ops(stms: &[Stm], prog: &KernelProgram, sizes: &[i64]) -> f64 {
    stms.iter()
        .map(|s| match s {
            Stm::Let { exp, .. } | Stm::Assign { exp, .. } => exp_ops(exp),
            Stm::Mut { init, .. } => exp_ops(init),
            Stm::For { bound, body, .. } => {
                let trips = match bound {
                    Exp::Const(c) => {
                        crate::prim::as_i64(*c).map_or(UNKNOWN_TRIPS, |n| n.max(0) as f64)
                    }
                    Exp::Var(v) => prog
                        .sizes
                        .iter()
                        .position(|p| p == v)
                        .and_then(|i| sizes.get(i))
                        .map_or(UNKNOWN_TRIPS, |n| (*n).max(0) as f64),
                    _ => UNKNOWN_TRIPS,
                };
                trips * (1.0 + body_ops(body, prog, sizes))
            }
            Stm::If {
                cond,
                then_branch,
                else_branch,
            } => {
                exp_ops(cond)
                    + body_ops(then_branch, prog, sizes).max(body_ops(else_branch, prog, sizes))
            }
            Stm::Write { index, value, .. } => exp_ops(index) + exp_ops(value),
            #[allow(unreachable_patterns)]
            _ => 1.0,
        })
        .sum()
}

fn exp_ops(e: &Exp) -> f64 {
    match e {
        Exp::Const(_) | Exp::Var(_) => 0.0,
        Exp::Bin(_, a, b) | Exp::Cmp(_, a, b) => 1.0 + exp_ops(a) + exp_ops(b),
        Exp::Un(_, a) | Exp::Conv(_, a) => 1.0 + exp_ops(a),
        Exp::Math(_, args) => 4.0 + args.iter().map(exp_ops).sum::<f64>(),
        Exp::Select(c, t, f) => 1.0 + exp_ops(c) + exp_ops(t) + exp_ops(f),
        Exp::Read(_, i) => 2.0 + exp_ops(i),
        #[allow(unreachable_patterns)]
        _ => 1.0,
    }
}

#[cfg(test)]
mod tests {
    use futhark_ir::husk::husk;
    use futhark_ir::{
        ArrayDecl, Body, Kernel, KernelProgram, PrimType, SegMap, SegOp, SegSpace, Size, Stm,
    };

    use super::*;

    fn arr(name: &str, shape: Vec<Size>) -> ArrayDecl {
        ArrayDecl {
            name: name.into(),
            elem: PrimType::F32,
            shape,
        }
    }

    /// `out[i] = xs[i] * 2 + 1`, or with `steps` iterations of a loop per point.
    fn map(loop_bound: Option<Exp>) -> KernelProgram {
        let n = Size::param("n");
        let mut stms = Vec::new();
        let mut result = Exp::read("xs", Exp::var("i"))
            .times(Exp::Const(futhark_ir::PrimValue::F32(2.0)))
            .plus(Exp::Const(futhark_ir::PrimValue::F32(1.0)));
        if let Some(bound) = loop_bound {
            stms.push(Stm::Mut {
                name: "acc".into(),
                ty: PrimType::F32,
                init: result,
            });
            stms.push(Stm::For {
                var: "t".into(),
                bound,
                body: vec![Stm::Assign {
                    name: "acc".into(),
                    exp: Exp::var("acc").times(Exp::var("acc")),
                }],
            });
            result = Exp::var("acc");
        }
        KernelProgram {
            intra: None,
            sizes: vec!["n".into(), "k".into()],
            arrays: vec![arr("xs", vec![n.clone()]), arr("out", vec![n.clone()])],
            kernels: vec![Kernel {
                name: "k".into(),
                op: SegOp::Map(SegMap {
                    space: SegSpace::flat("i", n),
                    body: Body::new(stms, vec![result]),
                    outputs: vec!["out".into()],
                }),
            }],
        }
    }

    /// Input on device 0 only (`resident == false`) or partitioned as a split would leave it.
    fn arrays(n: usize, resident: bool) -> Vec<Rc<MultiBuf<u8>>> {
        let xs = MultiBuf::new(PrimType::F32, n, 2);
        if resident {
            xs.set_parts(element_ranges(n as u64, 2, 1), vec![Some(0), Some(0)]);
        } else {
            xs.set_whole(0, 0);
        }
        vec![Rc::new(xs), Rc::new(MultiBuf::new(PrimType::F32, n, 2))]
    }

    fn decide_for(prog: &KernelProgram, n: usize, k: i64, resident: bool) -> Result<(), String> {
        let h = husk(prog).unwrap();
        let sizes = [n as i64, k];
        let ops = kernel_ops(prog, &sizes);
        let arrays = arrays(n, resident);
        decide(prog, &h, &sizes, &arrays, 2, 1 << 18, 0.0, ops, false)
            .map(|_| ())
            .map_err(|d| d.to_string())
    }

    #[test]
    fn copies_a_split_caused_later_count_against_splitting_again() {
        let (prog, n) = (map(Some(Exp::var("k"))), 1usize << 24);
        let h = husk(&prog).unwrap();
        let sizes = [n as i64, 8];
        let ops = kernel_ops(&prog, &sizes);
        let arrays = arrays(n, true);
        let decide_later = |later: f64| {
            decide(&prog, &h, &sizes, &arrays, 2, 1 << 18, later, ops, false)
                .map(|_| ())
                .map_err(|d| d.to_string())
        };
        decide_later(0.0).unwrap();
        // Its 64 MB result gathered back to one device after every split launch, and more
        // (its other consumers' broadcasts) than keeping it whole costs (gathering its
        // partitioned 64 MB input).
        let why = decide_later(200e6).unwrap_err();
        assert!(why.contains("would not pay"), "{why}");
    }

    #[test]
    fn small_launches_stay_on_one_device() {
        assert!(decide_for(&map(None), 1000, 0, true).is_err());
        assert!(decide_for(&map(None), 1, 0, true).is_err());
    }

    #[test]
    fn copy_bound_work_on_one_device_stays_there() {
        // 2^30 elements on device 0: moving half costs more than the map saves.
        let why = decide_for(&map(None), 1 << 30, 0, false).unwrap_err();
        assert!(why.contains("would not pay"), "{why}");
    }

    #[test]
    fn in_a_steady_state_an_aligned_input_on_one_device_counts_as_partitioned() {
        let (prog, n) = (map(None), 1usize << 30);
        let h = husk(&prog).unwrap();
        let sizes = [n as i64, 0];
        let ops = kernel_ops(&prog, &sizes);
        let arrays = arrays(n, false);
        let est = decide(&prog, &h, &sizes, &arrays, 2, 1 << 18, 0.0, ops, true).unwrap();
        // Were half the input (2 GB) to move on every launch, it would not pay.
        assert!(!est.pays((n * 4 / 2) as f64));
        assert!(est.pays(0.0));
    }

    #[test]
    fn resident_partitioned_work_is_split() {
        decide_for(&map(None), 1 << 30, 0, true).unwrap();
    }

    #[test]
    fn compute_bound_work_is_split_even_when_its_input_must_move() {
        // 2^24 points with a 1000-step loop (its bound a size parameter): compute dominates.
        decide_for(&map(Some(Exp::var("k"))), 1 << 24, 1000, false).unwrap();
        // Few points with a short loop do not pay.
        assert!(decide_for(&map(Some(Exp::var("k"))), 1 << 10, 2, false).is_err());
        // Fewer points than one wave of threads: each thread's loop is the critical path,
        // so half the points take as long (n-body with 10^5 bodies and a 10^5-step loop).
        let why = decide_for(&map(Some(Exp::var("k"))), 100_000, 100_000, true).unwrap_err();
        assert!(why.contains("would not pay"), "{why}");
    }
}
