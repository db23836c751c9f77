//! Whether a definition is used, directly or through other definitions, by an entry
//! point: syntactic references within the program's files.

use std::collections::HashSet;

use futhark_db::{Db, File, import_graph, parse};

use super::origin::{SourceDef, def_at};
use crate::{FilePosition, find_references};

/// The most definitions the search visits before giving up (and answering "reachable",
/// the answer that does not claim too much).
const MAX_VISITED: usize = 500;

/// True if an entry point of the program rooted at `root` refers to `def` (defined in
/// `root`), directly or through the definitions it refers to.
pub fn reachable_from_entry(db: &dyn Db, root: File, def: &SourceDef) -> bool {
    if def.entry {
        return true;
    }
    let files = import_graph(db, root).order.clone();
    let mut seen: HashSet<(File, u32)> = HashSet::from([(root, def.name_range.start)]);
    let mut todo = vec![(root, def.name_range.start)];
    while let Some((file, offset)) = todo.pop() {
        if seen.len() > MAX_VISITED {
            return true;
        }
        for r in find_references(db, FilePosition { file, offset }, &files, false) {
            let Some(user) = def_at(&parse(db, r.file).file, r.range.start) else {
                continue;
            };
            if user.entry {
                return true;
            }
            if seen.insert((r.file, user.name_range.start)) {
                todo.push((r.file, user.name_range.start));
            }
        }
    }
    false
}
