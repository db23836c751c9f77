//! Loop promotion: a map kernel whose threads each run the same independent loops over an
//! inner extent becomes a map with that extent as one more dimension of its space.
//!
//! Kernel extraction turns a map whose body returns arrays it cannot flatten into a segmap
//! whose threads loop over the inner extent `B`, writing their output rows (and scratch rows)
//! one element per iteration. When every loop runs `for j < B` with no state carried between
//! iterations and each written array is written at `base + j` (one write per array, `base`
//! fixed per thread), the iterations are independent: point `(…, j)` of a space with `B` as
//! its innermost dimension can run iteration `j` of every loop, in the loops' order. A value
//! a later loop reads back from scratch at the same `base + j` was written by the same point
//! earlier, so it is seen. The space grows by the factor `B`: a kernel of a few thousand
//! serial threads (LocVolCalib's `map_5934`: 65536 threads × 256 steps, a quarter of one
//! H100 wave) fills the device, its output rows are written by neighbouring threads, and
//! pieces split over GPUs get faster instead of keeping each thread's serial loop.
//!
//! Loops of different bounds (`for j < B1`, `for k < B2`, both size parameters) promote too:
//! the new dimension's extent is a size parameter added to the program, which its launches
//! pass as the largest of the bounds (see [`promote_loops`]), and each loop becomes `if j < B`.
//! A later loop may read back only what a loop of the same bound wrote.
//!
//! The `promote-loops` pass, on unless `CompileOptions::promote_loops` is off
//! (`FUTHARK_PROMOTE_LOOPS=0`). On an H200 it took LocVolCalib large from 287.5 to
//! 189.4 ms (`bench/results/multi-gpu-4gpu.md`, runs 6–7).

use std::collections::HashSet;

use futhark_ir::{
    BinOp, CmpOp, Exp, Kernel, KernelProgram, Name, PrimType, SegMap, SegOp, SegSpace, Size, Stm,
};

/// Promotes the loops of every kernel of `prog` that qualifies; the others are unchanged.
///
/// Returns one entry per size parameter the promotion appended to `prog.sizes`: the
/// positions (in `prog.sizes`) of the size parameters whose largest value each launch must
/// pass for it. Empty when no kernel needed one (or nothing changed).
#[must_use = "launches of the program must pass the sizes it gained"]
pub fn promote_loops(prog: &mut KernelProgram) -> Vec<Vec<usize>> {
    let mut out = prog.clone();
    let mut added = Vec::new();
    let mut changed = false;
    for i in 0..out.kernels.len() {
        let Some((op, extent)) = promoted(prog, &out.kernels[i]) else {
            continue;
        };
        if let Some((name, bounds)) = extent {
            let taken = out.sizes.contains(&name)
                || out.arrays.iter().any(|a| a.name == name)
                || out.kernels.iter().any(|k| k.name == name);
            if taken {
                continue;
            }
            let idx: Option<Vec<usize>> = bounds
                .iter()
                .map(|b| prog.sizes.iter().position(|s| s == b))
                .collect();
            let Some(idx) = idx else { continue };
            out.sizes.push(name);
            added.push(idx);
        }
        out.kernels[i].op = op;
        changed = true;
    }
    // Only a program that still checks replaces the original.
    if changed && futhark_ir::check_program(&out).is_ok() {
        *prog = out;
        added
    } else {
        Vec::new()
    }
}

/// The promoted operation, and for loops of different bounds the name of the extent size
/// parameter to add with the bounds it is the largest of.
type Promoted = (SegOp, Option<(Name, Vec<Name>)>);

