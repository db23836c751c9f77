//! REPL and notebook cells as the tracked query `check_cell`: each cell is checked once,
//! against the environment the cell before it left; a chain that did not change is not
//! checked again, and an edit re-checks the cells after it. Proven with the database's log
//! of executed queries.

use futhark_db::{Cell, CellChain, CellEnv, Database, check_cell, env_scope};

/// The `check_cell` executions of a log.
fn cell_checks(log: &[String]) -> Vec<String> {
    log.iter()
        .filter(|entry| entry.starts_with("check_cell("))
        .cloned()
        .collect()
}

/// The log's name of a cell (`check_cell(Id(..))` names the key by its salsa id).
fn key(cell: Cell) -> String {
    let debug = format!("{cell:?}");
    let id = debug
        .split("[salsa id]: ")
        .nth(1)
        .and_then(|rest| rest.split([',', ' ']).next())
        .unwrap_or_default();
    format!("check_cell({id})")
}

/// A chain of cells, each in the environment of the one before it.
fn chain(db: &mut Database, texts: &[&str]) -> Vec<Cell> {
    let mut env = CellEnv::Prelude;
    let mut cells = Vec::new();
    for (i, text) in texts.iter().enumerate() {
        let file = db.set_file(format!("[{i}]"), *text);
        let cell = Cell::new(db, file, env);
        env = CellEnv::After(cell);
        cells.push(cell);
    }
    cells
}

fn has_errors(db: &Database, cell: Cell) -> bool {
    let c = &check_cell(db, cell).0;
    !c.syntax.is_empty()
        || c.decls
            .as_ref()
            .is_some_and(|d| d.diagnostics.iter().any(|d| d.is_error()))
        || c.checked_exp
            .as_ref()
            .is_some_and(|e| e.exp.diagnostics.iter().any(|d| d.is_error()))
}

#[test]
fn each_cell_is_checked_once_against_the_one_before() {
    let mut db = Database::new();
    db.log().enable();
    let cells = chain(
        &mut db,
        &["def x = 1i32", "x + 1", "it * 2", "def y = it + x\ny + 1"],
    );
    for &cell in &cells {
        assert!(!has_errors(&db, cell), "{:?}", check_cell(&db, cell));
    }
    let runs = cell_checks(&db.log().take());
    let keys: Vec<String> = cells.iter().map(|&c| key(c)).collect();
    assert_eq!(runs, keys, "one check per cell, in order");
    // The expression cell binds `it`; the split cell binds `y` and then `it`.
    let after = env_scope(&db, CellEnv::After(cells[3]));
    assert!(after.env.vals.contains_key("y") && after.env.vals.contains_key("it"));
    let declared = env_scope(&db, CellEnv::Declared(cells[3]));
    assert!(declared.env.vals.contains_key("y"));
    // Declared: `it` is still the previous cell's (`it * 2`), an i32.
    let it_type = |scope: &futhark_check::FileScope| match &*scope.env.vals["it"].scheme {
        futhark_check::env::Scheme::Poly(_, t) => t.to_string(),
        other => format!("{other:?}"),
    };
    assert_eq!(it_type(&declared), "i32");

    // A new revision (another cell) checks the new cell only: the chain is unchanged.
    let next = db.set_file("[4]", "y * it");
    let last = Cell::new(&db, next, CellEnv::After(cells[3]));
    assert!(!has_errors(&db, last));
    assert_eq!(cell_checks(&db.log().take()), [key(last)]);
    // Asking again runs nothing.
    for &cell in cells.iter().chain([&last]) {
        let _ = check_cell(&db, cell);
    }
    assert!(cell_checks(&db.log().take()).is_empty());
}

#[test]
fn an_edited_cell_rechecks_the_cells_after_it_only() {
    let mut db = Database::new();
    let cells = chain(&mut db, &["def a = 1i32", "def b = 2i32", "a + b"]);
    for &cell in &cells {
        assert!(!has_errors(&db, cell));
    }
    db.log().enable();
    db.set_file("[1]", "def b = true");
    for &cell in &cells {
        let _ = check_cell(&db, cell);
    }
    let runs = cell_checks(&db.log().take());
    assert_eq!(runs, [key(cells[1]), key(cells[2])]);
    // The edit reaches the last cell: `a + b` no longer checks.
    assert!(has_errors(&db, cells[2]));
}

