//! The lexer: turns source text into a flat vector of [`Token`]s with byte spans.
//!
//! Hand-written for speed and total robustness: it works on bytes, never panics, and turns
//! every lexical problem into a [`Diagnostic`] while carrying on. Comments are dropped from
//! the token stream (their spans are kept in [`Lexed::comments`]); doc comments (`-- |` plus
//! the directly following `--` lines) are tokens, because the grammar decides where they are
//! legal. Literal values are decoded here and stored in [`Lexed::values`].
//!
//! Two context rules of Futhark's lexer are reproduced exactly:
//! - a `[` glued to a preceding letter, digit, `_`, `'`, `)` or `]` is an
//!   [`TokenKind::IndexBracket`] rather than a free [`TokenKind::LBracket`];
//! - no float literal starts right after a `.`, so `x.0.1` lexes as two projections.

mod literals;

use crate::ast::NumSuffix;
use crate::diagnostic::Diagnostic;
use crate::span::{FileId, Span};

/// The kind of a token. Tokens carrying text (names, operators) are read back from the
/// source through their span; tokens carrying values index [`Lexed::values`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TokenKind {
    /// A name such as `x`, `f32`, `_tmp`.
    Ident,
    /// `#name`; the span includes the `#`.
    Constructor,
    /// An unqualified operator such as `+`, `*`, `-`, `|>`, `>->`.
    Symbol,
    /// A qualified operator such as `M.+` or `f32.<=`; `data` is the offset of the operator.
    QualSymbol,
    /// An integer literal; `data` indexes [`Lexed::values`].
    Int,
    /// A float literal; `data` indexes [`Lexed::values`].
    Float,
    /// A character literal; `data` indexes [`Lexed::values`].
    Char,
    /// A string literal; `data` indexes [`Lexed::values`].
    String,
    /// A doc comment; `data` indexes [`Lexed::values`].
    Doc,

    True,
    False,
    If,
    Then,
    Else,
    Def,
    Let,
    Loop,
    In,
    Val,
    For,
    Do,
    With,
    Local,
    Open,
    Include,
    Import,
    Type,
    Entry,
    Module,
    While,
    Assert,
    Match,
    Case,

    LParen,
    RParen,
    /// A `[` not glued to the previous token: an array literal, size or type parameter.
    LBracket,
    /// A `[` glued to a preceding name, literal, `)` or `]`: indexing.
    IndexBracket,
    RBracket,
    LBrace,
    RBrace,
    /// `#[`, opening an attribute.
    HashBracket,
    Comma,
    Underscore,
    Question,
    /// `???`
    Hole,
    /// `->`
    Arrow,
    Colon,
    /// `:>`
    ColonGt,
    Backslash,
    Tilde,
    /// `'`
    Apostrophe,
    /// `'^`
    ApostropheHat,
    /// `'~`
    ApostropheTilde,
    Backtick,
    Dot,
    /// `..`
    DotDot,
    /// `...`
    DotDotDot,
    /// `..<`
    DotDotLt,
    /// `..>`
    DotDotGt,
    /// `!` on its own (a prefix operator, never infix).
    Bang,
    /// `=` on its own.
    Equals,
    /// Characters that form no token; already reported by the lexer.
    Error,
    Eof,
}

impl TokenKind {
    /// True for the reserved words of the language.
    pub fn is_keyword(self) -> bool {
        use TokenKind::*;
        matches!(
            self,
            True | False
                | If
                | Then
                | Else
                | Def
                | Let
                | Loop
                | In
                | Val
                | For
                | Do
                | With
                | Local
                | Open
                | Include
                | Import
                | Type
                | Entry
                | Module
                | While
                | Assert
                | Match
                | Case
        )
    }

