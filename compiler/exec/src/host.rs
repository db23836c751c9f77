//! The host-code executor: runs the functions of a kernel-stage program (scalars, array
//! operations, control flow, calls) and hands kernel launches to a [`Backend`]. Arrays stay
//! where kernels left them; they come to the host only when host code needs their elements.

use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use futhark_ir::soacs::{
    Body, DimIndex, Exp, FunDef, KernelArg, KernelDef, Launch, LoopForm, Pat, Program, Stm, SubExp,
    Type,
};
use futhark_ir::types::{PrimType, PrimValue};
use futhark_ir::{KernelProgram, SegOp, Size};
use futhark_values::Buffer;

use crate::array_ops::{self, Idx, Selection};
use crate::backend::Backend;
use crate::error::{ExecError, Result};
use crate::host_ops;
use crate::prim::{self, as_bool, as_i64, from_int};
use crate::value::{Array, Data, Val, elems, show_shape};

/// Calls nested deeper than this fail instead of overflowing the stack.
const MAX_CALL_DEPTH: usize = 2000;

type Env<D> = HashMap<String, Val<D>>;

/// A loaded program on a backend.
pub struct Executor<B: Backend> {
    pub(crate) prog: Program,
    pub(crate) backend: B,
    funs: HashMap<String, Rc<FunDef>>,
    kernels: HashMap<String, Rc<KernelDef>>,
    depth: usize,
    /// Calls stop with an error after this instant (checked per loop iteration and call).
    deadline: Option<Instant>,
    interrupt: Option<Arc<AtomicBool>>,
}

impl<B: Backend> Executor<B> {
    /// Prepares `prog`'s kernels on `backend`.
    pub fn new(prog: Program, mut backend: B) -> Result<Executor<B>> {
        backend.prepare(&prog.kernels)?;
        let funs = prog
            .funs
            .iter()
            .map(|f| (f.name.clone(), Rc::new(f.clone())))
            .collect();
        let kernels = prog
            .kernels
            .iter()
            .map(|k| (k.name.clone(), Rc::new(k.clone())))
            .collect();
        Ok(Executor {
            prog,
            backend,
            funs,
            kernels,
            depth: 0,
            deadline: None,
            interrupt: None,
        })
    }

    /// Makes calls fail with a timeout error once `deadline` has passed.
    pub fn set_deadline(&mut self, deadline: Option<Instant>) {
        self.deadline = deadline;
    }

    /// Makes calls stop with [`ExecError::Interrupted`] once `flag` is set (checked between
    /// statements, loop iterations and kernel launches; a running kernel finishes first).
    pub fn set_interrupt(&mut self, flag: Arc<AtomicBool>) {
        self.interrupt = Some(flag);
    }

    fn check_deadline(&self) -> Result<()> {
        if self
            .interrupt
            .as_ref()
            .is_some_and(|f| f.load(Ordering::Relaxed))
        {
            return Err(ExecError::Interrupted);
        }
        match self.deadline {
            Some(d) if Instant::now() > d => Err(ExecError::Timeout),
            _ => Ok(()),
        }
    }

    pub fn backend(&mut self) -> &mut B {
        &mut self.backend
    }

    pub fn program(&self) -> &Program {
        &self.prog
    }

    /// Calls function `name` on IR-level arguments.
    pub fn call(&mut self, name: &str, args: Vec<Val<B::Buf>>) -> Result<Vec<Val<B::Buf>>> {
        let f = self
            .funs
            .get(name)
            .cloned()
            .ok_or_else(|| ExecError::malformed(format!("unknown function `{name}`")))?;
        self.check_deadline()?;
        if self.depth >= MAX_CALL_DEPTH {
            return Err(ExecError::runtime(
                "stack overflow: calls nested too deeply",
            ));
        }
        if f.params.len() != args.len() {
            return Err(ExecError::malformed(format!(
                "`{name}` takes {} arguments, given {}",
                f.params.len(),
                args.len()
            )));
        }
        let mut env: Env<B::Buf> = HashMap::new();
        for (p, a) in f.params.iter().zip(args) {
            env.insert(p.name.clone(), a);
        }
        self.depth += 1;
        let r = self.body(&f.body, &mut env);
        self.depth -= 1;
        if self.depth == 0 {
            // A check that failed in a kernel happened before whatever the host did after
            // launching it, so it is the error to report; and results are not returned
            // before the kernels that computed them are known to have passed their checks.
            self.backend.check_failures()?;
        }
        r
    }