#[test]
fn a_loaded_program_is_the_first_cells_environment() {
    let mut db = Database::new();
    let prog = db.set_file("/repl/prog.fut", "local def hidden = 41i32\n");
    let file = db.set_file("[0]", "hidden + 1");
    let cell = Cell::new(&db, file, CellEnv::Loaded(prog));
    assert!(
        !has_errors(&db, cell),
        "local names of the loaded file are seen"
    );
    let file = db.set_file("[1]", "hidden + 1");
    let prelude_only = Cell::new(&db, file, CellEnv::Prelude);
    assert!(has_errors(&db, prelude_only));
    // Editing the loaded program re-checks the cell on it.
    db.log().enable();
    db.set_file("/repl/prog.fut", "local def hidden = true\n");
    assert!(has_errors(&db, cell));
    assert_eq!(cell_checks(&db.log().take()), [key(cell)]);
}

#[test]
fn syntax_errors_stop_the_check_and_declaration_errors_the_expression() {
    let mut db = Database::new();
    let cells = chain(&mut db, &["def b = (", "def c = 1 + true\nc"]);
    let first = &check_cell(&db, cells[0]).0;
    assert!(!first.syntax.is_empty() && first.decls.is_none());
    let second = &check_cell(&db, cells[1]).0;
    assert!(
        second.exp.is_some(),
        "the cell splits into declarations and `c`"
    );
    assert!(second.decls.is_some() && second.checked_exp.is_none());
}

#[test]
fn only_recent_cells_are_kept_and_older_ones_come_back_when_asked() {
    let mut db = Database::new();
    let n = futhark_db::CELLS_KEPT * 3;
    let texts: Vec<String> = (0..n).map(|i| format!("def x{i} = {i}i32")).collect();
    let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
    let cells = chain(&mut db, &texts);
    // As a session does: each cell, then a trim.
    for &cell in &cells {
        assert!(!has_errors(&db, cell));
        db.trim_cells();
    }
    db.log().enable();
    // The last `CELLS_KEPT` cells (the last one is what a session's environment names)
    // are kept: the `lru` capacity of `check_cell` is `CELLS_KEPT`.
    for &cell in &cells[n - futhark_db::CELLS_KEPT..] {
        let _ = check_cell(&db, cell);
    }
    assert!(cell_checks(&db.log().take()).is_empty());
    // An older one was dropped, and so were the ones before it: asking for it checks it
    // again, after the cells its environment needs, with the same outcome.
    let older = n - futhark_db::CELLS_KEPT - 1;
    let again = &check_cell(&db, cells[older]).0;
    assert!(again.declared().env.vals.contains_key("x0"));
    assert!(
        again
            .declared()
            .env
            .vals
            .contains_key(format!("x{older}").as_str())
    );
    let runs = cell_checks(&db.log().take());
    let keys: Vec<String> = cells[..=older].iter().rev().map(|&c| key(c)).collect();
    assert_eq!(runs, keys);
}

#[test]
fn a_long_session_starts_its_chain_again_from_snapshots() {
    let mut db = Database::new();
    let n = 3000;
    let mut chain = CellChain::new(CellEnv::Prelude);
    let mut last = None;
    for i in 0..n {
        let file = db.set_file(format!("[{i}]"), format!("def x{i} = {i}i32\nx{i} + 1"));
        let cell = Cell::new(&db, file, chain.env());
        assert!(!has_errors(&db, cell));
        let scope = check_cell(&db, cell).0.after().clone();
        chain.advance(&db, CellEnv::After(cell), &scope);
        db.trim_cells();
        last = Some(cell);
    }
    let Some(last) = last else { return };
    assert!(matches!(
        chain.env(),
        CellEnv::After(_) | CellEnv::Snapshot(_)
    ));
    let scope = env_scope(&db, chain.env());
    assert!(scope.env.vals.contains_key("x0") && scope.env.vals.contains_key("x2999"));
    // After an edit elsewhere, the next cell verifies a chain of at most `CHAIN_LINKS`
    // cells (no deep recursion through 3000) and checks nothing again.
    db.set_file("/other.fut", "def a = 1");
    db.set_file("/other.fut", "def a = 2");
    db.log().enable();
    let _ = check_cell(&db, last);
    let file = db.set_file("[next]", "x2999 + x0");
    let next = Cell::new(&db, file, chain.env());
    assert!(!has_errors(&db, next));
    assert_eq!(cell_checks(&db.log().take()), [key(next)]);
}
