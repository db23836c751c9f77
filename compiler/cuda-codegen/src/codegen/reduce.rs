//! Segmented reductions: three entry points, chosen at run time by segment size.
//!
//! * `_block`: each of `bps` blocks per segment reduces a contiguous chunk. A commutative
//!   operator lets threads accumulate strided elements (coalesced, vectorised); otherwise the
//!   block stages tiles of `B*Q` elements through shared memory so that each thread reduces
//!   `Q` *consecutive* elements. Warp shuffles and a block tree then combine thread results
//!   in thread order. With `bps > 1` each block writes a partial, and the last block of the
//!   segment to finish (an atomic ticket) reduces the partials in order: a single pass.
//! * `_warp`: one warp per segment (medium segments).
//! * `_thread`: one thread per segment, sequential (small segments).
//!
//! Every combination keeps the left-to-right order of elements, so non-commutative operators
//! are correct in all three.
//!
//! Which entry runs, and how many blocks per segment, is decided at launch
//! (`runtime/launch.rs`): segments of 8192+ elements (or a single segment) take the block
//! entry with `bps = clamp(ceil(resident blocks / segments), 1, len / 4096)`, so few large
//! segments get several blocks each and many large ones (n-body: 10^5 x 10^5) one block per
//! segment, the resident blocks striding over them; 64+ elements take the warp entry, and
//! shorter segments the thread entry.
//!
//! Every entry knows the segment it works on (`fut_seg`), so a point's indices come from it
//! and the element's offset in the segment: no 64-bit division per element (the outer
//! indices depend on the segment only and are hoisted out of the element loop).

use std::fmt::Write;

use futhark_ir::{Kernel, KernelProgram, PrimType, SegRed, Size};

use super::emit::{
    Emitter, kernel_params, make_acc, needed_indices, operator_defs, size_exp, size_product,
    store_acc, struct_layout, unflatten,
};
use super::prims::{ElemFn, GRID_HEADER, element_loop, vec_plan};
use super::{CodegenError, GeneratedKernel, LaunchPlan, RedPlan, open_entry};

/// Threads per block of the block entry (its shared memory layout depends on it).
pub const RED_BLOCK: u32 = 256;
/// Consecutive elements per thread in a tile of a non-commutative block reduction.
pub const RED_TILE_Q: u32 = 8;

