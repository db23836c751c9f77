//! Block- and register-tiled contractions: a `SegRed` over `(batch…, d0, d1, k)` (2-D) or
//! `(batch…, d0, k)` (1-D) reducing `k`, whose array reads each depend on `(d0, k)`,
//! `(d1, k)`, `d0`, `d1` or `k` alone (matmul, batched matmul, k-means distances; n-body).
//!
//! Every read of the body becomes a *slot*, a value loaded once per tile instead of once per
//! point: `(d0, k)` and `(d1, k)` reads are staged through shared memory a `BK`-wide slice
//! of `k` at a time (double-buffered: the next slice is read into registers while the
//! current one is folded), `k`-only reads likewise, and `d0`- or `d1`-only reads sit in
//! registers for the whole kernel. A block computes a `BM × BN` tile of results, each
//! thread a `TM × TN` register tile of them. Loaders evaluate the read's own expression at
//! the tile's points (any index arithmetic, any layout): consecutive threads take
//! consecutive values of the index the address moves by one with, so a transposed operand
//! is read coalesced through its view, never copied. The `(d0, k)` tile is stored
//! transposed (`[k][d0]`, padded) so that the fold reads it without bank conflicts.
//!
//! Each result is folded by one thread over `k` **in order** from the neutral element, as
//! the interpreter does, so any associative operator is correct; edges are guarded (loads
//! outside the space are never made, the fold stops at `K`, results outside are not
//! stored), never padded with values the operator might not ignore. With
//! [`TileConfig::fma`], a sum of products of `f32`/`f64` folds with `fma` (one rounding
//! instead of two: results differ from the interpreter's within float tolerance, as the
//! reference Futhark compiler's do; the generated source says so).
//!
//! The runtime takes the tiled entry when there are enough result tiles to fill the GPU
//! (or `k` is short); otherwise the ordinary reduction entries run.

use std::collections::{HashMap, HashSet};
use std::fmt::Write;

use futhark_ir::{
    BinOp, Body, Exp, Kernel, KernelProgram, MathFn, Name, PrimType, SegRed, Size, Stm,
};

use super::emit::{Emitter, kernel_params, make_acc, reg_ty, size_exp, store_acc, unflatten};
use super::open_entry;

/// Tile shapes and options of tiled contractions (configuration as a value: the runtime
/// builds it from `CudaOptions`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TileConfig {
    /// Generate tiled entries at all.
    pub enabled: bool,
    /// Fold sums of products with `fma` (one rounding per step).
    pub fma: bool,
    /// 2-D block tile: rows, columns, and the `k` slice.
    pub bm: u32,
    pub bn: u32,
    pub bk: u32,
    /// 2-D register tile per thread.
    pub tm: u32,
    pub tn: u32,
    /// 1-D: threads per block (one row each) and the `k` slice.
    pub threads_1d: u32,
    pub bk_1d: u32,
    /// Blocks of a 2-D tiled entry meant to reside on one multiprocessor (the second
    /// argument of `__launch_bounds__`, which caps registers per thread); 0: unstated.
    pub min_blocks: u32,
    /// Result tiles are visited in groups of this many tile rows, column by column within
    /// a group, so blocks running together share rows of one operand and columns of the
    /// other in L2; 0 or 1: row by row.
    pub group: u32,
    /// A full `k` slice folds without the per-step bound (a second copy of the fold).
    pub full_fast: bool,
}

impl Default for TileConfig {
    /// 128×128×16 blocks of 256 threads computing 8×8 results each (sm_90: 33 KiB of
    /// double-buffered shared memory for an f32 product, ~200 registers; 8192² f32 on an
    /// H200 took 33.2 ms against 38.0 with a slice of 8 and no bound-free fold,
    /// bench/results/matrix.md), visited in groups of 8 tile rows; 1-D: 128 rows × 128.
    fn default() -> Self {
        TileConfig {
            enabled: true,
            fma: true,
            bm: 128,
            bn: 128,
            bk: 16,
            tm: 8,
            tn: 8,
            threads_1d: 128,
            bk_1d: 128,
            min_blocks: 0,
            group: 8,
            full_fast: true,
        }
    }
}

/// How the runtime launches a tiled entry: one block per `bm × bn` tile of the results of
/// each batch element, `threads` threads, `shared` bytes of dynamic shared memory.
#[derive(Clone, Debug, PartialEq)]
pub struct TilePlan {
    pub entry: String,
    pub batch: Vec<Size>,
    pub rows: Size,
    /// `None` for the 1-D form.
    pub cols: Option<Size>,
    pub bm: u32,
    pub bn: u32,
    pub threads: u32,
    pub shared: usize,
    /// Whether the fold uses `fma` (results within float tolerance of the interpreter's).
    pub fma: bool,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    RowK,
    Row,
    ColK,
    Col,
    K,
}

