//! Scalar expressions and statements: the first-order language of kernel bodies.
//!
//! A kernel body is a list of statements followed by result expressions. Expressions are pure
//! and typed bottom-up (every leaf is a typed constant, a typed variable or an array read), so
//! the type checker needs no inference. Statements add what a sequential body needs: immutable
//! `let`, mutable variables with assignment (loop accumulators), counted `for` loops, `if`, and
//! writes into device arrays at computed flat indices. Array indices are always `i64` flat
//! offsets into a row-major array; the front end linearises multi-dimensional indexing.

/// Names of variables, arrays and size parameters.
pub type Name = String;

use crate::types::{PrimType, PrimValue};

/// Binary arithmetic and bitwise operators. Both operands and the result share one type,
/// except `LogAnd`/`LogOr`, which take and give `bool`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    /// Integer division rounds toward zero (C semantics); the front end adjusts for Futhark's
    /// flooring `/` where it matters.
    Div,
    Rem,
    Min,
    Max,
    Pow,
    And,
    Or,
    Xor,
    Shl,
    Shr,
    LogAnd,
    LogOr,
}

impl BinOp {
    pub const ALL: [BinOp; 15] = [
        BinOp::Add,
        BinOp::Sub,
        BinOp::Mul,
        BinOp::Div,
        BinOp::Rem,
        BinOp::Min,
        BinOp::Max,
        BinOp::Pow,
        BinOp::And,
        BinOp::Or,
        BinOp::Xor,
        BinOp::Shl,
        BinOp::Shr,
        BinOp::LogAnd,
        BinOp::LogOr,
    ];

    pub fn name(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Rem => "%",
            BinOp::Min => "min",
            BinOp::Max => "max",
            BinOp::Pow => "**",
            BinOp::And => "&",
            BinOp::Or => "|",
            BinOp::Xor => "^",
            BinOp::Shl => "<<",
            BinOp::Shr => ">>",
            BinOp::LogAnd => "&&",
            BinOp::LogOr => "||",
        }
    }

    /// Whether the operator accepts operands of type `t`.
    pub fn accepts(self, t: PrimType) -> bool {
        match self {
            BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Min | BinOp::Max => {
                t != PrimType::Bool
            }
            BinOp::Rem | BinOp::Pow => t != PrimType::Bool,
            BinOp::And | BinOp::Or | BinOp::Xor => t.is_int() || t == PrimType::Bool,
            BinOp::Shl | BinOp::Shr => t.is_int(),
            BinOp::LogAnd | BinOp::LogOr => t == PrimType::Bool,
        }
    }

    /// Operators whose operand order never matters (float `+` and `*` included: reductions
    /// may reassociate them anyway, and commutativity lets the code generator read
    /// strided, vectorised chunks).
    pub fn is_commutative(self) -> bool {
        matches!(
            self,
            BinOp::Add
                | BinOp::Mul
                | BinOp::Min
                | BinOp::Max
                | BinOp::And
                | BinOp::Or
                | BinOp::Xor
                | BinOp::LogAnd
                | BinOp::LogOr
        )
    }
}

/// Comparisons; the result is `bool`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl CmpOp {
    pub const ALL: [CmpOp; 6] = [
        CmpOp::Eq,
        CmpOp::Ne,
        CmpOp::Lt,
        CmpOp::Le,
        CmpOp::Gt,
        CmpOp::Ge,
    ];

    pub fn name(self) -> &'static str {
        match self {
            CmpOp::Eq => "==",
            CmpOp::Ne => "!=",
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
        }
    }
}

/// Unary operators; the result has the operand's type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnOp {
    Neg,
    /// Bitwise complement on integers, logical negation on `bool`.
    Not,
    Abs,
    /// -1, 0 or 1 in the operand's type.
    Signum,
}

impl UnOp {
    pub const ALL: [UnOp; 4] = [UnOp::Neg, UnOp::Not, UnOp::Abs, UnOp::Signum];

