//! A cursor over the body lines of a test block, treating line breaks as whitespace.
//!
//! Some directives (`entry:`, `error:`, `warning:`, `property:`) read to the end of their line;
//! everything else is free-form across lines, as in the reference implementation.

use crate::error::{ErrorKind, SpecError};
use crate::scan::BodyLine;

/// Whether `c` may appear in a tag or keyword (alphanumerics, `_`, `-`).
pub(crate) fn is_tag_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '-'
}

/// Position in the body lines of one test block.
pub(crate) struct Cursor<'a> {
    lines: &'a [BodyLine<'a>],
    row: usize,
    col: usize,
    /// Line reported for errors at the end of the block.
    last_line: u32,
}

impl<'a> Cursor<'a> {
    /// A cursor at the start of `lines`; `sep_line` is the `-- ==` line.
    pub fn new(lines: &'a [BodyLine<'a>], sep_line: u32) -> Self {
        let last_line = lines.last().map_or(sep_line, |l| l.number);
        Cursor {
            lines,
            row: 0,
            col: 0,
            last_line,
        }
    }

    /// The 1-based source line of the cursor.
    pub fn line(&self) -> u32 {
        self.lines
            .get(self.row)
            .map_or(self.last_line, |l| l.number)
    }

    /// The unread rest of the current line ("" past the end).
    pub fn rest(&self) -> &'a str {
        self.lines
            .get(self.row)
            .and_then(|l| l.text.get(self.col..))
            .unwrap_or("")
    }

    /// The next character on the current line.
    pub fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    /// Moves past `n` bytes of the current line.
    fn bump(&mut self, n: usize) {
        self.col += n;
    }

    /// Moves to the start of the next line.
    fn next_line(&mut self) {
        self.row += 1;
        self.col = 0;
    }

    /// Skips spaces and tabs on the current line.
    pub fn skip_hspace(&mut self) {
        let rest = self.rest();
        self.bump(rest.len() - rest.trim_start().len());
    }

    /// Skips all whitespace, including line breaks.
    pub fn skip_ws(&mut self) {
        loop {
            self.skip_hspace();
            if !self.rest().is_empty() || self.row >= self.lines.len() {
                return;
            }
            self.next_line();
        }
    }

    /// Whether only whitespace is left in the block (skips it).
    pub fn at_end(&mut self) -> bool {
        self.skip_ws();
        self.row >= self.lines.len()
    }

    /// The run of tag characters at the cursor (possibly empty), not consumed.
    pub fn peek_word(&self) -> &'a str {
        let rest = self.rest();
        let len = rest.find(|c| !is_tag_char(c)).unwrap_or(rest.len());
        &rest[..len]
    }

    /// Consumes the word at the cursor.
    pub fn take_word(&mut self) -> &'a str {
        let w = self.peek_word();
        self.bump(w.len());
        w
    }

    /// Consumes `kw` if it is the whole word at the cursor.
    pub fn eat_keyword(&mut self, kw: &str) -> bool {
        let hit = self.peek_word() == kw;
        if hit {
            self.bump(kw.len());
        }
        hit
    }

    /// Whether the cursor is at the word `kw` immediately followed by `:`.
    pub fn at_directive(&self, kw: &str) -> bool {
        self.peek_word() == kw && self.rest()[kw.len()..].starts_with(':')
    }

    /// Consumes `kw:` if the cursor is at that directive.
    pub fn eat_directive(&mut self, kw: &str) -> bool {
        let hit = self.at_directive(kw);
        if hit {
            self.bump(kw.len() + 1);
        }
        hit
    }

    /// Consumes `c` if it is the next character.
    pub fn eat_char(&mut self, c: char) -> bool {
        let hit = self.peek() == Some(c);
        if hit {
            self.bump(c.len_utf8());
        }
        hit
    }

    /// Consumes the rest of the current line and returns it trimmed.
    pub fn rest_of_line(&mut self) -> &'a str {
        let rest = self.rest().trim();
        self.next_line();
        rest
    }

    /// Consumes non-whitespace characters (a file name).
    pub fn take_nonspace(&mut self) -> &'a str {
        let rest = self.rest();
        let len = rest.find(char::is_whitespace).unwrap_or(rest.len());
        self.bump(len);
        &rest[..len]
    }

    /// The next whitespace-separated token, for error messages.
    pub fn describe_next(&mut self) -> String {
        if self.at_end() {
            return "end of test block".to_string();
        }
        let rest = self.rest();
        let tok = rest.split_whitespace().next().unwrap_or(rest);
        format!("`{tok}`")
    }

    /// An "unexpected ..., expected `expected`" error at the cursor.
    pub fn unexpected(&mut self, expected: &'static str) -> SpecError {
        let found = self.describe_next();
        SpecError::new(self.line(), ErrorKind::Unexpected { found, expected })
    }

    /// Reads a string literal starting at `"`, decoding simple backslash escapes.
    pub fn string_literal(&mut self) -> Result<String, SpecError> {
        let line = self.line();
        let rest = self.rest();
        let mut out = String::new();
        let mut chars = rest.char_indices().skip(1);
        while let Some((i, c)) = chars.next() {
            match c {
                '"' => {
                    self.bump(i + 1);
                    return Ok(out);
                }
                '\\' => match chars.next() {
                    Some((_, 'n')) => out.push('\n'),
                    Some((_, 't')) => out.push('\t'),
                    Some((_, e)) => out.push(e),
                    None => break,
                },
                _ => out.push(c),
            }
        }
        Err(SpecError::new(line, ErrorKind::UnclosedString))
    }

    /// Reads `{ ... }` starting at `{` and returns the text between the braces: comment
    /// prefixes removed, each line trimmed, lines joined by `\n`, blank ends dropped. Nested
    /// braces are balanced; braces in string literals (which end on their line) are ignored.
    pub fn braced(&mut self, what: &'static str) -> Result<String, SpecError> {
        let open_line = self.line();
        if !self.eat_char('{') {
            return Err(self.unexpected("`{`"));
        }
        let mut out: Vec<&str> = Vec::new();
        let mut depth = 0usize;
        while self.row < self.lines.len() {
            let rest = self.rest();
            let mut in_string = false;
            let mut escaped = false;
            for (i, c) in rest.char_indices() {
                if in_string {
                    match c {
                        _ if escaped => escaped = false,
                        '\\' => escaped = true,
                        '"' => in_string = false,
                        _ => {}
                    }
                    continue;
                }
                match c {
                    '"' => in_string = true,
                    '{' => depth += 1,
                    '}' if depth == 0 => {
                        out.push(rest[..i].trim());
                        self.bump(i + 1);
                        return Ok(out.join("\n").trim().to_string());
                    }
                    '}' => depth -= 1,
                    _ => {}
                }
            }
            if in_string {
                return Err(SpecError::new(self.line(), ErrorKind::UnclosedString));
            }
            out.push(rest.trim());
            self.next_line();
        }
        Err(SpecError::new(open_line, ErrorKind::UnclosedBrace { what }))
    }
}