/// Generates the three reduction entries.
pub fn gen_red(
    prog: &KernelProgram,
    kernel: &Kernel,
    red: &SegRed,
    tiles: &super::TileConfig,
) -> Result<GeneratedKernel, CodegenError> {
    let name = &kernel.name;
    let em = Emitter::for_kernel(prog, kernel);
    let tys: Vec<PrimType> = red.neutral.iter().map(|v| v.ty()).collect();
    let (acc_size, _) = struct_layout(&tys);
    let commutative =
        red.commutative || red.op.as_binop().is_some_and(|(op, _)| op.is_commutative());
    let outer: Vec<&Size> = red.space.outer().iter().map(|d| &d.1).collect();
    let inner = red
        .space
        .inner()
        .map(|d| d.1.clone())
        .unwrap_or(Size::Const(1));
    let params = kernel_params(prog, kernel).join(", ");

    let mut src = operator_defs(prog, name, &red.op, &red.neutral);
    // The body, evaluated at a flat index, combined into the accumulator `fut_acc`.
    let accumulate = |em: &Emitter, flat: &str, _lane: Option<&str>, s: &mut String, ind: usize| {
        let pad = "  ".repeat(ind);
        seg_indices(red, flat, s, ind);
        let res = em.body(s, &red.body, ind);
        s.push_str(&make_acc(name, "fut_v", &res, &pad));
        let _ = writeln!(s, "{pad}fut_acc = {name}_op(fut_acc, fut_v);");
    };
    // The body evaluated into `fut_v` (declared by the caller).
    let evaluate = |em: &Emitter, flat: &str, s: &mut String, ind: usize| {
        let pad = "  ".repeat(ind);
        seg_indices(red, flat, s, ind);
        let res = em.body(s, &red.body, ind);
        for (i, r) in res.iter().enumerate() {
            let _ = writeln!(s, "{pad}fut_v.c{i} = {r};");
        }
    };
    let nseg = size_product(&outer);
    let seglen = size_exp(&inner);
    let store = |acc: &str, pad: &str| store_acc(prog, &red.outputs, acc, "fut_seg", pad);

    // --- block entry ---
    let b = RED_BLOCK;
    let q = RED_TILE_Q;
    let tile = b * q;
    open_entry(
        &mut src,
        b,
        &format!(
            "{name}_block({params}, const i64 fut_bps, {name}_acc* __restrict__ fut_partials, u32* __restrict__ fut_counters)"
        ),
    );
    let _ = writeln!(src, "  volatile int* fut_flag = (volatile int*)fut_shared;");
    let _ = writeln!(
        src,
        "  {name}_acc* fut_scratch = ({name}_acc*)(fut_shared + 16);"
    );
    if !commutative {
        let _ = writeln!(src, "  {name}_acc* fut_tile = fut_scratch + 32;");
    }
    let _ = writeln!(src, "  const i64 fut_nseg = {nseg}, fut_seglen = {seglen};");
    let _ = writeln!(src, "  const i64 fut_nvb = fut_nseg * fut_bps;");
    let _ = writeln!(
        src,
        "  const i64 fut_chunk = (fut_seglen + fut_bps - 1) / fut_bps;"
    );
    let _ = writeln!(
        src,
        "  for (i64 fut_vb = blockIdx.x; fut_vb < fut_nvb; fut_vb += gridDim.x) {{"
    );
    let _ = writeln!(
        src,
        "    const i64 fut_seg = fut_vb / fut_bps, fut_part = fut_vb % fut_bps;"
    );
    let _ = writeln!(
        src,
        "    const i64 fut_cs = fut_seg * fut_seglen + fut_min(fut_seglen, fut_part * fut_chunk);"
    );
    let _ = writeln!(
        src,
        "    const i64 fut_ce = fut_seg * fut_seglen + fut_min(fut_seglen, (fut_part + 1) * fut_chunk);"
    );
    let _ = writeln!(src, "    {name}_acc fut_acc = {name}_ne();");
    if commutative {
        let plan = vec_plan(prog, &red.space, &red.body, &[]);
        src.push_str(&element_loop(
            &em,
            plan.as_ref(),
            "fut_cs",
            "fut_ce",
            "(i64)threadIdx.x",
            "(i64)blockDim.x",
            2,
            &accumulate as &ElemFn,
        ));
        let _ = writeln!(
            src,
            "    fut_acc = {name}_block_reduce(fut_acc, fut_scratch);"
        );
    } else {
        let _ = writeln!(
            src,
            "    for (i64 fut_ts = fut_cs; fut_ts < fut_ce; fut_ts += {tile}) {{"
        );
        let _ = writeln!(
            src,
            "      #pragma unroll\n      for (int fut_k = 0; fut_k < {q}; fut_k++) {{"
        );
        let _ = writeln!(
            src,
            "        const i64 fut_f = fut_ts + fut_k * {b} + threadIdx.x;"
        );
        let _ = writeln!(src, "        {name}_acc fut_v = {name}_ne();");
        let _ = writeln!(src, "        if (fut_f < fut_ce) {{");
        evaluate(&em, "fut_f", &mut src, 5);
        let _ = writeln!(src, "        }}");
        let _ = writeln!(src, "        fut_tile[fut_k * {b} + threadIdx.x] = fut_v;");
        let _ = writeln!(src, "      }}");
        let _ = writeln!(src, "      __syncthreads();");
        let _ = writeln!(src, "      {name}_acc fut_t = fut_tile[threadIdx.x * {q}];");
        let _ = writeln!(
            src,
            "      #pragma unroll\n      for (int fut_k = 1; fut_k < {q}; fut_k++) fut_t = {name}_op(fut_t, fut_tile[threadIdx.x * {q} + fut_k]);"
        );
        let _ = writeln!(
            src,
            "      fut_t = {name}_block_reduce(fut_t, fut_scratch);"
        );
        let _ = writeln!(
            src,
            "      if (threadIdx.x == 0) fut_acc = {name}_op(fut_acc, fut_t);"
        );
        let _ = writeln!(src, "    }}");
    }
    let _ = writeln!(src, "    if (fut_bps == 1) {{");
    let _ = writeln!(src, "      if (threadIdx.x == 0) {{");
    src.push_str(&store("fut_acc", "        "));
    let _ = writeln!(src, "      }}");
    let _ = writeln!(src, "    }} else {{");
    let _ = writeln!(src, "      if (threadIdx.x == 0) {{");
    let _ = writeln!(src, "        fut_partials[fut_vb] = fut_acc;");
    let _ = writeln!(src, "        __threadfence();");
    let _ = writeln!(
        src,
        "        const u32 fut_ticket = atomicAdd(&fut_counters[fut_seg], 1u);"
    );
    let _ = writeln!(src, "        *fut_flag = fut_ticket == (u32)(fut_bps - 1);");
    let _ = writeln!(src, "      }}");
    let _ = writeln!(src, "      __syncthreads();");
    let _ = writeln!(src, "      if (*fut_flag) {{");
    let _ = writeln!(src, "        __threadfence();");
    let _ = writeln!(
        src,
        "        const i64 fut_c = (fut_bps + blockDim.x - 1) / blockDim.x;"
    );
    let _ = writeln!(
        src,
        "        const i64 fut_pe = fut_min(fut_bps, (i64)(threadIdx.x + 1) * fut_c);"
    );
    let _ = writeln!(src, "        {name}_acc fut_p = {name}_ne();");
    let _ = writeln!(
        src,
        "        for (i64 fut_i = (i64)threadIdx.x * fut_c; fut_i < fut_pe; fut_i++) fut_p = {name}_op(fut_p, {name}_ldcg(&fut_partials[fut_seg * fut_bps + fut_i]));"
    );
    let _ = writeln!(
        src,
        "        fut_p = {name}_block_reduce(fut_p, fut_scratch);"
    );
    let _ = writeln!(src, "        if (threadIdx.x == 0) {{");
    src.push_str(&store("fut_p", "          "));
    let _ = writeln!(src, "          fut_counters[fut_seg] = 0u;");
    let _ = writeln!(src, "        }}");
    let _ = writeln!(src, "      }}");
    let _ = writeln!(src, "      __syncthreads();");
    let _ = writeln!(src, "    }}");
    let _ = writeln!(src, "  }}\n}}\n");

    // --- warp entry ---
    open_entry(&mut src, b, &format!("{name}_warp({params})"));
    let _ = writeln!(src, "  const i64 fut_nseg = {nseg}, fut_seglen = {seglen};");
    let _ = writeln!(src, "  const i64 fut_lane = threadIdx.x & 31;");
    let _ = writeln!(
        src,
        "  const i64 fut_gw = ((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;"
    );
    let _ = writeln!(
        src,
        "  const i64 fut_nw = ((i64)gridDim.x * blockDim.x) >> 5;"
    );
    let _ = writeln!(
        src,
        "  for (i64 fut_seg = fut_gw; fut_seg < fut_nseg; fut_seg += fut_nw) {{"
    );
    let _ = writeln!(
        src,
        "    const i64 fut_cs = fut_seg * fut_seglen, fut_ce = fut_cs + fut_seglen;"
    );
    let _ = writeln!(src, "    {name}_acc fut_acc = {name}_ne();");
    if commutative {
        src.push_str(&element_loop(
            &em,
            None,
            "fut_cs",
            "fut_ce",
            "fut_lane",
            "32",
            2,
            &accumulate as &ElemFn,
        ));
        let _ = writeln!(src, "    fut_acc = {name}_warp_reduce(fut_acc);");
    } else {
        let _ = writeln!(
            src,
            "    for (i64 fut_b = fut_cs; fut_b < fut_ce; fut_b += 32) {{"
        );
        let _ = writeln!(src, "      const i64 fut_f = fut_b + fut_lane;");
        let _ = writeln!(src, "      {name}_acc fut_v = {name}_ne();");
        let _ = writeln!(src, "      if (fut_f < fut_ce) {{");
        evaluate(&em, "fut_f", &mut src, 4);
        let _ = writeln!(src, "      }}");
        let _ = writeln!(src, "      fut_v = {name}_warp_reduce(fut_v);");
        let _ = writeln!(src, "      fut_acc = {name}_op(fut_acc, fut_v);");
        let _ = writeln!(src, "    }}");
    }
    let _ = writeln!(src, "    if (fut_lane == 0) {{");
    src.push_str(&store("fut_acc", "      "));
    let _ = writeln!(src, "    }}\n  }}\n}}\n");

    // --- thread entry ---
    open_entry(&mut src, 1024, &format!("{name}_thread({params})"));
    src.push_str(GRID_HEADER);
    let _ = writeln!(src, "  const i64 fut_nseg = {nseg}, fut_seglen = {seglen};");
    let _ = writeln!(
        src,
        "  for (i64 fut_seg = fut_gtid; fut_seg < fut_nseg; fut_seg += fut_gstride) {{"
    );
    let _ = writeln!(src, "    {name}_acc fut_acc = {name}_ne();");
    let _ = writeln!(
        src,
        "    for (i64 fut_f = fut_seg * fut_seglen; fut_f < (fut_seg + 1) * fut_seglen; fut_f++) {{"
    );
    accumulate(&em, "fut_f", None, &mut src, 3);
    let _ = writeln!(src, "    }}");
    src.push_str(&store("fut_acc", "    "));
    let _ = writeln!(src, "  }}\n}}");
    let tiled = super::tile::gen_tiled_all(prog, kernel, red, tiles, &mut src);

    let block_shared = 16
        + 32 * acc_size
        + if commutative {
            0
        } else {
            tile as usize * acc_size
        };
    Ok(GeneratedKernel::new(
        prog,
        kernel,
        src,
        LaunchPlan::Red(RedPlan {
            block_entry: format!("{name}_block"),
            warp_entry: format!("{name}_warp"),
            thread_entry: format!("{name}_thread"),
            segments: outer.into_iter().cloned().collect(),
            inner,
            acc_size,
            block_size: b,
            commutative,
            block_shared,
            tiled,
        }),
    ))
}

