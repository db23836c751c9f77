//! Incremental re-checking (`check_file_cached`) gives exactly the result of a fresh check,
//! over the whole corpus, and replays the declarations an edit did not touch.

mod common;

use common::{Loader, fut_files, shared_dir};
use futhark_check::{CheckContext, check_file, check_file_cached};
use futhark_syntax::FileId;

// Far from the ids the loader gives imported files.
const FILE: FileId = FileId(1 << 30);

/// `text` with a space inserted where top-level declaration `m` begins (after the previous
/// one ends), so that `m` counts as edited and everything after it moves by one byte.
fn nudge(text: &str, decs: &[futhark_syntax::ast::Dec], m: usize) -> String {
    let at = if m == 0 {
        0
    } else {
        decs[m - 1].span.end as usize
    };
    format!("{} {}", &text[..at], &text[at..])
}

#[test]
fn corpus_rechecks_equal_fresh_checks() {
    let shared = shared_dir();
    if !shared.exists() {
        eprintln!("skipping: {} not found", shared.display());
        return;
    }
    let ctx = CheckContext::new();
    let mut loader = Loader::new(&ctx);
    let mut files = fut_files(&shared.join("conformance/futhark-tests"));
    files.extend(fut_files(&shared.join("benchmarks")));
    // Unoptimised builds take a sample.
    let stride = if cfg!(debug_assertions) { 10 } else { 1 };
    let (mut compared, mut replayed) = (0usize, 0usize);
    for path in files.iter().step_by(stride) {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        let parse = futhark_syntax::parse(FILE, &text);
        let n = parse.file.decs.len();
        if n < 2 {
            continue;
        }
        let scopes = loader.imports_of(path, &parse.file.decs);
        let lookup = |p: &str| scopes.get(p).cloned().flatten();
        let first = check_file_cached(&ctx, FILE, &text, &parse.file, &lookup, None);
        let plain = check_file(&ctx, FILE, &parse.file, &lookup);
        assert_eq!(**first.result(), plain, "{}", path.display());
        for m in [0, n / 2, n - 1] {
            let edited = nudge(&text, &parse.file.decs, m);
            let parse2 = futhark_syntax::parse(FILE, &edited);
            let fresh = check_file(&ctx, FILE, &parse2.file, &lookup);
            let again = check_file_cached(&ctx, FILE, &edited, &parse2.file, &lookup, Some(&first));
            assert_eq!(
                **again.result(),
                fresh,
                "{} (edit before declaration {m})",
                path.display()
            );
            compared += 1;
            replayed += again.replayed();
        }
        let same = check_file_cached(&ctx, FILE, &text, &parse.file, &lookup, Some(&first));
        assert_eq!(**same.result(), plain, "{} (no edit)", path.display());
    }
    eprintln!("{compared} re-checks equal to fresh checks, {replayed} declarations replayed");
    assert!(compared > 0 && replayed > 0);
}

#[test]
fn a_body_edit_replays_every_other_declaration() {
    let ctx = CheckContext::new();
    let prog = |edit: &str| {
        let mut src = String::new();
        for i in 0..100 {
            let body = if i == 50 { edit } else { "x * 2 + 1" };
            let call = if i == 0 {
                String::new()
            } else {
                format!("let y = f{} x in ", i - 1)
            };
            src.push_str(&format!("def f{i} (x: i64) : i64 = {call}{body}\n"));
        }
        src
    };
    let no_imports = |_: &str| None;
    let (a, b) = (prog("x + 1"), prog("x + 1000"));
    let pa = futhark_syntax::parse(FILE, &a);
    let pb = futhark_syntax::parse(FILE, &b);
    let first = check_file_cached(&ctx, FILE, &a, &pa.file, &no_imports, None);
    assert!(first.result().diagnostics.is_empty());
    let again = check_file_cached(&ctx, FILE, &b, &pb.file, &no_imports, Some(&first));
    assert_eq!(again.replayed(), 99);
    assert_eq!(
        **again.result(),
        check_file(&ctx, FILE, &pb.file, &no_imports)
    );
}
