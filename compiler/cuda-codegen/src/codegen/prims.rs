//! Map and scatter kernels, and the vectorised element loop they share with reductions and
//! histograms.
//!
//! The element loop visits flat indices `[start, end)` with a thread index and a stride (a
//! grid-stride loop for whole-grid kernels, a block- or warp-stride loop inside reductions).
//! When the body reads arrays at the space's flat index and writes none, those reads become
//! 16-byte vector loads: each step handles `V = 16 / (smallest element size)` consecutive
//! elements from register buffers. A scalar head and tail handle the ends, and a run-time
//! alignment check falls back to the scalar loop for pointers that are not 16-byte aligned.

use std::fmt::Write;

use futhark_ir::{Body, KernelProgram, Name, PrimType, SegSpace};

use super::emit::{Emitter, VecSubst, body_writes, identity_reads, store_ty};

/// How an element loop is vectorised.
#[derive(Clone, Debug)]
pub struct VecPlan {
    /// Elements per vector step.
    pub width: usize,
    /// Arrays read at the flat index: loaded as vectors.
    pub inputs: Vec<(Name, PrimType)>,
    /// Arrays written at the flat index (map outputs): stored as vectors.
    pub outputs: Vec<(Name, PrimType)>,
}

/// Each named array of the program with its element type (for [`vec_plan`]'s outputs).
pub fn typed_arrays(prog: &KernelProgram, names: &[Name]) -> Vec<(Name, PrimType)> {
    names
        .iter()
        .map(|o| {
            (
                o.clone(),
                prog.array(o).map(|a| a.elem).unwrap_or(PrimType::I8),
            )
        })
        .collect()
}

/// The vectorisation of a body over a space, if it has identity accesses and no writes.
pub fn vec_plan(
    prog: &KernelProgram,
    space: &SegSpace,
    body: &Body,
    outputs: &[(Name, PrimType)],
) -> Option<VecPlan> {
    if body_writes(body) {
        return None;
    }
    let inputs = identity_reads(prog, space, body);
    let min = inputs
        .iter()
        .chain(outputs)
        .map(|(_, t)| t.size_bytes())
        .min()?;
    Some(VecPlan {
        width: 16 / min,
        inputs,
        outputs: outputs.to_vec(),
    })
}

/// Prints the per-element code: given the emitter (vectorised or not), the flat index
/// expression and, in a vector step, the lane expression.
pub type ElemFn<'f> = dyn Fn(&Emitter, &str, Option<&str>, &mut String, usize) + 'f;

/// Prints a loop over `[start, end)` by thread `t` with stride `stride`.
#[allow(clippy::too_many_arguments)]
pub fn element_loop(
    em: &Emitter,
    plan: Option<&VecPlan>,
    start: &str,
    end: &str,
    t: &str,
    stride: &str,
    indent: usize,
    elem: &ElemFn,
) -> String {
    let pad = "  ".repeat(indent);
    let mut s = String::new();
    let _ = writeln!(s, "{pad}{{");
    let _ = writeln!(
        s,
        "{pad}  const i64 fut_s = {start}, fut_e = {end}, fut_t = {t}, fut_st = {stride};"
    );
    let scalar = |s: &mut String, from: &str, to: &str, ind: usize| {
        let p = "  ".repeat(ind);
        let _ = writeln!(
            s,
            "{p}for (i64 fut_f = {from} + fut_t; fut_f < {to}; fut_f += fut_st) {{"
        );
        elem(em, "fut_f", None, s, ind + 1);
        let _ = writeln!(s, "{p}}}");
    };
    match plan {
        None => scalar(&mut s, "fut_s", "fut_e", indent + 1),
        Some(plan) => {
            let v = plan.width;
            let ptrs: Vec<String> = plan
                .inputs
                .iter()
                .chain(&plan.outputs)
                .map(|(n, _)| format!("(u64)a_{n}"))
                .collect();
            let _ = writeln!(
                s,
                "{pad}  const i64 fut_head = fut_min(fut_e, (fut_s + {}) / {v} * {v});",
                v - 1
            );
            let _ = writeln!(
                s,
                "{pad}  const i64 fut_vend = fut_head + (fut_e - fut_head) / {v} * {v};"
            );
            let _ = writeln!(s, "{pad}  if ((({}) & 15) == 0) {{", ptrs.join(" | "));
            scalar(&mut s, "fut_s", "fut_head", indent + 2);
            let p3 = "  ".repeat(indent + 3);
            let _ = writeln!(
                s,
                "{pad}    for (i64 fut_v = fut_head / {v} + fut_t; fut_v < fut_vend / {v}; fut_v += fut_st) {{"
            );
            let _ = writeln!(s, "{p3}const i64 fut_base = fut_v * {v};");
            let mut subst = VecSubst {
                bufs: Default::default(),
                lane: "fut_j".into(),
            };
            for (n, ty) in &plan.inputs {
                let words = v * ty.size_bytes() / 16;
                let _ = writeln!(s, "{p3}__align__(16) {} fut_vb_{n}[{v}];", store_ty(*ty));
                let _ = writeln!(
                    s,
                    "{p3}#pragma unroll\n{p3}for (int fut_q = 0; fut_q < {words}; fut_q++) reinterpret_cast<uint4*>(fut_vb_{n})[fut_q] = reinterpret_cast<const uint4*>(a_{n} + fut_base)[fut_q];"
                );
                subst.bufs.insert(n.clone(), format!("fut_vb_{n}"));
            }
            for (n, ty) in &plan.outputs {
                let _ = writeln!(s, "{p3}__align__(16) {} fut_vo_{n}[{v}];", store_ty(*ty));
            }
            let vem = em.with_vec(subst);
            let _ = writeln!(
                s,
                "{p3}#pragma unroll\n{p3}for (int fut_j = 0; fut_j < {v}; fut_j++) {{"
            );
            elem(&vem, "fut_base + fut_j", Some("fut_j"), &mut s, indent + 4);
            let _ = writeln!(s, "{p3}}}");
            for (n, ty) in &plan.outputs {
                let words = v * ty.size_bytes() / 16;
                let _ = writeln!(
                    s,
                    "{p3}#pragma unroll\n{p3}for (int fut_q = 0; fut_q < {words}; fut_q++) reinterpret_cast<uint4*>(a_{n} + fut_base)[fut_q] = reinterpret_cast<const uint4*>(fut_vo_{n})[fut_q];"
                );
            }
            let _ = writeln!(s, "{pad}    }}");
            scalar(&mut s, "fut_vend", "fut_e", indent + 2);
            let _ = writeln!(s, "{pad}  }} else {{");
            scalar(&mut s, "fut_s", "fut_e", indent + 2);
            let _ = writeln!(s, "{pad}  }}");
        }
    }
    let _ = writeln!(s, "{pad}}}");
    s
}

