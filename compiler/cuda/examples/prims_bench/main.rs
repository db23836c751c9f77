//! GPU check and benchmark of the generated primitives.
//!
//! First runs every kernel family on the GPU against a CPU computation (maps, flat and
//! segmented reductions and scans through each of their variants, histograms on each update
//! path, scatter), then times map, reduce, scan, scatter and histograms on 2^28 f32 next to a
//! device-to-device copy measured in the same run, writing `gpu-prims-rust.json` to the
//! folder given as the first argument. Exits with 2 (and a clear message) without a GPU.
//!
//! Options (before or after the folder):
//! - `--only scan`: only the scan checks, the copy baselines, the scan sweep (every preset
//!   and the reduce-then-scan kernels) and the traces;
//! - `--only hist`: only the histogram checks (every update kind), no benchmark;
//! - `--trace A,B,..` / `--trace none`: scan variants to run once more with
//!   `ScanConfig::trace` and summarise (default: [`DEFAULT_TRACES`]); `PRIMS_TRACE_DUMP=1`
//!   also writes each raw trace to `trace-<variant>.u64` in the folder;
//! - `--ptxas`: NVRTC/ptxas resource report of every variant, no GPU needed;
//! - `--source VARIANT`: prints the generated f32 `+` scan of a variant (`rts-*` for the
//!   reduce-then-scan kernels), no GPU needed.
//!
//! `PRIMS_LOG2N` (default 28) and `PRIMS_REPS` (default 20) set the size and repetitions.

mod checks;
mod ptxas;
mod trace;

use std::process::ExitCode;

use checks::checks;
use futhark_cuda::codegen::scan::rts::{RtsKernels, gen_scan_rts};
use futhark_cuda::codegen::scan::{
    SCAN_DEFAULT, SCAN_PRESETS, ScanConfig, TRACE_WORDS, gen_scan_with,
};
use futhark_cuda::runtime::Gpu;
use futhark_cuda::{generate_program, samples};
use futhark_ir::{BinOp, Lambda, PrimType, PrimValue, SegOp};
use ptxas::{lookback_blocks, ptxas_report};

/// Scan configurations timed besides the default (`scan +`): every named preset of the
/// generator, then the flag-and-fence status layout of `base` and of one look-back variant.
/// `PRIMS_SCAN_VARIANTS=a,b,..` keeps only the named ones (checks, sweep and `--ptxas`).
pub fn scan_variants() -> Vec<(String, ScanConfig)> {
    let mut v = all_scan_variants();
    if let Ok(keep) = std::env::var("PRIMS_SCAN_VARIANTS") {
        let keep: Vec<&str> = keep.split(',').collect();
        v.retain(|(n, _)| keep.contains(&n.as_str()));
    }
    v
}

/// Diagnostic variants timed after the sweep (wrong results, not checked): the look-back
/// kernel without its look-back, the ceiling of each tile design.
pub fn diag_variants() -> Vec<(String, ScanConfig)> {
    [
        "base",
        "cub-w1-staged",
        "wide-b512-q16",
        "wide-b1024-q16-expo",
    ]
    .iter()
    .filter_map(|n| {
        ScanConfig::named(n).map(|c| {
            (
                format!("{n}-nolookback"),
                ScanConfig {
                    skip_lookback: true,
                    ..c
                },
            )
        })
    })
    .collect()
}

