//! Snapshot tests of the passes: small programs lowered, then run through part or all of
//! the pipeline with the IR checker after every pass. Snapshots are in `snapshots/`.

#[path = "../../lower/tests/common/mod.rs"]
mod common;

use futhark_opt::{Pass, pipeline, run_pipeline};

/// The pipeline's passes up to and including the first one named `last`.
fn up_to(last: &str) -> Vec<Pass> {
    let all = pipeline();
    let n = all
        .iter()
        .position(|p| p.name == last)
        .map_or(all.len(), |i| i + 1);
    all.into_iter().take(n).collect()
}

fn run(src: &str, passes: &[Pass]) -> String {
    let p = common::lower_src(src);
    match run_pipeline(p, passes, true) {
        Ok(p) => p.to_string(),
        Err(e) => panic!("{e}"),
    }
}

/// The program after `passes`, as a snapshot.
fn check(name: &str, src: &str, passes: &[Pass]) {
    insta::assert_snapshot!(name, run(src, passes), src);
}

fn kernels(name: &str, src: &str) {
    check(name, src, &pipeline());
}

fn error(src: &str) -> String {
    let p = common::lower_src(src);
    run_pipeline(p, &pipeline(), true)
        .map(|_| String::new())
        .unwrap_or_else(|e| e.to_string())
}

// ---------------------------------------------------------------------------------------
// Simplification, inlining, CSE

#[test]
fn simplify_folds_constants_and_branches() {
    check(
        "simplify",
        "entry main (x: i32) : i32 =
           let a = 2 + 3 * 4
           let b = if a > 10 then x * 1 else x / 0
           let unused = x + 99
           in b + (if true then 0 else 7)",
        &up_to("simplify"),
    );
}

#[test]
fn inline_removes_first_order_calls() {
    check(
        "inline",
        "def sq (x: f32) = x * x
         def norm (a: f32) (b: f32) = f32.sqrt (sq a + sq b)
         entry main (a: f32) (b: f32) = norm a b",
        &up_to("inline"),
    );
}

#[test]
fn recursive_functions_are_not_inlined() {
    check(
        "inline_recursive",
        "def fib (n: i32) : i32 = if n < 2 then n else fib (n - 1) + fib (n - 2)
         entry main (n: i32) = fib n",
        &up_to("inline"),
    );
}

#[test]
fn cse_shares_scalar_expressions() {
    check(
        "cse",
        "entry main (x: i64) (xs: []f32) =
           let a = xs[x + 1] * 2
           let b = xs[x + 1] * 2
           in a + b",
        &up_to("cse"),
    );
}

// ---------------------------------------------------------------------------------------
// Fusion

#[test]
fn map_map_fusion() {
    check(
        "fuse_map_map",
        "entry main (xs: []f32) = map (+1) (map (*2) xs)",
        &up_to("fuse"),
    );
}

#[test]
fn map_into_reduce_fusion() {
    check(
        "fuse_map_reduce",
        "entry main (xs: []f32) = f32.sum (map (\\x -> x * x) xs)",
        &up_to("fuse"),
    );
}

#[test]
fn map_into_scan_fusion() {
    check(
        "fuse_map_scan",
        "entry main (xs: []i32) = scan (+) 0 (map (\\x -> x % 7) xs)",
        &up_to("fuse"),
    );
}

#[test]
fn map_into_hist_and_scatter_fusion() {
    check(
        "fuse_map_hist_scatter",
        "entry main (xs: []f32) =
           let is = map (\\x -> i64.f32 x % 8) xs
           let h = hist (+) 0 8 is (map (*2) xs)
           in scatter (replicate 8 0) (map (+1) is) h",
        &up_to("fuse"),
    );
}

#[test]
fn producer_used_elsewhere_stays_an_output() {
    check(
        "fuse_keep_output",
        "entry main (xs: []f32) = let ys = map (*2) xs in (map (+1) ys, ys)",
        &up_to("fuse"),
    );
}

#[test]
fn horizontal_fusion_of_independent_maps() {
    check(
        "fuse_horizontal",
        "entry main (xs: []f32) (ys: []f32) = (map (*2) xs, map f32.sqrt ys)",
        &up_to("fuse"),
    );
}

// ---------------------------------------------------------------------------------------
// Distribution and kernel extraction

