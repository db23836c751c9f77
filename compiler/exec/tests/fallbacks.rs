//! Issue 25, part 2: the accumulator streams (`scatter_stream`, `hist_stream`), `flatmap`,
//! and SOACs whose threads would hold arrays of thread-computed size or loop without a
//! counter (run as host loops over their elements), each run on the interpreter and on the
//! CPU executor (the GPU path's twin), which must agree on values and run-time errors.

#[path = "support/agree.rs"]
mod agree;
use agree::{agree_error, agree_values};
// Only `compile` is used here.
#[allow(dead_code)]
mod support;

const STREAMS: &str = "
type~ acc 't = intrinsics.acc t

def write [n] 't (acc: *acc ([n]t)) (i: i64) (v: t) : *acc ([n]t) =
  intrinsics.acc_write acc i v

def scatter_twice (acc: *acc ([]i32)) (i: i64) : *acc ([]i32) =
  let acc = write acc (i * 2) (i32.i64 i)
  in write acc (i * 2 + 1) (i32.i64 i + 100)

def scatter_from (acc: *acc ([]i32)) (i: i64) : *acc ([]i32) =
  loop acc for j < i do write acc (j + i) (i32.i64 j)

def put 't (acc: *acc ([]t)) (i: i64, v: t) : *acc ([]t) =
  write acc i v

entry scatter (xs: *[]i32) (n: i64) =
  intrinsics.scatter_stream xs scatter_twice (iota n)

entry scatter_loop (xs: *[]i32) (is: []i64) =
  intrinsics.scatter_stream xs scatter_from is

entry hist (xs: *[]i32) (is: []i64) (vs: []i32) =
  intrinsics.hist_stream xs (+) 0 put (zip is vs)

entry both (xs: []f32) (is: []i64) (vs: []f32) =
  let a = intrinsics.hist_stream (copy xs) f32.max f32.lowest put (zip is vs)
  let b = intrinsics.scatter_stream (copy xs) put (zip is vs)
  in (a, b)

entry per_row (n: i64) (m: i64) (k: i64) =
  tabulate n (\\i -> intrinsics.scatter_stream (replicate m (i32.i64 i)) scatter_twice (iota k))
";

#[test]
fn scatter_stream_writes_in_order_and_skips_out_of_range() {
    agree_values(
        "scatter_stream",
        STREAMS,
        "scatter",
        "[0, 0, 0, 0, 0, 0, 0] 5i64",
        "[0, 100, 1, 101, 2, 102, 3]",
    );
    agree_values(
        "scatter_stream_loop",
        STREAMS,
        "scatter_loop",
        "[0, 0, 0, 0, 0, 0] [3i64, 1i64, -2i64, 4i64]",
        "[0, 0, 0, 0, 0, 1]",
    );
}

#[test]
fn hist_stream_combines_with_its_operator() {
    agree_values(
        "hist_stream",
        STREAMS,
        "hist",
        "[1, 1, 1] [0i64, 2i64, 5i64, 0i64, -1i64] [10, 20, 30, 40, 50]",
        "[51, 1, 21]",
    );
    // The same helper writes into a histogram and into a scatter's destination.
    agree_values(
        "hist_and_scatter",
        STREAMS,
        "both",
        "[0f32, 0f32] [1i64, 1i64, 0i64] [-1f32, 3f32, 2f32]",
        "[2f32, 3f32] [2f32, 3f32]",
    );
}

#[test]
fn a_stream_inside_a_map_runs_per_row() {
    agree_values(
        "stream_per_row",
        STREAMS,
        "per_row",
        "3i64 4i64 3i64",
        "[[0, 100, 1, 101], [0, 100, 1, 101], [0, 100, 1, 101]]",
    );
}

const FLATMAP: &str = "
entry segs (ks: []i64) (xs: []i32) =
  flatmap (\\(k, x) -> (replicate k x, x * 2)) (zip ks xs)

entry rows (ks: []i64) (xs: []i32) =
  let (lens, flags, offs, elems, _) =
    flatmap (\\(k, x) -> (replicate k [x, x + 1], ())) (zip ks xs)
  in (lens, flags, offs, elems)

entry nested (kss: [][]i64) =
  map (\\ks -> let (_, _, _, e, _) = flatmap (\\k -> (iota k, k)) ks in i64.sum e) kss

entry failing (ks: []i64) (xs: []i32) =
  flatmap (\\(k, x) -> (replicate k (xs[k]), x)) (zip ks xs)
";

