//! The recursive-descent parser: shared machinery (token access, diagnostics, nesting
//! limits, recovery). The grammar itself lives in the submodules.
//!
//! **Invariants.** The parser never panics and always terminates: every loop either
//! consumes a token or exits, and recursion is bounded by [`MAX_DEPTH`] nesting levels
//! (deeper input yields a "nested too deeply" diagnostic). Errors never abort parsing;
//! they produce `Error` nodes.
//!
//! **Error cascades.** After the first error inside a declaration (or spec) further errors
//! are suppressed until the parser is back at the start of the next declaration; the
//! declaration loops then skip to a plausible restart point (see `decs.rs`). The result is
//! one diagnostic per broken declaration.

mod decs;
mod exprs;
mod modules;
mod ops;
mod patterns;
mod types;

use crate::ast::{Ident, QualName};
use crate::diagnostic::Diagnostic;
use crate::lexer::{Lexed, Token, TokenKind, TokenValue};
use crate::span::{FileId, Span};

/// How deeply constructs may nest (parentheses, prefix operators, operator chains, lets…).
/// Bounds both the parser's recursion and the depth of the tree it builds.
pub const MAX_DEPTH: u32 = 500;

/// The most stack the parser may use, whatever the build profile: past it, input is
/// "nested too deeply" even below [`MAX_DEPTH`]. AST nodes are large (an `Exp` is about
/// 300 bytes), so one level of parentheses costs several KiB of stack; 1 MiB allows
/// roughly 180 nested parentheses in release builds (60 in debug builds), far beyond
/// real programs (the deepest corpus file nests 9 brackets), and leaves a 2 MiB thread
/// enough room for its caller.
pub const STACK_BUDGET: usize = 1 << 20;

/// The address of a local in the calling frame: a cheap reading of the stack pointer.
#[inline(always)]
fn stack_position() -> usize {
    let probe = 0u8;
    std::hint::black_box(&probe) as *const u8 as usize
}

pub(crate) struct Parser<'s> {
    text: &'s str,
    file: FileId,
    toks: Vec<Token>,
    values: Vec<TokenValue>,
    pos: usize,
    /// End offset of the last consumed token.
    prev_end: u32,
    pub(crate) errors: Vec<Diagnostic>,
    /// Set after an error; further errors are dropped until a recovery point clears it.
    suppress: bool,
    /// Current nesting depth, checked against [`MAX_DEPTH`].
    depth: u32,
    /// [`stack_position`] when parsing started.
    stack_base: usize,
    /// The brackets opened and not yet closed, innermost last, for "unclosed" labels.
    open_brackets: Vec<Token>,
    /// Set when the nesting limit is hit: nested declaration and spec lists stop at once
    /// and the top level skips to a declaration at column 1, so one absurdly deep
    /// construct yields one diagnostic.
    bail: bool,
}

impl<'s> Parser<'s> {
    pub(crate) fn new(file: FileId, text: &'s str, lexed: Lexed) -> Parser<'s> {
        let mut toks = lexed.tokens;
        if toks.last().map(|t| t.kind) != Some(TokenKind::Eof) {
            let end = text.len() as u32;
            toks.push(Token {
                kind: TokenKind::Eof,
                start: end,
                end,
                data: 0,
                line_start: false,
            });
        }
        Parser {
            text,
            file,
            toks,
            values: lexed.values,
            pos: 0,
            prev_end: 0,
            errors: lexed.errors,
            suppress: false,
            depth: 0,
            stack_base: stack_position(),
            open_brackets: Vec::new(),
            bail: false,
        }
    }

    // -----------------------------------------------------------------------------------
    // Token access

    fn tok(&self) -> Token {
        self.nth_tok(0)
    }

    fn nth_tok(&self, n: usize) -> Token {
        let i = (self.pos + n).min(self.toks.len().saturating_sub(1));
        self.toks.get(i).copied().unwrap_or(Token {
            kind: TokenKind::Eof,
            start: self.text.len() as u32,
            end: self.text.len() as u32,
            data: 0,
            line_start: false,
        })
    }

    fn kind(&self) -> TokenKind {
        self.tok().kind
    }

    fn nth(&self, n: usize) -> TokenKind {
        self.nth_tok(n).kind
    }

    fn at(&self, kind: TokenKind) -> bool {
        self.kind() == kind
    }

    fn at_eof(&self) -> bool {
        self.at(TokenKind::Eof)
    }

    /// Consumes the current token (never moves past the end) and returns it.
    fn bump(&mut self) -> Token {
        use TokenKind::*;
        let t = self.tok();
        if t.kind != Eof {
            self.pos += 1;
            self.prev_end = t.end;
        }
        match t.kind {
            LParen | LBracket | IndexBracket | LBrace | HashBracket => self.open_brackets.push(t),
            RParen | RBracket | RBrace => {
                self.open_brackets.pop();
            }
            _ => {}
        }
        t
    }

    fn eat(&mut self, kind: TokenKind) -> bool {
        if self.at(kind) {
            self.bump();
            true
        } else {
            false
        }
    }

    fn text_of(&self, t: Token) -> &'s str {
        self.text
            .get(t.start as usize..t.end as usize)
            .unwrap_or("")
    }