#[test]
fn distribution_splits_a_map_of_several_soacs() {
    check(
        "distribute",
        "entry main [n][m] (xss: [n][m]f32) : [n][m]f32 =
           map (\\xs -> let s = f32.sum xs in map (/s) (scan (+) 0 xs)) xss",
        &up_to("distribute"),
    );
}

#[test]
fn kernels_segmap() {
    kernels(
        "k_segmap",
        "entry main (a: f32) (xs: []f32) = map (\\x -> a * x + 1) xs",
    );
}

#[test]
fn kernels_segmap_2d_with_transpose_view() {
    kernels(
        "k_segmap_2d",
        "entry main [n][m] (xss: [n][m]i32) : [m][n]i32 = map (map (*2)) (transpose xss)",
    );
}

#[test]
fn kernels_segred_from_redomap() {
    kernels(
        "k_segred",
        "entry main (xs: []f64) = f64.maximum (map f64.abs xs)",
    );
}

#[test]
fn kernels_segmented_segred() {
    kernels(
        "k_segred_segmented",
        "entry main [n][m] (xss: [n][m]i32) : [n]i32 = map i32.sum xss",
    );
}

#[test]
fn kernels_segmented_segscan() {
    kernels(
        "k_segscan_segmented",
        "entry main [n][m] (xss: [n][m]i64) : [n][m]i64 = map (scan (+) 0) xss",
    );
}

#[test]
fn kernels_seghist_and_scatter() {
    kernels(
        "k_hist_scatter",
        "entry main (is: []i64) (vs: []i32) =
           let h = reduce_by_index (replicate 16 0) (+) 0 is vs
           in scatter h is (map (*2) vs)",
    );
}

#[test]
fn kernels_iota_input_is_a_view() {
    kernels(
        "k_iota_view",
        "entry main (n: i64) : [n]f32 = tabulate n (\\i -> f32.i64 i * 0.5)",
    );
}

#[test]
fn kernels_sequential_loop_and_reduce_in_a_thread() {
    kernels(
        "k_sequential",
        "entry main [n][m] (xss: [n][m]f32) : [n]f32 =
           map (\\xs -> let s = loop acc = 0 for i < 3 do acc + xs[i] * 2
                        in s + reduce f32.max (-f32.inf) xs) xss",
    );
}

/// Two versions of a map whose lambda reduces and then computes more: segmented reductions
/// (the scalar statement the reduction depends on recomputed per element) when the map is
/// narrow, the map with a sequential reduction per thread when it fills the GPU alone.
#[test]
fn kernels_reduction_in_a_map_two_versions() {
    kernels(
        "k_red_versions",
        "entry main [n] (xs: [n]f32) (ys: [n]f32) : [n]f32 =
           map2 (\\x y -> let c = x * 2 in y + reduce (+) 0 (map (\\z -> z * c) xs)) xs ys",
    );
}

/// A reduction over a short known width stays sequential in the thread: no versions.
#[test]
fn kernels_short_reduction_stays_in_a_thread() {
    let out = run(
        "entry main [n] (xss: [n][3]f32) : [n]f32 = map (\\xs -> f32.sum xs * 2) xss",
        &pipeline(),
    );
    assert!(!out.contains("segred"), "{out}");
    assert!(!out.contains("segred_fits"), "{out}");
}

#[test]
fn kernels_bounded_while_loop_in_a_thread() {
    kernels(
        "k_while",
        "entry main (limit: i32) (cs: []f32) : []i32 =
           map (\\c -> (iterate_while (\\(z, i) -> i < limit && z < 4) (\\(z, i) -> (z * z + c, i + 1)) (c, 0)).1) cs",
    );
}

#[test]
fn kernels_host_loop_around_kernels() {
    kernels(
        "k_host_loop",
        "entry main (k: i32) (xs: []f32) = loop xs for _i < k do map (\\x -> x * 0.5 + 1) xs",
    );
}

/// A map whose threads would compute array sizes no host bound covers runs as a host
/// loop over its elements; the inner `map` becomes a kernel launched per element.
#[test]
fn unextractable_maps_become_host_loops() {
    let src = "entry main (xs: []i64) : []i64 =
           map (\\x -> let n = loop n = x for i < 3 do n + i
                       let ys = map (*2) (iota n) in ys[0] + ys[n-1]) xs";
    // The IR checker accepts the program after every pass.
    assert_eq!(error(src), "");
    let out = run(src, &pipeline());
    assert!(out.contains("for elem_"), "{out}");
    assert!(out.contains("launch"), "{out}");
}
