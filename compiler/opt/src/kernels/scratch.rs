//! `forward-scratch`: writes a thread reads back itself, and arrays nothing reads.
//!
//! A map whose lambda returns several arrays runs sequentially per thread (`body.rs`):
//! each thread writes its elements to scratch rows, then copies the rows to the outputs.
//! Loop promotion ([`super::promote`]) turns the loops into one point per element, and
//! the copy loop then reads back, at the same element, what the same point just wrote.
//! This pass cleans that up in three steps:
//!
//! 1. **Forwarding** (each `segmap`): a read of an element the point itself wrote earlier in
//!    its body, unconditionally and as the array's only write in the body, becomes the
//!    value written (bound to a fresh name where it was written).
//! 2. **Dead arrays** (each launch of a program launched once): an array the launch
//!    creates that no kernel of the program reads, that is no operation's result, and that
//!    no later host statement uses loses its writes, its declaration and its launch argument.
//! 3. **Outputs** (each `segmap`): an array written once, unconditionally, at the point's
//!    flat index, with the space's shape and not read by the kernel, becomes an output of
//!    the map (a result of its body) instead of a write.
//!
//! The program that comes out has plain element-wise maps where it had scratch round
//! trips: less memory traffic, and maps that `fuse-intra` may join to a run (a body that
//! writes arrays itself may not). A program changes only if it still checks.

use std::collections::{BTreeSet, HashMap, HashSet};

use futhark_ir::soacs::traverse::free_in_body;
use futhark_ir::soacs::{Body as HostBody, Exp as HostExp, KernelArg, Program};
use futhark_ir::{Exp, Kernel, KernelProgram, Name, SegOp, SegSpace, Stm};

/// The `forward-scratch` pass.
pub fn forward_scratch(mut prog: Program) -> Program {
    let mut launched: HashMap<Name, usize> = HashMap::new();
    for f in &prog.funs {
        crate::simplify::launches(&f.body, &mut launched);
    }
    let mut programs: HashMap<Name, KernelProgram> = HashMap::new();
    for k in &prog.kernels {
        let mut p = k.program.clone();
        for i in 0..p.kernels.len() {
            let op = forward_kernel(&p, &p.kernels[i]);
            p.kernels[i].op = op;
        }
        if p != k.program && futhark_ir::check_program(&p).is_ok() {
            programs.insert(k.name.clone(), p);
        }
    }
    for f in &mut prog.funs {
        drop_dead(&mut f.body, &prog.kernels, &launched, &mut programs);
    }
    for k in &mut prog.kernels {
        let mut p = programs
            .remove(&k.name)
            .unwrap_or_else(|| k.program.clone());
        for i in 0..p.kernels.len() {
            let op = writes_to_outputs(&p, &p.kernels[i]);
            p.kernels[i].op = op;
        }
        if futhark_ir::check_program(&p).is_ok() {
            k.program = p;
        }
    }
    prog
}

/// How often each array is written anywhere in `stms` (nested statements included).
fn write_counts(stms: &[Stm], out: &mut HashMap<Name, usize>) {
    for s in stms {
        s.walk(&mut |_| {}, &mut |a| {
            *out.entry(a.clone()).or_default() += 1
        });
    }
}

/// Index expressions with the body's top-level `let`s of read-free expressions expanded,
/// so that two spellings of one element compare equal.
#[derive(Default)]
struct Expander {
    defs: Vec<(Name, Exp)>,
}

impl Expander {
    fn note(&mut self, s: &Stm) {
        if let Stm::Let { name, exp, .. } = s {
            let mut reads = false;
            exp.for_each_read(&mut |_, _| reads = true);
            if !reads {
                let e = self.expand(exp);
                self.defs.push((name.clone(), e));
            }
        }
    }

    fn expand(&self, e: &Exp) -> Exp {
        futhark_ir::exp::substitute(e, &self.defs)
    }
}

/// Replaces `x` by the name holding the value, when it reads an element a forwarded write
/// (`known`: array, expanded index, name) wrote.
fn forward_read(x: &mut Exp, ex: &Expander, known: &[(Name, Exp, Name)]) -> bool {
    let Exp::Read(a, idx) = x else { return false };
    let at = ex.expand(idx);
    match known.iter().find(|(ka, ki, _)| ka == a && *ki == at) {
        Some((_, _, v)) => {
            *x = Exp::Var(v.clone());
            true
        }
        None => false,
    }
}

