//! Prints generated CUDA for a few sample kernels (a development aid).
use futhark_cuda::{generate_program, samples};
use futhark_ir::{BinOp, Lambda, PrimType, PrimValue};
fn main() {
    let which = std::env::args().nth(1).unwrap_or_default();
    let p = match which.as_str() {
        "red" => samples::reduce(
            "sum",
            Lambda::binop(BinOp::Add, PrimType::F32),
            vec![PrimValue::F32(0.0)],
            false,
            true,
        ),
        "scan" => samples::scan(
            "psum",
            Lambda::binop(BinOp::Add, PrimType::F32),
            vec![PrimValue::F32(0.0)],
            true,
        ),
        "hist" => samples::hist(
            "h",
            Lambda::binop(BinOp::Add, PrimType::F32),
            PrimValue::F32(0.0),
        ),
        _ => samples::saxpy("saxpy"),
    };
    for k in generate_program(&p).unwrap() {
        println!("{}", k.kernel_source());
        println!("// {:?}", k.plan);
    }
}
