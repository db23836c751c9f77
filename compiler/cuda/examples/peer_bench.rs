//! Peer-copy bandwidth between every ordered pair of visible GPUs, and a device-local copy
//! for reference, as a printed matrix (GB/s, one direction, 1 GiB per copy, median of 10
//! after 2 warm-ups, timed with events on the receiving GPU's stream).
//!
//! `cargo run --release -p futhark-cuda --example peer_bench [-- MiB]`. Exits with 2 and a
//! clear message without a GPU.

use std::process::ExitCode;

use futhark_cuda::runtime::{CudaError, Gpu, enable_peer_access};

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v.get(v.len() / 2).copied().unwrap_or(0.0)
}

/// Times `reps` copies of `bytes` from GPU `src` to GPU `dst` (the same GPU: a local copy).
fn time_copy(gpus: &mut [Gpu], src: usize, dst: usize, bytes: usize) -> Result<f64, CudaError> {
    let a = gpus[src].alloc(bytes)?;
    let b = gpus[dst].alloc(bytes)?;
    gpus[src].memset_u32(&a, 0x3f80_0000, bytes / 4)?;
    gpus[src].synchronize()?;
    let mut times = Vec::new();
    for rep in 0..12 {
        gpus[dst].timer.reset();
        if src == dst {
            gpus[dst].copy(&b, &a, bytes)?;
        } else {
            let (from, to) = if src < dst {
                let (l, r) = gpus.split_at_mut(dst);
                (&l[src], &mut r[0])
            } else {
                let (l, r) = gpus.split_at_mut(src);
                (&r[0], &mut l[dst])
            };
            to.copy_from_peer(&b, 0, from, &a, 0, bytes)?;
        }
        let stats = gpus[dst].report()?;
        if rep >= 2 {
            times.extend(stats.values().map(|s| s.total_ms));
        }
    }
    gpus[src].free(a);
    gpus[dst].free(b);
    let ms = median(times);
    Ok(bytes as f64 / (ms * 1e6))
}

fn run(mib: usize) -> Result<(), CudaError> {
    let mut gpus = Gpu::open_all(None)?;
    let n = gpus.len();
    for g in &gpus {
        println!(
            "GPU {}: {} ({})",
            g.info.ordinal,
            g.info.name,
            g.info.arch()
        );
    }
    let access = enable_peer_access(&gpus)?;
    println!("peer access (row reads column):");
    for (i, row) in access.matrix.iter().enumerate() {
        let cells: Vec<&str> = row.iter().map(|&b| if b { "yes" } else { "no" }).collect();
        println!("  GPU {i}: {}", cells.join(" "));
    }
    let bytes = mib << 20;
    println!(
        "copy bandwidth, GB/s ({mib} MiB; row = source, column = destination; diagonal = local copy):"
    );
    let header: Vec<String> = (0..n)
        .map(|j| format!("{:>9}", format!("to {j}")))
        .collect();
    println!("{:>8} {}", "", header.join(""));
    for i in 0..n {
        let mut row = String::new();
        for j in 0..n {
            let gbps = time_copy(&mut gpus, i, j, bytes)?;
            row.push_str(&format!("{gbps:>9.1}"));
        }
        println!("{:>8} {row}", format!("from {i}"));
    }
    if n == 1 {
        println!("one GPU visible: no peer pairs to measure");
    }
    Ok(())
}

fn main() -> ExitCode {
    let mib = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1024usize);
    match run(mib) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("peer_bench: {e}");
            ExitCode::from(2)
        }
    }
}