    pub fn name(self) -> &'static str {
        match self {
            UnOp::Neg => "neg",
            UnOp::Not => "not",
            UnOp::Abs => "abs",
            UnOp::Signum => "signum",
        }
    }

    pub fn accepts(self, t: PrimType) -> bool {
        match self {
            UnOp::Not => t.is_int() || t == PrimType::Bool,
            UnOp::Neg | UnOp::Abs | UnOp::Signum => t != PrimType::Bool,
        }
    }
}

/// Math functions. In `ALL` are the float functions, whose arguments and result share one
/// float type (except the predicates `IsNan`/`IsInf`, which give `bool`); the others have
/// their own typing (see [`MathFn::result_type`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MathFn {
    Sqrt,
    Exp,
    Log,
    Sin,
    Cos,
    Tan,
    Tanh,
    Floor,
    Ceil,
    Round,
    Atan2,
    Fma,
    IsNan,
    IsInf,
    Cbrt,
    Log2,
    Log10,
    Log1p,
    Asin,
    Acos,
    Atan,
    Sinh,
    Cosh,
    Asinh,
    Acosh,
    Atanh,
    Gamma,
    Lgamma,
    Erf,
    Erfc,
    Hypot,
    NextAfter,
    CopySign,
    /// `x * 2^k` for a float `x` and an `i32` `k`.
    Ldexp,
    /// The high half of the product of two integers (signed by their type).
    MulHi,
    /// `MulHi` of the first two plus the third, wrapping.
    MadHi,
    /// Bits set, leading and trailing zero bits of an integer, as `i32`.
    Popc,
    Clz,
    Ctz,
    /// A float's bits as the signed integer of its width.
    ToBits,
    /// An integer's bits as the float of its width.
    FromBits,
}

impl MathFn {
    pub const ALL: [MathFn; 33] = [
        MathFn::Sqrt,
        MathFn::Exp,
        MathFn::Log,
        MathFn::Sin,
        MathFn::Cos,
        MathFn::Tan,
        MathFn::Tanh,
        MathFn::Floor,
        MathFn::Ceil,
        MathFn::Round,
        MathFn::Atan2,
        MathFn::Fma,
        MathFn::IsNan,
        MathFn::IsInf,
        MathFn::Cbrt,
        MathFn::Log2,
        MathFn::Log10,
        MathFn::Log1p,
        MathFn::Asin,
        MathFn::Acos,
        MathFn::Atan,
        MathFn::Sinh,
        MathFn::Cosh,
        MathFn::Asinh,
        MathFn::Acosh,
        MathFn::Atanh,
        MathFn::Gamma,
        MathFn::Lgamma,
        MathFn::Erf,
        MathFn::Erfc,
        MathFn::Hypot,
        MathFn::NextAfter,
        MathFn::CopySign,
    ];

    /// The functions outside `ALL`, with their own typing.
    pub const SPECIAL: [MathFn; 8] = [
        MathFn::Ldexp,
        MathFn::MulHi,
        MathFn::MadHi,
        MathFn::Popc,
        MathFn::Clz,
        MathFn::Ctz,
        MathFn::ToBits,
        MathFn::FromBits,
    ];

