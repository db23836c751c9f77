//! Type checking as a query: each file is checked once its imports are checked, with the
//! prelude loaded once per process.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use futhark_check::{CheckContext, CheckedFile, FileCache, FileScope};
use futhark_syntax::{Diagnostic, FileId};

use crate::files::{Db, File};
use crate::queries::{file_diagnostics, import_graph, imports, parse};

/// The checker's fixed context (intrinsics and the checked prelude). Building it parses and
/// checks the prelude, so it happens once per process, not per database.
pub fn check_context() -> &'static CheckContext {
    static CONTEXT: OnceLock<CheckContext> = OnceLock::new();
    CONTEXT.get_or_init(CheckContext::new)
}

/// The result of checking one file. Compared by identity: a re-check always counts as a
/// change, which is conservative (dependants re-check) but never stale.
#[derive(Clone, Debug)]
pub struct Checked(pub Arc<CheckedFile>);

impl PartialEq for Checked {
    fn eq(&self, other: &Checked) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for Checked {}

/// Type-checks one file against the scopes of the files it imports. An import that would
/// close a cycle is left unresolved (the cycle itself is reported by [`import_graph`]), so
/// the query never depends on itself.
#[salsa::tracked]
pub fn check(db: &dyn Db, file: File) -> Checked {
    let parsed = parse(db, file);
    let mut scopes: HashMap<String, Arc<FileScope>> = HashMap::new();
    for dep in imports(db, file) {
        let Some(target) = dep.target else { continue };
        if import_graph(db, target).order.contains(&file) {
            continue;
        }
        scopes.insert(dep.written.clone(), check(db, target).0.scope.clone());
    }
    let lookup = |path: &str| scopes.get(path).cloned();
    let id = file.id(db);
    let caches = db
        .check_caches()
        .filter(|_| parsed.file.decs.len() >= CheckCaches::MIN_DECLS);
    let Some(caches) = caches else {
        return Checked(Arc::new(futhark_check::check_file(
            check_context(),
            id,
            &parsed.file,
            &lookup,
        )));
    };
    let prev = caches.get(id);
    let cache = futhark_check::check_file_cached(
        check_context(),
        id,
        file.text(db),
        &parsed.file,
        &lookup,
        prev.as_deref(),
    );
    let result = cache.result().clone();
    caches.put(id, cache);
    Checked(result)
}

/// What the last check of each file leaves for the next one, so that an edit re-checks only
/// the declarations it touched (see `futhark_check::check_file_cached`). Kept beside salsa's
/// memos rather than in them because it feeds on the previous revision's result; entries are
/// validated against the new text, so a stale or shared entry only costs reuse.
#[derive(Clone, Default)]
pub struct CheckCaches(Arc<Mutex<HashMap<FileId, Arc<FileCache>>>>);

impl CheckCaches {
    /// Files with fewer top-level declarations are checked afresh: recording costs more
    /// than re-checking them.
    pub const MIN_DECLS: usize = 16;

    fn get(&self, id: FileId) -> Option<Arc<FileCache>> {
        self.lock().get(&id).cloned()
    }

    fn put(&self, id: FileId, cache: FileCache) {
        self.lock().insert(id, Arc::new(cache));
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<FileId, Arc<FileCache>>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Every diagnostic of one file, its own only: syntax, imports and types, sorted by position.
pub fn check_diagnostics(db: &dyn Db, file: File) -> Vec<Diagnostic> {
    let mut diags = file_diagnostics(db, file);
    diags.extend(check(db, file).0.diagnostics.iter().cloned());
    diags.sort_by_key(|d| (d.span.start, d.span.end));
    diags.dedup();
    diags
}

/// The diagnostics of a whole program: `root` and every file it imports, each file's
/// diagnostics in dependency order (imported files first), plus import cycles.
pub fn program_diagnostics(db: &dyn Db, root: File) -> Vec<(File, Vec<Diagnostic>)> {
    let graph = import_graph(db, root);
    let mut out = Vec::new();
    for &file in &graph.order {
        let mut diags = check_diagnostics(db, file);
        if file == root {
            // Cycle reports are accumulated by the graph walk of the root.
            for d in import_graph::accumulated::<crate::Diag>(db, root) {
                if d.0.code == "import-cycle" && !diags.contains(&d.0) {
                    diags.push(d.0.clone());
                }
            }
        }
        out.push((file, diags));
    }
    out
}
