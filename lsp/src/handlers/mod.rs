//! One thin handler per request: convert the protocol's positions to byte offsets, call
//! the analysis in `futhark-ide`, convert the answer back. Each runs on a database
//! snapshot on a blocking thread (see `server.rs`).

pub mod code_action;
pub mod code_lens;
pub mod completion;
pub mod definition;
pub mod diagnostics;
pub mod document_highlight;
pub mod document_symbol;
pub mod execute_command;
pub mod folding_range;
pub mod formatting;
pub mod hover;
pub mod inlay_hint;
pub mod references;
pub mod rename;
pub mod selection_range;
pub mod semantic_tokens;
pub mod show_view;
pub mod signature_help;
pub mod type_definition;
pub mod workspace_symbol;
