//! Reduce-then-scan in three kernels: a reference point for the single-pass look-back
//! kernel, not used by `gen_scan` (the runtime launches one entry per scan plan, so a
//! caller runs the three kernels itself; `prims_bench` does).
//!
//! 1. `reduce`: block `c` reduces chunk `c` (`R` tiles of `B*Q` elements) in order and
//!    writes the chunk's total to `fut_sums[c]`;
//! 2. `spine`: one block replaces the chunk totals by their exclusive prefixes;
//! 3. `scan`: block `c` scans chunk `c` again, tile by tile, starting from `fut_sums[c]`.
//!
//! The input is read twice (12 bytes per 4-byte element instead of 8) but no block ever
//! waits for another. Tiles load through shared memory as in the look-back kernel, with
//! 16-byte vector accesses in full tiles when the body reads its inputs at the flat index
//! and the arrays are aligned. Flat scans only.
//!
//! Each kernel is a `GeneratedKernel` of its own (named `<kernel>_rts_{reduce,spine,scan}`)
//! whose `LaunchPlan::Scan` only serves to set the launch shape: grid = chunks (`tile` =
//! chunk), or one block for the spine. The runtime's status scratch is passed but unused.
//! `reduce` and `scan` take the program's arrays, then `fut_sums` (chunk totals: at least
//! [`RtsKernels::sums_bytes`] bytes, allocated by the caller), then the sizes; `spine` takes
//! `fut_sums` and the sizes.

use std::fmt::Write;

use futhark_ir::{Kernel, KernelProgram, PrimType, SegScan, Size};

use crate::codegen::emit::{
    Emitter, VecSubst, kernel_params, operator_defs, size_product, store_conv, store_ty,
    struct_layout,
};
use crate::codegen::prims::{typed_arrays, vec_plan};
use crate::codegen::{ArrayParam, CodegenError, GeneratedKernel, LaunchPlan, ScanPlan, open_entry};

/// The three kernels of a reduce-then-scan.
#[derive(Clone, Debug)]
pub struct RtsKernels {
    pub reduce: GeneratedKernel,
    pub spine: GeneratedKernel,
    pub scan: GeneratedKernel,
    /// Elements per chunk (one block of `reduce` and of `scan`).
    pub chunk: u64,
    /// Bytes of one accumulator.
    pub acc_size: usize,
    /// Elements per vector access (1: scalar accesses only).
    pub vector_width: usize,
}

impl RtsKernels {
    /// Bytes `fut_sums` needs for `n` elements.
    pub fn sums_bytes(&self, n: u64) -> usize {
        n.div_ceil(self.chunk).max(1) as usize * self.acc_size
    }
}

