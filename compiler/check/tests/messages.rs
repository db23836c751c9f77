//! Rendered error messages, one representative program per error code: source in, the
//! first error as plain text (`path:line:col-col: error: message`, labels, notes, `[code]`)
//! out. A changed message shows up here as a readable diff.

mod common;

use std::path::Path;

use common::Loader;
use futhark_check::CheckContext;
use futhark_check::render::render;

fn first_error(ctx: &CheckContext, src: &str) -> String {
    let mut loader = Loader::new(ctx);
    let c = loader.check_text(Path::new("test.fut"), src);
    c.diagnostics
        .iter()
        .find(|d| d.is_error())
        .map(|d| render(d, "test.fut", src))
        .unwrap_or_else(|| "no error".into())
}

fn check(ctx: &CheckContext, src: &str, expected: &str) {
    let got = first_error(ctx, src);
    assert_eq!(got.trim(), expected.trim(), "\nsource:\n{src}\n");
}

#[test]
fn error_messages() {
    let ctx = CheckContext::new();
    // alias-free
    check(
        &ctx,
        r#"def g : []i32 = [1,2]
def f (b: bool) = if b then g else []"#,
        r#"test.fut:2:19-38: error: Function result aliases the free variable "g" (a global constant).
  [alias-free-variable]"#,
    );
    // ambiguous-size
    check(
        &ctx,
        r#"def main = let [n][m] (xss: [n][m]i64) = [] in (n, m)"#,
        r#"test.fut:1:20-21: error: Ambiguous size "m".
  [ambiguous-size]"#,
    );
    // ambiguous-type
    check(
        &ctx,
        r#"def f = let r = (\x -> x.a) in 0"#,
        r#"test.fut:1:19-20: error: Type is ambiguous: a record with fields "a" whose full type is not known.
  [ambiguous-type]"#,
    );
    // anonymous-nonconstructive
    check(
        &ctx,
        r#"type^ t = []bool -> bool"#,
        r#"test.fut:1:11-13: error: Type abbreviation contains an anonymous size not used constructively as an array size: the one in a function parameter of "t".
  [anonymous-nonconstructive]"#,
    );
    // causality
    check(
        &ctx,
        r#"def main (xs: []i32) =
  let a = [] : [][]i32
  let b = [filter (> 0) xs]
  in a[0] == b[0]"#,
        r#"test.fut:2:11-13: error: Causality check: size "m" needed for type of empty array, but it is computed later.
  test.fut:3:12: the size is computed here
  [causality-check]"#,
    );
    // consuming-argument
    check(
        &ctx,
        r#"def upd (xs: *[]i32) (i: i64) = xs with [i] = 0
def app (f: i64 -> []i32) = f 0
def main (xs: *[]i32) = app (upd xs)"#,
        r#"test.fut:3:29-37: error: Argument of functional type contains consumption: a function that performs consumption may not be passed as an argument.
  [consuming-argument]"#,
    );
    // contains-consumption
    check(
        &ctx,
        r#"def upd (xs: *[]i32) (i: i64) = xs with [i] = 0
def main (xs: *[]i32) = let f = upd xs in f 0"#,
        r#"test.fut:2:33-39: error: Let-bound expression of higher-order type contains consumption: a function value that performs consumption may not be bound with let.
  [contains-consumption]"#,
    );
    // duplicate
    check(
        &ctx,
        r#"def x = 1
def x = 2"#,
        r#"test.fut:2:5-6: error: Duplicate definition of value "x".
  [duplicate-definition]"#,
    );
    // higher-order-entry
    check(
        &ctx,
        r#"entry f (g: i32 -> i32) = g 1"#,
        r#"test.fut:1:7-8: error: Entry point functions may not be higher-order.
  [higher-order-entry]"#,
    );
    // inaccessible-size
    check(
        &ctx,
        r#"def f (n: i64, _: bool) : [n]i32 = replicate n 0"#,
        r#"test.fut:1:27-33: error: The return type refers to size "n" which will not be accessible to the caller, as it is bound inside a parameter pattern.
  [inaccessible-size]"#,
    );
    // intrinsics-module
    check(
        &ctx,
        r#"module M = intrinsics"#,
        r#"test.fut:1:12-22: error: The 'intrinsics' module may not be used in module expressions.
  [intrinsics-module]"#,
    );
    // literal
    check(
        &ctx,
        r#"def x : i8 = 300"#,
        r#"test.fut:1:14-17: error: Literal 300 out of bounds for type i8.
  [literal-out-of-bounds]"#,
    );
    // loop-aliases-other
    check(
        &ctx,
        r#"def main (n: i64) =
  loop (xs: *[]i32, ys: *[]i32) = (replicate n 0, replicate n 0) for i < 10 do (xs, xs)"#,
        r#"test.fut:2:80-88: error: Return value for loop parameter "ys" aliases other consumed loop parameter.
  [loop-parameter-aliases-other]"#,
    );
    // loop-param-aliases
    check(
        &ctx,
        r#"def main (b: *[]i32) =
  loop a = copy b for i < 10 do
    let a[i] = 0
    in b"#,
        r#"test.fut:3:5-4:9: error: Return value for consuming loop parameter "a" aliases "b", a variable from outside the loop.
  [consuming-loop-param-aliases]"#,
    );
    // loop-variant-escape
    check(
        &ctx,
        r#"def hide [m] (xs: [m]i32) : ?[k].[k]i32 = filter (!= 0) xs
def main [n] (iv: [n]bool) =
  loop wrk = iv for _i < 2 do
    let flags = hide [1]
    let _ = zip flags wrk
    in wrk ++ wrk"#,
        r#"test.fut:4:5-6:18: error: The size of a loop parameter is "m", a size created inside the loop body.
  [loop-variant-escape]"#,
    );
    // may-not-redefine
    check(
        &ctx,
        r#"def (&&) (x: bool) (y: bool) = x"#,
        r#"test.fut:1:6-8: error: The "&&" operator may not be redefined.
  [may-not-be-redefined]"#,
    );
    // module-mismatch
    check(
        &ctx,
        r#"module m : {val x: i32} = { def x : f32 = 1 }"#,
        r#"test.fut:1:27-46: error: Module type specifies
  val x : i32
but module provides
  val x : f32
for "x": Types "i32" and "f32" do not match.
  [module-mismatch]"#,
    );
    // module-parametric
    check(
        &ctx,
        r#"module F (P: {val x: i32}) = { def y = P.x }
def z = F.y"#,
        r#"test.fut:2:9-10: error: Module "F" is a parametric module and cannot be accessed with ".".
  [module-is-parametric]"#,
    );
    // nested-entry
    check(
        &ctx,
        r#"module m = { entry f (x: i32) = x }"#,
        r#"test.fut:1:20-21: error: Entry points may not be declared inside modules, only at the top level of a file.
  [nested-entry]"#,
    );
    // nonconstructive-entry
    check(
        &ctx,
        r#"entry main [x] (_: [x + 1]i32) = x"#,
        r#"test.fut:1:7-11: error: Entry point size parameter [x] only used non-constructively in the parameter types.
  [nonconstructive-entry]"#,
    );
    // not-consumable
    check(
        &ctx,
        r#"def f (a: []i32) =
  a with [0] = 1"#,
        r#"test.fut:2:3-17: error: Consuming variable "a", which is not consumable.
  [not-consumable]"#,
    );
    // occurs
    check(
        &ctx,
        r#"def f x = x x"#,
        r#"test.fut:1:13-14: error: Cannot apply "x" to "x" (invalid type).
Expected: a
Actual:   a -> b
Occurs check: cannot instantiate "a" with "a -> b" (the type would be infinite).
  [occurs-check]"#,
    );
    // polymorphic-entry
    check(
        &ctx,
        r#"entry f 't (x: t) = x"#,
        r#"test.fut:1:7-8: error: Entry point functions may not be polymorphic: "f" has type parameters.
  [polymorphic-entry]"#,
    );
    // record-unshared
    check(
        &ctx,
        r#"def f (v: {a: i32, c: i32}) : {a: i32, d: i32} = v"#,
        r#"test.fut:1:50-51: error: Function body does not have expected type.
Expected: {a: i32, d: i32}
Actual:   {a: i32, c: i32}
Cannot unify record types: unshared fields: c, d.
  [type-mismatch]"#,
    );
    // recursion
    check(
        &ctx,
        r#"def f (g: i64 -> i64) (n: i64) : i64 = if n == 0 then 0 else f (\x -> g x) (n - 1)"#,
        r#"test.fut:1:64-75: error: Higher-order parameter #1 of recursive function "f" must be passed unchanged in recursive calls.
  [recursion]"#,
    );
    // refutable
    check(
        &ctx,
        r#"def f (x: i32) = let 1 = x in x"#,
        r#"test.fut:1:22-23: error: Refutable pattern not allowed here; use a match expression instead.
  [refutable-pattern]"#,
    );
    // return-aliased
    check(
        &ctx,
        r#"def f (a: []i32) : *[]i32 = a"#,
        r#"test.fut:1:29-30: error: Unique-typed return value of "f" is aliased to "a", which is not consumable.
  [return-aliased]"#,
    );
    // scope-violation
    check(
        &ctx,
        r#"def f xs n = zip xs (iota n)"#,
        r#"test.fut:1:21-29: error: Cannot apply "zip" to "(iota n)" (invalid type).
Expected: [n]b
Actual:   *[n]i64
Cannot unify "n" with a type mentioning "n" (scope-violation): "n" is bound in a deeper scope.
  [scope-violation]"#,
    );
    // self-aliasing
    check(
        &ctx,
        r#"def g (x: *([]i32, []i32)) = x.0
def f (a: *[]i32) = g (a, a)"#,
        r#"test.fut:2:23-29: error: Argument passed for consuming parameter is self-aliased (in a call of "g").
  [self-aliasing-arg]"#,
    );
    // size-polymorphic-entry
    check(
        &ctx,
        r#"entry f : []i32 = ???"#,
        r#"test.fut:1:7-8: error: Entry point functions must not be size-polymorphic in their return type: size "d" is not determined by the parameters.
  [size-polymorphic-entry]"#,
    );
    // sizes-mismatch
    check(
        &ctx,
        r#"def f [n][m] (xs: [n]i32) (ys: [m]i32) = zip xs ys"#,
        r#"test.fut:1:49-51: error: Cannot apply "zip" to "ys" (invalid type).
Expected: [n]b
Actual:   [m]i32
Sizes "n" and "m" do not match.
  [type-mismatch]"#,
    );
    // type-mismatch
    check(
        &ctx,
        r#"def f (x: i32) : f32 = x"#,
        r#"test.fut:1:24-25: error: Function body does not have expected type.
Expected: f32
Actual:   i32
Types "f32" and "i32" do not match.
  [type-mismatch]"#,
    );
    // unify-consuming-param
    check(
        &ctx,
        r#"def f (xs: *[]i32) = xs
def app (g: []i32 -> []i32) (xs: []i32) = g xs
def main (xs: []i32) = app f xs"#,
        r#"test.fut:3:28-29: error: Cannot apply "app" to "f" (invalid type).
Expected: [d]i32 -> ?[d].[d]i32
Actual:   *[d]i32 -> [d]i32
Parameter types are incompatible regarding consuming their arguments: a function that consumes its argument cannot be used where a non-consuming function is expected.
  [unify-consuming-param]"#,
    );
    // unique-return-aliased
    check(
        &ctx,
        r#"def f (n: i64) : (*[]i64, *[]i64) = let a = iota n in (a, a)"#,
        r#"test.fut:1:37-61: error: A unique-typed component of the return value of "f" is aliased to some other component.
  [unique-return-aliased]"#,
    );
    // unknown-name
    check(
        &ctx,
        r#"def f = y + 1"#,
        r#"test.fut:1:9-10: error: Unknown name "y".
  [unknown-name]"#,
    );
    // unknown-param-def
    check(
        &ctx,
        r#"def f (x: bool) =
  let (n, _) = if x then (10, true) else (20, true)
  in \(_: [n]bool) -> true"#,
        r#"test.fut:2:3-3:27: error: Cannot generalise the type. Unknown size "n" in parameter of a function type (the size goes out of scope, so the function could not be applied).
  [unknown-param-def]"#,
    );
    // unknown-type
    check(
        &ctx,
        r#"def f (x: t) = x"#,
        r#"test.fut:1:11-12: error: Unknown type "t".
  [unknown-type]"#,
    );
    // unmatched
    check(
        &ctx,
        r#"def f (x: #a | #b | #c) = match x case #a -> 1 case #b -> 2"#,
        r#"test.fut:1:27-60: error: Unmatched cases in match expression: #c
  [unmatched-cases]"#,
    );
    // unused-existential
    check(
        &ctx,
        r#"def f : ?[n].i32 = 0"#,
        r#"test.fut:1:11-12: error: Existential size "n" not used as array size (it must be used constructively).
  [unused-existential]"#,
    );
    // unused-size
    check(
        &ctx,
        r#"type t [n] = i32"#,
        r#"test.fut:1:9-10: error: Size parameter "[n]" unused in type "t".
  [unused-size]"#,
    );
    // use-after-consume
    check(
        &ctx,
        r#"def f (a: *[]i32) =
  let b = a with [0] = 1
  in a[0]"#,
        r#"test.fut:3:6-7: error: Using "a", but this was consumed.
  test.fut:2:11: consumed here
  [use-after-consume]"#,
    );
}
