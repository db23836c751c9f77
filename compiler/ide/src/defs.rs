//! Definitions as the IDE sees them: a name, its kind, where it is, the signature text as
//! written (whitespace collapsed) and its doc comment; plus the helpers that render those
//! signatures from the AST.

use std::sync::Arc;

use futhark_syntax::Span;
use futhark_syntax::ast::{Liftedness, TypeExp, TypeExpKind, TypeParam, ValBind, ValKeyword};

use crate::TextRange;
use crate::env::{DefId, DefLoc, Env};

/// What a definition defines.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DefKind {
    /// A top-level or module-level `def` with parameters, or a `val` spec of function type.
    Function,
    /// A `def` without parameters, or a `val` spec of non-function type.
    Value,
    /// An `entry` point.
    Entry,
    /// `let f x = …` inside an expression.
    LocalFunction,
    /// A variable bound by `let`, `loop`, `for`, `case` or a `with` destination.
    Local,
    /// A parameter of a function or lambda.
    Param,
    /// A type abbreviation or an abstract type in a module type.
    Type,
    /// `'a`, `'~a`, `'^a`.
    TypeParam,
    /// `[n]`, or a size bound by `let [n]` or `?[n].`.
    SizeParam,
    Module,
    /// A parametric module `module F (P: S) = …`.
    Functor,
    /// The `P` of `module F (P: S)` or `\(P: S) -> …`.
    ModuleParam,
    ModuleType,
}

/// The namespaces of Futhark: values (and sizes), types, modules and module types.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ns {
    Val,
    Type,
    Mod,
    ModType,
}

impl DefKind {
    /// True for names that are visible only inside one expression or declaration.
    pub fn is_local(self) -> bool {
        matches!(
            self,
            DefKind::LocalFunction
                | DefKind::Local
                | DefKind::Param
                | DefKind::TypeParam
                | DefKind::SizeParam
                | DefKind::ModuleParam
        )
    }

    pub fn namespace(self) -> Ns {
        match self {
            DefKind::Function
            | DefKind::Value
            | DefKind::Entry
            | DefKind::LocalFunction
            | DefKind::Local
            | DefKind::Param
            | DefKind::SizeParam => Ns::Val,
            DefKind::Type | DefKind::TypeParam => Ns::Type,
            DefKind::Module | DefKind::Functor | DefKind::ModuleParam => Ns::Mod,
            DefKind::ModuleType => Ns::ModType,
        }
    }

    /// A few words for hover and completion details.
    pub fn describe(self) -> &'static str {
        match self {
            DefKind::Function => "function",
            DefKind::Value => "value",
            DefKind::Entry => "entry point",
            DefKind::LocalFunction => "local function",
            DefKind::Local => "local variable",
            DefKind::Param => "parameter",
            DefKind::Type => "type",
            DefKind::TypeParam => "type parameter",
            DefKind::SizeParam => "size parameter",
            DefKind::Module => "module",
            DefKind::Functor => "parametric module",
            DefKind::ModuleParam => "module parameter",
            DefKind::ModuleType => "module type",
        }
    }
}

/// One definition in a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Def {
    pub name: String,
    pub kind: DefKind,
    /// The defining name.
    pub name_span: Span,
    /// The whole declaration or binding (for symbols and navigation).
    pub full_span: Span,
    /// The signature as written, whitespace collapsed: `def map 'a (f: a -> b) : []b`.
    pub signature: String,
    /// Where each parameter sits inside `signature` (for signature help).
    pub params: Vec<TextRange>,
    pub doc: Option<String>,
    /// The enclosing module or module type, if any.
    pub container: Option<DefId>,
    /// True for `val`, `type` and `module` specs inside module types.
    pub is_spec: bool,
    /// For a member of a module sealed by a module type: the spec it matched, whose doc
    /// comment documents it when it has none of its own.
    pub spec: Option<DefLoc>,
    /// The members of a module, functor (its body), module parameter or module type.
    pub members: Option<Arc<Env>>,
}

/// The longest signature text we keep; longer ones end in `…`.
const MAX_SNIPPET: usize = 240;

/// The source text of `span` with every run of whitespace collapsed to one space, cut at
/// a reasonable length.
pub(crate) fn snippet(text: &str, span: Span) -> String {
    let raw = text.get(span.range()).unwrap_or("");
    let mut out = String::with_capacity(raw.len().min(MAX_SNIPPET + 4));
    let mut space = false;
    for c in raw.chars() {
        if c.is_whitespace() {
            space = !out.is_empty();
            continue;
        }
        if space {
            out.push(' ');
            space = false;
        }
        if out.len() >= MAX_SNIPPET {
            out.push('…');
            break;
        }
        out.push(c);
    }
    out
}

/// `'a`, `'~a`, `'^a` or `[n]`.
pub(crate) fn tparam_text(tp: &TypeParam) -> String {
    match tp {
        TypeParam::Size(n) => format!("[{}]", n.name),
        TypeParam::Type(n, Liftedness::Unlifted) => format!("'{}", n.name),
        TypeParam::Type(n, Liftedness::SizeLifted) => format!("'~{}", n.name),
        TypeParam::Type(n, Liftedness::Lifted) => format!("'^{}", n.name),
    }
}

