//! Intra-block kernels (seed 002): the kernels of a program marked [`futhark_ir::Intra`] as
//! the stages of one kernel with a block per row of their common space.
//!
//! Each block takes rows in turn (a grid-stride loop over rows). For each row, the stages
//! run in order with a barrier after each: a `segmap` stage has its threads stride over the
//! row's inner index (coalesced global accesses, unrolled so that each thread has several
//! loads in flight). A `segscan` stage is sequentialised as the seed describes: its map part
//! runs strided like a map, into the row buffer in shared memory; then thread `t` scans the
//! `c = ⌈m / B⌉` consecutive elements from `t·c` in that buffer, the block scans the threads'
//! totals (warp shuffles, then the warps' totals), and each thread combines its exclusive
//! prefix into its elements; the results leave for device memory strided again (coalesced
//! writes). A `segred` stage reduces the row in registers (strided when its operator
//! commutes, else each thread its consecutive chunk), a shuffle tree per warp and then over
//! the warps combines the threads' values in order, and thread 0 writes the row's result
//! (also to a per-row scalar in shared memory when a later stage reads it). Every array a stage writes that a later stage
//! reads lives in shared memory for the row (`m` elements each), so those reads never touch
//! device memory; arrays [`futhark_ir::Intra::locals`] are not written to device memory at
//! all.
//!
//! The launch (`runtime/launch.rs`) picks `B` from the row length and the sequentialisation
//! factor `q` ([`super::IntraPlan::block`]), and the executor falls back to the program's
//! separate kernels when the row buffers would not fit in shared memory.

use std::collections::{HashMap, HashSet};
use std::fmt::Write;

use futhark_ir::{Kernel, KernelProgram, Name, PrimType, SegOp, Size};

use super::emit::{
    Emitter, entry_params, make_acc, operator_defs, size_exp, size_product, store_conv, store_ty,
    struct_layout, unflatten,
};
use super::{CodegenError, GeneratedKernel, IntraPlan, LaunchPlan, open_entry, prelude};

/// The most threads an intra-block kernel's block has.
pub const INTRA_MAX_BLOCK: u32 = 1024;
/// The fewest threads the automatic choice of `q` leaves a block with (rows that long).
pub const INTRA_MIN_BLOCK: u32 = 64;

/// Thread `t`'s chunk of a row: the `c = ⌈m / B⌉` consecutive elements `[fut_lo, fut_hi)`.
const CHUNK: &str = "      const i64 fut_c = (fut_m + blockDim.x - 1) / blockDim.x;
      const i64 fut_lo = fut_min(fut_m, (i64)threadIdx.x * fut_c), fut_hi = fut_min(fut_m, fut_lo + fut_c);
";

