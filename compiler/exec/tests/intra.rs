//! `fuse-intra`: which launches become one intra-block program, that the CPU executor
//! still computes what the interpreter does with them, and that the CUDA generator gives
//! such a program its one-kernel version.

#[path = "support/agree.rs"]
#[allow(dead_code)]
mod agree;
use agree::agree_values;

use futhark_db::{Database, IrStage};
use futhark_ir::soacs::KernelDef;

const SRC: &str = "
-- A scan of each row, then a map of it: two stages, the scan's result local.
entry scan_map [n][m] (xss: [n][m]i32) : [n][m]i32 =
  map (\\row -> map (\\x -> x * 2 + 1) (scan (+) 0 row)) xss

-- The second kernel reads the scan's result in the next row: not row-local.
entry cross [n][m] (xss: [n][m]i32) : [n][m]i32 =
  let ss = map (scan (+) 0) xss
  in map (\\i -> map (\\j -> ss[(i + 1) % n, j] - ss[i, m - 1 - j]) (iota m)) (iota n)

-- A reduction of each row, then a map that reads it: the sum is a per-row scalar.
entry centre [n][m] (xss: [n][m]i32) : [n][m]i32 =
  map (\\row -> let s = i32.sum row in map (\\x -> x * i32.i64 m - s) row) xss

-- A lone reduction with an operator that does not commute (affine maps composed).
entry compose [n][m] (ass: [n][m]i32) (bss: [n][m]i32) : ([n]i32, [n]i32) =
  unzip (map2 (\\as bs -> reduce (\\(a, b) (c, d) -> (a * c, b * c + d)) (1, 0) (zip as bs))
              ass bss)

