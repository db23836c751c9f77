//! The CPU reference backend: interprets kernel IR sequentially, in the segmented
//! operations' stated semantics (reductions and scans combine in index order). This is what
//! CI runs: it checks lowering and optimisation end to end without a GPU.

use std::collections::HashMap;
use std::rc::Rc;
use std::time::Instant;

use futhark_ir::soacs::KernelDef;
use futhark_ir::types::{PrimType, PrimValue};
use futhark_ir::{Body, Exp, KernelProgram, Lambda, SegOp, SegSpace, Size, Stm};
use futhark_values::Buffer;

use crate::backend::Backend;
use crate::error::{ExecError, Result};
use crate::kernel_ops;
use crate::prim::{self, as_bool, as_i64};

/// Runs kernels on the host.
#[derive(Default)]
pub struct CpuBackend {
    /// Per kernel program: launches and total milliseconds.
    launches: HashMap<String, (u64, f64)>,
    deadline: Option<Instant>,
}

impl CpuBackend {
    pub fn new() -> CpuBackend {
        CpuBackend::default()
    }

    /// Makes kernels stop with a timeout error once `deadline` has passed.
    pub fn set_deadline(&mut self, deadline: Option<Instant>) {
        self.deadline = deadline;
    }
}

impl Backend for CpuBackend {
    type Buf = Rc<Buffer>;

    fn name(&self) -> &'static str {
        "cpu"
    }

    fn prepare(&mut self, kernels: &[KernelDef]) -> Result<()> {
        for k in kernels {
            futhark_ir::check_program(&k.program)
                .map_err(|e| ExecError::malformed(format!("kernel `{}`: {e}", k.name)))?;
        }
        Ok(())
    }

    fn upload(&mut self, data: &Rc<Buffer>) -> Result<Rc<Buffer>> {
        Ok(data.clone())
    }

    fn download(&mut self, buf: &Rc<Buffer>, _elem: PrimType, len: usize) -> Result<Rc<Buffer>> {
        if buf.len() == len {
            return Ok(buf.clone());
        }
        buf.slice(0, len)
            .map(Rc::new)
            .ok_or_else(|| ExecError::malformed("download beyond a buffer"))
    }

    fn alloc(&mut self, elem: PrimType, len: usize) -> Result<Rc<Buffer>> {
        Ok(Rc::new(Buffer::zeros(elem, len)))
    }

    fn unique(&mut self, buf: Rc<Buffer>, _elem: PrimType, _len: usize) -> Result<Rc<Buffer>> {
        // Writes go through `Rc::make_mut`, which copies a shared buffer first.
        Ok(buf)
    }

    fn launch(
        &mut self,
        kernel: &KernelDef,
        sizes: &[i64],
        arrays: &mut [Rc<Buffer>],
    ) -> Result<()> {
        let start = Instant::now();
        let r = run_program(&kernel.program, sizes, arrays, self.deadline);
        let stats = self.launches.entry(kernel.name.clone()).or_default();
        stats.0 += 1;
        stats.1 += start.elapsed().as_secs_f64() * 1e3;
        r
    }

    fn profile(&mut self) -> Result<Vec<crate::backend::KernelProfile>> {
        Ok(self
            .launches
            .iter()
            .map(|(name, (n, ms))| crate::backend::KernelProfile {
                name: name.clone(),
                launches: *n,
                total_ms: *ms,
                bytes: 0,
            })
            .collect())
    }
}

