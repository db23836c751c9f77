//! Segmented operations: the kernel-level constructs of the IR.
//!
//! A `KernelProgram` declares 64-bit size parameters, device arrays whose shapes are given by
//! those sizes, and a list of kernels. Each kernel is one segmented operation over a
//! `SegSpace`: a list of dimensions whose last one is the *inner* dimension and whose others
//! are *segments*. The body runs once per point of the space, with the point's indices (and
//! its row-major flat index) bound as `i64` variables:
//!
//! | operation | body results per point | writes |
//! |---|---|---|
//! | `SegMap` | one value per output | `out[flat] = v` (output shape = the space) |
//! | `SegRed` | k values (a k-tuple) | one k-tuple per segment, combined with `op` from `neutral` |
//! | `SegScan` | k values | inclusive scan of each segment (output shape = the space) |
//! | `SegHist` | bucket (`i64`), then k values | `dest[b] = dest[b] op v`, out-of-range `b` ignored |
//! | `Scatter` | (index `i64`, value) per destination | `dest[i] = v`, out-of-range `i` ignored |
//!
//! Operators are associative, with `neutral` as identity (the front end's promise, as in
//! Futhark); `SegRed` and `SegScan` combine in index order, so a non-commutative operator is
//! correct. `SegHist` operators must also be commutative (atomics apply them in any order).
//! Histograms and scatters have no segments yet (the type checker says so).

use crate::exp::{Body, Exp, Lambda, Name};
use crate::types::{PrimType, PrimValue};

/// An array extent: a constant or a size parameter (always `i64` at run time).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Size {
    Const(i64),
    Param(Name),
}

impl Size {
    pub fn param(name: &str) -> Size {
        Size::Param(name.to_string())
    }

    /// The size as an `i64` expression.
    pub fn to_exp(&self) -> Exp {
        match self {
            Size::Const(c) => Exp::i64(*c),
            Size::Param(p) => Exp::Var(p.clone()),
        }
    }
}

/// A device array the kernels may read or write.
#[derive(Clone, Debug, PartialEq)]
pub struct ArrayDecl {
    pub name: Name,
    pub elem: PrimType,
    /// Row-major extents; an empty shape is a one-element array (a scalar result).
    pub shape: Vec<Size>,
}

/// The iteration space of a segmented operation.
#[derive(Clone, Debug, PartialEq)]
pub struct SegSpace {
    /// Bound to the row-major flat index of the point.
    pub flat: Name,
    /// Dimensions, outermost first; the last is the inner (reduced/scanned) dimension.
    pub dims: Vec<(Name, Size)>,
}

impl SegSpace {
    /// A one-dimensional space `flat < n` whose only index is `flat` itself.
    pub fn flat(index: &str, n: Size) -> SegSpace {
        SegSpace {
            flat: index.to_string(),
            dims: vec![(index.to_string(), n)],
        }
    }

    /// The segment dimensions (all but the inner one).
    pub fn outer(&self) -> &[(Name, Size)] {
        &self.dims[..self.dims.len().saturating_sub(1)]
    }

    /// The inner dimension.
    pub fn inner(&self) -> Option<&(Name, Size)> {
        self.dims.last()
    }

    /// The row-major flat index of the point in `dims` spelt out, `(g0 * S1 + g1) * … + gk`
    /// (`None` for no dimensions).
    pub fn index_of(dims: &[(Name, Size)]) -> Option<Exp> {
        let ((g0, _), rest) = dims.split_first()?;
        Some(rest.iter().fold(Exp::var(g0), |acc, (g, s)| {
            acc.times(s.to_exp()).plus(Exp::var(g))
        }))
    }

    /// True if `e` is the flat index of this space (the identity access that the code
    /// generator may vectorise).
    pub fn is_flat_index(&self, e: &Exp) -> bool {
        match e {
            Exp::Var(v) => {
                *v == self.flat
                    || (self.dims.len() == 1 && self.dims.first().is_some_and(|d| d.0 == *v))
            }
            _ => false,
        }
    }
}

/// `map`: every point writes one element of each output.
#[derive(Clone, Debug, PartialEq)]
pub struct SegMap {
    pub space: SegSpace,
    pub body: Body,
    pub outputs: Vec<Name>,
}

/// Segmented reduction (a redomap: the body is the map part).
#[derive(Clone, Debug, PartialEq)]
pub struct SegRed {
    pub space: SegSpace,
    pub body: Body,
    pub op: Lambda,
    pub neutral: Vec<PrimValue>,
    /// The front end's promise that `op` is commutative; known commutative operators are
    /// detected without it.
    pub commutative: bool,
    /// One array per tuple component, shaped like the segment dimensions.
    pub outputs: Vec<Name>,
}

/// Segmented inclusive scan (a scanomap: the body is the map part).
#[derive(Clone, Debug, PartialEq)]
pub struct SegScan {
    pub space: SegSpace,
    pub body: Body,
    pub op: Lambda,
    pub neutral: Vec<PrimValue>,
    pub outputs: Vec<Name>,
}

/// Generalised histogram (`reduce_by_index`): the body gives a bucket and a k-tuple.
#[derive(Clone, Debug, PartialEq)]
pub struct SegHist {
    pub space: SegSpace,
    pub body: Body,
    pub op: Lambda,
    pub neutral: Vec<PrimValue>,
    pub num_buckets: Size,
    /// Consumed and updated in place; one array per tuple component, each `[num_buckets]`.
    pub dests: Vec<Name>,
}

