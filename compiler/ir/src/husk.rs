//! Husks: one kernel split over G devices along its outermost dimension (seed 000).
//!
//! [`husk`] turns a one-kernel program into a *piece* that computes a contiguous range of
//! rows `[offset, offset + rows)` of the dimension it splits, given as two extra size
//! parameters ([`OFFSET`], [`ROWS`]). Each device runs the piece on its own range (from
//! [`crate::partition`]-style splitting done by the runtime), and the [`Combine`] says how
//! the pieces' results become the whole result:
//!
//! | operation | split dimension | pieces give | combine |
//! |---|---|---|---|
//! | `segmap` | the outermost | their rows of every output | none: the output is partitioned |
//! | segmented `segred`/`segscan` | the outermost segment | their segments' results | none |
//! | `segred` (one segment) | the reduced one | one partial per device | the partials, in device order, with the operator |
//! | `segscan` (one segment) | the scanned one | a scan of their rows | carry: the exclusive scan of the pieces' last elements, combined into each row |
//! | `seghist` | the input one | a subhistogram each (device 0 into the destination, others from the neutral element) | bucket-wise with the operator |
//! | `scatter` | — | not split: writes go anywhere | — |
//!
//! A map body may also write arrays itself (the kernel generator writes a thread's array
//! results into its output rows, and keeps thread-private arrays in *scratch* arrays of
//! `[points][..]`). The language lets a thread write only storage it owns, so an array whose
//! first dimension is the split one is written only in the point's own rows: it is
//! partitioned like a result (writes shifted to the piece's rows); any other written array is
//! private scratch, given to each device whole and dead after the launch.
//!
//! Inputs read only at the point's own flat index are *aligned*: a piece reads them at its
//! local index, so the runtime may pass just the device's rows (partition-to-partition, no
//! copy). Other inputs are read at global indices and must be whole on every device.
//! Combining in device order keeps non-commutative operators correct, because device `g`'s
//! rows all come before device `g + 1`'s.

use crate::exp::{Body, Exp, Lambda, Name, Stm};
use crate::kernel::{Kernel, KernelProgram, SegOp, SegSpace, Size};
use crate::types::PrimValue;

/// The size parameter holding the first row of a piece.
pub const OFFSET: &str = "husk_offset";
/// The size parameter holding the number of rows of a piece.
pub const ROWS: &str = "husk_rows";

/// How pieces' results make the whole result.
#[derive(Clone, Debug, PartialEq)]
pub enum Combine {
    /// Each piece wrote its rows of every output: the outputs are partitioned by rows.
    Rows,
    /// Each piece wrote one partial per output; fold them in device order with `op`.
    Reduce { op: Lambda, neutral: Vec<PrimValue> },
    /// Each piece scanned its rows; piece `g > 0` must then combine `op(carry_g, x)` into
    /// each of its elements, where `carry_g` folds the last elements of pieces `0..g`.
    ScanCarry { op: Lambda },
    /// Each piece accumulated a subhistogram: piece 0 into the destination itself, the
    /// others into fresh arrays filled with `neutral`; fold them bucket-wise with `op`.
    Hist { op: Lambda, neutral: Vec<PrimValue> },
}

/// A kernel made splittable.
#[derive(Clone, Debug, PartialEq)]
pub struct Husk {
    /// The piece: the original sizes, then [`OFFSET`] and [`ROWS`].
    pub piece: KernelProgram,
    /// The extent that is split (in terms of the original size parameters).
    pub split: Size,
    pub combine: Combine,
    /// Arrays the piece reads only at its own rows: pass each device its rows.
    pub aligned: Vec<Name>,
    /// Result arrays; with [`Combine::Rows`] and [`Combine::ScanCarry`] partitioned by
    /// rows, otherwise one per device to be combined. Includes the arrays a map body writes
    /// by rows.
    pub results: Vec<Name>,
    /// Scratch arrays the body writes that are not results: each device gets its own
    /// (whole, uninitialised); their contents are dead after the launch.
    pub private: Vec<Name>,
    /// Sizes that must be equal at run time for the piece to be right: the row-local reads
    /// of [`Husk::aligned`] arrays assume the index's row strides are the array's
    /// dimensions, which a program may spell with different size names.
    pub equal: Vec<(Size, Size)>,
}

