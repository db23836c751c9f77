//! The language server: state (the salsa database, open documents, URI map), the
//! `LanguageServer` implementation that routes each request to its handler, and the
//! diagnostics loop.
//!
//! **Concurrency.** Notifications that change text run synchronously in their first poll
//! (tower-lsp starts handlers in arrival order), so edits apply in order. Requests clone
//! the database (a snapshot) and run their handler on a blocking thread. An edit sets a
//! file input, which makes salsa cancel every snapshot at its next query; the cancelled
//! request unwinds with `salsa::Cancelled` and answers `ContentModified`. A snapshot is
//! never held across an `.await`, because setting an input waits for all snapshots to go.
//!
//! **Robustness.** Every handler runs under `catch_unwind`: a bug answers an internal
//! error for that request and the server carries on.

use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use futhark_db::{Database, Db};
use serde_json::Value;
use tower_lsp_server::jsonrpc::{Error, ErrorCode, Result};
use tower_lsp_server::ls_types::*;
use tower_lsp_server::{Client, LanguageServer};

use crate::config::Config;
use crate::edits::{apply_change, shift_diagnostics};
use crate::eval;
use crate::handlers::{self, show_view::Which};
use crate::snapshot::Snapshot;
use crate::uris::{UriMap, materialize_prelude};

/// Set by `shutdown`: the process exits 0 after `exit` only if it was (the protocol says
/// 1 otherwise).
pub static SHUTDOWN_REQUESTED: AtomicBool = AtomicBool::new(false);

/// How long diagnostics wait for a newer edit before they are computed and published.
const PUBLISH_PAUSE: std::time::Duration = std::time::Duration::from_millis(30);

/// The most files a workspace scan loads; beyond it, files are read when imported.
const MAX_WORKSPACE_FILES: usize = 5000;

struct OpenDoc {
    path: PathBuf,
    version: i32,
    text: String,
    /// The type diagnostics last computed for this document, moved through the edits
    /// made since (see Note [two-phase diagnostics]).
    type_diags: Vec<Diagnostic>,
}

struct State {
    db: Database,
    docs: HashMap<Uri, OpenDoc>,
    uris: Arc<UriMap>,
    roots: Vec<PathBuf>,
    /// Bumped by every change to the inputs.
    generation: u64,
    /// The generation whose type diagnostics were computed last: when it is the current
    /// one, the checker's results are cached and requests may use them without waiting.
    checked_generation: u64,
    /// The generation whose diagnostics were published last, and what was published.
    published_generation: u64,
    /// Per document: the version and diagnostics last published (a new version is always
    /// published, so a client can tell its edit was seen).
    published: HashMap<Uri, (i32, Vec<Diagnostic>)>,
    config: Config,
    /// Whether the client re-asks for code lenses when told to (`workspace/codeLens/refresh`).
    lens_refresh: bool,
    /// Whether the client lets the server register file watchers at run time.
    watch_registration: bool,
    /// The one-line result of each `-- >>>` example run since the last change, by document
    /// and expression, for the lens titles.
    run_results: HashMap<Uri, HashMap<String, String>>,
}

struct Inner {
    client: Client,
    state: Mutex<State>,
    /// Serialises publishing, so an older computation never overwrites a newer one.
    publish: tokio::sync::Mutex<()>,
    /// False from `initialize` (when there are roots to scan) until the workspace scan
    /// started by `initialized` has loaded its files. Requests that answer over the whole
    /// workspace wait for it: tower-lsp runs requests concurrently with the `initialized`
    /// handler, so a first `workspace/symbol` could otherwise see no unopened file.
    workspace_loaded: tokio::sync::watch::Sender<bool>,
}

/// How long a workspace-wide request waits for the scan (a client that never sends
/// `initialized` gets answers over the open files after this).
const WORKSPACE_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

#[derive(Clone)]
pub struct Server {
    inner: Arc<Inner>,
}

