//! Runs the run cases of Futhark's own test programs (`shared/conformance/futhark-tests`)
//! through the interpreter and compares results, printing pass counts per top-level folder
//! and holding a ratchet floor on the total.
//!
//! Cases tagged `compiled`, random inputs with `auto output`, and FutharkScript inputs are
//! skipped (and counted as such); structure checks are not portable and are only counted.
//! Each case runs with a time limit; a stuck program is interrupted. Set
//! `CORPUS_REPORT=path` to write one line per failing case, and `CORPUS_FILTER=text` to run
//! only programs whose path contains `text`.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use futhark_db::Db;
use futhark_interp::program::Program;
use futhark_interp::{Interpreter, SourceMap};
use futhark_testspec::{CaseInput, Expectation, RunMode, TestSpec};

/// The number of passing cases this implementation reaches; raise it as things improve.
const FLOOR: usize = 1890;

const CASE_TIMEOUT: Duration = Duration::from_secs(10);

/// The program rooted at `path`, loaded and checked through the database.
fn load(path: &Path) -> Result<Program, String> {
    let db = futhark_db::Database::new();
    let file = db
        .load_file(path)
        .ok_or_else(|| format!("{}: cannot read", path.display()))?;
    Ok(futhark_db::interp_program(&db, file).program)
}

fn corpus_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/conformance/futhark-tests")
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

#[derive(Default, Clone, Copy)]
struct Counts {
    pass: usize,
    fail: usize,
    skip: usize,
}

/// Runs every case of one program; returns counts and failure lines.
fn run_program(path: &Path, root: &Path) -> (Counts, Vec<String>) {
    let mut c = Counts::default();
    let mut failures = Vec::new();
    let Ok(text) = std::fs::read_to_string(path) else {
        return (c, failures);
    };
    let Ok(spec) = TestSpec::parse(&text) else {
        return (c, failures);
    };
    let mode = RunMode::interpreter();
    let rel = path
        .strip_prefix(root)
        .unwrap_or(path)
        .display()
        .to_string();
    let runs: Vec<_> = spec.runs().collect();
    if runs.is_empty() {
        return (c, failures);
    }
    if spec.is_excluded(&mode) {
        c.skip += runs.len();
        return (c, failures);
    }
    let mut todo = Vec::new();
    for (entry, case) in runs {
        let runnable = !case.is_excluded(&mode)
            && matches!(case.input, CaseInput::Values(_) | CaseInput::File(_))
            && !matches!(case.expect, Expectation::Auto);
        if runnable {
            todo.push((entry, case));
        } else {
            c.skip += 1;
        }
    }
    if todo.is_empty() {
        return (c, failures);
    }
    let loaded = load(path);
    let program = match loaded {
        Ok(p) => p,
        Err(e) => {
            c.fail += todo.len();
            failures.push(format!("{rel}: load: {e}"));
            return (c, failures);
        }
    };
    let sources = SourceMap::new(&program);
    let describe = |s| sources.describe(s);
    let dir = path.parent().unwrap_or(Path::new("."));
    let interp = match Interpreter::with_timeout(program, Some(CASE_TIMEOUT)) {
        Ok(i) => Some(i),
        Err(e) => {
            // Expected run-time errors can also happen while loading constants.
            let msg = e.render(&describe);
            for (entry, case) in &todo {
                match &case.expect {
                    Expectation::RunError(re) if regex_match(re, &msg) => c.pass += 1,
                    _ => {
                        c.fail += 1;
                        failures.push(format!(
                            "{rel}:{} {entry}: load: {}",
                            case.line,
                            one_line(&msg)
                        ));
                    }
                }
            }
            None
        }
    };
    let Some(interp) = interp else {
        return (c, failures);
    };
    for (entry, case) in todo {
        let args = match &case.input {
            CaseInput::Values(t) => {
                futhark_values::read_values(t.as_bytes()).map_err(|e| e.to_string())
            }
            CaseInput::File(f) => futhark_values::read_file(dir.join(f)).map_err(|e| e.to_string()),
            _ => Err("unsupported input".to_string()),
        };
        let args = match args {
            Ok(a) => a,
            Err(e) => {
                c.fail += 1;
                failures.push(format!("{rel}:{} {entry}: bad input: {e}", case.line));
                continue;
            }
        };
        let result = interp.call_entry_timeout(entry, args, Some(CASE_TIMEOUT));
        let verdict: Result<(), String> = match (&case.expect, result) {
            (Expectation::RunError(re), Err(e)) => {
                let msg = e.render(&describe);
                if regex_match(re, &msg) {
                    Ok(())
                } else {
                    Err(format!("error {:?} does not match /{re}/", one_line(&msg)))
                }
            }
            (Expectation::RunError(re), Ok(_)) => Err(format!("succeeded, expected error /{re}/")),
            (_, Err(e)) => Err(one_line(&e.render(&describe))),
            (Expectation::Succeed, Ok(_)) => Ok(()),
            (Expectation::Values(t), Ok(got)) => match futhark_values::read_values(t.as_bytes()) {
                Ok(exp) => compare(&exp, &got),
                Err(e) => Err(format!("bad expected output: {e}")),
            },
            (Expectation::File(f), Ok(got)) => match futhark_values::read_file(dir.join(f)) {
                Ok(exp) => compare(&exp, &got),
                Err(e) => Err(format!("bad expected output: {e}")),
            },
            (Expectation::Auto, Ok(_)) => Ok(()),
        };
        match verdict {
            Ok(()) => c.pass += 1,
            Err(e) => {
                c.fail += 1;
                failures.push(format!("{rel}:{} {entry}: {e}", case.line));
            }
        }
    }
    (c, failures)
}

