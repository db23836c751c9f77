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
    /// Per program (by its index in the corpus), its generated CUDA sources (for NVRTC).
    sources: Vec<(usize, String, Vec<String>)>,
}

impl Tally {
    /// Adds another worker's tally (sources are put back in corpus order by the caller).
    fn merge(&mut self, o: Tally) {
        self.files += o.files;
        self.checked += o.checked;
        self.lowered += o.lowered;
        self.optimised += o.optimised;
        self.kernels += o.kernels;
        self.cuda_kernels += o.cuda_kernels;
        self.panics.extend(o.panics);
        self.bugs.extend(o.bugs);
        for (reason, (n, example)) in o.unsupported {
            let e = self.unsupported.entry(reason).or_insert((0, example));
            e.0 += n;
        }
        self.sources.extend(o.sources);
    }
}

fn note(t: &mut Tally, stage: &str, reason: &str, rel: &str) {
    let e = t
        .unsupported
        .entry(format!("{stage}: {reason}"))
        .or_insert((0, rel.to_string()));
    e.0 += 1;
}

fn generate(t: &mut Tally, index: usize, rel: &str, prog: &Program) {
    let mut sources = Vec::new();
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
    t.sources.push((index, rel.to_string(), sources));
}

/// Every corpus file through the GPU path, on as many threads as there are cores (each with
/// its own database and a large stack), tallied in corpus order.
fn run() -> Tally {
    let mut files = Vec::new();
    collect(&corpus_dir(), &mut files);
    let filter = std::env::var("CORPUS_FILTER").ok();
    let root = corpus_dir();
    let files: Vec<(usize, PathBuf, String)> = files
        .into_iter()
        .map(|path| {
            let rel = path
                .strip_prefix(&root)
                .unwrap_or(&path)
                .display()
                .to_string();
            (path, rel)
        })
        .filter(|(_, rel)| filter.as_ref().is_none_or(|f| rel.contains(f.as_str())))
        .enumerate()
        .map(|(i, (path, rel))| (i, path, rel))
        .collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let mut total = Tally::default();
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                std::thread::Builder::new()
                    .stack_size(512 << 20)
                    .spawn_scoped(scope, || {
                        let mut t = Tally::default();
                        let db = Database::new();
                        loop {
                            let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                            let Some((index, path, rel)) = files.get(i) else {
                                break;
                            };
                            run_file(&mut t, &db, *index, path, rel);
                        }
                        t
                    })
                    .expect("spawn")
            })
            .collect();
        for w in workers {
            total.merge(w.join().expect("corpus worker"));
        }
    });
    total.sources.sort_by_key(|(index, _, _)| *index);
    total
}

/// One file: type-check, lower, optimise, generate CUDA; tallied into `t`.
fn run_file(t: &mut Tally, db: &Database, index: usize, path: &Path, rel: &str) {
    let rel = rel.to_string();
    t.files += 1;
    let path = futhark_db::resolve_import_path(path, "x")
        .with_file_name(path.file_name().unwrap_or_default());
    let Some(file) = db.load_file(&path) else {
        return;
    };
    let r = catch_unwind(AssertUnwindSafe(|| {
        let lowered = common::lower_file(db, file)?;
        let optimised = lowered
            .program
            .clone()
            .map(|p| run_pipeline(p, &pipeline(), true));
        Ok::<_, Vec<futhark_syntax::Diagnostic>>((lowered, optimised))
    }));
    let (lowered, optimised) = match r {
        Err(_) => {
            t.panics.push(rel);
            return;
        }
        Ok(Err(_)) => return,
        Ok(Ok(x)) => x,
    };
    t.checked += 1;
    let Some(opt) = optimised else {
        for d in &lowered.diagnostics {
            let reason = d
                .message
                .trim_start_matches("not supported by the GPU path yet: ");
            if d.code == "gpu-unsupported" {
                note(t, "lower", reason, &rel);
            } else {
                t.bugs.push(format!("{rel}: {}", d.message));
            }
        }
        return;
    };
    t.lowered += 1;
    match opt {
        Ok(p) => {
            t.optimised += 1;
            generate(t, index, &rel, &p);
        }
        Err(e) if e.unsupported => note(t, "kernels", &e.message, &rel),
        Err(e) => t.bugs.push(format!("{rel}: {e}")),
    }
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
        for (_, rel, kernels) in chunk {
            src.push_str(&format!("\n// {rel}\n"));
            for k in kernels {
                src.push_str(k);
                src.push('\n');
            }
        }
        modules.push((chunk.first().map(|c| c.1.clone()).unwrap_or_default(), src));
    }
    // Side by side on every core: this test is alone in its binary and cargo runs test
    // binaries one at a time, so compiling one module at a time left CI's other core idle.
    let jobs: Vec<(&str, &str)> = modules
        .iter()
        .map(|(_, src)| (src.as_str(), "corpus"))
        .collect();
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let results = nvrtc::compile_many(&jobs, &opts, threads);
    let errors = modules
        .iter()
        .zip(results)
        .filter_map(|((name, _), r)| r.err().map(|e| format!("module starting at {name}: {e}")))
        .collect();
    Some((modules.len(), errors))
}

#[test]
fn corpus_goes_through_the_gpu_path() {
    let t = run();
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
