//! `futhark-rs bench`: times the entry points of programs on the datasets of their test
//! blocks: one warm-up run, then repeated runs; prints mean, median and a 95% confidence
//! interval per dataset and can write JSON in the shape of the reference `futhark bench`.
//!
//! Standard error shows the progress over all datasets ([`crate::progress`]): a bar with the
//! datasets timed and failed and an ETA on a terminal, whose spinner keeps turning while a
//! program compiles (NVRTC can take a while) or a dataset runs; plain lines elsewhere, the
//! last one when everything is done.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use clap::Args;
use futhark_db::Db;
use futhark_testspec::{RunMode, TestSpec};
use serde::Serialize;

use crate::engine::{LoadError, Program};
use crate::progress::{Cadence, Labels, Meter, ProgressKind};
use crate::run::Backend;
use crate::test::exec::case_inputs;

#[derive(Args)]
pub struct BenchArgs {
    /// Where to run the programs.
    #[arg(long, value_enum, default_value = "auto")]
    backend: Backend,
    /// Measured runs per dataset (after one warm-up run).
    #[arg(long, default_value_t = 10)]
    runs: usize,
    /// Stop repeating a dataset once its measured runs took this many seconds in total
    /// (at least one run is always measured).
    #[arg(long, default_value_t = 30.0)]
    budget: f64,
    /// Write the results as JSON (the reference `futhark bench --json` shape).
    #[arg(long)]
    json: Option<PathBuf>,
    /// Skip datasets and programs carrying this tag.
    #[arg(long)]
    exclude: Vec<String>,
    /// Time the program on the values in this data file (text or binary format) instead of
    /// the datasets of its test blocks.
    #[arg(long, value_name = "FILE")]
    input: Option<PathBuf>,
    /// Print per-kernel time, launches and bytes moved (over all runs) to standard error
    /// after each program (compiled backends).
    #[arg(long)]
    profile: bool,
    /// Leave out the run-time checks inside GPU kernels (bounds, division by zero,
    /// assertions), as Futhark's `--unsafe`: faster, and a program that fails a check gives
    /// undefined results instead of an error. The interpreter always checks.
    #[arg(long = "unsafe")]
    pub unsafe_checks: bool,
    /// The entry point to call with `--input`.
    #[arg(short = 'e', long, default_value = "main", requires = "input")]
    entry: String,
    /// Programs or directories.
    #[arg(required = true)]
    paths: Vec<PathBuf>,
}

/// One dataset's measurements, as the reference writes them.
#[derive(Serialize)]
struct DatasetResult {
    /// Run times in microseconds.
    runtimes: Vec<u64>,
    /// Peak memory by space; not measured by the interpreter.
    bytes: BTreeMap<String, u64>,
}

#[derive(Serialize, Default)]
struct EntryResult {
    datasets: BTreeMap<String, DatasetResult>,
}

/// Plain progress lines: every this many datasets (or [`Cadence::interval`]), and at the end.
const LINE_DATASETS: usize = 10;

/// Datasets timed and failed so far, and how that is shown.
struct Tally {
    meter: Meter,
    timed: usize,
    failed: usize,
}

impl Tally {
    /// Counts `n` datasets done, `failed` of them failed.
    fn done(&mut self, n: usize, failed: usize) {
        self.timed += n - failed;
        self.failed += failed;
        let text = format!("{} timed, {} failed", self.timed, self.failed);
        self.meter.advance(n, text);
    }

    /// Prints a line of results (standard output) or errors (standard error) under the bar.
    fn say(&self, line: String, error: bool) {
        self.meter.suspend(|| {
            if error {
                eprintln!("{line}");
            } else {
                println!("{line}");
            }
        });
    }
}

