//! Positions: LSP speaks (line, UTF-16 code unit) pairs, the analysis speaks byte offsets.
//! Every conversion clamps instead of failing, so an out-of-range position from a client
//! lands at the nearest valid place (end of line, end of file).

use tower_lsp_server::ls_types::{Position, Range};

use futhark_ide::TextRange;

/// Line starts of one text, for conversions in both directions.
#[derive(Clone, Debug)]
pub struct LineIndex {
    line_starts: Vec<u32>,
}

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        let mut line_starts = vec![0];
        line_starts.extend(
            text.bytes()
                .enumerate()
                .filter(|(_, b)| *b == b'\n')
                .map(|(i, _)| i as u32 + 1),
        );
        LineIndex { line_starts }
    }

    /// The byte offset of `pos` in `text`. A line past the end gives the end of the text;
    /// a character past the end of its line gives the end of the line (before `\r\n`); a
    /// position inside a surrogate pair gives the start of that character.
    pub fn offset(&self, text: &str, pos: Position) -> u32 {
        let Some(&start) = self.line_starts.get(pos.line as usize) else {
            return text.len() as u32;
        };
        let end = self
            .line_starts
            .get(pos.line as usize + 1)
            .map_or(text.len(), |&next| next as usize - 1);
        let line = text.get(start as usize..end).unwrap_or("");
        let line = line.strip_suffix('\r').unwrap_or(line);
        let mut units = 0u32;
        for (i, c) in line.char_indices() {
            let next = units + c.len_utf16() as u32;
            if units >= pos.character || next > pos.character {
                return start + i as u32;
            }
            units = next;
        }
        start + line.len() as u32
    }

    /// The position of a byte offset (clamped to the text and to a character boundary).
    pub fn position(&self, text: &str, offset: u32) -> Position {
        let mut offset = (offset as usize).min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self
            .line_starts
            .partition_point(|&s| s as usize <= offset)
            .saturating_sub(1);
        let start = self.line_starts[line] as usize;
        let character: usize = text[start..offset].chars().map(char::len_utf16).sum();
        Position::new(line as u32, character as u32)
    }

    pub fn range(&self, text: &str, range: TextRange) -> Range {
        Range::new(
            self.position(text, range.start),
            self.position(text, range.end),
        )
    }

    /// A byte range, with the ends put in order.
    pub fn text_range(&self, text: &str, range: Range) -> TextRange {
        let a = self.offset(text, range.start);
        let b = self.offset(text, range.end);
        TextRange::new(a.min(b), a.max(b))
    }
}

#[cfg(test)]
mod tests {
    use tower_lsp_server::ls_types::Position;

    use super::LineIndex;

    #[test]
    fn ascii_round_trip() {
        let text = "def x = 1\ndef y = 2\n";
        let idx = LineIndex::new(text);
        for offset in 0..=text.len() as u32 {
            assert_eq!(idx.offset(text, idx.position(text, offset)), offset);
        }
        assert_eq!(idx.position(text, 14), Position::new(1, 4));
    }

    #[test]
    fn astral_characters_count_two_units() {
        // "𝔸" is U+1D538: four bytes in UTF-8, a surrogate pair in UTF-16.
        let text = "-- 𝔸é x\ndef x = 1";
        let idx = LineIndex::new(text);
        let x = text.find(" x").map(|i| i as u32 + 1).unwrap_or_default();
        assert_eq!(idx.position(text, x), Position::new(0, 7));
        assert_eq!(idx.offset(text, Position::new(0, 7)), x);
        // Inside the surrogate pair: snap to the character's start.
        assert_eq!(idx.offset(text, Position::new(0, 4)), 3);
        assert_eq!(idx.offset(text, Position::new(0, 5)), 7);
    }

    #[test]
    fn out_of_range_positions_clamp() {
        let text = "ab\r\ncd";
        let idx = LineIndex::new(text);
        assert_eq!(idx.offset(text, Position::new(0, 99)), 2);
        assert_eq!(idx.offset(text, Position::new(7, 0)), 6);
        assert_eq!(idx.position(text, 999), Position::new(1, 2));
        // An offset inside a multi-byte character moves back to its start.
        let text = "é";
        assert_eq!(LineIndex::new(text).position(text, 1), Position::new(0, 0));
    }
}