struct Slot {
    kind: Kind,
    var: Name,
    exp: Exp,
    ty: PrimType,
    /// The address moves by one with `k` (else with the row or column index).
    k_fastest: bool,
}

/// The tiled entry of a reduction (appended to `src`), or `None` when the reduction does not
/// have the shape (the ordinary entries then serve every launch).
pub fn gen_tiled(
    prog: &KernelProgram,
    kernel: &Kernel,
    red: &SegRed,
    cfg: &TileConfig,
    suffix: &str,
    src: &mut String,
) -> Option<TilePlan> {
    if !cfg.enabled {
        return None;
    }
    let dims = &red.space.dims;
    let n = dims.len();
    if n < 2 {
        return None;
    }
    let name = &kernel.name;
    let em = Emitter::for_kernel(prog, kernel);
    let k = dims[n - 1].0.clone();
    // 2-D when the two dimensions before `k` both index reads on their own; else 1-D.
    let (slots, body, d0, d1, batch) =
        [2usize, 1].into_iter().filter(|p| n > *p).find_map(|p| {
            let d0 = dims[n - 1 - p].0.clone();
            let d1 = (p == 2).then(|| dims[n - 2].0.clone());
            let batch = dims[..n - 1 - p].to_vec();
            let (slots, body) = analyse(&em, red, &d0, d1.as_deref(), &k, &batch)?;
            // 1-D pays only when a slot is shared by the rows; rows read whole by each
            // thread (matrix-vector) are better served by the block reduction.
            let ok = match d1 {
                Some(_) => slots
                    .iter()
                    .any(|s| matches!(s.kind, Kind::RowK | Kind::ColK)),
                None => {
                    slots.iter().any(|s| s.kind == Kind::K)
                        && !slots.iter().any(|s| s.kind == Kind::RowK)
                }
            };
            ok.then_some((slots, body, d0, d1, batch))
        })?;
    let comps = red.neutral.len();
    let two_d = d1.is_some();
    let (tm, tn, bk) = match two_d {
        true if comps == 1 => (cfg.tm, cfg.tn, cfg.bk),
        // Several accumulators per result: a smaller register tile.
        true => (cfg.tm.min(4), cfg.tn.min(4), cfg.bk),
        false => (1, 1, cfg.bk_1d),
    };
    let (bm, bn) = match two_d {
        true if comps == 1 => (cfg.bm, cfg.bn),
        true => (cfg.bm.min(64), cfg.bn.min(64)),
        false => (cfg.threads_1d, 1),
    };
    if tm == 0 || tn == 0 || bk == 0 || !bm.is_multiple_of(tm) || !bn.is_multiple_of(tn) {
        return None;
    }
    let threads = (bm / tm) * (bn / tn);
    if threads == 0 || threads > 1024 || !threads.is_multiple_of(32) || bk > threads {
        return None;
    }
    // Shared memory: two buffers per staged slot.
    let pad = |t: PrimType| (16 / t.size_bytes().max(1)).max(1) as u32;
    let mut offsets = Vec::new();
    let mut shared = 0usize;
    for s in &slots {
        let ld = match s.kind {
            Kind::RowK => bm + pad(s.ty),
            Kind::ColK => bn + pad(s.ty),
            Kind::K => 1,
            Kind::Row | Kind::Col => {
                offsets.push((0, 0));
                continue;
            }
        };
        offsets.push((shared, ld));
        let bytes = 2 * (bk * ld) as usize * reg_size(s.ty);
        shared += bytes.div_ceil(16) * 16;
    }
    if shared > 48 * 1024 {
        // Wide elements (f64, tuples) take a thinner `k` slice rather than no tiling.
        if two_d && cfg.bk > 8 {
            let thinner = TileConfig {
                bk: cfg.bk / 2,
                ..*cfg
            };
            return gen_tiled(prog, kernel, red, &thinner, suffix, src);
        }
        return None;
    }
    let fma = cfg.fma && fma_form(red, &body).is_some();
    let body = if fma { fma_form(red, &body)? } else { body };

    // Rows (and columns) of a thread's register tile: two halves of the block tile apart, so
    // the fragments a warp reads from shared memory and the results it stores are
    // contiguous across threads.
    let place = |i: &str, t: u32, b: u32, tid: &str| {
        if t >= 2 && t.is_multiple_of(2) {
            let h = t / 2;
            format!("(({i}) / {h}) * {} + {tid} * {h} + ({i}) % {h}", b / 2)
        } else {
            format!("{tid} * {t} + ({i})")
        }
    };
    let entry = format!("{name}{suffix}");
    let params = kernel_params(prog, kernel).join(", ");
    let mut s = String::new();
    if fma {
        let _ = writeln!(
            s,
            "// Tiled contraction folded with fma (one rounding per step): results differ from\n// the interpreter's within float tolerance, as the reference Futhark compiler's do."
        );
    }
    let bounds = match cfg.min_blocks {
        m if m > 0 && two_d => format!("{threads}, {m}"),
        _ => threads.to_string(),
    };
    open_entry(&mut s, bounds, &format!("{entry}({params})"));
    let rows = size_exp(&dims[n - 1 - if two_d { 2 } else { 1 }].1);
    let cols = if two_d {
        size_exp(&dims[n - 2].1)
    } else {
        "((i64)1LL)".into()
    };
    let inner = size_exp(&dims[n - 1].1);
    let _ = writeln!(
        s,
        "  const i64 fut_N = {rows}, fut_M = {cols}, fut_K = {inner};"
    );
    let _ = writeln!(
        s,
        "  const i64 fut_tr = (fut_N + {bm} - 1) / {bm}, fut_tc = (fut_M + {bn} - 1) / {bn};"
    );
    let _ = writeln!(s, "  i64 fut_bid = blockIdx.x;");
    if cfg.group > 1 && two_d {
        // Grouped order: tile rows `g·G .. g·G + G` column by column (the last group may
        // have fewer rows); a bijection onto the tiles of each batch element.
        let g = cfg.group;
        let _ = writeln!(
            s,
            "  const i64 fut_batch = fut_bid / (fut_tr * fut_tc); fut_bid %= fut_tr * fut_tc;\n  const i64 fut_first = (fut_bid / ({g} * fut_tc)) * {g};\n  const i64 fut_gr = fut_min(fut_tr - fut_first, (i64){g});\n  const i64 fut_local = fut_bid - fut_first * fut_tc;\n  const i64 fut_row0 = (fut_first + fut_local % fut_gr) * {bm};\n  const i64 fut_col0 = (fut_local / fut_gr) * {bn};"
        );
    } else {
        let _ = writeln!(
            s,
            "  const i64 fut_col0 = (fut_bid % fut_tc) * {bn}; fut_bid /= fut_tc;"
        );
        let _ = writeln!(
            s,
            "  const i64 fut_row0 = (fut_bid % fut_tr) * {bm}; fut_bid /= fut_tr;"
        );
        let _ = writeln!(s, "  const i64 fut_batch = fut_bid;");
    }
    if !batch.is_empty() {
        let _ = writeln!(s, "  i64 fut_brem = fut_batch;");
        unflatten(&mut s, "  ", "fut_brem", &batch, &vec![true; batch.len()]);
    }
    let _ = writeln!(
        s,
        "  const int fut_tx = threadIdx.x % {}, fut_ty = threadIdx.x / {};",
        bn / tn,
        bn / tn
    );
    let slot_vars: Vec<(Name, PrimType)> = slots.iter().map(|s| (s.var.clone(), s.ty)).collect();
    let em = em.with_vars(&slot_vars);
    for (i, (sl, (off, _))) in slots.iter().zip(&offsets).enumerate() {
        let t = reg_ty(sl.ty);
        match sl.kind {
            Kind::RowK | Kind::ColK | Kind::K => {
                let _ = writeln!(s, "  {t}* fut_s{i} = ({t}*)(fut_shared + {off});");
            }
            Kind::Row | Kind::Col => {
                let (cnt, lim, base, tid, tt, bb, d) = if sl.kind == Kind::Row {
                    (tm, "fut_N", "fut_row0", "fut_ty", tm, bm, &d0)
                } else {
                    (tn, "fut_M", "fut_col0", "fut_tx", tn, bn, d1.as_ref()?)
                };
                let _ = writeln!(s, "  {t} fut_g{i}[{cnt}];");
                let p = place("fut_i", tt, bb, tid);
                let (e, _) = em.exp(&sl.exp);
                let _ = writeln!(
                    s,
                    "  #pragma unroll\n  for (int fut_i = 0; fut_i < {cnt}; fut_i++) {{\n    const i64 v_{d} = {base} + {p};\n    fut_g{i}[fut_i] = v_{d} < {lim} ? ({t})({e}) : ({t})0;\n  }}"
                );
            }
        }
    }
    let _ = writeln!(s, "  {name}_acc fut_acc[{tm}][{tn}];");
    let _ = writeln!(
        s,
        "  #pragma unroll\n  for (int fut_i = 0; fut_i < {tm}; fut_i++)\n    #pragma unroll\n    for (int fut_j = 0; fut_j < {tn}; fut_j++) fut_acc[fut_i][fut_j] = {name}_ne();"
    );
    // Loader registers and the load/store of one slice.
    let per = |sl: &Slot| match sl.kind {
        Kind::RowK => (bm * bk).div_ceil(threads),
        Kind::ColK => (bn * bk).div_ceil(threads),
        _ => 1,
    };
    let mut load = String::new();
    let mut store = String::new();
    for (i, (sl, (_, ld))) in slots.iter().zip(&offsets).enumerate() {
        let t = reg_ty(sl.ty);
        let (e, _) = em.exp(&sl.exp);
        match sl.kind {
            Kind::RowK | Kind::ColK => {
                let (b, base, lim, d) = if sl.kind == Kind::RowK {
                    (bm, "fut_row0", "fut_N", &d0)
                } else {
                    (bn, "fut_col0", "fut_M", d1.as_ref()?)
                };
                let p = per(sl);
                let _ = writeln!(s, "  {t} fut_l{i}[{p}];");
                let (kk, ii) = if sl.k_fastest {
                    (format!("fut_e % {bk}"), format!("fut_e / {bk}"))
                } else {
                    (format!("fut_e / {b}"), format!("fut_e % {b}"))
                };
                let _ = writeln!(
                    load,
                    "      #pragma unroll\n      for (int fut_r = 0; fut_r < {p}; fut_r++) {{\n        const int fut_e = threadIdx.x + fut_r * {threads};\n        const i64 v_{k} = fut_k0 + {kk}, v_{d} = {base} + {ii};\n        fut_l{i}[fut_r] = fut_e < {} && v_{k} < fut_K && v_{d} < {lim} ? ({t})({e}) : ({t})0;\n      }}",
                    b * bk
                );
                let _ = writeln!(
                    store,
                    "      #pragma unroll\n      for (int fut_r = 0; fut_r < {p}; fut_r++) {{\n        const int fut_e = threadIdx.x + fut_r * {threads};\n        if (fut_e < {}) fut_s{i}[fut_buf * {} + ({kk}) * {ld} + {ii}] = fut_l{i}[fut_r];\n      }}",
                    b * bk,
                    bk * ld
                );
            }
            Kind::K => {
                let _ = writeln!(s, "  {t} fut_l{i}[1];");
                let _ = writeln!(
                    load,
                    "      {{\n        const i64 v_{k} = fut_k0 + threadIdx.x;\n        fut_l{i}[0] = threadIdx.x < {bk} && v_{k} < fut_K ? ({t})({e}) : ({t})0;\n      }}"
                );
                let _ = writeln!(
                    store,
                    "      if (threadIdx.x < {bk}) fut_s{i}[fut_buf * {bk} + threadIdx.x] = fut_l{i}[0];"
                );
            }
            Kind::Row | Kind::Col => {}
        }
    }
    let _ = writeln!(s, "  const i64 fut_nk = (fut_K + {bk} - 1) / {bk};");
    let _ = writeln!(s, "  if (fut_nk > 0) {{");
    let _ = writeln!(
        s,
        "    {{\n      const i64 fut_k0 = 0; const int fut_buf = 0;"
    );
    s.push_str(&load);
    s.push_str(&store);
    let _ = writeln!(s, "    }}\n    __syncthreads();");
    let _ = writeln!(s, "  }}");
    let _ = writeln!(s, "  for (i64 fut_kt = 0; fut_kt < fut_nk; fut_kt++) {{");
    let _ = writeln!(s, "    const int fut_cur = (int)(fut_kt & 1);");
    let _ = writeln!(s, "    if (fut_kt + 1 < fut_nk) {{");
    let _ = writeln!(s, "      const i64 fut_k0 = (fut_kt + 1) * {bk};");
    s.push_str(&load);
    let _ = writeln!(s, "    }}");
    let _ = writeln!(
        s,
        "    const i64 fut_klen = fut_min(fut_K - fut_kt * {bk}, (i64){bk});"
    );
    // The fold of one `k` slice; a full slice (every slice but the last, when `K` is not
    // a multiple of the slice) runs it without the per-step bound.
    let mut step = String::new();
    let _ = writeln!(step, "      const i64 v_{k} = fut_kt * {bk} + fut_kk;");
    let _ = writeln!(step, "      (void)v_{k};");
    for (i, (sl, (_, ld))) in slots.iter().zip(&offsets).enumerate() {
        let t = reg_ty(sl.ty);
        match sl.kind {
            Kind::RowK => {
                let base = format!("fut_cur * {} + fut_kk * {ld}", bk * ld);
                step.push_str(&fragment(i, sl.ty, tm, bm, "fut_ty", &base, *ld));
            }
            Kind::ColK => {
                let base = format!("fut_cur * {} + fut_kk * {ld}", bk * ld);
                step.push_str(&fragment(i, sl.ty, tn, bn, "fut_tx", &base, *ld));
            }
            Kind::K => {
                let _ = writeln!(
                    step,
                    "      const {t} v_{} = fut_s{i}[fut_cur * {bk} + fut_kk];",
                    sl.var
                );
            }
            Kind::Row | Kind::Col => {}
        }
    }
    let _ = writeln!(
        step,
        "      #pragma unroll\n      for (int fut_i = 0; fut_i < {tm}; fut_i++) {{"
    );
    let pi = place("fut_i", tm, bm, "fut_ty");
    let _ = writeln!(
        step,
        "        const i64 v_{d0} = fut_row0 + {pi};\n        (void)v_{d0};"
    );
    for (i, sl) in slots.iter().enumerate() {
        match sl.kind {
            Kind::RowK => {
                let _ = writeln!(
                    step,
                    "        const {} v_{} = fut_f{i}[fut_i];",
                    reg_ty(sl.ty),
                    sl.var
                );
            }
            Kind::Row => {
                let _ = writeln!(
                    step,
                    "        const {} v_{} = fut_g{i}[fut_i];",
                    reg_ty(sl.ty),
                    sl.var
                );
            }
            _ => {}
        }
    }
    let _ = writeln!(
        step,
        "        #pragma unroll\n        for (int fut_j = 0; fut_j < {tn}; fut_j++) {{"
    );
    if let Some(d1) = &d1 {
        let pj = place("fut_j", tn, bn, "fut_tx");
        let _ = writeln!(
            step,
            "          const i64 v_{d1} = fut_col0 + {pj};\n          (void)v_{d1};"
        );
    }
    for (i, sl) in slots.iter().enumerate() {
        match sl.kind {
            Kind::ColK => {
                let _ = writeln!(
                    step,
                    "          const {} v_{} = fut_f{i}[fut_j];",
                    reg_ty(sl.ty),
                    sl.var
                );
            }
            Kind::Col => {
                let _ = writeln!(
                    step,
                    "          const {} v_{} = fut_g{i}[fut_j];",
                    reg_ty(sl.ty),
                    sl.var
                );
            }
            _ => {}
        }
    }
    if fma {
        let t = reg_ty(red.neutral[0].ty());
        let _ = writeln!(
            step,
            "          const {t} v_{FMA_ACC} = fut_acc[fut_i][fut_j].c0;"
        );
        let em = em.with_vars(&[(FMA_ACC.into(), red.neutral[0].ty())]);
        let res = em.body(&mut step, &body, 5);
        let _ = writeln!(step, "          fut_acc[fut_i][fut_j].c0 = {};", res[0]);
    } else {
        let res = em.body(&mut step, &body, 5);
        step.push_str(&make_acc(name, "fut_v", &res, "          "));
        let _ = writeln!(
            step,
            "          fut_acc[fut_i][fut_j] = {name}_op(fut_acc[fut_i][fut_j], fut_v);"
        );
    }
    let _ = writeln!(step, "        }}\n      }}");
    let unrolled = |guard: bool| {
        let mut l = format!(
            "      #pragma unroll\n      for (int fut_kk = 0; fut_kk < {bk}; fut_kk++) {{\n"
        );
        if guard {
            l.push_str("      if (fut_kk < fut_klen) {\n");
        }
        l.push_str(&step);
        l.push_str(if guard {
            "      }\n      }\n"
        } else {
            "      }\n"
        });
        l
    };
    if cfg.full_fast {
        let _ = writeln!(s, "    if (fut_klen == {bk}) {{");
        s.push_str(&unrolled(false));
        let _ = writeln!(s, "    }} else {{");
        s.push_str(&unrolled(true));
        let _ = writeln!(s, "    }}");
    } else {
        s.push_str(&unrolled(true));
    }
    let _ = writeln!(s, "    if (fut_kt + 1 < fut_nk) {{");
    let _ = writeln!(s, "      const int fut_buf = fut_cur ^ 1;");
    s.push_str(&store);
    let _ = writeln!(s, "    }}\n    __syncthreads();\n  }}");
    // Results.
    let pi = place("fut_i", tm, bm, "fut_ty");
    let pj = place("fut_j", tn, bn, "fut_tx");
    let _ = writeln!(
        s,
        "  #pragma unroll\n  for (int fut_i = 0; fut_i < {tm}; fut_i++) {{\n    const i64 fut_row = fut_row0 + {pi};\n    #pragma unroll\n    for (int fut_j = 0; fut_j < {tn}; fut_j++) {{\n      const i64 fut_col = fut_col0 + {pj};\n      if (fut_row < fut_N && fut_col < fut_M) {{\n        const i64 fut_seg = (fut_batch * fut_N + fut_row) * fut_M + fut_col;"
    );
    s.push_str(&store_acc(
        prog,
        &red.outputs,
        "fut_acc[fut_i][fut_j]",
        "fut_seg",
        "        ",
    ));
    let _ = writeln!(s, "      }}\n    }}\n  }}\n}}\n");
    src.push_str(&s);
    let batch_sizes = batch.iter().map(|(_, s)| s.clone()).collect();
    Some(TilePlan {
        entry,
        batch: batch_sizes,
        rows: dims[n - 1 - if two_d { 2 } else { 1 }].1.clone(),
        cols: two_d.then(|| dims[n - 2].1.clone()),
        bm,
        bn,
        threads,
        shared,
        fma,
    })
}

