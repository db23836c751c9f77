//! Declarations, types, patterns, module expressions, module types, doc comments,
//! `imports()` and REPL cells.

use futhark_syntax::ast::DecKind;
use futhark_syntax::{FileId, debug_tree, parse, parse_cell};

/// Parses a file and compares its S-expression rendering (one line per declaration).
#[track_caller]
fn check(src: &str, expect: &str) {
    let parsed = parse(FileId(0), src);
    assert!(
        parsed.errors.is_empty(),
        "errors for {src:?}: {:#?}",
        parsed.errors
    );
    assert_eq!(debug_tree(&parsed.file).trim_end(), expect, "source: {src}");
}

/// Parses `type t = SRC` and compares the rendering of the type.
#[track_caller]
fn check_type(src: &str, expect: &str) {
    check(&format!("type t = {src}"), &format!("(type t = {expect})"));
}

#[track_caller]
fn check_error(src: &str, fragment: &str) {
    let parsed = parse(FileId(0), src);
    assert!(
        parsed.errors.iter().any(|e| e.message.contains(fragment)),
        "expected an error containing {fragment:?} for {src:?}, got {:#?}",
        parsed.errors
    );
}

#[test]
fn value_bindings() {
    check("def x = 1", "(def x = 1)");
    check(
        "def f [n] 'a (xs: [n]a) : a = xs[0]",
        "(def f [n] 'a (paren (: xs ([n] a))) : a = (idx xs 0))",
    );
    check(
        "entry main (x: i32) = x",
        "(entry main (paren (: x i32)) = x)",
    );
    check("let x = 2", "(let x = 2)");
    check(
        "def f 'a '~b '^c x = x",
        "(def f 'a '~b 'c x = x)".replace("'c", "'^c").as_str(),
    );
    check("def (+^) x y = x", "(def +^ x y = x)");
    check("def x +^ y = x + y", "(def (infix +^) x y = (+ x y))");
    check(
        "def (a: i32) <*> (b: i32) : i32 = a",
        "(def (infix <*>) (paren (: a i32)) (paren (: b i32)) : i32 = a)",
    );
    check(
        "def f {a, b} _ () = a",
        "(def f (record (a a) (b b)) _ () = a)",
    );
    check(
        "def f x = x\ndef g = f 1",
        "(def f x = x)\n(def g = (app f 1))",
    );
}

#[test]
fn value_binding_errors() {
    check_error(
        "def f x in x",
        "expected `=` after the parameters of `f`, found `in`",
    );
    check_error(
        "def (a, b) = (1, 2)",
        "cannot bind a pattern at the top level",
    );
    check_error("def x ! y = x", "prefix operator");
    check_error("def x M.+ y = x", "qualified");
}

#[test]
fn type_bindings() {
    check("type t = i32", "(type t = i32)");
    check("type t [n] 'a = [n]a", "(type t [n] 'a = ([n] a))");
    check("type~ t = []i32", "(type~ t = ([] i32))");
    check("type^ f = i32 -> i32", "(type^ f = (-> i32 i32))");
}

#[test]
fn types() {
    check_type("[n][m]f32", "([n] ([m] f32))");
    check_type("[n+1]i32", "([(+ n 1)] i32)");
    check_type("*[]i32", "(* ([] i32))");
    check_type("a -> b -> c", "(-> a (-> b c))");
    check_type("(a -> b) -> c", "(-> (paren (-> a b)) c)");
    check_type("(n: i64) -> [n]i32", "(-> (n: i64) ([n] i32))");
    check_type("(i32, f32)", "(tuple i32 f32)");
    check_type("()", "()");
    check_type("{x: i32, y: f32}", "(record (x i32) (y f32))");
    check_type("{0: i32}", "(record (0 i32))");
    check_type("M.t", "M.t");
    check_type("opt i32", "(tapp opt i32)");
    // `pt [n] t` passes `[n]` and then `t`; an array argument needs parentheses.
    check_type("pt [n] t", "(tapp (tapp pt [n]) t)");
    check_type("pt ([n]t)", "(tapp pt (paren ([n] t)))");
    check_type("[n]pt [m] t", "([n] (tapp (tapp pt [m]) t))");
    check_type(
        "#a | #b i32 | #c ([n]f32) (i32, i32)",
        "(sum #a (#b i32) (#c (paren ([n] f32)) (tuple i32 i32)))",
    );
    // The element type of `[n]t` is a whole term, so it takes what follows.
    check_type("#c [n]f32 i32", "(sum (#c ([n] (tapp f32 i32))))");
    check_type("#a -> i32", "(-> (sum #a) i32)");
    check_type("?[n][m].[n][m]i32", "(? [n] [m] ([n] ([m] i32)))");
    check_type("[]i32 -> ?[k].[k]i32", "(-> ([] i32) (? [k] ([k] i32)))");
    check_type("*(i32, []f32)", "(* (tuple i32 ([] f32)))");
}

