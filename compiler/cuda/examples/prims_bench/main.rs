//! GPU check and benchmark of the generated primitives.
//!
//! First runs every kernel family on the GPU against a CPU computation (maps, flat and
//! segmented reductions and scans through each of their variants, histograms on each update
//! path, scatter), then times map, reduce, scan, scatter and histograms on 2^28 f32 next to a
//! device-to-device copy measured in the same run, writing `gpu-prims-rust.json` to the
//! folder given as the first argument. Exits with 2 (and a clear message) without a GPU.

mod checks;

use std::process::ExitCode;

use checks::checks;
use futhark_cuda::codegen::scan::{SCAN_DEFAULT, SCAN_PRESETS, ScanConfig, gen_scan_with};
use futhark_cuda::runtime::Gpu;
use futhark_cuda::{generate_program, samples};
use futhark_ir::{BinOp, Lambda, PrimType, PrimValue, SegOp};

/// Scan configurations timed besides the default (`scan +`): every named preset of the
/// generator, then the flag-and-fence status layout of `base` and of one look-back variant.
pub fn scan_variants() -> Vec<(String, ScanConfig)> {
    let mut v: Vec<(String, ScanConfig)> = SCAN_PRESETS
        .iter()
        .map(|(n, c)| (n.to_string(), *c))
        .collect();
    for name in ["base", "w4-near-early-staged"] {
        if let Some(c) = ScanConfig::named(name) {
            v.push((format!("{name}-fence"), ScanConfig { packed: false, ..c }));
        }
    }
    if let Some(c) = ScanConfig::named("w4-near-early-staged") {
        v.push((
            "w4-near-early-staged-blockorder".into(),
            ScanConfig {
                block_order: true,
                ..c
            },
        ));
    }
    v
}

/// A short description of a scan configuration for tables.
pub fn describe(c: &ScanConfig) -> String {
    let mut s = format!(
        "B={}, Q={}, {}, look-back {}x32",
        c.block,
        c.items,
        if c.packed { "packed" } else { "flag+fence" },
        c.lookback
    );
    if c.poll_nearest {
        s.push_str(", poll nearest");
    }
    s.push_str(if !c.lookback_warp {
        ", warp 0 after aggregate"
    } else if c.early_publish {
        ", look-back warp, early publish"
    } else {
        ", look-back warp"
    });
    if c.backoff_ns > 0 {
        s.push_str(&format!(", pause {} ns", c.backoff_ns));
    }
    if c.min_blocks > 0 {
        s.push_str(&format!(", min {} blocks/SM", c.min_blocks));
    }
    if c.block_order {
        s.push_str(", tile = blockIdx");
    }
    if c.staged {
        s.push_str(", staged loads");
    }
    s
}

/// Median of a list of times.
fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    if v.is_empty() { 0.0 } else { v[v.len() / 2] }
}

struct BenchRow {
    name: String,
    bytes: u64,
    ms: f64,
    check: String,
}

