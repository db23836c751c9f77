//! Run-time errors of compiled programs carry the interpreter's backtrace: the call sites
//! of the functions the failing expression was reached through (inlined at lowering, by
//! the `inline` pass, or called at run time), the SOAC applications whose lambdas ran it,
//! and the entry point's definition. Each case runs on both and compares the whole text.

#[path = "support/agree.rs"]
#[allow(dead_code)] // the value and error helpers are other tests' own
mod agree;
use agree::{Outcome, agree};

/// Runs `entry` on both paths; they must fail alike, with a backtrace of `frames` frames.
fn fails_with_frames(name: &str, src: &str, entry: &str, args: &str, frames: usize) {
    match agree(name, src, entry, args) {
        Outcome::Error(e) => {
            let got = e.lines().filter(|l| l.starts_with("-> #")).count();
            assert_eq!(got, frames, "{name}: {e}");
        }
        Outcome::Values(v) => panic!("{name}: expected an error, got {v:?}"),
    }
}

const CALLS: &str = "
def get (xs: []i32) (i: i64) = xs[i]
def twice (xs: []i32) (i: i64) = get xs i + get xs (i + 1)
entry in_map (xs: []i32) (i: i64) = map (\\j -> twice xs (j + i)) (iota 3)
entry on_host (xs: []i32) (i: i64) = twice xs i
entry piped (xs: []i32) (i: i64) = i |> get xs
entry local_fn (xs: []i32) (i: i64) = let f j = get xs j in f (i + 1)
entry in_loop (xs: []i32) (i: i64) = loop s = 0 for k < 3 do s + get xs (k + i)
entry partial (xs: []i32) (i: i64) = reduce (+) 0 (map (get xs) (map (+i) (iota 3)))
entry direct (xs: []i32) (i: i64) = xs[i]
entry lambda (xs: []i32) (i: i64) = i32.sum (map (\\j -> xs[j + i]) (iota 2))
entry through_map2 (xs: []i32) (i: i64) = map2 (\\a j -> a + xs[j + i]) xs (iota 4)
entry forwards (xs: []i32) (i: i64) = twice xs i
";

#[test]
fn calls_and_soacs_are_frames() {
    let args = |i: i64| format!("[1, 2, 3, 4] {i}i64");
    fails_with_frames("bt_in_map", CALLS, "in_map", &args(2), 4);
    fails_with_frames("bt_on_host", CALLS, "on_host", &args(3), 3);
    fails_with_frames("bt_piped", CALLS, "piped", &args(4), 2);
    fails_with_frames("bt_local", CALLS, "local_fn", &args(3), 3);
    fails_with_frames("bt_in_loop", CALLS, "in_loop", &args(3), 2);
    fails_with_frames("bt_partial", CALLS, "partial", &args(3), 2);
    fails_with_frames("bt_direct", CALLS, "direct", &args(4), 1);
    fails_with_frames("bt_lambda", CALLS, "lambda", &args(3), 2);
    // `map2` is a prelude function: its own lambda and `map` are frames too.
    fails_with_frames("bt_map2", CALLS, "through_map2", &args(4), 4);
    fails_with_frames("bt_forwards", CALLS, "forwards", &args(3), 3);
}

const DEEPER: &str = "
module m = {
  def at (xs: []f32) (i: i64) = xs[i]
  def safe_div (a: i32) (b: i32) = a / b
}
def checked (n: i64) (xs: []f32) = assert (n < length xs) (m.at xs n)
def pick [n] (xs: [n]f32) (k: i64) : [k]f32 = xs[0:k] :> [k]f32
def fact (n: i32) : i32 = if n == 0 then 1 / n else n * fact (n - 1)
entry module_fn (xs: []f32) (i: i64) = map (\\j -> m.at xs (i + j)) (iota 2)
entry division (xs: []i32) (d: i32) = map (\\x -> m.safe_div x d) xs
entry assertion (xs: []f32) (n: i64) = map (\\k -> checked (n + k) xs) (iota 2)
entry coercion (xs: []f32) (k: i64) = pick xs k
entry recursion (n: i32) = fact n
entry nested (xss: [][]f32) (i: i64) = map (\\xs -> f32.sum (map (\\j -> m.at xs (j + i)) (iota 2))) xss
";

#[test]
fn modules_assertions_coercions_and_recursion() {
    fails_with_frames("bt_module", DEEPER, "module_fn", "[1f32, 2f32] 1i64", 3);
    fails_with_frames("bt_div", DEEPER, "division", "[1, 2] 0", 2);
    fails_with_frames("bt_assert", DEEPER, "assertion", "[1f32, 2f32] 1i64", 3);
    fails_with_frames("bt_coerce", DEEPER, "coercion", "[1f32, 2f32] 3i64", 2);
    fails_with_frames("bt_nested", DEEPER, "nested", "[[1f32, 2f32]] 1i64", 4);
    // A recursive function stays a call: the host adds its frames as the error leaves it.
    fails_with_frames("bt_recursion", DEEPER, "recursion", "3", 5);
}

#[test]
fn values_are_unchanged() {
    match agree("bt_ok", CALLS, "in_map", "[1, 2, 3, 4, 5] 0i64") {
        Outcome::Values(_) => {}
        Outcome::Error(e) => panic!("bt_ok: {e}"),
    }
}

const POWERS: &str = "
entry section (b: i32) (xs: []i32) = map (b **) xs
entry right (xs: []i32) (e: i32) = map (** e) xs
entry host (b: i32) (e: i32) = b ** e
entry lambda (b: i64) (xs: []i64) = map (\\x -> b ** x) xs
";

/// An integer power with a negative exponent fails in kernels and on the host, at the
/// operator's section where one was written (the kernels computed a value before).
#[test]
fn negative_exponents_fail_as_in_the_interpreter() {
    fails_with_frames("pow_section", POWERS, "section", "2 [1, -1]", 2);
    fails_with_frames("pow_right", POWERS, "right", "[1, 2] -1", 2);
    fails_with_frames("pow_host", POWERS, "host", "2 -1", 1);
    fails_with_frames("pow_lambda", POWERS, "lambda", "2i64 [3i64, -2i64]", 2);
    match agree("pow_ok", POWERS, "section", "2 [0, 3, 10]") {
        Outcome::Values(_) => {}
        Outcome::Error(e) => panic!("pow_ok: {e}"),
    }
}
