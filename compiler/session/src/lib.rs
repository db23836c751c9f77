//! An incremental evaluation session shared by `futhark-repl` and the Jupyter kernel.
//!
//! A [`Session`] takes cells: declarations persist and later cells see them (a redefinition
//! replaces the old binding), an expression's value is shown and bound to `it`, and
//! `let x = …` at top level binds `x`. Each cell is parsed and type-checked against the
//! session's scope before it runs on the interpreter's thread; any error leaves the session
//! as it was. A cell reports its value ([`ValueView`], with text abbreviated for large
//! arrays), its type, its timing and the device it ran on.
//!
//! **Invariant:** nothing here panics on user input: bad text, bad commands and failing
//! programs come back as a [`CellError`] with diagnostics; even a panic inside the
//! interpreter is caught on its thread and reported.
//!
//! Module map: `engine` (the session), `worker` (the interpreter's thread), `program`
//! (building what the interpreter loads), `spans` (mapping its locations back), `value` and
//! `format` (results as data and text), `html` (results as HTML), `complete` and `inspect`
//! (completion, multi-line input, documentation), `commands` (`:load`, `:type`, …),
//! `backend` (where cells run), `compiled` (cells compiled to kernels and run on CUDA or
//! the CPU executor, results kept resident between cells) and `picture` (images and plots
//! of values as PNG, for the notebook and `futhark-rs literate`).

pub mod backend;
mod cell_errors;
mod cell_program;
pub mod commands;
pub mod compiled;
pub mod complete;
mod engine;
pub mod format;
pub mod html;
pub mod inspect;
pub mod outcome;
pub mod picture;
mod program;
mod spans;
pub mod value;
mod worker;

pub use backend::{BackendChoice, Device, Placement};
pub use commands::{Command, CommandOutput};
pub use complete::{Candidate, CandidateKind, Completeness, Completions};
pub use engine::{Interrupter, LoadReport, Options, Session};
pub use format::{FormatOptions, Formatted};
pub use inspect::{NameInfo, NameKind};
pub use outcome::{
    CellError, CellOutcome, ErrorKind, Evaluated, PrepareParts, Profile, Shown, Timing,
};
pub use value::ValueView;

impl Session {
    /// Completions at `cursor` in `text`; commands start with `marker`.
    pub fn complete(&self, text: &str, cursor: usize, marker: char) -> Completions {
        complete::complete(self.scope(), text, cursor, marker, &commands::names())
    }

    /// The signature and documentation of a (possibly qualified) name in scope.
    pub fn inspect(&self, name: &str) -> Option<NameInfo> {
        inspect::lookup(self.scope(), name)
    }
}