/// Scatter: the body gives an (index, value) pair per destination array.
#[derive(Clone, Debug, PartialEq)]
pub struct Scatter {
    pub space: SegSpace,
    pub body: Body,
    pub dests: Vec<Name>,
}

/// A segmented operation.
#[derive(Clone, Debug, PartialEq)]
pub enum SegOp {
    Map(SegMap),
    Red(SegRed),
    Scan(SegScan),
    Hist(SegHist),
    Scatter(Scatter),
}

impl SegOp {
    pub fn space(&self) -> &SegSpace {
        match self {
            SegOp::Map(o) => &o.space,
            SegOp::Red(o) => &o.space,
            SegOp::Scan(o) => &o.space,
            SegOp::Hist(o) => &o.space,
            SegOp::Scatter(o) => &o.space,
        }
    }

    pub fn body(&self) -> &Body {
        match self {
            SegOp::Map(o) => &o.body,
            SegOp::Red(o) => &o.body,
            SegOp::Scan(o) => &o.body,
            SegOp::Hist(o) => &o.body,
            SegOp::Scatter(o) => &o.body,
        }
    }

    /// The body and, for reductions, scans and histograms, the operator, to rewrite.
    pub fn body_and_op_mut(&mut self) -> (&mut Body, Option<&mut Lambda>) {
        match self {
            SegOp::Map(o) => (&mut o.body, None),
            SegOp::Red(o) => (&mut o.body, Some(&mut o.op)),
            SegOp::Scan(o) => (&mut o.body, Some(&mut o.op)),
            SegOp::Hist(o) => (&mut o.body, Some(&mut o.op)),
            SegOp::Scatter(o) => (&mut o.body, None),
        }
    }

    pub fn op(&self) -> Option<&Lambda> {
        match self {
            SegOp::Red(o) => Some(&o.op),
            SegOp::Scan(o) => Some(&o.op),
            SegOp::Hist(o) => Some(&o.op),
            SegOp::Map(_) | SegOp::Scatter(_) => None,
        }
    }

    /// Arrays the operation writes as its results.
    pub fn result_arrays(&self) -> &[Name] {
        match self {
            SegOp::Map(o) => &o.outputs,
            SegOp::Red(o) => &o.outputs,
            SegOp::Scan(o) => &o.outputs,
            SegOp::Hist(o) => &o.dests,
            SegOp::Scatter(o) => &o.dests,
        }
    }

    pub fn kind_name(&self) -> &'static str {
        match self {
            SegOp::Map(_) => "segmap",
            SegOp::Red(_) => "segred",
            SegOp::Scan(_) => "segscan",
            SegOp::Hist(_) => "seghist",
            SegOp::Scatter(_) => "scatter",
        }
    }
}

/// A named kernel.
#[derive(Clone, Debug, PartialEq)]
pub struct Kernel {
    pub name: Name,
    pub op: SegOp,
}

/// Size parameters, arrays and kernels: the unit the code generator and runner work on.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct KernelProgram {
    pub sizes: Vec<Name>,
    pub arrays: Vec<ArrayDecl>,
    pub kernels: Vec<Kernel>,
    /// Set when the kernels may also run as the stages of one intra-block kernel.
    pub intra: Option<Intra>,
}

/// Kernels that a GPU may run as the stages of one *intra-block* kernel (seed 002): one
/// block per row of their common space, each stage over the row's inner dimension with a
/// barrier between stages, and what one stage writes for a later one kept in the block's
/// shared memory.
///
/// What makes that right, checked by [`crate::check_program`] and promised by the pass that
/// sets it (`fuse-intra`): every kernel is a `segmap`, `segscan` or `segred` over the same
/// dimensions (at least two: rows, then the inner one); every array a kernel writes has the
/// space's shape (a `segred`'s: the rows' shape, one result per row); and a kernel reads what
/// an earlier kernel of the program wrote only in its own row (at an index whose row part is
/// the point's own; a `segred`'s result at the row's index). Run one after another, as the CPU
/// backend does, the kernels compute the same.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Intra {
    /// Arrays only later kernels of the program read: the intra-block kernel keeps them in
    /// shared memory and never writes them to device memory (nothing reads them after the
    /// launch).
    pub locals: Vec<Name>,
}

impl KernelProgram {
    pub fn array(&self, name: &str) -> Option<&ArrayDecl> {
        self.arrays.iter().find(|a| a.name == name)
    }

    /// Arrays a kernel touches (reads, writes, results), in declaration order: the kernel's
    /// array parameters.
    pub fn kernel_arrays(&self, kernel: &Kernel) -> Vec<&ArrayDecl> {
        let mut used: Vec<Name> = kernel.op.result_arrays().to_vec();
        let mut note = |n: &Name| {
            if !used.contains(n) {
                used.push(n.clone());
            }
        };
        let mut on_exp = |e: &Exp| {
            let mut names = Vec::new();
            e.for_each_read(&mut |a, _| names.push(a.clone()));
            names.iter().for_each(&mut note);
        };
        let mut writes = Vec::new();
        kernel
            .op
            .body()
            .walk(&mut on_exp, &mut |a| writes.push(a.clone()));
        if let Some(op) = kernel.op.op() {
            op.body.walk(&mut on_exp, &mut |a| writes.push(a.clone()));
        }
        for w in &writes {
            if !used.contains(w) {
                used.push(w.clone());
            }
        }
        self.arrays
            .iter()
            .filter(|a| used.contains(&a.name))
            .collect()
    }

    /// Every size parameter is passed to every kernel: shapes and bounds need them, and a
    /// uniform signature keeps the runner simple.
    pub fn kernel_sizes(&self) -> &[Name] {
        &self.sizes
    }
}
