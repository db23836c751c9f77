//! Size fixes for `type-mismatch` errors whose message states the sizes
//! (`Sizes "4" and "3" do not match.`: expected, then actual) where the expected type is a
//! written annotation:
//!
//! - "Function body does not have expected type." — the return type of the function or
//!   lambda whose body is the error's span;
//! - "Expression does not have expected type from type ascription." — `e : t`;
//! - "Type ascription in pattern …" and "Initial value of loop …" — the types written in
//!   the pattern (or loop parameter) at the error's span.
//!
//! The fixes: write the actual size in the annotation (when exactly one dimension there
//! reads as the expected size, and the actual size can be written: a number, or names in
//! scope there); and, for a body or an ascription, a size coercion `:>` to the annotation
//! (checked when the program runs).

use futhark_db::{Db, File};
use futhark_syntax::Diagnostic;
use futhark_syntax::Span;
use futhark_syntax::ast::{
    Dec, DecKind, Exp, ExpKind, LoopForm, ModExp, ModExpKind, Pat, PatKind, SizeExp, TypeArg,
    TypeExp, TypeExpKind,
};

use super::Fix;
use crate::TextRange;
use crate::rename::TextEdit;
use crate::scope::{Layer, scope_at};
use crate::visit::each_exp;

/// What an error's span is, for the annotation it was checked against.
enum Anchor<'a> {
    /// A body checked against a return type.
    Body { body: &'a Exp, ret: &'a TypeExp },
    /// `e : t`, with `e` the error's span.
    Ascription { exp: &'a Exp, ty: &'a TypeExp },
    /// Types written in a pattern (or loop parameter) at the error's span.
    Pattern(Vec<&'a TypeExp>),
}

pub(super) fn size_fixes(db: &dyn Db, file: File, d: &Diagnostic) -> Vec<Fix> {
    let Some((expected, actual)) = sizes_in(&d.message) else {
        return Vec::new();
    };
    let context = d.message.lines().next().unwrap_or("");
    let parsed = futhark_db::parse(db, file);
    let Some(anchor) = anchor(&parsed.file.decs, d.span, context) else {
        return Vec::new();
    };
    let text = file.text(db);
    let annotations: Vec<&TypeExp> = match &anchor {
        Anchor::Body { ret, .. } => vec![*ret],
        Anchor::Ascription { ty, .. } => vec![*ty],
        Anchor::Pattern(tys) => tys.clone(),
    };
    let mut out = Vec::new();
    let mut dims = Vec::new();
    for t in &annotations {
        dims_of(t, &mut dims);
    }
    let matching: Vec<Span> = dims
        .into_iter()
        .filter(|s| text.get(s.range()).is_some_and(|t| same_size(t, &expected)))
        .collect();
    // An unknown size (from a filter, a slice, …) has a name the program cannot write.
    let unknown_actual = d
        .notes
        .iter()
        .any(|n| n.starts_with(&format!("\"{actual}\" ")));
    if let [dim] = matching[..]
        && !unknown_actual
        && writable(db, file, dim.start, &actual)
    {
        out.push(Fix {
            title: format!(
                "Change size `[{}]` to `[{actual}]`",
                slice(text, dim.start, dim.end).trim()
            ),
            edits: vec![TextEdit {
                range: dim.into(),
                new_text: actual.clone(),
            }],
            preferred: true,
        });
    }
    match anchor {
        Anchor::Body { body, ret } => {
            let ret_text = slice(text, ret.span.start, ret.span.end);
            let body_text = slice(text, body.span.start, body.span.end);
            let new_text = if is_atomic(body) {
                format!("{body_text} :> {ret_text}")
            } else {
                format!("({body_text}) :> {ret_text}")
            };
            out.push(Fix {
                title: format!("Coerce the result with `:> {ret_text}`"),
                edits: vec![TextEdit {
                    range: body.span.into(),
                    new_text,
                }],
                preferred: false,
            });
        }
        Anchor::Ascription { exp, ty } => {
            let between = TextRange::new(exp.span.end, ty.span.start);
            let colon = slice(text, exp.span.end, ty.span.start);
            if colon.trim() == ":" {
                out.push(Fix {
                    title: format!(
                        "Coerce with `:> {}`",
                        slice(text, ty.span.start, ty.span.end)
                    ),
                    edits: vec![TextEdit {
                        range: between,
                        new_text: colon.replacen(':', ":>", 1),
                    }],
                    preferred: false,
                });
            }
        }
        Anchor::Pattern(_) => {}
    }
    out
}

