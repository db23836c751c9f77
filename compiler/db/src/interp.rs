//! The interpreter's program, built from the database's parse and check results: the one
//! way any face (the command line's `run`/`test`, the REPL and notebook, the LSP's Run
//! lenses) loads a program for the reference interpreter, so nothing is parsed or checked
//! a second time.

use std::sync::Arc;

use futhark_interp::checked::{Checked, CheckedUnit, from_checked};
use futhark_interp::program::normalise;

use crate::{Db, File, check, check_context, import_graph, parse};

/// The program rooted at `root` (its imports included, the prelude from the checker) with
/// every file's checker diagnostics. The caller decides what errors mean: the interpreter
/// runs whatever it can.
pub fn interp_program(db: &dyn Db, root: File) -> Checked {
    let order = import_graph(db, root).order.clone();
    let checked: Vec<_> = order.iter().map(|&f| check(db, f)).collect();
    let units: Vec<CheckedUnit<'_>> = order
        .iter()
        .zip(&checked)
        .map(|(&f, c)| CheckedUnit {
            id: f.id(db),
            path: unit_path(db, f),
            text: Arc::from(f.text(db).as_str()),
            ast: Arc::new(parse(db, f).file.clone()),
            checked: &c.0,
        })
        .collect();
    from_checked(check_context(), &units, &unit_path(db, root))
}

/// The path the interpreter knows `file` by (imports resolve against it).
fn unit_path(db: &dyn Db, file: File) -> String {
    normalise(&file.path(db).to_string_lossy())
}
