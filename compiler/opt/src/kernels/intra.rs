//! `fuse-intra`: runs of adjacent launches that may run as one intra-block kernel.
//!
//! Distribution turns a map over rows whose body is a chain of inner SOACs (LocVolCalib's
//! tridiagonal solves: maps and scans over each row) into one kernel per SOAC, each over
//! `rows × inner`, that pass whole `rows × inner` arrays to each other through device
//! memory. When such kernels follow each other in host code, share their space, and each
//! reads what the earlier ones wrote only in its own row, this pass puts them in one kernel
//! program marked [`Intra`]: the CPU backend still runs them one after another, and the
//! CUDA backend may run them as one kernel with a block per row that keeps the arrays the
//! stages pass each other in shared memory (`cuda-codegen`'s `intra.rs`). The arrays only
//! the run's own kernels read become [`Intra::locals`]: never written to device memory.
//!
//! The rules the merged program must meet are [`futhark_ir::intra::intra_violation`]'s; a
//! launch that would break them (or whose names disagree with the run's) ends the run.

use std::collections::{HashMap, HashSet};

use futhark_ir::soacs::traverse::free_in_body;
use futhark_ir::soacs::{
    Body, Exp, KernelArg, KernelDef, Launch, Param, Pat, Program, Stm, SubExp,
};
use futhark_ir::{ArrayDecl, Intra, KernelProgram, Name, SegOp};

/// Fuses runs of launches in every function of `prog`.
pub fn fuse_intra(prog: Program) -> Program {
    fuse(prog, 2)
}

/// [`fuse_intra`], and every lone launch that may run as an intra-block kernel becomes an
/// intra-block program of its own (`IntraBlock::Every`).
pub fn fuse_intra_every(prog: Program) -> Program {
    fuse(prog, 1)
}

/// Runs of at least `min_run` launches become intra-block programs.
fn fuse(mut prog: Program, min_run: usize) -> Program {
    let defs: HashMap<Name, KernelDef> = prog
        .kernels
        .iter()
        .map(|k| (k.name.clone(), k.clone()))
        .collect();
    let mut made: Vec<KernelDef> = Vec::new();
    let mut taken: HashSet<Name> = prog.kernels.iter().map(|k| k.name.clone()).collect();
    for f in &mut prog.funs {
        fuse_body(&mut f.body, &defs, &mut made, &mut taken, min_run);
    }
    if made.is_empty() {
        return prog;
    }
    prog.kernels.extend(made);
    // Programs no launch names any more are dropped: the CUDA backend compiles every one.
    crate::simplify::prune_kernels(&mut prog);
    prog
}

fn fuse_body(
    body: &mut Body,
    defs: &HashMap<Name, KernelDef>,
    made: &mut Vec<KernelDef>,
    taken: &mut HashSet<Name>,
    min_run: usize,
) {
    for s in &mut body.stms {
        crate::util::inner_bodies_mut(&mut s.exp, &mut |b| {
            fuse_body(b, defs, made, taken, min_run)
        });
    }
    let stms = std::mem::take(&mut body.stms);
    let mut out: Vec<Stm> = Vec::with_capacity(stms.len());
    let mut i = 0;
    while i < stms.len() {
        let Some(mut run) = Member::of(&stms[i], defs).and_then(Run::start) else {
            out.push(stms[i].clone());
            i += 1;
            continue;
        };
        let mut j = i + 1;
        while j < stms.len()
            && let Some(m) = Member::of(&stms[j], defs)
            && run.try_add(m)
        {
            j += 1;
        }
        if run.members.len() < min_run {
            out.push(stms[i].clone());
            i += 1;
            continue;
        }
        let rest = Body::new(stms[j..].to_vec(), body.result.clone());
        let live = free_in_body(&rest);
        let mut name = format!("{}_intra", run.members[0].def.name);
        while taken.contains(&name) {
            name.push('_');
        }
        taken.insert(name.clone());
        let (def, stm) = run.finish(&name, &live, stms[i].loc.clone());
        made.push(def);
        out.push(stm);
        i = j;
    }
    body.stms = out;
}

/// Arrays a run writes, each with the host binding of its launch's result.
type Outs = Vec<(Name, Param)>;

/// A launch that may join a run.
#[derive(Clone)]
struct Member {
    def: KernelDef,
    launch: Launch,
    pat: Pat,
}

impl Member {
    fn of(stm: &Stm, defs: &HashMap<Name, KernelDef>) -> Option<Member> {
        let Exp::Launch(l) = &stm.exp else {
            return None;
        };
        let def = defs.get(&l.kernel)?;
        let p = &def.program;
        let [k] = p.kernels.as_slice() else {
            return None;
        };
        let ok = p.intra.is_none()
            && matches!(k.op, SegOp::Map(_) | SegOp::Scan(_) | SegOp::Red(_))
            && k.op.space().dims.len() >= 2
            && stm.pat.ctx.is_empty()
            && l.args.len() == p.arrays.len()
            && l.sizes.len() == p.sizes.len()
            && !l.args.iter().any(|a| matches!(a, KernelArg::InOut(_)));
        ok.then(|| Member {
            def: def.clone(),
            launch: l.clone(),
            pat: stm.pat.clone(),
        })
    }

