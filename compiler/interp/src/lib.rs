//! The reference interpreter of futhark-rs.
//!
//! A [`Program`] (parsed files plus the type checker's [`TypeHints`]) is loaded into a
//! [`Session`]: declarations are lowered to an internal form with names resolved (see
//! `lower`) and evaluated in order. Entry points are then run with data values
//! ([`futhark_values::Value`]) in and out. [`Interpreter`] wraps a session in a worker thread
//! with a large stack, so it can be used from any thread, interrupted, and given time limits.
//!
//! **Invariant:** no program or input makes the interpreter panic: run-time failures are
//! [`RuntimeError`] values, deep recursion is caught by measuring the native stack, and
//! evaluation stops when the interrupt flag is raised.

pub mod ad;
pub mod array;
pub mod array_ops;
pub mod checked;
pub mod convert;
pub mod errors;
pub mod eval;
pub mod intrinsics;
pub mod ir;
pub mod kernels;
pub mod lower;
pub mod overloaded;
pub mod prim;
pub mod prim_fns;
pub mod prim_ops;
pub mod program;
pub mod rows;
pub mod session;
pub mod show;
pub mod soacs;
pub mod value;
pub mod vector;

mod worker;

pub use errors::RuntimeError;
pub use program::{Program, SourceMap, SourceUnit, TypeHints};
pub use session::Session;
pub use worker::{Interpreter, STACK_SIZE};
