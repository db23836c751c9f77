//! Where interpreter spans point in the session's cells.
//!
//! The interpreter reads files and cells under the database's ids, so most spans need no
//! translation. An expression cell is evaluated as `def it = <exp>`, whose spans are the
//! user's shifted right by the prefix; a [`SpanMap`] shifts them back, and names cells `[N]`
//! in the `file:line:col` text of `#[trace]` lines.

use std::collections::HashMap;
use std::sync::Arc;

use futhark_syntax::{FileId, LineIndex, Span};

/// How a cell's text relates to what the interpreter evaluated.
#[derive(Clone, Debug)]
pub struct Origin {
    /// Bytes the interpreter's text has in front of the original (a synthetic prefix).
    pub shift: u32,
    /// The name shown in locations: `[3]` for cell 3.
    pub name: String,
    /// The original text (for line and column numbers).
    pub text: Arc<str>,
}

/// Cells by file id.
#[derive(Default)]
pub struct SpanMap {
    origins: HashMap<FileId, (Origin, LineIndex)>,
}

impl SpanMap {
    pub fn insert(&mut self, file: FileId, origin: Origin) {
        let index = LineIndex::new(&origin.text);
        self.origins.insert(file, (origin, index));
    }

    /// The span in the user's text.
    pub fn map(&self, span: Span) -> Span {
        let Some((o, _)) = self.origins.get(&span.file) else {
            return span;
        };
        let len = o.text.len() as u32;
        let start = span.start.saturating_sub(o.shift).min(len);
        let end = span.end.saturating_sub(o.shift).clamp(start, len);
        Span::new(span.file, start, end)
    }

    /// `[N]:line:col-col` for a span in a cell; `None` for other files.
    pub fn describe(&self, span: Span) -> Option<String> {
        let (o, index) = self.origins.get(&span.file)?;
        let mapped = self.map(span);
        let (l1, c1) = index.line_col(mapped.start);
        let (l2, c2) = index.line_col(mapped.end.max(mapped.start + 1) - 1);
        Some(if l1 == l2 {
            format!("{}:{l1}:{c1}-{c2}", o.name)
        } else {
            format!("{}:{l1}:{c1}-{l2}:{c2}", o.name)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shifted_spans_map_back() {
        let mut m = SpanMap::default();
        m.insert(
            FileId(7),
            Origin {
                shift: 9,
                name: "[3]".into(),
                text: Arc::from("1 + x"),
            },
        );
        assert_eq!(
            m.map(Span::new(FileId(7), 13, 14)),
            Span::new(FileId(7), 4, 5)
        );
        assert_eq!(
            m.describe(Span::new(FileId(7), 13, 14)).as_deref(),
            Some("[3]:1:5-5")
        );
        assert_eq!(
            m.map(Span::new(FileId(1), 0, 1)),
            Span::new(FileId(1), 0, 1)
        );
    }
}
