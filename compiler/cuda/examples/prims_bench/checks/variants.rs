//! Checks of every scan configuration and of the reduce-then-scan kernels against the CPU.

use std::collections::HashMap;

use futhark_cuda::codegen::scan::rts::{RtsKernels, gen_scan_rts};
use futhark_cuda::codegen::scan::{ScanConfig, gen_scan_with};
use futhark_cuda::runtime::{DeviceBuffer, Gpu};
use futhark_cuda::{GeneratedKernel, samples};
use futhark_ir::{BinOp, KernelProgram, Lambda, PrimType, PrimValue, SegOp};

use super::*;

/// Runs the three kernels of a reduce-then-scan on `inputs` (by name) with `n` elements;
/// returns the written arrays.
fn run_rts(
    gpu: &mut Gpu,
    rk: &RtsKernels,
    inputs: &[(&str, Host)],
    n: usize,
) -> Result<HashMap<String, Host>, String> {
    let e = |e: futhark_cuda::runtime::CudaError| e.to_string();
    for k in [&rk.reduce, &rk.spine, &rk.scan] {
        gpu.load(k).map_err(e)?;
    }
    let mut bufs: Vec<DeviceBuffer> = Vec::new();
    for a in rk.scan.arrays.iter().filter(|a| a.name != "fut_sums") {
        let bytes = n.max(1) * a.elem.size_bytes();
        let buf = match inputs.iter().find(|(nm, _)| *nm == a.name) {
            Some((_, h)) => gpu.upload(&h.0).map_err(e)?,
            None => {
                let b = gpu.alloc(bytes).map_err(e)?;
                gpu.memset_u32(&b, 0xabab_abab, bytes.div_ceil(4).min(b.bytes / 4))
                    .map_err(e)?;
                b
            }
        };
        bufs.push(buf);
    }
    let sums = gpu.alloc(rk.sums_bytes(n as u64)).map_err(e)?;
    let mut refs: Vec<&DeviceBuffer> = bufs.iter().collect();
    refs.push(&sums);
    let sizes = [n as i64];
    gpu.run(&rk.reduce.name, &refs, &sizes).map_err(e)?;
    gpu.run(&rk.spine.name, &[&sums], &sizes).map_err(e)?;
    gpu.run(&rk.scan.name, &refs, &sizes).map_err(e)?;
    gpu.synchronize().map_err(e)?;
    let mut out = HashMap::new();
    for (a, b) in rk.scan.arrays.iter().zip(&bufs) {
        if a.written && a.name != "fut_sums" {
            let mut h = vec![0u8; n * a.elem.size_bytes()];
            gpu.download(b, &mut h).map_err(e)?;
            out.insert(a.name.clone(), Host(h));
        }
    }
    drop(refs);
    for b in bufs {
        gpu.free(b);
    }
    gpu.free(sums);
    Ok(out)
}

