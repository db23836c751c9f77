//! The program a compiled cell becomes: the loaded file, the declaration cells that do not
//! depend on values the runner holds, and the cell as an entry point whose parameters are
//! the resident values it mentions (see `Session::cell_program`).

use std::collections::HashMap;
use std::path::Path;

use futhark_check::FileScope;
use futhark_check::env::Scheme;
use futhark_syntax::ast::{Dec, DecKind, ValKeyword};

use crate::compiled::{CELL_ENTRY, Layout};
/// Whether `name` occurs in `text` as a whole word (an identifier token, or a part of a
/// qualified name); comments may give a false yes, which only adds a parameter.
pub(crate) fn mentions(text: &str, name: &str) -> bool {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '\''))
        .any(|w| w == name)
}

/// A declaration cell as the compiled path keeps it.
#[derive(Clone, Debug)]
pub(crate) struct DeclCell {
    pub text: String,
    /// The names it defines.
    pub names: Vec<String>,
}

/// See [`Session::cell_program`]; `residents` are all the values the runner holds.
pub(crate) fn program_text(
    loaded: Option<&Path>,
    decls: &[DeclCell],
    exp: &str,
    residents: &[(String, Layout)],
) -> Result<String, String> {
    let mut out = String::from("-- a session cell as a program\n");
    if let Some(p) = loaded {
        let p = p.to_string_lossy();
        let stem = p.strip_suffix(".fut").unwrap_or(&p);
        out.push_str(&format!("open import \"{stem}\"\n"));
    }
    // Names defined by declarations left out, with the resident value that caused it.
    let mut left_out: HashMap<&str, &str> = HashMap::new();
    for d in decls {
        let cause = residents
            .iter()
            .map(|r| r.0.as_str())
            .chain(left_out.keys().copied())
            .find(|n| mentions(&d.text, n))
            .map(|n| *left_out.get(n).unwrap_or(&n));
        if let Some(cause) = cause {
            // A resident value is newer than every declaration of its name (declaring a
            // name forgets its resident value), so it answers for that name.
            for n in d
                .names
                .iter()
                .filter(|n| !residents.iter().any(|r| &r.0 == *n))
            {
                left_out.insert(n, cause);
            }
            continue;
        }
        for n in &d.names {
            left_out.remove(n.as_str());
        }
        // Imports stay at the top level, where they are allowed.
        if d.text.contains("import") {
            out.push_str(&d.text);
            out.push('\n');
        } else {
            out.push_str(&format!("open {{\n{}\n}}\n", d.text));
        }
    }
    if let Some((name, cause)) = left_out.iter().find(|(n, _)| mentions(exp, n)) {
        return Err(format!(
            "`{name}` is defined from `{cause}`, a value the compiled path holds as a \
             parameter, so cells that use `{name}` run on the interpreter"
        ));
    }
    out.push_str(&format!("entry {CELL_ENTRY}"));
    for (name, layout) in residents.iter().filter(|(n, _)| mentions(exp, n)) {
        out.push_str(&format!(" ({name}: {})", layout.annotation()));
    }
    out.push_str(" =\n");
    out.push_str(exp);
    out.push('\n');
    Ok(out)
}

/// The name and layout of a cell that is one top-level `let x = e` (no parameters, no
/// attributes) whose value the compiled path can keep: `scope` is the scope after the cell.
pub(crate) fn let_binding(decs: &[Dec], scope: &FileScope) -> Option<(String, Layout)> {
    let [dec] = decs else {
        return None;
    };
    let DecKind::Val(vb) = &dec.kind else {
        return None;
    };
    if vb.keyword != ValKeyword::Let
        || vb.infix
        || !vb.params.is_empty()
        || !vb.tparams.is_empty()
        || !dec.attrs.is_empty()
        || dec.doc.is_some()
    {
        return None;
    }
    let name = vb.name.name.clone();
    let layout = match &*scope.env.vals.get(name.as_str())?.scheme {
        Scheme::Poly(ps, t) if ps.is_empty() => Layout::of(t)?,
        _ => return None,
    };
    Some((name, layout))
}

