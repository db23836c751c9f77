//! Generalised histograms (`reduce_by_index`), after Hellfritsch (seed 001).
//!
//! Entries, chosen and shaped at run time by [`plan::plan`] from the sizes and the device:
//! * `_shared(…, lo, hc, nsub, words, locks)`: each block keeps `nsub` subhistograms of
//!   the `hc` buckets `[lo, lo + hc)` in shared memory (threads spread over them to cut
//!   contention), updates them with shared-memory atomics, and merges them into the
//!   destination with global updates at the end (skipping buckets still neutral). A
//!   histogram too large for one block's shared memory runs as several such passes.
//! * `_global(…, words, locks)`: updates straight into the destination, for large `H`.
//! * `_pack`/`_unpack` (packed two-component buckets only): copy the destinations into a
//!   scratch array of 64-bit words, which the other entries update, and back.
//!
//! The map computing each element's bucket and value is the kernel body, evaluated in the
//! element loop (vectorised loads where it reads its inputs at the element's index): no
//! index array is materialised. A warp whose lanes all update one bucket combines their
//! values with shuffles first and updates once (the all-equal-indices case). How buckets
//! are updated is [`update`]'s choice.

pub mod plan;
pub mod update;

use std::fmt::Write;

use futhark_ir::{Body, Kernel, KernelProgram, PrimType, SegHist, Size};

use super::emit::{
    Emitter, constant, kernel_params, load_conv, operator_defs, reg_ty, size_exp, size_product,
    store_conv,
};
use super::prims::{ElemFn, GRID_HEADER, element_loop, vec_plan};
use super::{CodegenError, GeneratedKernel, HistPlan, LaunchPlan, open_entry};
pub use update::slot_ty;
use update::{Kind, kind};

/// Most threads per block of the shared-memory entry (its launch bound; the runtime may
/// launch fewer, `HistTuning::block`).
pub const HIST_BLOCK: u32 = 1024;

