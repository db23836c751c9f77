//! End-to-end tests of `futhark-rs test`, `dataset` and `run`: the built binary on the small
//! programs under `tests/fixtures/`, checking what a user sees (output, exit status, JSON).
//!
//! Tests of modes whose compiler stage is not in the build yet check that the mode says so
//! (exit status 2) and become full tests by themselves once the stage is plugged in.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use futhark_values::{PrimType, Value, read_values, to_binary};

/// Runs the binary in this crate's directory (so fixture paths print as `tests/fixtures/…`).
fn futhark(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_futhark-rs"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let mut input = child.stdin.take().expect("stdin is piped");
    // The command may exit without reading its input; a closed pipe is fine then.
    let _ = input.write_all(stdin);
    drop(input);
    child.wait_with_output().expect("the binary runs")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("futhark-rs-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// Whether `out` is a mode or backend reporting that its stage is missing from this build.
fn unavailable(out: &Output) -> bool {
    out.status.code() == Some(2) && stderr(out).contains("is not available in this build yet")
}

fn last_line(text: &str) -> &str {
    text.lines().last().unwrap_or("")
}

// ---------------------------------------------------------------------------------------------
// test --mode parse

#[test]
fn parse_mode_prints_failures_folders_and_totals() {
    let out = futhark(&["test", "--mode", "parse", "tests/fixtures/parse"], b"");
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("FAILED tests/fixtures/parse/bad.fut:\n  tests/fixtures/parse/bad.fut:5:"),
        "{text}"
    );
    assert!(
        text.contains(
            "FAILED tests/fixtures/parse/malformed.fut:\n  \
             malformed test block: line 3: unterminated `{` in input values\n"
        ),
        "{text}"
    );
    assert!(!text.contains("ok.fut"), "{text}");
    assert!(
        text.contains(
            "folder                     passed   failed  skipped\n\
             tests/fixtures/parse            1        2        1\n\
             tests/fixtures/parse/sub        1        0        0\n"
        ),
        "{text}"
    );
    assert!(
        text.contains("skipped: 1 expecting a compile error\n"),
        "{text}"
    );
    assert_eq!(last_line(&text), "2 passed, 2 failed, 1 skipped");
}

#[test]
fn parse_mode_writes_json() {
    let dir = scratch("json");
    let json = dir.join("results.json");
    let json_arg = json.to_str().expect("utf-8 temp path");
    let out = futhark(
        &[
            "test",
            "--mode",
            "parse",
            "-j",
            "2",
            "--json",
            json_arg,
            "tests/fixtures/parse",
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(1));
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("json written"))
            .expect("valid json");
    assert_eq!(report["passed"], 2);
    assert_eq!(report["failed"], 2);
    assert_eq!(report["skipped"], 1);
    let results = report["results"].as_array().expect("results");
    let status_of = |file: &str| {
        results
            .iter()
            .find(|r| r["file"] == format!("tests/fixtures/parse/{file}"))
            .map(|r| r["status"].as_str().unwrap_or("").to_string())
    };
    assert_eq!(status_of("ok.fut").as_deref(), Some("passed"));
    assert_eq!(status_of("bad.fut").as_deref(), Some("failed"));
    assert_eq!(status_of("expects_error.fut").as_deref(), Some("skipped"));
    assert_eq!(status_of("sub/nested.fut").as_deref(), Some("passed"));
    for r in results {
        for key in ["file", "entry", "case", "status", "message"] {
            assert!(r.get(key).is_some(), "{key} missing in {r}");
        }
    }
    std::fs::remove_dir_all(&dir).expect("cleanup");
}

#[test]
fn a_file_that_runs_out_of_time_fails_as_timed_out() {
    // No child process starts, let alone finishes, in a tenth of a millisecond.
    let out = futhark(
        &[
            "test",
            "--mode",
            "parse",
            "--timeout",
            "0.0001",
            "tests/fixtures/parse/ok.fut",
        ],
        b"",
    );
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("FAILED tests/fixtures/parse/ok.fut:\n  timed out (after 0.0001 s)\n"),
        "{text}"
    );
    assert_eq!(last_line(&text), "0 passed, 1 failed, 0 skipped");
}