/// The names a list of declarations binds, in order.
pub(crate) fn declared_names(decs: &[Dec]) -> Vec<String> {
    let mut out = Vec::new();
    for d in decs {
        collect_names(d, &mut out);
    }
    out
}

pub(crate) fn collect_names(d: &Dec, out: &mut Vec<String>) {
    match &d.kind {
        DecKind::Val(vb) => out.push(vb.name.name.clone()),
        DecKind::Type(tb) => out.push(tb.name.name.clone()),
        DecKind::Module(mb) => out.push(mb.name.name.clone()),
        DecKind::ModuleType(mt) => out.push(mt.name.name.clone()),
        DecKind::Local(inner) => collect_names(inner, out),
        DecKind::Open(_) | DecKind::Import(_) | DecKind::Error => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mentions_whole_words_only() {
        assert!(mentions("map (+1) it", "it"));
        assert!(mentions("it.0", "it"));
        assert!(!mentions("iota 3", "it"));
        assert!(!mentions("xit + it'", "it"));
    }

    #[test]
    fn cell_programs_wrap_declarations_and_take_residents() {
        let decl = |text: &str, names: &[&str]| DeclCell {
            text: text.to_string(),
            names: names.iter().map(|n| n.to_string()).collect(),
        };
        let text = program_text(
            Some(Path::new("dir/prog.fut")),
            &[decl("def x = 1", &["x"]), decl("import \"lib\"", &[])],
            "x + it",
            &[(
                "it".to_string(),
                Layout::Array(1, futhark_ir::PrimType::F32),
            )],
        );
        assert_eq!(
            text.as_deref(),
            Ok(
                "-- a session cell as a program\nopen import \"dir/prog\"\nopen {\ndef x = 1\n}\n\
             import \"lib\"\nentry futhark_cell (it: []f32) =\nx + it\n"
            )
        );
    }

    #[test]
    fn declarations_from_resident_values_are_left_out_and_marked() {
        let decl = |text: &str, names: &[&str]| DeclCell {
            text: text.to_string(),
            names: names.iter().map(|n| n.to_string()).collect(),
        };
        let decls = [
            decl("def y = 1i32", &["y"]),
            decl("def y = it + 1", &["y"]),
            decl("def z = y * 2", &["z"]),
            decl("def w = 5i32", &["w"]),
        ];
        let it = [("it".to_string(), Layout::Scalar(futhark_ir::PrimType::I32))];
        // `y` must not fall back to the older `def y = 1i32`, nor `z` compute from it.
        let e = program_text(None, &decls, "y + 1", &it).expect_err("y is left out");
        assert!(e.contains("`y` is defined from `it`"), "{e}");
        let e = program_text(None, &decls, "z", &it).expect_err("z is left out");
        assert!(e.contains("`z` is defined from `it`"), "{e}");
        let p = program_text(None, &decls, "w + it", &it).expect("w compiles");
        assert!(!p.contains("it + 1") && p.contains("def w = 5i32"), "{p}");
        assert!(p.contains("(it: i32)"), "{p}");
        // Without a resident `it`, the declarations are all there (`it` is then whatever
        // an earlier declaration defines, or the program does not check).
        let p = program_text(None, &decls, "z", &[]).expect("compiles");
        assert!(p.contains("it + 1"), "{p}");
    }

    #[test]
    fn resident_values_answer_for_older_declarations_of_their_name() {
        let decl = |text: &str, names: &[&str]| DeclCell {
            text: text.to_string(),
            names: names.iter().map(|n| n.to_string()).collect(),
        };
        // `def x = 3i32`, then `let x = iota 5` kept resident: `x` is the parameter.
        let decls = [decl("def x = 3i32", &["x"]), decl("def w = 1i32", &["w"])];
        let x = [("x".to_string(), Layout::Array(1, futhark_ir::PrimType::I64))];
        let p = program_text(None, &decls, "i64.sum x", &x).expect("x is a parameter");
        assert!(!p.contains("def x") && p.contains("(x: []i64)"), "{p}");
        assert!(p.contains("def w = 1i32"), "{p}");
    }
}
