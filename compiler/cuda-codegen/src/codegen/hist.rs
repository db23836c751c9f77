//! Generalised histograms (`reduce_by_index`), after Hellfritsch (seed 001).
//!
//! Two entries, chosen at run time:
//! * `_shared`: each block keeps `nsub` subhistograms in shared memory (threads spread over
//!   them to cut contention), updates them with shared-memory atomics, and merges them into
//!   the destination with global atomics at the end (skipping buckets still neutral). Used
//!   when `H` buckets fit in the shared memory the device gives one block.
//! * `_global`: global-memory atomics straight into the destination, for large `H`.
//!
//! Bucket updates use the cheapest correct primitive: a native atomic for add/min/max/and/
//! or/xor on the 32- and 64-bit types that have one; otherwise a compare-and-swap loop on the
//! 32- or 64-bit word (comparing bit patterns, so NaNs cannot loop forever). In shared memory,
//! 8- and 16-bit values live in 32-bit slots (f16 in an f32 slot); in global memory they are
//! updated by a CAS on the aligned 32-bit word that contains them.

use std::fmt::Write;

use futhark_ir::{BinOp, Body, Kernel, KernelProgram, PrimType, SegHist, Size};

use super::emit::{
    Emitter, constant, kernel_params, load_conv, operator_defs, reg_ty, size_exp, size_product,
    store_conv, store_ty,
};
use super::prims::{ElemFn, GRID_HEADER, element_loop, vec_plan};
use super::{CodegenError, GeneratedKernel, HistPlan, LaunchPlan, open_entry};

/// Threads per block of the shared-memory entry.
pub const HIST_BLOCK: u32 = 256;

/// The type of a shared-memory bucket holding a value of type `t`.
pub fn slot_ty(t: PrimType) -> PrimType {
    match t {
        PrimType::I8 | PrimType::I16 => PrimType::I32,
        PrimType::U8 | PrimType::U16 | PrimType::Bool => PrimType::U32,
        PrimType::F16 => PrimType::F32,
        t => t,
    }
}

/// The native atomic for `op` on memory of C type `t`, as (function, pointer cast, value
/// cast), if there is one.
fn native_atomic(op: BinOp, t: PrimType) -> Option<(&'static str, &'static str, &'static str)> {
    use PrimType::*;
    let f = match op {
        BinOp::Add => "atomicAdd",
        BinOp::Min => "atomicMin",
        BinOp::Max => "atomicMax",
        BinOp::And | BinOp::LogAnd => "atomicAnd",
        BinOp::Or | BinOp::LogOr => "atomicOr",
        BinOp::Xor => "atomicXor",
        _ => return None,
    };
    let logical = matches!(op, BinOp::LogAnd | BinOp::LogOr);
    let float_ok = op == BinOp::Add;
    match t {
        I32 if !logical => Some((f, "(int*)", "(int)")),
        U32 => Some((f, "(unsigned int*)", "(unsigned int)")),
        F32 if float_ok => Some((f, "(float*)", "(float)")),
        F64 if float_ok => Some((f, "(double*)", "(double)")),
        I64 if op == BinOp::Min || op == BinOp::Max => Some((f, "(long long*)", "(long long)")),
        I64 | U64 if !logical => Some((f, "(unsigned long long*)", "(unsigned long long)")),
        _ => None,
    }
}

