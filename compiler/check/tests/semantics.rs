//! Focused tests of the type system on small programs: inferred types (including sizes),
//! uniqueness decisions, the module system, the side tables, and the REPL interface.

mod common;

use std::path::Path;
use std::sync::Arc;

use common::Loader;
use futhark_check::{
    CheckContext, FileScope, PrimType, check_decs_incremental, check_exp, module_signature,
};
use futhark_syntax::FileId;

fn ctx() -> &'static CheckContext {
    use std::sync::OnceLock;
    static CTX: OnceLock<CheckContext> = OnceLock::new();
    CTX.get_or_init(CheckContext::new)
}

/// The errors of a program, rendered.
fn errors(src: &str) -> Vec<String> {
    let mut l = Loader::new(ctx());
    let c = l.check_text(Path::new("t.fut"), src);
    c.diagnostics
        .iter()
        .filter(|d| d.is_error())
        .map(|d| futhark_check::render::render(d, "t.fut", src))
        .collect()
}

fn accepts(src: &str) {
    let e = errors(src);
    assert!(
        e.is_empty(),
        "expected no errors for\n{src}\ngot:\n{}",
        e.join("\n")
    );
}

/// The first error's code.
fn rejects(src: &str, code: &str) {
    let mut l = Loader::new(ctx());
    let c = l.check_text(Path::new("t.fut"), src);
    let first = c.diagnostics.iter().find(|d| d.is_error());
    match first {
        Some(d) => assert_eq!(d.code, code, "wrong error for\n{src}\n{}", d.message),
        None => panic!("expected error {code} for\n{src}"),
    }
}

/// The printed type scheme of a top-level definition.
fn type_of(src: &str, name: &str) -> String {
    let mut l = Loader::new(ctx());
    let c = l.check_text(Path::new("t.fut"), src);
    let errs: Vec<_> = c.diagnostics.iter().filter(|d| d.is_error()).collect();
    assert!(errs.is_empty(), "unexpected errors: {errs:?}");
    let info = &c.result.as_ref().unwrap().info;
    let d = info
        .defs
        .values()
        .find(|d| d.vname.name() == name)
        .unwrap_or_else(|| panic!("no definition {name}"));
    format!(
        "{}{}",
        futhark_check::pretty::tparams_prefix(&d.tparams),
        d.ty
    )
}

#[test]
fn inference_and_generalisation() {
    assert_eq!(type_of("def id x = x", "id"), "'^a a -> a");
    assert_eq!(type_of("def f x = x + 1", "f"), "i32 -> i32");
    assert_eq!(type_of("def f (x: f32) = x + 1", "f"), "f32 -> f32");
    assert_eq!(type_of("def f x = x + 1.0", "f"), "f64 -> f64");
    assert_eq!(
        type_of("def f (r: {a: i32, b: bool}) = r.a", "f"),
        "{a: i32, b: bool} -> i32"
    );
    assert_eq!(
        type_of("def f = #foo 1 : #foo i32 | #bar", "f"),
        "#bar | #foo i32"
    );
    assert_eq!(
        type_of("def f x y = (y, x)", "f"),
        "'^a '^b a -> b -> (b, a)"
    );
}

#[test]
fn sizes() {
    assert_eq!(
        type_of("def f (n: i64) = iota n", "f"),
        "(n: i64) -> *[n]i64"
    );
    assert_eq!(
        type_of("def f [n] (xs: [n]i32) = xs[1:]", "f"),
        "[n] [n]i32 -> [n - 1]i32"
    );
    assert_eq!(
        type_of("def f [n] (xs: [n]i32) = xs[:3]", "f"),
        "[n] [n]i32 -> [3]i32"
    );
    assert_eq!(
        type_of("def f [n] (xs: [n]i32) = filter (> 0) xs", "f"),
        "[n] [n]i32 -> ?[m].*[m]i32"
    );
    assert_eq!(
        type_of("def f (n: i64) = let m = n + 1 in iota m", "f"),
        "(n: i64) -> *[n + 1]i64"
    );
    assert_eq!(
        type_of("def f [n] [m] (xs: [n]i32) (ys: [m]i32) = xs ++ ys", "f"),
        "[n] [m] [n]i32 -> [m]i32 -> *[n + m]i32"
    );
    // Branches of different sizes give an existential size.
    assert_eq!(
        type_of(
            "def f b (n: i64) (m: i64) = if b then iota n else iota m",
            "f"
        ),
        "bool -> i64 -> i64 -> ?[d].*[d]i64"
    );
    // A loop that keeps the size, and one that changes it.
    assert_eq!(
        type_of(
            "def f [n] (xs: *[n]i32) = loop xs for i < n do xs with [i] = 0",
            "f"
        ),
        "[n] *[n]i32 -> *[n]i32"
    );
    accepts("def f [n] (xs: [n]i32) = loop ys = xs for i < 3 do ys ++ ys");
    rejects(
        "def f [n][m] (xs: [n]i32) (ys: [m]i32) = zip xs ys",
        "type-mismatch",
    );
    rejects("def f (n: i64) : [n]i64 = iota (n + 1)", "type-mismatch");
    rejects("def f xs n = zip xs (iota n)", "scope-violation");
    accepts("def f (n: i64) (xs: [n]i32) = zip xs (iota n)");
    accepts("def f [n] (xs: [n]i32) = zip xs (xs :> [n]i32)");
    accepts("def f (n: i64) (xs: []i32) = zip (xs :> [n]i32) (iota n)");
}

