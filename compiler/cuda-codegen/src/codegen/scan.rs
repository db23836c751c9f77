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
//! Variants (`ScanConfig`, named in `SCAN_PRESETS`, the default is `SCAN_DEFAULT`): wider
//! look-back steps read as coalesced 32-word windows, polling only the nearest predecessor,
//! publishing the inclusive prefix from the look-back warp, CUB's order (warp 0 looks back
//! after the aggregate, no extra warp), and staged loads (all of a thread's loads into
//! registers first, unchecked in full tiles). On an H200 (2^28 f32) none of the look-back
//! changes moved the time (1.57-1.69 ms, blocks live ~20 us whatever the look-back width), so
//! the suspect is the load phase: per-element bounds checks between the loads and the shared
//! stores can keep a thread's loads from being in flight together; `staged` tests that.
//!
//! Further variants for the next measurement: `wide-*` (CUB's `AgentScan` shape: 256 to
//! 1024 threads, no look-back warp, warp 0 publishes and looks back, 16-byte vector loads and
//! stores in full tiles, optional exponential backoff or CUB's fixed ~700 ns delay between
//! polls, optionally `ld/st.relaxed.gpu` status accesses) and `*-expo` (exponential backoff
//! on the look-back warp). `ScanConfig::trace` makes a kernel record per-tile event times
//! (see [`TRACE_WORDS`]), `ScanConfig::skip_lookback` drops the look-back (a diagnostic, not
//! a scan), and [`rts`] generates a three-kernel reduce-then-scan as a reference.
//!
//! Segmented scans use the same kernel with the segmented operator
//! `(f1, x) ⊕ (f2, y) = (f1 || f2, f2 ? y : x ⊕ y)`, where the flag marks a segment start
//! (computed from the flat index). A tile that contains a segment start publishes its
//! inclusive prefix immediately, since nothing before it matters to its successors. Tiny
//! segments have a thread-per-segment entry as well.

pub mod rts;

use std::fmt::Write;

use futhark_ir::{Kernel, KernelProgram, PrimType, SegScan, Size};

use super::emit::{
    Emitter, VecSubst, kernel_params, operator_defs, size_exp, size_product, store_conv, store_ty,
    struct_layout,
};
use super::prims::{GRID_HEADER, VecPlan, typed_arrays, vec_plan};
use super::{
    ArrayParam, CodegenError, GeneratedKernel, LaunchPlan, ScanPlan, WARP_SCAN_ITEMS,
    WARP_SCAN_MAX, open_entry,
};

/// Threads per block of the look-back kernel.
pub const SCAN_BLOCK: u32 = 256;

/// Windows of 32 status words the look-back warp reads per step (one coalesced load each).
/// One is what the H200 sweep of 2026-11-22 measured fastest, with an older layout where a
/// lane read `L` *consecutive* words (16x-256x the L2 requests of the coalesced windows now).
pub const SCAN_LOOKBACK: u32 = 1;

/// The named configuration `gen_scan` uses (see [`SCAN_PRESETS`]): switching the default is
/// this one constant. `wide-b512-q24-delay` (CUB's shape: 512 threads x 24 items, 16-byte
/// loads, warp 0 looks back after the aggregate, ~700 ns pause between polls) was the
/// fastest of the sweep on an H200 on 2026-11-26: 0.724 ms for 2^28 f32, 71% of
/// `cuMemcpyDtoD` (`base`: 0.791 ms, 65%), and passed every prims_bench check.
pub const SCAN_DEFAULT: &str = "wide-b512-q24-delay";

/// Items per thread: about 64 bytes of accumulators per thread, at most 16.
pub fn items_per_thread(acc_size: usize) -> u32 {
    (64 / acc_size.max(1)).clamp(1, 16) as u32
}