pub fn run(args: BenchArgs, mut options: futhark_options::Options) -> ExitCode {
    options.compile.safety = futhark_options::Safety::from_unsafe(args.unsafe_checks);
    let (paths, path_errors) = crate::paths::collect_fut_files(&args.paths);
    for err in &path_errors {
        eprintln!("error: cannot read {err}");
    }
    let mut run_mode = RunMode::bench("interpreter");
    run_mode.exclude.extend(args.exclude.iter().cloned());
    let mut results: BTreeMap<String, EntryResult> = BTreeMap::new();
    let mut failures = path_errors.len();
    let counts: Vec<usize> = paths
        .iter()
        .map(|p| datasets_of(&args, &run_mode, p))
        .collect();
    let cadence = Cadence {
        items: LINE_DATASETS,
        interval: Duration::from_secs(10),
        at_end: true,
    };
    let labels = Labels {
        command: "bench",
        unit: "datasets",
    };
    let mut tally = Tally {
        meter: Meter::start(ProgressKind::detect(), labels, cadence, counts.iter().sum()),
        timed: 0,
        failed: 0,
    };
    for (path, &count) in paths.iter().zip(&counts) {
        let before = (tally.timed, tally.failed);
        let failed = bench_file(&args, &options, &run_mode, path, &mut results, &mut tally);
        failures += failed;
        // A file that stopped early (it did not compile, say) counts its other datasets
        // as failed.
        let counted = tally.timed + tally.failed - before.0 - before.1;
        if counted < count {
            tally.done(count - counted, count - counted);
        }
    }
    tally.meter.finish();
    if let Some(json) = &args.json {
        let text = serde_json::to_string_pretty(&results).unwrap_or_default();
        if let Err(e) = std::fs::write(json, text) {
            eprintln!("error: cannot write {}: {e}", json.display());
            failures += 1;
        }
    }
    if failures > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// The number of datasets `path` will be timed on (1 for a file that cannot be read or
/// whose test block is malformed: its failure).
fn datasets_of(args: &BenchArgs, run_mode: &RunMode, path: &Path) -> usize {
    let Ok(text) = std::fs::read_to_string(path) else {
        return 1;
    };
    let Ok(spec) = TestSpec::parse(&text) else {
        return 1;
    };
    if spec.is_excluded(run_mode) {
        return 0;
    }
    if args.input.is_some() {
        return 1;
    }
    spec.runs()
        .filter(|(_, case)| !case.is_excluded(run_mode))
        .count()
}

/// Benchmarks every (entry, dataset) of one program, counting each in `tally`; returns the
/// number of failures.
fn bench_file(
    args: &BenchArgs,
    options: &futhark_options::Options,
    run_mode: &RunMode,
    path: &Path,
    results: &mut BTreeMap<String, EntryResult>,
    tally: &mut Tally,
) -> usize {
    let db = crate::engine::database(&options.compile);
    let Some(file) = db.load_file(path) else {
        tally.say(format!("error: cannot read {}", path.display()), true);
        return 1;
    };
    let spec = match TestSpec::parse(file.text(&db)) {
        Ok(spec) => spec,
        Err(e) => {
            tally.say(format!("{}: bad test block: {e}", path.display()), true);
            return 1;
        }
    };
    if spec.is_excluded(run_mode) {
        return 0;
    }
    let runs: Vec<_> = spec
        .runs()
        .filter(|(_, case)| !case.is_excluded(run_mode))
        .collect();
    if runs.is_empty() && args.input.is_none() {
        return 0;
    }
    tally
        .meter
        .set_message(format!("compiling {}", path.display()));
    // Not suspended: the spinner turns while the program compiles.
    let mut program = match crate::run::load(&db, file, args.backend, &options.exec) {
        Ok(program) => program,
        Err(LoadError::Compile(diags)) => {
            let errors: Vec<_> = diags.into_iter().filter(|d| d.is_error()).collect();
            let rendered = futhark_db::render::render_terminal(&db, &errors, false);
            let message = format!(
                "{}: does not compile\n{}",
                path.display(),
                rendered.trim_end()
            );
            tally.say(message, true);
            return 1;
        }
        Err(u @ (LoadError::Unavailable(_) | LoadError::NoDevice(_))) => {
            tally.say(format!("error: {u}"), true);
            return 1;
        }
    };
    program.set_profiling(args.profile);
    if let Some(input) = &args.input {
        let key = format!("{}:{}", path.display(), args.entry);
        let name = input.display().to_string();
        let inputs = match futhark_values::read_file(input) {
            Ok(v) => v,
            Err(e) => {
                tally.say(format!("{key} {name}: cannot read the input: {e}"), true);
                tally.done(1, 1);
                return 1;
            }
        };
        tally.meter.set_message(format!("running {key} {name}"));
        let timed = time_dataset(program.as_mut(), &args.entry, &inputs, args);
        if args.profile {
            tally
                .meter
                .suspend(|| crate::run::print_profile(program.as_mut()));
        }
        return match timed {
            Ok(runtimes) => {
                tally.say(format!("{key} {name}: {}", summary(&runtimes)), false);
                tally.done(1, 0);
                results.entry(key).or_default().datasets.insert(
                    name,
                    DatasetResult {
                        runtimes,
                        bytes: BTreeMap::new(),
                    },
                );
                0
            }
            Err(message) => {
                tally.say(format!("{key} {name}: failed: {message}"), true);
                tally.done(1, 1);
                1
            }
        };
    }
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut failures = 0;
    for (entry, case) in runs {
        let name = case.dataset_name();
        let key = format!("{}:{entry}", path.display());
        let inputs = match case_inputs(dir, &case.input) {
            Ok(inputs) => inputs,
            Err(e) => {
                tally.say(format!("{key} {name}: cannot read the input: {e}"), true);
                tally.done(1, 1);
                failures += 1;
                continue;
            }
        };
        tally.meter.set_message(format!("running {key} {name}"));
        match time_dataset(program.as_mut(), entry, &inputs, args) {
            Ok(runtimes) => {
                tally.say(format!("{key} {name}: {}", summary(&runtimes)), false);
                tally.done(1, 0);
                results.entry(key).or_default().datasets.insert(
                    name,
                    DatasetResult {
                        runtimes,
                        bytes: BTreeMap::new(),
                    },
                );
            }
            Err(message) => {
                tally.say(format!("{key} {name}: failed: {message}"), true);
                tally.done(1, 1);
                failures += 1;
            }
        }
    }
    failures
}

/// One warm-up run, then up to `args.runs` measured runs within `args.budget` seconds.
fn time_dataset(
    program: &mut dyn Program,
    entry: &str,
    inputs: &[futhark_values::Value],
    args: &BenchArgs,
) -> Result<Vec<u64>, String> {
    program
        .call(entry, inputs.to_vec())
        .map_err(|e| e.message)?;
    let budget = Duration::from_secs_f64(args.budget.max(0.0));
    let runs = args.runs.max(1);
    let times = program
        .time_calls(entry, inputs, &mut |times| {
            times.len() < runs && times.iter().sum::<Duration>() < budget
        })
        .map_err(|e| e.message)?;
    Ok(times
        .iter()
        .map(|t| t.as_micros().try_into().unwrap_or(u64::MAX))
        .collect())
}

/// `mean µs (±half-width of the 95% CI), median, runs`.
fn summary(runtimes: &[u64]) -> String {
    let stats = Stats::of(runtimes);
    format!(
        "{:.0}μs (95% CI: ±{:.0}μs; median {:.0}μs; {} runs)",
        stats.mean,
        stats.ci95,
        stats.median,
        runtimes.len()
    )
}

/// Mean, median and the half-width of a 95% confidence interval of the mean.
#[derive(Debug, PartialEq)]
struct Stats {
    mean: f64,
    median: f64,
    ci95: f64,
}

impl Stats {
    fn of(xs: &[u64]) -> Stats {
        let n = xs.len();
        if n == 0 {
            return Stats {
                mean: 0.0,
                median: 0.0,
                ci95: 0.0,
            };
        }
        let values: Vec<f64> = xs.iter().map(|&x| x as f64).collect();
        let mean = values.iter().sum::<f64>() / n as f64;
        let mut sorted = values.clone();
        sorted.sort_by(f64::total_cmp);
        let median = if n % 2 == 1 {
            sorted[n / 2]
        } else {
            (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
        };
        let ci95 = if n < 2 {
            0.0
        } else {
            let var = values.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
            student_t95(n - 1) * (var / n as f64).sqrt()
        };
        Stats { mean, median, ci95 }
    }
}

/// The two-sided 95% quantile of Student's t distribution with `dof` degrees of freedom.
fn student_t95(dof: usize) -> f64 {
    const TABLE: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
        2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
        2.052, 2.048, 2.045, 2.042,
    ];
    match dof {
        0 => f64::INFINITY,
        1..=30 => TABLE[dof - 1],
        _ => 1.96,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats_of_runs() {
        let s = Stats::of(&[10, 20, 30, 40]);
        assert_eq!(s.mean, 25.0);
        assert_eq!(s.median, 25.0);
        // sd = 12.91, se = 6.455, t(3) = 3.182
        assert!((s.ci95 - 20.54).abs() < 0.01, "{s:?}");
        assert_eq!(Stats::of(&[7]).ci95, 0.0);
        assert_eq!(Stats::of(&[]).mean, 0.0);
    }
}
