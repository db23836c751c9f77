//! The abstract syntax tree of a Futhark source file.
//!
//! Every node carries a [`Span`]. The tree is what the parser saw, with no name resolution
//! and no desugaring beyond what the grammar makes unambiguous: parentheses are kept
//! (`Parens`), operator sections and projections are their own nodes, and error recovery
//! leaves `Error` nodes where something could not be parsed. Doc comments are kept on the
//! declarations and specs they document.

use crate::span::Span;

/// A name as written, with its location. Operators (`+`, `>->`) are names too.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

impl Ident {
    /// True if this names an operator such as `+` or `|>` rather than an alphanumeric name.
    pub fn is_operator(&self) -> bool {
        self.name
            .chars()
            .next()
            .is_some_and(|c| !(c.is_ascii_alphanumeric() || c == '_'))
    }
}

/// A possibly qualified name: `x`, `M.x`, `M.N.+`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct QualName {
    pub quals: Vec<Ident>,
    pub name: Ident,
    pub span: Span,
}

/// The `-- |` comment attached to the declaration or spec that follows it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DocComment {
    /// The text with the leading `-- |` / `--` markers removed, lines joined by `\n`.
    pub text: String,
    pub span: Span,
}

/// `#[attr]`: `name`, a decimal number, or `name(attr, …)`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Attr {
    pub kind: AttrKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum AttrKind {
    Name(String),
    Int(i64),
    Call(String, Vec<Attr>),
}

/// A whole source file: its declarations in order.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct SourceFile {
    /// A doc comment at the top of the file not attached to any declaration.
    pub doc: Option<DocComment>,
    pub decs: Vec<Dec>,
}

// ---------------------------------------------------------------------------------------------
// Declarations

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Dec {
    pub doc: Option<DocComment>,
    pub attrs: Vec<Attr>,
    pub kind: DecKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum DecKind {
    Val(ValBind),
    Type(TypeBind),
    Module(ModBind),
    ModuleType(ModTypeBind),
    /// `open mod_exp`
    Open(ModExp),
    /// `import "path"`
    Import(StrLit),
    /// `local dec`
    Local(Box<Dec>),
    /// A declaration that could not be parsed; a diagnostic was reported.
    Error,
}

/// Which keyword introduced a value binding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ValKeyword {
    Def,
    Entry,
    /// Deprecated top-level `let`.
    Let,
}

/// `def name [n] 'a (p: t) … : ret = body`, or the infix form `def x op y = …`
/// (then `params` holds the two operand patterns and `infix` is true).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ValBind {
    pub keyword: ValKeyword,
    pub name: Ident,
    pub infix: bool,
    pub tparams: Vec<TypeParam>,
    pub params: Vec<Pat>,
    pub ret: Option<TypeExp>,
    pub body: Exp,
    pub span: Span,
}

/// `'a`, `'~a`, `'^a` or the size parameter `[n]`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum TypeParam {
    Size(Ident),
    Type(Ident, Liftedness),
}

impl TypeParam {
    pub fn name(&self) -> &Ident {
        match self {
            TypeParam::Size(n) | TypeParam::Type(n, _) => n,
        }
    }
}

/// How much a type (parameter) may hide: `type`/`'a`, `type~`/`'~a`, `type^`/`'^a`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Liftedness {
    Unlifted,
    SizeLifted,
    Lifted,
}

/// `type [~|^] name params = type`
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TypeBind {
    pub liftedness: Liftedness,
    pub name: Ident,
    pub tparams: Vec<TypeParam>,
    pub ty: TypeExp,
}

/// `module name (P: mt) … [: mt] = mod_exp`
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ModBind {
    pub name: Ident,
    pub params: Vec<ModParam>,
    pub sig: Option<SigExp>,
    pub body: ModExp,
}

/// `(name : mt)`
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ModParam {
    pub name: Ident,
    pub sig: SigExp,
    pub span: Span,
}

/// `module type name = mt`
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ModTypeBind {
    pub name: Ident,
    pub sig: SigExp,
}

/// A string literal with its decoded contents.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct StrLit {
    pub value: String,
    pub span: Span,
}