-- A map with two results per row (each thread's scratch rows, once loops are promoted),
-- then a scan and a map: with the scratch round trip forwarded, one program of three.
entry carry [n][m] (xss: [n][m]i32) : [n][m]i32 =
  map (\\row ->
         let (lo, hi) = unzip (map (\\x -> (x & 0xff, x >> 8)) row)
         let c = scan (+) 0 hi
         in map2 (+) lo c)
      xss

-- Both results are returned: nothing is local.
entry both [n][m] (xss: [n][m]f32) : ([n][m]f32, [n][m]f32) =
  unzip (map (\\row -> let s = scan (*) 1 row
                       in unzip (map2 (\\x y -> (x + y, y / 2)) row (reverse s))) xss)
";

fn kernel_programs(entry: &str) -> Vec<KernelDef> {
    kernel_programs_with(entry, futhark_options::IntraBlock::Runs)
}

fn kernel_programs_with(entry: &str, intra: futhark_options::IntraBlock) -> Vec<KernelDef> {
    let mut db = Database::new();
    db.set_compile_options(futhark_options::CompileOptions {
        intra_block: intra,
        ..Default::default()
    });
    let file = db.set_file("intra.fut", SRC);
    let prog = futhark_db::compile(&db, file, IrStage::Kernels)
        .unwrap_or_else(|e| panic!("does not compile: {:?}", e.diagnostics(&db, file)));
    prog.kernels
        .into_iter()
        .filter(|k| k.name.contains(&format!("entry_{entry}_")))
        .collect()
}

/// The one intra-block program among `ks` (fails when there is not exactly one).
fn the_intra_program(ks: &[KernelDef]) -> &futhark_ir::KernelProgram {
    let fused: Vec<_> = ks.iter().filter(|k| k.program.intra.is_some()).collect();
    assert_eq!(
        fused.len(),
        1,
        "{:#?}",
        ks.iter().map(|k| &k.program).collect::<Vec<_>>()
    );
    &fused[0].program
}

#[test]
fn a_scan_then_a_map_of_each_row_is_one_intra_block_program() {
    let ks = kernel_programs("scan_map");
    assert_eq!(
        ks.len(),
        1,
        "{:#?}",
        ks.iter().map(|k| &k.name).collect::<Vec<_>>()
    );
    let p = &ks[0].program;
    assert_eq!(p.kernels.len(), 2);
    let intra = p.intra.as_ref().expect("marked intra-block");
    assert_eq!(
        intra.locals.len(),
        1,
        "the scan's result is read only by the map"
    );
    futhark_ir::check_program(p).expect("the checker accepts it");
    agree_values(
        "scan_map",
        SRC,
        "scan_map",
        "[[1i32, 2i32, 3i32], [4i32, 5i32, 6i32]]",
        "[[3i32, 7i32, 13i32], [9i32, 19i32, 31i32]]",
    );
}

#[test]
fn a_read_of_another_row_keeps_the_kernels_apart() {
    let ks = kernel_programs("cross");
    assert!(
        ks.iter().all(|k| k.program.intra.is_none()),
        "{:#?}",
        ks.iter().map(|k| &k.program).collect::<Vec<_>>()
    );
    agree_values(
        "cross",
        SRC,
        "cross",
        "[[1i32, 2i32], [3i32, 4i32]]",
        "[[0i32, 6i32], [-6i32, 0i32]]",
    );
}

#[test]
fn results_read_after_the_program_are_not_local() {
    let ks = kernel_programs("both");
    let intra = the_intra_program(&ks).intra.as_ref().unwrap();
    // The scan's result is read by the map only; the map's two results leave the program.
    assert_eq!(intra.locals.len(), 1);
    agree_values(
        "both",
        SRC,
        "both",
        "[[1f32, 2f32, 4f32]]",
        "[[9f32, 4f32, 5f32]] [[4f32, 1f32, 0.5f32]]",
    );
}

#[test]
fn the_checker_rejects_a_marked_program_that_reads_across_rows() {
    let ks = kernel_programs("cross");
    let mut p = ks
        .iter()
        .find(|k| k.program.kernels.len() == 1 && k.name.contains("map"))
        .map(|k| k.program.clone())
        .expect("the map kernel");
    // Put the scan in front of the map that reads it across rows and mark the pair.
    let scan = ks
        .iter()
        .find(|k| k.name.contains("scan"))
        .expect("the scan kernel")
        .program
        .clone();
    for a in scan.arrays {
        if p.array(&a.name).is_none() {
            p.arrays.push(a);
        }
    }
    for s in scan.sizes {
        if !p.sizes.contains(&s) {
            p.sizes.push(s);
        }
    }
    p.kernels.insert(0, scan.kernels[0].clone());
    p.intra = Some(futhark_ir::Intra::default());
    let err = futhark_ir::check_program(&p).expect_err("not row-local");
    assert!(err.to_string().contains("intra-block"), "{err}");
}

#[cfg(feature = "cuda")]
#[test]
fn the_cuda_generator_adds_the_one_kernel_version_last() {
    use futhark_cuda::{LaunchPlan, generate_program};
    let ks = kernel_programs("scan_map");
    let gks = generate_program(&ks[0].program).expect("generates");
    assert_eq!(gks.len(), 3, "two kernels, then the intra-block one");
    let LaunchPlan::Intra(plan) = &gks[2].plan else {
        panic!("last is not intra-block: {:?}", gks[2].plan)
    };
    // The scan's result is a row buffer; the map's result goes to device memory only.
    assert_eq!(plan.row_bufs, vec![4]);
    assert_eq!(plan.block(256, Some(4)), 64);
    assert_eq!(plan.block(256, Some(1)), 256);
    assert_eq!(plan.block(10, None), 32);
    // The automatic choice: q = 4, but blocks of at least 64 threads for rows that long.
    assert_eq!(plan.block(128, None), 64);
    assert_eq!(plan.block(1024, None), 256);
    assert_eq!(plan.block(8192, None), 1024);
    assert_eq!(plan.block(100_000, Some(1)), 1024);
    let src = gks[2].kernel_source();
    assert!(src.contains("__syncthreads"), "{src}");
    let local = &ks[0].program.intra.as_ref().unwrap().locals[0];
    assert!(
        !src.contains(&format!("a_{local}[fut_row")),
        "the local scan result is not written to device memory:\n{src}"
    );
}

#[cfg(feature = "cuda")]
#[path = "../examples/intra_emulate.rs"]
#[allow(dead_code)]
mod emulator;

/// Why the emulated kernels cannot run here (no g++ with C++20 threads), if so.
#[cfg(feature = "cuda")]
fn no_emulator() -> Option<String> {
    let dir = std::env::temp_dir().join(format!("intra-probe-{}", std::process::id()));
    std::fs::create_dir_all(&dir).ok()?;
    let cpp = dir.join("probe.cpp");
    std::fs::write(
        &cpp,
        "#include <barrier>\n#include <thread>\nint main() { std::barrier<> b(1); b.arrive_and_wait(); }\n",
    )
    .ok()?;
    let out = std::process::Command::new("g++")
        .args(["-std=c++20", "-pthread"])
        .arg(&cpp)
        .arg("-o")
        .arg(dir.join("probe"))
        .output();
    let _ = std::fs::remove_dir_all(&dir);
    match out {
        Ok(o) if o.status.success() => None,
        Ok(o) => Some(format!(
            "g++ cannot build C++20 threads: {}",
            String::from_utf8_lossy(&o.stderr)
                .lines()
                .next()
                .unwrap_or("")
        )),
        Err(e) => Some(format!("no g++: {e}")),
    }
}

#[cfg(feature = "cuda")]
fn setup(blocks: &[u32], grid: u32, checks: usize) -> emulator::Setup {
    emulator::Setup {
        blocks: blocks.to_vec(),
        grid,
        checks,
        intra: futhark_options::IntraBlock::Runs,
    }
}

/// A `[rows][cols]` array literal of `ty` whose elements `f` gives.
#[cfg(feature = "cuda")]
fn array(rows: usize, cols: usize, ty: &str, f: impl Fn(usize) -> String) -> String {
    let rows: Vec<String> = (0..rows)
        .map(|r| {
            let xs: Vec<String> = (0..cols)
                .map(|c| format!("{}{ty}", f(r * cols + c)))
                .collect();
            format!("[{}]", xs.join(", "))
        })
        .collect();
    format!("[{}]", rows.join(", "))
}

#[cfg(feature = "cuda")]
#[test]
fn the_one_kernel_version_computes_what_the_kernels_do() {
    if let Some(why) = no_emulator() {
        eprintln!("skipped: {why}");
        return;
    }
    let ints = array(7, 100, "i32", |i| {
        format!("{}", (i * 7919 % 2001) as i64 - 1000)
    });
    let floats = array(3, 130, "f32", |i| {
        format!("{:.3}", 0.9 + (i * 37 % 200) as f64 / 1000.0)
    });
    for (entry, input) in [("scan_map", &ints), ("both", &floats)] {
        let values = futhark_values::read_values(input.as_bytes()).expect("parses");
        // 32 threads: 4 elements each, the last partial; 96: 2 each (three warps).
        let r = emulator::emulate("intra.fut", SRC, entry, values, &setup(&[32, 96], 3, 2))
            .expect("compiles");
        assert!(r.failed.is_none(), "{entry}: {:?}", r.failed);
        assert!(r.compared > 0, "{entry}: nothing compared");
        assert_eq!(r.mismatches, 0, "{entry}: worst relative error {}", r.worst);
    }
    // LocVolCalib's tridiagonal solves (rows of 40 and 70 points), when the corpus is here.
    let lvc = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/benchmarks/finpar/LocVolCalib.fut");
    let Ok(text) = std::fs::read_to_string(&lvc) else {
        eprintln!("LocVolCalib skipped: {} not found", lvc.display());
        return;
    };
    let values = futhark_values::read_values(b"3 40 70 4 0.03f32 5.0f32 0.2f32 0.6f32 0.5f32")
        .expect("parses");
    let r = emulator::emulate(
        &lvc.to_string_lossy(),
        &text,
        "main",
        values,
        &setup(&[32, 64], 5, 1),
    )
    .expect("compiles");
    assert!(r.failed.is_none(), "LocVolCalib: {:?}", r.failed);
    assert_eq!(r.programs, 2);
    assert_eq!(
        r.mismatches, 0,
        "LocVolCalib: worst relative error {}",
        r.worst
    );
}

#[test]
fn a_row_sum_read_by_a_later_map_is_a_per_row_scalar() {
    let ks = kernel_programs("centre");
    let p = the_intra_program(&ks);
    assert!(
        p.kernels
            .iter()
            .any(|k| matches!(k.op, futhark_ir::SegOp::Red(_))),
        "{p:#?}"
    );
    futhark_ir::check_program(p).expect("the checker accepts it");
    agree_values(
        "centre",
        SRC,
        "centre",
        "[[1i32, 2i32, 3i32], [4i32, 0i32, -1i32]]",
        "[[-3i32, 0i32, 3i32], [9i32, -3i32, -6i32]]",
    );
}

#[test]
fn lone_kernels_over_rows_are_intra_block_only_when_asked() {
    let runs = kernel_programs("compose");
    assert!(runs.iter().all(|k| k.program.intra.is_none()));
    let every = kernel_programs_with("compose", futhark_options::IntraBlock::Every);
    let p = the_intra_program(&every);
    assert_eq!(p.kernels.len(), 1);
    futhark_ir::check_program(p).expect("the checker accepts it");
}

#[cfg(feature = "cuda")]
#[test]
fn reductions_as_stages_compute_what_the_kernels_do() {
    if let Some(why) = no_emulator() {
        eprintln!("skipped: {why}");
        return;
    }
    let ints = |seed: usize| {
        array(6, 150, "i32", move |i| {
            format!("{}", ((i + seed) * 7919 % 2001) as i64 - 1000)
        })
    };
    let small = |seed: usize| {
        array(6, 150, "i32", move |i| {
            format!("{}", ((i + seed) * 31 % 5) as i64 - 2)
        })
    };
    let cases = [
        ("centre", ints(0), futhark_options::IntraBlock::Runs),
        (
            "compose",
            format!("{} {}", small(1), ints(2)),
            futhark_options::IntraBlock::Every,
        ),
        ("scan_map", ints(3), futhark_options::IntraBlock::Every),
    ];
    for (entry, input, intra) in cases {
        let values = futhark_values::read_values(input.as_bytes()).expect("parses");
        // 32 threads: 5 elements each; 64: 3 each, the last threads idle; 256: most idle.
        let setup = emulator::Setup {
            blocks: vec![32, 64, 256],
            grid: 4,
            checks: 2,
            intra,
        };
        let r = emulator::emulate("intra.fut", SRC, entry, values, &setup).expect("compiles");
        assert!(r.failed.is_none(), "{entry}: {:?}", r.failed);
        assert!(
            r.programs > 0 && r.compared > 0,
            "{entry}: nothing compared"
        );
        assert_eq!(r.mismatches, 0, "{entry}: worst relative error {}", r.worst);
    }
}

#[test]
fn scratch_rows_read_back_by_the_same_point_are_forwarded() {
    let ks = kernel_programs("carry");
    let p = the_intra_program(&ks);
    assert_eq!(p.kernels.len(), 3, "{p:#?}");
    // No kernel writes an array itself, and no scratch array is left.
    for k in &p.kernels {
        let mut writes = 0;
        k.op.body().walk(&mut |_| {}, &mut |_| writes += 1);
        assert_eq!(writes, 0, "{p:#?}");
    }
    assert_eq!(p.intra.as_ref().unwrap().locals.len(), 3, "{p:#?}");
    agree_values(
        "carry",
        SRC,
        "carry",
        "[[258i32, 513i32, 7i32], [-1i32, 256i32, 1000i32]]",
        "[[3i32, 4i32, 10i32], [254i32, 0i32, 235i32]]",
    );
}
