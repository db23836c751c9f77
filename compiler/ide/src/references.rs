//! Find references: every occurrence of the definition under the cursor, in its own file
//! and in every workspace file that can see it (through imports, or the prelude).

use futhark_db::{Db, File};

use crate::env::DefLoc;
use crate::prelude::is_prelude_path;
use crate::scope::{Role, Target, file_index};
use crate::{FilePosition, TextRange};

/// One occurrence of a definition.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Reference {
    pub file: File,
    pub range: TextRange,
    pub role: Role,
    /// A record pun (`{x}`): renaming must write `x = new`.
    pub pun: bool,
}

/// The definition the name at `pos` refers to, if it is one with a source.
pub(crate) fn target_at(db: &dyn Db, pos: FilePosition) -> Option<DefLoc> {
    let index = file_index(db, pos.file);
    match index.occurrence_at(pos.offset)?.target {
        Target::Def(loc) => Some(loc),
        _ => None,
    }
}

/// Every occurrence of the definition at `pos`, the definition itself included when
/// `include_declaration`. `workspace` lists the files to search besides the definition's
/// own (the language server passes every file it knows).
pub fn find_references(
    db: &dyn Db,
    pos: FilePosition,
    workspace: &[File],
    include_declaration: bool,
) -> Vec<Reference> {
    let Some(target) = target_at(db, pos) else {
        return Vec::new();
    };
    references_of(db, target, workspace)
        .into_iter()
        .filter(|r| include_declaration || r.role == Role::Reference)
        .collect()
}

/// Every occurrence of `target` in the files that can see it.
pub(crate) fn references_of(db: &dyn Db, target: DefLoc, workspace: &[File]) -> Vec<Reference> {
    let mut files = vec![target.file];
    if !target.kind.is_local() {
        for &file in workspace {
            if !files.contains(&file) && can_see(db, file, target.file) {
                files.push(file);
            }
        }
    }
    let mut out = Vec::new();
    for file in files {
        for occ in file_index(db, file).occurrences_of(target) {
            out.push(Reference {
                file,
                range: occ.span.into(),
                role: occ.role,
                pun: occ.pun,
            });
        }
    }
    out.sort_by(|a, b| (a.file.path(db), a.range.start).cmp(&(b.file.path(db), b.range.start)));
    out.dedup();
    out
}

/// True if names defined in `def_file` may be referred to from `file`: it imports it,
/// directly or not, or it is the prelude and `file` is a program file.
fn can_see(db: &dyn Db, file: File, def_file: File) -> bool {
    if is_prelude_path(def_file.path(db)) && !is_prelude_path(file.path(db)) {
        return true;
    }
    futhark_db::import_graph(db, file).order.contains(&def_file)
}

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};

    use crate::fixture::Fixture;

    fn check(fixture: &str, expect: Expect) {
        let f = Fixture::new(fixture);
        let refs = super::find_references(&f.db, f.position(), &f.files, true);
        let shown: Vec<String> = refs
            .iter()
            .map(|r| format!("{} {:?}", f.show_range(r.file, r.range), r.role))
            .collect();
        expect.assert_eq(&shown.join("\n"));
    }

    #[test]
    fn local_variable() {
        check(
            "def f x$0 = let y = x + 1 in x * y\n",
            expect![[r#"
                /main.fut:6..7 "x" Definition
                /main.fut:18..19 "x" Reference
                /main.fut:27..28 "x" Reference"#]],
        );
    }

    #[test]
    fn shadowed_names_are_distinct() {
        check(
            "def f x = let x$0 = x + 1 in x\n",
            expect![[r#"
                /main.fut:14..15 "x" Definition
                /main.fut:27..28 "x" Reference"#]],
        );
    }

    #[test]
    fn across_files() {
        check(
            r#"
//- /lib.fut
def double$0 (x: i32) = x * 2
def quad x = double (double x)
//- /main.fut
import "lib"
def y = double 2
//- /other.fut
def double = 0
def z = double
"#,
            expect![[r#"
                /lib.fut:4..10 "double" Definition
                /lib.fut:41..47 "double" Reference
                /lib.fut:49..55 "double" Reference
                /main.fut:21..27 "double" Reference"#]],
        );
    }

    #[test]
    fn module_members_through_qualified_names() {
        check(
            r#"
//- /main.fut
module M = { def x$0 = 1 }
open M
def y = M.x + x
"#,
            expect![[r#"
                /main.fut:17..18 "x" Definition
                /main.fut:42..43 "x" Reference
                /main.fut:46..47 "x" Reference"#]],
        );
    }

    #[test]
    fn record_pun_counts() {
        check(
            "def f x$0 = {x}\n",
            expect![[r#"
                /main.fut:6..7 "x" Definition
                /main.fut:11..12 "x" Reference"#]],
        );
    }

    #[test]
    fn nothing_on_an_unresolved_name() {
        check("def f = nope$0\n", expect![[""]]);
    }
}
