//! Document symbols (the outline: modules, module types, functions, values, entry points
//! and types, nested as in the source) and workspace symbols (every module-level name in
//! the workspace, matched fuzzily).

use std::collections::HashMap;

use futhark_db::{Db, File};
use futhark_syntax::Span;
use futhark_syntax::ast::{Dec, DecKind, ModExp, ModExpKind, SigExp, SigExpKind, Spec, SpecKind};

use crate::TextRange;
use crate::defs::{Def, DefKind};
use crate::scope::{FileIndex, file_index};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SymbolKind {
    Module,
    Functor,
    ModuleType,
    Function,
    Value,
    Entry,
    Type,
    /// A `val` spec in a module type.
    ValSpec,
    /// A `type` spec in a module type.
    TypeSpec,
    /// A `module` spec in a module type.
    ModuleSpec,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Symbol {
    pub name: String,
    pub kind: SymbolKind,
    /// The signature.
    pub detail: String,
    /// The whole declaration.
    pub full_range: TextRange,
    /// The name.
    pub selection_range: TextRange,
    pub children: Vec<Symbol>,
}

/// The outline of `file`.
pub fn document_symbols(db: &dyn Db, file: File) -> Vec<Symbol> {
    let parsed = futhark_db::parse(db, file);
    let index = file_index(db, file);
    let by_name: HashMap<Span, &Def> = index.defs.iter().map(|d| (d.name_span, d)).collect();
    let ctx = Ctx { by_name };
    ctx.decs(&parsed.file.decs)
}

struct Ctx<'a> {
    by_name: HashMap<Span, &'a Def>,
}

impl Ctx<'_> {
    fn decs(&self, decs: &[Dec]) -> Vec<Symbol> {
        let mut out = Vec::new();
        for dec in decs {
            self.dec(dec, dec.span, &mut out);
        }
        out
    }

    fn dec(&self, dec: &Dec, full: Span, out: &mut Vec<Symbol>) {
        match &dec.kind {
            DecKind::Val(v) => {
                let kind = match self.by_name.get(&v.name.span).map(|d| d.kind) {
                    Some(DefKind::Entry) => SymbolKind::Entry,
                    Some(DefKind::Function) => SymbolKind::Function,
                    _ => SymbolKind::Value,
                };
                out.extend(self.symbol(&v.name.name, v.name.span, full, kind, Vec::new()));
            }
            DecKind::Type(t) => out.extend(self.symbol(
                &t.name.name,
                t.name.span,
                full,
                SymbolKind::Type,
                Vec::new(),
            )),
            DecKind::Module(m) => {
                let kind = if m.params.is_empty() {
                    SymbolKind::Module
                } else {
                    SymbolKind::Functor
                };
                let children = self.mod_exp(&m.body);
                out.extend(self.symbol(&m.name.name, m.name.span, full, kind, children));
            }
            DecKind::ModuleType(m) => {
                let children = self.sig(&m.sig);
                out.extend(self.symbol(
                    &m.name.name,
                    m.name.span,
                    full,
                    SymbolKind::ModuleType,
                    children,
                ));
            }
            DecKind::Local(inner) => self.dec(inner, full, out),
            DecKind::Open(_) | DecKind::Import(_) | DecKind::Error => {}
        }
    }

    fn mod_exp(&self, m: &ModExp) -> Vec<Symbol> {
        match &m.kind {
            ModExpKind::Decs(decs) => self.decs(decs),
            ModExpKind::Parens(inner) | ModExpKind::Ascript(inner, _) => self.mod_exp(inner),
            ModExpKind::Lambda { body, .. } => self.mod_exp(body),
            ModExpKind::Var(_)
            | ModExpKind::Import(_)
            | ModExpKind::Apply(..)
            | ModExpKind::Error => Vec::new(),
        }
    }

    fn sig(&self, s: &SigExp) -> Vec<Symbol> {
        match &s.kind {
            SigExpKind::Specs(specs) => specs.iter().filter_map(|spec| self.spec(spec)).collect(),
            SigExpKind::Parens(inner) | SigExpKind::With { sig: inner, .. } => self.sig(inner),
            SigExpKind::Arrow { to, .. } => self.sig(to),
            SigExpKind::Var(_) | SigExpKind::Error => Vec::new(),
        }
    }

    fn spec(&self, spec: &Spec) -> Option<Symbol> {
        match &spec.kind {
            SpecKind::Val { name, .. } => self.symbol(
                &name.name,
                name.span,
                spec.span,
                SymbolKind::ValSpec,
                Vec::new(),
            ),
            SpecKind::Type { name, .. } => self.symbol(
                &name.name,
                name.span,
                spec.span,
                SymbolKind::TypeSpec,
                Vec::new(),
            ),
            SpecKind::Module { name, sig } => {
                let children = self.sig(sig);
                self.symbol(
                    &name.name,
                    name.span,
                    spec.span,
                    SymbolKind::ModuleSpec,
                    children,
                )
            }
            SpecKind::Include(_) | SpecKind::Error => None,
        }
    }

    fn symbol(
        &self,
        name: &str,
        name_span: Span,
        full: Span,
        kind: SymbolKind,
        children: Vec<Symbol>,
    ) -> Option<Symbol> {
        if name.is_empty() {
            return None;
        }
        let detail = self
            .by_name
            .get(&name_span)
            .map(|d| d.signature.clone())
            .unwrap_or_default();
        let full = full.to(name_span);
        Some(Symbol {
            name: name.to_string(),
            kind,
            detail,
            full_range: full.into(),
            selection_range: name_span.into(),
            children,
        })
    }
}