/// The reduce-then-scan kernels of `crate::rts_variants()`: f32 sums around tile and chunk
/// boundaries, the non-commutative (i16, i16) and (i32, i32) affine operators, f64.
pub(super) fn rts_checks(
    gpu: &mut Gpu,
    rng: &mut Rng,
    record: &mut impl FnMut(String, Result<(), String>),
) {
    let aff16 = affine_i16();
    let (aff, aff_ne) = samples::affine_compose();
    let add = |t| Lambda::binop(BinOp::Add, t);
    let gen_rts = |prog: &KernelProgram, v: (u32, u32, u32)| -> Result<RtsKernels, String> {
        let k = &prog.kernels[0];
        let SegOp::Scan(op) = &k.op else {
            return Err("not a scan".into());
        };
        gen_scan_rts(prog, k, op, v.0, v.1, v.2).map_err(|e| e.to_string())
    };
    for (vname, v) in crate::rts_variants() {
        for n in [1usize, 31, 8193, 1_000_003, 20_000_001] {
            let xs: Vec<f32> = (0..n).map(|_| rng.unit()).collect();
            let prog = samples::scan("rtsv", add(PrimType::F32), vec![PrimValue::F32(0.0)], false);
            let r = gen_rts(&prog, v)
                .and_then(|rk| run_rts(gpu, &rk, &[("xs0", host(&xs))], n))
                .and_then(|o| {
                    let mut acc = 0f64;
                    let want: Vec<f64> = xs
                        .iter()
                        .map(|x| {
                            acc += *x as f64;
                            acc
                        })
                        .collect();
                    let got: Vec<f64> = vals::<f32>(&o["out0"])
                        .into_iter()
                        .map(|x| x as f64)
                        .collect();
                    compare("f32 rts scan", &got, &want, close(1e-4))
                });
            record(format!("scan [{vname}] + f32 n={n}"), r);
        }
        for n in [4097usize, 20_000_001] {
            let a: Vec<i16> = (0..n).map(|_| (rng.below(7) as i16) - 3).collect();
            let b: Vec<i16> = (0..n).map(|_| rng.next() as i16).collect();
            let prog = samples::scan(
                "rtsv",
                aff16.clone(),
                vec![PrimValue::I16(1), PrimValue::I16(0)],
                false,
            );
            let r = gen_rts(&prog, v)
                .and_then(|rk| run_rts(gpu, &rk, &[("xs0", host(&a)), ("xs1", host(&b))], n))
                .and_then(|o| {
                    let mut acc = (1i16, 0i16);
                    let want: Vec<(i16, i16)> = (0..n)
                        .map(|j| {
                            acc = (
                                acc.0.wrapping_mul(a[j]),
                                acc.1.wrapping_mul(a[j]).wrapping_add(b[j]),
                            );
                            acc
                        })
                        .collect();
                    let got: Vec<(i16, i16)> = vals::<i16>(&o["out0"])
                        .into_iter()
                        .zip(vals::<i16>(&o["out1"]))
                        .collect();
                    compare("i16 affine rts scan", &got, &want, |x, y| x == y)
                });
            record(format!("scan [{vname}] affine (i16, i16) n={n}"), r);
        }
        {
            let n = 1_000_003usize;
            let a: Vec<i32> = (0..n).map(|_| (rng.below(7) as i32) - 3).collect();
            let b: Vec<i32> = (0..n).map(|_| rng.next() as i32).collect();
            let prog = samples::scan("rtsv", aff.clone(), aff_ne.clone(), false);
            let r = gen_rts(&prog, v)
                .and_then(|rk| run_rts(gpu, &rk, &[("xs0", host(&a)), ("xs1", host(&b))], n))
                .and_then(|o| {
                    let mut acc = (1, 0);
                    let want: Vec<(i32, i32)> = (0..n)
                        .map(|j| {
                            acc = affine(acc, (a[j], b[j]));
                            acc
                        })
                        .collect();
                    let got: Vec<(i32, i32)> = vals::<i32>(&o["out0"])
                        .into_iter()
                        .zip(vals::<i32>(&o["out1"]))
                        .collect();
                    compare("affine rts scan", &got, &want, |x, y| x == y)
                });
            record(format!("scan [{vname}] affine (i32, i32) n={n}"), r);
            let n = 3_000_017usize;
            let xs: Vec<f64> = (0..n).map(|_| rng.unit() as f64).collect();
            let prog = samples::scan("rtsv", add(PrimType::F64), vec![PrimValue::F64(0.0)], false);
            let r = gen_rts(&prog, v)
                .and_then(|rk| run_rts(gpu, &rk, &[("xs0", host(&xs))], n))
                .and_then(|o| {
                    let mut acc = 0f64;
                    let want: Vec<f64> = xs
                        .iter()
                        .map(|x| {
                            acc += x;
                            acc
                        })
                        .collect();
                    compare("f64 rts scan", &vals::<f64>(&o["out0"]), &want, close(1e-9))
                });
            record(format!("scan [{vname}] + f64 n={n}"), r);
        }
    }
}

/// Generates the scan of `prog` with `cfg` (items scaled to an accumulator of `acc_size`
/// bytes, as `gen_scan` does for the default).
fn scan_with(
    prog: &KernelProgram,
    cfg: ScanConfig,
    acc_size: usize,
) -> Result<GeneratedKernel, String> {
    let k = &prog.kernels[0];
    let SegOp::Scan(op) = &k.op else {
        return Err("not a scan".into());
    };
    gen_scan_with(prog, k, op, cfg.for_acc(acc_size)).map_err(|e| e.to_string())
}

