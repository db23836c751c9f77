//! The embedded prelude: the `.fut` sources under `compiler/check/prelude/`, their virtual
//! paths (`/prelude/…`) and reserved file ids, and loading them in dependency order into
//! the environment that every user file implicitly opens.

use std::sync::Arc;

use futhark_syntax::ast::{Dec, DecKind, ModExp, ModExpKind};
use futhark_syntax::{Diagnostic, FileId};
use rustc_hash::FxHashMap;

use crate::checker::Checker;
use crate::env::{Env, FileScope};
use crate::info::TypeInfo;
use crate::intrinsics::Intrinsics;

/// One embedded prelude file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PreludeFile {
    /// The virtual path, e.g. `/prelude/soacs.fut`.
    pub path: &'static str,
    pub file: FileId,
    pub source: &'static str,
}

/// The first file id of the prelude files (they count up from here); ids above the prelude
/// are reserved for intrinsics.
pub const PRELUDE_FILE_BASE: u32 = u32::MAX - 64;

const SOURCES: &[(&str, &str)] = &[
    (
        "/prelude/prelude.fut",
        include_str!("../prelude/prelude.fut"),
    ),
    ("/prelude/soacs.fut", include_str!("../prelude/soacs.fut")),
    ("/prelude/array.fut", include_str!("../prelude/array.fut")),
    ("/prelude/zip.fut", include_str!("../prelude/zip.fut")),
    ("/prelude/math.fut", include_str!("../prelude/math.fut")),
    (
        "/prelude/functional.fut",
        include_str!("../prelude/functional.fut"),
    ),
    ("/prelude/ad.fut", include_str!("../prelude/ad.fut")),
];

/// The embedded prelude files with their file ids.
pub fn prelude_files() -> Vec<PreludeFile> {
    SOURCES
        .iter()
        .enumerate()
        .map(|(i, (path, source))| PreludeFile {
            path,
            file: FileId(PRELUDE_FILE_BASE + i as u32),
            source,
        })
        .collect()
}

/// Resolves an import path written in a file at `from` (both without `.fut`), handling
/// `..` and `.` components. Absolute paths stay absolute.
pub fn resolve_import_path(from: &str, import: &str) -> String {
    let mut parts: Vec<&str> = if import.starts_with('/') {
        Vec::new()
    } else {
        let dir = match from.rfind('/') {
            Some(i) => &from[..i],
            None => "",
        };
        dir.split('/').filter(|s| !s.is_empty()).collect()
    };
    for c in import.split('/') {
        match c {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            c => parts.push(c),
        }
    }
    let joined = parts.join("/");
    if from.starts_with('/') || import.starts_with('/') {
        format!("/{joined}")
    } else {
        joined
    }
}

/// Every import path string in a list of declarations (including `open import` and
/// `module m = import`).
pub fn imports_of(decs: &[Dec]) -> Vec<String> {
    fn in_modexp(m: &ModExp, out: &mut Vec<String>) {
        match &m.kind {
            ModExpKind::Import(s) => out.push(s.value.clone()),
            ModExpKind::Parens(x) => in_modexp(x, out),
            ModExpKind::Decs(ds) => in_decs(ds, out),
            ModExpKind::Apply(f, a) => {
                in_modexp(f, out);
                in_modexp(a, out);
            }
            ModExpKind::Ascript(x, _) => in_modexp(x, out),
            ModExpKind::Lambda { body, .. } => in_modexp(body, out),
            ModExpKind::Var(_) | ModExpKind::Error => {}
        }
    }
    fn in_decs(ds: &[Dec], out: &mut Vec<String>) {
        for d in ds {
            match &d.kind {
                DecKind::Import(s) => out.push(s.value.clone()),
                DecKind::Open(m) => in_modexp(m, out),
                DecKind::Module(mb) => in_modexp(&mb.body, out),
                DecKind::Local(inner) => in_decs(std::slice::from_ref(&**inner), out),
                _ => {}
            }
        }
    }
    let mut out = Vec::new();
    in_decs(decs, &mut out);
    out
}

/// The result of loading the prelude.
pub struct LoadedPrelude {
    pub env: Env,
    pub diagnostics: Vec<Diagnostic>,
    pub info: TypeInfo,
    /// The parsed files, in the order of `files`: the interpreter and lowering evaluate
    /// the prelude from these trees, so it is parsed once per process.
    pub asts: Vec<(PreludeFile, Arc<futhark_syntax::ast::SourceFile>)>,
}

/// Parses and checks the prelude files in dependency order.
pub fn load(intrinsics: &Intrinsics, files: &[PreludeFile]) -> LoadedPrelude {
    let mut parsed: FxHashMap<String, (PreludeFile, Arc<futhark_syntax::ast::SourceFile>)> =
        FxHashMap::default();
    let mut diagnostics = Vec::new();
    for f in files {
        let p = futhark_syntax::parse(f.file, f.source);
        diagnostics.extend(p.errors);
        let key = f.path.trim_end_matches(".fut").to_string();
        parsed.insert(key, (*f, Arc::new(p.file)));
    }
    let mut done: FxHashMap<String, Arc<FileScope>> = FxHashMap::default();
    let mut info = TypeInfo::default();
    let mut order: Vec<String> = parsed.keys().cloned().collect();
    order.sort();
    for key in order {
        load_one(
            intrinsics,
            &key,
            &parsed,
            &mut done,
            &mut diagnostics,
            &mut info,
            0,
        );
    }
    let env = done
        .get("/prelude/prelude")
        .map(|s| s.env.clone())
        .unwrap_or_default();
    let asts = files
        .iter()
        .filter_map(|f| {
            let key = f.path.trim_end_matches(".fut");
            parsed.get(key).map(|(_, ast)| (*f, ast.clone()))
        })
        .collect();
    LoadedPrelude {
        env,
        diagnostics,
        info,
        asts,
    }
}

fn load_one(
    intrinsics: &Intrinsics,
    key: &str,
    parsed: &FxHashMap<String, (PreludeFile, Arc<futhark_syntax::ast::SourceFile>)>,
    done: &mut FxHashMap<String, Arc<FileScope>>,
    diagnostics: &mut Vec<Diagnostic>,
    info: &mut TypeInfo,
    depth: u32,
) {
    if done.contains_key(key) || depth > 32 {
        return;
    }
    let Some((pf, ast)) = parsed.get(key) else {
        return;
    };
    for imp in imports_of(&ast.decs) {
        let target = resolve_import_path(key, &imp);
        load_one(
            intrinsics,
            &target,
            parsed,
            done,
            diagnostics,
            info,
            depth + 1,
        );
    }
    let from = key.to_string();
    let snapshot = done.clone();
    let lookup = move |p: &str| snapshot.get(&resolve_import_path(&from, p)).cloned();
    let mut c = Checker::new(intrinsics, pf.file, intrinsics.env.clone(), &lookup);
    c.in_prelude = true;
    c.defined.push(Default::default());
    c.check_decs(&ast.decs);
    diagnostics.extend(c.diags);
    info.extend(c.info);
    done.insert(key.to_string(), Arc::new(FileScope { env: c.exports }));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_resolve() {
        assert_eq!(resolve_import_path("/prelude/soacs", "zip"), "/prelude/zip");
        assert_eq!(resolve_import_path("a/b/c", "../d"), "a/d");
        assert_eq!(resolve_import_path("a/b/c", "lib/x"), "a/b/lib/x");
        assert_eq!(resolve_import_path("foo", "bar"), "bar");
        assert_eq!(
            resolve_import_path("x/foo", "/prelude/prelude"),
            "/prelude/prelude"
        );
    }
}