    /// The host value of each size parameter, and the host binding of each `Out` array.
    fn bindings(&self) -> (Vec<(Name, SubExp)>, Outs) {
        let sizes = self
            .def
            .program
            .sizes
            .iter()
            .cloned()
            .zip(self.launch.sizes.iter().cloned())
            .collect();
        let mut outs = Vec::new();
        let mut pats = self.pat.elems.iter();
        for (decl, arg) in self.def.program.arrays.iter().zip(&self.launch.args) {
            if matches!(arg, KernelArg::Out)
                && let Some(p) = pats.next()
            {
                outs.push((decl.name.clone(), p.clone()));
            }
        }
        (sizes, outs)
    }
}

/// A run being built: the merged program so far.
struct Run {
    members: Vec<Member>,
    program: KernelProgram,
    sizes: Vec<SubExp>,
    /// Per merged array: how the launch passes it (`None`: written by a kernel of the run).
    inputs: Vec<Option<SubExp>>,
    /// Host bindings of the arrays the run writes.
    outs: Outs,
}

impl Run {
    /// A run of `m` alone, if `m` can be a kernel of an intra-block program.
    fn start(m: Member) -> Option<Run> {
        let mut run = Run {
            members: Vec::new(),
            program: KernelProgram {
                intra: Some(Intra::default()),
                ..KernelProgram::default()
            },
            sizes: Vec::new(),
            inputs: Vec::new(),
            outs: Vec::new(),
        };
        run.try_add(m).then_some(run)
    }

    /// Adds `m` when the merged program stays consistent and intra-block.
    fn try_add(&mut self, m: Member) -> bool {
        let mut program = self.program.clone();
        let mut sizes = self.sizes.clone();
        let mut inputs = self.inputs.clone();
        let mut outs = self.outs.clone();
        let (msizes, mouts) = m.bindings();
        for (name, value) in msizes {
            match program.sizes.iter().position(|s| *s == name) {
                Some(i) if sizes[i] != value => return false,
                Some(_) => {}
                None => {
                    program.sizes.push(name);
                    sizes.push(value);
                }
            }
        }
        for (decl, arg) in m.def.program.arrays.iter().zip(&m.launch.args) {
            let existing = program.arrays.iter().position(|a| a.name == decl.name);
            match (arg, existing) {
                (KernelArg::In(v), Some(i)) => {
                    // The same name must be the same array: an earlier input, or an array
                    // an earlier kernel of the run wrote (read under its host name).
                    let same = match &inputs[i] {
                        Some(w) => w == v,
                        None => outs
                            .iter()
                            .any(|(n, p)| *n == decl.name && *v == SubExp::Var(p.name.clone())),
                    };
                    if !same || !same_decl(&program.arrays[i], decl) {
                        return false;
                    }
                }
                (KernelArg::In(v), None) => {
                    // An array an earlier kernel wrote, read under another name: not merged.
                    if let SubExp::Var(h) = v
                        && outs.iter().any(|(_, p)| p.name == *h)
                    {
                        return false;
                    }
                    program.arrays.push(decl.clone());
                    inputs.push(Some(v.clone()));
                }
                (KernelArg::Out, None) => {
                    program.arrays.push(decl.clone());
                    inputs.push(None);
                }
                _ => return false,
            }
        }
        outs.extend(mouts);
        program
            .kernels
            .extend(m.def.program.kernels.iter().cloned());
        if futhark_ir::intra::intra_violation(&program).is_err() {
            return false;
        }
        self.program = program;
        self.sizes = sizes;
        self.inputs = inputs;
        self.outs = outs;
        self.members.push(m);
        true
    }

    /// The merged kernel program under `name` and the launch statement that replaces the
    /// run's; arrays not in `live` (read after the run) become locals.
    fn finish(
        mut self,
        name: &str,
        live: &std::collections::BTreeSet<Name>,
        loc: Option<std::sync::Arc<str>>,
    ) -> (KernelDef, Stm) {
        let mut args = Vec::with_capacity(self.inputs.len());
        let mut elems = Vec::new();
        let mut locals = Vec::new();
        for (decl, input) in self.program.arrays.iter().zip(&self.inputs) {
            match input {
                Some(v) => args.push(KernelArg::In(v.clone())),
                None => {
                    args.push(KernelArg::Out);
                    if let Some((_, p)) = self.outs.iter().find(|(n, _)| *n == decl.name) {
                        if !live.contains(&p.name) {
                            locals.push(decl.name.clone());
                        }
                        elems.push(p.clone());
                    }
                }
            }
        }
        self.program.intra = Some(Intra { locals });
        let stm = Stm {
            pat: Pat::new(elems),
            exp: Exp::Launch(Launch {
                kernel: name.to_string(),
                sizes: self.sizes,
                args,
            }),
            loc,
        };
        let def = KernelDef {
            name: name.to_string(),
            program: self.program,
        };
        (def, stm)
    }
}

fn same_decl(a: &ArrayDecl, b: &ArrayDecl) -> bool {
    a.elem == b.elem && a.shape == b.shape
}
