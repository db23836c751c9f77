//! Whether a rename would change what a name refers to: a renamed reference that an inner
//! binding of the new name would capture (`\x -> let y = 1 in y + x`, renaming `x` to `y`),
//! or a use of another binding of the new name that the renamed definition would capture
//! (`let y = x + 1 in y * x`, renaming `y` to `x`). Both are found by resolving the names
//! in the scopes at the places concerned, as they are now.

use futhark_db::{Db, File};

use crate::defs::Ns;
use crate::env::DefLoc;
use crate::references::Reference;
use crate::scope::{Layer, Role, ScopeAt, Target, file_index, scope_at};

/// The most places looked at; a rename touching more is not checked for captures.
const MAX_PLACES: usize = 500;

/// Where `name` resolves in `scope` (layer, then position inside a layer of locals; smaller
/// is more inner), and to what.
pub(crate) fn lookup(scope: &ScopeAt, name: &str, ns: Ns) -> Option<((usize, usize), DefLoc)> {
    for (i, layer) in scope.layers.iter().enumerate() {
        match layer {
            Layer::Locals(locals) => {
                let hit = locals
                    .iter()
                    .enumerate()
                    .find(|(_, (n, loc))| n == name && loc.kind.namespace() == ns);
                if let Some((j, (_, loc))) = hit {
                    return Some(((i, j), *loc));
                }
            }
            Layer::Env(env) => {
                let map = match ns {
                    Ns::Val => &env.vals,
                    Ns::Type => &env.types,
                    Ns::Mod | Ns::ModType => return None,
                };
                if let Some(loc) = map.get(name) {
                    return Some(((i, 0), *loc));
                }
            }
        }
    }
    None
}

/// Why renaming `target` (now called `old`, with `refs`) to `new` would change the meaning
/// of the program, or `None`.
pub(crate) fn capture(
    db: &dyn Db,
    target: DefLoc,
    old: &str,
    new: &str,
    refs: &[Reference],
) -> Option<String> {
    let ns = target.kind.namespace();
    if matches!(ns, Ns::Mod | Ns::ModType) || refs.len() > MAX_PLACES {
        return None;
    }
    // A reference to the definition that an inner binding of `new` would take over.
    for r in refs.iter().filter(|r| r.role == Role::Reference) {
        let scope = scope_at(db, r.file, r.range.start);
        let (Some((ours, _)), Some((theirs, other))) =
            (lookup(&scope, old, ns), lookup(&scope, new, ns))
        else {
            continue;
        };
        if other != target && theirs <= ours {
            return Some(format!(
                "renaming to `{new}` would make a use of `{old}` refer to another `{new}`"
            ));
        }
    }
    // A use of another `new` that the renamed definition would take over.
    let mut files: Vec<File> = Vec::new();
    for r in refs {
        if !files.contains(&r.file) {
            files.push(r.file);
        }
    }
    let mut looked = 0;
    for file in files {
        let text = file.text(db);
        for occ in &file_index(db, file).occurrences {
            let Target::Def(other) = occ.target else {
                continue;
            };
            if other == target
                || occ.role != Role::Reference
                || other.kind.namespace() != ns
                || text.get(occ.span.range()) != Some(new)
            {
                continue;
            }
            looked += 1;
            if looked > MAX_PLACES {
                return None;
            }
            let scope = scope_at(db, file, occ.span.start);
            let (Some((ours, mine)), Some((theirs, _))) =
                (lookup(&scope, old, ns), lookup(&scope, new, ns))
            else {
                continue;
            };
            if mine == target && ours <= theirs {
                return Some(format!(
                    "renaming to `{new}` would make a use of another `{new}` refer to this definition"
                ));
            }
        }
    }
    None
}
