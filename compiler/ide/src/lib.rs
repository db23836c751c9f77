//! The analysis API every face of futhark-rs shares: document and workspace symbols,
//! semantic tokens, folding, go-to-definition, references, rename, completion, hover,
//! signature help, inlay hints, code lenses, code actions (quick fixes) and the IR/CUDA
//! views.
//!
//! **API boundary:** everything here speaks byte offsets into a file's text and returns
//! plain structs; no protocol types. `lsp/` converts positions to UTF-16 and results to LSP
//! messages, and the REPL and notebook can ask the same functions.
//!
//! **Invariant:** no function here panics on user input: a position past the end of a file,
//! a file full of syntax errors or a name that resolves nowhere gives an empty answer. The
//! only unwinding is salsa's cancellation ([`salsa::Cancelled`]) when the database is
//! edited under a running request; callers catch it.
//!
//! Name resolution is syntactic ([`scope`]): lexical scoping of the AST plus the module
//! system (files, `open`, `import`, module members, module types), so navigation works in
//! files that do not type-check. Types come from the checker through [`types`] (hover,
//! inlay hints, record fields, type errors), and never block the syntactic features.

mod capture;
mod code_actions;
mod code_lens;
mod completion;
mod defs;
mod diagnostics;
mod env;
mod folding;
mod goto;
mod hover;
mod import_paths;
mod inlay;
pub mod ir_view;
mod prelude;
mod records;
mod references;
mod rename;
mod scope;
mod selection;
mod semantic_tokens;
mod signature;
mod symbols;
mod type_names;
pub mod types;
mod visit;

#[cfg(test)]
mod fixture;

use futhark_db::File;

pub use code_actions::{CodeAction, CodeActionKind, code_actions};
pub use code_lens::{CodeLens, code_lenses, example_matches};
pub use completion::{CompletionItem, CompletionKind, completions};
pub use defs::{Def, DefKind};
pub use diagnostics::{diagnostics, syntax_diagnostics, type_diagnostics};
pub use env::{DefId, DefLoc, Env, ModEntry};
pub use folding::{Fold, FoldKind, folding_ranges};
pub use goto::{NavTarget, goto_definition};
pub use hover::{HoverResult, hover};
pub use inlay::{InlayHint, InlayKind, inlay_hints};
pub use ir_view::{View, show_cuda, show_ir};
pub use prelude::{PRELUDE_DIR, PRELUDE_FILES, is_prelude_path, register_prelude};
pub use records::type_definition;
pub use references::{Reference, find_references};
pub use rename::{RenameError, SourceChange, TextEdit, prepare_rename, rename};
pub use scope::{FileIndex, NameClass, Occurrence, Role, Target, file_index};
pub use selection::selection_ranges;
pub use semantic_tokens::{Modifiers, SemanticToken, TokenClass, lexical_tokens, semantic_tokens};
pub use signature::{SignatureHelp, signature_help};
pub use symbols::{Symbol, SymbolKind, WorkspaceSymbol, document_symbols, workspace_symbols};

/// A half-open byte range `start..end` in some file's text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct TextRange {
    pub start: u32,
    pub end: u32,
}

impl TextRange {
    pub fn new(start: u32, end: u32) -> TextRange {
        TextRange { start, end }
    }

    /// True if `offset` lies inside the range or right at its end (where a cursor sits
    /// after typing a name).
    pub fn touches(self, offset: u32) -> bool {
        self.start <= offset && offset <= self.end
    }

    pub fn len(self) -> u32 {
        self.end - self.start
    }

    pub fn is_empty(self) -> bool {
        self.start == self.end
    }
}

impl From<futhark_syntax::Span> for TextRange {
    fn from(span: futhark_syntax::Span) -> TextRange {
        TextRange::new(span.start, span.end)
    }
}

/// A cursor: a byte offset in one file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FilePosition {
    pub file: File,
    pub offset: u32,
}

/// A byte range in one file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FileRange {
    pub file: File,
    pub range: TextRange,
}
