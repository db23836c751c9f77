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

/// Edits inside the text of top-level declaration `m`: a space after its first space (only
/// positions change) and its first digit changed (a different literal, size or name).
fn inner_edits(text: &str, dec: &futhark_syntax::ast::Dec) -> Vec<String> {
    let (start, end) = (dec.span.start as usize, dec.span.end as usize);
    let Some(own) = text.get(start..end) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    if let Some(i) = own.find(' ') {
        let at = start + i;
        out.push(format!("{} {}", &text[..at], &text[at..]));
    }
    if let Some(i) = own.find(|c: char| c.is_ascii_digit()) {
        let at = start + i;
        let d = if &text[at..at + 1] == "1" { "2" } else { "1" };
        out.push(format!("{}{d}{}", &text[..at], &text[at + 1..]));
    }
    out
}

/// Edits inside module, module type and `open` declarations (and the rest re-checked
/// incrementally) give the result of a fresh check.
#[test]
fn corpus_edits_inside_modules_equal_fresh_checks() {
    use futhark_syntax::ast::DecKind;
    let shared = shared_dir();
    if !shared.exists() {
        eprintln!("skipping: {} not found", shared.display());
        return;
    }
    let ctx = CheckContext::new();
    let mut loader = Loader::new(&ctx);
    let mut files = fut_files(&shared.join("conformance/futhark-tests"));
    files.extend(fut_files(&shared.join("benchmarks")));
    let stride = if cfg!(debug_assertions) { 10 } else { 1 };
    let (mut compared, mut replayed) = (0usize, 0usize);
    for path in files.iter().step_by(stride) {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        let parse = futhark_syntax::parse(FILE, &text);
        let decs = &parse.file.decs;
        let modules: Vec<usize> = (0..decs.len())
            .filter(|&i| {
                let kind = match &decs[i].kind {
                    DecKind::Local(inner) => &inner.kind,
                    k => k,
                };
                matches!(
                    kind,
                    DecKind::Module(_) | DecKind::ModuleType(_) | DecKind::Open(_)
                )
            })
            .collect();
        if modules.is_empty() || decs.len() < 2 {
            continue;
        }
        let scopes = loader.imports_of(path, decs);
        let lookup = |p: &str| scopes.get(p).cloned().flatten();
        let first = check_file_cached(&ctx, FILE, &text, &parse.file, &lookup, None);
        let picks = [0, modules.len() / 2, modules.len() - 1];
        for &m in &picks {
            for edited in inner_edits(&text, &decs[modules[m]]) {
                let parse2 = futhark_syntax::parse(FILE, &edited);
                let fresh = check_file(&ctx, FILE, &parse2.file, &lookup);
                let again =
                    check_file_cached(&ctx, FILE, &edited, &parse2.file, &lookup, Some(&first));
                assert_eq!(
                    **again.result(),
                    fresh,
                    "{} (edit inside declaration {})",
                    path.display(),
                    modules[m]
                );
                // And back, from the cache of the edited text.
                let back = check_file_cached(&ctx, FILE, &text, &parse.file, &lookup, Some(&again));
                assert_eq!(
                    **back.result(),
                    **first.result(),
                    "{} (back)",
                    path.display()
                );
                compared += 2;
                replayed += again.replayed() + back.replayed();
            }
        }
    }
    eprintln!("{compared} re-checks equal to fresh checks, {replayed} declarations replayed");
    assert!(compared > 100 && replayed > 0);
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

/// A program with module types, ascribed modules, functors (applied to a named module and to
/// an anonymous one), `open`, `local` modules, nested modules and type abbreviations. The
/// holes `{A}` … `{H}` take the texts of [`HOLES`].
const MODULE_PROGRAM: &str = "module type ADD = {
  type t
  val zero : t
  val add : t -> t -> t
}

module type SCALE = { val k : {G} }

module Int : ADD with t = i64 = {
  type t = i64
  def zero = 0i64
  def add (a: t) (b: t) = a + b + {A}
}

module Opaque : ADD = {
  type t = i32
  def zero = 0i32
  def add (a: t) (b: t) = a + b
}