    pub fn name(self) -> &'static str {
        match self {
            MathFn::Sqrt => "sqrt",
            MathFn::Exp => "exp",
            MathFn::Log => "log",
            MathFn::Sin => "sin",
            MathFn::Cos => "cos",
            MathFn::Tan => "tan",
            MathFn::Tanh => "tanh",
            MathFn::Floor => "floor",
            MathFn::Ceil => "ceil",
            MathFn::Round => "round",
            MathFn::Atan2 => "atan2",
            MathFn::Fma => "fma",
            MathFn::IsNan => "isnan",
            MathFn::IsInf => "isinf",
            MathFn::Cbrt => "cbrt",
            MathFn::Log2 => "log2",
            MathFn::Log10 => "log10",
            MathFn::Log1p => "log1p",
            MathFn::Asin => "asin",
            MathFn::Acos => "acos",
            MathFn::Atan => "atan",
            MathFn::Sinh => "sinh",
            MathFn::Cosh => "cosh",
            MathFn::Asinh => "asinh",
            MathFn::Acosh => "acosh",
            MathFn::Atanh => "atanh",
            MathFn::Gamma => "gamma",
            MathFn::Lgamma => "lgamma",
            MathFn::Erf => "erf",
            MathFn::Erfc => "erfc",
            MathFn::Hypot => "hypot",
            MathFn::NextAfter => "nextafter",
            MathFn::CopySign => "copysign",
            MathFn::Ldexp => "ldexp",
            MathFn::MulHi => "mul_hi",
            MathFn::MadHi => "mad_hi",
            MathFn::Popc => "popc",
            MathFn::Clz => "clz",
            MathFn::Ctz => "ctz",
            MathFn::ToBits => "to_bits",
            MathFn::FromBits => "from_bits",
        }
    }

    pub fn arity(self) -> usize {
        match self {
            MathFn::Atan2
            | MathFn::Hypot
            | MathFn::NextAfter
            | MathFn::CopySign
            | MathFn::Ldexp
            | MathFn::MulHi => 2,
            MathFn::Fma | MathFn::MadHi => 3,
            _ => 1,
        }
    }

    pub fn returns_bool(self) -> bool {
        matches!(self, MathFn::IsNan | MathFn::IsInf)
    }

    /// The result type for arguments of the given types, or why they do not fit.
    pub fn result_type(self, args: &[PrimType]) -> Result<PrimType, String> {
        if args.len() != self.arity() {
            return Err(format!(
                "`{}` takes {} arguments, given {}",
                self.name(),
                self.arity(),
                args.len()
            ));
        }
        let t = args[0];
        let same = |ts: &[PrimType]| ts.iter().all(|u| *u == t);
        match self {
            MathFn::Ldexp if t.is_float() && args[1] == PrimType::I32 => Ok(t),
            MathFn::MulHi | MathFn::MadHi if t.is_int() && same(args) => Ok(t),
            MathFn::Popc | MathFn::Clz | MathFn::Ctz if t.is_int() => Ok(PrimType::I32),
            MathFn::ToBits => match t {
                PrimType::F16 => Ok(PrimType::I16),
                PrimType::F32 => Ok(PrimType::I32),
                PrimType::F64 => Ok(PrimType::I64),
                _ => Err(format!("`to_bits` applied to {t}, not a float")),
            },
            MathFn::FromBits => match t {
                PrimType::I16 | PrimType::U16 => Ok(PrimType::F16),
                PrimType::I32 | PrimType::U32 => Ok(PrimType::F32),
                PrimType::I64 | PrimType::U64 => Ok(PrimType::F64),
                _ => Err(format!("`from_bits` applied to {t}")),
            },
            f if MathFn::SPECIAL.contains(&f) => Err(format!(
                "`{}` applied to {}",
                f.name(),
                args.iter().map(|a| a.name()).collect::<Vec<_>>().join(", ")
            )),
            f => {
                if !t.is_float() {
                    return Err(format!("`{}` applied to {t}, not a float", f.name()));
                }
                if !same(args) {
                    return Err(format!("`{}` applied to mixed types", f.name()));
                }
                Ok(if f.returns_bool() { PrimType::Bool } else { t })
            }
        }
    }
}

/// A pure scalar expression.
#[derive(Clone, Debug, PartialEq)]
pub enum Exp {
    Const(PrimValue),
    /// A scalar variable, a size parameter (`i64`) or a segment-space index (`i64`).
    Var(Name),
    Bin(BinOp, Box<Exp>, Box<Exp>),
    Cmp(CmpOp, Box<Exp>, Box<Exp>),
    Un(UnOp, Box<Exp>),
    /// Conversion to a primitive type (C conversion rules; float to int truncates).
    Conv(PrimType, Box<Exp>),
    Math(MathFn, Vec<Exp>),
    /// `cond ? then : else`; both branches are evaluated (they are pure).
    Select(Box<Exp>, Box<Exp>, Box<Exp>),
    /// `array[index]`: a read of a device array at an `i64` flat index.
    Read(Name, Box<Exp>),
}

