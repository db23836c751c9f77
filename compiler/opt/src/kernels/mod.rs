//! `extract-kernels`: flattening SOACs into the kernel IR's segmented operations.
//!
//! Host code (a function body, and the bodies of host branches and loops) is walked; each
//! SOAC statement becomes a [`KernelDef`] and a [`Launch`] of it, and the rest stays as
//! host code the runtime interprets. A SOAC's *nest* is followed inward while a map's
//! lambda is a perfect nest (scalar statements, then one SOAC whose results are the
//! lambda's) with widths known outside:
//!
//! | nest | segmented operation |
//! |---|---|
//! | `map` … `map` with a scalar body | `SegMap` over all the maps' dimensions |
//! | `map` … `redomap` | `SegRed` with the maps as segments |
//! | `map` … `scanomap` | `SegScan` with the maps as segments |
//! | `hist` (1-D buckets) | `SegHist` |
//! | `scatter` (1-D indices) | `Scatter` |
//!
//! Whatever else a map's lambda holds (a reduction, a `for` loop, a `while` loop bounded by
//! a counter, a branch) runs sequentially in the thread (`body.rs`). Host `iota`, `replicate` and `copy` become map kernels too.
//! A SOAC input defined by a host `iota` or `replicate` is read as a view (computed from
//! the index) instead of a materialised array.

mod body;
mod bounds;
mod checks;
pub use checks::strip_checks;
mod host_loop;
pub mod intra;
pub mod promote;
mod scratch;
pub use scratch::forward_scratch;
mod scalar;
mod size_bounds;
mod vector_hist;

use std::collections::{HashMap, HashSet};

use futhark_ir::soacs::{
    BinOp, Body, Exp, KernelArg, KernelDef, Launch, Name, NameSource, Pat, Program, SlowPath, Soac,
    Stm, SubExp, Type,
};
use futhark_ir::types::PrimValue;
use futhark_ir::{
    Exp as KExp, Kernel, KernelProgram, Scatter, SegHist, SegMap, SegOp, SegRed, SegScan, SegSpace,
    Size,
};

use crate::PassError;
use crate::util::binder_types;
use body::{Inputs, KVal, Translator, View};

/// The `extract-kernels` pass.
pub fn extract_kernels(mut prog: Program) -> Result<Program, PassError> {
    let mut ns = NameSource::for_program(&prog);
    let mut kernels = Vec::new();
    let mut slow_paths = Vec::new();
    for f in &mut prog.funs {
        // A SOAC that does not extract becomes a sequential host loop (`host_loop.rs`)
        // and extraction starts over, until it succeeds or nothing more can be rewritten
        // (what a rewrite brings to host level may be a histogram of vectors).
        let mut rewrites = 0;
        loop {
            let before = binder_types(f);
            vector_hist::scalarise_vector_hists(&mut f.body, &before, &mut ns);
            let types = binder_types(f);
            let mut defs = HashMap::new();
            host_defs(&f.body, &mut defs);
            let made = kernels.len();
            let mut body = f.body.clone();
            let mut x = Extractor {
                types: &types,
                defs: &defs,
                ns: &mut ns,
                kernels: &mut kernels,
                base: f.name.clone(),
                pending: Vec::new(),
                extra_pat: Vec::new(),
                bounds: HashMap::new(),
                failed: None,
            };
            let result = x.body(&mut body);
            let failed = x.failed.take();
            match result {
                Ok(()) => {
                    f.body = body;
                    break;
                }
                Err(message) => {
                    kernels.truncate(made);
                    let rewritten = (rewrites < MAX_HOST_LOOPS)
                        .then_some(failed)
                        .flatten()
                        .and_then(|n| host_loop::rewrite(&mut f.body, &n, &mut ns));
                    let Some(done) = rewritten else {
                        return Err(PassError {
                            pass: "extract-kernels",
                            message,
                            unsupported: true,
                        });
                    };
                    slow_paths.push(SlowPath {
                        soac: done.soac,
                        at: done.at,
                        why: message,
                    });
                    rewrites += 1;
                }
            }
        }
    }
    for k in &kernels {
        if let Err(e) = futhark_ir::check_program(&k.program) {
            return Err(PassError {
                pass: "extract-kernels",
                message: format!("made an invalid kernel: {e}\n{}", k.program),
                unsupported: false,
            });
        }
    }
    prog.kernels.extend(kernels);
    prog.slow_paths.extend(slow_paths);
    Ok(prog)
}

