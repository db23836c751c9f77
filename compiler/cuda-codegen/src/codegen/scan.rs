//! Inclusive scans by single-pass decoupled look-back (Merrill & Garland's scheme).
//!
//! Each block takes the next tile index from an atomic counter (so every tile it waits for
//! belongs to a block that is already running). Its first `B` threads load `B*Q` elements
//! coalesced through shared memory, scan `Q` consecutive elements per thread, scan the thread
//! totals with warp shuffles, and publish the tile's aggregate. Meanwhile an extra warp looks
//! back over the predecessors' status words, `32*L` at a time (`L` consecutive words per
//! lane), combining aggregates (in order) until it meets a tile whose inclusive prefix is
//! known; doing this *while* the tile loads hides the look-back latency (a first version
//! that looked back after loading reached only 36% of copy bandwidth on an H200). The block
//! then publishes its inclusive prefix and writes the scanned tile. Data is read once and
//! written once.
//!
//! Status words: when the accumulator fits in 4 bytes, a tile's status (0 none, 1 aggregate,
//! 2 inclusive prefix) and its value share one 64-bit word written by a single store, so
//! publishing needs no fence and each look-back step is one round trip to L2. Larger
//! accumulators use 32-bit flags beside separate aggregate and prefix arrays, ordered by
//! `__threadfence` on both sides.
//!
//! Variants of the tile shape and the look-back (`ScanConfig`) and the named presets are in
//! `config`; [`rts`] generates a three-kernel reduce-then-scan as a reference.
//!
//! Segmented scans use the same kernel with the segmented operator
//! `(f1, x) ⊕ (f2, y) = (f1 || f2, f2 ? y : x ⊕ y)`, where the flag marks a segment start
//! (computed from the flat index). A tile that contains a segment start publishes its
//! inclusive prefix immediately, since nothing before it matters to its successors. Tiny
//! segments have a thread-per-segment entry as well.

mod config;
pub mod rts;
#[cfg(test)]
mod tests;
mod warp;

use std::fmt::Write;

use futhark_ir::{Kernel, KernelProgram, PrimType, SegScan, Size};

use super::emit::{
    Emitter, VecSubst, kernel_params, operator_defs, size_exp, size_product, store_conv, store_ty,
    struct_layout,
};
use super::prims::{GRID_HEADER, VecPlan, typed_arrays, vec_plan};
use super::{ArrayParam, CodegenError, GeneratedKernel, LaunchPlan, ScanPlan, open_entry};

pub use config::{
    SCAN_BLOCK, SCAN_DEFAULT, SCAN_LOOKBACK, SCAN_PRESETS, ScanConfig, TRACE_EVENTS, TRACE_WORDS,
    items_per_thread,
};
pub use warp::warp_slot;
use warp::{WarpScan, gen_warp_entry, warp_scan_call, warp_scan_defs};

pub fn gen_scan(
    prog: &KernelProgram,
    kernel: &Kernel,
    scan: &SegScan,
) -> Result<GeneratedKernel, CodegenError> {
    let tys: Vec<PrimType> = scan.neutral.iter().map(|v| v.ty()).collect();
    let (acc_size, _) = struct_layout(&tys);
    gen_scan_with(prog, kernel, scan, ScanConfig::default_for(acc_size))
}