/// Generates the intra-block kernel of a program marked [`futhark_ir::Intra`].
pub fn gen_intra(prog: &KernelProgram, name: &str) -> Result<GeneratedKernel, CodegenError> {
    let unsupported = |what: &str| CodegenError::Unsupported {
        kernel: name.to_string(),
        what: what.to_string(),
    };
    let intra = prog
        .intra
        .as_ref()
        .ok_or_else(|| unsupported("a program not marked intra-block"))?;
    futhark_ir::intra::intra_violation(prog).map_err(|e| unsupported(&e))?;
    let first = &prog.kernels[0];
    let dims: Vec<Size> = first.op.space().dims.iter().map(|d| d.1.clone()).collect();
    let (inner, rows) = dims.split_last().expect("checked: two or more dimensions");

    // Row buffers: what a later stage reads, and every scan result (the scan keeps its
    // partial results there between its two passes).
    let mut read_later: HashSet<Name> = HashSet::new();
    for k in &prog.kernels {
        k.op.body().walk(
            &mut |e| {
                e.for_each_read(&mut |a, _| {
                    read_later.insert(a.clone());
                })
            },
            &mut |_| {},
        );
    }
    // Per-row scalars: a reduction's results that a later stage reads.
    let mut bufs: Vec<(Name, PrimType)> = Vec::new();
    let mut scalars: Vec<(Name, PrimType)> = Vec::new();
    for k in &prog.kernels {
        for o in k.op.result_arrays() {
            let elem = prog.array(o).map(|a| a.elem).unwrap_or(PrimType::I8);
            match k.op {
                SegOp::Red(_) if read_later.contains(o) => scalars.push((o.clone(), elem)),
                SegOp::Red(_) => {}
                SegOp::Scan(_) => bufs.push((o.clone(), elem)),
                _ if read_later.contains(o) => bufs.push((o.clone(), elem)),
                _ => {}
            }
        }
    }
    let buf_names: HashMap<Name, String> = bufs
        .iter()
        .enumerate()
        .map(|(i, (a, _))| (a.clone(), format!("fut_row{i}")))
        .chain(
            scalars
                .iter()
                .enumerate()
                .map(|(i, (a, _))| (a.clone(), format!("fut_rs{i}"))),
        )
        .collect();
    let locals: HashSet<&Name> = intra.locals.iter().collect();

    let mut written: HashSet<Name> = HashSet::new();
    prog.kernels.iter().for_each(|k| {
        written.extend(k.op.result_arrays().iter().cloned());
    });
    let params = entry_params(&prog.arrays, &written, &prog.sizes);

    let mut src = String::new();
    let mut scratch = 0usize;
    for k in &prog.kernels {
        let (op, neutral) = match &k.op {
            SegOp::Scan(s) => (&s.op, &s.neutral),
            SegOp::Red(r) => (&r.op, &r.neutral),
            _ => continue,
        };
        src.push_str(&operator_defs(prog, &op_prefix(k), op, neutral));
        // (`operator_defs` brings the block reduction a `segred` stage uses.)
        if matches!(k.op, SegOp::Scan(_)) {
            src.push_str(&block_xscan(&op_prefix(k)));
        }
        let tys: Vec<PrimType> = neutral.iter().map(|v| v.ty()).collect();
        scratch = scratch.max(32 * struct_layout(&tys).0);
    }
    // The per-row scalars sit before the scans' scratch, 16 bytes each.
    scratch += 16 * scalars.len();
    let entry = format!("{name}_intra");
    open_entry(
        &mut src,
        INTRA_MAX_BLOCK,
        &format!("{entry}({})", params.join(", ")),
    );
    let row_refs: Vec<&Size> = rows.iter().collect();
    let _ = writeln!(
        src,
        "  const i64 fut_m = {}, fut_rows = {};",
        size_exp(inner),
        size_product(&row_refs)
    );
    let _ = writeln!(src, "  unsigned char* fut_p = fut_shared;");
    for (i, (_, elem)) in bufs.iter().enumerate() {
        let t = store_ty(*elem);
        let _ = writeln!(
            src,
            "  {t}* fut_row{i} = ({t}*)fut_p; fut_p += (fut_m * sizeof({t}) + 15) & ~(i64)15;"
        );
    }
    for (i, (_, elem)) in scalars.iter().enumerate() {
        let t = store_ty(*elem);
        let _ = writeln!(src, "  {t}* fut_rs{i} = ({t}*)fut_p; fut_p += 16;");
    }
    let _ = writeln!(src, "  unsigned char* fut_scratch = fut_p;");
    let _ = writeln!(
        src,
        "  for (i64 fut_row = blockIdx.x; fut_row < fut_rows; fut_row += gridDim.x) {{"
    );
    for k in &prog.kernels {
        stage(prog, k, &buf_names, &locals, &mut src);
    }
    let _ = writeln!(src, "  }}\n}}");

    let checks = super::emit::check_sites(prog);
    Ok(GeneratedKernel {
        name: entry.clone(),
        label: entry.clone(),
        source: format!("{}\n{src}", prelude::PRELUDE),
        plan: LaunchPlan::Intra(IntraPlan {
            entry,
            rows: rows.to_vec(),
            inner: inner.clone(),
            row_bufs: bufs.iter().map(|(_, t)| t.size_bytes()).collect(),
            scratch,
            seq_factor: 4,
        }),
        arrays: prog
            .arrays
            .iter()
            .map(|a| super::ArrayParam {
                name: a.name.clone(),
                elem: a.elem,
                shape: a.shape.clone(),
                written: written.contains(&a.name),
            })
            .collect(),
        sizes: prog.sizes.clone(),
        loops: false,
        checks,
    })
}

