//! The interpreter's [`Program`] from the session's database (`futhark_db::interp_program`),
//! so that the interpreter numbers files exactly as the database does: a cell evaluated
//! with the database's id for it then shares spans with the checker, and the checker's
//! span-keyed facts ([`TypeHints`]) apply to it as they are. Also the facts of checked
//! cells, which are not files of the program.

use std::collections::HashMap;

use futhark_check::{CheckContext, DefInfo, TypeInfo};
use futhark_db::{Database, File};
use futhark_interp::program::{Program, TypeHints};
use futhark_syntax::Span;

/// The path of the empty root file of a session with nothing loaded.
pub const EMPTY_ROOT: &str = "[session].fut";

/// Top-level definitions seen so far, by the span of their name: the interpreter needs the
/// definition of a size-parametric function to find the size arguments of a call to it.
pub type Defs = HashMap<Span, DefInfo>;

/// A program for the interpreter and the definitions of its files.
pub struct Built {
    pub program: Program,
    pub defs: Defs,
}

/// The interpreter's facts about checked code (`info`), calls into `defs` included.
pub fn hints_for(ctx: &CheckContext, info: &TypeInfo, defs: &Defs) -> TypeHints {
    futhark_interp::checked::hints_from_info(ctx, info, defs)
}

/// Moves the spans of `file` in `hints` right by `shift` bytes (for a text evaluated with a
/// prefix the checker did not see).
pub fn shift_hints(hints: TypeHints, file: futhark_syntax::FileId, shift: u32) -> TypeHints {
    let mv = |s: Span| {
        if s.file == file {
            Span::new(file, s.start + shift, s.end + shift)
        } else {
            s
        }
    };
    TypeHints {
        literal_types: hints
            .literal_types
            .into_iter()
            .map(|(s, t)| (mv(s), t))
            .collect(),
        array_row_types: hints
            .array_row_types
            .into_iter()
            .map(|(s, t)| (mv(s), t))
            .collect(),
        size_args: hints
            .size_args
            .into_iter()
            .map(|(s, t)| (mv(s), t))
            .collect(),
        empty_rows: hints
            .empty_rows
            .into_iter()
            .map(|(s, t)| (mv(s), t))
            .collect(),
        entry_params: hints.entry_params,
        entry_rets: hints.entry_rets,
        prelude: hints.prelude,
    }
}

/// The program rooted at `root` (already checked without errors by the caller), built by
/// the database from its parse and check results.
pub fn build(db: &Database, root: File) -> Built {
    let mut defs = Defs::new();
    for &file in &futhark_db::import_graph(db, root).order {
        defs.extend(
            futhark_db::check(db, file)
                .0
                .info
                .defs
                .iter()
                .map(|(k, v)| (*k, v.clone())),
        );
    }
    Built {
        program: futhark_db::interp_program(db, root).program,
        defs,
    }
}
