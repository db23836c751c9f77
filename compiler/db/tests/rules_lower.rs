//! The checker must not accept what lowering then fails on: every rule program under
//! `compiler/check/tests/rules/` that the checker accepts (the `-- warning:` programs,
//! `-- warning: ^$` being the accepted near misses) compiles through `futhark_db::compile`
//! to kernels, or is declined only as
//! `gpu-unsupported` (a known limitation of the GPU path, not a checker hole).

use std::path::{Path, PathBuf};

use futhark_db::{Database, IrStage};

fn fut_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            fut_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "fut") {
            out.push(p);
        }
    }
}

/// Whether the program's test block says the checker accepts it.
fn accepted(text: &str) -> bool {
    let mut in_block = false;
    for l in text.lines() {
        if l.trim_end() == "-- ==" {
            in_block = true;
            continue;
        }
        if in_block {
            let Some(rest) = l.strip_prefix("--") else {
                break;
            };
            let rest = rest.trim();
            if rest.starts_with("warning:") {
                return true;
            }
        }
    }
    false
}

#[test]
fn accepted_rule_programs_lower() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../check/tests/rules");
    let mut files = Vec::new();
    fut_files(&dir, &mut files);
    files.sort();
    let mut failures = Vec::new();
    let mut n = 0;
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        if !accepted(&text) {
            continue;
        }
        n += 1;
        let mut db = Database::new();
        let file = db.set_file(path, text);
        // Lowering and the kernel pipeline may only decline what the GPU path does not
        // support yet (a known limitation, listed), never fail otherwise.
        for stage in [IrStage::Soacs, IrStage::Kernels] {
            if let Err(e) = futhark_db::compile(&db, file, stage) {
                let ds = e.diagnostics(&db, file);
                if !ds.is_empty() && ds.iter().all(|d| d.code == "gpu-unsupported") {
                    eprintln!("declined (gpu-unsupported): {}", path.display());
                    break;
                }
                let msgs: Vec<String> = ds
                    .iter()
                    .map(|d| format!("[{}] {}", d.code, d.message))
                    .collect();
                failures.push(format!("{}: {}", path.display(), msgs.join("; ")));
                break;
            }
        }
    }
    for f in &failures {
        eprintln!("{f}");
    }
    assert!(n >= 10, "only {n} accepted rule programs found");
    assert!(
        failures.is_empty(),
        "{} of {n} accepted rule programs do not lower",
        failures.len()
    );
}
