//! Hover: the signature of the definition under the cursor as written, where it lives,
//! and its doc comment (or, for a member of a sealed module, the doc of the spec it
//! implements); plus the inferred type once the checker provides it ([`crate::types`]).

use futhark_db::{Db, File};
use futhark_syntax::Span;
use futhark_syntax::lexer::{TokenKind, lex};

use crate::defs::DefKind;
use crate::scope::{NameClass, PRIM_TYPES, Target, def_at, file_index};
use crate::{FilePosition, TextRange, types};

#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct HoverResult {
    /// The range the hover is about (the name or literal under the cursor).
    pub range: TextRange,
    /// The definition's signature, as written.
    pub signature: Option<String>,
    /// What it is: "function", "local variable", "built-in type", …
    pub description: Option<String>,
    /// The enclosing module path (`f32`, `M.N`), if any.
    pub container: Option<String>,
    /// The inferred type (from the type checker, when available).
    pub ty: Option<String>,
    pub doc: Option<String>,
}

impl HoverResult {
    /// The hover as Markdown: a code block with the signature (or type), a line saying
    /// what it is, then the documentation.
    pub fn markdown(&self) -> String {
        let mut out = String::new();
        if let Some(sig) = &self.signature {
            out.push_str(&format!("```futhark\n{sig}\n```\n"));
        }
        if let Some(ty) = &self.ty {
            out.push_str(&format!("```futhark\n: {ty}\n```\n"));
        }
        let mut line = self.description.clone().unwrap_or_default();
        if let Some(container) = &self.container {
            line.push_str(&format!(" in `{container}`"));
        }
        if !line.is_empty() {
            out.push_str(&format!("*{}*\n", line.trim()));
        }
        if let Some(doc) = &self.doc {
            out.push_str("\n---\n\n");
            out.push_str(doc);
            out.push('\n');
        }
        out
    }
}

/// Hover information for the name or literal at `pos`. With `with_types` false the
/// type checker is not consulted, so the answer never waits for it (an editor asks that
/// way while a check of the current text is still running).
pub fn hover(db: &dyn Db, pos: FilePosition, with_types: bool) -> Option<HoverResult> {
    let index = file_index(db, pos.file);
    let Some(occ) = index.occurrence_at(pos.offset) else {
        return if with_types {
            literal_hover(db, pos)
        } else {
            None
        };
    };
    let ty = match occ.class {
        _ if !with_types => None,
        NameClass::Constructor | NameClass::File | NameClass::Module => None,
        // A field's type: the checker's type of the projection `e.x` that ends with it.
        NameClass::Field => types::type_of_name(db, pos.file, occ.span),
        _ => types::type_of_name(db, pos.file, occ.span),
    };
    let mut res = HoverResult {
        range: occ.span.into(),
        ty,
        ..HoverResult::default()
    };
    match occ.target {
        Target::Def(loc) => {
            let def = def_at(db, loc)?;
            res.signature = Some(def.signature.clone());
            res.description = Some(describe(def.kind, def.is_spec).to_string());
            res.container = container_path(db, loc.file, def.container);
            res.doc = def.doc.clone().or_else(|| {
                let spec = def_at(db, def.spec?)?;
                spec.doc.clone()
            });
        }
        Target::Builtin => {
            let text = pos.file.text(db);
            let name = text.get(occ.span.range()).unwrap_or("");
            res.description = Some(match occ.class {
                NameClass::Type if PRIM_TYPES.contains(&name) => {
                    format!("built-in primitive type `{name}`")
                }
                NameClass::Operator => format!("built-in operator `{name}`"),
                NameClass::Module => "the built-in `intrinsics` module".to_string(),
                _ => format!("built-in `{name}`"),
            });
        }
        Target::File(file) => {
            res.description = Some(format!("file `{}`", file.path(db).display()));
        }
        Target::Unresolved => {
            res.ty.as_ref()?;
            if occ.class == NameClass::Field {
                let text = pos.file.text(db);
                let name = text.get(occ.span.range()).unwrap_or("");
                res.description = Some(format!("record field `{name}`"));
            }
        }
    }
    Some(res)
}

fn describe(kind: DefKind, is_spec: bool) -> &'static str {
    match (kind, is_spec) {
        (DefKind::Function | DefKind::Value, true) => "value specification",
        (DefKind::Type, true) => "type specification",
        (DefKind::Module, true) => "module specification",
        _ => kind.describe(),
    }
}

/// `M.N` for a definition inside module `N` inside module `M`.
fn container_path(db: &dyn Db, file: File, mut container: Option<crate::DefId>) -> Option<String> {
    let index = file_index(db, file);
    let mut parts = Vec::new();
    while let Some(id) = container {
        let def = index.def(id)?;
        parts.push(def.name.clone());
        container = def.container;
    }
    if parts.is_empty() {
        return None;
    }
    parts.reverse();
    Some(parts.join("."))
}

