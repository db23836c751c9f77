//! Row-locality of reads, and the rules of an intra-block program ([`crate::Intra`]).
//!
//! A space `(g0 < S0, …, gk < Sk, j < M)` has rows `(g0, …, gk)`; the point's row starts at
//! the flat index `row_base = ((g0 * S1 + g1) * … + gk) * M` of an array of the space's
//! shape. Kernel extraction writes a read of an element of the point's own row as
//! `a[row_base + e]` (or `a[flat]`, which is `row_base + j`): such a read stays in the row
//! whatever `e` is, as long as `e` is a valid inner index, which the read's bounds check (or
//! the program's `#[unsafe]` promise) says it is.

use crate::exp::{BinOp, Body, Exp, Name};
use crate::kernel::{KernelProgram, SegOp, SegSpace, Size};

/// The flat index of the first element of the point's row (spaces of two or more
/// dimensions).
pub fn row_base(space: &SegSpace) -> Option<Exp> {
    let inner = space.dims.last()?;
    Some(row_index(space)?.times(inner.1.to_exp()))
}

/// The flat index of the point's row itself (`(g0 * S1 + g1) * … + gk`): where a reduction
/// over the row (a `segred` stage) leaves its result in an array of the rows' shape.
pub fn row_index(space: &SegSpace) -> Option<Exp> {
    SegSpace::index_of(space.outer())
}

/// The offset in the point's row of a read at `idx`, when `idx` is `row_base + e` or the
/// flat index.
pub fn row_offset(space: &SegSpace, idx: &Exp) -> Option<Exp> {
    let (inner, _) = space.dims.last()?;
    if space.dims.len() < 2 {
        return None;
    }
    if *idx == Exp::Var(space.flat.clone()) {
        return Some(Exp::Var(inner.clone()));
    }
    let Exp::Bin(BinOp::Add, base, e) = idx else {
        return None;
    };
    (**base == row_base(space)?).then(|| (**e).clone())
}

/// The arrays a body reads, with the index of each read.
fn reads(body: &Body) -> Vec<(Name, Exp)> {
    let mut out = Vec::new();
    body.walk(
        &mut |e| {
            e.for_each_read(&mut |a, i| out.push((a.clone(), i.clone())));
        },
        &mut |_| {},
    );
    out
}

/// Whether the body writes any array itself (scratch arrays of map threads).
fn writes(body: &Body) -> bool {
    let mut any = false;
    body.walk(&mut |_| {}, &mut |_| any = true);
    any
}

/// Why `prog`'s kernels cannot run as one intra-block kernel, or `Ok` when they can: the
/// rules of [`crate::Intra`] (its `locals` aside).
pub fn intra_violation(prog: &KernelProgram) -> Result<(), String> {
    let Some(first) = prog.kernels.first() else {
        return Err("no kernels".into());
    };
    let sizes: Vec<&Size> = first.op.space().dims.iter().map(|d| &d.1).collect();
    if sizes.len() < 2 {
        return Err(format!("kernel `{}` has no rows", first.name));
    }
    let outputs: Vec<&Name> = prog
        .kernels
        .iter()
        .flat_map(|k| k.op.result_arrays())
        .collect();
    let mut written: Vec<&Name> = Vec::new();
    // Results of reductions over the row: one element per row, read at the row's index.
    let mut per_row: Vec<&Name> = Vec::new();
    for k in &prog.kernels {
        let space = k.op.space();
        if !space.dims.iter().map(|d| &d.1).eq(sizes.iter().copied()) {
            return Err(format!("kernel `{}` has another space", k.name));
        }
        if !matches!(k.op, SegOp::Map(_) | SegOp::Scan(_) | SegOp::Red(_)) {
            return Err(format!("kernel `{}` is a {}", k.name, k.op.kind_name()));
        }
        if writes(k.op.body()) {
            return Err(format!("kernel `{}` writes arrays in its body", k.name));
        }
        for (a, idx) in reads(k.op.body()) {
            if per_row.contains(&&a) {
                if row_index(space).is_none_or(|r| r != idx) {
                    return Err(format!(
                        "kernel `{}` reads `{a}` outside the point's row",
                        k.name
                    ));
                }
            } else if written.contains(&&a) {
                if row_offset(space, &idx).is_none() {
                    return Err(format!(
                        "kernel `{}` reads `{a}` outside the point's row",
                        k.name
                    ));
                }
            } else if outputs.contains(&&a) {
                // Written by this kernel or a later one: read before it is written.
                return Err(format!(
                    "kernel `{}` reads `{a}` before it is written",
                    k.name
                ));
            }
        }
        let is_red = matches!(k.op, SegOp::Red(_));
        // A reduction's results have the rows' shape, the others' the whole space's.
        let shape: &[&Size] = if is_red {
            &sizes[..sizes.len() - 1]
        } else {
            &sizes
        };
        for out in k.op.result_arrays() {
            let shape_ok = prog
                .array(out)
                .is_some_and(|d| d.shape.iter().eq(shape.iter().copied()));
            if !shape_ok {
                return Err(format!("`{out}` does not have the space's shape"));
            }
            if written.contains(&out) {
                return Err(format!("`{out}` is written twice"));
            }
            written.push(out);
            if is_red {
                per_row.push(out);
            }
        }
    }
    if let Some(intra) = &prog.intra
        && let Some(l) = intra.locals.iter().find(|l| !written.contains(l))
    {
        return Err(format!("local array `{l}` is not written by a kernel"));
    }
    Ok(())
}