#[test]
fn flatmap_gives_segments_and_their_metadata() {
    agree_values(
        "flatmap",
        FLATMAP,
        "segs",
        "[0i64, 2i64, 0i64, 3i64, 1i64, 0i64] [5, 10, 15, 20, 30, 40]",
        "[0i64, 2i64, 0i64, 3i64, 1i64, 0i64] [true, false, true, false, false, true] \
         [0i64, 0i64, 2i64, 2i64, 5i64, 6i64] [10, 10, 20, 20, 20, 30] [10, 20, 30, 40, 60, 80]",
    );
    agree_values(
        "flatmap_rows",
        FLATMAP,
        "rows",
        "[1i64, 2i64] [1, 5]",
        "[1i64, 2i64] [true, true, false] [0i64, 1i64] [[1, 2], [5, 6], [5, 6]]",
    );
}

#[test]
fn flatmap_inside_a_map_and_its_errors() {
    agree_values(
        "flatmap_nested",
        FLATMAP,
        "nested",
        "[[1i64, 3i64], [0i64, 4i64]]",
        "[3i64, 6i64]",
    );
    agree_error(
        "flatmap_error",
        FLATMAP,
        "failing",
        "[1i64, 7i64] [1, 2]",
        "out of bounds",
    );
}

const HOST_LOOPS: &str = "
entry grow (ns: []i64) =
  map (\\n -> let xs = loop xs = [] while length xs < n do xs ++ [length xs * 2]
             in i64.sum xs) ns

entry hailstone (xs: []i64) =
  map (\\x -> (loop (x, c) = (x, 0i64) while x != 1 do
                 if x % 2 == 0 then (x / 2, c + 1) else (3 * x + 1, c + 1)).1) xs

entry grow_bad (ns: []i64) (ys: []i64) =
  map (\\n -> let xs = loop xs = [] while length xs < n do xs ++ [ys[length xs]]
             in i64.sum xs) ns

entry prefix_rows (ns: []i64) =
  map (\\n -> let xs = loop xs = [0i64] for i < n do xs ++ [i] in (length xs, xs[length xs - 1])) ns
";

#[test]
fn maps_whose_threads_grow_arrays_or_loop_unbounded_run_as_host_loops() {
    agree_values(
        "grow",
        HOST_LOOPS,
        "grow",
        "[0i64, 1i64, 4i64]",
        "[0i64, 0i64, 12i64]",
    );
    agree_values(
        "hailstone",
        HOST_LOOPS,
        "hailstone",
        "[1i64, 6i64, 27i64]",
        "[0i64, 8i64, 111i64]",
    );
    agree_values(
        "prefix_rows",
        HOST_LOOPS,
        "prefix_rows",
        "[0i64, 3i64]",
        "[1i64, 4i64] [0i64, 2i64]",
    );
    agree_error(
        "grow_bad",
        HOST_LOOPS,
        "grow_bad",
        "[1i64, 3i64] [5i64, 6i64]",
        "out of bounds",
    );
}

/// The slow paths `program` compiles to, as the faces print them.
fn slow_paths(name: &str, program: &str) -> Vec<String> {
    let prog = support::compile(name, program);
    prog.slow_paths.iter().map(ToString::to_string).collect()
}

#[test]
fn host_loop_fallbacks_are_reported_with_their_source_location() {
    let notes = slow_paths("hostloops", HOST_LOOPS);
    // One per entry's `map`: grow (line 3), hailstone (7), grow_bad (11), prefix_rows (15).
    assert_eq!(notes.len(), 4, "{notes:#?}");
    for line in [3, 7, 11, 15] {
        let at = format!("hostloops.fut:{line}:");
        assert!(
            notes
                .iter()
                .any(|n| n.starts_with("`map` at ") && n.contains(&at)),
            "no slow path at line {line}: {notes:#?}"
        );
    }
    assert!(
        notes
            .iter()
            .all(|n| n.contains("sequential loop on the host"))
    );
    // A map that flattens into kernels is no slow path.
    let fast = slow_paths(
        "fast",
        "entry f (xs: []i64) = map (\\x -> x * 2) xs |> i64.sum",
    );
    assert!(fast.is_empty(), "{fast:#?}");
}

const ROW_SIZES: &str = "
entry concat_rows [n] [a] [b] (xss: [n][a]i64) (yss: [n][b]i64) =
  map2 (\\xs ys -> opaque (concat xs ys)) xss yss

entry halves (xs: []i64) (k: i64) =
  map (\\x -> replicate (k / 2) x) xs
";

#[test]
fn maps_whose_rows_size_themselves_take_the_first_rows_sizes() {
    agree_values(
        "concat_rows",
        ROW_SIZES,
        "concat_rows",
        "[[1i64], [2i64]] [[3i64, 4i64], [5i64, 6i64]]",
        "[[1i64, 3i64, 4i64], [2i64, 5i64, 6i64]]",
    );
    agree_values(
        "halves",
        ROW_SIZES,
        "halves",
        "[7i64, 8i64] 5i64",
        "[[7i64, 7i64], [8i64, 8i64]]",
    );
}