/// A name as it is written in a binding position: operators in parentheses.
pub(crate) fn binder_text(name: &str) -> String {
    let is_op = name
        .chars()
        .next()
        .is_some_and(|c| !(c.is_ascii_alphanumeric() || c == '_'));
    if is_op {
        format!("({name})")
    } else {
        name.to_string()
    }
}

/// A signature under construction: text plus the ranges of its parameters.
struct SigBuilder {
    text: String,
    params: Vec<TextRange>,
}

impl SigBuilder {
    fn new(head: &str) -> SigBuilder {
        SigBuilder {
            text: head.to_string(),
            params: Vec::new(),
        }
    }

    fn push(&mut self, s: &str) {
        self.text.push_str(s);
    }

    fn param(&mut self, s: &str) {
        let start = self.text.len() as u32;
        self.text.push_str(s);
        self.params
            .push(TextRange::new(start, self.text.len() as u32));
    }
}

/// The signature of a value binding: `def f 'a [n] (x: [n]a) : a`, or the infix form
/// `def x +++ y`.
pub(crate) fn val_signature(text: &str, v: &ValBind) -> (String, Vec<TextRange>) {
    let keyword = match v.keyword {
        ValKeyword::Def => "def ",
        ValKeyword::Entry => "entry ",
        ValKeyword::Let => "let ",
    };
    let mut sig = SigBuilder::new(keyword);
    if v.infix && v.params.len() == 2 {
        sig.param(&snippet(text, v.params[0].span));
        sig.push(" ");
        sig.push(&v.name.name);
        for tp in &v.tparams {
            sig.push(" ");
            sig.push(&tparam_text(tp));
        }
        sig.push(" ");
        sig.param(&snippet(text, v.params[1].span));
    } else {
        sig.push(&binder_text(&v.name.name));
        for tp in &v.tparams {
            sig.push(" ");
            sig.push(&tparam_text(tp));
        }
        for p in &v.params {
            sig.push(" ");
            sig.param(&snippet(text, p.span));
        }
    }
    if let Some(ret) = &v.ret {
        sig.push(" : ");
        sig.push(&snippet(text, ret.span));
    }
    (sig.text, sig.params)
}

/// The signature of a local function `let f (x: i32) : i32`.
pub(crate) fn local_fun_signature(
    text: &str,
    name: &str,
    tparams: &[TypeParam],
    params: &[futhark_syntax::ast::Pat],
    ret: Option<&TypeExp>,
) -> (String, Vec<TextRange>) {
    let mut sig = SigBuilder::new("let ");
    sig.push(&binder_text(name));
    for tp in tparams {
        sig.push(" ");
        sig.push(&tparam_text(tp));
    }
    for p in params {
        sig.push(" ");
        sig.param(&snippet(text, p.span));
    }
    if let Some(ret) = ret {
        sig.push(" : ");
        sig.push(&snippet(text, ret.span));
    }
    (sig.text, sig.params)
}

/// The signature of a `val` spec; each argument of its function type is a parameter:
/// `val f [n] : (n: i64) -> [n]t -> t`.
pub(crate) fn val_spec_signature(
    text: &str,
    name: &str,
    tparams: &[TypeParam],
    ty: &TypeExp,
) -> (String, Vec<TextRange>) {
    let mut sig = SigBuilder::new("val ");
    sig.push(&binder_text(name));
    for tp in tparams {
        sig.push(" ");
        sig.push(&tparam_text(tp));
    }
    sig.push(" : ");
    let mut ty = ty;
    loop {
        match &ty.kind {
            TypeExpKind::Arrow { param, from, to } => {
                match param {
                    Some(p) => sig.param(&format!("({}: {})", p.name, snippet(text, from.span))),
                    None => sig.param(&snippet(text, from.span)),
                }
                sig.push(" -> ");
                ty = to;
            }
            TypeExpKind::Parens(inner) if matches!(inner.kind, TypeExpKind::Arrow { .. }) => {
                ty = inner;
            }
            _ => {
                sig.push(&snippet(text, ty.span));
                break;
            }
        }
    }
    (sig.text, sig.params)
}

/// True if a `val` spec's type is a function type (so the spec names a function).
pub(crate) fn is_function_type(ty: &TypeExp) -> bool {
    match &ty.kind {
        TypeExpKind::Arrow { .. } => true,
        TypeExpKind::Parens(inner) => is_function_type(inner),
        _ => false,
    }
}

/// `type t 'a = …`, `type~ t`, `type^ t`.
pub(crate) fn type_signature(
    text: &str,
    liftedness: Liftedness,
    name: &str,
    tparams: &[TypeParam],
    def: Option<&TypeExp>,
) -> String {
    let mut out = String::from(match liftedness {
        Liftedness::Unlifted => "type ",
        Liftedness::SizeLifted => "type~ ",
        Liftedness::Lifted => "type^ ",
    });
    out.push_str(name);
    for tp in tparams {
        out.push(' ');
        out.push_str(&tparam_text(tp));
    }
    if let Some(def) = def {
        out.push_str(" = ");
        out.push_str(&snippet(text, def.span));
    }
    out
}
