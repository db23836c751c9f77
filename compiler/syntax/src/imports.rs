//! [`SourceFile::imports`]: every `import "…"` in a file, in source order.

use crate::ast::{Dec, DecKind, ModExp, ModExpKind, SourceFile, StrLit};

impl SourceFile {
    /// Every `import "…"` in the file, in order: top-level and `local` imports, imports in
    /// module bodies, and `import` module expressions (`open import "x"`,
    /// `module M = import "x"`).
    pub fn imports(&self) -> Vec<&StrLit> {
        let mut out = Vec::new();
        for dec in &self.decs {
            dec_imports(dec, &mut out);
        }
        out
    }
}

fn dec_imports<'a>(dec: &'a Dec, out: &mut Vec<&'a StrLit>) {
    match &dec.kind {
        DecKind::Import(path) => out.push(path),
        DecKind::Local(inner) => dec_imports(inner, out),
        DecKind::Open(m) => mod_imports(m, out),
        DecKind::Module(bind) => mod_imports(&bind.body, out),
        DecKind::Val(_) | DecKind::Type(_) | DecKind::ModuleType(_) | DecKind::Error => {}
    }
}

fn mod_imports<'a>(m: &'a ModExp, out: &mut Vec<&'a StrLit>) {
    match &m.kind {
        ModExpKind::Import(path) => out.push(path),
        ModExpKind::Parens(inner) | ModExpKind::Ascript(inner, _) => mod_imports(inner, out),
        ModExpKind::Lambda { body, .. } => mod_imports(body, out),
        ModExpKind::Apply(f, arg) => {
            mod_imports(f, out);
            mod_imports(arg, out);
        }
        ModExpKind::Decs(decs) => {
            for dec in decs {
                dec_imports(dec, out);
            }
        }
        ModExpKind::Var(_) | ModExpKind::Error => {}
    }
}
