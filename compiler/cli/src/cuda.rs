//! `futhark-rs cuda`: print the CUDA C generated for every kernel of a program (or of one
//! entry point), each headed by a comment naming the kernel and the host function that
//! launches it.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use futhark_db::{Database, IrStage, compile};
use futhark_ide::ir_view::CudaViewError;
use futhark_ide::ir_view::render::{launched_kernels, reachable_funs, render_cuda};
use futhark_ir::soacs::KernelDef;

use crate::ir::{Failure, emit, load, warn_if_no_entries};

#[derive(Args)]
pub struct CudaArgs {
    /// The program (a .fut file with entry points).
    program: PathBuf,
    /// Only the kernels this entry point runs.
    #[arg(long, value_name = "E")]
    entry: Option<String>,
    /// Include the prelude: each kernel's text is then the whole module NVRTC compiles.
    #[arg(long)]
    full: bool,
    /// Leave out the run-time checks inside GPU kernels (bounds, division by zero,
    /// assertions), as Futhark's `--unsafe`: faster, and a program that fails a check gives
    /// undefined results instead of an error. The interpreter always checks.
    #[arg(long = "unsafe")]
    pub unsafe_checks: bool,
}

pub fn run(args: CudaArgs, mut options: futhark_options::Options) -> ExitCode {
    options.compile.safety = futhark_options::Safety::from_unsafe(args.unsafe_checks);
    let mut db = Database::new();
    db.set_compile_options(options.compile);
    let Some(file) = load(&db, &args.program) else {
        return ExitCode::FAILURE;
    };
    let prog = match compile(&db, file, IrStage::Kernels) {
        Ok(p) => p,
        Err(e) => return Failure::Compile(e).report(&db, file),
    };
    warn_if_no_entries(&db, file, &prog);
    for slow in &prog.slow_paths {
        eprintln!("note: {slow}");
    }
    let kernels: Vec<&KernelDef> = match &args.entry {
        None => prog.kernels.iter().collect(),
        Some(name) => {
            let Some(entry) = prog
                .entries()
                .find(|f| f.entry.as_ref().is_some_and(|e| &e.name == name))
            else {
                let names: Vec<&str> = prog
                    .entries()
                    .filter_map(|f| f.entry.as_ref().map(|e| e.name.as_str()))
                    .collect();
                let message = format!(
                    "no entry point is called `{name}` (entry points: {})",
                    if names.is_empty() {
                        "none".to_string()
                    } else {
                        names.join(", ")
                    }
                );
                return Failure::at_start(&db, file, "unknown-entry", message).report(&db, file);
            };
            launched_kernels(&prog, &reachable_funs(&prog, &[entry]))
        }
    };
    if kernels.is_empty() {
        return emit("// no kernels: the code runs on the host\n");
    }
    // The shapes and tuning the options ask for, on a device with at least 32 KiB of shared
    // memory per block (every GPU since sm_70).
    let codegen = futhark_cuda_codegen::CodegenOptions::from_options(&options.exec.cuda, None);
    match render_cuda(&prog, &kernels, args.full, &codegen) {
        Ok(text) => emit(&text),
        Err(e) => {
            let code = match e {
                CudaViewError::Unsupported { .. } => "gpu-unsupported",
                CudaViewError::Invalid { .. } => "compiler-bug",
            };
            Failure::at_start(&db, file, code, e.to_string()).report(&db, file)
        }
    }
}
