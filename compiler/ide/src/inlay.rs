//! Inlay hints: the inferred type after each binding that has no written type (let
//! bindings, parameters, loop variables). The types come from the checker through
//! [`crate::types::type_of`]; where it has none, there is no hint (nothing is guessed).

use futhark_db::{Db, File};

use crate::TextRange;
use crate::defs::DefKind;
use crate::scope::file_index;
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
    for def in &index.defs {
        let wants_hint = matches!(def.kind, DefKind::Local | DefKind::Param);
        if !wants_hint || !range.touches(def.name_span.start) {
            continue;
        }
        if has_written_type(text, def.name_span.end) {
            continue;
        }
        if let Some(ty) = types::type_of(db, file, def.name_span) {
            out.push(InlayHint {
                offset: def.name_span.end,
                label: format!(": {ty}"),
                kind: InlayKind::Type,
            });
        }
    }
    out
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

    #[test]
    fn ascribed_bindings_are_skipped() {
        assert!(super::has_written_type("x : i32", 1));
        assert!(!super::has_written_type("x = 1", 1));
        assert!(!super::has_written_type("x :> [n]i32", 1));
    }
}