    fn body(&mut self, b: &Body, env: &mut Env<B::Buf>) -> Result<Vec<Val<B::Buf>>> {
        for stm in &b.stms {
            self.stm(stm, env)?;
        }
        b.result.iter().map(|s| self.subexp(s, env)).collect()
    }

    fn stm(&mut self, stm: &Stm, env: &mut Env<B::Buf>) -> Result<()> {
        let vals = self.exp(&stm.exp, &stm.pat, env).map_err(|e| match e {
            // A device failure (out of memory) names the statement that asked for it.
            ExecError::Backend(m) if matches!(stm.exp, Exp::Launch(_)) => {
                let names: Vec<&str> = stm.pat.elems.iter().map(|p| p.name.as_str()).collect();
                let at = stm
                    .loc
                    .as_deref()
                    .map(|l| format!(" at {}", futhark_ir::loc::position(l)))
                    .unwrap_or_default();
                ExecError::Backend(format!("{m}, computing `{}`{at}", names.join(", ")))
            }
            // An error leaving a call (one `inline` kept: recursion) gains the call's frame.
            e if matches!(stm.exp, Exp::Apply { .. }) => e.called_from(stm.loc.as_deref()),
            e => e.located(stm.loc.as_deref()),
        })?;
        bind_pat(&stm.pat, vals, env)
    }

    fn subexp(&self, s: &SubExp, env: &Env<B::Buf>) -> Result<Val<B::Buf>> {
        match s {
            SubExp::Const(c) => Ok(Val::Prim(*c)),
            SubExp::Var(v) => env
                .get(v)
                .cloned()
                .ok_or_else(|| ExecError::malformed(format!("unbound variable `{v}`"))),
        }
    }

    fn prim(&mut self, s: &SubExp, env: &Env<B::Buf>) -> Result<PrimValue> {
        match self.subexp(s, env)? {
            Val::Prim(p) => Ok(p),
            Val::Arr(a) if a.shape.is_empty() => {
                let buf = self.host(&a)?;
                prim::get(&buf, 0).ok_or_else(|| ExecError::malformed("empty scalar"))
            }
            Val::Arr(_) => Err(ExecError::malformed(format!(
                "`{s:?}` is an array, not a scalar"
            ))),
        }
    }

    fn int(&mut self, s: &SubExp, env: &Env<B::Buf>) -> Result<i64> {
        as_i64(self.prim(s, env)?)
    }

    fn array(&self, name: &str, env: &Env<B::Buf>) -> Result<Array<B::Buf>> {
        match env.get(name) {
            Some(Val::Arr(a)) => Ok(a.clone()),
            Some(Val::Prim(_)) => Err(ExecError::malformed(format!("`{name}` is not an array"))),
            None => Err(ExecError::malformed(format!("unbound array `{name}`"))),
        }
    }

    /// An array's elements on the host.
    pub(crate) fn host(&mut self, a: &Array<B::Buf>) -> Result<Rc<Buffer>> {
        match &a.data {
            Data::Host(b) | Data::Mirrored { host: b, .. } => Ok(b.clone()),
            Data::Device(d) => self.backend.download(d, a.elem, a.len()),
        }
    }

    /// An array's elements on the device.
    fn device(&mut self, a: &Array<B::Buf>) -> Result<B::Buf> {
        match &a.data {
            Data::Device(d) | Data::Mirrored { device: d, .. } => Ok(d.clone()),
            Data::Host(b) => self.backend.upload(b),
        }
    }

