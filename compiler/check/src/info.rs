//! Side tables produced by checking a file, keyed by source span: the types of expressions
//! and pattern bindings, resolved literal types, name resolutions (for hover and
//! goto-definition) and entry points. The interpreter, LSP and REPL read these.

use std::collections::HashMap;
use std::sync::Arc;

use futhark_syntax::Span;

use crate::types::{Name, PrimType, RetType, TParam, Type, VName};

/// What kind of thing a name refers to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DefKind {
    /// A top-level or module-level value or function.
    Value,
    /// A local variable: parameter, `let`, loop or `case` binding.
    Local,
    Type,
    TypeParam,
    SizeParam,
    Module,
    ModuleType,
    /// A built-in from the `intrinsics` module (no source location).
    Intrinsic,
}

/// Where a name occurrence leads.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DefRef {
    pub name: Name,
    /// The unique name of the definition; stable within one check of its file.
    pub vname: VName,
    pub kind: DefKind,
    /// The span of the defining name (`None` for intrinsics).
    pub span: Option<Span>,
    pub doc: Option<Arc<str>>,
}

impl DefRef {
    pub fn new(vname: &VName, kind: DefKind, span: Option<Span>, doc: Option<Arc<str>>) -> DefRef {
        DefRef {
            name: vname.name.clone(),
            vname: vname.clone(),
            kind,
            span,
            doc,
        }
    }
}

/// One parameter of an entry point.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntryParam {
    pub name: Option<Name>,
    pub ty: Type,
}

/// An entry point (`entry`, or `main` in the root file when there are no `entry`s).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntryInfo {
    pub name: Name,
    pub vname: VName,
    pub span: Span,
    /// Size parameters (explicit and implicit) of the entry point.
    pub size_params: Vec<TParam>,
    pub params: Vec<EntryParam>,
    pub ret: RetType,
    /// True for `entry`, false for an implicit `main`.
    pub explicit: bool,
}

/// The type of a top-level value definition, for hover on the defining name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DefInfo {
    pub vname: VName,
    pub tparams: Vec<TParam>,
    pub ty: Type,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TypeInfo {
    /// The type of every expression and every variable bound by a pattern (keyed by the
    /// span of the expression or of the bound name).
    pub exp_types: HashMap<Span, Type>,
    /// The type of every numeric or character literal (the interpreter relies on this for
    /// overloaded literals), keyed by the literal's span.
    pub literal_types: HashMap<Span, PrimType>,
    /// The row type of every empty array literal `[]`.
    pub empty_array_rows: HashMap<Span, Type>,
    /// What each name occurrence (and each defining name) refers to.
    pub resolutions: HashMap<Span, DefRef>,
    pub entries: Vec<EntryInfo>,
    /// The type scheme of each top-level value definition, keyed by the name's span.
    pub defs: HashMap<Span, DefInfo>,
}

impl TypeInfo {
    pub fn extend(&mut self, other: TypeInfo) {
        self.exp_types.extend(other.exp_types);
        self.literal_types.extend(other.literal_types);
        self.empty_array_rows.extend(other.empty_array_rows);
        self.resolutions.extend(other.resolutions);
        self.entries.extend(other.entries);
        self.defs.extend(other.defs);
    }
}