/// A module-level definition found by a workspace search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorkspaceSymbol {
    pub name: String,
    pub kind: SymbolKind,
    pub file: File,
    pub full_range: TextRange,
    pub selection_range: TextRange,
    /// The enclosing module, if any.
    pub container: Option<String>,
}

/// Module-level definitions in `files` whose names match `query` (case-insensitive, the
/// query's characters in order), best matches first, at most `limit`.
pub fn workspace_symbols(
    db: &dyn Db,
    files: &[File],
    query: &str,
    limit: usize,
) -> Vec<WorkspaceSymbol> {
    let query = query.to_lowercase();
    let mut found: Vec<(u32, WorkspaceSymbol)> = Vec::new();
    for &file in files {
        let index = file_index(db, file);
        for def in &index.defs {
            let Some(kind) = workspace_kind(def) else {
                continue;
            };
            let Some(score) = fuzzy_score(&def.name.to_lowercase(), &query) else {
                continue;
            };
            found.push((
                score,
                WorkspaceSymbol {
                    name: def.name.clone(),
                    kind,
                    file,
                    full_range: def.full_span.into(),
                    selection_range: def.name_span.into(),
                    container: container_name(index, def),
                },
            ));
        }
    }
    found.sort_by(|(a, x), (b, y)| a.cmp(b).then_with(|| x.name.cmp(&y.name)));
    found.into_iter().take(limit).map(|(_, s)| s).collect()
}

fn workspace_kind(def: &Def) -> Option<SymbolKind> {
    Some(match (def.kind, def.is_spec) {
        (DefKind::Function | DefKind::Value, true) => SymbolKind::ValSpec,
        (DefKind::Type, true) => SymbolKind::TypeSpec,
        (DefKind::Module, true) => SymbolKind::ModuleSpec,
        (DefKind::Function, false) => SymbolKind::Function,
        (DefKind::Value, false) => SymbolKind::Value,
        (DefKind::Entry, _) => SymbolKind::Entry,
        (DefKind::Type, false) => SymbolKind::Type,
        (DefKind::Module, false) => SymbolKind::Module,
        (DefKind::Functor, _) => SymbolKind::Functor,
        (DefKind::ModuleType, _) => SymbolKind::ModuleType,
        _ => return None,
    })
}

fn container_name(index: &FileIndex, def: &Def) -> Option<String> {
    Some(index.def(def.container?)?.name.clone())
}

/// 0 for an exact match, 1 for a prefix, 2 for a substring, 3 for a subsequence.
fn fuzzy_score(name: &str, query: &str) -> Option<u32> {
    if query.is_empty() || name == query {
        return Some(0);
    }
    if name.starts_with(query) {
        return Some(1);
    }
    if name.contains(query) {
        return Some(2);
    }
    let mut chars = name.chars();
    query.chars().all(|q| chars.any(|c| c == q)).then_some(3)
}

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};

    use super::Symbol;
    use crate::fixture::Fixture;

    fn render(f: &Fixture, symbols: &[Symbol], depth: usize, out: &mut String) {
        let text = f.text();
        for s in symbols {
            let name = &text[s.selection_range.start as usize..s.selection_range.end as usize];
            out.push_str(&format!(
                "{}{:?} {name} {}..{} [{}]\n",
                "  ".repeat(depth),
                s.kind,
                s.full_range.start,
                s.full_range.end,
                s.detail
            ));
            render(f, &s.children, depth + 1, out);
        }
    }

    fn check(fixture: &str, expect: Expect) {
        let f = Fixture::new(fixture);
        let symbols = super::document_symbols(&f.db, f.file());
        let mut out = String::new();
        render(&f, &symbols, 0, &mut out);
        expect.assert_eq(&out);
    }

    #[test]
    fn outline() {
        check(
            r#"type t = i32
def one : t = 1
def inc (x: i32) = x + 1
entry main (xs: []i32) = map inc xs
module type S = {
  type e
  val f : e -> e
  module N : { val z : i32 }
}
module M : S = {
  type e = i32
  local def helper = 2
  def f (x: e) = x + helper
  module N = { def z = 0 }
}
module F (P: S) = { def g = P.f }
"#,
            expect![[r#"
                Type t 0..12 [type t = i32]
                Value one 13..28 [def one : t]
                Function inc 29..53 [def inc (x: i32)]
                Entry main 54..89 [entry main (xs: []i32)]
                ModuleType S 90..164 [module type S]
                  TypeSpec e 110..116 [type e]
                  ValSpec f 119..133 [val f : e -> e]
                  ModuleSpec N 136..162 [module N : { val z : i32 }]
                    ValSpec z 149..160 [val z : i32]
                Module M 165..276 [module M : S]
                  Type e 184..196 [type e = i32]
                  Value helper 199..219 [def helper]
                  Function f 222..247 [def f (x: e)]
                  Module N 250..274 [module N]
                    Value z 263..272 [def z]
                Functor F 277..310 [module F (P: S)]
                  Value g 297..308 [def g]
            "#]],
        );
    }

    #[test]
    fn workspace_search() {
        let f = Fixture::new(
            r#"
//- /a.fut
def matmul = 1
module Mat = { def mul = 2 }
//- /b.fut
def multiply = 3
def other = 4
"#,
        );
        let found = super::workspace_symbols(&f.db, &f.files, "mul", 10);
        let shown: Vec<String> = found
            .iter()
            .map(|s| format!("{} {:?} {:?}", s.name, s.kind, s.container))
            .collect();
        expect![[r#"
            mul Value Some("Mat")
            multiply Value None
            matmul Value None"#]]
        .assert_eq(&shown.join("\n"));
    }
}