fn compare(exp: &[futhark_values::Value], got: &[futhark_values::Value]) -> Result<(), String> {
    if exp.len() != got.len() {
        return Err(format!("expected {} values, got {}", exp.len(), got.len()));
    }
    futhark_values::compare_values(exp, got).map_err(|m| format!("{m}"))
}

fn regex_match(re: &str, text: &str) -> bool {
    match regex::Regex::new(re) {
        Ok(r) => r.is_match(text),
        Err(_) => text.contains(re),
    }
}

fn one_line(s: &str) -> String {
    let s = s.replace('\n', " | ");
    if s.len() > 300 {
        format!(
            "{}…",
            &s[..s.char_indices().nth(300).map_or(s.len(), |(i, _)| i)]
        )
    } else {
        s
    }
}

#[test]
fn corpus() {
    let root = corpus_dir();
    if !root.is_dir() {
        println!("corpus: skipped, {} not found", root.display());
        return;
    }
    let mut files = Vec::new();
    collect(&root, &mut files);
    if let Ok(filter) = std::env::var("CORPUS_FILTER") {
        files.retain(|p| p.display().to_string().contains(&filter));
    }
    let queue = Mutex::new(files.into_iter());
    let totals: Mutex<BTreeMap<String, Counts>> = Mutex::new(BTreeMap::new());
    let failures: Mutex<Vec<String>> = Mutex::new(Vec::new());
    let workers = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .clamp(1, 4);
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| {
                loop {
                    let next = queue.lock().map(|mut q| q.next()).unwrap_or(None);
                    let Some(path) = next else {
                        break;
                    };
                    let (c, f) = run_program(&path, &root);
                    let rel = path.strip_prefix(&root).unwrap_or(&path);
                    let folder = match rel.components().count() {
                        1 => "(top)".to_string(),
                        _ => rel
                            .components()
                            .next()
                            .map(|c| c.as_os_str().to_string_lossy().into_owned())
                            .unwrap_or_default(),
                    };
                    if let Ok(mut t) = totals.lock() {
                        let e = t.entry(folder).or_default();
                        e.pass += c.pass;
                        e.fail += c.fail;
                        e.skip += c.skip;
                    }
                    if let Ok(mut fl) = failures.lock() {
                        fl.extend(f);
                    }
                }
            });
        }
    });
    let totals = totals.into_inner().unwrap_or_default();
    let mut all = Counts::default();
    println!("{:<28} {:>6} {:>6} {:>6}", "folder", "pass", "fail", "skip");
    for (k, c) in &totals {
        println!("{k:<28} {:>6} {:>6} {:>6}", c.pass, c.fail, c.skip);
        all.pass += c.pass;
        all.fail += c.fail;
        all.skip += c.skip;
    }
    let run = all.pass + all.fail;
    println!(
        "{:<28} {:>6} {:>6} {:>6}   ({:.1}% of {run} run cases pass)",
        "TOTAL",
        all.pass,
        all.fail,
        all.skip,
        100.0 * all.pass as f64 / run.max(1) as f64
    );
    if let Ok(path) = std::env::var("CORPUS_REPORT") {
        let mut f = failures.into_inner().unwrap_or_default();
        f.sort();
        let _ = std::fs::write(path, f.join("\n"));
    }
    assert!(
        all.pass >= FLOOR,
        "corpus regression: {} cases pass, floor is {FLOOR}",
        all.pass
    );
}
