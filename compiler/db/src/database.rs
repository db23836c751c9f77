//! The one concrete database: salsa storage plus the registry mapping paths to file inputs.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use futhark_options::CompileOptions;
use futhark_syntax::FileId;
use salsa::Setter;

use crate::files::{Db, File};
use crate::queries::normalize_path;

/// Records which queries executed, from salsa's event stream; tests use it to prove that an
/// edit re-runs only what depends on it.
#[derive(Clone, Default)]
pub struct ExecutionLog {
    entries: Arc<Mutex<Option<Vec<String>>>>,
}

impl ExecutionLog {
    /// Starts (or restarts) recording.
    pub fn enable(&self) {
        *self.lock() = Some(Vec::new());
    }

    /// The queries executed since the last call, as `query(File(Id(..)))` strings.
    pub fn take(&self) -> Vec<String> {
        self.lock().as_mut().map(std::mem::take).unwrap_or_default()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Vec<String>>> {
        self.entries.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Records `entry()`, formatted only while recording (every query execution passes
    /// here).
    fn push(&self, entry: impl FnOnce() -> String) {
        if let Some(log) = self.lock().as_mut() {
            log.push(entry());
        }
    }
}

#[derive(Default)]
struct Registry {
    by_path: HashMap<PathBuf, File>,
    by_id: HashMap<FileId, File>,
    next_id: u32,
}

impl Registry {
    /// Makes `file` findable by its path and its id.
    fn insert(&mut self, path: PathBuf, id: FileId, file: File) {
        self.by_path.insert(path, file);
        self.by_id.insert(id, file);
    }
}

#[salsa::db]
#[derive(Clone)]
pub struct Database {
    storage: salsa::Storage<Self>,
    registry: Arc<Mutex<Registry>>,
    log: ExecutionLog,
    check_caches: crate::CheckCaches,
    /// Set once the storage exists (inputs are created through the database).
    settings: Option<crate::Settings>,
}

impl Default for Database {
    fn default() -> Self {
        let log = ExecutionLog::default();
        let sink = log.clone();
        let db = Database {
            storage: salsa::Storage::new(Some(Box::new(move |event| {
                if let salsa::EventKind::WillExecute { database_key } = event.kind {
                    sink.push(|| format!("{database_key:?}"));
                }
            }))),
            registry: Arc::default(),
            log,
            check_caches: Default::default(),
            settings: None,
        };
        let mut db = db;
        db.settings = Some(crate::Settings::new(&db, CompileOptions::default()));
        db.register_prelude();
        db
    }
}

impl Database {
    pub fn new() -> Database {
        Database::default()
    }

    /// The log of executed queries (disabled until [`ExecutionLog::enable`]).
    pub fn log(&self) -> &ExecutionLog {
        &self.log
    }

    fn registry(&self) -> std::sync::MutexGuard<'_, Registry> {
        self.registry.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn register(&self, path: PathBuf, text: String) -> File {
        let mut reg = self.registry();
        let id = FileId(reg.next_id);
        reg.next_id += 1;
        let file = File::new(self, path.clone(), text, id, true);
        reg.insert(path, id, file);
        file
    }

    /// Registers the embedded prelude sources under their virtual paths (`/prelude/…`) and
    /// the file ids the checker reserved for them, so diagnostics and go-to-definition can
    /// show prelude code.
    fn register_prelude(&self) {
        for pf in futhark_check::prelude::prelude_files() {
            let path = PathBuf::from(pf.path);
            let file = File::new(self, path.clone(), pf.source.to_string(), pf.file, true);
            self.registry().insert(path, pf.file, file);
        }
    }

    /// Sets the text of the file at `path` (an editor buffer, a REPL cell, a test fixture),
    /// creating the input if needed. Only queries depending on this file re-run; setting
    /// the text it has already changes nothing (a REPL running the same program again finds
    /// it compiled).
    pub fn set_file(&mut self, path: impl AsRef<Path>, text: impl Into<String>) -> File {
        let path = normalize_path(path.as_ref());
        let existing = self.registry().by_path.get(&path).copied();
        match existing {
            Some(file) => {
                let text = text.into();
                if *file.text(self) != text {
                    file.set_text(self).to(text);
                }
                if !file.exists(self) {
                    // The same input comes back, so importers that saw it removed see it.
                    file.set_exists(self).to(true);
                }
                file
            }
            None => self.register(path, text.into()),
        }
    }

    /// Sets the options compilation uses; only compilation re-runs (when they changed).
    pub fn set_compile_options(&mut self, options: CompileOptions) {
        let settings = self.settings();
        if settings.compile(self) != options {
            settings.set_compile(self).to(options);
        }
    }

    /// The options compilation uses.
    pub fn compile_options(&self) -> CompileOptions {
        self.settings().compile(self)
    }

    /// Drops the results of cells checked longest ago beyond the last
    /// [`CELLS_KEPT`](crate::CELLS_KEPT) (a session calls it after each cell): they stay
    /// valid and are checked again only if asked for.
    pub fn trim_cells(&mut self) {
        salsa::Database::trigger_lru_eviction(self);
    }

    /// Forgets the file at `path` (deleted on disk, or a buffer closed for good): it leaves
    /// [`Db::files`], imports of it report `import-not-found` (only queries that read it
    /// re-run), and a later [`Database::set_file`] of the same path brings the same input
    /// back. Its id stays known, so diagnostics computed before still render. Returns
    /// false if no file is registered at `path`; prelude files cannot be removed.
    pub fn remove_file(&mut self, path: impl AsRef<Path>) -> bool {
        let path = normalize_path(path.as_ref());
        if path.starts_with("/prelude") {
            return false;
        }
        let found = self.registry().by_path.get(&path).copied();
        match found {
            Some(file) if file.exists(self) => {
                file.set_exists(self).to(false);
                file.set_text(self).to(String::new());
                true
            }
            _ => false,
        }
    }
}

#[salsa::db]
impl salsa::Database for Database {}

#[salsa::db]
impl Db for Database {
    fn load_file(&self, path: &Path) -> Option<File> {
        let path = normalize_path(path);
        if let Some(file) = self.registry().by_path.get(&path) {
            return Some(*file);
        }
        // Reading from disk inside a query is untracked: a file that appears later is picked up
        // when the caller sets it explicitly (the LSP does so for every buffer it sees).
        let text = std::fs::read_to_string(&path).ok()?;
        Some(self.register(path, text))
    }

    fn file_by_id(&self, id: FileId) -> Option<File> {
        self.registry().by_id.get(&id).copied()
    }

    fn check_caches(&self) -> Option<&crate::CheckCaches> {
        Some(&self.check_caches)
    }

    fn settings(&self) -> crate::Settings {
        match self.settings {
            Some(s) => s,
            // Only during construction, before anything can ask.
            None => unreachable!("the settings input is created with the database"),
        }
    }

    fn files(&self) -> Vec<File> {
        let reg = self.registry();
        let mut files: Vec<File> = reg.by_path.values().copied().collect();
        drop(reg);
        files.retain(|f| f.exists(self));
        files.sort_by_key(|f| f.id(self).0);
        files
    }
}
