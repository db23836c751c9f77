//! Re-checking after edits reuses unchanged declarations and still reports exactly what a
//! fresh check reports.

use futhark_db::{Database, check, check_diagnostics};

/// A program of functions, each calling its predecessor; `defs[i]` is the result type and
/// the body of function `i` (an expression over `x`).
fn program(defs: &[(&str, &str)]) -> String {
    let mut src = String::new();
    for (i, (ret, body)) in defs.iter().enumerate() {
        let call = if i == 0 {
            String::new()
        } else {
            format!("let y = f{} x\n  ", i - 1)
        };
        src.push_str(&format!(
            "def f{i} (x: i64) : {ret} =\n  {call}let z = map (+1) (iota 3)\n  in {body} + z[0]\n\n"
        ));
    }
    src
}

/// A small deterministic generator (xorshift), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

/// Bodies to edit in: fine ones, type errors, unknown names, uses of other functions.
const BODIES: &[&str] = &[
    "x * 2 + 1",
    "x + 12345",
    "x + true",
    "y + unknown_name",
    "f0 x",
    "(x + 1.0)",
    "i64.max x 3",
    "reduce (+) 0 (map (*2) (iota x))",
    "let (a, b) = (x, 2) in a + b",
    "x",
];

/// Result types to edit in: changing one changes the function's signature, so its
/// dependants must be re-checked.
const RETS: &[&str] = &["i64", "i64", "i64", "i32", "[]i64"];

#[test]
fn random_body_edits_match_a_fresh_check() {
    let n = 60;
    let mut defs: Vec<(&str, &str)> = vec![("i64", "x * 2 + 1"); n];
    let mut db = Database::new();
    let file = db.set_file("/recheck/big.fut", program(&defs));
    let _ = check_diagnostics(&db, file);
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for round in 0..120 {
        let edits = 1 + rng.next(3);
        for _ in 0..edits {
            let i = rng.next(n);
            if rng.next(4) == 0 {
                defs[i].0 = RETS[rng.next(RETS.len())];
            } else {
                defs[i].1 = BODIES[rng.next(BODIES.len())];
            }
        }
        let text = program(&defs);
        db.set_file("/recheck/big.fut", text.clone());
        let incremental = check_diagnostics(&db, file);
        let mut fresh_db = Database::new();
        let fresh_file = fresh_db.set_file("/recheck/big.fut", text);
        let fresh = check_diagnostics(&fresh_db, fresh_file);
        assert_eq!(incremental, fresh, "round {round}");
        // Not just the diagnostics: the side tables and the exported scope are equal too.
        assert_eq!(
            *check(&db, file).0,
            *check(&fresh_db, fresh_file).0,
            "round {round}"
        );
    }
}
