//! Rename: checks that the name under the cursor is a user definition, that the new name
//! is valid for it and captures nothing (`capture.rs`), then rewrites the definition and
//! every reference (record puns become `field = new`), and the name in the `-- >>>`
//! examples of the files that see a top-level definition.

use std::fmt;

use futhark_db::{Db, File};

use crate::FilePosition;
use crate::TextRange;
use crate::defs::DefKind;
use crate::prelude::is_prelude_path;
use crate::references::{references_of, target_at};
use crate::scope::{def_at, file_index};

/// One replacement in a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextEdit {
    pub range: TextRange,
    pub new_text: String,
}

/// Edits across files, each file's edits sorted and non-overlapping.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct SourceChange {
    pub edits: Vec<(File, Vec<TextEdit>)>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RenameError {
    /// The cursor is not on a name that refers to a definition.
    NoDefinition,
    /// The definition cannot be renamed (it is built in or belongs to the prelude).
    NotRenamable(String),
    /// The new name is not valid here.
    InvalidName(String),
    /// The new name would change what a name refers to.
    Capture(String),
}

impl fmt::Display for RenameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RenameError::NoDefinition => write!(f, "no renamable name at the cursor"),
            RenameError::NotRenamable(why)
            | RenameError::InvalidName(why)
            | RenameError::Capture(why) => f.write_str(why),
        }
    }
}

impl std::error::Error for RenameError {}

/// The range of the name at `pos` and its current text, if it can be renamed.
pub fn prepare_rename(db: &dyn Db, pos: FilePosition) -> Result<(TextRange, String), RenameError> {
    let target = target_at(db, pos).ok_or(RenameError::NoDefinition)?;
    let def = def_at(db, target).ok_or(RenameError::NoDefinition)?;
    if is_prelude_path(target.file.path(db)) {
        return Err(RenameError::NotRenamable(format!(
            "`{}` is defined in the prelude and cannot be renamed",
            def.name
        )));
    }
    let occ = file_index(db, pos.file)
        .occurrence_at(pos.offset)
        .ok_or(RenameError::NoDefinition)?;
    Ok((occ.span.into(), def.name.clone()))
}

/// Renames the definition at `pos` to `new_name` everywhere in `workspace`.
pub fn rename(
    db: &dyn Db,
    pos: FilePosition,
    new_name: &str,
    workspace: &[File],
) -> Result<SourceChange, RenameError> {
    prepare_rename(db, pos)?;
    let target = target_at(db, pos).ok_or(RenameError::NoDefinition)?;
    let def = def_at(db, target).ok_or(RenameError::NoDefinition)?;
    let refs = references_of(db, target, workspace);
    let has_uses = refs.iter().any(|r| r.role == crate::scope::Role::Reference);
    validate(&def.name, new_name, def.kind, has_uses)?;
    let mut change = SourceChange::default();
    if new_name == def.name {
        return Ok(change);
    }
    if let Some(why) = crate::capture::capture(db, target, &def.name, new_name, &refs) {
        return Err(RenameError::Capture(why));
    }
    for r in refs {
        let new_text = if r.pun {
            format!("{} = {new_name}", def.name)
        } else {
            new_name.to_string()
        };
        let edit = TextEdit {
            range: r.range,
            new_text,
        };
        match change.edits.iter_mut().find(|(f, _)| *f == r.file) {
            Some((_, edits)) => edits.push(edit),
            None => change.edits.push((r.file, vec![edit])),
        }
    }
    if !target.kind.is_local() {
        let mut files = vec![target.file];
        for (f, _) in &change.edits {
            if !files.contains(f) {
                files.push(*f);
            }
        }
        for file in files {
            let edits = example_edits(db, file, target, &def.name, new_name);
            if edits.is_empty() {
                continue;
            }
            match change.edits.iter_mut().find(|(f, _)| *f == file) {
                Some((_, old)) => old.extend(edits),
                None => change.edits.push((file, edits)),
            }
        }
    }
    for (_, edits) in &mut change.edits {
        edits.sort_by_key(|e| e.range.start);
        edits.dedup_by_key(|e| e.range);
    }
    Ok(change)
}