/// The tile shape, status layout and look-back strategy of the look-back kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScanConfig {
    /// Loading threads per block (a multiple of 32, at most 992); with `lookback_warp`, one
    /// look-back warp is added.
    pub block: u32,
    /// Elements per loading thread.
    pub items: u32,
    /// Publish status and value in one 64-bit word when the accumulator fits in 4 bytes.
    pub packed: bool,
    /// Windows of 32 consecutive status words read per look-back step (each window one
    /// coalesced warp load), so one round trip to L2 covers `32 * lookback` predecessors.
    pub lookback: u32,
    /// Nanoseconds to sleep before polling status words again (0: spin).
    pub backoff_ns: u32,
    /// Before reading a window, one lane polls only the nearest predecessor's status word
    /// until it is set (one L2 request per poll instead of a whole window's).
    pub poll_nearest: bool,
    /// An extra warp looks back from the start of the block, while the tile loads. Without
    /// it, warp 0 looks back after publishing the tile's aggregate (as CUB does).
    pub lookback_warp: bool,
    /// With `lookback_warp`: the look-back warp publishes the inclusive prefix as soon as it
    /// has both the exclusive prefix and the aggregate (named barrier with warp 0), rather
    /// than thread 0 after the block barrier.
    pub early_publish: bool,
    /// Minimum resident blocks per SM for `__launch_bounds__` (0: no hint).
    pub min_blocks: u32,
    /// Tile index = `blockIdx.x` instead of an atomic counter. Saves one L2 atomic before
    /// the loads, but relies on blocks being dispatched in index order, which the CUDA
    /// programming model does not promise (CUB relies on it): for measurement only.
    pub block_order: bool,
    /// Load the tile into registers first (straight-line code without bounds checks when
    /// the tile is full), then into shared memory; likewise store without checks.
    pub staged: bool,
    /// With `staged`: full tiles whose arrays are 16-byte aligned read the body's inputs
    /// and write the outputs with 16-byte vector accesses (thread `t`'s `s`-th step covers
    /// elements `(s*B + t)*V ..+ V`, `V = 16 / smallest element size`), when `V` divides
    /// the items per thread and the body reads its inputs at the flat index.
    pub vector: bool,
    /// Exponential backoff: with `backoff_ns > 0`, each poll sleeps `backoff_ns`, doubling
    /// after every poll up to this many nanoseconds (0 or at most `backoff_ns`: fixed).
    pub backoff_max_ns: u32,
    /// Packed status words are read and written with `ld/st.relaxed.gpu` instead of
    /// volatile accesses (which PTX treats as system scope).
    pub relaxed: bool,
    /// Diagnostic: the kernel takes one more array, `fut_trace` (after the program's arrays;
    /// declared as bytes with the scan's shape), and records per tile `%globaltimer` and
    /// `clock64` at the events of [`TRACE_EVENTS`] plus the SM, the block index, the
    /// look-back's distance and polls ([`TRACE_WORDS`] `u64` per tile; tiles past
    /// `n / (8 * TRACE_WORDS)` are not recorded).
    pub trace: bool,
    /// Diagnostic, wrong results: no look-back (every tile's exclusive prefix is the
    /// neutral element; statuses are still published). Times the tile's own work without
    /// waiting for predecessors, the ceiling of this tile design.
    pub skip_lookback: bool,
}

/// `u64` words per tile of a trace (`ScanConfig::trace`): `[0, 7)` `%globaltimer` (ns) at
/// each event of [`TRACE_EVENTS`], `[7, 14)` `clock64` at the same events, 14: SM id (low
/// half) and `blockIdx.x` (high half), 15: tiles back to the closed prefix the look-back
/// used (low half) and status polls (window reads and nearest-word reads, high half).
pub const TRACE_WORDS: usize = 16;

/// The events a trace records per tile, in order.
pub const TRACE_EVENTS: [&str; 7] = [
    "block start",
    "tile id",
    "loaded",
    "aggregate published",
    "look-back done",
    "inclusive published",
    "stores issued",
];

