//! Expression syntax: every precedence level, associativity, and the disambiguation rules
//! of LANGUAGE.md §2 and §7, checked through the S-expression printer.

use futhark_syntax::{FileId, debug_exp, parse_exp};

/// Parses `src` as an expression and compares its S-expression with `expect`.
#[track_caller]
fn check(src: &str, expect: &str) {
    let (e, errors) = parse_exp(FileId(0), src);
    assert!(errors.is_empty(), "errors for {src:?}: {errors:#?}");
    let got = e.map(|e| debug_exp(&e)).unwrap_or_default();
    assert_eq!(got, expect, "source: {src}");
}

/// Parses `src`, expecting a syntax error whose message contains `fragment`.
#[track_caller]
fn check_error(src: &str, fragment: &str) {
    let (_, errors) = parse_exp(FileId(0), src);
    assert!(
        errors.iter().any(|e| e.message.contains(fragment)),
        "expected an error containing {fragment:?} for {src:?}, got {errors:#?}"
    );
}

#[test]
fn precedence_levels_tightest_first() {
    check("a ** b * c", "(* (** a b) c)");
    check("a * b ** c", "(* a (** b c))");
    check("a * b + c", "(+ (* a b) c)");
    check("a + b * c", "(+ a (* b c))");
    check("a / b % c // d %% e", "(%% (// (% (/ a b) c) d) e)");
    check("a + b << c", "(<< (+ a b) c)");
    check("a << b >> c", "(>> (<< a b) c)");
    check("a << b & c", "(& (<< a b) c)");
    check("a & b ^ c | d", "(| (^ (& a b) c) d)");
    check("a | b == c", "(== (| a b) c)");
    check("x & y == z", "(== (& x y) z)");
    check("a == b && c", "(&& (== a b) c)");
    check("a < b && c >= d", "(&& (< a b) (>= c d))");
    check("a && b || c", "(|| (&& a b) c)");
    check("a || b && c", "(|| a (&& b c))");
    check("a || b <| c", "(<| (|| a b) c)");
    check("f <| a |> g", "(|> (<| f a) g)");
    check("a |> f <| b", "(|> a (<| f b))");
}

#[test]
fn associativity() {
    check("a - b - c", "(- (- a b) c)");
    check("a ** b ** c", "(** (** a b) c)");
    check("a |> f |> g", "(|> (|> a f) g)");
    check("f <| g <| x", "(<| f (<| g x))");
    check("a `f` b `g` c", "(`g` (`f` a b) c)");
}

#[test]
fn pipes_are_loosest_binary_operators() {
    check("x + 1 |> f", "(|> (+ x 1) f)");
    check(
        "xs |> map f |> reduce (+) 0",
        "(|> (|> xs (app map f)) (app reduce (section +) 0))",
    );
    check("f <| x * 2", "(<| f (* x 2))");
}

#[test]
fn user_operator_fixity_from_longest_builtin_prefix() {
    check("a +^ b * c", "(+^ a (* b c))");
    check("a >>= b + c", "(>>= a (+ b c))");
    check("a >-> b + c", "(>-> a (+ b c))");
    check("a !== b && c", "(&& (!== a b) c)");
    check("a =<< b || c", "(|| (=<< a b) c)");
    check("a <=< b + c", "(<=< a (+ b c))");
    check("a |>> b |> c", "(|> (|>> a b) c)");
    check("a <|> b <|> c", "(<|> a (<|> b c))");
    check("a **. b * c", "(* (**. a b) c)");
    check("x+-1", "(+- x 1)");
}

#[test]
fn qualified_operators() {
    check("a M.+ b", "(M.+ a b)");
    check("a f32.<= b && c", "(&& (f32.<= a b) c)");
    check("a `M.f` b", "(`M.f` a b)");
}

#[test]
fn prefix_operators() {
    check("-x ** 2", "(** (neg x) 2)");
    check("-f x", "(neg (app f x))");
    check("!a && b", "(&& (not a) b)");
    check("- -x", "(neg (neg x))");
    check("a - -b", "(- a (neg b))");
    check("a * -b", "(* a (neg b))");
    check("-x.a", "(neg x.a)");
    check("-xs[0]", "(neg (idx xs 0))");
}

#[test]
fn minus_after_application_subtracts() {
    check("f -1", "(- f 1)");
    check("f x -1", "(- (app f x) 1)");
    check("f (-1)", "(app f (paren (neg 1)))");
}

#[test]
fn application() {
    check("f x y", "(app f x y)");
    check("f (g x) y", "(app f (paren (app g x)) y)");
    check("f x.a y", "(app f x.a y)");
    check("f #c x", "(app f #c x)");
    check("f \\x -> x + 1", "(app f (lambda (x) (+ x 1)))");
    check(
        "tabulate n \\i -> i * 2",
        "(app tabulate n (lambda (i) (* i 2)))",
    );
    check("f x \\y -> y |> g", "(app f x (lambda (y) (|> y g)))");
}