impl Husk {
    /// Whether the launch's sizes meet [`Husk::equal`] (`value` gives a size's value).
    pub fn holds(&self, value: impl Fn(&Size) -> i64) -> bool {
        self.equal.iter().all(|(a, b)| value(a) == value(b))
    }
}

/// Makes a one-kernel program splittable, or says why it is not (kept on one device).
pub fn husk(prog: &KernelProgram) -> Result<Husk, &'static str> {
    let [kernel] = prog.kernels.as_slice() else {
        return Err("more than one kernel");
    };
    if prog.sizes.iter().any(|s| s == OFFSET || s == ROWS) {
        return Err("already split");
    }
    let space = kernel.op.space();
    if space.dims.is_empty() {
        return Err("empty segment space");
    }
    let mut writes: Vec<Name> = Vec::new();
    kernel.op.body().walk(&mut |_| {}, &mut |a| {
        if !writes.contains(a) {
            writes.push(a.clone())
        }
    });
    let (row_writes, private) = classify_writes(prog, kernel, &writes)?;
    let segmented = space.dims.len() > 1;
    let combine = match &kernel.op {
        SegOp::Map(_) => Combine::Rows,
        SegOp::Red(_) | SegOp::Scan(_) if segmented => Combine::Rows,
        SegOp::Red(r) => Combine::Reduce {
            op: r.op.clone(),
            neutral: r.neutral.clone(),
        },
        SegOp::Scan(s) => Combine::ScanCarry { op: s.op.clone() },
        SegOp::Hist(h) if !segmented => Combine::Hist {
            op: h.op.clone(),
            neutral: h.neutral.clone(),
        },
        SegOp::Hist(_) => return Err("segmented histogram"),
        SegOp::Scatter(_) => return Err("scatter writes anywhere"),
    };
    let inputs = aligned_inputs(prog, kernel, &writes);
    let aligned: Vec<Name> = inputs.names();
    let (i0, split) = space.dims[0].clone();
    let local_i0 = format!("{i0}_local");
    let local_flat = format!("{}_local", space.flat);
    // Rows after the first dimension, as a product of sizes (1 for a 1-D space).
    let row_len = space.dims[1..]
        .iter()
        .fold(Exp::i64(1), |acc, (_, s)| acc.times(s.to_exp()));
    let mut prefix = vec![Stm::let_(
        &i0,
        crate::PrimType::I64,
        Exp::var(&local_i0).plus(Exp::var(OFFSET)),
    )];
    if space.flat != i0 {
        prefix.push(Stm::let_(
            &space.flat,
            crate::PrimType::I64,
            Exp::var(&local_flat).plus(Exp::var(OFFSET).times(row_len)),
        ));
    }
    let new_space = SegSpace {
        flat: if space.flat == i0 {
            local_i0.clone()
        } else {
            local_flat.clone()
        },
        dims: std::iter::once((local_i0.clone(), Size::param(ROWS)))
            .chain(space.dims[1..].iter().cloned())
            .collect(),
    };
    let local_index = Exp::var(&new_space.flat);
    let mut op = kernel.op.clone();
    {
        let (space_mut, body) = space_and_body(&mut op);
        *space_mut = new_space;
        for s in &mut body.stms {
            rewrite_stm(s, &inputs, &local_index);
            shift_writes(s, prog, &row_writes);
        }
        for r in &mut body.results {
            rewrite_exp(r, &inputs, &local_index);
        }
        body.stms.splice(0..0, prefix);
    }
    let mut results = kernel.op.result_arrays().to_vec();
    results.extend(
        row_writes
            .iter()
            .filter(|w| !results.contains(w))
            .cloned()
            .collect::<Vec<_>>(),
    );
    let mut piece = prog.clone();
    piece.sizes.push(OFFSET.into());
    piece.sizes.push(ROWS.into());
    for a in &mut piece.arrays {
        let partitioned = aligned.contains(&a.name)
            || (results.contains(&a.name)
                && matches!(combine, Combine::Rows | Combine::ScanCarry { .. }));
        if partitioned && let Some(first) = a.shape.first_mut() {
            *first = Size::param(ROWS);
        }
    }
    piece.kernels = vec![Kernel {
        name: kernel.name.clone(),
        op,
    }];
    Ok(Husk {
        piece,
        split,
        combine,
        aligned,
        results,
        private,
        equal: inputs.equal,
    })
}