/// Rewrites `e` top-down: `f` may replace a node (returning true), whose children are then
/// left alone.
fn rewrite(e: &mut Exp, f: &mut dyn FnMut(&mut Exp) -> bool) {
    if f(e) {
        return;
    }
    match e {
        Exp::Const(_) | Exp::Var(_) => {}
        Exp::Bin(_, a, b) | Exp::Cmp(_, a, b) => {
            rewrite(a, f);
            rewrite(b, f);
        }
        Exp::Un(_, a) | Exp::Conv(_, a) | Exp::Read(_, a) => rewrite(a, f),
        Exp::Math(_, args) => args.iter_mut().for_each(|a| rewrite(a, f)),
        Exp::Select(c, t, x) => {
            rewrite(c, f);
            rewrite(t, f);
            rewrite(x, f);
        }
    }
}

/// Applies `f` to every expression of `stms` (nested statements included).
fn rewrite_stms(stms: &mut [Stm], f: &mut dyn FnMut(&mut Exp)) {
    for s in stms {
        match s {
            Stm::Let { exp, .. } | Stm::Assign { exp, .. } => f(exp),
            Stm::Mut { init, .. } => f(init),
            Stm::For { bound, body, .. } => {
                f(bound);
                rewrite_stms(body, f);
            }
            Stm::If {
                cond,
                then_branch,
                else_branch,
            } => {
                f(cond);
                rewrite_stms(then_branch, f);
                rewrite_stms(else_branch, f);
            }
            Stm::Write { index, value, .. } => {
                f(index);
                f(value);
            }
            Stm::Check(c) => {
                f(&mut c.cond);
                c.args.iter_mut().for_each(&mut *f);
            }
        }
    }
}

/// Step 1 on one kernel: the op with reads of the point's own earlier writes forwarded.
fn forward_kernel(prog: &KernelProgram, k: &Kernel) -> SegOp {
    let SegOp::Map(m) = &k.op else {
        return k.op.clone();
    };
    let mut counts = HashMap::new();
    write_counts(&m.body.stms, &mut counts);
    let mut taken = HashSet::new();
    for s in &m.body.stms {
        super::promote::binders(s, &mut |n| {
            taken.insert(n.clone());
        });
    }
    let mut ex = Expander::default();
    // (array, expanded index) of each forwarded write, and the name holding its value.
    let mut known: Vec<(Name, Exp, Name)> = Vec::new();
    let mut stms = Vec::with_capacity(m.body.stms.len());
    for mut s in m.body.stms.clone() {
        rewrite_stms(std::slice::from_mut(&mut s), &mut |e| {
            rewrite(e, &mut |x| forward_read(x, &ex, &known))
        });
        if let Stm::Write {
            array,
            index,
            value,
        } = &s
            && counts.get(array) == Some(&1)
            && let Some(decl) = prog.array(array)
        {
            let mut name = format!("{array}_fwd");
            while taken.contains(&name) {
                name.push('_');
            }
            taken.insert(name.clone());
            known.push((array.clone(), ex.expand(index), name.clone()));
            stms.push(Stm::let_(&name, decl.elem, value.clone()));
            stms.push(Stm::Write {
                array: array.clone(),
                index: index.clone(),
                value: Exp::Var(name),
            });
            continue;
        }
        ex.note(&s);
        stms.push(s);
    }
    let mut results = m.body.results.clone();
    for r in &mut results {
        rewrite(r, &mut |x| forward_read(x, &ex, &known));
    }
    let mut out = m.clone();
    out.body = futhark_ir::Body::new(stms, results);
    SegOp::Map(out)
}

/// Arrays some kernel of `p` reads.
fn read_arrays(p: &KernelProgram) -> HashSet<Name> {
    let mut out = HashSet::new();
    for k in &p.kernels {
        let mut note = |e: &Exp| {
            e.for_each_read(&mut |a, _| {
                out.insert(a.clone());
            })
        };
        k.op.body().walk(&mut note, &mut |_| {});
        if let Some(op) = k.op.op() {
            op.body.walk(&mut note, &mut |_| {});
        }
    }
    out
}