/// The text from `start` to `end` (empty if that is no range of it).
fn slice(text: &str, start: u32, end: u32) -> &str {
    text.get(start as usize..end as usize).unwrap_or("")
}

/// An expression that needs no parentheses before `:>`.
fn is_atomic(e: &Exp) -> bool {
    matches!(
        e.kind,
        ExpKind::Var(_)
            | ExpKind::Literal(_)
            | ExpKind::Parens(_)
            | ExpKind::Tuple(_)
            | ExpKind::Record(_)
            | ExpKind::ArrayLit(_)
            | ExpKind::Project(..)
            | ExpKind::Index(..)
    )
}

/// `Sizes "A" and "B" do not match.` in a message: (expected, actual).
fn sizes_in(message: &str) -> Option<(String, String)> {
    let line = message.lines().find(|l| l.starts_with("Sizes \""))?;
    let parts: Vec<&str> = line.split('"').collect();
    match parts[..] {
        [_, a, " and ", b, rest] if rest.starts_with(" do not match") => {
            Some((a.to_string(), b.to_string()))
        }
        _ => None,
    }
}

/// Two size expressions that differ only in blanks (`n+1` and `n + 1`).
fn same_size(written: &str, printed: &str) -> bool {
    let squash = |s: &str| s.chars().filter(|c| !c.is_whitespace()).collect::<String>();
    squash(written) == squash(printed)
}

/// True if `size` can be written at `offset`: a number, or an expression whose names are
/// all in scope there.
fn writable(db: &dyn Db, file: File, offset: u32, size: &str) -> bool {
    if size.is_empty() {
        return false;
    }
    let names: Vec<&str> = size
        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '\''))
        .filter(|w| {
            w.chars()
                .next()
                .is_some_and(|c| c.is_alphabetic() || c == '_')
        })
        .collect();
    let ok_chars = size
        .chars()
        .all(|c| c.is_alphanumeric() || "_' +-*/%()".contains(c));
    if !ok_chars {
        return false;
    }
    if names.is_empty() {
        return true;
    }
    let scope = scope_at(db, file, offset);
    names.iter().all(|name| {
        scope.layers.iter().any(|layer| match layer {
            Layer::Locals(locals) => locals.iter().any(|(n, _)| n == name),
            Layer::Env(env) => env.vals.contains_key(*name),
        })
    })
}

/// The spans of the size expressions written in `t` (`[e]`; not `[]`).
fn dims_of(t: &TypeExp, out: &mut Vec<Span>) {
    match &t.kind {
        TypeExpKind::Array { size, elem } => {
            if let SizeExp::Exp(e) = size {
                out.push(e.span);
            }
            dims_of(elem, out);
        }
        TypeExpKind::Parens(x) | TypeExpKind::Unique(x) => dims_of(x, out),
        TypeExpKind::Tuple(xs) => xs.iter().for_each(|x| dims_of(x, out)),
        TypeExpKind::Record(fs) => fs.iter().for_each(|(_, x)| dims_of(x, out)),
        TypeExpKind::Apply(f, arg) => {
            dims_of(f, out);
            match arg {
                TypeArg::Size(SizeExp::Exp(e)) => out.push(e.span),
                TypeArg::Size(SizeExp::Anonymous(_)) => {}
                TypeArg::Type(x) => dims_of(x, out),
            }
        }
        TypeExpKind::Arrow { from, to, .. } => {
            dims_of(from, out);
            dims_of(to, out);
        }
        TypeExpKind::Sum(cs) => cs
            .iter()
            .flat_map(|(_, ts)| ts)
            .for_each(|x| dims_of(x, out)),
        TypeExpKind::Existential { ty, .. } => dims_of(ty, out),
        TypeExpKind::Var(_) | TypeExpKind::Error => {}
    }
}

