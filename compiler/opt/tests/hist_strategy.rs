//! Which bucket update each histogram operator gets, from Futhark source to CUDA: user
//! operators are lowered with let-bound statements, which must not hide a native atomic;
//! tuple histograms are extracted as one `SegHist` (never a one-thread sequential kernel)
//! and get a packed 64-bit CAS or per-bucket locks.

use futhark_cuda::codegen::LaunchPlan;
use futhark_db::{Database, Db, IrStage};

const PROGRAM: &str = "
entry add_f32 [n] (h: i64) (is: [n]i32) (xs: [n]f32) : []f32 = hist (+) 0 h (map i64.i32 is) xs
entry add_i32 [n] (h: i64) (is: [n]i64) (xs: [n]i32) : []i32 = hist (+) 0 h is xs
entry max_i32 [n] (h: i64) (is: [n]i32) (xs: [n]i32) : []i32 =
  hist i32.max i32.lowest h (map i64.i32 is) xs
entry max_f32 [n] (h: i64) (is: [n]i32) (xs: [n]f32) : []f32 =
  hist f32.max (-f32.inf) h (map i64.i32 is) xs
entry mul_i32 [n] (h: i64) (is: [n]i32) (xs: [n]i32) : []i32 =
  hist (*) 1 h (map i64.i32 is) xs
entry into [n] (dest: *[]f64) (is: [n]i64) (xs: [n]f64) : []f64 =
  reduce_by_index dest (+) 0 is xs
def argmax_op (a: f32, ai: i32) (b: f32, bi: i32) : (f32, i32) =
  if a > b then (a, ai) else if b > a then (b, bi) else (a, i32.min ai bi)
entry argmax [n] (h: i64) (is: [n]i32) (xs: [n]f32) : ([]f32, []i32) =
  unzip (hist argmax_op (-f32.inf, i32.highest) h (map i64.i32 is)
              (zip xs (map i32.i64 (iota n))))
entry triple [n] (h: i64) (is: [n]i32) (xs: [n]f64) : ([]f64, []i32, []i32) =
  unzip3 (hist (\\(a, b, c) (x, y, z) -> (a + x, b + y, i32.max c z)) (0, 0, i32.lowest) h
               (map i64.i32 is) (map (\\x -> (x, 1, i32.f64 x)) xs))
";

/// The `update` description of every histogram kernel, by entry point.
fn updates() -> Vec<(String, String)> {
    let dir = std::env::temp_dir().join(format!("futhark-hist-strategy-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("h.fut");
    std::fs::write(&path, PROGRAM).expect("write");
    let db = Database::new();
    let file = db.load_file(&path).expect("loads");
    let prog = futhark_db::compile(&db, file, IrStage::Kernels)
        .unwrap_or_else(|e| panic!("does not compile: {:?}", e.diagnostics(&db, file)));
    let mut out = Vec::new();
    for k in &prog.kernels {
        for g in futhark_cuda::generate_program(&k.program).expect("codegen") {
            if let LaunchPlan::Hist(h) = &g.plan {
                out.push((g.name.clone(), h.update.clone()));
            }
        }
        // No tuple histogram may fall back to a sequential kernel.
        assert!(
            !k.program.kernels.iter().any(|k| k.name.contains("_seq_")),
            "sequential kernel in\n{}",
            k.program
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
    out
}

fn update_of(all: &[(String, String)], entry: &str) -> String {
    let hits: Vec<&String> = all
        .iter()
        .filter(|(k, _)| k.starts_with(&format!("entry_{entry}_")))
        .map(|(_, u)| u)
        .collect();
    assert_eq!(hits.len(), 1, "{entry}: {all:?}");
    hits[0].clone()
}

#[test]
fn each_operator_gets_its_update() {
    let all = updates();
    let u = |e: &str| update_of(&all, e);
    assert_eq!(
        u("add_f32"),
        "shared: native atomicAdd; global: native atomicAdd"
    );
    assert_eq!(
        u("add_i32"),
        "shared: native atomicAdd; global: native atomicAdd"
    );
    assert_eq!(
        u("max_i32"),
        "shared: native atomicMax; global: native atomicMax"
    );
    assert_eq!(
        u("max_f32"),
        "shared: native integer atomics (float min/max trick); global: native integer atomics (float min/max trick)"
    );
    assert_eq!(
        u("mul_i32"),
        "shared: CAS loop (32-bit); global: CAS loop (32-bit)"
    );
    assert_eq!(
        u("into"),
        "shared: native atomicAdd; global: native atomicAdd"
    );
    assert_eq!(
        u("argmax"),
        "shared: CAS loop (64-bit, packed); global: CAS loop (64-bit, packed)"
    );
    assert_eq!(
        u("triple"),
        "shared: lock per bucket; global: lock per bucket"
    );
}
