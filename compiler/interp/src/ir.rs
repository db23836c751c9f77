//! The interpreter's internal form of expressions, made from the AST by `lower`.
//!
//! Names are resolved once: local variables become slots of the current function's frame,
//! free variables of lambdas become slots of the closure's captured environment, and
//! everything defined at the top level or in a module becomes a constant holding its value
//! (modules are evaluated before the code that uses them is lowered, so their members are
//! known). Overloaded literals carry their resolved type, and sugar is expanded, so the
//! evaluator only sees this small language.

use std::cell::Cell;
use std::rc::Rc;

use futhark_syntax::Span;

use crate::prim::Prim;
use crate::prim_fns::PrimFn;
use crate::prim_ops::OvOp;
use crate::value::{Name, TypeDesc, Value};

/// A frame slot.
pub type Slot = u32;

#[derive(Debug)]
pub enum Exp {
    /// A known value: a literal, or a top-level or module-level name.
    Const(Value),
    /// An unsuffixed literal whose type the checker did not tell us: it takes the type of the
    /// other operand of the arithmetic operator it appears in, and its default otherwise.
    FlexLit(FlexLit),
    /// A local variable.
    Local(Slot),
    /// The last use of a local variable: its value is moved out of the frame, so an update of
    /// it can happen in place.
    LocalMove(Slot),
    /// A free variable of the enclosing lambda.
    Captured(Slot),
    /// The function being defined, inside its own body (recursion).
    SelfRef,
    Tuple(Vec<Exp>),
    /// Record construction: field expressions in source order, and the (sorted) field names
    /// with, for each, the index of its expression.
    Record {
        exps: Vec<Exp>,
        names: Rc<[Name]>,
        order: Vec<usize>,
    },
    ArrayLit {
        elems: Vec<Exp>,
        /// The row type, for empty literals.
        row_type: Option<TypeDesc>,
        span: Span,
    },
    Constr(Name, Vec<Exp>),
    Project(Box<Exp>, Name, Span),
    Index(Box<Exp>, Vec<IdxExp>, Span),
    Apply(Box<Exp>, Vec<Exp>, Span),
    /// A primitive intrinsic applied directly to its arguments (no tuple is built).
    PrimCall(PrimFn, Vec<Exp>, Span),
    BinOp(OvOp, Box<Exp>, Box<Exp>, Span),
    /// `&&` and `||` applied directly: short-circuiting.
    And(Box<Exp>, Box<Exp>),
    Or(Box<Exp>, Box<Exp>),
    Neg(Box<Exp>, Span),
    Not(Box<Exp>, Span),
    If(Box<Exp>, Box<Exp>, Box<Exp>),
    Let(Pat, Box<Exp>, Box<Exp>),
    /// Creates a closure.
    Lambda(Rc<Lambda>),
    Loop(Box<Loop>),
    Match(Box<Exp>, Vec<(Pat, Exp)>, Span),
    /// `target with path = value`.
    Update {
        target: Box<Exp>,
        path: Vec<UpdStep>,
        value: Box<Exp>,
        span: Span,
    },
    Range {
        start: Box<Exp>,
        second: Option<Box<Exp>>,
        end: Box<Exp>,
        kind: futhark_syntax::ast::RangeKind,
        span: Span,
    },
    /// `e :> t`: check the shape.
    Coerce(Box<Exp>, ShapePat, Span),
    Assert {
        cond: Box<Exp>,
        body: Box<Exp>,
        text: String,
        span: Span,
    },
    Hole(Span),
    /// `#[trace] e` or `#[trace(tag)] e`.
    Trace(Box<Exp>, Option<String>, Span),
    /// A function together with the values of size parameters it cannot read from its
    /// arguments (inferred by the checker at this use).
    SizeArgs(Box<Exp>, Vec<(Slot, Exp)>),
    /// An application whose result the checker typed as an array of primitive rows of the
    /// given (row) shape: when the result is empty, its rows get that shape (a `map` over
    /// nothing never calls its function, so it cannot know them).
    EmptyRows(Box<Exp>, Vec<Exp>, futhark_values::PrimType),
}

/// A literal without a known type.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FlexLit {
    Int(i128),
    Float(f64),
}

impl FlexLit {
    /// The literal at the given type, or its default (`i32`/`f64`).
    pub fn at(self, ty: Option<futhark_values::PrimType>) -> Prim {
        use futhark_values::PrimType as P;
        match (self, ty) {
            (FlexLit::Int(v), Some(t)) if t.is_float() => Prim::from_f64(t, v as f64),
            (FlexLit::Int(v), Some(t)) if t != P::Bool => Prim::int_from_bits(t, v as u64),
            (FlexLit::Int(v), _) => Prim::I32(v as i32),
            (FlexLit::Float(x), Some(t)) if t.is_float() => Prim::from_f64(t, x),
            (FlexLit::Float(x), _) => Prim::F64(x),
        }
    }
}

