//! The salsa database every face of futhark-rs asks: source files are inputs, each compiler
//! stage is a tracked query (`parse`, `imports`, `import_graph`, `check`, `compiled`, and
//! `check_cell` for REPL and notebook cells, each checked against the one before), the
//! compile options are an input ([`Settings`]), and diagnostics are plain data accumulated
//! by the queries. The interpreter's program is built from the same results
//! ([`interp_program`]).
//!
//! **Invariant:** queries never fail; a missing file, a parse error or an import that cannot
//! be resolved becomes a [`Diagnostic`](futhark_syntax::Diagnostic), never a panic.

mod cells;
mod database;
mod files;
mod interp;
mod lower;
mod queries;
pub mod render;
mod settings;
mod typecheck;

pub use cells::{
    CELLS_KEPT, CHAIN_LINKS, Cell, CellChain, CellCheck, CellEnv, CheckedCell, IT, Snapshot,
    SplitCell, check_cell, env_scope, parse_cell, prelude_scope, split_cell,
};
pub use database::{Database, ExecutionLog};
pub use files::{Db, File};
pub use futhark_options::{CompileOptions, Safety};
pub use interp::interp_program;
pub use lower::{CompileError, IrStage, compile, compile_shared, lower_file};
pub use queries::{
    Diag, ImportGraph, ResolvedImport, file_diagnostics, import_graph, imports, parse,
    resolve_import_path,
};
pub use settings::Settings;
pub use typecheck::{
    CheckCaches, Checked, check, check_context, check_diagnostics, program_diagnostics,
};