    /// The fixed spelling of keywords and punctuation, if the kind has one.
    pub fn fixed_text(self) -> Option<&'static str> {
        use TokenKind::*;
        Some(match self {
            True => "true",
            False => "false",
            If => "if",
            Then => "then",
            Else => "else",
            Def => "def",
            Let => "let",
            Loop => "loop",
            In => "in",
            Val => "val",
            For => "for",
            Do => "do",
            With => "with",
            Local => "local",
            Open => "open",
            Include => "include",
            Import => "import",
            Type => "type",
            Entry => "entry",
            Module => "module",
            While => "while",
            Assert => "assert",
            Match => "match",
            Case => "case",
            LParen => "(",
            RParen => ")",
            LBracket | IndexBracket => "[",
            RBracket => "]",
            LBrace => "{",
            RBrace => "}",
            HashBracket => "#[",
            Comma => ",",
            Underscore => "_",
            Question => "?",
            Hole => "???",
            Arrow => "->",
            Colon => ":",
            ColonGt => ":>",
            Backslash => "\\",
            Tilde => "~",
            Apostrophe => "'",
            ApostropheHat => "'^",
            ApostropheTilde => "'~",
            Backtick => "`",
            Dot => ".",
            DotDot => "..",
            DotDotDot => "...",
            DotDotLt => "..<",
            DotDotGt => "..>",
            Bang => "!",
            Equals => "=",
            _ => return None,
        })
    }
}

/// One token: its kind, byte range and a kind-specific payload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    pub kind: TokenKind,
    pub start: u32,
    pub end: u32,
    /// Index into [`Lexed::values`] for literals and doc comments; for
    /// [`TokenKind::QualSymbol`] the byte offset where the operator part starts.
    pub data: u32,
    /// True if the token is the first thing on its line, at column 1.
    pub line_start: bool,
}

/// The decoded value of a literal or doc-comment token.
#[derive(Clone, Debug, PartialEq)]
pub enum TokenValue {
    Int {
        value: u128,
        suffix: Option<NumSuffix>,
    },
    Float {
        value: f64,
        suffix: Option<NumSuffix>,
    },
    Char(u32),
    Str(String),
    Doc(String),
}

/// The result of lexing one source text.
#[derive(Clone, Debug, Default)]
pub struct Lexed {
    /// The tokens, always ending with one [`TokenKind::Eof`].
    pub tokens: Vec<Token>,
    pub values: Vec<TokenValue>,
    /// Spans of ordinary `--` comments (for formatters and editors).
    pub comments: Vec<Span>,
    pub errors: Vec<Diagnostic>,
}

/// Lexes `text`. Never fails: problems become diagnostics in [`Lexed::errors`].
pub fn lex(file: FileId, text: &str) -> Lexed {
    let mut lexer = Lexer {
        file,
        bytes: text.as_bytes(),
        text,
        pos: 0,
        out: Lexed::default(),
        no_qual_symbol_before: 0,
    };
    lexer.run();
    lexer.out
}

/// Characters that may start an operator.
pub(crate) fn is_op_start(c: u8) -> bool {
    matches!(
        c,
        b'+' | b'-' | b'*' | b'/' | b'%' | b'=' | b'!' | b'>' | b'<' | b'|' | b'&' | b'^'
    )
}

/// Characters that may continue an operator (`.` included).
fn is_op_char(c: u8) -> bool {
    is_op_start(c) || c == b'.'
}

fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic()
}

fn is_ident_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'\''
}

fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

pub(crate) struct Lexer<'s> {
    file: FileId,
    bytes: &'s [u8],
    text: &'s str,
    pos: usize,
    out: Lexed,
    /// Qualified-operator lookahead already failed for every name starting before this
    /// offset; remembering it keeps `a.a.a.a…` linear instead of quadratic.
    no_qual_symbol_before: usize,
}

impl<'s> Lexer<'s> {
    /// The byte at `pos + off`, or 0 past the end.
    fn at(&self, off: usize) -> u8 {
        self.bytes.get(self.pos + off).copied().unwrap_or(0)
    }

    fn byte(&self, i: usize) -> u8 {
        self.bytes.get(i).copied().unwrap_or(0)
    }

    fn span(&self, start: usize, end: usize) -> Span {
        Span::new(self.file, start as u32, end as u32)
    }

    fn error(&mut self, code: &'static str, start: usize, end: usize, msg: impl Into<String>) {
        let span = self.span(start, end);
        self.out.errors.push(Diagnostic::error(code, span, msg));
    }

    fn push(&mut self, kind: TokenKind, start: usize, end: usize, data: u32) {
        let line_start = start == 0 || self.byte(start.wrapping_sub(1)) == b'\n';
        self.out.tokens.push(Token {
            kind,
            start: start as u32,
            end: end as u32,
            data,
            line_start,
        });
    }

