//! Re-checking a file after an edit without re-checking all of it.
//!
//! A file is checked one top-level declaration after another. Each declaration's fresh names
//! start at a fixed point given by its index ([`decl_base`]), so checking a declaration
//! again yields exactly the names it got before, and the bindings it exports compare equal
//! when its signature did not change. (Inside a top-level module, the counter is also moved
//! to a round number after a module body or functor argument, so that the names made after
//! it do not depend on how many the body used.) A [`FileCache`] remembers, per top-level
//! declaration (`def`, `entry`, `let`, `type`, `module`, `module type`, `open`, possibly
//! `local`), where its text was, the module-level bindings its text could refer to, what it
//! bound, the diagnostics it produced and what it left in the checker's state for later
//! declarations (what the unifier knows about the names it exposes, abstract types,
//! definition types). When the file is checked again, a declaration whose text lies in the
//! part that did not change (common prefix or suffix of the old and new text) and whose
//! referenced bindings are equal is replayed instead of checked: its bindings, diagnostics
//! and side tables are taken over, their positions moved by the edit. Module contents are
//! compared and moved deeply (shared as they are when nothing in them moves). Everything
//! else (changed declarations, `import`, declarations whose text mentions `import`) is
//! checked as usual, so the result equals a fresh check.

mod deps;
mod exposed;
mod remap;
mod tables;

use std::sync::Arc;

use futhark_syntax::ast::{Dec, DecKind};
use futhark_syntax::{Diagnostic, FileId, Span};

use crate::CheckedFile;
use crate::checker::Checker;
use crate::env::AbsType;
use crate::info::{DefInfo, EntryInfo};
use crate::modules::DecOutcome;
use crate::types::{Liftedness, Name, VName};
use crate::unify::{RigidInfo, VarInfo};
use deps::{Dep, DepMemo, mentioned_names};
use tables::{Reuse, info_within, take_tables};

/// Fresh names reserved per top-level declaration; one that needs more pushes the start of
/// the next ones (which then simply are not reused).
const NAMES_PER_DECL: u32 = 1 << 16;

/// Where the fresh names of top-level declaration `index` start, given the counter after
/// the previous declaration. Fresh and incremental checks use the same rule.
pub(crate) fn decl_base(index: usize, counter: u32) -> u32 {
    u32::try_from(index)
        .ok()
        .and_then(|i| i.checked_mul(NAMES_PER_DECL))
        .map_or(counter, |fixed| fixed.max(counter))
}

/// What a check of one file leaves for the next check of the same file.
#[derive(Debug)]
pub struct FileCache {
    file: FileId,
    text: Arc<str>,
    result: Arc<CheckedFile>,
    decls: Vec<DeclRecord>,
    replayed: usize,
}

impl FileCache {
    /// How many top-level declarations this check replayed rather than checked.
    pub fn replayed(&self) -> usize {
        self.replayed
    }

    /// How many top-level declarations the file has.
    pub fn decls(&self) -> usize {
        self.decls.len()
    }

    /// The result this cache was recorded with.
    pub fn result(&self) -> &Arc<CheckedFile> {
        &self.result
    }
}

/// One top-level declaration as checked last time.
#[derive(Clone, Debug)]
pub(crate) struct DeclRecord {
    /// From the end of the previous declaration to the end of this one.
    region: (u32, u32),
    span: Span,
    base: u32,
    /// `None`: always checked again.
    replay: Option<Box<Replay>>,
}

impl DeclRecord {
    /// The names the declaration may have rebound (`None`: anything).
    fn bound(&self) -> Option<&[Name]> {
        self.replay.as_deref().map(|r| &r.bound[..])
    }
}

/// What is needed to replay a declaration instead of checking it.
#[derive(Clone, Debug)]
struct Replay {
    local: bool,
    /// The counter after the declaration.
    end: u32,
    /// The names its text mentions (the text is the same when it is replayed).
    names: Arc<[Name]>,
    deps: Vec<Arc<Dep>>,
    outcome: Option<DecOutcome>,
    /// The names `outcome` binds.
    bound: Vec<Name>,
    defaulted: Vec<VName>,
    diags: Vec<Diagnostic>,
    vars: Vec<(VName, VarInfo)>,
    rigid: Vec<(VName, RigidInfo)>,
    lifted: Vec<(VName, Liftedness)>,
    uni_lifted: Vec<(VName, Liftedness)>,
    /// Abstract types made by ascriptions and functor applications at top level.
    created_abs: Vec<AbsType>,
    /// Entry points and the types of definitions (later declarations read those); the
    /// other side tables are taken from the previous result in one pass at the end.
    entries: Vec<EntryInfo>,
    defs: Vec<(Span, DefInfo)>,
    /// Definitions outside the declaration that its name resolutions lead to.
    foreign: Vec<Span>,
}