/// Splits the arrays a body writes into those written by rows (first dimension the split
/// one; only a map's) and private scratch; refuses bodies that also read what they write
/// by rows (their reads would need the same shift).
fn classify_writes(
    prog: &KernelProgram,
    kernel: &Kernel,
    writes: &[Name],
) -> Result<(Vec<Name>, Vec<Name>), &'static str> {
    let split = &kernel.op.space().dims[0].1;
    let (mut rows, mut private) = (Vec::new(), Vec::new());
    for w in writes {
        let decl = prog.array(w).ok_or("the body writes an undeclared array")?;
        if decl.shape.first() == Some(split) {
            rows.push(w.clone());
        } else {
            private.push(w.clone());
        }
    }
    if !rows.is_empty() && !matches!(kernel.op, SegOp::Map(_)) {
        return Err("the body writes arrays other than its results");
    }
    let mut read_back = false;
    kernel.op.body().walk(
        &mut |e| {
            e.for_each_read(&mut |a, _| read_back |= rows.contains(a));
        },
        &mut |_| {},
    );
    if read_back {
        return Err("the body reads an array it writes by rows");
    }
    Ok((rows, private))
}

/// Writes to row-written arrays land in the piece's own partition: the global element index
/// less the elements of the rows before the piece.
fn shift_writes(s: &mut Stm, prog: &KernelProgram, rows: &[Name]) {
    match s {
        Stm::Let { .. } | Stm::Assign { .. } | Stm::Mut { .. } | Stm::Check(_) => {}
        Stm::For { body, .. } => body.iter_mut().for_each(|s| shift_writes(s, prog, rows)),
        Stm::If {
            then_branch,
            else_branch,
            ..
        } => then_branch
            .iter_mut()
            .chain(else_branch.iter_mut())
            .for_each(|s| shift_writes(s, prog, rows)),
        Stm::Write { array, index, .. } => {
            if rows.contains(array)
                && let Some(decl) = prog.array(array)
            {
                let row_len = decl
                    .shape
                    .iter()
                    .skip(1)
                    .fold(Exp::i64(1), |acc, d| acc.times(d.to_exp()));
                let before = Exp::var(OFFSET).times(row_len);
                let global = std::mem::replace(index, Exp::i64(0));
                *index = Exp::Bin(crate::BinOp::Sub, Box::new(global), Box::new(before));
            }
        }
    }
}

fn space_and_body(op: &mut SegOp) -> (&mut SegSpace, &mut Body) {
    match op {
        SegOp::Map(o) => (&mut o.space, &mut o.body),
        SegOp::Red(o) => (&mut o.space, &mut o.body),
        SegOp::Scan(o) => (&mut o.space, &mut o.body),
        SegOp::Hist(o) => (&mut o.space, &mut o.body),
        SegOp::Scatter(o) => (&mut o.space, &mut o.body),
    }
}

/// The inputs a piece may be given only its own rows of.
#[derive(Default)]
struct Aligned {
    /// Shaped like the space and read only at the point's flat index: read at the local one.
    flat: Vec<Name>,
    /// Read only within the point's own row (see [`row_strides`]), with the elements per row:
    /// read at the global index less the rows before the piece.
    rows: Vec<(Name, Exp)>,
    /// Strides the row-local reads spell with other size names than the arrays' dimensions.
    equal: Vec<(Size, Size)>,
}

impl Aligned {
    fn names(&self) -> Vec<Name> {
        self.flat
            .iter()
            .cloned()
            .chain(self.rows.iter().map(|(n, _)| n.clone()))
            .collect()
    }
}

/// How one read indexes its array.
enum Access {
    Flat,
    /// At the point's flat index of an array whose dimensions the program names otherwise
    /// than the space's; the pairs must be equal at run time.
    FlatEq(Vec<(Size, Size)>),
    /// Within the row of the point's first index; the strides must equal these dimensions.
    Row(Vec<(Size, Size)>),
    Other,
}