/// Loop promotion ([`promote`]) over a whole program: every kernel program whose loops
/// qualify, and the launches of those that gained extent size parameters.
pub fn promote_program_loops(prog: &mut Program) {
    let mut ns = NameSource::for_program(prog);
    let mut widened: HashMap<Name, Vec<Vec<usize>>> = HashMap::new();
    for k in &mut prog.kernels {
        let extents = promote::promote_loops(&mut k.program);
        if !extents.is_empty() {
            widened.insert(k.name.clone(), extents);
        }
    }
    if !widened.is_empty() {
        for f in &mut prog.funs {
            pass_extents(&mut f.body, &widened, &mut ns);
        }
    }
}

/// Makes every launch of a kernel program that loop promotion gave extent size parameters
/// pass them: each the largest of the launch's values for the listed size positions.
fn pass_extents(body: &mut Body, widened: &HashMap<Name, Vec<Vec<usize>>>, ns: &mut NameSource) {
    let mut stms = Vec::with_capacity(body.stms.len());
    for mut stm in std::mem::take(&mut body.stms) {
        crate::util::inner_bodies_mut(&mut stm.exp, &mut |b| pass_extents(b, widened, ns));
        if let Exp::Launch(l) = &mut stm.exp
            && let Some(extents) = widened.get(&l.kernel)
        {
            for idx in extents {
                let bounds: Vec<SubExp> = idx
                    .iter()
                    .filter_map(|&i| l.sizes.get(i).cloned())
                    .collect();
                let extent = fold_i64(BinOp::SMax, bounds, "extent", ns, &mut stms);
                l.sizes.push(extent.unwrap_or(SubExp::i64(0)));
            }
        }
        stms.push(stm);
    }
    body.stms = stms;
}

/// Folds `values` left to right with the `i64` operator `op` in host statements appended to
/// `out`, each intermediate bound to a fresh name from `stem`; `None` when there are none.
fn fold_i64(
    op: BinOp,
    values: impl IntoIterator<Item = SubExp>,
    stem: &str,
    ns: &mut NameSource,
    out: &mut Vec<Stm>,
) -> Option<SubExp> {
    let mut acc: Option<SubExp> = None;
    for v in values {
        acc = Some(match acc {
            None => v,
            Some(a) => {
                let n = ns.fresh(stem);
                out.push(Stm::new(
                    Pat::one(&n, Type::Prim(PrimValue::I64(0).ty())),
                    Exp::BinOp(op, a, v),
                ));
                SubExp::Var(n)
            }
        });
    }
    acc
}

/// Host statements that kernels may read as views.
fn host_defs(b: &Body, out: &mut HashMap<Name, Exp>) {
    for s in &b.stms {
        match &s.exp {
            Exp::Iota { .. }
            | Exp::Replicate { .. }
            | Exp::Rearrange { .. }
            | Exp::Reshape { .. } => {
                if let [p] = s.pat.elems.as_slice() {
                    out.insert(p.name.clone(), s.exp.clone());
                }
            }
            Exp::If {
                then_body,
                else_body,
                ..
            } => {
                host_defs(then_body, out);
                host_defs(else_body, out);
            }
            Exp::Loop { body, .. } => host_defs(body, out),
            _ => {}
        }
    }
}

struct Extractor<'a> {
    types: &'a HashMap<Name, Type>,
    defs: &'a HashMap<Name, Exp>,
    ns: &'a mut NameSource,
    kernels: &'a mut Vec<KernelDef>,
    base: Name,
    /// Host statements to insert before the statement being replaced.
    pending: Vec<Stm>,
    /// Pattern elements to add to the statement being replaced (per-thread arrays).
    extra_pat: Vec<futhark_ir::soacs::Param>,
    /// Host variables bounding sizes computed inside kernel threads (`size_bounds.rs`).
    bounds: HashMap<Name, SubExp>,
    /// The first result of the host-level SOAC statement that failed to extract, which
    /// [`host_loop::rewrite`] may turn into a host loop.
    failed: Option<Name>,
}