    fn exp(&mut self, e: &Exp, pat: &Pat, env: &mut Env<B::Buf>) -> Result<Vec<Val<B::Buf>>> {
        let one = |v: PrimValue| Ok(vec![Val::Prim(v)]);
        match e {
            Exp::SubExp(s) => Ok(vec![self.subexp(s, env)?]),
            Exp::BinOp(op, a, b) => {
                let (a, b) = (self.prim(a, env)?, self.prim(b, env)?);
                one(host_ops::binop(*op, a, b)?)
            }
            Exp::CmpOp(op, a, b) => {
                let (a, b) = (self.prim(a, env)?, self.prim(b, env)?);
                one(PrimValue::Bool(host_ops::cmpop(*op, a, b)?))
            }
            Exp::UnOp(op, a) => {
                let a = self.prim(a, env)?;
                one(host_ops::unop(*op, a)?)
            }
            Exp::Conv(op, a) => {
                let a = self.prim(a, env)?;
                one(host_ops::conv(*op, a)?)
            }
            Exp::Math(f, args) => {
                let args = args
                    .iter()
                    .map(|a| self.prim(a, env))
                    .collect::<Result<Vec<_>>>()?;
                one(host_ops::math(*f, &args)?)
            }
            Exp::ArrayLit(items, ty) => Ok(vec![Val::Arr(self.array_lit(items, ty, env)?)]),
            Exp::Index(arr, idx) => Ok(vec![self.index(arr, idx, env)?]),
            Exp::Update(arr, idx, v) => Ok(vec![Val::Arr(self.update(arr, idx, v, env)?)]),
            Exp::Iota {
                n,
                start,
                stride,
                ty,
            } => {
                let n = self.int(n, env)?;
                let (start, stride) = (self.prim(start, env)?, self.prim(stride, env)?);
                let buf = array_ops::iota(n, start, stride, *ty)?;
                Ok(vec![Val::Arr(Array::host(*ty, vec![n.max(0)], buf))])
            }
            Exp::Replicate { shape, value } => {
                let dims = shape
                    .iter()
                    .map(|d| self.int(d, env))
                    .collect::<Result<Vec<i64>>>()?;
                check_dims(&dims)?;
                let v = self.subexp(value, env)?;
                Ok(vec![Val::Arr(self.replicate(dims, v)?)])
            }
            Exp::Reshape { shape, arr } => {
                let dims = shape
                    .iter()
                    .map(|d| self.int(d, env))
                    .collect::<Result<Vec<i64>>>()?;
                check_dims(&dims)?;
                let mut a = self.array(arr, env)?;
                if elems(&dims) != a.len() {
                    // Reshapes come from size coercions: worded as Futhark words a
                    // failed coercion.
                    let have: Vec<String> = a.shape.iter().map(i64::to_string).collect();
                    return Err(ExecError::runtime(format!(
                        "Value of (core language) shape ({}) cannot match shape of type \"{}{}\".",
                        have.join(", "),
                        show_shape(&dims),
                        a.elem
                    )));
                }
                a.shape = dims;
                Ok(vec![Val::Arr(a)])
            }
            Exp::Rearrange { perm, arr } => {
                let a = self.array(arr, env)?;
                if perm.iter().enumerate().all(|(i, p)| i == *p) {
                    return Ok(vec![Val::Arr(a)]);
                }
                let buf = self.host(&a)?;
                let (shape, buf) = array_ops::rearrange(&buf, &a.shape, perm)?;
                Ok(vec![Val::Arr(Array::host(a.elem, shape, buf))])
            }
            Exp::Concat { arrs, size } => {
                let size = self.int(size, env)?;
                Ok(vec![Val::Arr(self.concat(arrs, size, pat, env)?)])
            }
            Exp::Copy(name) => Ok(vec![self.subexp(&SubExp::Var(name.clone()), env)?]),
            Exp::Assert { cond, msg, args } => {
                if as_bool(self.prim(cond, env)?)? {
                    Ok(Vec::new())
                } else {
                    let mut values = Vec::with_capacity(args.len());
                    for a in args {
                        values.push(self.prim(a, env)?);
                    }
                    Err(ExecError::runtime(fill_message(msg, &values)))
                }
            }
            Exp::If {
                cond,
                then_body,
                else_body,
                ..
            } => {
                if as_bool(self.prim(cond, env)?)? {
                    self.body(then_body, env)
                } else {
                    self.body(else_body, env)
                }
            }
            Exp::Loop { params, form, body } => self.do_loop(params, form, body, env),
            Exp::Apply { func, args, .. } => {
                let args = args
                    .iter()
                    .map(|a| self.subexp(a, env))
                    .collect::<Result<Vec<_>>>()?;
                self.call(func, args)
            }
            Exp::Soac(s) => Err(ExecError::Unsupported(format!(
                "a `{}` left in host code (kernel extraction did not take it)",
                s.kind_name()
            ))),
            Exp::Launch(l) => self.launch(l, env),
        }
    }

