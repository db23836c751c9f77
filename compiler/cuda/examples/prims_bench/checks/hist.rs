//! GPU checks of the histogram update kinds that only the device can validate: the
//! packed 64-bit CAS of an (f32, i32) argmax (shared memory, and global memory through
//! the `_pack`/`_unpack` scratch), per-bucket locks (shared and global), the float max
//! trick with negative values, zeros of both signs and NaNs (in the input and in the
//! destination), native f32 atomics in passes over chunks of buckets, and the warp
//! aggregation of all-equal indices.

use super::*;

type Record<'a> = dyn FnMut(String, Result<(), String>) + 'a;

/// The first of two (value, position) pairs by the benchmark's argmax.
fn argmax(a: (f32, i32), b: (f32, i32)) -> (f32, i32) {
    if a.0 > b.0 || (a.0 == b.0 && a.1 < b.1) {
        a
    } else {
        b
    }
}

pub fn hist_checks(gpu: &mut Gpu, rng: &mut Rng, record: &mut Record) {
    let n = 2_000_003usize;
    // Argmax: small H (shared), H = 2^18 (three chunks), 2^21 (global), and all equal.
    for (h, equal) in [
        (1000usize, false),
        (1 << 18, false),
        (1 << 21, false),
        (777, true),
    ] {
        let is: Vec<i32> = (0..n)
            .map(|_| {
                if equal {
                    5
                } else {
                    rng.below(h as u64 + 8) as i32 - 4
                }
            })
            .collect();
        // Few distinct values, so ties (smallest position wins) are common.
        let vs: Vec<f32> = (0..n).map(|_| (rng.below(1000) as f32) / 7.0).collect();
        let init0: Vec<f32> = (0..h).map(|_| rng.unit() * 10.0).collect();
        let init1: Vec<i32> = (0..h).map(|i| -(i as i32)).collect();
        let (op, ne) = samples::argmax();
        let prog = samples::hist_tuple("h", op, ne, true);
        let r = run_prog(
            gpu,
            &prog,
            &[
                ("is", host(&is)),
                ("vs0", host(&vs)),
                ("hist0", host(&init0)),
                ("hist1", host(&init1)),
            ],
            &[n as i64, h as i64],
        )
        .and_then(|o| {
            let mut want: Vec<(f32, i32)> = init0.iter().copied().zip(init1.clone()).collect();
            for (p, (i, v)) in is.iter().zip(&vs).enumerate() {
                if *i >= 0 && (*i as usize) < h {
                    want[*i as usize] = argmax(want[*i as usize], (*v, p as i32));
                }
            }
            let got: Vec<(f32, i32)> = vals::<f32>(&o["hist0"])
                .into_iter()
                .zip(vals::<i32>(&o["hist1"]))
                .collect();
            compare("argmax", &got, &want, |a, b| a == b)
        });
        let what = if equal { "all equal" } else { "uniform" };
        record(format!("hist argmax (f32,i32) packed H={h} {what}"), r);
    }
    // Locked (f64, i32, i32) sums: shared, global, all equal.
    for (h, equal) in [(500usize, false), (300_000, false), (64, true)] {
        let is: Vec<i32> = (0..n)
            .map(|_| {
                if equal {
                    3
                } else {
                    rng.below(h as u64 + 8) as i32 - 4
                }
            })
            .collect();
        let v0: Vec<f64> = (0..n).map(|_| rng.below(100) as f64).collect();
        let v1: Vec<i32> = (0..n).map(|_| rng.next() as i32).collect();
        let v2: Vec<i32> = (0..n).map(|_| rng.below(5) as i32).collect();
        let init0: Vec<f64> = vec![1.0; h];
        let init1: Vec<i32> = vec![2; h];
        let init2: Vec<i32> = vec![3; h];
        let (op, ne) = samples::triple_sum();
        let r = run_prog(
            gpu,
            &samples::hist_tuple("h", op, ne, false),
            &[
                ("is", host(&is)),
                ("vs0", host(&v0)),
                ("vs1", host(&v1)),
                ("vs2", host(&v2)),
                ("hist0", host(&init0)),
                ("hist1", host(&init1)),
                ("hist2", host(&init2)),
            ],
            &[n as i64, h as i64],
        )
        .and_then(|o| {
            let (mut w0, mut w1, mut w2) = (init0.clone(), init1.clone(), init2.clone());
            for (k, i) in is.iter().enumerate() {
                if *i >= 0 && (*i as usize) < h {
                    let b = *i as usize;
                    w0[b] += v0[k];
                    w1[b] = w1[b].wrapping_add(v1[k]);
                    w2[b] = w2[b].wrapping_add(v2[k]);
                }
            }
            compare("locked c0", &vals::<f64>(&o["hist0"]), &w0, |a, b| a == b)?;
            compare("locked c1", &vals::<i32>(&o["hist1"]), &w1, |a, b| a == b)?;
            compare("locked c2", &vals::<i32>(&o["hist2"]), &w2, |a, b| a == b)
        });
        record(format!("hist (f64,i32,i32) locked H={h} equal={equal}"), r);
    }
    // f32 max by the integer trick: signed zeros, negatives, NaNs in input and buckets.
    for h in [100usize, 1 << 20] {
        let is: Vec<i32> = (0..n).map(|_| rng.below(h as u64) as i32).collect();
        let vs: Vec<f32> = (0..n)
            .map(|k| match k % 97 {
                0 => f32::NAN,
                1 => -0.0,
                2 => 0.0,
                _ => rng.unit() * 10.0 - 9.0,
            })
            .collect();
        let init: Vec<f32> = (0..h)
            .map(|b| match b % 5 {
                0 => f32::NAN,
                1 => f32::NEG_INFINITY,
                _ => -20.0,
            })
            .collect();
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
            // fmax's sign of a zero maximum is unspecified; the trick gives +0.
            compare("f32 max trick", &vals::<f32>(&o["hist"]), &want, |a, b| {
                a == b || (a.is_nan() && b.is_nan())
            })
        });
        record(format!("hist max f32 (int trick, NaN, -0) H={h}"), r);
    }
    // f32 + over chunked passes (H = 2^17: three chunks) and all-equal indices.
    for (h, equal) in [(1usize << 17, false), (100_000, true)] {
        let is: Vec<i32> = (0..n)
            .map(|_| {
                if equal {
                    99_999
                } else {
                    rng.below(h as u64) as i32
                }
            })
            .collect();
        let vs: Vec<f32> = (0..n).map(|_| rng.below(8) as f32).collect();
        let init: Vec<f32> = vec![0.5; h];
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
            let got: Vec<f64> = vals::<f32>(&o["hist"]).iter().map(|x| *x as f64).collect();
            compare("f32 +", &got, &want, close(1e-5))
        });
        record(format!("hist + f32 native H={h} equal={equal}"), r);
    }
}
