//! The GPU correctness checks of the primitives benchmark: each kernel family run on the
//! device and compared with a CPU computation.

mod hist;
mod variants;

use std::collections::HashMap;

use futhark_cuda::runtime::launch::Element;
use futhark_cuda::runtime::{DeviceBuffer, Gpu};
use futhark_cuda::{GeneratedKernel, generate_program, samples};
use futhark_ir::{BinOp, Body, Exp, KernelProgram, Lambda, PrimType, PrimValue, Size, Stm};
use hist::hist_checks;
use variants::{rts_checks, scan_variant_checks};

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn unit(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 24) as f32
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// Host data as bytes with its element type.
#[derive(Clone)]
struct Host(Vec<u8>);

fn host<T: Element>(v: &[T]) -> Host {
    // SAFETY: `Element` types are plain data.
    let b =
        unsafe { std::slice::from_raw_parts(v.as_ptr() as *const u8, std::mem::size_of_val(v)) };
    Host(b.to_vec())
}

fn vals<T: Element>(h: &Host) -> Vec<T> {
    let n = h.0.len() / std::mem::size_of::<T>();
    let mut out = vec![T::default(); n];
    // SAFETY: copies n whole elements of plain data.
    unsafe {
        std::ptr::copy_nonoverlapping(
            h.0.as_ptr(),
            out.as_mut_ptr() as *mut u8,
            n * std::mem::size_of::<T>(),
        )
    };
    out
}

/// Runs the (single) kernel of `prog`: inputs by name, everything else poisoned; returns the
/// written arrays.
fn run_prog(
    gpu: &mut Gpu,
    prog: &KernelProgram,
    inputs: &[(&str, Host)],
    sizes: &[i64],
) -> Result<HashMap<String, Host>, String> {
    let gk = generate_program(prog).map_err(|e| e.to_string())?.remove(0);
    run_gk(gpu, &gk, inputs, sizes)
}

/// `run_prog` for an already generated kernel (scan variants).
fn run_gk(
    gpu: &mut Gpu,
    gk: &GeneratedKernel,
    inputs: &[(&str, Host)],
    sizes: &[i64],
) -> Result<HashMap<String, Host>, String> {
    gpu.load(gk).map_err(|e| e.to_string())?;
    let env: HashMap<&str, i64> = gk
        .sizes
        .iter()
        .map(|s| s.as_str())
        .zip(sizes.iter().copied())
        .collect();
    let mut bufs: Vec<DeviceBuffer> = Vec::new();
    for a in &gk.arrays {
        let count: i64 = a
            .shape
            .iter()
            .map(|s| match s {
                Size::Const(c) => *c,
                Size::Param(p) => env[p.as_str()],
            })
            .product();
        let bytes = count.max(1) as usize * a.elem.size_bytes();
        let buf = match inputs.iter().find(|(n, _)| *n == a.name) {
            Some((_, h)) => gpu.upload(&h.0).map_err(|e| e.to_string())?,
            None => {
                let b = gpu.alloc(bytes).map_err(|e| e.to_string())?;
                gpu.memset_u32(&b, 0xabab_abab, bytes.div_ceil(4).min(b.bytes / 4))
                    .map_err(|e| e.to_string())?;
                b
            }
        };
        bufs.push(buf);
    }
    let refs: Vec<&DeviceBuffer> = bufs.iter().collect();
    gpu.run(&gk.name, &refs, sizes).map_err(|e| e.to_string())?;
    gpu.synchronize().map_err(|e| e.to_string())?;
    let mut out = HashMap::new();
    for (a, b) in gk.arrays.iter().zip(&bufs) {
        if a.written {
            let count: i64 = a
                .shape
                .iter()
                .map(|s| match s {
                    Size::Const(c) => *c,
                    Size::Param(p) => env[p.as_str()],
                })
                .product();
            let mut h = vec![0u8; count.max(0) as usize * a.elem.size_bytes()];
            gpu.download(b, &mut h).map_err(|e| e.to_string())?;
            out.insert(a.name.clone(), Host(h));
        }
    }
    for b in bufs {
        gpu.free(b);
    }
    Ok(out)
}