    fn array_lit(
        &mut self,
        items: &[SubExp],
        ty: &Type,
        env: &Env<B::Buf>,
    ) -> Result<Array<B::Buf>> {
        let elem = ty.elem();
        let mut buf = prim::empty(elem);
        let mut row_shape: Option<Vec<i64>> = None;
        for it in items {
            match self.subexp(it, env)? {
                Val::Prim(p) => prim::push(&mut buf, p)?,
                Val::Arr(a) => {
                    if let Some(s) = &row_shape
                        && *s != a.shape
                    {
                        return Err(ExecError::runtime(format!(
                            "Cannot create array: rows of shape {} and {} differ.",
                            show_shape(s),
                            show_shape(&a.shape)
                        )));
                    }
                    row_shape = Some(a.shape.clone());
                    let h = self.host(&a)?;
                    buf.extend_from(&h)
                        .map_err(|e| ExecError::malformed(e.to_string()))?;
                }
            }
        }
        let row = match row_shape {
            Some(s) => s,
            None => ty
                .shape()
                .iter()
                .map(|d| self.int(d, env))
                .collect::<Result<Vec<i64>>>()?,
        };
        let mut shape = vec![items.len() as i64];
        shape.extend(row);
        Ok(Array::host(elem, shape, buf))
    }

    fn indices(&mut self, idx: &[DimIndex], env: &Env<B::Buf>) -> Result<Vec<Idx>> {
        idx.iter()
            .map(|d| match d {
                DimIndex::Fix(i) => Ok(Idx::Fix(self.int(i, env)?)),
                DimIndex::Slice { start, len, stride } => Ok(Idx::Slice {
                    start: self.int(start, env)?,
                    len: self.int(len, env)?,
                    stride: self.int(stride, env)?,
                }),
            })
            .collect()
    }

    fn index(&mut self, arr: &str, idx: &[DimIndex], env: &mut Env<B::Buf>) -> Result<Val<B::Buf>> {
        let a = self.array(arr, env)?;
        let idx = self.indices(idx, env)?;
        let sel = array_ops::select(&a.shape, &idx)?;
        let positions = sel.positions();
        let host = match &a.data {
            Data::Host(h) | Data::Mirrored { host: h, .. } => h.clone(),
            Data::Device(d) => {
                // Host code that indexes a device array usually does so again (a loop
                // over its elements): keep the host copy beside the device one.
                let h = self.backend.download(d, a.elem, a.len())?;
                let mirrored = Array {
                    data: Data::Mirrored {
                        host: h.clone(),
                        device: d.clone(),
                    },
                    ..a.clone()
                };
                env.insert(arr.to_string(), Val::Arr(mirrored));
                h
            }
        };
        let buf = match Selection::contiguous(&positions) {
            Some((start, len)) => host
                .slice(start, start + len)
                .ok_or_else(|| ExecError::malformed("index beyond a buffer"))?,
            None => prim::gather(&host, &positions)?,
        };
        if sel.shape.is_empty() {
            let v = prim::get(&buf, 0).ok_or_else(|| ExecError::malformed("empty index"))?;
            return Ok(Val::Prim(v));
        }
        Ok(Val::Arr(Array::host(a.elem, sel.shape, buf)))
    }