impl Server {
    pub fn new(client: Client) -> Server {
        let mut db = Database::new();
        futhark_ide::register_prelude(&mut db);
        Server {
            inner: Arc::new(Inner {
                client,
                state: Mutex::new(State {
                    db,
                    docs: HashMap::new(),
                    uris: Arc::new(UriMap::new(None)),
                    roots: Vec::new(),
                    generation: 0,
                    checked_generation: 0,
                    published_generation: 0,
                    published: HashMap::new(),
                    config: Config::default(),
                    lens_refresh: false,
                    watch_registration: false,
                    run_results: HashMap::new(),
                }),
                publish: tokio::sync::Mutex::new(()),
                workspace_loaded: tokio::sync::watch::Sender::new(true),
            }),
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.inner
            .state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    fn snapshot(&self) -> Snapshot {
        let st = self.state();
        let mut snap = Snapshot::new(st.db.clone(), st.uris.clone());
        snap.types_ready = st.checked_generation == st.generation;
        snap
    }

    /// Runs `f` on a snapshot on a blocking thread. Cancellation by an edit answers
    /// `ContentModified`; a panic answers an internal error.
    async fn run<R, F>(&self, f: F) -> Result<R>
    where
        R: Send + 'static,
        F: FnOnce(&Snapshot) -> Result<R> + Send + 'static,
    {
        let snap = self.snapshot();
        let task = tokio::task::spawn_blocking(move || {
            let res = std::panic::catch_unwind(AssertUnwindSafe(|| f(&snap)));
            drop(snap);
            res
        });
        match task.await {
            Ok(Ok(res)) => res,
            Ok(Err(payload)) => Err(panic_error(payload)),
            Err(_) => Err(Error::internal_error()),
        }
    }

    /// Waits (bounded) until the workspace scan has loaded its files.
    async fn workspace_ready(&self) {
        let mut loaded = self.inner.workspace_loaded.subscribe();
        let _ = tokio::time::timeout(WORKSPACE_WAIT, loaded.wait_for(|done| *done)).await;
    }

    /// Changes the inputs under the state lock (on a thread allowed to block: setting an
    /// input waits for running snapshots to be cancelled), then schedules diagnostics.
    fn change<F>(&self, f: F)
    where
        F: FnOnce(&mut State),
    {
        let apply = || {
            let mut st = self.state();
            f(&mut st);
            st.generation += 1;
            // A result shown in a lens may no longer hold.
            let shown = !st.run_results.is_empty();
            st.run_results.clear();
            shown && st.lens_refresh
        };
        let refresh_lenses = match tokio::runtime::Handle::try_current() {
            Ok(h) if h.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread => {
                tokio::task::block_in_place(apply)
            }
            _ => apply(),
        };
        if refresh_lenses {
            self.refresh_lenses();
        }
        let server = self.clone();
        let generation = self.state().generation;
        tokio::spawn(async move {
            // A burst of edits (typing, a paste, a client replaying changes) publishes once,
            // for its last version: a change that is overtaken within the pause publishes
            // nothing.
            tokio::time::sleep(PUBLISH_PAUSE).await;
            if server.state().generation == generation {
                server.publish_diagnostics().await;
            }
        });
    }

    /// Publishes the diagnostics of every open document in two phases (see Note
    /// [two-phase diagnostics]), unless a newer generation overtakes it.
    async fn publish_diagnostics(&self) {
        let (snap, docs, generation) = {
            let st = self.state();
            let docs: Vec<(Uri, PathBuf, i32)> = st
                .docs
                .iter()
                .map(|(uri, d)| (uri.clone(), d.path.clone(), d.version))
                .collect();
            let snap = Snapshot::new(st.db.clone(), st.uris.clone());
            (snap, docs, st.generation)
        };
        let Some(syntax) = compute(snap, docs.clone(), DiagKind::Syntax).await else {
            return;
        };
        let batch = {
            let st = self.state();
            merge(&syntax, |uri| {
                st.docs
                    .get(uri)
                    .map(|d| d.type_diags.clone())
                    .unwrap_or_default()
            })
        };
        if !self.send(generation, batch).await {
            return;
        }
        // Phase 2 on a fresh snapshot, taken only if nothing changed meanwhile (a newer
        // generation has its own task).
        let snap = {
            let st = self.state();
            if st.generation != generation {
                return;
            }
            Snapshot::new(st.db.clone(), st.uris.clone())
        };
        let Some(types) = compute(snap, docs, DiagKind::Types).await else {
            return;
        };
        let batch = {
            let mut st = self.state();
            if st.generation != generation {
                return;
            }
            st.checked_generation = generation;
            for (uri, _, diags) in &types {
                if let Some(doc) = st.docs.get_mut(uri) {
                    doc.type_diags.clone_from(diags);
                }
            }
            let types: HashMap<&Uri, &Vec<Diagnostic>> =
                types.iter().map(|(uri, _, d)| (uri, d)).collect();
            merge(&syntax, |uri| {
                types.get(uri).map(|d| (*d).clone()).unwrap_or_default()
            })
        };
        self.send(generation, batch).await;
    }

    /// Publishes a batch computed for `generation`, unless a newer generation already
    /// published; skips documents whose version and diagnostics were already sent.
    async fn send(&self, generation: u64, batch: Vec<(Uri, i32, Vec<Diagnostic>)>) -> bool {
        let _guard = self.inner.publish.lock().await;
        let mut to_send = Vec::new();
        {
            let mut st = self.state();
            // A newer edit (or an older batch already overtaken) supersedes this one: the
            // newer generation's own task publishes.
            if generation < st.published_generation || generation < st.generation {
                return false;
            }
            st.published_generation = generation;
            for (uri, version, diags) in batch {
                let entry = (version, diags);
                if !st.docs.contains_key(&uri) || st.published.get(&uri) == Some(&entry) {
                    continue;
                }
                st.published.insert(uri.clone(), entry.clone());
                to_send.push((uri, entry));
            }
        }
        for (uri, (version, diags)) in to_send {
            self.inner
                .client
                .publish_diagnostics(uri, diags, Some(version))
                .await;
        }
        true
    }

    /// Loads every `.fut` file under the workspace roots (bounded), so that references,
    /// rename and workspace symbols see files that are not open.
    fn load_workspace(&self) {
        let roots = self.state().roots.clone();
        let mut found = Vec::new();
        let mut budget = MAX_SCANNED_ENTRIES;
        for root in roots {
            scan(&root, &mut found, 0, &mut budget);
        }
        let texts: Vec<(PathBuf, String)> = found
            .into_iter()
            .filter_map(|p| Some((p.clone(), std::fs::read_to_string(&p).ok()?)))
            .collect();
        if texts.is_empty() {
            return;
        }
        self.change(|st| {
            for (path, text) in texts {
                if !st.docs.values().any(|d| d.path == path) {
                    st.db.set_file(&path, text);
                }
            }
        });
    }

    /// Asks the client to watch the workspace's `.fut` files and tell us of changes
    /// (`workspace/didChangeWatchedFiles`): editors such as Neovim watch only what a server
    /// registers. Not awaited: the client answers in its own time.
    fn register_watchers(&self) {
        let client = self.inner.client.clone();
        tokio::spawn(async move {
            let options = DidChangeWatchedFilesRegistrationOptions {
                watchers: vec![FileSystemWatcher {
                    glob_pattern: GlobPattern::String("**/*.fut".to_string()),
                    kind: None,
                }],
            };
            let registration = Registration {
                id: "futhark-watch-fut".to_string(),
                method: "workspace/didChangeWatchedFiles".to_string(),
                register_options: serde_json::to_value(options).ok(),
            };
            if let Err(e) = client.register_capability(vec![registration]).await {
                client
                    .log_message(
                        MessageType::WARNING,
                        format!("cannot register file watching: {e}"),
                    )
                    .await;
            }
        });
    }

    /// Asks the client to request code lenses again (not awaited: it answers in its own
    /// time).
    fn refresh_lenses(&self) {
        let client = self.inner.client.clone();
        tokio::spawn(async move { client.code_lens_refresh().await });
    }

    pub async fn show_ir(&self, params: Value) -> Result<Value> {
        self.run(move |s| handlers::show_view::handle(s, params, Which::Ir))
            .await
    }

    pub async fn show_cuda(&self, params: Value) -> Result<Value> {
        self.run(move |s| handlers::show_view::handle(s, params, Which::Cuda))
            .await
    }
}

#[derive(Clone, Copy)]
enum DiagKind {
    Syntax,
    Types,
}

type Computed = Vec<(Uri, i32, Vec<Diagnostic>)>;

/// Computes one kind of diagnostics for `docs` on a blocking thread; `None` if an edit
/// cancelled it (or it failed).
async fn compute(
    snap: Snapshot,
    docs: Vec<(Uri, PathBuf, i32)>,
    which: DiagKind,
) -> Option<Computed> {
    let task = tokio::task::spawn_blocking(move || {
        let res = std::panic::catch_unwind(AssertUnwindSafe(|| {
            docs.into_iter()
                .filter_map(|(uri, path, version)| {
                    let file = snap.db.load_file(&path)?;
                    let diags = match which {
                        DiagKind::Syntax => handlers::diagnostics::syntax(&snap, file),
                        DiagKind::Types => handlers::diagnostics::types(&snap, file),
                    };
                    Some((uri, version, diags))
                })
                .collect::<Vec<_>>()
        }));
        drop(snap);
        res
    });
    task.await.ok()?.ok()
}

/// Syntax diagnostics plus each document's type diagnostics, in position order.
fn merge(syntax: &Computed, types_of: impl Fn(&Uri) -> Vec<Diagnostic>) -> Computed {
    syntax
        .iter()
        .map(|(uri, version, diags)| {
            let mut all = diags.clone();
            all.extend(types_of(uri));
            all.sort_by_key(|d| (d.range.start, d.range.end));
            (uri.clone(), *version, all)
        })
        .collect()
}

fn panic_error(payload: Box<dyn std::any::Any + Send>) -> Error {
    if payload.is::<salsa::Cancelled>() {
        return Error::content_modified();
    }
    let what = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_string());
    Error {
        code: ErrorCode::InternalError,
        message: format!("internal error in futhark-lsp: {what}").into(),
        data: None,
    }
}

/// The most directory entries a workspace scan looks at (a workspace opened at `/` or at
/// a home directory must not stall the server).
const MAX_SCANNED_ENTRIES: usize = 200_000;

/// Collects `.fut` files below `dir`, skipping hidden directories and build outputs.
fn scan(dir: &Path, out: &mut Vec<PathBuf>, depth: u32, budget: &mut usize) {
    if depth > 32 || out.len() >= MAX_WORKSPACE_FILES || *budget == 0 {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let entries = entries.take(*budget);
    let mut entries: Vec<_> = entries.flatten().collect();
    *budget = budget.saturating_sub(entries.len());
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let Ok(ty) = entry.file_type() else { continue };
        if ty.is_dir() {
            let skip = name.starts_with('.') || name == "node_modules" || name == "target";
            if !skip {
                scan(&path, out, depth + 1, budget);
            }
        } else if ty.is_file() && name.ends_with(".fut") {
            out.push(path);
            if out.len() >= MAX_WORKSPACE_FILES {
                return;
            }
        }
    }
}

impl LanguageServer for Server {
    async fn initialize(&self, params: InitializeParams) -> Result<InitializeResult> {
        let mut roots: Vec<PathBuf> = params
            .workspace_folders
            .unwrap_or_default()
            .iter()
            .filter_map(|f| f.uri.to_file_path().map(|p| p.into_owned()))
            .collect();
        #[allow(deprecated)]
        if roots.is_empty()
            && let Some(path) = params.root_uri.as_ref().and_then(|u| u.to_file_path())
        {
            roots.push(path.into_owned());
        }
        let prelude_dir = tokio::task::spawn_blocking(materialize_prelude)
            .await
            .ok()
            .flatten();
        if !roots.is_empty() {
            self.inner.workspace_loaded.send_replace(false);
        }
        {
            let mut st = self.state();
            st.roots = roots;
            st.uris = Arc::new(UriMap::new(prelude_dir));
            st.config = Config::from_client(params.initialization_options.as_ref());
            st.lens_refresh = params
                .capabilities
                .workspace
                .as_ref()
                .and_then(|w| w.code_lens.as_ref()?.refresh_support)
                .unwrap_or(false);
            st.watch_registration = params
                .capabilities
                .workspace
                .as_ref()
                .and_then(|w| w.did_change_watched_files.as_ref()?.dynamic_registration)
                .unwrap_or(false);
        }
        Ok(InitializeResult {
            server_info: Some(ServerInfo {
                name: "futhark-lsp".to_string(),
                version: Some(env!("CARGO_PKG_VERSION").to_string()),
            }),
            capabilities: capabilities(),
            offset_encoding: None,
        })
    }

