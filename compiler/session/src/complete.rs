//! Completion of names in the session's scope, module members after `M.`, commands and file
//! names after `:load`; and whether a cell's text is complete (for multi-line input and
//! Jupyter's `is_complete_request`).
//!
//! Completion reads the checker's scope of the session rather than one file's syntax, so
//! names from every earlier cell and the loaded file are offered with their signatures.

use futhark_check::FileScope;
use futhark_syntax::FileId;
use futhark_syntax::lexer::{TokenKind, lex};

use crate::inspect::{NameKind, module_env};

/// What a candidate is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CandidateKind {
    Name(NameKind),
    Keyword,
    Command,
    Path,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Candidate {
    pub text: String,
    pub kind: CandidateKind,
}

/// Candidates replacing `text[start..end]`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Completions {
    pub start: usize,
    pub end: usize,
    pub items: Vec<Candidate>,
}

const KEYWORDS: [&str; 26] = [
    "assert",
    "case",
    "def",
    "do",
    "else",
    "entry",
    "false",
    "for",
    "if",
    "import",
    "in",
    "include",
    "let",
    "local",
    "loop",
    "match",
    "module",
    "open",
    "then",
    "true",
    "type",
    "val",
    "while",
    "with",
    "#[trace]",
    "#[unsafe]",
];

fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '\''
}

/// Completions at byte offset `cursor` of `text`. `marker` is the character that starts a
/// command (`:` in the REPL, `%` in notebooks) and `commands` their names.
pub fn complete(
    scope: &FileScope,
    text: &str,
    cursor: usize,
    marker: char,
    commands: &[&str],
) -> Completions {
    let cursor = floor_char_boundary(text, cursor);
    let before = &text[..cursor];
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let line = &before[line_start..];
    let trimmed = line.trim_start();
    if let Some(rest) = trimmed.strip_prefix(marker) {
        if !rest.contains(char::is_whitespace) {
            let start = cursor - rest.len();
            let items = commands
                .iter()
                .filter(|c| c.starts_with(rest))
                .map(|c| Candidate {
                    text: c.to_string(),
                    kind: CandidateKind::Command,
                })
                .collect();
            return Completions {
                start,
                end: cursor,
                items,
            };
        }
        let command = rest.split_whitespace().next().unwrap_or_default();
        if "load".starts_with(command) && !command.is_empty() {
            let arg = rest[command.len()..].trim_start();
            return complete_path(arg, cursor);
        }
    }
    // The word before the cursor: a name, possibly qualified (`f32.sq`).
    let word_start = before
        .char_indices()
        .rev()
        .take_while(|(_, c)| is_name_char(*c) || *c == '.')
        .last()
        .map_or(cursor, |(i, _)| i);
    let word = &before[word_start..];
    let (qualifier, partial) = match word.rfind('.') {
        Some(i) => (&word[..i], &word[i + 1..]),
        None => ("", word),
    };
    let start = cursor - partial.len();
    let mut items: Vec<Candidate> = Vec::new();
    let path: Vec<&str> = if qualifier.is_empty() {
        Vec::new()
    } else {
        qualifier.split('.').collect()
    };
    if let Some(env) = module_env(&scope.env, &path) {
        let mut push = |name: &str, kind: NameKind| {
            let alnum = name
                .chars()
                .next()
                .is_some_and(|c| c.is_alphabetic() || c == '_');
            if alnum && name.starts_with(partial) {
                items.push(Candidate {
                    text: name.to_string(),
                    kind: CandidateKind::Name(kind),
                });
            }
        };
        for n in env.vals.keys() {
            push(n, NameKind::Value);
        }
        for n in env.types.keys() {
            push(n, NameKind::Type);
        }
        for n in env.mods.keys() {
            push(n, NameKind::Module);
        }
        for n in env.modtypes.keys() {
            push(n, NameKind::ModuleType);
        }
    }
    if qualifier.is_empty() && !partial.is_empty() {
        for k in KEYWORDS {
            if k.starts_with(partial) {
                items.push(Candidate {
                    text: k.to_string(),
                    kind: CandidateKind::Keyword,
                });
            }
        }
    }
    items.sort_by(|a, b| a.text.cmp(&b.text).then(a.kind.cmp(&b.kind)));
    items.dedup_by(|a, b| a.text == b.text);
    Completions {
        start,
        end: cursor,
        items,
    }
}

