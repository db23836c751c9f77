//! The rustyline helper: completion of names, module members, commands and file names
//! from the session, multi-line input that continues while a cell is incomplete, syntax
//! highlighting with the classes the LSP's semantic tokens give (the same lexer,
//! `futhark_ide::lexical_tokens`), and hints from the history.

use std::borrow::Cow;
use std::cell::RefCell;
use std::rc::Rc;

use futhark_ide::TokenClass;
use futhark_session::{Completeness, Session};
use rustyline::completion::{Completer, Pair};
use rustyline::highlight::CmdKind;
use rustyline::highlight::Highlighter;
use rustyline::hint::{Hinter, HistoryHinter};
use rustyline::validate::{ValidationContext, ValidationResult, Validator};
use rustyline::{Context, Helper};

/// Shares the session with the main loop, which only evaluates while no line is being
/// edited, so the borrows never overlap.
pub struct ReplHelper {
    pub session: Rc<RefCell<Session>>,
    /// Whether to colour the input line and hints (a terminal, and no `NO_COLOR`).
    pub color: bool,
    pub hinter: HistoryHinter,
}

impl Completer for ReplHelper {
    type Candidate = Pair;

    fn complete(
        &self,
        line: &str,
        pos: usize,
        _ctx: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<Pair>)> {
        let Ok(session) = self.session.try_borrow() else {
            return Ok((pos, Vec::new()));
        };
        let c = session.complete(line, pos, ':');
        let pairs = c
            .items
            .into_iter()
            .map(|i| Pair {
                display: i.text.clone(),
                replacement: i.text,
            })
            .collect();
        Ok((c.start, pairs))
    }
}

impl Hinter for ReplHelper {
    type Hint = String;

    /// The rest of the newest history entry that starts with the line.
    fn hint(&self, line: &str, pos: usize, ctx: &Context<'_>) -> Option<String> {
        self.hinter.hint(line, pos, ctx)
    }
}

impl Highlighter for ReplHelper {
    fn highlight<'l>(&self, line: &'l str, _pos: usize) -> Cow<'l, str> {
        if !self.color {
            return Cow::Borrowed(line);
        }
        Cow::Owned(highlight(line))
    }

    fn highlight_hint<'h>(&self, hint: &'h str) -> Cow<'h, str> {
        if !self.color {
            return Cow::Borrowed(hint);
        }
        Cow::Owned(format!("\x1b[2m{hint}\x1b[0m"))
    }

    fn highlight_char(&self, _line: &str, _pos: usize, kind: CmdKind) -> bool {
        self.color && kind != CmdKind::ForcedRefresh
    }
}

/// The ANSI colour of a token class (`None`: the terminal's default).
fn colour(class: TokenClass) -> Option<&'static str> {
    match class {
        TokenClass::Keyword => Some("35"),
        TokenClass::Number => Some("36"),
        TokenClass::String => Some("32"),
        TokenClass::Comment => Some("2"),
        TokenClass::Attribute => Some("33"),
        TokenClass::Operator => Some("34"),
        TokenClass::Constructor => Some("33"),
        _ => None,
    }
}

/// `line` with ANSI colours: a command's name (`:type`) bold, the rest by token class.
pub fn highlight(line: &str) -> String {
    let (head, code) = match line.strip_prefix(':') {
        Some(rest) => {
            let end = rest.find(char::is_whitespace).map_or(line.len(), |i| i + 1);
            (format!("\x1b[1m{}\x1b[0m", &line[..end]), &line[end..])
        }
        None => (String::new(), line),
    };
    let mut out = head;
    let mut at = 0usize;
    for t in futhark_ide::lexical_tokens(code) {
        let (start, end) = (t.range.start as usize, t.range.end as usize);
        if start < at || !code.is_char_boundary(start) || !code.is_char_boundary(end) {
            continue;
        }
        let Some(c) = colour(t.class) else {
            continue;
        };
        out.push_str(&code[at..start]);
        out.push_str(&format!("\x1b[{c}m{}\x1b[0m", &code[start..end]));
        at = end;
    }
    out.push_str(&code[at..]);
    out
}

impl Validator for ReplHelper {
    fn validate(&self, ctx: &mut ValidationContext<'_>) -> rustyline::Result<ValidationResult> {
        Ok(validate(ctx.input()))
    }
}

impl Helper for ReplHelper {}

/// Whether to submit `input`: always after an empty line (the way out of a cell that would
/// otherwise wait for more), else when the text is not incomplete.
pub fn validate(input: &str) -> ValidationResult {
    if input.ends_with('\n') || input.ends_with("\n\r") {
        return ValidationResult::Valid(None);
    }
    match futhark_session::complete::is_complete(input, ':') {
        Completeness::Incomplete => ValidationResult::Incomplete,
        Completeness::Complete | Completeness::Invalid => ValidationResult::Valid(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The text without its ANSI escapes.
    fn plain(s: &str) -> String {
        let mut out = String::new();
        let mut chars = s.chars();
        while let Some(c) = chars.next() {
            if c == '\x1b' {
                for d in chars.by_ref() {
                    if d == 'm' {
                        break;
                    }
                }
            } else {
                out.push(c);
            }
        }
        out
    }

    #[test]
    fn highlighting_colours_tokens_and_keeps_the_text() {
        let line = "def f (x: i32) = x + 1 -- one more";
        let h = highlight(line);
        assert_eq!(plain(&h), line);
        assert!(h.contains("\x1b[35mdef\x1b[0m"), "{h:?}");
        assert!(h.contains("\x1b[36m1\x1b[0m"), "{h:?}");
        assert!(h.contains("\x1b[2m-- one more\x1b[0m"), "{h:?}");
        let cmd = highlight(":type map (+1) [1]");
        assert_eq!(plain(&cmd), ":type map (+1) [1]");
        assert!(cmd.starts_with("\x1b[1m:type\x1b[0m"), "{cmd:?}");
        assert_eq!(plain(&highlight("\"unterminated")), "\"unterminated");
    }
}