/// How many SOACs of one function may become host loops before extraction gives up.
const MAX_HOST_LOOPS: usize = 64;

/// One level of a nest: a SOAC, and the scalar statements before it in the enclosing
/// map's lambda.
struct Level<'s> {
    soac: &'s Soac,
    pre: &'s [Stm],
}

/// If a map's lambda is scalar statements followed by one SOAC whose results are the
/// lambda's, those statements and that SOAC.
pub(crate) fn perfect_nest(lam: &futhark_ir::soacs::Lambda) -> Option<(&[Stm], &Soac)> {
    let (last, pre) = lam.body.stms.split_last()?;
    let Exp::Soac(inner) = &last.exp else {
        return None;
    };
    let results: Vec<SubExp> = last
        .pat
        .elems
        .iter()
        .map(|p| SubExp::Var(p.name.clone()))
        .collect();
    if !last.pat.ctx.is_empty() || results != lam.body.result {
        return None;
    }
    if !matches!(
        inner,
        Soac::Map { .. } | Soac::Reduce { .. } | Soac::Scan { .. }
    ) {
        return None;
    }
    // Scalar statements, and arrays that kernels read as views (computed per element).
    let scalar = |s: &Stm| {
        let view = match &s.exp {
            Exp::Iota { .. } | Exp::Index(..) => true,
            Exp::Replicate { shape, .. } => shape.len() == 1,
            _ => false,
        };
        s.pat.ctx.is_empty()
            && (view || s.pat.elems.iter().all(|p| !p.ty.is_array()))
            && !matches!(s.exp, Exp::Soac(_) | Exp::Loop { .. })
    };
    if !pre.iter().all(scalar) {
        return None;
    }
    // The inner width must be known outside the lambda.
    if let SubExp::Var(w) = inner.width() {
        let local = lam.params.iter().any(|p| &p.name == w)
            || pre.iter().any(|s| s.pat.names().any(|n| n == w));
        if local {
            return None;
        }
    }
    Some((pre, inner))
}

fn levels(top: &Soac) -> Vec<Level<'_>> {
    let mut out = vec![Level {
        soac: top,
        pre: &[],
    }];
    while let Some(Level {
        soac: Soac::Map { lam, .. },
        ..
    }) = out.last()
    {
        match perfect_nest(lam) {
            Some((pre, inner)) => out.push(Level { soac: inner, pre }),
            None => break,
        }
    }
    out
}

fn neutral(nes: &[SubExp]) -> Result<Vec<PrimValue>, String> {
    nes.iter()
        .map(|n| {
            n.as_const()
                .ok_or_else(|| "a reduction whose neutral element is not a constant".to_string())
        })
        .collect()
}

impl<'a> Extractor<'a> {
    fn body(&mut self, b: &mut Body) -> Result<(), String> {
        let stms = std::mem::take(&mut b.stms);
        for mut stm in stms {
            let replaced = match &mut stm.exp {
                Exp::Soac(soac) => {
                    let soac = soac.clone();
                    let r = match self.soac_or_sequential(&stm, &soac) {
                        Err(e) if e.contains("computed inside a kernel thread") => {
                            self.with_size_bounds(&stm, &soac).map_err(|_| e)
                        }
                        r => r,
                    };
                    match r {
                        Ok(e) => Some(e),
                        Err(e) => {
                            if self.failed.is_none() {
                                self.failed = stm.pat.elems.first().map(|p| p.name.clone());
                            }
                            return Err(e);
                        }
                    }
                }
                Exp::Iota { .. } | Exp::Replicate { .. } | Exp::Copy(_) | Exp::Rearrange { .. } => {
                    self.array_op(&stm)?
                }
                Exp::If {
                    then_body,
                    else_body,
                    ..
                } => {
                    self.body(then_body)?;
                    self.body(else_body)?;
                    None
                }
                Exp::Loop { body, .. } => {
                    self.body(body)?;
                    None
                }
                _ => None,
            };
            if let Some(e) = replaced {
                stm.exp = e;
            }
            b.stms.append(&mut self.pending);
            stm.pat.elems.append(&mut self.extra_pat);
            b.stms.push(stm);
        }
        Ok(())
    }

