//! `futhark-rs fmt`: the layout formatter ([`futhark_syntax::format`]) over files, or from
//! standard input to standard output. It normalises line ends, trailing whitespace and blank
//! lines only; indentation and the spacing between tokens are kept.

use std::io::{self, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use futhark_syntax::format::format;

#[derive(Args)]
pub struct FmtArgs {
    /// Write nothing: list the files that are not formatted and exit with status 1 if any
    /// is (with no files, check standard input).
    #[arg(long)]
    check: bool,
    /// Files or directories (searched recursively for `.fut` files), formatted in place.
    /// With none, standard input is formatted to standard output.
    paths: Vec<PathBuf>,
}

pub fn run(args: FmtArgs) -> ExitCode {
    if args.paths.is_empty() {
        return stdin(args.check);
    }
    let (files, path_errors) = crate::paths::collect_fut_files(&args.paths);
    let mut failed = !path_errors.is_empty();
    for err in &path_errors {
        eprintln!("error: cannot read {err}");
    }
    let mut changed = 0;
    let stdout = io::stdout();
    let mut out = stdout.lock();
    for path in &files {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("error: cannot read {}: {e}", path.display());
                failed = true;
                continue;
            }
        };
        let formatted = format(&text);
        if formatted == text {
            continue;
        }
        changed += 1;
        if args.check {
            let _ = writeln!(out, "{}", path.display());
        } else if let Err(e) = std::fs::write(path, formatted) {
            eprintln!("error: cannot write {}: {e}", path.display());
            failed = true;
        }
    }
    let what = if args.check {
        "not formatted"
    } else {
        "reformatted"
    };
    let _ = writeln!(out, "{} files, {changed} {what}", files.len());
    if failed || (args.check && changed > 0) {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

fn stdin(check: bool) -> ExitCode {
    let mut text = String::new();
    if let Err(e) = io::stdin().read_to_string(&mut text) {
        eprintln!("error: cannot read standard input: {e}");
        return ExitCode::FAILURE;
    }
    let formatted = format(&text);
    if check {
        return if formatted == text {
            ExitCode::SUCCESS
        } else {
            eprintln!("standard input is not formatted");
            ExitCode::FAILURE
        };
    }
    match io::stdout().lock().write_all(formatted.as_bytes()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: cannot write standard output: {e}");
            ExitCode::FAILURE
        }
    }
}
