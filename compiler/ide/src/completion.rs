//! Completion: after `M.` the members of module `M` (modules of the file, imported
//! modules, prelude modules such as `f32`); after `r.` for a variable `r`, the fields of
//! its record type (from the checker); elsewhere every name in scope at the cursor with
//! its kind, plus keywords and snippets for `def`, `loop` and `match`. Nothing inside
//! comments and strings.

use std::collections::HashSet;
use std::sync::Arc;

use futhark_db::Db;
use futhark_syntax::lexer::{TokenKind, lex};

use crate::defs::{Def, DefKind, Ns};
use crate::env::{DefLoc, Env};
use crate::scope::{Layer, ScopeAt, def_at, scope_at};
use crate::{FilePosition, TextRange};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CompletionKind {
    Local,
    Param,
    Function,
    Value,
    Type,
    TypeParam,
    Module,
    ModuleType,
    Field,
    Keyword,
    Snippet,
    /// A file or folder in an `import` path.
    File,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompletionItem {
    pub label: String,
    pub kind: CompletionKind,
    /// The signature, for display beside the label.
    pub detail: Option<String>,
    pub doc: Option<String>,
    /// Text to insert instead of the label; a snippet with `$1` placeholders when
    /// `is_snippet`.
    pub insert_text: Option<String>,
    pub is_snippet: bool,
    /// The range the completion replaces (the partial name before the cursor).
    pub replace: TextRange,
    /// Lower sorts first: locals, then the file's names, then the prelude, then keywords.
    pub sort_group: u8,
}

const KEYWORDS: [&str; 24] = [
    "def", "let", "in", "if", "then", "else", "loop", "for", "while", "do", "match", "case",
    "module", "type", "val", "entry", "local", "open", "import", "include", "with", "assert",
    "true", "false",
];

const SNIPPETS: [(&str, &str, &str); 4] = [
    (
        "def",
        "def ${1:name} ${2:params} = ${0:body}",
        "define a function",
    ),
    (
        "loop",
        "loop ${1:acc} = ${2:init} for ${3:i} < ${4:n} do ${0:body}",
        "a sequential loop",
    ),
    (
        "match",
        "match ${1:e}\ncase ${2:pat} -> ${0:body}",
        "pattern matching",
    ),
    (
        "let",
        "let ${1:x} = ${2:e}\nin ${0:body}",
        "a local binding",
    ),
];

/// The completions at `pos`.
pub fn completions(db: &dyn Db, pos: FilePosition) -> Vec<CompletionItem> {
    let text = pos.file.text(db);
    let offset = clamp_to_char(text, pos.offset);
    if let Some(paths) = crate::import_paths::import_completions(db, pos.file, offset) {
        return paths;
    }
    if in_comment_or_string(db, pos.file, offset) {
        return Vec::new();
    }
    let bytes = text.as_bytes();
    let mut start = offset as usize;
    while start > 0 && is_name_byte(bytes[start - 1]) {
        start -= 1;
    }
    let replace = TextRange::new(start as u32, offset);
    let scope = scope_at(db, pos.file, offset);
    match qualifier(text, start) {
        Some((path, path_start)) => match scope.module(&path) {
            Some(env) => module_members(db, &scope, &env, replace),
            None => record_fields(db, pos.file, path_start, &path, replace),
        },
        // After `(…).`, `{…}.` or `[…].`: the fields of that expression, never the names in
        // scope.
        None if start >= 2 && bytes[start - 1] == b'.' && b")}]".contains(&bytes[start - 2]) => {
            let fields = crate::records::record_ending_at(db, pos.file, start as u32 - 1)
                .unwrap_or_default();
            field_items(fields, replace)
        }
        None => unqualified(db, &scope, replace),
    }
}

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'\''
}

fn clamp_to_char(text: &str, offset: u32) -> u32 {
    let mut offset = (offset as usize).min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset as u32
}