module Sum (A: ADD) = {
  def sum (xs: []A.t) = reduce A.add A.zero xs
}

module Scaled (S: SCALE) (A: ADD with t = i64) = {
  def scale (x: i64) = A.add x (S.k * {B})
}

module IntSum = Sum Int
module OpaqueSum = Sum Opaque
module S3 = Scaled ({ def k : i64 = {C} }) Int

open Int

local module Hidden = { def secret = {D} }

type pair = {H}

def f0 (x: i64) = IntSum.sum [x, zero] + S3.scale x + Hidden.secret

def g (p: pair) : i64 = add p.0 p.1

module Nested = {
  module Inner = { def v = {E} }
  open Inner
  def w = v + 1
}

def h = Nested.w + Nested.Inner.v + f0 {F}
";

/// What the holes of [`MODULE_PROGRAM`] take: fine texts, type changes, type errors and
/// unknown names, of different lengths.
const HOLES: &[(&str, &[&str])] = &[
    (
        "{A}",
        &["0", "1", "a", "(a * 2)", "true", "zero", "unknown"],
    ),
    ("{B}", &["2", "20", "x", "2i32", "(x + 1)", "nope"]),
    ("{C}", &["3", "33", "3 + 4", "3i32", "false", "k"]),
    ("{D}", &["4i64", "44i64", "4", "4.0", "Int.zero", "add 1 2"]),
    ("{E}", &["5i64", "55i64", "5i32", "true", "zero"]),
    ("{F}", &["6", "666", "g (1, 2)", "(6: i64)", "h"]),
    ("{G}", &["i64", "i32", "t", "(i64, i64)"]),
    (
        "{H}",
        &[
            "(i64, i64)",
            "(i64, i32)",
            "i64",
            "(i64, i64, i64)",
            "Int.t",
        ],
    ),
];

fn module_program(choice: &[usize]) -> String {
    let mut text = MODULE_PROGRAM.to_string();
    for (&(hole, texts), &c) in HOLES.iter().zip(choice) {
        text = text.replace(hole, texts[c]);
    }
    text
}

#[test]
fn edits_in_modules_match_a_fresh_check() {
    let ctx = CheckContext::new();
    let no_imports = |_: &str| None;
    let mut choice = vec![0; HOLES.len()];
    let text = module_program(&choice);
    let parse = futhark_syntax::parse(FILE, &text);
    let mut cache = check_file_cached(&ctx, FILE, &text, &parse.file, &no_imports, None);
    let fresh = check_file(&ctx, FILE, &parse.file, &no_imports);
    assert!(fresh.diagnostics.is_empty(), "{:?}", fresh.diagnostics);
    assert_eq!(**cache.result(), fresh);
    let mut rng: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = |n: usize| {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        (rng % n as u64) as usize
    };
    let (mut replayed, mut with_errors) = (0, 0);
    for round in 0..200 {
        // Now and then back to the valid program, so that not every state has errors.
        if next(3) == 0 {
            choice.iter_mut().for_each(|c| *c = 0);
        }
        let hole = next(HOLES.len());
        choice[hole] = next(HOLES[hole].1.len());
        let text = module_program(&choice);
        let parse = futhark_syntax::parse(FILE, &text);
        let fresh = check_file(&ctx, FILE, &parse.file, &no_imports);
        cache = check_file_cached(&ctx, FILE, &text, &parse.file, &no_imports, Some(&cache));
        assert_eq!(**cache.result(), fresh, "round {round}: {choice:?}");
        replayed += cache.replayed();
        with_errors += usize::from(fresh.diagnostics.iter().any(|d| d.is_error()));
    }
    // Most edits touch one declaration; the others before and after it are replayed.
    assert!(replayed > 200 * 8, "{replayed} declarations replayed");
    eprintln!("{replayed} declarations replayed, {with_errors} of 200 with errors");
    assert!(
        with_errors > 10 && with_errors < 180,
        "{with_errors} with errors"
    );
}

