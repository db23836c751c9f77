//! The `futhark-rs` command line: one subcommand per module, each a thin layer over the
//! compiler crates.

mod bench;
mod check;
mod cuda;
mod data;
mod dataset;
mod doc;
mod engine;
mod fmt;
mod ir;
mod literate;
mod paths;
mod pkg;
mod progress;
mod run;
#[cfg(test)]
mod safety_fuzz;
mod test;

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use futhark_options::SplitPolicy;

#[derive(Parser)]
#[command(
    name = "futhark-rs",
    version,
    about = "Futhark compiler toolchain in Rust"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// GPUs to use (default: `FUTHARK_GPUS`, else every visible GPU). With `--backend ir`
    /// or `--mode ir`, the number of simulated devices kernels are split over.
    #[arg(long, global = true, value_name = "N")]
    gpus: Option<usize>,
    /// When kernels are split over several GPUs: `auto` (the cost model decides),
    /// `always` (every kernel that can be) or `never`.
    #[arg(long, global = true, value_enum, value_name = "WHEN")]
    split: Option<Split>,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum Split {
    Auto,
    Always,
    Never,
}

#[derive(Subcommand)]
enum Command {
    /// Check programs for errors: syntax, imports and types.
    Check(check::CheckArgs),
    /// Normalise the layout of programs (line ends, trailing whitespace, blank lines).
    Fmt(fmt::FmtArgs),
    /// Run the test cases in programs' `-- ==` blocks (the conformance runner).
    Test(test::TestArgs),
    /// Test the programs named on standard input, one JSON request per line, printing one JSON
    /// line per case (the worker process of `test`).
    #[command(hide = true)]
    TestWorker(test::WorkerArgs),
    /// Generate random data (`-g TYPE`) or convert data between the text and binary formats.
    Dataset(dataset::DatasetArgs),
    /// Run an entry point on arguments read from standard input and print its results.
    Run(run::RunArgs),
    /// Time programs on the datasets of their test blocks.
    Bench(bench::BenchArgs),
    /// Print a program's IR at a stage of the compiler (or after a named pass).
    Ir(ir::IrArgs),
    /// Print the CUDA C generated for a program's kernels.
    Cuda(cuda::CudaArgs),
    /// Manage the packages a program requires (futhark.pkg, lib/).
    Pkg(pkg::PkgArgs),
    /// Write HTML documentation of programs and libraries from their doc comments.
    Doc(doc::DocArgs),
    /// Run a literate program's `-- >` directives and write it as Markdown with their results.
    Literate(literate::LiterateArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if cli.gpus == Some(0) {
        eprintln!("error: --gpus must be at least 1");
        return ExitCode::from(2);
    }
    // The options of this run: the environment's, then the flags on top; handed down as
    // values (and to `test`'s worker processes as flags).
    // A malformed FUTHARK_GPUS is reported where devices are opened (it is kept in the
    // options), so commands that open none are not stopped by it.
    let (mut options, _) = futhark_options::from_env();
    if let Some(n) = cli.gpus {
        options.exec.gpus = Some(n);
    }
    if let Some(split) = cli.split {
        options.exec.split = match split {
            Split::Auto => SplitPolicy::Auto,
            Split::Always => SplitPolicy::Always,
            Split::Never => SplitPolicy::Never,
        };
    }
    match cli.command {
        Command::Check(args) => check::run(args),
        Command::Fmt(args) => fmt::run(args),
        Command::Test(args) => test::run(args, &options),
        Command::TestWorker(args) => test::run_worker(args, options),
        Command::Dataset(args) => dataset::run(args),
        Command::Run(args) => run::run(args, options),
        Command::Bench(args) => bench::run(args, options),
        Command::Ir(args) => ir::run(args, &options),
        Command::Cuda(args) => cuda::run(args, options),
        Command::Pkg(args) => pkg::run(args),
        Command::Doc(args) => doc::run(args),
        Command::Literate(args) => literate::run(args, options),
    }
}
