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
use futhark_cuda::codegen::scan::{ScanConfig, gen_scan_with};
use futhark_cuda::runtime::Gpu;
use futhark_cuda::{generate_program, samples};
use futhark_ir::{BinOp, Lambda, PrimType, PrimValue, SegOp};

/// Scan configurations timed besides the default (B=256, Q=16, packed, one status word per
/// look-back lane, no pause): (loading threads, items per thread, packed status words,
/// status words per look-back lane, look-back pause in ns). The first is the earlier
/// flag-and-fence kernel.
const SCAN_VARIANTS: [(u32, u32, bool, u32, u32); 6] = [
    (256, 16, false, 1, 0),
    (256, 16, true, 1, 200),
    (256, 16, true, 4, 0),
    (256, 32, true, 1, 0),
    (128, 16, true, 1, 0),
    (512, 16, true, 1, 0),
];

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
    for (block, items, packed, lookback, backoff_ns) in SCAN_VARIANTS {
        let prog = samples::scan(
            &format!("bench_scan_{block}_{items}_{packed}_{lookback}_{backoff_ns}"),
            Lambda::binop(BinOp::Add, PrimType::F32),
            vec![PrimValue::F32(0.0)],
            false,
        );
        let k = &prog.kernels[0];
        let SegOp::Scan(op) = &k.op else {
            return Err("the scan sample is not a scan".into());
        };
        let cfg = ScanConfig {
            block,
            items,
            packed,
            lookback,
            backoff_ns,
        };
        let gk = gen_scan_with(&prog, k, op, cfg).map_err(|e| e.to_string())?;
        // A variant that does not load is reported and skipped; the default must load.
        if let Err(err) = gpu.load(&gk) {
            println!("scan variant {cfg:?} skipped: {err}");
            continue;
        }
        let layout = if packed { "packed" } else { "flag+fence" };
        scan_variants.push((
            format!(
                "scan + (B={block}, Q={items}, {layout}, look-back {lookback}x32, pause {backoff_ns} ns)"
            ),
            gk,
        ));
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

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
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
