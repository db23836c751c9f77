//! Runs one program on the reference interpreter and, compiled to kernels, on the CPU
//! executor, and checks that both give the same values or the same run-time error (message,
//! location and backtrace, as each prints it).

use futhark_db::{Database, Db, IrStage};
use futhark_exec::{CpuBackend, Executor};
use futhark_values::{Value, compare_values, read_values};

/// What a run gave: the values, or the error as `Error at LOC:\nMESSAGE`.
#[derive(Debug, PartialEq)]
pub enum Outcome {
    Values(Vec<Value>),
    Error(String),
}

/// Both runs of `entry` on the arguments `args` (Futhark text format); panics unless the
/// program compiles for the GPU path.
pub fn run_both(name: &str, src: &str, entry: &str, args: &str) -> (Outcome, Outcome) {
    let dir = std::env::temp_dir().join(format!("futhark-agree-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(format!("{name}.fut"));
    std::fs::write(&path, src).expect("write source");
    let argv = read_values(args.as_bytes()).expect("arguments");

    let db = Database::new();
    let file = db.load_file(&path).expect("loads");
    let prog = futhark_db::compile(&db, file, IrStage::Kernels)
        .unwrap_or_else(|e| panic!("{name} does not compile: {:?}", e.diagnostics(&db, file)));
    let mut exec = Executor::new(prog, CpuBackend::new()).expect("executor");
    let compiled = match exec.call_entry(entry, argv.clone()) {
        Ok(v) => Outcome::Values(v),
        Err(e) => Outcome::Error(e.to_string()),
    };

    // The interpreter's program from the same database, as every face builds it.
    let checked = futhark_db::interp_program(&db, file);
    let map = futhark_interp::SourceMap::new(&checked.program);
    let interp = futhark_interp::Interpreter::new(checked.program).expect("interpreter");
    let interpreted = match interp.call_entry(entry, argv) {
        Ok(v) => Outcome::Values(v),
        Err(e) => Outcome::Error(e.render(&|s| map.describe(s))),
    };
    let _ = std::fs::remove_dir_all(&dir);
    (compiled, interpreted)
}

/// Asserts that both runs agree, and returns the interpreter's outcome.
pub fn agree(name: &str, src: &str, entry: &str, args: &str) -> Outcome {
    let (c, i) = run_both(name, src, entry, args);
    match (&c, &i) {
        (Outcome::Values(a), Outcome::Values(b)) => {
            assert!(
                compare_values(b, a).is_ok(),
                "{name}: compiled {a:?}, interpreted {b:?}"
            );
        }
        _ => assert_eq!(c, i, "{name}: compiled vs interpreted"),
    }
    i
}

/// Asserts that both runs fail alike, with an error containing `needle`.
pub fn agree_error(name: &str, src: &str, entry: &str, args: &str, needle: &str) {
    match agree(name, src, entry, args) {
        Outcome::Error(e) => assert!(e.contains(needle), "{name}: error {e}"),
        Outcome::Values(v) => panic!("{name}: expected an error, got {v:?}"),
    }
}

/// Asserts that both runs agree on values equal to `expected` (Futhark text format).
pub fn agree_values(name: &str, src: &str, entry: &str, args: &str, expected: &str) {
    let want = read_values(expected.as_bytes()).expect("expected values");
    match agree(name, src, entry, args) {
        Outcome::Values(v) => {
            assert!(
                compare_values(&want, &v).is_ok(),
                "{name}: got {v:?}, want {want:?}"
            );
        }
        Outcome::Error(e) => panic!("{name}: expected values, got {e}"),
    }
}
