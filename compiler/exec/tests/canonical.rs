//! Kernels named by content (`futhark_cuda::canonicalize`): the same computation compiled
//! in programs whose IR names differ (more code before it, other variable names) becomes
//! the same CUDA module, so the runtime's caches find it; a different computation, or the
//! same one with other run-time checks, does not share a module key.
#![cfg(feature = "cuda")]

use futhark_cuda::{CodegenOptions, GeneratedKernel, canonicalize, generate_program_with};

// Only `compile` is used here.
#[allow(dead_code)]
mod support;

/// Every kernel of `src`, generated and canonicalised, in program order.
fn modules(name: &str, src: &str) -> Vec<GeneratedKernel> {
    let prog = support::compile(name, src);
    let mut out = Vec::new();
    for kd in &prog.kernels {
        let mut gks =
            generate_program_with(&kd.program, &CodegenOptions::default()).expect("generates");
        gks.iter_mut().for_each(canonicalize);
        out.extend(gks);
    }
    out
}

fn only(name: &str, src: &str) -> GeneratedKernel {
    let mut ms = modules(name, src);
    assert_eq!(ms.len(), 1, "{name}: {ms:#?}");
    ms.remove(0)
}

#[test]
fn the_same_kernel_under_other_names_is_the_same_module() {
    let a = only("a", "entry main (xs: []f32) = map (\\x -> x * 2 + 1) xs");
    let b = modules(
        "b",
        "def unrelated (n: i64) = iota n |> map (+1) |> i64.sum
entry other (ys: [][]i32) = map (\\r -> r[0]) ys |> i32.sum
entry scale (values: []f32) = map (\\v -> v * 2 + 1) values",
    );
    let same = b
        .iter()
        .find(|m| m.source == a.source)
        .unwrap_or_else(|| panic!("no module of b is a's: {a:#?}\n{b:#?}"));
    assert_eq!(a.name, same.name);
    assert_eq!(a.plan.entries(), same.plan.entries());
    assert!(a.name.starts_with('k'), "{}", a.name);
    // Reports keep the IR's names.
    assert_ne!(a.label, a.name);
}

#[test]
fn canonical_kernels_are_fixed_points() {
    let a = only(
        "fixed",
        "entry main (xs: []f32) = map (\\x -> x * 2 + 1) xs",
    );
    let mut again = a.clone();
    canonicalize(&mut again);
    assert_eq!(a, again);
}

#[test]
fn different_computations_are_different_modules() {
    let a = only("c1", "entry main (xs: []f32) = map (\\x -> x * 2 + 1) xs");
    let b = only("c2", "entry main (xs: []f32) = map (\\x -> x * 3 + 1) xs");
    let c = only("c3", "entry main (xs: []f64) = map (\\x -> x * 2 + 1) xs");
    assert_ne!(a.source, b.source);
    assert_ne!(a.name, b.name);
    assert_ne!(a.source, c.source);
}

#[test]
fn other_checks_share_the_text_but_not_the_module_key() {
    // The same bounds-checked gather at two source lines: the failure message names the
    // line, so the modules must differ in key, while their CUDA text is one.
    let a = only(
        "g1",
        "entry main (xs: []f32) (is: []i64) = map (\\i -> xs[i]) is",
    );
    let b = only(
        "g2",
        "\n\nentry main (xs: []f32) (is: []i64) = map (\\i -> xs[i]) is",
    );
    assert_eq!(a.source, b.source);
    assert_ne!(a.checks, b.checks);
    assert_ne!(a.name, b.name);
}
