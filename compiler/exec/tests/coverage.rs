//! Constructs that once did not compile for the GPU path, each run on the interpreter and
//! on the CPU executor (the GPU path's twin), which must agree on values and on run-time
//! errors (message and location).

#[path = "support/agree.rs"]
mod agree;
use agree::{agree_error, agree_values};

const FLAT_INDEX: &str = "
entry main (xs: []i64) (off: i64) (n1: i64) (s1: i64) (n2: i64) (s2: i64) =
  intrinsics.flat_index_2d xs off n1 s1 n2 s2
entry three (xs: []f32) =
  intrinsics.flat_index_3d xs 1 2 4 2 2 2 1
";

#[test]
fn flat_index_reads_a_strided_view() {
    let xs = "[0i64, 1i64, 2i64, 3i64, 4i64, 5i64, 6i64, 7i64, 8i64, 9i64]";
    agree_values(
        "flat_index",
        FLAT_INDEX,
        "main",
        &format!("{xs} 1i64 2i64 4i64 3i64 1i64"),
        "[[1i64, 2i64, 3i64], [5i64, 6i64, 7i64]]",
    );
    agree_values(
        "flat_index3",
        FLAT_INDEX,
        "three",
        "[0f32, 1f32, 2f32, 3f32, 4f32, 5f32, 6f32, 7f32, 8f32, 9f32, 10f32]",
        "[[[1f32, 2f32], [3f32, 4f32]], [[5f32, 6f32], [7f32, 8f32]]]",
    );
}

#[test]
fn flat_index_out_of_bounds_fails_as_the_interpreter_does() {
    let xs = "[0i64, 1i64, 2i64, 3i64, 4i64, 5i64, 6i64, 7i64, 8i64, 9i64]";
    agree_error(
        "flat_index_oob",
        FLAT_INDEX,
        "main",
        &format!("{xs} 2i64 3i64 4i64 3i64 1i64"),
        "Flat index 10 out of bounds for array of length 10.",
    );
}

const FLAT_UPDATE: &str = "
entry main (xs: *[]i64) (off: i64) (s1: i64) (s2: i64) (vs: [][]i64) =
  intrinsics.flat_update_2d xs off s1 s2 vs
entry four (xs: *[]i32) (vs: [][][][]i32) =
  intrinsics.flat_update_4d xs 0 8 4 2 1 vs
";

#[test]
fn flat_update_writes_a_strided_view() {
    let xs = "[0i64, 1i64, 2i64, 3i64, 4i64, 5i64, 6i64, 7i64, 8i64, 9i64]";
    agree_values(
        "flat_update",
        FLAT_UPDATE,
        "main",
        &format!("{xs} 1i64 5i64 2i64 [[10i64, 20i64], [30i64, 40i64]]"),
        "[0i64, 10i64, 2i64, 20i64, 4i64, 5i64, 30i64, 7i64, 40i64, 9i64]",
    );
    agree_values(
        "flat_update4",
        FLAT_UPDATE,
        "four",
        "[0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32] [[[[1i32, 2i32]], [[3i32, 4i32]]]]",
        "[1i32, 2i32, 0i32, 0i32, 3i32, 4i32, 0i32, 0i32, 0i32, 0i32]",
    );
}

#[test]
fn flat_update_out_of_bounds_fails_as_the_interpreter_does() {
    let xs = "[0i64, 1i64, 2i64, 3i64, 4i64, 5i64, 6i64, 7i64, 8i64, 9i64]";
    agree_error(
        "flat_update_oob",
        FLAT_UPDATE,
        "main",
        &format!("{xs} 3i64 5i64 2i64 [[10i64, 20i64], [30i64, 40i64]]"),
        "Flat index 10 out of bounds for array of length 10.",
    );
}

const ARRAY_EQ: &str = "
entry main (xss: [][]f32) (yss: [][]f32) = (xss == yss, xss != yss)
entry records (xs: []i32) (ys: []i32) = zip xs ys == zip ys xs
";

#[test]
fn array_equality_compares_shapes_then_elements() {
    agree_values(
        "eq_same",
        ARRAY_EQ,
        "main",
        "[[1f32, 2f32], [3f32, 4f32]] [[1f32, 2f32], [3f32, 4f32]]",
        "true false",
    );
    agree_values(
        "eq_elem",
        ARRAY_EQ,
        "main",
        "[[1f32, 2f32], [3f32, 4f32]] [[1f32, 2f32], [3f32, 5f32]]",
        "false true",
    );
    agree_values(
        "eq_nan",
        ARRAY_EQ,
        "main",
        "[[f32.nan]] [[f32.nan]]",
        "false true",
    );
    agree_values(
        "eq_empty",
        ARRAY_EQ,
        "main",
        "empty([0][2]f32) empty([0][2]f32)",
        "true false",
    );
    agree_values("eq_records", ARRAY_EQ, "records", "[1, 2] [1, 2]", "true");
    agree_values(
        "eq_records_differ",
        ARRAY_EQ,
        "records",
        "[1, 2] [2, 1]",
        "false",
    );
}