    fn soac_or_sequential(&mut self, stm: &Stm, soac: &Soac) -> Result<Exp, String> {
        match self.soac(stm, soac) {
            Ok(e) => Ok(e),
            // What does not flatten runs sequentially in one kernel thread.
            Err(e) => self.sequential(stm, soac).map_err(|_| e),
        }
    }

    /// Extracts `soac` after computing, on the host, bounds of the sizes its threads
    /// compute (`size_bounds.rs`); the bounds' statements go before it.
    fn with_size_bounds(&mut self, stm: &Stm, soac: &Soac) -> Result<Exp, String> {
        let found = size_bounds::bound_stms(soac, self.types, self.ns);
        if found.is_empty() {
            return Err("no bounds".into());
        }
        let mut before = std::mem::take(&mut self.pending);
        for (size, mut bstm) in found {
            let Exp::Soac(bsoac) = bstm.exp.clone() else {
                continue;
            };
            bstm.exp = self.soac_or_sequential(&bstm, &bsoac)?;
            before.append(&mut self.pending);
            bstm.pat.elems.append(&mut self.extra_pat);
            if let Some(p) = bstm.pat.elems.first() {
                self.bounds.insert(size, SubExp::Var(p.name.clone()));
            }
            before.push(bstm);
        }
        let e = self.soac_or_sequential(stm, soac)?;
        before.append(&mut self.pending);
        self.pending = before;
        Ok(e)
    }

