//! NVRTC compile time of real programs' kernels, one after another against side by side
//! (`nvrtc::compile_many`, what `CudaDevice::prepare` does). Needs NVRTC, not a GPU:
//!
//!     cargo run --release -p futhark-exec --example compile_bench -- [--threads N] [--parallel-only] [--split] FILE.fut...
//!
//! Every kernel of each program is generated and named by content as `CudaDevice::prepare`
//! does it, each distinct module once (the runtime compiles no text twice), and
//! compiled for sm_90 twice: on one thread, then on N threads (default: the machine's
//! parallelism, at most 16). The cubins of the two runs must be byte-identical.
//! `--parallel-only` skips the one-thread run; each line then also gives the front end's time
//! (check, lowering, passes, CUDA generation) and the total a GPU compile costs without
//! loading modules, and the last lines name the slowest programs (issue 25's 10 s bound).
//! `--split` compiles each entry point as its own unit, as the runtime does with
//! `FUTHARK_SPLIT_ENTRIES=1` (`runtime::units`); without it, each module whole (the default).

use std::path::PathBuf;
use std::time::Instant;

use futhark_cuda::runtime::{nvrtc, units};
use futhark_db::{Database, Db, IrStage};

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut threads = nvrtc::compile_threads(None);
    if let Some(i) = args.iter().position(|a| a == "--threads") {
        threads = args
            .get(i + 1)
            .and_then(|n| n.parse().ok())
            .unwrap_or(threads);
        args.drain(i..(i + 2).min(args.len()));
    }
    let parallel_only = args.iter().any(|a| a == "--parallel-only");
    let split = args.iter().any(|a| a == "--split");
    args.retain(|a| a != "--parallel-only" && a != "--split");
    if args.is_empty() {
        eprintln!("usage: compile_bench [--threads N] [--parallel-only] [--split] FILE.fut...");
        std::process::exit(2);
    }
    if !find_nvrtc() {
        eprintln!(
            "NVRTC not found: `pip install nvidia-cuda-nvrtc==13.0.*` or set FUTHARK_NVRTC_DIR"
        );
        std::process::exit(2);
    }
    let opts = nvrtc::options("sm_90");
    if parallel_only {
        println!("program\tmodules\tfront end (s)\t{threads} threads (s)\ttotal (s)");
    } else {
        println!("program\tmodules\tone thread (s)\t{threads} threads (s)\tspeed-up");
    }
    let mut totals: Vec<(f64, String)> = Vec::new();
    for path in args {
        let start = Instant::now();
        let db = Database::new();
        let Some(file) = db.load_file(&PathBuf::from(&path)) else {
            eprintln!("{path}: cannot read");
            continue;
        };
        let compiled = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            futhark_db::compile(&db, file, IrStage::Kernels)
        }));
        let prog = match compiled {
            Ok(Ok(p)) => p,
            Ok(Err(_)) => {
                eprintln!("{path}: does not compile");
                continue;
            }
            Err(_) => {
                eprintln!("{path}: the compiler panicked");
                continue;
            }
        };
        let mut sources = Vec::new();
        for kd in &prog.kernels {
            let mut kp = kd.program.clone();
            for k in &mut kp.kernels {
                k.name = format!("{}_{}", kd.name, k.name)
                    .chars()
                    .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
                    .collect();
            }
            match futhark_cuda::generate_program(&kp).map(|mut gks| {
                // Named by content, as `CudaDevice::prepare` names them: the runtime
                // compiles each distinct module once.
                gks.iter_mut().for_each(futhark_cuda::canonicalize);
                gks
            }) {
                // `--split`: each entry its own unit, as the runtime compiles them with
                // `CudaOptions::split_entries`.
                Ok(gks) if split => sources.extend(gks.iter().flat_map(|g| {
                    units::split(&g.source, &g.plan.entries())
                        .into_iter()
                        .map(|u| (u.source, u.entries.join("+")))
                })),
                Ok(gks) => sources.extend(gks.into_iter().map(|g| (g.source, g.name))),
                Err(e) => eprintln!("{path}: kernel {}: {e}", kd.name),
            }
        }
        let generated = sources.len();
        let mut seen = std::collections::HashSet::new();
        sources.retain(|(s, _)| seen.insert(s.clone()));
        if sources.len() < generated {
            eprintln!(
                "{path}: {generated} modules generated, {} distinct (each compiled once)",
                sources.len()
            );
        }
        let jobs: Vec<(&str, &str)> = sources
            .iter()
            .map(|(s, n)| (s.as_str(), n.as_str()))
            .collect();
        let front = start.elapsed().as_secs_f64();
        if parallel_only {
            let t = Instant::now();
            let compiled = nvrtc::compile_many(&jobs, &opts, threads);
            let many = t.elapsed().as_secs_f64();
            let failed = compiled.iter().filter(|c| c.is_err()).count();
            if failed > 0 {
                eprintln!("{path}: {failed} modules failed NVRTC");
            }
            println!(
                "{path}\t{}\t{front:.2}\t{many:.2}\t{:.2}",
                jobs.len(),
                front + many
            );
            totals.push((front + many, path.clone()));
            continue;
        }
        let t = Instant::now();
        let alone = nvrtc::compile_many(&jobs, &opts, 1);
        let one = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let together = nvrtc::compile_many(&jobs, &opts, threads);
        let many = t.elapsed().as_secs_f64();
        for ((a, b), (_, name)) in alone.iter().zip(&together).zip(&jobs) {
            match (a, b) {
                (Ok(a), Ok(b)) if a.cubin == b.cubin => {}
                (Err(_), Err(_)) => {}
                _ => panic!("{path}: {name}: the two runs disagree"),
            }
        }
        println!(
            "{path}\t{}\t{one:.2}\t{many:.2}\t{:.2}x",
            jobs.len(),
            one / many
        );
    }
    if !totals.is_empty() {
        totals.sort_by(|a, b| b.0.total_cmp(&a.0));
        let over = totals.iter().filter(|(t, _)| *t > 10.0).count();
        println!(
            "# {} programs; {over} took over 10 s; the slowest:",
            totals.len()
        );
        for (t, path) in totals.iter().take(10) {
            println!("#   {t:.2} s  {path}");
        }
    }
}

/// NVRTC from the loader path, `FUTHARK_NVRTC_DIR`, or the wheel of `python3`.
fn find_nvrtc() -> bool {
    if nvrtc::available() {
        return true;
    }
    let mut dirs: Vec<PathBuf> = Vec::new();
    if let Ok(d) = std::env::var("FUTHARK_NVRTC_DIR") {
        dirs.push(d.into());
    }
    if let Ok(out) = std::process::Command::new("python3")
        .args([
            "-c",
            "import nvidia, os; print(os.path.dirname(nvidia.__path__[0]))",
        ])
        .output()
        && out.status.success()
    {
        let site = String::from_utf8_lossy(&out.stdout).trim().to_string();
        dirs.push(PathBuf::from(site).join("nvidia/cu13/lib"));
    }
    dirs.iter().any(|d| nvrtc::preload_from(d))
}