    fn push_value(&mut self, kind: TokenKind, start: usize, end: usize, value: TokenValue) {
        let idx = self.out.values.len() as u32;
        self.out.values.push(value);
        self.push(kind, start, end, idx);
    }

    /// Length of the UTF-8 character starting at byte `i` (1 for invalid bytes).
    fn char_len(&self, i: usize) -> usize {
        let mut j = i + 1;
        while j < self.bytes.len() && !self.text.is_char_boundary(j) {
            j += 1;
        }
        j - i
    }

    fn run(&mut self) {
        // A leading byte-order mark is not part of the program.
        if self.bytes.starts_with(b"\xEF\xBB\xBF") {
            self.pos = 3;
        }
        loop {
            while self.pos < self.bytes.len() && is_space(self.at(0)) {
                self.pos += 1;
            }
            if self.pos >= self.bytes.len() {
                let end = self.bytes.len();
                self.push(TokenKind::Eof, end, end, 0);
                return;
            }
            self.token();
        }
    }

    /// Lexes one token (or comment, or run of bad characters) at `self.pos`, which is
    /// not whitespace and not the end. Always advances.
    fn token(&mut self) {
        use TokenKind::*;
        let start = self.pos;
        let c = self.at(0);
        match c {
            b'-' if self.at(1) == b'-' => self.comment(),
            b'a'..=b'z' | b'A'..=b'Z' => self.ident(),
            b'_' if self.at(1).is_ascii_alphanumeric() => self.ident(),
            b'_' => self.single(Underscore),
            b'0'..=b'9' => self.number(),
            b'#' => {
                if self.at(1) == b'[' {
                    self.pos += 2;
                    self.push(HashBracket, start, self.pos, 0);
                } else if is_ident_start(self.at(1)) {
                    self.pos += 1;
                    while is_ident_char(self.at(0)) {
                        self.pos += 1;
                    }
                    self.push(Constructor, start, self.pos, 0);
                } else {
                    self.bad_chars();
                }
            }
            b'\'' => self.apostrophe(),
            b'"' => self.string(),
            b'.' => {
                let (kind, len) = match (self.at(1), self.at(2)) {
                    (b'.', b'.') => (DotDotDot, 3),
                    (b'.', b'<') => (DotDotLt, 3),
                    (b'.', b'>') => (DotDotGt, 3),
                    (b'.', _) => (DotDot, 2),
                    _ => (Dot, 1),
                };
                self.pos += len;
                self.push(kind, start, self.pos, 0);
            }
            c if is_op_start(c) => self.symbol(),
            b'(' => self.single(LParen),
            b')' => self.single(RParen),
            b'[' => {
                let glued = start > 0
                    && matches!(self.byte(start - 1), b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'_' | b'\'' | b')' | b']');
                self.single(if glued { IndexBracket } else { LBracket })
            }
            b']' => self.single(RBracket),
            b'{' => self.single(LBrace),
            b'}' => self.single(RBrace),
            b',' => self.single(Comma),
            b':' if self.at(1) == b'>' => {
                self.pos += 2;
                self.push(ColonGt, start, self.pos, 0);
            }
            b':' => self.single(Colon),
            b'?' if self.at(1) == b'?' && self.at(2) == b'?' => {
                self.pos += 3;
                self.push(Hole, start, self.pos, 0);
            }
            b'?' => self.single(Question),
            b'\\' => self.single(Backslash),
            b'~' => self.single(Tilde),
            b'`' => self.single(Backtick),
            _ => self.bad_chars(),
        }
    }

    fn single(&mut self, kind: TokenKind) {
        let start = self.pos;
        self.pos += 1;
        self.push(kind, start, self.pos, 0);
    }

    /// A run of characters that start no token: one diagnostic and one error token.
    fn bad_chars(&mut self) {
        let start = self.pos;
        loop {
            self.pos += self.char_len(self.pos);
            let c = self.at(0);
            if self.pos >= self.bytes.len() || is_space(c) || self.starts_token(c) {
                break;
            }
        }
        let shown: String = self
            .text
            .get(start..self.pos)
            .unwrap_or("")
            .chars()
            .take(20)
            .collect();
        let msg = if self.pos - start == 1 || shown.chars().count() == 1 {
            format!("unexpected character `{}`", shown.escape_debug())
        } else {
            format!("unexpected characters `{}`", shown.escape_debug())
        };
        self.error("invalid-token", start, self.pos, msg);
        self.push(TokenKind::Error, start, self.pos, 0);
    }