/// Input arrays a piece reads only in its own rows: at the point's flat index (shaped like
/// the space), or *row-locally*: at a row-major index `((g0·d1 + e1)·d2 + e2)…` whose
/// outermost index is the point's first one, `g0`, over an array whose first dimension is
/// the split one. The inner indices `e` are in their dimensions' bounds: the source
/// program indexed each dimension separately, and a read out of a dimension's bounds is an
/// error there (the interpreter reports it); their flattening thus stays inside row `g0`.
/// Arrays the body writes, and arrays an operator reads, are never aligned.
fn aligned_inputs(prog: &KernelProgram, kernel: &Kernel, writes: &[Name]) -> Aligned {
    let space = kernel.op.space();
    let shape: Vec<&Size> = space.dims.iter().map(|(_, s)| s).collect();
    let (g0, split) = (&space.dims[0].0, &space.dims[0].1);
    let results = kernel.op.result_arrays();
    let mut reads: Vec<(Name, Access)> = Vec::new();
    let mut note = |e: &Exp| {
        e.for_each_read(&mut |a, idx| {
            let access = match prog.array(a) {
                // Shaped like the space, perhaps with other size names (`xs: [n_3]` read
                // at the point of a space over `n_1`, the checker having asserted
                // `n_3 == n_1`): equal at run time, which the launch checks.
                Some(d) if d.shape.len() == shape.len() && space.is_flat_index(idx) => {
                    let eq: Vec<(Size, Size)> = d
                        .shape
                        .iter()
                        .zip(&shape)
                        .filter(|(a, b)| a != *b)
                        .map(|(a, b)| (a.clone(), (*b).clone()))
                        .collect();
                    if eq.is_empty() {
                        Access::Flat
                    } else {
                        Access::FlatEq(eq)
                    }
                }
                Some(d) if d.shape.first() == Some(split) => {
                    row_strides(prog, idx, g0, &d.shape).map_or(Access::Other, Access::Row)
                }
                _ => Access::Other,
            };
            reads.push((a.clone(), access));
        })
    };
    kernel.op.body().walk(&mut note, &mut |_| {});
    if let Some(op) = kernel.op.op() {
        // Operators read nothing per point; any read there disqualifies the array.
        op.body.walk(
            &mut |e| e.for_each_read(&mut |a, _| reads.push((a.clone(), Access::Other))),
            &mut |_| {},
        );
    }
    let mut out = Aligned::default();
    let mut seen: Vec<&Name> = Vec::new();
    for (a, _) in &reads {
        if seen.contains(&a) || writes.contains(a) || results.contains(a) {
            continue;
        }
        seen.push(a);
        let mine = || reads.iter().filter(|(b, _)| b == a).map(|(_, acc)| acc);
        if mine().any(|acc| matches!(acc, Access::Other)) {
            continue;
        }
        let mut equal = Vec::new();
        for acc in mine() {
            if let Access::Row(eq) | Access::FlatEq(eq) = acc {
                equal.extend(eq.iter().cloned());
            }
        }
        if mine().all(|acc| matches!(acc, Access::Flat | Access::FlatEq(_))) {
            out.flat.push(a.clone());
        } else if let Some(d) = prog.array(a) {
            let row_len = d.shape[1..]
                .iter()
                .fold(Exp::i64(1), |acc, s| acc.times(s.to_exp()));
            out.rows.push((a.clone(), row_len));
        } else {
            continue;
        }
        for e in equal {
            if !out.equal.contains(&e) {
                out.equal.push(e);
            }
        }
    }
    out
}

/// When `idx` is the row-major flattening `((g0·m1 + e1)·m2 + e2)…·mk + ek` of an index
/// into an array of `shape` (k + 1 dimensions) whose outermost index is `g0` and whose
/// inner indices `e` do not mention `g0`, the pairs (stride `m`, dimension) that differ by
/// name (equal at run time for the program to be right). An omitted `+ e` is a zero index.
fn row_strides(
    prog: &KernelProgram,
    idx: &Exp,
    g0: &str,
    shape: &[Size],
) -> Option<Vec<(Size, Size)>> {
    let mut strides = Vec::new();
    if !strip(prog, idx, g0, &mut strides) || strides.len() + 1 != shape.len() {
        return None;
    }
    strides.reverse();
    Some(
        strides
            .into_iter()
            .zip(&shape[1..])
            .filter(|(m, d)| m != *d)
            .map(|(m, d)| (m, d.clone()))
            .collect(),
    )
}