    async fn initialized(&self, _: InitializedParams) {
        if self.state().watch_registration {
            self.register_watchers();
        }
        let server = self.clone();
        let _ = tokio::task::spawn_blocking(move || server.load_workspace()).await;
        self.inner.workspace_loaded.send_replace(true);
    }

    async fn shutdown(&self) -> Result<()> {
        SHUTDOWN_REQUESTED.store(true, Ordering::SeqCst);
        Ok(())
    }

    async fn did_open(&self, params: DidOpenTextDocumentParams) {
        let doc = params.text_document;
        self.change(|st| {
            let mut uris = (*st.uris).clone();
            let path = uris.path_of_or_register(&doc.uri);
            st.uris = Arc::new(uris);
            st.db.set_file(&path, doc.text.clone());
            st.docs.insert(
                doc.uri,
                OpenDoc {
                    path,
                    version: doc.version,
                    text: doc.text,
                    type_diags: Vec::new(),
                },
            );
        });
    }

    async fn did_change(&self, params: DidChangeTextDocumentParams) {
        let uri = params.text_document.uri;
        self.change(|st| {
            let Some(doc) = st.docs.get_mut(&uri) else {
                return;
            };
            for change in &params.content_changes {
                shift_diagnostics(&mut doc.type_diags, &doc.text, change);
                apply_change(&mut doc.text, change);
            }
            doc.version = params.text_document.version;
            let (path, text) = (doc.path.clone(), doc.text.clone());
            st.db.set_file(&path, text);
        });
    }