/// The types written in a pattern.
fn pattern_types<'a>(p: &'a Pat, out: &mut Vec<&'a TypeExp>) {
    match &p.kind {
        PatKind::Ascript(q, t) => {
            out.push(t);
            pattern_types(q, out);
        }
        PatKind::Parens(q) | PatKind::Attr(_, q) => pattern_types(q, out),
        PatKind::Tuple(qs) => qs.iter().for_each(|q| pattern_types(q, out)),
        PatKind::Record(fs) => fs.iter().for_each(|(_, q)| pattern_types(q, out)),
        PatKind::Constr(_, qs) => qs.iter().for_each(|q| pattern_types(q, out)),
        PatKind::Id(_) | PatKind::Wildcard | PatKind::Literal(_) | PatKind::Error => {}
    }
}

fn within(inner: Span, outer: Span) -> bool {
    outer.start <= inner.start && inner.end <= outer.end
}

/// Finds what the error at `span` was checked against, by the message's first line.
fn anchor<'a>(decs: &'a [Dec], span: Span, context: &str) -> Option<Anchor<'a>> {
    if context.starts_with("Function body does not have expected type") {
        if let Some(found) = value_bodies(decs, span) {
            return Some(found);
        }
        let mut found = None;
        each_exp(decs, &mut |e: &'a Exp| match &e.kind {
            ExpKind::Lambda {
                ret: Some(ret),
                body,
                ..
            } if body.span == span => found = Some(Anchor::Body { body, ret }),
            ExpKind::LetFun {
                ret: Some(ret),
                value,
                ..
            } if value.span == span => found = Some(Anchor::Body { body: value, ret }),
            _ => {}
        });
        return found;
    }
    let mut found = None;
    if context.starts_with("Expression does not have expected type from type ascription") {
        each_exp(decs, &mut |e: &'a Exp| {
            if let ExpKind::Ascript(x, ty) = &e.kind
                && x.span == span
            {
                found = Some(Anchor::Ascription { exp: x, ty });
            }
        });
    } else if context.starts_with("Type ascription in pattern")
        || context.starts_with("Initial value of loop")
    {
        let mut tys = Vec::new();
        each_exp(decs, &mut |e: &'a Exp| {
            let pats: Vec<&'a Pat> = match &e.kind {
                ExpKind::Let { pat, .. } => vec![pat],
                ExpKind::Loop { pat, form, .. } => match form {
                    LoopForm::ForIn { pat: p, .. } => vec![pat, p],
                    _ => vec![pat],
                },
                ExpKind::Lambda { params, .. } | ExpKind::LetFun { params, .. } => {
                    params.iter().collect()
                }
                ExpKind::Match { cases, .. } => cases.iter().map(|c| &c.pat).collect(),
                _ => Vec::new(),
            };
            let at_loop = matches!(e.kind, ExpKind::Loop { .. }) && e.span.start == span.start;
            for p in pats {
                if within(p.span, span) || within(span, p.span) || at_loop {
                    let mut here = Vec::new();
                    pattern_types(p, &mut here);
                    tys.extend(here.into_iter().filter(|t| at_loop || within(t.span, span)));
                }
            }
        });
        if !tys.is_empty() {
            found = Some(Anchor::Pattern(tys));
        }
    }
    found
}

/// A top-level or module-level `def` whose body is at `span` and has a return type.
fn value_bodies(decs: &[Dec], span: Span) -> Option<Anchor<'_>> {
    for dec in decs {
        let found = match &dec.kind {
            DecKind::Val(v) if v.body.span == span => v
                .ret
                .as_ref()
                .map(|ret| Anchor::Body { body: &v.body, ret }),
            DecKind::Local(inner) => value_bodies(std::slice::from_ref(inner), span),
            DecKind::Module(m) => module_bodies(&m.body, span),
            DecKind::Open(m) => module_bodies(m, span),
            _ => None,
        };
        if found.is_some() {
            return found;
        }
    }
    None
}

