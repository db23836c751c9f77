//! Type-checking benchmark through the database: (1) checks every `.fut` file under a
//! directory (default `../shared`) and prints files/s; (2) builds a 2000-line program, then
//! edits one function body repeatedly and prints the median latency of the re-check.
//!
//! `cargo run --release -p futhark-db --example check_bench -- [DIR]`

use std::path::{Path, PathBuf};
use std::time::Instant;

use futhark_db::{Database, Db, check_diagnostics};

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
        let mut with_errors = 0;
        for path in &files {
            if let Some(file) = db.load_file(path)
                && check_diagnostics(&db, file).iter().any(|d| d.is_error())
            {
                with_errors += 1;
            }
        }
        let secs = start.elapsed().as_secs_f64();
        println!(
            "corpus:             {} files in {:.2} s = {:.0} files/s ({with_errors} with errors, as expected by their tests or not)",
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
    let mut times = Vec::new();
    for edit in 1..=50 {
        db.set_file("/bench/big.fut", big_program(500, edit));
        let start = Instant::now();
        let _ = check_diagnostics(&db, file);
        times.push(start.elapsed().as_secs_f64() * 1e3);
    }
    times.sort_by(f64::total_cmp);
    println!(
        "edit one body:      median re-check {:.1} ms (min {:.1}, max {:.1}, 50 edits; target < 20 ms)",
        times[times.len() / 2],
        times[0],
        times[times.len() - 1]
    );
}