impl Exp {
    pub fn var(name: &str) -> Exp {
        Exp::Var(name.to_string())
    }
    pub fn i64(x: i64) -> Exp {
        Exp::Const(PrimValue::I64(x))
    }
    pub fn i32(x: i32) -> Exp {
        Exp::Const(PrimValue::I32(x))
    }
    pub fn f32(x: f32) -> Exp {
        Exp::Const(PrimValue::F32(x))
    }
    pub fn bin(op: BinOp, a: Exp, b: Exp) -> Exp {
        Exp::Bin(op, Box::new(a), Box::new(b))
    }
    pub fn cmp(op: CmpOp, a: Exp, b: Exp) -> Exp {
        Exp::Cmp(op, Box::new(a), Box::new(b))
    }
    pub fn un(op: UnOp, a: Exp) -> Exp {
        Exp::Un(op, Box::new(a))
    }
    pub fn conv(ty: PrimType, a: Exp) -> Exp {
        Exp::Conv(ty, Box::new(a))
    }
    pub fn select(c: Exp, t: Exp, f: Exp) -> Exp {
        Exp::Select(Box::new(c), Box::new(t), Box::new(f))
    }
    pub fn read(array: &str, index: Exp) -> Exp {
        Exp::Read(array.to_string(), Box::new(index))
    }
    pub fn plus(self, other: Exp) -> Exp {
        Exp::bin(BinOp::Add, self, other)
    }
    pub fn times(self, other: Exp) -> Exp {
        Exp::bin(BinOp::Mul, self, other)
    }

    /// Calls `f` on every array read in the expression, outermost first.
    pub fn for_each_read(&self, f: &mut dyn FnMut(&Name, &Exp)) {
        match self {
            Exp::Const(_) | Exp::Var(_) => {}
            Exp::Bin(_, a, b) | Exp::Cmp(_, a, b) => {
                a.for_each_read(f);
                b.for_each_read(f);
            }
            Exp::Un(_, a) | Exp::Conv(_, a) => a.for_each_read(f),
            Exp::Math(_, args) => args.iter().for_each(|a| a.for_each_read(f)),
            Exp::Select(c, t, e) => {
                c.for_each_read(f);
                t.for_each_read(f);
                e.for_each_read(f);
            }
            Exp::Read(arr, idx) => {
                f(arr, idx);
                idx.for_each_read(f);
            }
        }
    }

    /// Calls `f` on every variable name the expression mentions.
    pub fn for_each_var(&self, f: &mut dyn FnMut(&Name)) {
        match self {
            Exp::Const(_) => {}
            Exp::Var(v) => f(v),
            Exp::Bin(_, a, b) | Exp::Cmp(_, a, b) => {
                a.for_each_var(f);
                b.for_each_var(f);
            }
            Exp::Un(_, a) | Exp::Conv(_, a) | Exp::Read(_, a) => a.for_each_var(f),
            Exp::Math(_, args) => args.iter().for_each(|a| a.for_each_var(f)),
            Exp::Select(c, t, e) => {
                c.for_each_var(f);
                t.for_each_var(f);
                e.for_each_var(f);
            }
        }
    }
}

/// A statement of a sequential kernel body.
#[derive(Clone, Debug, PartialEq)]
pub enum Stm {
    /// An immutable binding.
    Let { name: Name, ty: PrimType, exp: Exp },
    /// A mutable variable with its initial value.
    Mut { name: Name, ty: PrimType, init: Exp },
    /// Assignment to a variable declared with `Mut`.
    Assign { name: Name, exp: Exp },
    /// `for var in 0..bound` (an `i64` counter), sequential.
    For {
        var: Name,
        bound: Exp,
        body: Vec<Stm>,
    },
    If {
        cond: Exp,
        then_branch: Vec<Stm>,
        else_branch: Vec<Stm>,
    },
    /// `array[index] = value`; the front end guarantees the index is in bounds.
    Write { array: Name, index: Exp, value: Exp },
    /// A run-time check of the source program (bounds, division by zero, an assertion):
    /// when `cond` is false the first failure is recorded — `msg` with its `{}` holes
    /// filled by `args` (see `soacs::message`), at `loc` — and reported by the host once
    /// the launch finishes. The thread goes on: the translator guards the read or write
    /// the check protects, so a failing thread touches no memory outside its arrays.
    Check(Check),
}

