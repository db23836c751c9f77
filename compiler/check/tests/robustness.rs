//! The checker must never panic: on mutilated corpus programs (truncated, with tokens
//! dropped) and on deeply nested input it returns diagnostics instead.

mod common;

use std::path::Path;

use common::{Loader, fut_files, shared_dir};
use futhark_check::CheckContext;

/// A deterministic pseudo-random sequence (no dependency needed).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
}

fn mutations(text: &str, rng: &mut Lcg) -> Vec<String> {
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    if bytes.is_empty() {
        return out;
    }
    // Truncations at character boundaries.
    for frac in [3, 2] {
        let mut cut = bytes.len() / frac;
        while cut > 0 && !text.is_char_boundary(cut) {
            cut -= 1;
        }
        out.push(text[..cut].to_string());
    }
    // Drop a few random words.
    let words: Vec<&str> = text.split(' ').collect();
    for _ in 0..3 {
        let i = (rng.next() as usize) % words.len();
        let mut w = words.clone();
        w.remove(i);
        out.push(w.join(" "));
    }
    // Swap two words.
    if words.len() > 2 {
        let i = (rng.next() as usize) % words.len();
        let j = (rng.next() as usize) % words.len();
        let mut w = words.clone();
        w.swap(i, j);
        out.push(w.join(" "));
    }
    out
}

#[test]
fn mutated_corpus_does_not_panic() {
    let dir = shared_dir().join("conformance/futhark-tests");
    if !dir.exists() {
        eprintln!("skipping: {} not found", dir.display());
        return;
    }
    let ctx = CheckContext::new();
    let mut rng = Lcg(42);
    let mut n = 0;
    for (i, path) in fut_files(&dir).into_iter().enumerate() {
        if i % 5 != 0 {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        for m in mutations(&text, &mut rng) {
            let mut loader = Loader::new(&ctx);
            let _ = loader.check_text(&path, &m);
            n += 1;
        }
    }
    eprintln!("checked {n} mutated programs");
}

#[test]
fn deep_nesting_does_not_panic() {
    let ctx = CheckContext::new();
    let depth = 3000;
    let cases = [
        format!("def main = {}1{}", "(".repeat(depth), ")".repeat(depth)),
        format!("def main = {}0", "1 + ".repeat(depth)),
        format!("def main = {}0{}", "[".repeat(depth), "]".repeat(depth)),
        format!("def main = {} 0", "let x = 1 in ".repeat(depth)),
        format!("type t = {}i32", "[1]".repeat(depth)),
        format!(
            "def main (x: {}i32{}) = x",
            "(".repeat(depth),
            ")".repeat(depth)
        ),
    ];
    for src in cases {
        let child = std::thread::Builder::new()
            .stack_size(2 << 20)
            .spawn({
                let src = src.clone();
                move || {
                    let ctx = CheckContext::new();
                    let mut loader = Loader::new(&ctx);
                    let _ = loader.check_text(Path::new("deep.fut"), &src);
                }
            })
            .unwrap();
        child.join().expect("checker panicked on deep input");
    }
    let _ = ctx;
}
