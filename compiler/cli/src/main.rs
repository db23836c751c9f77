//! The `futhark-rs` command line: one subcommand per module, each a thin layer over the
//! compiler crates.

mod check;
mod paths;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(name = "futhark-rs", version, about = "Futhark compiler toolchain in Rust")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check programs for errors: parse, resolve imports (type checking lands with the checker).
    Check(check::CheckArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Check(args) => check::run(args),
    }
}
