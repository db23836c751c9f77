//! The diagnostics an editor shows for one file: syntax errors and unresolved imports from
//! the database, and type errors from the checker (see [`crate::types`]).

use futhark_db::{Db, File};
use futhark_syntax::{Diagnostic, Span};

use crate::types;

/// Every diagnostic of `file` (its own, not those of the files it imports), sorted: the
/// syntax diagnostics and the type diagnostics together.
pub fn diagnostics(db: &dyn Db, file: File) -> Vec<Diagnostic> {
    let mut diags = syntax_diagnostics(db, file);
    diags.extend(type_diagnostics(db, file));
    sorted(diags)
}

/// Syntax errors and unresolved imports: cheap (a parse), so an editor can show them at
/// once while the type checker catches up.
pub fn syntax_diagnostics(db: &dyn Db, file: File) -> Vec<Diagnostic> {
    futhark_db::file_diagnostics(db, file)
}

/// Type errors and warnings. If the checker fails on the file, a note says so (the syntax
/// diagnostics remain meaningful).
pub fn type_diagnostics(db: &dyn Db, file: File) -> Vec<Diagnostic> {
    match types::type_errors(db, file) {
        Ok(errors) => sorted(errors),
        Err(()) => {
            let mut note = Diagnostic::warning(
                "checker-failed",
                Span::new(file.id(db), 0, 0),
                "the type checker failed on this file (an internal error); only syntax errors are shown",
            );
            note.severity = futhark_syntax::Severity::Note;
            vec![note]
        }
    }
}

fn sorted(mut diags: Vec<Diagnostic>) -> Vec<Diagnostic> {
    diags.sort_by_key(|d| (d.span.start, d.span.end));
    diags.dedup();
    diags
}

#[cfg(test)]
mod tests {
    use crate::fixture::Fixture;

    #[test]
    fn type_errors() {
        let f = Fixture::new("def x : i32 = true\n");
        let diags = super::diagnostics(&f.db, f.file());
        assert_eq!(diags.len(), 1, "{diags:?}");
        assert!(diags[0].is_error());
    }

    #[test]
    fn syntax_and_import_errors() {
        let f = Fixture::new("import \"nowhere\"\ndef x = (1 +\n");
        let codes: Vec<&str> = super::diagnostics(&f.db, f.file())
            .iter()
            .map(|d| d.code)
            .collect();
        assert!(codes.contains(&"import-not-found"), "{codes:?}");
        assert!(codes.len() >= 2, "{codes:?}");
    }
}
