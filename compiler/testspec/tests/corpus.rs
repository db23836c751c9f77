//! Parses the test blocks of every `.fut` program in the shared conformance corpus and
//! benchmarks, asserting that none is malformed, and prints summary counts.
//!
//! The corpus is looked up in `$FUTHARK_SHARED`, then `shared/` next to or inside the
//! workspace root. Without it the test prints a skip message and passes.

use std::fs;
use std::path::{Path, PathBuf};

use futhark_testspec::{BlockBody, CaseInput, Expectation, TestSpec};

/// Corpus files whose test blocks are genuinely malformed, with the reason. The parser must
/// reject them; they are left out of the counts.
const KNOWN_MALFORMED: &[(&str, &str)] = &[];

/// The shared directory holding `conformance/` and `benchmarks/`, if present.
fn shared_dir() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let candidates = [
        std::env::var_os("FUTHARK_SHARED").map(PathBuf::from),
        Some(root.join("shared")),
        Some(root.join("../shared")),
    ];
    candidates
        .into_iter()
        .flatten()
        .find(|d| d.join("conformance/futhark-tests").is_dir())
}

/// All `.fut` files under `dir`, sorted.
fn fut_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            fut_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "fut") {
            out.push(path);
        }
    }
}

/// Summary counts over the corpus.
#[derive(Default, Debug)]
struct Counts {
    files: usize,
    no_block: usize,
    blocks: usize,
    compile_error: usize,
    property: usize,
    run_blocks: usize,
    cases: usize,
    values_in: usize,
    file_in: usize,
    random_in: usize,
    script_in: usize,
    script_file_in: usize,
    out_values: usize,
    out_file: usize,
    out_auto: usize,
    out_error: usize,
    out_none: usize,
    runs: usize,
    structures: usize,
    warnings: usize,
    disabled: usize,
}

impl Counts {
    fn add(&mut self, spec: &TestSpec) {
        self.files += 1;
        self.no_block += usize::from(spec.blocks.is_empty());
        self.blocks += spec.blocks.len();
        self.disabled += usize::from(spec.has_tag("disable"));
        for b in &spec.blocks {
            match &b.body {
                BlockBody::CompileError { .. } => self.compile_error += 1,
                BlockBody::Property { .. } => self.property += 1,
                BlockBody::Run(_) => self.run_blocks += 1,
            }
        }
        for r in spec.run_blocks() {
            for c in &r.cases {
                self.cases += 1;
                match c.input {
                    CaseInput::Values(_) => self.values_in += 1,
                    CaseInput::File(_) => self.file_in += 1,
                    CaseInput::Random(_) => self.random_in += 1,
                    CaseInput::Script(_) => self.script_in += 1,
                    CaseInput::ScriptFile(_) => self.script_file_in += 1,
                }
                match c.expect {
                    Expectation::Values(_) => self.out_values += 1,
                    Expectation::File(_) => self.out_file += 1,
                    Expectation::Auto => self.out_auto += 1,
                    Expectation::RunError(_) => self.out_error += 1,
                    Expectation::Succeed => self.out_none += 1,
                }
            }
        }
        self.runs += spec.runs().count();
        self.structures += spec.structure_count();
        self.warnings += spec.warning_count();
    }

    fn print(&self, label: &str) {
        println!("== {label}");
        println!(
            "files {} (no test block: {}, tagged disable: {})",
            self.files, self.no_block, self.disabled
        );
        println!(
            "blocks {}: compile-error {}, property {}, run {}",
            self.blocks, self.compile_error, self.property, self.run_blocks
        );
        println!(
            "run cases {} ({} entry/case runs): input values {}, file {}, random {}, script {}, script file {}",
            self.cases,
            self.runs,
            self.values_in,
            self.file_in,
            self.random_in,
            self.script_in,
            self.script_file_in
        );
        println!(
            "expectations: output values {}, output file {}, auto output {}, run-time error {}, none {}",
            self.out_values, self.out_file, self.out_auto, self.out_error, self.out_none
        );
        println!(
            "structure tests {}, warning tests {}",
            self.structures, self.warnings
        );
    }
}

/// Parses every program under `dir`; returns counts and failure messages.
fn check_dir(shared: &Path, sub: &str) -> (Counts, Vec<String>) {
    let mut files = Vec::new();
    fut_files(&shared.join(sub), &mut files);
    files.sort();
    let mut counts = Counts::default();
    let mut failures = Vec::new();
    for path in files {
        let rel = path
            .strip_prefix(shared)
            .unwrap_or(&path)
            .to_string_lossy()
            .into_owned();
        let src = match fs::read(&path) {
            Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Err(e) => {
                failures.push(format!("{rel}: cannot read: {e}"));
                continue;
            }
        };
        let known = KNOWN_MALFORMED.iter().find(|(p, _)| *p == rel);
        match (TestSpec::parse(&src), known) {
            (Ok(spec), None) => counts.add(&spec),
            (Err(e), None) => failures.push(format!("{rel}: {e}")),
            (Ok(_), Some(_)) => failures.push(format!("{rel}: listed as malformed but parses")),
            (Err(e), Some((_, why))) => println!("expected failure {rel}: {e} ({why})"),
        }
    }
    (counts, failures)
}

#[test]
fn every_corpus_program_parses() {
    let Some(shared) = shared_dir() else {
        println!("skipping: shared corpus directory not found");
        return;
    };
    let mut failures = Vec::new();
    for sub in ["conformance/futhark-tests", "benchmarks"] {
        let (counts, mut f) = check_dir(&shared, sub);
        counts.print(sub);
        assert!(counts.files > 0, "no programs found under {sub}");
        failures.append(&mut f);
    }
    for f in &failures {
        println!("FAIL {f}");
    }
    assert!(failures.is_empty(), "{} programs failed", failures.len());
}