/// Runs every kernel of a program, in order, on `arrays` (one per declared array).
pub fn run_program(
    prog: &KernelProgram,
    sizes: &[i64],
    arrays: &mut [Rc<Buffer>],
    deadline: Option<Instant>,
) -> Result<()> {
    if sizes.len() != prog.sizes.len() || arrays.len() != prog.arrays.len() {
        return Err(ExecError::malformed(format!(
            "kernel program takes {} sizes and {} arrays, given {} and {}",
            prog.sizes.len(),
            prog.arrays.len(),
            sizes.len(),
            arrays.len()
        )));
    }
    let names: HashMap<&str, usize> = prog
        .arrays
        .iter()
        .enumerate()
        .map(|(i, a)| (a.name.as_str(), i))
        .collect();
    let mut m = Machine {
        deadline,
        points: 0,
        names,
        arrays,
        scope: prog
            .sizes
            .iter()
            .zip(sizes)
            .map(|(n, v)| (n.as_str(), PrimValue::I64(*v)))
            .collect(),
    };
    for k in &prog.kernels {
        m.segop(&k.op).map_err(|e| match e {
            ExecError::Malformed(msg) => {
                ExecError::malformed(format!("kernel `{}`: {msg}", k.name))
            }
            e => e,
        })?;
    }
    Ok(())
}

