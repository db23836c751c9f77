//! The tracked queries: parsing and import resolution (type checking joins when it lands).

use std::path::{Component, Path, PathBuf};

use futhark_syntax::{Diagnostic, Parse, Span};
use salsa::Accumulator;

use crate::files::{Db, File};

/// A diagnostic accumulated by a query; collect them with [`file_diagnostics`].
#[salsa::accumulator]
pub struct Diag(pub Diagnostic);

/// Parses one file. Cached per file: editing one file re-parses that file only, because the
/// query reads nothing but that file's text. `no_eq`: an edit practically always changes
/// the tree (spans move), so comparing the whole tree with the old one only costs time.
#[salsa::tracked(returns(ref), no_eq)]
pub fn parse(db: &dyn Db, file: File) -> Parse {
    let parsed = futhark_syntax::parse(file.id(db), file.text(db));
    for error in &parsed.errors {
        Diag(error.clone()).accumulate(db);
    }
    parsed
}

/// One `import "…"` of a file, resolved to the file it names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResolvedImport {
    /// The path as written in the source.
    pub written: String,
    /// Where the string literal is.
    pub span: Span,
    /// The normalised path it resolves to (`.fut` appended, relative to the importer).
    pub path: PathBuf,
    /// The file, or `None` if it does not exist (an error was reported).
    pub target: Option<File>,
}

/// Resolves `written` (as in `import "written"`) relative to the importing file's path.
/// Futhark appends `.fut`; `lib/github.com/…` packages are ordinary relative paths.
pub fn resolve_import_path(importer: &Path, written: &str) -> PathBuf {
    let base = importer.parent().unwrap_or(Path::new(""));
    let mut path = base.join(format!("{written}.fut"));
    if written.starts_with('/') {
        path = PathBuf::from(format!("{written}.fut"));
    }
    normalize_path(&path)
}

/// Removes `.` and resolves `..` lexically, without touching the file system, so editor
/// buffers and REPL cells that do not exist on disk resolve the same way as files.
pub fn normalize_path(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                let popped =
                    matches!(out.components().next_back(), Some(Component::Normal(_))) && out.pop();
                if !popped {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// The imports of one file, resolved. Missing files are reported as `import-not-found`.
/// Depends on the file's parse and on whether the imported files exist, not on their text.
#[salsa::tracked(returns(ref))]
pub fn imports(db: &dyn Db, file: File) -> Vec<ResolvedImport> {
    let parsed = parse(db, file);
    let importer = file.path(db);
    let mut out = Vec::new();
    for lit in parsed.file.imports() {
        let path = resolve_import_path(importer, &lit.value);
        let target = if lit.value.starts_with("/prelude") {
            Diag(Diagnostic::error(
                "import-not-found",
                lit.span,
                format!(
                    "the prelude may not be imported explicitly: \"{}\"",
                    lit.value
                ),
            ))
            .accumulate(db);
            None
        } else {
            // Reading `exists` makes this query re-run when the target is removed.
            let target = db.load_file(&path).filter(|t| t.exists(db));
            if target.is_none() {
                Diag(
                    Diagnostic::error(
                        "import-not-found",
                        lit.span,
                        format!("cannot find imported file \"{}\"", lit.value),
                    )
                    .with_note(format!("looked for {}", path.display())),
                )
                .accumulate(db);
            }
            target
        };
        out.push(ResolvedImport {
            written: lit.value.clone(),
            span: lit.span,
            path,
            target,
        });
    }
    out
}

/// The files reachable from a root through imports, in dependency order (each file after
/// everything it imports), plus import cycles found on the way.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct ImportGraph {
    pub order: Vec<File>,
    /// Each cycle as the import that closes it: (importing file, span of the import string).
    pub cycles: Vec<(File, Span)>,
}

/// Walks the imports of `root` depth-first. Cycles are not a salsa cycle here: the walk is
/// an explicit loop over [`imports`] results, so a cyclic program gets an `import-cycle`
/// diagnostic rather than a query cycle.
#[salsa::tracked(returns(ref))]
pub fn import_graph(db: &dyn Db, root: File) -> ImportGraph {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        Active,
        Done,
    }
    let mut marks: std::collections::HashMap<File, Mark> = Default::default();
    let mut graph = ImportGraph::default();
    // Explicit stack of (file, next import index) so deep import chains cannot overflow.
    let mut stack: Vec<(File, usize)> = vec![(root, 0)];
    marks.insert(root, Mark::Active);
    while let Some((file, next)) = stack.last().copied() {
        let deps = imports(db, file);
        match deps.get(next) {
            Some(dep) => {
                if let Some(top) = stack.last_mut() {
                    top.1 += 1;
                }
                let Some(target) = dep.target else { continue };
                match marks.get(&target) {
                    None => {
                        marks.insert(target, Mark::Active);
                        stack.push((target, 0));
                    }
                    Some(Mark::Active) => {
                        graph.cycles.push((file, dep.span));
                        Diag(Diagnostic::error(
                            "import-cycle",
                            dep.span,
                            format!(
                                "import cycle: \"{}\" imports itself, directly or indirectly",
                                dep.written
                            ),
                        ))
                        .accumulate(db);
                    }
                    Some(Mark::Done) => {}
                }
            }
            None => {
                stack.pop();
                marks.insert(file, Mark::Done);
                graph.order.push(file);
            }
        }
    }
    graph
}

/// Every diagnostic of one file (parse errors, unresolved imports), sorted by position.
pub fn file_diagnostics(db: &dyn Db, file: File) -> Vec<Diagnostic> {
    let mut diags: Vec<Diagnostic> = imports::accumulated::<Diag>(db, file)
        .into_iter()
        .map(|d| d.0.clone())
        .collect();
    diags.sort_by_key(|d| (d.span.start, d.span.end));
    diags.dedup();
    diags
}