    fn update(
        &mut self,
        arr: &str,
        idx: &[DimIndex],
        v: &SubExp,
        env: &mut Env<B::Buf>,
    ) -> Result<Array<B::Buf>> {
        let a = self.array(arr, env)?;
        // The consumed array is dead after this statement: dropping our binding lets the
        // update happen in place when nothing else shares the buffer.
        env.remove(arr);
        let idx = self.indices(idx, env)?;
        let sel = array_ops::select(&a.shape, &idx)?;
        let positions = sel.positions();
        let src = match self.subexp(v, env)? {
            Val::Prim(p) => prim::filled(p, 1),
            Val::Arr(v) => {
                if v.shape != sel.shape {
                    return Err(ExecError::runtime(format!(
                        "Cannot update array of shape {} at index {} with value of shape {}.",
                        show_shape(&a.shape),
                        array_ops::show_index(&idx),
                        show_shape(&v.shape)
                    )));
                }
                (*self.host(&v)?).clone()
            }
        };
        let mut buf = self.host(&a)?;
        drop(a.data);
        array_ops::scatter_into(Rc::make_mut(&mut buf), &positions, &src)?;
        Ok(Array {
            elem: a.elem,
            shape: a.shape,
            data: Data::Host(buf),
        })
    }

    fn replicate(&mut self, dims: Vec<i64>, v: Val<B::Buf>) -> Result<Array<B::Buf>> {
        let times = elems(&dims);
        let (elem, mut shape, row) = match v {
            Val::Prim(p) => (p.ty(), Vec::new(), prim::filled(p, 1)),
            Val::Arr(a) => {
                let h = self.host(&a)?;
                (a.elem, a.shape, (*h).clone())
            }
        };
        let mut full = dims;
        full.append(&mut shape);
        Ok(Array::host(elem, full, array_ops::tile(&row, times)))
    }

    fn concat(
        &mut self,
        arrs: &[String],
        size: i64,
        pat: &Pat,
        env: &Env<B::Buf>,
    ) -> Result<Array<B::Buf>> {
        let parts = arrs
            .iter()
            .map(|a| self.array(a, env))
            .collect::<Result<Vec<_>>>()?;
        let Some(first) = parts.first() else {
            let elem = pat
                .elems
                .first()
                .map(|p| p.ty.elem())
                .unwrap_or(PrimType::I64);
            return Ok(Array::host(elem, vec![0], prim::empty(elem)));
        };
        let (elem, inner) = (first.elem, first.shape[1..].to_vec());
        let mut buf = prim::empty(elem);
        let mut total = 0;
        for p in &parts {
            if p.shape.get(1..) != Some(&inner[..]) {
                return Err(ExecError::runtime(format!(
                    "Cannot concatenate arrays of shapes {} and {}.",
                    show_shape(&first.shape),
                    show_shape(&p.shape)
                )));
            }
            total += p.shape.first().copied().unwrap_or(0);
            let h = self.host(p)?;
            buf.extend_from(&h)
                .map_err(|e| ExecError::malformed(e.to_string()))?;
        }
        if total != size {
            return Err(ExecError::runtime(format!(
                "Cannot concatenate to an array of {size} rows: the parts have {total}."
            )));
        }
        let mut shape = vec![total];
        shape.extend(inner);
        Ok(Array::host(elem, shape, buf))
    }

