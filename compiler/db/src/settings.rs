//! The options compilation reads, as a database input: one per database, so that changing
//! them (`--unsafe`, `:unsafe`, loop promotion) re-runs compilation and never parsing or
//! checking.

use futhark_options::CompileOptions;

/// The compile options of a database ([`crate::Database::set_compile_options`]).
#[salsa::input(debug)]
pub struct Settings {
    #[returns(copy)]
    pub compile: CompileOptions,
}