/// Loads a thread's `count` values of slot `i` for one `k` from shared memory into
/// `fut_f{i}`: rows (or columns) `tid * h + 0..h` of both halves of the block tile when the
/// register tile splits in two halves of `h` (see `place`), else `tid * count + 0..count`.
/// Halves of four (two) 32-bit values are two 16-byte (8-byte) loads: every offset is a
/// multiple of that (the slot's region, `ld` and the halves are multiples of four elements).
fn fragment(i: usize, ty: PrimType, count: u32, b: u32, tid: &str, base: &str, ld: u32) -> String {
    let t = reg_ty(ty);
    let half = count / 2;
    let vec = match (ty, half) {
        (PrimType::F32, 4) => Some("float4"),
        (PrimType::I32, 4) => Some("int4"),
        (PrimType::F32, 2) => Some("float2"),
        (PrimType::I32, 2) => Some("int2"),
        _ => None,
    };
    if let Some(v) = vec
        && count == 2 * half
        && ld.is_multiple_of(half)
        && (b / 2).is_multiple_of(half)
    {
        let mut s = format!("      {t} fut_f{i}[{count}];\n      {{\n");
        for h in 0..2 {
            let _ = writeln!(
                s,
                "        const {v} fut_q{h} = *(const {v}*)(fut_s{i} + {base} + {} + {tid} * {half});",
                h * b / 2
            );
            for (c, f) in ["x", "y", "z", "w"].iter().take(half as usize).enumerate() {
                let _ = writeln!(
                    s,
                    "        fut_f{i}[{}] = fut_q{h}.{f};",
                    h * half + c as u32
                );
            }
        }
        s.push_str("      }\n");
        return s;
    }
    let p = if count >= 2 && count.is_multiple_of(2) {
        let h = count / 2;
        format!("(fut_r / {h}) * {} + {tid} * {h} + fut_r % {h}", b / 2)
    } else {
        format!("{tid} * {count} + fut_r")
    };
    format!(
        "      {t} fut_f{i}[{count}];\n      #pragma unroll\n      for (int fut_r = 0; fut_r < {count}; fut_r++) fut_f{i}[fut_r] = fut_s{i}[{base} + {p}];\n"
    )
}