/// Generates the reduce-then-scan kernels of a flat scan: `block` threads, `items` per
/// thread for 4-byte accumulators (scaled to the accumulator size as `ScanConfig::for_acc`
/// does), `tiles` tiles per chunk.
pub fn gen_scan_rts(
    prog: &KernelProgram,
    kernel: &Kernel,
    scan: &SegScan,
    block: u32,
    items: u32,
    tiles: u32,
) -> Result<RtsKernels, CodegenError> {
    let name = &kernel.name;
    if scan.space.dims.len() > 1 {
        return Err(CodegenError::Unsupported {
            kernel: name.clone(),
            what: "a segmented reduce-then-scan".into(),
        });
    }
    let em = Emitter::for_kernel(prog, kernel);
    let tys: Vec<PrimType> = scan.neutral.iter().map(|v| v.ty()).collect();
    let (acc_size, _) = struct_layout(&tys);
    let b = (block.clamp(32, 1024) / 32) * 32;
    let q = (items as usize * 4 / acc_size.max(1)).clamp(1, items.clamp(1, 32) as usize) as u32;
    let r = tiles.max(1);
    let tile = b * q;
    let chunk = tile as u64 * r as u64;
    let nw = b / 32;
    let dims: Vec<&Size> = scan.space.dims.iter().map(|d| &d.1).collect();
    let total = size_product(&dims);
    let a = format!("{name}_acc");
    let ne = format!("{name}_ne()");
    let op = |x: &str, y: &str| format!("{name}_op({x}, {y})");
    let outputs = typed_arrays(prog, &scan.outputs);
    let vp = vec_plan(prog, &scan.space, &scan.body, &outputs)
        .filter(|p| p.width <= q as usize && (q as usize).is_multiple_of(p.width));
    let ptrs = vp.as_ref().map(|vp| {
        vp.inputs
            .iter()
            .chain(&vp.outputs)
            .map(|(n, _)| format!("(u64)a_{n}"))
            .collect::<Vec<_>>()
            .join(" | ")
    });

    let narrays = prog.kernel_arrays(kernel).len();
    let mut plist = kernel_params(prog, kernel);
    let sizes_params: Vec<String> = plist[narrays..].to_vec();
    plist.insert(narrays, format!("{a}* __restrict__ fut_sums"));
    let params = plist.join(", ");
    let extra = "u32* __restrict__ fut_unused_counter, u64* __restrict__ fut_unused_status";

    let mut src = operator_defs(prog, name, &scan.op, &scan.neutral);
    src.push_str(&super::warp::warp_scan_defs(name, false));
    let _ = writeln!(src, "#define {name}_PAD(i) ((i) + ((i) >> 5))");

    // Loads the tile at `fut_ts` into `fut_tile` (tile order, padded); neutral past the end.
    let load_tile = |s: &mut String| {
        if let (Some(vp), Some(ptrs)) = (&vp, &ptrs) {
            let v = vp.width;
            let steps = q as usize / v;
            let _ = writeln!(
                s,
                "    if (fut_ts + {tile} <= fut_n && (({ptrs}) & 15) == 0) {{"
            );
            for (n, ty) in &vp.inputs {
                let words = v * ty.size_bytes() / 16;
                let _ = writeln!(s, "      uint4 fut_vw_{n}[{}];", steps * words);
            }
            let _ = writeln!(
                s,
                "      #pragma unroll\n      for (int fut_s = 0; fut_s < {steps}; fut_s++) {{"
            );
            let _ = writeln!(
                s,
                "        const i64 fut_base = fut_ts + ((i64)fut_s * {b} + threadIdx.x) * {v};"
            );
            for (n, ty) in &vp.inputs {
                let words = v * ty.size_bytes() / 16;
                let _ = writeln!(
                    s,
                    "        #pragma unroll\n        for (int fut_q = 0; fut_q < {words}; fut_q++) fut_vw_{n}[fut_s * {words} + fut_q] = reinterpret_cast<const uint4*>(a_{n} + fut_base)[fut_q];"
                );
            }
            let _ = writeln!(s, "      }}");
            let _ = writeln!(
                s,
                "      #pragma unroll\n      for (int fut_s = 0; fut_s < {steps}; fut_s++) {{"
            );
            let _ = writeln!(
                s,
                "        const i64 fut_base = fut_ts + ((i64)fut_s * {b} + threadIdx.x) * {v};"
            );
            let mut subst = VecSubst {
                bufs: Default::default(),
                lane: "fut_j".into(),
            };
            for (n, ty) in &vp.inputs {
                let words = v * ty.size_bytes() / 16;
                let _ = writeln!(
                    s,
                    "        __align__(16) {} fut_vb_{n}[{v}];",
                    store_ty(*ty)
                );
                let _ = writeln!(
                    s,
                    "        #pragma unroll\n        for (int fut_q = 0; fut_q < {words}; fut_q++) reinterpret_cast<uint4*>(fut_vb_{n})[fut_q] = fut_vw_{n}[fut_s * {words} + fut_q];"
                );
                subst.bufs.insert(n.clone(), format!("fut_vb_{n}"));
            }
            let vem = em.with_vec(subst);
            let _ = writeln!(
                s,
                "        #pragma unroll\n        for (int fut_j = 0; fut_j < {v}; fut_j++) {{"
            );
            let _ = writeln!(s, "          {a} fut_v;");
            vem.space_indices(s, &scan.body, "fut_base + fut_j", 5);
            let res = vem.body(s, &scan.body, 5);
            for (i, r) in res.iter().enumerate() {
                let _ = writeln!(s, "          fut_v.c{i} = {r};");
            }
            let _ = writeln!(
                s,
                "          fut_tile[{name}_PAD((fut_s * {b} + threadIdx.x) * {v} + fut_j)] = fut_v;"
            );
            let _ = writeln!(s, "        }}");
            let _ = writeln!(s, "      }}");
            let _ = writeln!(s, "    }} else {{");
        } else {
            let _ = writeln!(s, "    {{");
        }
        let _ = writeln!(
            s,
            "      #pragma unroll\n      for (int fut_k = 0; fut_k < {q}; fut_k++) {{"
        );
        let _ = writeln!(
            s,
            "        const i64 fut_f = fut_ts + fut_k * {b} + threadIdx.x;"
        );
        let _ = writeln!(s, "        {a} fut_v = {ne};");
        let _ = writeln!(s, "        if (fut_f < fut_n) {{");
        em.space_indices(s, &scan.body, "fut_f", 5);
        let res = em.body(s, &scan.body, 5);
        for (i, r) in res.iter().enumerate() {
            let _ = writeln!(s, "          fut_v.c{i} = {r};");
        }
        let _ = writeln!(s, "        }}");
        let _ = writeln!(
            s,
            "        fut_tile[{name}_PAD(fut_k * {b} + threadIdx.x)] = fut_v;"
        );
        let _ = writeln!(s, "      }}");
        let _ = writeln!(s, "    }}");
        let _ = writeln!(s, "    __syncthreads();");
    };
    // Stores `fut_tile` (tile order, padded) at `fut_ts`.
    let store_tile = |s: &mut String| {
        if let (Some(vp), Some(ptrs)) = (&vp, &ptrs) {
            let v = vp.width;
            let steps = q as usize / v;
            let _ = writeln!(
                s,
                "    if (fut_ts + {tile} <= fut_n && (({ptrs}) & 15) == 0) {{"
            );
            let _ = writeln!(
                s,
                "      #pragma unroll\n      for (int fut_s = 0; fut_s < {steps}; fut_s++) {{"
            );
            let _ = writeln!(
                s,
                "        const i64 fut_base = fut_ts + ((i64)fut_s * {b} + threadIdx.x) * {v};"
            );
            for (o, ty) in &vp.outputs {
                let _ = writeln!(
                    s,
                    "        __align__(16) {} fut_vo_{o}[{v}];",
                    store_ty(*ty)
                );
            }
            let _ = writeln!(
                s,
                "        #pragma unroll\n        for (int fut_j = 0; fut_j < {v}; fut_j++) {{"
            );
            let _ = writeln!(
                s,
                "          const {a} fut_y = fut_tile[{name}_PAD((fut_s * {b} + threadIdx.x) * {v} + fut_j)];"
            );
            for (i, (o, ty)) in vp.outputs.iter().enumerate() {
                let _ = writeln!(
                    s,
                    "          fut_vo_{o}[fut_j] = {};",
                    store_conv(*ty, &format!("fut_y.c{i}"))
                );
            }
            let _ = writeln!(s, "        }}");
            for (o, ty) in &vp.outputs {
                let words = v * ty.size_bytes() / 16;
                let _ = writeln!(
                    s,
                    "        #pragma unroll\n        for (int fut_q = 0; fut_q < {words}; fut_q++) reinterpret_cast<uint4*>(a_{o} + fut_base)[fut_q] = reinterpret_cast<const uint4*>(fut_vo_{o})[fut_q];"
                );
            }
            let _ = writeln!(s, "      }}");
            let _ = writeln!(s, "    }} else {{");
        } else {
            let _ = writeln!(s, "    {{");
        }
        let _ = writeln!(
            s,
            "      #pragma unroll\n      for (int fut_k = 0; fut_k < {q}; fut_k++) {{"
        );
        let _ = writeln!(
            s,
            "        const i64 fut_f = fut_ts + fut_k * {b} + threadIdx.x;"
        );
        let _ = writeln!(s, "        if (fut_f < fut_n) {{");
        let _ = writeln!(
            s,
            "          const {a} fut_y = fut_tile[{name}_PAD(fut_k * {b} + threadIdx.x)];"
        );
        for (i, (o, ty)) in outputs.iter().enumerate() {
            let _ = writeln!(
                s,
                "          a_{o}[fut_f] = {};",
                store_conv(*ty, &format!("fut_y.c{i}"))
            );
        }
        let _ = writeln!(s, "        }}");
        let _ = writeln!(s, "      }}");
        let _ = writeln!(s, "    }}");
    };
    let header = |s: &mut String| {
        let _ = writeln!(s, "  const i64 fut_n = {total};");
        let _ = writeln!(s, "  {a}* fut_wsum = ({a}*)(fut_shared + 64);");
        let _ = writeln!(s, "  {a}* fut_tile = fut_wsum + 33;");
        let _ = writeln!(s, "  (void)fut_tile;");
        let _ = writeln!(
            s,
            "  const unsigned fut_lane = threadIdx.x & 31, fut_warp = threadIdx.x >> 5;"
        );
        let _ = writeln!(s, "  (void)fut_lane; (void)fut_warp;");
    };
    // Warp 0 turns the warp totals `fut_wsum[0, nwarps)` into exclusive prefixes and leaves
    // the block total in `fut_wsum[32]`.
    let scan_warp_sums = |s: &mut String, nwarps: &str| {
        let _ = writeln!(s, "    if (fut_warp == 0) {{");
        let _ = writeln!(
            s,
            "      {a} fut_w = fut_lane < {nwarps} ? fut_wsum[fut_lane] : {ne};"
        );
        let _ = writeln!(s, "      fut_w = {name}_warp_scan(fut_w, fut_lane);");
        let _ = writeln!(s, "      {a} fut_wx = {name}_shfl_up(fut_w, 1);");
        let _ = writeln!(s, "      if (fut_lane == 0) fut_wx = {ne};");
        let _ = writeln!(
            s,
            "      if (fut_lane < {nwarps}) fut_wsum[fut_lane] = fut_wx;"
        );
        let _ = writeln!(s, "      if (fut_lane == 31) fut_wsum[32] = fut_w;");
        let _ = writeln!(s, "    }}");
        let _ = writeln!(s, "    __syncthreads();");
    };
    // Inclusive warp scan of `fut_inc`; the warp's total to `fut_wsum[fut_warp]`, the
    // lanes-before prefix to `fut_wex`.
    let warp_scan = |s: &mut String| {
        let _ = writeln!(s, "    fut_inc = {name}_warp_scan(fut_inc, fut_lane);");
        let _ = writeln!(s, "    if (fut_lane == 31) fut_wsum[fut_warp] = fut_inc;");
        let _ = writeln!(s, "    {a} fut_wex = {name}_shfl_up(fut_inc, 1);");
        let _ = writeln!(s, "    if (fut_lane == 0) fut_wex = {ne};");
        let _ = writeln!(s, "    __syncthreads();");
    };

    // 1. Chunk totals.
    open_entry(
        &mut src,
        b,
        &format!("{name}_rts_reduce({params}, {extra})"),
    );
    header(&mut src);
    let _ = writeln!(src, "  {a} fut_acc = {ne};");
    let _ = writeln!(src, "  for (int fut_r = 0; fut_r < {r}; fut_r++) {{");
    let _ = writeln!(
        src,
        "    const i64 fut_ts = ((i64)blockIdx.x * {r} + fut_r) * {tile};"
    );
    let _ = writeln!(src, "    if (fut_ts >= fut_n) break;");
    load_tile(&mut src);
    let _ = writeln!(
        src,
        "    {a} fut_t = fut_tile[{name}_PAD(threadIdx.x * {q})];"
    );
    let _ = writeln!(
        src,
        "    #pragma unroll\n    for (int fut_k = 1; fut_k < {q}; fut_k++) fut_t = {};",
        op(
            "fut_t",
            &format!("fut_tile[{name}_PAD(threadIdx.x * {q} + fut_k)]")
        )
    );
    let _ = writeln!(src, "    fut_t = {name}_block_reduce(fut_t, fut_wsum);");
    let _ = writeln!(
        src,
        "    if (threadIdx.x == 0) fut_acc = {};",
        op("fut_acc", "fut_t")
    );
    let _ = writeln!(src, "  }}");
    let _ = writeln!(
        src,
        "  if (threadIdx.x == 0) fut_sums[blockIdx.x] = fut_acc;"
    );
    let _ = writeln!(src, "}}\n");

    // 2. Exclusive prefixes of the chunk totals, in one block.
    let spine_params = std::iter::once(format!("{a}* __restrict__ fut_sums"))
        .chain(sizes_params.iter().cloned())
        .collect::<Vec<_>>()
        .join(", ");
    open_entry(
        &mut src,
        1024,
        &format!("{name}_rts_spine({spine_params}, {extra})"),
    );
    header(&mut src);
    let _ = writeln!(src, "  const i64 fut_nc = (fut_n + {chunk} - 1) / {chunk};");
    let _ = writeln!(
        src,
        "  const i64 fut_per = (fut_nc + blockDim.x - 1) / blockDim.x;"
    );
    let _ = writeln!(
        src,
        "  const i64 fut_lo = fut_min((i64)threadIdx.x * fut_per, fut_nc), fut_hi = fut_min(fut_lo + fut_per, fut_nc);"
    );
    let _ = writeln!(src, "  {{");
    let _ = writeln!(src, "    {a} fut_inc = {ne};");
    let _ = writeln!(
        src,
        "    for (i64 fut_i = fut_lo; fut_i < fut_hi; fut_i++) fut_inc = {};",
        op("fut_inc", "fut_sums[fut_i]")
    );
    warp_scan(&mut src);
    scan_warp_sums(&mut src, "(blockDim.x >> 5)");
    let _ = writeln!(
        src,
        "    {a} fut_run = {};",
        op("fut_wsum[fut_warp]", "fut_wex")
    );
    let _ = writeln!(
        src,
        "    for (i64 fut_i = fut_lo; fut_i < fut_hi; fut_i++) {{ const {a} fut_v = fut_sums[fut_i]; fut_sums[fut_i] = fut_run; fut_run = {}; }}",
        op("fut_run", "fut_v")
    );
    let _ = writeln!(src, "  }}");
    let _ = writeln!(src, "}}\n");

    // 3. Scan of each chunk from its carry-in.
    open_entry(&mut src, b, &format!("{name}_rts_scan({params}, {extra})"));
    header(&mut src);
    let _ = writeln!(src, "  {a} fut_carry = fut_sums[blockIdx.x];");
    let _ = writeln!(src, "  {a} fut_x[{q}];");
    let _ = writeln!(src, "  for (int fut_r = 0; fut_r < {r}; fut_r++) {{");
    let _ = writeln!(
        src,
        "    const i64 fut_ts = ((i64)blockIdx.x * {r} + fut_r) * {tile};"
    );
    let _ = writeln!(src, "    if (fut_ts >= fut_n) break;");
    load_tile(&mut src);
    let _ = writeln!(
        src,
        "    #pragma unroll\n    for (int fut_k = 0; fut_k < {q}; fut_k++) fut_x[fut_k] = fut_tile[{name}_PAD(threadIdx.x * {q} + fut_k)];"
    );
    let _ = writeln!(
        src,
        "    #pragma unroll\n    for (int fut_k = 1; fut_k < {q}; fut_k++) fut_x[fut_k] = {};",
        op("fut_x[fut_k - 1]", "fut_x[fut_k]")
    );
    let _ = writeln!(src, "    {a} fut_inc = fut_x[{}];", q - 1);
    warp_scan(&mut src);
    scan_warp_sums(&mut src, &nw.to_string());
    let _ = writeln!(
        src,
        "    const {a} fut_tp = {};",
        op("fut_carry", &op("fut_wsum[fut_warp]", "fut_wex"))
    );
    let _ = writeln!(
        src,
        "    #pragma unroll\n    for (int fut_k = 0; fut_k < {q}; fut_k++) fut_tile[{name}_PAD(threadIdx.x * {q} + fut_k)] = {};",
        op("fut_tp", "fut_x[fut_k]")
    );
    let _ = writeln!(src, "    fut_carry = {};", op("fut_carry", "fut_wsum[32]"));
    let _ = writeln!(src, "    __syncthreads();");
    store_tile(&mut src);
    let _ = writeln!(src, "    __syncthreads();");
    let _ = writeln!(src, "  }}");
    let _ = writeln!(src, "}}");

    let sums_param = ArrayParam {
        name: "fut_sums".into(),
        elem: PrimType::U8,
        shape: vec![Size::Const(1)],
        written: true,
    };
    let inner = scan
        .space
        .inner()
        .map(|d| d.1.clone())
        .unwrap_or(Size::Const(1));
    let tile_shared = 64 + 33 * acc_size + (tile as usize + tile as usize / 32 + 1) * acc_size;
    let make = |entry: &str, block_size: u32, tile: u64, shared_bytes: usize, spine: bool| {
        let mut gk = GeneratedKernel::new(
            prog,
            kernel,
            src.clone(),
            LaunchPlan::Scan(ScanPlan {
                lookback_entry: format!("{name}_{entry}"),
                thread_entry: None,
                warp_entry: None,
                segments: vec![],
                inner: inner.clone(),
                acc_size,
                block_size,
                tile,
                shared_bytes,
                packed: true,
            }),
        );
        gk.name = format!("{name}_{entry}");
        if spine {
            gk.arrays = vec![sums_param.clone()];
        } else {
            gk.arrays.push(sums_param.clone());
        }
        gk
    };
    Ok(RtsKernels {
        reduce: make("rts_reduce", b, chunk, tile_shared, false),
        // One block: a tile larger than any size.
        spine: make("rts_spine", 1024, 1 << 62, 64 + 33 * acc_size, true),
        scan: make("rts_scan", b, chunk, tile_shared, false),
        chunk,
        acc_size,
        vector_width: vp.as_ref().map(|p| p.width).unwrap_or(1),
    })
}