/// Binds the flat index and the space's indices used by the body, for the element at flat
/// index `flat` of segment `fut_seg` (in scope in every entry): the innermost index is the
/// offset in the segment, the outer ones come from the segment number.
fn seg_indices(red: &SegRed, flat: &str, out: &mut String, indent: usize) {
    let pad = "  ".repeat(indent);
    let space = &red.space;
    let _ = writeln!(out, "{pad}const i64 v_{} = {flat};", space.flat);
    let n = space.dims.len();
    let needed = needed_indices(space, &red.body);
    if !needed.iter().any(|x| *x) {
        return;
    }
    if n == 1 {
        let _ = writeln!(out, "{pad}const i64 v_{} = {flat};", space.dims[0].0);
        return;
    }
    let (inner, _) = &space.dims[n - 1];
    if needed[n - 1] {
        let _ = writeln!(
            out,
            "{pad}const i64 v_{inner} = {flat} - fut_seg * fut_seglen;"
        );
    }
    if !needed[..n - 1].iter().any(|x| *x) {
        return;
    }
    let _ = writeln!(out, "{pad}i64 fut_srem = fut_seg;");
    unflatten(
        out,
        &pad,
        "fut_srem",
        &space.dims[..n - 1],
        &needed[..n - 1],
    );
}
