//! Moving positions of a previous check to the new text of a file: spans before the edited
//! part stay, spans after it shift by the change in length, spans inside it have no place.

use futhark_syntax::{Diagnostic, FileId, Span};

use crate::env::ValBinding;
use crate::info::DefRef;

/// Moves spans of the old text to the new one: unchanged before the edit, shifted after it,
/// `None` inside the edited part.
#[derive(Clone, Copy, Debug)]
pub(super) struct Remap {
    file: FileId,
    prefix: u32,
    old_suffix_start: u32,
    delta: i64,
}

impl Remap {
    pub(super) fn new(file: FileId, old: &str, new: &str) -> Remap {
        let (a, b) = (old.as_bytes(), new.as_bytes());
        let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
        let room = a.len().min(b.len()) - prefix;
        let suffix = a
            .iter()
            .rev()
            .zip(b.iter().rev())
            .take(room)
            .take_while(|(x, y)| x == y)
            .count();
        Remap {
            file,
            prefix: prefix as u32,
            old_suffix_start: (a.len() - suffix) as u32,
            delta: b.len() as i64 - a.len() as i64,
        }
    }

    pub(super) fn range(&self, start: u32, end: u32) -> Option<(u32, u32)> {
        if end <= self.prefix {
            Some((start, end))
        } else if start >= self.old_suffix_start {
            let shift = |p: u32| (i64::from(p) + self.delta) as u32;
            Some((shift(start), shift(end)))
        } else {
            None
        }
    }

    /// Whether `s` lies after the edited part (and so moves).
    pub(super) fn shifts(&self, s: Span) -> bool {
        s.file == self.file && s.start >= self.old_suffix_start
    }

    pub(super) fn span(&self, s: Span) -> Option<Span> {
        if s.file != self.file {
            return Some(s);
        }
        let (start, end) = self.range(s.start, s.end)?;
        Some(Span { start, end, ..s })
    }

    pub(super) fn def(&self, d: &DefRef) -> Option<DefRef> {
        let span = match d.span {
            Some(s) => Some(self.span(s)?),
            None => None,
        };
        Some(DefRef { span, ..d.clone() })
    }

    pub(super) fn diag(&self, d: &Diagnostic) -> Option<Diagnostic> {
        let mut d = d.clone();
        d.span = self.span(d.span)?;
        for l in &mut d.labels {
            l.span = self.span(l.span)?;
        }
        Some(d)
    }

    pub(super) fn val(&self, b: &ValBinding) -> Option<ValBinding> {
        Some(ValBinding {
            def: self.def(&b.def)?,
            ..b.clone()
        })
    }
}