#[test]
fn uniqueness() {
    accepts("def f (xs: *[]i32) = xs with [0] = 1");
    accepts("def f (xs: []i32) = let ys = copy xs in ys with [0] = 1");
    accepts("def f (n: i64) = let xs = iota n in let xs[0] = 1 in xs");
    rejects("def f (xs: []i32) = xs with [0] = 1", "not-consumable");
    rejects(
        "def f (xs: *[]i32) = let ys = xs with [0] = 1 in xs[0]",
        "use-after-consume",
    );
    rejects("def f (xs: []i32) : *[]i32 = xs", "return-aliased");
    rejects(
        "def f (xs: *[]i32) = map (\\i -> let xs[i] = 0 in i) (iota 3)",
        "not-consumable",
    );
    // Aliases flow through tuples and function results.
    rejects(
        "def f (a: *[]i32) = let t = (1, a) let a[0] = 2 in t.1",
        "use-after-consume",
    );
    rejects(
        "def g (x: []i32) = x\ndef f (a: []i32) = let b = g a in b with [0] = 1",
        "not-consumable",
    );
}

#[test]
fn modules() {
    accepts(
        "module type mt = { type t val x : t val f : t -> i32 }\n\
         module m : mt = { type t = i32 def x = 1 def f (y: t) = y + 1 }\n\
         def main = m.f m.x",
    );
    // Opaque ascription hides the definition of t.
    rejects(
        "module m : { type t val x : t } = { type t = i32 def x = 1i32 }\ndef main : i32 = m.x",
        "type-mismatch",
    );
    // Refinement makes it visible.
    accepts(
        "module m : { type t val x : t } with t = i32 = { type t = i32 def x = 1i32 }\ndef main : i32 = m.x",
    );
    // Functor application is generative.
    rejects(
        "module F (P: {}) : { type t val x : t val f : t -> i32 } = { type t = i32 def x = 0i32 def f (y: t) = y }\n\
         module A = F {}\nmodule B = F {}\ndef main = A.f B.x",
        "type-mismatch",
    );
    accepts(
        "module F (P: { val n : i64 }) = { def xs = iota P.n }\nmodule A = F { def n = 3i64 }\ndef main = A.xs",
    );
    rejects(
        "module m : { val x : i32 } = { def y = 1 }",
        "module-mismatch",
    );
    rejects("module F (P: {}) = {}\ndef x = F.y", "module-is-parametric");
}

#[test]
fn module_signatures_print() {
    let r = check_decs_for_repl("module m = { type t = i32 def f (x: t) = x + 1 }");
    let sig = module_signature(&r, "m").unwrap();
    assert!(sig.contains("type t = i32"), "{sig}");
    assert!(sig.contains("val f : i32 -> i32"), "{sig}");
    let f32sig = module_signature(&r, "f32").unwrap();
    assert!(f32sig.contains("val sqrt : f32 -> f32"), "{f32sig}");
}

fn check_decs_for_repl(src: &str) -> Arc<FileScope> {
    let scope = ctx().initial_scope();
    let p = futhark_syntax::parse(FileId(100), src);
    let r = check_decs_incremental(ctx(), &scope, FileId(100), &p.file.decs, &|_| None);
    assert!(
        r.diagnostics.iter().all(|d| !d.is_error()),
        "{:?}",
        r.diagnostics
    );
    r.scope
}

#[test]
fn repl_cells() {
    let s1 = check_decs_for_repl("def x = 40i64");
    let p = futhark_syntax::parse(FileId(101), "def y = x + 2");
    let r2 = check_decs_incremental(ctx(), &s1, FileId(101), &p.file.decs, &|_| None);
    assert!(r2.diagnostics.is_empty());
    let (e, errs) = futhark_syntax::parse_exp(FileId(102), "iota y");
    assert!(errs.is_empty());
    let t = check_exp(ctx(), &r2.scope, FileId(102), &e.unwrap());
    assert!(t.diagnostics.is_empty(), "{:?}", t.diagnostics);
    assert_eq!(t.ty.to_string(), "*[y]i64");
}

#[test]
fn side_tables() {
    let src = "def f (x: u8) = x + 1\nentry main (xs: []f32) : f32 = f32.sum xs";
    let mut l = Loader::new(ctx());
    let c = l.check_text(Path::new("t.fut"), src);
    assert!(c.diagnostics.is_empty(), "{:?}", c.diagnostics);
    let info = &c.result.unwrap().info;
    // The literal 1 is a u8.
    let lit = src.find("1\n").unwrap() as u32;
    let t = info
        .literal_types
        .iter()
        .find(|(s, _)| s.start == lit)
        .map(|(_, t)| *t);
    assert_eq!(t, Some(PrimType::U8));
    // `f32.sum` resolves to the prelude's definition.
    let at = src.find("f32.sum").unwrap() as u32;
    let r = info
        .resolutions
        .iter()
        .find(|(s, _)| s.start == at && s.len() == 7)
        .map(|(_, d)| d.name.to_string());
    assert_eq!(r.as_deref(), Some("sum"));
    // The entry point is recorded with its types.
    assert_eq!(info.entries.len(), 1);
    assert_eq!(info.entries[0].name.as_ref(), "main");
    assert_eq!(info.entries[0].params[0].ty.to_string(), "[d]f32");
}
