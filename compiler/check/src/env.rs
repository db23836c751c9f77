//! Environments: what names mean at module level. Four maps (values, types, modules,
//! module types) from source names to bindings; modules hold environments or functor
//! signatures. A [`FileScope`] is what a checked file exports to its importers, and the same
//! type serves the REPL as the scope built from previous cells.

use std::sync::Arc;

use rustc_hash::FxHashMap;

use crate::info::DefRef;
use crate::types::{Liftedness, Name, RetType, TParam, Type, VName};

/// The built-in overloaded operators and their admissible types.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Overload {
    /// `+ - * / % **`: any numeric type, `t -> t -> t`.
    Arith,
    /// `// %% >> << & ^ |`: integer types, `t -> t -> t`.
    IntArith,
    /// `&& ||`: `bool -> bool -> bool`.
    Logic,
    /// `== !=`: any type with equality, `t -> t -> bool`.
    Equality,
    /// `< <= > >=`: any primitive type, `t -> t -> bool`.
    Ordering,
    /// Prefix `!`: integers and bool, `t -> t`.
    Not,
    /// `neg` (prefix `-`): numeric types and bool, `t -> t`.
    Neg,
}

/// The type of a value binding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Scheme {
    /// Polymorphic (or, with no parameters, monomorphic) value.
    Poly(Vec<TParam>, Type),
    Overloaded(Overload),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValBinding {
    pub vname: VName,
    /// Shared: environments are cloned for every file and cell, and a scheme can be big.
    pub scheme: Arc<Scheme>,
    pub def: DefRef,
}

/// A type name: an abbreviation `type t 'a [n] = …` or an abstract type (whose body is a
/// [`Type::Var`] of its own unique name applied to its parameters).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TypeBinding {
    pub params: Vec<TParam>,
    pub ty: RetType,
    pub lifted: Liftedness,
    pub def: DefRef,
}

/// An abstract type in a module type: its unique name, parameters and liftedness, plus its
/// path inside the module (to find the matching type when the module type is matched).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AbsType {
    pub vname: VName,
    pub params: Vec<TParam>,
    pub lifted: Liftedness,
    pub path: Vec<Name>,
}

/// The signature of a parametric module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FunSig {
    pub param_name: Name,
    /// The parameter's module type.
    pub param: MTy,
    pub ret: MTy,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mod {
    Env(Arc<Env>),
    Fun(Arc<FunSig>),
}

/// A module type: a module (environment or functor) with some of its types abstract.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MTy {
    pub abs: Vec<AbsType>,
    pub m: Mod,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModBinding {
    pub vname: VName,
    pub m: Mod,
    pub def: DefRef,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MTyBinding {
    pub mty: MTy,
    pub def: DefRef,
}

/// A module-level environment. Each map also remembers insertion order so signatures print
/// in declaration order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Env {
    pub vals: FxHashMap<Name, ValBinding>,
    pub types: FxHashMap<Name, TypeBinding>,
    pub mods: FxHashMap<Name, ModBinding>,
    pub modtypes: FxHashMap<Name, MTyBinding>,
    /// Names in the order they were (last) bound, with their namespace.
    pub order: Vec<(Namespace, Name)>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Namespace {
    Val,
    Type,
    Mod,
    ModType,
}

impl Env {
    pub fn insert_val(&mut self, name: Name, b: ValBinding) {
        self.note(Namespace::Val, &name);
        // Values and modules share one namespace: a value hides a module of the same name.
        self.mods.remove(&name);
        self.vals.insert(name, b);
    }

    pub fn insert_type(&mut self, name: Name, b: TypeBinding) {
        self.note(Namespace::Type, &name);
        self.types.insert(name, b);
    }

    pub fn insert_mod(&mut self, name: Name, b: ModBinding) {
        self.note(Namespace::Mod, &name);
        self.vals.remove(&name);
        self.mods.insert(name, b);
    }

    pub fn insert_modtype(&mut self, name: Name, b: MTyBinding) {
        self.note(Namespace::ModType, &name);
        self.modtypes.insert(name, b);
    }

    fn note(&mut self, ns: Namespace, name: &Name) {
        // Only a name already bound in this namespace can have an entry to move; scanning
        // `order` on every insertion made building an environment quadratic. Values and
        // modules share a namespace, so an entry of either may linger for a name in the other.
        let present = match ns {
            Namespace::Val | Namespace::Mod => {
                self.vals.contains_key(name) || self.mods.contains_key(name)
            }
            Namespace::Type => self.types.contains_key(name),
            Namespace::ModType => self.modtypes.contains_key(name),
        };
        if present {
            self.order.retain(|(n, x)| !(*n == ns && x == name));
        }
        self.order.push((ns, name.clone()));
    }

    /// Adds every binding of `other`, shadowing existing ones (as `open` does).
    pub fn extend(&mut self, other: &Env) {
        for (ns, name) in &other.order {
            match ns {
                Namespace::Val => {
                    if let Some(b) = other.vals.get(name) {
                        self.insert_val(name.clone(), b.clone());
                    }
                }
                Namespace::Type => {
                    if let Some(b) = other.types.get(name) {
                        self.insert_type(name.clone(), b.clone());
                    }
                }
                Namespace::Mod => {
                    if let Some(b) = other.mods.get(name) {
                        self.insert_mod(name.clone(), b.clone());
                    }
                }
                Namespace::ModType => {
                    if let Some(b) = other.modtypes.get(name) {
                        self.insert_modtype(name.clone(), b.clone());
                    }
                }
            }
        }
    }

    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }
}

/// What a checked file exports to files that import it (everything not `local`), and what
/// a REPL session has accumulated from its cells.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileScope {
    pub env: Env,
}