/// See [`Stm::Check`].
#[derive(Clone, Debug, PartialEq)]
pub struct Check {
    pub cond: Exp,
    pub msg: String,
    pub args: Vec<Exp>,
    /// `path:line:col-col` of the checked expression, as the interpreter writes it.
    pub loc: Option<String>,
    /// The check depends on the kernel program's sizes alone and comes before every other
    /// check of the body: the host makes it once before the launch (when the space has
    /// points), and the kernel does not.
    pub uniform: bool,
}

impl Stm {
    pub fn let_(name: &str, ty: PrimType, exp: Exp) -> Stm {
        Stm::Let {
            name: name.to_string(),
            ty,
            exp,
        }
    }

    /// Calls `on_exp` for every expression and `on_write` for every written array, recursively.
    pub fn walk(&self, on_exp: &mut dyn FnMut(&Exp), on_write: &mut dyn FnMut(&Name)) {
        match self {
            Stm::Let { exp, .. } | Stm::Assign { exp, .. } => on_exp(exp),
            Stm::Mut { init, .. } => on_exp(init),
            Stm::For { bound, body, .. } => {
                on_exp(bound);
                body.iter().for_each(|s| s.walk(on_exp, on_write));
            }
            Stm::If {
                cond,
                then_branch,
                else_branch,
            } => {
                on_exp(cond);
                then_branch.iter().for_each(|s| s.walk(on_exp, on_write));
                else_branch.iter().for_each(|s| s.walk(on_exp, on_write));
            }
            Stm::Write {
                array,
                index,
                value,
            } => {
                on_write(array);
                on_exp(index);
                on_exp(value);
            }
            Stm::Check(c) => {
                on_exp(&c.cond);
                c.args.iter().for_each(on_exp);
            }
        }
    }
}

/// Statements without their run-time checks (`--unsafe`).
pub fn without_checks(stms: &[Stm]) -> Vec<Stm> {
    stms.iter()
        .filter(|s| !matches!(s, Stm::Check(_)))
        .map(|s| match s {
            Stm::For { var, bound, body } => Stm::For {
                var: var.clone(),
                bound: bound.clone(),
                body: without_checks(body),
            },
            Stm::If {
                cond,
                then_branch,
                else_branch,
            } => Stm::If {
                cond: cond.clone(),
                then_branch: without_checks(then_branch),
                else_branch: without_checks(else_branch),
            },
            s => s.clone(),
        })
        .collect()
}

/// If a loop body is exactly `if cond { … }` (no else) with `cond` independent of the loop
/// counter `var` — how a `while` loop is lowered into a `for` over a bound — its condition
/// and guarded statements. Once `cond` is false nothing in such a loop runs, so nothing it
/// reads changes and every later iteration is a no-op: a loop may stop there.
pub fn guarded_loop<'a>(var: &str, body: &'a [Stm]) -> Option<(&'a Exp, &'a [Stm])> {
    let [
        Stm::If {
            cond,
            then_branch,
            else_branch,
        },
    ] = body
    else {
        return None;
    };
    if !else_branch.is_empty() {
        return None;
    }
    let mut uses_counter = false;
    cond.for_each_var(&mut |v| uses_counter |= v == var);
    (!uses_counter).then_some((cond, then_branch.as_slice()))
}

/// Statements followed by the result expressions of a body.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Body {
    pub stms: Vec<Stm>,
    pub results: Vec<Exp>,
}

impl Body {
    pub fn new(stms: Vec<Stm>, results: Vec<Exp>) -> Body {
        Body { stms, results }
    }

    /// A body with no statements.
    pub fn results(results: Vec<Exp>) -> Body {
        Body {
            stms: Vec::new(),
            results,
        }
    }

