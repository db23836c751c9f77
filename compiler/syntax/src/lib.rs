//! Lexer, error-tolerant parser and AST with spans for the Futhark language.
//!
//! **Invariant:** parsing never fails and never panics. [`parse`] always returns a
//! [`SourceFile`] plus the list of syntax errors it recovered from, on any
//! input (garbage, truncated files, deeply nested expressions) and in time linear in the
//! input.
//!
//! Entry points: [`parse`] for files, [`parse_exp`] for a single expression, [`parse_cell`]
//! for a REPL/notebook cell, [`lexer::lex`] for the tokens, and [`debug_tree()`] for a terse
//! S-expression rendering of a tree (used by tests and `futhark-rs parse`).

// The AST's node sizes are part of the shared contract; boxing the large variants is a
// decision for the lead (it would shrink parser stack frames), so the lint is allowed here.
#[allow(clippy::large_enum_variant)]
pub mod ast;
pub mod debug_tree;
pub mod diagnostic;
pub mod format;
mod imports;
pub mod lexer;
mod parser;
pub mod span;

pub use debug_tree::{debug_exp, debug_tree};
pub use diagnostic::{Diagnostic, Label, Severity};
pub use parser::{MAX_DEPTH, STACK_BUDGET};
pub use span::{FileId, LineIndex, Span};

use ast::{Dec, Exp, SourceFile};
use parser::Parser;

/// The result of parsing a file: the tree (with `Error` nodes where parsing failed) and the
/// diagnostics, in source order of discovery.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Parse {
    pub file: SourceFile,
    pub errors: Vec<Diagnostic>,
}

/// Parses a whole source file.
pub fn parse(file: FileId, text: &str) -> Parse {
    let mut p = Parser::new(file, text, lexer::lex(file, text));
    let source = p.source_file();
    Parse {
        file: source,
        errors: sorted(p.errors),
    }
}

/// Parses text that must be exactly one expression. Returns `None` only if there is no
/// expression at all (empty input).
pub fn parse_exp(file: FileId, text: &str) -> (Option<Exp>, Vec<Diagnostic>) {
    let mut p = Parser::new(file, text, lexer::lex(file, text));
    let e = p.whole_exp();
    (e, sorted(p.errors))
}

/// A parsed REPL or notebook cell: either declarations or an expression (or nothing, for
/// an empty cell).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cell {
    pub decs: Vec<Dec>,
    pub exp: Option<Exp>,
    pub errors: Vec<Diagnostic>,
}

/// Parses a REPL cell. A cell that starts like a declaration (`def`, `type`, `module`,
/// `open`, `import`, `local`, `entry`, `#[…]`, a doc comment, or a `let` without `in`) is a
/// list of declarations; anything else is one expression. An empty cell has neither.
pub fn parse_cell(file: FileId, text: &str) -> Cell {
    let mut p = Parser::new(file, text, lexer::lex(file, text));
    if p.is_empty_input() {
        return Cell {
            decs: Vec::new(),
            exp: None,
            errors: p.errors,
        };
    }
    let items = p.cell();
    Cell {
        decs: items.decs,
        exp: items.exp,
        errors: sorted(p.errors),
    }
}

/// Lexer and parser diagnostics are collected separately; report them in source order.
fn sorted(mut errors: Vec<Diagnostic>) -> Vec<Diagnostic> {
    errors.sort_by_key(|d| (d.span.start, d.span.end));
    errors
}