#[test]
fn one_worker_tests_many_files_in_turn() {
    let requests = "{\"file\":\"tests/fixtures/parse/ok.fut\",\"start\":0}\n\
                    {\"file\":\"tests/fixtures/parse/bad.fut\",\"start\":0}\n\
                    {\"file\":\"tests/fixtures/parse/missing.fut\",\"start\":0}\n\
                    not a request\n\
                    {\"file\":\"tests/fixtures/parse/ok.fut\",\"start\":1}\n\
                    {\"file\":\"tests/fixtures/parse/sub/nested.fut\",\"start\":0}\n";
    let out = futhark(&["test-worker", "--mode", "parse"], requests.as_bytes());
    assert!(out.status.success(), "{}", stderr(&out));
    let lines: Vec<serde_json::Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).expect("every line is a JSON message"))
        .collect();
    let text: Vec<String> = lines.iter().map(ToString::to_string).collect();
    assert_eq!(lines.len(), 9, "{text:#?}");
    assert_eq!(text[0], r#"{"index":0,"status":"passed"}"#);
    assert_eq!(text[1], r#"{"done":"tests/fixtures/parse/ok.fut"}"#);
    assert_eq!(lines[2]["status"], "failed");
    let message = lines[2]["message"].as_str().unwrap_or("");
    assert!(
        message.starts_with("tests/fixtures/parse/bad.fut:5:"),
        "{message}"
    );
    assert_eq!(text[3], r#"{"done":"tests/fixtures/parse/bad.fut"}"#);
    assert_eq!(lines[4]["done"], "tests/fixtures/parse/missing.fut");
    let error = lines[4]["error"].as_str().unwrap_or("");
    assert!(
        error.starts_with("cannot read tests/fixtures/parse/missing.fut: "),
        "{error}"
    );
    assert_eq!(lines[5]["done"], "");
    let error = lines[5]["error"].as_str().unwrap_or("");
    assert!(error.starts_with("the test worker got a malformed request"));
    // Starting past the last item runs nothing.
    assert_eq!(text[6], r#"{"done":"tests/fixtures/parse/ok.fut"}"#);
    assert_eq!(text[7], r#"{"index":0,"status":"passed"}"#);
    assert_eq!(text[8], r#"{"done":"tests/fixtures/parse/sub/nested.fut"}"#);
}

#[test]
fn excluded_tags_skip_programs() {
    let dir = scratch("exclude");
    std::fs::write(
        dir.join("slow.fut"),
        "-- ==\n-- tags { slow }\n-- input { 1 }\ndef main (x: i32) = x\n",
    )
    .expect("write fixture");
    let path = dir.to_str().expect("utf-8 temp path");
    let out = futhark(&["test", "--mode", "parse", "--exclude", "slow", path], b"");
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert_eq!(last_line(&stdout(&out)), "0 passed, 0 failed, 1 skipped");
    std::fs::remove_dir_all(&dir).expect("cleanup");
}

#[test]
fn missing_paths_fail() {
    let out = futhark(
        &["test", "--mode", "parse", "tests/fixtures/nonexistent"],
        b"",
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).contains("FAILED tests/fixtures/nonexistent:\n  cannot read:"));
}

// ---------------------------------------------------------------------------------------------
// test --mode typecheck / interp / cuda

/// Whether `out` reports that this machine cannot run CUDA (no driver, GPU or NVRTC).
fn no_gpu(out: &Output) -> bool {
    out.status.code() == Some(2) && stderr(out).contains("CUDA")
}

#[test]
fn cuda_mode_says_why_it_cannot_run_without_a_gpu() {
    let out = futhark(&["test", "--mode", "cuda", "tests/fixtures/interp"], b"");
    // On a machine with a GPU the cases run; without one the mode refuses at once.
    if out.status.code() == Some(2) {
        assert!(no_gpu(&out), "{}", stderr(&out));
        assert!(stderr(&out).contains("CUDA backend"));
    }
}

#[test]
fn ir_mode_runs_cases_on_the_cpu_executor() {
    let out = futhark(&["test", "--mode", "ir", "tests/fixtures/interp"], b"");
    assert!(!unavailable(&out), "{}", stderr(&out));
    assert!(
        last_line(&stdout(&out)).contains("passed"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn typecheck_mode() {
    let out = futhark(
        &["test", "--mode", "typecheck", "tests/fixtures/typecheck"],
        b"",
    );
    if unavailable(&out) {
        assert!(stderr(&out).contains("type checker"), "{}", stderr(&out));
        println!("typecheck mode not available yet: {}", stderr(&out).trim());
        return;
    }
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("FAILED tests/fixtures/typecheck/ill_typed.fut:"),
        "{text}"
    );
    assert!(
        text.contains("expected compile errors: 1 of 1 rejections matched the test's regex"),
        "{text}"
    );
    assert_eq!(last_line(&text), "2 passed, 1 failed, 0 skipped");
}

#[test]
fn interp_mode_checks_outputs_errors_and_data_files() {
    let out = futhark(
        &[
            "test",
            "--mode",
            "interp",
            "tests/fixtures/interp/pass.fut",
            "tests/fixtures/interp/fail.fut",
        ],
        b"",
    );
    if unavailable(&out) {
        assert!(stderr(&out).contains("interpreter"), "{}", stderr(&out));
        println!("interp mode not available yet: {}", stderr(&out).trim());
        return;
    }
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(!text.contains("pass.fut ("), "{text}");
    assert!(
        text.contains(
            "FAILED tests/fixtures/interp/fail.fut (entry main, case #0 (\"[1, 2, 3]\")):\n  \
             result differs: value #0: at [2]: expected 5i32, got 4i32\n"
        ),
        "{text}"
    );
    assert_eq!(last_line(&text), "6 passed, 1 failed, 0 skipped");
}

#[test]
fn interp_mode_survives_a_looping_program() {
    let out = futhark(
        &[
            "test",
            "--mode",
            "interp",
            "--timeout",
            "2",
            "tests/fixtures/interp/loop.fut",
        ],
        b"",
    );
    if unavailable(&out) {
        return;
    }
    let text = stdout(&out);
    assert!(
        text.contains(
            "FAILED tests/fixtures/interp/loop.fut (entry main, case #0 (\"0\")):\n  \
             timed out (after 2 s)\n"
        ),
        "{text}"
    );
    assert_eq!(last_line(&text), "0 passed, 2 failed, 0 skipped");
}

// ---------------------------------------------------------------------------------------------
// run

#[test]
fn run_reads_arguments_and_prints_results() {
    let out = futhark(&["run", "tests/fixtures/interp/pass.fut"], b"[1, 2, 3]");
    if unavailable(&out) {
        assert!(stderr(&out).contains("interpreter"), "{}", stderr(&out));
        return;
    }
    assert_eq!(stdout(&out), "6i32\n", "{}", stderr(&out));
    let bin = futhark(
        &["run", "-b", "tests/fixtures/interp/pass.fut"],
        &to_binary(&Value::from_vec1(vec![4i32, 5])),
    );
    assert_eq!(bin.stdout, to_binary(&Value::scalar(9i32)));
    let failing = futhark(
        &["run", "-e", "index", "tests/fixtures/interp/pass.fut"],
        b"[1, 2, 3] 7i64",
    );
    assert_eq!(failing.status.code(), Some(1));
    assert!(
        stderr(&failing).contains("out of bounds"),
        "{}",
        stderr(&failing)
    );
    let bad_input = futhark(&["run", "tests/fixtures/interp/pass.fut"], b"[1, 2");
    assert_eq!(bad_input.status.code(), Some(1));
    // `auto` may first say on one line why it runs on the interpreter.
    assert!(
        stderr(&bad_input)
            .lines()
            .any(|l| l.starts_with("error: standard input: line 1")),
        "{}",
        stderr(&bad_input)
    );
}

#[test]
fn run_on_cuda_says_why_it_cannot_run_without_a_gpu() {
    let out = futhark(
        &["run", "--backend", "cuda", "tests/fixtures/interp/pass.fut"],
        b"",
    );
    if out.status.code() == Some(2) {
        assert!(no_gpu(&out), "{}", stderr(&out));
    }
}

#[test]
fn run_on_the_ir_backend_matches_the_interpreter() {
    let prog = "tests/fixtures/interp/pass.fut";
    let src = std::fs::read_to_string(prog).expect("fixture");
    let input = src
        .lines()
        .find_map(|l| l.split("input {").nth(1))
        .and_then(|rest| rest.split('}').next())
        .unwrap_or("")
        .to_string();
    let ir = futhark(&["run", "--backend", "ir", prog], input.as_bytes());
    let interp = futhark(&["run", "--backend", "interp", prog], input.as_bytes());
    assert_eq!(ir.status.code(), interp.status.code(), "{}", stderr(&ir));
    assert_eq!(stdout(&ir), stdout(&interp));
}

#[test]
fn compiled_entry_points_check_the_sizes_their_types_give() {
    let dir = scratch("entry-sizes");
    let write = |name: &str, src: &str| {
        let p = dir.join(name);
        std::fs::write(&p, src).expect("write");
        p.to_string_lossy().into_owned()
    };
    let shared = write(
        "shared.fut",
        "entry main [n] (xs: [n]i32) (ys: [n]i32) = map2 (+) xs ys\n",
    );
    let by_param = write("param.fut", "entry main (x: i64) (_: [x + 1]i32) = x\n");
    let lit = write("lit.fut", "entry main (xs: [2]i32) = xs\n");
    // A shared size: as the interpreter reports it, at the same place.
    let ir = futhark(&["run", "--backend", "ir", &shared], b"[1,2] [1,2,3]");
    let interp = futhark(&["run", "--backend", "interp", &shared], b"[1,2] [1,2,3]");
    assert_eq!(ir.status.code(), Some(1), "{}", stderr(&ir));
    assert_eq!(stderr(&ir), stderr(&interp));
    assert!(stderr(&ir).contains("Sizes do not match: dimension of size 3 where 2 was expected"));
    // Sizes given by a parameter or a literal: the compiled entry point's own checks.
    for (prog, input, want) in [
        (
            &by_param,
            "1i64 [1,2,3]",
            "invalid size of argument 2 (of type [x + 1]i32): 3 where 2 was expected.",
        ),
        (
            &lit,
            "[1,2,3]",
            "invalid size of argument 1 (of type [2]i32): 3 where 2 was expected.",
        ),
    ] {
        let out = futhark(&["run", "--backend", "ir", prog], input.as_bytes());
        assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
        assert!(stderr(&out).contains(want), "{}", stderr(&out));
    }
    // The same programs with fitting sizes run.
    let out = futhark(&["run", "--backend", "ir", &by_param], b"1i64 [1,2]");
    assert_eq!(stdout(&out).trim(), "1i64", "{}", stderr(&out));
    // A size the checker inferred for `xs` prints as `n` but is not the parameter `n`.
    let concat = write(
        "concat.fut",
        "def main n xs ys : []i32 = xs ++ ys :> [n]i32\n",
    );
    let out = futhark(&["run", "--backend", "ir", &concat], b"3i64 [1] [2,3]");
    assert_eq!(
        stdout(&out).trim(),
        "[1i32, 2i32, 3i32]",
        "{}",
        stderr(&out)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

// ---------------------------------------------------------------------------------------------
// dataset

#[test]
fn dataset_generates_reproducible_text() {
    let args = [
        "dataset",
        "-g",
        "[3]i32",
        "-g",
        "f64",
        "-g",
        "[2][2]bool",
        "-s",
        "5",
    ];
    let a = futhark(&args, b"");
    let b = futhark(&args, b"");
    assert!(a.status.success(), "{}", stderr(&a));
    assert_eq!(a.stdout, b.stdout);
    let values = read_values(&a.stdout).expect("generated text reads back");
    assert_eq!(values.len(), 3);
    assert_eq!(values[0].shape(), &[3]);
    assert_eq!(values[0].elem_type(), PrimType::I32);
    let x: f64 = values[1].to_scalar().expect("f64 scalar");
    assert!((0.0..=1.0).contains(&x));
    assert_eq!(values[2].shape(), &[2, 2]);
    assert_eq!(stdout(&a).lines().count(), 3);
    let other_seed = futhark(&["dataset", "-g", "[3]i32", "-s", "6"], b"");
    assert_ne!(
        stdout(&other_seed).lines().next(),
        stdout(&a).lines().next()
    );
}

#[test]
fn dataset_generates_binary() {
    let out = futhark(&["dataset", "-b", "-g", "[2][3]f32"], b"");
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(&out.stdout[..7], b"b\x02\x02 f32");
    assert_eq!(out.stdout.len(), 7 + 2 * 8 + 6 * 4);
}

#[test]
fn dataset_respects_bounds() {
    let out = futhark(
        &[
            "dataset",
            "--i32-bounds=-3:-3",
            "--f32-bounds",
            "-2:-2",
            "-g",
            "[2]i32",
            "-g",
            "f32",
        ],
        b"",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let values = read_values(&out.stdout).expect("reads back");
    assert_eq!(values[0], Value::from_vec1(vec![-3i32, -3]));
    assert_eq!(values[1], Value::scalar(-2.0f32));
}

#[test]
fn dataset_converts_between_text_and_binary() {
    let text = futhark(
        &[
            "dataset",
            "-g",
            "[4][2]f64",
            "-g",
            "[3]u8",
            "-g",
            "i16",
            "-s",
            "9",
        ],
        b"",
    );
    let binary = futhark(&["dataset", "--binary"], &text.stdout);
    assert!(binary.status.success(), "{}", stderr(&binary));
    assert_eq!(binary.stdout[0], b'b');
    let back = futhark(&["dataset", "--text"], &binary.stdout);
    assert!(back.status.success(), "{}", stderr(&back));
    assert_eq!(stdout(&back), stdout(&text));
    // Text and binary mixed on input.
    let mut mixed = b"1 ".to_vec();
    mixed.extend(to_binary(&Value::scalar(2i64)));
    mixed.extend(b" [true, false] -- a comment\n");
    let out = futhark(&["dataset", "--text"], &mixed);
    assert_eq!(stdout(&out), "1i32\n2i64\n[true, false]\n");
}

#[test]
fn dataset_reports_bad_arguments_and_input() {
    let cases: [(&[&str], &[u8], &str); 5] = [
        (
            &["dataset", "-g", "[3]f33"],
            b"",
            "error: invalid type `[3]f33` given to -g: column ",
        ),
        (
            &["dataset", "-g", "[3]"],
            b"",
            "error: invalid type `[3]` given to -g: column ",
        ),
        (
            &["dataset", "--i8-bounds=0:300", "-g", "i8"],
            b"",
            "error: --i8-bounds: ",
        ),
        (
            &["dataset", "--binary"],
            b"1 [2, 3",
            "error: standard input: line 1, column ",
        ),
        (
            &["dataset", "--text"],
            b"b\x02\x01 i32\x05\x00",
            "error: standard input: byte ",
        ),
    ];
    for (args, input, expected) in cases {
        let out = futhark(args, input);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert!(
            stderr(&out).starts_with(expected),
            "{args:?}: {}",
            stderr(&out)
        );
        assert!(!stderr(&out).contains("panicked"), "{args:?}");
    }
    let conflict = futhark(&["dataset", "-b", "--text", "-g", "i32"], b"");
    assert_eq!(conflict.status.code(), Some(2));
}

// ---------------------------------------------------------------------------------------------
// bench

/// Progress of `bench` over several files, with standard error not a terminal: plain lines
/// (no bar, no escape codes), the last one counting every dataset, timed or failed.
#[test]
fn bench_progress_is_plain_lines_when_not_on_a_terminal() {
    let dir = scratch("bench-progress");
    let sum =
        "-- ==\n-- input { [1, 2, 3] }\n-- input { [4] }\nentry main (xs: []i32) = i32.sum xs\n";
    let index = "-- ==\n-- input { [1, 2] 0i64 }\n-- input { [1, 2] 7i64 }\n\
                 entry main (xs: []i32) (i: i64) = xs[i]\n";
    std::fs::write(dir.join("sum.fut"), sum).expect("written");
    std::fs::write(dir.join("index.fut"), index).expect("written");
    let d = dir.display().to_string();
    let out = futhark(&["bench", "--backend", "interp", "--runs", "1", &d], b"");
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "one dataset fails: {err}");
    // Results on standard output, one line per timed dataset.
    assert_eq!(stdout(&out).lines().count(), 3, "{}", stdout(&out));
    assert!(err.contains("failed:"), "{err}");
    let progress: Vec<&str> = err.lines().filter(|l| l.starts_with("bench: ")).collect();
    let last = progress.last().copied().unwrap_or_default();
    assert!(
        last.starts_with("bench: 4/4 datasets, 3 timed, 1 failed, "),
        "{err}"
    );
    assert!(last.contains(" elapsed"), "{last}");
    assert!(!err.contains('\u{1b}') && !err.contains('\r'), "{err:?}");
}