fn module_bodies(m: &ModExp, span: Span) -> Option<Anchor<'_>> {
    match &m.kind {
        ModExpKind::Decs(decs) => value_bodies(decs, span),
        ModExpKind::Parens(inner) | ModExpKind::Ascript(inner, _) => module_bodies(inner, span),
        ModExpKind::Lambda { body, .. } => module_bodies(body, span),
        ModExpKind::Apply(a, b) => module_bodies(a, span).or_else(|| module_bodies(b, span)),
        ModExpKind::Var(_) | ModExpKind::Import(_) | ModExpKind::Error => None,
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::fixes;

    fn fixed(src: &str) -> Vec<(String, String)> {
        fixes(src)
            .into_iter()
            .map(|(t, text)| (t, text.trim_end().to_string()))
            .collect()
    }

    #[test]
    fn messages() {
        assert_eq!(
            super::sizes_in(
                "Ctx\nExpected: [4]i32\nActual:   [3]i32\nSizes \"4\" and \"3\" do not match."
            ),
            Some(("4".to_string(), "3".to_string()))
        );
        assert_eq!(super::sizes_in("Ctx\nTypes do not match."), None);
    }

    #[test]
    fn a_return_type_gets_the_actual_size_or_a_coercion() {
        let all = fixed("def f (xs: [3]i32) : [4]i32 = xs\n");
        assert_eq!(
            all,
            vec![
                (
                    "Change size `[4]` to `[3]`".to_string(),
                    "def f (xs: [3]i32) : [3]i32 = xs".to_string()
                ),
                (
                    "Coerce the result with `:> [4]i32`".to_string(),
                    "def f (xs: [3]i32) : [4]i32 = xs :> [4]i32".to_string()
                ),
            ]
        );
    }

    #[test]
    fn size_expressions_match_whatever_their_spacing() {
        let all = fixed("def c (n: i64) (xs: [n]i32) : [n+1]i32 = xs\n");
        assert_eq!(all[0].1, "def c (n: i64) (xs: [n]i32) : [n]i32 = xs");
    }

    #[test]
    fn only_the_mismatched_dimension_changes() {
        let all = fixed("def d (xs: [3][2]i32) : [3][5]i32 = xs\n");
        assert_eq!(all[0].1, "def d (xs: [3][2]i32) : [3][2]i32 = xs");
    }

    #[test]
    fn ascriptions_patterns_loops_and_lambdas() {
        let all = fixed("def a (xs: [3]i32) = xs : [4]i32\n");
        assert_eq!(all[0].1, "def a (xs: [3]i32) = xs : [3]i32");
        assert_eq!(all[1].1, "def a (xs: [3]i32) = xs :> [4]i32");
        let all = fixed("def f (xs: [3]i32) = let (ys: [4]i32, z) = (xs, 1) in ys\n");
        assert_eq!(all.len(), 1, "{all:?}");
        assert_eq!(
            all[0].1,
            "def f (xs: [3]i32) = let (ys: [3]i32, z) = (xs, 1) in ys"
        );
        let all = fixed("def b (xs: [3]i32) = loop (acc: [4]i32) = xs for i < 2 do acc\n");
        assert_eq!(
            all[0].1,
            "def b (xs: [3]i32) = loop (acc: [3]i32) = xs for i < 2 do acc"
        );
        let all = fixed("def g = \\(xs: [3]i32) : [4]i32 -> xs\n");
        assert_eq!(all[0].1, "def g = \\(xs: [3]i32) : [3]i32 -> xs");
    }

    #[test]
    fn a_size_out_of_scope_is_not_written() {
        // `m` is the unknown size of `filter`'s result: only the coercion is offered.
        let all = fixed("def f (xs: []i32) : [2]i32 = filter (>0) xs\n");
        let titles: Vec<&str> = all.iter().map(|(t, _)| t.as_str()).collect();
        assert_eq!(titles, vec!["Coerce the result with `:> [2]i32`"]);
        assert_eq!(
            all[0].1,
            "def f (xs: []i32) : [2]i32 = (filter (>0) xs) :> [2]i32"
        );
        // A size the checker worked out from a local binding is written as it is.
        let all = fixed("def g (n: i64) : [n]i32 = let m = n + 1 in iota m |> map i32.i64\n");
        assert_eq!(all[0].0, "Change size `[n]` to `[n + 1]`");
    }
}
