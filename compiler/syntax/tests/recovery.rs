//! Error recovery: each mistake yields one diagnostic at the right place, parsing goes
//! on, and the valid declarations around broken ones are kept.

use futhark_syntax::{FileId, LineIndex, debug_tree, parse};

/// Parses `src` and returns `(line:col message)` for each diagnostic and the tree.
fn diagnostics(src: &str) -> (Vec<String>, String) {
    let parsed = parse(FileId(0), src);
    let index = LineIndex::new(src);
    let diags = parsed
        .errors
        .iter()
        .map(|e| {
            let (line, col) = index.line_col(e.span.start);
            format!("{line}:{col} {}", e.message)
        })
        .collect();
    (diags, debug_tree(&parsed.file))
}

#[test]
fn three_errors_three_diagnostics() {
    let src = "\
def a = 1

def b x = x +

def c = 3

def d x in x

def e = 5

def f = (1, 2

def g = 7
";
    let (diags, tree) = diagnostics(src);
    assert_eq!(
        diags,
        [
            "5:1 expected an expression, found `def`",
            "7:9 expected `=` after the parameters of `d`, found `in`",
            "13:1 expected `)` to close the tuple, found `def`",
        ]
    );
    assert_eq!(
        tree,
        "\
(def a = 1)
(def b x = (+ x <error>))
(def c = 3)
(def d x = <error>)
(def e = 5)
(def f = (tuple 1 2))
(def g = 7)
"
    );
}

#[test]
fn errors_inside_modules_and_module_types() {
    let src = "\
module M = {
  def x = 1 +
  def y = 2
}

module type S = {
  val f : i32 ->
  val g : i32
}

def z = M.y
";
    let (diags, tree) = diagnostics(src);
    assert_eq!(
        diags,
        [
            "3:3 expected an expression, found `def`",
            "8:3 expected a type, found `val`",
        ]
    );
    assert_eq!(
        tree,
        "\
(module M = (decs (def x = (+ 1 <error>)) (def y = 2)))
(module-type S = (specs (val f : (-> i32 <error>)) (val g : i32)))
(def z = M.y)
"
    );
}

#[test]
fn stray_tokens_between_declarations() {
    let src = "def f = 1 )\ndef g = [1, 2\ndef h = 3\n} def k = 4\n";
    let (diags, tree) = diagnostics(src);
    assert_eq!(
        diags,
        [
            "1:11 expected a declaration, found `)`",
            "3:1 expected `]` to close the array, found `def`",
            "4:1 expected a declaration, found `}`",
        ]
    );
    assert_eq!(
        tree,
        "(def f = 1)\n<error>\n(def g = (array 1 2))\n(def h = 3)\n<error>\n(def k = 4)\n"
    );
}

#[test]
fn missing_in_is_reported_once() {
    let src = "def f x =\n  let y = x\ndef g = 2\n";
    let (diags, tree) = diagnostics(src);
    assert_eq!(diags, ["3:1 unexpected `def`: is an `in` missing?"]);
    assert_eq!(tree, "(def f x = (let y x <error>))\n(def g = 2)\n");
}

#[test]
fn lexical_errors_do_not_cascade() {
    let src = "def a = x @ y\ndef b = \"abc\ndef c = 'x\ndef d = 1\n";
    let (diags, tree) = diagnostics(src);
    assert_eq!(
        diags,
        [
            "1:11 unexpected character `@`",
            "2:9 unterminated string literal",
            "3:9 expected an expression, found `'`",
        ]
    );
    assert!(tree.ends_with("(def d = 1)\n"), "{tree}");
}

#[test]
fn unclosed_module_body() {
    let src = "module M = {\n  def x = 1\n";
    let (diags, _) = diagnostics(src);
    assert_eq!(
        diags,
        ["3:1 expected `}` to close the module, found end of file"]
    );
}

#[test]
fn garbage_at_top_level_is_one_error() {
    let src = "1 2 3 + ( ] in then\ndef ok = 1\n";
    let (diags, tree) = diagnostics(src);
    assert_eq!(diags, ["1:1 expected a declaration, found `1`"]);
    assert_eq!(tree, "<error>\n(def ok = 1)\n");
}

#[test]
fn top_level_let_restarts_only_at_column_one() {
    // The `let` inside the broken body is not a restart point; the one at column 1 is.
    let src = "def f = g (\n  let x = 1 in x\nlet y = 2\n";
    let (diags, tree) = diagnostics(src);
    assert_eq!(diags.len(), 1, "{diags:?}");
    assert!(tree.ends_with("(let y = 2)\n"), "{tree}");
}

#[test]
fn missing_closer_points_at_the_opener() {
    let src = "def f = g (1, [2, 3)\ndef h = 0\n";
    let parsed = parse(FileId(0), src);
    assert_eq!(parsed.errors.len(), 1, "{:#?}", parsed.errors);
    let err = &parsed.errors[0];
    assert_eq!(err.message, "expected `]` to close the array, found `)`");
    assert_eq!(err.labels.len(), 1);
    assert_eq!(&src[err.labels[0].span.range()], "[");
    assert_eq!(err.labels[0].span.start, 14);
    assert_eq!(err.labels[0].message, "unclosed `[`");
}