/// Every scan configuration `scan_variants` chooses from.
fn all_scan_variants() -> Vec<(String, ScanConfig)> {
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

/// Reduce-then-scan configurations (threads, items per thread for 4-byte accumulators,
/// tiles per chunk), timed and checked beside the look-back variants.
pub fn rts_variants() -> Vec<(String, (u32, u32, u32))> {
    vec![
        ("rts-b512-q16-r4".into(), (512, 16, 4)),
        ("rts-b256-q16-r16".into(), (256, 16, 16)),
    ]
}

/// The variants traced by default: the default preset, CUB's order, and the new ones.
pub const DEFAULT_TRACES: &str = "base,base-nolookback,cub-w1-staged,near-early-staged-expo,wide-b256-q16,wide-b512-q16,wide-b512-q16-expo,wide-b512-q24-delay,wide-b1024-q16-expo";

/// Command-line options.
#[derive(Default)]
struct Opts {
    only_scan: bool,
    only_hist: bool,
    traces: Vec<String>,
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
    if c.backoff_ns > 0 && c.backoff_max_ns > c.backoff_ns {
        s.push_str(&format!(
            ", pause {} ns doubling to {} ns",
            c.backoff_ns, c.backoff_max_ns
        ));
    } else if c.backoff_ns > 0 {
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
    if c.vector {
        s.push_str(", 16-byte vectors");
    }
    if c.relaxed {
        s.push_str(", ld/st.relaxed.gpu status");
    }
    s
}

/// Generates the reduce-then-scan kernels of the f32 `+` sample.
fn rts_kernels(name: &str, v: (u32, u32, u32)) -> Result<RtsKernels, String> {
    let prog = samples::scan(
        name,
        Lambda::binop(BinOp::Add, PrimType::F32),
        vec![PrimValue::F32(0.0)],
        false,
    );
    let k = &prog.kernels[0];
    let SegOp::Scan(op) = &k.op else {
        return Err("the scan sample is not a scan".into());
    };
    gen_scan_rts(&prog, k, op, v.0, v.1, v.2).map_err(|e| e.to_string())
}

/// The look-back kernel of the f32 `+` sample with `cfg`.
fn scan_kernel(name: &str, cfg: ScanConfig) -> Result<futhark_cuda::GeneratedKernel, String> {
    let prog = samples::scan(
        name,
        Lambda::binop(BinOp::Add, PrimType::F32),
        vec![PrimValue::F32(0.0)],
        false,
    );
    let k = &prog.kernels[0];
    let SegOp::Scan(op) = &k.op else {
        return Err("the scan sample is not a scan".into());
    };
    gen_scan_with(&prog, k, op, cfg).map_err(|e| e.to_string())
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

/// Benchmark rows, lines to print after the tables (reduce-then-scan splits, trace
/// summaries) and the traces' JSON objects.
type BenchOut = (Vec<BenchRow>, Vec<String>, Vec<String>);

/// Times the operations.
fn bench(
    gpu: &mut Gpu,
    log2n: u32,
    reps: usize,
    opts: &Opts,
    out_dir: &std::path::Path,
) -> Result<BenchOut, String> {
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
    let perm: Vec<i32> = if opts.only_scan {
        vec![0]
    } else {
        gen_par(&|i| f32::from_bits(perm_of(i as u32)))
            .into_iter()
            .map(|f| f.to_bits() as i32)
            .collect()
    };
    let mut rows = Vec::new();
    let mut notes: Vec<String> = Vec::new();
    let mut trace_json: Vec<String> = Vec::new();
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
    let to_load: Vec<&futhark_cuda::GeneratedKernel> = if opts.only_scan {
        vec![&copyk, &scan]
    } else {
        vec![&copyk, &map, &red, &scan, &scat, &hist]
    };
    for k in to_load {
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
        // The label of the whole operation must differ from every launch's (the runtime
        // records each launch under its kernel's name, `Gpu::copy` under "copy"): the
        // timer adds up all events of one label, and runs before 2026-11-27 timed the
        // scans and `cuMemcpyDtoD` under their own names, counting them twice.
        let whole = format!("whole operation: {label}");
        for _ in 0..reps {
            gpu.timer.reset();
            gpu.timed(&whole, bytes, |g| f(g)).map_err(e)?;
            let r = gpu.report().map_err(e)?;
            ts.push(r[&whole].total_ms);
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

    // The faster of the two copies (both move 8n bytes).
    let copy_ms = rows[1].ms.min(rows[0].ms);

    // map
    if !opts.only_scan {
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
    }

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
    let check_prefix = |got: &[f32]| -> String {
        let mut worst = 0f64;
        for i in 0..n {
            let r = ((got[i] as f64 - prefix[i]) / prefix[i].max(1.0)).abs();
            let r = if r.is_nan() { f64::INFINITY } else { r };
            worst = worst.max(r);
        }
        if worst < 1e-4 {
            format!("max rel err {worst:.1e}")
        } else {
            format!("FAILED: max rel err {worst:.1e}")
        }
    };

    // Reduce-then-scan: three kernels, no inter-block waiting (the input is read twice).
    for (vname, v) in rts_variants() {
        let rk = rts_kernels(&format!("bench_{}", vname.replace('-', "_")), v)?;
        for k in [&rk.reduce, &rk.spine, &rk.scan] {
            gpu.load(k).map_err(e)?;
        }
        let dsums = gpu.alloc(rk.sums_bytes(n as u64)).map_err(e)?;
        let names = [
            rk.reduce.name.clone(),
            rk.spine.name.clone(),
            rk.scan.name.clone(),
        ];
        let mut run3 = |g: &mut Gpu| -> futhark_cuda::runtime::Result<()> {
            g.run(&names[0], &[&dx, &dy, &dsums], &[nn])?;
            g.run(&names[1], &[&dsums], &[nn])?;
            g.run(&names[2], &[&dx, &dy, &dsums], &[nn])
        };
        gpu.memset_u32(&dy, 0xffff_ffff, n).map_err(e)?;
        run3(gpu).map_err(e)?;
        gpu.download(&dy, &mut host_out).map_err(e)?;
        let check = check_prefix(&host_out);
        let ms = time(gpu, &vname, 8 * n as u64, &mut run3)?;
        // One more run for the split between the three kernels.
        gpu.timer.reset();
        run3(gpu).map_err(e)?;
        let r = gpu.report().map_err(e)?;
        let part = |k: &str| r.get(k).map(|s| s.total_ms).unwrap_or(f64::NAN);
        notes.push(format!(
            "{vname}: reduce {:.3} ms + spine {:.3} ms + scan {:.3} ms (chunk {} elements, vector width {}); copy kernel {:.3} ms",
            part(&names[0]),
            part(&names[1]),
            part(&names[2]),
            rk.chunk,
            rk.vector_width,
            copy_ms
        ));
        rows.push(BenchRow {
            name: format!(
                "scan + {vname} (reduce-then-scan, 3 kernels, B={}, Q={}, {} tiles per chunk)",
                v.0, v.1, v.2
            ),
            bytes: 8 * n as u64,
            ms,
            check,
        });
        gpu.free(dsums);
    }

    // Diagnostics: tile designs without their look-back (not scans, not checked).
    for (vname, cfg) in diag_variants() {
        let gk = scan_kernel(&format!("bench_diag_{}", vname.replace('-', "_")), cfg)?;
        if let Err(err) = gpu.load(&gk) {
            notes.push(format!("{vname}: {err}"));
            continue;
        }
        let kname = gk.name.clone();
        let ms = time(gpu, &kname, 8 * n as u64, &mut |g| {
            g.run(&kname, &[&dx, &dy], &[nn])
        })?;
        rows.push(BenchRow {
            name: format!("scan diag: {vname} ({}, no look-back)", describe(&cfg)),
            bytes: 8 * n as u64,
            ms,
            check: "not a scan (diagnostic)".into(),
        });
    }

    // Traces: the variant once more with per-tile event times.
    let mut variants = all_scan_variants();
    variants.extend(diag_variants());
    let untraced = |rows: &[BenchRow], v: &str| -> f64 {
        rows.iter()
            .find(|r| {
                r.name.starts_with(&format!("scan + {v} ("))
                    || r.name.starts_with(&format!("scan + *{v} ("))
                    || r.name.starts_with(&format!("scan diag: {v} ("))
            })
            .map(|r| r.ms)
            .unwrap_or(f64::NAN)
    };
    for tname in &opts.traces {
        let Some((_, cfg)) = variants.iter().find(|(v, _)| v == tname) else {
            notes.push(format!("trace {tname}: no such scan variant"));
            continue;
        };
        // The trace's bookkeeping costs registers: keep the untraced kernel's occupancy
        // with `__launch_bounds__` (ptxas may spill instead).
        let kn = format!("bench_trace_{}", tname.replace('-', "_"));
        let arch = gpu.info.arch();
        let blocks = if cfg.min_blocks == 0 {
            scan_kernel(&kn, *cfg)
                .ok()
                .and_then(|g| lookback_blocks(&g, &arch))
                .unwrap_or(0)
        } else {
            cfg.min_blocks
        };
        let cfg = ScanConfig {
            trace: true,
            min_blocks: blocks,
            ..*cfg
        };
        let gk = scan_kernel(&kn, cfg)?;
        let traced_blocks = lookback_blocks(&gk, &arch).unwrap_or(0);
        let futhark_cuda::codegen::LaunchPlan::Scan(plan) = &gk.plan else {
            return Err("not a scan plan".into());
        };
        let tiles = (n as u64).div_ceil(plan.tile) as usize;
        if let Err(err) = gpu.load(&gk) {
            notes.push(format!("trace {tname}: {err}"));
            continue;
        }
        let kname = gk.name.clone();
        // One byte per element (the kernel records the tiles whose record fits).
        let dtrace = gpu.alloc(n.max(4)).map_err(e)?;
        gpu.memset_u32(&dtrace, 0, n.max(4) / 4).map_err(e)?;
        gpu.memset_u32(&dy, 0xffff_ffff, n).map_err(e)?;
        gpu.run(&kname, &[&dx, &dy, &dtrace], &[nn]).map_err(e)?;
        gpu.download(&dy, &mut host_out).map_err(e)?;
        let check = if cfg.skip_lookback {
            "not a scan (diagnostic)".to_string()
        } else {
            check_prefix(&host_out)
        };
        let reps_t = reps.min(5);
        let mut ts = Vec::new();
        for _ in 0..reps_t {
            gpu.memset_u32(&dtrace, 0, n.max(4) / 4).map_err(e)?;
            gpu.timer.reset();
            let whole = format!("whole operation: {kname}");
            gpu.timed(&whole, 8 * n as u64, |g| {
                g.run(&kname, &[&dx, &dy, &dtrace], &[nn])
            })
            .map_err(e)?;
            ts.push(gpu.report().map_err(e)?[&whole].total_ms);
        }
        let traced_ms = median(ts);
        let recorded = tiles.min(n / (8 * TRACE_WORDS));
        let mut words = vec![0u64; recorded * TRACE_WORDS];
        gpu.download(&dtrace, &mut words).map_err(e)?;
        gpu.free(dtrace);
        if std::env::var("PRIMS_TRACE_DUMP").is_ok_and(|v| v == "1") {
            // SAFETY: u64 words as bytes.
            let bytes =
                unsafe { std::slice::from_raw_parts(words.as_ptr() as *const u8, words.len() * 8) };
            let _ = std::fs::write(out_dir.join(format!("trace-{tname}.u64")), bytes);
        }
        let sum = trace::summarize(&words, recorded);
        let un = untraced(&rows, tname);
        let mut text = sum.lines(tname, traced_ms, un, copy_ms, (blocks, traced_blocks));
        if check.starts_with("FAILED") {
            text.push_str(&format!("\n  traced kernel result {check}"));
        }
        notes.push(text);
        trace_json.push(sum.json(tname, traced_ms, un));
        if check.starts_with("FAILED") {
            rows.push(BenchRow {
                name: format!("scan trace {tname}"),
                bytes: 8 * n as u64,
                ms: traced_ms,
                check,
            });
        }
    }
    drop(prefix);

    // scatter with a permutation
    if !opts.only_scan {
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
    } else {
        gpu.free(dperm);
    }
    let stats = gpu.report().map_err(e)?;
    let _ = stats;
    gpu.free(dx);
    gpu.free(dy);
    gpu.free(dsum);
    Ok((rows, notes, trace_json))
}

/// `prims_bench --source VARIANT`: the generated f32 `+` scan of a variant.
fn print_source(variant: &str) -> ExitCode {
    if let Some((_, v)) = rts_variants().into_iter().find(|(n, _)| n == variant) {
        return match rts_kernels("s", v) {
            Ok(rk) => {
                println!("{}", rk.scan.kernel_source());
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("{e}");
                ExitCode::from(1)
            }
        };
    }
    let (name, trace) = match variant.strip_suffix("+trace") {
        Some(v) => (v, true),
        None => (variant, false),
    };
    let Some((_, cfg)) = all_scan_variants()
        .into_iter()
        .chain(diag_variants())
        .find(|(n, _)| n == name)
    else {
        eprintln!("no scan variant {name}");
        return ExitCode::from(1);
    };
    match scan_kernel("s", ScanConfig { trace, ..cfg }) {
        Ok(gk) => {
            println!("{}", gk.kernel_source());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{e}");
            ExitCode::from(1)
        }
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let mut opts = Opts {
        only_scan: false,
        only_hist: false,
        traces: DEFAULT_TRACES.split(',').map(String::from).collect(),
    };
    let mut out_dir = std::path::PathBuf::from(".");
    let mut i = 1;
    while i < args.len() {
        match args[i].as_str() {
            "--ptxas" => return ptxas_report(),
            "--source" => {
                return print_source(args.get(i + 1).map(|s| s.as_str()).unwrap_or("base"));
            }
            "--only" => {
                i += 1;
                match args.get(i).map(|s| s.as_str()) {
                    Some("scan") => opts.only_scan = true,
                    Some("hist") => opts.only_hist = true,
                    other => {
                        eprintln!("prims_bench: --only takes `scan` or `hist`, not {other:?}");
                        return ExitCode::from(2);
                    }
                }
            }
            "--trace" => {
                i += 1;
                opts.traces = match args.get(i).map(|s| s.as_str()) {
                    None | Some("none") | Some("") => vec![],
                    Some(list) => list.split(',').map(String::from).collect(),
                };
            }
            a if a.starts_with("--") => {
                eprintln!("prims_bench: unknown option {a}");
                return ExitCode::from(2);
            }
            a => out_dir = a.into(),
        }
        i += 1;
    }
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
    let results = if opts.only_hist {
        checks::hist_only(&mut gpu)
    } else {
        checks(&mut gpu, opts.only_scan)
    };
    let failed = results.iter().filter(|r| r.1.is_err()).count();
    println!(
        "checks: {} passed, {} failed ({:.1} s)",
        results.len() - failed,
        failed,
        t0.elapsed().as_secs_f64()
    );
    if opts.only_hist {
        return ExitCode::from(if failed == 0 { 0 } else { 1 });
    }
    let (rows, notes, trace_json) = match bench(&mut gpu, log2n, reps, &opts, &out_dir) {
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
        // With `--only scan` the scan rows are in the sweep table below only.
        if !(opts.only_scan && r.name.starts_with("scan")) {
            println!(
                "| {} | {:.3} | {:.0} | {:.0}% | {} |",
                r.name,
                r.ms,
                gbps,
                100.0 * gbps / copy,
                r.check
            );
        }
        json.push_str(&format!(
            "    {{\"name\": {:?}, \"bytes\": {}, \"median_ms\": {:.5}, \"gbps\": {:.1}, \"pct_of_copy\": {:.1}, \"check\": {:?}}}{}\n",
            r.name, r.bytes, r.ms, gbps, 100.0 * gbps / copy, r.check, if i + 1 < rows.len() { "," } else { "" }
        ));
    }
    let mut sweep: Vec<&BenchRow> = rows.iter().filter(|r| r.name.starts_with("scan")).collect();
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
    if !notes.is_empty() {
        println!();
        for l in &notes {
            println!("{l}");
        }
    }
    json.push_str("  ],\n  \"traces\": [\n    ");
    json.push_str(&trace_json.join(",\n    "));
    json.push_str("\n  ],\n  \"notes\": [");
    json.push_str(
        &notes
            .iter()
            .map(|l| format!("{l:?}"))
            .collect::<Vec<_>>()
            .join(", "),
    );
    json.push_str("],\n  \"failures\": [");
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