/// Step 2 over host code: launches of programs launched once drop the arrays nothing reads.
fn drop_dead(
    body: &mut HostBody,
    defs: &[futhark_ir::soacs::KernelDef],
    launched: &HashMap<Name, usize>,
    programs: &mut HashMap<Name, KernelProgram>,
) {
    for s in &mut body.stms {
        crate::util::inner_bodies_mut(&mut s.exp, &mut |b| drop_dead(b, defs, launched, programs));
    }
    for i in 0..body.stms.len() {
        let HostExp::Launch(l) = &body.stms[i].exp else {
            continue;
        };
        if launched.get(&l.kernel) != Some(&1) || !body.stms[i].pat.ctx.is_empty() {
            continue;
        }
        let Some(def) = defs.iter().find(|d| d.name == l.kernel) else {
            continue;
        };
        let p = programs
            .get(&l.kernel)
            .cloned()
            .unwrap_or_else(|| def.program.clone());
        if p.arrays.len() != l.args.len() {
            continue;
        }
        let rest = HostBody::new(body.stms[i + 1..].to_vec(), body.result.clone());
        let live: BTreeSet<Name> = free_in_body(&rest);
        let read = read_arrays(&p);
        let results: HashSet<&Name> = p
            .kernels
            .iter()
            .flat_map(|k| k.op.result_arrays())
            .collect();
        // Each Out argument's pattern element, in order.
        let mut pat_of: Vec<Option<usize>> = Vec::with_capacity(l.args.len());
        let mut next = 0;
        for a in &l.args {
            if matches!(a, KernelArg::Out) {
                pat_of.push(Some(next));
                next += 1;
            } else {
                pat_of.push(None);
            }
        }
        if next != body.stms[i].pat.elems.len() {
            continue;
        }
        let pat = &body.stms[i].pat.elems;
        let dead: Vec<usize> = (0..p.arrays.len())
            .filter(|&j| {
                let name = &p.arrays[j].name;
                pat_of[j].is_some_and(|e| !live.contains(&pat[e].name))
                    && !read.contains(name)
                    && !results.contains(name)
            })
            .collect();
        if dead.is_empty() {
            continue;
        }
        let names: HashSet<Name> = dead.iter().map(|&j| p.arrays[j].name.clone()).collect();
        let mut q = p.clone();
        for k in &mut q.kernels {
            drop_writes(&mut k.op.body_and_op_mut().0.stms, &names);
        }
        q.arrays.retain(|a| !names.contains(&a.name));
        if futhark_ir::check_program(&q).is_err() {
            continue;
        }
        programs.insert(l.kernel.clone(), q);
        let drop_pat: HashSet<usize> = dead.iter().filter_map(|&j| pat_of[j]).collect();
        let stm = &mut body.stms[i];
        let HostExp::Launch(l) = &mut stm.exp else {
            unreachable!("matched above")
        };
        let mut j = 0;
        l.args.retain(|_| {
            j += 1;
            !dead.contains(&(j - 1))
        });
        let mut e = 0;
        stm.pat.elems.retain(|_| {
            e += 1;
            !drop_pat.contains(&(e - 1))
        });
    }
}

fn drop_writes(stms: &mut Vec<Stm>, names: &HashSet<Name>) {
    stms.retain(|s| !matches!(s, Stm::Write { array, .. } if names.contains(array)));
    for s in stms {
        match s {
            Stm::For { body, .. } => drop_writes(body, names),
            Stm::If {
                then_branch,
                else_branch,
                ..
            } => {
                drop_writes(then_branch, names);
                drop_writes(else_branch, names);
            }
            _ => {}
        }
    }
}

/// Step 3 on one kernel: writes at the point's flat index become outputs of the map.
fn writes_to_outputs(prog: &KernelProgram, k: &Kernel) -> SegOp {
    let SegOp::Map(m) = &k.op else {
        return k.op.clone();
    };
    let Some(flat) = SegSpace::index_of(&m.space.dims) else {
        return k.op.clone();
    };
    let mut counts = HashMap::new();
    write_counts(&m.body.stms, &mut counts);
    let mut read_here = HashSet::new();
    m.body.walk(
        &mut |e| {
            e.for_each_read(&mut |a, _| {
                read_here.insert(a.clone());
            })
        },
        &mut |_| {},
    );
    let dims: Vec<_> = m.space.dims.iter().map(|d| &d.1).collect();
    // A value moved to the end of the body must mean the same there: a constant, or a
    // name bound once by a top-level `let` (forwarding binds every such write's value so).
    let lets: HashSet<&Name> = m
        .body
        .stms
        .iter()
        .filter_map(|s| match s {
            Stm::Let { name, .. } => Some(name),
            _ => None,
        })
        .collect();
    let mut ex = Expander::default();
    let flat_e = ex.expand(&flat);
    let mut out = m.clone();
    let mut stms = Vec::with_capacity(m.body.stms.len());
    for s in &m.body.stms {
        if let Stm::Write {
            array,
            index,
            value,
        } = s
            && counts.get(array) == Some(&1)
            && !read_here.contains(array)
            && match value {
                Exp::Const(_) => true,
                Exp::Var(v) => lets.contains(v),
                _ => false,
            }
            && prog
                .array(array)
                .is_some_and(|d| d.shape.iter().eq(dims.iter().copied()))
        {
            let at = ex.expand(index);
            if at == flat_e || at == Exp::Var(m.space.flat.clone()) {
                out.outputs.push(array.clone());
                out.body.results.push(value.clone());
                continue;
            }
        }
        ex.note(s);
        stms.push(s.clone());
    }
    out.body.stms = stms;
    SegOp::Map(out)
}
