//! What a top-level declaration depends on: the module-level bindings of the names its text
//! mentions, looked up once per check and compared with those of the previous check.

use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHashSet};

use super::remap::Remap;
use crate::env::{Env, MTy, MTyBinding, Mod, ModBinding, TypeBinding, ValBinding};
use crate::info::DefRef;
use crate::types::{Name, VName};

/// The module-level bindings of one name that a declaration's text mentions.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Dep {
    name: Name,
    val: Option<(ValBinding, bool)>,
    ty: Option<TypeBinding>,
    m: Option<ModBinding>,
    mt: Option<MTyBinding>,
    /// The values inside the module `m` whose types were defaulted (module matching
    /// mentions it in its messages).
    m_defaulted: Vec<VName>,
}

/// Whether two bindings of a name are the same, the old one moved by `remap`.
pub(super) fn same_dep(old: &Dep, new: &Dep, remap: &Remap) -> bool {
    let val_eq = match (&old.val, &new.val) {
        (None, None) => true,
        (Some((a, da)), Some((b, db))) => da == db && same_val(a, b, remap),
        _ => false,
    };
    let ty_eq = match (&old.ty, &new.ty) {
        (None, None) => true,
        (Some(a), Some(b)) => same_type(a, b, remap),
        _ => false,
    };
    let mod_eq = match (&old.m, &new.m) {
        (None, None) => true,
        (Some(a), Some(b)) => same_modb(a, b, remap),
        _ => false,
    };
    let mt_eq = match (&old.mt, &new.mt) {
        (None, None) => true,
        (Some(a), Some(b)) => same_mtyb(a, b, remap),
        _ => false,
    };
    val_eq && ty_eq && mod_eq && mt_eq && old.m_defaulted == new.m_defaulted
}

fn def_eq(a: &DefRef, b: &DefRef, remap: &Remap) -> bool {
    remap.def(a).as_ref() == Some(b)
}

fn same_val(a: &ValBinding, b: &ValBinding, remap: &Remap) -> bool {
    a.vname == b.vname && a.scheme == b.scheme && def_eq(&a.def, &b.def, remap)
}

fn same_type(a: &TypeBinding, b: &TypeBinding, remap: &Remap) -> bool {
    a.params == b.params && a.ty == b.ty && a.lifted == b.lifted && def_eq(&a.def, &b.def, remap)
}

fn same_modb(a: &ModBinding, b: &ModBinding, remap: &Remap) -> bool {
    a.vname == b.vname && def_eq(&a.def, &b.def, remap) && same_mod(&a.m, &b.m, remap)
}

fn same_mtyb(a: &MTyBinding, b: &MTyBinding, remap: &Remap) -> bool {
    def_eq(&a.def, &b.def, remap) && same_mty(&a.mty, &b.mty, remap)
}

fn same_mty(a: &MTy, b: &MTy, remap: &Remap) -> bool {
    a.abs == b.abs && same_mod(&a.m, &b.m, remap)
}

/// Whether module contents are the same, the old ones moved by `remap`. The very same
/// contents were taken over unmoved by the new check, so they are the same.
fn same_mod(a: &Mod, b: &Mod, remap: &Remap) -> bool {
    match (a, b) {
        (Mod::Env(x), Mod::Env(y)) => Arc::ptr_eq(x, y) || same_env(x, y, remap),
        (Mod::Fun(x), Mod::Fun(y)) => {
            Arc::ptr_eq(x, y)
                || (x.param_name == y.param_name
                    && same_mty(&x.param, &y.param, remap)
                    && same_mty(&x.ret, &y.ret, remap))
        }
        _ => false,
    }
}

fn same_map<V>(
    a: &FxHashMap<Name, V>,
    b: &FxHashMap<Name, V>,
    same: impl Fn(&V, &V) -> bool,
) -> bool {
    a.len() == b.len() && a.iter().all(|(k, x)| b.get(k).is_some_and(|y| same(x, y)))
}

fn same_env(a: &Env, b: &Env, remap: &Remap) -> bool {
    a.order == b.order
        && same_map(&a.vals, &b.vals, |x, y| same_val(x, y, remap))
        && same_map(&a.types, &b.types, |x, y| same_type(x, y, remap))
        && same_map(&a.mods, &b.mods, |x, y| same_modb(x, y, remap))
        && same_map(&a.modtypes, &b.modtypes, |x, y| same_mtyb(x, y, remap))
}