/// The path before a `.` that ends right at `start` (`M.N.` gives `["M", "N"]`), and the
/// offset where it starts.
fn qualifier(text: &str, start: usize) -> Option<(Vec<&str>, u32)> {
    let bytes = text.as_bytes();
    let mut end = start;
    let mut path = Vec::new();
    while end > 0 && bytes[end - 1] == b'.' {
        let dot = end - 1;
        let mut s = dot;
        while s > 0 && is_name_byte(bytes[s - 1]) {
            s -= 1;
        }
        if s == dot || !bytes[s].is_ascii_alphabetic() {
            break;
        }
        path.push(text.get(s..dot)?);
        end = s;
    }
    if path.is_empty() {
        return None;
    }
    path.reverse();
    Some((path, end as u32))
}

fn in_comment_or_string(db: &dyn Db, file: futhark_db::File, offset: u32) -> bool {
    let lexed = lex(file.id(db), file.text(db));
    let in_comment = lexed
        .comments
        .iter()
        .any(|c| c.start < offset && offset <= c.end);
    in_comment
        || lexed.tokens.iter().any(|t| match t.kind {
            TokenKind::String => t.start < offset && (offset < t.end || t.end - t.start < 2),
            TokenKind::Doc => t.start < offset && offset <= t.end,
            _ => false,
        })
}

fn module_members(
    db: &dyn Db,
    scope: &ScopeAt,
    env: &Arc<Env>,
    replace: TextRange,
) -> Vec<CompletionItem> {
    let mut out = Vec::new();
    env_items(
        db,
        scope,
        env,
        1,
        true,
        replace,
        &mut HashSet::new(),
        &mut out,
    );
    out
}

/// After `r.` or `r.a.` where `r` is a variable: the fields of its record type, as the
/// type checker inferred it.
fn record_fields(
    db: &dyn Db,
    file: futhark_db::File,
    path_start: u32,
    path: &[&str],
    replace: TextRange,
) -> Vec<CompletionItem> {
    let index = crate::scope::file_index(db, file);
    let Some(occ) = index
        .occurrences
        .iter()
        .find(|o| o.span.start == path_start && o.class != crate::NameClass::Field)
    else {
        return Vec::new();
    };
    field_items(
        crate::types::record_fields(db, file, occ.span, &path[1..]),
        replace,
    )
}

/// Record fields as completion items.
fn field_items(
    labels: impl IntoIterator<Item = String>,
    replace: TextRange,
) -> Vec<CompletionItem> {
    labels
        .into_iter()
        .map(|label| CompletionItem {
            label,
            kind: CompletionKind::Field,
            detail: None,
            doc: None,
            insert_text: None,
            is_snippet: false,
            replace,
            sort_group: 0,
        })
        .collect()
}

fn unqualified(db: &dyn Db, scope: &ScopeAt, replace: TextRange) -> Vec<CompletionItem> {
    let mut seen: HashSet<(Ns, String)> = HashSet::new();
    let mut out = Vec::new();
    let last = scope.layers.len().saturating_sub(1);
    for (i, layer) in scope.layers.iter().enumerate() {
        match layer {
            Layer::Locals(locals) => {
                for (name, loc) in locals {
                    if seen.insert((loc.kind.namespace(), name.clone())) && !is_operator(name) {
                        out.push(item(db, scope, name, *loc, 0, replace));
                    }
                }
            }
            Layer::Env(env) => {
                let group = if i == last { 2 } else { 1 };
                env_items(db, scope, env, group, false, replace, &mut seen, &mut out);
            }
        }
    }
    for kw in KEYWORDS {
        out.push(CompletionItem {
            label: kw.to_string(),
            kind: CompletionKind::Keyword,
            detail: None,
            doc: None,
            insert_text: None,
            is_snippet: false,
            replace,
            sort_group: 3,
        });
    }
    for (label, body, what) in SNIPPETS {
        out.push(CompletionItem {
            label: label.to_string(),
            kind: CompletionKind::Snippet,
            detail: Some(what.to_string()),
            doc: None,
            insert_text: Some(body.to_string()),
            is_snippet: true,
            replace,
            sort_group: 3,
        });
    }
    out
}

