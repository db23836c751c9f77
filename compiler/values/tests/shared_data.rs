//! Reads the real data in `shared/`: every `.in`, `.out` and `.gz` data file of the conformance
//! tests and benchmarks, and every literal `input { … }` / `output { … }` block in the test
//! programs' test blocks. Skips (saying so) when `shared/` is absent.

use std::path::{Path, PathBuf};
use std::time::Instant;

use futhark_values::{read_file, read_values};

fn shared() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared");
    if dir.is_dir() {
        Some(dir)
    } else {
        println!("skipping: {} not found", dir.display());
        None
    }
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.filter_map(Result::ok).map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            walk(&p, out);
        } else {
            out.push(p);
        }
    }
}

fn files_under(roots: &[PathBuf]) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for r in roots {
        walk(r, &mut files);
    }
    files
}

#[test]
fn every_data_file_reads() {
    let Some(shared) = shared() else { return };
    // `futhark-tests-repl/` holds REPL transcripts (`.in` is typed input, not data): not values.
    let roots = [
        shared.join("conformance/futhark-tests"),
        shared.join("benchmarks"),
    ];
    let files: Vec<PathBuf> = files_under(&roots)
        .into_iter()
        .filter(|p| {
            let name = p.to_string_lossy();
            name.ends_with(".in") || name.ends_with(".out") || name.ends_with(".gz")
        })
        .collect();
    assert!(
        !files.is_empty(),
        "no data files found under {}",
        shared.display()
    );
    let mut largest = (0u64, PathBuf::new(), 0.0f64);
    for f in &files {
        let size = std::fs::metadata(f).map(|m| m.len()).unwrap_or(0);
        let t = Instant::now();
        let values = read_file(f).unwrap_or_else(|e| panic!("{e}"));
        let secs = t.elapsed().as_secs_f64();
        assert!(!values.is_empty(), "{}: no values", f.display());
        if size >= largest.0 {
            largest = (size, f.clone(), secs);
        }
    }
    println!(
        "read {} data files; largest {} ({} bytes) in {:.3}s",
        files.len(),
        largest.1.display(),
        largest.0,
        largest.2
    );
}

/// The text of the test blocks of a program: comment lines at column 0 after a `-- ==` line,
/// with the `--` removed, up to the first line that is not a comment.
fn test_block_text(src: &str) -> String {
    let mut out = String::new();
    let mut inside = false;
    for line in src.lines() {
        if line.trim_end() == "-- ==" {
            inside = true;
            continue;
        }
        match line.strip_prefix("--") {
            Some(rest) if inside => {
                out.push_str(rest);
                out.push('\n');
            }
            _ => inside = false,
        }
    }
    out
}

/// The literal value blocks (`input { … }`, `output { … }`) in test-block text, skipping
/// `random input` and `script input`, which hold types and expressions.
fn value_blocks(block: &str) -> Vec<String> {
    let bytes = block.as_bytes();
    let mut blocks = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let rest = &block[i..];
        let kw = ["input", "output"]
            .into_iter()
            .find(|k| rest.starts_with(k));
        let Some(kw) = kw else {
            i += rest.chars().next().map_or(1, char::len_utf8);
            continue;
        };
        let word_start = i == 0 || !bytes[i - 1].is_ascii_alphanumeric() && bytes[i - 1] != b'_';
        // The case's tags stand before `input` on the same line.
        let line_start = block[..i].rfind('\n').map_or(0, |p| p + 1);
        let generated = block[line_start..i]
            .split_whitespace()
            .any(|w| w == "random" || w == "script");
        i += kw.len();
        let after = block[i..].trim_start();
        if !word_start || !after.starts_with('{') {
            continue;
        }
        let open = block.len() - after.len();
        // Find the matching `}`, ignoring braces in string literals.
        let mut j = open + 1;
        let mut in_str = false;
        while j < bytes.len() {
            match bytes[j] {
                b'\\' if in_str => j += 1,
                b'"' => in_str = !in_str,
                b'}' if !in_str => break,
                _ => {}
            }
            j += 1;
        }
        let body = &block[open + 1..j.min(block.len())];
        if !generated {
            blocks.push(body.to_string());
        }
        i = j + 1;
    }
    blocks
}

#[test]
fn every_literal_value_block_in_the_test_programs_reads() {
    let Some(shared) = shared() else { return };
    let roots = [
        shared.join("conformance/futhark-tests"),
        shared.join("benchmarks"),
    ];
    let mut count = 0;
    let mut failures = Vec::new();
    for f in files_under(&roots) {
        if f.extension().is_none_or(|e| e != "fut") {
            continue;
        }
        let Ok(src) = std::fs::read_to_string(&f) else {
            continue;
        };
        for body in value_blocks(&test_block_text(&src)) {
            count += 1;
            if let Err(e) = read_values(body.as_bytes()) {
                failures.push(format!("{}: {e}\n    {}", f.display(), body.trim()));
            }
        }
    }
    println!("read {count} literal value blocks");
    assert!(count > 1000, "only {count} value blocks found");
    assert!(
        failures.is_empty(),
        "{} blocks failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