fn bench(gpu: &mut Gpu, log2n: u32, reps: usize) -> Result<Vec<BenchRow>, String> {
    let e = |e: futhark_cuda::runtime::CudaError| e.to_string();
    let n = 1usize << log2n;
    let mask = (n - 1) as u32;
    println!("generating inputs (n = 2^{log2n})...");
    let threads = 16usize;
    let chunk = n.div_ceil(threads);
    let gen_par = |f: &(dyn Fn(usize) -> f32 + Sync)| -> Vec<f32> {
        let mut v = vec![0f32; n];
        std::thread::scope(|s| {
            for (t, c) in v.chunks_mut(chunk).enumerate() {
                s.spawn(move || {
                    for (i, x) in c.iter_mut().enumerate() {
                        *x = f(t * chunk + i)
                    }
                });
            }
        });
        v
    };
    let hashf = |i: usize| -> u32 {
        let mut x = (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        x ^= x >> 31;
        x = x.wrapping_mul(0xbf58_476d_1ce4_e5b9);
        (x >> 32) as u32
    };
    let xs = gen_par(&|i| (hashf(i) >> 8) as f32 / (1u32 << 24) as f32);
    // A pseudo-random permutation of [0, 2^k): odd multiplications and xor-shifts are
    // bijections on k-bit words. The Python baseline builds the same one.
    let perm_of = |i: u32| -> u32 {
        let mut x = i;
        x = x.wrapping_mul(0x9e37_79b1) & mask;
        x ^= x >> (log2n / 2);
        x = x.wrapping_mul(0x85eb_ca6b) & mask;
        x ^= x >> (log2n / 2 + 1);
        x
    };
    let perm: Vec<i32> = gen_par(&|i| f32::from_bits(perm_of(i as u32)))
        .into_iter()
        .map(|f| f.to_bits() as i32)
        .collect();
    let mut rows = Vec::new();
    let dx = gpu.upload(&xs).map_err(e)?;
    let dy = gpu.alloc(n * 4).map_err(e)?;
    let dperm = gpu.upload(&perm).map_err(e)?;
    let dsum = gpu.alloc(4).map_err(e)?;

    let copyk = generate_program(&samples::copy("bench_copy"))
        .map_err(|e| e.to_string())?
        .remove(0);
    let map = generate_program(&samples::saxpy("bench_map"))
        .map_err(|e| e.to_string())?
        .remove(0);
    let red = generate_program(&samples::reduce(
        "bench_reduce",
        Lambda::binop(BinOp::Add, PrimType::F32),
        vec![PrimValue::F32(0.0)],
        false,
        false,
    ))
    .map_err(|e| e.to_string())?
    .remove(0);
    let scan = generate_program(&samples::scan(
        "bench_scan",
        Lambda::binop(BinOp::Add, PrimType::F32),
        vec![PrimValue::F32(0.0)],
        false,
    ))
    .map_err(|e| e.to_string())?
    .remove(0);
    let scat = generate_program(&samples::scatter("bench_scatter", PrimType::F32))
        .map_err(|e| e.to_string())?
        .remove(0);
    let hist = generate_program(&samples::hist(
        "bench_hist",
        Lambda::binop(BinOp::Add, PrimType::F32),
        PrimValue::F32(0.0),
    ))
    .map_err(|e| e.to_string())?
    .remove(0);
    for k in [&copyk, &map, &red, &scan, &scat, &hist] {
        gpu.load(k).map_err(e)?;
    }
    let nn = n as i64;
    let time = |gpu: &mut Gpu,
                label: &str,
                bytes: u64,
                f: &mut dyn FnMut(&mut Gpu) -> futhark_cuda::runtime::Result<()>|
     -> Result<f64, String> {
        for _ in 0..3 {
            f(gpu).map_err(e)?;
        }
        gpu.synchronize().map_err(e)?;
        let mut ts = Vec::new();
        for _ in 0..reps {
            gpu.timer.reset();
            gpu.timed(label, bytes, |g| f(g)).map_err(e)?;
            let r = gpu.report().map_err(e)?;
            ts.push(r[label].total_ms);
        }
        Ok(median(ts))
    };
    let mut host_out = vec![0f32; n];

    // copy baseline
    let ms = time(gpu, "copy", 8 * n as u64, &mut |g| g.copy(&dy, &dx, n * 4))?;
    rows.push(BenchRow {
        name: "copy (cuMemcpyDtoD)".into(),
        bytes: 8 * n as u64,
        ms,
        check: "-".into(),
    });
    gpu.run("bench_copy", &[&dx, &dy], &[nn]).map_err(e)?;
    gpu.download(&dy, &mut host_out).map_err(e)?;
    let bad = (0..n).filter(|&i| host_out[i] != xs[i]).count();
    let ms = time(gpu, "copy_kernel", 8 * n as u64, &mut |g| {
        g.run("bench_copy", &[&dx, &dy], &[nn])
    })?;
    rows.push(BenchRow {
        name: "copy (generated map kernel)".into(),
        bytes: 8 * n as u64,
        ms,
        check: if bad == 0 {
            "exact".into()
        } else {
            format!("FAILED: {bad} wrong")
        },
    });

    // map
    gpu.memset_u32(&dy, 0xffff_ffff, n).map_err(e)?;
    gpu.run("bench_map", &[&dx, &dy], &[nn]).map_err(e)?;
    gpu.download(&dy, &mut host_out).map_err(e)?;
    let bad = (0..n).filter(|&i| host_out[i] != xs[i] * 2.0 + 1.0).count();
    let ms = time(gpu, "map", 8 * n as u64, &mut |g| {
        g.run("bench_map", &[&dx, &dy], &[nn])
    })?;
    rows.push(BenchRow {
        name: "map x*2+1".into(),
        bytes: 8 * n as u64,
        ms,
        check: if bad == 0 {
            "exact".into()
        } else {
            format!("FAILED: {bad} wrong")
        },
    });

    // reduce
    gpu.run("bench_reduce", &[&dx, &dsum], &[nn]).map_err(e)?;
    let mut s = [0f32];
    gpu.download(&dsum, &mut s).map_err(e)?;
    let want: f64 = xs.iter().map(|x| *x as f64).sum();
    let rel = ((s[0] as f64 - want) / want).abs();
    let ms = time(gpu, "reduce", 4 * n as u64, &mut |g| {
        g.run("bench_reduce", &[&dx, &dsum], &[nn])
    })?;
    rows.push(BenchRow {
        name: "reduce +".into(),
        bytes: 4 * n as u64,
        ms,
        check: if rel < 1e-5 {
            format!("rel err {rel:.1e}")
        } else {
            format!("FAILED: rel err {rel:.1e}")
        },
    });

    // scan: the default configuration, then other tile shapes and the unpacked status
    // layout (each checked before it is timed), so that one run compares them.
    let mut prefix = vec![0f64; n];
    let mut acc = 0f64;
    for i in 0..n {
        acc += xs[i] as f64;
        prefix[i] = acc;
    }
    let mut scan_variants: Vec<(String, futhark_cuda::GeneratedKernel)> =
        vec![("scan +".into(), scan)];
    for (vname, cfg) in crate::scan_variants() {
        let prog = samples::scan(
            &format!("bench_scan_{}", vname.replace('-', "_")),
            Lambda::binop(BinOp::Add, PrimType::F32),
            vec![PrimValue::F32(0.0)],
            false,
        );
        let k = &prog.kernels[0];
        let SegOp::Scan(op) = &k.op else {
            return Err("the scan sample is not a scan".into());
        };
        let gk = gen_scan_with(&prog, k, op, cfg).map_err(|e| e.to_string())?;
        // A variant that does not load is reported and skipped; the default must load.
        if let Err(err) = gpu.load(&gk) {
            println!("scan variant {vname} skipped: {err}");
            continue;
        }
        let star = if vname == SCAN_DEFAULT { "*" } else { "" };
        scan_variants.push((format!("scan + {star}{vname} ({})", describe(&cfg)), gk));
    }
    for (label, gk) in &scan_variants {
        let kname = gk.name.clone();
        gpu.memset_u32(&dy, 0xffff_ffff, n).map_err(e)?;
        gpu.run(&kname, &[&dx, &dy], &[nn]).map_err(e)?;
        gpu.download(&dy, &mut host_out).map_err(e)?;
        let mut worst = 0f64;
        for i in 0..n {
            let r = ((host_out[i] as f64 - prefix[i]) / prefix[i].max(1.0)).abs();
            // A NaN result counts as an infinite error.
            let r = if r.is_nan() { f64::INFINITY } else { r };
            worst = worst.max(r);
        }
        let ms = time(gpu, &kname, 8 * n as u64, &mut |g| {
            g.run(&kname, &[&dx, &dy], &[nn])
        })?;
        rows.push(BenchRow {
            name: label.clone(),
            bytes: 8 * n as u64,
            ms,
            check: if worst < 1e-4 {
                format!("max rel err {worst:.1e}")
            } else {
                format!("FAILED: max rel err {worst:.1e}")
            },
        });
    }
    drop(prefix);

    // scatter with a permutation
    gpu.memset_u32(&dy, 0xffff_ffff, n).map_err(e)?;
    gpu.run("bench_scatter", &[&dperm, &dx, &dy], &[nn, nn])
        .map_err(e)?;
    gpu.download(&dy, &mut host_out).map_err(e)?;
    let bad = (0..n)
        .filter(|&i| host_out[perm[i] as usize] != xs[i])
        .count();
    let ms = time(gpu, "scatter", 12 * n as u64, &mut |g| {
        g.run("bench_scatter", &[&dperm, &dx, &dy], &[nn, nn])
    })?;
    rows.push(BenchRow {
        name: "scatter (permutation)".into(),
        bytes: 12 * n as u64,
        ms,
        check: if bad == 0 {
            "exact".into()
        } else {
            format!("FAILED: {bad} wrong")
        },
    });
    gpu.free(dperm);

    // histograms
    for h in [256usize, 65536] {
        let idx: Vec<i32> = gen_par(&|i| f32::from_bits(hashf(i ^ 0x5555_5555) % h as u32))
            .into_iter()
            .map(|f| f.to_bits() as i32)
            .collect();
        let didx = gpu.upload(&idx).map_err(e)?;
        let dh = gpu.alloc(h * 4).map_err(e)?;
        gpu.memset_u32(&dh, 0, h).map_err(e)?;
        gpu.run("bench_hist", &[&didx, &dx, &dh], &[nn, h as i64])
            .map_err(e)?;
        let mut got = vec![0f32; h];
        gpu.download(&dh, &mut got).map_err(e)?;
        let mut want = vec![0f64; h];
        for i in 0..n {
            want[idx[i] as usize] += xs[i] as f64;
        }
        let worst = (0..h)
            .map(|b| ((got[b] as f64 - want[b]) / want[b].max(1.0)).abs())
            .fold(0f64, f64::max);
        let ms = time(gpu, &format!("hist{h}"), 8 * n as u64, &mut |g| {
            g.memset_u32(&dh, 0, h)?;
            g.run("bench_hist", &[&didx, &dx, &dh], &[nn, h as i64])
        })?;
        rows.push(BenchRow {
            name: format!("hist + H={h}"),
            bytes: 8 * n as u64,
            ms,
            check: if worst < 1e-3 {
                format!("max rel err {worst:.1e}")
            } else {
                format!("FAILED: max rel err {worst:.1e}")
            },
        });
        gpu.free(didx);
        gpu.free(dh);
    }
    let stats = gpu.report().map_err(e)?;
    let _ = stats;
    gpu.free(dx);
    gpu.free(dy);
    gpu.free(dsum);
    Ok(rows)
}

/// `prims_bench --ptxas`: compiles every scan variant with NVRTC for sm_90 (no GPU needed)
/// on the flat f32 sum and the segmented, tuple and 8-byte cases, and prints ptxas's
/// registers, spills and the resident blocks per SM they allow. Exit status 1 on any error.
fn ptxas_report() -> ExitCode {
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
    let mut errors = 0;
    println!(
        "| variant | case | threads | regs | spill B | shared B | blocks/SM |\n|---|---|---|---|---|---|---|"
    );
    for (vname, cfg) in crate::scan_variants() {
        for (case, prog, acc) in &cases {
            let k = &prog.kernels[0];
            let SegOp::Scan(op) = &k.op else { continue };
            let gk = match gen_scan_with(prog, k, op, cfg.for_acc(*acc)) {
                Ok(g) => g,
                Err(e) => {
                    println!("| {vname} | {case} | codegen error: {e} |");
                    errors += 1;
                    continue;
                }
            };
            let futhark_cuda::codegen::LaunchPlan::Scan(plan) = &gk.plan else {
                continue;
            };
            let mut opts = nvrtc::options("sm_90");
            opts.push("--ptxas-options=-v".into());
            match nvrtc::compile(&gk.source, &gk.name, &opts) {
                Err(e) => {
                    println!("| {vname} | {case} | NVRTC error: {e} |");
                    errors += 1;
                }
                Ok(c) => {
                    // The look-back entry's "Used N registers" and spill lines.
                    let entry = format!("Function properties for {}", plan.lookback_entry);
                    let tail = c.log.split(&entry).nth(1).unwrap_or("");
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
                    let t = plan.block_size;
                    // sm_90: 64K registers (allocated per warp in units of 256), 2048
                    // threads, 32 blocks and 228 KiB shared memory (1 KiB reserved per
                    // block) per SM.
                    let warps = t.div_ceil(32);
                    let regs_per_warp = (regs.max(1) * 32).div_ceil(256) * 256;
                    let by_regs = 65536 / (regs_per_warp * warps).max(1);
                    let by_threads = 2048 / t.max(1);
                    let by_smem = (228 * 1024) / (plan.shared_bytes as u32 + 1024);
                    let blocks = by_regs.min(by_threads).min(by_smem).min(32);
                    println!(
                        "| {vname} | {case} | {t} | {regs} | {spill} | {} | {blocks} |",
                        plan.shared_bytes
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

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(|a| a.as_str()) == Some("--ptxas") {
        return ptxas_report();
    }
    let out_dir = std::path::PathBuf::from(args.get(1).cloned().unwrap_or_else(|| ".".into()));
    let log2n: u32 = std::env::var("PRIMS_LOG2N")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(28);
    let reps: usize = std::env::var("PRIMS_REPS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20);
    let mut gpu = match Gpu::open(0) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("prims_bench: {e}");
            return ExitCode::from(2);
        }
    };
    let info = gpu.info.clone();
    println!(
        "device: {} ({}, {} SMs, {} KiB shared/block, {} MiB L2)",
        info.name,
        info.arch(),
        info.multiprocessors,
        info.max_shared_per_block / 1024,
        info.l2_bytes >> 20
    );
    println!("correctness checks:");
    let t0 = std::time::Instant::now();
    let results = checks(&mut gpu);
    let failed = results.iter().filter(|r| r.1.is_err()).count();
    println!(
        "checks: {} passed, {} failed ({:.1} s)",
        results.len() - failed,
        failed,
        t0.elapsed().as_secs_f64()
    );
    let rows = match bench(&mut gpu, log2n, reps) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("benchmark failed: {e}");
            return ExitCode::from(1);
        }
    };
    // Percentages are against the faster of the two copies measured in this run.
    let copy = rows
        .iter()
        .take(2)
        .map(|r| r.bytes as f64 / (r.ms * 1e6))
        .fold(1.0, f64::max);
    println!("\n| operation | median ms | GB/s | % of copy | check |\n|---|---|---|---|---|");
    let mut json = String::from("{\n");
    json.push_str(&format!("  \"device\": {:?},\n  \"n\": {},\n  \"reps\": {reps},\n  \"checks_passed\": {},\n  \"checks_failed\": {failed},\n  \"ops\": [\n", info.name, 1u64 << log2n, results.len() - failed));
    for (i, r) in rows.iter().enumerate() {
        let gbps = r.bytes as f64 / (r.ms * 1e6);
        println!(
            "| {} | {:.3} | {:.0} | {:.0}% | {} |",
            r.name,
            r.ms,
            gbps,
            100.0 * gbps / copy,
            r.check
        );
        json.push_str(&format!(
            "    {{\"name\": {:?}, \"bytes\": {}, \"median_ms\": {:.5}, \"gbps\": {:.1}, \"pct_of_copy\": {:.1}, \"check\": {:?}}}{}\n",
            r.name, r.bytes, r.ms, gbps, 100.0 * gbps / copy, r.check, if i + 1 < rows.len() { "," } else { "" }
        ));
    }
    let mut sweep: Vec<&BenchRow> = rows
        .iter()
        .filter(|r| r.name.starts_with("scan +"))
        .collect();
    sweep.sort_by(|a, b| a.ms.total_cmp(&b.ms));
    println!(
        "\nscan sweep, fastest first (2^{log2n} f32 +; * marks the default preset):\n| scan variant | median ms | GB/s | % of copy | check |\n|---|---|---|---|---|"
    );
    for r in sweep {
        let gbps = r.bytes as f64 / (r.ms * 1e6);
        println!(
            "| {} | {:.3} | {:.0} | {:.0}% | {} |",
            r.name,
            r.ms,
            gbps,
            100.0 * gbps / copy,
            r.check
        );
    }
    json.push_str("  ],\n  \"failures\": [");
    let fails: Vec<String> = results
        .iter()
        .filter_map(|(n, r)| {
            r.as_ref()
                .err()
                .map(|e| format!("{:?}", format!("{n}: {e}")))
        })
        .collect();
    json.push_str(&fails.join(", "));
    json.push_str("]\n}\n");
    let _ = std::fs::create_dir_all(&out_dir);
    if let Err(e) = std::fs::write(out_dir.join("gpu-prims-rust.json"), json) {
        eprintln!("could not write results: {e}");
    }
    let bench_failed = rows.iter().any(|r| r.check.starts_with("FAILED"));
    if failed > 0 || bench_failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
