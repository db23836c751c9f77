//! End-to-end tests of `futhark-rs ir` and `futhark-rs cuda`: the built binary on the small
//! programs under `tests/fixtures/ir/`, and over every benchmark program of
//! `../shared/benchmarks` (no panic; a located error when the GPU path cannot compile it).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Mutex;

/// Runs the binary in the fixture directory (so paths print as given).
fn futhark(args: &[&str]) -> Output {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/ir");
    futhark_in(&dir, args)
}

fn futhark_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_futhark-rs"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .expect("the binary runs")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn ir_at_each_stage() {
    let soacs = futhark(&["ir", "views.fut"]);
    assert!(soacs.status.success(), "{}", stderr(&soacs));
    let text = stdout(&soacs);
    assert!(
        text.contains("-- entry main: ([d]f32) -> ([d]f32)"),
        "{text}"
    );
    assert!(text.contains("entry entry_main_"), "{text}");
    assert!(text.contains("entry entry_total_"), "{text}");
    // Lowering keeps the helper as a function named after it; the optimiser inlines it.
    assert!(text.contains("scale_"), "{text}");
    assert!(text.contains("map "), "{text}");

    let core = stdout(&futhark(&["ir", "--stage", "core", "views.fut"]));
    assert_eq!(core, text, "`core` is another name for `soacs`");

    let fused = stdout(&futhark(&["ir", "--stage", "fused", "views.fut"]));
    assert!(!fused.contains("scale_"), "{fused}");
    assert!(fused.contains("redomap"), "{fused}");
    assert!(!fused.contains("launch"), "{fused}");

    let kernels = futhark(&["ir", "--stage", "kernels", "views.fut"]);
    assert!(kernels.status.success(), "{}", stderr(&kernels));
    let kernels = stdout(&kernels);
    let host = kernels.find("launch ").expect("host code launches kernels");
    let program = kernels
        .find("-- kernel program entry_main_")
        .expect("a kernel program for main");
    assert!(host < program, "host code comes first:\n{kernels}");
    assert!(kernels.contains("segmap"), "{kernels}");
    assert!(kernels.contains("segred"), "{kernels}");
}