/// The type of a numeric or character literal, when the checker knows it.
fn literal_hover(db: &dyn Db, pos: FilePosition) -> Option<HoverResult> {
    let text = pos.file.text(db);
    let lexed = lex(pos.file.id(db), text);
    let token = lexed.tokens.iter().find(|t| {
        matches!(t.kind, TokenKind::Int | TokenKind::Float | TokenKind::Char)
            && t.start <= pos.offset
            && pos.offset < t.end
    })?;
    let span = Span::new(pos.file.id(db), token.start, token.end);
    let ty = types::literal_type(db, pos.file, span)?;
    Some(HoverResult {
        range: TextRange::new(token.start, token.end),
        ty: Some(ty),
        description: Some("literal".to_string()),
        ..HoverResult::default()
    })
}

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};

    use crate::fixture::Fixture;

    fn check(fixture: &str, expect: Expect) {
        let f = Fixture::new(fixture);
        let shown = match super::hover(&f.db, f.position(), true) {
            Some(h) => h.markdown(),
            None => "no hover".to_string(),
        };
        expect.assert_eq(&shown);
    }

    #[test]
    fn function_with_doc_comment() {
        check(
            r#"
-- | Doubles its argument.
-- Twice as much.
def double 't (x: i32)
    : i32 = x * 2
def y = double$0 3
"#,
            expect![[r#"
                ```futhark
                def double 't (x: i32) : i32
                ```
                ```futhark
                : i32 -> i32
                ```
                *function*

                ---

                Doubles its argument.
                Twice as much.
            "#]],
        );
    }

    #[test]
    fn local_binding_shows_its_pattern() {
        check(
            "def f (p: (i32, i32)) = let (a, b: i32) = p in a$0 + b\n",
            expect![[r#"
                ```futhark
                let (a, b: i32)
                ```
                ```futhark
                : i32
                ```
                *local variable*
            "#]],
        );
    }

    #[test]
    fn operator_sections_show_their_instantiated_type() {
        check(
            "def (<+>) 'a (x: a) (y: a) = (x, y)\ndef q = (<+$0>) true false\n",
            expect![[r#"
                ```futhark
                def (<+>) 'a (x: a) (y: a)
                ```
                ```futhark
                : bool -> bool -> (bool, bool)
                ```
                *function*
            "#]],
        );
        check(
            "def q = (|$0>) 1f32 f32.sqrt\n",
            expect![[r#"
            ```futhark
            def (|>) '^a '^b (x: a) (f: a -> b) : b
            ```
            ```futhark
            : f32 -> (f32 -> f32) -> f32
            ```
            *function*

            ---

            Pipe a value into a function: `x |> f` is `f x`. It is the loosest
            binary operator and associates to the left, so
            `xs |> map f |> reduce (+) 0` reads as a pipeline from left to right.
        "#]],
        );
    }

    #[test]
    fn operators_of_a_module_parameter_show_its_types() {
        check(
            r#"
module type ring = { type t val +: t -> t -> t }
module G (R: ring) = { def dbl (a: R.t) = a R.+$0 a }
"#,
            expect![[r#"
                ```futhark
                val (+) : t -> t -> t
                ```
                ```futhark
                : R.t -> R.t -> R.t
                ```
                *value specification in `ring`*
            "#]],
        );
    }

    #[test]
    fn parameter() {
        check(
            "def f [n] (xs: [n]f32) = xs$0\n",
            expect![[r#"
                ```futhark
                (xs: [n]f32)
                ```
                ```futhark
                : [n]f32
                ```
                *parameter*
            "#]],
        );
    }

    #[test]
    fn prelude_function_has_its_doc() {
        check(
            "def f xs = reduce$0 (+) 0 xs\n",
            expect![[r#"
                ```futhark
                def reduce [n] 'a (op: a -> a -> a) (ne: a) (as: [n]a) : a
                ```
                ```futhark
                : (i32 -> i32 -> i32) -> i32 -> [n]i32 -> i32
                ```
                *function*

                ---

                Combine all elements with `op`: `reduce (+) 0 [1, 2, 3]` is `6`.
                `op` must be associative with identity `ne`; the grouping of the
                applications is unspecified, so a non-associative `op` gives an
                unspecified result. The empty array gives `ne`. When the elements
                are arrays, `op` must return arrays of the shape of `ne`.
                Work O(n), span O(log n).
            "#]],
        );
    }

    #[test]
    fn sealed_module_member_uses_the_spec_doc() {
        check(
            r#"
module type S = {
  -- | The answer.
  val z : i32
}
module M : S = { def z = 42 }
def w = M.z$0
"#,
            expect![[r#"
                ```futhark
                def z
                ```
                ```futhark
                : i32
                ```
                *value in `M`*

                ---

                The answer.
            "#]],
        );
    }

    #[test]
    fn prelude_number_module_member() {
        let f = Fixture::new("def f (x: f32) = f32.sqrt$0 x\n");
        let h = super::hover(&f.db, f.position(), true).expect("hover");
        assert_eq!(h.container.as_deref(), Some("f32"));
        assert!(h.doc.is_some(), "f32.sqrt is documented through its spec");
    }

    #[test]
    fn builtin_type() {
        check(
            "def f (x: i32$0) = x\n",
            expect![[r#"
                *built-in primitive type `i32`*
            "#]],
        );
    }

    #[test]
    fn module_type_and_module() {
        check(
            "module type S = { val z : i32 }\nmodule M : S$0 = { def z = 1 }\n",
            expect![[r#"
                ```futhark
                module type S
                ```
                *module type*
            "#]],
        );
    }

    #[test]
    fn literal_type() {
        check(
            "def x : f32 = 1$0.5 + 2\n",
            expect![[r#"
                ```futhark
                : f32
                ```
                *literal*
            "#]],
        );
    }

    #[test]
    fn without_types_the_checker_is_not_asked() {
        let f = Fixture::new("def f (x: i32) = x$0 + 1\n");
        let h = super::hover(&f.db, f.position(), false).expect("hover");
        assert_eq!(h.signature.as_deref(), Some("(x: i32)"));
        assert_eq!(h.ty, None);
    }

    #[test]
    fn nothing_on_keywords() {
        check("def$0 x = 1\n", expect!["no hover"]);
        check("def x = 1$0 + 2\n", expect!["no hover"]);
    }
}
