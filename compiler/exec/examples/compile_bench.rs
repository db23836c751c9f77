//! NVRTC compile time of real programs' kernels, one after another against side by side
//! (`nvrtc::compile_many`, what `CudaDevice::prepare` does). Needs NVRTC, not a GPU:
//!
//!     cargo run --release -p futhark-exec --example compile_bench -- [--threads N] FILE.fut...
//!
//! Every kernel of each program is generated as `CudaDevice::prepare` generates it and
//! compiled for sm_90 twice: on one thread, then on N threads (default: the machine's
//! parallelism, at most 16). The cubins of the two runs must be byte-identical.

use std::path::PathBuf;
use std::time::Instant;

use futhark_cuda::runtime::nvrtc;
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
    if args.is_empty() {
        eprintln!("usage: compile_bench [--threads N] FILE.fut...");
        std::process::exit(2);
    }
    if !find_nvrtc() {
        eprintln!(
            "NVRTC not found: `pip install nvidia-cuda-nvrtc==13.0.*` or set FUTHARK_NVRTC_DIR"
        );
        std::process::exit(2);
    }
    let opts = nvrtc::options("sm_90");
    println!("program\tmodules\tone thread (s)\t{threads} threads (s)\tspeed-up");
    for path in args {
        let db = Database::new();
        let Some(file) = db.load_file(&PathBuf::from(&path)) else {
            eprintln!("{path}: cannot read");
            continue;
        };
        let prog = match futhark_db::compile(&db, file, IrStage::Kernels) {
            Ok(p) => p,
            Err(_) => {
                eprintln!("{path}: does not compile");
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
            match futhark_cuda::generate_program(&kp) {
                Ok(gks) => sources.extend(gks.into_iter().map(|g| (g.source, g.name))),
                Err(e) => eprintln!("{path}: kernel {}: {e}", kd.name),
            }
        }
        let jobs: Vec<(&str, &str)> = sources
            .iter()
            .map(|(s, n)| (s.as_str(), n.as_str()))
            .collect();
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
