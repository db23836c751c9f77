//! Re-check latency on a module-heavy file: the 2000-line program of the LSP latency
//! benchmark (`tests/lsp/bench_latency.py`: blocks of a function, a two-function module, a
//! function using the module and an entry point), edited inside a function body in the
//! middle, alternating between a type error and the valid program as the LSP benchmark does.
//! The same for the flat variant (the module's members as top-level definitions).
//!
//! `cargo run --release -p futhark-db --example check_bench_modules`

use std::time::Instant;

use futhark_db::{Database, check_diagnostics};

const BLOCK: &str = "-- | Block {i}: a scaled sum of squares.
def sumsq_{i} [n] (xs: [n]f32) : f32 =
  let sq = map (\\x -> x * x) xs
  let total = reduce (+) 0f32 sq
  in total * f32.i64 n

module M{i} = {
  def scale (k: f32) (x: f32) : f32 = k * x
  def shift (k: f32) (x: f32) : f32 = x + k
}

def step_{i} (acc: f32) (k: i32) : f32 =
  let twice = M{i}.scale 2f32 acc
  let moved = M{i}.shift (f32.i32 k) twice
  in if moved > 100f32 then moved / 2f32 else moved

entry run_{i} (xs: []f32) : f32 =
  loop acc = sumsq_{i} xs for k < 10 do step_{i} acc k

";

/// Nanoseconds this thread has run on a CPU (`None` where `/proc` does not say).
fn thread_cpu_ns() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    stat.split_whitespace().next()?.parse().ok()
}

fn flat_block() -> String {
    BLOCK
        .replace(
            "module M{i} = {\n  def scale (k: f32) (x: f32) : f32 = k * x\n  def shift (k: f32) (x: f32) : f32 = x + k\n}\n",
            "def scale_{i} (k: f32) (x: f32) : f32 = k * x\ndef shift_{i} (k: f32) (x: f32) : f32 = x + k\n",
        )
        .replace("M{i}.scale", "scale_{i}")
        .replace("M{i}.shift", "shift_{i}")
}

/// Blocks until the program has at least `lines` lines (as the LSP benchmark makes it).
fn program(lines: usize, block: &str) -> String {
    let mut out = String::new();
    let mut i = 0;
    while out.matches('\n').count() < lines {
        out.push_str(&block.replace("{i}", &i.to_string()));
        i += 1;
    }
    out
}

fn main() {
    let _ = futhark_db::check_context();
    for (label, block) in [("modules", BLOCK.to_string()), ("flat", flat_block())] {
        let text = program(2000, &block);
        let lines: Vec<&str> = text.split('\n').collect();
        let Some(target) =
            (lines.len() / 2..lines.len()).find(|&i| lines[i] == "  in total * f32.i64 n")
        else {
            eprintln!("no line to edit");
            return;
        };
        let at: usize = lines[..target].iter().map(|l| l.len() + 1).sum::<usize>() + "  in ".len();
        let mut db = Database::new();
        let file = db.set_file("/bench/big.fut", text.clone());
        let start = Instant::now();
        let diags = check_diagnostics(&db, file);
        let first = start.elapsed().as_secs_f64() * 1e3;
        if diags.iter().any(|d| d.is_error()) {
            eprintln!("{label}: the benchmark program has errors: {diags:?}");
            return;
        }
        let mut times = Vec::new();
        let mut cpu = Vec::new();
        for k in 0..60 {
            let word = if k % 2 == 0 { "true" } else { "total" };
            let edited = format!("{}{word}{}", &text[..at], &text[at + "total".len()..]);
            db.set_file("/bench/big.fut", edited);
            let start = Instant::now();
            let c0 = thread_cpu_ns();
            let diags = check_diagnostics(&db, file);
            times.push(start.elapsed().as_secs_f64() * 1e3);
            if let (Some(a), Some(b)) = (c0, thread_cpu_ns()) {
                cpu.push((b - a) as f64 / 1e6);
            }
            if diags.iter().any(|d| d.is_error()) != (k % 2 == 0) {
                eprintln!("{label}: unexpected diagnostics after edit {k}");
                return;
            }
        }
        times.sort_by(f64::total_cmp);
        let cpu_mean = cpu.iter().sum::<f64>() / cpu.len().max(1) as f64;
        println!(
            "{label}: {} lines, first check {first:.1} ms; body edit re-check median {:.1} ms (min {:.1}, max {:.1}, 60 edits), mean CPU {cpu_mean:.1} ms",
            lines.len(),
            times[times.len() / 2],
            times[0],
            times[times.len() - 1],
        );
    }
}
