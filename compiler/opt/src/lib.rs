//! The optimiser: named passes over the SOAC IR, and kernel extraction to the kernel IR.
//!
//! A pass is a pure function from a program to a program ([`Pass`]); a pipeline is a list
//! of passes, each with a one-line reason ([`pipeline`]). [`run_pipeline`] runs the IR
//! checker after every pass when asked (tests and debug builds do), so a pass that breaks
//! the IR is reported by name with the checker's message.
//!
//! | pass | what |
//! |---|---|
//! | `simplify` | constant folding, copy propagation, branch folding, dead code removal |
//! | `cse` | common subexpression elimination (scalar results only: arrays may be consumed) |
//! | `inline` | inlines every non-recursive function into its callers |
//! | `fuse` | vertical (map into map/redomap/scanomap/hist/scatter) and horizontal map fusion |
//! | `distribute` | splits a map whose lambda computes several SOACs into one map per SOAC |
//! | `extract-kernels` | SOACs and regular map nests to segmented operations; host code stays |
//! | `promote-loops` | per-thread loops of map kernels become a kernel dimension (`CompileOptions::promote_loops`) |
//! | `forward-scratch` | reads of a point's own scratch writes become the values, arrays nothing reads go, writes at the flat index become map outputs |
//! | `fuse-intra` | adjacent kernels over the same rows that pass arrays row by row become one program that may run with a block per row (`CompileOptions::intra_block`) |
//! | `strip-checks` | drops the run-time checks inside kernels (`Safety::Unchecked`, `--unsafe`) |
//!
//! [`pipeline_for`] is the pipeline a set of [`CompileOptions`] asks for; [`pipeline`] is
//! the one of the defaults.
//!
//! Every pass name can be asked for with [`pipeline_until`], which gives the pipeline up
//! to that pass (the IR views of the CLI and the LSP show the program at any stage).
//!
//! **Invariant:** every pass maps a program that passes [`futhark_ir::soacs::check_program`]
//! to one that does.

mod cse;
mod distribute;
mod fusion;
mod inline;
mod interchange;
pub mod kernels;
mod simplify;
mod util;

use futhark_ir::soacs::{Program, check_program};

pub use cse::cse;
pub use distribute::distribute;
pub use fusion::fuse;
pub use futhark_options::{CompileOptions, IntraBlock, Safety};
pub use inline::inline;
pub use kernels::intra::{fuse_intra, fuse_intra_every};
pub use kernels::promote::promote_loops;
pub use kernels::{extract_kernels, strip_checks};
pub use kernels::{forward_scratch, promote_program_loops};
pub use simplify::simplify;

/// Why a pass failed: a construct it cannot handle (reported to the user) or a program it
/// made invalid (a bug).
#[derive(Clone, Debug, PartialEq)]
pub struct PassError {
    pub pass: &'static str,
    pub message: String,
    /// True when the program uses something the GPU path does not support yet.
    pub unsupported: bool,
}

impl std::fmt::Display for PassError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.unsupported {
            write!(f, "not supported by the GPU path yet: {}", self.message)
        } else {
            write!(f, "pass `{}` failed: {}", self.pass, self.message)
        }
    }
}

/// A named pass.
#[derive(Clone, Copy)]
pub struct Pass {
    pub name: &'static str,
    /// Why the pass is where it is in the pipeline.
    pub reason: &'static str,
    pub run: fn(Program) -> Result<Program, PassError>,
}

impl std::fmt::Debug for Pass {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Pass({})", self.name)
    }
}

/// The standard pipeline from lowered SOAC IR to a host program with kernels, with the
/// default options.
pub fn pipeline() -> Vec<Pass> {
    pipeline_for(&CompileOptions::default())
}

