//! Every run case of the conformance corpus (`../shared/conformance/futhark-tests`, or
//! `CORPUS_DIR`) through compilation to kernels and the CPU executor, compared with the
//! expected outputs. Prints counts and the most common failure reasons, and fails when the
//! number of passing cases drops below the floor. Skips (and passes) without the corpus.
//!
//! CI runs every fourth file (`CORPUS_SAMPLE=4`, the default): the conformance ratchet
//! (`compiler/cli/tests/conformance.rs`, `--mode ir`) already runs the whole corpus through the
//! same pipeline and executor, so this crate-level run is a sample with its own floor.
//! `CORPUS_SAMPLE=1` runs every file against the whole-corpus floor.

use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use futhark_db::{Database, Db, IrStage};
use futhark_exec::{CpuBackend, ExecError, Executor};
use futhark_testspec::{CaseInput, Expectation, TestSpec};
use futhark_values::{Value, compare_values, read_file, read_values};

/// Cases passing when this floor was last raised (1740 on a loaded machine), less a margin of
/// 30: heavy cases near the per-file limit pass or not with the load on CI's two cores.
const FLOOR: usize = 1710;
/// The floor of the default sample (every fourth file): 507 passed on a loaded machine
/// (2026-12-07), less a margin of 12 as for [`FLOOR`].
const SAMPLE_FLOOR: usize = 495;
/// Every how many files the default run takes.
const DEFAULT_SAMPLE: usize = 4;
/// Per-file time limit (compile plus all cases).
const FILE_LIMIT: Duration = Duration::from_secs(15);

fn corpus_dir() -> PathBuf {
    match std::env::var("CORPUS_DIR") {
        Ok(d) => PathBuf::from(d),
        Err(_) => PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../../shared/conformance/futhark-tests"),
    }
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            collect(&p, out);
        } else if p.extension().is_some_and(|x| x == "fut") {
            out.push(p);
        }
    }
}

#[derive(Default)]
struct FileResult {
    compiled: bool,
    passed: usize,
    failed: Vec<String>,
}

fn inputs(dir: &Path, input: &CaseInput) -> Option<Result<Vec<Value>, String>> {
    match input {
        CaseInput::Values(t) => Some(read_values(t.as_bytes()).map_err(|e| e.to_string())),
        CaseInput::File(p) => Some(read_file(dir.join(p)).map_err(|e| e.to_string())),
        _ => None,
    }
}

/// A failure reason without the details that differ between programs.
fn reason_class(msg: &str) -> String {
    let first = msg.lines().next().unwrap_or("");
    let cut: String = first
        .chars()
        .map(|c| if c.is_ascii_digit() { '#' } else { c })
        .collect();
    let cut = cut.split('`').step_by(2).collect::<Vec<_>>().join("`_`");
    cut.chars().take(90).collect()
}

fn run_file(path: &Path, deadline: Instant) -> FileResult {
    let mut r = FileResult::default();
    let Ok(src) = std::fs::read_to_string(path) else {
        return r;
    };
    let Ok(spec) = TestSpec::parse(&src) else {
        return r;
    };
    if spec.compile_error().is_some() || spec.has_tag("no_ir") {
        return r;
    }
    let runs: Vec<_> = spec
        .runs()
        .filter(|(_, c)| {
            inputs(Path::new("."), &c.input).is_some() || matches!(c.input, CaseInput::Values(_))
        })
        .collect();
    if runs.is_empty() {
        return r;
    }
    let db = Database::new();
    let Some(file) = db.load_file(path) else {
        return r;
    };
    if futhark_db::program_diagnostics(&db, file)
        .iter()
        .flat_map(|(_, d)| d)
        .any(|d| d.is_error())
    {
        return r;
    }
    let prog = match futhark_db::compile(&db, file, IrStage::Kernels) {
        Ok(p) => p,
        Err(e) => {
            let msg = e
                .diagnostics(&db, file)
                .first()
                .map(|d| d.message.clone())
                .unwrap_or_default();
            r.failed.push(format!("compile: {msg}"));
            return r;
        }
    };
    r.compiled = true;
    let mut exec = match Executor::new(prog, CpuBackend::new()) {
        Ok(e) => e,
        Err(e) => {
            r.failed.push(format!("load: {e}"));
            return r;
        }
    };
    exec.set_deadline(Some(deadline));
    exec.backend().set_deadline(Some(deadline));
    let dir = path.parent().unwrap_or(Path::new("."));
    for (entry, case) in runs {
        let Some(args) = inputs(dir, &case.input) else {
            continue;
        };
        let args = match args {
            Ok(a) => a,
            Err(_) => continue,
        };
        let got = exec.call_entry(entry, args);
        let verdict: Result<(), String> = match (&case.expect, got) {
            (_, Err(ExecError::Timeout)) => Err("timeout".into()),
            (Expectation::RunError(re), Err(ExecError::Runtime { msg: m, .. })) => {
                let text = format!("Error: {m}");
                match regex_lite_match(re, &text) {
                    true => Ok(()),
                    false => Err(format!("error text differs: {m}")),
                }
            }
            (Expectation::RunError(_), Ok(_)) => Err("expected an error, succeeded".into()),
            (_, Err(e)) => Err(e.to_string()),
            (Expectation::Values(t), Ok(got)) => match read_values(t.as_bytes()) {
                Ok(exp) => compare_values(&exp, &got).map_err(|m| format!("wrong result: {m}")),
                Err(_) => continue,
            },
            (Expectation::File(p), Ok(got)) => match read_file(dir.join(p)) {
                Ok(exp) => compare_values(&exp, &got).map_err(|m| format!("wrong result: {m}")),
                Err(_) => continue,
            },
            (Expectation::Succeed | Expectation::Auto, Ok(_)) => Ok(()),
        };
        match verdict {
            Ok(()) => r.passed += 1,
            Err(m) => {
                let stop = m == "timeout";
                r.failed.push(m);
                if stop {
                    break;
                }
            }
        }
    }
    r
}

