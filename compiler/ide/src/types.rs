//! Type information from the type checker, through the database's `check` query. Every
//! feature that shows a type asks here: hover, inlay hints, record-field completion and
//! the type errors among the diagnostics.
//!
//! The checker's side tables ([`TypeInfo`]) are keyed by span: `exp_types` for
//! expressions and bound names, `defs` for top-level definitions, `literal_types` for
//! overloaded literals. Prelude files are checked once per process by the checker's
//! context, so their tables come from there.
//!
//! **Invariant:** a checker failure never takes a feature down. A panic inside the
//! checker is caught here (salsa's cancellation is passed on), and the features fall back
//! to what the syntax gives: no type, never a guessed one.

use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};

use futhark_check::TypeInfo;
use futhark_check::types::Type;
use futhark_db::{Db, File};
use futhark_syntax::Span;

use crate::prelude::is_prelude_path;
use crate::type_names::TypeNames;

/// Runs `f`, turning a panic into `None`; salsa's cancellation keeps unwinding.
pub(crate) fn guarded<T>(f: impl FnOnce() -> T) -> Option<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(v) => Some(v),
        Err(payload) if payload.is::<salsa::Cancelled>() => resume_unwind(payload),
        Err(_) => None,
    }
}

/// Applies `f` to the checker's tables for `file`, if checking it succeeded.
pub(crate) fn with_info<R>(db: &dyn Db, file: File, f: impl FnOnce(&TypeInfo) -> R) -> Option<R> {
    if is_prelude_path(file.path(db)) {
        let info = guarded(|| futhark_db::check_context().prelude_info())?;
        return Some(f(info));
    }
    let checked = guarded(|| futhark_db::check(db, file))?;
    Some(f(&checked.0.info))
}

/// True for a file the database checks (not a prelude file, whose tables come from the
/// checker's context).
pub(crate) fn is_checked_file(db: &dyn Db, file: File) -> bool {
    !is_prelude_path(file.path(db))
}

/// The inferred type of the expression or bound name at `span` (a variable occurrence, a
/// pattern binding, a parameter), or the type scheme of a top-level definition named
/// there, as Futhark source text written as the program would write it there (see
/// [`TypeNames`]).
pub fn type_of(db: &dyn Db, file: File, span: Span) -> Option<String> {
    let names = TypeNames::at(db, file, span.start);
    type_of_with(db, file, span, &names)
}

/// [`type_of`] with the names of a point computed before (inlay hints share them).
pub(crate) fn type_of_with(
    db: &dyn Db,
    file: File,
    span: Span,
    names: &TypeNames,
) -> Option<String> {
    with_info(db, file, |info| {
        if let Some(ty) = info.exp_types.get(&span) {
            return Some(names.show(ty));
        }
        let def = info.defs.get(&span)?;
        Some(format!(
            "{}{}",
            futhark_check::pretty::tparams_prefix(&def.tparams),
            names.show(&def.ty)
        ))
    })
    .flatten()
}

/// Like [`type_of`], but also accepts an expression that ends where `span` ends and
/// starts before it (the `M.x` around the name `x`), or one that is `span` in parentheses
/// or backticks (an operator section `(+)`, `(<+>)`).
pub(crate) fn type_of_name(db: &dyn Db, file: File, span: Span) -> Option<String> {
    let names = TypeNames::at(db, file, span.start);
    if let Some(ty) = type_of_with(db, file, span, &names) {
        return Some(ty);
    }
    let text = file.text(db);
    let wraps = |s: &Span| {
        let outside = |r: std::ops::Range<usize>| {
            text.get(r)
                .is_some_and(|t| t.chars().all(|c| c.is_whitespace() || "()`".contains(c)))
        };
        s.start <= span.start
            && span.end <= s.end
            && outside(s.start as usize..span.start as usize)
            && outside(span.end as usize..s.end as usize)
    };
    with_info(db, file, |info| {
        let ends_here = info
            .exp_types
            .iter()
            .filter(|(s, _)| s.file == span.file && s.end == span.end && s.start < span.start)
            .min_by_key(|(s, _)| span.start - s.start);
        let wrapping = || {
            info.exp_types
                .iter()
                .filter(|(s, _)| s.file == span.file && **s != span && wraps(s))
                .min_by_key(|(s, _)| s.len())
        };
        ends_here.or_else(wrapping).map(|(_, ty)| names.show(ty))
    })
    .flatten()
}

/// The type an overloaded numeric or character literal was given (`i32`, `f64`, …).
pub fn literal_type(db: &dyn Db, file: File, span: Span) -> Option<String> {
    with_info(db, file, |info| {
        info.literal_types.get(&span).map(|p| p.to_string())
    })
    .flatten()
}

/// The field names of the record reached from the expression at `span` through the
/// fields `path` (completion after `r.` or `r.a.`).
pub fn record_fields(db: &dyn Db, file: File, span: Span, path: &[&str]) -> Vec<String> {
    with_info(db, file, |info| {
        let mut ty = info.exp_types.get(&span)?;
        for field in path {
            match ty {
                Type::Record(fields) => {
                    ty = fields.iter().find(|(k, _)| k.to_string() == *field)?.1
                }
                _ => return None,
            }
        }
        match ty {
            Type::Record(fields) => Some(fields.keys().map(|k| k.to_string()).collect()),
            _ => None,
        }
    })
    .flatten()
    .unwrap_or_default()
}

/// The type errors of `file`; `Err` if the checker failed on it.
pub(crate) fn type_errors(db: &dyn Db, file: File) -> Result<Vec<futhark_syntax::Diagnostic>, ()> {
    if is_prelude_path(file.path(db)) {
        return Ok(Vec::new());
    }
    guarded(|| futhark_db::check(db, file).0.diagnostics.clone()).ok_or(())
}

#[cfg(test)]
mod tests {
    use crate::fixture::Fixture;

    fn type_at(fixture: &str) -> Option<String> {
        let f = Fixture::new(fixture);
        let pos = f.position();
        let index = crate::file_index(&f.db, pos.file);
        let occ = index.occurrence_at(pos.offset)?;
        super::type_of_name(&f.db, pos.file, occ.span)
    }

    #[test]
    fn variables_parameters_and_definitions() {
        assert_eq!(
            type_at("def f (x: i32) = let y = x + 1 in y$0").as_deref(),
            Some("i32")
        );
        assert_eq!(
            type_at("def f (xs: []f32) = map (\\x$0 -> x * 2) xs").as_deref(),
            Some("f32")
        );
        let scheme = type_at("def twice$0 'a (f: a -> a) (x: a) = f (f x)").unwrap_or_default();
        assert!(scheme.contains("a -> a"), "{scheme}");
    }

    #[test]
    fn qualified_names() {
        let ty = type_at("def f (x: f32) = f32.sqrt$0 x").unwrap_or_default();
        assert!(ty.contains("f32 -> f32"), "{ty}");
    }

    #[test]
    fn literals_and_record_fields() {
        let f = Fixture::new("def r = {a = 1i64, b = 2f32}\ndef z = r.a\n");
        let file = f.file();
        let text = f.text();
        let id = file.id(&f.db);
        let lit = text.find("2f32").unwrap_or_default() as u32;
        let span = futhark_syntax::Span::new(id, lit, lit + 4);
        assert_eq!(
            super::literal_type(&f.db, file, span).as_deref(),
            Some("f32")
        );
        let r = text.rfind("r.a").unwrap_or_default() as u32;
        let span = futhark_syntax::Span::new(id, r, r + 1);
        assert_eq!(super::record_fields(&f.db, file, span, &[]), vec!["a", "b"]);
    }
}