    fn do_loop(
        &mut self,
        params: &[(futhark_ir::soacs::Param, SubExp)],
        form: &LoopForm,
        body: &Body,
        env: &mut Env<B::Buf>,
    ) -> Result<Vec<Val<B::Buf>>> {
        let mut vals = params
            .iter()
            .map(|(_, init)| self.subexp(init, env))
            .collect::<Result<Vec<_>>>()?;
        match form {
            LoopForm::For { var, bound } => {
                let bound = self.prim(bound, env)?;
                let n = prim::int(bound);
                let mut i: i128 = 0;
                while i < n {
                    self.check_deadline()?;
                    for ((p, _), v) in params.iter().zip(vals) {
                        env.insert(p.name.clone(), v);
                    }
                    env.insert(var.clone(), Val::Prim(from_int(bound.ty(), i)));
                    vals = self.body(body, env)?;
                    i += 1;
                }
            }
            LoopForm::While { cond } => loop {
                self.check_deadline()?;
                for ((p, _), v) in params.iter().zip(vals) {
                    env.insert(p.name.clone(), v);
                }
                if !as_bool(self.prim(&SubExp::Var(cond.clone()), env)?)? {
                    vals = params
                        .iter()
                        .map(|(p, _)| self.subexp(&SubExp::Var(p.name.clone()), env))
                        .collect::<Result<Vec<_>>>()?;
                    break;
                }
                vals = self.body(body, env)?;
            },
        }
        Ok(vals)
    }

    fn launch(&mut self, l: &Launch, env: &mut Env<B::Buf>) -> Result<Vec<Val<B::Buf>>> {
        let kd = self
            .kernels
            .get(&l.kernel)
            .cloned()
            .ok_or_else(|| ExecError::malformed(format!("unknown kernel `{}`", l.kernel)))?;
        let kp = &kd.program;
        if l.sizes.len() != kp.sizes.len() || l.args.len() != kp.arrays.len() {
            return Err(ExecError::malformed(format!(
                "launch of `{}`: {} sizes and {} arrays for {} and {}",
                l.kernel,
                l.sizes.len(),
                l.args.len(),
                kp.sizes.len(),
                kp.arrays.len()
            )));
        }
        let sizes = l
            .sizes
            .iter()
            .map(|s| self.int(s, env))
            .collect::<Result<Vec<i64>>>()?;
        let size_of = |s: &Size| -> i64 {
            match s {
                Size::Const(c) => *c,
                Size::Param(p) => kp
                    .sizes
                    .iter()
                    .position(|n| n == p)
                    .map(|i| sizes[i])
                    .unwrap_or(0),
            }
        };
        let shapes: Vec<Vec<i64>> = kp
            .arrays
            .iter()
            .map(|a| a.shape.iter().map(size_of).collect())
            .collect();
        let mut bufs = Vec::with_capacity(kp.arrays.len());
        for ((decl, arg), shape) in kp.arrays.iter().zip(&l.args).zip(&shapes) {
            if !matches!(arg, KernelArg::In(_)) {
                check_dims(shape)?;
            }
            let need = elems(shape);
            let buf = match arg {
                KernelArg::In(s) => match self.subexp(s, env)? {
                    Val::Prim(p) => self.backend.upload(&Rc::new(prim::filled(p, 1)))?,
                    Val::Arr(a) => {
                        check_arg(&l.kernel, &decl.name, decl.elem, need, &a)?;
                        let d = self.device(&a)?;
                        // Keep the uploaded copy: a loop launching on the same host array
                        // uploads it once.
                        if let (SubExp::Var(name), Data::Host(h)) = (s, &a.data) {
                            let mirrored = Data::Mirrored {
                                host: h.clone(),
                                device: d.clone(),
                            };
                            env.insert(
                                name.clone(),
                                Val::Arr(Array {
                                    data: mirrored,
                                    ..a
                                }),
                            );
                        }
                        d
                    }
                },
                KernelArg::Out => self
                    .backend
                    .alloc(decl.elem, need)
                    .map_err(|e| allocating(e, &decl.name, shape, decl.elem, &l.kernel))?,
                KernelArg::InOut(name) => {
                    let a = self.array(name, env)?;
                    env.remove(name);
                    check_arg(&l.kernel, &decl.name, decl.elem, need, &a)?;
                    let d = self.device(&a)?;
                    drop(a);
                    self.backend.unique(d, decl.elem, need)?
                }
            };
            bufs.push(buf);
        }
        self.check_deadline()?;
        // Checks that depend on sizes alone are made here, once, when the space has points
        // (they would pass or fail alike at each). A negative extent comes only from an
        // invalid size (a slice that ends before it starts, say) whose check sits in a
        // kernel left without points to run it: then every such check is made here.
        // With an empty dimension no point would have made them.
        for k in &kp.kernels {
            let dims = &k.op.space().dims;
            if dims.iter().all(|(_, d)| size_of(d) != 0) {
                let negative = dims.iter().any(|(_, d)| size_of(d) < 0);
                uniform_checks(kp, k, &sizes, negative)?;
            }
        }
        if has_work(kp, &size_of) {
            self.backend.launch(&kd, &sizes, &mut bufs)?;
        }
        let mut out = Vec::new();
        for (((decl, arg), shape), buf) in kp.arrays.iter().zip(&l.args).zip(shapes).zip(bufs) {
            if matches!(arg, KernelArg::In(_)) {
                continue;
            }
            if decl.shape.is_empty() {
                let h = self.backend.download(&buf, decl.elem, 1)?;
                let v = prim::get(&h, 0).ok_or_else(|| ExecError::malformed("empty scalar"))?;
                out.push(Val::Prim(v));
            } else {
                out.push(Val::Arr(Array {
                    elem: decl.elem,
                    shape,
                    data: Data::Device(buf),
                }));
            }
        }
        Ok(out)
    }
}

