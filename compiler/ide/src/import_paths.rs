//! Completion inside `import "…"`: the files and folders the path so far leads to, among
//! the files the database knows (the workspace's `.fut` files, open buffers and, for
//! `/prelude/…`, the prelude), written as imports write them (no `.fut`).

use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};

use futhark_db::{Db, File};

use crate::TextRange;
use crate::completion::{CompletionItem, CompletionKind};

/// The partial path when `offset` lies in the string of an `import` (its start offset and
/// text), e.g. `import "lib/ut|`.
fn import_string(text: &str, offset: usize) -> Option<(usize, &str)> {
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let before = &text[line_start..offset];
    let quote = before.rfind('"')?;
    let head = before[..quote].trim_end();
    if !(head.ends_with("import") || head.ends_with("include")) {
        return None;
    }
    let typed = &before[quote + 1..];
    // A closed string (`import "a" |`) is not where the cursor is.
    head.matches('"')
        .count()
        .is_multiple_of(2)
        .then_some((line_start + quote + 1, typed))
}

/// `a/./b/../c` without the dots.
pub(crate) fn normalise(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            c => out.push(c),
        }
    }
    out
}

/// Completions for an import path, or `None` when the cursor is not in one.
pub fn import_completions(db: &dyn Db, file: File, offset: u32) -> Option<Vec<CompletionItem>> {
    let text = file.text(db);
    let (start, typed) = import_string(text, offset as usize)?;
    // The folder part of what is typed, and the name being typed.
    let (dir_part, name_start) = match typed.rfind('/') {
        Some(i) => (&typed[..=i], start + i + 1),
        None => ("", start),
    };
    let here = file
        .path(db)
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let base = normalise(&here.join(dir_part));
    let mut folders = BTreeSet::new();
    let mut files = BTreeSet::new();
    for f in db.files() {
        let path = f.path(db);
        let Ok(rest) = normalise(path).strip_prefix(&base).map(Path::to_path_buf) else {
            continue;
        };
        let mut parts = rest.components();
        let (Some(first), next) = (parts.next(), parts.next()) else {
            continue;
        };
        let first = first.as_os_str().to_string_lossy().into_owned();
        if first.starts_with('.') {
            continue;
        }
        match next {
            Some(_) => {
                folders.insert(first);
            }
            None if f != file => {
                if let Some(stem) = first.strip_suffix(".fut") {
                    files.insert(stem.to_string());
                }
            }
            None => {}
        }
    }
    let replace = TextRange::new(name_start as u32, offset);
    let item = |label: String, detail: &str| CompletionItem {
        label,
        kind: CompletionKind::File,
        detail: Some(detail.to_string()),
        doc: None,
        insert_text: None,
        is_snippet: false,
        replace,
        sort_group: 0,
    };
    let mut out: Vec<CompletionItem> = folders
        .into_iter()
        .map(|d| item(format!("{d}/"), "folder"))
        .collect();
    out.extend(files.into_iter().map(|f| item(f, "file")));
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_string_of_an_import() {
        let t = "import \"lib/ut";
        assert_eq!(import_string(t, t.len()), Some((8, "lib/ut")));
        let t = "def x = \"lib";
        assert_eq!(import_string(t, t.len()), None);
        let t = "import \"a\" -- \"b";
        assert_eq!(import_string(t, t.len()), None);
    }
}