fn compare<T: Copy + std::fmt::Debug>(
    what: &str,
    got: &[T],
    want: &[T],
    eq: impl Fn(T, T) -> bool,
) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!(
            "{what}: {} results, expected {}",
            got.len(),
            want.len()
        ));
    }
    let bad: Vec<usize> = (0..got.len()).filter(|&i| !eq(got[i], want[i])).collect();
    match bad.first() {
        None => Ok(()),
        Some(&i) => Err(format!(
            "{what}: {} of {} wrong, first at {i}: got {:?}, expected {:?}",
            bad.len(),
            got.len(),
            got[i],
            want[i]
        )),
    }
}

fn close(tol: f64) -> impl Fn(f64, f64) -> bool {
    move |a, b| (a - b).abs() <= tol * b.abs().max(1.0)
}

fn opaque_add_i32() -> Lambda {
    Lambda {
        params: vec![("x".into(), PrimType::I32), ("y".into(), PrimType::I32)],
        body: Body::new(
            vec![Stm::let_(
                "t",
                PrimType::I32,
                Exp::var("x").plus(Exp::var("y")),
            )],
            vec![Exp::var("t")],
        ),
    }
}

/// Affine composition on (i16, i16): a non-commutative tuple operator whose accumulator
/// (4 bytes) takes the scan's packed status-word path.
fn affine_i16() -> Lambda {
    let v = Exp::var;
    Lambda {
        params: vec![
            ("a1".into(), PrimType::I16),
            ("b1".into(), PrimType::I16),
            ("a2".into(), PrimType::I16),
            ("b2".into(), PrimType::I16),
        ],
        body: Body::results(vec![
            v("a1").times(v("a2")),
            v("b1").times(v("a2")).plus(v("b2")),
        ]),
    }
}

fn affine(a: (i32, i32), b: (i32, i32)) -> (i32, i32) {
    (
        a.0.wrapping_mul(b.0),
        a.1.wrapping_mul(b.0).wrapping_add(b.1),
    )
}

/// The histogram checks alone (`prims_bench --only hist`).
pub fn hist_only(gpu: &mut Gpu) -> Vec<(String, Result<(), String>)> {
    let mut res = Vec::new();
    let mut rng = Rng(0x1234_5678_9abc_def1);
    let mut record = |name: String, r: Result<(), String>| {
        println!(
            "  {:<48} {}",
            name,
            match &r {
                Ok(()) => "ok".to_string(),
                Err(e) => format!("FAILED: {e}"),
            }
        );
        res.push((name, r));
    };
    hist_checks(gpu, &mut rng, &mut record);
    res
}