#[test]
fn a_module_body_edit_replays_every_other_declaration() {
    let ctx = CheckContext::new();
    let no_imports = |_: &str| None;
    let base = module_program(&[0; HOLES.len()]);
    let n = futhark_syntax::parse(FILE, &base).file.decs.len();
    let first_parse = futhark_syntax::parse(FILE, &base);
    let first = check_file_cached(&ctx, FILE, &base, &first_parse.file, &no_imports, None);
    // Same-length and longer edits inside a module body, a functor argument and a nested
    // module that keep every signature: only the edited declaration is checked again.
    for (hole, text) in [(0, "1"), (0, "(a * 2)"), (2, "33"), (4, "55i64"), (1, "20")] {
        let mut choice = [0; HOLES.len()];
        choice[hole] = HOLES[hole].1.iter().position(|t| *t == text).unwrap_or(0);
        let edited = module_program(&choice);
        let parse = futhark_syntax::parse(FILE, &edited);
        let again = check_file_cached(&ctx, FILE, &edited, &parse.file, &no_imports, Some(&first));
        assert_eq!(
            **again.result(),
            check_file(&ctx, FILE, &parse.file, &no_imports),
            "{text}"
        );
        assert_eq!(again.replayed(), n - 1, "{text}");
    }
    // A change of signature (`Nested.Inner.v` becomes an i32) re-checks the module and what
    // uses it, and nothing else.
    let mut choice = [0; HOLES.len()];
    choice[4] = 2;
    let edited = module_program(&choice);
    let parse = futhark_syntax::parse(FILE, &edited);
    let again = check_file_cached(&ctx, FILE, &edited, &parse.file, &no_imports, Some(&first));
    let fresh = check_file(&ctx, FILE, &parse.file, &no_imports);
    assert!(fresh.diagnostics.iter().any(|d| d.is_error()));
    assert_eq!(**again.result(), fresh);
    assert_eq!(again.replayed(), n - 2);
}

/// The program of the LSP latency benchmark (`tests/lsp/bench_latency.py`), `blocks` blocks.
fn lsp_program(blocks: usize, middle: &str) -> String {
    let mut src = String::new();
    for i in 0..blocks {
        let word = if i == blocks / 2 { middle } else { "total" };
        src.push_str(&format!(
            "-- | Block {i}: a scaled sum of squares.
def sumsq_{i} [n] (xs: [n]f32) : f32 =
  let sq = map (\\x -> x * x) xs
  let total = reduce (+) 0f32 sq
  in {word} * f32.i64 n

module M{i} = {{
  def scale (k: f32) (x: f32) : f32 = k * x
  def shift (k: f32) (x: f32) : f32 = x + k
}}

def step_{i} (acc: f32) (k: i32) : f32 =
  let twice = M{i}.scale 2f32 acc
  let moved = M{i}.shift (f32.i32 k) twice
  in if moved > 100f32 then moved / 2f32 else moved

entry run_{i} (xs: []f32) : f32 =
  loop acc = sumsq_{i} xs for k < 10 do step_{i} acc k

"
        ));
    }
    src
}

#[test]
fn a_body_edit_among_modules_replays_every_other_declaration() {
    let ctx = CheckContext::new();
    let no_imports = |_: &str| None;
    let text = lsp_program(20, "total");
    let parse = futhark_syntax::parse(FILE, &text);
    let n = parse.file.decs.len();
    let mut cache = check_file_cached(&ctx, FILE, &text, &parse.file, &no_imports, None);
    assert!(cache.result().diagnostics.is_empty());
    // A type error, shorter than the word it replaces, then back: every module after the
    // edit moves, and is still replayed, and so are the functions using it.
    for word in ["true", "total", "total + 1f32", "total"] {
        let text = lsp_program(20, word);
        let parse = futhark_syntax::parse(FILE, &text);
        cache = check_file_cached(&ctx, FILE, &text, &parse.file, &no_imports, Some(&cache));
        assert_eq!(
            **cache.result(),
            check_file(&ctx, FILE, &parse.file, &no_imports),
            "{word}"
        );
        assert_eq!(cache.replayed(), n - 1, "{word}");
    }
}
