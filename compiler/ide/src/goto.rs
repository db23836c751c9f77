//! Go to definition: the definition of the name under the cursor, in this file, an
//! imported file or the prelude; on an `import` string, the imported file.

use futhark_db::{Db, File};

use crate::defs::DefKind;
use crate::scope::{Target, def_at, file_index};
use crate::{FilePosition, TextRange};

/// Where navigation lands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NavTarget {
    pub file: File,
    /// The whole definition (for previews).
    pub full_range: TextRange,
    /// The defining name (where the cursor goes).
    pub focus_range: TextRange,
    pub name: String,
    /// `None` for a file.
    pub kind: Option<DefKind>,
}

/// The definitions the name at `pos` refers to (at most one today).
pub fn goto_definition(db: &dyn Db, pos: FilePosition) -> Vec<NavTarget> {
    let index = file_index(db, pos.file);
    let Some(occ) = index.occurrence_at(pos.offset) else {
        return Vec::new();
    };
    match occ.target {
        Target::Def(loc) => def_at(db, loc)
            .map(|def| NavTarget {
                file: loc.file,
                full_range: def.full_span.into(),
                focus_range: def.name_span.into(),
                name: def.name.clone(),
                kind: Some(def.kind),
            })
            .into_iter()
            .collect(),
        Target::File(file) => vec![NavTarget {
            file,
            full_range: TextRange::new(0, file.text(db).len() as u32),
            focus_range: TextRange::new(0, 0),
            name: file.path(db).display().to_string(),
            kind: None,
        }],
        Target::Unresolved if occ.class == crate::scope::NameClass::Field => {
            crate::records::field_definition(db, pos)
        }
        Target::Builtin | Target::Unresolved => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};

    use crate::fixture::Fixture;

    fn check(fixture: &str, expect: Expect) {
        let f = Fixture::new(fixture);
        let targets = super::goto_definition(&f.db, f.position());
        let shown: Vec<String> = targets
            .iter()
            .map(|t| f.show_range(t.file, t.focus_range))
            .collect();
        expect.assert_eq(&shown.join("\n"));
    }

    #[test]
    fn local_let() {
        check(
            "def f (x: i32) = let y = x + 1 in y$0 * 2\n",
            expect![[r#"/main.fut:21..22 "y""#]],
        );
    }

    #[test]
    fn parameter() {
        check(
            "def f (x: i32) = let y = x$0 + 1 in y\n",
            expect![[r#"/main.fut:7..8 "x""#]],
        );
    }

    #[test]
    fn shadowing_picks_the_innermost() {
        check(
            "def f x = let x = x + 1 in let x = x * 2 in x$0\n",
            expect![[r#"/main.fut:31..32 "x""#]],
        );
    }

    #[test]
    fn let_value_sees_the_outer_binding() {
        check(
            "def f x = let x = x$0 + 1 in x\n",
            expect![[r#"/main.fut:6..7 "x""#]],
        );
    }

    #[test]
    fn top_level_def_and_recursion() {
        check(
            "def g = 1\ndef fact (n: i32) : i32 = if n == 0 then g else n * fact$0 (n - 1)\n",
            expect![[r#"/main.fut:14..18 "fact""#]],
        );
    }

    #[test]
    fn local_functions_are_not_recursive() {
        check(
            "def f = 1\ndef g = let f x = f$0 + x in f 2\n",
            expect![[r#"/main.fut:4..5 "f""#]],
        );
    }

    #[test]
    fn loop_variables() {
        check(
            "def f n = loop acc = 0 for i < n do acc + i$0\n",
            expect![[r#"/main.fut:27..28 "i""#]],
        );
    }

    #[test]
    fn match_case_binding() {
        check(
            "def f (o: #some i32 | #none) = match o case #some v -> v$0 case #none -> 0\n",
            expect![[r#"/main.fut:50..51 "v""#]],
        );
    }

    #[test]
    fn lambda_parameter() {
        check(
            "def f xs = map (\\x -> x$0 + 1) xs\n",
            expect![[r#"/main.fut:17..18 "x""#]],
        );
    }

    #[test]
    fn size_parameter() {
        check(
            "def f [n] (xs: [n$0]i32) = xs\n",
            expect![[r#"/main.fut:7..8 "n""#]],
        );
    }

    #[test]
    fn type_parameter_and_type() {
        check(
            "type pair 'a = (a, a)\ndef f 't (x: pair$0 t) = x\n",
            expect![[r#"/main.fut:5..9 "pair""#]],
        );
    }

    #[test]
    fn module_member() {
        check(
            "module M = { def x = 1 }\ndef y = M.x$0\n",
            expect![[r#"/main.fut:17..18 "x""#]],
        );
    }

    #[test]
    fn module_name() {
        check(
            "module M = { def x = 1 }\ndef y = M$0.x\n",
            expect![[r#"/main.fut:7..8 "M""#]],
        );
    }

    #[test]
    fn record_projection_of_a_local() {
        check(
            "module r = { def a = 1 }\ndef f (r: {a: i32}) = r$0.a\n",
            expect![[r#"/main.fut:32..33 "r""#]],
        );
    }

    #[test]
    fn across_imports() {
        check(
            r#"
//- /main.fut
import "lib/util"
def y = double$0 2
//- /lib/util.fut
def double (x: i32) = x * 2
"#,
            expect![[r#"/lib/util.fut:4..10 "double""#]],
        );
    }

    #[test]
    fn vendored_packages() {
        check(
            r#"
//- /proj/main.fut
import "lib/github.com/diku-dk/complex/complex"
module c = mk_complex f64
def z = c.mk$0 1 2
//- /proj/lib/github.com/diku-dk/complex/complex.fut
module type complex = { type t  val mk : t -> t -> t }
module mk_complex (R: { type t }) : complex with t = R.t = {
  type t = R.t
  def mk (a: t) (_b: t) = a
}
"#,
            expect![[r#"/proj/lib/github.com/diku-dk/complex/complex.fut:137..139 "mk""#]],
        );
    }

    #[test]
    fn import_string_goes_to_the_file() {
        check(
            r#"
//- /main.fut
import "li$0b"
//- /lib.fut
def x = 1
"#,
            expect![[r#"/lib.fut:0..0 """#]],
        );
    }

    #[test]
    fn module_from_import() {
        check(
            r#"
//- /main.fut
module L = import "lib"
def y = L.x$0
//- /lib.fut
def x = 1
"#,
            expect![[r#"/lib.fut:4..5 "x""#]],
        );
    }

    #[test]
    fn prelude_function() {
        check(
            "def f xs = map$0 (+1) xs\n",
            expect![[r#"/prelude/soacs.fut:636..639 "map""#]],
        );
    }

    #[test]
    fn prelude_module_member() {
        check(
            "def f (x: f32) = f32.sqrt$0 x\n",
            expect![[r#"/prelude/math.fut:48936..48940 "sqrt""#]],
        );
    }

    #[test]
    fn open_brings_members_into_scope() {
        check(
            "module M = { def x = 1 }\nopen M\ndef y = x$0\n",
            expect![[r#"/main.fut:17..18 "x""#]],
        );
    }

    #[test]
    fn qualified_parens_open_a_module() {
        check(
            "module M = { def x = 1 }\ndef y = M.(x$0 + 1)\n",
            expect![[r#"/main.fut:17..18 "x""#]],
        );
    }

    #[test]
    fn functor_parameter_members() {
        check(
            "module type S = { val z : i32 }\nmodule F (P: S) = { def y = P.z$0 }\n",
            expect![[r#"/main.fut:22..23 "z""#]],
        );
    }

    #[test]
    fn sealed_module_member_goes_to_the_body() {
        check(
            "module type S = { val z : i32 }\nmodule M : S = { def z = 1 }\ndef w = M.z$0\n",
            expect![[r#"/main.fut:53..54 "z""#]],
        );
    }

    #[test]
    fn nothing_on_a_builtin() {
        check("def f (x: i32$0) = x\n", expect![[""]]);
    }

    #[test]
    fn nothing_past_the_end() {
        let f = crate::fixture::Fixture::new("def x = 1\n");
        let pos = crate::FilePosition {
            file: f.file(),
            offset: 10_000,
        };
        assert!(super::goto_definition(&f.db, pos).is_empty());
    }
}
