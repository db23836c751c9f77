//! The syntax of the SOAC IR: types, statements, expressions, SOACs and programs.
//!
//! See the module documentation of [`crate::soacs`] for the design. Everything here is
//! plain data with public fields; constructors are small conveniences for passes and tests.

use crate::kernel::KernelProgram;
use crate::types::{PrimType, PrimValue};

use super::ops::{BinOp, CmpOp, ConvOp, MathFn, UnOp};

/// Names of variables and functions. Unique within a function (no shadowing).
pub type Name = String;

/// An atom: a constant or a variable.
#[derive(Clone, Debug, PartialEq)]
pub enum SubExp {
    Const(PrimValue),
    Var(Name),
}

impl SubExp {
    pub fn var(name: &str) -> SubExp {
        SubExp::Var(name.to_string())
    }

    pub fn i64(x: i64) -> SubExp {
        SubExp::Const(PrimValue::I64(x))
    }

    pub fn bool(b: bool) -> SubExp {
        SubExp::Const(PrimValue::Bool(b))
    }

    pub fn as_var(&self) -> Option<&Name> {
        match self {
            SubExp::Var(v) => Some(v),
            SubExp::Const(_) => None,
        }
    }

    pub fn as_const(&self) -> Option<PrimValue> {
        match self {
            SubExp::Const(c) => Some(*c),
            SubExp::Var(_) => None,
        }
    }

    /// The constant as an `i64`, if it is an `i64` constant.
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            SubExp::Const(PrimValue::I64(x)) => Some(*x),
            _ => None,
        }
    }
}

/// A dimension of a function's or branch's result type: known in terms of variables in
/// scope (`Free`), or existential (`Ext(i)`: the i-th size bound by the statement).
#[derive(Clone, Debug, PartialEq)]
pub enum ExtSize {
    Free(SubExp),
    Ext(usize),
}

/// A primitive type or a regular array of one, with one `D` per dimension.
#[derive(Clone, Debug, PartialEq)]
pub enum TypeBase<D> {
    Prim(PrimType),
    Array(PrimType, Vec<D>),
}

/// A type whose dimensions are `i64` atoms in scope.
pub type Type = TypeBase<SubExp>;
/// A type whose dimensions may be existential.
pub type ExtType = TypeBase<ExtSize>;

impl<D: Clone> TypeBase<D> {
    /// An array type of rank `shape.len()`, or the primitive itself for an empty shape.
    pub fn array(elem: PrimType, shape: Vec<D>) -> TypeBase<D> {
        if shape.is_empty() {
            TypeBase::Prim(elem)
        } else {
            TypeBase::Array(elem, shape)
        }
    }

    pub fn elem(&self) -> PrimType {
        match self {
            TypeBase::Prim(t) | TypeBase::Array(t, _) => *t,
        }
    }

    pub fn shape(&self) -> &[D] {
        match self {
            TypeBase::Prim(_) => &[],
            TypeBase::Array(_, s) => s,
        }
    }

    pub fn rank(&self) -> usize {
        self.shape().len()
    }

    pub fn is_array(&self) -> bool {
        matches!(self, TypeBase::Array(..))
    }

    /// The outermost dimension.
    pub fn outer(&self) -> Option<&D> {
        self.shape().first()
    }

    /// The type of a row (one dimension fewer); a primitive stays itself.
    pub fn row(&self) -> TypeBase<D> {
        self.strip(1)
    }

    /// The type with `n` outer dimensions removed.
    pub fn strip(&self, n: usize) -> TypeBase<D> {
        let shape = self.shape();
        TypeBase::array(self.elem(), shape[n.min(shape.len())..].to_vec())
    }

    /// The type with `outer` prepended as a new outermost dimension.
    pub fn array_of(&self, outer: D) -> TypeBase<D> {
        let mut shape = vec![outer];
        shape.extend(self.shape().iter().cloned());
        TypeBase::Array(self.elem(), shape)
    }

    /// The same element type with another shape.
    pub fn with_shape<E: Clone>(&self, shape: Vec<E>) -> TypeBase<E> {
        TypeBase::array(self.elem(), shape)
    }

    /// Maps every dimension.
    pub fn map_dims<E: Clone>(&self, f: impl FnMut(&D) -> E) -> TypeBase<E> {
        TypeBase::array(self.elem(), self.shape().iter().map(f).collect())
    }
}

