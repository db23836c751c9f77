//! Code actions: quick fixes for diagnostics whose message already says what the fix is.
//!
//! - an unknown name, type, module or module type that a workspace file defines at its
//!   top level: `import "path"` of that file ([`imports`]);
//! - a size mismatch against a written annotation (a return type, an ascription, a loop
//!   or pattern type), where the error states the expected and the actual size: change the
//!   annotation's size, or coerce with `:>` ([`sizes`]);
//! - `*` on a type that cannot be consumed (`unique-no-effect`): remove it;
//! - an unused size parameter (`[n]` of a type, function or `let`): remove it;
//! - a doc comment that documents nothing (`misplaced-doc-comment`): make it `--`.
//!
//! The fixes are computed from the file's own diagnostics (the same ones the editor
//! shows), so a client need not send them back; the LSP attaches each fix to the
//! diagnostic it answers.

mod imports;
mod sizes;

use futhark_db::{Db, File};
use futhark_syntax::{Diagnostic, Span};

use crate::TextRange;
use crate::diagnostics::{syntax_diagnostics, type_diagnostics};
use crate::rename::{SourceChange, TextEdit};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CodeActionKind {
    QuickFix,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodeAction {
    pub title: String,
    pub kind: CodeActionKind,
    /// The diagnostic the action fixes.
    pub diagnostic: Diagnostic,
    pub edit: SourceChange,
    /// The one fix an editor may apply without asking ("auto fix").
    pub preferred: bool,
}

/// The quick fixes for the diagnostics of `file` that touch `range`. With `with_types`
/// false only syntax diagnostics are looked at (the checker is not waited for).
/// `workspace` is where a missing name is looked for.
pub fn code_actions(
    db: &dyn Db,
    file: File,
    range: TextRange,
    with_types: bool,
    workspace: &[File],
) -> Vec<CodeAction> {
    let mut diags = syntax_diagnostics(db, file);
    if with_types {
        diags.extend(type_diagnostics(db, file));
    }
    let own = file.id(db);
    let mut out = Vec::new();
    for d in diags {
        let span = TextRange::from(d.span);
        let overlaps = span.start <= range.end && range.start <= span.end;
        if d.span.file != own || !overlaps {
            continue;
        }
        let edits = fixes_for(db, file, &d, workspace);
        out.extend(edits.into_iter().map(|fix| CodeAction {
            title: fix.title,
            kind: CodeActionKind::QuickFix,
            diagnostic: d.clone(),
            edit: SourceChange {
                edits: vec![(file, fix.edits)],
            },
            preferred: fix.preferred,
        }));
    }
    out
}

/// One fix inside the diagnostic's own file.
pub(crate) struct Fix {
    pub title: String,
    pub edits: Vec<TextEdit>,
    pub preferred: bool,
}

impl Fix {
    fn one(title: String, range: TextRange, new_text: impl Into<String>) -> Fix {
        Fix {
            title,
            edits: vec![TextEdit {
                range,
                new_text: new_text.into(),
            }],
            preferred: false,
        }
    }
}

fn fixes_for(db: &dyn Db, file: File, d: &Diagnostic, workspace: &[File]) -> Vec<Fix> {
    let text = file.text(db);
    match d.code {
        "unknown-name" | "unknown-type" => imports::missing_import(db, file, d, workspace),
        "type-mismatch" => sizes::size_fixes(db, file, d),
        "unique-no-effect" => remove_star(text, d.span).into_iter().collect(),
        "unused-size" if d.message.contains("unused") => {
            remove_size_param(text, d.span).into_iter().collect()
        }
        "misplaced-doc-comment" => plain_comment(text, d.span).into_iter().collect(),
        _ => Vec::new(),
    }
}

/// `*t` where `t` cannot be unique: drop the `*`.
fn remove_star(text: &str, span: Span) -> Option<Fix> {
    let start = span.start as usize;
    if text.get(start..start + 1) != Some("*") {
        return None;
    }
    let mut fix = Fix::one(
        "Remove `*` (uniqueness has no effect here)".to_string(),
        TextRange::new(span.start, span.start + 1),
        "",
    );
    fix.preferred = true;
    Some(fix)
}

/// The size parameter `[n]` around the name at `span`: drop it with the blank after it
/// (or, at the end of a line, the blank before it).
fn remove_size_param(text: &str, span: Span) -> Option<Fix> {
    let name = text.get(span.range())?;
    let before = text.get(..span.start as usize)?;
    let open = before.trim_end().len().checked_sub(1)?;
    if before.get(open..open + 1) != Some("[") {
        return None;
    }
    let after = text.get(span.end as usize..)?;
    let close = span.end as usize + (after.len() - after.trim_start().len());
    if text.get(close..close + 1) != Some("]") {
        return None;
    }
    let mut start = open;
    let mut end = close + 1;
    let rest = text.get(end..)?;
    let trailing = rest.len() - rest.trim_start_matches([' ', '\t']).len();
    if trailing > 0 {
        end += trailing;
    } else {
        start = text.get(..start)?.trim_end_matches([' ', '\t']).len();
    }
    let mut fix = Fix::one(
        format!("Remove the unused size parameter `[{name}]`"),
        TextRange::new(start as u32, end as u32),
        "",
    );
    fix.preferred = true;
    Some(fix)
}

/// A doc comment that documents nothing: `-- |` becomes `--`.
fn plain_comment(text: &str, span: Span) -> Option<Fix> {
    let rest = text.get(span.start as usize..)?;
    let marker = rest.strip_prefix("--")?;
    let bar = marker.len() - marker.trim_start_matches([' ', '\t']).len();
    if !marker[bar..].starts_with('|') {
        return None;
    }
    let end = span.start + 2 + bar as u32 + 1;
    let mut fix = Fix::one(
        "Make it an ordinary comment (`--`)".to_string(),
        TextRange::new(span.start, end),
        "--",
    );
    fix.preferred = true;
    Some(fix)
}

#[cfg(test)]
mod tests {
    use crate::TextRange;
    use crate::fixture::Fixture;

    /// The titles of the fixes offered over the whole first file, and the first file as
    /// each fix leaves it.
    pub(super) fn fixes(fixture: &str) -> Vec<(String, String)> {
        let f = Fixture::new(fixture);
        let file = f.file();
        let actions = super::code_actions(&f.db, file, TextRange::new(0, 1 << 20), true, &f.files);
        actions
            .into_iter()
            .map(|a| {
                let mut text = f.text();
                for (target, edits) in &a.edit.edits {
                    assert_eq!(*target, file, "{}", a.title);
                    for e in edits.iter().rev() {
                        text.replace_range(
                            e.range.start as usize..e.range.end as usize,
                            &e.new_text,
                        );
                    }
                }
                (a.title, text)
            })
            .collect()
    }

    fn applied(fixture: &str, title_part: &str) -> String {
        let all = fixes(fixture);
        all.iter()
            .find(|(t, _)| t.contains(title_part))
            .map(|(_, text)| text.clone())
            .unwrap_or_else(|| panic!("no fix with {title_part:?} among {all:?}"))
    }

    #[test]
    fn a_star_without_effect_is_removed() {
        assert_eq!(
            applied("def u (x: *i32) = x\n", "Remove `*`"),
            "def u (x: i32) = x\n"
        );
    }

    #[test]
    fn an_unused_size_parameter_is_removed() {
        assert_eq!(applied("type t [n] = i32\n", "[n]"), "type t = i32\n");
        assert_eq!(
            applied("def f [n] (x: i32) = x\n", "[n]"),
            "def f (x: i32) = x\n"
        );
    }

    #[test]
    fn a_doc_comment_documenting_nothing_becomes_a_comment() {
        let fixed = applied(
            "def f (x: i32) =\n  -- | note\n  x + 1\n",
            "ordinary comment",
        );
        assert_eq!(fixed, "def f (x: i32) =\n  -- note\n  x + 1\n");
    }

    #[test]
    fn a_correct_program_has_no_fixes() {
        assert!(fixes("def f (x: i32) : i32 = x + 1\n").is_empty());
    }

    #[test]
    fn diagnostics_outside_the_range_are_not_fixed() {
        let f = Fixture::new("def u (x: *i32) = x\n\n\ndef v = 1\n");
        let end = f.text().len() as u32;
        let actions = super::code_actions(
            &f.db,
            f.file(),
            TextRange::new(end - 3, end),
            true,
            &f.files,
        );
        assert!(actions.is_empty(), "{actions:?}");
    }
}
