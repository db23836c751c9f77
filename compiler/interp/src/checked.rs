//! Building a [`Program`] from files that are already parsed and checked (the database's
//! `parse` and `check` results: `futhark_db::interp_program` is the one caller that loads
//! programs), collecting the facts evaluation needs ([`TypeHints`]). The prelude comes from
//! the checker, with the same file ids, so the checker's span-keyed tables apply to it
//! directly.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use futhark_check::{
    CheckContext, CheckedFile, DefInfo, DefKind, Size, TParam, Type, TypeInfo, VName,
};
use futhark_syntax::{Diagnostic, FileId, Severity, Span};

use crate::program::{Program, SizeExpr, SourceUnit, TypeHints};
use crate::value::{TypeDesc, field_order};

/// A program with the checker's diagnostics (errors do not stop evaluation: the interpreter
/// runs whatever it can).
pub struct Checked {
    pub program: Program,
    pub diagnostics: Vec<Diagnostic>,
}

impl Checked {
    /// Whether the checker reported an error.
    pub fn has_errors(&self) -> bool {
        self.diagnostics
            .iter()
            .any(|d| d.severity == Severity::Error)
    }
}

/// One file of a program its caller has already parsed and checked, as the database's
/// `parse` and `check` queries give them (see [`from_checked`]).
pub struct CheckedUnit<'a> {
    pub id: FileId,
    /// The path imports resolve against, normalised with [`crate::program::normalise`].
    pub path: String,
    pub text: Arc<str>,
    pub ast: Arc<futhark_syntax::ast::SourceFile>,
    pub checked: &'a CheckedFile,
}

/// The interpreter's program from files that are already parsed and checked, so that a
/// caller holding the checker's results (the database) does not check anything again. `units` are the root and all its imports (any order); `root` is
/// the root's path as given in its unit. The prelude comes from `ctx`, parsed once per
/// process. The diagnostics are the checker's, copied from the units.
pub fn from_checked(ctx: &CheckContext, units: &[CheckedUnit<'_>], root: &str) -> Checked {
    let mut prog = Program::default();
    prog.files.extend(prelude_units(ctx));
    let mut hints = TypeHints {
        prelude: Some(prelude_hints(ctx).clone()),
        ..TypeHints::default()
    };
    let mut diagnostics = Vec::new();
    for u in units {
        prog.files.push(SourceUnit {
            id: u.id,
            path: u.path.clone(),
            text: u.text.clone(),
            ast: u.ast.clone(),
        });
        diagnostics.extend(u.checked.diagnostics.iter().cloned());
    }
    prog.root = root.to_string();
    let checked: Vec<(&str, &CheckedFile)> =
        units.iter().map(|u| (u.path.as_str(), u.checked)).collect();
    add_hints(ctx, &mut hints, &checked, root);
    prog.hints = hints;
    Checked {
        program: prog,
        diagnostics,
    }
}

/// The prelude's hints, computed once per process: the prelude's text and file ids are
/// fixed, and hints hold no checker-specific names, so every context gives the same.
fn prelude_hints(ctx: &CheckContext) -> &'static Arc<TypeHints> {
    static HINTS: OnceLock<Arc<TypeHints>> = OnceLock::new();
    HINTS.get_or_init(|| {
        let info = ctx.prelude_info();
        let mut hints = TypeHints::default();
        size_args(&mut hints, info, &|s| info.defs.get(s));
        absorb(&mut hints, &info.literal_types, &info.empty_array_rows);
        Arc::new(hints)
    })
}

/// The prelude's files, with the trees the checker parsed when it built `ctx`.
fn prelude_units(ctx: &CheckContext) -> Vec<SourceUnit> {
    ctx.prelude_asts()
        .iter()
        .map(|(pf, ast)| SourceUnit {
            id: pf.file,
            path: pf.path.to_string(),
            text: Arc::from(pf.source),
            ast: ast.clone(),
        })
        .collect()
}

/// The facts evaluation needs from checked files (`(path, result)` pairs): inferred size
/// arguments, literal types, empty-array rows, and the entry points of `root`.
fn add_hints(
    ctx: &CheckContext,
    hints: &mut TypeHints,
    results: &[(&str, &CheckedFile)],
    root: &str,
) {
    // A use may name a definition of any file of the program or of the prelude.
    let lookup = |span: &Span| {
        results
            .iter()
            .find_map(|(_, r)| r.info.defs.get(span))
            .or_else(|| ctx.prelude_info().defs.get(span))
    };
    for (_, r) in results {
        size_args(hints, &r.info, &lookup);
        empty_rows(hints, &r.info);
    }
    for (path, r) in results {
        absorb(hints, &r.info.literal_types, &r.info.empty_array_rows);
        if *path == root {
            for e in &r.info.entries {
                let params = e.params.iter().map(|p| desc(&p.ty)).collect();
                hints.entry_params.insert(e.name.to_string(), params);
                hints.entry_rets.insert(e.name.to_string(), desc(&e.ret.ty));
            }
        }
    }
}

fn absorb(
    hints: &mut TypeHints,
    lits: &HashMap<Span, futhark_check::PrimType>,
    rows: &HashMap<Span, Type>,
) {
    for (span, t) in lits {
        hints.literal_types.insert(*span, *t);
    }
    for (span, t) in rows {
        hints.array_row_types.insert(*span, desc(t));
    }
}

