//! Parses every `.fut` file of the shared corpus (Futhark's own test suite and the
//! benchmarks). Files whose test block expects a compile error may have syntax errors;
//! every other file must parse without any, and the pass rate must be at least 99.5%.

mod common;

use futhark_syntax::{FileId, LineIndex, parse};

#[test]
fn corpus_parses() {
    let Some(files) = common::corpus_files() else {
        println!("skipping: shared corpus not found");
        return;
    };
    assert!(
        files.len() > 1000,
        "only {} .fut files found; is the corpus incomplete?",
        files.len()
    );
    let mut considered = 0;
    let mut allowed_errors = 0;
    let mut failures = Vec::new();
    for (i, path) in files.iter().enumerate() {
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        let parsed = parse(FileId(i as u32), &text);
        if common::expects_compile_error(&text) {
            allowed_errors += usize::from(!parsed.errors.is_empty());
            continue;
        }
        considered += 1;
        if let Some(err) = parsed.errors.first() {
            let (line, col) = LineIndex::new(&text).line_col(err.span.start);
            failures.push(format!(
                "{}:{line}:{col}: {} ({} errors)",
                path.display(),
                err.message,
                parsed.errors.len()
            ));
        }
    }
    let clean = considered - failures.len();
    let rate = clean as f64 / considered as f64;
    println!(
        "corpus: {} files, {considered} considered, {clean} parsed cleanly ({:.2}%), \
         {} failures; {allowed_errors} expected-error files had syntax errors",
        files.len(),
        rate * 100.0,
        failures.len()
    );
    for f in &failures {
        println!("  FAIL {f}");
    }
    assert!(rate >= 0.995, "pass rate {:.2}% below 99.5%", rate * 100.0);
}
