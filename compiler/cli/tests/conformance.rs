//! The conformance ratchet: runs `futhark-rs test` over the Futhark test corpus in every mode
//! that `tests/conformance-expected.json` lists with a count, and fails if fewer cases pass
//! than recorded there. A mode recorded as `null` is not available yet and is not run.
//!
//! Each mode's record is `{"passed": N}`, optionally with `"args": [...]`, extra arguments for
//! `futhark-rs test` (such as `["--timeout", "20"]`), and `"mode"` when the record's name is
//! not the mode it runs (`ir-2gpus` runs `ir` over two simulated devices). When more cases pass than recorded, the
//! test says so: raise the number in the file so the gain cannot be lost silently.
//!
//! CI time (two cores): the CPU twin's modes run with 30 s per case, not 120 s. At 120 s,
//! 22 programs that only time out on the twin (AD benchmarks, 1024² products) took 22 of
//! `ir`'s 24 minutes; at 30 s `ir` takes ~8 minutes and passes 2708 cases against 2715
//! (measured on a fresh Debian 12 clone, 2026-12-07), and the two-device run covers one file
//! in four (session 20: ir 2728, two devices 703). The recorded counts sit a few cases below
//! the measured ones, for timing noise at the time limit.

use std::path::{Path, PathBuf};
use std::process::Command;

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn conformance_ratchet() {
    let root = repo_root();
    let corpus = root.join("../shared/conformance/futhark-tests");
    if !corpus.is_dir() {
        println!(
            "conformance ratchet skipped: ../shared/conformance/futhark-tests not found \
             (it exists only beside the project checkout)"
        );
        return;
    }
    let expected_path = root.join("tests/conformance-expected.json");
    let expected: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(&expected_path).expect("tests/conformance-expected.json"),
    )
    .expect("tests/conformance-expected.json is valid JSON");
    let modes = expected
        .as_object()
        .expect("tests/conformance-expected.json holds an object of modes");
    let out_dir = std::env::temp_dir().join(format!("futhark-rs-ratchet-{}", std::process::id()));
    std::fs::create_dir_all(&out_dir).expect("temp dir");
    let mut regressions = Vec::new();
    // Counts and wall time per mode; with `CONFORMANCE_REPORT=path` also written there, so
    // that tests/run.sh shows them for a passing run (cargo captures a passing test's output).
    let mut report: Vec<String> = Vec::new();
    for (mode, record) in modes {
        let Some(minimum) = record.get("passed").and_then(serde_json::Value::as_u64) else {
            println!("{mode}: not available yet (null in conformance-expected.json)");
            continue;
        };
        // Optional extra arguments, e.g. `"args": ["--timeout", "20"]`.
        let extra: Vec<&str> = record
            .get("args")
            .and_then(serde_json::Value::as_array)
            .map(|args| args.iter().filter_map(serde_json::Value::as_str).collect())
            .unwrap_or_default();
        // A record may name the mode it runs (several records can test one mode with
        // different arguments, e.g. `ir` over two simulated devices).
        let run_mode = record
            .get("mode")
            .and_then(serde_json::Value::as_str)
            .unwrap_or(mode);
        let json = out_dir.join(format!("{mode}.json"));
        let started = std::time::Instant::now();
        let out = Command::new(env!("CARGO_BIN_EXE_futhark-rs"))
            .args(["test", "--mode", run_mode])
            .args(&extra)
            .arg("--json")
            .arg(&json)
            .arg(&corpus)
            .output()
            .expect("futhark-rs runs");
        let summary = String::from_utf8_lossy(&out.stdout);
        assert_ne!(
            out.status.code(),
            Some(2),
            "mode {mode} has a count in conformance-expected.json but did not run: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let verdicts: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&json).expect("--json written"))
                .expect("--json output is valid JSON");
        let passed = verdicts["passed"].as_u64().expect("passed count");
        let line = format!(
            "{mode}: {} ({:.0} s)",
            summary.lines().last().unwrap_or("(no summary)"),
            started.elapsed().as_secs_f64()
        );
        println!("{line}");
        report.push(line);
        if passed < minimum {
            regressions.push(format!(
                "{mode}: {passed} passed, but conformance-expected.json records {minimum}"
            ));
        } else if passed > minimum {
            println!(
                "{mode}: {passed} passed, more than the {minimum} recorded: raise \"{mode}\" in \
                 tests/conformance-expected.json to {passed}"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&out_dir);
    if let Ok(path) = std::env::var("CONFORMANCE_REPORT") {
        let _ = std::fs::write(&path, report.join("\n") + "\n");
    }
    assert!(
        regressions.is_empty(),
        "regressions:\n{}",
        regressions.join("\n")
    );
}