    async fn did_close(&self, params: DidCloseTextDocumentParams) {
        let uri = params.text_document.uri;
        self.change(|st| {
            let Some(doc) = st.docs.remove(&uri) else {
                return;
            };
            st.published.remove(&uri);
            // The file on disk is what importers see from now on; a file deleted (or
            // never saved) while open leaves the database.
            match std::fs::read_to_string(&doc.path) {
                Ok(disk) if disk != doc.text => {
                    st.db.set_file(&doc.path, disk);
                }
                Ok(_) => {}
                Err(_) => {
                    st.db.remove_file(&doc.path);
                }
            }
        });
        self.inner
            .client
            .publish_diagnostics(uri, Vec::new(), None)
            .await;
    }

    async fn did_change_watched_files(&self, params: DidChangeWatchedFilesParams) {
        self.change(|st| {
            for change in params.changes {
                let Some(path) = st.uris.path_of(&change.uri) else {
                    continue;
                };
                if st.docs.contains_key(&change.uri) {
                    continue;
                }
                let Ok(text) = std::fs::read_to_string(&path) else {
                    // Deleted (or unreadable): importers now report the missing file.
                    st.db.remove_file(&path);
                    continue;
                };
                let known = st.db.load_file(&path);
                if known.is_none_or(|f| !f.exists(&st.db) || *f.text(&st.db) != text) {
                    st.db.set_file(&path, text);
                }
            }
        });
    }