/// File and directory names completing `arg` (the text after `:load `).
fn complete_path(arg: &str, cursor: usize) -> Completions {
    let (dir, partial) = match arg.rfind('/') {
        Some(i) => (&arg[..=i], &arg[i + 1..]),
        None => ("", arg),
    };
    let read_dir = if dir.is_empty() { "." } else { dir };
    let mut items: Vec<Candidate> = std::fs::read_dir(read_dir)
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let is_dir = e.file_type().is_ok_and(|t| t.is_dir());
            let wanted = is_dir || name.ends_with(".fut");
            (wanted && name.starts_with(partial) && !name.starts_with('.')).then(|| Candidate {
                text: if is_dir { format!("{name}/") } else { name },
                kind: CandidateKind::Path,
            })
        })
        .collect();
    items.sort_by(|a, b| a.text.cmp(&b.text));
    Completions {
        start: cursor - partial.len(),
        end: cursor,
        items,
    }
}

fn floor_char_boundary(text: &str, mut i: usize) -> usize {
    i = i.min(text.len());
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Whether a cell's text is ready to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Completeness {
    Complete,
    /// More lines are expected: a bracket is open or the text stops mid-declaration.
    Incomplete,
    /// It cannot become valid by adding text (running it reports the error).
    Invalid,
}

/// Decides whether `text` is complete. Commands (starting with `marker`) are always
/// complete.
pub fn is_complete(text: &str, marker: char) -> Completeness {
    let trimmed = text.trim();
    if trimmed.is_empty() || trimmed.starts_with(marker) {
        return Completeness::Complete;
    }
    let lexed = lex(FileId(0), text);
    let mut depth: i64 = 0;
    for t in &lexed.tokens {
        match t.kind {
            TokenKind::LParen
            | TokenKind::LBracket
            | TokenKind::IndexBracket
            | TokenKind::LBrace
            | TokenKind::HashBracket => depth += 1,
            TokenKind::RParen | TokenKind::RBracket | TokenKind::RBrace => {
                depth -= 1;
                if depth < 0 {
                    return Completeness::Invalid;
                }
            }
            _ => {}
        }
    }
    if depth > 0 {
        return Completeness::Incomplete;
    }
    let end = text.trim_end().len() as u32;
    if lexed
        .errors
        .iter()
        .any(|e| e.span.end >= end && e.message.contains("unterminated"))
    {
        return Completeness::Incomplete;
    }
    let cell = futhark_db::parse_cell(FileId(0), text);
    match cell.errors.first() {
        None => Completeness::Complete,
        Some(e) if e.span.start >= end => Completeness::Incomplete,
        Some(_) => Completeness::Invalid,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn brackets_and_unfinished_declarations_continue() {
        assert_eq!(
            is_complete("map (+1) (iota 3", ':'),
            Completeness::Incomplete
        );
        assert_eq!(
            is_complete("def f (x: i32) =", ':'),
            Completeness::Incomplete
        );
        assert_eq!(is_complete("let y = 1 in", ':'), Completeness::Incomplete);
        assert_eq!(is_complete("if true then 1", ':'), Completeness::Incomplete);
        assert_eq!(
            is_complete("def f (x: i32) = x + 1", ':'),
            Completeness::Complete
        );
        assert_eq!(is_complete("1 + 2", ':'), Completeness::Complete);
        assert_eq!(is_complete("", ':'), Completeness::Complete);
        assert_eq!(is_complete(":type 1 +", ':'), Completeness::Complete);
        assert_eq!(is_complete("#[trace] (1 + 2)", ':'), Completeness::Complete);
    }

    #[test]
    fn stray_closers_are_invalid() {
        assert_eq!(is_complete("1 + 2)", ':'), Completeness::Invalid);
        assert_eq!(is_complete("def = = 3", ':'), Completeness::Invalid);
    }
}
