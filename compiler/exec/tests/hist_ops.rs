//! Histograms of every update kind (native atomics, the float min/max trick, CAS loops,
//! packed pairs, per-bucket locks), `reduce_by_index` into an existing array, i32 and i64
//! indices, out-of-range indices: the interpreter and the CPU executor (the kernel IR the
//! CUDA code is generated from) must agree.

#[path = "support/agree.rs"]
mod agree;
use agree::{agree_error, agree_values};

const PROGRAM: &str = "
entry add_f32 [n] (h: i64) (is: [n]i32) (xs: [n]f32) : []f32 = hist (+) 0 h (map i64.i32 is) xs
entry add_i64 [n] (h: i64) (is: [n]i64) (xs: [n]i64) : []i64 = hist (+) 0 h is xs
entry max_i32 [n] (h: i64) (is: [n]i32) (xs: [n]i32) : []i32 =
  hist i32.max i32.lowest h (map i64.i32 is) xs
entry min_f32 [n] (h: i64) (is: [n]i32) (xs: [n]f32) : []f32 =
  hist f32.min f32.inf h (map i64.i32 is) xs
entry mul_u8 [n] (h: i64) (is: [n]i32) (xs: [n]u8) : []u8 =
  hist (*) 1 h (map i64.i32 is) xs
entry into [n] (dest: *[]f64) (is: [n]i64) (xs: [n]f64) : []f64 =
  reduce_by_index dest (+) 0 is (map (* 2) xs)
def argmax_op (a: f32, ai: i32) (b: f32, bi: i32) : (f32, i32) =
  if a > b then (a, ai) else if b > a then (b, bi) else (a, i32.min ai bi)
entry argmax [n] (h: i64) (is: [n]i32) (xs: [n]f32) : ([]f32, []i32) =
  unzip (hist argmax_op (-f32.inf, i32.highest) h (map i64.i32 is)
              (zip xs (map i32.i64 (iota n))))
entry triple [n] (h: i64) (is: [n]i32) (xs: [n]f64) : ([]f64, []i32, []i32) =
  unzip3 (hist (\\(a, b, c) (x, y, z) -> (a + x, b + y, i32.max c z)) (0, 0, i32.lowest) h
               (map i64.i32 is) (map (\\x -> (x, 1, i32.f64 x)) xs))
";

const IS: &str = "[0, 3, 1, 3, -1, 7, 3, 0, 2, 9]";

#[test]
fn native_atomic_operators_agree() {
    agree_values(
        "hist_add_f32",
        PROGRAM,
        "add_f32",
        &format!("4i64 {IS} [1f32, 2f32, 3f32, 4f32, 5f32, 6f32, 7f32, 8f32, 9f32, 10f32]"),
        "[9f32, 3f32, 9f32, 13f32]",
    );
    agree_values(
        "hist_add_i64",
        PROGRAM,
        "add_i64",
        "3i64 [0i64, 2i64, 2i64, 5i64, -3i64] [1i64, 2i64, 3i64, 4i64, 5i64]",
        "[1i64, 0i64, 5i64]",
    );
    agree_values(
        "hist_max_i32",
        PROGRAM,
        "max_i32",
        &format!("5i64 {IS} [1, -2, 3, 4, 5, 6, 7, -8, 9, 10]"),
        "[1i32, 3i32, 9i32, 7i32, -2147483648i32]",
    );
    agree_values(
        "hist_into",
        PROGRAM,
        "into",
        "[1f64, 1f64, 1f64] [0i64, 2i64, 2i64, 3i64] [1f64, 2f64, 3f64, 4f64]",
        "[3f64, 1f64, 11f64]",
    );
}

#[test]
fn float_trick_cas_packed_and_locked_operators_agree() {
    agree_values(
        "hist_min_f32",
        PROGRAM,
        "min_f32",
        &format!("4i64 {IS} [1f32, -2f32, 3f32, -0f32, 5f32, 6f32, 7f32, -8f32, 9f32, 10f32]"),
        "[-8f32, 3f32, 9f32, -2f32]",
    );
    agree_values(
        "hist_mul_u8",
        PROGRAM,
        "mul_u8",
        &format!("4i64 {IS} [2u8, 3u8, 5u8, 7u8, 11u8, 13u8, 17u8, 19u8, 23u8, 29u8]"),
        "[38u8, 5u8, 23u8, 101u8]",
    );
    agree_values(
        "hist_argmax",
        PROGRAM,
        "argmax",
        &format!("4i64 {IS} [1f32, 7f32, 3f32, 7f32, 9f32, 6f32, 2f32, 8f32, 0f32, 10f32]"),
        "[8f32, 3f32, 0f32, 7f32] [7i32, 2i32, 8i32, 1i32]",
    );
    agree_values(
        "hist_triple",
        PROGRAM,
        "triple",
        &format!("3i64 {IS} [1f64, 2f64, 3f64, 4f64, 5f64, 6f64, 7f64, 8f64, 9f64, 10f64]"),
        "[9f64, 3f64, 9f64] [2i32, 1i32, 1i32] [8i32, 3i32, 9i32]",
    );
}

#[test]
fn a_negative_bucket_count_fails_as_the_interpreter_does() {
    agree_error(
        "hist_negative",
        PROGRAM,
        "add_f32",
        "-1i64 [0] [1f32]",
        "is invalid",
    );
}
