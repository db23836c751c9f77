//! Inlay hints: the inferred type after each binding that has no written type (let
//! bindings, parameters, loop variables). The types come from the checker through
//! [`crate::types::type_of`]; where it has none, there is no hint (nothing is guessed).
//! They are printed as the program would write them there ([`TypeNames`]): `S.t` inside a
//! functor over `S`, `vec3.vector` rather than the record it abbreviates.

use futhark_db::{Db, File};

use futhark_syntax::Span;
use futhark_syntax::ast::{Dec, DecKind, ModExp, ModExpKind};

use crate::TextRange;
use crate::defs::DefKind;
use crate::scope::file_index;
use crate::type_names::TypeNames;
use crate::types;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InlayKind {
    Type,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InlayHint {
    /// Where the hint is shown (just after the bound name).
    pub offset: u32,
    /// The text shown, e.g. `: [n]f32`.
    pub label: String,
    pub kind: InlayKind,
}

/// Hints for the bindings inside `range` of `file`.
pub fn inlay_hints(db: &dyn Db, file: File, range: TextRange) -> Vec<InlayHint> {
    let index = file_index(db, file);
    let text = file.text(db);
    let mut out = Vec::new();
    // The names types are printed with, per declaration (computed for its first hint).
    let mut names: Vec<(Span, TypeNames)> = Vec::new();
    let decs = &futhark_db::parse(db, file).file.decs;
    for def in &index.defs {
        let wants_hint = matches!(def.kind, DefKind::Local | DefKind::Param);
        if !wants_hint || !range.touches(def.name_span.start) {
            continue;
        }
        if has_written_type(text, def.name_span.end) {
            continue;
        }
        let dec = innermost_dec(decs, def.name_span.start).unwrap_or(def.name_span);
        let at = match names.iter().position(|(d, _)| *d == dec) {
            Some(i) => i,
            None => {
                names.push((dec, TypeNames::at(db, file, def.name_span.start)));
                names.len() - 1
            }
        };
        if let Some(ty) = types::type_of_with(db, file, def.name_span, &names[at].1) {
            out.push(InlayHint {
                offset: def.name_span.end,
                label: format!(": {ty}"),
                kind: InlayKind::Type,
            });
        }
    }
    out
}

/// The innermost declaration (inside modules too) containing `offset`.
fn innermost_dec(decs: &[Dec], offset: u32) -> Option<Span> {
    let dec = decs
        .iter()
        .find(|d| d.span.start <= offset && offset < d.span.end)?;
    let inner = match &dec.kind {
        DecKind::Module(m) => module_decs(&m.body).and_then(|ds| innermost_dec(ds, offset)),
        DecKind::Local(d) => innermost_dec(std::slice::from_ref(d), offset),
        _ => None,
    };
    inner.or(Some(dec.span))
}

fn module_decs(m: &ModExp) -> Option<&[Dec]> {
    match &m.kind {
        ModExpKind::Decs(decs) => Some(decs),
        ModExpKind::Parens(inner) | ModExpKind::Ascript(inner, _) => module_decs(inner),
        ModExpKind::Lambda { body, .. } => module_decs(body),
        _ => None,
    }
}

/// True if the name ending at `end` is followed by a type ascription (`x: t`).
fn has_written_type(text: &str, end: u32) -> bool {
    let rest = text.get(end as usize..).unwrap_or("");
    let rest = rest.trim_start();
    rest.starts_with(':') && !rest.starts_with(":>")
}

#[cfg(test)]
mod tests {
    use crate::TextRange;
    use crate::fixture::Fixture;

    #[test]
    fn hints_for_unannotated_bindings() {
        let f = Fixture::new("def f (x: i32) y = let z = x + y in z\n");
        let hints = super::inlay_hints(&f.db, f.file(), TextRange::new(0, 1000));
        let shown: Vec<(u32, &str)> = hints.iter().map(|h| (h.offset, h.label.as_str())).collect();
        assert_eq!(shown, vec![(16, ": i32"), (24, ": i32")]);
    }

    #[test]
    fn no_hints_when_the_program_does_not_check() {
        let f = Fixture::new("def f y = let z = y + true in z\n");
        let hints = super::inlay_hints(&f.db, f.file(), TextRange::new(0, 1000));
        assert!(hints.iter().all(|h| !h.label.contains('?')), "{hints:?}");
    }

    fn hints(src: &str) -> Vec<String> {
        let f = Fixture::new(src);
        super::inlay_hints(&f.db, f.file(), TextRange::new(0, 1 << 20))
            .into_iter()
            .map(|h| {
                let text = f.text();
                let name_start = text[..h.offset as usize]
                    .rfind(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .map_or(0, |i| i + 1);
                format!("{}{}", &text[name_start..h.offset as usize], h.label)
            })
            .collect()
    }

    #[test]
    fn abstract_types_of_a_module_parameter_are_qualified() {
        let shown = hints(
            r#"
module type num = { type t val add: t -> t -> t val zero: t }
module F (S: num) = {
  def twice (x: S.t) = let y = S.add x x in let z = (y, y) in z
  def sum (xs: []S.t) = loop acc = S.zero for x in xs do S.add acc x
}
"#,
        );
        assert_eq!(shown, vec!["y: S.t", "z: (S.t, S.t)", "acc: S.t", "x: S.t"]);
    }

    #[test]
    fn abbreviations_in_scope_are_kept() {
        let shown = hints(
            r#"
module type num = { type t val zero: t }
module type vspace = { type real type vector val mk: real -> vector }
module mk3 (R: num) : vspace with real = R.t with vector = {x: R.t, y: R.t, z: R.t} = {
  type real = R.t
  type vector = {x: real, y: real, z: real}
  def mk (a: real) : vector = {x = a, y = a, z = a}
  def origin = let o = mk R.zero in o
}
module f32num = { type t = f32 def zero = 0f32 }
module vec3 = mk3 f32num
type pt = {x: f32, y: f32}
def g (a: f32) = let v = vec3.mk a in let p : pt = {x = a, y = a} in let q = p in (v, q)
def h (a: f32) = let vs = [vec3.mk a] in let r = {x = a, y = a} in (vs, r)
"#,
        );
        // Inside the functor its own abbreviation is used; outside, the instance's. The
        // record literal `r` has the type `pt` abbreviates, which is what the checker knows.
        assert_eq!(
            shown,
            vec![
                "o: vector",
                "v: vec3.vector",
                "q: pt",
                "vs: [1]vec3.vector",
                "r: pt"
            ]
        );
    }

    #[test]
    fn primitive_abbreviations_are_not_used() {
        // `real` abbreviates `f32`; printing every `f32` as `real` would mislead.
        let shown = hints(
            "type real = f32
def f (a: real) = let b = a + 1 in b
",
        );
        assert_eq!(shown, vec!["b: f32"]);
    }

    #[test]
    fn ascribed_bindings_are_skipped() {
        assert!(super::has_written_type("x : i32", 1));
        assert!(!super::has_written_type("x = 1", 1));
        assert!(!super::has_written_type("x :> [n]i32", 1));
    }
}
