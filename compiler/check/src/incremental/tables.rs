//! Side tables (expression types, resolutions, …) of replayed declarations: taken over from
//! the previous result in one pass, moved to the new text.

use std::collections::HashMap;

use futhark_syntax::{FileId, Span};
use rustc_hash::FxHashMap;

use super::FileCache;
use super::remap::Remap;
use crate::info::{DefRef, TypeInfo};

/// The previous check, prepared for the declarations of the new text.
pub(super) struct Reuse<'p> {
    pub(super) prev: &'p FileCache,
    pub(super) remap: Remap,
    /// Old declarations (by index) by their region moved to the new text.
    pub(super) by_region: FxHashMap<(u32, u32), usize>,
}

impl<'p> Reuse<'p> {
    pub(super) fn new(prev: &'p FileCache, file: FileId, text: &str) -> Option<Reuse<'p>> {
        if prev.file != file {
            return None;
        }
        let remap = Remap::new(file, &prev.text, text);
        let mut by_region = FxHashMap::default();
        for (i, d) in prev.decls.iter().enumerate() {
            if d.replay.is_some()
                && let Some(r) = remap.range(d.region.0, d.region.1)
            {
                by_region.insert(r, i);
            }
        }
        Some(Reuse {
            prev,
            remap,
            by_region,
        })
    }

    /// Adds to `info` the side tables of the old declarations marked in `replayed`, moved
    /// to the new text (entry points and definition types were added when replaying).
    pub(super) fn carry_info(&self, replayed: &[bool], info: &mut TypeInfo) {
        let old = &self.prev.result.info;
        let starts: Vec<u32> = self.prev.decls.iter().map(|d| d.region.0).collect();
        let keep = |s: &Span| -> Option<Span> {
            let i = starts.partition_point(|&x| x <= s.start).checked_sub(1)?;
            if replayed[i] {
                self.remap.span(*s)
            } else {
                None
            }
        };
        carry(&old.exp_types, &mut info.exp_types, &keep, |_| None);
        carry(&old.literal_types, &mut info.literal_types, &keep, |_| None);
        carry(
            &old.empty_array_rows,
            &mut info.empty_array_rows,
            &keep,
            |_| None,
        );
        // Definitions were checked before replaying (`Replay::foreign`).
        let def = |d: &DefRef| match d.span {
            Some(s) if self.remap.shifts(s) => self.remap.def(d),
            _ => None,
        };
        carry(&old.resolutions, &mut info.resolutions, &keep, def);
    }
}

/// Merges the entries of `old` that `keep` moves (to the span it returns) into `new`, whose
/// own entries win. Copies the old table whole rather than inserting entry by entry:
/// usually most entries stay where they were, and copying skips hashing them.
fn carry<V: Clone>(
    old: &HashMap<Span, V>,
    new: &mut HashMap<Span, V>,
    keep: &dyn Fn(&Span) -> Option<Span>,
    value: impl Fn(&V) -> Option<V>,
) {
    let mut out = old.clone();
    let mut moved = Vec::new();
    out.retain(|k, v| match keep(k) {
        Some(to) => {
            if let Some(changed) = value(v) {
                *v = changed;
            }
            if to == *k {
                true
            } else {
                moved.push((to, v.clone()));
                false
            }
        }
        None => false,
    });
    out.extend(moved);
    out.extend(new.drain());
    *new = out;
}

/// Takes the side tables out of `info`, all but the definition types.
pub(super) fn take_tables(info: &mut TypeInfo) -> TypeInfo {
    let defs = std::mem::take(&mut info.defs);
    std::mem::replace(
        info,
        TypeInfo {
            defs,
            ..TypeInfo::default()
        },
    )
}

/// Whether every key of `info` lies in `region`.
pub(super) fn info_within(info: &TypeInfo, (start, end): (u32, u32)) -> bool {
    let inside = |s: &Span| start <= s.start && s.end <= end;
    info.exp_types.keys().all(inside)
        && info.literal_types.keys().all(inside)
        && info.empty_array_rows.keys().all(inside)
        && info.resolutions.keys().all(inside)
        && info.entries.iter().all(|e| inside(&e.span))
        && info.defs.keys().all(inside)
}