/// The pipeline `options` ask for: without loop promotion when it is off, and with the
/// kernels' run-time checks dropped at the end for [`Safety::Unchecked`].
pub fn pipeline_for(options: &CompileOptions) -> Vec<Pass> {
    let mut passes = all_passes();
    if !options.promote_loops {
        passes.retain(|p| p.name != "promote-loops");
    }
    match options.intra_block {
        IntraBlock::Off => passes.retain(|p| p.name != "fuse-intra"),
        IntraBlock::Runs => {}
        IntraBlock::Every => {
            for p in passes.iter_mut().filter(|p| p.name == "fuse-intra") {
                p.reason =
                    "every kernel over rows may run with a block per row (`FUTHARK_INTRA=all`)";
                p.run = |p| Ok(fuse_intra_every(p));
            }
        }
    }
    if options.safety == Safety::Unchecked {
        passes.push(Pass {
            name: "strip-checks",
            reason: "`--unsafe`: the program is trusted not to fail its checks",
            run: |p| Ok(strip_checks(p)),
        });
    }
    passes
}

/// Every pass of the standard pipeline, in order.
fn all_passes() -> Vec<Pass> {
    vec![
        Pass {
            name: "simplify",
            reason: "lowering leaves copies, constant sizes and dead placeholder values",
            run: |p| Ok(simplify(p)),
        },
        Pass {
            name: "inline",
            reason: "fusion and kernel extraction only see SOACs in the same body",
            run: |p| Ok(inline(p)),
        },
        Pass {
            name: "simplify",
            reason: "inlined arguments are often constants or copies",
            run: |p| Ok(simplify(p)),
        },
        Pass {
            name: "cse",
            reason: "inlining duplicates size and index computations",
            run: |p| Ok(cse(p)),
        },
        Pass {
            name: "fuse",
            reason: "one kernel instead of a kernel and an intermediate array",
            run: |p| Ok(fuse(p)),
        },
        Pass {
            name: "simplify",
            reason: "fusion leaves identity lambdas and unused arrays",
            run: |p| Ok(simplify(p)),
        },
        Pass {
            name: "distribute",
            reason: "a map of several SOACs becomes perfect nests that flatten to kernels",
            run: |p| Ok(distribute(p)),
        },
        Pass {
            name: "extract-kernels",
            reason: "the GPU runs segmented operations; the rest is host code",
            run: extract_kernels,
        },
        Pass {
            name: "promote-loops",
            reason: "a map kernel whose threads each loop has too few threads to fill a GPU",
            run: |mut p| {
                promote_program_loops(&mut p);
                Ok(p)
            },
        },
        Pass {
            name: "forward-scratch",
            reason: "promoted loops read back what the same point wrote to scratch rows",
            run: |p| Ok(forward_scratch(p)),
        },
        Pass {
            name: "simplify",
            reason: "arrays that only fed kernels (iotas, replicates) are now dead",
            run: |p| Ok(simplify(p)),
        },
        Pass {
            name: "fuse-intra",
            reason: "kernels passing rows to each other can share a block per row",
            run: |p| Ok(fuse_intra(p)),
        },
    ]
}

/// The standard pipeline up to and including the first pass called `name` (what
/// `futhark-rs ir --pass NAME` shows), or `None` for an unknown name.
pub fn pipeline_until(name: &str, options: &CompileOptions) -> Option<Vec<Pass>> {
    let all = pipeline_for(options);
    let n = all.iter().position(|p| p.name == name)?;
    Some(all.into_iter().take(n + 1).collect())
}

/// The passes up to (not including) kernel extraction: the optimised SOAC program.
pub fn soac_pipeline() -> Vec<Pass> {
    pipeline()
        .into_iter()
        .take_while(|p| p.name != "extract-kernels")
        .collect()
}

/// Runs passes in order; with `check`, the IR checker runs after each.
pub fn run_pipeline(mut prog: Program, passes: &[Pass], check: bool) -> Result<Program, PassError> {
    for pass in passes {
        prog = (pass.run)(prog)?;
        if check && let Err(e) = check_program(&prog) {
            return Err(PassError {
                pass: pass.name,
                message: format!("produced invalid IR: {e}"),
                unsupported: false,
            });
        }
    }
    Ok(prog)
}

/// Runs the standard pipeline, checking after each pass in debug builds.
pub fn optimise(prog: Program) -> Result<Program, PassError> {
    run_pipeline(prog, &pipeline(), cfg!(debug_assertions))
}