    fn token_span(&self, t: Token) -> Span {
        Span::new(self.file, t.start, t.end)
    }

    /// Span of the current token.
    fn span(&self) -> Span {
        self.token_span(self.tok())
    }

    /// Start offset of the current token.
    fn start(&self) -> u32 {
        self.tok().start
    }

    /// The span from `start` to the end of the last consumed token.
    fn span_from(&self, start: u32) -> Span {
        Span::new(self.file, start, self.prev_end.max(start))
    }

    /// An empty span where the current token starts, for missing things.
    fn here(&self) -> Span {
        let s = self.start();
        Span::new(self.file, s, s)
    }

    fn value(&self, t: Token) -> Option<&TokenValue> {
        self.values.get(t.data as usize)
    }

    /// True if the current token is the symbol `sym` exactly (e.g. `*`, `-`, `<`, `|`).
    fn at_symbol(&self, sym: &str) -> bool {
        self.at(TokenKind::Symbol) && self.text_of(self.tok()) == sym
    }

    fn nth_is_symbol(&self, n: usize, sym: &str) -> bool {
        let t = self.nth_tok(n);
        t.kind == TokenKind::Symbol && self.text_of(t) == sym
    }

    // -----------------------------------------------------------------------------------
    // Diagnostics

    /// A short description of a token for "found …" messages.
    fn describe(&self, t: Token) -> String {
        use TokenKind::*;
        if let Some(s) = t.kind.fixed_text() {
            return format!("`{s}`");
        }
        let text = self.text_of(t);
        let short = |s: &str| {
            let mut out: std::string::String = s.chars().take(30).collect();
            if s.chars().nth(30).is_some() {
                out.push('…');
            }
            out
        };
        match t.kind {
            Ident | Constructor | Symbol | QualSymbol | Int | Float | Char => {
                format!("`{}`", short(text))
            }
            String => "a string literal".to_string(),
            Doc => "a doc comment".to_string(),
            Eof => "end of file".to_string(),
            _ => format!("`{}`", short(text)),
        }
    }

    fn found(&self) -> String {
        self.describe(self.tok())
    }

    /// Reports an error unless errors are suppressed; always enters the suppressed state.
    /// Errors at a lexer error token are not repeated: the lexer reported them.
    fn error_at(&mut self, span: Span, msg: impl Into<String>) {
        if !self.suppress && !self.at(TokenKind::Error) {
            self.errors
                .push(Diagnostic::error("syntax-error", span, msg));
        }
        self.suppress = true;
    }

    fn error_diag(&mut self, diag: Diagnostic) {
        if !self.suppress && !self.at(TokenKind::Error) {
            self.errors.push(diag);
        }
        self.suppress = true;
    }

    /// "expected {what}, found {current token}" at the current token. A doc comment gets
    /// its own explanation, since that is the usual cause.
    fn expected(&mut self, what: &str) {
        if self.at(TokenKind::Doc) {
            let span = self.span();
            let diag = Diagnostic::error(
                "misplaced-doc-comment",
                span,
                format!("expected {what}, found a doc comment"),
            )
            .with_note(
                "a doc comment (`-- |`) must come before a declaration or spec; use `--` for an ordinary comment",
            );
            self.error_diag(diag);
        } else {
            let msg = format!("expected {what}, found {}", self.found());
            let span = self.span();
            self.error_at(span, msg);
        }
    }

    /// Consumes `kind` or reports "expected {what}, found …". A missing closing bracket
    /// also points at the bracket it should close.
    fn expect(&mut self, kind: TokenKind, what: &str) -> bool {
        use TokenKind::*;
        if self.eat(kind) {
            return true;
        }
        let opener = self.open_brackets.last().copied();
        match opener {
            Some(open) if matches!(kind, RParen | RBracket | RBrace) && !self.at(Doc) => {
                let msg = format!("expected {what}, found {}", self.found());
                let open_text = open.kind.fixed_text().unwrap_or("bracket");
                let diag = Diagnostic::error("syntax-error", self.span(), msg)
                    .with_label(self.token_span(open), format!("unclosed `{open_text}`"));
                self.error_diag(diag);
            }
            _ => self.expected(what),
        }
        false
    }

