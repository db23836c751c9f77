//! Snapshot tests of generated CUDA for representative kernels (prelude omitted): a change to
//! code generation shows up as a readable diff. Review with `cargo insta review`.

use futhark_cuda_codegen::{generate_program, samples};
use futhark_ir::{BinOp, Lambda, PrimType, PrimValue};

fn cuda(p: futhark_ir::KernelProgram) -> String {
    let k = generate_program(&p)
        .expect("sample kernels are well-typed")
        .remove(0);
    format!("// plan: {:?}\n{}", k.plan, k.kernel_source())
}

#[test]
fn map_saxpy_f32() {
    insta::assert_snapshot!(cuda(samples::saxpy("saxpy")));
}

#[test]
fn reduce_sum_f32() {
    insta::assert_snapshot!(cuda(samples::reduce(
        "sum",
        Lambda::binop(BinOp::Add, PrimType::F32),
        vec![PrimValue::F32(0.0)],
        false,
        false
    )));
}

/// The tiled entry of a matrix product (shared-memory tiles, 8×8 per thread, `fmaf`).
#[test]
fn reduce_matmul_f32_tiled() {
    let op = Lambda::binop(BinOp::Add, PrimType::F32);
    let p = samples::matmul("mm", PrimType::F32, op, PrimValue::F32(0.0));
    let k = generate_program(&p).expect("well-typed").remove(0);
    let src = k.kernel_source();
    let tiled = &src[src.find("// Tiled contraction").expect("a tiled entry")..];
    insta::assert_snapshot!(format!("// plan: {:?}\n{tiled}", k.plan));
}

#[test]
fn reduce_affine_segmented_non_commutative() {
    let (op, ne) = samples::affine_compose();
    insta::assert_snapshot!(cuda(samples::reduce("affine", op, ne, true, false)));
}

#[test]
fn scan_sum_i32_segmented() {
    insta::assert_snapshot!(cuda(samples::scan(
        "psum",
        Lambda::binop(BinOp::Add, PrimType::I32),
        vec![PrimValue::I32(0)],
        true
    )));
}

#[test]
fn hist_add_f32() {
    insta::assert_snapshot!(cuda(samples::hist(
        "hist",
        Lambda::binop(BinOp::Add, PrimType::F32),
        PrimValue::F32(0.0)
    )));
}

#[test]
fn hist_max_u8_cas() {
    insta::assert_snapshot!(cuda(samples::hist(
        "hmax",
        Lambda::binop(BinOp::Max, PrimType::U8),
        PrimValue::U8(0)
    )));
}

#[test]
fn hist_argmax_packed() {
    let (op, ne) = samples::argmax();
    insta::assert_snapshot!(cuda(samples::hist_tuple("hargmax", op, ne, true)));
}

#[test]
fn hist_triple_locked() {
    let (op, ne) = samples::triple_sum();
    insta::assert_snapshot!(cuda(samples::hist_tuple("htriple", op, ne, false)));
}

#[test]
fn scatter_f16() {
    insta::assert_snapshot!(cuda(samples::scatter("scatter", PrimType::F16)));
}