/// The edits renaming `old` to `new` in the `-- >>>` examples of `file`, when `old` names
/// `target` there (examples are evaluated in the scope of the whole file).
fn example_edits(
    db: &dyn Db,
    file: File,
    target: crate::env::DefLoc,
    old: &str,
    new: &str,
) -> Vec<TextEdit> {
    let lenses = crate::code_lens::code_lenses(db, file);
    if lenses.is_empty() {
        return Vec::new();
    }
    let text = file.text(db);
    let scope = crate::scope::scope_at(db, file, text.len() as u32);
    let ns = target.kind.namespace();
    if crate::capture::lookup(&scope, old, ns).map(|(_, loc)| loc) != Some(target) {
        return Vec::new();
    }
    let mut out = Vec::new();
    for lens in lenses {
        let line = &text[lens.range.start as usize..lens.range.end as usize];
        let Some(at) = line.find(">>>") else {
            continue;
        };
        let base = lens.range.start as usize + at + 3;
        let expr = &text[base..lens.range.end as usize];
        let lexed = futhark_syntax::lexer::lex(file.id(db), expr);
        for t in &lexed.tokens {
            let (s, e) = (t.start as usize, t.end as usize);
            let qualified = s > 0 && expr.as_bytes()[s - 1] == b'.';
            if t.kind == futhark_syntax::lexer::TokenKind::Ident
                && expr.get(s..e) == Some(old)
                && !qualified
            {
                out.push(TextEdit {
                    range: TextRange::new((base + s) as u32, (base + e) as u32),
                    new_text: new.to_string(),
                });
            }
        }
    }
    out
}

const KEYWORDS: [&str; 24] = [
    "true", "false", "if", "then", "else", "def", "let", "loop", "in", "val", "for", "do", "with",
    "local", "open", "include", "import", "type", "entry", "module", "while", "assert", "match",
    "case",
];

/// Checks `new` as a replacement for the name `old` of a definition of `kind`.
fn validate(old: &str, new: &str, kind: DefKind, has_uses: bool) -> Result<(), RenameError> {
    let invalid = |why: String| Err(RenameError::InvalidName(why));
    let old_is_op = !is_identifier(old);
    if old_is_op {
        if !is_operator(new) {
            return invalid(format!(
                "`{new}` is not an operator; an operator can only be renamed to another operator"
            ));
        }
        if new == "&&" || new == "||" {
            return invalid(format!("`{new}` may not be redefined"));
        }
        return Ok(());
    }
    if !is_identifier(new) {
        return invalid(format!("`{new}` is not a valid name"));
    }
    if KEYWORDS.contains(&new) {
        return invalid(format!("`{new}` is a keyword"));
    }
    if new.starts_with('_') && has_uses {
        return invalid(format!(
            "`{new}` starts with `_`, and such names may be bound but not used"
        ));
    }
    if kind == DefKind::Entry && new.contains('\'') {
        return invalid(format!("entry point names may not contain `'`: `{new}`"));
    }
    Ok(())
}

/// `[A-Za-z][A-Za-z0-9_']*` or `_[A-Za-z0-9][A-Za-z0-9_']*`.
fn is_identifier(s: &str) -> bool {
    let b = s.as_bytes();
    let body = |rest: &[u8]| {
        rest.iter()
            .all(|c| c.is_ascii_alphanumeric() || *c == b'_' || *c == b'\'')
    };
    match b {
        [c, rest @ ..] if c.is_ascii_alphabetic() => body(rest),
        [b'_', c, rest @ ..] if c.is_ascii_alphanumeric() => body(rest),
        _ => false,
    }
}