    fn translator(&mut self, top: Option<&Soac>) -> Translator<'a> {
        let mut thread_local = HashSet::new();
        if let Some(top) = top {
            let mut types = HashMap::new();
            for lam in crate::util::soac_lambdas(top) {
                for p in &lam.params {
                    types.insert(p.name.clone(), p.ty.clone());
                }
                futhark_ir::soacs::body_types(&lam.body, &mut types);
            }
            thread_local.extend(types.into_keys());
        }
        Translator {
            host_types: self.types,
            host_defs: self.defs,
            env: HashMap::new(),
            inputs: Inputs::default(),
            flat: None,
            scratch: Vec::new(),
            thread_local,
            bounds: self.bounds.clone(),
            prefix: self.ns.fresh("scratch"),
            counter: 0,
        }
    }

    /// Registers a kernel program made of one segmented operation; the launch.
    /// Per-thread arrays become extra outputs of `[points] ++ shape`, the number of points
    /// computed in host code before the launch.
    fn finish(&mut self, kind: &str, mut t: Translator<'_>, mut op: SegOp) -> Exp {
        if !t.scratch.is_empty() {
            let space = op.space().clone();
            let threads = t.threads_name();
            let host = |s: &Size| match s {
                Size::Const(c) => SubExp::i64(*c),
                Size::Param(p) => SubExp::Var(p.clone()),
            };
            let dims = space.dims.iter().map(|(_, d)| host(d));
            let acc = fold_i64(BinOp::Mul, dims, "points", self.ns, &mut self.pending);
            self.pending.push(Stm::new(
                Pat::one(&threads, Type::Prim(PrimValue::I64(0).ty())),
                Exp::SubExp(acc.unwrap_or(SubExp::i64(1))),
            ));
            t.inputs.sizes.push((threads.clone(), SubExp::Var(threads)));
            // The point's flat index, bound first in the body.
            let bind = futhark_ir::Stm::let_(
                &t.thread_name(),
                futhark_ir::PrimType::I64,
                KExp::var(&space.flat),
            );
            op.body_and_op_mut().0.stms.insert(0, bind);
            for d in std::mem::take(&mut t.scratch) {
                let ty = Type::array(d.elem, d.shape.iter().map(host).collect());
                self.extra_pat
                    .push(futhark_ir::soacs::Param::new(&d.name, ty));
                t.inputs.arrays.push((d, KernelArg::Out));
            }
        }
        let sizes: Vec<Name> = t.inputs.sizes.iter().map(|(n, _)| n.clone()).collect();
        let dimensions = t
            .inputs
            .arrays
            .iter()
            .flat_map(|(d, _)| &d.shape)
            .filter_map(|s| match s {
                Size::Param(p) => Some(p.clone()),
                Size::Const(_) => None,
            })
            .collect();
        checks::prune_checks(&mut op, &sizes, &dimensions);
        checks::mark_uniform(&mut op, &sizes);
        let mut inputs = t.inputs;
        let name = self.ns.fresh(&format!("{}_{kind}", self.base));
        let sizes = inputs.sizes.iter().map(|(n, _)| n.clone()).collect();
        let values = inputs.sizes.iter().map(|(_, v)| v.clone()).collect();
        let (arrays, args): (Vec<_>, Vec<_>) =
            std::mem::take(&mut inputs.arrays).into_iter().unzip();
        self.kernels.push(KernelDef {
            name: name.clone(),
            program: KernelProgram {
                intra: None,
                sizes,
                arrays,
                kernels: vec![Kernel {
                    name: name.clone(),
                    op,
                }],
            },
        });
        Exp::Launch(Launch {
            kernel: name,
            sizes: values,
            args,
        })
    }

    /// Declares the statement's results as kernel outputs of the given shape.
    fn outputs(&self, t: &mut Translator<'_>, stm: &Stm, shape: &[Size]) -> Vec<Name> {
        let mut names = Vec::new();
        for p in &stm.pat.elems {
            let decl = futhark_ir::ArrayDecl {
                name: p.name.clone(),
                elem: p.ty.elem(),
                shape: shape.to_vec(),
            };
            t.inputs.arrays.push((decl, KernelArg::Out));
            names.push(p.name.clone());
        }
        names
    }

    /// Declares consumed destinations, updated in place.
    fn dests(&self, t: &mut Translator<'_>, dests: &[Name]) -> Result<Vec<Name>, String> {
        for d in dests {
            let ty = self
                .types
                .get(d)
                .ok_or_else(|| format!("unknown destination `{d}`"))?;
            if ty.rank() != 1 {
                return Err("a histogram or scatter into a multi-dimensional array".into());
            }
            let shape = ty.shape().iter().map(|x| t.inputs.size(x)).collect();
            let decl = futhark_ir::ArrayDecl {
                name: d.clone(),
                elem: ty.elem(),
                shape,
            };
            t.inputs.arrays.push((decl, KernelArg::InOut(d.clone())));
        }
        Ok(dests.to_vec())
    }

    fn space(&mut self, dims: Vec<(Name, Size)>) -> SegSpace {
        if dims.len() == 1 {
            let (i, n) = dims[0].clone();
            return SegSpace::flat(&i, n);
        }
        SegSpace {
            flat: self.ns.fresh("flat"),
            dims,
        }
    }

    fn soac(&mut self, stm: &Stm, top: &Soac) -> Result<Exp, String> {
        let nest = levels(top);
        let mut t = self.translator(Some(top));
        let mut dims: Vec<(Name, Size)> = Vec::new();
        let mut pre = Vec::new();
        let last = nest.len() - 1;
        for (k, lvl) in nest.iter().enumerate() {
            for s in lvl.pre {
                t.stm(s, &mut pre)?;
            }
            let views = lvl
                .soac
                .inputs()
                .iter()
                .map(|a| t.view(a))
                .collect::<Result<Vec<View>, String>>()?;
            let w = t.inputs.size(lvl.soac.width());
            let idx = self.ns.fresh("gtid");
            dims.push((idx.clone(), w));
            if k == last {
                let plain = self.final_level(
                    stm,
                    lvl,
                    k,
                    t.clone(),
                    dims.clone(),
                    pre.clone(),
                    &views,
                    &idx,
                    false,
                );
                // A map whose results are arrays its threads compute: each thread writes
                // its rows (instead of every element recomputing them).
                let rows = matches!(lvl.soac, Soac::Map { lam, .. }
                    if lam.ret.iter().any(|r| r.is_array()))
                    && plain
                        .as_ref()
                        .map_or(true, |(_, t, _)| !t.scratch.is_empty());
                let (kind, t, op) = if rows {
                    match self.final_level(stm, lvl, k, t, dims, pre, &views, &idx, true) {
                        Ok(r) => r,
                        Err(e) => plain.map_err(|_| e)?,
                    }
                } else {
                    plain?
                };
                return Ok(self.finish(kind, t, op));
            }
            t.bind_rows(&lvl.soac.map_lambda().params, &views, &KExp::var(&idx));
        }
        Err("an empty nest".into())
    }

    /// The innermost level of a nest as a segmented operation (not yet registered).
    #[allow(clippy::too_many_arguments)]
    fn final_level(
        &mut self,
        stm: &Stm,
        lvl: &Level<'_>,
        k: usize,
        mut t: Translator<'a>,
        mut dims: Vec<(Name, Size)>,
        pre: Vec<futhark_ir::Stm>,
        views: &[View],
        idx: &Name,
        rows: bool,
    ) -> Result<(&'static str, Translator<'a>, SegOp), String> {
        let mut pre = pre;
        if rows {
            return self.rows_level(stm, lvl, t, dims, pre, views, idx);
        }
        // A map whose elements are arrays it only reads (a row, a free array, an
        // iota): their dimensions join the space and each point reads one element.
        let mut extra: Vec<(Name, Size)> = Vec::new();
        if let Soac::Map { lam, .. } = lvl.soac
            && let Some(first) = lam.ret.first()
            && first.is_array()
        {
            if lam.ret.iter().any(|r| r.shape() != first.shape()) {
                return Err("a map whose results are arrays of different shapes".into());
            }
            for d in first.shape() {
                extra.push((self.ns.fresh("gtid"), t.inputs.size(d)));
            }
        }
        dims.extend(extra.iter().cloned());
        let space = self.space(dims.clone());
        let full: Vec<KExp> = dims.iter().map(|(i, _)| KExp::var(i)).collect();
        t.flat = Some((full, KExp::var(&space.flat)));
        t.bind_rows(&lvl.soac.map_lambda().params, views, &KExp::var(idx));
        let mut stms = std::mem::take(&mut pre);
        let mut results = Vec::new();
        for v in t.body(&lvl.soac.map_lambda().body, &mut stms)? {
            let mut v = v;
            for (i, _) in &extra {
                v = match v {
                    KVal::Array(view) => view.index(KExp::var(i), t.flat.as_ref()),
                    s => s,
                };
            }
            match v {
                KVal::Scalar(e, _) => results.push(e),
                KVal::Array(_) => {
                    return Err("an array result inside a kernel thread".into());
                }
            }
        }
        let body = futhark_ir::Body::new(stms, results);
        let shape: Vec<Size> = dims.iter().map(|(_, s)| s.clone()).collect();
        let (kind, op) = match lvl.soac {
            Soac::Map { .. } => {
                let outputs = self.outputs(&mut t, stm, &shape);
                (
                    "map",
                    SegOp::Map(SegMap {
                        space,
                        body,
                        outputs,
                    }),
                )
            }
            Soac::Reduce { comm, op, nes, .. } => {
                let op = t.operator(op)?;
                let neutral = neutral(nes)?;
                let outputs = self.outputs(&mut t, stm, &shape[..shape.len() - 1]);
                (
                    "red",
                    SegOp::Red(SegRed {
                        space,
                        body,
                        op,
                        neutral,
                        commutative: *comm,
                        outputs,
                    }),
                )
            }
            Soac::Scan { op, nes, .. } => {
                let op = t.operator(op)?;
                let neutral = neutral(nes)?;
                let outputs = self.outputs(&mut t, stm, &shape);
                (
                    "scan",
                    SegOp::Scan(SegScan {
                        space,
                        body,
                        op,
                        neutral,
                        outputs,
                    }),
                )
            }
            Soac::Hist {
                dests,
                rank,
                op,
                nes,
                ..
            } if k == 0 && *rank == 1 => {
                let op = t.operator(op)?;
                let neutral = neutral(nes)?;
                let num_buckets = match dests.first().and_then(|d| self.types.get(d)) {
                    Some(ty) => t.inputs.size(ty.outer().unwrap_or(&SubExp::i64(0))),
                    None => return Err("a histogram without destinations".into()),
                };
                let dests = self.dests(&mut t, dests)?;
                (
                    "hist",
                    SegOp::Hist(SegHist {
                        space,
                        body,
                        op,
                        neutral,
                        num_buckets,
                        dests,
                    }),
                )
            }
            Soac::Scatter { dests, ranks, .. } if k == 0 && ranks.iter().all(|r| *r == 1) => {
                let dests = self.dests(&mut t, dests)?;
                ("scatter", SegOp::Scatter(Scatter { space, body, dests }))
            }
            s => return Err(format!("a {} of this shape", s.kind_name())),
        };
        Ok((kind, t, op))
    }

    /// A map whose threads each compute whole result rows and write them.
    #[allow(clippy::too_many_arguments)]
    fn rows_level(
        &mut self,
        stm: &Stm,
        lvl: &Level<'_>,
        mut t: Translator<'a>,
        dims: Vec<(Name, Size)>,
        pre: Vec<futhark_ir::Stm>,
        views: &[View],
        idx: &Name,
    ) -> Result<(&'static str, Translator<'a>, SegOp), String> {
        let Soac::Map { lam, .. } = lvl.soac else {
            return Err("a map of this shape".into());
        };
        let space = self.space(dims.clone());
        let full: Vec<KExp> = dims.iter().map(|(i, _)| KExp::var(i)).collect();
        t.flat = Some((full.clone(), KExp::var(&space.flat)));
        t.bind_rows(&lam.params, views, &KExp::var(idx));
        let mut stms = pre;
        let rs = t.body(&lam.body, &mut stms)?;
        let shape: Vec<Size> = dims.iter().map(|(_, s)| s.clone()).collect();
        let mut results = Vec::new();
        let mut outputs = Vec::new();
        for ((p, r), ret) in stm.pat.elems.iter().zip(rs).zip(&lam.ret) {
            let mut full_shape = shape.clone();
            for d in ret.shape() {
                full_shape.push(t.launch_size(d)?);
            }
            let decl = futhark_ir::ArrayDecl {
                name: p.name.clone(),
                elem: p.ty.elem(),
                shape: full_shape.clone(),
            };
            t.inputs.arrays.push((decl, KernelArg::Out));
            match r {
                KVal::Scalar(e, _) if !ret.is_array() => {
                    results.push(e);
                    outputs.push(p.name.clone());
                }
                r => {
                    let view = View::Global {
                        decl: p.name.clone(),
                        perm: (0..full_shape.len()).collect(),
                        dims: full_shape,
                        prefix: full.clone(),
                        elem: p.ty.elem(),
                    };
                    let row_dims = ret
                        .shape()
                        .iter()
                        .map(|d| t.scalar(d))
                        .collect::<Result<Vec<_>, String>>()?;
                    t.store_into(KVal::Array(view), r, &row_dims, &mut stms)?;
                }
            }
        }
        let body = futhark_ir::Body::new(stms, results);
        Ok((
            "map",
            t,
            SegOp::Map(SegMap {
                space,
                body,
                outputs,
            }),
        ))
    }

    /// A SOAC statement as a kernel of one thread that runs it sequentially and writes its
    /// results: the fallback for what does not flatten (tuple-valued or multi-dimensional
    /// histograms, reductions with computed neutral elements, …).
    fn sequential(&mut self, stm: &Stm, top: &Soac) -> Result<Exp, String> {
        if !stm.pat.ctx.is_empty() {
            return Err("a SOAC with existential result sizes".into());
        }
        self.pending.clear();
        self.extra_pat.clear();
        let mut t = self.translator(Some(top));
        let idx = self.ns.fresh("gtid");
        let space = SegSpace::flat(&idx, Size::Const(1));
        let mut stms = Vec::new();
        t.stm(stm, &mut stms)?;
        for p in &stm.pat.elems {
            let shape =
                p.ty.shape()
                    .iter()
                    .map(|d| t.launch_size(d))
                    .collect::<Result<Vec<Size>, String>>()?;
            let decl = futhark_ir::ArrayDecl {
                name: p.name.clone(),
                elem: p.ty.elem(),
                shape: shape.clone(),
            };
            t.inputs.arrays.push((decl, KernelArg::Out));
            let v = t.val(&SubExp::Var(p.name.clone()))?;
            let dims =
                p.ty.shape()
                    .iter()
                    .map(|d| t.scalar(d))
                    .collect::<Result<Vec<KExp>, String>>()?;
            let dst = if shape.is_empty() {
                KVal::Scalar(KExp::read(&p.name, KExp::i64(0)), p.ty.elem())
            } else {
                KVal::Array(View::Global {
                    decl: p.name.clone(),
                    perm: (0..shape.len()).collect(),
                    dims: shape,
                    prefix: Vec::new(),
                    elem: p.ty.elem(),
                })
            };
            t.store_into(dst, v, &dims, &mut stms)?;
        }
        let op = SegOp::Map(SegMap {
            space,
            body: futhark_ir::Body::new(stms, Vec::new()),
            outputs: Vec::new(),
        });
        Ok(self.finish("seq", t, op))
    }

    /// Host `iota`, `replicate` of a scalar, and `copy` as map kernels.
    fn array_op(&mut self, stm: &Stm) -> Result<Option<Exp>, String> {
        let [p] = stm.pat.elems.as_slice() else {
            return Ok(None);
        };
        let mut t = self.translator(None);
        let shape: Vec<Size> = p.ty.shape().iter().map(|d| t.inputs.size(d)).collect();
        let dims: Vec<(Name, Size)> = shape
            .iter()
            .map(|s| (self.ns.fresh("gtid"), s.clone()))
            .collect();
        if dims.is_empty() {
            return Ok(None);
        }
        let space = self.space(dims.clone());
        let value = match &stm.exp {
            Exp::Iota {
                start, stride, ty, ..
            } => {
                let view = View::Iota {
                    start: t.scalar(start)?,
                    stride: t.scalar(stride)?,
                    ty: *ty,
                };
                match view.index(KExp::var(&dims[0].0), None) {
                    KVal::Scalar(e, _) => e,
                    KVal::Array(_) => return Ok(None),
                }
            }
            Exp::Replicate { value, .. } => match t.val(value)? {
                KVal::Scalar(e, _) => e,
                KVal::Array(_) => return Ok(None),
            },
            // A rearrangement the host needs whole (a loop's result, an entry point's) is
            // copied through its view on the device rather than on the host.
            Exp::Copy(_) | Exp::Rearrange { .. } => {
                let a = match &stm.exp {
                    Exp::Copy(a) => a,
                    _ => &p.name,
                };
                let full: Vec<KExp> = dims.iter().map(|(i, _)| KExp::var(i)).collect();
                t.flat = Some((full.clone(), KExp::var(&space.flat)));
                let mut v = KVal::Array(t.view(a)?);
                for i in full {
                    v = match v {
                        KVal::Array(view) => view.index(i, t.flat.as_ref()),
                        s => s,
                    };
                }
                match v {
                    KVal::Scalar(e, _) => e,
                    KVal::Array(_) => return Ok(None),
                }
            }
            _ => return Ok(None),
        };
        let outputs = self.outputs(&mut t, stm, &shape);
        let op = SegOp::Map(SegMap {
            space,
            body: futhark_ir::Body::results(vec![value]),
            outputs,
        });
        Ok(Some(self.finish("array", t, op)))
    }
}
