//! Applying the client's incremental changes: to a document's text, and to the ranges of
//! the type errors last computed for it, so that those stay where they belong (as an
//! editor moves its markers) until the checker has caught up with the edit.

use tower_lsp_server::ls_types::{Diagnostic, Position, Range, TextDocumentContentChangeEvent};

use crate::line_index::LineIndex;

/// Applies one content change to a document's text.
pub fn apply_change(text: &mut String, change: &TextDocumentContentChangeEvent) {
    match change.range {
        None => change.text.clone_into(text),
        Some(range) => {
            let index = LineIndex::new(text);
            let r = index.text_range(text, range);
            text.replace_range(r.start as usize..r.end as usize, &change.text);
        }
    }
}

/// Moves diagnostics through one change made to `before` (the text the change's range
/// refers to). A diagnostic inside the replaced range collapses to the start of the new
/// text; a whole-document replacement drops them all.
pub fn shift_diagnostics(
    diags: &mut Vec<Diagnostic>,
    before: &str,
    change: &TextDocumentContentChangeEvent,
) {
    let Some(range) = change.range else {
        diags.clear();
        return;
    };
    let index = LineIndex::new(before);
    // The change's ends as the server resolved them (clamped, ordered).
    let r = index.text_range(before, range);
    let (start, end) = (
        index.position(before, r.start),
        index.position(before, r.end),
    );
    let new_end = end_of_insert(start, &change.text);
    let shift = |p: Position| -> Position {
        if p <= start {
            p
        } else if p < end {
            new_end
        } else if p.line == end.line {
            Position::new(
                new_end.line,
                new_end.character + (p.character - end.character),
            )
        } else {
            Position::new(p.line + new_end.line - end.line, p.character)
        }
    };
    for d in diags.iter_mut() {
        d.range = Range::new(shift(d.range.start), shift(d.range.end));
    }
}

/// Where text inserted at `start` ends.
fn end_of_insert(start: Position, text: &str) -> Position {
    let lines = text.matches('\n').count() as u32;
    let last = text.rsplit('\n').next().unwrap_or("");
    let width = last.encode_utf16().count() as u32;
    if lines == 0 {
        Position::new(start.line, start.character + width)
    } else {
        Position::new(start.line + lines, width)
    }
}

#[cfg(test)]
mod tests {
    use tower_lsp_server::ls_types::{Diagnostic, Position, Range, TextDocumentContentChangeEvent};

    use super::{apply_change, shift_diagnostics};

    fn change(
        range: Option<((u32, u32), (u32, u32))>,
        text: &str,
    ) -> TextDocumentContentChangeEvent {
        TextDocumentContentChangeEvent {
            range: range
                .map(|((a, b), (c, d))| Range::new(Position::new(a, b), Position::new(c, d))),
            range_length: None,
            text: text.to_string(),
        }
    }

    #[test]
    fn incremental_edits_with_astral_characters() {
        let mut text = "-- 𝔸\ndef x = 1\n".to_string();
        // After the surrogate pair: column 5 in UTF-16.
        apply_change(&mut text, &change(Some(((0, 5), (0, 5))), "!"));
        assert_eq!(text, "-- 𝔸!\ndef x = 1\n");
        apply_change(&mut text, &change(Some(((1, 8), (1, 9))), "42"));
        assert_eq!(text, "-- 𝔸!\ndef x = 42\n");
        // Out of range: clamped to the end.
        apply_change(&mut text, &change(Some(((9, 0), (9, 3))), "def y = 2\n"));
        assert_eq!(text, "-- 𝔸!\ndef x = 42\ndef y = 2\n");
        // Reversed ends are put in order.
        apply_change(&mut text, &change(Some(((1, 10), (1, 8))), "7"));
        assert_eq!(text, "-- 𝔸!\ndef x = 7\ndef y = 2\n");
        apply_change(&mut text, &change(None, "all new"));
        assert_eq!(text, "all new");
    }

    fn at(line: u32, a: u32, b: u32) -> Diagnostic {
        Diagnostic {
            range: Range::new(Position::new(line, a), Position::new(line, b)),
            ..Diagnostic::default()
        }
    }

    fn ranges(diags: &[Diagnostic]) -> Vec<(u32, u32, u32, u32)> {
        diags
            .iter()
            .map(|d| {
                (
                    d.range.start.line,
                    d.range.start.character,
                    d.range.end.line,
                    d.range.end.character,
                )
            })
            .collect()
    }

    #[test]
    fn diagnostics_follow_the_text() {
        let before = "def a = x\ndef b = y\n";
        let mut diags = vec![at(0, 8, 9), at(1, 8, 9)];
        // Insert a line at the top: both move down.
        shift_diagnostics(
            &mut diags,
            before,
            &change(Some(((0, 0), (0, 0))), "-- hi\n"),
        );
        assert_eq!(ranges(&diags), vec![(1, 8, 1, 9), (2, 8, 2, 9)]);
        // Widen `def a` on the first diagnostic's line: it moves right, the other stays.
        let before = "-- hi\ndef a = x\ndef b = y\n";
        shift_diagnostics(&mut diags, before, &change(Some(((1, 4), (1, 5))), "alpha"));
        assert_eq!(ranges(&diags), vec![(1, 12, 1, 13), (2, 8, 2, 9)]);
        // Delete the first diagnostic's text: it collapses to the edit.
        let before = "-- hi\ndef alpha = x\ndef b = y\n";
        shift_diagnostics(&mut diags, before, &change(Some(((1, 10), (2, 0))), ""));
        assert_eq!(ranges(&diags), vec![(1, 10, 1, 10), (1, 18, 1, 19)]);
        // A full replacement forgets them.
        shift_diagnostics(&mut diags, before, &change(None, "x"));
        assert!(diags.is_empty());
    }
}
