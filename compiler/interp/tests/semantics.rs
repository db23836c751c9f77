//! The semantic pitfalls of LANGUAGE.md §3 and §7, checked end to end through the type
//! checker and the interpreter.

mod common;
use common::{load, run};

fn ok(src: &str, entry: &str, input: &str) -> String {
    run(src, entry, input).unwrap_or_else(|e| panic!("{e}"))
}

fn fails(src: &str, entry: &str, input: &str) -> String {
    match run(src, entry, input) {
        Ok(v) => panic!("expected an error, got {v}"),
        Err(e) => e,
    }
}

const DIVISION: &str = "entry main (a: i32) (b: i32) = (a / b, a % b, a // b, a %% b)";

#[test]
fn division_floors_and_quotient_truncates() {
    assert_eq!(ok(DIVISION, "main", "-7 2"), "-4i32 1i32 -3i32 -1i32");
    assert_eq!(ok(DIVISION, "main", "7 -2"), "-4i32 -1i32 -3i32 1i32");
    assert_eq!(
        ok(DIVISION, "main", "-2147483648 -1"),
        "-2147483648i32 0i32 -2147483648i32 0i32"
    );
}

#[test]
fn division_by_zero_is_an_error() {
    assert!(fails(DIVISION, "main", "1 0").contains("division by zero"));
}

#[test]
fn arithmetic_wraps() {
    let src = "entry main (x: u8) (y: i8) (z: i32) = (x + 1, y * 2, z ** 31, -y)";
    assert_eq!(
        ok(src, "main", "255u8 64i8 2"),
        "0u8 -128i8 -2147483648i32 -64i8"
    );
    let neg = "entry main (y: i8) = -y";
    assert_eq!(ok(neg, "main", "-128i8"), "-128i8");
}

#[test]
fn negative_exponent_is_an_error() {
    let src = "entry main (x: i32) (y: i32) = x ** y";
    assert!(fails(src, "main", "2 -1").contains("Negative exponent"));
}

#[test]
fn shifts_depend_on_signedness() {
    let src = "entry main (a: i32) (b: u8) (c: i64) = (a >> 1, b >> 1, c << 62, b u8.>>> 1)";
    assert_eq!(
        ok(src, "main", "-8 128u8 3i64"),
        "-4i32 64u8 -4611686018427387904i64 64u8"
    );
}

#[test]
fn float_modulus_floors_in_the_interpreter() {
    let src = "entry main (x: f64) (y: f64) = x % y";
    assert_eq!(ok(src, "main", "-7.5f64 2f64"), "0.5f64");
}

const SLICES: &str = "
entry rev (xs: []i32) = xs[::-1]
entry down (xs: []i32) = xs[4:1:-1]
entry every_other (xs: []i32) = xs[1::2]
entry cut (xs: []i32) (i: i64) (j: i64) = xs[i:j]
";

#[test]
fn slices_with_strides() {
    let xs = "[0, 1, 2, 3, 4, 5]";
    assert_eq!(
        ok(SLICES, "rev", xs),
        "[5i32, 4i32, 3i32, 2i32, 1i32, 0i32]"
    );
    assert_eq!(ok(SLICES, "down", xs), "[4i32, 3i32, 2i32]");
    assert_eq!(ok(SLICES, "every_other", xs), "[1i32, 3i32, 5i32]");
    assert_eq!(
        ok(SLICES, "cut", &format!("{xs} 2i64 2i64")),
        "empty([0]i32)"
    );
    assert!(fails(SLICES, "cut", &format!("{xs} 4i64 2i64")).contains("out of bounds"));
    assert!(fails(SLICES, "cut", &format!("{xs} 2i64 7i64")).contains("out of bounds"));
}

#[test]
fn index_out_of_bounds_message() {
    let src = "entry main (xs: []i32) (i: i64) = xs[i]";
    assert_eq!(
        fails(src, "main", "[1, 2, 3, 4, 5] 7i64"),
        "Index [7] out of bounds for array of shape [5]."
    );
}

const RANGES: &str = "
entry up (a: i32) (b: i32) (c: i32) = a..b...c
entry down (a: i32) (c: i32) = a..>c
entry below (a: i32) (c: i32) = a..<c
";

