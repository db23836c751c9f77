//! Salsa incrementality: editing one file re-parses that file and nothing else, proven with
//! the database's log of executed queries.

use futhark_db::{Database, file_diagnostics, import_graph, imports, parse};

fn parse_runs(log: &[String]) -> Vec<String> {
    log.iter()
        .filter(|entry| entry.starts_with("parse("))
        .cloned()
        .collect()
}

#[test]
fn editing_one_file_reparses_only_that_file() {
    let mut db = Database::new();
    let a = db.set_file("/virtual/a.fut", "def a = 1\n");
    let b = db.set_file("/virtual/b.fut", "def b = 2\n");
    let c = db.set_file("/virtual/c.fut", "def c = 3\n");
    for file in [a, b, c] {
        assert!(parse(&db, file).errors.is_empty());
    }

    db.log().enable();
    db.set_file("/virtual/b.fut", "def b = 20\n");
    for file in [a, b, c] {
        assert!(parse(&db, file).errors.is_empty());
    }
    let runs = parse_runs(&db.log().take());
    assert_eq!(runs.len(), 1, "expected one re-parse, got {runs:?}");
    // The log names the query key by salsa id; `File`'s debug form carries the same id.
    let b_id = format!("{b:?}")
        .replace("File { [salsa id]: ", "")
        .replace(" }", "");
    assert_eq!(runs[0], format!("parse({b_id})"));

    // A second pass with no edit runs nothing at all.
    for file in [a, b, c] {
        let _ = parse(&db, file);
    }
    assert!(db.log().take().is_empty());
}

#[test]
fn editing_an_imported_file_keeps_the_importers_parse() {
    let mut db = Database::new();
    let main = db.set_file("/virtual/main.fut", "import \"lib\"\ndef main = lib_x\n");
    let lib = db.set_file("/virtual/lib.fut", "def lib_x = 1\n");
    assert_eq!(import_graph(&db, main).order, vec![lib, main]);

    db.log().enable();
    db.set_file("/virtual/lib.fut", "def lib_x = 2\n");
    let _ = import_graph(&db, main);
    let _ = parse(&db, lib);
    let runs = parse_runs(&db.log().take());
    assert_eq!(runs.len(), 1, "only lib.fut is re-parsed, got {runs:?}");
}

#[test]
fn missing_import_is_a_located_diagnostic() {
    let mut db = Database::new();
    let text = "import \"nowhere\"\ndef x = 1\n";
    let main = db.set_file("/virtual/m.fut", text);
    assert_eq!(imports(&db, main).len(), 1);
    let diags = file_diagnostics(&db, main);
    assert_eq!(diags.len(), 1);
    assert_eq!(diags[0].code, "import-not-found");
    let start = text.find('"').unwrap_or(0) as u32;
    assert_eq!(diags[0].span.start, start);
}

#[test]
fn import_paths_resolve_relative_to_the_importer() {
    let mut db = Database::new();
    let main = db.set_file(
        "/proj/src/main.fut",
        "import \"lib/github.com/x/y/z\"\nimport \"../util\"\n",
    );
    let z = db.set_file("/proj/src/lib/github.com/x/y/z.fut", "def z = 1\n");
    let util = db.set_file("/proj/util.fut", "def u = 1\n");
    let resolved: Vec<_> = imports(&db, main).iter().map(|i| i.target).collect();
    assert_eq!(resolved, vec![Some(z), Some(util)]);
    assert!(file_diagnostics(&db, main).is_empty());
}

#[test]
fn import_cycles_are_reported_not_looped() {
    let mut db = Database::new();
    let a = db.set_file("/c/a.fut", "import \"b\"\n");
    let b = db.set_file("/c/b.fut", "import \"a\"\n");
    let graph = import_graph(&db, a);
    assert_eq!(graph.order, vec![b, a]);
    assert_eq!(graph.cycles.len(), 1);
}

fn check_runs(log: &[String]) -> Vec<String> {
    log.iter()
        .filter(|entry| entry.starts_with("check("))
        .cloned()
        .collect()
}

#[test]
fn type_errors_reach_the_file_diagnostics() {
    let mut db = Database::new();
    let main = db.set_file("/t/main.fut", "def main (x: i32) : bool = x + 1\n");
    let diags = futhark_db::check_diagnostics(&db, main);
    assert!(diags.iter().any(|d| d.is_error()), "{diags:?}");
    db.set_file("/t/main.fut", "def main (x: i32) : i32 = x + 1\n");
    let diags = futhark_db::check_diagnostics(&db, main);
    assert!(diags.is_empty(), "{diags:?}");
}