impl ScanConfig {
    /// The kernel measured at 36% of copy bandwidth on an H200 (B=256, Q=16 for 4-byte
    /// accumulators, packed status, look-back warp from block start, one window per step).
    pub const BASE: ScanConfig = ScanConfig {
        block: SCAN_BLOCK,
        items: 16,
        packed: true,
        lookback: SCAN_LOOKBACK,
        backoff_ns: 0,
        poll_nearest: false,
        lookback_warp: true,
        early_publish: false,
        min_blocks: 0,
        block_order: false,
        staged: false,
        vector: false,
        backoff_max_ns: 0,
        relaxed: false,
        trace: false,
        skip_lookback: false,
    };

    /// The configuration `gen_scan` uses for an accumulator of `acc_size` bytes: the
    /// preset [`SCAN_DEFAULT`] with its items per thread scaled to the accumulator size.
    pub fn default_for(acc_size: usize) -> ScanConfig {
        let p = ScanConfig::named(SCAN_DEFAULT).unwrap_or(ScanConfig::BASE);
        p.for_acc(acc_size)
    }

    /// This configuration with `items` (given for 4-byte accumulators) scaled to keep the
    /// bytes of accumulators per thread: `items * 4 / acc_size`, between 1 and `items`.
    pub fn for_acc(self, acc_size: usize) -> ScanConfig {
        let items = (self.items as usize * 4 / acc_size.max(1)).clamp(1, self.items as usize);
        ScanConfig {
            items: items as u32,
            ..self
        }
    }

    /// A preset by name (see [`SCAN_PRESETS`]).
    pub fn named(name: &str) -> Option<ScanConfig> {
        SCAN_PRESETS
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, c)| *c)
    }
}

#[allow(clippy::too_many_arguments)]
const fn preset(
    block: u32,
    items: u32,
    lookback: u32,
    poll_nearest: bool,
    lookback_warp: bool,
    early_publish: bool,
    backoff_ns: u32,
    staged: bool,
) -> ScanConfig {
    ScanConfig {
        block,
        items,
        packed: true,
        lookback,
        backoff_ns,
        poll_nearest,
        lookback_warp,
        early_publish,
        min_blocks: 0,
        block_order: false,
        staged,
        vector: false,
        backoff_max_ns: 0,
        relaxed: false,
        trace: false,
        skip_lookback: false,
    }
}

/// A CUB-like tile (`AgentScan`): no look-back warp, warp 0 publishes the aggregate, looks
/// back and publishes the inclusive prefix; staged loads with 16-byte vectors in full
/// tiles; exponential backoff from `backoff_ns` to `backoff_max_ns` between polls.
const fn wide(block: u32, items: u32, backoff_ns: u32, backoff_max_ns: u32) -> ScanConfig {
    ScanConfig {
        block,
        items,
        packed: true,
        lookback: 1,
        backoff_ns,
        poll_nearest: false,
        lookback_warp: false,
        early_publish: false,
        min_blocks: 0,
        block_order: false,
        staged: true,
        vector: true,
        backoff_max_ns,
        relaxed: false,
        trace: false,
        skip_lookback: false,
    }
}