impl Type {
    /// This type with every dimension known.
    pub fn to_ext(&self) -> ExtType {
        self.map_dims(|d| ExtSize::Free(d.clone()))
    }
}

/// A typed binder: a function, lambda or loop parameter, or a pattern element.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub name: Name,
    pub ty: Type,
}

impl Param {
    pub fn new(name: &str, ty: Type) -> Param {
        Param {
            name: name.to_string(),
            ty,
        }
    }
}

/// What a statement binds: existential sizes (`i64`, read from the shapes of the results)
/// and one element per result of the expression.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Pat {
    pub ctx: Vec<Name>,
    pub elems: Vec<Param>,
}

impl Pat {
    pub fn new(elems: Vec<Param>) -> Pat {
        Pat {
            ctx: Vec::new(),
            elems,
        }
    }

    pub fn one(name: &str, ty: Type) -> Pat {
        Pat::new(vec![Param::new(name, ty)])
    }

    /// Every name the pattern binds, sizes first.
    pub fn names(&self) -> impl Iterator<Item = &Name> {
        self.ctx.iter().chain(self.elems.iter().map(|p| &p.name))
    }
}

/// `let pat = exp`.
#[derive(Clone, Debug, PartialEq)]
pub struct Stm {
    pub pat: Pat,
    pub exp: Exp,
    /// Where the source expression is (`path:line:col-col`, as the interpreter writes it),
    /// for the run-time errors the statement can raise (indexing, division); passes that
    /// rebuild a statement may drop it, which only loses the location from a message.
    pub loc: Option<std::sync::Arc<str>>,
}

impl Stm {
    pub fn new(pat: Pat, exp: Exp) -> Stm {
        Stm {
            pat,
            exp,
            loc: None,
        }
    }

    /// The statement with a source location for its run-time errors.
    pub fn at(mut self, loc: Option<std::sync::Arc<str>>) -> Stm {
        self.loc = loc;
        self
    }
}

/// Statements followed by results.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Body {
    pub stms: Vec<Stm>,
    pub result: Vec<SubExp>,
}

impl Body {
    pub fn new(stms: Vec<Stm>, result: Vec<SubExp>) -> Body {
        Body { stms, result }
    }
}

/// An anonymous function: the argument of a SOAC. Its body may use variables in scope.
#[derive(Clone, Debug, PartialEq)]
pub struct Lambda {
    pub params: Vec<Param>,
    pub body: Body,
    pub ret: Vec<Type>,
}

/// One dimension of an index: a fixed index (drops the dimension) or a strided slice
/// (keeps it, with the given length).
#[derive(Clone, Debug, PartialEq)]
pub enum DimIndex {
    Fix(SubExp),
    Slice {
        start: SubExp,
        len: SubExp,
        stride: SubExp,
    },
}

impl DimIndex {
    pub fn is_fix(&self) -> bool {
        matches!(self, DimIndex::Fix(_))
    }
}

/// How a loop iterates.
#[derive(Clone, Debug, PartialEq)]
pub enum LoopForm {
    /// `for var < bound`; `var` has the (integer) type of `bound`.
    For { var: Name, bound: SubExp },
    /// `while cond`, where `cond` is one of the loop's `bool` parameters.
    While { cond: Name },
}

/// Second-order array combinators. Every lambda's parameters are rows of the input arrays
/// (`arrs`, each of outer size `w`) unless said otherwise.
#[derive(Clone, Debug, PartialEq)]
pub enum Soac {
    /// One array per result of `lam`, each `[w]` of the result type.
    Map {
        w: SubExp,
        lam: Lambda,
        arrs: Vec<Name>,
    },
    /// A redomap: `map` gives k values per element, combined by the associative `op`
    /// (2k parameters, k results) from the neutral elements `nes`. Results: k values.
    Reduce {
        w: SubExp,
        comm: bool,
        op: Lambda,
        nes: Vec<SubExp>,
        map: Lambda,
        arrs: Vec<Name>,
    },
    /// A scanomap: like `Reduce`, but the results are the k inclusive-scan arrays.
    Scan {
        w: SubExp,
        op: Lambda,
        nes: Vec<SubExp>,
        map: Lambda,
        arrs: Vec<Name>,
    },
    /// A generalised histogram: `map` gives `rank` bucket indices (`i64`) then k values;
    /// each value is combined into `dests[j][bucket]` with the associative and commutative
    /// `op`. Out-of-range buckets are ignored. Consumes the destinations; results: k arrays.
    Hist {
        w: SubExp,
        dests: Vec<Name>,
        rank: usize,
        op: Lambda,
        nes: Vec<SubExp>,
        map: Lambda,
        arrs: Vec<Name>,
    },
    /// `map` gives, for each destination in order, its index (one `i64` per dimension
    /// given in `ranks`) then the value written there. Out-of-range writes are ignored.
    /// Consumes the destinations; results: the updated arrays.
    Scatter {
        w: SubExp,
        dests: Vec<Name>,
        ranks: Vec<usize>,
        map: Lambda,
        arrs: Vec<Name>,
    },
}

