//! Building the interpreter's [`Program`] from the session's database, so that the
//! interpreter numbers files exactly as the database does: a cell evaluated with the
//! database's id for it then shares spans with the checker, and the checker's span-keyed
//! facts ([`TypeHints`]) apply to it as they are.
//!
//! The program is the prelude (under the ids the checker reserved for it) plus the root file
//! and everything it imports, in dependency order.

use std::collections::HashMap;
use std::sync::Arc;

use futhark_check::{CheckContext, DefInfo, TypeInfo};
use futhark_db::{Database, File};
use futhark_interp::program::{Program, SourceUnit, TypeHints, normalise};
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

/// Adds `more` to `hints`.
pub fn merge(hints: &mut TypeHints, more: TypeHints) {
    hints.literal_types.extend(more.literal_types);
    hints.array_row_types.extend(more.array_row_types);
    hints.size_args.extend(more.size_args);
    hints.entry_params.extend(more.entry_params);
    hints.entry_rets.extend(more.entry_rets);
}

/// The interpreter's facts about checked code (`info`), calls into `defs` included.
pub fn hints_for(ctx: &CheckContext, info: &TypeInfo, defs: &Defs) -> TypeHints {
    if defs.is_empty() {
        return futhark_interp::checked::hints_from_info(ctx, info);
    }
    let mut with_defs = TypeInfo {
        defs: defs.clone(),
        ..TypeInfo::default()
    };
    with_defs
        .defs
        .extend(info.defs.iter().map(|(k, v)| (*k, v.clone())));
    with_defs.exp_types = info.exp_types.clone();
    with_defs.literal_types = info.literal_types.clone();
    with_defs.empty_array_rows = info.empty_array_rows.clone();
    with_defs.resolutions = info.resolutions.clone();
    futhark_interp::checked::hints_from_info(ctx, &with_defs)
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
        entry_params: hints.entry_params,
        entry_rets: hints.entry_rets,
    }
}

fn prelude(ctx: &CheckContext, files: &mut Vec<SourceUnit>) -> TypeHints {
    for pf in ctx.prelude_files() {
        let parsed = futhark_syntax::parse(pf.file, pf.source);
        files.push(SourceUnit {
            id: pf.file,
            path: pf.path.to_string(),
            text: Arc::from(pf.source),
            ast: Arc::new(parsed.file),
        });
    }
    futhark_interp::checked::hints_from_info(ctx, ctx.prelude_info())
}

/// The program rooted at `root` (already checked without errors by the caller).
pub fn build(ctx: &CheckContext, db: &Database, root: File) -> Built {
    let mut files = Vec::new();
    let mut hints = prelude(ctx, &mut files);
    let order = futhark_db::import_graph(db, root).order.clone();
    let mut defs = Defs::new();
    for &file in &order {
        defs.extend(
            futhark_db::check(db, file)
                .0
                .info
                .defs
                .iter()
                .map(|(k, v)| (*k, v.clone())),
        );
    }
    for &file in &order {
        let checked = futhark_db::check(db, file);
        merge(&mut hints, hints_for(ctx, &checked.0.info, &defs));
        files.push(SourceUnit {
            id: file.id(db),
            path: normalise(&file.path(db).to_string_lossy()),
            text: Arc::from(file.text(db).as_str()),
            ast: Arc::new(futhark_db::parse(db, file).file.clone()),
        });
    }
    Built {
        program: Program {
            files,
            root: normalise(&root.path(db).to_string_lossy()),
            hints,
        },
        defs,
    }
}
