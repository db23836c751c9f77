//! `futhark-repl`: the terminal face of a [`futhark_session::Session`].
//!
//! `futhark-repl [FILE] [--gpus N] [--backend auto|interp|cuda|cpu]` reads cells with
//! rustyline (history, multi-line input, completion) or, when stdin is not a terminal, from
//! the pipe, printing the reference REPL's prompts so transcripts compare.

mod editor;
mod repl;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use futhark_session::BackendChoice;

/// Command-line arguments.
#[derive(Parser, Debug)]
#[command(
    name = "futhark-repl",
    version,
    about = "An interactive Futhark session"
)]
pub struct Args {
    /// A Futhark program to load first.
    pub file: Option<PathBuf>,
    /// Use at most this many GPUs (default: all visible).
    #[arg(long)]
    pub gpus: Option<usize>,
    /// Where cells run.
    #[arg(long, default_value = "auto", value_parser = parse_backend)]
    pub backend: BackendChoice,
    /// The history file (default: ~/.futhark-repl-history).
    #[arg(long)]
    pub history: Option<PathBuf>,
    /// Never colour diagnostics.
    #[arg(long)]
    pub no_color: bool,
}

fn parse_backend(s: &str) -> Result<BackendChoice, String> {
    s.parse()
        .map_err(|e: futhark_session::backend::UnknownBackend| e.to_string())
}

fn main() -> ExitCode {
    let args = Args::parse();
    match repl::run(args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("futhark-repl: {e}");
            ExitCode::FAILURE
        }
    }
}
