//! Vectorised evaluation against plain per-element evaluation: conditionals evaluated on all
//! lanes under masks, gathers that become views or clamp indices of lanes that do not count,
//! and division by a scalar, on the programs of the interpreter benchmark and their edges.

use futhark_interp::session::Session;

/// Runs `entry` on `input` with vectorisation on and off; both results (or error messages).
fn both(src: &str, entry: &str, input: &str) -> (Result<String, String>, Result<String, String>) {
    let mut db = futhark_db::Database::new();
    let file = db.set_file("main.fut", src);
    let checked = futhark_db::interp_program(&db, file);
    assert!(!checked.has_errors(), "{:?}", checked.diagnostics);
    let run = |vectorise: bool| {
        let mut s = Session::new(checked.program.clone(), Default::default())
            .unwrap_or_else(|e| panic!("{}", e.message));
        s.machine().vectorise = vectorise;
        let args = futhark_values::read_values(input.as_bytes()).map_err(|e| e.to_string())?;
        s.call_entry(entry, args)
            .map(|vs| {
                vs.iter()
                    .map(|v| v.to_string())
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .map_err(|e| e.message)
    };
    let fast = run(true);
    let slow = run(false);
    (fast, slow)
}

/// Both modes succeed with the same result, which is returned.
fn agree(src: &str, entry: &str, input: &str) -> String {
    let (fast, slow) = both(src, entry, input);
    assert_eq!(fast, slow, "vectorised vs scalar for {entry} {input}");
    fast.unwrap_or_else(|e| panic!("{entry}: {e}"))
}

const STENCILS: &str = r#"
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

const GRID: &str = "[[1f32, 2f32, 3f32, 4f32], [5f32, 6f32, 7f32, 8f32], \
                    [9f32, 10f32, 11f32, 12f32], [13f32, 14f32, 15f32, 16f32]]";

#[test]
fn stencils_agree_with_scalar_evaluation() {
    let s = agree(STENCILS, "stencil", GRID);
    assert!(
        s.starts_with("[[1f32, 2f32, 3f32, 4f32], [5f32, 6f32"),
        "{s}"
    );
    agree(STENCILS, "periodic", GRID);
    agree(STENCILS, "stencil", "[[1f32]]");
    agree(STENCILS, "periodic", "[[1f32, 2f32]]");
    agree(STENCILS, "stencil", "empty([0][3]f32)");
}

#[test]
fn masked_branches_may_index_out_of_bounds_in_lanes_that_do_not_take_them() {
    let src = r#"
entry shift (xs: []i32) : []i32 =
  map (\i -> if i > 0 then xs[i - 1] else 0) (indices xs)
entry both_ends (xs: []i32) : []i32 =
  let n = length xs
  in map (\i -> if i > 0 && i < n - 1 then xs[i - 1] + xs[i + 1] else xs[i]) (iota n)
entry nested (xs: []i32) : []i32 =
  let n = length xs
  in map (\i -> if i < n - 1 then (if i > 0 then xs[i - 1] * xs[i + 1] else xs[i + 1]) else -1)
         (iota n)
entry scattered (xs: []i32) (is: []i64) : []i32 =
  map (\i -> if i >= 0 && i < length xs then xs[i] else 7) is
"#;
    assert_eq!(
        agree(src, "shift", "[1, 2, 3, 4]"),
        "[0i32, 1i32, 2i32, 3i32]"
    );
    assert_eq!(
        agree(src, "both_ends", "[1, 2, 3, 4]"),
        "[1i32, 4i32, 6i32, 4i32]"
    );
    assert_eq!(
        agree(src, "nested", "[1, 2, 3, 4]"),
        "[2i32, 3i32, 8i32, -1i32]"
    );
    assert_eq!(
        agree(
            src,
            "scattered",
            "[10, 20, 30] [2i64, -5i64, 0i64, 3i64, 1i64]"
        ),
        "[30i32, 7i32, 10i32, 7i32, 20i32]"
    );
}

#[test]
fn errors_in_lanes_that_count_are_still_reported() {
    let src = r#"
entry oob (xs: []i32) : []i32 = map (\i -> if i > 1 then xs[i + 1] else 0) (indices xs)
entry div (xs: []i32) : []i32 = map (\x -> if x > -5 then 10 / x else 0) xs
entry asserted (xs: []i32) : []i32 = map (\x -> if x > 0 then assert (x < 3) x else 0) xs
"#;
    for (entry, input) in [
        ("oob", "[1, 2, 3]"),
        ("div", "[1, 0, 2]"),
        ("asserted", "[1, 5, -2]"),
    ] {
        let (fast, slow) = both(src, entry, input);
        assert!(fast.is_err(), "{entry}: {fast:?}");
        assert_eq!(fast, slow, "{entry}");
    }
    // The same branches are fine when the failing lanes do not take them.
    assert_eq!(agree(src, "div", "[1, -7, 2]"), "[10i32, 0i32, 5i32]");
    assert_eq!(agree(src, "asserted", "[1, 2, -9]"), "[1i32, 2i32, 0i32]");
}

#[test]
fn branches_of_records_and_rows_select_per_lane() {
    let src = r#"
entry pairs (xs: []i32) : ([]i32, []f32) =
  unzip (map (\x -> if x % 2 == 0 then (x, 1f32) else (-x, 2f32)) xs)
entry rows [n] (xss: [n][2]i32) : [n][2]i32 =
  map (\i -> if i % 2 == 0 then xss[i] else xss[n - 1 - i]) (iota n)
"#;
    assert_eq!(
        agree(src, "pairs", "[1, 2, 3]"),
        "[-1i32, 2i32, -3i32] [2f32, 1f32, 2f32]"
    );
    assert_eq!(
        agree(src, "rows", "[[1, 2], [3, 4], [5, 6]]"),
        "[[1i32, 2i32], [3i32, 4i32], [5i32, 6i32]]"
    );
}

#[test]
fn modulus_and_division_by_a_scalar_floor() {
    let src = r#"
entry wrap (xs: []i64) (d: i64) : ([]i64, []i64) = (map (\x -> x % d) xs, map (\x -> x / d) xs)
entry wrap32 (xs: []i32) (d: i32) : ([]i32, []i32) = (map (\x -> x % d) xs, map (\x -> x / d) xs)
entry rot (r: i64) (xs: []i32) : []i32 = rotate r xs
entry wrapidx (xs: []i32) (d: i64) : []i32 = map (\i -> xs[(i + 1) % d]) (indices xs)
"#;
    let inputs = [
        "[-7i64, -3i64, 0i64, 2i64, 3i64, 5i64] 3i64",
        "[-100i64, 99i64, 7i64] 3i64",
        "[-7i64, 5i64] -3i64",
        "[9223372036854775807i64, -9223372036854775808i64] 7i64",
    ];
    for input in inputs {
        agree(src, "wrap", input);
    }
    assert_eq!(
        agree(src, "wrap", inputs[0]),
        "[2i64, 0i64, 0i64, 2i64, 0i64, 2i64] [-3i64, -1i64, 0i64, 0i64, 1i64, 1i64]"
    );
    agree(src, "wrap32", "[-7i32, -3i32, 4i32] 3i32");
    let (fast, slow) = both(src, "wrap", "[1i64] 0i64");
    assert!(fast.is_err() && fast == slow, "{fast:?}");
    for r in ["-1i64", "1i64", "5i64", "-9i64", "0i64"] {
        agree(src, "rot", &format!("{r} [1, 2, 3, 4]"));
    }
    assert_eq!(
        agree(src, "rot", "1i64 [1, 2, 3, 4]"),
        "[2i32, 3i32, 4i32, 1i32]"
    );
    // Wrapped indices: a rotation of a prefix, or out of bounds when the modulus is too big.
    assert_eq!(
        agree(src, "wrapidx", "[1, 2, 3, 4] 2i64"),
        "[2i32, 1i32, 2i32, 1i32]"
    );
    let (fast, slow) = both(src, "wrapidx", "[1, 2, 3] 4i64");
    assert!(fast.is_err() && fast == slow, "{fast:?}");
}

#[test]
fn nested_maps_over_rows_agree_with_scalar_evaluation() {
    let src = r#"
entry add [n][m] (a: [n][m]f32) (b: [n][m]f32) : [n][m]f32 = map2 (map2 (+)) a b
entry mix [n][m] (a: [n][m]f32) : [n][m]f32 =
  map3 (map3 (\x y z -> x * y - z)) a (map (map (+ 1)) a) (map (rotate 1) a)
entry pairs [n][m] (a: [n][m]i32) : [n][m](i32, i32) = map (\r -> zip r (map (* 2) r)) a
"#;
    let grid = "[[1f32, 2f32, 3f32], [4f32, 5f32, 6f32]]";
    assert_eq!(
        agree(src, "add", &format!("{grid} {grid}")),
        "[[2f32, 4f32, 6f32], [8f32, 10f32, 12f32]]"
    );
    agree(src, "mix", grid);
    agree(src, "add", "empty([0][2]f32) empty([0][2]f32)");
    agree(src, "pairs", "[[1, 2], [3, 4]]");
}

#[test]
fn rows_of_a_per_element_map_are_collected_or_fail_alike() {
    let src = r#"
entry rows (xs: []i64) : [][]i64 = map (\n -> loop acc = [n, n] for i < 2 do acc with [i] = i) xs
entry divs (xs: []i64) : [][]i64 = map (\n -> loop acc = [n, 1] for i < 2 do acc with [i] = 10 / n) xs
entry empty_rows (xs: []i64) : [][0]i64 = map (\_ -> []) xs
"#;
    assert_eq!(
        agree(src, "rows", "[5i64, 6i64]"),
        "[[0i64, 1i64], [0i64, 1i64]]"
    );
    assert_eq!(
        agree(src, "divs", "[5i64, 2i64]"),
        "[[2i64, 2i64], [5i64, 5i64]]"
    );
    let (fast, slow) = both(src, "divs", "[5i64, 0i64]");
    assert!(fast.is_err(), "{fast:?}");
    assert_eq!(fast, slow);
    agree(src, "empty_rows", "[1i64, 2i64]");
}

#[test]
fn comparisons_of_mapped_iotas_with_scalars() {
    let src = r#"
entry cmps (n: i64) (k: i64) =
  unzip4 (map (\j -> let i = j + 3 in (i < k, i <= k, k < i, (k <= i, i == k, i != k, i > k, i >= k)))
              (iota n))
"#;
    for k in ["-3i64", "0i64", "4i64", "5i64", "9i64", "100i64"] {
        agree(src, "cmps", &format!("5i64 {k}"));
    }
    let s = agree(src, "cmps", "4i64 4i64");
    assert!(
        s.starts_with("[true, false, false, false] [true, true, false, false]"),
        "{s}"
    );
}

#[test]
fn nested_maps_capturing_lanes_agree_with_scalar_evaluation() {
    // Inner functions that capture the outer lane (`i`, `x`, a row): the inner map runs over
    // all elements of all lanes at once, with index arithmetic kept affine.
    let src = r#"
entry flat [n][m] (a: [n][m]i32) : [n][m]i32 =
  let f = flatten a
  in map (\i -> map (\j -> f[i * m + j] + i32.i64 (i - j)) (iota m)) (iota n)
entry transpose [n][m] (a: [n][m]i32) : [m][n]i32 =
  map (\j -> map (\i -> a[i, j]) (iota n)) (iota m)
entry outer (xs: []f32) (ys: []f32) : [][]f32 = map (\x -> map (\y -> x * y) ys) xs
entry rows [n][m] (a: [n][m]i32) : [n][m]i32 = map (\r -> map (\x -> x + r[0]) r) a
entry eye (n: i64) : [n][n]i32 =
  map (\i -> map (\j -> if i == j then 1 else if i < j then 2 else if j != 0 then 3 else 4)
                 (iota n))
      (iota n)
entry cube (n: i64) : [n][4][3]i64 =
  map (\i -> map (\j -> map (\k -> i * 100 + j * 10 + k) (iota 3)) (iota 4)) (iota n)
entry pairs [n][m] (a: [n][m]i32) (b: [n][m]i32) : [n][m]i32 =
  map (\i -> map2 (\x y -> x * y + i32.i64 i) a[i] b[i]) (iota n)
entry shifted [n][m] (a: [n][m]i32) : [n][m]i32 =
  map (\i -> map (\j -> if j > 0 && i < n - 1 then a[i + 1, j - 1] else -1) (iota m)) (iota n)
entry down [n][m] (a: [n][m]i32) : [n][m]i32 =
  map (\i -> map (\j -> a[i + 1, j]) (iota m)) (iota n)
entry guarded [n][m] (a: [n][m]i32) : [n][m]i32 =
  map (\i -> map (\j -> if a[i, j] > 0 then assert (j < m - 1) a[i, j + 1] else 0) (iota m))
      (iota n)
"#;
    let grid = "[[1, 2, 3], [4, 5, 6], [7, 8, 9], [10, 11, 12]]";
    assert_eq!(
        agree(src, "flat", grid),
        "[[1i32, 1i32, 1i32], [5i32, 5i32, 5i32], [9i32, 9i32, 9i32], [13i32, 13i32, 13i32]]"
    );
    assert_eq!(
        agree(src, "transpose", grid),
        "[[1i32, 4i32, 7i32, 10i32], [2i32, 5i32, 8i32, 11i32], [3i32, 6i32, 9i32, 12i32]]"
    );
    assert_eq!(
        agree(src, "outer", "[1f32, 2f32] [3f32, 4f32, 5f32]"),
        "[[3f32, 4f32, 5f32], [6f32, 8f32, 10f32]]"
    );
    assert_eq!(
        agree(src, "rows", grid),
        "[[2i32, 3i32, 4i32], [8i32, 9i32, 10i32], [14i32, 15i32, 16i32], [20i32, 21i32, 22i32]]"
    );
    assert_eq!(
        agree(src, "eye", "3i64"),
        "[[1i32, 2i32, 2i32], [4i32, 1i32, 2i32], [4i32, 3i32, 1i32]]"
    );
    let cube = agree(src, "cube", "2i64");
    assert!(cube.ends_with("[130i64, 131i64, 132i64]]]"), "{cube}");
    assert_eq!(
        agree(src, "pairs", &format!("{grid} {grid}")),
        "[[1i32, 4i32, 9i32], [17i32, 26i32, 37i32], [51i32, 66i32, 83i32], [103i32, 124i32, 147i32]]"
    );
    assert_eq!(
        agree(src, "shifted", grid),
        "[[-1i32, 4i32, 5i32], [-1i32, 7i32, 8i32], [-1i32, 10i32, 11i32], [-1i32, -1i32, -1i32]]"
    );
    // Rows big enough to be evaluated in several blocks.
    let big: Vec<String> = (0..40)
        .map(|r| {
            let row: Vec<String> = (0..1000)
                .map(|c| format!("{}i32", (r * 7 + c) % 13))
                .collect();
            format!("[{}]", row.join(", "))
        })
        .collect();
    let big = format!("[{}]", big.join(", "));
    agree(src, "shifted", &big);
    agree(src, "transpose", &big);
    agree(src, "flat", &big);
    // Errors in lanes that count are reported as by per-element evaluation.
    for (entry, input) in [("down", grid), ("guarded", "[[1, 2], [0, 3]]")] {
        let (fast, slow) = both(src, entry, input);
        assert!(fast.is_err(), "{entry}: {fast:?}");
        assert_eq!(fast, slow, "{entry}");
    }
    assert_eq!(
        agree(src, "guarded", "[[1, -2], [0, -3]]"),
        "[[-2i32, 0i32], [0i32, 0i32]]"
    );
}

#[test]
fn nested_maps_capturing_rows_fall_back_per_row() {
    // The inner function captures a whole row per lane (`rotate`'s body indexes it), which
    // is not repeated per element; per-row evaluation gives the same results.
    let src = r#"
entry rot [n][m] (a: [n][m]i32) : [n][m]i32 = map (rotate (-1)) a
entry pick [n][m] (a: [n][m]i32) (is: [m]i64) : [n][m]i32 = map (\r -> map (\i -> r[i]) is) a
"#;
    let grid = "[[1, 2, 3], [4, 5, 6]]";
    assert_eq!(
        agree(src, "rot", grid),
        "[[3i32, 1i32, 2i32], [6i32, 4i32, 5i32]]"
    );
    assert_eq!(
        agree(src, "pick", &format!("{grid} [2i64, 0i64, 0i64]")),
        "[[3i32, 1i32, 1i32], [6i32, 4i32, 4i32]]"
    );
    let (fast, slow) = both(src, "pick", &format!("{grid} [2i64, 3i64, 0i64]"));
    assert!(fast.is_err(), "{fast:?}");
    assert_eq!(fast, slow);
}