/// The opening of a whole-grid kernel: global thread index and stride.
pub const GRID_HEADER: &str = "  const i64 fut_gtid = (i64)blockIdx.x * blockDim.x + threadIdx.x;\n  const i64 fut_gstride = (i64)gridDim.x * blockDim.x;\n";

use super::emit::{kernel_params, size_exp, size_product, store_conv};
use super::{CodegenError, GeneratedKernel, LaunchPlan, open_entry};
use futhark_ir::{Kernel, Scatter, SegMap};

/// Generates a map kernel: one grid-stride loop writing every output at the flat index.
pub fn gen_map(
    prog: &KernelProgram,
    kernel: &Kernel,
    map: &SegMap,
) -> Result<GeneratedKernel, CodegenError> {
    let em = Emitter::for_kernel(prog, kernel);
    let outputs = typed_arrays(prog, &map.outputs);
    let plan = vec_plan(prog, &map.space, &map.body, &outputs);
    let dims: Vec<&futhark_ir::Size> = map.space.dims.iter().map(|d| &d.1).collect();
    let elem = |em: &Emitter, flat: &str, lane: Option<&str>, s: &mut String, ind: usize| {
        let pad = "  ".repeat(ind);
        em.space_indices(s, &map.body, flat, ind);
        let res = em.body(s, &map.body, ind);
        for ((o, ty), r) in outputs.iter().zip(&res) {
            let v = store_conv(*ty, r);
            match lane {
                Some(l) => {
                    let _ = writeln!(s, "{pad}fut_vo_{o}[{l}] = {v};");
                }
                None => {
                    let _ = writeln!(s, "{pad}a_{o}[{flat}] = {v};");
                }
            }
        }
    };
    let entry = kernel.name.clone();
    let mut src = String::new();
    open_entry(
        &mut src,
        1024,
        &format!("{entry}({})", kernel_params(prog, kernel).join(", ")),
    );
    src.push_str(GRID_HEADER);
    src.push_str(&element_loop(
        &em,
        plan.as_ref(),
        "0",
        &size_product(&dims),
        "fut_gtid",
        "fut_gstride",
        1,
        &elem,
    ));
    src.push_str("}\n");
    Ok(GeneratedKernel::new(
        prog,
        kernel,
        src,
        LaunchPlan::Map {
            entry,
            elements: map.space.dims.iter().map(|d| d.1.clone()).collect(),
            vector_width: plan.map(|p| p.width).unwrap_or(1),
        },
    ))
}

/// Generates a scatter kernel: every point writes its values at its computed indices,
/// skipping indices outside the destination.
pub fn gen_scatter(
    prog: &KernelProgram,
    kernel: &Kernel,
    sc: &Scatter,
) -> Result<GeneratedKernel, CodegenError> {
    let em = Emitter::for_kernel(prog, kernel);
    let plan = vec_plan(prog, &sc.space, &sc.body, &[]);
    let dims: Vec<&futhark_ir::Size> = sc.space.dims.iter().map(|d| &d.1).collect();
    let elem = |em: &Emitter, flat: &str, _lane: Option<&str>, s: &mut String, ind: usize| {
        let pad = "  ".repeat(ind);
        em.space_indices(s, &sc.body, flat, ind);
        let res = em.body(s, &sc.body, ind);
        for (i, d) in sc.dests.iter().enumerate() {
            let Some(arr) = prog.array(d) else { continue };
            let shape: Vec<&futhark_ir::Size> = arr.shape.iter().collect();
            let (idx, val) = (&res[2 * i], &res[2 * i + 1]);
            let _ = writeln!(
                s,
                "{pad}if ({idx} >= 0 && {idx} < {}) a_{d}[{idx}] = {};",
                size_product(&shape),
                store_conv(arr.elem, val)
            );
        }
    };
    let entry = kernel.name.clone();
    let mut src = String::new();
    open_entry(
        &mut src,
        1024,
        &format!("{entry}({})", kernel_params(prog, kernel).join(", ")),
    );
    src.push_str(GRID_HEADER);
    src.push_str(&element_loop(
        &em,
        plan.as_ref(),
        "0",
        &size_product(&dims),
        "fut_gtid",
        "fut_gstride",
        1,
        &elem,
    ));
    src.push_str("}\n");
    let _ = size_exp;
    Ok(GeneratedKernel::new(
        prog,
        kernel,
        src,
        LaunchPlan::Map {
            entry,
            elements: sc.space.dims.iter().map(|d| d.1.clone()).collect(),
            vector_width: plan.map(|p| p.width).unwrap_or(1),
        },
    ))
}