#[test]
fn checking_uses_the_imported_files_scope_and_rechecks_only_dependants() {
    let mut db = Database::new();
    let main = db.set_file("/p/main.fut", "import \"lib\"\ndef main (x: i32) = inc x\n");
    let lib = db.set_file("/p/lib.fut", "def inc (x: i32) = x + 1\n");
    let other = db.set_file("/p/other.fut", "def other = 1i32\n");
    for file in [main, other] {
        let diags = futhark_db::check_diagnostics(&db, file);
        assert!(diags.is_empty(), "{diags:?}");
    }

    db.log().enable();
    db.set_file("/p/lib.fut", "def inc (x: i32) = x + 2\n");
    for file in [main, other] {
        let _ = futhark_db::check_diagnostics(&db, file);
    }
    let runs = check_runs(&db.log().take());
    // lib and its importer main are re-checked; other is not.
    assert_eq!(runs.len(), 2, "{runs:?}");
    let _ = lib;
}

#[test]
fn removing_a_file_drops_it_and_reports_its_importers() {
    use futhark_db::Db;
    let mut db = Database::new();
    let main = db.set_file("/virtual/rm/main.fut", "import \"lib\"\ndef main = lib_x\n");
    let lib = db.set_file("/virtual/rm/lib.fut", "def lib_x = 1\n");
    assert!(db.files().contains(&lib));
    assert_eq!(imports(&db, main)[0].target, Some(lib));

    assert!(db.remove_file("/virtual/rm/lib.fut"));
    assert!(!db.files().contains(&lib));
    assert!(db.files().contains(&main));
    assert_eq!(imports(&db, main)[0].target, None);
    let diags = file_diagnostics(&db, main);
    assert!(
        diags.iter().any(|d| d.code == "import-not-found"),
        "expected import-not-found, got {diags:?}"
    );
    // Removing twice, or a file never added, or the prelude, does nothing.
    assert!(!db.remove_file("/virtual/rm/lib.fut"));
    assert!(!db.remove_file("/virtual/rm/none.fut"));
    let prelude = db
        .files()
        .into_iter()
        .find(|f| f.path(&db).starts_with("/prelude"));
    let prelude = prelude.expect("the prelude is registered");
    assert!(!db.remove_file(prelude.path(&db).clone()));

    // Setting the path again revives the same input, and importers see it again.
    let back = db.set_file("/virtual/rm/lib.fut", "def lib_x = 2\n");
    assert_eq!(back, lib);
    assert!(db.files().contains(&lib));
    assert_eq!(imports(&db, main)[0].target, Some(lib));
}

#[test]
fn changing_compile_options_reruns_compilation_only() {
    use futhark_db::{CompileOptions, IrStage, Safety, compile};
    let mut db = Database::new();
    let main = db.set_file(
        "/virtual/opts.fut",
        "entry main (xs: []i32) (is: []i64) = map (\\i -> xs[i]) is\n",
    );
    let checked = compile(&db, main, IrStage::Kernels).unwrap().to_string();
    db.log().enable();
    db.set_compile_options(CompileOptions {
        safety: Safety::Unchecked,
        ..CompileOptions::default()
    });
    let unchecked = compile(&db, main, IrStage::Kernels).unwrap().to_string();
    let runs = db.log().take();
    assert!(
        runs.iter()
            .all(|r| !r.starts_with("parse(") && !r.starts_with("check(")),
        "an option change re-ran {runs:?}"
    );
    assert_ne!(
        checked, unchecked,
        "--unsafe drops the kernel's bounds check"
    );
    // Setting the same options again changes nothing.
    db.set_compile_options(db.compile_options());
    assert_eq!(
        compile(&db, main, IrStage::Kernels).unwrap().to_string(),
        unchecked
    );
}

#[test]
fn the_interpreters_program_reuses_the_check() {
    use futhark_db::{interp_program, program_diagnostics};
    let mut db = Database::new();
    db.set_file("/virtual/ilib.fut", "def inc (x: i32) = x + 1\n");
    let main = db.set_file(
        "/virtual/imain.fut",
        "import \"ilib\"\nentry main (x: i32) = inc x\n",
    );
    assert!(
        program_diagnostics(&db, main)
            .iter()
            .all(|(_, d)| d.is_empty())
    );
    db.log().enable();
    let built = interp_program(&db, main);
    assert!(!built.has_errors());
    let runs = db.log().take();
    assert!(
        runs.iter()
            .all(|r| !r.starts_with("check(") && !r.starts_with("parse(")),
        "building the interpreter's program re-ran {runs:?}"
    );
    // The program holds the prelude and both files, the root last.
    let paths: Vec<&str> = built
        .program
        .files
        .iter()
        .map(|f| f.path.as_str())
        .collect();
    assert_eq!(paths.last(), Some(&"/virtual/imain.fut"));
    assert!(paths.contains(&"/virtual/ilib.fut"));
    assert!(paths.iter().any(|p| p.starts_with("/prelude/")));
}