#[test]
fn constructors_take_payload_at_head() {
    check("#c x y", "(#c x y)");
    check("#c", "#c");
    check("#c (x + 1) [1]", "(#c (paren (+ x 1)) (array 1))");
    check("#c x + 1", "(+ (#c x) 1)");
}

#[test]
fn indexing_versus_application() {
    check("f [x]", "(app f (array x))");
    check("f[x]", "(idx f x)");
    check("g 3[0]", "(app g (idx 3 0))");
    check("a[i][j]", "(idx (idx a i) j)");
    check("a[i, j]", "(idx a i j)");
    check("(f x)[0]", "(idx (paren (app f x)) 0)");
    check("a[1:]", "(idx a (slice 1 _ _))");
    check("a[:n]", "(idx a (slice _ n _))");
    check("a[::-1]", "(idx a (slice _ _ (neg 1)))");
    check("a[i:j:2, k]", "(idx a (slice i j 2) k)");
    check("a[:]", "(idx a (slice _ _ _))");
    check("x'[0]", "(idx x' 0)");
    check("a[]", "(idx a)");
    check_error("a[i] [j]", "a[i, j]");
}

#[test]
fn projections() {
    check("x.0.1", "(. (. x 0) 1)");
    check("x.a.b", "x.a.b");
    check("M.x.0", "(. M.x 0)");
    check("(x).a", "(. (paren x) a)");
    check("r.f[1].g", "(. (idx r.f 1) g)");
    check("M.(x + y)", "(open M (+ x y))");
    check("M.N.(x)", "(open M.N x)");
    check_error("(x).(y)", "module");
}

#[test]
fn literals() {
    check("1", "1");
    check("1_000", "1000");
    check("0xff", "255");
    check("0b1010", "10");
    check("0rXIV", "14");
    check("257u8", "257u8");
    check("3i64", "3i64");
    check("1.5", "1.5");
    check("1e3", "1e3");
    check("2.5e-3f32", "2.5e-3f32");
    check("3f32", "3f32");
    check("0x1.8p1", "0x1.8p1");
    check("0x1f32", "7986");
    check("0x10i32", "16i32");
    check("'a'", "'a'");
    check("'\\n'", "'\\n'");
    check("'\\x41'", "'A'");
    check("'\\65'", "'A'");
    check("'\\SOH'", "'\\u{1}'");
    check("\"a\\tb\"", "\"a\\tb\"");
    check("\"\\x41\\&1\"", "\"A1\"");
    check("true", "true");
    check("???", "???");
}

#[test]
fn ranges() {
    check("0..<n", "(range 0 ..< n)");
    check("1...n", "(range 1 ... n)");
    check("n..>0", "(range n ..> 0)");
    check("0..2...n", "(range 0 2 ... n)");
    check("0..<n+1", "(range 0 ..< (+ n 1))");
    check("a |> f ..< b", "(range (|> a f) ..< b)");
    check_error("1..n", "`...`, `..<` or `..>`");
}

#[test]
fn ascription_and_coercion() {
    check("x : i32", "(: x i32)");
    check("x + 1 : i32", "(: (+ x 1) i32)");
    check("x :> [n]i32", "(:> x ([n] i32))");
    check("if c then a else b : t", "(if c a (: b t))");
    check("[1 : i32, 2]", "(array (: 1 i32) 2)");
    check("(x : i32)", "(paren (: x i32))");
}

#[test]
fn updates() {
    check("a with [i] = v", "(with a [i] v)");
    check("f a with [0] = 1", "(with (app f a) [0] 1)");
    check("a with [i, j] = x + 1", "(with a [i, j] (+ x 1))");
    check("r with f.g = v", "(with r .f .g v)");
    check("a with [i].f = v", "(with a [i] .f v)");
    check("a with [0] = 1 with [1] = 2", "(with (with a [0] 1) [1] 2)");
    check("x |> f with [0] = 1", "(with (|> x f) [0] 1)");
    check("a with [0] = x |> f", "(with a [0] (|> x f))");
    check("a `f` b with [0] = 1", "(`f` a (with b [0] 1))");
}

#[test]
fn sections() {
    check("(+)", "(section +)");
    check("(-)", "(section -)");
    check("(x +)", "(lsection + x)");
    check("(x -)", "(lsection - x)");
    check("(+ 1)", "(rsection + 1)");
    check("(-x)", "(paren (neg x))");
    check("(- 1)", "(paren (neg 1))");
    check("(`f`)", "(section `f`)");
    check("(x `f`)", "(lsection `f` x)");
    check("(`f` x)", "(rsection `f` x)");
    check("(M.+)", "(section M.+)");
    check("(* 2 + 1)", "(rsection * (+ 2 1))");
    check("(.a.b)", "(proj .a .b)");
    check("(.[i])", "(proj [i])");
    check("(.a[i])", "(proj .a [i])");
    check("(.0)", "(proj .0)");
}