/// `gen_scan` with an explicit tile shape (benchmarks compare several).
pub fn gen_scan_with(
    prog: &KernelProgram,
    kernel: &Kernel,
    scan: &SegScan,
    cfg: ScanConfig,
) -> Result<GeneratedKernel, CodegenError> {
    let name = &kernel.name;
    let em = Emitter::for_kernel(prog, kernel);
    let tys: Vec<PrimType> = scan.neutral.iter().map(|v| v.ty()).collect();
    let (acc_size, _) = struct_layout(&tys);
    let packed = cfg.packed && acc_size <= 4;
    let segmented = scan.space.dims.len() > 1;
    let dims: Vec<&Size> = scan.space.dims.iter().map(|d| &d.1).collect();
    let inner = scan
        .space
        .inner()
        .map(|d| d.1.clone())
        .unwrap_or(Size::Const(1));
    let mut param_list = kernel_params(prog, kernel);
    if cfg.trace {
        // The trace buffer follows the program's arrays (the runtime passes arrays in
        // `GeneratedKernel::arrays` order, then sizes).
        param_list.insert(
            prog.kernel_arrays(kernel).len(),
            "u64* __restrict__ fut_trace".into(),
        );
    }
    let params = param_list.join(", ");
    // A look-back warp comes on top of the loaders: at most 992 + 32 threads.
    let max_block = if cfg.lookback_warp { 992 } else { 1024 };
    let b = (cfg.block.clamp(32, max_block) / 32) * 32;
    let q = cfg.items.clamp(1, 32);
    let lb = cfg.lookback.clamp(1, 16);
    let tile = b * q;
    let nw = b / 32;
    let total = size_product(&dims);
    let seglen = size_exp(&inner);

    let mut src = operator_defs(prog, name, &scan.op, &scan.neutral);
    src.push_str(&warp_scan_defs(name, segmented));
    let _ = writeln!(src, "#define {name}_PAD(i) ((i) + ((i) >> 5))");
    if packed {
        // Status (high half) and value bits (low half) in one word: a single 64-bit store
        // publishes both, so neither the writer nor the reader needs a fence, and a
        // look-back step costs one L2 round trip instead of flag, fence, value.
        let _ = writeln!(
            src,
            "static_assert(sizeof({name}_acc) <= 4, \"packed scan status needs a 4-byte accumulator\");"
        );
        let _ = writeln!(
            src,
            "static __device__ __forceinline__ u64 {name}_word(u32 st, {name}_acc x) {{ u32 w = 0u; memcpy(&w, &x, sizeof(x)); return ((u64)st << 32) | w; }}"
        );
        let _ = writeln!(
            src,
            "static __device__ __forceinline__ {name}_acc {name}_unword(u64 w) {{ const u32 b = (u32)w; {name}_acc x; memcpy(&x, &b, sizeof(x)); return x; }}"
        );
    }
    let relaxed = packed && cfg.relaxed;
    if relaxed {
        let _ = writeln!(
            src,
            "static __device__ __forceinline__ u64 {name}_ld_status(const u64* p) {{ u64 v; asm volatile(\"ld.relaxed.gpu.u64 %0, [%1];\" : \"=l\"(v) : \"l\"(p) : \"memory\"); return v; }}"
        );
        let _ = writeln!(
            src,
            "static __device__ __forceinline__ void {name}_st_status(u64* p, u64 v) {{ asm volatile(\"st.relaxed.gpu.u64 [%0], %1;\" :: \"l\"(p), \"l\"(v) : \"memory\"); }}"
        );
    }
    if cfg.trace {
        let _ = writeln!(
            src,
            "static __device__ __forceinline__ u64 {name}_gt() {{ u64 g; asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(g)); return g; }}"
        );
        let _ = writeln!(
            src,
            "static __device__ __forceinline__ u32 {name}_smid() {{ u32 r; asm volatile(\"mov.u32 %0, %%smid;\" : \"=r\"(r)); return r; }}"
        );
        // Word `w` of tile `t`'s record, for tiles whose record fits the n-byte buffer.
        let _ = writeln!(
            src,
            "static __device__ __forceinline__ void {name}_trw(u64* tr, i64 t, i64 n, int w, u64 v) {{ if ((t + 1) * {} <= n) tr[t * {TRACE_WORDS} + w] = v; }}",
            8 * TRACE_WORDS
        );
        let _ = writeln!(
            src,
            "static __device__ __forceinline__ void {name}_tre(u64* tr, i64 t, i64 n, int e, u64 g, u64 c) {{ {name}_trw(tr, t, n, e, g); {name}_trw(tr, t, n, 7 + e, c); }}"
        );
    }
    // Event `e` of the trace, now (empty without `trace`).
    let tr = |e: usize| -> String {
        if cfg.trace {
            format!("{name}_tre(fut_trace, fut_tid, fut_n, {e}, {name}_gt(), clock64());")
        } else {
            String::new()
        }
    };
    let ld_status = |idx: &str| -> String {
        if relaxed {
            format!("{name}_ld_status((const u64*)&fut_status[{idx}])")
        } else {
            format!("fut_status[{idx}]")
        }
    };
    let st_status = |val: &str| -> String {
        if relaxed {
            format!("{name}_st_status(&fut_status[fut_tid], {val});")
        } else {
            format!("fut_status[fut_tid] = {val};")
        }
    };
    // 16-byte vector accesses in full, aligned tiles (`vector`).
    let outputs = typed_arrays(prog, &scan.outputs);
    let vplan = if cfg.staged && cfg.vector {
        vec_plan(prog, &scan.space, &scan.body, &outputs)
            .filter(|p| p.width <= q as usize && (q as usize).is_multiple_of(p.width))
    } else {
        None
    };
    let evaluate = |flat: &str, s: &mut String, ind: usize| {
        let pad = "  ".repeat(ind);
        em.space_indices(s, &scan.body, flat, ind);
        let res = em.body(s, &scan.body, ind);
        for (i, r) in res.iter().enumerate() {
            let _ = writeln!(s, "{pad}fut_v.c{i} = {r};");
        }
    };
    let store = |acc: &str, idx: &str, pad: &str| {
        let mut s = String::new();
        for (i, o) in scan.outputs.iter().enumerate() {
            let elem = prog.array(o).map(|a| a.elem).unwrap_or(PrimType::I8);
            let _ = writeln!(
                s,
                "{pad}a_{o}[{idx}] = {};",
                store_conv(elem, &format!("{acc}.c{i}"))
            );
        }
        s
    };
    // Segmented-only fragments.
    let sg = |code: &str| {
        if segmented {
            code.to_string()
        } else {
            String::new()
        }
    };
    let op = |a: &str, b_: &str| format!("{name}_op({a}, {b_})");
    let ne = format!("{name}_ne()");
    let a = format!("{name}_acc");

    let lw = cfg.lookback_warp;
    let early = lw && cfg.early_publish;
    let bt = if lw { b + 32 } else { b };
    let status_params = if relaxed {
        "u64* fut_status".to_string()
    } else if packed {
        "volatile u64* fut_status".to_string()
    } else {
        format!("volatile u32* fut_flags, {a}* fut_aggs, {a}* fut_prefs")
    };
    let bounds = if cfg.min_blocks > 0 {
        format!("{bt}, {}", cfg.min_blocks.min(32))
    } else {
        format!("{bt}")
    };
    open_entry(
        &mut src,
        bounds,
        &format!("{name}_lookback({params}, u32* __restrict__ fut_tile_counter, {status_params})"),
    );
    let _ = writeln!(src, "  const i64 fut_n = {total};");
    let _ = writeln!(src, "  const i64 fut_seglen = {seglen};");
    let _ = writeln!(src, "  (void)fut_seglen;");
    let _ = writeln!(src, "  u32* fut_tile_id_sh = (u32*)fut_shared;");
    let _ = writeln!(src, "  bool* fut_blkf_sh = (bool*)(fut_shared + 8);");
    let _ = writeln!(src, "  bool* fut_wflag = (bool*)(fut_shared + 16);");
    let _ = writeln!(src, "  {a}* fut_wsum = ({a}*)(fut_shared + 64);");
    let _ = writeln!(src, "  {a}* fut_excl = fut_wsum + 32;");
    let _ = writeln!(src, "  {a}* fut_blk_sh = fut_excl + 1;");
    let _ = writeln!(src, "  {a}* fut_tile = fut_excl + 2;");
    let _ = writeln!(
        src,
        "  (void)fut_tile_id_sh; (void)fut_blkf_sh; (void)fut_wflag; (void)fut_blk_sh;"
    );
    let _ = writeln!(
        src,
        "  const unsigned fut_lane = threadIdx.x & 31, fut_warp = threadIdx.x >> 5;"
    );
    if cfg.trace {
        let _ = writeln!(
            src,
            "  u64 fut_tg0 = 0, fut_tc0 = 0;\n  if (threadIdx.x == 0) {{ fut_tg0 = {name}_gt(); fut_tc0 = clock64(); }}"
        );
    }
    let trace_start = format!(
        "{name}_tre(fut_trace, fut_tid, fut_n, 0, fut_tg0, fut_tc0); {} {name}_trw(fut_trace, fut_tid, fut_n, 14, (u64){name}_smid() | ((u64)blockIdx.x << 32));",
        tr(1)
    );
    if cfg.block_order {
        let _ = writeln!(src, "  const i64 fut_tid = blockIdx.x;");
        let _ = writeln!(src, "  (void)fut_tile_counter;");
        if cfg.trace {
            let _ = writeln!(src, "  if (threadIdx.x == 0) {{ {trace_start} }}");
        }
    } else {
        let _ = writeln!(
            src,
            "  if (threadIdx.x == 0) *fut_tile_id_sh = atomicAdd(fut_tile_counter, 1u);"
        );
        if cfg.trace {
            let _ = writeln!(
                src,
                "  if (threadIdx.x == 0) {{ const i64 fut_tid = *fut_tile_id_sh; {trace_start} }}"
            );
        }
        let _ = writeln!(src, "  __syncthreads();");
        let _ = writeln!(src, "  const i64 fut_tid = *fut_tile_id_sh;");
    }
    let _ = writeln!(src, "  const i64 fut_ts = fut_tid * {tile};");
    let _ = writeln!(src, "  {a} fut_x[{q}];");
    let _ = writeln!(src, "  {a} fut_wex = {ne};");
    let _ = writeln!(src, "  {a} fut_blk = {ne};");
    src.push_str(&sg(
        "  u32 fut_bmask = 0u;\n  bool fut_wexf = false, fut_blkf = false;\n",
    ));
    let closed = if segmented {
        "fut_tid == 0 || fut_blkf"
    } else {
        "fut_tid == 0"
    };
    // Publishing the inclusive prefix `val` of an open tile (one with predecessors that
    // matter) from one thread.
    let publish_inclusive = |val: &str| -> String {
        let p = if packed {
            st_status(&format!("{name}_word(2u, {val})"))
        } else {
            format!("{{ fut_prefs[fut_tid] = {val}; __threadfence(); fut_flags[fut_tid] = 2u; }}")
        };
        if cfg.trace {
            format!("{{ {p} {} }}", tr(5))
        } else {
            p
        }
    };
    // The look-back: the exclusive prefix of this tile from its predecessors' status words,
    // left in `fut_run` of lane 0 of the warp that runs it. Each step reads `k` windows of
    // 32 consecutive words (window j covers the 32 tiles ending 32j before `fut_end`), one
    // coalesced load per window, and combines them nearest first until one holds a closed
    // prefix.
    let k = lb;
    let backoff_max = cfg.backoff_max_ns.min(1_000_000);
    let expo = cfg.backoff_ns > 0 && backoff_max > cfg.backoff_ns;
    let sleep = if expo {
        format!(
            " __nanosleep(fut_ns); fut_ns = fut_ns < {}u ? fut_ns * 2u : {backoff_max}u;",
            backoff_max / 2
        )
    } else if cfg.backoff_ns > 0 {
        format!(" __nanosleep({}u);", cfg.backoff_ns.min(1_000_000))
    } else {
        String::new()
    };
    // Trace counters of the look-back: status polls, and the tile whose closed prefix
    // ended it.
    let count_poll = if cfg.trace { " fut_tpolls++;" } else { "" };
    let lookback = |ind: usize| -> String {
        let p = "  ".repeat(ind);
        let mut s = String::new();
        let _ = writeln!(s, "{p}{a} fut_run = {ne};");
        if cfg.trace {
            let _ = writeln!(s, "{p}u32 fut_tpolls = 0u; i64 fut_tclosed = fut_tid;");
        }
        if expo {
            let _ = writeln!(s, "{p}u32 fut_ns = {}u;", cfg.backoff_ns);
        }
        let _ = writeln!(s, "{p}{{");
        if cfg.skip_lookback {
            let _ = writeln!(s, "{p}  i64 fut_end = -1;");
        } else if segmented {
            // A tile that starts a segment owes nothing to its predecessors: no look-back
            // (with segments dividing the tile, no tile waits for another).
            let _ = writeln!(
                s,
                "{p}  i64 fut_end = fut_ts % fut_seglen == 0 ? -1 : fut_tid - 1;"
            );
        } else {
            let _ = writeln!(s, "{p}  i64 fut_end = fut_tid - 1;");
        }
        if cfg.poll_nearest {
            // Only the nearest predecessor is likely unset: one lane polls its word alone.
            let unset = if packed {
                format!("(u32)({} >> 32) == 0u", ld_status("fut_end"))
            } else {
                "fut_flags[fut_end] == 0u".to_string()
            };
            let _ = writeln!(
                s,
                "{p}  if (fut_lane == 0 && fut_end >= 0) {{ while ({unset}) {{{sleep}{count_poll} }} }}"
            );
            let _ = writeln!(s, "{p}  __syncwarp();");
        }
        let _ = writeln!(s, "{p}  while (fut_end >= 0) {{");
        let word_ty = if packed { "u64" } else { "u32" };
        let _ = writeln!(s, "{p}    {word_ty} fut_lw[{k}];");
        let _ = writeln!(s, "{p}    for (;;) {{");
        if cfg.trace {
            let _ = writeln!(s, "{p}     {count_poll}");
        }
        let _ = writeln!(s, "{p}      bool fut_wait = false;");
        let _ = writeln!(
            s,
            "{p}      #pragma unroll\n{p}      for (int fut_j = 0; fut_j < {k}; fut_j++) {{"
        );
        let _ = writeln!(
            s,
            "{p}        const i64 fut_p = fut_end - 32 * fut_j - 31 + (i64)fut_lane;"
        );
        if packed {
            // Before the first tile: a closed prefix holding the neutral element.
            let _ = writeln!(
                s,
                "{p}        fut_lw[fut_j] = fut_p < 0 ? {name}_word(2u, {ne}) : {};",
                ld_status("fut_p")
            );
            let _ = writeln!(
                s,
                "{p}        fut_wait = fut_wait || (u32)(fut_lw[fut_j] >> 32) == 0u;"
            );
        } else {
            let _ = writeln!(
                s,
                "{p}        fut_lw[fut_j] = fut_p < 0 ? 2u : fut_flags[fut_p];"
            );
            let _ = writeln!(s, "{p}        fut_wait = fut_wait || fut_lw[fut_j] == 0u;");
        }
        let _ = writeln!(s, "{p}      }}");
        let _ = writeln!(
            s,
            "{p}      if (!__any_sync(FUT_FULL_MASK, fut_wait)) break;{sleep}"
        );
        let _ = writeln!(s, "{p}    }}");
        if !packed {
            let _ = writeln!(s, "{p}    __threadfence();");
        }
        let _ = writeln!(s, "{p}    bool fut_done = false;");
        let _ = writeln!(
            s,
            "{p}    #pragma unroll\n{p}    for (int fut_j = 0; fut_j < {k}; fut_j++) {{"
        );
        let _ = writeln!(s, "{p}      if (!fut_done) {{");
        if packed {
            let _ = writeln!(
                s,
                "{p}        const bool fut_c = (u32)(fut_lw[fut_j] >> 32) == 2u;"
            );
            let _ = writeln!(
                s,
                "{p}        const {a} fut_v = {name}_unword(fut_lw[fut_j]);"
            );
        } else {
            let _ = writeln!(
                s,
                "{p}        const i64 fut_p = fut_end - 32 * fut_j - 31 + (i64)fut_lane;"
            );
            let _ = writeln!(s, "{p}        const bool fut_c = fut_lw[fut_j] == 2u;");
            let _ = writeln!(
                s,
                "{p}        const {a} fut_v = fut_p < 0 ? {ne} : (fut_c ? {name}_ldcg(&fut_prefs[fut_p]) : {name}_ldcg(&fut_aggs[fut_p]));"
            );
        }
        // Lanes before the last one holding a closed prefix do not contribute.
        let _ = writeln!(
            s,
            "{p}        const u32 fut_m2 = __ballot_sync(FUT_FULL_MASK, fut_c);"
        );
        let _ = writeln!(
            s,
            "{p}        {a} fut_pv = (fut_m2 != 0u && (int)fut_lane < 31 - __clz(fut_m2)) ? {ne} : fut_v;"
        );
        let _ = writeln!(s, "{p}        fut_pv = {name}_warp_reduce(fut_pv);");
        let _ = writeln!(s, "{p}        fut_run = {};", op("fut_pv", "fut_run"));
        let _ = writeln!(s, "{p}        fut_done = fut_m2 != 0u;");
        if cfg.trace {
            let _ = writeln!(
                s,
                "{p}        if (fut_done) fut_tclosed = fut_end - 32 * fut_j - 31 + (31 - __clz(fut_m2));"
            );
        }
        let _ = writeln!(s, "{p}      }}");
        let _ = writeln!(s, "{p}    }}");
        let _ = writeln!(s, "{p}    if (fut_done) break;");
        let _ = writeln!(s, "{p}    fut_end -= {};", 32 * k);
        let _ = writeln!(s, "{p}  }}");
        let _ = writeln!(s, "{p}}}");
        s
    };
    // The first B threads load and scan the tile; with `lookback_warp` the last warp looks
    // back meanwhile, so that waiting for predecessors overlaps this tile's own loads.
    let _ = writeln!(src, "  if (threadIdx.x < {b}) {{");
    if cfg.staged {
        // All Q loads into registers first (no bounds checks in a full tile), then into
        // shared memory: the loads are independent straight-line code, so all of them are
        // in flight at once.
        if let Some(vp) = &vplan {
            // Full tile, aligned arrays: every input's Q/V vectors of 16-byte words first,
            // then the body per element, into shared memory in tile order.
            let v = vp.width;
            let steps = q as usize / v;
            let _ = writeln!(
                src,
                "    if (fut_ts + {tile} <= fut_n && (({}) & 15) == 0) {{",
                vec_ptrs(vp)
            );
            for (n, ty) in &vp.inputs {
                let words = v * ty.size_bytes() / 16;
                let _ = writeln!(src, "      uint4 fut_vw_{n}[{}];", steps * words);
            }
            let _ = writeln!(
                src,
                "      #pragma unroll\n      for (int fut_s = 0; fut_s < {steps}; fut_s++) {{"
            );
            let _ = writeln!(
                src,
                "        const i64 fut_base = fut_ts + ((i64)fut_s * {b} + threadIdx.x) * {v};"
            );
            for (n, ty) in &vp.inputs {
                let words = v * ty.size_bytes() / 16;
                let _ = writeln!(
                    src,
                    "        #pragma unroll\n        for (int fut_q = 0; fut_q < {words}; fut_q++) fut_vw_{n}[fut_s * {words} + fut_q] = reinterpret_cast<const uint4*>(a_{n} + fut_base)[fut_q];"
                );
            }
            let _ = writeln!(src, "      }}");
            let _ = writeln!(
                src,
                "      #pragma unroll\n      for (int fut_s = 0; fut_s < {steps}; fut_s++) {{"
            );
            let _ = writeln!(
                src,
                "        const i64 fut_base = fut_ts + ((i64)fut_s * {b} + threadIdx.x) * {v};"
            );
            let mut subst = VecSubst {
                bufs: Default::default(),
                lane: "fut_j".into(),
            };
            for (n, ty) in &vp.inputs {
                let words = v * ty.size_bytes() / 16;
                let _ = writeln!(
                    src,
                    "        __align__(16) {} fut_vb_{n}[{v}];",
                    store_ty(*ty)
                );
                let _ = writeln!(
                    src,
                    "        #pragma unroll\n        for (int fut_q = 0; fut_q < {words}; fut_q++) reinterpret_cast<uint4*>(fut_vb_{n})[fut_q] = fut_vw_{n}[fut_s * {words} + fut_q];"
                );
                subst.bufs.insert(n.clone(), format!("fut_vb_{n}"));
            }
            let vem = em.with_vec(subst);
            let _ = writeln!(
                src,
                "        #pragma unroll\n        for (int fut_j = 0; fut_j < {v}; fut_j++) {{"
            );
            let _ = writeln!(src, "          {a} fut_v;");
            vem.space_indices(&mut src, &scan.body, "fut_base + fut_j", 5);
            let res = vem.body(&mut src, &scan.body, 5);
            for (i, r) in res.iter().enumerate() {
                let _ = writeln!(src, "          fut_v.c{i} = {r};");
            }
            let _ = writeln!(
                src,
                "          fut_tile[{name}_PAD((fut_s * {b} + threadIdx.x) * {v} + fut_j)] = fut_v;"
            );
            let _ = writeln!(src, "        }}");
            let _ = writeln!(src, "      }}");
            let _ = writeln!(src, "    }} else {{");
        }
        let _ = writeln!(src, "    {a} fut_ld[{q}];");
        let _ = writeln!(src, "    if (fut_ts + {tile} <= fut_n) {{");
        let _ = writeln!(
            src,
            "      #pragma unroll\n      for (int fut_k = 0; fut_k < {q}; fut_k++) {{"
        );
        let _ = writeln!(
            src,
            "        const i64 fut_f = fut_ts + fut_k * {b} + threadIdx.x;"
        );
        let _ = writeln!(src, "        {a} fut_v;");
        evaluate("fut_f", &mut src, 4);
        let _ = writeln!(src, "        fut_ld[fut_k] = fut_v;");
        let _ = writeln!(src, "      }}");
        let _ = writeln!(src, "    }} else {{");
        let _ = writeln!(
            src,
            "      #pragma unroll\n      for (int fut_k = 0; fut_k < {q}; fut_k++) {{"
        );
        let _ = writeln!(
            src,
            "        const i64 fut_f = fut_ts + fut_k * {b} + threadIdx.x;"
        );
        let _ = writeln!(src, "        {a} fut_v = {ne};");
        let _ = writeln!(src, "        if (fut_f < fut_n) {{");
        evaluate("fut_f", &mut src, 5);
        let _ = writeln!(src, "        }}");
        let _ = writeln!(src, "        fut_ld[fut_k] = fut_v;");
        let _ = writeln!(src, "      }}");
        let _ = writeln!(src, "    }}");
        let _ = writeln!(
            src,
            "    #pragma unroll\n    for (int fut_k = 0; fut_k < {q}; fut_k++) fut_tile[{name}_PAD(fut_k * {b} + threadIdx.x)] = fut_ld[fut_k];"
        );
        if vplan.is_some() {
            let _ = writeln!(src, "    }}");
        }
    } else {
        let _ = writeln!(
            src,
            "    #pragma unroll\n    for (int fut_k = 0; fut_k < {q}; fut_k++) {{"
        );
        let _ = writeln!(
            src,
            "      const i64 fut_f = fut_ts + fut_k * {b} + threadIdx.x;"
        );
        let _ = writeln!(src, "      {a} fut_v = {ne};");
        let _ = writeln!(src, "      if (fut_f < fut_n) {{");
        evaluate("fut_f", &mut src, 4);
        let _ = writeln!(src, "      }}");
        let _ = writeln!(
            src,
            "      fut_tile[{name}_PAD(fut_k * {b} + threadIdx.x)] = fut_v;"
        );
        let _ = writeln!(src, "    }}");
    }
    let _ = writeln!(
        src,
        "    asm volatile(\"bar.sync 1, {b};\" ::: \"memory\");"
    );
    if cfg.trace {
        let _ = writeln!(src, "    if (threadIdx.x == 0) {}", tr(2));
    }
    let _ = writeln!(
        src,
        "    #pragma unroll\n    for (int fut_k = 0; fut_k < {q}; fut_k++) fut_x[fut_k] = fut_tile[{name}_PAD(threadIdx.x * {q} + fut_k)];"
    );
    src.push_str(&sg(&format!(
        "    {{\n      i64 fut_r = (fut_ts + (i64)threadIdx.x * {q}) % fut_seglen;\n      #pragma unroll\n      for (int fut_k = 0; fut_k < {q}; fut_k++) {{\n        if (fut_r == 0) fut_bmask |= 1u << fut_k;\n        fut_r = fut_r + 1 == fut_seglen ? 0 : fut_r + 1;\n      }}\n    }}\n"
    )));
    let _ = writeln!(
        src,
        "    #pragma unroll\n    for (int fut_k = 1; fut_k < {q}; fut_k++) {{"
    );
    if segmented {
        let _ = writeln!(
            src,
            "      if (!((fut_bmask >> fut_k) & 1u)) fut_x[fut_k] = {};",
            op("fut_x[fut_k - 1]", "fut_x[fut_k]")
        );
    } else {
        let _ = writeln!(
            src,
            "      fut_x[fut_k] = {};",
            op("fut_x[fut_k - 1]", "fut_x[fut_k]")
        );
    }
    let _ = writeln!(src, "    }}");
    let _ = writeln!(src, "    {a} fut_inc = fut_x[{}];", q - 1);
    src.push_str(&sg("    bool fut_if = fut_bmask != 0u;\n"));
    src.push_str(&warp_scan_call(
        "fut_inc", "fut_if", name, segmented, "    ",
    ));
    let _ = writeln!(
        src,
        "    if (fut_lane == 31) {{ fut_wsum[fut_warp] = fut_inc; {}}}",
        sg("fut_wflag[fut_warp] = fut_if; ")
    );
    let _ = writeln!(src, "    fut_wex = {name}_shfl_up(fut_inc, 1);");
    src.push_str(&sg("    fut_wexf = fut_shfl_up(fut_if, 1);\n"));
    let _ = writeln!(
        src,
        "    if (fut_lane == 0) {{ fut_wex = {ne}; {}}}",
        sg("fut_wexf = false; ")
    );
    let _ = writeln!(
        src,
        "    asm volatile(\"bar.sync 1, {b};\" ::: \"memory\");"
    );
    // Warp 0 scans the warp totals and publishes the tile's aggregate.
    let _ = writeln!(src, "    if (fut_warp == 0) {{");
    let _ = writeln!(
        src,
        "      {a} fut_w = fut_lane < {nw} ? fut_wsum[fut_lane] : {ne};"
    );
    src.push_str(&sg(&format!(
        "      bool fut_wf = fut_lane < {nw} ? fut_wflag[fut_lane] : false;\n"
    )));
    src.push_str(&warp_scan_call(
        "fut_w", "fut_wf", name, segmented, "      ",
    ));
    let _ = writeln!(src, "      {a} fut_wx = {name}_shfl_up(fut_w, 1);");
    src.push_str(&sg("      bool fut_wxf = fut_shfl_up(fut_wf, 1);\n"));
    let _ = writeln!(
        src,
        "      if (fut_lane == 0) {{ fut_wx = {ne}; {}}}",
        sg("fut_wxf = false; ")
    );
    let _ = writeln!(src, "      fut_blk = {name}_shfl_idx(fut_w, {});", nw - 1);
    src.push_str(&sg(&format!(
        "      fut_blkf = fut_shfl_idx(fut_wf, {});\n",
        nw - 1
    )));
    let _ = writeln!(
        src,
        "      if (fut_lane < {nw}) {{ fut_wsum[fut_lane] = fut_wx; {}}}",
        sg("fut_wflag[fut_lane] = fut_wxf; ")
    );
    let _ = writeln!(src, "      if (fut_lane == 0) {{");
    if packed {
        let _ = writeln!(
            src,
            "        {}",
            st_status(&format!("{name}_word({closed} ? 2u : 1u, fut_blk)"))
        );
    } else {
        let _ = writeln!(
            src,
            "        if ({closed}) {{ fut_prefs[fut_tid] = fut_blk; __threadfence(); fut_flags[fut_tid] = 2u; }}"
        );
        let _ = writeln!(
            src,
            "        else {{ fut_aggs[fut_tid] = fut_blk; __threadfence(); fut_flags[fut_tid] = 1u; }}"
        );
    }
    if cfg.trace {
        let _ = writeln!(src, "        {} if ({closed}) {}", tr(3), tr(5));
    }
    if early {
        // Hand the aggregate to the look-back warp (named barrier 2: warp 0 arrives, the
        // look-back warp waits).
        let _ = writeln!(
            src,
            "        *fut_blk_sh = fut_blk;{}",
            sg(" *fut_blkf_sh = fut_blkf;")
        );
    }
    let _ = writeln!(src, "      }}");
    if early {
        let _ = writeln!(
            src,
            "      asm volatile(\"bar.arrive 2, 64;\" ::: \"memory\");"
        );
    }
    if !lw {
        // CUB's order: warp 0 looks back once the aggregate is out, then publishes the
        // inclusive prefix at once.
        src.push_str(&lookback(3));
        if cfg.trace {
            let _ = writeln!(
                src,
                "{}if (fut_lane == 0) {{ {} {name}_trw(fut_trace, fut_tid, fut_n, 15, (u64)(u32)(fut_tid - fut_tclosed) | ((u64)fut_tpolls << 32)); }}",
                "  ".repeat(3),
                tr(4)
            );
        }
        let _ = writeln!(src, "      if (fut_lane == 0) {{");
        let _ = writeln!(src, "        *fut_excl = fut_run;");
        let _ = writeln!(
            src,
            "        if (!({closed})) {}",
            publish_inclusive(&op("fut_run", "fut_blk"))
        );
        let _ = writeln!(src, "      }}");
    }
    let _ = writeln!(src, "    }}");
    if lw {
        let _ = writeln!(src, "  }} else {{");
        src.push_str(&lookback(2));
        if cfg.trace {
            let _ = writeln!(
                src,
                "{}if (fut_lane == 0) {{ {} {name}_trw(fut_trace, fut_tid, fut_n, 15, (u64)(u32)(fut_tid - fut_tclosed) | ((u64)fut_tpolls << 32)); }}",
                "  ".repeat(2),
                tr(4)
            );
        }
        if early {
            let _ = writeln!(src, "    asm volatile(\"bar.sync 2, 64;\" ::: \"memory\");");
            let open_sh = if segmented {
                "fut_tid > 0 && !*fut_blkf_sh"
            } else {
                "fut_tid > 0"
            };
            let _ = writeln!(
                src,
                "    if (fut_lane == 0 && {open_sh}) {}",
                publish_inclusive(&op("fut_run", "*fut_blk_sh"))
            );
        }
        let _ = writeln!(src, "    if (fut_lane == 0) *fut_excl = fut_run;");
    }
    let _ = writeln!(src, "  }}");
    let _ = writeln!(src, "  __syncthreads();");
    let _ = writeln!(src, "  if (threadIdx.x < {b}) {{");
    if lw && !early {
        let _ = writeln!(
            src,
            "    if (threadIdx.x == 0 && !({closed})) {}",
            publish_inclusive(&op("*fut_excl", "fut_blk"))
        );
    }
    // The thread's exclusive prefix: tile prefix, then warps before, then lanes before.
    let _ = writeln!(src, "    {a} fut_tp = fut_wsum[fut_warp];");
    if segmented {
        let _ = writeln!(src, "    bool fut_tpf = fut_wflag[fut_warp];");
        let _ = writeln!(
            src,
            "    if (fut_wexf) fut_tp = fut_wex; else fut_tp = {};",
            op("fut_tp", "fut_wex")
        );
        let _ = writeln!(src, "    fut_tpf = fut_tpf || fut_wexf;");
        let _ = writeln!(
            src,
            "    if (!fut_tpf) fut_tp = {};",
            op("*fut_excl", "fut_tp")
        );
        let _ = writeln!(
            src,
            "    #pragma unroll\n    for (int fut_k = 0; fut_k < {q}; fut_k++)"
        );
        let _ = writeln!(
            src,
            "      if ((fut_bmask & ((2u << fut_k) - 1u)) == 0u) fut_x[fut_k] = {};",
            op("fut_tp", "fut_x[fut_k]")
        );
    } else {
        let _ = writeln!(src, "    fut_tp = {};", op("fut_tp", "fut_wex"));
        let _ = writeln!(src, "    fut_tp = {};", op("*fut_excl", "fut_tp"));
        let _ = writeln!(
            src,
            "    #pragma unroll\n    for (int fut_k = 0; fut_k < {q}; fut_k++) fut_x[fut_k] = {};",
            op("fut_tp", "fut_x[fut_k]")
        );
    }
    // Store through shared memory so that global writes are coalesced.
    let _ = writeln!(
        src,
        "    #pragma unroll\n    for (int fut_k = 0; fut_k < {q}; fut_k++) fut_tile[{name}_PAD(threadIdx.x * {q} + fut_k)] = fut_x[fut_k];"
    );
    let _ = writeln!(
        src,
        "    asm volatile(\"bar.sync 1, {b};\" ::: \"memory\");"
    );
    let trace_end = if cfg.trace {
        format!("if (threadIdx.x == 0) {} ", tr(6))
    } else {
        String::new()
    };
    if cfg.staged {
        let _ = writeln!(src, "    if (fut_ts + {tile} <= fut_n) {{");
        if let Some(vp) = &vplan {
            let v = vp.width;
            let steps = q as usize / v;
            let _ = writeln!(src, "      if ((({}) & 15) == 0) {{", vec_ptrs(vp));
            let _ = writeln!(
                src,
                "        #pragma unroll\n        for (int fut_s = 0; fut_s < {steps}; fut_s++) {{"
            );
            let _ = writeln!(
                src,
                "          const i64 fut_base = fut_ts + ((i64)fut_s * {b} + threadIdx.x) * {v};"
            );
            for (o, ty) in &vp.outputs {
                let _ = writeln!(
                    src,
                    "          __align__(16) {} fut_vo_{o}[{v}];",
                    store_ty(*ty)
                );
            }
            let _ = writeln!(
                src,
                "          #pragma unroll\n          for (int fut_j = 0; fut_j < {v}; fut_j++) {{"
            );
            let _ = writeln!(
                src,
                "            const {a} fut_y = fut_tile[{name}_PAD((fut_s * {b} + threadIdx.x) * {v} + fut_j)];"
            );
            for (i, (o, ty)) in vp.outputs.iter().enumerate() {
                let _ = writeln!(
                    src,
                    "            fut_vo_{o}[fut_j] = {};",
                    store_conv(*ty, &format!("fut_y.c{i}"))
                );
            }
            let _ = writeln!(src, "          }}");
            for (o, ty) in &vp.outputs {
                let words = v * ty.size_bytes() / 16;
                let _ = writeln!(
                    src,
                    "          #pragma unroll\n          for (int fut_q = 0; fut_q < {words}; fut_q++) reinterpret_cast<uint4*>(a_{o} + fut_base)[fut_q] = reinterpret_cast<const uint4*>(fut_vo_{o})[fut_q];"
                );
            }
            let _ = writeln!(src, "        }}");
            let _ = writeln!(src, "        {trace_end}return;");
            let _ = writeln!(src, "      }}");
        }
        let _ = writeln!(
            src,
            "      #pragma unroll\n      for (int fut_k = 0; fut_k < {q}; fut_k++) {{"
        );
        let _ = writeln!(
            src,
            "        const i64 fut_f = fut_ts + fut_k * {b} + threadIdx.x;"
        );
        let _ = writeln!(
            src,
            "        const {a} fut_y = fut_tile[{name}_PAD(fut_k * {b} + threadIdx.x)];"
        );
        src.push_str(&store("fut_y", "fut_f", "        "));
        let _ = writeln!(src, "      }}\n      {trace_end}return;\n    }}");
    }
    let _ = writeln!(
        src,
        "    #pragma unroll\n    for (int fut_k = 0; fut_k < {q}; fut_k++) {{"
    );
    let _ = writeln!(
        src,
        "      const i64 fut_f = fut_ts + fut_k * {b} + threadIdx.x;"
    );
    let _ = writeln!(src, "      if (fut_f < fut_n) {{");
    let _ = writeln!(
        src,
        "        const {a} fut_y = fut_tile[{name}_PAD(fut_k * {b} + threadIdx.x)];"
    );
    src.push_str(&store("fut_y", "fut_f", "        "));
    let _ = writeln!(
        src,
        "      }}\n    }}\n{}  }}\n}}\n",
        if cfg.trace {
            format!("    {trace_end}\n")
        } else {
            String::new()
        }
    );
    let nseg = size_product(&scan.space.outer().iter().map(|d| &d.1).collect::<Vec<_>>());
    let thread_entry = if segmented {
        open_entry(&mut src, 1024, &format!("{name}_thread({params})"));
        src.push_str(GRID_HEADER);
        let _ = writeln!(src, "  const i64 fut_nseg = {nseg}, fut_seglen = {seglen};");
        let _ = writeln!(
            src,
            "  for (i64 fut_seg = fut_gtid; fut_seg < fut_nseg; fut_seg += fut_gstride) {{"
        );
        let _ = writeln!(src, "    {a} fut_acc = {ne};");
        let _ = writeln!(
            src,
            "    for (i64 fut_f = fut_seg * fut_seglen; fut_f < (fut_seg + 1) * fut_seglen; fut_f++) {{"
        );
        let _ = writeln!(src, "      {a} fut_v;");
        evaluate("fut_f", &mut src, 3);
        let _ = writeln!(src, "      fut_acc = {};", op("fut_acc", "fut_v"));
        src.push_str(&store("fut_acc", "fut_f", "      "));
        let _ = writeln!(src, "    }}\n  }}\n}}");
        Some(format!("{name}_thread"))
    } else {
        None
    };
    let warp_entry = if segmented {
        gen_warp_entry(
            &mut src,
            &WarpScan {
                name,
                params: &params,
                nseg: &nseg,
                seglen: &seglen,
                acc: &a,
                ne: &ne,
            },
            &|flat, s, ind| evaluate(flat, s, ind),
            &|acc, idx, pad| store(acc, idx, pad),
        );
        Some(format!("{name}_warp"))
    } else {
        None
    };

    let shared_bytes = 64 + 34 * acc_size + (tile as usize + tile as usize / 32 + 1) * acc_size;
    let mut gk = GeneratedKernel::new(
        prog,
        kernel,
        src,
        LaunchPlan::Scan(ScanPlan {
            lookback_entry: format!("{name}_lookback"),
            thread_entry,
            warp_entry,
            segments: scan.space.outer().iter().map(|d| d.1.clone()).collect(),
            inner,
            acc_size,
            block_size: bt,
            tile: tile as u64,
            shared_bytes,
            packed,
        }),
    );
    if cfg.trace {
        // Declared as one byte per element: tiles hold at least 128 elements, so every
        // tile's record fits except perhaps the last's (the kernel checks).
        gk.arrays.push(ArrayParam {
            name: "fut_trace".into(),
            elem: PrimType::U8,
            shape: scan.space.dims.iter().map(|d| d.1.clone()).collect(),
            written: true,
        });
    }
    Ok(gk)
}

/// The pointers of a vector plan's arrays or-ed together, for the 16-byte alignment test.
fn vec_ptrs(vp: &VecPlan) -> String {
    vp.inputs
        .iter()
        .chain(&vp.outputs)
        .map(|(n, _)| format!("(u64)a_{n}"))
        .collect::<Vec<_>>()
        .join(" | ")
}
