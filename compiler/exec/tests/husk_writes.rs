//! Kernels whose map bodies write arrays themselves — a thread's array result written into
//! its output rows, thread-private arrays kept in scratch storage — split over devices
//! (`futhark_ir::husk`: row-written outputs are partitioned, scratch is private to each
//! device). Checked end to end on simulated CPU devices against values worked out by hand.

use futhark_exec::{Backend, Executor};
use futhark_ir::soacs::Program;
use futhark_values::{Value, compare_values};

mod support;
use support::{compile, open_cpu, split_always, values};

/// Runs `main` split over `devices` simulated devices; the results and the `--profile` lines
/// saying what became of each kernel.
fn run_split(prog: &Program, args: &str, devices: usize) -> (Vec<Value>, Vec<String>) {
    let multi = open_cpu(devices, &split_always());
    let mut exec = Executor::new(prog.clone(), multi).unwrap();
    let out = exec.call_entry("main", values(args)).unwrap();
    let husks = exec
        .backend()
        .profile()
        .unwrap()
        .into_iter()
        .map(|p| p.name)
        .filter(|n| n.starts_with("(husk)"))
        .collect();
    (out, husks)
}

/// Each thread updates its own copy of a row in place: the row lives in scratch storage and
/// is then written into the thread's row of the result.
const IN_PLACE: &str = "
entry main (xs: []i64) : [][]i64 =
  map (\\x -> loop acc = replicate 4 x for i < 3 do acc with [i] = acc[i] * 2 + i) xs
";

#[test]
fn a_map_writing_scratch_and_its_rows_splits_and_keeps_its_values() {
    let prog = compile("in_place", IN_PLACE);
    // Row of x: [2x, 2x + 1, 2x + 2, x].
    let cases = [
        (
            "[1i64, 2i64, 3i64, 4i64, 5i64]",
            "[[2i64, 3i64, 4i64, 1i64], [4i64, 5i64, 6i64, 2i64], [6i64, 7i64, 8i64, 3i64],
              [8i64, 9i64, 10i64, 4i64], [10i64, 11i64, 12i64, 5i64]]",
        ),
        (
            "[7i64, 0i64]",
            "[[14i64, 15i64, 16i64, 7i64], [0i64, 1i64, 2i64, 0i64]]",
        ),
    ];
    for (args, want) in cases {
        for devices in 1..=4 {
            let (got, husks) = run_split(&prog, args, devices);
            compare_values(&values(want), &got)
                .unwrap_or_else(|e| panic!("{args} over {devices} devices: {e}"));
            if devices > 1 {
                assert!(
                    husks.iter().any(|h| h.contains("split over")),
                    "{args}: no kernel was split: {husks:?}\n{prog}"
                );
                assert!(
                    !husks.iter().any(|h| h.contains("writes arrays")),
                    "{args}: {husks:?}"
                );
            }
        }
    }
}

/// A stencil along each row: every point reads its left neighbour in its own row, at the
/// flattened index `i·m + (j − 1)`, which a piece can read from its own rows.
const ROW_STENCIL: &str = "
entry main (xss: [][]i64) : [][]i64 =
  map (\\row -> map (\\j -> row[j] * 10 + (if j > 0 then row[j - 1] else 0)) (indices row)) xss
";

#[test]
fn row_local_reads_take_only_the_pieces_rows() {
    let prog = compile("row_stencil", ROW_STENCIL);
    // Over the 1 KiB below which uploads go to every device from the host.
    let n = 30i64;
    let m = 8i64;
    let rows: Vec<Vec<i64>> = (0..n)
        .map(|i| (0..m).map(|j| i * m + j).collect())
        .collect();
    let text = |xss: &[Vec<i64>]| {
        let rows: Vec<String> = xss
            .iter()
            .map(|r| {
                let r: Vec<String> = r.iter().map(|x| format!("{x}i64")).collect();
                format!("[{}]", r.join(", "))
            })
            .collect();
        format!("[{}]", rows.join(", "))
    };
    let want: Vec<Vec<i64>> = rows
        .iter()
        .map(|r| {
            (0..r.len())
                .map(|j| r[j] * 10 + if j > 0 { r[j - 1] } else { 0 })
                .collect()
        })
        .collect();
    let bytes = (n * m * 8) as u64;
    for devices in 1..=4 {
        let multi = open_cpu(devices, &split_always());
        let mut exec = Executor::new(prog.clone(), multi).unwrap();
        let got = exec.call_entry("main", values(&text(&rows))).unwrap();
        compare_values(&values(&text(&want)), &got)
            .unwrap_or_else(|e| panic!("over {devices} devices: {e}"));
        if devices > 1 {
            let profile = exec.backend().profile().unwrap();
            let husks: Vec<_> = profile
                .iter()
                .filter(|p| p.name.starts_with("(husk)"))
                .collect();
            assert!(
                husks.iter().all(|h| h.name.contains("split over")),
                "{husks:?}\n{prog}"
            );
            // Partitioning the whole input moves what the other devices own; a broadcast
            // (the input read at any index) would move all of it to each of them.
            let moved: u64 = husks.iter().map(|h| h.bytes).sum();
            assert!(moved < bytes, "{moved} bytes moved over {devices} devices");
        }
    }
}