/// The declaration inside `local`, and whether there was one, if it is a kind that can be
/// replayed: values, types, modules, module types and `open`.
fn replayable(dec: &Dec) -> Option<(&Dec, bool)> {
    match &dec.kind {
        DecKind::Val(_)
        | DecKind::Type(_)
        | DecKind::Module(_)
        | DecKind::ModuleType(_)
        | DecKind::Open(_) => Some((dec, false)),
        DecKind::Local(inner) => match replayable(inner)? {
            (d, false) => Some((d, true)),
            (_, true) => None,
        },
        DecKind::Import(_) | DecKind::Error => None,
    }
}

/// Lengths of the checker's state that a declaration normally leaves as it found it; a
/// declaration that changes them is not replayed. (Top-level ascriptions add abstract types
/// to `created_abs`, which are recorded.)
fn state_shape(c: &Checker) -> [usize; 7] {
    [
        c.uni.created.len(),
        c.uni.absorbed.len(),
        c.uni.dynamic_sizes.len(),
        c.uni.loop_vars.len(),
        c.qual_open.len(),
        c.mod_path.len(),
        c.subst_memo.len(),
    ]
}

/// The names an outcome binds.
fn bound_names(o: Option<&DecOutcome>) -> Vec<Name> {
    match o {
        None => Vec::new(),
        Some(
            DecOutcome::Val(n, ..)
            | DecOutcome::Type(n, ..)
            | DecOutcome::Mod(n, ..)
            | DecOutcome::ModType(n, ..),
        ) => vec![n.clone()],
        Some(DecOutcome::Open(e)) => e.order.iter().map(|(_, n)| n.clone()).collect(),
    }
}

