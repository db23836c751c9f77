//! The missing-import fix: for `Unknown name "x"` (or type, module, module type), every
//! workspace file that defines `x` at its top level (not `local`) and does not itself
//! import the current file is offered as `import "relative/path"`, inserted after the
//! file's last top-level import (or at its start).

use std::path::{Component, Path, PathBuf};

use futhark_db::{Db, File};
use futhark_syntax::Diagnostic;
use futhark_syntax::ast::{DecKind, ModExpKind};

use super::Fix;
use crate::TextRange;
use crate::defs::Ns;
use crate::import_paths::normalise;
use crate::prelude::is_prelude_path;
use crate::rename::TextEdit;
use crate::scope::file_index;

/// At most this many files are offered for one name.
const MAX_CANDIDATES: usize = 5;

/// The namespace and name of an "Unknown …" message: `Unknown name "sq".`,
/// `Unknown type "vector".`, `Unknown module "M.N".` (the first module counts),
/// `Unknown module type "S".`.
fn unknown(message: &str) -> Option<(Ns, String)> {
    let first = message.lines().next()?;
    let rest = first.strip_prefix("Unknown ")?;
    let (what, quoted) = rest.split_once('"')?;
    let name = quoted.split('"').next()?;
    let ns = match what.trim() {
        "name" => Ns::Val,
        "type" => Ns::Type,
        "module" => Ns::Mod,
        "module type" => Ns::ModType,
        _ => return None,
    };
    let name = match ns {
        Ns::Mod => name.split('.').next()?,
        _ if name.contains('.') => return None,
        _ => name,
    };
    (!name.is_empty()).then(|| (ns, name.to_string()))
}

pub(super) fn missing_import(
    db: &dyn Db,
    file: File,
    d: &Diagnostic,
    workspace: &[File],
) -> Vec<Fix> {
    let Some((ns, name)) = unknown(&d.message) else {
        return Vec::new();
    };
    let here = file.path(db).to_path_buf();
    let mut found: Vec<(usize, String)> = Vec::new();
    for &candidate in workspace {
        let path = candidate.path(db);
        if candidate == file || is_prelude_path(path) || !candidate.exists(db) {
            continue;
        }
        if path.extension().is_none_or(|e| e != "fut") || !defines(db, candidate, ns, &name) {
            continue;
        }
        // An import of a file that imports this one would close a cycle.
        if futhark_db::import_graph(db, candidate)
            .order
            .contains(&file)
        {
            continue;
        }
        let Some(written) = import_path(&here, path) else {
            continue;
        };
        if futhark_db::resolve_import_path(&here, &written) != normalise(path) {
            continue;
        }
        let depth = written.matches('/').count() + written.matches("..").count();
        found.push((depth, written));
    }
    found.sort();
    found.dedup();
    let at = insertion_point(db, file);
    found
        .into_iter()
        .take(MAX_CANDIDATES)
        .map(|(_, written)| {
            let new_text = if at.1 {
                format!("\nimport \"{written}\"")
            } else {
                format!("import \"{written}\"\n")
            };
            Fix {
                title: format!("Import \"{written}\" (defines `{name}`)"),
                edits: vec![TextEdit {
                    range: TextRange::new(at.0, at.0),
                    new_text,
                }],
                preferred: false,
            }
        })
        .collect()
}

/// True if `file` itself defines `name` at its top level, visibly to importers.
fn defines(db: &dyn Db, file: File, ns: Ns, name: &str) -> bool {
    let exports = &file_index(db, file).exports;
    let loc = match ns {
        Ns::Val => exports.vals.get(name).copied(),
        Ns::Type => exports.types.get(name).copied(),
        Ns::Mod => exports.mods.get(name).and_then(|m| m.def),
        Ns::ModType => exports.mtys.get(name).and_then(|m| m.def),
    };
    loc.is_some_and(|l| l.file == file)
}