    async fn document_highlight(
        &self,
        params: DocumentHighlightParams,
    ) -> Result<Option<Vec<DocumentHighlight>>> {
        self.run(move |s| handlers::document_highlight::handle(s, params))
            .await
    }

    async fn selection_range(
        &self,
        params: SelectionRangeParams,
    ) -> Result<Option<Vec<SelectionRange>>> {
        self.run(move |s| handlers::selection_range::handle(s, params))
            .await
    }

    async fn hover(&self, params: HoverParams) -> Result<Option<Hover>> {
        self.run(move |s| handlers::hover::handle(s, params)).await
    }

    async fn goto_definition(
        &self,
        params: GotoDefinitionParams,
    ) -> Result<Option<GotoDefinitionResponse>> {
        self.run(move |s| handlers::definition::handle(s, params))
            .await
    }

    async fn goto_type_definition(
        &self,
        params: request::GotoTypeDefinitionParams,
    ) -> Result<Option<request::GotoTypeDefinitionResponse>> {
        self.run(move |s| handlers::type_definition::handle(s, params))
            .await
    }

    async fn references(&self, params: ReferenceParams) -> Result<Option<Vec<Location>>> {
        self.workspace_ready().await;
        self.run(move |s| handlers::references::handle(s, params))
            .await
    }

