//! The input of the interpreter: parsed source files with their paths and texts, plus what
//! the type checker tells us about them ([`TypeHints`]).

use std::collections::HashMap;
use std::path::{Component, Path};
use std::sync::Arc;

use futhark_syntax::ast::SourceFile;
use futhark_syntax::{FileId, LineIndex, Span};
use futhark_values::PrimType;

use crate::value::TypeDesc;

/// One parsed file.
#[derive(Clone, Debug)]
pub struct SourceUnit {
    pub id: FileId,
    /// Normalised path with the `.fut` extension; prelude files are `/prelude/NAME.fut`.
    pub path: String,
    pub text: Arc<str>,
    pub ast: Arc<SourceFile>,
}

/// Static facts from the type checker that evaluation needs.
#[derive(Clone, Debug, Default)]
pub struct TypeHints {
    /// The resolved type of every unsuffixed numeric literal, by the literal's span.
    pub literal_types: HashMap<Span, PrimType>,
    /// The row type of array literals (needed for empty ones), by the literal's span.
    pub array_row_types: HashMap<Span, TypeDesc>,
    /// Parameter types of the root file's entry points, by entry name.
    pub entry_params: HashMap<String, Vec<TypeDesc>>,
    /// Result types of the root file's entry points, by entry name.
    pub entry_rets: HashMap<String, TypeDesc>,
    /// For references to functions with size parameters, the sizes the checker inferred at
    /// that use (`unflatten`, `rep`, `split` take sizes from the context, not from argument
    /// shapes), by the span of the name.
    pub size_args: HashMap<Span, Vec<(String, SizeExpr)>>,
    /// Expressions typed as arrays of primitive rows: the rows' shape and element type, by
    /// the expression's span (what an empty result's rows are; see `ir::Exp::EmptyRows`).
    pub empty_rows: HashMap<Span, (Vec<SizeExpr>, PrimType)>,
    /// The prelude's facts, computed once per process and shared by every program; looked
    /// up after the maps above (spans never overlap: the prelude has its own file ids).
    pub prelude: Option<Arc<TypeHints>>,
}

impl TypeHints {
    /// The type of the literal at `span`.
    pub fn literal_type(&self, span: &Span) -> Option<PrimType> {
        (self.literal_types.get(span).copied())
            .or_else(|| self.prelude.as_ref()?.literal_types.get(span).copied())
    }

    /// The row type of the array literal at `span`.
    pub fn array_row_type(&self, span: &Span) -> Option<&TypeDesc> {
        (self.array_row_types.get(span))
            .or_else(|| self.prelude.as_ref()?.array_row_types.get(span))
    }

    /// The size arguments inferred at the use at `span`.
    pub fn size_args_at(&self, span: &Span) -> Option<&Vec<(String, SizeExpr)>> {
        (self.size_args.get(span)).or_else(|| self.prelude.as_ref()?.size_args.get(span))
    }

    /// The row shape of the expression at `span`, when it is an array of primitive rows.
    pub fn empty_rows_at(&self, span: &Span) -> Option<&(Vec<SizeExpr>, PrimType)> {
        (self.empty_rows.get(span)).or_else(|| self.prelude.as_ref()?.empty_rows.get(span))
    }
}

/// A size as the checker inferred it, over names in scope at the use.
#[derive(Clone, Debug, PartialEq)]
pub enum SizeExpr {
    Var(String),
    Lit(i64),
    BinOp(String, Box<SizeExpr>, Box<SizeExpr>),
    Apply(String, Vec<SizeExpr>),
}

/// A whole program: every file it needs (the prelude included) and the root file.
#[derive(Clone, Debug, Default)]
pub struct Program {
    pub files: Vec<SourceUnit>,
    /// Path of the root file (entry points come from it).
    pub root: String,
    pub hints: TypeHints,
}

/// The path of the prelude's main file; every non-prelude file opens it implicitly.
pub const PRELUDE_MAIN: &str = "/prelude/prelude.fut";

impl Program {
    pub fn file(&self, path: &str) -> Option<&SourceUnit> {
        self.files.iter().find(|f| f.path == path)
    }
}

/// The path an `import "p"` in the file at `from` refers to.
pub fn resolve_import(from: &str, import: &str) -> String {
    let with_ext = format!("{import}.fut");
    if import.starts_with('/') {
        return normalise(&with_ext);
    }
    let dir = match from.rfind('/') {
        Some(i) => &from[..i + 1],
        None => "",
    };
    normalise(&format!("{dir}{with_ext}"))
}

/// Removes `.` and resolves `..` components, keeping the path relative or absolute.
pub fn normalise(path: &str) -> String {
    let mut parts: Vec<String> = Vec::new();
    let p = Path::new(path);
    let absolute = path.starts_with('/');
    for c in p.components() {
        match c {
            Component::CurDir | Component::RootDir | Component::Prefix(_) => {}
            Component::ParentDir => {
                if parts.last().is_some_and(|l| l != "..") {
                    parts.pop();
                } else if !absolute {
                    parts.push("..".to_string());
                }
            }
            Component::Normal(s) => parts.push(s.to_string_lossy().into_owned()),
        }
    }
    let joined = parts.join("/");
    if absolute {
        format!("/{joined}")
    } else {
        joined
    }
}

/// Turns spans into `path:line:col-col` using the program's files.
pub struct SourceMap {
    files: HashMap<FileId, (String, Arc<str>, LineIndex)>,
}

impl SourceMap {
    pub fn new(program: &Program) -> SourceMap {
        let mut files = HashMap::new();
        for f in &program.files {
            files.insert(
                f.id,
                (f.path.clone(), f.text.clone(), LineIndex::new(&f.text)),
            );
        }
        SourceMap { files }
    }

    pub fn add(&mut self, id: FileId, path: String, text: Arc<str>) {
        let idx = LineIndex::new(&text);
        self.files.insert(id, (path, text, idx));
    }

    /// `path:line:col-col` (or `path:line:col-line:col` across lines).
    pub fn describe(&self, span: Span) -> String {
        match self.files.get(&span.file) {
            Some((path, _, idx)) => {
                let (l1, c1) = idx.line_col(span.start);
                let (l2, c2) = idx.line_col(span.end.max(span.start + 1) - 1);
                if l1 == l2 {
                    format!("{path}:{l1}:{c1}-{c2}")
                } else {
                    format!("{path}:{l1}:{c1}-{l2}:{c2}")
                }
            }
            None => "unknown location".to_string(),
        }
    }

    /// The source text of a span.
    pub fn text(&self, span: Span) -> Option<String> {
        let (_, text, _) = self.files.get(&span.file)?;
        text.get(span.range()).map(str::to_string)
    }
}
