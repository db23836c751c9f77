//! Selection ranges (`textDocument/selectionRange`): from the token at a position outwards
//! through the brackets that enclose it, its line's code, the declarations that enclose it
//! (innermost first, modules included) and the whole file.

use futhark_db::Db;
use futhark_syntax::lexer::{TokenKind, lex};

use crate::symbols::{Symbol, document_symbols};
use crate::{FilePosition, TextRange};

/// The ranges around `pos`, innermost first; each contains the one before it.
pub fn selection_ranges(db: &dyn Db, pos: FilePosition) -> Vec<TextRange> {
    let text = pos.file.text(db);
    let at = pos.offset;
    let mut out: Vec<TextRange> = Vec::new();
    let mut push = |r: TextRange| {
        let grows = match out.last() {
            Some(last) => r.start <= last.start && r.end >= last.end && r != *last,
            None => r.start <= at && at <= r.end,
        };
        if grows {
            out.push(r);
        }
    };
    let lexed = lex(pos.file.id(db), text);
    let tokens: Vec<_> = lexed
        .tokens
        .iter()
        .filter(|t| t.kind != TokenKind::Eof)
        .collect();
    if let Some(t) = tokens.iter().find(|t| t.start <= at && at <= t.end) {
        push(TextRange::new(t.start, t.end));
    }
    // Enclosing bracket pairs, innermost first.
    let mut stack: Vec<u32> = Vec::new();
    let mut pairs: Vec<TextRange> = Vec::new();
    for t in &tokens {
        match t.kind {
            TokenKind::LParen
            | TokenKind::LBracket
            | TokenKind::IndexBracket
            | TokenKind::LBrace
            | TokenKind::HashBracket => stack.push(t.start),
            TokenKind::RParen | TokenKind::RBracket | TokenKind::RBrace => {
                if let Some(open) = stack.pop()
                    && open < at
                    && at < t.end
                {
                    pairs.push(TextRange::new(open, t.end));
                }
            }
            _ => {}
        }
    }
    pairs.sort_by_key(|r| r.end - r.start);
    for r in pairs {
        // The inside of the brackets, then the brackets.
        if r.end - r.start > 2 {
            push(TextRange::new(r.start + 1, r.end - 1));
        }
        push(r);
    }
    let mut decls = Vec::new();
    enclosing(&document_symbols(db, pos.file), at, &mut decls);
    for r in decls.into_iter().rev() {
        push(r);
    }
    push(TextRange::new(0, text.len() as u32));
    out
}

/// The full ranges of the declarations containing `at`, outermost first.
fn enclosing(symbols: &[Symbol], at: u32, out: &mut Vec<TextRange>) {
    for s in symbols {
        if s.full_range.start <= at && at <= s.full_range.end {
            out.push(s.full_range);
            enclosing(&s.children, at, out);
        }
    }
}