    async fn prepare_rename(
        &self,
        params: TextDocumentPositionParams,
    ) -> Result<Option<PrepareRenameResponse>> {
        self.run(move |s| handlers::rename::prepare(s, params))
            .await
    }

    async fn rename(&self, params: RenameParams) -> Result<Option<WorkspaceEdit>> {
        self.workspace_ready().await;
        self.run(move |s| handlers::rename::handle(s, params)).await
    }

    async fn completion(&self, params: CompletionParams) -> Result<Option<CompletionResponse>> {
        // Import paths are completed from the files the workspace scan loads: a request
        // right after start-up (CI once saw an empty list under load) waits for the scan.
        self.workspace_ready().await;
        self.run(move |s| handlers::completion::handle(s, params))
            .await
    }

    async fn signature_help(&self, params: SignatureHelpParams) -> Result<Option<SignatureHelp>> {
        self.run(move |s| handlers::signature_help::handle(s, params))
            .await
    }

    async fn document_symbol(
        &self,
        params: DocumentSymbolParams,
    ) -> Result<Option<DocumentSymbolResponse>> {
        self.run(move |s| handlers::document_symbol::handle(s, params))
            .await
    }

    async fn symbol(
        &self,
        params: WorkspaceSymbolParams,
    ) -> Result<Option<WorkspaceSymbolResponse>> {
        self.workspace_ready().await;
        self.run(move |s| handlers::workspace_symbol::handle(s, params))
            .await
    }

    async fn semantic_tokens_full(
        &self,
        params: SemanticTokensParams,
    ) -> Result<Option<SemanticTokensResult>> {
        self.run(move |s| handlers::semantic_tokens::full(s, params))
            .await
    }

    async fn semantic_tokens_range(
        &self,
        params: SemanticTokensRangeParams,
    ) -> Result<Option<SemanticTokensRangeResult>> {
        self.run(move |s| handlers::semantic_tokens::range(s, params))
            .await
    }

    async fn folding_range(&self, params: FoldingRangeParams) -> Result<Option<Vec<FoldingRange>>> {
        self.run(move |s| handlers::folding_range::handle(s, params))
            .await
    }

    async fn formatting(&self, params: DocumentFormattingParams) -> Result<Option<Vec<TextEdit>>> {
        self.run(move |s| handlers::formatting::handle(s, params))
            .await
    }

    async fn code_action(&self, params: CodeActionParams) -> Result<Option<CodeActionResponse>> {
        self.workspace_ready().await;
        self.run(move |s| handlers::code_action::handle(s, params))
            .await
    }

    async fn inlay_hint(&self, params: InlayHintParams) -> Result<Option<Vec<InlayHint>>> {
        self.run(move |s| handlers::inlay_hint::handle(s, params))
            .await
    }

    async fn code_lens(&self, params: CodeLensParams) -> Result<Option<Vec<CodeLens>>> {
        let results = self
            .state()
            .run_results
            .get(&params.text_document.uri)
            .cloned()
            .unwrap_or_default();
        self.run(move |s| handlers::code_lens::handle(s, params, &results))
            .await
    }