    /// True if an ASCII byte can start a token (used to end runs of bad characters).
    fn starts_token(&self, c: u8) -> bool {
        c.is_ascii_alphanumeric()
            || is_op_start(c)
            || matches!(
                c,
                b'_' | b'\''
                    | b'"'
                    | b'.'
                    | b'('
                    | b')'
                    | b'['
                    | b']'
                    | b'{'
                    | b'}'
                    | b','
                    | b':'
                    | b'?'
                    | b'\\'
                    | b'~'
                    | b'`'
            )
            || (c == b'#' && (self.at(1) == b'[' || is_ident_start(self.at(1))))
    }

    /// `--` comments and `-- |` doc comments (which take in the directly following
    /// lines that start with `--`).
    fn comment(&mut self) {
        let start = self.pos;
        let line_end = |lx: &Self, from: usize| {
            let mut i = from;
            while i < lx.bytes.len() && lx.bytes[i] != b'\n' {
                i += 1;
            }
            i
        };
        let is_doc = self.at(2) == b' ' && self.at(3) == b'|';
        if !is_doc {
            self.pos = line_end(self, start);
            let span = self.span(start, self.pos);
            self.out.comments.push(span);
            return;
        }
        let mut end = line_end(self, start);
        let mut lines = vec![doc_line(self.text.get(start + 4..end).unwrap_or(""))];
        loop {
            // `end` is at a newline or the end of the text.
            let mut i = end + 1;
            while matches!(self.byte(i), b' ' | b'\t' | 0x0b | 0x0c) {
                i += 1;
            }
            if end >= self.bytes.len() || self.byte(i) != b'-' || self.byte(i + 1) != b'-' {
                break;
            }
            let next_end = line_end(self, i);
            lines.push(doc_line(self.text.get(i + 2..next_end).unwrap_or("")));
            end = next_end;
        }
        self.pos = end;
        self.push_value(
            TokenKind::Doc,
            start,
            end,
            TokenValue::Doc(lines.join("\n")),
        );
    }

    /// Names and keywords, and qualified operators such as `M.N.+`.
    fn ident(&mut self) {
        use TokenKind::*;
        let start = self.pos;
        self.pos += 1;
        while is_ident_char(self.at(0)) {
            self.pos += 1;
        }
        let qualified = if self.at(0) == b'.' && start >= self.no_qual_symbol_before {
            self.qualified_symbol_from(self.pos)
        } else {
            None
        };
        if let Some((op_start, end)) = qualified {
            self.pos = end;
            self.push(QualSymbol, start, end, op_start as u32);
            return;
        }
        let kind = match self.text.get(start..self.pos).unwrap_or("") {
            "true" => True,
            "false" => False,
            "if" => If,
            "then" => Then,
            "else" => Else,
            "def" => Def,
            "let" => Let,
            "loop" => Loop,
            "in" => In,
            "val" => Val,
            "for" => For,
            "do" => Do,
            "with" => With,
            "local" => Local,
            "open" => Open,
            "include" => Include,
            "import" => Import,
            "type" => Type,
            "entry" => Entry,
            "module" => Module,
            "while" => While,
            "assert" => Assert,
            "match" => Match,
            "case" => Case,
            _ => Ident,
        };
        self.push(kind, start, self.pos, 0);
    }

    /// Given `dot` at a `.` after a name, looks for `(name ".")* op`. Returns the offset
    /// of the operator and the end of the token.
    fn qualified_symbol_from(&mut self, mut dot: usize) -> Option<(usize, usize)> {
        loop {
            let c = self.byte(dot + 1);
            if is_op_start(c) {
                let op_start = dot + 1;
                let mut end = op_start + 1;
                while is_op_char(self.byte(end)) {
                    end += 1;
                }
                return Some((op_start, end));
            }
            if !(is_ident_start(c) || (c == b'_' && self.byte(dot + 2).is_ascii_alphanumeric())) {
                self.no_qual_symbol_before = dot;
                return None;
            }
            let mut i = dot + 2;
            while is_ident_char(self.byte(i)) {
                i += 1;
            }
            if self.byte(i) != b'.' {
                self.no_qual_symbol_before = i;
                return None;
            }
            dot = i;
        }
    }