/// The values of `m` (and of its submodules) in `defaulted`, sorted.
fn defaulted_in(m: &Mod, defaulted: &FxHashSet<VName>, out: &mut Vec<VName>) {
    if let Mod::Env(e) = m {
        out.extend(
            (e.vals.values())
                .filter(|b| defaulted.contains(&b.vname))
                .map(|b| b.vname.clone()),
        );
        for b in e.mods.values() {
            defaulted_in(&b.m, defaulted, out);
        }
    }
}

/// The names a declaration's text can refer to: identifiers and operators (with their
/// shorter pieces, in case the lexer splits a run of symbols). Over-approximates, which only
/// makes reuse rarer.
pub(super) fn mentioned_names(text: &str) -> Vec<Name> {
    let mut out: FxHashSet<&str> = FxHashSet::default();
    let ident = |c: char| c.is_alphanumeric() || c == '_' || c == '\'';
    let symbol = |c: char| "+-*/%=!<>|&^.@".contains(c);
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let class: &dyn Fn(char) -> bool = if ident(c) {
            &ident
        } else if symbol(c) {
            &symbol
        } else {
            continue;
        };
        let mut end = i + c.len_utf8();
        while let Some(&(j, d)) = chars.peek() {
            if !class(d) {
                break;
            }
            end = j + d.len_utf8();
            chars.next();
        }
        let word = &text[i..end];
        if symbol(c) {
            for a in 0..word.len() {
                for b in a + 1..=word.len() {
                    out.insert(&word[a..b]);
                }
            }
        } else {
            out.insert(word);
        }
    }
    let mut names: Vec<Name> = out.into_iter().map(Name::from).collect();
    names.sort();
    names
}

/// Bindings looked up for dependencies during one check, shared between declarations
/// (most mention the same few prelude names), and comparisons already made.
#[derive(Default)]
pub(super) struct DepMemo {
    current: FxHashMap<Name, Option<Arc<Dep>>>,
    same: FxHashMap<(usize, usize), bool>,
    /// Every binding handed out stays alive, so that the addresses keying `same` are not
    /// reused during the check.
    alive: Vec<Arc<Dep>>,
}

impl DepMemo {
    /// The bindings of the names in `names` that exist in `env`.
    pub(super) fn lookup(
        &mut self,
        env: &Env,
        defaulted: &FxHashSet<VName>,
        names: &[Name],
    ) -> Vec<Arc<Dep>> {
        let mut deps = Vec::new();
        for name in names {
            let found = self.current.entry(name.clone()).or_insert_with(|| {
                let key: &str = name;
                let mut dep = Dep {
                    name: name.clone(),
                    val: (env.vals.get(key)).map(|b| (b.clone(), defaulted.contains(&b.vname))),
                    ty: env.types.get(key).cloned(),
                    m: env.mods.get(key).cloned(),
                    mt: env.modtypes.get(key).cloned(),
                    m_defaulted: Vec::new(),
                };
                if !defaulted.is_empty()
                    && let Some(b) = &dep.m
                {
                    defaulted_in(&b.m, defaulted, &mut dep.m_defaulted);
                    dep.m_defaulted.sort_by_key(|v| v.id);
                }
                let bound = dep.val.is_some() || dep.ty.is_some() || dep.m.is_some();
                (bound || dep.mt.is_some()).then(|| Arc::new(dep))
            });
            if let Some(dep) = found {
                if Arc::strong_count(dep) == 1 {
                    self.alive.push(dep.clone());
                }
                deps.push(dep.clone());
            }
        }
        deps
    }

    /// Forgets what a declaration may have rebound: `names`, or everything.
    pub(super) fn rebound(&mut self, names: Option<&[Name]>) {
        match names {
            Some(ns) => {
                for n in ns {
                    self.current.remove(n);
                }
            }
            None => self.current.clear(),
        }
    }

    /// Whether the old dependencies equal the new ones (moved by `remap`).
    pub(super) fn same(&mut self, old: &[Arc<Dep>], new: &[Arc<Dep>], remap: &Remap) -> bool {
        old.len() == new.len()
            && old.iter().zip(new).all(|(o, n)| {
                let key = (Arc::as_ptr(o) as usize, Arc::as_ptr(n) as usize);
                *(self.same)
                    .entry(key)
                    .or_insert_with(|| o.name == n.name && same_dep(o, n, remap))
            })
    }
}
