//! Helpers shared by the integration tests: locating the shared Futhark corpus and
//! reading its test blocks.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// `/work/shared` (or wherever `../../../shared` from this crate points), if present.
pub fn shared_dir() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared");
    dir.is_dir().then_some(dir)
}

/// Every `.fut` file under `dir`, sorted for determinism.
pub fn fut_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "fut") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// The corpus files: the conformance tests and the benchmarks.
pub fn corpus_files() -> Option<Vec<PathBuf>> {
    let shared = shared_dir()?;
    let mut files = fut_files(&shared.join("conformance/futhark-tests"));
    files.extend(fut_files(&shared.join("benchmarks")));
    Some(files)
}

/// True if a test block (a column-0 comment containing a line `-- ==`) says the program
/// must fail to compile: the first line after `-- ==` (and an optional `tags` line) is
/// `-- error:`. Run cases that expect a run-time `error:` do not count.
pub fn expects_compile_error(text: &str) -> bool {
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if line.trim_end() != "-- ==" {
            continue;
        }
        for next in lines.by_ref() {
            let Some(rest) = next.strip_prefix("--") else {
                break;
            };
            let rest = rest.trim();
            if rest.is_empty() || rest.starts_with("tags") {
                continue;
            }
            if rest.starts_with("error:") {
                return true;
            }
            break;
        }
    }
    false
}
