//! The layout formatter behind `futhark-rs fmt`: it normalises the whitespace *between lines*
//! and never moves a token relative to its line, so what a program means cannot change.
//!
//! Rules, applied in one pass:
//! - line endings become `\n` (a `\r` directly before a `\n` is dropped);
//! - spaces and tabs at the end of a line are removed;
//! - two or more blank lines in a row become one; blank lines at the start are removed;
//! - the text ends with exactly one newline (an empty or all-blank text becomes empty);
//! - a comma has no blank before it (unless it starts its line) and one space after it
//!   (`(a ,b)` becomes `(a, b)`), unless a line break or a closing bracket follows — only
//!   for the comma tokens of a text that lexes without errors, so commas in comments,
//!   strings and characters are left alone. Whitespace next to a comma never matters to
//!   what a program means.
//!
//! A line break inside a string literal (a string gap, `"a\   \n   \b"`) is left exactly as
//! it is, with the whitespace around it. Indentation and the other spacing between tokens on a
//! line are kept: in Futhark they can matter (`f [i]` applies, `f[i]` indexes), and changing
//! them needs a printer of the whole tree.
//!
//! **Invariant:** `format(&format(t)) == format(t)` for every text `t`.

use crate::lexer::{TokenKind, lex};
use crate::span::FileId;

/// The formatted text. Returns the input unchanged (as an owned string) when it is already
/// formatted.
pub fn format(text: &str) -> String {
    space_commas(&format_lines(text))
}

/// The rules about lines.
fn format_lines(text: &str) -> String {
    let protected = string_ranges(text);
    let in_string = |offset: usize| {
        // `protected` is sorted and disjoint; find the last range starting at or before.
        let i = protected.partition_point(|&(s, _)| s <= offset);
        i > 0 && offset < protected[i - 1].1
    };
    let mut out = String::with_capacity(text.len());
    let mut blank_run = 0usize;
    let mut seen_content = false;
    let mut offset = 0;
    for raw in text.split_inclusive('\n') {
        let line_start = offset;
        offset += raw.len();
        let has_newline = raw.ends_with('\n');
        let newline_at = line_start + raw.len() - usize::from(has_newline);
        if has_newline && in_string(newline_at) {
            // A string gap: keep the line as written, and count it as content.
            flush_blanks(&mut out, &mut blank_run, seen_content);
            out.push_str(raw);
            seen_content = true;
            continue;
        }
        let body = raw.strip_suffix('\n').unwrap_or(raw);
        let body = body.strip_suffix('\r').unwrap_or(body);
        // Trailing whitespace inside a string literal that ends the line cannot happen (a
        // string closes on its line or continues through a gap, handled above).
        let trimmed = body.trim_end_matches([' ', '\t']);
        if trimmed.is_empty() {
            blank_run += 1;
            continue;
        }
        flush_blanks(&mut out, &mut blank_run, seen_content);
        out.push_str(trimmed);
        out.push('\n');
        seen_content = true;
    }
    out
}

/// The comma rule: no blank before a comma that follows something on its line, one space
/// after a comma that is followed by something other than a line break or a closing bracket.
/// A text that does not lex cleanly is left as it is.
fn space_commas(text: &str) -> String {
    if !text.contains(',') {
        return text.to_string();
    }
    let lexed = lex(FileId(0), text);
    if !lexed.errors.is_empty() {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len() + text.len() / 32);
    let mut copied = 0;
    for t in lexed.tokens.iter().filter(|t| t.kind == TokenKind::Comma) {
        let (start, end) = (t.start as usize, t.end as usize);
        let before = &text[copied..start];
        let kept = before.trim_end_matches([' ', '\t']);
        // Blanks after the start of a line (indentation) or after another comma stay.
        let drop = kept.len() < before.len()
            && !(kept.is_empty() && (copied == 0 || text[..copied].ends_with([',', '\n'])))
            && !kept.ends_with(['\n', ',']);
        out.push_str(if drop { kept } else { before });
        out.push(',');
        let next = text[end..].chars().next();
        if next.is_some_and(|c| !matches!(c, ' ' | '\t' | '\n' | '\r' | ')' | ']' | '}')) {
            out.push(' ');
        }
        copied = end;
    }
    out.push_str(&text[copied..]);
    out
}

/// Emits one blank line for a run of blank lines between content lines.
fn flush_blanks(out: &mut String, blank_run: &mut usize, seen_content: bool) {
    if *blank_run > 0 && seen_content {
        out.push('\n');
    }
    *blank_run = 0;
}

/// Byte ranges of string literals that span lines, sorted.
fn string_ranges(text: &str) -> Vec<(usize, usize)> {
    if !text.contains('"') {
        return Vec::new();
    }
    let lexed = lex(FileId(0), text);
    lexed
        .tokens
        .iter()
        .filter(|t| t.kind == TokenKind::String)
        .map(|t| (t.start as usize, t.end as usize))
        .filter(|&(s, e)| text.get(s..e).is_some_and(|s| s.contains('\n')))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::format;

    fn ok(input: &str, expected: &str) {
        let once = format(input);
        assert_eq!(once, expected, "input {input:?}");
        assert_eq!(format(&once), once, "not idempotent on {input:?}");
    }

    #[test]
    fn trailing_space_blank_runs_and_the_final_newline() {
        ok(
            "def x = 1   \n\n\n\ndef y = 2\t",
            "def x = 1\n\ndef y = 2\n",
        );
        ok("\n\n  \ndef x = 1\n\n\n", "def x = 1\n");
        ok("", "");
        ok(" \n\t\n", "");
    }

    #[test]
    fn crlf_becomes_lf_and_indentation_stays() {
        ok(
            "def f x =\r\n  let y = x\r\n\tin y  \r\n",
            "def f x =\n  let y = x\n\tin y\n",
        );
    }

    #[test]
    fn spacing_on_a_line_is_kept() {
        ok("def a = f [i]  +  g[i]\n", "def a = f [i]  +  g[i]\n");
        ok(
            "-- ==\n-- input { 1 }   \n-- output { 2 }\n",
            "-- ==\n-- input { 1 }\n-- output { 2 }\n",
        );
    }

    #[test]
    fn commas_get_one_space_after_and_none_before() {
        ok("def p = (1,2 , 3)\n", "def p = (1, 2, 3)\n");
        ok(
            "def r = {a=1,b=[1,2,]}\ntype t = (i32,i64)\n",
            "def r = {a=1, b=[1, 2,]}\ntype t = (i32, i64)\n",
        );
        // Wider gaps after a comma, line breaks and leading commas stay.
        ok(
            "def a = [1,   2,\n         3]\n",
            "def a = [1,   2,\n         3]\n",
        );
        ok("def a = (1\n        , 2)\n", "def a = (1\n        , 2)\n");
        // Commas in comments, strings and characters are not tokens.
        ok(
            "-- a,b\ndef s = \"x,y\"\ndef c = ','\n",
            "-- a,b\ndef s = \"x,y\"\ndef c = ','\n",
        );
        // A text that does not lex is left as it is.
        ok(
            "def s = \"a,b\ndef t = (1,2)\n",
            "def s = \"a,b\ndef t = (1,2)\n",
        );
    }

    #[test]
    fn string_gaps_are_left_alone() {
        let src = "def s = \"ab\\   \n\n     \\cd\"   \n";
        ok(src, "def s = \"ab\\   \n\n     \\cd\"\n");
    }
}