/// The state of a sequential kernel interpreter: arrays by name and a scope of scalars
/// (a stack searched from the top: bodies are small, and no names are shadowed).
struct Machine<'p, 'a> {
    deadline: Option<Instant>,
    /// Points run so far (the deadline is checked every few thousand).
    points: u64,
    names: HashMap<&'p str, usize>,
    arrays: &'a mut [Rc<Buffer>],
    scope: Vec<(&'p str, PrimValue)>,
}

impl<'p> Machine<'p, '_> {
    fn lookup(&self, name: &str) -> Result<PrimValue> {
        self.scope
            .iter()
            .rev()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| *v)
            .ok_or_else(|| ExecError::malformed(format!("unbound kernel variable `{name}`")))
    }

    fn array(&self, name: &str) -> Result<usize> {
        self.names
            .get(name)
            .copied()
            .ok_or_else(|| ExecError::malformed(format!("unknown array `{name}`")))
    }

    fn size(&self, s: &Size) -> Result<i64> {
        match s {
            Size::Const(c) => Ok(*c),
            Size::Param(p) => as_i64(self.lookup(p)?),
        }
    }

    fn exp(&self, e: &Exp) -> Result<PrimValue> {
        Ok(match e {
            Exp::Const(c) => *c,
            Exp::Var(v) => self.lookup(v)?,
            Exp::Bin(op, a, b) => kernel_ops::binop(*op, self.exp(a)?, self.exp(b)?)?,
            Exp::Cmp(op, a, b) => {
                PrimValue::Bool(kernel_ops::cmpop(*op, self.exp(a)?, self.exp(b)?))
            }
            Exp::Un(op, a) => kernel_ops::unop(*op, self.exp(a)?),
            Exp::Conv(t, a) => kernel_ops::conv(*t, self.exp(a)?),
            Exp::Math(f, args) => {
                let args = args
                    .iter()
                    .map(|a| self.exp(a))
                    .collect::<Result<Vec<_>>>()?;
                kernel_ops::math(*f, &args)?
            }
            Exp::Select(c, t, f) => {
                // Both sides are pure; evaluating only the chosen one is equivalent.
                if as_bool(self.exp(c)?)? {
                    self.exp(t)?
                } else {
                    self.exp(f)?
                }
            }
            Exp::Read(arr, idx) => {
                let a = self.array(arr)?;
                let i = as_i64(self.exp(idx)?)?;
                usize::try_from(i)
                    .ok()
                    .and_then(|i| prim::get(&self.arrays[a], i))
                    .ok_or_else(|| {
                        // Kernels check their reads (`Stm::Check`) unless compiled with
                        // `--unsafe`; a read outside the buffer is still caught here and worded
                        // as Futhark's bounds check would.
                        ExecError::runtime(format!(
                            "Index [{i}] out of bounds for array of shape [{}].",
                            self.arrays[a].len()
                        ))
                    })?
            }
        })
    }

    fn stms(&mut self, stms: &'p [Stm]) -> Result<()> {
        for s in stms {
            self.stm(s)?;
        }
        Ok(())
    }

    fn stm(&mut self, s: &'p Stm) -> Result<()> {
        match s {
            Stm::Let { name, exp, .. }
            | Stm::Mut {
                name, init: exp, ..
            } => {
                let v = self.exp(exp)?;
                self.scope.push((name, v));
            }
            Stm::Assign { name, exp } => {
                let v = self.exp(exp)?;
                let slot = self
                    .scope
                    .iter_mut()
                    .rev()
                    .find(|(n, _)| *n == name.as_str())
                    .ok_or_else(|| ExecError::malformed(format!("assignment to `{name}`")))?;
                slot.1 = v;
            }
            Stm::For { var, bound, body } => {
                let n = as_i64(self.exp(bound)?)?;
                let mark = self.scope.len();
                // A lowered while loop stops once its guard is false (the rest would be
                // no-ops).
                let guarded = futhark_ir::guarded_loop(var, body);
                for i in 0..n {
                    self.scope.push((var, PrimValue::I64(i)));
                    match guarded {
                        Some((cond, then_branch)) => {
                            if !as_bool(self.exp(cond)?)? {
                                self.scope.truncate(mark);
                                break;
                            }
                            self.stms(then_branch)?;
                        }
                        None => self.stms(body)?,
                    }
                    self.scope.truncate(mark);
                }
            }
            Stm::If {
                cond,
                then_branch,
                else_branch,
            } => {
                let mark = self.scope.len();
                if as_bool(self.exp(cond)?)? {
                    self.stms(then_branch)?;
                } else {
                    self.stms(else_branch)?;
                }
                self.scope.truncate(mark);
            }
            Stm::Write {
                array,
                index,
                value,
            } => {
                let a = self.array(array)?;
                let i = as_i64(self.exp(index)?)?;
                let v = self.exp(value)?;
                let buf = Rc::make_mut(&mut self.arrays[a]);
                let i = usize::try_from(i)
                    .map_err(|_| ExecError::malformed(format!("write of `{array}` at {i}")))?;
                prim::set(buf, i, v)?;
            }
            // Made by the host before the launch.
            Stm::Check(c) if c.uniform => {}
            Stm::Check(c) => {
                if !as_bool(self.exp(&c.cond)?)? {
                    let args = c
                        .args
                        .iter()
                        .map(|a| self.exp(a))
                        .collect::<Result<Vec<_>>>()?;
                    return Err(ExecError::runtime_at(
                        crate::host::fill_message(&c.msg, &args),
                        c.loc.clone(),
                    ));
                }
            }
        }
        Ok(())
    }

    /// Runs a body with the scope it starts from restored afterwards.
    fn body(&mut self, body: &'p Body) -> Result<Vec<PrimValue>> {
        let mark = self.scope.len();
        let r = self
            .stms(&body.stms)
            .and_then(|()| body.results.iter().map(|e| self.exp(e)).collect());
        self.scope.truncate(mark);
        r
    }

    fn apply(
        &mut self,
        op: &'p Lambda,
        x: &[PrimValue],
        y: &[PrimValue],
    ) -> Result<Vec<PrimValue>> {
        let mark = self.scope.len();
        for ((name, _), v) in op.params.iter().zip(x.iter().chain(y)) {
            self.scope.push((name, *v));
        }
        let r = self.body(&op.body);
        self.scope.truncate(mark);
        r
    }

    /// Binds the indices of point `flat` of a space with extents `dims`.
    fn bind_point(&mut self, space: &'p SegSpace, dims: &[i64], flat: i64) {
        self.scope.push((&space.flat, PrimValue::I64(flat)));
        let mut rest = flat;
        let mut idx = vec![0; dims.len()];
        for (k, d) in dims.iter().enumerate().rev() {
            if *d > 0 {
                idx[k] = rest % d;
                rest /= d;
            }
        }
        for ((name, _), i) in space.dims.iter().zip(idx) {
            self.scope.push((name, PrimValue::I64(i)));
        }
    }

    /// Runs a body at point `flat`.
    fn at_point(
        &mut self,
        space: &'p SegSpace,
        dims: &[i64],
        flat: i64,
        body: &'p Body,
    ) -> Result<Vec<PrimValue>> {
        self.points += 1;
        if self.points.is_multiple_of(4096)
            && let Some(d) = self.deadline
            && Instant::now() > d
        {
            return Err(ExecError::Timeout);
        }
        let mark = self.scope.len();
        self.bind_point(space, dims, flat);
        let r = self.body(body);
        self.scope.truncate(mark);
        r
    }

    fn write(&mut self, array: &str, i: i64, v: PrimValue) -> Result<()> {
        let a = self.array(array)?;
        let buf = Rc::make_mut(&mut self.arrays[a]);
        let i = usize::try_from(i).map_err(|_| ExecError::malformed("negative write index"))?;
        prim::set(buf, i, v)
    }

    fn segop(&mut self, op: &'p SegOp) -> Result<()> {
        let space = op.space();
        let dims = space
            .dims
            .iter()
            .map(|(_, s)| self.size(s))
            .collect::<Result<Vec<i64>>>()?;
        let total: i64 = dims.iter().map(|d| (*d).max(0)).product();
        let inner = dims.last().copied().unwrap_or(1).max(0);
        let segments: i64 = dims[..dims.len().saturating_sub(1)]
            .iter()
            .map(|d| (*d).max(0))
            .product();
        match op {
            SegOp::Map(m) => {
                for flat in 0..total {
                    let vs = self.at_point(space, &dims, flat, &m.body)?;
                    for (out, v) in m.outputs.iter().zip(vs) {
                        self.write(out, flat, v)?;
                    }
                }
            }
            SegOp::Red(r) => {
                for seg in 0..segments {
                    let mut acc = r.neutral.clone();
                    for i in 0..inner {
                        let vs = self.at_point(space, &dims, seg * inner + i, &r.body)?;
                        acc = self.apply(&r.op, &acc, &vs)?;
                    }
                    for (out, v) in r.outputs.iter().zip(&acc) {
                        self.write(out, seg, *v)?;
                    }
                }
            }
            SegOp::Scan(s) => {
                for seg in 0..segments {
                    let mut acc = s.neutral.clone();
                    for i in 0..inner {
                        let flat = seg * inner + i;
                        let vs = self.at_point(space, &dims, flat, &s.body)?;
                        acc = self.apply(&s.op, &acc, &vs)?;
                        for (out, v) in s.outputs.iter().zip(&acc) {
                            self.write(out, flat, *v)?;
                        }
                    }
                }
            }
            SegOp::Hist(h) => {
                let buckets = self.size(&h.num_buckets)?;
                let dests = h
                    .dests
                    .iter()
                    .map(|d| self.array(d))
                    .collect::<Result<Vec<usize>>>()?;
                for flat in 0..total {
                    let vs = self.at_point(space, &dims, flat, &h.body)?;
                    let Some((b, vals)) = vs.split_first() else {
                        return Err(ExecError::malformed("histogram body without a bucket"));
                    };
                    let b = as_i64(*b)?;
                    if b < 0 || b >= buckets {
                        continue;
                    }
                    let old = dests
                        .iter()
                        .map(|&d| {
                            prim::get(&self.arrays[d], b as usize).ok_or_else(|| {
                                ExecError::malformed("histogram bucket beyond its array")
                            })
                        })
                        .collect::<Result<Vec<_>>>()?;
                    let new = self.apply(&h.op, &old, vals)?;
                    for (d, v) in h.dests.iter().zip(new) {
                        self.write(d, b, v)?;
                    }
                }
            }
            SegOp::Scatter(s) => {
                for flat in 0..total {
                    let vs = self.at_point(space, &dims, flat, &s.body)?;
                    for (d, pair) in s.dests.iter().zip(vs.chunks(2)) {
                        let [i, v] = pair else {
                            return Err(ExecError::malformed("scatter body without a value"));
                        };
                        let i = as_i64(*i)?;
                        let len = self.arrays[self.array(d)?].len() as i64;
                        if (0..len).contains(&i) {
                            self.write(d, i, *v)?;
                        }
                    }
                }
            }
        }
        Ok(())
    }
}
