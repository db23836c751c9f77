//! Compares the interpreter with plain Rust loops on three SOAC-heavy workloads: the sum of
//! 10^7 `f32`, a map-reduce dot product of two 10^7-element vectors, and one step of a
//! five-point stencil on a 2000×2000 grid. Prints both times and their ratio: the best of 5
//! runs (sum, dot) or of 10 runs (stencils), so that a busy machine disturbs them less.
//!
//! Run with `cargo run --release -p futhark-interp --example interp_bench`.

use std::time::{Duration, Instant};

use futhark_interp::session::Session;
use futhark_values::Value;

const PROGRAM: &str = r#"
entry sum (xs: []f32) : f32 = f32.sum xs

entry dot [n] (xs: [n]f32) (ys: [n]f32) : f32 = f32.sum (map2 (*) xs ys)

entry stencil [n][m] (a: [n][m]f32) : [n][m]f32 =
  map (\i ->
         map (\j ->
                if i > 0 && i < n - 1 && j > 0 && j < m - 1
                then (a[i, j] + a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1]) * 0.2
                else a[i, j])
             (iota m))
      (iota n)

entry periodic [n][m] (a: [n][m]f32) : [n][m]f32 =
  let up = rotate (-1) a
  let down = rotate 1 a
  let left = map (rotate (-1)) a
  let right = map (rotate 1) a
  in map5 (map5 (\c u d l r -> (c + u + d + l + r) * 0.2)) a up down left right
"#;

/// Best of a few runs; `setup` prepares the input outside the timed part.
fn time_with<S, T>(
    runs: usize,
    mut setup: impl FnMut() -> S,
    mut f: impl FnMut(S) -> T,
) -> (Duration, T) {
    let mut best = Duration::MAX;
    let mut out = None;
    for _ in 0..runs {
        let input = setup();
        let t = Instant::now();
        let r = f(input);
        best = best.min(t.elapsed());
        out = Some(r);
    }
    (best, out.expect("at least one run"))
}

fn time<T>(runs: usize, mut f: impl FnMut() -> T) -> (Duration, T) {
    time_with(runs, || (), |()| f())
}

fn report(name: &str, interp: Duration, native: Duration) {
    println!(
        "{name:<28} interpreter {:>9.2} ms   rust {:>9.2} ms   ratio {:>5.2}x",
        interp.as_secs_f64() * 1e3,
        native.as_secs_f64() * 1e3,
        interp.as_secs_f64() / native.as_secs_f64()
    );
}

fn data(n: usize, seed: u32) -> Vec<f32> {
    let mut x = seed.wrapping_mul(2_654_435_761).max(1);
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            (x % 1000) as f32 / 1000.0
        })
        .collect()
}

fn native_stencil(a: &[f32], n: usize, m: usize) -> Vec<f32> {
    let mut out = vec![0.0f32; n * m];
    for i in 0..n {
        for j in 0..m {
            let c = a[i * m + j];
            out[i * m + j] = if i > 0 && i < n - 1 && j > 0 && j < m - 1 {
                (c + a[(i - 1) * m + j] + a[(i + 1) * m + j] + a[i * m + j - 1] + a[i * m + j + 1])
                    * 0.2
            } else {
                c
            };
        }
    }
    out
}

fn native_periodic(a: &[f32], n: usize, m: usize) -> Vec<f32> {
    let mut out = vec![0.0f32; n * m];
    for i in 0..n {
        let (u, d) = ((i + n - 1) % n, (i + 1) % n);
        for j in 0..m {
            let (l, r) = ((j + m - 1) % m, (j + 1) % m);
            out[i * m + j] =
                (a[i * m + j] + a[u * m + j] + a[d * m + j] + a[i * m + l] + a[i * m + r]) * 0.2;
        }
    }
    out
}

fn main() {
    let mut db = futhark_db::Database::new();
    let file = db.set_file("bench.fut", PROGRAM);
    let checked = futhark_db::interp_program(&db, file);
    let mut s = Session::new(checked.program, Default::default()).expect("session");
    // `interp_bench NAME` runs one workload only (for profiling).
    let only = std::env::args().nth(1);
    let want = |name: &str| only.as_deref().is_none_or(|o| o == name);

    let n = 10_000_000;
    if want("sum") {
        let xs = data(n, 1);
        let (ti, r) = time_with(
            5,
            || vec![Value::from(xs.clone())],
            |args| s.call_entry("sum", args).expect("sum"),
        );
        let (tn, rn) = time(5, || {
            let mut acc = 0.0f32;
            for &x in &xs {
                acc += x;
            }
            std::hint::black_box(acc)
        });
        assert_eq!(r[0].to_scalar::<f32>(), Some(rn));
        report("sum of 10^7 f32", ti, tn);
    }
    if want("dot") {
        let (xs, ys) = (data(n, 1), data(n, 2));
        let (ti, r) = time_with(
            5,
            || vec![Value::from(xs.clone()), Value::from(ys.clone())],
            |args| s.call_entry("dot", args).expect("dot"),
        );
        let (tn, rn) = time(5, || {
            let prods: Vec<f32> = xs.iter().zip(&ys).map(|(a, b)| a * b).collect();
            let mut acc = 0.0f32;
            for p in prods {
                acc += p;
            }
            std::hint::black_box(acc)
        });
        let got = r[0].to_scalar::<f32>().unwrap_or(f32::NAN);
        assert!((got - rn).abs() <= 1e-3 * rn.abs(), "dot: {got} vs {rn}");
        report("dot product of 10^7 f32", ti, tn);
    }
    let (h, w) = (2000usize, 2000usize);
    let grid = data(h * w, 3);
    let gv = Value::from_vec(vec![h as i64, w as i64], grid.clone()).expect("grid");
    if want("stencil") {
        let (ti, r) = time_with(
            10,
            || vec![gv.clone()],
            |args| s.call_entry("stencil", args).expect("stencil"),
        );
        let (tn, rn) = time(10, || std::hint::black_box(native_stencil(&grid, h, w)));
        let got = r[0].as_slice::<f32>().unwrap_or(&[]);
        assert!(
            got.iter().zip(&rn).all(|(a, b)| (a - b).abs() < 1e-4),
            "stencil differs"
        );
        report("stencil step 2000x2000", ti, tn);
    }
    if want("periodic") {
        let (ti, r) = time_with(
            10,
            || vec![gv.clone()],
            |args| s.call_entry("periodic", args).expect("periodic"),
        );
        let (tn, rn) = time(10, || std::hint::black_box(native_periodic(&grid, h, w)));
        let got = r[0].as_slice::<f32>().unwrap_or(&[]);
        assert!(
            got.iter().zip(&rn).all(|(a, b)| (a - b).abs() < 1e-4),
            "periodic stencil differs"
        );
        report("periodic stencil 2000x2000", ti, tn);
    }
}