/// Records the row shape of every expression typed as an array of primitive rows whose
/// sizes are terms over names (an empty result's rows take it).
fn empty_rows(hints: &mut TypeHints, info: &TypeInfo) {
    for (span, t) in &info.exp_types {
        let Type::Array(a) = t else { continue };
        let Type::Prim(p) = a.elem else { continue };
        if a.shape.len() < 2 {
            continue;
        }
        if let Some(dims) = a.shape[1..]
            .iter()
            .map(size_expr)
            .collect::<Option<Vec<_>>>()
        {
            hints.empty_rows.insert(*span, (dims, p));
        }
    }
}

/// Records, for every use of a function with size parameters, the sizes inferred there.
fn size_args<'d>(
    hints: &mut TypeHints,
    info: &TypeInfo,
    defs: &dyn Fn(&Span) -> Option<&'d DefInfo>,
) {
    for (use_span, r) in &info.resolutions {
        if r.kind != DefKind::Value {
            continue;
        }
        let Some(def) = r.span.and_then(|s| defs(&s)) else {
            continue;
        };
        let sizes: Vec<&VName> = def
            .tparams
            .iter()
            .filter_map(|t| match t {
                TParam::Size { name } => Some(name),
                _ => None,
            })
            .collect();
        if sizes.is_empty() {
            continue;
        }
        let Some(inst) = info.exp_types.get(use_span) else {
            continue;
        };
        let mut found: HashMap<u64, Size> = HashMap::new();
        match_sizes(&def.ty, inst, &sizes, &mut found, 0);
        let args: Vec<(String, SizeExpr)> = sizes
            .iter()
            .filter_map(|v| Some((v.name.to_string(), size_expr(found.get(&v.id)?)?)))
            .collect();
        if !args.is_empty() {
            hints.size_args.insert(*use_span, args);
        }
    }
}

fn match_sizes(g: &Type, i: &Type, params: &[&VName], out: &mut HashMap<u64, Size>, depth: u32) {
    if depth > 32 {
        return;
    }
    match (g, i) {
        (Type::Array(a), Type::Array(b)) => {
            for (x, y) in a.shape.iter().zip(&b.shape) {
                if let Size::Var(v) = x
                    && params.iter().any(|p| p.id == v.id)
                {
                    out.entry(v.id).or_insert_with(|| y.clone());
                }
            }
            match_sizes(&a.elem, &b.elem, params, out, depth + 1);
        }
        (Type::Record(a), Type::Record(b)) => {
            for (k, x) in a {
                if let Some(y) = b.get(k) {
                    match_sizes(x, y, params, out, depth + 1);
                }
            }
        }
        (Type::Arrow(a), Type::Arrow(b)) => {
            match_sizes(&a.ret.ty, &b.ret.ty, params, out, depth + 1);
            match_sizes(&a.param, &b.param, params, out, depth + 1);
        }
        (Type::Sum(a), Type::Sum(b)) => {
            for (k, xs) in a {
                if let Some(ys) = b.get(k) {
                    for (x, y) in xs.iter().zip(ys) {
                        match_sizes(x, y, params, out, depth + 1);
                    }
                }
            }
        }
        _ => {}
    }
}

fn size_expr(s: &Size) -> Option<SizeExpr> {
    Some(match s {
        Size::Var(v) => SizeExpr::Var(v.name.to_string()),
        Size::Lit(k) => SizeExpr::Lit(*k),
        Size::BinOp(op, a, b) => SizeExpr::BinOp(
            op.name.to_string(),
            Box::new(size_expr(a)?),
            Box::new(size_expr(b)?),
        ),
        Size::Apply(f, args) => SizeExpr::Apply(
            f.name.to_string(),
            args.iter().map(size_expr).collect::<Option<Vec<_>>>()?,
        ),
        #[allow(unreachable_patterns)]
        _ => return None,
    })
}

/// The run-time layout of a checked type (unknown sizes become 0).
pub fn desc(t: &Type) -> TypeDesc {
    match t {
        Type::Prim(p) => TypeDesc::Prim(*p),
        Type::Array(a) => {
            let dims = a
                .shape
                .iter()
                .map(|s| match s {
                    futhark_check::Size::Lit(k) => *k,
                    _ => 0,
                })
                .collect();
            TypeDesc::Array(dims, Box::new(desc(&a.elem)))
        }
        Type::Record(fields) => {
            let mut fs: Vec<(String, TypeDesc)> = fields
                .iter()
                .map(|(n, t)| (n.to_string(), desc(t)))
                .collect();
            fs.sort_by(|a, b| field_order(&a.0, &b.0));
            let (names, ts) = fs.into_iter().unzip();
            TypeDesc::Record(names, ts)
        }
        _ => TypeDesc::Opaque,
    }
}

/// The hints of one checked REPL cell or expression (`info`), for
/// [`crate::Session::add_hints`]. Calls in the cell may refer to definitions of the cell,
/// of `defs` (earlier cells and loaded files) and of the prelude (from `ctx`).
pub fn hints_from_info(
    ctx: &CheckContext,
    info: &TypeInfo,
    defs: &HashMap<Span, DefInfo>,
) -> TypeHints {
    let mut hints = TypeHints::default();
    let lookup = |span: &Span| {
        info.defs
            .get(span)
            .or_else(|| defs.get(span))
            .or_else(|| ctx.prelude_info().defs.get(span))
    };
    size_args(&mut hints, info, &lookup);
    empty_rows(&mut hints, info);
    absorb(&mut hints, &info.literal_types, &info.empty_array_rows);
    hints
}
