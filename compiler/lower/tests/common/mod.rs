//! Shared by the integration tests: checking a program with `futhark-db` and lowering it.

#![allow(dead_code)]

use std::path::Path;

use futhark_db::{Database, File, check, check_context, import_graph, imports, parse};
use futhark_ir::soacs::Program;
use futhark_lower::{Lowered, SourceUnit, lower_program};
use futhark_syntax::{Diagnostic, Severity};

/// The program rooted at `root` checked and lowered; `Err` holds the checker's errors.
pub fn lower_file(db: &Database, root: File) -> Result<Lowered, Vec<Diagnostic>> {
    let order = import_graph(db, root).order.clone();
    let mut errors = Vec::new();
    let mut asts = Vec::new();
    let mut infos = Vec::new();
    let mut imps = Vec::new();
    let mut paths = Vec::new();
    let mut texts = Vec::new();
    for &f in &order {
        let parsed = parse(db, f);
        errors.extend(parsed.errors.iter().cloned());
        asts.push(parsed.file.clone());
        let checked = check(db, f).0.clone();
        errors.extend(
            checked
                .diagnostics
                .iter()
                .filter(|d| d.severity == Severity::Error)
                .cloned(),
        );
        infos.push(checked);
        imps.push(
            imports(db, f)
                .iter()
                .filter_map(|i| Some((i.written.clone(), i.target?.id(db))))
                .collect::<Vec<_>>(),
        );
        paths.push(f.path(db).display().to_string());
        texts.push(f.text(db).clone());
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let units: Vec<SourceUnit> = order
        .iter()
        .enumerate()
        .map(|(i, f)| SourceUnit {
            id: f.id(db),
            path: &paths[i],
            source: &texts[i],
            ast: &asts[i],
            info: &infos[i].info,
            imports: &imps[i],
        })
        .collect();
    Ok(lower_program(check_context(), &units, root.id(db)))
}

/// Checks and lowers one source text; panics with the diagnostics when either fails.
pub fn lower_src(src: &str) -> Program {
    match try_lower_src(src) {
        Ok(p) => p,
        Err(e) => panic!("{e}"),
    }
}

/// Checks and lowers one source text; the error is the diagnostics' messages.
pub fn try_lower_src(src: &str) -> Result<Program, String> {
    let mut db = Database::new();
    let file = db.set_file(Path::new("/test/main.fut"), src);
    let lowered = lower_file(&db, file).map_err(|ds| messages(&ds))?;
    lowered
        .program
        .ok_or_else(|| messages(&lowered.diagnostics))
}

pub fn messages(ds: &[Diagnostic]) -> String {
    ds.iter()
        .map(|d| format!("{}: {}", d.code, d.message))
        .collect::<Vec<_>>()
        .join("\n")
}