#[test]
fn tuples_records_arrays() {
    check("()", "()");
    check("(a, b)", "(tuple a b)");
    check("(a, b,)", "(tuple a b)");
    check("{a = 1, b}", "(record (a 1) b)");
    check("{0 = x, 1 = y}", "(record (0 x) (1 y))");
    check("{}", "(record)");
    check("[]", "(array)");
    check("[1, 2,]", "(array 1 2)");
    check("[[1], [2]]", "(array (array 1) (array 2))");
}

#[test]
fn if_expressions() {
    check("if a then b else c", "(if a b c)");
    check("if a then b else c + 1", "(if a b (+ c 1))");
    check("x + if a then b else c", "(+ x (if a b c))");
    check("if a then b else if c then d else e", "(if a b (if c d e))");
}

#[test]
fn let_expressions() {
    check("let x = 1 in x", "(let x 1 x)");
    check(
        "let x = 1 let y = 2 in x + y",
        "(let x 1 (let y 2 (+ x y)))",
    );
    check("let (a, b) = p in a", "(let (tuple a b) p a)");
    check("let x: i32 = 1 in x", "(let (: x i32) 1 x)");
    check("let [n] xs = ys in n", "(let [n] xs ys n)");
    check("let x = 1 in x : i32", "(let x 1 (: x i32))");
    check("let {a, b = c} = r in a", "(let (record (a a) (b c)) r a)");
}

#[test]
fn local_functions_versus_update_sugar() {
    check("let f [n] x = x in f", "(letfun f [n] x = x f)");
    check("let f[i] = v in f", "(letwith f [i] v f)");
    check("let a[i, j] = v in a", "(letwith a [i, j] v a)");
    check("let r.f = v in r", "(letwith r .f v r)");
    check("let a[i].x = v in a", "(letwith a [i] .x v a)");
    check(
        "let f 'a (x: a) : a = x in f",
        "(letfun f 'a (paren (: x a)) : a = x f)",
    );
    check("let f x y = x + y in f", "(letfun f x y = (+ x y) f)");
}

#[test]
fn loops() {
    check(
        "loop x = 0 for i < n do x + i",
        "(loop x 0 (for i n) (+ x i))",
    );
    check(
        "loop (a, b) = (0, 1) for x in xs do (b, a + x)",
        "(loop (tuple a b) (tuple 0 1) (for-in x xs) (tuple b (+ a x)))",
    );
    check(
        "loop x while x < 10 do x * 2",
        "(loop x _ (while (< x 10)) (* x 2))",
    );
    check(
        "loop acc = 0 for i < n do acc + 1 |> f",
        "(loop acc 0 (for i n) (|> (+ acc 1) f))",
    );
}

#[test]
fn match_expressions() {
    check(
        "match x case 0 -> a case _ -> b",
        "(match x (case 0 a) (case _ b))",
    );
    check(
        "match x case #a y -> y case #b -> 0",
        "(match x (case (#a y) y) (case #b 0))",
    );
    check(
        "match x case -1 -> a case (y, z) -> b",
        "(match x (case -1 a) (case (tuple y z) b))",
    );
    // A nested match swallows the cases after it.
    check(
        "match x case 0 -> match y case 1 -> a case _ -> b",
        "(match x (case 0 (match y (case 1 a) (case _ b))))",
    );
}

#[test]
fn lambdas() {
    check("\\x -> x + 1", "(lambda (x) (+ x 1))");
    check("\\x y -> x", "(lambda (x y) x)");
    check(
        "\\(x: i32) : i32 -> x",
        "(lambda ((paren (: x i32))) : i32 x)",
    );
    check("\\{a, b} -> a", "(lambda ((record (a a) (b b))) a)");
    check("\\_ -> 0", "(lambda (_) 0)");
    check("map (\\x -> x) xs", "(app map (paren (lambda (x) x)) xs)");
}

#[test]
fn assert_and_attributes() {
    check(
        "assert (x > 0) (f x)",
        "(assert (paren (> x 0)) (paren (app f x)))",
    );
    check("assert c x + 1", "(assert c (+ x 1))");
    check("#[trace] x + 1", "(attr trace (+ x 1))");
    check("#[trace(foo)] x", "(attr trace(foo) x)");
    check(
        "#[unroll] loop x = 0 for i < 3 do x",
        "(attr unroll (loop x 0 (for i 3) x))",
    );
}

#[test]
fn keyword_bodies_reach_right() {
    check("\\x -> x : i32", "(lambda (x) (: x i32))");
    check("f (\\x -> x) + 1", "(+ (app f (paren (lambda (x) x))) 1)");
    check("x |> \\y -> y + 1", "(|> x (lambda (y) (+ y 1)))");
}

#[test]
fn misplaced_doc_comment_is_an_error() {
    check_error("1 +\n-- | doc\n2", "doc comment");
}