#[test]
fn ranges_with_steps_and_directions() {
    assert_eq!(ok(RANGES, "up", "1 3 9"), "[1i32, 3i32, 5i32, 7i32, 9i32]");
    assert_eq!(ok(RANGES, "up", "9 6 0"), "[9i32, 6i32, 3i32, 0i32]");
    assert_eq!(ok(RANGES, "down", "5 1"), "[5i32, 4i32, 3i32, 2i32]");
    assert_eq!(ok(RANGES, "below", "0 0"), "empty([0]i32)");
    assert!(fails(RANGES, "below", "5 3").contains("Range 5..<3 is invalid"));
    assert!(fails(RANGES, "up", "0 1 -2").contains("is invalid"));
}

#[test]
fn logical_operators_short_circuit() {
    let src = "entry main (xs: []i32) (i: i64) = (i < length xs && xs[i] > 0, i >= length xs || xs[i] > 0)";
    assert_eq!(ok(src, "main", "[1, 2] 5i64"), "false true");
}

#[test]
fn sections() {
    let src = "
entry left (xs: []i32) = map (10-) xs
entry right (xs: []i32) = map (/2) xs
entry field (ps: [](i32, bool)) = map (.0) ps
entry idx (xss: [][]i32) = map (.[1]) xss
";
    assert_eq!(ok(src, "left", "[1, 2]"), "[9i32, 8i32]");
    assert_eq!(ok(src, "right", "[7, -7]"), "[3i32, -4i32]");
    assert_eq!(ok(src, "field", "[1, 2] [true, false]"), "[1i32, 2i32]");
    assert_eq!(ok(src, "idx", "[[1, 2], [3, 4]]"), "[2i32, 4i32]");
}

#[test]
fn in_place_updates_are_constant_time() {
    // 300 000 updates of a 300 000-element array: quadratic copying would take minutes.
    let src = "
entry main (n: i64) =
  let xs = replicate n 0i64
  let xs = loop xs for i < n do xs with [i] = i * 2
  in xs[n - 1]
";
    let start = std::time::Instant::now();
    assert_eq!(ok(src, "main", "300000i64"), "599998i64");
    assert!(start.elapsed().as_secs() < 30);
}