/// Peels the innermost dimension off `e` (see [`row_strides`]), pushing strides innermost
/// first.
fn strip(prog: &KernelProgram, e: &Exp, g0: &str, strides: &mut Vec<Size>) -> bool {
    let mentions = |x: &Exp| {
        let mut hit = false;
        x.for_each_var(&mut |v| hit |= v == g0);
        hit
    };
    let size = |x: &Exp| match x {
        Exp::Const(PrimValue::I64(c)) if *c >= 0 => Some(Size::Const(*c)),
        Exp::Var(v) if prog.sizes.contains(v) => Some(Size::Param(v.clone())),
        _ => None,
    };
    match e {
        Exp::Var(v) => v == g0,
        Exp::Bin(crate::BinOp::Add, a, b) => {
            let (outer, inner) = if mentions(b) { (b, a) } else { (a, b) };
            !mentions(inner)
                && match &**outer {
                    Exp::Bin(crate::BinOp::Mul, x, m) | Exp::Bin(crate::BinOp::Mul, m, x)
                        if size(m).is_some() && mentions(x) =>
                    {
                        strides.push(size(m).unwrap_or(Size::Const(0)));
                        strip(prog, x, g0, strides)
                    }
                    _ => false,
                }
        }
        Exp::Bin(crate::BinOp::Mul, x, m) | Exp::Bin(crate::BinOp::Mul, m, x)
            if size(m).is_some() && mentions(x) =>
        {
            strides.push(size(m).unwrap_or(Size::Const(0)));
            strip(prog, x, g0, strides)
        }
        _ => false,
    }
}

fn rewrite_stm(s: &mut Stm, aligned: &Aligned, local: &Exp) {
    let ex = |e: &mut Exp| rewrite_exp(e, aligned, local);
    match s {
        Stm::Let { exp, .. } | Stm::Assign { exp, .. } => ex(exp),
        Stm::Mut { init, .. } => ex(init),
        Stm::For { bound, body, .. } => {
            ex(bound);
            body.iter_mut().for_each(|s| rewrite_stm(s, aligned, local));
        }
        Stm::If {
            cond,
            then_branch,
            else_branch,
        } => {
            ex(cond);
            then_branch
                .iter_mut()
                .chain(else_branch.iter_mut())
                .for_each(|s| rewrite_stm(s, aligned, local));
        }
        Stm::Write { index, value, .. } => {
            ex(index);
            ex(value);
        }
        Stm::Check(c) => {
            ex(&mut c.cond);
            c.args.iter_mut().for_each(ex);
        }
    }
}

/// Reads of aligned arrays become reads in the piece's rows: at the local flat index, or at
/// the global index less the elements of the rows before the piece.
fn rewrite_exp(e: &mut Exp, aligned: &Aligned, local: &Exp) {
    match e {
        Exp::Const(_) | Exp::Var(_) => {}
        Exp::Bin(_, a, b) | Exp::Cmp(_, a, b) => {
            rewrite_exp(a, aligned, local);
            rewrite_exp(b, aligned, local);
        }
        Exp::Un(_, a) | Exp::Conv(_, a) => rewrite_exp(a, aligned, local),
        Exp::Math(_, args) => args.iter_mut().for_each(|a| rewrite_exp(a, aligned, local)),
        Exp::Select(c, t, f) => {
            rewrite_exp(c, aligned, local);
            rewrite_exp(t, aligned, local);
            rewrite_exp(f, aligned, local);
        }
        Exp::Read(a, idx) => {
            if aligned.flat.contains(a) {
                // Read only at the flat index (checked), which in a 1-D space may be spelled
                // as the dimension's index.
                **idx = local.clone();
            } else if let Some((_, row_len)) = aligned.rows.iter().find(|(n, _)| n == a) {
                rewrite_exp(idx, aligned, local);
                let global = std::mem::replace(&mut **idx, Exp::i64(0));
                let before = Exp::var(OFFSET).times(row_len.clone());
                **idx = Exp::Bin(crate::BinOp::Sub, Box::new(global), Box::new(before));
            } else {
                rewrite_exp(idx, aligned, local);
            }
        }
    }
}

