//! Shared test helpers: checking source text or files from disk (resolving relative imports
//! recursively, imports first) and rendering diagnostics.

#![allow(dead_code)]

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use futhark_check::render::render;
use futhark_check::{CheckContext, CheckedFile, FileScope};
use futhark_syntax::{Diagnostic, FileId};

/// Where the shared read-only corpus lives.
pub fn shared_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared")
}

/// One checked file with its diagnostics (parse and type errors) and source.
pub struct Checked {
    pub path: PathBuf,
    pub text: String,
    pub result: Option<CheckedFile>,
    pub diagnostics: Vec<Diagnostic>,
}

impl Checked {
    pub fn errors(&self) -> Vec<&Diagnostic> {
        self.diagnostics.iter().filter(|d| d.is_error()).collect()
    }

    pub fn rendered(&self) -> Vec<String> {
        self.diagnostics
            .iter()
            .map(|d| render(d, &self.path.display().to_string(), &self.text))
            .collect()
    }
}

/// Checks files from disk, memoising imported files.
pub struct Loader<'c> {
    pub ctx: &'c CheckContext,
    next_id: u32,
    cache: HashMap<PathBuf, Option<Arc<FileScope>>>,
    /// Errors found in imported files, by path.
    pub import_errors: HashMap<PathBuf, Vec<String>>,
    in_progress: Vec<PathBuf>,
}

impl<'c> Loader<'c> {
    pub fn new(ctx: &'c CheckContext) -> Loader<'c> {
        Loader {
            ctx,
            next_id: 1,
            cache: HashMap::new(),
            import_errors: HashMap::new(),
            in_progress: Vec::new(),
        }
    }

    fn fresh_id(&mut self) -> FileId {
        self.next_id += 1;
        FileId(self.next_id)
    }

    /// Checks a file (and, first, everything it imports).
    pub fn check_path(&mut self, path: &Path) -> Checked {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        self.check_text(path, &text)
    }

    /// Checks the files that `decs` (of the file at `path`) import; returns their scopes by
    /// import path as written.
    pub fn imports_of(
        &mut self,
        path: &Path,
        decs: &[futhark_syntax::ast::Dec],
    ) -> HashMap<String, Option<Arc<FileScope>>> {
        let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        let mut scopes: HashMap<String, Option<Arc<FileScope>>> = HashMap::new();
        for imp in futhark_check::prelude::imports_of(decs) {
            if imp.starts_with("/prelude") {
                continue;
            }
            let target = normalize(&dir.join(format!("{imp}.fut")));
            let scope = self.import(&target);
            scopes.insert(imp, scope);
        }
        scopes
    }

    pub fn check_text(&mut self, path: &Path, text: &str) -> Checked {
        let id = self.fresh_id();
        let parse = futhark_syntax::parse(id, text);
        let mut diagnostics = parse.errors.clone();
        // Check imports first.
        let scopes = self.imports_of(path, &parse.file.decs);
        let lookup = |p: &str| scopes.get(p).cloned().flatten();
        let result = futhark_check::check_file(self.ctx, id, &parse.file, &lookup);
        diagnostics.extend(result.diagnostics.iter().cloned());
        Checked {
            path: path.to_path_buf(),
            text: text.to_string(),
            result: Some(result),
            diagnostics,
        }
    }

    fn import(&mut self, path: &Path) -> Option<Arc<FileScope>> {
        if let Some(s) = self.cache.get(path) {
            return s.clone();
        }
        if self.in_progress.iter().any(|p| p == path) || !path.exists() {
            return None;
        }
        self.in_progress.push(path.to_path_buf());
        let c = self.check_path(path);
        self.in_progress.pop();
        let errs: Vec<String> = c
            .diagnostics
            .iter()
            .filter(|d| d.is_error())
            .map(|d| render(d, &path.display().to_string(), &c.text))
            .collect();
        if !errs.is_empty() {
            self.import_errors.insert(path.to_path_buf(), errs);
        }
        let scope = c.result.map(|r| r.scope);
        self.cache.insert(path.to_path_buf(), scope.clone());
        scope
    }
}

/// Resolves `.` and `..` without touching the file system.
pub fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            c => out.push(c),
        }
    }
    out
}

/// All `.fut` files under a directory, sorted.
pub fn fut_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "fut") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Checks a standalone source text and returns its rendered diagnostics.
pub fn check_source(ctx: &CheckContext, src: &str) -> Vec<String> {
    let mut l = Loader::new(ctx);
    let c = l.check_text(Path::new("test.fut"), src);
    c.rendered()
}

/// The regex of a test block's `-- error:` line that expects a type error, if any.
pub fn expected_error(text: &str) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    for (i, l) in lines.iter().enumerate() {
        if l.trim_end() != "-- ==" {
            continue;
        }
        let mut j = i + 1;
        while j < lines.len() && lines[j].starts_with("--") {
            let s = lines[j][2..].trim();
            if s.is_empty() {
                j += 1;
                continue;
            }
            if s.starts_with("tags") {
                if !s.contains('}') {
                    while j < lines.len() && !lines[j].contains('}') {
                        j += 1;
                    }
                }
                j += 1;
                continue;
            }
            if let Some(r) = s.strip_prefix("error:") {
                return Some(r.trim().to_string());
            }
            break;
        }
    }
    None
}
