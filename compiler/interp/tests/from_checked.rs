//! Building the interpreter's program from files checked elsewhere (as the database does)
//! gives the same program as checking them here.

use std::sync::Arc;

use futhark_check::CheckContext;
use futhark_interp::checked::{CheckedUnit, check_sources, from_checked};
use futhark_interp::session::Session;
use futhark_syntax::FileId;

const LIB: &str = "def twice [n] (xs: [n]i32) : [n]i32 = map (* 2) xs\n";
const MAIN: &str =
    "import \"lib\"\nentry main (xs: []i32) : ([]i32, i64) = (twice xs, length xs + 1)\n";

fn run(prog: futhark_interp::Program) -> String {
    let mut s = Session::new(prog, Default::default()).unwrap_or_else(|e| panic!("{}", e.message));
    let args = futhark_values::read_values(b"[1, 2, 3]").unwrap();
    let out = s
        .call_entry("main", args)
        .unwrap_or_else(|e| panic!("{}", e.message));
    out.iter()
        .map(|v| v.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn programs_from_checked_files_run_like_checked_sources() {
    let ctx = CheckContext::new();
    // Check the files the way the database does: imports first, each with its own id.
    let lib_ast = Arc::new(futhark_syntax::parse(FileId(7), LIB).file);
    let main_ast = Arc::new(futhark_syntax::parse(FileId(8), MAIN).file);
    let lib = futhark_check::check_file(&ctx, FileId(7), &lib_ast, &|_: &str| None);
    let scope = lib.scope.clone();
    let main = futhark_check::check_file(&ctx, FileId(8), &main_ast, &|p: &str| {
        (p == "lib").then(|| scope.clone())
    });
    assert!(main.diagnostics.is_empty(), "{:?}", main.diagnostics);
    let units = [
        CheckedUnit {
            id: FileId(7),
            path: "lib.fut".to_string(),
            text: Arc::from(LIB),
            ast: lib_ast,
            checked: &lib,
        },
        CheckedUnit {
            id: FileId(8),
            path: "main.fut".to_string(),
            text: Arc::from(MAIN),
            ast: main_ast,
            checked: &main,
        },
    ];
    let built = from_checked(&ctx, &units, "main.fut");
    assert!(!built.has_errors());
    let direct = check_sources(
        &ctx,
        vec![
            ("main.fut".to_string(), MAIN.to_string()),
            ("lib.fut".to_string(), LIB.to_string()),
        ],
        "main.fut",
    )
    .unwrap();
    assert_eq!(run(built.program), "[2i32, 4i32, 6i32] 4i64");
    assert_eq!(run(direct.program), "[2i32, 4i32, 6i32] 4i64");
}