/// Whether any kernel of the program has a point to run or a segment to produce (a launch
/// over nothing is skipped: CUDA rejects empty grids). A reduction over empty segments
/// still writes the neutral element, so it counts when it has segments.
/// Makes the checks at the top of kernel `k`'s body that depend only on the program's sizes
/// (the same at every point), failing as the kernel would: the ones marked uniform, or with
/// `every` all that can be evaluated from the sizes.
fn uniform_checks(
    kp: &KernelProgram,
    k: &futhark_ir::Kernel,
    sizes: &[i64],
    every: bool,
) -> Result<()> {
    use futhark_ir::{Exp as KExp, Stm as KStm};
    fn eval(e: &KExp, known: &HashMap<String, PrimValue>) -> Option<PrimValue> {
        Some(match e {
            KExp::Const(c) => *c,
            KExp::Var(v) => *known.get(v)?,
            KExp::Bin(op, a, b) => {
                crate::kernel_ops::binop(*op, eval(a, known)?, eval(b, known)?).ok()?
            }
            KExp::Cmp(op, a, b) => PrimValue::Bool(crate::kernel_ops::cmpop(
                *op,
                eval(a, known)?,
                eval(b, known)?,
            )),
            KExp::Un(op, a) => crate::kernel_ops::unop(*op, eval(a, known)?),
            KExp::Conv(t, a) => crate::kernel_ops::conv(*t, eval(a, known)?),
            KExp::Select(c, t, f) => match eval(c, known)? {
                PrimValue::Bool(true) => eval(t, known)?,
                PrimValue::Bool(false) => eval(f, known)?,
                _ => return None,
            },
            KExp::Math(..) | KExp::Read(..) => return None,
        })
    }
    {
        let mut known: HashMap<String, PrimValue> = kp
            .sizes
            .iter()
            .zip(sizes)
            .map(|(n, v)| (n.clone(), PrimValue::I64(*v)))
            .collect();
        for stm in &k.op.body().stms {
            match stm {
                KStm::Let { name, exp, .. } => {
                    if let Some(v) = eval(exp, &known) {
                        known.insert(name.clone(), v);
                    }
                }
                KStm::Check(c) if every || c.uniform => {
                    if eval(&c.cond, &known) != Some(PrimValue::Bool(false)) {
                        continue;
                    }
                    let Some(args) = c
                        .args
                        .iter()
                        .map(|a| eval(a, &known))
                        .collect::<Option<Vec<_>>>()
                    else {
                        continue;
                    };
                    return Err(ExecError::runtime_at(
                        fill_message(&c.msg, &args),
                        c.loc.clone(),
                    ));
                }
                _ => {}
            }
        }
    }
    Ok(())
}