#[test]
fn patterns() {
    check("def f (x: i32, _) = x", "(def f (tuple (: x i32) _) = x)");
    check(
        "def f (+) = 1",
        "(def f (+) = 1)".replace("(+)", "+").as_str(),
    );
    check(
        "def f = \\(#[unused] x) -> 1",
        "(def f = (lambda ((paren (attr unused x))) 1))",
    );
    check(
        "def f x = match x case #some (a, b) -> a case #none -> 0",
        "(def f x = (match x (case (#some (tuple a b)) a) (case #none 0)))",
    );
    check(
        "def f x = match x case {a = 1, b} -> b case 'c' -> 0 case true -> 1",
        "(def f x = (match x (case (record (a 1) (b b)) b) (case 'c' 0) (case true 1)))",
    );
    check(
        "def f x = let {a: i32} = x in a",
        "(def f x = (let (record (a (: a i32))) x a))",
    );
    check(
        "def f x = match x case -2.5 -> 1",
        "(def f x = (match x (case -2.5 1)))",
    );
}

#[test]
fn modules() {
    check(
        "module M = { def x = 1 }",
        "(module M = (decs (def x = 1)))",
    );
    check("module M = F A B", "(module M = (app (app F A) B))");
    check(
        "module M = F (G A)",
        "(module M = (app F (paren (app G A))))",
    );
    check("module M : S = N", "(module M : S = N)");
    check("module M = N : S", "(module M = (: N S))");
    check(
        "module F (P: S) (Q: T) = { open P }",
        "(module F (P: S) (Q: T) = (decs (open P)))",
    );
    check(
        "module M = \\(P: S) -> { }",
        "(module M = (lambda (P: S) (decs)))",
    );
    check(
        "module M = \\(P: S) : T -> P",
        "(module M = (lambda (P: S) : T P))",
    );
    check("module M = import \"foo\"", "(module M = (import \"foo\"))");
    check("open import \"lib/x\"", "(open (import \"lib/x\"))");
    check("import \"a\"", "(import \"a\")");
    check("local def x = 1", "(local (def x = 1))");
    check("local open M", "(local (open M))");
}

#[test]
fn module_types() {
    check(
        "module type S = { type t val x : t val (+) : t -> t -> t }",
        "(module-type S = (specs (type t) (val x : t) (val + : (-> t (-> t t)))))",
    );
    check(
        "module type S = { val + : i32 type~ t [n] 'a = [n]a module M : T include U }",
        "(module-type S = (specs (val + : i32) (type~ t [n] 'a = ([n] a)) (module M : T) (include U)))",
    );
    check(
        "module type S = T with t = i32 with u [n] = [n]f32",
        "(module-type S = (with (with T t = i32) u [n] = ([n] f32)))",
    );
    check(
        "module type S = A -> B -> C",
        "(module-type S = (-> A (-> B C)))",
    );
    check(
        "module type S = (P: A) -> B with t = P.t",
        "(module-type S = (-> (P: A) (with B t = P.t)))",
    );
    check(
        "module type S = { val f [n] 'a : [n]a -> a }",
        "(module-type S = (specs (val f [n] 'a : (-> ([n] a) a))))",
    );
    check(
        "module M : S with t = i32 = { type t = i32 }",
        "(module M : (with S t = i32) = (decs (type t = i32)))",
    );
    check(
        "module M : S with t = ?[k].[k]bool = N",
        "(module M : (with S t = (? [k] ([k] bool))) = N)",
    );
}

#[test]
fn attributes_on_declarations() {
    check("#[inline] def f x = x", "#[inline] (def f x = x)");
    check(
        "#[noinline] #[foo(1, bar)] def f = 0",
        "#[noinline] #[foo(1, bar)] (def f = 0)",
    );
}

