//! Records and the type declarations that spell them out: going from a field (`v.x`) to
//! its declaration (the `x` of `type vec = {x: f32, y: f32}`), and from a value whose type
//! is a record to that type's declaration (`textDocument/typeDefinition`). The checker
//! expands abbreviations, so a record type is matched to the declarations, in the file and
//! the files it imports (not the prelude), whose record has the same field names.

use std::collections::BTreeSet;

use futhark_check::Type;
use futhark_db::{Db, File};
use futhark_syntax::Span;
use futhark_syntax::ast::{Dec, DecKind, ModExpKind, TypeExpKind};

use crate::defs::DefKind;
use crate::goto::NavTarget;
use crate::prelude::is_prelude_path;
use crate::scope::{NameClass, file_index};
use crate::types::with_info;
use crate::{FilePosition, TextRange};

/// A type declaration whose definition is a record type.
struct RecordDecl {
    file: File,
    name: String,
    name_span: Span,
    full_span: Span,
    fields: Vec<(String, Span)>,
}

fn collect(file: File, decs: &[Dec], out: &mut Vec<RecordDecl>) {
    for d in decs {
        match &d.kind {
            DecKind::Type(tb) => {
                if let TypeExpKind::Record(fields) = &tb.ty.kind {
                    out.push(RecordDecl {
                        file,
                        name: tb.name.name.clone(),
                        name_span: tb.name.span,
                        full_span: d.span,
                        fields: fields
                            .iter()
                            .map(|(f, _)| (f.name.clone(), f.span))
                            .collect(),
                    });
                }
            }
            DecKind::Module(mb) => {
                if let ModExpKind::Decs(inner) = &mb.body.kind {
                    collect(file, inner, out);
                }
            }
            DecKind::Local(inner) => collect(file, std::slice::from_ref(inner), out),
            _ => {}
        }
    }
}

/// The record declarations `file` can see, whose field names are `names`.
fn matching(db: &dyn Db, file: File, names: &BTreeSet<String>) -> Vec<RecordDecl> {
    let mut all = Vec::new();
    for &f in &futhark_db::import_graph(db, file).order {
        if is_prelude_path(f.path(db)) {
            continue;
        }
        collect(f, &futhark_db::parse(db, f).file.decs, &mut all);
    }
    all.retain(|d| {
        d.fields.len() == names.len() && d.fields.iter().all(|(n, _)| names.contains(n))
    });
    all
}

/// The field names of `t` when it is a record, or an array of records.
fn field_names(t: &Type) -> Option<BTreeSet<String>> {
    match t {
        Type::Record(fields) => Some(fields.keys().map(|k| k.to_string()).collect()),
        Type::Array(a) => field_names(&a.elem),
        _ => None,
    }
}

/// The field names of the record type of the (largest) expression of `file` ending at
/// `end`.
pub(crate) fn record_ending_at(db: &dyn Db, file: File, end: u32) -> Option<BTreeSet<String>> {
    with_info(db, file, |info| {
        info.exp_types
            .iter()
            .filter(|(s, _)| s.file == file.id(db) && s.end == end)
            .min_by_key(|(s, _)| s.start)
            .and_then(|(_, t)| match t {
                Type::Record(_) => field_names(t),
                _ => None,
            })
    })
    .flatten()
}

/// The declaration of the field at `pos` (`v.x` with the cursor on `x`).
pub fn field_definition(db: &dyn Db, pos: FilePosition) -> Vec<NavTarget> {
    let index = file_index(db, pos.file);
    let Some(occ) = index.occurrence_at(pos.offset) else {
        return Vec::new();
    };
    let text = pos.file.text(db);
    let dot = occ.span.start.saturating_sub(1);
    if occ.class != NameClass::Field || text.as_bytes().get(dot as usize) != Some(&b'.') {
        return Vec::new();
    }
    let name = text.get(occ.span.range()).unwrap_or("").to_string();
    let Some(names) = record_ending_at(db, pos.file, dot) else {
        return Vec::new();
    };
    matching(db, pos.file, &names)
        .into_iter()
        .filter_map(|d| {
            let (_, span) = d.fields.iter().find(|(n, _)| *n == name)?;
            Some(NavTarget {
                file: d.file,
                full_range: d.full_span.into(),
                focus_range: (*span).into(),
                name: name.clone(),
                kind: Some(DefKind::Type),
            })
        })
        .collect()
}

/// The declaration of the type of the name at `pos`, when that type is a record (or an
/// array of records) that a visible type declaration spells out.
pub fn type_definition(db: &dyn Db, pos: FilePosition) -> Vec<NavTarget> {
    let index = file_index(db, pos.file);
    let Some(occ) = index.occurrence_at(pos.offset) else {
        return Vec::new();
    };
    let span = occ.span;
    let names = with_info(db, pos.file, |info| {
        let t = info.exp_types.get(&span).or_else(|| {
            info.exp_types
                .iter()
                .filter(|(s, _)| s.file == span.file && s.end == span.end && s.start < span.start)
                .min_by_key(|(s, _)| span.start - s.start)
                .map(|(_, t)| t)
        })?;
        field_names(t)
    })
    .flatten();
    let Some(names) = names else {
        return Vec::new();
    };
    matching(db, pos.file, &names)
        .into_iter()
        .map(|d| NavTarget {
            file: d.file,
            full_range: d.full_span.into(),
            focus_range: TextRange::from(d.name_span),
            name: d.name,
            kind: Some(DefKind::Type),
        })
        .collect()
}