/// The tiled entries of a reduction, appended to `src`: the configured shape and, for 2-D
/// contractions, a 64×64 one (4×4 results per thread) for products with too few large tiles
/// to fill the GPU (1024²) and a 32×32 one (2×2) for batches of small products, which would
/// fill under a quarter of the larger tiles (LU's 32×32 blocks). Largest first.
pub fn gen_tiled_all(
    prog: &KernelProgram,
    kernel: &Kernel,
    red: &SegRed,
    cfg: &TileConfig,
    src: &mut String,
) -> Vec<TilePlan> {
    let Some(large) = gen_tiled(prog, kernel, red, cfg, "_tiled", src) else {
        return Vec::new();
    };
    let small = TileConfig {
        bm: 32,
        bn: 32,
        tm: 2,
        tn: 2,
        ..*cfg
    };
    let medium = TileConfig {
        bm: 64,
        bn: 64,
        tm: 4,
        tn: 4,
        ..*cfg
    };
    let two_d = large.cols.is_some();
    let mut out = vec![large];
    for (c, suffix) in [(medium, "_tiled_m"), (small, "_tiled_s")] {
        let mut text = String::new();
        if two_d
            && let Some(t) = gen_tiled(prog, kernel, red, &c, suffix, &mut text)
            && out.iter().all(|o| (o.bm, o.bn) != (t.bm, t.bn))
        {
            src.push_str(&text);
            out.push(t);
        }
    }
    out
}

