//! `futhark-jupyter`: a Jupyter kernel for Futhark over a [`futhark_session::Session`].
//!
//! - `futhark-jupyter install [--user | --sys-prefix | --prefix P]` writes the kernelspec
//!   (honouring `JUPYTER_DATA_DIR` for `--user`, the default) and the JupyterLab extension
//!   that highlights Futhark (`--no-lab-extension` leaves it out);
//! - `futhark-jupyter kernel --connection-file F` is what Jupyter starts;
//! - `futhark-jupyter run NOTEBOOK [--output F]` executes a notebook through the kernel's
//!   execute path and writes the outputs into it (for hosts without Jupyter).
//!
//! Module map: `install` (kernelspec), `kernel` (sockets and message loops), `actor` (the
//! thread that owns the session), `execute` (cells and magics to output messages),
//! `magics`, `history`, `logo`; pictures of values come from `futhark_session::picture`.

mod actor;
mod execute;
mod history;
mod install;
mod kernel;
mod logo;
mod magics;
mod nbrun;
mod wire;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use futhark_session::BackendChoice;

#[derive(Parser, Debug)]
#[command(
    name = "futhark-jupyter",
    version,
    about = "A Jupyter kernel for Futhark"
)]
struct Args {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Subcommand, Debug)]
enum Cmd {
    /// Install the kernelspec so Jupyter can start this kernel.
    Install(install::InstallArgs),
    /// Run the kernel (Jupyter does this, with a connection file).
    Kernel {
        /// The connection file Jupyter wrote.
        #[arg(long = "connection-file", short = 'f')]
        connection_file: PathBuf,
        /// Where cells run.
        #[arg(long, default_value = "auto", value_parser = parse_backend)]
        backend: BackendChoice,
        /// Use at most this many GPUs.
        #[arg(long)]
        gpus: Option<usize>,
    },
    /// Execute a notebook's code cells in order through the kernel's execute path and
    /// write their outputs into it (as `jupyter nbconvert --execute` would).
    Run {
        /// The notebook (.ipynb).
        notebook: PathBuf,
        /// Where to write the executed notebook (default: over the input).
        #[arg(long, short = 'o')]
        output: Option<PathBuf>,
        /// Where cells run.
        #[arg(long, default_value = "auto", value_parser = parse_backend)]
        backend: BackendChoice,
        /// Use at most this many GPUs.
        #[arg(long)]
        gpus: Option<usize>,
    },
}

fn parse_backend(s: &str) -> Result<BackendChoice, String> {
    s.parse()
        .map_err(|e: futhark_session::backend::UnknownBackend| e.to_string())
}

fn main() -> ExitCode {
    let args = Args::parse();
    let result = match args.command {
        Cmd::Install(a) => install::install(&a)
            .map(|done| {
                println!(
                    "Installed the Futhark kernelspec in {}",
                    done.kernelspec.display()
                );
                if let Some(ext) = done.lab_extension {
                    println!(
                        "Installed the JupyterLab extension (Futhark highlighting) in {}",
                        ext.display()
                    );
                }
            })
            .map_err(|e| e.to_string()),
        Cmd::Kernel {
            connection_file,
            backend,
            gpus,
        } => kernel::run(&connection_file, backend, gpus).map_err(|e| e.to_string()),
        Cmd::Run {
            notebook,
            output,
            backend,
            gpus,
        } => nbrun::run(&nbrun::RunArgs {
            notebook,
            output,
            options: futhark_session::Options {
                backend,
                gpus,
                // The environment, read once at the edge.
                base: futhark_options::from_env().0,
                ..Default::default()
            },
        })
        .map(|n| eprintln!("futhark-jupyter: ran {n} code cells"))
        .map_err(|e| e.to_string()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("futhark-jupyter: {e}");
            ExitCode::FAILURE
        }
    }
}