/// An operator that may be bound: symbol characters, not `=`, `!` or `->` on their own.
fn is_operator(s: &str) -> bool {
    let start = |c: char| "+-*/%=!<>|&^".contains(c);
    let mut chars = s.chars();
    let valid = chars.next().is_some_and(start) && chars.all(|c| start(c) || c == '.');
    valid && !matches!(s, "=" | "!" | "->") && !s.starts_with("--")
}

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};

    use crate::fixture::Fixture;

    fn check(fixture: &str, new_name: &str, expect: Expect) {
        let f = Fixture::new(fixture);
        let shown = match super::rename(&f.db, f.position(), new_name, &f.files) {
            Ok(change) => {
                // Apply the edits to show the result.
                let mut out = Vec::new();
                for (file, edits) in change.edits {
                    let mut text = file.text(&f.db).clone();
                    for e in edits.iter().rev() {
                        text.replace_range(
                            e.range.start as usize..e.range.end as usize,
                            &e.new_text,
                        );
                    }
                    out.push(format!("{}:\n{text}", file.path(&f.db).display()));
                }
                out.join("")
            }
            Err(e) => format!("error: {e}"),
        };
        expect.assert_eq(&shown);
    }

    #[test]
    fn local_and_its_uses() {
        check(
            "def f x = let y$0 = x + 1 in y * y\n",
            "z",
            expect![[r#"
                /main.fut:
                def f x = let z = x + 1 in z * z
            "#]],
        );
    }

    #[test]
    fn across_files() {
        check(
            r#"
//- /lib.fut
def double (x: i32) = x * 2
//- /main.fut
import "lib"
def y = double$0 2
"#,
            "twice",
            expect![[r#"
                /lib.fut:
                def twice (x: i32) = x * 2
                /main.fut:
                import "lib"
                def y = twice 2
            "#]],
        );
    }

    #[test]
    fn record_puns_keep_the_field() {
        check(
            "def f x$0 = {x}\ndef g ({a}: {a: i32}) = a\n",
            "y",
            expect![[r#"
                /main.fut:
                def f y = {x = y}
                def g ({a}: {a: i32}) = a
            "#]],
        );
        check(
            "def g ({a}: {a: i32}) = a$0\n",
            "b",
            expect![[r#"
                /main.fut:
                def g ({a = b}: {a: i32}) = b
            "#]],
        );
    }

    #[test]
    fn qualified_uses() {
        check(
            "module M = { def x = 1 }\ndef y = M.x$0 + M.x\n",
            "w",
            expect![[r#"
                /main.fut:
                module M = { def w = 1 }
                def y = M.w + M.w
            "#]],
        );
    }

    #[test]
    fn operators() {
        check(
            "def (+++) (a: i32) (b: i32) = a + b\ndef y = 1 +++$0 2\n",
            "<+>",
            expect![[r#"
                /main.fut:
                def (<+>) (a: i32) (b: i32) = a + b
                def y = 1 <+> 2
            "#]],
        );
        check(
            "def (+++) (a: i32) (b: i32) = a + b\ndef y = 1 +++$0 2\n",
            "plus",
            expect![
                "error: `plus` is not an operator; an operator can only be renamed to another operator"
            ],
        );
    }

    #[test]
    fn rejects_keywords_and_bad_names() {
        check("def f$0 = 1\n", "let", expect!["error: `let` is a keyword"]);
        check(
            "def f$0 = 1\n",
            "2x",
            expect!["error: `2x` is not a valid name"],
        );
        check(
            "def f$0 = 1\n",
            "+",
            expect!["error: `+` is not a valid name"],
        );
        check(
            "def f$0 = 1\ndef g = f\n",
            "_f",
            expect!["error: `_f` starts with `_`, and such names may be bound but not used"],
        );
        check(
            "entry main$0 = 1\n",
            "main'",
            expect!["error: entry point names may not contain `'`: `main'`"],
        );
    }

    #[test]
    fn prelude_and_builtins_are_not_renamable() {
        check(
            "def f xs = map$0 (+1) xs\n",
            "mop",
            expect!["error: `map` is defined in the prelude and cannot be renamed"],
        );
        check(
            "def f (x: i32$0) = x\n",
            "int",
            expect!["error: no renamable name at the cursor"],
        );
    }

    #[test]
    fn captures_are_refused() {
        // The renamed use of `x` would refer to the inner `y`.
        check(
            "def f (x$0: i32) = let y = x + 1 in y * x\n",
            "y",
            expect!["error: renaming to `y` would make a use of `x` refer to another `y`"],
        );
        // The use of the parameter `x` would refer to the renamed `let`.
        check(
            "def f (x: i32) = let y$0 = x + 1 in y * x\n",
            "x",
            expect![
                "error: renaming to `x` would make a use of another `x` refer to this definition"
            ],
        );
        // Shadowing that changes nothing is allowed.
        check(
            "def f (x: i32) = let y$0 = 1 in y\n",
            "x",
            expect![[r#"
                /main.fut:
                def f (x: i32) = let x = 1 in x
            "#]],
        );
    }

    #[test]
    fn examples_follow_the_rename() {
        check(
            "-- >>> quad 3\n-- >>> M.quad 1 + quad 2\ndef quad$0 (x: i32) = x * 4\n",
            "four",
            expect![[r#"
                /main.fut:
                -- >>> four 3
                -- >>> M.quad 1 + four 2
                def four (x: i32) = x * 4
            "#]],
        );
    }
}