/// `to` as an import in a file at `from`: relative, `/`-separated, without `.fut`.
fn import_path(from: &Path, to: &Path) -> Option<String> {
    let from = normalise(from.parent()?);
    let to = normalise(to);
    let from: Vec<Component> = from.components().collect();
    let to_parts: Vec<Component> = to.components().collect();
    let common = from
        .iter()
        .zip(&to_parts)
        .take_while(|(a, b)| a == b)
        .count();
    let mut out = PathBuf::new();
    for _ in common..from.len() {
        out.push("..");
    }
    for c in &to_parts[common..] {
        out.push(c.as_os_str());
    }
    let text = out.to_str()?.replace('\\', "/");
    let stem = text.strip_suffix(".fut")?;
    (!stem.is_empty() && !stem.contains('"')).then(|| stem.to_string())
}

/// Where a new import goes: the end of the last top-level import's line (`true`: the new
/// line goes after it), or the start of the file.
fn insertion_point(db: &dyn Db, file: File) -> (u32, bool) {
    let parsed = futhark_db::parse(db, file);
    let text = file.text(db);
    let is_import = |kind: &DecKind| match kind {
        DecKind::Import(_) => true,
        DecKind::Open(m) => matches!(m.kind, ModExpKind::Import(_)),
        _ => false,
    };
    let last = parsed
        .file
        .decs
        .iter()
        .filter(|d| match &d.kind {
            DecKind::Local(inner) => is_import(&inner.kind),
            k => is_import(k),
        })
        .map(|d| d.span.end)
        .max();
    match last {
        Some(end) => {
            let rest = text.get(end as usize..).unwrap_or("");
            let eol = rest.find('\n').unwrap_or(rest.len());
            (end + eol as u32, true)
        }
        None => (0, false),
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::fixes;
    use std::path::Path;

    #[test]
    fn messages() {
        use crate::defs::Ns;
        assert_eq!(
            super::unknown("Unknown name \"sq\"."),
            Some((Ns::Val, "sq".into()))
        );
        assert_eq!(
            super::unknown("Unknown module \"M.N\"."),
            Some((Ns::Mod, "M".into()))
        );
        assert_eq!(
            super::unknown("Unknown module type \"S\"."),
            Some((Ns::ModType, "S".into()))
        );
        assert_eq!(super::unknown("Unknown name \"M.x\"."), None);
        assert_eq!(super::unknown("Something else"), None);
    }

    #[test]
    fn relative_paths() {
        let p = |a: &str, b: &str| super::import_path(Path::new(a), Path::new(b));
        assert_eq!(
            p("/w/main.fut", "/w/lib/util.fut").as_deref(),
            Some("lib/util")
        );
        assert_eq!(p("/w/a/b.fut", "/w/c/d.fut").as_deref(), Some("../c/d"));
        assert_eq!(p("/w/a/b.fut", "/w/a/c.fut").as_deref(), Some("c"));
    }

    #[test]
    fn an_unknown_name_is_imported_from_the_file_defining_it() {
        let fixture = r#"
//- /w/main.fut
def k = sq 3
//- /w/lib/sq.fut
def sq (x: i32) = x * x
//- /w/other.fut
local def sq (x: i32) = x
"#;
        let all = fixes(fixture);
        assert_eq!(
            all,
            vec![(
                "Import \"lib/sq\" (defines `sq`)".to_string(),
                "import \"lib/sq\"\ndef k = sq 3\n".to_string()
            )]
        );
    }

    #[test]
    fn types_and_modules_go_after_the_last_import() {
        let fixture = r#"
//- /w/src/main.fut
import "a"
-- | A point.
def m : vector = V.zero
//- /w/src/a.fut
def unrelated = 0
//- /w/vec.fut
type vector = {x: f32}
module V = { def zero : vector = {x = 0} }
"#;
        let all = fixes(fixture);
        let titles: Vec<&str> = all.iter().map(|(t, _)| t.as_str()).collect();
        assert_eq!(
            titles,
            vec![
                "Import \"../vec\" (defines `vector`)",
                "Import \"../vec\" (defines `V`)"
            ]
        );
        assert!(
            all[0]
                .1
                .starts_with("import \"a\"\nimport \"../vec\"\n-- | A point."),
            "{}",
            all[0].1
        );
    }

    #[test]
    fn a_file_importing_this_one_is_not_offered() {
        let fixture = r#"
//- /w/main.fut
def k = sq 3
//- /w/user.fut
import "main"
def sq (x: i32) = x
"#;
        assert!(fixes(fixture).is_empty());
    }
}