/// The accumulator's name inside an `fma` fold.
const FMA_ACC: &str = "fut_fma_acc";

fn reg_size(t: PrimType) -> usize {
    match t {
        PrimType::F16 => 4,
        t => t.size_bytes().max(1),
    }
}

/// The body's reads as slots (each read replaced by its slot's variable), or `None` when a
/// read depends on both `d0` and `d1`, the body has anything but `let`s, or it uses the flat
/// index.
fn analyse(
    em: &Emitter,
    red: &SegRed,
    d0: &str,
    d1: Option<&str>,
    k: &str,
    batch: &[(Name, Size)],
) -> Option<(Vec<Slot>, Body)> {
    let space: HashSet<&str> = red.space.dims.iter().map(|(d, _)| d.as_str()).collect();
    let batch: HashSet<&str> = batch.iter().map(|(d, _)| d.as_str()).collect();
    let mut lets: HashMap<Name, Exp> = HashMap::new();
    let mut slots: Vec<Slot> = Vec::new();
    let mut stms = Vec::new();
    let classify = |e: &Exp, lets: &HashMap<Name, Exp>, slots: &mut Vec<Slot>| -> Option<Exp> {
        let full = inline(e, lets);
        if let Some(s) = slots.iter().find(|s| s.exp == full) {
            return Some(Exp::Var(s.var.clone()));
        }
        let mut deps = HashSet::new();
        let mut flat = false;
        full.for_each_var(&mut |v| {
            if v == &red.space.flat {
                flat = true;
            } else if space.contains(v.as_str()) && !batch.contains(v.as_str()) {
                deps.insert(v.clone());
            }
        });
        if flat {
            return None;
        }
        let (has0, has1, hask) = (
            deps.contains(d0),
            d1.is_some_and(|d| deps.contains(d)),
            deps.contains(k),
        );
        let kind = match (has0, has1, hask) {
            (true, true, _) => return None,
            (true, false, true) => Kind::RowK,
            (true, false, false) | (false, false, false) => Kind::Row,
            (false, true, true) => Kind::ColK,
            (false, true, false) => Kind::Col,
            (false, false, true) => Kind::K,
        };
        let (_, ty) = em.exp(&full);
        let Exp::Read(_, idx) = &full else {
            return None;
        };
        let moves_with = |v: &str| unit_in(idx, v);
        let k_fastest = match kind {
            Kind::RowK => moves_with(k) || !moves_with(d0),
            Kind::ColK => moves_with(k) || !d1.is_some_and(moves_with),
            _ => true,
        };
        let var = format!("fut_t{}", slots.len());
        slots.push(Slot {
            kind,
            var: var.clone(),
            exp: full,
            ty,
            k_fastest,
        });
        Some(Exp::Var(var))
    };
    for st in &red.body.stms {
        let Stm::Let { name, ty, exp } = st else {
            return None;
        };
        let e = replace_reads(exp, &mut |r| classify(r, &lets, &mut slots))?;
        lets.insert(name.clone(), inline(exp, &lets));
        stms.push(Stm::Let {
            name: name.clone(),
            ty: *ty,
            exp: e,
        });
    }
    let mut results = Vec::new();
    for r in &red.body.results {
        results.push(replace_reads(r, &mut |e| classify(e, &lets, &mut slots))?);
    }
    // Dead `let`s go first (a husk piece rebinds the flat index whether it is used or not).
    let mut live: HashSet<Name> = HashSet::new();
    for r in &results {
        r.for_each_var(&mut |v| {
            live.insert(v.clone());
        });
    }
    let mut kept = Vec::new();
    for st in stms.into_iter().rev() {
        if let Stm::Let { name, exp, .. } = &st
            && live.contains(name)
        {
            exp.for_each_var(&mut |v| {
                live.insert(v.clone());
            });
            kept.push(st);
        }
    }
    kept.reverse();
    let body = Body::new(kept, results);
    // What remains may use the indices, never the flat one.
    let mut flat = false;
    body.walk(
        &mut |e| e.for_each_var(&mut |v| flat |= *v == red.space.flat),
        &mut |_| {},
    );
    (!flat).then_some((slots, body))
}

