//! `--ptxas`: the NVRTC/ptxas resource report of every scan variant (registers, spills,
//! resident blocks per SM), no GPU needed.

use std::process::ExitCode;

use futhark_cuda::codegen::scan::rts::gen_scan_rts;
use futhark_cuda::codegen::scan::{ScanConfig, gen_scan_with};
use futhark_cuda::samples;
use futhark_ir::{BinOp, Lambda, PrimType, PrimValue, SegOp};

use super::*;

/// `prims_bench --ptxas`: compiles every scan variant with NVRTC for sm_90 (no GPU needed)
/// on the flat f32 sum and the segmented, tuple and 8-byte cases, and prints ptxas's
/// registers, spills and the resident blocks per SM they allow. Exit status 1 on any error.
pub(super) fn ptxas_report() -> ExitCode {
    use futhark_cuda::runtime::nvrtc;
    if !nvrtc::available() {
        let mut dirs: Vec<std::path::PathBuf> = Vec::new();
        if let Ok(d) = std::env::var("FUTHARK_NVRTC_DIR") {
            dirs.push(d.into());
        }
        if let Ok(out) = std::process::Command::new("python3")
            .args([
                "-c",
                "import nvidia, os; print(os.path.dirname(nvidia.__path__[0]))",
            ])
            .output()
        {
            let site = String::from_utf8_lossy(&out.stdout).trim().to_string();
            dirs.push(std::path::PathBuf::from(site).join("nvidia/cu13/lib"));
        }
        if !dirs.iter().any(|d| nvrtc::preload_from(d)) {
            eprintln!("prims_bench --ptxas: NVRTC not found");
            return ExitCode::from(2);
        }
    }
    let (aff, aff_ne) = samples::affine_compose();
    let cases: Vec<(&str, futhark_ir::KernelProgram, usize)> = vec![
        (
            "f32 +",
            samples::scan(
                "s",
                Lambda::binop(BinOp::Add, PrimType::F32),
                vec![PrimValue::F32(0.0)],
                false,
            ),
            4,
        ),
        (
            "i32 + seg",
            samples::scan(
                "s",
                Lambda::binop(BinOp::Add, PrimType::I32),
                vec![PrimValue::I32(0)],
                true,
            ),
            4,
        ),
        ("affine i32 seg", samples::scan("s", aff, aff_ne, true), 8),
        (
            "f64 + seg",
            samples::scan(
                "s",
                Lambda::binop(BinOp::Add, PrimType::F64),
                vec![PrimValue::F64(0.0)],
                true,
            ),
            8,
        ),
    ];
    // Every kernel to compile: (variant, case, generated kernel, [(entry, threads, shared)]).
    type Job = (
        String,
        String,
        futhark_cuda::GeneratedKernel,
        Vec<(String, u32, usize)>,
    );
    let mut jobs: Vec<Job> = Vec::new();
    let mut errors = 0;
    let lookback_entry = |gk: &futhark_cuda::GeneratedKernel| -> Vec<(String, u32, usize)> {
        match &gk.plan {
            futhark_cuda::codegen::LaunchPlan::Scan(p) => {
                vec![(p.lookback_entry.clone(), p.block_size, p.shared_bytes)]
            }
            _ => vec![],
        }
    };
    for (vname, cfg) in crate::scan_variants() {
        for (case, prog, acc) in &cases {
            let k = &prog.kernels[0];
            let SegOp::Scan(op) = &k.op else { continue };
            // The trace build of every variant, on the flat f32 case.
            let traced = if *case == "f32 +" {
                vec![false, true]
            } else {
                vec![false]
            };
            for trace in traced {
                let c = ScanConfig { trace, ..cfg }.for_acc(*acc);
                let vn = if trace {
                    format!("{vname}+trace")
                } else {
                    vname.clone()
                };
                match gen_scan_with(prog, k, op, c) {
                    Ok(g) => {
                        let entries = lookback_entry(&g);
                        jobs.push((vn, case.to_string(), g, entries));
                    }
                    Err(e) => {
                        println!("| {vn} | {case} | codegen error: {e} |");
                        errors += 1;
                    }
                }
            }
        }
    }
    let (aff2, aff2_ne) = samples::affine_compose();
    let rts_cases = [
        (
            "f32 +",
            samples::scan(
                "s",
                Lambda::binop(BinOp::Add, PrimType::F32),
                vec![PrimValue::F32(0.0)],
                false,
            ),
        ),
        ("affine i32", samples::scan("s", aff2, aff2_ne, false)),
    ];
    for (vname, v) in rts_variants() {
        for (case, prog) in &rts_cases {
            let k = &prog.kernels[0];
            let SegOp::Scan(op) = &k.op else { continue };
            match gen_scan_rts(prog, k, op, v.0, v.1, v.2) {
                Ok(rk) => {
                    let entries: Vec<(String, u32, usize)> = [&rk.reduce, &rk.spine, &rk.scan]
                        .iter()
                        .flat_map(|g| lookback_entry(g))
                        .collect();
                    jobs.push((vname.clone(), case.to_string(), rk.scan.clone(), entries));
                }
                Err(e) => {
                    println!("| {vname} | {case} | codegen error: {e} |");
                    errors += 1;
                }
            }
        }
    }
    println!(
        "| variant | case | entry | threads | regs | spill B | shared B | blocks/SM |\n|---|---|---|---|---|---|---|---|"
    );
    for (vname, case, gk, entries) in &jobs {
        let mut opts = nvrtc::options("sm_90");
        opts.push("--ptxas-options=-v".into());
        match nvrtc::compile(&gk.source, &gk.name, &opts) {
            Err(e) => {
                println!("| {vname} | {case} | NVRTC error: {e} |");
                errors += 1;
            }
            Ok(c) => {
                for (entry, t, shared) in entries {
                    let (regs, spill) = entry_usage(&c.log, entry);
                    let t = *t;
                    let blocks = blocks_per_sm(t, regs, *shared);
                    let short = entry.rsplit('_').next().unwrap_or(entry);
                    println!(
                        "| {vname} | {case} | {short} | {t} | {regs} | {spill} | {shared} | {blocks} |"
                    );
                }
            }
        }
    }
    println!("NVRTC errors: {errors}");
    if errors == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// An entry's registers and spill-store bytes from a `--ptxas-options=-v` log.
fn entry_usage(log: &str, entry: &str) -> (u32, u32) {
    let marker = format!("Function properties for {entry}");
    let tail = log.split(&marker).nth(1).unwrap_or("");
    let regs: u32 = tail
        .split("Used ")
        .nth(1)
        .and_then(|t| t.split(' ').next())
        .and_then(|t| t.parse().ok())
        .unwrap_or(0);
    let spill: u32 = tail
        .split("bytes spill stores")
        .next()
        .and_then(|t| t.rsplit(' ').nth(1))
        .and_then(|t| t.parse().ok())
        .unwrap_or(0);
    (regs, spill)
}

/// Resident blocks per SM on sm_90: 64K registers (allocated per warp in units of 256),
/// 2048 threads, 32 blocks and 228 KiB shared memory (1 KiB reserved per block).
fn blocks_per_sm(threads: u32, regs: u32, shared: usize) -> u32 {
    let warps = threads.div_ceil(32);
    let regs_per_warp = (regs.max(1) * 32).div_ceil(256) * 256;
    let by_regs = 65536 / (regs_per_warp * warps).max(1);
    let by_threads = 2048 / threads.max(1);
    let by_smem = (228 * 1024) / (shared as u32 + 1024);
    by_regs.min(by_threads).min(by_smem).min(32)
}

/// The resident blocks per SM of a look-back kernel as ptxas builds it for `arch`.
pub(super) fn lookback_blocks(gk: &futhark_cuda::GeneratedKernel, arch: &str) -> Option<u32> {
    use futhark_cuda::runtime::nvrtc;
    let futhark_cuda::codegen::LaunchPlan::Scan(plan) = &gk.plan else {
        return None;
    };
    let mut opts = nvrtc::options(arch);
    opts.push("--ptxas-options=-v".into());
    let c = nvrtc::compile(&gk.source, &gk.name, &opts).ok()?;
    let (regs, _) = entry_usage(&c.log, &plan.lookback_entry);
    (regs > 0).then(|| blocks_per_sm(plan.block_size, regs, plan.shared_bytes))
}
