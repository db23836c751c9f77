//! Which IR comes from which source definition.
//!
//! Lowering names the IR function it makes for a definition after the definition: a
//! function specialised from `def f` is `f_N`, the function of `entry main` is
//! `entry_main_N`, an operator definition gives `op_N` (see `NameSource::fresh` in
//! `futhark-ir`, which replaces a numeric suffix and characters other than ASCII letters
//! and digits). The optimiser keeps function names, so matching names is enough to find a
//! definition's functions at every stage. Two definitions of the same name (in different
//! modules) share their functions; so do all operators.

use futhark_syntax::ast::{Dec, DecKind, ModExp, ModExpKind, SourceFile, ValBind, ValKeyword};

use crate::TextRange;

/// A value definition (`def`, `entry` or top-level `let`), at any module depth.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceDef {
    pub name: String,
    /// The name where it is defined.
    pub name_range: TextRange,
    /// The whole declaration.
    pub range: TextRange,
    pub entry: bool,
    /// False for a constant (`def x = …`), which lowering evaluates where it is used.
    pub has_params: bool,
    pub operator: bool,
}

impl SourceDef {
    /// `top` says the binding is at the top level of its file (not in a module), where a
    /// `def main` is an entry point too.
    fn new(vb: &ValBind, range: TextRange, top: bool) -> SourceDef {
        SourceDef {
            name: vb.name.name.clone(),
            name_range: vb.name.span.into(),
            range,
            entry: vb.keyword == ValKeyword::Entry || (top && vb.name.name == "main"),
            has_params: !vb.params.is_empty(),
            operator: vb.name.is_operator(),
        }
    }

    /// The stems of the IR function names this definition gives (`f` for `f_12`).
    pub fn ir_stems(&self) -> Vec<String> {
        let base = if self.operator { "op" } else { &self.name };
        let mut stems = vec![ir_stem(base)];
        if self.entry {
            stems.push(ir_stem(&format!("entry_{}", self.name)));
        }
        stems
    }

    /// True if the IR function `fun` was made from this definition.
    pub fn owns(&self, fun: &str) -> bool {
        let Some((stem, n)) = fun.rsplit_once('_') else {
            return false;
        };
        !n.is_empty()
            && n.bytes().all(|b| b.is_ascii_digit())
            && self.ir_stems().iter().any(|s| s == stem)
    }
}

/// The stem of the fresh names made from `base`, as lowering makes them.
fn ir_stem(base: &str) -> String {
    let stem = match base.rsplit_once('_') {
        Some((s, n)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => s,
        _ => base,
    };
    let stem: String = stem
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if stem.is_empty() || stem.starts_with(|c: char| c.is_ascii_digit()) {
        format!("v{stem}")
    } else {
        stem
    }
}

/// The innermost value definition whose declaration contains `offset`.
pub fn def_at(file: &SourceFile, offset: u32) -> Option<SourceDef> {
    decs_at(&file.decs, offset, true)
}

fn decs_at(decs: &[Dec], offset: u32, top: bool) -> Option<SourceDef> {
    decs.iter()
        .filter(|d| TextRange::from(d.span).touches(offset))
        .find_map(|d| dec_at(d, offset, top))
}

fn dec_at(dec: &Dec, offset: u32, top: bool) -> Option<SourceDef> {
    match &dec.kind {
        DecKind::Val(vb) => Some(SourceDef::new(vb, dec.span.into(), top)),
        DecKind::Local(inner) => dec_at(inner, offset, top),
        DecKind::Module(mb) => mod_exp_at(&mb.body, offset),
        _ => None,
    }
}

fn mod_exp_at(m: &ModExp, offset: u32) -> Option<SourceDef> {
    match &m.kind {
        ModExpKind::Decs(decs) => decs_at(decs, offset, false),
        ModExpKind::Parens(inner) | ModExpKind::Ascript(inner, _) => mod_exp_at(inner, offset),
        ModExpKind::Lambda { body, .. } => mod_exp_at(body, offset),
        ModExpKind::Apply(f, a) => mod_exp_at(f, offset).or_else(|| mod_exp_at(a, offset)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(src: &str, needle: &str) -> Option<SourceDef> {
        let mut db = futhark_db::Database::new();
        let file = db.set_file("/t/origin.fut", src);
        def_at(
            &futhark_db::parse(&db, file).file,
            src.find(needle).unwrap() as u32,
        )
    }

    #[test]
    fn finds_the_definition_around_the_cursor() {
        let src = "def f (x: i32) = x + 1\n\nmodule M = {\n  def g (y: i32) = y\n}\nentry main (x: i32) = M.g (f x)\n";
        assert_eq!(at(src, "x + 1").map(|d| d.name), Some("f".into()));
        let g = at(src, "y\n}").unwrap();
        assert_eq!(g.name, "g");
        assert!(!g.entry);
        let main = at(src, "M.g").unwrap();
        assert!(main.entry && main.has_params);
        assert_eq!(at(src, "\n\nmodule"), at(src, "x + 1"));
        assert_eq!(at(src, "module M").map(|d| d.name), None);
        // A top-level `def main` is an entry point; one in a module is not.
        let mains = "def main (x: i32) = x\nmodule M = { def main (y: i32) = y }\n";
        assert!(at(mains, "x\n").unwrap().entry);
        assert!(!at(mains, "y }").unwrap().entry);
    }

    #[test]
    fn matches_ir_names_as_lowering_makes_them() {
        let src = "def f' (x: i32) = x\ndef a_1 (x: i32) = x\nentry main (x: i32) = x\ndef (+^) (a: i32) (b: i32) = a\n";
        let f = at(src, "f'").unwrap();
        assert!(f.owns("f__4") && !f.owns("f_4") && !f.owns("f__x"));
        let a = at(src, "a_1").unwrap();
        assert!(a.owns("a_7") && !a.owns("a_1_7"));
        let main = at(src, "main").unwrap();
        assert!(main.owns("entry_main_3") && main.owns("main_9") && !main.owns("entry_main"));
        let op = at(src, "+^").unwrap();
        assert!(op.operator && op.owns("op_2"));
    }
}