impl Soac {
    pub fn width(&self) -> &SubExp {
        match self {
            Soac::Map { w, .. }
            | Soac::Reduce { w, .. }
            | Soac::Scan { w, .. }
            | Soac::Hist { w, .. }
            | Soac::Scatter { w, .. } => w,
        }
    }

    pub fn inputs(&self) -> &[Name] {
        match self {
            Soac::Map { arrs, .. }
            | Soac::Reduce { arrs, .. }
            | Soac::Scan { arrs, .. }
            | Soac::Hist { arrs, .. }
            | Soac::Scatter { arrs, .. } => arrs,
        }
    }

    /// The lambda applied to each element of the inputs.
    pub fn map_lambda(&self) -> &Lambda {
        match self {
            Soac::Map { lam, .. } => lam,
            Soac::Reduce { map, .. }
            | Soac::Scan { map, .. }
            | Soac::Hist { map, .. }
            | Soac::Scatter { map, .. } => map,
        }
    }

    pub fn kind_name(&self) -> &'static str {
        match self {
            Soac::Map { .. } => "map",
            Soac::Reduce { .. } => "redomap",
            Soac::Scan { .. } => "scanomap",
            Soac::Hist { .. } => "hist",
            Soac::Scatter { .. } => "scatter",
        }
    }
}

/// How a host program passes one array of a kernel program to a launch.
#[derive(Clone, Debug, PartialEq)]
pub enum KernelArg {
    /// An input: a host array, or a scalar passed as a one-element array.
    In(SubExp),
    /// A fresh output array, bound by the launching statement.
    Out,
    /// A destination updated in place (consumed), bound again by the statement.
    InOut(Name),
}

/// A kernel launch in host code: values for the kernel program's size parameters (in
/// order) and one argument per declared array (in order). The statement binds the `Out`
/// and `InOut` arrays in order; a shapeless output array is bound as a scalar.
#[derive(Clone, Debug, PartialEq)]
pub struct Launch {
    pub kernel: Name,
    pub sizes: Vec<SubExp>,
    pub args: Vec<KernelArg>,
}