/// One stage: the kernel's body over the row, its results into the row buffers and (unless
/// local) device memory, then a barrier.
fn stage(
    prog: &KernelProgram,
    k: &Kernel,
    bufs: &HashMap<Name, String>,
    locals: &HashSet<&Name>,
    src: &mut String,
) {
    let space = k.op.space();
    let n = space.dims.len();
    let em = Emitter::for_kernel(prog, k).with_rows(bufs.clone());
    let _ = writeln!(src, "    {{ // {} ({})", k.name, k.op.kind_name());
    let _ = writeln!(src, "      i64 fut_srem = fut_row;");
    unflatten(
        src,
        "      ",
        "fut_srem",
        &space.dims[..n - 1],
        &vec![true; n - 1],
    );
    let inner = &space.dims[n - 1].0;
    // Binds the point's indices for inner offset `j`.
    let indices = |j: &str, pad: &str| {
        format!(
            "{pad}const i64 v_{inner} = {j};\n{pad}const i64 v_{} = fut_row * fut_m + {j};\n",
            space.flat
        )
    };
    let elem = |o: &Name| prog.array(o).map(|a| a.elem).unwrap_or(PrimType::I8);
    let store = |o: &Name, v: &str, j: &str, pad: &str, s: &mut String| {
        let v = store_conv(elem(o), v);
        if let Some(b) = bufs.get(o) {
            let _ = writeln!(s, "{pad}{b}[{j}] = {v};");
        }
        if !locals.contains(o) {
            let _ = writeln!(s, "{pad}a_{o}[fut_row * fut_m + {j}] = {v};");
        }
    };
    match &k.op {
        SegOp::Map(m) => {
            // Unrolled so that a thread has several loads in flight.
            let _ = writeln!(
                src,
                "      #pragma unroll 4\n      \
                 for (i64 fut_j = threadIdx.x; fut_j < fut_m; fut_j += blockDim.x) {{"
            );
            src.push_str(&indices("fut_j", "        "));
            let res = em.body(src, &m.body, 4);
            for (o, r) in m.outputs.iter().zip(&res) {
                store(o, r, "fut_j", "        ", src);
            }
            let _ = writeln!(src, "      }}");
        }
        SegOp::Scan(s) => {
            let kn = &op_prefix(k);
            // 1. The map part, threads striding over the row (coalesced reads): each
            //    element's value into the row buffers.
            let _ = writeln!(
                src,
                "      #pragma unroll 4\n      \
                 for (i64 fut_j = threadIdx.x; fut_j < fut_m; fut_j += blockDim.x) {{"
            );
            src.push_str(&indices("fut_j", "        "));
            let res = em.body(src, &s.body, 4);
            for (o, r) in s.outputs.iter().zip(&res) {
                let _ = writeln!(
                    src,
                    "        {}[fut_j] = {};",
                    bufs[o],
                    store_conv(elem(o), r)
                );
            }
            let _ = writeln!(src, "      }}\n      __syncthreads();");
            // 2. Each thread scans its chunk of consecutive elements in shared memory, the
            //    block scans the chunks' totals, each thread adds its prefix.
            let load = |src: &mut String, var: &str| {
                let _ = writeln!(src, "        {kn}_acc {var};");
                for (i, o) in s.outputs.iter().enumerate() {
                    let v = super::emit::load_conv(elem(o), &format!("{}[fut_j]", bufs[o]));
                    let _ = writeln!(src, "        {var}.c{i} = {v};");
                }
            };
            let put = |src: &mut String, var: &str| {
                for (i, o) in s.outputs.iter().enumerate() {
                    let v = store_conv(elem(o), &format!("{var}.c{i}"));
                    let _ = writeln!(src, "        {}[fut_j] = {v};", bufs[o]);
                }
            };
            let _ = writeln!(
                src,
                "{CHUNK}      {kn}_acc fut_acc = {kn}_ne();\n      \
                 for (i64 fut_j = fut_lo; fut_j < fut_hi; fut_j++) {{"
            );
            load(src, "fut_v");
            let _ = writeln!(src, "        fut_acc = {kn}_op(fut_acc, fut_v);");
            put(src, "fut_acc");
            let _ = writeln!(
                src,
                "      }}\n      \
                 const {kn}_acc fut_pre = {kn}_block_xscan(fut_acc, ({kn}_acc*)fut_scratch);\n      \
                 for (i64 fut_j = fut_lo; fut_j < fut_hi; fut_j++) {{"
            );
            load(src, "fut_x");
            let _ = writeln!(src, "        fut_x = {kn}_op(fut_pre, fut_x);");
            put(src, "fut_x");
            let _ = writeln!(src, "      }}");
            // 3. What leaves the program goes to device memory, threads striding again
            //    (coalesced writes).
            let out: Vec<&Name> = s.outputs.iter().filter(|o| !locals.contains(o)).collect();
            if !out.is_empty() {
                let _ = writeln!(
                    src,
                    "      __syncthreads();\n      #pragma unroll 4\n      \
                     for (i64 fut_j = threadIdx.x; fut_j < fut_m; fut_j += blockDim.x) {{"
                );
                for o in out {
                    let _ = writeln!(
                        src,
                        "        a_{o}[fut_row * fut_m + fut_j] = {}[fut_j];",
                        bufs[o]
                    );
                }
                let _ = writeln!(src, "      }}");
            }
        }
        SegOp::Red(r) => {
            let kn = &op_prefix(k);
            let commutative =
                r.commutative || r.op.as_binop().is_some_and(|(op, _)| op.is_commutative());
            let _ = writeln!(src, "      {kn}_acc fut_acc = {kn}_ne();");
            if commutative {
                // Any order will do: threads stride over the row (coalesced reads).
                let _ = writeln!(
                    src,
                    "      #pragma unroll 4\n      \
                     for (i64 fut_j = threadIdx.x; fut_j < fut_m; fut_j += blockDim.x) {{"
                );
            } else {
                // Each thread's consecutive chunk, combined in thread order.
                let _ = writeln!(
                    src,
                    "{CHUNK}      for (i64 fut_j = fut_lo; fut_j < fut_hi; fut_j++) {{"
                );
            }
            src.push_str(&indices("fut_j", "        "));
            let res = em.body(src, &r.body, 4);
            src.push_str(&make_acc(kn, "fut_v", &res, "        "));
            let _ = writeln!(src, "        fut_acc = {kn}_op(fut_acc, fut_v);\n      }}");
            let _ = writeln!(
                src,
                "      fut_acc = {kn}_block_reduce(fut_acc, ({kn}_acc*)fut_scratch);\n      \
                 if (threadIdx.x == 0) {{"
            );
            for (i, o) in r.outputs.iter().enumerate() {
                let v = store_conv(elem(o), &format!("fut_acc.c{i}"));
                if let Some(b) = bufs.get(o) {
                    let _ = writeln!(src, "        {b}[0] = {v};");
                }
                if !locals.contains(o) {
                    let _ = writeln!(src, "        a_{o}[fut_row] = {v};");
                }
            }
            let _ = writeln!(src, "      }}");
        }
        _ => unreachable!("checked: maps, scans and reductions only"),
    }
    let _ = writeln!(src, "      __syncthreads();\n    }}");
}