#[allow(clippy::too_many_arguments)]
fn env_items(
    db: &dyn Db,
    scope: &ScopeAt,
    env: &Arc<Env>,
    group: u8,
    operators: bool,
    replace: TextRange,
    seen: &mut HashSet<(Ns, String)>,
    out: &mut Vec<CompletionItem>,
) {
    let wanted = |name: &str| operators || !is_operator(name);
    let mut add = |ns: Ns, name: &str, loc: Option<DefLoc>, kind: CompletionKind| {
        if !wanted(name) || !seen.insert((ns, name.to_string())) {
            return;
        }
        match loc {
            Some(loc) => out.push(item(db, scope, name, loc, group, replace)),
            None => out.push(CompletionItem {
                label: name.to_string(),
                kind,
                detail: None,
                doc: None,
                insert_text: None,
                is_snippet: false,
                replace,
                sort_group: group,
            }),
        }
    };
    for (name, loc) in &env.vals {
        add(Ns::Val, name, Some(*loc), CompletionKind::Value);
    }
    for (name, loc) in &env.types {
        add(Ns::Type, name, Some(*loc), CompletionKind::Type);
    }
    for (name, entry) in &env.mods {
        add(Ns::Mod, name, entry.def, CompletionKind::Module);
    }
    for (name, entry) in &env.mtys {
        add(Ns::ModType, name, entry.def, CompletionKind::ModuleType);
    }
}

fn item(
    db: &dyn Db,
    scope: &ScopeAt,
    name: &str,
    loc: DefLoc,
    group: u8,
    replace: TextRange,
) -> CompletionItem {
    // The scope's walk numbers the file's own definitions its own way.
    let def = scope.def(db, loc);
    let doc = def.and_then(|d| doc_of(db, d));
    CompletionItem {
        label: name.to_string(),
        kind: kind_of(loc.kind),
        detail: def.map(|d| d.signature.clone()),
        doc,
        insert_text: None,
        is_snippet: false,
        replace,
        sort_group: group,
    }
}

fn doc_of(db: &dyn Db, def: &Def) -> Option<String> {
    def.doc
        .clone()
        .or_else(|| def_at(db, def.spec?).and_then(|s| s.doc.clone()))
}

fn kind_of(kind: DefKind) -> CompletionKind {
    match kind {
        DefKind::Function | DefKind::Entry | DefKind::LocalFunction => CompletionKind::Function,
        DefKind::Value => CompletionKind::Value,
        DefKind::Local => CompletionKind::Local,
        DefKind::Param => CompletionKind::Param,
        DefKind::Type => CompletionKind::Type,
        DefKind::TypeParam | DefKind::SizeParam => CompletionKind::TypeParam,
        DefKind::Module | DefKind::Functor | DefKind::ModuleParam => CompletionKind::Module,
        DefKind::ModuleType => CompletionKind::ModuleType,
    }
}