/// A map whose threads each loop over their row three times: computing a row into scratch,
/// copying it into the first output, copying an input row into the second
/// (`futhark_opt::promote_loops` makes the row a dimension of the space).
const ROW_LOOPS: &str = "
entry main [n][m] (xss: [n][m]i64) (ys: [m]i64) : ([n][m]i64, [n][m]i64) =
  unzip (map (\\xs ->
    let row = map (\\j -> xs[j] * 2 + (if j > 0 then xs[j - 1] else 0)) (iota m)
    in (row, ys)) xss)
";

#[test]
fn promoted_row_loops_keep_their_values_whole_and_split() {
    // Kernel extraction promotes (unless FUTHARK_PROMOTE_LOOPS=0); promoting again changes
    // nothing.
    let prog = compile("row_loops", ROW_LOOPS);
    let promoted = |p: &Program| {
        p.kernels.iter().any(|k| {
            k.program.kernels[0]
                .op
                .space()
                .dims
                .iter()
                .any(|(d, _)| d.ends_with("_promoted"))
        })
    };
    assert!(promoted(&prog), "no kernel was promoted:\n{prog}");
    let mut again = prog.clone();
    futhark_opt::promote_program_loops(&mut again);
    assert_eq!(again, prog);
    let args = "[[1i64, 2i64, 3i64], [4i64, 5i64, 6i64], [7i64, 8i64, 9i64], [1i64, 0i64, 1i64]]
                [10i64, 20i64, 30i64]";
    let want = "[[2i64, 5i64, 8i64], [8i64, 14i64, 17i64], [14i64, 23i64, 26i64], [2i64, 1i64, 2i64]]
                [[10i64, 20i64, 30i64], [10i64, 20i64, 30i64], [10i64, 20i64, 30i64], [10i64, 20i64, 30i64]]";
    // A loop that updates the thread's row in place carries state from one step to the
    // next: it stays a loop.
    let mut in_place = compile("in_place_kept", IN_PLACE);
    let kept = in_place.clone();
    futhark_opt::promote_program_loops(&mut in_place);
    assert_eq!(in_place.kernels, kept.kernels);
    for devices in 1..=3 {
        let (got, husks) = run_split(&prog, args, devices);
        compare_values(&values(want), &got)
            .unwrap_or_else(|e| panic!("over {devices} devices: {e}\n{prog}"));
        if devices > 1 {
            assert!(husks.iter().all(|h| h.contains("split over")), "{husks:?}");
        }
    }
}

/// Row loops of two different bounds (`m` and `k`): the promoted dimension spans the larger
/// and each loop is skipped past its own bound; the launch passes that extent.
const TWO_BOUNDS: &str = "
entry main [n][m][k] (xss: [n][m]i64) (ys: [k]i64) : ([n][m]i64, [n][k]i64) =
  unzip (map (\\xs ->
    let row = map (\\j -> xs[j] * 2 + (if j > 0 then xs[j - 1] else 0)) (iota m)
    in (row, ys)) xss)
";

#[test]
fn row_loops_of_different_bounds_promote_to_the_larger() {
    let prog = compile("two_bounds", TWO_BOUNDS);
    assert!(
        prog.kernels
            .iter()
            .any(|k| k.program.sizes.iter().any(|s| s.ends_with("_extent"))),
        "no kernel gained an extent:\n{prog}"
    );
    let mut again = prog.clone();
    futhark_opt::promote_program_loops(&mut again);
    assert_eq!(again, prog);
    let xss = "[[1i64, 2i64, 3i64], [4i64, 5i64, 6i64]]";
    let row = "[[2i64, 5i64, 8i64], [8i64, 14i64, 17i64]]";
    // k below, above and equal to m, and empty.
    for (ys, want_ys) in [
        ("[10i64, 20i64]", "[[10i64, 20i64], [10i64, 20i64]]"),
        (
            "[10i64, 20i64, 30i64, 40i64, 50i64]",
            "[[10i64, 20i64, 30i64, 40i64, 50i64], [10i64, 20i64, 30i64, 40i64, 50i64]]",
        ),
        (
            "[7i64, 8i64, 9i64]",
            "[[7i64, 8i64, 9i64], [7i64, 8i64, 9i64]]",
        ),
        ("empty([0]i64)", "empty([2][0]i64)"),
    ] {
        let args = format!("{xss} {ys}");
        let want = format!("{row} {want_ys}");
        for devices in 1..=3 {
            let (got, _) = run_split(&prog, &args, devices);
            compare_values(&values(&want), &got)
                .unwrap_or_else(|e| panic!("ys = {ys}, over {devices} devices: {e}\n{prog}"));
        }
    }
    // m empty and k not: the extent is still k (rows of no elements split too).
    let (got, _) = run_split(&prog, "empty([2][0]i64) [1i64, 2i64]", 2);
    compare_values(
        &values("empty([2][0]i64) [[1i64, 2i64], [1i64, 2i64]]"),
        &got,
    )
    .unwrap_or_else(|e| panic!("m = 0: {e}\n{prog}"));
}
