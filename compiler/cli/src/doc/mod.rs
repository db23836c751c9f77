//! `futhark-rs doc`: HTML documentation of programs and libraries from their doc comments
//! (`-- |`). One page per file — its own doc comment, then every name it exports (not
//! `local` ones) with its signature as written and its documentation, modules and module
//! types with their members — and an `index.html` listing the files and every documented
//! name. Files must type-check (as for the reference tool); errors are reported and nothing
//! is written.

mod markdown;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Component, Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use futhark_db::{Database, Db, File, program_diagnostics, render};
use futhark_ide::{Def, DefKind, FileIndex, file_index};

use markdown::{escape, plain, to_html};

#[derive(Args)]
pub struct DocArgs {
    /// Where to write the HTML (made if missing).
    #[arg(short, long, default_value = "doc")]
    output: PathBuf,
    /// Files or directories (searched recursively for .fut files).
    #[arg(required = true)]
    paths: Vec<PathBuf>,
}

pub fn run(args: DocArgs) -> ExitCode {
    let (paths, path_errors) = crate::paths::collect_fut_files(&args.paths);
    for err in &path_errors {
        eprintln!("error: cannot read {err}");
    }
    let db = Database::new();
    let mut files = Vec::new();
    let mut failed = !path_errors.is_empty();
    for path in &paths {
        let Some(file) = db.load_file(path) else {
            eprintln!("error: cannot read {}", path.display());
            failed = true;
            continue;
        };
        let errors: Vec<_> = program_diagnostics(&db, file)
            .into_iter()
            .filter(|(dep, _)| *dep == file)
            .flat_map(|(_, ds)| ds)
            .filter(|d| d.is_error())
            .collect();
        if !errors.is_empty() {
            eprint!("{}", render::render_terminal(&db, &errors, false));
            failed = true;
            continue;
        }
        files.push((path.clone(), file));
    }
    if failed {
        eprintln!("error: no documentation written (fix the errors above first)");
        return ExitCode::FAILURE;
    }
    match write_all(&db, &files, &args.output) {
        Ok(n) => {
            println!(
                "Wrote documentation of {n} files to {}.",
                args.output.display()
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The page of a source file, relative to the output folder: its path with `.html` for
/// `.fut`, parent steps and the root dropped (so every page lands inside the folder).
fn page_of(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        if let Component::Normal(s) = c {
            out.push(s);
        }
    }
    out.set_extension("html");
    out
}

/// `../` once per folder between a page and the output root.
fn to_root(page: &Path) -> String {
    "../".repeat(page.components().count().saturating_sub(1))
}

struct Entry {
    name: String,
    kind: &'static str,
    page: PathBuf,
    anchor: String,
    summary: String,
}

fn write_all(db: &dyn Db, files: &[(PathBuf, File)], out: &Path) -> Result<usize, String> {
    std::fs::create_dir_all(out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let mut entries: Vec<Entry> = Vec::new();
    let mut listed: Vec<(PathBuf, String, String)> = Vec::new();
    for (path, file) in files {
        let page = page_of(path);
        let index = file_index(db, *file);
        let parsed = futhark_db::parse(db, *file);
        let file_doc = parsed.file.doc.as_ref().map(|d| d.text.clone());
        let shown = documented(index, *file);
        let mut body = String::new();
        let title = path.display().to_string();
        let _ = writeln!(body, "<h1><code>{}</code></h1>", escape(&title));
        if let Some(d) = &file_doc {
            body.push_str(&to_html(d));
        }
        for id in &shown.top {
            section(db, index, *id, &shown, &mut body, &page, &mut entries, 2);
        }
        let root = to_root(&page);
        let html = page_html(&title, &root, &body);
        let dest = out.join(&page);
        if let Some(dir) = dest.parent() {
            std::fs::create_dir_all(dir)
                .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        }
        std::fs::write(&dest, html).map_err(|e| format!("cannot write {}: {e}", dest.display()))?;
        listed.push((
            page,
            title,
            file_doc.as_deref().map(first_sentence).unwrap_or_default(),
        ));
    }
    entries.sort_by(|a, b| a.name.cmp(&b.name).then(a.page.cmp(&b.page)));
    let mut body = String::from("<h1>Documentation</h1>\n<h2>Files</h2>\n<dl>\n");
    for (page, title, summary) in &listed {
        let _ = writeln!(
            body,
            "<dt><a href=\"{}\"><code>{}</code></a></dt><dd>{}</dd>",
            escape(&page.to_string_lossy()),
            escape(title),
            escape(summary)
        );
    }
    body.push_str("</dl>\n<h2>Names</h2>\n<dl>\n");
    for e in &entries {
        let _ = writeln!(
            body,
            "<dt><a href=\"{}#{}\"><code>{}</code></a> <span class=\"kind\">{}</span></dt><dd>{}</dd>",
            escape(&e.page.to_string_lossy()),
            escape(&e.anchor),
            escape(&e.name),
            e.kind,
            escape(&e.summary)
        );
    }
    body.push_str("</dl>\n");
    let index = out.join("index.html");
    std::fs::write(&index, page_html("Documentation", "", &body))
        .map_err(|e| format!("cannot write {}: {e}", index.display()))?;
    Ok(files.len())
}

/// What a page shows: the file's exported definitions (in source order) and, for modules
/// and module types, their members.
struct Shown {
    top: Vec<usize>,
    members: BTreeMap<usize, Vec<usize>>,
}

fn documented(index: &FileIndex, file: File) -> Shown {
    let ex = &index.exports;
    let mut top: Vec<usize> = ex
        .vals
        .values()
        .chain(ex.types.values())
        .copied()
        .chain(ex.mods.values().filter_map(|m| m.def))
        .chain(ex.mtys.values().filter_map(|m| m.def))
        .filter(|loc| loc.file == file)
        .map(|loc| loc.id.0 as usize)
        .collect();
    top.sort_by_key(|&i| index.defs[i].full_span.start);
    top.dedup();
    let mut members: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (i, d) in index.defs.iter().enumerate() {
        if let Some(c) = d.container
            && is_documentable(d.kind)
        {
            members.entry(c.0 as usize).or_default().push(i);
        }
    }
    for v in members.values_mut() {
        v.sort_by_key(|&i| index.defs[i].full_span.start);
    }
    Shown { top, members }
}

fn is_documentable(k: DefKind) -> bool {
    matches!(
        k,
        DefKind::Function
            | DefKind::Value
            | DefKind::Entry
            | DefKind::Type
            | DefKind::Module
            | DefKind::Functor
            | DefKind::ModuleType
    )
}

fn kind_name(k: DefKind) -> &'static str {
    match k {
        DefKind::Function => "function",
        DefKind::Value => "value",
        DefKind::Entry => "entry point",
        DefKind::Type => "type",
        DefKind::Module => "module",
        DefKind::Functor => "parametric module",
        DefKind::ModuleType => "module type",
        _ => "name",
    }
}

#[allow(clippy::too_many_arguments)]
fn section(
    db: &dyn Db,
    index: &FileIndex,
    id: usize,
    shown: &Shown,
    body: &mut String,
    page: &Path,
    entries: &mut Vec<Entry>,
    depth: usize,
) {
    let d: &Def = &index.defs[id];
    if !is_documentable(d.kind) {
        return;
    }
    let anchor = anchor_of(index, id);
    let h = depth.min(6);
    let _ = writeln!(
        body,
        "<div class=\"def\" id=\"{}\"><h{h}><code>{}</code> <span class=\"kind\">{}</span></h{h}>",
        escape(&anchor),
        escape(&d.name),
        kind_name(d.kind)
    );
    let _ = writeln!(body, "<pre><code>{}</code></pre>", escape(&d.signature));
    // A member of a sealed module without its own doc comment: the spec's documents it.
    let doc = d.doc.clone().or_else(|| {
        d.spec.and_then(|loc| {
            file_index(db, loc.file)
                .def(loc.id)
                .and_then(|s| s.doc.clone())
        })
    });
    if let Some(doc) = &doc {
        body.push_str(&to_html(doc));
    }
    entries.push(Entry {
        name: qualified(index, id),
        kind: kind_name(d.kind),
        page: page.to_path_buf(),
        anchor,
        summary: doc.as_deref().map(first_sentence).unwrap_or_default(),
    });
    if let Some(ms) = shown.members.get(&id) {
        for &m in ms {
            section(db, index, m, shown, body, page, entries, depth + 1);
        }
    }
    body.push_str("</div>\n");
}

/// `M.N.name` through the enclosing modules.
fn qualified(index: &FileIndex, id: usize) -> String {
    let mut parts = vec![index.defs[id].name.clone()];
    let mut cur = index.defs[id].container;
    while let Some(c) = cur {
        parts.push(index.defs[c.0 as usize].name.clone());
        cur = index.defs[c.0 as usize].container;
    }
    parts.reverse();
    parts.join(".")
}

/// A page-unique anchor: the qualified name, and the definition's index when a name is
/// defined twice (a value and a type of the same name).
fn anchor_of(index: &FileIndex, id: usize) -> String {
    let q = qualified(index, id);
    let clash =
        index.defs.iter().enumerate().any(|(j, _)| {
            j != id && is_documentable(index.defs[j].kind) && qualified(index, j) == q
        });
    if clash { format!("{q}-{id}") } else { q }
}

/// The first sentence of a doc comment's first paragraph, without markup.
fn first_sentence(doc: &str) -> String {
    let para = plain(doc.split("\n\n").next().unwrap_or("")).replace('\n', " ");
    match para.find(". ") {
        Some(i) => para[..=i].trim().to_string(),
        None => para.trim().to_string(),
    }
}

fn page_html(title: &str, root: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{}</title>\n<style>\nbody {{ font-family: sans-serif; max-width: 56em; margin: 2em auto; line-height: 1.45; }}\npre {{ background: #f4f4f4; padding: 0.5em; overflow-x: auto; }}\n.kind {{ color: #777; font-size: 0.8em; font-weight: normal; }}\n.def {{ border-top: 1px solid #ddd; margin-top: 1em; }}\n.def .def {{ margin-left: 1.5em; }}\n</style>\n</head>\n<body>\n<p><a href=\"{root}index.html\">Index</a></p>\n{body}</body>\n</html>\n",
        escape(title)
    )
}