pub fn gen_hist(
    prog: &KernelProgram,
    kernel: &Kernel,
    hist: &SegHist,
) -> Result<GeneratedKernel, CodegenError> {
    let name = &kernel.name;
    if hist.neutral.len() != 1 {
        return Err(CodegenError::Unsupported {
            kernel: name.clone(),
            what: "a tuple-valued histogram".into(),
        });
    }
    let ty = hist.neutral[0].ty();
    let slot = slot_ty(ty);
    let binop = hist.op.as_binop().map(|(op, _)| op);
    let em = Emitter::for_kernel(prog, kernel);
    let params = kernel_params(prog, kernel).join(", ");
    let dest = &hist.dests[0];
    let h = size_exp(&hist.num_buckets);
    let dims: Vec<&Size> = hist.space.dims.iter().map(|d| &d.1).collect();
    let total = size_product(&dims);
    let rt = reg_ty(ty);
    let a = format!("{name}_acc");

    let mut src = operator_defs(prog, name, &hist.op, &hist.neutral);
    // Applies the operator to two register values.
    let _ = writeln!(
        src,
        "static __device__ __forceinline__ {rt} {name}_apply({rt} x, {rt} y) {{ {a} fut_a, fut_b; fut_a.c0 = x; fut_b.c0 = y; return {name}_op(fut_a, fut_b).c0; }}"
    );

    // Global update.
    let global_desc;
    let _ = writeln!(
        src,
        "static __device__ __forceinline__ void {name}_update_global({}* p, {rt} v) {{",
        store_ty(ty)
    );
    if let Some((f, pc, vc)) = binop.and_then(|op| native_atomic(op, ty)) {
        global_desc = format!("native {f}");
        let _ = writeln!(src, "  {f}({pc}p, {vc}v);");
    } else if ty.size_bytes() == 4 || ty.size_bytes() == 8 {
        let w = ty.size_bytes() * 8;
        let wt = if w == 32 {
            "unsigned int"
        } else {
            "unsigned long long"
        };
        global_desc = format!("CAS loop ({w}-bit)");
        let _ = writeln!(
            src,
            "  {wt}* fut_w = ({wt}*)p;\n  {wt} fut_old = *fut_w, fut_as;"
        );
        let _ = writeln!(src, "  do {{\n    fut_as = fut_old;");
        let _ = writeln!(
            src,
            "    const {rt} fut_nv = {name}_apply(fut_from_bits{w}<{rt}>(fut_as), v);"
        );
        let _ = writeln!(
            src,
            "    fut_old = atomicCAS(fut_w, fut_as, ({wt})fut_to_bits{w}(fut_nv));"
        );
        let _ = writeln!(src, "  }} while (fut_old != fut_as);");
    } else {
        let bits = ty.size_bytes() * 8;
        let ut = if bits == 8 { "u8" } else { "u16" };
        global_desc = format!("CAS loop (containing 32-bit word, {bits}-bit value)");
        let _ = writeln!(
            src,
            "  unsigned int* fut_w = (unsigned int*)((u64)p & ~(u64)3);"
        );
        let _ = writeln!(
            src,
            "  const unsigned int fut_sh = (unsigned int)((u64)p & 3) * 8;"
        );
        let _ = writeln!(
            src,
            "  const unsigned int fut_mask = {}u << fut_sh;",
            if bits == 8 { "0xff" } else { "0xffff" }
        );
        let _ = writeln!(src, "  unsigned int fut_old = *fut_w, fut_as;");
        let _ = writeln!(src, "  do {{\n    fut_as = fut_old;");
        let cur = if ty == PrimType::Bool {
            "(((fut_as & fut_mask) >> fut_sh) != 0u)".to_string()
        } else {
            format!("({})(({ut})((fut_as & fut_mask) >> fut_sh))", store_ty(ty))
        };
        let _ = writeln!(src, "    const {} fut_cur = {cur};", store_ty(ty));
        let _ = writeln!(
            src,
            "    const {} fut_ns = {};",
            store_ty(ty),
            store_conv(
                ty,
                &format!("{name}_apply({}, v)", load_conv(ty, "fut_cur"))
            )
        );
        let _ = writeln!(
            src,
            "    const unsigned int fut_nw = (fut_as & ~fut_mask) | ((unsigned int)({ut})fut_ns << fut_sh);"
        );
        let _ = writeln!(src, "    fut_old = atomicCAS(fut_w, fut_as, fut_nw);");
        let _ = writeln!(src, "  }} while (fut_old != fut_as);");
    }
    let _ = writeln!(src, "}}");

    // Shared update (slots are 32 or 64 bits wide).
    let st = reg_ty(slot);
    let shared_desc;
    let _ = writeln!(
        src,
        "static __device__ __forceinline__ void {name}_update_shared({st}* p, {rt} v) {{"
    );
    // A native atomic on the slot type computes the same bucket value: integer add, and,
    // or, xor wrap identically in the wider slot, min/max agree on sign-extended values,
    // and f16 sums are kept in f32 (rounded when merged).
    let native_slot = binop.and_then(|op| {
        let ok = ty == slot
            || matches!(
                op,
                BinOp::Add | BinOp::And | BinOp::Or | BinOp::Xor | BinOp::Min | BinOp::Max
            )
            || (ty == PrimType::Bool && matches!(op, BinOp::LogAnd | BinOp::LogOr));
        if ty == PrimType::F16 && op != BinOp::Add {
            return None;
        }
        if !ok {
            return None;
        }
        let op = match op {
            BinOp::LogAnd => BinOp::And,
            BinOp::LogOr => BinOp::Or,
            o => o,
        };
        native_atomic(op, slot)
    });
    if let Some((f, pc, vc)) = native_slot {
        shared_desc = format!("native {f}");
        let _ = writeln!(src, "  {f}({pc}p, {vc}v);");
    } else {
        let w = slot.size_bytes() * 8;
        let wt = if w == 32 {
            "unsigned int"
        } else {
            "unsigned long long"
        };
        shared_desc = format!("CAS loop ({w}-bit)");
        let _ = writeln!(
            src,
            "  {wt}* fut_w = ({wt}*)p;\n  {wt} fut_old = *fut_w, fut_as;"
        );
        let _ = writeln!(src, "  do {{\n    fut_as = fut_old;");
        let _ = writeln!(
            src,
            "    const {rt} fut_nv = {name}_apply(({rt})fut_from_bits{w}<{st}>(fut_as), v);"
        );
        let _ = writeln!(
            src,
            "    fut_old = atomicCAS(fut_w, fut_as, ({wt})fut_to_bits{w}(({st})fut_nv));"
        );
        let _ = writeln!(src, "  }} while (fut_old != fut_as);");
    }
    let _ = writeln!(src, "}}");

    let plan = vec_plan(prog, &hist.space, &hist.body, &[]);
    let ne = constant(hist.neutral[0]);

    let b = HIST_BLOCK;
    open_entry(
        &mut src,
        b,
        &format!("{name}_shared({params}, const int fut_nsub)"),
    );
    src.push_str(GRID_HEADER);
    let _ = writeln!(src, "  const i64 fut_h = {h};");
    let _ = writeln!(src, "  {st}* fut_sub = ({st}*)fut_shared;");
    let _ = writeln!(
        src,
        "  for (i64 fut_i = threadIdx.x; fut_i < fut_h * fut_nsub; fut_i += blockDim.x) fut_sub[fut_i] = ({st}){ne};"
    );
    let _ = writeln!(src, "  __syncthreads();");
    let _ = writeln!(
        src,
        "  {st}* fut_my = fut_sub + (i64)(threadIdx.x % fut_nsub) * fut_h;"
    );
    let shared_update = update_fn(name, &hist.body, "shared", "&fut_my[");
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
        "  for (i64 fut_b = threadIdx.x; fut_b < fut_h; fut_b += blockDim.x) {{"
    );
    let _ = writeln!(src, "    {rt} fut_v = ({rt})fut_sub[fut_b];");
    let _ = writeln!(
        src,
        "    for (int fut_s = 1; fut_s < fut_nsub; fut_s++) fut_v = {name}_apply(fut_v, ({rt})fut_sub[fut_s * fut_h + fut_b]);"
    );
    let _ = writeln!(
        src,
        "    if (!(fut_v == ({rt}){ne})) {name}_update_global(&a_{dest}[fut_b], fut_v);"
    );
    let _ = writeln!(src, "  }}\n}}\n");

    open_entry(&mut src, 1024, &format!("{name}_global({params})"));
    src.push_str(GRID_HEADER);
    let _ = writeln!(src, "  const i64 fut_h = {h};");
    let global_update = update_fn(name, &hist.body, "global", &format!("&a_{dest}["));
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

    Ok(GeneratedKernel::new(
        prog,
        kernel,
        src,
        LaunchPlan::Hist(HistPlan {
            shared_entry: format!("{name}_shared"),
            global_entry: format!("{name}_global"),
            elements: hist.space.dims.iter().map(|d| d.1.clone()).collect(),
            buckets: hist.num_buckets.clone(),
            slot_size: slot.size_bytes(),
            block_size: b,
            update: format!("shared: {shared_desc}; global: {global_desc}"),
        }),
    ))
}

/// The per-element code of a histogram: evaluate, bounds-check, update.
fn update_fn<'a>(
    name: &'a str,
    body: &'a Body,
    kind: &'a str,
    target: &str,
) -> impl Fn(&Emitter, &str, Option<&str>, &mut String, usize) + 'a {
    let target = target.to_string();
    move |em: &Emitter, flat: &str, _lane: Option<&str>, s: &mut String, ind: usize| {
        let pad = "  ".repeat(ind);
        em.space_indices(s, body, flat, ind);
        let res = em.body(s, body, ind);
        let _ = writeln!(
            s,
            "{pad}if ({b} >= 0 && {b} < fut_h) {name}_update_{kind}({target}{b}], {v});",
            b = res[0],
            v = res[1]
        );
    }
}