fn is_operator(name: &str) -> bool {
    name.chars()
        .next()
        .is_some_and(|c| !(c.is_ascii_alphanumeric() || c == '_'))
}

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};

    use super::CompletionKind;
    use crate::fixture::Fixture;

    /// Shows the completions of the fixture's own files (groups 0 and 1: locals and the
    /// file's names), one per line.
    fn check_local(fixture: &str, expect: Expect) {
        let f = Fixture::new(fixture);
        let items = super::completions(&f.db, f.position());
        let shown: Vec<String> = items
            .iter()
            .filter(|i| i.sort_group < 2)
            .map(|i| {
                format!(
                    "{:?} {} {}",
                    i.kind,
                    i.label,
                    i.detail.as_deref().unwrap_or("")
                )
            })
            .collect();
        expect.assert_eq(&shown.join("\n"));
    }

    fn labels(fixture: &str) -> Vec<(String, CompletionKind)> {
        let f = Fixture::new(fixture);
        super::completions(&f.db, f.position())
            .into_iter()
            .map(|i| (i.label, i.kind))
            .collect()
    }

    #[test]
    fn locals_params_and_top_level_names() {
        check_local(
            r#"
def g = 1
def f [n] (xs: [n]i32) (k: i32) =
  let y = k + 1
  in y + $0
def later = 2
"#,
            expect![[r#"
                Local y let y
                Param k (k: i32)
                Param xs (xs: [n]i32)
                TypeParam n [n]
                Function f def f [n] (xs: [n]i32) (k: i32)
                Value g def g"#]],
        );
    }

    #[test]
    fn details_of_names_after_a_skipped_body() {
        // The body of `a` is not walked for the scope at the cursor; `b` and `c` still get
        // their own signatures.
        check_local(
            "def a (x: i32) = let q = x in q\ndef b (z: f32) = z\ndef c = $0\n",
            expect![[r#"
                Function a def a (x: i32)
                Function b def b (z: f32)
                Value c def c"#]],
        );
    }

    #[test]
    fn innermost_shadowing_wins() {
        check_local(
            "def f x = let x = x + 1 in x$0\n",
            expect![[r#"
                Local x let x
                Function f def f x"#]],
        );
    }

    #[test]
    fn between_declarations() {
        check_local("def a = 1\n$0\ndef b = 2\n", expect!["Value a def a"]);
    }

    #[test]
    fn module_members_after_a_dot() {
        check_local(
            r#"
module M = {
  -- | The x.
  def x = 1
  type t = i32
  module N = { def z = 0 }
}
def y = M.$0
"#,
            expect![[r#"
                Value x def x
                Type t type t = i32
                Module N module N"#]],
        );
    }

    #[test]
    fn nested_module_path_and_partial_name() {
        check_local(
            "module M = { module N = { def zed = 0 } }\ndef y = M.N.ze$0\n",
            expect!["Value zed def zed"],
        );
    }

    #[test]
    fn prelude_module_members() {
        let items = labels("def f (x: f32) = f32.$0");
        for want in ["sqrt", "sin", "pi", "i32", "abs"] {
            assert!(
                items.iter().any(|(l, _)| l == want),
                "f32.{want} missing from {items:?}"
            );
        }
        assert!(items.iter().all(|(_, k)| *k != CompletionKind::Keyword));
    }

    #[test]
    fn imported_module_members() {
        check_local(
            r#"
//- /main.fut
module L = import "lib"
def y = L.$0
//- /lib.fut
def exported = 1
local def hidden = 2
"#,
            expect!["Value exported def exported"],
        );
    }

    #[test]
    fn prelude_names_keywords_and_snippets() {
        let items = labels("def f xs = $0");
        assert!(items.contains(&("map".to_string(), CompletionKind::Function)));
        assert!(items.contains(&("f32".to_string(), CompletionKind::Module)));
        assert!(items.contains(&("match".to_string(), CompletionKind::Keyword)));
        assert!(items.contains(&("loop".to_string(), CompletionKind::Snippet)));
        assert!(items.iter().all(|(l, _)| l != "+"), "no bare operators");
    }

    #[test]
    fn fields_after_a_bracketed_expression() {
        let items = labels("def z = {x = 1i32, y = 2i32}.$0");
        assert_eq!(
            items,
            vec![
                ("x".to_string(), CompletionKind::Field),
                ("y".to_string(), CompletionKind::Field)
            ]
        );
        assert_eq!(labels("def z = (1i32, 2i32).$0").len(), 2);
    }

    #[test]
    fn record_fields_from_the_checker() {
        let items = labels("def r = {alpha = 1i32, beta = {gamma = 2f32}}\ndef z = r.beta.$0");
        assert_eq!(items, vec![("gamma".to_string(), CompletionKind::Field)]);
        let items = labels("def f (p: {x: i32, y: i32}) = p.$0");
        assert_eq!(
            items,
            vec![
                ("x".to_string(), CompletionKind::Field),
                ("y".to_string(), CompletionKind::Field)
            ]
        );
    }

    #[test]
    fn nothing_in_comments_or_strings() {
        assert!(labels("-- def f = $0\n").is_empty());
        assert!(labels("def s = \"ab$0c\"\n").is_empty());
    }

    #[test]
    fn works_in_broken_code() {
        let items = labels("def f (q: i32) =\n  let y = q +\n  in q$0\n");
        assert!(items.contains(&("q".to_string(), CompletionKind::Param)));
    }

    #[test]
    fn cursor_past_the_end_is_clamped() {
        let f = Fixture::new("def a = 1\n");
        let pos = crate::FilePosition {
            file: f.file(),
            offset: 9999,
        };
        let items = super::completions(&f.db, pos);
        assert!(items.iter().any(|i| i.label == "a"));
    }
}
