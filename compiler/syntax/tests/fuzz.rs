//! Robustness: a deterministic mutation fuzzer over the corpus, and pathological inputs
//! (deep nesting, megabyte-long lines). The parser must never panic, never overflow the
//! stack, and stay fast; deep nesting must produce a diagnostic.
//!
//! Everything runs on a thread with an 8 MiB stack, like a program's main thread.
//! `FUZZ_ITERS` overrides the number of mutated inputs (default 20,000).

mod common;

use futhark_syntax::lexer::{TokenKind, lex};
use futhark_syntax::{FileId, parse, parse_cell, parse_exp};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

const STACK: usize = 8 << 20;
/// Generous per-input cap: a mutated file parses in microseconds.
const TIME_CAP: Duration = Duration::from_secs(2);

/// SplitMix64: tiny, seedable, good enough for choosing mutations.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

/// Tokens and fragments worth inserting: keywords, brackets, operators, and the lexically
/// tricky bits (doc comments, quotes, attribute openers, odd Unicode).
const FRAGMENTS: &[&str] = &[
    "def",
    "let",
    "in",
    "if",
    "then",
    "else",
    "loop",
    "for",
    "while",
    "do",
    "match",
    "case",
    "module",
    "type",
    "val",
    "open",
    "import",
    "local",
    "entry",
    "include",
    "with",
    "assert",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    "#[",
    ",",
    ":",
    ":>",
    "=",
    "->",
    "\\",
    "'",
    "'^",
    "'~",
    "`",
    "?",
    "???",
    "..",
    "...",
    "..<",
    "..>",
    ".",
    "_",
    "+",
    "-",
    "*",
    "|>",
    "<|",
    "!",
    "#c",
    "x",
    "M.+",
    "0",
    "1.5",
    "0x1p",
    "'a'",
    "\"s\"",
    "\"",
    "\n-- | doc\n",
    "-- c\n",
    "\n",
    " ",
    "é",
    "\u{0}",
    "\u{feff}",
    "λ",
    "'\\",
    "\"\\x",
    "0r",
    "1e",
    "#",
    "@",
    "$",
];

/// Applies one random mutation to `text`, using token boundaries from the lexer.
fn mutate(rng: &mut Rng, text: &str) -> String {
    let lexed = lex(FileId(0), text);
    let toks: Vec<(usize, usize)> = lexed
        .tokens
        .iter()
        .filter(|t| t.kind != TokenKind::Eof)
        .map(|t| (t.start as usize, t.end as usize))
        .collect();
    let piece = |r: (usize, usize)| text.get(r.0..r.1).unwrap_or("");
    if toks.is_empty() {
        return format!("{text}{}", FRAGMENTS[rng.below(FRAGMENTS.len())]);
    }
    let i = rng.below(toks.len());
    let (s, e) = toks[i];
    let before = text.get(..s).unwrap_or("");
    let after = text.get(e..).unwrap_or("");
    match rng.below(7) {
        // Delete a token.
        0 => format!("{before}{after}"),
        // Duplicate a token.
        1 => format!("{before}{} {}{after}", piece((s, e)), piece((s, e))),
        // Swap with the next token.
        2 if i + 1 < toks.len() => {
            let (s2, e2) = toks[i + 1];
            format!(
                "{before}{}{}{}{}",
                piece((s2, e2)),
                text.get(e..s2).unwrap_or(" "),
                piece((s, e)),
                text.get(e2..).unwrap_or("")
            )
        }
        // Insert a fragment before a token.
        3 => format!(
            "{before}{} {}",
            FRAGMENTS[rng.below(FRAGMENTS.len())],
            text.get(s..).unwrap_or("")
        ),
        // Insert random characters (ASCII-heavy, some Unicode).
        4 => {
            let n = 1 + rng.below(4);
            let junk: String = (0..n)
                .map(|_| match rng.below(4) {
                    0 => char::from_u32(0x80 + rng.below(0x2000) as u32).unwrap_or('?'),
                    _ => (b' ' + rng.below(95) as u8) as char,
                })
                .collect();
            format!("{before}{junk}{}", text.get(s..).unwrap_or(""))
        }
        // Truncate at a random character boundary.
        5 => {
            let mut cut = rng.below(text.len() + 1);
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            text.get(..cut).unwrap_or("").to_string()
        }
        // Replace a token by another token of the file.
        _ => {
            let other = toks[rng.below(toks.len())];
            format!("{before}{}{after}", piece(other))
        }
    }
}

/// The seed being parsed, so that a hang can be reported.
static CURRENT_SEED: AtomicU64 = AtomicU64::new(u64::MAX);

/// Runs `f` on a thread with a main-thread-sized stack and returns its result; fails the
/// test (naming the current seed) if it takes longer than `limit`, which catches hangs.
fn on_big_stack<T: Send + 'static>(limit: Duration, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::Builder::new()
        .stack_size(STACK)
        .spawn(move || {
            let _ = tx.send(f());
        })
        .expect("spawning the fuzz thread");
    match rx.recv_timeout(limit) {
        Ok(v) => v,
        Err(mpsc::RecvTimeoutError::Timeout) => panic!(
            "no result after {limit:?}: hang at seed {}",
            CURRENT_SEED.load(Ordering::Relaxed)
        ),
        Err(mpsc::RecvTimeoutError::Disconnected) => {
            panic!("the fuzz thread panicked (stack overflow aborts the process instead)")
        }
    }
}