impl Checker<'_> {
    /// Checks the top-level declarations of a file in order. With `text`, records what the
    /// next check needs; with `prev` as well, replays what did not change.
    pub(crate) fn check_top_decs(
        &mut self,
        decs: &[Dec],
        text: Option<&str>,
        prev: Option<&FileCache>,
    ) -> Vec<DeclRecord> {
        let reuse = match (text, prev) {
            (Some(t), Some(p)) => Reuse::new(p, self.file(), t),
            _ => None,
        };
        let mut records = Vec::new();
        let mut replayed = vec![false; prev.map_or(0, |p| p.decls.len())];
        let mut memo = DepMemo::default();
        let mut region_start = 0;
        for (i, dec) in decs.iter().enumerate() {
            let base = decl_base(i, self.uni.supply.counter());
            self.uni.supply.set_counter(base);
            let region = (region_start, dec.span.end.max(region_start));
            region_start = region.1;
            let Some(text) = text else {
                self.check_dec(dec, false);
                continue;
            };
            if let Some(reuse) = &reuse
                && let Some((rec, old)) = self.replay(dec, region, base, reuse, &mut memo)
            {
                memo.rebound(rec.bound());
                replayed[old] = true;
                records.push(rec);
                continue;
            }
            // Next time, side tables are carried over by declaration region, which is exact
            // only if every declaration writes inside its own region; collect this one's
            // apart to see. (Definition types stay in place: uses of a global read them.)
            let mut tables = take_tables(&mut self.info);
            let mut rec = self.check_recorded(dec, region, base, text, &mut memo);
            memo.rebound(rec.bound());
            let own = take_tables(&mut self.info);
            self.strays |= !info_within(&own, region);
            if let Some(r) = &mut rec.replay {
                r.entries = own.entries.clone();
                let file = self.file();
                let outside =
                    |s: &Span| s.file == file && !(region.0 <= s.start && s.end <= region.1);
                let mut foreign: Vec<Span> = own
                    .resolutions
                    .values()
                    .filter_map(|d| d.span)
                    .filter(outside)
                    .collect();
                foreign.sort();
                foreign.dedup();
                r.foreign = foreign;
            }
            tables.extend(own);
            tables.defs = std::mem::take(&mut self.info.defs);
            self.info = tables;
            records.push(rec);
        }
        if let Some(reuse) = &reuse {
            reuse.carry_info(&replayed, &mut self.info);
        }
        if self.strays {
            records.iter_mut().for_each(|r| r.replay = None);
        }
        records
    }

    /// Checks one top-level declaration, recording how to replay it.
    fn check_recorded(
        &mut self,
        dec: &Dec,
        region: (u32, u32),
        base: u32,
        text: &str,
        memo: &mut DepMemo,
    ) -> DeclRecord {
        let mut record = DeclRecord {
            region,
            span: dec.span,
            base,
            replay: None,
        };
        let Some((inner, local)) = replayable(dec) else {
            self.check_dec(dec, false);
            return record;
        };
        let names: Arc<[Name]> =
            mentioned_names(text.get(region.0 as usize..region.1 as usize).unwrap_or("")).into();
        // What an import brings depends on another file; such declarations are checked.
        let imports = names.iter().any(|n| &**n == "import");
        let deps = memo.lookup(&self.env, &self.defaulted_defs, &names);
        let shape = state_shape(self);
        let abs_len = self.created_abs.len();
        let lifted_len = (self.abstract_lifted.len(), self.uni.abstract_lifted.len());
        let defaulted_len = self.defaulted_defs.len();
        let diag_start = self.diags.len();
        let defs_len = self.info.defs.len();
        self.def_diag_start = diag_start;
        let outcome = self.check_dec_outcome(inner);
        let diags = self.diags[diag_start..].to_vec();
        let end = self.uni.supply.counter();
        let file = self.file().0;
        let own = |v: &VName| {
            let c = (v.id & 0xffff_ffff) as u32;
            (base..end).contains(&c) && (v.id >> 32) as u32 == file
        };
        // Definition types the declaration added: a value's is at its name; a module's are
        // looked for in its text.
        let added = self.info.defs.len().saturating_sub(defs_len);
        let defs: Vec<(Span, DefInfo)> = match (&inner.kind, added) {
            (_, 0) => Vec::new(),
            (DecKind::Val(vb), 1) => (self.info.defs.get(&vb.name.span))
                .map(|d| (vb.name.span, d.clone()))
                .into_iter()
                .collect(),
            _ => (self.info.defs.iter())
                .filter(|(s, _)| region.0 <= s.start && s.end <= region.1)
                .map(|(s, d)| (*s, d.clone()))
                .collect(),
        };
        let defs_ok = defs.len() == added && self.info.defs.len() >= defs_len;
        let (vars, rigid) = match &outcome {
            Some(o) => exposed::unifier_entries(&self.uni, exposed::exposed(o), &own),
            None => (Vec::new(), Vec::new()),
        };
        let collect = |m: &rustc_hash::FxHashMap<VName, Liftedness>, len: usize| {
            if m.len() == len {
                return Vec::new();
            }
            let mut v: Vec<_> = (m.iter().filter(|(v, _)| own(v)))
                .map(|(v, l)| (v.clone(), *l))
                .collect();
            v.sort_by_key(|(v, _)| v.id);
            v
        };
        // Abstract liftedness is keyed by names made inside the declaration; collect them
        // only when the declaration added any (polymorphic functions do).
        let lifted = collect(&self.abstract_lifted, lifted_len.0);
        let uni_lifted = collect(&self.uni.abstract_lifted, lifted_len.1);
        let defaulted: Vec<VName> = if self.defaulted_defs.len() == defaulted_len {
            Vec::new()
        } else {
            self.defaulted_defs
                .iter()
                .filter(|v| own(v))
                .cloned()
                .collect()
        };
        let created_abs = self.created_abs.get(abs_len..).unwrap_or_default().to_vec();
        if let Some(o) = &outcome {
            self.bind_outcome(o, local);
        }
        if defs_ok && !imports && state_shape(self) == shape && self.created_abs.len() >= abs_len {
            record.replay = Some(Box::new(Replay {
                local,
                end,
                names,
                deps,
                bound: bound_names(outcome.as_ref()),
                outcome,
                defaulted,
                diags,
                vars,
                rigid,
                lifted,
                uni_lifted,
                created_abs,
                entries: Vec::new(),
                defs,
                foreign: Vec::new(),
            }));
        }
        record
    }

    /// Replays a declaration from the previous check if its text and everything it refers
    /// to are unchanged; `None` (and nothing done) otherwise.
    fn replay(
        &mut self,
        dec: &Dec,
        region: (u32, u32),
        base: u32,
        reuse: &Reuse,
        memo: &mut DepMemo,
    ) -> Option<(DeclRecord, usize)> {
        let &old = reuse.by_region.get(&region)?;
        let rec = self.try_replay(dec, region, base, reuse, &reuse.prev.decls[old], memo)?;
        self.replayed += 1;
        Some((rec, old))
    }

    fn try_replay(
        &mut self,
        dec: &Dec,
        region: (u32, u32),
        base: u32,
        reuse: &Reuse,
        old: &DeclRecord,
        memo: &mut DepMemo,
    ) -> Option<DeclRecord> {
        let r = old.replay.as_deref()?;
        let remap = &reuse.remap;
        let (_, local) = replayable(dec)?;
        if old.base != base || remap.span(old.span)? != dec.span || local != r.local {
            return None;
        }
        let deps = memo.lookup(&self.env, &self.defaulted_defs, &r.names);
        if !memo.same(&r.deps, &deps, remap) {
            return None;
        }
        // Move everything first, so that nothing is half replayed when a position falls
        // into the edited part.
        let foreign = (r.foreign.iter())
            .map(|s| remap.span(*s))
            .collect::<Option<Vec<_>>>()?;
        let mut entries = r.entries.clone();
        for e in &mut entries {
            e.span = remap.span(e.span)?;
        }
        let defs = (r.defs.iter())
            .map(|(s, d)| Some((remap.span(*s)?, d.clone())))
            .collect::<Option<Vec<_>>>()?;
        let diags = (r.diags.iter())
            .map(|d| remap.diag(d))
            .collect::<Option<Vec<_>>>()?;
        let outcome = match &r.outcome {
            Some(o) => Some(remap.outcome(o)?),
            None => None,
        };
        let mut vars = Vec::new();
        for (v, x) in &r.vars {
            let mut x = x.clone();
            x.span = remap.span(x.span)?;
            vars.push((v.clone(), x));
        }
        let mut rigid = Vec::new();
        for (v, x) in &r.rigid {
            let mut x = x.clone();
            if let Some((_, s)) = &mut x.unknown {
                *s = remap.span(*s)?;
            }
            rigid.push((v.clone(), x));
        }

        self.def_diag_start = self.diags.len();
        self.diags.extend(diags.iter().cloned());
        self.info.entries.extend(entries.iter().cloned());
        for (s, d) in &defs {
            self.info.defs.insert(*s, d.clone());
        }
        for (v, x) in &vars {
            self.uni.vars.insert(v.clone(), x.clone());
        }
        for (v, x) in &rigid {
            self.uni.rigid.insert(v.clone(), x.clone());
        }
        for (v, l) in &r.lifted {
            self.abstract_lifted.insert(v.clone(), *l);
        }
        for (v, l) in &r.uni_lifted {
            self.uni.abstract_lifted.insert(v.clone(), *l);
        }
        self.defaulted_defs.extend(r.defaulted.iter().cloned());
        self.created_abs.extend(r.created_abs.iter().cloned());
        if let Some(o) = &outcome {
            self.bind_outcome(o, local);
        }
        self.uni.supply.set_counter(r.end);
        let replay = Replay {
            local,
            end: r.end,
            names: r.names.clone(),
            deps,
            outcome,
            bound: r.bound.clone(),
            defaulted: r.defaulted.clone(),
            diags,
            vars,
            rigid,
            lifted: r.lifted.clone(),
            uni_lifted: r.uni_lifted.clone(),
            created_abs: r.created_abs.clone(),
            entries,
            defs,
            foreign,
        };
        Some(DeclRecord {
            region,
            span: dec.span,
            base,
            replay: Some(Box::new(replay)),
        })
    }
}