fn promoted(prog: &KernelProgram, k: &Kernel) -> Option<Promoted> {
    let SegOp::Map(m) = &k.op else { return None };
    if !m.outputs.is_empty() || !m.body.results.is_empty() {
        return None;
    }
    let first_loop = m
        .body
        .stms
        .iter()
        .position(|s| matches!(s, Stm::For { .. }))?;
    let (prefix, loops) = m.body.stms.split_at(first_loop);
    if !prefix
        .iter()
        .all(|s| matches!(s, Stm::Let { .. } | Stm::Check(_)))
    {
        return None;
    }
    // Every loop `for var < B` with `B` a size parameter.
    let mut vars = Vec::new();
    let mut bodies = Vec::new();
    let mut bounds: Vec<Name> = Vec::new();
    for s in loops {
        let Stm::For {
            var,
            bound: Exp::Var(b),
            body,
        } = s
        else {
            return None;
        };
        if !prog.sizes.contains(b) {
            return None;
        }
        vars.push(var.clone());
        bodies.push(body);
        bounds.push(b.clone());
    }
    let mut distinct: Vec<Name> = Vec::new();
    for b in &bounds {
        if !distinct.contains(b) {
            distinct.push(b.clone());
        }
    }
    let uniform = distinct.len() == 1;
    // Each written array: written once, at `base + var` with `base` fixed per thread.
    let mut writes: Vec<(String, Exp, usize)> = Vec::new();
    for (i, body) in bodies.iter().enumerate() {
        if !loop_body_ok(body, &vars[i], i, &mut writes) {
            return None;
        }
    }
    // A base fixed per thread: built from names bound outside the loops only.
    let mut inner: HashSet<String> = HashSet::new();
    for (v, body) in vars.iter().zip(&bodies) {
        inner.insert(v.clone());
        body.iter().for_each(|s| {
            binders(s, &mut |n| {
                inner.insert(n.clone());
            })
        });
    }
    for (_, base, _) in &writes {
        let mut local = false;
        base.for_each_var(&mut |v| local |= inner.contains(v));
        if local {
            return None;
        }
    }
    let written: HashSet<&str> = writes.iter().map(|(a, _, _)| a.as_str()).collect();
    // Reads of written arrays: only a later loop reading back the same element.
    for (i, body) in bodies.iter().enumerate() {
        let mut ok = true;
        for s in body.iter() {
            s.walk(
                &mut |e| {
                    e.for_each_read(&mut |a, idx| {
                        if !written.contains(a.as_str()) {
                            return;
                        }
                        ok &= writes.iter().any(|(w, base, at)| {
                            w == a
                                && *at < i
                                && bounds[*at] == bounds[i]
                                && same_offset(idx, base, &vars[i])
                        });
                    })
                },
                &mut |_| {},
            );
        }
        if !ok {
            return None;
        }
    }
    // The prefix must not read what the loops write (it runs before them per point anyway,
    // but a read of another thread's row would now race with its writes).
    let mut prefix_reads_written = false;
    for s in prefix {
        s.walk(
            &mut |e| {
                e.for_each_read(&mut |a, _| prefix_reads_written |= written.contains(a.as_str()))
            },
            &mut |_| {},
        );
    }
    if prefix_reads_written {
        return None;
    }
    // Every name bound in the new body once (loop bodies become one scope).
    let mut bound_names: HashSet<String> = m.space.dims.iter().map(|(n, _)| n.clone()).collect();
    bound_names.insert(m.space.flat.clone());
    let mut unique = true;
    let mut bind = |n: &String| unique &= bound_names.insert(n.clone());
    for s in prefix {
        binders(s, &mut bind);
    }
    for (v, body) in vars.iter().zip(&bodies) {
        bind(v);
        body.iter().for_each(|s| binders(s, &mut bind));
    }
    if !unique {
        return None;
    }
    let j = format!("{}_promoted", vars[0]);
    let flat = format!("{}_promoted", m.space.flat);
    let extent_name = format!("{j}_extent");
    if bound_names.contains(&j) || bound_names.contains(&flat) || bound_names.contains(&extent_name)
    {
        return None;
    }
    let mut stms = Vec::new();
    if m.space.dims.len() > 1 || m.space.dims[0].0 != m.space.flat {
        // The old flat index, which scratch rows are addressed by.
        let old_flat = SegSpace::index_of(&m.space.dims).unwrap_or(Exp::i64(0));
        stms.push(Stm::let_(&m.space.flat, PrimType::I64, old_flat));
    }
    stms.extend(prefix.iter().cloned());
    for ((v, body), b) in vars.iter().zip(&bodies).zip(&bounds) {
        let mut each = vec![Stm::let_(v, PrimType::I64, Exp::var(&j))];
        each.extend(body.iter().cloned());
        if uniform {
            stms.extend(each);
        } else {
            // The extent is the largest bound: points beyond this loop's bound skip it.
            stms.push(Stm::If {
                cond: Exp::cmp(CmpOp::Lt, Exp::var(&j), Exp::var(b)),
                then_branch: each,
                else_branch: Vec::new(),
            });
        }
    }
    let (extent, added) = if uniform {
        (Size::Param(distinct[0].clone()), None)
    } else {
        (
            Size::Param(extent_name.clone()),
            Some((extent_name, distinct)),
        )
    };
    let mut dims = m.space.dims.clone();
    dims.push((j, extent));
    let op = SegOp::Map(SegMap {
        space: SegSpace { flat, dims },
        body: futhark_ir::Body::new(stms, Vec::new()),
        outputs: Vec::new(),
    });
    Some((op, added))
}

