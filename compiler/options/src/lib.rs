//! Options as values: the settings that change what the compiler produces or how a
//! compiled program runs, built once at a face's edge (command-line flags, REPL and
//! notebook commands, and the process environment, read by [`from_env`] alone) and handed
//! down to passes and the runtime as plain data. Nothing below a face reads the
//! environment, so every setting is visible to salsa (compile options are a database
//! input) and to tests.
//!
//! Module map: `types` (the option types and their defaults), `env` (the one function
//! that reads `FUTHARK_*` variables), `launch` (a distributed run's rank and rendezvous, from
//! the launcher's variables).

mod env;
mod launch;
mod types;

pub use env::{EnvError, from_env};
pub use launch::{DEFAULT_TIMEOUT, Launch, LaunchError, launch_from_env, launch_from_vars};
pub use types::{
    CompileOptions, CudaOptions, ExecOptions, FaceOptions, HistOptions, IntraBlock, Options,
    Safety, SplitPolicy, TileTune,
};
