//! A property test of the run-time checks of compiled kernels: small programs whose index,
//! slice and division expressions are drawn at random (seeded, so a failure reproduces) run
//! on the interpreter and on the compiled path's CPU executor (`--backend ir`, the GPU
//! path's twin). Both must give the same values, or fail with the same message at the same
//! location — never a value where the interpreter fails.

use futhark_db::Database;
use futhark_values::{Value, read_values};

use crate::engine::{self, ExecBackend};

/// A small deterministic generator (xorshift), enough to pick shapes and constants.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.below(xs.len() as u64) as usize]
    }
}

/// An `i64` expression over the variables `vars`, the scalar input `k` and the length `n`
/// of the input array.
fn index_exp(rng: &mut Rng, vars: &[&str], depth: u32) -> String {
    if depth == 0 || rng.below(3) == 0 {
        return match rng.below(4) {
            0 => format!("{}", rng.below(7) as i64 - 2),
            1 => "k".to_string(),
            2 => "n".to_string(),
            _ => rng.pick(vars).to_string(),
        };
    }
    let a = index_exp(rng, vars, depth - 1);
    let b = index_exp(rng, vars, depth - 1);
    match rng.below(7) {
        0 => format!("({a} + {b})"),
        1 => format!("({a} - {b})"),
        2 => format!("({a} * {b})"),
        3 => format!("({a} / {b})"),
        4 => format!("({a} % {b})"),
        5 => format!("(i64.min {a} {b})"),
        _ => format!("(i64.max {a} {b})"),
    }
}

/// One program: its source and the body shape's name (for messages).
fn program(rng: &mut Rng) -> String {
    let header = "entry main (xs: []i32) (xss: [][]i32) (k: i64) =\n  let n = length xs\n  in ";
    // Offsets near the edge of what the kernel prover accepts (`n - i - 1` is in bounds,
    // `n - i` is not), so that a check pruned wrongly shows as a value where the
    // interpreter fails.
    let mut off = || rng.below(3);
    let (c, d, e) = (off(), off(), off());
    let body = match rng.below(9) {
        0 => format!("map (\\i -> xs[{}]) (iota n)", index_exp(rng, &["i"], 2)),
        1 => format!(
            "map (\\i -> loop acc = 0i32 for j < {} do acc + xs[{}]) (iota n)",
            rng.below(4),
            index_exp(rng, &["i", "j"], 2)
        ),
        2 => format!(
            "map (\\i -> i32.sum xs[{}:{}]) (iota n)",
            index_exp(rng, &["i"], 1),
            index_exp(rng, &["i"], 1)
        ),
        3 => format!("map (\\r -> r[{}]) xss", index_exp(rng, &["k"], 2)),
        4 => format!(
            "map (\\i -> let ys = copy xs in (ys with [{}] = 7)[i]) (iota n)",
            index_exp(rng, &["i"], 2)
        ),
        5 => format!(
            "map (\\i -> i32.i64 ({}) + xs[i]) (iota n)",
            index_exp(rng, &["i"], 2)
        ),
        6 => format!(
            "map (\\i -> if i > {c} then xs[i - {d}] else if i < n - {e} then xs[n - i - {c}] else 0) (iota n)"
        ),
        7 => format!(
            "map (\\i -> loop acc = 0i32 for j < n - {c} do acc + xs[j + {d}] + xs[n - j - {e}]) (iota n)"
        ),
        _ => format!(
            "map (\\i -> xs[i64.min (i + {c}) (n - {d})] + xs[i64.max (i - {e}) 0]) (iota n)"
        ),
    };
    format!("{header}{body}\n")
}

/// The message, location and backtrace of a failure, as both paths write them.
fn failure(text: &str) -> (String, String, String) {
    let mut lines = text.lines();
    let head = lines.next().unwrap_or_default();
    let msg = lines.next().unwrap_or_default();
    let backtrace: Vec<&str> = lines.collect();
    match head.strip_prefix("Error at ") {
        Some(loc) => (
            msg.to_string(),
            loc.trim_end_matches(':').to_string(),
            backtrace.join("\n"),
        ),
        None => (
            head.trim_start_matches("Error: ").to_string(),
            String::new(),
            String::new(),
        ),
    }
}

#[test]
fn compiled_checks_agree_with_the_interpreter() {
    agree(ExecBackend::Cpu, 200);
}

/// The same on the GPU: run by hand where there is one (`bench/safety/device-run.sh` runs
/// this test's binary with `--ignored`).
#[test]
#[ignore = "needs a GPU"]
fn gpu_checks_agree_with_the_interpreter() {
    if let Some(reason) = futhark_exec::cuda_unavailable_reason() {
        panic!("this test compares the GPU with the interpreter, and there is none: {reason}");
    }
    agree(ExecBackend::Cuda, 200);
}

fn agree(backend: ExecBackend, cases: usize) {
    let mut rng = Rng(0x5eed_1234_abcd_0001);
    let dir = std::env::temp_dir().join(format!("futhark-safety-fuzz-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let inputs = [
        "[3, 1, 4, 1, 5] [[1, 2], [3, 4], [5, 6]] 1i64",
        "[2, 7] [[9, 8, 7]] 3i64",
        "empty([0]i32) empty([0][2]i32) 0i64",
        "[5, 6, 7, 8, 9, 10, 11] [[1], [2]] -1i64",
    ];
    let (mut failures_seen, mut values_seen) = (0, 0);
    for case in 0..cases {
        let src = program(&mut rng);
        let path = dir.join(format!("p{case}.fut"));
        std::fs::write(&path, &src).unwrap();
        let mut db = Database::new();
        let file = db.set_file(&path, src.clone());
        let mut interp = match engine::load_interpreter(&db, file) {
            Ok(p) => p,
            // A drawn program the checker rejects (none should be) says nothing here.
            Err(_) => continue,
        };
        let mut ir = match engine::load_compiled(&db, file, backend, &Default::default()) {
            Ok(p) => p,
            Err(e) => panic!("program {case} does not compile for the GPU path: {e:?}\n{src}"),
        };
        for input in inputs {
            let args: Vec<Value> = read_values(input.as_bytes()).unwrap();
            let want = interp.call("main", args.clone());
            let got = ir.call("main", args);
            match (&want, &got) {
                (Ok(a), Ok(b)) => {
                    assert_eq!(a, b, "program {case} on {input}:\n{src}");
                    values_seen += 1;
                }
                (Err(a), Err(b)) => {
                    let (am, al, ab) = failure(&a.message);
                    let (bm, bl, bb) = failure(&b.message);
                    assert_eq!(
                        am, bm,
                        "program {case} on {input}:\n{src}\n{}\n{}",
                        a.message, b.message
                    );
                    if !al.is_empty() && !bl.is_empty() {
                        assert_eq!(al, bl, "program {case} on {input}:\n{src}");
                        assert_eq!(ab, bb, "backtrace of program {case} on {input}:\n{src}");
                    }
                    failures_seen += 1;
                }
                _ => panic!(
                    "program {case} on {input}: interpreter {want:?}, compiled {got:?}\n{src}"
                ),
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    // The generator must exercise both outcomes, or the test proves little.
    assert!(
        failures_seen > 50 && values_seen > 50,
        "{failures_seen} failures, {values_seen} values"
    );
}