// ---------------------------------------------------------------------------------------------
// Module expressions and module types

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ModExp {
    pub kind: ModExpKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ModExpKind {
    Var(QualName),
    Parens(Box<ModExp>),
    Import(StrLit),
    /// `{ decs }`
    Decs(Vec<Dec>),
    /// Functor application `F A` (left-associative).
    Apply(Box<ModExp>, Box<ModExp>),
    /// `mod_exp : mt`
    Ascript(Box<ModExp>, SigExp),
    /// `\(P: mt) [: mt] -> mod_exp`
    Lambda {
        param: ModParam,
        ret: Option<SigExp>,
        body: Box<ModExp>,
    },
    Error,
}

/// A module type expression.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SigExp {
    pub kind: SigExpKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum SigExpKind {
    Var(QualName),
    Parens(Box<SigExp>),
    /// `{ specs }`
    Specs(Vec<Spec>),
    /// `mt with path 'a [n] = type`
    With {
        sig: Box<SigExp>,
        name: QualName,
        tparams: Vec<TypeParam>,
        ty: TypeExp,
    },
    /// `(name : mt) -> mt` or `mt -> mt`
    Arrow {
        param: Option<Ident>,
        from: Box<SigExp>,
        to: Box<SigExp>,
    },
    Error,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Spec {
    pub doc: Option<DocComment>,
    pub attrs: Vec<Attr>,
    pub kind: SpecKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum SpecKind {
    /// `val name 'a [n] : type` (name may be an operator)
    Val {
        name: Ident,
        tparams: Vec<TypeParam>,
        ty: TypeExp,
    },
    /// `type [~|^] name params [= type]`
    Type {
        liftedness: Liftedness,
        name: Ident,
        tparams: Vec<TypeParam>,
        def: Option<TypeExp>,
    },
    /// `module name : mt`
    Module {
        name: Ident,
        sig: SigExp,
    },
    /// `include mt`
    Include(SigExp),
    Error,
}

// ---------------------------------------------------------------------------------------------
// Type expressions

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TypeExp {
    pub kind: TypeExpKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum TypeExpKind {
    /// A named type: `i32`, `t`, `M.t`.
    Var(QualName),
    Parens(Box<TypeExp>),
    /// `(a, b, …)`; the empty tuple is the unit type `()`.
    Tuple(Vec<TypeExp>),
    /// `{f: t, …}`
    Record(Vec<(Ident, TypeExp)>),
    /// `[size]elem`
    Array {
        size: SizeExp,
        elem: Box<TypeExp>,
    },
    /// `*t`
    Unique(Box<TypeExp>),
    /// Type constructor application `t [n] a`.
    Apply(Box<TypeExp>, TypeArg),
    /// `(name: from) -> to` or `from -> to`
    Arrow {
        param: Option<Ident>,
        from: Box<TypeExp>,
        to: Box<TypeExp>,
    },
    /// `#c t… | #d t…`
    Sum(Vec<(Ident, Vec<TypeExp>)>),
    /// `?[n][m].t`
    Existential {
        sizes: Vec<Ident>,
        ty: Box<TypeExp>,
    },
    Error,
}

/// The size in `[size]t` or a size argument `t [n]`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum SizeExp {
    /// `[]`
    Anonymous(Span),
    /// `[e]`, an `i64` expression (usually a name or a literal).
    Exp(Box<Exp>),
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum TypeArg {
    Size(SizeExp),
    Type(Box<TypeExp>),
}

// ---------------------------------------------------------------------------------------------
// Patterns

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Pat {
    pub kind: PatKind,
    pub span: Span,
}

impl Pat {
    /// The one name the pattern binds, where it is a name (`x`, `(x: t)`, `#[attr] x`).
    pub fn simple_name(&self) -> Option<&Ident> {
        match &self.kind {
            PatKind::Id(x) => Some(x),
            PatKind::Parens(q) | PatKind::Ascript(q, _) | PatKind::Attr(_, q) => q.simple_name(),
            _ => None,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum PatKind {
    /// A binding name, or `(op)`.
    Id(Ident),
    /// `_`
    Wildcard,
    Parens(Box<Pat>),
    /// `(p, q, …)`; the empty tuple is `()`.
    Tuple(Vec<Pat>),
    /// `{f = p, g, h: t}`; a pun `g` is stored as `(g, Id g)`, `h: t` as `(h, Ascript(Id h, t))`.
    Record(Vec<(Ident, Pat)>),
    /// A literal pattern, including negated numbers (`-1`).
    Literal(Literal),
    /// `#c p…`
    Constr(Ident, Vec<Pat>),
    /// `p : t`
    Ascript(Box<Pat>, TypeExp),
    /// `#[attr] p`
    Attr(Attr, Box<Pat>),
    Error,
}

// ---------------------------------------------------------------------------------------------
// Literals

/// The type suffix of a numeric literal (`1i8`, `2.0f32`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NumSuffix {
    I8,
    I16,
    I32,
    I64,
    U8,
    U16,
    U32,
    U64,
    F16,
    F32,
    F64,
}

impl NumSuffix {
    /// The primitive type the suffix names.
    pub fn prim_type(self) -> futhark_prim::PrimType {
        use futhark_prim::PrimType as P;
        match self {
            NumSuffix::I8 => P::I8,
            NumSuffix::I16 => P::I16,
            NumSuffix::I32 => P::I32,
            NumSuffix::I64 => P::I64,
            NumSuffix::U8 => P::U8,
            NumSuffix::U16 => P::U16,
            NumSuffix::U32 => P::U32,
            NumSuffix::U64 => P::U64,
            NumSuffix::F16 => P::F16,
            NumSuffix::F32 => P::F32,
            NumSuffix::F64 => P::F64,
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, NumSuffix::F16 | NumSuffix::F32 | NumSuffix::F64)
    }

    pub fn name(self) -> &'static str {
        match self {
            NumSuffix::I8 => "i8",
            NumSuffix::I16 => "i16",
            NumSuffix::I32 => "i32",
            NumSuffix::I64 => "i64",
            NumSuffix::U8 => "u8",
            NumSuffix::U16 => "u16",
            NumSuffix::U32 => "u32",
            NumSuffix::U64 => "u64",
            NumSuffix::F16 => "f16",
            NumSuffix::F32 => "f32",
            NumSuffix::F64 => "f64",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Literal {
    pub kind: LitKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum LitKind {
    /// An integer literal. `negative` is set for negated literals in patterns and by
    /// nothing else (expressions use `Negate`). Values beyond `u128` saturate; the type
    /// checker reports out-of-range literals.
    Int {
        value: u128,
        negative: bool,
        suffix: Option<NumSuffix>,
    },
    /// A float literal, including suffixed integers like `3f32`. The value is stored as the
    /// bits of an `f64` so the tree stays `Eq + Hash`; `text` keeps the digits as written
    /// (without `_` or suffix) for exact conversion to other float types.
    Float {
        bits: u64,
        text: String,
        negative: bool,
        suffix: Option<NumSuffix>,
    },
    /// A character literal `'c'`: its code point, an overloaded integer.
    Char(u32),
    Bool(bool),
}

impl LitKind {
    pub fn float_value(&self) -> Option<f64> {
        match self {
            LitKind::Float { bits, .. } => Some(f64::from_bits(*bits)),
            _ => None,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Expressions

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Exp {
    pub kind: ExpKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ExpKind {
    Literal(Literal),
    /// `"…"`: an array of the UTF-8 bytes of the decoded string.
    StringLit(String),
    /// `???`
    Hole,
    Var(QualName),
    /// `#c e…` (a constructor with its payload, possibly none).
    Constr(Ident, Vec<Exp>),
    Parens(Box<Exp>),
    /// `(a, b, …)`; the empty tuple is `()`.
    Tuple(Vec<Exp>),
    Record(Vec<RecordField>),
    ArrayLit(Vec<Exp>),
    /// `e.field` (fields of tuples are `0`, `1`, …).
    Project(Box<Exp>, Ident),
    /// `M.(e)`: `e` with the module `M` opened.
    QualParens(QualName, Box<Exp>),
    /// `a[i, j:k, …]`
    Index(Box<Exp>, Vec<DimIndex>),
    /// Function application `f a b …` (one node for all arguments).
    Apply(Box<Exp>, Vec<Exp>),
    /// Prefix `-e`.
    Negate(Box<Exp>),
    /// Prefix `!e`.
    Not(Box<Exp>),
    /// `a op b`, `a M.op b`, or ``a `f` b`` (`backticked`).
    BinOp {
        op: QualName,
        backticked: bool,
        lhs: Box<Exp>,
        rhs: Box<Exp>,
    },
    /// `(op)` or ``(`f`)``
    OpSection {
        op: QualName,
        backticked: bool,
    },
    /// `(e op)`
    LeftSection {
        op: QualName,
        backticked: bool,
        lhs: Box<Exp>,
    },
    /// `(op e)`
    RightSection {
        op: QualName,
        backticked: bool,
        rhs: Box<Exp>,
    },
    /// `(.a.b)` / `(.[i])` / `(.a[i])`
    ProjectSection(Vec<ProjStep>),
    /// `start [.. second] (... | ..< | ..>) end`
    Range {
        start: Box<Exp>,
        second: Option<Box<Exp>>,
        end: Box<Exp>,
        kind: RangeKind,
    },
    /// `e : t`
    Ascript(Box<Exp>, TypeExp),
    /// `e :> t`
    Coerce(Box<Exp>, TypeExp),
    If {
        cond: Box<Exp>,
        then: Box<Exp>,
        els: Box<Exp>,
    },
    /// `let [n]… pat = value in body`
    Let {
        sizes: Vec<Ident>,
        pat: Pat,
        value: Box<Exp>,
        body: Box<Exp>,
    },
    /// `let f 'a [n] params [: ret] = value in body`
    LetFun {
        name: Ident,
        tparams: Vec<TypeParam>,
        params: Vec<Pat>,
        ret: Option<TypeExp>,
        value: Box<Exp>,
        body: Box<Exp>,
    },
    /// `let a[i].f = value in body` — update sugar for `let a = a with … = value`.
    LetWith {
        dest: Ident,
        path: Vec<UpdateStep>,
        value: Box<Exp>,
        body: Box<Exp>,
    },
    /// `target with path = value`
    Update {
        target: Box<Exp>,
        path: Vec<UpdateStep>,
        value: Box<Exp>,
    },
    Loop {
        pat: Pat,
        init: Option<Box<Exp>>,
        form: LoopForm,
        body: Box<Exp>,
    },
    Match {
        scrutinee: Box<Exp>,
        cases: Vec<Case>,
    },
    /// `\p… [: t] -> body`
    Lambda {
        params: Vec<Pat>,
        ret: Option<TypeExp>,
        body: Box<Exp>,
    },
    /// `assert cond body`
    Assert {
        cond: Box<Exp>,
        body: Box<Exp>,
    },
    /// `#[attr] e`
    Attr(Attr, Box<Exp>),
    /// An expression that could not be parsed; a diagnostic was reported.
    Error,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum RecordField {
    /// `f = e`
    Explicit(Ident, Exp),
    /// `f` (short for `f = f`)
    Pun(Ident),
}

/// One dimension of an index expression.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum DimIndex {
    Fix(Exp),
    Slice {
        start: Option<Exp>,
        end: Option<Exp>,
        stride: Option<Exp>,
        span: Span,
    },
}

/// One step of a `with` path or projection section.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum UpdateStep {
    Index(Vec<DimIndex>, Span),
    Field(Ident),
}

pub type ProjStep = UpdateStep;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RangeKind {
    /// `...`
    Inclusive,
    /// `..<`
    UpToExclusive,
    /// `..>`
    DownToExclusive,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum LoopForm {
    /// `for i < n`
    For { var: Ident, bound: Box<Exp> },
    /// `for p in xs`
    ForIn { pat: Pat, array: Box<Exp> },
    /// `while cond`
    While(Box<Exp>),
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Case {
    pub pat: Pat,
    pub body: Exp,
    pub span: Span,
}
