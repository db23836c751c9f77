//! Contractions (issue 23): matrix products written every way a Futhark programmer does,
//! batched products, matrix-vector products and all-pairs n-body sums, run on the
//! interpreter and on the CPU executor, which must agree; the compiled program must not
//! materialise an n×p×m intermediate. The `#[ignore]`d `gpu_*` tests run the same programs
//! on the GPU (the tiled CUDA kernels) at sizes that are not tile multiples: run them on a
//! machine with a GPU with `cargo test --release -p futhark-exec --test contraction --
//! --ignored`.

#[path = "support/agree.rs"]
mod agree;
use agree::{Outcome, agree, agree_error, agree_values};

const PROGRAMS: &str = "
entry mm [n][m][p] (a: [n][m]f32) (b: [m][p]f32) : [n][p]f32 =
  map (\\r -> map (\\c -> f32.sum (map2 (*) r c)) (transpose b)) a
entry mm_redomap [n][m][p] (a: [n][m]f32) (b: [m][p]f32) : [n][p]f32 =
  map (\\r -> map (\\c -> reduce (+) 0 (map2 (*) r c)) (transpose b)) a
entry mm_bt [n][m][p] (a: [n][m]f32) (bt: [p][m]f32) : [n][p]f32 =
  map (\\r -> map (\\c -> f32.sum (map2 (*) r c)) bt) a
entry mm_at [n][m][p] (at: [m][n]f32) (b: [m][p]f32) : [n][p]f32 =
  map (\\r -> map (\\c -> f32.sum (map2 (*) r c)) (transpose b)) (transpose at)
entry mm_i32 [n][m][p] (a: [n][m]i32) (b: [m][p]i32) : [n][p]i32 =
  map (\\r -> map (\\c -> i32.sum (map2 (*) r c)) (transpose b)) a
entry mm_f64 [n][m][p] (a: [n][m]f64) (b: [m][p]f64) : [n][p]f64 =
  map (\\r -> map (\\c -> f64.sum (map2 (*) r c)) (transpose b)) a
-- Tropical (min, +) product: the neutral element is not zero.
entry mm_minplus [n][m][p] (a: [n][m]f32) (b: [m][p]f32) : [n][p]f32 =
  map (\\r -> map (\\c -> reduce f32.min f32.inf (map2 (+) r c)) (transpose b)) a
-- Associative, not commutative: the last index with the largest value wins.
entry mm_argmax [n][m][p] (a: [n][m]i32) (b: [m][p]i32) : [n][p]i64 =
  let op (x: i32, i: i64) (y: i32, j: i64) = if y >= x then (y, j) else (x, i)
  in map (\\r -> map (\\c -> (reduce op (i32.lowest, -1) (zip (map2 (+) r c) (iota m))).1)
                     (transpose b)) a
-- sgemm: the reduction inside scalar code (distributed into a reduction and a map).
entry sgemm [n][m][p] (alpha: f32) (beta: f32) (a: [n][m]f32) (b: [m][p]f32) (c: [n][p]f32) =
  map2 (\\r crow -> map2 (\\col x -> alpha * f32.sum (map2 (*) r col) + beta * x) (transpose b) crow) a c
-- LU's inner update: blocks times transposed blocks, the transposition of a map's row.
entry blocks [m][b] (top: [m][b][b]f32) (lft: [m][b][b]f32) (mat: [m][m][b][b]f32) =
  map2 (\\mat_arr l -> map2 (\\blk t -> map2 (\\row lrow -> map2 (\\el trow -> el - f32.sum (map2 (*) lrow trow)) row (transpose t)) blk l) mat_arr top) mat lft
entry batched [k][n][m][p] (a: [k][n][m]f32) (b: [k][m][p]f32) : [k][n][p]f32 =
  map2 (\\x y -> map (\\r -> map (\\c -> f32.sum (map2 (*) r c)) (transpose y)) x) a b
entry matvec [n][m] (a: [n][m]f32) (x: [m]f32) : [n]f32 =
  map (\\r -> f32.sum (map2 (*) r x)) a
entry nbody [n] (xs: [n]f32) (ms: [n]f32) : [n]f32 =
  map (\\xi -> f32.sum (map2 (\\xj mj -> mj * (xj - xi) / (1f32 + (xj - xi) * (xj - xi))) xs ms)) xs
";

/// A deterministic `rows × cols` matrix literal of small integers as `ty` (exact in every
/// type, so float sums agree bit for bit whatever the order).
fn matrix(rows: usize, cols: usize, ty: &str, seed: u64) -> String {
    let mut s = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let mut next = || {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((s >> 33) % 7) as i64 - 3
    };
    if rows == 0 || cols == 0 {
        return format!("empty([{rows}][{cols}]{ty})");
    }
    let rows: Vec<String> = (0..rows)
        .map(|_| {
            let r: Vec<String> = (0..cols).map(|_| format!("{}{ty}", next())).collect();
            format!("[{}]", r.join(", "))
        })
        .collect();
    format!("[{}]", rows.join(", "))
}