/// Every correctness check: (name, result). With `only_scan`, the scan variants' and the
/// reduce-then-scan kernels' checks only.
pub fn checks(gpu: &mut Gpu, only_scan: bool) -> Vec<(String, Result<(), String>)> {
    let mut res = Vec::new();
    let mut rng = Rng(0x1234_5678_9abc_def1);
    // With `only_scan` the passing checks are counted, not listed.
    let mut record = |name: String, r: Result<(), String>| {
        if !only_scan || r.is_err() {
            println!(
                "  {:<48} {}",
                name,
                match &r {
                    Ok(()) => "ok".to_string(),
                    Err(e) => format!("FAILED: {e}"),
                }
            );
        }
        res.push((name, r));
    };
    if only_scan {
        scan_variant_checks(gpu, &mut rng, &mut record);
        rts_checks(gpu, &mut rng, &mut record);
        return res;
    }

    // map
    for n in [1usize, 1000, 1_000_003] {
        let xs: Vec<f32> = (0..n).map(|_| rng.unit() * 100.0 - 50.0).collect();
        let r = run_prog(
            gpu,
            &samples::saxpy("saxpy"),
            &[("xs", host(&xs))],
            &[n as i64],
        )
        .and_then(|o| {
            let want: Vec<f32> = xs.iter().map(|x| x * 2.0 + 1.0).collect();
            compare("ys", &vals::<f32>(&o["ys"]), &want, |a, b| a == b)
        });
        record(format!("map x*2+1 f32 n={n}"), r);
    }

    // reductions: i32 add, flat and segmented through each variant
    let add_i32 = Lambda::binop(BinOp::Add, PrimType::I32);
    for (m, n) in [
        (1usize, 1usize),
        (1, 1000),
        (1, 1_000_003),
        (1, 20_000_000),
        (1000, 7),
        (1000, 100),
        (3, 300_000),
        (2000, 9000),
    ] {
        let seg = m > 1;
        let xs: Vec<i32> = (0..m * n).map(|_| rng.next() as i32).collect();
        let prog = samples::reduce("red", add_i32.clone(), vec![PrimValue::I32(0)], seg, false);
        let sizes: Vec<i64> = if seg {
            vec![n as i64, m as i64]
        } else {
            vec![n as i64]
        };
        let r = run_prog(gpu, &prog, &[("xs0", host(&xs))], &sizes).and_then(|o| {
            let want: Vec<i32> = xs
                .chunks(n)
                .map(|c| c.iter().fold(0i32, |a, x| a.wrapping_add(*x)))
                .collect();
            compare("sums", &vals::<i32>(&o["out0"]), &want, |a, b| a == b)
        });
        record(format!("reduce + i32 {m}x{n}"), r);
    }
    // non-commutative: affine composition, and an operator the generator cannot see through
    let (aff, aff_ne) = samples::affine_compose();
    for (m, n) in [
        (1usize, 1_000_003usize),
        (500, 7),
        (500, 1000),
        (5, 300_000),
    ] {
        let seg = m > 1;
        let a: Vec<i32> = (0..m * n).map(|_| (rng.below(7) as i32) - 3).collect();
        let b: Vec<i32> = (0..m * n).map(|_| rng.next() as i32).collect();
        let prog = samples::reduce("red", aff.clone(), aff_ne.clone(), seg, false);
        let sizes: Vec<i64> = if seg {
            vec![n as i64, m as i64]
        } else {
            vec![n as i64]
        };
        let r =
            run_prog(gpu, &prog, &[("xs0", host(&a)), ("xs1", host(&b))], &sizes).and_then(|o| {
                let want: Vec<(i32, i32)> = (0..m)
                    .map(|s| {
                        (0..n).fold((1, 0), |acc, j| affine(acc, (a[s * n + j], b[s * n + j])))
                    })
                    .collect();
                let got: Vec<(i32, i32)> = vals::<i32>(&o["out0"])
                    .into_iter()
                    .zip(vals::<i32>(&o["out1"]))
                    .collect();
                compare("affine", &got, &want, |x, y| x == y)
            });
        record(format!("reduce affine (non-commutative) {m}x{n}"), r);
        let scan_prog = samples::scan("scan", aff.clone(), aff_ne.clone(), seg);
        let r = run_prog(
            gpu,
            &scan_prog,
            &[("xs0", host(&a)), ("xs1", host(&b))],
            &sizes,
        )
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
        record(format!("scan affine (non-commutative) {m}x{n}"), r);
    }
    for (m, n) in [(1usize, 1_000_003usize), (7, 100_000), (100, 50)] {
        let seg = m > 1;
        let xs: Vec<i32> = (0..m * n).map(|_| rng.next() as i32).collect();
        let sizes: Vec<i64> = if seg {
            vec![n as i64, m as i64]
        } else {
            vec![n as i64]
        };
        let r = run_prog(
            gpu,
            &samples::reduce("red", opaque_add_i32(), vec![PrimValue::I32(0)], seg, false),
            &[("xs0", host(&xs))],
            &sizes,
        )
        .and_then(|o| {
            let want: Vec<i32> = xs
                .chunks(n)
                .map(|c| c.iter().fold(0i32, |a, x| a.wrapping_add(*x)))
                .collect();
            compare("sums", &vals::<i32>(&o["out0"]), &want, |a, b| a == b)
        });
        record(format!("reduce opaque + i32 (tiled path) {m}x{n}"), r);
    }
    {
        let n = 10_000_019usize;
        let xs: Vec<f32> = (0..n).map(|_| rng.unit()).collect();
        let r = run_prog(
            gpu,
            &samples::reduce(
                "red",
                Lambda::binop(BinOp::Add, PrimType::F32),
                vec![PrimValue::F32(0.0)],
                false,
                false,
            ),
            &[("xs0", host(&xs))],
            &[n as i64],
        )
        .and_then(|o| {
            let want = xs.iter().map(|x| *x as f64).sum::<f64>();
            compare(
                "sum",
                &[vals::<f32>(&o["out0"])[0] as f64],
                &[want],
                close(1e-5),
            )
        });
        record(format!("reduce + f32 n={n}"), r);
        let u8s: Vec<u8> = (0..n).map(|_| rng.next() as u8).collect();
        let r = run_prog(
            gpu,
            &samples::reduce(
                "red",
                Lambda::binop(BinOp::Max, PrimType::U8),
                vec![PrimValue::U8(0)],
                false,
                false,
            ),
            &[("xs0", host(&u8s[..1_000_003]))],
            &[1_000_003],
        )
        .and_then(|o| {
            compare(
                "max",
                &vals::<u8>(&o["out0"]),
                &[*u8s[..1_000_003].iter().max().unwrap_or(&0)],
                |a, b| a == b,
            )
        });
        record("reduce max u8 n=1000003".into(), r);
        let i64s: Vec<i64> = (0..1_000_003).map(|_| rng.next() as i64).collect();
        let r = run_prog(
            gpu,
            &samples::reduce(
                "red",
                Lambda::binop(BinOp::Min, PrimType::I64),
                vec![PrimValue::I64(i64::MAX)],
                false,
                false,
            ),
            &[("xs0", host(&i64s))],
            &[1_000_003],
        )
        .and_then(|o| {
            compare(
                "min",
                &vals::<i64>(&o["out0"]),
                &[*i64s.iter().min().unwrap_or(&0)],
                |a, b| a == b,
            )
        });
        record("reduce min i64 n=1000003".into(), r);
    }

    // scans
    for (m, n) in [
        (1usize, 1usize),
        (1, 1000),
        (1, 1_000_003),
        (1, 20_000_000),
        (100, 77_777),
        (1000, 33),
        (1000, 5),
    ] {
        let seg = m > 1;
        let xs: Vec<i32> = (0..m * n).map(|_| rng.next() as i32).collect();
        let sizes: Vec<i64> = if seg {
            vec![n as i64, m as i64]
        } else {
            vec![n as i64]
        };
        let r = run_prog(
            gpu,
            &samples::scan("scan", add_i32.clone(), vec![PrimValue::I32(0)], seg),
            &[("xs0", host(&xs))],
            &sizes,
        )
        .and_then(|o| {
            let mut want = Vec::with_capacity(m * n);
            for c in xs.chunks(n) {
                let mut acc = 0i32;
                for x in c {
                    acc = acc.wrapping_add(*x);
                    want.push(acc);
                }
            }
            compare("prefix sums", &vals::<i32>(&o["out0"]), &want, |a, b| {
                a == b
            })
        });
        record(format!("scan + i32 {m}x{n}"), r);
    }
    {
        let n = 1_000_003usize;
        let xs: Vec<i8> = (0..n).map(|_| rng.next() as i8).collect();
        let r = run_prog(
            gpu,
            &samples::scan(
                "scan",
                Lambda::binop(BinOp::Add, PrimType::I8),
                vec![PrimValue::I8(0)],
                false,
            ),
            &[("xs0", host(&xs))],
            &[n as i64],
        )
        .and_then(|o| {
            let mut acc = 0i8;
            let want: Vec<i8> = xs
                .iter()
                .map(|x| {
                    acc = acc.wrapping_add(*x);
                    acc
                })
                .collect();
            compare("i8 scan", &vals::<i8>(&o["out0"]), &want, |a, b| a == b)
        });
        record(format!("scan + i8 n={n}"), r);
        let n = 10_000_019usize;
        let xs: Vec<f32> = (0..n).map(|_| rng.unit()).collect();
        let r = run_prog(
            gpu,
            &samples::scan(
                "scan",
                Lambda::binop(BinOp::Add, PrimType::F32),
                vec![PrimValue::F32(0.0)],
                false,
            ),
            &[("xs0", host(&xs))],
            &[n as i64],
        )
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
            compare("f32 scan", &got, &want, close(1e-4))
        });
        record(format!("scan + f32 n={n}"), r);
        let (m, n) = (10usize, 100_000usize);
        let xs: Vec<f64> = (0..m * n).map(|_| rng.unit() as f64).collect();
        let r = run_prog(
            gpu,
            &samples::scan(
                "scan",
                Lambda::binop(BinOp::Add, PrimType::F64),
                vec![PrimValue::F64(0.0)],
                true,
            ),
            &[("xs0", host(&xs))],
            &[n as i64, m as i64],
        )
        .and_then(|o| {
            let mut want = Vec::new();
            for c in xs.chunks(n) {
                let mut acc = 0f64;
                want.extend(c.iter().map(|x| {
                    acc += x;
                    acc
                }));
            }
            compare("f64 seg scan", &vals::<f64>(&o["out0"]), &want, close(1e-9))
        });
        record(format!("scan + f64 {m}x{n}"), r);
    }

    // Scans whose accumulator fits the packed 64-bit status word (value bits and status in
    // one word): a tuple of two i16 under a non-commutative operator, flat and segmented,
    // at sizes around and between whole tiles; and f32 segmented.
    let aff16 = affine_i16();
    for (m, n) in [
        (1usize, 1usize),
        (1, 31),
        (1, 4096),
        (1, 4097),
        (1, 1_000_003),
        (1, 20_000_001),
        (3, 4095),
        (1000, 33),
        (250, 5000),
        (4, 1_000_000),
    ] {
        let seg = m > 1;
        let a: Vec<i16> = (0..m * n).map(|_| (rng.below(7) as i16) - 3).collect();
        let b: Vec<i16> = (0..m * n).map(|_| rng.next() as i16).collect();
        let sizes: Vec<i64> = if seg {
            vec![n as i64, m as i64]
        } else {
            vec![n as i64]
        };
        let prog = samples::scan(
            "scan",
            aff16.clone(),
            vec![PrimValue::I16(1), PrimValue::I16(0)],
            seg,
        );
        let r =
            run_prog(gpu, &prog, &[("xs0", host(&a)), ("xs1", host(&b))], &sizes).and_then(|o| {
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
        record(format!("scan affine (i16, i16) packed {m}x{n}"), r);
    }
    for (m, n) in [(3usize, 1_000_003usize), (2000, 4097), (50_000, 20)] {
        let xs: Vec<f32> = (0..m * n).map(|_| rng.unit()).collect();
        let r = run_prog(
            gpu,
            &samples::scan(
                "scan",
                Lambda::binop(BinOp::Add, PrimType::F32),
                vec![PrimValue::F32(0.0)],
                true,
            ),
            &[("xs0", host(&xs))],
            &[n as i64, m as i64],
        )
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
        record(format!("scan + f32 {m}x{n}"), r);
    }

    // histograms (indices include out-of-range ones, which must be ignored)
    let n = 1_000_003usize;
    for (h, label) in [(100usize, "shared"), (100_000, "global")] {
        let is: Vec<i32> = (0..n)
            .map(|_| rng.below(h as u64 + 20) as i32 - 10)
            .collect();
        let vs: Vec<i32> = (0..n).map(|_| rng.next() as i32).collect();
        let init: Vec<i32> = (0..h).map(|_| rng.next() as i32).collect();
        for (opname, lam) in [("+", add_i32.clone()), ("opaque +", opaque_add_i32())] {
            let prog = samples::hist("h", lam, PrimValue::I32(0));
            let r = run_prog(
                gpu,
                &prog,
                &[("is", host(&is)), ("vs", host(&vs)), ("hist", host(&init))],
                &[n as i64, h as i64],
            )
            .and_then(|o| {
                let mut want = init.clone();
                for (i, v) in is.iter().zip(&vs) {
                    if *i >= 0 && (*i as usize) < h {
                        want[*i as usize] = want[*i as usize].wrapping_add(*v);
                    }
                }
                compare("hist", &vals::<i32>(&o["hist"]), &want, |a, b| a == b)
            });
            record(format!("hist {opname} i32 H={h} ({label})"), r);
        }
    }
    for h in [256usize, 65536] {
        let n = 5_000_000usize;
        let is: Vec<i32> = (0..n).map(|_| rng.below(h as u64) as i32).collect();
        let vs: Vec<f32> = (0..n).map(|_| rng.unit()).collect();
        let init: Vec<f32> = (0..h).map(|_| rng.unit()).collect();
        let r = run_prog(
            gpu,
            &samples::hist(
                "h",
                Lambda::binop(BinOp::Add, PrimType::F32),
                PrimValue::F32(0.0),
            ),
            &[("is", host(&is)), ("vs", host(&vs)), ("hist", host(&init))],
            &[n as i64, h as i64],
        )
        .and_then(|o| {
            let mut want: Vec<f64> = init.iter().map(|x| *x as f64).collect();
            for (i, v) in is.iter().zip(&vs) {
                want[*i as usize] += *v as f64;
            }
            let got: Vec<f64> = vals::<f32>(&o["hist"])
                .into_iter()
                .map(|x| x as f64)
                .collect();
            compare("hist f32", &got, &want, close(1e-4))
        });
        record(format!("hist + f32 H={h}"), r);
    }
    for h in [1000usize, 100_000] {
        let is: Vec<i32> = (0..n).map(|_| rng.below(h as u64) as i32).collect();
        let vs: Vec<f32> = (0..n).map(|_| rng.unit() * 10.0 - 5.0).collect();
        let init: Vec<f32> = (0..h).map(|_| -4.0).collect();
        let r = run_prog(
            gpu,
            &samples::hist(
                "h",
                Lambda::binop(BinOp::Max, PrimType::F32),
                PrimValue::F32(f32::NEG_INFINITY),
            ),
            &[("is", host(&is)), ("vs", host(&vs)), ("hist", host(&init))],
            &[n as i64, h as i64],
        )
        .and_then(|o| {
            let mut want = init.clone();
            for (i, v) in is.iter().zip(&vs) {
                want[*i as usize] = want[*i as usize].max(*v);
            }
            compare("hist max", &vals::<f32>(&o["hist"]), &want, |a, b| a == b)
        });
        record(format!("hist max f32 (CAS) H={h}"), r);
    }
    {
        let h = 300usize;
        let is: Vec<i32> = (0..n).map(|_| rng.below(h as u64) as i32).collect();
        let vs: Vec<u8> = (0..n).map(|_| rng.next() as u8).collect();
        let init: Vec<u8> = (0..h).map(|_| rng.next() as u8).collect();
        let r = run_prog(
            gpu,
            &samples::hist(
                "h",
                Lambda::binop(BinOp::Add, PrimType::U8),
                PrimValue::U8(0),
            ),
            &[("is", host(&is)), ("vs", host(&vs)), ("hist", host(&init))],
            &[n as i64, h as i64],
        )
        .and_then(|o| {
            let mut want = init.clone();
            for (i, v) in is.iter().zip(&vs) {
                want[*i as usize] = want[*i as usize].wrapping_add(*v);
            }
            compare("hist u8", &vals::<u8>(&o["hist"]), &want, |a, b| a == b)
        });
        record(format!("hist + u8 H={h} (byte CAS merge)"), r);
        let vs: Vec<i64> = (0..n).map(|_| rng.next() as i64).collect();
        let init: Vec<i64> = vec![i64::MAX; h];
        let r = run_prog(
            gpu,
            &samples::hist(
                "h",
                Lambda::binop(BinOp::Min, PrimType::I64),
                PrimValue::I64(i64::MAX),
            ),
            &[("is", host(&is)), ("vs", host(&vs)), ("hist", host(&init))],
            &[n as i64, h as i64],
        )
        .and_then(|o| {
            let mut want = init.clone();
            for (i, v) in is.iter().zip(&vs) {
                want[*i as usize] = want[*i as usize].min(*v);
            }
            compare("hist i64 min", &vals::<i64>(&o["hist"]), &want, |a, b| {
                a == b
            })
        });
        record(format!("hist min i64 H={h}"), r);
    }
    hist_checks(gpu, &mut rng, &mut record);
    // scatter: a permutation into a larger array, plus out-of-range indices
    {
        let m = 1_100_000usize;
        let mut is: Vec<i32> = (0..n as i32).collect();
        for i in (1..n).rev() {
            is.swap(i, rng.below(i as u64 + 1) as usize);
        }
        for k in 0..100 {
            is[k * 1000] = if k % 2 == 0 {
                -1 - k as i32
            } else {
                (m + k) as i32
            };
        }
        let vs: Vec<f32> = (0..n).map(|_| rng.unit()).collect();
        let dest: Vec<f32> = (0..m).map(|i| -(i as f32)).collect();
        let r = run_prog(
            gpu,
            &samples::scatter("sc", PrimType::F32),
            &[("is", host(&is)), ("vs", host(&vs)), ("dest", host(&dest))],
            &[n as i64, m as i64],
        )
        .and_then(|o| {
            let mut want = dest.clone();
            for (i, v) in is.iter().zip(&vs) {
                if *i >= 0 && (*i as usize) < m {
                    want[*i as usize] = *v;
                }
            }
            compare("scatter", &vals::<f32>(&o["dest"]), &want, |a, b| a == b)
        });
        record(format!("scatter f32 n={n} into {m}"), r);
    }
    scan_variant_checks(gpu, &mut rng, &mut record);
    rts_checks(gpu, &mut rng, &mut record);
    res
}
