//! `futhark-rs literate PROGRAM.fut`: literate Futhark as the reference tool does it. The
//! program's comments become Markdown text, its code goes in ```` ```futhark ```` blocks, and
//! each directive (`-- > e`, `-- > :img e`, …) is run and replaced by the directive and its
//! result; the Markdown goes to `PROGRAM.md` and pictures to `PROGRAM-img/`.
//!
//! Directives are evaluated by a [`futhark_session::Session`] with the program loaded (the
//! engine of the REPL and the notebook, on the interpreter unless `--backend` says
//! otherwise): each directive's expression is translated from FutharkScript to Futhark
//! ([`script`]) and evaluated as a cell in the program's scope, so every top-level name can
//! be used. Type and run-time errors are located in the program. A directive that fails is
//! shown as **FAILED** with its error (and the exit status is 1), or, with
//! `--stop-on-error`, stops the run before anything is written.
//!
//! Module map: `document` (blocks and directives), `script` (FutharkScript), `show` (values
//! as text), `directives` (running them and the Markdown of each).

mod directives;
mod document;
mod script;
mod show;

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use futhark_options::Options;
use futhark_session::{BackendChoice, Session};

use crate::run::Backend;
use directives::{Outcome, Runner};
use document::Block;

#[derive(Args)]
pub struct LiterateArgs {
    /// The literate program.
    program: PathBuf,
    /// Where to write the Markdown (default: the program with `.md` for `.fut`). Pictures go
    /// in the directory named like it with `-img` instead of the extension.
    #[arg(short = 'o', long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Stop at the first failing directive, without writing the Markdown.
    #[arg(long)]
    stop_on_error: bool,
    /// Where directives run: the interpreter (default), `cuda`, `ir` (the compiled path on
    /// the CPU) or `auto` (CUDA when possible).
    #[arg(long, value_enum, default_value_t = Backend::Interp)]
    backend: Backend,
    /// Say on standard error which directive runs, and show `#[trace]` output.
    #[arg(short = 'v', long)]
    verbose: bool,
}

/// A failure that stops `literate` before the Markdown is written.
#[derive(Debug, thiserror::Error)]
enum Fatal {
    #[error("cannot read {0}: {1}")]
    Read(PathBuf, std::io::Error),
    #[error("{0}")]
    Located(String),
    #[error("cannot write {0}: {1}")]
    Write(PathBuf, std::io::Error),
    /// Printed already.
    #[error("{0} has errors")]
    Program(String),
    /// A directive failed under `--stop-on-error` (printed already).
    #[error("stopped at the first failing directive (--stop-on-error); nothing was written")]
    Stopped,
}

pub fn run(args: LiterateArgs, options: Options) -> ExitCode {
    match literate(&args, options) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Where the outputs go: the Markdown file and the picture directory beside it.
struct Outputs {
    markdown: PathBuf,
    /// The picture directory, and its name as the Markdown refers to it.
    images: PathBuf,
    images_name: String,
}

fn outputs(args: &LiterateArgs) -> Result<Outputs, Fatal> {
    let absolute = |p: &Path| std::path::absolute(p).map_err(|e| Fatal::Read(p.to_path_buf(), e));
    let markdown = match &args.output {
        Some(o) => absolute(o)?,
        None => absolute(&args.program.with_extension("md"))?,
    };
    let stem = markdown
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "literate".to_string());
    let images_name = format!("{stem}-img");
    let images = markdown.with_file_name(&images_name);
    Ok(Outputs {
        markdown,
        images,
        images_name,
    })
}

/// Runs the program's directives and writes its Markdown; `Ok(false)` when a directive
/// failed.
fn literate(args: &LiterateArgs, options: Options) -> Result<bool, Fatal> {
    let text =
        std::fs::read_to_string(&args.program).map_err(|e| Fatal::Read(args.program.clone(), e))?;
    let out = outputs(args)?;
    // Directives see paths relative to the program, as in the reference; so do the
    // locations of errors.
    let file_name = args
        .program
        .file_name()
        .map(PathBuf::from)
        .ok_or_else(|| Fatal::Located(format!("{} is not a file", args.program.display())))?;
    let blocks = document::parse(&text).map_err(|e| {
        let (line, col) = futhark_syntax::LineIndex::new(&text).line_col(e.at as u32);
        Fatal::Located(format!(
            "{}:{line}:{col}: malformed directive: {}",
            args.program.display(),
            e.message
        ))
    })?;
    if let Some(dir) = args.program.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::env::set_current_dir(dir).map_err(|e| Fatal::Read(dir.to_path_buf(), e))?;
    }
    let color = std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let session_options = futhark_session::Options {
        backend: match args.backend {
            Backend::Interp => BackendChoice::Interp,
            Backend::Cuda => BackendChoice::Cuda,
            Backend::Ir => BackendChoice::Cpu,
            Backend::Auto => BackendChoice::Auto,
        },
        gpus: options.exec.gpus,
        base: options,
        ..Default::default()
    };
    let mut session = Session::new(session_options).map_err(|e| Fatal::Located(e.to_string()))?;
    if let Err(e) = session.load(&file_name) {
        eprintln!("{}", session.render_error(&e, color));
        return Err(Fatal::Program(args.program.display().to_string()));
    }
    let mut runner = Runner::new(
        &mut session,
        file_name.display().to_string(),
        &text,
        &out.images,
        &out.images_name,
        args.verbose,
    );
    let mut parts = Vec::new();
    let mut failed = false;
    for block in &blocks {
        parts.push(match block {
            Block::Code(code) if code.is_empty() => String::new(),
            Block::Code(code) => format!("```futhark\n{code}```\n"),
            Block::Comment(comment) => comment.clone(),
            Block::Directive(d) => match runner.run(d) {
                Outcome::Done(markdown) => markdown,
                Outcome::Failed { markdown, error } => {
                    let (line, col) = futhark_syntax::LineIndex::new(&text).line_col(d.at as u32);
                    eprintln!(
                        "{}:{line}:{col}: directive `{}` failed:\n{error}",
                        args.program.display(),
                        d.text.lines().next().unwrap_or_default()
                    );
                    if args.stop_on_error {
                        return Err(Fatal::Stopped);
                    }
                    failed = true;
                    markdown
                }
            },
        });
    }
    let written = runner.written();
    remove_stale(&out.images, &written);
    if let Some(dir) = out.markdown.parent() {
        std::fs::create_dir_all(dir).map_err(|e| Fatal::Write(dir.to_path_buf(), e))?;
    }
    std::fs::write(&out.markdown, parts.join("\n"))
        .map_err(|e| Fatal::Write(out.markdown.clone(), e))?;
    Ok(!failed)
}

/// Removes the files of the picture directory that this run did not write (pictures of
/// directives since changed or removed), and the directory when it is left empty.
fn remove_stale(dir: &Path, written: &[PathBuf]) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_file() && !written.contains(&path) {
            let _ = std::fs::remove_file(&path);
        }
    }
    let _ = std::fs::remove_dir(dir);
}