    // -----------------------------------------------------------------------------------
    // Nesting limit

    /// Enters one nesting level. Returns false (after reporting) if that is too deep; the
    /// caller must then return an error node without recursing.
    fn enter(&mut self) -> bool {
        if self.depth >= MAX_DEPTH || stack_position().abs_diff(self.stack_base) > STACK_BUDGET {
            let span = self.span();
            if !self.suppress {
                self.errors.push(Diagnostic::error(
                    "nested-too-deeply",
                    span,
                    "expression nested too deeply",
                ));
            }
            self.suppress = true;
            self.bail = true;
            false
        } else {
            self.depth += 1;
            true
        }
    }

    fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    /// Leaves `n` levels entered by a loop that wraps nodes around each other.
    fn leave_n(&mut self, n: u32) {
        self.depth = self.depth.saturating_sub(n);
    }

    // -----------------------------------------------------------------------------------
    // Names

    fn ident_from(&self, t: Token) -> Ident {
        Ident {
            name: self.text_of(t).to_string(),
            span: self.token_span(t),
        }
    }

    /// A name, or a placeholder (after reporting) if the current token is not one.
    fn ident(&mut self, what: &str) -> Ident {
        if self.at(TokenKind::Ident) {
            let t = self.bump();
            self.ident_from(t)
        } else {
            self.expected(what);
            Ident {
                name: String::new(),
                span: self.here(),
            }
        }
    }

    /// A field name: a name or an unsuffixed decimal number.
    fn at_field(&self) -> bool {
        match self.kind() {
            TokenKind::Ident => true,
            TokenKind::Int => self.is_natural(self.tok()),
            _ => false,
        }
    }

    /// True for an unsuffixed decimal literal (usable as a tuple field name).
    fn is_natural(&self, t: Token) -> bool {
        t.kind == TokenKind::Int && self.text_of(t).bytes().all(|b| b.is_ascii_digit())
    }

    fn field(&mut self, what: &str) -> Ident {
        if self.at_field() {
            let t = self.bump();
            self.ident_from(t)
        } else {
            self.ident(what)
        }
    }

    /// `a.b.c` starting at a name. Only used where no field projection can follow.
    fn qual_name(&mut self, what: &str) -> QualName {
        let start = self.start();
        let mut name = self.ident(what);
        let mut quals = Vec::new();
        while self.at(TokenKind::Dot) && self.nth(1) == TokenKind::Ident {
            self.bump();
            let t = self.bump();
            quals.push(std::mem::replace(&mut name, self.ident_from(t)));
        }
        QualName {
            quals,
            name,
            span: self.span_from(start),
        }
    }

    /// The operator part of a `Symbol` or `QualSymbol` token (`+` in `M.+`).
    fn op_text(&self, t: Token) -> &'s str {
        if t.kind == TokenKind::QualSymbol {
            let op_start = (t.data as usize).clamp(t.start as usize, t.end as usize);
            self.text.get(op_start..t.end as usize).unwrap_or("")
        } else {
            self.text_of(t)
        }
    }

    /// The qualified name of a `QualSymbol` or `Symbol` token.
    fn op_name(&self, t: Token) -> QualName {
        let span = self.token_span(t);
        if t.kind != TokenKind::QualSymbol {
            return QualName {
                quals: Vec::new(),
                name: self.ident_from(t),
                span,
            };
        }
        let op_start = (t.data as usize).clamp(t.start as usize, t.end as usize);
        let quals_text = self.text.get(t.start as usize..op_start).unwrap_or("");
        let mut quals = Vec::new();
        let mut offset = t.start;
        for part in quals_text.split('.') {
            if !part.is_empty() {
                quals.push(Ident {
                    name: part.to_string(),
                    span: Span::new(self.file, offset, offset + part.len() as u32),
                });
            }
            offset += part.len() as u32 + 1;
        }
        QualName {
            quals,
            name: Ident {
                name: self
                    .text
                    .get(op_start..t.end as usize)
                    .unwrap_or("")
                    .to_string(),
                span: Span::new(self.file, op_start as u32, t.end),
            },
            span,
        }
    }
}

impl Parser<'_> {
    /// True if the input holds no tokens at all (only whitespace and comments).
    pub(crate) fn is_empty_input(&self) -> bool {
        self.toks.len() <= 1
    }
}