#[test]
fn doc_comments() {
    check(
        "-- | Adds one.\n-- More text.\ndef f x = x + 1",
        "(doc \"Adds one.\\nMore text.\") (def f x = (+ x 1))",
    );
    check(
        "-- | The file.\n\ndef f = 1",
        "(file-doc \"The file.\")\n(def f = 1)",
    );
    check(
        "-- | The file.\n-- | The def.\ndef f = 1",
        "(doc \"The file.\\n| The def.\") (def f = 1)",
    );
    check(
        "-- | The file.\n\n-- | The def.\ndef f = 1",
        "(file-doc \"The file.\")\n(doc \"The def.\") (def f = 1)",
    );
    check(
        "module type S = {\n  -- | A value.\n  val x : i32\n}",
        "(module-type S = (specs (doc \"A value.\") (val x : i32)))",
    );
    check(
        "def x = 1\n-- | Local doc.\nlocal def y = 2",
        "(def x = 1)\n(doc \"Local doc.\") (local (def y = 2))",
    );
    check_error("def f x =\n  -- | not here\n  x", "doc comment");
    check_error("def x = 1\n-- | dangling", "doc comment");
}

#[test]
fn top_level_let_and_mixed_files() {
    check(
        "let x = 1\nlet f y = y\ndef g = x",
        "(let x = 1)\n(let f y = y)\n(def g = x)",
    );
}

#[test]
fn imports_in_order() {
    let src = "import \"a\"\nlocal import \"b\"\nopen import \"c\"\nmodule M = { import \"d\" }\nmodule N = F (import \"e\")\ndef x = 1";
    let parsed = parse(FileId(0), src);
    assert!(parsed.errors.is_empty(), "{:#?}", parsed.errors);
    let imports: Vec<&str> = parsed
        .file
        .imports()
        .iter()
        .map(|s| s.value.as_str())
        .collect();
    assert_eq!(imports, ["a", "b", "c", "d", "e"]);
    let first = parsed.file.imports()[0].span;
    assert_eq!(&src[first.range()], "\"a\"");
}

#[test]
fn cells() {
    let c = parse_cell(FileId(1), "def f x = x + 1");
    assert!(c.errors.is_empty() && c.exp.is_none());
    assert!(matches!(c.decs[0].kind, DecKind::Val(_)));

    let c = parse_cell(FileId(1), "f 2 + 1");
    assert!(c.errors.is_empty() && c.decs.is_empty() && c.exp.is_some());

    let c = parse_cell(FileId(1), "let x = 3");
    assert!(c.errors.is_empty() && c.exp.is_none() && c.decs.len() == 1);

    let c = parse_cell(FileId(1), "let x = 3 in x + 1");
    assert!(c.errors.is_empty() && c.decs.is_empty() && c.exp.is_some());

    let c = parse_cell(FileId(1), "type t = i32\ndef x : t = 1");
    assert!(c.errors.is_empty() && c.decs.len() == 2);

    let c = parse_cell(FileId(1), "  -- nothing\n");
    assert!(c.errors.is_empty() && c.decs.is_empty() && c.exp.is_none());

    let c = parse_cell(FileId(1), "1 +");
    assert_eq!(c.errors.len(), 1);

    // Lines from the REPL transcripts of the reference test suite.
    for line in [
        "let blocked = blockify 2 (copy <| unflatten (map i32.i64 <| iota (8*8)))",
        "let pre_transpose = map (map transpose) blocked",
        "secret",
    ] {
        let c = parse_cell(FileId(1), line);
        assert!(c.errors.is_empty(), "{line}: {:#?}", c.errors);
        assert_eq!(c.decs.len() + usize::from(c.exp.is_some()), 1, "{line}");
    }
}

#[test]
fn byte_order_mark_is_ignored() {
    check("\u{feff}def x = 1", "(def x = 1)");
}

#[test]
fn spans_cover_their_source() {
    use futhark_syntax::ast::{ExpKind, PatKind};
    let src = "def f (x: i32) = #some (x + 1)";
    let parsed = parse(FileId(3), src);
    assert!(parsed.errors.is_empty());
    let dec = &parsed.file.decs[0];
    assert_eq!(&src[dec.span.range()], src);
    assert_eq!(dec.span.file, FileId(3));
    let DecKind::Val(v) = &dec.kind else {
        panic!("not a value binding")
    };
    assert_eq!(&src[v.name.span.range()], "f");
    assert_eq!(&src[v.params[0].span.range()], "(x: i32)");
    let PatKind::Parens(inner) = &v.params[0].kind else {
        panic!("not parenthesised")
    };
    assert_eq!(&src[inner.span.range()], "x: i32");
    assert_eq!(&src[v.body.span.range()], "#some (x + 1)");
    let ExpKind::Constr(name, args) = &v.body.kind else {
        panic!("not a constructor")
    };
    assert_eq!(
        (name.name.as_str(), &src[name.span.range()]),
        ("some", "#some")
    );
    let ExpKind::Parens(sum) = &args[0].kind else {
        panic!("not parenthesised")
    };
    assert_eq!(&src[sum.span.range()], "x + 1");
}