fn has_work(kp: &KernelProgram, size_of: &dyn Fn(&Size) -> i64) -> bool {
    kp.kernels.iter().any(|k| {
        let dims: Vec<i64> = k.op.space().dims.iter().map(|(_, s)| size_of(s)).collect();
        match &k.op {
            SegOp::Red(_) => dims[..dims.len().saturating_sub(1)].iter().all(|d| *d > 0),
            _ => dims.iter().all(|d| *d > 0),
        }
    })
}

fn check_arg<D>(kernel: &str, decl: &str, elem: PrimType, need: usize, a: &Array<D>) -> Result<()> {
    if a.elem != elem || a.len() < need {
        return Err(ExecError::malformed(format!(
            "launch of `{kernel}`: array `{decl}` wants {need} {elem} elements, given {} {}",
            a.len(),
            a.elem
        )));
    }
    Ok(())
}

fn check_dims(dims: &[i64]) -> Result<()> {
    match dims.iter().find(|d| **d < 0) {
        Some(d) => Err(ExecError::runtime(format!("Negative dimension {d}."))),
        None => Ok(()),
    }
}

/// Binds a statement's results to its pattern, existential sizes from the results' shapes.
fn bind_pat<D>(pat: &Pat, vals: Vec<Val<D>>, env: &mut Env<D>) -> Result<()> {
    if vals.len() != pat.elems.len() {
        return Err(ExecError::malformed(format!(
            "{} values bound to a pattern of {}",
            vals.len(),
            pat.elems.len()
        )));
    }
    // Each size is bound from the first result that has it as a dimension.
    for c in &pat.ctx {
        let n = pat
            .elems
            .iter()
            .zip(&vals)
            .find_map(|(p, v)| {
                p.ty.shape()
                    .iter()
                    .zip(v.shape())
                    .find(|(d, _)| d.as_var() == Some(c))
                    .map(|(_, n)| *n)
            })
            .unwrap_or(0);
        env.insert(c.clone(), Val::Prim(PrimValue::I64(n)));
    }
    for (p, v) in pat.elems.iter().zip(vals) {
        env.insert(p.name.clone(), v);
    }
    Ok(())
}

/// An assertion's message with its holes filled: integers print bare (`Range 5...1 is
/// invalid.`, as the interpreter says it), other values in Futhark's syntax.
/// An assertion's or check's message with its holes filled by values (integers without
/// their type suffix, as Futhark prints them).
pub(crate) fn fill_message(msg: &str, values: &[PrimValue]) -> String {
    let shown: Vec<String> = values
        .iter()
        .map(|v| futhark_ir::soacs::message::show(*v))
        .collect();
    futhark_ir::soacs::message::fill(msg, &shown)
}

/// An allocation failure of a launch's output, naming the array, its shape and the kernel.
fn allocating(e: ExecError, array: &str, shape: &[i64], elem: PrimType, kernel: &str) -> ExecError {
    match e {
        ExecError::Backend(m) => {
            let dims: String = shape.iter().map(|d| format!("[{d}]")).collect();
            ExecError::Backend(format!(
                "{m}: the array `{array}` ({dims}{}) written by kernel `{kernel}`",
                elem.name()
            ))
        }
        e => e,
    }
}
