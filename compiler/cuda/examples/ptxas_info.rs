//! Development aid: compiles sample kernels with `--ptxas-options=-v` and prints NVRTC's
//! resource report (registers, shared memory, spills) for each entry point.
use futhark_cuda::runtime::nvrtc;
use futhark_cuda::{generate_program, samples};
use futhark_ir::{BinOp, Lambda, PrimType, PrimValue};

fn main() {
    if !nvrtc::available()
        && let Ok(dir) = std::env::var("FUTHARK_NVRTC_DIR")
    {
        nvrtc::preload_from(std::path::Path::new(&dir));
    }
    let add = Lambda::binop(BinOp::Add, PrimType::F32);
    let progs = [
        samples::saxpy("map"),
        samples::reduce("red", add.clone(), vec![PrimValue::F32(0.0)], false, false),
        samples::scan("scan", add.clone(), vec![PrimValue::F32(0.0)], false),
        samples::hist("hist", add, PrimValue::F32(0.0)),
        samples::scatter("scatter", PrimType::F32),
    ];
    for p in progs {
        for k in generate_program(&p).expect("sample kernels are well-typed") {
            let mut opts = nvrtc::options("sm_90");
            opts.push("--ptxas-options=-v".into());
            match nvrtc::compile(&k.source, &k.name, &opts) {
                Ok(c) => println!("{}", c.log),
                Err(e) => println!("{e}"),
            }
        }
    }
}