    /// Operators by maximal munch; `=`, `!` and `->` on their own are special tokens.
    fn symbol(&mut self) {
        let start = self.pos;
        self.pos += 1;
        while is_op_char(self.at(0)) {
            self.pos += 1;
        }
        let kind = match self.text.get(start..self.pos).unwrap_or("") {
            "=" => TokenKind::Equals,
            "!" => TokenKind::Bang,
            "->" => TokenKind::Arrow,
            _ => TokenKind::Symbol,
        };
        self.push(kind, start, self.pos, 0);
    }

    /// A character literal `'c'`, or one of the type-parameter markers `'`, `'^`, `'~`.
    fn apostrophe(&mut self) {
        let start = self.pos;
        let c = self.at(1);
        if c == b'\\' {
            let (value, after) = match literals::escape(self.text, start + 1) {
                Ok((v, after)) => (v, after),
                Err((msg, after)) => {
                    if self.byte(after) == b'\'' {
                        self.error("invalid-escape", start + 1, after, msg);
                    }
                    (Some(0), after)
                }
            };
            if self.byte(after) == b'\'' {
                let value = match value {
                    Some(v) => v,
                    None => {
                        self.error(
                            "invalid-literal",
                            start,
                            after + 1,
                            "empty character literal",
                        );
                        0
                    }
                };
                self.pos = after + 1;
                self.push_value(TokenKind::Char, start, self.pos, TokenValue::Char(value));
                return;
            }
        } else if start + 1 < self.bytes.len() && c != b'\'' && c != b'\n' {
            let len = self.char_len(start + 1);
            if self.byte(start + 1 + len) == b'\'' {
                let value = self
                    .text
                    .get(start + 1..start + 1 + len)
                    .and_then(|s| s.chars().next())
                    .map_or(0, u32::from);
                self.pos = start + len + 2;
                self.push_value(TokenKind::Char, start, self.pos, TokenValue::Char(value));
                return;
            }
        }
        let kind = match c {
            b'^' => TokenKind::ApostropheHat,
            b'~' => TokenKind::ApostropheTilde,
            _ => TokenKind::Apostrophe,
        };
        self.pos += if kind == TokenKind::Apostrophe { 1 } else { 2 };
        self.push(kind, start, self.pos, 0);
    }

    /// A string literal with Haskell escapes; it may not span lines.
    fn string(&mut self) {
        let start = self.pos;
        let mut value = String::new();
        let mut i = start + 1;
        loop {
            let run = i;
            while i < self.bytes.len() && !matches!(self.bytes[i], b'"' | b'\\' | b'\n') {
                i += 1;
            }
            value.push_str(self.text.get(run..i).unwrap_or(""));
            match self.byte(i) {
                b'"' if i < self.bytes.len() => {
                    self.pos = i + 1;
                    break;
                }
                b'\\' if i < self.bytes.len() => match literals::escape(self.text, i) {
                    Ok((Some(c), after)) => {
                        value.push(char::from_u32(c).unwrap_or('\u{FFFD}'));
                        i = after;
                    }
                    Ok((None, after)) => i = after,
                    Err((msg, after)) => {
                        self.error("invalid-escape", i, after.max(i + 1), msg);
                        i = after.max(i + 1);
                    }
                },
                _ => {
                    self.error(
                        "unterminated-string",
                        start,
                        i,
                        "unterminated string literal",
                    );
                    self.pos = i;
                    break;
                }
            }
        }
        self.push_value(TokenKind::String, start, self.pos, TokenValue::Str(value));
    }

    fn number(&mut self) {
        let start = self.pos;
        let after_dot = start > 0 && self.byte(start - 1) == b'.';
        let lit = literals::number(self.bytes, start, after_dot);
        self.pos = lit.end;
        if let Some(msg) = lit.error {
            self.error("invalid-literal", start, lit.end, msg);
        }
        let kind = match lit.value {
            TokenValue::Float { .. } => TokenKind::Float,
            _ => TokenKind::Int,
        };
        self.push_value(kind, start, lit.end, lit.value);
    }
}

/// One line of a doc comment with its `--` (or `-- |`) marker already removed.
fn doc_line(rest: &str) -> String {
    let rest = rest.strip_suffix('\r').unwrap_or(rest);
    rest.strip_prefix(' ').unwrap_or(rest).to_string()
}
