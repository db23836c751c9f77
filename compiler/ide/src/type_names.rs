//! Types as the program would write them at a point. The checker expands type
//! abbreviations, so the type of `let v = vec3.mk a` is `{x: f32, y: f32, z: f32}`; here a
//! part of a type equal to an abbreviation that is in scope at the point is printed as its
//! name (`vec3.vector`). Abstract types need nothing: the checker names them as written
//! (`S.t` inside a functor over `S`, `M.t` for a sealed module).
//!
//! The abbreviations come from the checker's environment at the end of the file
//! (`CheckedFile::visible`: the file's own and imported names, modules and the bodies of
//! parametric modules, by the span of their definitions); which of them are in scope at
//! the point, and under which name, comes from the syntactic scope there
//! ([`crate::scope::scope_at`]): an unqualified name (innermost first), then `M.t` and
//! `M.N.t` through the modules in scope. Only abbreviations without parameters whose
//! expansion is a record, a sum or a function are used: printing every `f32` as
//! `real` would say less, not more.

use std::collections::HashMap;

use futhark_check::env::{Env as CheckEnv, Mod};
use futhark_check::types::Type;
use futhark_db::{Db, File};
use futhark_syntax::Span;

use crate::env::Env;
use crate::scope::{Layer, scope_at};
use crate::types::{guarded, is_checked_file};

/// How deep module paths are followed (`M.N.t`).
const MAX_PATH: usize = 3;

/// The names to print types with at one point.
#[derive(Default)]
pub(crate) struct TypeNames {
    names: HashMap<Type, String>,
}

impl TypeNames {
    /// The abbreviations in scope at `offset` in `file`.
    pub(crate) fn at(db: &dyn Db, file: File, offset: u32) -> TypeNames {
        if !is_checked_file(db, file) {
            return TypeNames::default();
        }
        let Some(checked) = guarded(|| futhark_db::check(db, file)) else {
            return TypeNames::default();
        };
        let visible = &checked.0.visible.env;
        let mut by_def: HashMap<Span, Vec<Type>> = HashMap::new();
        collect_defs(visible, &mut by_def, 0);
        if by_def.is_empty() {
            return TypeNames::default();
        }
        let scope = scope_at(db, file, offset);
        let mut names = HashMap::new();
        let mut add = |ty: &Type, name: String| {
            names.entry(ty.clone()).or_insert(name);
        };
        // Unqualified names, innermost layer first.
        for layer in &scope.layers {
            if let Layer::Env(env) = layer {
                for (name, loc) in &env.types {
                    let Some(def) = scope.def(db, *loc) else {
                        continue;
                    };
                    for ty in by_def.get(&def.name_span).into_iter().flatten() {
                        add(ty, name.clone());
                    }
                }
            }
        }
        // `M.t` through the modules in scope that are the checker's top-level modules.
        for layer in &scope.layers {
            let Layer::Env(env) = layer else { continue };
            for (name, entry) in &env.mods {
                let Some(def) = entry.def.and_then(|loc| scope.def(db, loc)) else {
                    continue;
                };
                let Some(b) = visible.mods.get(name.as_str()) else {
                    continue;
                };
                if b.def.span != Some(def.name_span) {
                    continue;
                }
                if let Mod::Env(menv) = &b.m {
                    qualified(menv, &entry.env, name, 1, &mut add);
                }
            }
        }
        TypeNames { names }
    }

    /// `ty` printed with the names in scope.
    pub(crate) fn show(&self, ty: &Type) -> String {
        if self.names.is_empty() {
            return ty.to_string();
        }
        futhark_check::pretty::type_with_names(ty, &|t| self.names.get(t).cloned())
    }
}

/// True for an expansion worth printing by name.
fn nameworthy(ty: &Type) -> bool {
    matches!(ty, Type::Record(_) | Type::Sum(_) | Type::Arrow(_))
}

/// The expansions of every nameworthy abbreviation in `env`, its modules and the bodies of
/// its parametric modules, by the span of the abbreviation's name (an abbreviation in a
/// parametric module has one expansion there and one in each application).
fn collect_defs(env: &CheckEnv, out: &mut HashMap<Span, Vec<Type>>, depth: usize) {
    if depth > 8 {
        return;
    }
    for b in env.types.values() {
        if let Some(span) = b.def.span
            && b.params.is_empty()
            && b.ty.ext.is_empty()
            && nameworthy(&b.ty.ty)
        {
            let all = out.entry(span).or_default();
            if !all.contains(&b.ty.ty) {
                all.push(b.ty.ty.clone());
            }
        }
    }
    for m in env.mods.values() {
        match &m.m {
            Mod::Env(e) => collect_defs(e, out, depth + 1),
            Mod::Fun(sig) => {
                if let Mod::Env(e) = &sig.ret.m {
                    collect_defs(e, out, depth + 1);
                }
            }
        }
    }
}

/// Adds `prefix.t` for the abbreviations of the checker's module `menv`, following the
/// modules that the syntactic module `senv` also has.
fn qualified(
    menv: &CheckEnv,
    senv: &Env,
    prefix: &str,
    depth: usize,
    add: &mut impl FnMut(&Type, String),
) {
    if depth > MAX_PATH {
        return;
    }
    let mut types: Vec<_> = menv.types.iter().collect();
    types.sort_by(|a, b| a.0.cmp(b.0));
    for (name, b) in types {
        if b.params.is_empty() && b.ty.ext.is_empty() && nameworthy(&b.ty.ty) {
            add(&b.ty.ty, format!("{prefix}.{name}"));
        }
    }
    let mut mods: Vec<_> = menv.mods.iter().collect();
    mods.sort_by(|a, b| a.0.cmp(b.0));
    for (name, b) in mods {
        if let (Mod::Env(inner), Some(sinner)) = (&b.m, senv.mods.get(name.as_ref())) {
            qualified(
                inner,
                &sinner.env,
                &format!("{prefix}.{name}"),
                depth + 1,
                add,
            );
        }
    }
}
