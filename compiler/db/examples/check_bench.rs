//! Type-checking benchmark through the database: (1) checks every `.fut` file under a
//! directory (default `../shared`) and prints files/s; (2) builds a 2000-line program, then
//! edits one function body repeatedly and prints the median latency of the re-check.
//!
//! `cargo run --release -p futhark-db --example check_bench -- [DIR]`
//!
//! Beside wall-clock times it prints the CPU time of the benchmark thread (Linux), which
//! stays meaningful when other jobs share the machine.

use std::path::{Path, PathBuf};
use std::time::Instant;

use futhark_db::{Database, Db, check_diagnostics};

/// Nanoseconds this thread has run on a CPU (`None` where `/proc` does not say).
fn thread_cpu_ns() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    stat.split_whitespace().next()?.parse().ok()
}

/// Milliseconds of thread CPU time since `start` (NaN where unknown).
fn cpu_ms_since(start: Option<u64>) -> f64 {
    match (start, thread_cpu_ns()) {
        (Some(a), Some(b)) => (b - a) as f64 / 1e6,
        _ => f64::NAN,
    }
}

fn fut_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            fut_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "fut") {
            out.push(path);
        }
    }
}

/// Makes the benchmark program after edit number `n`.
type Edit = fn(usize) -> String;

/// A program of `defs` small functions, each about four lines, calling its predecessor.
fn big_program(defs: usize, edit: usize) -> String {
    let mut src = String::new();
    for i in 0..defs {
        let body = if i == defs / 2 {
            format!("x + {edit}")
        } else {
            "x * 2 + 1".to_string()
        };
        let call = if i == 0 {
            String::new()
        } else {
            format!("let y = f{} x\n  ", i - 1)
        };
        src.push_str(&format!(
            "def f{i} (x: i64) : i64 =\n  {call}let z = map (+1) (iota 3)\n  in {body} + z[0]\n\n"
        ));
    }
    src
}

fn main() {
    let dir = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "../shared".to_string());
    let mut files = Vec::new();
    fut_files(Path::new(&dir), &mut files);

    // The prelude is checked once per process; keep it out of the corpus figure.
    let start = Instant::now();
    let _ = futhark_db::check_context();
    println!(
        "prelude load:       {:.1} ms",
        start.elapsed().as_secs_f64() * 1e3
    );

    if !files.is_empty() {
        let db = Database::new();
        let start = Instant::now();
        let cpu = thread_cpu_ns();
        let mut with_errors = 0;
        for path in &files {
            if let Some(file) = db.load_file(path)
                && check_diagnostics(&db, file).iter().any(|d| d.is_error())
            {
                with_errors += 1;
            }
        }
        let secs = start.elapsed().as_secs_f64();
        let cpu_secs = cpu_ms_since(cpu) / 1e3;
        println!(
            "corpus:             {} files in {:.2} s = {:.0} files/s, {cpu_secs:.2} s CPU ({with_errors} with errors, as expected by their tests or not)",
            files.len(),
            secs,
            files.len() as f64 / secs
        );
    }

    let mut db = Database::new();
    let text = big_program(500, 0);
    let lines = text.lines().count();
    let file = db.set_file("/bench/big.fut", text);
    let start = Instant::now();
    let diags = check_diagnostics(&db, file);
    assert!(diags.is_empty(), "benchmark program must check: {diags:?}");
    println!(
        "2000-line program:  {lines} lines, first check {:.1} ms",
        start.elapsed().as_secs_f64() * 1e3
    );
    // Same-length edits (`x + 1` → `x + 2`), then typing (`x + 1` → `x + 12` → …), which
    // moves everything after the edit.
    let series: [(&str, Edit); 2] = [
        ("edit one body:     ", |edit| big_program(500, edit)),
        ("type into one body:", |edit| {
            let digits: String = (1..=edit)
                .map(|d| char::from(b'0' + (d % 10) as u8))
                .collect();
            big_program(500, 0).replacen("x + 0 +", &format!("x + {digits} +"), 1)
        }),
    ];
    for (label, make) in series {
        let mut times = Vec::new();
        let mut cpu_times = Vec::new();
        for edit in 1..=50 {
            db.set_file("/bench/big.fut", make(edit));
            let start = Instant::now();
            let cpu = thread_cpu_ns();
            let _ = check_diagnostics(&db, file);
            times.push(start.elapsed().as_secs_f64() * 1e3);
            cpu_times.push(cpu_ms_since(cpu));
        }
        times.sort_by(f64::total_cmp);
        // The scheduler accounts CPU time in ticks, so a mean says more than a median.
        let cpu_mean = cpu_times.iter().sum::<f64>() / cpu_times.len() as f64;
        println!(
            "{label} median re-check {:.1} ms (min {:.1}, max {:.1}, 50 edits; target < 20 ms), mean CPU {cpu_mean:.1} ms",
            times[times.len() / 2],
            times[0],
            times[times.len() - 1],
        );
    }
}
