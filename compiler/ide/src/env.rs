//! Name environments: what a file, a module or a module type makes visible, per namespace
//! (values, types, modules, module types), as maps from names to definitions.

use std::collections::BTreeMap;
use std::sync::Arc;

use futhark_db::File;

use crate::defs::DefKind;

/// The index of a definition in its file's [`FileIndex::defs`](crate::FileIndex::defs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DefId(pub u32);

/// Where a definition lives: its file and its index there. The kind is carried along so
/// that classifying a name (for semantic tokens or completion) needs no second look-up.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DefLoc {
    pub file: File,
    pub id: DefId,
    pub kind: DefKind,
}

/// A module or module type as seen through a name: its definition (none for a module
/// that is an anonymous import) and its members.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModEntry {
    pub def: Option<DefLoc>,
    pub env: Arc<Env>,
}

/// One environment. Ordered maps keep completion lists and test output deterministic.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Env {
    pub vals: BTreeMap<String, DefLoc>,
    pub types: BTreeMap<String, DefLoc>,
    pub mods: BTreeMap<String, ModEntry>,
    pub mtys: BTreeMap<String, ModEntry>,
}

impl Env {
    /// Adds every binding of `other`, shadowing ours (as `open` and `include` do).
    pub fn extend(&mut self, other: &Env) {
        self.vals
            .extend(other.vals.iter().map(|(k, v)| (k.clone(), *v)));
        self.types
            .extend(other.types.iter().map(|(k, v)| (k.clone(), *v)));
        self.mods
            .extend(other.mods.iter().map(|(k, v)| (k.clone(), v.clone())));
        self.mtys
            .extend(other.mtys.iter().map(|(k, v)| (k.clone(), v.clone())));
    }

    pub fn is_empty(&self) -> bool {
        self.vals.is_empty()
            && self.types.is_empty()
            && self.mods.is_empty()
            && self.mtys.is_empty()
    }
}