#[test]
fn updates_leave_other_aliases_alone() {
    let src = "
entry main (xs: *[]i32) =
  let ys = copy xs
  let xs' = xs with [0] = 100
  in (xs', ys)
";
    assert_eq!(
        ok(src, "main", "[1, 2, 3]"),
        "[100i32, 2i32, 3i32] [1i32, 2i32, 3i32]"
    );
}

#[test]
fn assertions_report_their_condition() {
    let src = "entry main (x: i32) = assert (x % 2 != 0) (2 / x)";
    assert_eq!(ok(src, "main", "3"), "0i32");
    assert_eq!(fails(src, "main", "2"), "Assertion is false: x % 2 != 0");
}

#[test]
fn size_coercions_are_checked() {
    let src = "entry main [n] (xs: [n]i32) (m: i64) = xs :> [m]i32";
    assert_eq!(ok(src, "main", "[1, 2] 2i64"), "[1i32, 2i32]");
    assert!(fails(src, "main", "[1, 2] 3i64").contains("cannot match shape of type"));
}

#[test]
fn loops_and_matches() {
    let src = "
type shape = #circle f64 | #rect f64 f64
def area (s: shape) = match s
  case #circle r -> 3.0 * r * r
  case #rect w h -> w * h
entry main (n: i32) =
  let (a, b) = loop (a, b) = (0, 1) for _i < n do (b, a + b)
  let c = loop x = 1 while x < 1000 do x * 3
  in (a, b, c, area (#rect 2 3), area (#circle 1))
";
    assert_eq!(ok(src, "main", "10"), "55i32 89i32 2187i32 6f64 3f64");
}

#[test]
fn deep_recursion_is_an_error_not_a_crash() {
    let src = "
def f (n: i64) : i64 = if n == 0 then 0 else 1 + f (n - 1)
entry main (n: i64) = f n
";
    assert_eq!(ok(src, "main", "1000i64"), "1000i64");
    assert!(fails(src, "main", "100000000i64").contains("Stack overflow"));
}

#[test]
fn endless_loops_can_be_interrupted() {
    let interp = common::load("entry main (x: i32) = loop x while x > 0 do x + 1 - 1");
    let args = futhark_values::read_values(b"1").unwrap();
    let r = interp.call_entry_timeout("main", args, Some(std::time::Duration::from_millis(300)));
    assert!(r.unwrap_err().message.contains("Timed out"));
}

#[test]
fn vectorised_and_scalar_evaluation_agree() {
    let src = "
entry main (xs: []f32) (ys: []i64) =
  let a = map (\\x -> if x > 0.5 then f32.sqrt x else x * 2) xs
  let b = map (\\i -> if i >= 0 && i < length xs then xs[i] else -1) ys
  let c = reduce (\\(p, q) (r, s) -> (p + r, q * s)) (0, 1) (zip ys ys)
  in (a, b, c)
";
    assert_eq!(
        ok(src, "main", "[0.25f32, 4f32] [1i64, 9i64, -1i64]"),
        "[0.5f32, 2f32] [4f32, -1f32, -1f32] 9i64 -9i64"
    );
}

#[test]
fn forward_and_reverse_derivatives() {
    let src = "
def f (x: f64, y: f64) = x * x * y + f64.sin y
entry fwd (x: f64) (y: f64) = jvp f (x, y) (1, 0)
entry rev (x: f64) (y: f64) = vjp f (x, y) 1
";
    assert_eq!(ok(src, "fwd", "3f64 2f64"), "12f64");
    let r = ok(src, "rev", "3f64 0f64");
    assert_eq!(r, "0f64 10f64");
}

#[test]
fn bad_entry_inputs_are_located_errors() {
    // Size mismatches, wrong types and wrong numbers of values are errors located at the
    // entry point's definition, as the command line reports them.
    let src = "entry add [n] (xs: [n]i32) (ys: [n]i32) : [n]i32 = map2 (+) xs ys";
    let interp = load(src);
    let call = |input: &str| {
        let args = futhark_values::read_values(input.as_bytes()).unwrap();
        interp.call_entry("add", args)
    };
    assert_eq!(
        call("[1, 2] [3, 4]").map(|v| v[0].to_string()),
        Ok("[4i32, 6i32]".to_string())
    );
    for (input, message) in [
        ("[1, 2, 3] [1, 2]", "Sizes do not match"),
        (
            "[1, 2] [3i64, 4i64]",
            "Provided input of types: []i32 []i64",
        ),
        ("[1, 2] 3", "Expected input of types: []i32 []i32"),
        ("[1, 2]", "Too few arguments"),
        ("[1, 2] [3, 4] [5, 6]", "Too many arguments"),
    ] {
        let e = call(input).unwrap_err();
        assert!(e.message.contains(message), "{input}: {}", e.message);
        assert!(e.span.is_some(), "{input}: no location for {}", e.message);
    }
}

#[test]
fn updates_of_iotas_leave_later_iotas_alone() {
    // Small `iota`s share one buffer of `0, 1, 2, …`; updating one copies it first.
    let src = "
entry main (n: i64) : ([]i64, []i64, []i64) =
  let a = iota n with [1] = 100
  let b = loop xs = iota n for i < n do xs with [i] = xs[i] * 2
  in (a, b, 2..<n)
";
    // Twice on one interpreter (one thread, so one shared buffer).
    let interp = load(src);
    for _ in 0..2 {
        let args = futhark_values::read_values("4i64".as_bytes()).unwrap();
        let out: Vec<String> = interp
            .call_entry("main", args)
            .unwrap()
            .iter()
            .map(|v| v.to_string())
            .collect();
        assert_eq!(
            out.join(" "),
            "[0i64, 100i64, 2i64, 3i64] [0i64, 2i64, 4i64, 6i64] [2i64, 3i64]"
        );
    }
}

/// A `map` over an empty array never calls its function, yet its result has the rows the
/// type says: `[0][k]`, not `[0]` (the checker's row shape, evaluated where the map is).
#[test]
fn empty_map_results_keep_their_row_shape() {
    let src = "
entry rows (ns: []i64) (k: i64) = map (\\n -> map (+ n) (iota k)) ns
entry piped (ns: []i64) (k: i64) = ns |> map (\\n -> replicate k (f32.i64 n))
entry cube (ns: []i64) (k: i64) = map (\\n -> replicate 2 (replicate k n)) ns
";
    assert_eq!(ok(src, "rows", "empty([0]i64) 4i64"), "empty([0][4]i64)");
    assert_eq!(ok(src, "piped", "empty([0]i64) 3i64"), "empty([0][3]f32)");
    assert_eq!(ok(src, "cube", "empty([0]i64) 5i64"), "empty([0][2][5]i64)");
    assert_eq!(ok(src, "rows", "[1i64] 2i64"), "[[1i64, 2i64]]");
}