    /// Runs a `-- >>>` example: the program is collected on a snapshot, then evaluated on
    /// its own thread with the time limit, holding no snapshot (edits go on meanwhile).
    async fn execute_command(&self, params: ExecuteCommandParams) -> Result<Option<LSPAny>> {
        // The example sees the whole workspace (its imports), and the scan's loading of
        // files would otherwise count as an edit made during the run, dropping its result
        // from the lens as stale.
        self.workspace_ready().await;
        let generation = self.state().generation;
        let (uri, job) = self
            .run(move |s| handlers::execute_command::prepare(s, params))
            .await?;
        let config = self.state().config.clone();
        let report = eval::run(job, config.run_timeout).await;
        let refresh = {
            let mut st = self.state();
            let current = st.generation == generation;
            if current {
                st.run_results
                    .entry(uri)
                    .or_default()
                    .insert(report.expr.clone(), report.headline());
            }
            current && st.lens_refresh
        };
        if refresh {
            self.refresh_lenses();
        }
        if config.run_show_message {
            let (kind, text) = if report.is_error() {
                (MessageType::WARNING, report.message())
            } else {
                (
                    MessageType::INFO,
                    format!("{} ⇒ {}", report.expr, report.headline()),
                )
            };
            self.inner.client.show_message(kind, text).await;
        }
        Ok(Some(report.to_json()))
    }
}

fn capabilities() -> ServerCapabilities {
    ServerCapabilities {
        position_encoding: Some(PositionEncodingKind::UTF16),
        text_document_sync: Some(TextDocumentSyncCapability::Options(
            TextDocumentSyncOptions {
                open_close: Some(true),
                change: Some(TextDocumentSyncKind::INCREMENTAL),
                ..TextDocumentSyncOptions::default()
            },
        )),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        definition_provider: Some(OneOf::Left(true)),
        type_definition_provider: Some(TypeDefinitionProviderCapability::Simple(true)),
        references_provider: Some(OneOf::Left(true)),
        document_highlight_provider: Some(OneOf::Left(true)),
        selection_range_provider: Some(SelectionRangeProviderCapability::Simple(true)),
        rename_provider: Some(OneOf::Right(RenameOptions {
            prepare_provider: Some(true),
            work_done_progress_options: WorkDoneProgressOptions::default(),
        })),
        completion_provider: Some(CompletionOptions {
            trigger_characters: Some(vec![".".to_string()]),
            ..CompletionOptions::default()
        }),
        signature_help_provider: Some(SignatureHelpOptions {
            trigger_characters: Some(vec![" ".to_string(), "(".to_string()]),
            retrigger_characters: None,
            work_done_progress_options: WorkDoneProgressOptions::default(),
        }),
        document_symbol_provider: Some(OneOf::Left(true)),
        workspace_symbol_provider: Some(OneOf::Left(true)),
        semantic_tokens_provider: Some(SemanticTokensServerCapabilities::SemanticTokensOptions(
            SemanticTokensOptions {
                legend: handlers::semantic_tokens::legend(),
                full: Some(SemanticTokensFullOptions::Bool(true)),
                range: Some(true),
                work_done_progress_options: WorkDoneProgressOptions::default(),
            },
        )),
        folding_range_provider: Some(FoldingRangeProviderCapability::Simple(true)),
        document_formatting_provider: Some(OneOf::Left(true)),
        inlay_hint_provider: Some(OneOf::Left(true)),
        code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
            code_action_kinds: Some(handlers::code_action::kinds()),
            resolve_provider: Some(false),
            work_done_progress_options: WorkDoneProgressOptions::default(),
        })),
        code_lens_provider: Some(CodeLensOptions {
            resolve_provider: Some(false),
        }),
        execute_command_provider: Some(ExecuteCommandOptions {
            commands: vec![handlers::code_lens::RUN_COMMAND.to_string()],
            work_done_progress_options: WorkDoneProgressOptions::default(),
        }),
        ..ServerCapabilities::default()
    }
}

// Note [two-phase diagnostics]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// Parsing a file takes milliseconds; type checking a large one can take far longer. So
// after each change the server publishes twice for the new version: first the fresh syntax
// diagnostics together with the type diagnostics of the previous check, moved through the
// edits the way an editor moves its markers (so existing squiggles neither vanish nor jump
// while the checker runs); then, once the check finishes, the fresh type diagnostics. A
// newer edit cancels the check (salsa) and starts over. While a check of the current text
// is outstanding, hover answers without types instead of waiting for it.