/// The prefix of a stage's operator definitions: not the kernel's own name, which its
/// separate version's module uses (the corpus test compiles a program's modules as one
/// translation unit).
fn op_prefix(k: &Kernel) -> String {
    format!("{}_stage", k.name)
}

/// The exclusive scan of one value per thread of the block, in thread order (valid for any
/// associative operator); `scratch` holds 32 accumulators. Every thread must call it.
fn block_xscan(name: &str) -> String {
    format!(
        "static __device__ __forceinline__ {name}_acc {name}_block_xscan({name}_acc x, {name}_acc* scratch) {{
  const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = (blockDim.x + 31) >> 5;
  #pragma unroll
  for (unsigned d = 1; d < 32; d <<= 1) {{
    const {name}_acc y = {name}_shfl_up(x, d);
    if (lane >= d) x = {name}_op(y, x);
  }}
  if (lane == 31) scratch[warp] = x;
  __syncthreads();
  if (warp == 0) {{
    {name}_acc w = lane < nwarps ? scratch[lane] : {name}_ne();
    #pragma unroll
    for (unsigned d = 1; d < 32; d <<= 1) {{
      const {name}_acc y = {name}_shfl_up(w, d);
      if (lane >= d) w = {name}_op(y, w);
    }}
    scratch[lane] = w;
  }}
  __syncthreads();
  {name}_acc e = {name}_shfl_up(x, 1);
  if (lane == 0) e = {name}_ne();
  if (warp > 0) e = {name}_op(scratch[warp - 1], e);
  __syncthreads();
  return e;
}}
"
    )
}