    /// Calls `on_exp` for every expression and `on_write` for every written array.
    pub fn walk(&self, on_exp: &mut dyn FnMut(&Exp), on_write: &mut dyn FnMut(&Name)) {
        self.stms.iter().for_each(|s| s.walk(on_exp, on_write));
        self.results.iter().for_each(on_exp);
    }
}

/// A function of scalars: the combining operator of a reduction, scan or histogram.
/// An operator on k-tuples has 2k parameters (the k components of the left operand, then
/// the k of the right one) and k results.
#[derive(Clone, Debug, PartialEq)]
pub struct Lambda {
    pub params: Vec<(Name, PrimType)>,
    pub body: Body,
}

impl Lambda {
    /// The operator `\(a, b) -> a OP b` on one type.
    pub fn binop(op: BinOp, ty: PrimType) -> Lambda {
        Lambda {
            params: vec![("x".into(), ty), ("y".into(), ty)],
            body: Body::results(vec![Exp::bin(op, Exp::var("x"), Exp::var("y"))]),
        }
    }

    /// If the lambda is exactly `\(x, y) -> x OP y` (or `y OP x` for a commutative OP), the
    /// operator and its type: the code generator uses native atomics and shuffles for these.
    ///
    /// Lowering binds every application to a name (`\(x, y) -> let b = x + y in b`), so
    /// the body's `let`s are substituted into its result first ([`Lambda::inlined_results`]).
    pub fn as_binop(&self) -> Option<(BinOp, PrimType)> {
        if self.params.len() != 2 || self.body.results.len() != 1 {
            return None;
        }
        let (x, tx) = &self.params[0];
        let (y, ty) = &self.params[1];
        if tx != ty {
            return None;
        }
        let results = self.inlined_results()?;
        match &results[0] {
            Exp::Bin(op, a, b) => match (a.as_ref(), b.as_ref()) {
                (Exp::Var(a), Exp::Var(b)) if a == x && b == y => Some((*op, *tx)),
                (Exp::Var(a), Exp::Var(b)) if a == y && b == x && op.is_commutative() => {
                    Some((*op, *tx))
                }
                _ => None,
            },
            _ => None,
        }
    }

    /// The body's results with its statements substituted in, when the body holds only a
    /// few immutable `let`s (no effects, no control flow): what the operator computes as one
    /// expression per result. `None` for any other body.
    pub fn inlined_results(&self) -> Option<Vec<Exp>> {
        // A bound on the statements keeps the substituted expressions small.
        if self.body.stms.len() > 8 {
            return None;
        }
        let mut bound: Vec<(Name, Exp)> = Vec::new();
        for s in &self.body.stms {
            let Stm::Let { name, exp, .. } = s else {
                return None;
            };
            let e = substitute(exp, &bound);
            bound.push((name.clone(), e));
        }
        Some(
            self.body
                .results
                .iter()
                .map(|r| substitute(r, &bound))
                .collect(),
        )
    }
}

/// `e` with every variable bound in `bound` replaced by its expression (later bindings
/// shadow earlier ones of the same name).
pub fn substitute(e: &Exp, bound: &[(Name, Exp)]) -> Exp {
    let sub = |a: &Exp| Box::new(substitute(a, bound));
    match e {
        Exp::Var(v) => bound
            .iter()
            .rev()
            .find(|(n, _)| n == v)
            .map_or_else(|| e.clone(), |(_, x)| x.clone()),
        Exp::Const(_) => e.clone(),
        Exp::Bin(op, a, b) => Exp::Bin(*op, sub(a), sub(b)),
        Exp::Cmp(op, a, b) => Exp::Cmp(*op, sub(a), sub(b)),
        Exp::Un(op, a) => Exp::Un(*op, sub(a)),
        Exp::Conv(t, a) => Exp::Conv(*t, sub(a)),
        Exp::Math(f, args) => Exp::Math(*f, args.iter().map(|a| substitute(a, bound)).collect()),
        Exp::Select(c, t, f) => Exp::Select(sub(c), sub(t), sub(f)),
        Exp::Read(arr, i) => Exp::Read(arr.clone(), sub(i)),
    }
}