/// Named configurations the benchmark sweeps (items are for 4-byte accumulators; the
/// generator scales them by accumulator size). `w<k>` = `k` windows of 32 status words per
/// look-back step, `near` = poll the nearest predecessor first, `early` = the look-back warp
/// publishes the inclusive prefix itself, `cub` = no extra warp: warp 0 looks back after the
/// tile's aggregate, `staged` = the tile's loads go to registers first (no bounds checks in
/// full tiles) so that all of them are in flight at once, `expo` = exponential backoff between
/// polls, `wide-b<B>-q<Q>` = `wide()` (CUB-like, 16-byte vectors).
pub const SCAN_PRESETS: &[(&str, ScanConfig)] = &[
    ("base", ScanConfig::BASE),
    ("staged", preset(256, 16, 1, false, true, false, 0, true)),
    ("near-early", preset(256, 16, 1, true, true, true, 0, false)),
    (
        "near-early-staged",
        preset(256, 16, 1, true, true, true, 0, true),
    ),
    (
        "w4-near-early",
        preset(256, 16, 4, true, true, true, 0, false),
    ),
    (
        "w4-near-early-staged",
        preset(256, 16, 4, true, true, true, 0, true),
    ),
    (
        "w8-near-early-staged",
        preset(256, 16, 8, true, true, true, 0, true),
    ),
    (
        "w4-near-early-staged-q8",
        preset(256, 8, 4, true, true, true, 0, true),
    ),
    (
        "w4-near-early-staged-q32",
        preset(256, 32, 4, true, true, true, 0, true),
    ),
    (
        "w4-near-early-staged-b128",
        preset(128, 16, 4, true, true, true, 0, true),
    ),
    (
        "w4-near-early-staged-b512",
        preset(512, 16, 4, true, true, true, 0, true),
    ),
    (
        "w4-near-early-staged-sleep",
        preset(256, 16, 4, true, true, true, 100, true),
    ),
    ("cub-w1", preset(256, 16, 1, false, false, false, 0, false)),
    (
        "cub-w1-staged",
        preset(256, 16, 1, false, false, false, 0, true),
    ),
    (
        "cub-w4-near-staged",
        preset(256, 16, 4, true, false, false, 0, true),
    ),
    (
        "cub-w4-near-staged-b128",
        preset(128, 16, 4, true, false, false, 0, true),
    ),
    // The look-back warp of `near-early-staged`, polling with exponential backoff (64 ns
    // doubling to 2 us) so that ~900 waiting warps do not keep the status lines' L2 slices
    // busy.
    (
        "near-early-staged-expo",
        ScanConfig {
            backoff_max_ns: 2048,
            ..preset(256, 16, 1, true, true, true, 64, true)
        },
    ),
    // CUB-like wide tiles (no look-back warp, float4 loads and stores). `wide-b256-q16` is
    // `cub-w1-staged` with vector accesses only (isolates the vectors).
    ("wide-b256-q16", wide(256, 16, 0, 0)),
    ("wide-b512-q16", wide(512, 16, 0, 0)),
    ("wide-b512-q16-expo", wide(512, 16, 64, 2048)),
    (
        "wide-b512-q16-expo-relaxed",
        ScanConfig {
            relaxed: true,
            ..wide(512, 16, 64, 2048)
        },
    ),
    // CUB's sm_90 f32 tuning sleeps a fixed ~700 ns between polls.
    ("wide-b512-q24-delay", wide(512, 24, 700, 0)),
    ("wide-b1024-q16-expo", wide(1024, 16, 64, 2048)),
];

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
    let combine_step = |val: &str, flag: &str, other: &str, oflag: &str| -> String {
        if segmented {
            format!(
                "if (!{flag}) {val} = {}; {flag} = {flag} || {oflag};",
                op(other, val)
            )
        } else {
            format!("{val} = {};", op(other, val))
        }
    };
    let _ = writeln!(
        src,
        "    #pragma unroll\n    for (unsigned fut_d = 1; fut_d < 32; fut_d <<= 1) {{"
    );
    let _ = writeln!(
        src,
        "      const {a} fut_o = {name}_shfl_up(fut_inc, fut_d);"
    );
    src.push_str(&sg(
        "      const bool fut_of = fut_shfl_up(fut_if, fut_d);\n",
    ));
    let _ = writeln!(
        src,
        "      if (fut_lane >= fut_d) {{ {} }}",
        combine_step("fut_inc", "fut_if", "fut_o", "fut_of")
    );
    let _ = writeln!(src, "    }}");
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
    let _ = writeln!(
        src,
        "      #pragma unroll\n      for (unsigned fut_d = 1; fut_d < 32; fut_d <<= 1) {{"
    );
    let _ = writeln!(
        src,
        "        const {a} fut_o = {name}_shfl_up(fut_w, fut_d);"
    );
    src.push_str(&sg(
        "        const bool fut_of = fut_shfl_up(fut_wf, fut_d);\n",
    ));
    let _ = writeln!(
        src,
        "        if (fut_lane >= fut_d) {{ {} }}",
        combine_step("fut_w", "fut_wf", "fut_o", "fut_of")
    );
    let _ = writeln!(src, "      }}");
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

