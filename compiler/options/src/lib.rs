//! Options as values: the settings that change what the compiler produces or how a
//! compiled program runs, built once at a face's edge (command-line flags, REPL and
//! notebook commands, and the process environment, read by [`from_env`] alone) and handed
//! down to passes and the runtime as plain data. Nothing below a face reads the
//! environment, so every setting is visible to salsa (compile options are a database
//! input) and to tests.
//!
//! Module map: `types` (the option types and their defaults), `env` (the one function
//! that reads `FUTHARK_*` variables).

mod env;
mod types;

pub use env::{EnvError, from_env};
pub use types::{
    CompileOptions, CudaOptions, ExecOptions, FaceOptions, HistOptions, Options, Safety,
    SplitPolicy, TileTune,
};
