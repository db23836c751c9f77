//! What a name in scope is: its signature and doc comment (`:doc`, Jupyter's inspect and the
//! details of completions), read from the checker's scope of the session.

use futhark_check::env::{Env, Mod, Scheme};
use futhark_check::pretty::tparams_prefix;
use futhark_check::{DefRef, FileScope};

/// The kind of thing a name denotes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum NameKind {
    Value,
    Type,
    Module,
    ModuleType,
}

impl NameKind {
    pub fn label(self) -> &'static str {
        match self {
            NameKind::Value => "value",
            NameKind::Type => "type",
            NameKind::Module => "module",
            NameKind::ModuleType => "module type",
        }
    }
}

/// A name's signature and documentation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NameInfo {
    pub name: String,
    pub kind: NameKind,
    /// `val map 'a 'b : (a -> b) -> []a -> []b`, `type t = i32`, `module M`.
    pub signature: String,
    /// The doc comment, without comment markers.
    pub doc: Option<String>,
}

impl NameInfo {
    /// Signature, blank line, doc.
    pub fn text(&self) -> String {
        match &self.doc {
            Some(d) => format!("{}\n\n{}", self.signature, d.trim_end()),
            None => self.signature.clone(),
        }
    }
}

/// Looks up a possibly qualified name (`map`, `f32.sqrt`, `M.t`). Values are tried first,
/// then types, modules and module types.
pub fn lookup(scope: &FileScope, qualified: &str) -> Option<NameInfo> {
    let mut parts: Vec<&str> = qualified.trim().split('.').collect();
    let last = parts.pop()?;
    let env = module_env(&scope.env, &parts)?;
    info_in(env, last)
}

/// The type scheme of a (possibly qualified) value name: `'a 'b [n] (a -> b) -> …`.
pub fn value_scheme(scope: &FileScope, qualified: &str) -> Option<String> {
    let mut parts: Vec<&str> = qualified.trim().split('.').collect();
    let last = parts.pop()?;
    let env = module_env(&scope.env, &parts)?;
    match &*env.vals.get(last)?.scheme {
        Scheme::Poly(ps, t) if !ps.is_empty() => Some(format!("{}{t}", tparams_prefix(ps))),
        _ => None,
    }
}

/// The environment of the module at `path` (the scope itself when empty).
pub fn module_env<'a>(env: &'a Env, path: &[&str]) -> Option<&'a Env> {
    let mut env = env;
    for p in path {
        match &env.mods.get(*p)?.m {
            Mod::Env(e) => env = e,
            Mod::Fun(_) => return None,
        }
    }
    Some(env)
}

/// Every member of `env` of every kind, with information.
pub fn info_in(env: &Env, name: &str) -> Option<NameInfo> {
    if let Some(b) = env.vals.get(name) {
        let signature = match &*b.scheme {
            Scheme::Poly(ps, t) => format!("val {name} {}: {t}", tparams_prefix(ps)),
            Scheme::Overloaded(_) => format!("val {name} : overloaded operator"),
        };
        return Some(make(name, NameKind::Value, signature, &b.def));
    }
    if let Some(b) = env.types.get(name) {
        let signature = format!("type {name} {}= {}", tparams_prefix(&b.params), b.ty);
        return Some(make(name, NameKind::Type, signature, &b.def));
    }
    if let Some(b) = env.mods.get(name) {
        let signature = match &b.m {
            Mod::Env(_) => format!("module {name}"),
            Mod::Fun(f) => format!("module {name} ({} : …) (parametric)", f.param_name),
        };
        return Some(make(name, NameKind::Module, signature, &b.def));
    }
    if let Some(b) = env.modtypes.get(name) {
        let signature = format!("module type {name}");
        return Some(make(name, NameKind::ModuleType, signature, &b.def));
    }
    None
}

fn make(name: &str, kind: NameKind, signature: String, def: &DefRef) -> NameInfo {
    NameInfo {
        name: name.to_string(),
        kind,
        signature: signature.replace("  ", " "),
        doc: def.doc.as_ref().map(|d| d.to_string()),
    }
}