#[test]
fn ir_after_a_named_pass() {
    let out = futhark(&["ir", "--pass", "inline", "views.fut"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!stdout(&out).contains("scale_"), "{}", stdout(&out));

    let out = futhark(&["ir", "--pass", "no-such-pass", "views.fut"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("no pass is called `no-such-pass`"), "{err}");
    assert!(err.contains("extract-kernels"), "{err}");

    let out = futhark(&["ir", "--pass", "fuse", "--stage", "kernels", "views.fut"]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "clap rejects --pass with --stage"
    );
}

#[test]
fn cuda_of_every_kernel_with_headers() {
    let out = futhark(&["cuda", "views.fut"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let headers: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("// kernel "))
        .collect();
    assert_eq!(headers.len(), 2, "{text}");
    assert!(headers[0].contains("launched by entry_main_"), "{text}");
    assert!(headers[1].contains("launched by entry_total_"), "{text}");
    // A reduction is several CUDA functions (block, warp and thread variants).
    assert!(
        text.matches("extern \"C\" __global__").count() >= 2,
        "{text}"
    );
    assert!(!text.contains("#include"), "no prelude without --full");

    let one = stdout(&futhark(&["cuda", "--entry", "total", "views.fut"]));
    assert_eq!(
        one.lines().filter(|l| l.starts_with("// kernel ")).count(),
        1
    );
    assert!(one.contains("launched by entry_total_"), "{one}");

    let full = stdout(&futhark(&[
        "cuda",
        "--full",
        "--entry",
        "main",
        "views.fut",
    ]));
    assert!(full.len() > one.len(), "the prelude is included");
}

/// `futhark-rs cuda` prints the code the options ask for: the tile shape and tuning of
/// `FUTHARK_TILE`/`FUTHARK_TILE_TUNE` and `FUTHARK_TILING=0`, as the runtime would compile.
#[test]
fn cuda_follows_the_tiling_options() {
    let dir = std::env::temp_dir().join(format!("futhark-cuda-opts-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("mm.fut"),
        "entry mm [n][m][p] (a: [n][m]f32) (b: [m][p]f32) : [n][p]f32 =\n  \
         map (\\r -> map (\\c -> f32.sum (map2 (*) r c)) (transpose b)) a\n",
    )
    .unwrap();
    let run = |env: &[(&str, &str)]| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_futhark-rs"));
        c.args(["cuda", "mm.fut"]).current_dir(&dir);
        for (k, v) in env {
            c.env(k, v);
        }
        let out = c.output().expect("runs");
        assert!(out.status.success(), "{}", stderr(&out));
        stdout(&out)
    };
    let default = run(&[]);
    assert!(default.contains("_tiled("), "{default}");
    assert!(
        default.contains("fut_klen == 16"),
        "full slices fold without the bound"
    );
    let tuned = run(&[
        ("FUTHARK_TILE", "128x128x8x8x8"),
        ("FUTHARK_TILE_TUNE", "2,0,0"),
    ]);
    assert!(tuned.contains("__launch_bounds__(256, 2)"), "{tuned}");
    assert!(!tuned.contains("fut_klen == "), "{tuned}");
    assert!(tuned.contains("fut_K + 8 - 1) / 8"), "a k slice of 8");
    let off = run(&[("FUTHARK_TILING", "0")]);
    assert!(!off.contains("_tiled("), "{off}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn cuda_of_host_only_code_and_unknown_entries() {
    let out = futhark(&["cuda", "host_only.fut"]);
    assert!(out.status.success());
    assert!(stdout(&out).contains("no kernels"), "{}", stdout(&out));

    let out = futhark(&["cuda", "--entry", "nope", "views.fut"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("no entry point is called `nope` (entry points: main, total)"),
        "{err}"
    );
}

#[test]
fn errors_are_located_diagnostics() {
    for cmd in ["ir", "cuda"] {
        let out = futhark(&[cmd, "type_error.fut"]);
        assert_eq!(out.status.code(), Some(1), "{cmd}");
        let err = stderr(&out);
        assert!(err.contains("[type-mismatch] Error"), "{cmd}: {err}");
        assert!(err.contains("type_error.fut:2:7"), "{cmd}: {err}");
        assert!(stdout(&out).is_empty());
    }
    let out = futhark(&["cuda", "unsupported.fut"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("not supported by the GPU path yet: the intrinsic `with_vjp`"),
        "{err}"
    );
    assert!(err.contains("unsupported.fut:3:3"), "{err}");

    let out = futhark(&["ir", "missing.fut"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("cannot read missing.fut"));
}

/// The programs under `dir`, recursively, sorted.
fn fut_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            fut_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "fut") {
            out.push(path);
        }
    }
}

/// What went wrong with one run, if anything.
fn judge(cmd: &str, path: &Path, out: &Output) -> Option<String> {
    let err = stderr(out);
    let what = format!("futhark-rs {cmd} {}", path.display());
    if err.contains("panicked") {
        return Some(format!("{what} panicked:\n{err}"));
    }
    match out.status.code() {
        Some(0) if !stdout(out).is_empty() || err.contains("no entry points") => None,
        Some(0) => Some(format!("{what} printed nothing")),
        // A rendered diagnostic: a coded error with a `path:line:col` location.
        Some(1) if err.contains("] Error") && err.contains(".fut:") => None,
        code => Some(format!("{what} exited with {code:?}:\n{err}")),
    }
}

#[test]
fn every_benchmark_compiles_or_says_why() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/benchmarks");
    if !root.is_dir() {
        eprintln!("skipped: {} is absent", root.display());
        return;
    }
    let mut files = Vec::new();
    fut_files(&root, &mut files);
    let jobs: Vec<(&str, PathBuf)> = files
        .iter()
        .flat_map(|f| [("ir", f.clone()), ("cuda", f.clone())])
        .collect();
    let queue = Mutex::new(jobs.into_iter());
    let failures = Mutex::new(Vec::new());
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get().min(4));
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                loop {
                    let next = queue.lock().unwrap_or_else(|e| e.into_inner()).next();
                    let Some((cmd, path)) = next else { break };
                    let dir = path.parent().unwrap_or(Path::new("."));
                    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
                    let args: &[&str] = if cmd == "ir" {
                        &["ir", "--stage", "kernels", name]
                    } else {
                        &["cuda", name]
                    };
                    let out = futhark_in(dir, args);
                    if let Some(f) = judge(cmd, &path, &out) {
                        failures.lock().unwrap_or_else(|e| e.into_inner()).push(f);
                    }
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap_or_else(|e| e.into_inner());
    assert!(
        failures.is_empty(),
        "{} of {} runs failed:\n{}",
        failures.len(),
        files.len() * 2,
        failures.join("\n")
    );
}
