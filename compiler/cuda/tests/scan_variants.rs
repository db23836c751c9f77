//! Every named scan configuration (`SCAN_PRESETS`), with the packed and the flag-and-fence
//! status layouts, compiles with NVRTC for sm_90 on flat and segmented scans of primitive
//! and non-commutative tuple operators. Runs without a GPU (see `support::ensure_nvrtc`).

mod support;

use futhark_cuda::codegen::LaunchPlan;
use futhark_cuda::codegen::scan::rts::gen_scan_rts;
use futhark_cuda::codegen::scan::{SCAN_DEFAULT, SCAN_PRESETS, ScanConfig, gen_scan_with};
use futhark_cuda::runtime::nvrtc;
use futhark_cuda::samples;
use futhark_ir::{BinOp, Lambda, PrimType, PrimValue, SegOp};

#[test]
fn default_preset_exists() {
    assert!(ScanConfig::named(SCAN_DEFAULT).is_some());
    assert_eq!(
        ScanConfig::default_for(4),
        ScanConfig::named(SCAN_DEFAULT).unwrap()
    );
    // Items per thread scale with the accumulator: 64 bytes of accumulators per thread.
    assert_eq!(ScanConfig::BASE.for_acc(8).items, 8);
    assert_eq!(ScanConfig::BASE.for_acc(1).items, 16);
}

#[test]
fn every_scan_preset_compiles() {
    if !support::ensure_nvrtc() {
        eprintln!("skipping: NVRTC not found");
        return;
    }
    let (aff, aff_ne) = samples::affine_compose();
    let cases = [
        (
            samples::scan(
                "s",
                Lambda::binop(BinOp::Add, PrimType::F32),
                vec![PrimValue::F32(0.0)],
                false,
            ),
            4,
        ),
        (
            samples::scan(
                "s",
                Lambda::binop(BinOp::Add, PrimType::I32),
                vec![PrimValue::I32(0)],
                true,
            ),
            4,
        ),
        (samples::scan("s", aff, aff_ne, true), 8),
    ];
    let mut jobs = Vec::new();
    for (name, preset) in SCAN_PRESETS {
        for packed in [true, false] {
            let cfg = ScanConfig { packed, ..*preset };
            for (prog, acc) in &cases {
                let k = &prog.kernels[0];
                let SegOp::Scan(op) = &k.op else {
                    panic!("not a scan")
                };
                let gk = gen_scan_with(prog, k, op, cfg.for_acc(*acc)).expect("generates");
                let LaunchPlan::Scan(plan) = &gk.plan else {
                    panic!("not a scan plan")
                };
                assert!(plan.block_size <= 1024 && plan.block_size % 32 == 0);
                jobs.push((format!("{name} (packed {packed})"), gk));
            }
        }
    }
    // Side by side on every core (NVRTC calls are independent).
    let sources: Vec<(&str, &str)> = jobs
        .iter()
        .map(|(_, gk)| (gk.source.as_str(), gk.name.as_str()))
        .collect();
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let results = nvrtc::compile_many(&sources, &nvrtc::options("sm_90"), threads);
    let failures: Vec<String> = jobs
        .iter()
        .zip(results)
        .filter_map(|((what, _), r)| r.err().map(|e| format!("{what}: {e}")))
        .collect();
    assert!(
        failures.is_empty(),
        "{} kernels, failures:\n{}",
        jobs.len(),
        failures.join("\n")
    );
}

/// The trace build (with and without launch bounds) of the presets it is used on, and
/// the reduce-then-scan kernels, compile with NVRTC for sm_90.
#[test]
fn trace_and_rts_compile() {
    if !support::ensure_nvrtc() {
        eprintln!("skipping: NVRTC not found");
        return;
    }
    let mut failures = Vec::new();
    for name in [
        "base",
        "cub-w1-staged",
        "near-early-staged-expo",
        "wide-b512-q16-expo-relaxed",
    ] {
        let preset = ScanConfig::named(name).expect("preset");
        for (min_blocks, packed) in [(0, true), (4, true), (0, false)] {
            let cfg = ScanConfig {
                trace: true,
                min_blocks,
                packed,
                ..preset
            };
            for (prog, acc) in &samples::scan_cases() {
                let k = &prog.kernels[0];
                let SegOp::Scan(op) = &k.op else {
                    panic!("not a scan")
                };
                let gk = gen_scan_with(prog, k, op, cfg.for_acc(*acc)).expect("generates");
                assert_eq!(gk.arrays.last().map(|a| a.name.as_str()), Some("fut_trace"));
                if let Err(e) = nvrtc::compile(&gk.source, &gk.name, &nvrtc::options("sm_90")) {
                    failures.push(format!("{name}+trace (min {min_blocks}): {e}"));
                }
            }
        }
    }
    for (prog, _) in samples::scan_cases()
        .iter()
        .filter(|(p, _)| p.kernels[0].op.space().dims.len() == 1)
    {
        let k = &prog.kernels[0];
        let SegOp::Scan(op) = &k.op else {
            panic!("not a scan")
        };
        let rk = gen_scan_rts(prog, k, op, 512, 16, 4).expect("generates");
        if let Err(e) = nvrtc::compile(&rk.scan.source, &rk.scan.name, &nvrtc::options("sm_90")) {
            failures.push(format!("rts: {e}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