/// Every scan variant the benchmark times, on the cases that exercise its paths: the packed
/// status word with a non-commutative (i16, i16) operator, flat across many tiles and
/// segmented; 8-byte accumulators (flag-and-fence layout) with a non-commutative (i32, i32)
/// operator and f64; f32 segmented.
pub(super) fn scan_variant_checks(
    gpu: &mut Gpu,
    rng: &mut Rng,
    record: &mut impl FnMut(String, Result<(), String>),
) {
    let aff16 = affine_i16();
    let (aff, aff_ne) = samples::affine_compose();
    let add = |t| Lambda::binop(BinOp::Add, t);
    for (vname, cfg) in crate::scan_variants() {
        // (i16, i16) affine: packed status words.
        for (m, n) in [(1usize, 20_000_001usize), (3, 4095), (250, 5000)] {
            let seg = m > 1;
            let a: Vec<i16> = (0..m * n).map(|_| (rng.below(7) as i16) - 3).collect();
            let b: Vec<i16> = (0..m * n).map(|_| rng.next() as i16).collect();
            let sizes = if seg {
                vec![n as i64, m as i64]
            } else {
                vec![n as i64]
            };
            let prog = samples::scan(
                "scanv",
                aff16.clone(),
                vec![PrimValue::I16(1), PrimValue::I16(0)],
                seg,
            );
            let r = scan_with(&prog, cfg, 4)
                .and_then(|gk| run_gk(gpu, &gk, &[("xs0", host(&a)), ("xs1", host(&b))], &sizes))
                .and_then(|o| {
                    let mut want = Vec::with_capacity(m * n);
                    for s in 0..m {
                        let mut acc = (1i16, 0i16);
                        for j in 0..n {
                            let (a2, b2) = (a[s * n + j], b[s * n + j]);
                            acc = (
                                acc.0.wrapping_mul(a2),
                                acc.1.wrapping_mul(a2).wrapping_add(b2),
                            );
                            want.push(acc);
                        }
                    }
                    let got: Vec<(i16, i16)> = vals::<i16>(&o["out0"])
                        .into_iter()
                        .zip(vals::<i16>(&o["out1"]))
                        .collect();
                    compare("i16 affine scan", &got, &want, |x, y| x == y)
                });
            record(format!("scan [{vname}] affine (i16, i16) {m}x{n}"), r);
        }
        // (i32, i32) affine: 8-byte accumulator, flags beside values.
        for (m, n) in [(1usize, 1_000_003usize), (5, 300_000)] {
            let seg = m > 1;
            let a: Vec<i32> = (0..m * n).map(|_| (rng.below(7) as i32) - 3).collect();
            let b: Vec<i32> = (0..m * n).map(|_| rng.next() as i32).collect();
            let sizes = if seg {
                vec![n as i64, m as i64]
            } else {
                vec![n as i64]
            };
            let prog = samples::scan("scanv", aff.clone(), aff_ne.clone(), seg);
            let r = scan_with(&prog, cfg, 8)
                .and_then(|gk| run_gk(gpu, &gk, &[("xs0", host(&a)), ("xs1", host(&b))], &sizes))
                .and_then(|o| {
                    let mut want = Vec::with_capacity(m * n);
                    for s in 0..m {
                        let mut acc = (1, 0);
                        for j in 0..n {
                            acc = affine(acc, (a[s * n + j], b[s * n + j]));
                            want.push(acc);
                        }
                    }
                    let got: Vec<(i32, i32)> = vals::<i32>(&o["out0"])
                        .into_iter()
                        .zip(vals::<i32>(&o["out1"]))
                        .collect();
                    compare("affine scan", &got, &want, |x, y| x == y)
                });
            record(format!("scan [{vname}] affine (i32, i32) {m}x{n}"), r);
        }
        // f32 segmented (packed) and f64 flat (8 bytes).
        {
            let (m, n) = (2000usize, 4097usize);
            let xs: Vec<f32> = (0..m * n).map(|_| rng.unit()).collect();
            let prog = samples::scan("scanv", add(PrimType::F32), vec![PrimValue::F32(0.0)], true);
            let r = scan_with(&prog, cfg, 4)
                .and_then(|gk| run_gk(gpu, &gk, &[("xs0", host(&xs))], &[n as i64, m as i64]))
                .and_then(|o| {
                    let mut want = Vec::new();
                    for c in xs.chunks(n) {
                        let mut acc = 0f64;
                        want.extend(c.iter().map(|x| {
                            acc += *x as f64;
                            acc
                        }));
                    }
                    let got: Vec<f64> = vals::<f32>(&o["out0"])
                        .into_iter()
                        .map(|x| x as f64)
                        .collect();
                    compare("f32 seg scan", &got, &want, close(1e-4))
                });
            record(format!("scan [{vname}] + f32 {m}x{n}"), r);
            let n = 3_000_017usize;
            let xs: Vec<f64> = (0..n).map(|_| rng.unit() as f64).collect();
            let prog = samples::scan(
                "scanv",
                add(PrimType::F64),
                vec![PrimValue::F64(0.0)],
                false,
            );
            let r = scan_with(&prog, cfg, 8)
                .and_then(|gk| run_gk(gpu, &gk, &[("xs0", host(&xs))], &[n as i64]))
                .and_then(|o| {
                    let mut acc = 0f64;
                    let want: Vec<f64> = xs
                        .iter()
                        .map(|x| {
                            acc += x;
                            acc
                        })
                        .collect();
                    compare("f64 scan", &vals::<f64>(&o["out0"]), &want, close(1e-9))
                });
            record(format!("scan [{vname}] + f64 n={n}"), r);
        }
    }
}