/// Checks a file like [`crate::check_file`], reusing what did not change since `prev` (a
/// cache from an earlier check of the same file), and returns the cache for the next check.
/// The result equals that of a fresh check.
pub fn check_file_cached(
    ctx: &crate::CheckContext,
    file: FileId,
    text: &str,
    ast: &futhark_syntax::ast::SourceFile,
    imports: &dyn Fn(&str) -> Option<Arc<crate::FileScope>>,
    prev: Option<&FileCache>,
) -> FileCache {
    let mut c = Checker::new(&ctx.intrinsics, file, ctx.initial_scope().env, imports);
    c.defined.push(Default::default());
    let mut decls = c.check_top_decs(&ast.decs, Some(text), prev);
    if c.strays && c.replayed > 0 {
        // A declaration wrote side tables outside its text, so the order in which replayed
        // and checked declarations write them matters; check afresh.
        c = Checker::new(&ctx.intrinsics, file, ctx.initial_scope().env, imports);
        c.defined.push(Default::default());
        decls = c.check_top_decs(&ast.decs, Some(text), None);
    }
    let replayed = c.replayed;
    let result = Arc::new(CheckedFile {
        scope: Arc::new(crate::FileScope { env: c.exports }),
        visible: Arc::new(crate::FileScope { env: c.env }),
        info: c.info,
        diagnostics: c.diags,
    });
    FileCache {
        file,
        text: Arc::from(text),
        result,
        decls,
        replayed,
    }
}