fn vector(n: usize, ty: &str, seed: u64) -> String {
    if n == 0 {
        return format!("empty([0]{ty})");
    }
    let m = matrix(1, n, ty, seed);
    m[1..m.len() - 1].to_string()
}

fn values(o: Outcome) -> Vec<futhark_values::Value> {
    match o {
        Outcome::Values(v) => v,
        Outcome::Error(e) => panic!("unexpected error: {e}"),
    }
}

#[test]
fn matrix_products_agree_in_every_spelling() {
    for (n, m, p) in [(3, 4, 5), (1, 1, 1), (7, 2, 9)] {
        let a = matrix(n, m, "f32", 1);
        let b = matrix(m, p, "f32", 2);
        let bt = matrix(p, m, "f32", 3);
        let at = matrix(m, n, "f32", 4);
        let args = format!("{a} {b}");
        let want = values(agree("mm", PROGRAMS, "mm", &args));
        let got = values(agree("mm_redomap", PROGRAMS, "mm_redomap", &args));
        assert_eq!(want, got, "f32.sum and reduce (+) 0 agree");
        agree("mm_bt", PROGRAMS, "mm_bt", &format!("{a} {bt}"));
        agree("mm_at", PROGRAMS, "mm_at", &format!("{at} {b}"));
        agree(
            "mm_f64",
            PROGRAMS,
            "mm_f64",
            &format!("{} {}", matrix(n, m, "f64", 5), matrix(m, p, "f64", 6)),
        );
        agree(
            "mm_i32",
            PROGRAMS,
            "mm_i32",
            &format!("{} {}", matrix(n, m, "i32", 7), matrix(m, p, "i32", 8)),
        );
        agree("mm_minplus", PROGRAMS, "mm_minplus", &args);
        agree(
            "mm_argmax",
            PROGRAMS,
            "mm_argmax",
            &format!("{} {}", matrix(n, m, "i32", 9), matrix(m, p, "i32", 10)),
        );
    }
    agree_values(
        "mm_small",
        PROGRAMS,
        "mm",
        "[[1f32, 2f32], [3f32, 4f32]] [[5f32, 6f32], [7f32, 8f32]]",
        "[[19f32, 22f32], [43f32, 50f32]]",
    );
}

#[test]
fn mismatched_inner_sizes_fail_as_the_interpreter_does() {
    let args = format!("{} {}", matrix(2, 3, "f32", 1), matrix(4, 2, "f32", 2));
    agree_error("mm_mismatch", PROGRAMS, "mm", &args, "do not match");
}

#[test]
fn empty_dimensions_give_empty_or_neutral_results() {
    // No rows (n = 0) is left out: the interpreter gives `empty([0]f32)` for an empty map
    // of rows, a shape quirk of its own that the compiled path does not share, and fails
    // to return a `[n][0]` result (p = 0).
    for (n, m, p) in [(2, 0, 3), (1, 0, 5)] {
        let args = format!("{} {}", matrix(n, m, "f32", 1), matrix(m, p, "f32", 2));
        agree("mm_empty", PROGRAMS, "mm", &args);
        agree("mm_minplus_empty", PROGRAMS, "mm_minplus", &args);
    }
}

