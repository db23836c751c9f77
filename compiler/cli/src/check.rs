//! `futhark-rs check`: report every diagnostic of the given programs and a summary line.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use std::collections::HashSet;

use futhark_db::{Database, Db, parse, program_diagnostics, render};
use futhark_syntax::Diagnostic;

#[derive(Args)]
pub struct CheckArgs {
    /// Stop after parsing: report syntax errors only.
    #[arg(long)]
    parse_only: bool,
    /// Print one line per diagnostic instead of source excerpts.
    #[arg(long)]
    brief: bool,
    /// Files or directories (searched recursively for .fut files).
    #[arg(required = true)]
    paths: Vec<PathBuf>,
}

pub fn run(args: CheckArgs) -> ExitCode {
    let (paths, path_errors) = crate::paths::collect_fut_files(&args.paths);
    for err in &path_errors {
        eprintln!("error: cannot read {err}");
    }
    let color = std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let db = Database::new();
    let mut with_errors = 0;
    // A library imported by many of the given files is reported once.
    let mut reported = HashSet::new();
    for path in &paths {
        let Some(file) = db.load_file(path) else {
            eprintln!("error: cannot read {}", path.display());
            with_errors += 1;
            continue;
        };
        let diags: Vec<Diagnostic> = if args.parse_only {
            parse(&db, file).errors.clone()
        } else {
            let mut diags = Vec::new();
            for (dep, dep_diags) in program_diagnostics(&db, file) {
                if dep == file && dep_diags.iter().any(Diagnostic::is_error) {
                    with_errors += 1;
                }
                if reported.insert(dep) {
                    diags.extend(dep_diags);
                }
            }
            diags
        };
        if args.parse_only && diags.iter().any(Diagnostic::is_error) {
            with_errors += 1;
        }
        if args.brief {
            for d in &diags {
                eprintln!("{}", render::render_plain(&db, d));
            }
        } else if !diags.is_empty() {
            eprint!("{}", render::render_terminal(&db, &diags, color));
        }
    }
    let total = paths.len() + path_errors.len();
    with_errors += path_errors.len();
    println!("{total} files, {with_errors} with errors");
    if with_errors > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