#[derive(Debug)]
pub enum IdxExp {
    Fix(Exp),
    Slice(Option<Exp>, Option<Exp>, Option<Exp>),
}

#[derive(Debug)]
pub enum UpdStep {
    Index(Vec<IdxExp>, Span),
    Field(Name),
}

#[derive(Debug)]
pub struct Loop {
    pub pat: Pat,
    pub init: Exp,
    pub form: LoopForm,
    pub body: Exp,
    pub span: Span,
}

#[derive(Debug)]
pub enum LoopForm {
    /// `for i < n`: the slot of `i`.
    For(Slot, Exp),
    ForIn(Pat, Exp),
    While(Exp),
}

/// A pattern that binds slots.
#[derive(Debug, Clone)]
pub enum Pat {
    Bind(Slot),
    Wild,
    /// Tuple or record pattern: field names (sorted) and sub-patterns.
    Record(Vec<(Name, Pat)>),
    Tuple(Vec<Pat>),
    Lit(LitPat),
    Constr(Name, Vec<Pat>),
    /// A pattern with a type ascription whose sizes bind or are checked.
    Sized(Box<Pat>, ShapePat),
}

/// A literal in a pattern.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LitPat {
    Known(Prim),
    Flex(FlexLit),
}

/// The array dimensions of a type, where the run time binds or checks sizes.
#[derive(Debug, Clone)]
pub enum ShapePat {
    Any,
    /// A scalar of this type. Binding converts a scalar of another numeric type, which only
    /// happens to untyped literals when the checker's literal types are unavailable.
    Prim(futhark_values::PrimType),
    Array(Vec<DimPat>, Box<ShapePat>),
    Record(Vec<(Name, ShapePat)>),
}

impl ShapePat {
    /// Whether matching this can do nothing at all.
    pub fn is_trivial(&self) -> bool {
        match self {
            ShapePat::Any => true,
            ShapePat::Prim(_) => false,
            ShapePat::Array(dims, elem) => {
                dims.iter().all(|d| matches!(d, DimPat::Any)) && elem.is_trivial()
            }
            ShapePat::Record(fs) => fs.iter().all(|(_, p)| p.is_trivial()),
        }
    }
}

#[derive(Debug, Clone)]
pub enum DimPat {
    Any,
    /// Bind a size parameter's slot from this dimension.
    Bind(Slot),
    /// Check against a slot bound earlier (the same size parameter seen again).
    Same(Slot),
    /// Check against the value of an expression (coercions only).
    Check(Rc<Exp>),
}

/// A function: parameters, body and the recipe for its captured environment.
#[derive(Debug)]
pub struct Lambda {
    pub name: Option<Name>,
    pub params: Vec<Pat>,
    pub body: Exp,
    /// Number of frame slots the body needs (parameters included).
    pub nslots: usize,
    /// Where each captured value comes from when the closure is created.
    pub captures: Vec<Capture>,
    pub span: Span,
    /// Set after vectorised evaluation of the body failed once, so it is not retried.
    pub no_vector: Cell<bool>,
    /// When the body is exactly a binary primitive operation on the two parameters in order,
    /// that operation (lets reductions and scans run native loops).
    pub binop: Option<BinFn>,
    /// When calling this function is the same as something simpler (see [`Wrapper`]).
    pub wrapper: Option<Wrapper>,
    /// The size parameters, by name, with their slots.
    pub size_params: Vec<(Name, Slot)>,
}

/// What a function that merely forwards its parameters stands for, so that calls of it can
/// be lowered to the simpler form (`f32.+` to a primitive addition, `|>` to an application).
#[derive(Debug, Clone)]
pub enum Wrapper {
    /// Its parameters, in order, are the arguments of a primitive operation.
    Prim(PrimFn),
    /// Its two parameters are the operands of an overloaded operator.
    Ov(OvOp),
    /// It applies a known function value to its parameters in order.
    Value(Value),
    /// `\x f -> f x`.
    PipeFwd,
    /// `\f x -> f x`.
    PipeBwd,
}

/// A binary scalar operation a function value may stand for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum BinFn {
    Ov(OvOp),
    Prim(PrimFn),
}

/// The source of one captured value of a closure being created.
#[derive(Debug, Clone, Copy)]
pub enum Capture {
    Local(Slot),
    Captured(Slot),
    SelfRef,
}