#[test]
fn batched_matvec_and_nbody_agree() {
    agree(
        "batched",
        PROGRAMS,
        "batched",
        &format!(
            "[{}, {}] [{}, {}]",
            matrix(3, 2, "f32", 1),
            matrix(3, 2, "f32", 2),
            matrix(2, 4, "f32", 3),
            matrix(2, 4, "f32", 4)
        ),
    );
    agree(
        "sgemm",
        PROGRAMS,
        "sgemm",
        &format!(
            "2f32 -1f32 {} {} {}",
            matrix(3, 4, "f32", 1),
            matrix(4, 5, "f32", 2),
            matrix(3, 5, "f32", 3)
        ),
    );
    let blocks = |m: usize, s: u64| {
        format!(
            "[{}]",
            (0..m)
                .map(|i| matrix(3, 3, "f32", s + i as u64))
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    let mat = format!(
        "[{}]",
        (0..2)
            .map(|i| blocks(2, 10 * i + 7))
            .collect::<Vec<_>>()
            .join(", ")
    );
    agree(
        "blocks",
        PROGRAMS,
        "blocks",
        &format!("{} {} {mat}", blocks(2, 1), blocks(2, 4)),
    );
    agree(
        "matvec",
        PROGRAMS,
        "matvec",
        &format!("{} {}", matrix(5, 3, "f32", 1), vector(3, "f32", 2)),
    );
    agree(
        "nbody",
        PROGRAMS,
        "nbody",
        &format!("{} {}", vector(9, "f32", 1), vector(9, "f32", 2)),
    );
}

#[test]
fn the_matrix_product_materialises_no_cube() {
    let src = "entry main [n][m][p] (a: [n][m]f32) (b: [m][p]f32) : [n][p]f32 =
  map (\\r -> map (\\c -> f32.sum (map2 (*) r c)) (transpose b)) a";
    let dir = std::env::temp_dir().join(format!("futhark-cube-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("mm.fut");
    std::fs::write(&path, src).expect("write");
    use futhark_db::Db;
    let db = futhark_db::Database::new();
    let file = db.load_file(&path).expect("loads");
    let prog = futhark_db::compile(&db, file, futhark_db::IrStage::Kernels).expect("compiles");
    let _ = std::fs::remove_dir_all(&dir);
    // One kernel program, whose arrays are the two inputs and the result: no replica of
    // `transpose b` per row.
    assert_eq!(prog.kernels.len(), 1, "{:?}", prog.kernels);
    for a in &prog.kernels[0].program.arrays {
        assert!(
            a.shape.len() <= 2,
            "array {} of rank {}",
            a.name,
            a.shape.len()
        );
    }
}

#[cfg(feature = "cuda")]
mod gpu {
    //! The same programs on the GPU, against the interpreter, at sizes around the tile
    //! shapes (128 × 128 × 8 blocks; 1-D 128 rows).

    use super::*;
    use futhark_db::{Database, Db, IrStage};
    use futhark_exec::{CudaBackend, ExecOptions, Executor};
    use futhark_values::{compare_values, read_values};

    fn on_gpu(name: &str, entry: &str, args: &str, options: &ExecOptions) {
        let dir = std::env::temp_dir().join(format!("futhark-gpu-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let path = dir.join("p.fut");
        std::fs::write(&path, PROGRAMS).expect("write");
        let argv = read_values(args.as_bytes()).expect("arguments");
        let db = Database::new();
        let file = db.load_file(&path).expect("loads");
        let prog = futhark_db::compile(&db, file, IrStage::Kernels).expect("compiles");
        let backend = CudaBackend::open_gpus(options.gpus, options).expect("a GPU");
        let mut exec = Executor::new(prog, backend).expect("executor");
        let got = exec
            .call_entry(entry, argv.clone())
            .expect("runs on the GPU");
        let checked = futhark_db::interp_program(&db, file);
        let interp = futhark_interp::Interpreter::new(checked.program).expect("interpreter");
        let want = interp.call_entry(entry, argv).expect("interprets");
        let _ = std::fs::remove_dir_all(&dir);
        assert!(
            compare_values(&want, &got).is_ok(),
            "{name} {entry}: GPU differs from the interpreter"
        );
    }

    fn cases(options: &ExecOptions) {
        for (n, m, p) in [
            (130, 9, 67),
            (257, 129, 131),
            (1, 300, 1),
            (128, 8, 128),
            (5, 0, 7),
        ] {
            let f = |t: &str, s| (matrix(n, m, t, s), matrix(m, p, t, s + 1));
            let (a, b) = f("f32", 1);
            let args = format!("{a} {b}");
            for e in ["mm", "mm_redomap", "mm_minplus"] {
                on_gpu(&format!("{e}_{n}_{m}_{p}"), e, &args, options);
            }
            let at = matrix(m, n, "f32", 3);
            on_gpu("mm_at", "mm_at", &format!("{at} {b}"), options);
            let (a, b) = f("i32", 5);
            on_gpu("mm_i32", "mm_i32", &format!("{a} {b}"), options);
            on_gpu("mm_argmax", "mm_argmax", &format!("{a} {b}"), options);
            let (a, b) = f("f64", 7);
            on_gpu("mm_f64", "mm_f64", &format!("{a} {b}"), options);
        }
        let (a, b) = (matrix(40, 33, "f32", 1), matrix(33, 150, "f32", 2));
        on_gpu(
            "batched",
            "batched",
            &format!("[{a}, {a}, {a}] [{b}, {b}, {b}]"),
            options,
        );
        let (a, b, c) = (
            matrix(130, 40, "f32", 1),
            matrix(40, 70, "f32", 2),
            matrix(130, 70, "f32", 3),
        );
        on_gpu(
            "sgemm",
            "sgemm",
            &format!("2f32 -1f32 {a} {b} {c}"),
            options,
        );
        let blk = |s: u64| matrix(32, 32, "f32", s);
        let row = |s: u64| format!("[{}, {}, {}]", blk(s), blk(s + 1), blk(s + 2));
        let mat = format!("[{}, {}, {}]", row(7), row(8), row(9));
        on_gpu(
            "blocks",
            "blocks",
            &format!("{} {} {mat}", row(1), row(4)),
            options,
        );
        on_gpu(
            "matvec",
            "matvec",
            &format!("{} {}", matrix(300, 257, "f32", 1), vector(257, "f32", 2)),
            options,
        );
        on_gpu(
            "nbody",
            "nbody",
            &format!("{} {}", vector(1000, "f32", 1), vector(1000, "f32", 2)),
            options,
        );
    }

    /// Every kernel of the programs, tiled with and without `fma` and with another tile
    /// shape, compiles with NVRTC for sm_90 (no GPU needed: NVRTC from the loader path or
    /// `FUTHARK_NVRTC_DIR`, as `.ci/run` sets it); the products get a tiled entry, the
    /// matrix-vector product (rows read whole by each thread) does not.
    #[test]
    fn tiled_kernels_compile_with_nvrtc() {
        use futhark_cuda::runtime::nvrtc;
        use futhark_cuda::{CodegenOptions, LaunchPlan, TileConfig, generate_program_with};
        let dir = std::env::temp_dir().join(format!("futhark-nvrtc-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let path = dir.join("p.fut");
        std::fs::write(&path, PROGRAMS).expect("write");
        let db = Database::new();
        let file = db.load_file(&path).expect("loads");
        let prog = futhark_db::compile(&db, file, IrStage::Kernels).expect("compiles");
        let _ = std::fs::remove_dir_all(&dir);
        if !nvrtc::available()
            && !std::env::var("FUTHARK_NVRTC_DIR")
                .is_ok_and(|d| nvrtc::preload_from(std::path::Path::new(&d)))
        {
            eprintln!("NVRTC not found; generated CUDA not compiled");
            return;
        }
        let configs = [
            TileConfig::default(),
            TileConfig {
                fma: false,
                ..TileConfig::default()
            },
            TileConfig {
                bm: 64,
                bn: 64,
                bk: 16,
                tm: 4,
                tn: 4,
                ..TileConfig::default()
            },
            // The tuning knobs: grouped launch order, a register cap, the bound-free
            // fold of full slices.
            TileConfig {
                min_blocks: 2,
                group: 8,
                full_fast: true,
                ..TileConfig::default()
            },
        ];
        // Each kernel and its husk piece (what each GPU runs of a split launch: rows of
        // `d0` partitioned, the other operand whole).
        let mut programs = Vec::new();
        for kd in &prog.kernels {
            programs.push((kd.name.clone(), kd.program.clone()));
            let h = futhark_ir::husk::husk(&kd.program).expect("splittable");
            programs.push((format!("{} (piece)", kd.name), h.piece));
        }
        for tile in configs {
            for (name, program) in &programs {
                let gks =
                    generate_program_with(program, &CodegenOptions { tile }).expect("generates");
                for gk in gks {
                    if let LaunchPlan::Red(r) = &gk.plan {
                        let tiled = !r.tiled.is_empty();
                        let matvec = name.contains("matvec");
                        assert_eq!(tiled, !matvec, "{name}: tiled entry {tiled}");
                    }
                    let opts = nvrtc::options_with("sm_90", false);
                    if let Err(e) = nvrtc::compile(&gk.source, &gk.name, &opts) {
                        panic!("{}: {e}\n{}", gk.name, gk.kernel_source());
                    }
                }
            }
        }
    }

    #[test]
    #[ignore = "needs a GPU"]
    fn gpu_tiled_contractions_match_the_interpreter() {
        cases(&ExecOptions::default());
    }

    /// The tuning knobs (`FUTHARK_TILE_TUNE`) and a deeper `k` slice compute the same.
    #[test]
    #[ignore = "needs a GPU"]
    fn gpu_tuned_tiles_match_the_interpreter() {
        let mut o = ExecOptions::default();
        o.cuda.tile_shape = Some([128, 128, 16, 8, 8]);
        o.cuda.tile_tune = futhark_options::TileTune {
            min_blocks: 2,
            group: 8,
            full_fast: true,
        };
        cases(&o);
    }

    #[test]
    #[ignore = "needs two GPUs"]
    fn gpu_tiled_contractions_split_over_two_gpus_match_the_interpreter() {
        cases(&ExecOptions {
            gpus: Some(2),
            split: futhark_exec::SplitPolicy::Always,
            ..ExecOptions::default()
        });
    }
}