/// Expressions: the right-hand side of a statement.
#[derive(Clone, Debug, PartialEq)]
pub enum Exp {
    SubExp(SubExp),
    BinOp(BinOp, SubExp, SubExp),
    CmpOp(CmpOp, SubExp, SubExp),
    UnOp(UnOp, SubExp),
    Conv(ConvOp, SubExp),
    Math(MathFn, Vec<SubExp>),
    /// `[a, b, …]` with the type of one element (primitive or array).
    ArrayLit(Vec<SubExp>, Type),
    /// Indexing and slicing; fewer indices than dimensions keep the inner ones. Bounds are
    /// checked (a failure is a run-time error).
    Index(Name, Vec<DimIndex>),
    /// `arr with [idx] = value`: consumes `arr` and updates it in place.
    Update(Name, Vec<DimIndex>, SubExp),
    /// `[start, start + stride, …]` of `n` elements of an integer type.
    Iota {
        n: SubExp,
        start: SubExp,
        stride: SubExp,
        ty: PrimType,
    },
    /// `shape` copies of `value` (which may itself be an array).
    Replicate {
        shape: Vec<SubExp>,
        value: SubExp,
    },
    /// The elements of `arr` in row-major order, reshaped (checked: same element count).
    Reshape {
        shape: Vec<SubExp>,
        arr: Name,
    },
    /// Dimensions permuted: result dimension i is dimension `perm[i]` of `arr`.
    Rearrange {
        perm: Vec<usize>,
        arr: Name,
    },
    /// Concatenation along the outer dimension; `size` is the result's outer size.
    Concat {
        arrs: Vec<Name>,
        size: SubExp,
    },
    /// A fresh copy (the result is unique).
    Copy(Name),
    /// Fails when `cond` is false, with `msg` as the error's text, each `{}` in it replaced
    /// by the value of the next of `args` (e.g. a range's bounds); binds nothing.
    Assert {
        cond: SubExp,
        msg: String,
        args: Vec<SubExp>,
    },
    If {
        cond: SubExp,
        then_body: Body,
        else_body: Body,
        ret: Vec<ExtType>,
    },
    /// A loop: parameters with initial values, and a body giving their next values. The
    /// results are the final values. A parameter's type may mention earlier parameters (of
    /// type `i64`) as dimensions: then the size may change between iterations.
    Loop {
        params: Vec<(Param, SubExp)>,
        form: LoopForm,
        body: Body,
    },
    /// A call of a function of the program; `ret` is the callee's return type with its
    /// parameters replaced by the arguments.
    Apply {
        func: Name,
        args: Vec<SubExp>,
        ret: Vec<ExtType>,
    },
    Soac(Soac),
    /// A kernel launch: only in host programs (after kernel extraction).
    Launch(Launch),
}

/// What an entry point looks like to its caller: its Futhark parameters and results, each
/// covering one or more IR values (a tuple or an array of tuples becomes several arrays).
#[derive(Clone, Debug, PartialEq)]
pub struct EntryPoint {
    pub name: String,
    pub params: Vec<EntryValue>,
    pub results: Vec<EntryValue>,
}

/// One Futhark-level parameter or result of an entry point.
#[derive(Clone, Debug, PartialEq)]
pub struct EntryValue {
    /// The type as written in Futhark (for messages and the runtime's data reader).
    pub futhark_type: String,
    /// How many IR values (parameters or results) it covers, in order.
    pub values: usize,
}

/// A function. Array parameters' dimensions are variables bound by earlier (size)
/// parameters or constants; result dimensions may refer to parameters or be existential.
/// An entry point's size parameters come first and are read from its inputs' shapes.
#[derive(Clone, Debug, PartialEq)]
pub struct FunDef {
    pub name: Name,
    pub entry: Option<EntryPoint>,
    pub params: Vec<Param>,
    pub ret: Vec<ExtType>,
    pub body: Body,
}

/// A kernel program made by kernel extraction, launched by name from host code.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelDef {
    pub name: Name,
    pub program: KernelProgram,
}

/// A whole program: functions (entry points among them) and, after kernel extraction, the
/// kernels the host code launches.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Program {
    pub funs: Vec<FunDef>,
    pub kernels: Vec<KernelDef>,
    /// What compilation had to do that users should hear of: a SOAC that runs as a
    /// sequential host loop rather than as kernels ([`SlowPath`]). Faces print these.
    pub slow_paths: Vec<SlowPath>,
}

/// A SOAC compiled to a sequential loop on the host, one iteration per element, because
/// no kernel shape fits it: correct, but orders of magnitude slower than a kernel.
#[derive(Clone, Debug, PartialEq)]
pub struct SlowPath {
    /// The SOAC (`map`, `reduce`, …).
    pub soac: &'static str,
    /// Its source location (`path:line:col-col`), when lowering recorded one.
    pub at: Option<String>,
    /// Why kernel extraction could not take it (the extractor's message).
    pub why: String,
}

impl std::fmt::Display for SlowPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "`{}`", self.soac)?;
        if let Some(at) = &self.at {
            write!(f, " at {at}")?;
        }
        write!(
            f,
            " runs as a sequential loop on the host, one element at a time (slow): {}",
            self.why
        )
    }
}

impl Program {
    pub fn fun(&self, name: &str) -> Option<&FunDef> {
        self.funs.iter().find(|f| f.name == name)
    }

    pub fn kernel(&self, name: &str) -> Option<&KernelDef> {
        self.kernels.iter().find(|k| k.name == name)
    }

    pub fn entries(&self) -> impl Iterator<Item = &FunDef> {
        self.funs.iter().filter(|f| f.entry.is_some())
    }
}
