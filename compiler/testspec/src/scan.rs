//! Finding test blocks in program text: comments at column 0 with a line that is exactly `-- ==`.
//!
//! A comment is a maximal run of consecutive lines starting with `--` in column 0. Only the
//! exact line `-- ==` (trailing whitespace allowed) separates; `--==` or `-- -- ==` do not,
//! as in the reference implementation.

use crate::error::{ErrorKind, SpecError};

/// One line of a test block body: the text after the leading `--`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct BodyLine<'a> {
    /// 1-based source line number.
    pub number: u32,
    /// The line without its `--` prefix (and without a trailing `\r`).
    pub text: &'a str,
}

/// A test block before its body is parsed.
#[derive(Debug, Clone)]
pub(crate) struct RawBlock<'a> {
    /// 1-based line of the `-- ==` separator.
    pub line: u32,
    /// Description lines joined with `\n`.
    pub description: String,
    /// The comment lines after the separator.
    pub body: Vec<BodyLine<'a>>,
}

/// Whether `line` (without line terminator) is the block separator.
fn is_separator(line: &str) -> bool {
    line.trim_end() == "-- =="
}

/// All comments of `src` that contain a separator, in source order. A comment with two
/// separators yields an error in place of a block.
pub(crate) fn raw_blocks(src: &str) -> Vec<Result<RawBlock<'_>, SpecError>> {
    let src = src.strip_prefix('\u{feff}').unwrap_or(src);
    let lines: Vec<&str> = src
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect();
    let mut blocks = Vec::new();
    let mut start = 0;
    while start < lines.len() {
        if !lines[start].starts_with("--") {
            start += 1;
            continue;
        }
        let end = lines[start..]
            .iter()
            .position(|l| !l.starts_with("--"))
            .map_or(lines.len(), |n| start + n);
        if let Some(block) = comment_block(&lines[start..end], start) {
            blocks.push(block);
        }
        start = end;
    }
    blocks
}

/// The test block in one comment (`first` is the 0-based index of its first line), if any.
fn comment_block<'a>(comment: &[&'a str], first: usize) -> Option<Result<RawBlock<'a>, SpecError>> {
    let number = |i: usize| u32::try_from(first + i + 1).unwrap_or(u32::MAX);
    let mut seps = comment
        .iter()
        .enumerate()
        .filter(|(_, l)| is_separator(l))
        .map(|(i, _)| i);
    let sep = seps.next()?;
    if let Some(second) = seps.next() {
        let err = ErrorKind::SecondSeparator(number(sep));
        return Some(Err(SpecError::new(number(second), err)));
    }
    let body = comment[sep + 1..]
        .iter()
        .enumerate()
        .map(|(i, l)| BodyLine {
            number: number(sep + 1 + i),
            text: &l[2..],
        })
        .collect();
    Some(Ok(RawBlock {
        line: number(sep),
        description: description(&comment[..sep]),
        body,
    }))
}

/// The description text: comment prefixes (and one following space) removed, surrounding
/// blank lines dropped.
fn description(lines: &[&str]) -> String {
    let texts: Vec<&str> = lines
        .iter()
        .map(|l| {
            let t = &l[2..];
            t.strip_prefix(' ').unwrap_or(t).trim_end()
        })
        .collect();
    let first = texts.iter().position(|t| !t.is_empty());
    let last = texts.iter().rposition(|t| !t.is_empty());
    match (first, last) {
        (Some(a), Some(b)) => texts[a..=b].join("\n"),
        _ => String::new(),
    }
}
