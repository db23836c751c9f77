//! The whole GPU path over `shared/conformance/futhark-tests`: every program that
//! type-checks is lowered, optimised with the IR checker after every pass, and its kernels
//! generated as CUDA (and compiled with NVRTC for sm_90 when NVRTC is found). Counts are
//! printed; the test fails on a panic, an invalid IR after any pass, a kernel the code
//! generator rejects, or an NVRTC error.

#[path = "../../lower/tests/common/mod.rs"]
mod common;

use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

use futhark_db::{Database, Db};
use futhark_ir::soacs::Program;
use futhark_opt::{pipeline, run_pipeline};

/// The corpus (`CORPUS_DIR` overrides it, e.g. with the benchmarks).
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
struct Tally {
    files: usize,
    checked: usize,
    lowered: usize,
    optimised: usize,
    kernels: usize,
    cuda_kernels: usize,
    panics: Vec<String>,
    bugs: Vec<String>,
    /// Reasons programs did not get through, with a count and an example.
    unsupported: BTreeMap<String, (usize, String)>,
    /// Per program, its generated CUDA sources (for NVRTC).
    sources: Vec<(String, Vec<String>)>,
}

fn note(t: &mut Tally, stage: &str, reason: &str, rel: &str) {
    let e = t
        .unsupported
        .entry(format!("{stage}: {reason}"))
        .or_insert((0, rel.to_string()));
    e.0 += 1;
}

fn generate(t: &mut Tally, rel: &str, prog: &Program) {
    let mut sources = Vec::new();
    let index = t.sources.len();
    for k in &prog.kernels {
        t.kernels += 1;
        // Kernel names are unique within a program; NVRTC sees many programs at once.
        let mut kp = k.program.clone();
        for kernel in &mut kp.kernels {
            kernel.name = format!("p{index}_{}", kernel.name);
        }
        match futhark_cuda::generate_program(&kp) {
            Ok(gs) => {
                t.cuda_kernels += 1;
                sources.extend(gs.into_iter().map(|g| g.kernel_source().to_string()));
            }
            Err(e) => t.bugs.push(format!("{rel}: codegen: {e}\n{}", k.program)),
        }
    }
    t.sources.push((rel.to_string(), sources));
}

fn run() -> Tally {
    let mut files = Vec::new();
    collect(&corpus_dir(), &mut files);
    let filter = std::env::var("CORPUS_FILTER").ok();
    let mut t = Tally::default();
    let db = Database::new();
    let root = corpus_dir();
    for path in files {
        let rel = path
            .strip_prefix(&root)
            .unwrap_or(&path)
            .display()
            .to_string();
        if filter.as_ref().is_some_and(|f| !rel.contains(f.as_str())) {
            continue;
        }
        t.files += 1;
        let path = futhark_db::resolve_import_path(&path, "x")
            .with_file_name(path.file_name().unwrap_or_default());
        let Some(file) = db.load_file(&path) else {
            continue;
        };
        let r = catch_unwind(AssertUnwindSafe(|| {
            let lowered = common::lower_file(&db, file)?;
            let optimised = lowered
                .program
                .clone()
                .map(|p| run_pipeline(p, &pipeline(), true));
            Ok::<_, Vec<futhark_syntax::Diagnostic>>((lowered, optimised))
        }));
        let (lowered, optimised) = match r {
            Err(_) => {
                t.panics.push(rel);
                continue;
            }
            Ok(Err(_)) => continue,
            Ok(Ok(x)) => x,
        };
        t.checked += 1;
        let Some(opt) = optimised else {
            for d in &lowered.diagnostics {
                let reason = d
                    .message
                    .trim_start_matches("not supported by the GPU path yet: ");
                if d.code == "gpu-unsupported" {
                    note(&mut t, "lower", reason, &rel);
                } else {
                    t.bugs.push(format!("{rel}: {}", d.message));
                }
            }
            continue;
        };
        t.lowered += 1;
        match opt {
            Ok(p) => {
                t.optimised += 1;
                generate(&mut t, &rel, &p);
            }
            Err(e) if e.unsupported => note(&mut t, "kernels", &e.message, &rel),
            Err(e) => t.bugs.push(format!("{rel}: {e}")),
        }
    }
    t
}

/// Compiles the generated sources with NVRTC, grouping programs into modules (kernel names
/// are unique only within a program, so each program's kernels are prefixed).
fn nvrtc_errors(t: &Tally) -> Option<(usize, Vec<String>)> {
    #[path = "../../cuda/tests/support/mod.rs"]
    mod support;
    if !support::ensure_nvrtc() {
        return None;
    }
    use futhark_cuda::codegen::prelude::PRELUDE;
    use futhark_cuda::runtime::nvrtc;
    let opts = nvrtc::options("sm_90");
    let mut modules: Vec<(String, String)> = Vec::new();
    for chunk in t.sources.chunks(40) {
        let mut src = String::from(PRELUDE);
        for (rel, kernels) in chunk {
            src.push_str(&format!("\n// {rel}\n"));
            for k in kernels {
                src.push_str(k);
                src.push('\n');
            }
        }
        modules.push((chunk.first().map(|c| c.0.clone()).unwrap_or_default(), src));
    }
    let mut errors = Vec::new();
    for (name, src) in &modules {
        if let Err(e) = nvrtc::compile(src, "corpus", &opts) {
            errors.push(format!("module starting at {name}: {e}"));
        }
    }
    Some((modules.len(), errors))
}

#[test]
fn corpus_goes_through_the_gpu_path() {
    let t = std::thread::Builder::new()
        .stack_size(512 << 20)
        .spawn(run)
        .expect("spawn")
        .join()
        .expect("corpus thread");
    // The report goes to stdout (`--nocapture`) and, with `CORPUS_REPORT=path`, to a file
    // that the test script prints, so CI shows the counts of a passing run.
    let mut report = format!(
        "corpus: {} files, {} type-check, {} lower, {} optimise to kernels; {} kernels, {} with CUDA\n",
        t.files, t.checked, t.lowered, t.optimised, t.kernels, t.cuda_kernels
    );
    let mut reasons: Vec<_> = t.unsupported.iter().collect();
    reasons.sort_by_key(|(_, n)| std::cmp::Reverse(n.0));
    for (r, (n, example)) in reasons.iter().take(60) {
        report += &format!("  {n:4} {r} (e.g. {example})\n");
    }
    for b in t.bugs.iter().take(30) {
        report += &format!("BUG {b}\n");
    }
    let mut nvrtc_failed = false;
    if std::env::var("CORPUS_NVRTC").is_ok() {
        match nvrtc_errors(&t) {
            None => report += "NVRTC not found; generated CUDA not compiled\n",
            Some((modules, errors)) => {
                report += &format!(
                    "NVRTC (sm_90): every generated kernel, in {modules} modules: {} errors\n",
                    errors.len()
                );
                for e in errors.iter().take(5) {
                    report += &format!("NVRTC ERROR {}\n", &e[..e.len().min(3000)]);
                }
                nvrtc_failed = !errors.is_empty();
            }
        }
    }
    print!("{report}");
    if let Ok(path) = std::env::var("CORPUS_REPORT") {
        std::fs::write(&path, &report).unwrap_or_else(|e| panic!("cannot write {path}: {e}"));
    }
    assert!(!nvrtc_failed, "NVRTC errors");
    assert!(t.panics.is_empty(), "panics: {:?}", t.panics);
    assert!(t.bugs.is_empty(), "{} bugs", t.bugs.len());
}