/// `e` with every outermost read replaced by `f`'s answer.
fn replace_reads(e: &Exp, f: &mut dyn FnMut(&Exp) -> Option<Exp>) -> Option<Exp> {
    Some(match e {
        Exp::Const(_) | Exp::Var(_) => e.clone(),
        Exp::Read(..) => f(e)?,
        Exp::Bin(op, a, b) => Exp::bin(*op, replace_reads(a, f)?, replace_reads(b, f)?),
        Exp::Cmp(op, a, b) => Exp::cmp(*op, replace_reads(a, f)?, replace_reads(b, f)?),
        Exp::Un(op, a) => Exp::un(*op, replace_reads(a, f)?),
        Exp::Conv(t, a) => Exp::conv(*t, replace_reads(a, f)?),
        Exp::Math(m, args) => Exp::Math(
            *m,
            args.iter()
                .map(|a| replace_reads(a, f))
                .collect::<Option<_>>()?,
        ),
        Exp::Select(c, t, x) => Exp::select(
            replace_reads(c, f)?,
            replace_reads(t, f)?,
            replace_reads(x, f)?,
        ),
    })
}

/// `e` with the body's earlier `let`s substituted (so a read's index names only indices
/// and sizes).
fn inline(e: &Exp, lets: &HashMap<Name, Exp>) -> Exp {
    match e {
        Exp::Var(v) => lets.get(v).cloned().unwrap_or_else(|| e.clone()),
        Exp::Const(_) => e.clone(),
        Exp::Read(a, i) => Exp::read(a, inline(i, lets)),
        Exp::Bin(op, a, b) => Exp::bin(*op, inline(a, lets), inline(b, lets)),
        Exp::Cmp(op, a, b) => Exp::cmp(*op, inline(a, lets), inline(b, lets)),
        Exp::Un(op, a) => Exp::un(*op, inline(a, lets)),
        Exp::Conv(t, a) => Exp::conv(*t, inline(a, lets)),
        Exp::Math(m, args) => Exp::Math(*m, args.iter().map(|a| inline(a, lets)).collect()),
        Exp::Select(c, t, x) => Exp::select(inline(c, lets), inline(t, lets), inline(x, lets)),
    }
}

