//! Parser throughput benchmark: reads every `.fut` file under a directory (default: the
//! shared corpus, `../shared` from the workspace root), then lexes and parses all of them
//! `N` times on one thread and prints files, bytes, time, files/s and MB/s.
//!
//! Usage: `cargo run --release -p futhark-syntax --example parse_bench -- [DIR] [N]`

use futhark_syntax::{FileId, parse};
use std::path::{Path, PathBuf};
use std::time::Instant;

fn fut_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            fut_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "fut") {
            out.push(path);
        }
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let dir = args
        .next()
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared"));
    let rounds: usize = args
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or(10)
        .max(1);

    let mut paths = Vec::new();
    fut_files(&dir, &mut paths);
    paths.sort();
    let texts: Vec<String> = paths
        .iter()
        .filter_map(|p| std::fs::read_to_string(p).ok())
        .collect();
    let bytes: usize = texts.iter().map(String::len).sum();
    if texts.is_empty() {
        eprintln!("no .fut files under {}", dir.display());
        std::process::exit(1);
    }

    // One warm-up round, then the timed rounds.
    let mut errors = 0;
    for (i, t) in texts.iter().enumerate() {
        errors += parse(FileId(i as u32), t).errors.len();
    }
    let mut best = f64::INFINITY;
    let start = Instant::now();
    for _ in 0..rounds {
        let round = Instant::now();
        for (i, t) in texts.iter().enumerate() {
            std::hint::black_box(parse(FileId(i as u32), t));
        }
        best = best.min(round.elapsed().as_secs_f64());
    }
    let total = start.elapsed().as_secs_f64();
    let mean = total / rounds as f64;
    println!("directory:  {}", dir.display());
    println!("files:      {} ({errors} syntax diagnostics)", texts.len());
    println!("bytes:      {bytes} ({:.2} MB)", bytes as f64 / 1e6);
    println!("rounds:     {rounds}, total {:.1} ms", total * 1e3);
    println!(
        "per round:  mean {:.1} ms, best {:.1} ms",
        mean * 1e3,
        best * 1e3
    );
    println!("files/s:    {:.0}", texts.len() as f64 / mean);
    println!("MB/s:       {:.1}", bytes as f64 / 1e6 / mean);
}
