//! The SOAC IR: the first-order, monomorphic program that lowering produces and the
//! optimiser rewrites, before kernel extraction turns its parallel parts into the kernel
//! IR of [`crate::kernel`].
//!
//! # Design
//!
//! * **Values are primitives or regular arrays of primitives.** Records and tuples have
//!   become several variables, sum types a tag plus payload variables, and function values
//!   are gone (higher-order functions were specialised away). A type is a primitive type
//!   with a shape; every dimension is an `i64` atom in scope ([`SubExp`]), so shapes are
//!   symbolic and exact. Results whose size is only known at run time (a loop whose array
//!   grows, a branch whose arms differ, a function with an existential result) have
//!   *existential* dimensions ([`ExtSize::Ext`]); the statement binding them names the sizes
//!   in its pattern (`let [d] (ys: [d]f32) = ...`).
//! * **A-normal form.** Statements bind the results of one expression whose operands are
//!   atoms. There is no shadowing: each name is bound once in a function, which keeps
//!   substitution, free variables and renaming simple (see `traverse.rs`).
//! * **SOACs carry lambdas.** `map`, redomap ([`Soac::Reduce`]), scanomap, histogram and
//!   scatter each apply a map lambda to the rows of their inputs; the reductions also take
//!   an associative operator and neutral elements. Fusion composes lambdas rather than
//!   introducing new constructs, so the forms stay few.
//! * **In-place updates consume.** `Update`, `Hist` and `Scatter` consume their array
//!   operands; the checker rejects later uses, which is what lets the CUDA backend update
//!   buffers without copies.
//! * **Host programs are the same IR.** Kernel extraction replaces SOACs by
//!   [`Exp::Launch`] of kernel programs kept in [`Program::kernels`]; what remains (scalar
//!   code, loops around kernels, index and update of host arrays) is what the runtime
//!   interprets.
//!
//! `print.rs` gives the text form; `check.rs` the type checker every pass runs after itself
//! in tests; `traverse.rs` free variables, substitution and fresh names.

pub mod check;
pub mod copies;
pub mod message;
pub mod ops;
pub mod print;
pub mod syntax;
pub mod traverse;

pub use check::{CheckError, check_fun, check_program};
pub use copies::insert_copies;
pub use ops::{BinOp, CmpOp, ConvOp, MathFn, UnOp};
pub use syntax::*;
pub use traverse::{
    NameSource, Rewriter, binder_types, binders_in_body, body_types, free_in_body, free_in_exp,
    free_in_lambda, renamed_body, renamed_lambda, uses_in_exp,
};

#[cfg(test)]
mod tests;