/// The test's error regexes are simple; a substring match of their literal parts is
/// enough for the floor (the CLI runner uses real regexes).
fn regex_lite_match(re: &str, text: &str) -> bool {
    re.split(|c: char| ".*+?()[]|\\^$".contains(c))
        .filter(|p| p.len() > 2)
        .all(|p| text.contains(p))
}

#[test]
fn corpus_runs_on_the_cpu_executor() {
    let root = corpus_dir();
    if !root.is_dir() {
        println!("skipping: no corpus at {}", root.display());
        return;
    }
    let mut files = Vec::new();
    collect(&root, &mut files);
    let filter = std::env::var("CORPUS_FILTER").ok();
    let sample = corpus_sample();
    let files: Vec<PathBuf> = files.into_iter().step_by(sample).collect();
    let (mut compiled, mut passed, mut failed) = (0, 0, 0);
    let mut reasons: BTreeMap<String, (usize, String)> = BTreeMap::new();
    for path in files {
        let rel = path
            .strip_prefix(&root)
            .unwrap_or(&path)
            .display()
            .to_string();
        if filter.as_ref().is_some_and(|f| !rel.contains(f.as_str())) {
            continue;
        }
        let (tx, rx) = mpsc::channel();
        let p = path.clone();
        let deadline = Instant::now() + FILE_LIMIT;
        let handle = std::thread::Builder::new()
            .stack_size(256 << 20)
            .spawn(move || {
                let r = catch_unwind(AssertUnwindSafe(|| run_file(&p, deadline)));
                let _ = tx.send(r.unwrap_or_else(|_| FileResult {
                    compiled: false,
                    passed: 0,
                    failed: vec!["panic".into()],
                }));
            })
            .expect("spawn");
        let r = rx
            .recv_timeout(FILE_LIMIT * 4)
            .unwrap_or_else(|_| FileResult {
                compiled: false,
                passed: 0,
                failed: vec!["hung (compile)".into()],
            });
        drop(handle);
        compiled += r.compiled as usize;
        passed += r.passed;
        failed += r.failed.len();
        for f in &r.failed {
            let e = reasons.entry(reason_class(f)).or_insert((0, rel.clone()));
            e.0 += 1;
        }
        if std::env::var("CORPUS_VERBOSE").is_ok() && !r.failed.is_empty() {
            println!(
                "{rel}: {}",
                r.failed.join(" | ").chars().take(300).collect::<String>()
            );
        }
    }
    println!(
        "ir corpus (1 file in {sample}): {compiled} files compiled to kernels; {passed} cases passed, {failed} failed"
    );
    let mut top: Vec<_> = reasons.into_iter().collect();
    top.sort_by_key(|(_, (n, _))| std::cmp::Reverse(*n));
    for (r, (n, example)) in top.iter().take(40) {
        println!("  {n:4} {r} (e.g. {example})");
    }
    let floor = match (sample, filter) {
        (_, Some(_)) => 0,
        (1, None) => FLOOR,
        (DEFAULT_SAMPLE, None) => SAMPLE_FLOOR,
        _ => 0,
    };
    assert!(
        passed >= floor,
        "{passed} cases passed, the floor is {floor}"
    );
}

/// `CORPUS_SAMPLE=N`: every N-th file of the sorted corpus (default [`DEFAULT_SAMPLE`]).
fn corpus_sample() -> usize {
    std::env::var("CORPUS_SAMPLE")
        .ok()
        .and_then(|n| n.parse().ok())
        .filter(|&n| n >= 1)
        .unwrap_or(DEFAULT_SAMPLE)
}