/// Whether `idx` is `… + v` (or `v`, or `(… + v) - …`): the address moves by one element
/// with `v`.
fn unit_in(idx: &Exp, v: &str) -> bool {
    match idx {
        Exp::Var(x) => x == v,
        Exp::Bin(BinOp::Add, a, b) => {
            let mentions = |e: &Exp| {
                let mut m = false;
                e.for_each_var(&mut |x| m |= x == v);
                m
            };
            (unit_in(a, v) && !mentions(b)) || (unit_in(b, v) && !mentions(a))
        }
        // A husk piece's aligned reads subtract the rows before the piece.
        Exp::Bin(BinOp::Sub, a, b) => {
            let mut m = false;
            b.for_each_var(&mut |x| m |= x == v);
            unit_in(a, v) && !m
        }
        _ => false,
    }
}

/// A body whose one result is a product, folded with `+` on `f32`/`f64`: the same body with
/// the result `fma(x, y, acc)` (the accumulator as [`FMA_ACC`]).
fn fma_form(red: &SegRed, body: &Body) -> Option<Body> {
    let (op, t) = plain_binop(&red.op)?;
    if op != BinOp::Add || !matches!(t, PrimType::F32 | PrimType::F64) || body.results.len() != 1 {
        return None;
    }
    let mut body = body.clone();
    let prod = match &body.results[0] {
        Exp::Bin(BinOp::Mul, a, b) => Some(((**a).clone(), (**b).clone())),
        Exp::Var(v) => {
            let uses = body
                .stms
                .iter()
                .filter(|s| {
                    let mut m = false;
                    s.walk(&mut |e| e.for_each_var(&mut |x| m |= x == v), &mut |_| {});
                    m
                })
                .count();
            match body.stms.last() {
                Some(Stm::Let {
                    name,
                    exp: Exp::Bin(BinOp::Mul, a, b),
                    ..
                }) if name == v && uses == 0 => {
                    let ab = ((**a).clone(), (**b).clone());
                    body.stms.pop();
                    Some(ab)
                }
                _ => None,
            }
        }
        _ => None,
    }?;
    body.results = vec![Exp::Math(
        MathFn::Fma,
        vec![prod.0, prod.1, Exp::var(FMA_ACC)],
    )];
    Some(body)
}

/// `\(x, y) -> x OP y`, also as `let r = x OP y in r` (how lowering writes `+`).
fn plain_binop(op: &futhark_ir::Lambda) -> Option<(BinOp, PrimType)> {
    if let Some(b) = op.as_binop() {
        return Some(b);
    }
    let ([(x, tx), (y, ty)], [Stm::Let { name, exp, .. }], [Exp::Var(r)]) = (
        op.params.as_slice(),
        op.body.stms.as_slice(),
        op.body.results.as_slice(),
    ) else {
        return None;
    };
    match exp {
        Exp::Bin(b, l, rr) if r == name && tx == ty => match (l.as_ref(), rr.as_ref()) {
            (Exp::Var(l), Exp::Var(rr)) if l == x && rr == y => Some((*b, *tx)),
            _ => None,
        },
        _ => None,
    }
}