/// Parses `text` every way the crate offers, checking that diagnostics lie in the text.
fn parse_all_ways(text: &str) {
    let len = text.len() as u32;
    let p = parse(FileId(7), text);
    for d in &p.errors {
        assert!(
            d.span.start <= d.span.end && d.span.end <= len,
            "bad span {:?}",
            d.span
        );
    }
    let (_, errs) = parse_exp(FileId(7), text);
    assert!(errs.iter().all(|d| d.span.end <= len));
    let cell = parse_cell(FileId(7), text);
    assert!(cell.errors.iter().all(|d| d.span.end <= len));
}

#[test]
fn mutation_fuzzer() {
    let Some(files) = common::corpus_files() else {
        println!("skipping: shared corpus not found");
        return;
    };
    let iters: usize = std::env::var("FUZZ_ITERS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20_000);
    let texts: Vec<(String, String)> = files
        .iter()
        .filter_map(|p| Some((p.display().to_string(), std::fs::read_to_string(p).ok()?)))
        .collect();
    assert!(!texts.is_empty());
    let report = on_big_stack(Duration::from_secs(300), move || {
        let start = Instant::now();
        let mut failures = Vec::new();
        let mut slowest = Duration::ZERO;
        for seed in 0..iters as u64 {
            CURRENT_SEED.store(seed, Ordering::Relaxed);
            let mut rng = Rng(seed);
            let (name, original) = &texts[rng.below(texts.len())];
            let mut text = original.clone();
            for _ in 0..1 + rng.below(4) {
                text = mutate(&mut rng, &text);
            }
            let t0 = Instant::now();
            let outcome = catch_unwind(AssertUnwindSafe(|| parse_all_ways(&text)));
            let took = t0.elapsed();
            slowest = slowest.max(took);
            if outcome.is_err() {
                failures.push(format!("panic: seed {seed}, file {name}"));
            } else if took > TIME_CAP {
                failures.push(format!("too slow ({took:?}): seed {seed}, file {name}"));
            }
        }
        (failures, start.elapsed(), slowest)
    });
    let (failures, total, slowest) = report;
    println!("fuzz: {iters} mutated inputs in {total:?}, slowest {slowest:?}");
    assert!(
        failures.is_empty(),
        "fuzz failures:\n{}",
        failures.join("\n")
    );
}

/// Random sequences of tokens and fragments, without a corpus file as a base: reaches
/// combinations that mutations of valid programs rarely produce.
#[test]
fn token_soup_fuzzer() {
    const SOUP_SEED_BASE: u64 = 1 << 40;
    let failures = on_big_stack(Duration::from_secs(300), || {
        let mut failures = Vec::new();
        for seed in SOUP_SEED_BASE..SOUP_SEED_BASE + 5_000 {
            CURRENT_SEED.store(seed, Ordering::Relaxed);
            let mut rng = Rng(seed);
            let len = 1 + rng.below(200);
            let mut text = String::new();
            for _ in 0..len {
                text.push_str(FRAGMENTS[rng.below(FRAGMENTS.len())]);
                if rng.below(3) > 0 {
                    text.push(' ');
                }
            }
            let t0 = Instant::now();
            if catch_unwind(AssertUnwindSafe(|| parse_all_ways(&text))).is_err() {
                failures.push(format!("panic: seed {seed}"));
            } else if t0.elapsed() > TIME_CAP {
                failures.push(format!("too slow: seed {seed}"));
            }
        }
        failures
    });
    assert!(
        failures.is_empty(),
        "token soup failures:\n{}",
        failures.join("\n")
    );
}

/// Parses a pathological input on a big-stack thread; returns (diagnostic messages, time).
fn pathological(text: String) -> (Vec<String>, Duration) {
    on_big_stack(Duration::from_secs(60), move || {
        let t0 = Instant::now();
        let p = parse(FileId(0), &text);
        let msgs = p.errors.iter().map(|d| d.message.clone()).collect();
        drop(p);
        (msgs, t0.elapsed())
    })
}

#[track_caller]
fn check_deep(name: &str, text: String) {
    let (msgs, took) = pathological(text);
    println!("{name}: {} diagnostics in {took:?}", msgs.len());
    assert!(
        msgs.iter().any(|m| m.contains("nested too deeply")),
        "{name}: expected a nesting diagnostic, got {msgs:?}"
    );
    assert!(took < Duration::from_secs(5), "{name} took {took:?}");
}

#[test]
fn deep_nesting_gives_a_diagnostic() {
    let n = 10_000;
    check_deep(
        "parens",
        format!("def x = {}1{}", "(".repeat(n), ")".repeat(n)),
    );
    check_deep("unclosed parens", format!("def x = {}1", "(".repeat(n)));
    check_deep("lets", format!("def x = {}a", "let a = 1 in ".repeat(n)));
    check_deep(
        "lets without in",
        format!("def x = {}a", "let a = 1\n".repeat(n)),
    );
    check_deep("ifs", format!("def x = {}0", "if c then 1 else ".repeat(n)));
    check_deep(
        "arrays",
        format!("def x = {}1{}", "[".repeat(n), "]".repeat(n)),
    );
    check_deep(
        "records",
        format!("def x = {}{}", "{a=".repeat(n), "}".repeat(n)),
    );
    check_deep("negations", format!("def x = {}1", " -".repeat(n)));
    check_deep("nots", format!("def x = {}1", "! ".repeat(n)));
    check_deep("left-assoc chain", format!("def x = 1{}", "+1".repeat(n)));
    check_deep(
        "right-assoc chain",
        format!("def x = f{}", " <| f".repeat(n)),
    );
    check_deep("ranges", format!("def x = 1{}", "...1".repeat(n)));
    check_deep("projections", format!("def x = (r){}", ".a".repeat(n)));
    check_deep("indices", format!("def x = a{}", "[0]".repeat(n)));
    check_deep("lambdas", format!("def x = {}1", "\\x -> ".repeat(n)));
    check_deep(
        "matches",
        format!("def x = {}1", "match x case _ -> ".repeat(n)),
    );
    check_deep(
        "loops",
        format!("def x = {}1", "loop x for i < n do ".repeat(n)),
    );
    check_deep("ascriptions", format!("def x = 1{}", " : i32".repeat(n)));
    check_deep("updates", format!("def x = a{}", " with [0] = 1".repeat(n)));
    check_deep("attributes", format!("def x = {}1", "#[a] ".repeat(n)));
    check_deep(
        "nested attribute",
        format!("#[{}a{}] def x = 1", "a(".repeat(n), ")".repeat(n)),
    );
    check_deep("array types", format!("def x : {}i32 = 1", "[]".repeat(n)));
    check_deep(
        "arrow types",
        format!("def x : {}i32 = 1", "i32 -> ".repeat(n)),
    );
    check_deep(
        "paren types",
        format!("def x : {}i32{} = 1", "(".repeat(n), ")".repeat(n)),
    );
    check_deep("unique types", format!("def x : {}i32 = 1", " *".repeat(n)));
    check_deep(
        "type application",
        format!("type t = f{}", " i32".repeat(n)),
    );
    check_deep(
        "patterns",
        format!("def f {}x{} = 1", "(".repeat(n), ")".repeat(n)),
    );
    check_deep(
        "modules",
        format!("module M = {}{}", "{ module N = ".repeat(n), "}".repeat(n)),
    );
    check_deep(
        "module parens",
        format!("module M = {}N{}", "(".repeat(n), ")".repeat(n)),
    );
    check_deep(
        "module application",
        format!("module M = F{}", " A".repeat(n)),
    );
    check_deep(
        "module types",
        format!("module type S = {}T{}", "(".repeat(n), ")".repeat(n)),
    );
    check_deep(
        "module type arrows",
        format!("module type S = {}T", "T -> ".repeat(n)),
    );
    check_deep("locals", format!("{}def x = 1", "local ".repeat(n)));
}

#[test]
fn huge_flat_inputs_are_fast() {
    let mb = 1 << 20;
    let cases = [
        (
            "one operator token",
            format!("def x = 1 {} 2", "+".repeat(mb)),
        ),
        (
            "operators with spaces",
            format!("def x = {}", "+ ".repeat(mb / 2)),
        ),
        ("one long name", format!("def {} = 1", "a".repeat(mb))),
        (
            "qualified name chain",
            format!("def x = a{}", ".a".repeat(mb / 2)),
        ),
        (
            "qualified operator chain",
            format!("def x = 1 {}+ 2", "a.".repeat(mb / 2)),
        ),
        (
            "long argument list",
            format!("def x = f{}", " a".repeat(mb / 2)),
        ),
        ("long tuple", format!("def x = (1{})", ",1".repeat(mb / 2))),
        ("many declarations", "def x = 1\n".repeat(mb / 10)),
        ("garbage", "@".repeat(mb)),
        ("many errors", "def x = )\n".repeat(mb / 10)),
        (
            "long string",
            format!("def x = \"{}\"", "a\\n".repeat(mb / 3)),
        ),
        (
            "long comment",
            format!("-- {}\ndef x = 1", "é".repeat(mb / 2)),
        ),
        (
            "long doc",
            format!("{}def x = 1", "-- | d\n".repeat(mb / 8)),
        ),
        ("long number", format!("def x = {}", "9".repeat(mb))),
        (
            "many cases",
            format!("def x = match y{}", " case _ -> 1".repeat(mb / 13)),
        ),
    ];
    for (name, text) in cases {
        let (msgs, took) = pathological(text);
        println!("{name}: {} diagnostics in {took:?}", msgs.len());
        assert!(took < Duration::from_secs(5), "{name} took {took:?}");
    }
}
