//! The kernel IR of futhark-rs: segmented operations over device arrays.
//!
//! # Design
//!
//! This is the IR that the CUDA code generator consumes and that the (future) flattening pass
//! produces. It has two levels:
//!
//! * **Kernel bodies** (`exp.rs`) are a small first-order scalar language: typed constants,
//!   arithmetic, comparisons, conversions, math functions, `select`, `let`, mutable variables
//!   for loop accumulators, sequential `for` loops, `if`, and reads/writes of device arrays at
//!   computed `i64` flat indices. No functions, no tuples, no arrays as values: everything
//!   higher-order has been removed before this level, so each body maps one-to-one onto C.
//! * **Segmented operations** (`kernel.rs`) say what a kernel computes over a segment space
//!   (segment dimensions plus an inner dimension): `SegMap`, `SegRed`, `SegScan`, `SegHist`,
//!   `Scatter`. They say *what*, not *how*: block sizes, chunking, shared memory, atomics and
//!   which variant runs for which segment size are the code generator's and runtime's choice.
//!   Keeping the operations abstract is what lets one IR kernel become several CUDA kernels
//!   (e.g. thread-, warp- or block-per-segment reductions) picked at run time.
//!
//! Sizes are 64-bit run-time parameters (`Size::Param`), never baked into kernels, so one
//! compiled kernel serves every input size and, later, every split across G GPUs.
//! Arrays are named and declared once per `KernelProgram` with element type and shape;
//! tuple-valued reductions use one array per component (structure of arrays).
//!
//! A third level, the SOAC IR (`soacs`), sits above both: the first-order program of
//! maps, reductions, scans, histograms, scatters and loops that lowering produces and the
//! optimiser flattens into segmented operations.
//!
//! `printer.rs` gives the text form; `typecheck.rs` checks scoping, types, operator arities
//! and result shapes and should run after every pass that builds kernel IR.

pub mod exp;
pub mod husk;
pub mod intra;
pub mod kernel;
pub mod loc;
pub mod printer;
pub mod soacs;
pub mod typecheck;
pub mod types;

pub use exp::{
    BinOp, Body, Check, CmpOp, Exp, Lambda, MathFn, Name, Stm, UnOp, guarded_loop, without_checks,
};
pub use kernel::{
    ArrayDecl, Intra, Kernel, KernelProgram, Scatter, SegHist, SegMap, SegOp, SegRed, SegScan,
    SegSpace, Size,
};
pub use typecheck::{TypeError, check_program};
pub use types::{PrimType, PrimValue};

#[cfg(test)]
mod tests;