const HOLES: &str = "
entry main (x: i64) : [x]i32 = if x > 2 then ??? else replicate x 7
entry inner (xs: []i32) = map (\\x -> if x < 0 then ??? else x + 1) xs
";

#[test]
fn holes_fail_only_when_reached() {
    agree_values("hole_skipped", HOLES, "main", "2i64", "[7, 7]");
    agree_error("hole_reached", HOLES, "main", "3i64", "Reached a hole at ");
    agree_values("hole_in_map_skipped", HOLES, "inner", "[1, 2]", "[2, 3]");
    agree_error(
        "hole_in_map",
        HOLES,
        "inner",
        "[1, -2]",
        "Reached a hole at ",
    );
}

const THREAD_SIZES: &str = "
entry main (ns: []i64) (is: []i64) =
  map2 (\\n i -> let xs = opaque (scan (+) 0 (iota (n + 1))) in xs[i]) ns is
entry rows (ns: []i64) =
  map (\\n -> let yss = opaque (map (\\i -> map (+ i) (iota n)) (iota 3))
             in i64.sum (map i64.sum yss)) ns
entry nested (nss: [][]i64) =
  map (\\ns -> map (\\n -> let ys = opaque (scan (+) 0 (iota (n + 1))) in ys[n]) ns) nss
";

#[test]
fn arrays_sized_by_their_thread_are_stored_at_a_bound() {
    agree_values(
        "thread_sizes",
        THREAD_SIZES,
        "main",
        "[0i64, 3i64, 1i64, 5i64] [0i64, 2i64, 1i64, 5i64]",
        "[0i64, 3i64, 1i64, 15i64]",
    );
    agree_values(
        "thread_rows",
        THREAD_SIZES,
        "rows",
        "[0i64, 2i64, 4i64]",
        "[0i64, 9i64, 30i64]",
    );
    agree_values(
        "thread_sizes_empty",
        THREAD_SIZES,
        "main",
        "empty([0]i64) empty([0]i64)",
        "empty([0]i64)",
    );
}

#[test]
fn indexing_past_a_thread_sized_array_fails_as_the_interpreter_does() {
    agree_error(
        "thread_sizes_oob",
        THREAD_SIZES,
        "main",
        "[0i64, 3i64, 1i64] [0i64, 4i64, 1i64]",
        "out of bounds",
    );
}

const THREAD_COERCION: &str = "
entry main [n] (is: [n]i64) (js: [n]i64) =
  map2 (\\i j -> reduce (+) 0 (iota 8 with [i:j] = iota 5)) is js
entry coerce [n] (is: [n]i64) (js: [n]i64) =
  map2 (\\i j -> let k = j - i in i64.sum (iota 5 :> [k]i64)) is js
";

#[test]
fn vectors_coerced_to_a_thread_computed_length() {
    agree_values(
        "thread_coerce",
        THREAD_COERCION,
        "main",
        "[0i64, 3i64] [5i64, 8i64]",
        "[28i64, 13i64]",
    );
    agree_values(
        "thread_coerce_ok",
        THREAD_COERCION,
        "coerce",
        "[0i64, 3i64] [5i64, 8i64]",
        "[10i64, 10i64]",
    );
    agree_error(
        "thread_coerce_bad",
        THREAD_COERCION,
        "coerce",
        "[0i64, 3i64] [5i64, 7i64]",
        "cannot match shape of type",
    );
}

const BRANCH_SIZES: &str = "
#[noinline]
def pick (x: i64) (y: i64) =
  match (x, y)
  case (0, 0) -> iota 5
  case (0, b) -> iota b
  case (a, 0) -> map (+ 1) (iota (a + 2))
  case (a, b) -> iota (a * b)
entry main (xs: []i64) (ys: []i64) (i: i64) =
  map2 (\\x y -> let zs = pick x y in (reduce (+) 0 zs, zs[i])) xs ys
";

#[test]
fn arrays_sized_by_a_branch_in_a_thread() {
    agree_values(
        "branch_sizes",
        BRANCH_SIZES,
        "main",
        "[0i64, 0i64, 2i64, 3i64] [0i64, 4i64, 0i64, 2i64] 1i64",
        "[10i64, 6i64, 10i64, 15i64] [1i64, 1i64, 2i64, 1i64]",
    );
    agree_error(
        "branch_sizes_oob",
        BRANCH_SIZES,
        "main",
        "[0i64, 0i64, 2i64] [0i64, 4i64, 0i64] 4i64",
        "out of bounds",
    );
}

const CALL_SIZES: &str = "
entry main [n] [m] (xss: [][n]i32) (yss: [][m]i32) (i: i64) (j: i64) =
  let css = map2 concat xss yss in (css, css[i, j])
";

#[test]
fn calls_whose_result_size_is_arithmetic_on_their_arguments() {
    agree_values(
        "call_sizes",
        CALL_SIZES,
        "main",
        "[[1, 2], [3, 4]] [[5], [6]] 1i64 2i64",
        "[[1, 2, 5], [3, 4, 6]] 6",
    );
    agree_error(
        "call_sizes_oob",
        CALL_SIZES,
        "main",
        "[[1, 2], [3, 4]] [[5], [6]] 1i64 3i64",
        "out of bounds",
    );
}

