//! `check_exp_cell` against the two checks it replaces: for every expression of a corpus of
//! REPL cells, its expression part equals `check_exp`'s result exactly, and the scope it
//! binds `it` in equals (up to fresh names' numbers) the scope of checking
//! `def it = <exp>` — including whether there is one.

use std::sync::{Arc, OnceLock};

use futhark_check::env::Scheme;
use futhark_check::{
    CheckContext, FileScope, TParam, check_decs_incremental, check_exp, check_exp_cell,
};
use futhark_syntax::ast::DecKind;
use futhark_syntax::{FileId, Span};

fn ctx() -> &'static CheckContext {
    static CTX: OnceLock<CheckContext> = OnceLock::new();
    CTX.get_or_init(CheckContext::new)
}

/// The scope after some declarations, as earlier cells would leave it.
fn scope_after(text: &str) -> Arc<FileScope> {
    let file = FileId(800);
    let cell = futhark_syntax::parse_cell(file, text);
    assert!(cell.errors.is_empty(), "{:?}", cell.errors);
    let scope = ctx().initial_scope();
    let checked = check_decs_incremental(ctx(), &scope, file, &cell.decs, &|_| None);
    assert!(checked.diagnostics.is_empty(), "{:?}", checked.diagnostics);
    checked.scope
}

/// The scope after `def it = <exp>` (spans as a session builds it), or `None` if that
/// definition has errors: what the session did before `check_exp_cell`.
fn bind_by_definition(
    scope: &FileScope,
    file: FileId,
    exp: &futhark_syntax::ast::Exp,
) -> Option<Arc<FileScope>> {
    let template = futhark_syntax::parse_cell(file, "def it = 0");
    let mut dec = template.decs.into_iter().next()?;
    let at = Span::new(file, exp.span.start, exp.span.start);
    dec.span = at;
    let DecKind::Val(vb) = &mut dec.kind else {
        return None;
    };
    vb.name.span = at;
    vb.span = exp.span;
    vb.body = exp.clone();
    let checked = check_decs_incremental(ctx(), scope, file, &[dec], &|_| None);
    (!checked.diagnostics.iter().any(|d| d.is_error())).then_some(checked.scope)
}

/// `it`'s binding in words: its parameters (base names and kinds), type and place.
fn it_binding(scope: &FileScope) -> Option<String> {
    let b = scope.env.vals.get("it")?;
    let Scheme::Poly(ps, t) = &*b.scheme else {
        return Some("overloaded".to_string());
    };
    let params: Vec<String> = ps
        .iter()
        .map(|p| match p {
            TParam::Size { name } => format!("[{}]", name.name()),
            TParam::Type { name, lifted } => format!("'{} {lifted:?}", name.name()),
        })
        .collect();
    Some(format!("{} {t} at {:?}", params.join(" "), b.def.span))
}

const SETUP: &str = "def xs = [1i32, -2, 3]\ndef f (x: i32) = x + 1\ndef g (x: i64) = x * 2\n\
type r = {a: i32}\ndef n = 3i64\ndef it = iota 3\ndef y = 5.5f32";

/// Cells of the session's, the REPL's and the notebook's tests, and some with generic,
/// sized, unique and erroneous types.
const CELLS: &[&str] = &[
    "1 + 2",
    "id",
    "map (+1)",
    "filter (>0) xs",
    "iota 5",
    "[]",
    "(1, 2.0)",
    "\\x -> x",
    "\\x y -> x == y",
    "#foo",
    "{a = 1}",
    "f 3",
    "xs with [0] = 5",
    "loop x = 0 for i < 10 do x + i",
    "iota n",
    "replicate 3 (iota 2)",
    "opaque 1",
    "let ys = filter (>0) xs in (ys, length ys)",
    "copy xs",
    "reduce (+) 0 xs",
    "1f16",
    "true && false",
    "map f",
    "zip xs xs",
    "unzip",
    "(.a)",
    "\\(x: []i32) -> x",
    "length",
    "x",
    "1 + true",
    "#[trace] (1i32 + 2)",
    "#[unsafe] xs[5]",
    "map g [1, 2, 3]",
    "k + 1",
    "reduce (+) 0 it",
    "it * 10",
    "y",
    "[1f32, 2f32]",
    "[1, 2, 3][5]",
    "(1i32, true)",
    "{a = 1u8, b = 2.0f64}",
    "zip [1i32, 2] [true, false]",
    "1 / 0i32",
    "map (+1) it",
    "i64.sum it",
    "map (*2) (iota 5)",
    "map (\\x -> x * 2 + 1) (iota 1000)",
    "41i32 + 1",
    "\"hello\"",
    "'a'",
    "(\\x -> x + 1) 2",
    "match 1 case 1 -> true case _ -> false",
    "if true then xs else [1, 2, 3]",
    "tabulate 3 (\\i -> i * 2)",
    "scan (+) 0 (iota 4)",
    "hist (+) 0 3 [0, 1, 1] [1, 2, 3]",
    "transpose [[1, 2], [3, 4]]",
    "flatten [[1, 2], [3, 4]]",
    "concat xs xs",
    "xs :> [3]i32",
    "iota (length xs)",
    "(.0)",
    "i32.max",
    "f32.sqrt 2",
    "#[trace] xs",
];

#[test]
fn an_expression_cell_is_checked_once_with_the_same_result() {
    let scope = scope_after(SETUP);
    let mut bound = 0;
    for (i, text) in CELLS.iter().enumerate() {
        let file = FileId(900 + i as u32);
        let (exp, errors) = futhark_syntax::parse_exp(file, text);
        let Some(exp) = exp.filter(|_| errors.is_empty()) else {
            panic!("{text}: does not parse: {errors:?}");
        };
        let once = check_exp_cell(ctx(), &scope, file, &exp, "it");
        assert_eq!(once.exp, check_exp(ctx(), &scope, file, &exp), "{text}");
        // `check_exp_cell` binds only what checked; the definition may still bind a
        // value whose expression has errors, which no session keeps.
        let by_def = bind_by_definition(&scope, file, &exp)
            .filter(|_| !once.exp.diagnostics.iter().any(|d| d.is_error()));
        assert_eq!(
            once.bound.as_deref().and_then(it_binding),
            by_def.as_deref().and_then(it_binding),
            "{text}"
        );
        bound += usize::from(once.bound.is_some());
        // Everything else in the scope is the scope the cell started from.
        if let Some(s) = &once.bound {
            let mut names: Vec<&str> = s.env.vals.keys().map(|k| k.as_ref()).collect();
            let mut before: Vec<&str> = scope.env.vals.keys().map(|k| k.as_ref()).collect();
            names.sort();
            before.sort();
            assert_eq!(names, before, "{text}");
        }
    }
    // The corpus exercises both outcomes.
    assert!(
        bound > 40 && bound < CELLS.len(),
        "{bound} of {} bound",
        CELLS.len()
    );
}