/// The operator applied to constants `left` and the results of `right`: the body of the
/// carry-in map of a split scan and of the combines (`op(left, right)`).
pub fn apply_op(op: &Lambda, left: Vec<Exp>, right: Vec<Exp>) -> Body {
    let mut stms: Vec<Stm> = op
        .params
        .iter()
        .zip(left.into_iter().chain(right))
        .map(|((n, t), e)| Stm::let_(n, *t, e))
        .collect();
    stms.extend(op.body.stms.iter().cloned());
    Body::new(stms, op.body.results.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exp::Exp;
    use crate::kernel::{ArrayDecl, SegMap, SegRed};
    use crate::types::PrimType;
    use crate::{BinOp, check_program};

    fn arr(name: &str, shape: &[&str]) -> ArrayDecl {
        ArrayDecl {
            name: name.into(),
            elem: PrimType::F32,
            shape: shape.iter().map(|s| Size::param(s)).collect(),
        }
    }

    fn map_2d() -> KernelProgram {
        KernelProgram {
            intra: None,
            sizes: vec!["n".into(), "m".into()],
            arrays: vec![
                arr("xs", &["n", "m"]),
                arr("ys", &["m"]),
                arr("out", &["n", "m"]),
            ],
            kernels: vec![Kernel {
                name: "k".into(),
                op: SegOp::Map(SegMap {
                    space: SegSpace {
                        flat: "f".into(),
                        dims: vec![
                            ("i".into(), Size::param("n")),
                            ("j".into(), Size::param("m")),
                        ],
                    },
                    body: Body::results(vec![
                        Exp::read("xs", Exp::var("f")).plus(Exp::read("ys", Exp::var("j"))),
                    ]),
                    outputs: vec!["out".into()],
                }),
            }],
        }
    }

    #[test]
    fn map_splits_rows_and_keeps_unaligned_inputs_whole() {
        let h = husk(&map_2d()).unwrap();
        assert_eq!(h.combine, Combine::Rows);
        assert_eq!(h.aligned, vec!["xs".to_string()]);
        assert_eq!(h.split, Size::param("n"));
        check_program(&h.piece).unwrap();
        let shape = |n: &str| h.piece.array(n).unwrap().shape.clone();
        assert_eq!(shape("xs"), vec![Size::param(ROWS), Size::param("m")]);
        assert_eq!(shape("ys"), vec![Size::param("m")]);
        assert_eq!(shape("out"), vec![Size::param(ROWS), Size::param("m")]);
        let text = h.piece.to_string();
        assert!(text.contains("xs[f_local]"), "{text}");
        assert!(text.contains("ys[j]"), "{text}");
    }

    /// An input read at the point's own index whose size the program names otherwise than
    /// the space (`ys: [k]` in a space over `n`) is aligned, on condition that `k == n`.
    #[test]
    fn flat_reads_of_a_differently_named_size_are_aligned_if_equal() {
        let prog = KernelProgram {
            intra: None,
            sizes: vec!["n".into(), "k".into()],
            arrays: vec![
                arr("xs", &["n"]),
                arr("ys", &["k"]),
                ArrayDecl {
                    name: "s".into(),
                    elem: PrimType::F32,
                    shape: vec![],
                },
            ],
            kernels: vec![Kernel {
                name: "dot".into(),
                op: SegOp::Red(SegRed {
                    space: SegSpace::flat("i", Size::param("n")),
                    body: Body::results(vec![
                        Exp::read("xs", Exp::var("i")).plus(Exp::read("ys", Exp::var("i"))),
                    ]),
                    op: Lambda::binop(BinOp::Add, PrimType::F32),
                    neutral: vec![PrimValue::F32(0.0)],
                    commutative: true,
                    outputs: vec!["s".into()],
                }),
            }],
        };
        let h = husk(&prog).unwrap();
        assert_eq!(h.aligned, vec!["xs".to_string(), "ys".to_string()]);
        assert_eq!(h.equal, vec![(Size::param("k"), Size::param("n"))]);
        check_program(&h.piece).unwrap();
        let text = h.piece.to_string();
        assert!(text.contains("ys[i_local]"), "{text}");
        assert!(h.holds(|_| 7));
        assert!(!h.holds(|s| if *s == Size::param("k") { 6 } else { 7 }));
    }

    #[test]
    fn flat_reduction_combines_partials() {
        let prog = KernelProgram {
            intra: None,
            sizes: vec!["n".into()],
            arrays: vec![
                arr("xs", &["n"]),
                ArrayDecl {
                    name: "s".into(),
                    elem: PrimType::F32,
                    shape: vec![],
                },
            ],
            kernels: vec![Kernel {
                name: "sum".into(),
                op: SegOp::Red(SegRed {
                    space: SegSpace::flat("i", Size::param("n")),
                    body: Body::results(vec![Exp::read("xs", Exp::var("i"))]),
                    op: Lambda::binop(BinOp::Sub, PrimType::F32),
                    neutral: vec![PrimValue::F32(0.0)],
                    commutative: false,
                    outputs: vec!["s".into()],
                }),
            }],
        };
        let h = husk(&prog).unwrap();
        assert!(matches!(h.combine, Combine::Reduce { .. }));
        assert_eq!(h.aligned, vec!["xs".to_string()]);
        check_program(&h.piece).unwrap();
        assert!(h.piece.array("s").unwrap().shape.is_empty());
    }

    /// A 2-D map reading `[n][k][3]` at `((i·m + j)·3 + 1)` (row-local, with the stride
    /// spelled `m` where the array says `k`), and `[n][m]` at `(j·n + i)` (not row-local).
    fn row_reads() -> KernelProgram {
        let mut p = map_2d();
        p.sizes.push("k".into());
        p.arrays.push(ArrayDecl {
            name: "cs".into(),
            elem: PrimType::F32,
            shape: vec![Size::param("n"), Size::param("k"), Size::Const(3)],
        });
        p.arrays.push(arr("ts", &["n", "m"]));
        let SegOp::Map(m) = &mut p.kernels[0].op else {
            unreachable!()
        };
        let row = Exp::var("i")
            .times(Exp::var("m"))
            .plus(Exp::var("j"))
            .times(Exp::i64(3))
            .plus(Exp::i64(1));
        let across = Exp::var("j").times(Exp::var("n")).plus(Exp::var("i"));
        m.body = Body::results(vec![
            Exp::read("cs", row)
                .plus(Exp::read("ts", across))
                .plus(Exp::read("xs", Exp::var("f"))),
        ]);
        p
    }

    #[test]
    fn row_local_reads_are_aligned_and_shifted() {
        let h = husk(&row_reads()).unwrap();
        assert_eq!(h.aligned, vec!["xs".to_string(), "cs".to_string()]);
        assert_eq!(h.equal, vec![(Size::param("m"), Size::param("k"))]);
        check_program(&h.piece).unwrap();
        let cs = h.piece.array("cs").unwrap().shape.clone();
        assert_eq!(
            cs,
            vec![Size::param(ROWS), Size::param("k"), Size::Const(3)]
        );
        // `ts` is read across rows: whole on every device, at its global index.
        assert_eq!(h.piece.array("ts").unwrap().shape[0], Size::param("n"));
        let text = h.piece.to_string();
        assert!(text.contains("husk_offset * ((1i64 * k) * 3i64)"), "{text}");
        let sizes = ["n", "m", "k"];
        let value = |v: [i64; 3]| {
            move |s: &Size| match s {
                Size::Const(c) => *c,
                Size::Param(p) => v[sizes.iter().position(|n| n == p).unwrap()],
            }
        };
        assert!(h.holds(value([4, 5, 5])));
        assert!(!h.holds(value([4, 5, 6])));
    }

    #[test]
    fn reads_of_other_rows_or_rows_of_other_extents_are_not_aligned() {
        let mut p = row_reads();
        // The same index into an array whose first dimension is not the split one.
        p.arrays.iter_mut().find(|a| a.name == "cs").unwrap().shape[0] = Size::param("k");
        assert_eq!(husk(&p).unwrap().aligned, vec!["xs".to_string()]);
        // The outermost index is not the point's row.
        let mut p = row_reads();
        let SegOp::Map(m) = &mut p.kernels[0].op else {
            unreachable!()
        };
        let shifted = Exp::var("i")
            .plus(Exp::i64(1))
            .times(Exp::var("m"))
            .plus(Exp::var("j"))
            .times(Exp::i64(3));
        m.body = Body::results(vec![Exp::read("cs", shifted)]);
        let h = husk(&p).unwrap();
        assert!(h.aligned.is_empty() && h.equal.is_empty());
    }

    #[test]
    fn scatter_and_multi_kernel_programs_stay_whole() {
        let mut two = map_2d();
        let k = two.kernels[0].clone();
        two.kernels.push(Kernel {
            name: "k2".into(),
            ..k
        });
        assert!(husk(&two).is_err());
    }
}
