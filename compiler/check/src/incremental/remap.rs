//! Moving positions of a previous check to the new text of a file: spans before the edited
//! part stay, spans after it shift by the change in length, spans inside it have no place.

use futhark_syntax::{Diagnostic, FileId, Span};

use std::sync::Arc;

use crate::env::{Env, FunSig, MTy, MTyBinding, Mod, ModBinding, TypeBinding, ValBinding};
use crate::info::DefRef;
use crate::modules::DecOutcome;

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

    pub(super) fn ty(&self, b: &TypeBinding) -> Option<TypeBinding> {
        Some(TypeBinding {
            def: self.def(&b.def)?,
            ..b.clone()
        })
    }

    /// Whether `s` stays where it is (and is not in the edited part).
    fn fixed(&self, s: Span) -> bool {
        s.file != self.file
            || s.end <= self.prefix
            || (self.delta == 0 && s.start >= self.old_suffix_start)
    }

    fn def_fixed(&self, d: &DefRef) -> bool {
        d.span.is_none_or(|s| self.fixed(s))
    }

    /// Whether nothing in `e` moves, so that it can be taken over as it is.
    fn env_fixed(&self, e: &Env) -> bool {
        e.vals.values().all(|b| self.def_fixed(&b.def))
            && e.types.values().all(|b| self.def_fixed(&b.def))
            && (e.mods.values()).all(|b| self.def_fixed(&b.def) && self.mod_fixed(&b.m))
            && (e.modtypes.values()).all(|b| self.def_fixed(&b.def) && self.mod_fixed(&b.mty.m))
    }

    fn mod_fixed(&self, m: &Mod) -> bool {
        match m {
            Mod::Env(e) => self.env_fixed(e),
            Mod::Fun(f) => self.mod_fixed(&f.param.m) && self.mod_fixed(&f.ret.m),
        }
    }

    /// Module contents moved to the new text (shared as they are when nothing moves).
    pub(super) fn env(&self, e: &Arc<Env>) -> Option<Arc<Env>> {
        if self.env_fixed(e) {
            return Some(e.clone());
        }
        // Moved in place: a copy of a map iterates in the same order as the map (checking
        // walks some of these maps while making fresh names), a map built anew might not.
        let mut e = Env::clone(e);
        for b in e.vals.values_mut() {
            b.def = self.def(&b.def)?;
        }
        for b in e.types.values_mut() {
            b.def = self.def(&b.def)?;
        }
        for b in e.mods.values_mut() {
            *b = self.modb(b)?;
        }
        for b in e.modtypes.values_mut() {
            *b = self.mtyb(b)?;
        }
        Some(Arc::new(e))
    }

    pub(super) fn module(&self, m: &Mod) -> Option<Mod> {
        match m {
            Mod::Env(e) => Some(Mod::Env(self.env(e)?)),
            Mod::Fun(f) => {
                if self.mod_fixed(m) {
                    return Some(m.clone());
                }
                Some(Mod::Fun(Arc::new(FunSig {
                    param_name: f.param_name.clone(),
                    param: self.mty(&f.param)?,
                    ret: self.mty(&f.ret)?,
                })))
            }
        }
    }

    fn mty(&self, m: &MTy) -> Option<MTy> {
        Some(MTy {
            abs: m.abs.clone(),
            m: self.module(&m.m)?,
        })
    }

    fn modb(&self, b: &ModBinding) -> Option<ModBinding> {
        Some(ModBinding {
            vname: b.vname.clone(),
            m: self.module(&b.m)?,
            def: self.def(&b.def)?,
        })
    }

    fn mtyb(&self, b: &MTyBinding) -> Option<MTyBinding> {
        Some(MTyBinding {
            mty: self.mty(&b.mty)?,
            def: self.def(&b.def)?,
        })
    }

    /// What a declaration bound, moved to the new text.
    pub(super) fn outcome(&self, o: &DecOutcome) -> Option<DecOutcome> {
        Some(match o {
            DecOutcome::Val(n, b, s) => DecOutcome::Val(n.clone(), self.val(b)?, self.span(*s)?),
            DecOutcome::Type(n, b, s) => DecOutcome::Type(n.clone(), self.ty(b)?, self.span(*s)?),
            DecOutcome::Mod(n, b, s) => DecOutcome::Mod(n.clone(), self.modb(b)?, self.span(*s)?),
            DecOutcome::ModType(n, b, s) => {
                DecOutcome::ModType(n.clone(), self.mtyb(b)?, self.span(*s)?)
            }
            DecOutcome::Open(e) => DecOutcome::Open(self.env(e)?),
        })
    }
}