/// Checks one loop body: no nested loop, assignments only to variables it declares, and
/// each array written once in the whole kernel at `base + var`.
fn loop_body_ok(
    body: &[Stm],
    var: &str,
    loop_index: usize,
    writes: &mut Vec<(String, Exp, usize)>,
) -> bool {
    let mut muts: HashSet<String> = HashSet::new();
    stms_ok(body, var, loop_index, &mut muts, writes)
}

fn stms_ok(
    stms: &[Stm],
    var: &str,
    loop_index: usize,
    muts: &mut HashSet<String>,
    writes: &mut Vec<(String, Exp, usize)>,
) -> bool {
    for s in stms {
        let ok = match s {
            Stm::Let { .. } | Stm::Check(_) => true,
            Stm::Mut { name, .. } => {
                muts.insert(name.clone());
                true
            }
            Stm::Assign { name, .. } => muts.contains(name),
            Stm::For { .. } => false,
            Stm::If {
                then_branch,
                else_branch,
                ..
            } => {
                stms_ok(then_branch, var, loop_index, muts, writes)
                    && stms_ok(else_branch, var, loop_index, muts, writes)
            }
            Stm::Write { array, index, .. } => {
                let Some(base) = base_of(index, var) else {
                    return false;
                };
                if writes.iter().any(|(a, _, _)| a == array) {
                    return false;
                }
                writes.push((array.clone(), base, loop_index));
                true
            }
        };
        if !ok {
            return false;
        }
    }
    true
}

/// `base` when `index` is `base + var` and `base` does not mention `var`.
fn base_of(index: &Exp, var: &str) -> Option<Exp> {
    let Exp::Bin(BinOp::Add, a, b) = index else {
        return None;
    };
    let mentions = |e: &Exp| {
        let mut hit = false;
        e.for_each_var(&mut |v| hit |= v == var);
        hit
    };
    match (&**a, &**b) {
        (base, Exp::Var(v)) if v == var && !mentions(base) => Some(base.clone()),
        (Exp::Var(v), base) if v == var && !mentions(base) => Some(base.clone()),
        _ => None,
    }
}

/// Whether `idx` is `base + var` (the element a point wrote with its own `j`).
fn same_offset(idx: &Exp, base: &Exp, var: &str) -> bool {
    base_of(idx, var).is_some_and(|b| b == *base)
}

/// Calls `f` on every name `s` binds (nested statements included).
pub(super) fn binders(s: &Stm, f: &mut dyn FnMut(&String)) {
    match s {
        Stm::Let { name, .. } | Stm::Mut { name, .. } => f(name),
        Stm::Assign { .. } | Stm::Write { .. } | Stm::Check(_) => {}
        Stm::For { var, body, .. } => {
            f(var);
            body.iter().for_each(|s| binders(s, f));
        }
        Stm::If {
            then_branch,
            else_branch,
            ..
        } => then_branch
            .iter()
            .chain(else_branch)
            .for_each(|s| binders(s, f)),
    }
}