const VECTOR_HIST: &str = "
def argmax (x: f32, i: i64) (y: f32, j: i64) =
  if x == y then (x, i64.max i j) else if x > y then (x, i) else (y, j)
entry main [n] [m] (is: [n]i64) (vss: [n][m]f32) (dst: [3][m]f32) =
  reduce_by_index (copy dst) (map2 (+)) (replicate m 0) is vss
entry pairs [n] [k] (is: [n]i64) (vs: [n][k]f32) =
  let res = reduce_by_index (replicate 2 (replicate k (f32.lowest, -1)))
                            (map2 argmax)
                            (replicate k (f32.lowest, -1))
                            is
                            (map2 zip vs (map (replicate k) (iota n)))
  in unzip (map unzip res)
entry shifted [n] [m] (is: [n]i64) (vss: [n][m]f32) (dst: [3][m]f32) =
  let ws = map (\\vs -> map (\\j -> vs[j + 1]) (iota m)) vss
  in reduce_by_index (copy dst) (map2 (+)) (replicate m 0) is ws
";

#[test]
fn histograms_of_vectors_combine_lane_by_lane() {
    agree_values(
        "vector_hist",
        VECTOR_HIST,
        "main",
        "[0i64, 2i64, 0i64, 7i64] [[1f32, 2f32], [3f32, 4f32], [5f32, 6f32], [7f32, 8f32]] [[0f32, 0f32], [1f32, 1f32], [2f32, 2f32]]",
        "[[6f32, 8f32], [1f32, 1f32], [5f32, 6f32]]",
    );
    agree_values(
        "vector_hist_empty_rows",
        VECTOR_HIST,
        "main",
        "[0i64, 1i64] empty([2][0]f32) empty([3][0]f32)",
        "empty([3][0]f32)",
    );
    agree_values(
        "vector_hist_pairs",
        VECTOR_HIST,
        "pairs",
        "[1i64, 1i64, 0i64] [[1f32, 5f32], [3f32, 2f32], [4f32, 4f32]]",
        "[[4f32, 4f32], [3f32, 5f32]] [[2i64, 2i64], [1i64, 0i64]]",
    );
    agree_error(
        "vector_hist_oob",
        VECTOR_HIST,
        "shifted",
        "[0i64, 2i64] [[1f32, 2f32], [3f32, 4f32]] [[0f32, 0f32], [1f32, 1f32], [2f32, 2f32]]",
        "out of bounds",
    );
}

const SESSION20: &str = "
def dup (xs: []f64) = xs ++ xs
entry jvp_existential (xs: []f64) =
  map (\\i -> jvp dup xs (map (\\j -> f64.bool (i == j)) (indices xs))) (indices xs)
entry vjp_existential [n] (xs: [n]f64) =
  vjp dup xs (replicate (n + n) 1)

def concatmap [n] 'a 'b (f: a -> []b) (as: [n]a) : []b =
  loop acc = [] for a in as do acc ++ f a
entry result_type_param (xs: []i64) = concatmap iota xs

type opt 'a = #some a | #none
def nothing 'a : opt a = #none
entry polymorphic_constant (b: bool) (x: i32) : i32 =
  match (if b then #some x else nothing) case #some v -> v case #none -> -1

def rows (lgH: u32) : [i64.u32 (1u32 << lgH)]i64 = iota (i64.u32 (1u32 << lgH))
entry converted_size (m: i64) =
  let lgH = 2u32
  in replicate m (rows lgH) |> transpose |> flatten |> unflatten
";

/// A call with existential sizes under AD, a type parameter only the use's type fixes (of a
/// function and of a constant), and a size that converts a `u32` (all stopped compilation
/// before session 20).
#[test]
fn existential_sizes_type_parameters_and_converted_sizes() {
    agree_values(
        "jvp_existential",
        SESSION20,
        "jvp_existential",
        "[1f64, 2f64]",
        "[[1f64, 0f64, 1f64, 0f64], [0f64, 1f64, 0f64, 1f64]]",
    );
    agree_values(
        "vjp_existential",
        SESSION20,
        "vjp_existential",
        "[1f64, 2f64, 3f64]",
        "[2f64, 2f64, 2f64]",
    );
    agree_values(
        "result_type_param",
        SESSION20,
        "result_type_param",
        "[2i64, 0i64, 3i64]",
        "[0i64, 1i64, 0i64, 1i64, 2i64]",
    );
    for (args, want) in [("false 3", "-1i32"), ("true 3", "3i32")] {
        agree_values(
            "polymorphic_constant",
            SESSION20,
            "polymorphic_constant",
            args,
            want,
        );
    }
    agree_values(
        "converted_size",
        SESSION20,
        "converted_size",
        "2i64",
        "[[0i64, 0i64], [1i64, 1i64], [2i64, 2i64], [3i64, 3i64]]",
    );
}
