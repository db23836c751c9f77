//! A program loaded through the database (`futhark_db::interp_program`, the one loader)
//! runs with its imports, and its diagnostics are the checker's.

use futhark_interp::session::Session;

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
fn programs_load_from_the_database_with_their_imports() {
    let mut db = futhark_db::Database::new();
    db.set_file("/p/lib.fut", LIB);
    let main = db.set_file("/p/main.fut", MAIN);
    let built = futhark_db::interp_program(&db, main);
    assert!(!built.has_errors(), "{:?}", built.diagnostics);
    assert_eq!(run(built.program), "[2i32, 4i32, 6i32] 4i64");
}

#[test]
fn checker_errors_come_with_the_program() {
    let mut db = futhark_db::Database::new();
    let main = db.set_file("/p/main.fut", "def f : i32 = true\n");
    let built = futhark_db::interp_program(&db, main);
    assert!(built.has_errors());
}