pub fn gen_hist(
    prog: &KernelProgram,
    kernel: &Kernel,
    hist: &SegHist,
) -> Result<GeneratedKernel, CodegenError> {
    let name = &kernel.name;
    let tys: Vec<PrimType> = hist.neutral.iter().map(|v| v.ty()).collect();
    if tys.is_empty() || hist.dests.len() != tys.len() {
        return Err(CodegenError::Unsupported {
            kernel: name.clone(),
            what: "a histogram without one destination per component".into(),
        });
    }
    let k = kind(&tys);
    let binop = if tys.len() == 1 {
        hist.op.as_binop().map(|(op, _)| op)
    } else {
        None
    };
    let em = Emitter::for_kernel(prog, kernel);
    let params = kernel_params(prog, kernel).join(", ");
    let h = size_exp(&hist.num_buckets);
    let dims: Vec<&Size> = hist.space.dims.iter().map(|d| &d.1).collect();
    let total = size_product(&dims);

    let mut src = operator_defs(prog, name, &hist.op, &hist.neutral);
    if k == Kind::Single {
        let rt = reg_ty(tys[0]);
        let _ = writeln!(
            src,
            "static __device__ __forceinline__ {rt} {name}_apply({rt} x, {rt} y) {{ {name}_acc fut_a, fut_b; fut_a.c0 = x; fut_b.c0 = y; return {name}_op(fut_a, fut_b).c0; }}"
        );
    }
    if k == Kind::Packed {
        src.push_str(&update::packed_helpers(name, &tys));
    }
    src.push_str(&update::helpers(name, &tys, binop));
    let (shared_desc, global_desc) = update::describe(&tys, binop);

    // The destinations (and scratch) as the update helpers take them.
    let mut gl = format!("  {name}_gl fut_g;\n");
    for (i, d) in hist.dests.iter().enumerate() {
        let _ = writeln!(gl, "  fut_g.d{i} = a_{d};");
    }
    gl.push_str("  fut_g.w = fut_words;\n  fut_g.lk = fut_locks;\n");
    let scratch = "u64* fut_words, u32* fut_locks";
    let neutral_test: Vec<String> = hist
        .neutral
        .iter()
        .enumerate()
        .map(|(i, v)| format!("fut_v.c{i} == {}", constant(*v)))
        .collect();

    let plan = vec_plan(prog, &hist.space, &hist.body, &[]);
    open_entry(
        &mut src,
        HIST_BLOCK,
        &format!(
            "{name}_shared({params}, const i64 fut_lo, const i64 fut_hc, const i64 fut_nsub, {scratch})"
        ),
    );
    src.push_str(GRID_HEADER);
    let _ = writeln!(src, "  const i64 fut_h = {h};");
    src.push_str(&gl);
    let _ = writeln!(
        src,
        "  const i64 fut_ns = fut_hc * fut_nsub;\n  const {name}_sh fut_sub = {name}_sh_carve((char*)fut_shared, fut_ns);"
    );
    let _ = writeln!(
        src,
        "  for (i64 fut_i = threadIdx.x; fut_i < fut_ns; fut_i += blockDim.x) {name}_sh_init(fut_sub, fut_i);"
    );
    let _ = writeln!(src, "  __syncthreads();");
    let _ = writeln!(
        src,
        "  const i64 fut_my = (i64)(threadIdx.x % fut_nsub) * fut_hc - fut_lo;"
    );
    let shared_update = update_fn(
        name,
        &tys,
        &hist.body,
        "if (fut_b >= fut_lo && fut_b < fut_lo + fut_hc) ",
        &format!("{name}_sh_update(fut_sub, fut_my + fut_b, "),
    );
    src.push_str(&element_loop(
        &em,
        plan.as_ref(),
        "0",
        &total,
        "fut_gtid",
        "fut_gstride",
        1,
        &shared_update as &ElemFn,
    ));
    let _ = writeln!(src, "  __syncthreads();");
    let _ = writeln!(
        src,
        "  for (i64 fut_i = threadIdx.x; fut_i < fut_hc; fut_i += blockDim.x) {{"
    );
    let _ = writeln!(
        src,
        "    {name}_acc fut_v = {name}_sh_read(fut_sub, fut_i);"
    );
    let _ = writeln!(
        src,
        "    for (i64 fut_s = 1; fut_s < fut_nsub; fut_s++) fut_v = {name}_op(fut_v, {name}_sh_read(fut_sub, fut_s * fut_hc + fut_i));"
    );
    let _ = writeln!(
        src,
        "    if (!({})) {name}_gl_update(fut_g, fut_lo + fut_i, fut_v);",
        neutral_test.join(" && ")
    );
    let _ = writeln!(src, "  }}\n}}\n");

    open_entry(
        &mut src,
        1024,
        &format!("{name}_global({params}, {scratch})"),
    );
    src.push_str(GRID_HEADER);
    let _ = writeln!(src, "  const i64 fut_h = {h};");
    src.push_str(&gl);
    let global_update = update_fn(
        name,
        &tys,
        &hist.body,
        "if (fut_b >= 0 && fut_b < fut_h) ",
        &format!("{name}_gl_update(fut_g, fut_b, "),
    );
    src.push_str(&element_loop(
        &em,
        plan.as_ref(),
        "0",
        &total,
        "fut_gtid",
        "fut_gstride",
        1,
        &global_update as &ElemFn,
    ));
    let _ = writeln!(src, "}}");

    let pack_entries = (k == Kind::Packed).then(|| {
        for (entry, to_words) in [("pack", true), ("unpack", false)] {
            let _ = writeln!(src);
            open_entry(
                &mut src,
                1024,
                &format!("{name}_{entry}({params}, {scratch})"),
            );
            src.push_str(GRID_HEADER);
            let _ = writeln!(src, "  const i64 fut_h = {h};");
            let _ = writeln!(
                src,
                "  for (i64 fut_i = fut_gtid; fut_i < fut_h; fut_i += fut_gstride) {{"
            );
            if to_words {
                let _ = writeln!(src, "    {name}_acc fut_v;");
                for (i, (d, t)) in hist.dests.iter().zip(&tys).enumerate() {
                    let _ = writeln!(
                        src,
                        "    fut_v.c{i} = {};",
                        load_conv(*t, &format!("a_{d}[fut_i]"))
                    );
                }
                let _ = writeln!(src, "    fut_words[fut_i] = {name}_pack(fut_v);");
            } else {
                let _ = writeln!(
                    src,
                    "    const {name}_acc fut_v = {name}_unpack(fut_words[fut_i]);"
                );
                for (i, (d, t)) in hist.dests.iter().zip(&tys).enumerate() {
                    let _ = writeln!(
                        src,
                        "    a_{d}[fut_i] = {};",
                        store_conv(*t, &format!("fut_v.c{i}"))
                    );
                }
            }
            let _ = writeln!(src, "  }}\n}}");
        }
        (format!("{name}_pack"), format!("{name}_unpack"))
    });

    Ok(GeneratedKernel::new(
        prog,
        kernel,
        src,
        LaunchPlan::Hist(HistPlan {
            shared_entry: format!("{name}_shared"),
            global_entry: format!("{name}_global"),
            pack_entries,
            locks: k == Kind::Locked,
            elements: hist.space.dims.iter().map(|d| d.1.clone()).collect(),
            buckets: hist.num_buckets.clone(),
            shared_arrays: update::shared_arrays(&tys),
            block_size: HIST_BLOCK,
            native: update::shared_native(&tys, binop),
            update: format!("shared: {shared_desc}; global: {global_desc}"),
        }),
    ))
}

/// The per-element code of a histogram: evaluate the body, then update bucket `fut_b`
/// (when `guard` holds) through `call` (completed with the value and `);`). A warp whose
/// lanes all have one bucket reduces its values with shuffles and updates once.
fn update_fn<'a>(
    name: &'a str,
    tys: &'a [PrimType],
    body: &'a Body,
    guard: &'a str,
    call: &str,
) -> impl Fn(&Emitter, &str, Option<&str>, &mut String, usize) + 'a {
    let call = call.to_string();
    move |em: &Emitter, flat: &str, _lane: Option<&str>, s: &mut String, ind: usize| {
        let pad = "  ".repeat(ind);
        em.space_indices(s, body, flat, ind);
        let res = em.body(s, body, ind);
        let _ = writeln!(s, "{pad}{{");
        let _ = writeln!(s, "{pad}  const i64 fut_b = {};", res[0]);
        let _ = writeln!(s, "{pad}  {name}_acc fut_hv;");
        for (i, (r, t)) in res[1..].iter().zip(tys).enumerate() {
            let _ = writeln!(s, "{pad}  fut_hv.c{i} = ({}){r};", reg_ty(*t));
        }
        let _ = writeln!(
            s,
            "{pad}  const unsigned fut_am = __activemask();\n{pad}  const i64 fut_b0 = __shfl_sync(fut_am, fut_b, __ffs(fut_am) - 1);"
        );
        let _ = writeln!(
            s,
            "{pad}  if (fut_am == 0xffffffffu && __all_sync(fut_am, fut_b == fut_b0)) {{\n{pad}    fut_hv = {name}_warp_reduce(fut_hv);\n{pad}    if ((threadIdx.x & 31) == 0) {{ {guard}{call}fut_hv); }}\n{pad}  }} else {{ {guard}{call}fut_hv); }}"
        );
        let _ = writeln!(s, "{pad}}}");
    }
}