/// Accumulators one warp of a segmented scan's warp entry keeps in shared memory: its
/// whole segment, padded against bank conflicts like the tiles (`_PAD`).
const WARP_SLOT_ELEMS: usize = WARP_SCAN_MAX as usize + WARP_SCAN_MAX as usize / 32;

/// Bytes of shared memory one warp of a segmented scan's warp entry needs.
pub fn warp_slot(acc_size: usize) -> usize {
    WARP_SLOT_ELEMS * acc_size
}

/// What the warp entry of a segmented scan is generated from.
struct WarpScan<'a> {
    name: &'a str,
    params: &'a str,
    nseg: &'a str,
    seglen: &'a str,
    acc: &'a str,
    ne: &'a str,
}

/// The warp entry of a segmented scan whose segments have at most [`WARP_SCAN_MAX`]
/// elements: one warp per segment (grid-stride over segments). The warp evaluates its
/// segment with consecutive lanes on consecutive elements into shared memory, each lane
/// then scans [`WARP_SCAN_ITEMS`] consecutive elements in registers, the lanes' totals are
/// scanned with shuffles, and the results go back through shared memory to coalesced
/// stores. Segments are independent, so unlike the look-back kernel there is no tile
/// counter or status to clear and no wait between blocks: a piece over some of the rows
/// costs its share of the work.
fn gen_warp_entry(
    src: &mut String,
    w: &WarpScan,
    evaluate: &dyn Fn(&str, &mut String, usize),
    store: &dyn Fn(&str, &str, &str) -> String,
) {
    let WarpScan {
        name,
        params,
        nseg,
        seglen,
        acc: a,
        ne,
    } = *w;
    let items = WARP_SCAN_ITEMS;
    let op = |x: &str, y: &str| format!("{name}_op({x}, {y})");
    open_entry(src, 256, &format!("{name}_warp({params})"));
    let _ = writeln!(
        src,
        "  const i64 fut_nseg = {nseg}, fut_seglen = {seglen};\n  \
         const unsigned fut_lane = threadIdx.x & 31;\n  \
         {a}* fut_buf = ({a}*)fut_shared + (threadIdx.x >> 5) * {slot};\n  \
         const i64 fut_nw = ((i64)gridDim.x * blockDim.x) >> 5;\n  \
         const int fut_per = (int)((fut_seglen + 31) >> 5);",
        slot = WARP_SLOT_ELEMS
    );
    let _ = writeln!(
        src,
        "  for (i64 fut_seg = ((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5; fut_seg < fut_nseg; fut_seg += fut_nw) {{"
    );
    let _ = writeln!(src, "    const i64 fut_s0 = fut_seg * fut_seglen;");
    // Load: consecutive lanes, consecutive elements; past the segment's end, the neutral.
    let _ = writeln!(
        src,
        "    #pragma unroll\n    for (int fut_k = 0; fut_k < {items}; fut_k++) {{"
    );
    let _ = writeln!(
        src,
        "      const int fut_i = fut_k * 32 + (int)fut_lane;\n      {a} fut_v = {ne};\n      if (fut_i < fut_seglen) {{\n        const i64 fut_f = fut_s0 + fut_i;"
    );
    evaluate("fut_f", src, 4);
    let _ = writeln!(
        src,
        "      }}\n      fut_buf[{name}_PAD(fut_i)] = fut_v;\n    }}\n    __syncwarp();"
    );
    // Each lane's run of `fut_per` elements, scanned in registers.
    let _ = writeln!(src, "    {a} fut_x[{items}];");
    let _ = writeln!(
        src,
        "    #pragma unroll\n    for (int fut_k = 0; fut_k < {items}; fut_k++) if (fut_k < fut_per) fut_x[fut_k] = fut_buf[{name}_PAD((int)fut_lane * fut_per + fut_k)];"
    );
    let _ = writeln!(src, "    {a} fut_t = fut_x[0];");
    let _ = writeln!(
        src,
        "    #pragma unroll\n    for (int fut_k = 1; fut_k < {items}; fut_k++) if (fut_k < fut_per) {{ fut_x[fut_k] = {}; fut_t = fut_x[fut_k]; }}",
        op("fut_x[fut_k - 1]", "fut_x[fut_k]")
    );
    // The lanes' totals: inclusive shuffle scan, shifted to an exclusive prefix.
    let _ = writeln!(
        src,
        "    #pragma unroll\n    for (unsigned fut_d = 1; fut_d < 32; fut_d <<= 1) {{\n      const {a} fut_o = {name}_shfl_up(fut_t, fut_d);\n      if (fut_lane >= fut_d) fut_t = {};\n    }}",
        op("fut_o", "fut_t")
    );
    let _ = writeln!(
        src,
        "    const {a} fut_ex = {name}_shfl_up(fut_t, 1);\n    __syncwarp();"
    );
    let _ = writeln!(
        src,
        "    #pragma unroll\n    for (int fut_k = 0; fut_k < {items}; fut_k++) if (fut_k < fut_per) fut_buf[{name}_PAD((int)fut_lane * fut_per + fut_k)] = fut_lane == 0 ? fut_x[fut_k] : {};",
        op("fut_ex", "fut_x[fut_k]")
    );
    let _ = writeln!(
        src,
        "    __syncwarp();\n    #pragma unroll\n    for (int fut_k = 0; fut_k < {items}; fut_k++) {{\n      const int fut_i = fut_k * 32 + (int)fut_lane;\n      if (fut_i < fut_seglen) {{\n        const i64 fut_f = fut_s0 + fut_i;\n        const {a} fut_y = fut_buf[{name}_PAD(fut_i)];"
    );
    src.push_str(&store("fut_y", "fut_f", "        "));
    let _ = writeln!(src, "      }}\n    }}\n    __syncwarp();\n  }}\n}}");
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::samples;
    use futhark_ir::{BinOp, Lambda, PrimValue, SegOp};

    fn cases() -> Vec<(futhark_ir::KernelProgram, usize)> {
        let (aff, aff_ne) = samples::affine_compose();
        vec![
            (
                samples::scan(
                    "s",
                    Lambda::binop(BinOp::Add, PrimType::F32),
                    vec![PrimValue::F32(0.0)],
                    false,
                ),
                4,
            ),
            (
                samples::scan(
                    "s",
                    Lambda::binop(BinOp::Add, PrimType::I32),
                    vec![PrimValue::I32(0)],
                    true,
                ),
                4,
            ),
            (samples::scan("s", aff, aff_ne, true), 8),
        ]
    }

    /// Presets without the new options generate what they did before them (spot check:
    /// the trace, vector, relaxed and exponential-backoff code stays out).
    #[test]
    fn plain_presets_have_no_new_code() {
        for (prog, acc) in &cases() {
            let k = &prog.kernels[0];
            let SegOp::Scan(op) = &k.op else {
                panic!("not a scan")
            };
            let gk = gen_scan_with(prog, k, op, ScanConfig::BASE.for_acc(*acc)).expect("gen");
            for s in ["fut_trace", "fut_vw_", "relaxed", "__nanosleep"] {
                assert!(!gk.source.contains(s), "{s} in the base kernel");
            }
        }
    }
}
