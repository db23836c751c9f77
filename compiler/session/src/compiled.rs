//! The compiled path: a cell compiled to the kernel stage and run by
//! [`futhark_exec::Executor`] on a [`Backend`] that lives as long as the session (CUDA on the
//! GPUs, or the CPU reference backend as a stand-in).
//!
//! Every cell gets a fresh executor for its own program, but all of them drive the same
//! backend through [`Shared`]: kernels that earlier cells prepared (generated, compiled by
//! NVRTC, loaded) are not prepared again, and buffers outlive the executor that made them.
//! That is what keeps results resident: `it` and top-level `let` bindings are held here as
//! the executor's own values (device buffers on CUDA) and passed to the next cell's entry
//! point without a copy.
//!
//! Only values whose type has a data form are kept: primitives, arrays of primitives and
//! tuples of those ([`Layout`]). Everything here is generic over the backend, so the tests
//! run the same code over [`futhark_exec::CpuBackend`].

use std::cell::RefCell;
use std::collections::HashMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use futhark_check::Type;
use futhark_exec::{
    Array, Backend, CACHE_PROFILE, CODEGEN_PROFILE, Data, ExecError, Executor, KernelProfile,
    LOAD_PROFILE, NVRTC_PROFILE, Val,
};
use futhark_ir::soacs::{FunDef, KernelDef, Program, SubExp};
use futhark_ir::types::{PrimType, PrimValue};
use futhark_values::{self as fv, Buffer};

use crate::backend::Device;
use crate::outcome::PrepareParts;
use crate::value::ValueView;

/// The entry point a cell's expression becomes.
pub const CELL_ENTRY: &str = "futhark_cell";

/// How a value of a checker type is laid out as executor values: the types the session can
/// keep and show from the compiled path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Layout {
    /// A primitive.
    Scalar(PrimType),
    /// An array of primitives: rank and element type.
    Array(usize, PrimType),
    /// A tuple of these (never empty).
    Tuple(Vec<Layout>),
}

impl Layout {
    /// The layout of a checker type, or `None` when it has no data form here (functions,
    /// records, sums, arrays of tuples, type variables).
    pub fn of(ty: &Type) -> Option<Layout> {
        match ty {
            Type::Prim(p) => Some(Layout::Scalar(*p)),
            Type::Array(a) => match &a.elem {
                Type::Prim(p) => Some(Layout::Array(a.shape.len(), *p)),
                _ => None,
            },
            Type::Record(fields) if !fields.is_empty() => {
                let mut elems: Vec<(usize, &Type)> = Vec::new();
                for (name, t) in fields {
                    elems.push((name.parse().ok()?, t));
                }
                elems.sort_by_key(|e| e.0);
                if elems.iter().enumerate().any(|(i, e)| e.0 != i) {
                    return None;
                }
                elems
                    .into_iter()
                    .map(|(_, t)| Layout::of(t))
                    .collect::<Option<Vec<_>>>()
                    .map(Layout::Tuple)
            }
            _ => None,
        }
    }

    /// The type as written in a parameter annotation (sizes left anonymous).
    pub fn annotation(&self) -> String {
        match self {
            Layout::Scalar(p) => p.to_string(),
            Layout::Array(rank, p) => format!("{}{p}", "[]".repeat(*rank)),
            Layout::Tuple(ts) => format!(
                "({})",
                ts.iter()
                    .map(Layout::annotation)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }

    /// How many executor values a value of this layout is.
    pub fn count(&self) -> usize {
        match self {
            Layout::Tuple(ts) => ts.iter().map(Layout::count).sum(),
            _ => 1,
        }
    }

    /// Whether flat data-format values fit this layout (ranks and element types).
    fn fits(&self, vals: &[fv::Value]) -> bool {
        let mut it = vals.iter();
        self.fits_iter(&mut it) && it.next().is_none()
    }

    fn fits_iter<'a>(&self, it: &mut impl Iterator<Item = &'a fv::Value>) -> bool {
        match self {
            Layout::Scalar(p) => it
                .next()
                .is_some_and(|v| v.rank() == 0 && v.elem_type() == *p),
            Layout::Array(r, p) => it
                .next()
                .is_some_and(|v| v.rank() == *r && v.elem_type() == *p),
            Layout::Tuple(ts) => ts.iter().all(|t| t.fits_iter(it)),
        }
    }

    /// A view of flat values laid out like this.
    pub fn view(&self, vals: &mut impl Iterator<Item = fv::Value>) -> Option<ValueView> {
        match self {
            Layout::Scalar(_) | Layout::Array(..) => vals.next().map(ValueView::Prim),
            Layout::Tuple(ts) => ts
                .iter()
                .map(|t| t.view(vals))
                .collect::<Option<Vec<_>>>()
                .map(ValueView::Tuple),
        }
    }

    /// The flat values of a view laid out like this (an interpreter result).
    pub fn flatten(&self, view: &ValueView) -> Option<Vec<fv::Value>> {
        let mut out = Vec::new();
        self.flatten_into(view, &mut out)?;
        self.fits(&out).then_some(out)
    }

    fn flatten_into(&self, view: &ValueView, out: &mut Vec<fv::Value>) -> Option<()> {
        match (self, view) {
            (Layout::Scalar(_) | Layout::Array(..), ValueView::Prim(v)) => {
                out.push(v.clone());
                Some(())
            }
            (Layout::Tuple(ts), ValueView::Tuple(vs)) if ts.len() == vs.len() => {
                for (t, v) in ts.iter().zip(vs) {
                    t.flatten_into(v, out)?;
                }
                Some(())
            }
            _ => None,
        }
    }
}

/// A backend shared by the executors of successive cells. Kernels are prepared once: a
/// kernel program equal to one prepared before (same name, same code) is not handed to the
/// backend again.
pub struct Shared<B> {
    inner: Rc<RefCell<B>>,
    prepared: Rc<RefCell<HashMap<String, KernelDef>>>,
}

impl<B> Clone for Shared<B> {
    fn clone(&self) -> Self {
        Shared {
            inner: self.inner.clone(),
            prepared: self.prepared.clone(),
        }
    }
}

impl<B: Backend> Shared<B> {
    pub fn new(backend: B) -> Shared<B> {
        Shared {
            inner: Rc::new(RefCell::new(backend)),
            prepared: Rc::new(RefCell::new(HashMap::new())),
        }
    }
}

impl<B: Backend> Backend for Shared<B> {
    type Buf = B::Buf;

    fn name(&self) -> &'static str {
        self.inner.borrow().name()
    }

    fn prepare(&mut self, kernels: &[KernelDef]) -> futhark_exec::Result<()> {
        let fresh: Vec<KernelDef> = {
            let prepared = self.prepared.borrow();
            kernels
                .iter()
                .filter(|k| prepared.get(&k.name) != Some(*k))
                .cloned()
                .collect()
        };
        if fresh.is_empty() {
            return Ok(());
        }
        self.inner.borrow_mut().prepare(&fresh)?;
        let mut prepared = self.prepared.borrow_mut();
        for k in fresh {
            prepared.insert(k.name.clone(), k);
        }
        Ok(())
    }

    fn upload(&mut self, data: &Rc<Buffer>) -> futhark_exec::Result<B::Buf> {
        self.inner.borrow_mut().upload(data)
    }

    fn download(
        &mut self,
        buf: &B::Buf,
        elem: PrimType,
        len: usize,
    ) -> futhark_exec::Result<Rc<Buffer>> {
        self.inner.borrow_mut().download(buf, elem, len)
    }

    fn alloc(&mut self, elem: PrimType, len: usize) -> futhark_exec::Result<B::Buf> {
        self.inner.borrow_mut().alloc(elem, len)
    }

    fn unique(&mut self, buf: B::Buf, elem: PrimType, len: usize) -> futhark_exec::Result<B::Buf> {
        self.inner.borrow_mut().unique(buf, elem, len)
    }

    fn launch(
        &mut self,
        kernel: &KernelDef,
        sizes: &[i64],
        arrays: &mut [B::Buf],
    ) -> futhark_exec::Result<()> {
        self.inner.borrow_mut().launch(kernel, sizes, arrays)
    }

    fn profile(&mut self) -> futhark_exec::Result<Vec<KernelProfile>> {
        self.inner.borrow_mut().profile()
    }
}

/// One kernel's share of a cell.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelTime {
    pub name: String,
    pub launches: u64,
    pub ms: f64,
}

/// What running a cell's program gave.
#[derive(Clone, Debug, PartialEq)]
pub struct Ran {
    /// The result on the host, when the cell shows it.
    pub value: Option<ValueView>,
    /// Preparing the program's kernels (code generation, NVRTC or its disk cache, loading).
    pub prepare: Duration,
    /// Running the entry point and bringing the result to the host.
    pub run: Duration,
    /// Kernels launched by this cell, with their times.
    pub kernels: Vec<KernelTime>,
    /// Other lines of the backend's profile that changed with this cell (the multi-GPU
    /// executor's decisions, `(husk) …`).
    pub notes: Vec<String>,
    /// Bytes copied host to device and device to host by this cell (when measured).
    pub uploaded: u64,
    pub downloaded: u64,
    /// Kernel programs prepared for this cell (not seen in an earlier cell).
    pub new_kernels: usize,
    /// Modules NVRTC compiled for this cell (`None`: the backend has no NVRTC).
    pub nvrtc: Option<u64>,
    /// Where preparing went (`None`: the backend does not say).
    pub prepare_parts: Option<PrepareParts>,
}

/// Why the compiled path did not give a value.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum RunError {
    /// A run-time error of the program (bounds, assertions, …), worded as Futhark words it.
    #[error("{0}")]
    Program(String),
    /// The compiled path cannot run this (an unsupported construct, a backend or compiler
    /// failure); the interpreter may.
    #[error("{0}")]
    Cannot(String),
}

/// A value kept between cells.
struct Resident<D> {
    layout: Layout,
    vals: Vec<Val<D>>,
}

/// The session's side of a compiled backend, as a trait object so the session holds CUDA
/// or the CPU stand-in alike.
pub trait Runner {
    /// Where cells run: `cuda: 2 GPUs (NVIDIA H200 (sm_90))`, `CPU executor`.
    fn label(&self) -> String;
    fn device(&self) -> Device;
    /// Runs entry [`CELL_ENTRY`] of `prog`, passing the resident values `params` (in order)
    /// and viewing its result as `layout`; on success the result is kept as `bind`. With
    /// `show` false (a `let` cell, which prints nothing) the result stays on the device,
    /// copied to the host only when something asks for it.
    fn run(
        &mut self,
        prog: Program,
        params: &[String],
        layout: &Layout,
        bind: &str,
        show: bool,
    ) -> Result<Ran, RunError>;
    /// The resident values and their layouts.
    fn residents(&self) -> Vec<(String, Layout)>;
    /// Keeps host values (an interpreter result) as `name`.
    fn keep(&mut self, name: &str, layout: Layout, vals: Vec<fv::Value>);
    fn forget(&mut self, name: &str);
    fn clear(&mut self);
    /// Every resident value on the host (before the backend goes away).
    fn take_host(&mut self) -> Vec<(String, Layout, Vec<fv::Value>)>;
    /// The session's interrupt flag: a running cell stops (between kernel launches) once it
    /// is set.
    fn set_interrupt(&mut self, flag: Arc<AtomicBool>);
}

/// A cell's program that ran: the results to keep and their host copies, and times.
struct Finished<D> {
    kept: Vec<Val<D>>,
    /// The results on the host, when shown.
    host: Option<Vec<fv::Value>>,
    prepare: Duration,
    run: Duration,
    new_kernels: usize,
}

/// A [`Runner`] over any backend.
pub struct Compiled<B: Backend> {
    backend: Shared<B>,
    label: String,
    device: Device,
    resident: HashMap<String, Resident<B::Buf>>,
    interrupt: Option<Arc<AtomicBool>>,
}

impl<B: Backend> Compiled<B> {
    pub fn new(backend: B, label: String, device: Device) -> Compiled<B> {
        Compiled {
            backend: Shared::new(backend),
            label,
            device,
            resident: HashMap::new(),
            interrupt: None,
        }
    }

    fn profile(&mut self) -> HashMap<String, (u64, f64, u64)> {
        self.backend
            .profile()
            .unwrap_or_default()
            .into_iter()
            .map(|k| (k.name, (k.launches, k.total_ms, k.bytes)))
            .collect()
    }

    fn run_inner(
        &mut self,
        prog: Program,
        params: &[String],
        layout: &Layout,
        show: bool,
    ) -> Result<Finished<B::Buf>, ExecError> {
        let entry = prog
            .funs
            .iter()
            .find(|f| f.entry.as_ref().is_some_and(|e| e.name == CELL_ENTRY))
            .cloned()
            .ok_or_else(|| ExecError::malformed("the cell's entry point was not compiled"))?;
        let mut args = Vec::new();
        for p in params {
            let r = self
                .resident
                .get(p)
                .ok_or_else(|| ExecError::malformed(format!("`{p}` is not resident")))?;
            args.extend(r.vals.iter().cloned());
        }
        let args = ir_args(&entry, args)?;
        let before = self.backend.prepared.borrow().len();
        let start = Instant::now();
        let mut exec = Executor::new(prog, self.backend.clone())?;
        if let Some(flag) = &self.interrupt {
            // A request made while no cell ran is not for this cell.
            flag.store(false, Ordering::Relaxed);
            exec.set_interrupt(flag.clone());
        }
        let prepare = start.elapsed();
        let new_kernels = self.backend.prepared.borrow().len() - before;
        let start = Instant::now();
        let results = exec.call(&entry.name, args)?;
        if results.len() != layout.count() {
            return Err(ExecError::malformed(format!(
                "the cell's entry point gave {} values where its type has {}",
                results.len(),
                layout.count()
            )));
        }
        let (kept, host) = if show {
            let mut kept = Vec::with_capacity(results.len());
            let mut host = Vec::with_capacity(results.len());
            for v in results {
                let (k, h) = self.bring_home(v)?;
                kept.push(k);
                host.push(h);
            }
            (kept, Some(host))
        } else {
            (results, None)
        };
        Ok(Finished {
            kept,
            host,
            prepare,
            run: start.elapsed(),
            new_kernels,
        })
    }

    /// A value on the host, and the value to keep (a device array becomes mirrored, so
    /// showing it again costs no copy).
    fn bring_home(&mut self, v: Val<B::Buf>) -> Result<(Val<B::Buf>, fv::Value), ExecError> {
        match v {
            Val::Prim(p) => Ok((Val::Prim(p), scalar(p))),
            Val::Arr(a) => {
                let host = match &a.data {
                    Data::Host(b) | Data::Mirrored { host: b, .. } => b.clone(),
                    Data::Device(d) => self.backend.download(d, a.elem, a.len())?,
                };
                let value = fv::Value::new(a.shape.clone(), (*host).clone())
                    .map_err(|e| ExecError::malformed(e.to_string()))?;
                let data = match a.data {
                    Data::Device(device) | Data::Mirrored { device, .. } => {
                        Data::Mirrored { host, device }
                    }
                    Data::Host(h) => Data::Host(h),
                };
                Ok((
                    Val::Arr(Array {
                        elem: a.elem,
                        shape: a.shape,
                        data,
                    }),
                    value,
                ))
            }
        }
    }
}

impl<B: Backend> Runner for Compiled<B> {
    fn label(&self) -> String {
        self.label.clone()
    }

    fn device(&self) -> Device {
        self.device
    }

    fn run(
        &mut self,
        prog: Program,
        params: &[String],
        layout: &Layout,
        bind: &str,
        show: bool,
    ) -> Result<Ran, RunError> {
        let before = self.profile();
        let r = catch_unwind(AssertUnwindSafe(|| {
            self.run_inner(prog, params, layout, show)
        }));
        let Finished {
            kept,
            host,
            prepare,
            run,
            new_kernels,
        } = match r {
            Ok(Ok(x)) => x,
            Ok(Err(e @ ExecError::Runtime { .. })) => {
                return Err(RunError::Program(e.to_string()));
            }
            Ok(Err(ExecError::Interrupted)) => {
                return Err(RunError::Program("Interrupted.".to_string()));
            }
            Ok(Err(e)) => return Err(RunError::Cannot(e.to_string())),
            Err(p) => {
                let msg = p
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| p.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "unknown panic".to_string());
                return Err(RunError::Cannot(format!(
                    "internal error in the executor: {msg}"
                )));
            }
        };
        let after = self.profile();
        let mut kernels = Vec::new();
        let mut notes = Vec::new();
        let (mut uploaded, mut downloaded) = (0, 0);
        let mut nvrtc = None;
        let mut parts: Option<PrepareParts> = None;
        for (name, (launches, ms, bytes)) in &after {
            let (l0, ms0, b0) = before.get(name).copied().unwrap_or_default();
            let spent = (ms - ms0).max(0.0);
            match name.as_str() {
                // One line per GPU (`gpu1: (NVRTC compiles)`) on several.
                n if n.ends_with(NVRTC_PROFILE) => {
                    *nvrtc.get_or_insert(0) += launches.saturating_sub(l0);
                    parts.get_or_insert_default().nvrtc_ms += spent;
                }
                n if n.ends_with(CODEGEN_PROFILE) => {
                    parts.get_or_insert_default().codegen_ms += spent;
                }
                n if n.ends_with(CACHE_PROFILE) => parts.get_or_insert_default().cache_ms += spent,
                n if n.ends_with(LOAD_PROFILE) => parts.get_or_insert_default().load_ms += spent,
                "(host to device)" => uploaded = bytes.saturating_sub(b0),
                "(device to host)" => downloaded = bytes.saturating_sub(b0),
                n if n.starts_with('(') && *launches > l0 => notes.push(n.to_string()),
                n if n.starts_with('(') => {}
                _ if *launches > l0 => kernels.push(KernelTime {
                    name: short_name(name),
                    launches: launches - l0,
                    ms: (ms - ms0).max(0.0),
                }),
                _ => {}
            }
        }
        kernels.sort_by(|a, b| b.ms.total_cmp(&a.ms).then(a.name.cmp(&b.name)));
        notes.sort();
        let value =
            match host {
                Some(host) => Some(layout.view(&mut host.into_iter()).ok_or_else(|| {
                    RunError::Cannot("the result does not fit its type".to_string())
                })?),
                None => None,
            };
        self.resident.insert(
            bind.to_string(),
            Resident {
                layout: layout.clone(),
                vals: kept,
            },
        );
        Ok(Ran {
            value,
            prepare,
            run,
            kernels,
            notes,
            uploaded,
            downloaded,
            new_kernels,
            nvrtc,
            prepare_parts: parts,
        })
    }

    fn residents(&self) -> Vec<(String, Layout)> {
        let mut v: Vec<(String, Layout)> = self
            .resident
            .iter()
            .map(|(n, r)| (n.clone(), r.layout.clone()))
            .collect();
        v.sort_by(|a, b| a.0.cmp(&b.0));
        v
    }

    fn keep(&mut self, name: &str, layout: Layout, vals: Vec<fv::Value>) {
        let vals = vals.into_iter().map(from_host).collect();
        self.resident
            .insert(name.to_string(), Resident { layout, vals });
    }

    fn forget(&mut self, name: &str) {
        self.resident.remove(name);
    }

    fn clear(&mut self) {
        self.resident.clear();
    }

    fn set_interrupt(&mut self, flag: Arc<AtomicBool>) {
        self.interrupt = Some(flag);
    }

    fn take_host(&mut self) -> Vec<(String, Layout, Vec<fv::Value>)> {
        let mut out = Vec::new();
        for (name, r) in std::mem::take(&mut self.resident) {
            let mut host = Vec::new();
            for v in r.vals {
                match self.bring_home(v) {
                    Ok((_, h)) => host.push(h),
                    Err(_) => break,
                }
            }
            if host.len() == r.layout.count() {
                out.push((name, r.layout, host));
            }
        }
        out
    }
}

/// A kernel's name without the repetition the CUDA backend adds (`p_k` for kernel `k` of
/// kernel program `p`, where a one-kernel program shares its kernel's name: `x_x`).
/// A piece of a kernel split over GPUs is `p__piece_k`, shown as `k (piece)`; the
/// multi-GPU executor's `gpuN: ` prefix stays.
fn short_name(name: &str) -> String {
    let (dev, rest) = match name.split_once(": ") {
        Some((d, r)) if d.starts_with("gpu") => (&name[..d.len() + 2], r),
        _ => ("", name),
    };
    for (i, _) in rest.match_indices('_') {
        let (p, k) = (&rest[..i], &rest[i + 1..]);
        if p == k {
            return format!("{dev}{k}");
        }
        if p.strip_prefix(k) == Some("__piece") {
            return format!("{dev}{k} (piece)");
        }
    }
    name.to_string()
}

/// The IR arguments of the cell's entry function: size parameters read from the values'
/// shapes, then the values.
fn ir_args<D>(f: &FunDef, vals: Vec<Val<D>>) -> Result<Vec<Val<D>>, ExecError> {
    let n_values = vals.len();
    let n_sizes = f
        .params
        .len()
        .checked_sub(n_values)
        .ok_or_else(|| ExecError::malformed("the cell's entry point takes fewer values"))?;
    let (size_params, value_params) = f.params.split_at(n_sizes);
    let mut sizes = vec![0i64; n_sizes];
    for (p, v) in value_params.iter().zip(&vals) {
        if p.ty.rank() != v.shape().len() || p.ty.elem() != v.elem() {
            return Err(ExecError::malformed(format!(
                "resident value of the wrong type for `{}`",
                p.name
            )));
        }
        for (d, n) in p.ty.shape().iter().zip(v.shape()) {
            if let SubExp::Var(name) = d
                && let Some(i) = size_params.iter().position(|s| s.name == *name)
            {
                sizes[i] = *n;
            }
        }
    }
    let mut out: Vec<Val<D>> = sizes
        .into_iter()
        .map(|s| Val::Prim(PrimValue::I64(s)))
        .collect();
    out.extend(vals);
    Ok(out)
}

/// A host value as an executor value.
fn from_host<D>(v: fv::Value) -> Val<D> {
    let elem = v.elem_type();
    let (shape, buf) = v.into_parts();
    if shape.is_empty()
        && let Some(p) = first(&buf)
    {
        return Val::Prim(p);
    }
    Val::Arr(Array::host(elem, shape, buf))
}

fn first(buf: &Buffer) -> Option<PrimValue> {
    Some(match buf {
        Buffer::Bool(v) => PrimValue::Bool(*v.first()?),
        Buffer::I8(v) => PrimValue::I8(*v.first()?),
        Buffer::I16(v) => PrimValue::I16(*v.first()?),
        Buffer::I32(v) => PrimValue::I32(*v.first()?),
        Buffer::I64(v) => PrimValue::I64(*v.first()?),
        Buffer::U8(v) => PrimValue::U8(*v.first()?),
        Buffer::U16(v) => PrimValue::U16(*v.first()?),
        Buffer::U32(v) => PrimValue::U32(*v.first()?),
        Buffer::U64(v) => PrimValue::U64(*v.first()?),
        Buffer::F16(v) => PrimValue::F16(v.first()?.to_bits()),
        Buffer::F32(v) => PrimValue::F32(*v.first()?),
        Buffer::F64(v) => PrimValue::F64(*v.first()?),
    })
}

/// A scalar as a data-format value.
fn scalar(p: PrimValue) -> fv::Value {
    match p {
        PrimValue::Bool(x) => fv::Value::scalar(x),
        PrimValue::I8(x) => fv::Value::scalar(x),
        PrimValue::I16(x) => fv::Value::scalar(x),
        PrimValue::I32(x) => fv::Value::scalar(x),
        PrimValue::I64(x) => fv::Value::scalar(x),
        PrimValue::U8(x) => fv::Value::scalar(x),
        PrimValue::U16(x) => fv::Value::scalar(x),
        PrimValue::U32(x) => fv::Value::scalar(x),
        PrimValue::U64(x) => fv::Value::scalar(x),
        PrimValue::F16(bits) => fv::Value::scalar(fv::f16::from_bits(bits)),
        PrimValue::F32(x) => fv::Value::scalar(x),
        PrimValue::F64(x) => fv::Value::scalar(x),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futhark_exec::CpuBackend;

    fn program(text: &str) -> Program {
        let mut db = futhark_db::Database::new();
        let file = db.set_file("[test].fut", text);
        match futhark_db::compile(&db, file, futhark_db::IrStage::Kernels) {
            Ok(p) => p,
            Err(e) => panic!("{e}"),
        }
    }

    fn cpu() -> Compiled<CpuBackend> {
        Compiled::new(CpuBackend::new(), "cpu".into(), Device::CpuExecutor)
    }

    fn ints(v: &ValueView) -> Vec<i64> {
        match v {
            ValueView::Prim(p) => p.as_slice::<i64>().map(<[i64]>::to_vec).unwrap_or_default(),
            _ => Vec::new(),
        }
    }

    #[test]
    fn the_busiest_device_bounds_kernel_time() {
        let k = |name: &str, ms: f64| KernelTime {
            name: name.into(),
            launches: 1,
            ms,
        };
        let p = crate::outcome::Profile {
            kernels: vec![k("gpu0: a", 2.0), k("gpu1: a", 3.0), k("gpu0: b", 2.5)],
            ..Default::default()
        };
        assert_eq!(p.busiest_ms(), 4.5);
        assert_eq!(p.kernel_ms(), 7.5);
    }

    #[test]
    fn the_profile_says_where_preparing_went() {
        let parts = PrepareParts {
            codegen_ms: 1.3,
            nvrtc_ms: 12.0,
            cache_ms: 0.5,
            load_ms: 2.0,
        };
        let mut p = crate::outcome::Profile {
            new_kernels: 1,
            nvrtc: Some(1),
            prepare_parts: Some(parts),
            ..Default::default()
        };
        let table = p.table();
        assert!(
            table.ends_with(
                "\npreparing: CUDA generation 1.3 ms, NVRTC 12.0 ms, kernel cache 0.5 ms, \
                 module loads 2.0 ms"
            ),
            "{table}"
        );
        // Nothing prepared, nothing to break down.
        p.new_kernels = 0;
        assert!(!p.table().contains("preparing:"));
    }

    #[test]
    fn repeated_kernel_names_are_shortened() {
        assert_eq!(short_name("k_map_2_k_map_2"), "k_map_2");
        assert_eq!(short_name("k_map_2_red_3"), "k_map_2_red_3");
        assert_eq!(short_name("a"), "a");
        assert_eq!(short_name("gpu1: k_map_2_k_map_2"), "gpu1: k_map_2");
        assert_eq!(
            short_name("gpu0: e_9_map_2__piece_e_9_map_2"),
            "gpu0: e_9_map_2 (piece)"
        );
        assert_eq!(short_name("gpu0: peer-copy"), "gpu0: peer-copy");
    }

    #[test]
    fn layouts_of_types() {
        let arr = Layout::Array(2, PrimType::F32);
        assert_eq!(arr.annotation(), "[][]f32");
        let t = Layout::Tuple(vec![Layout::Scalar(PrimType::I32), arr]);
        assert_eq!(t.annotation(), "(i32, [][]f32)");
        assert_eq!(t.count(), 2);
        let vals = vec![
            fv::Value::scalar(1i32),
            fv::Value::from_vec(vec![1, 2], vec![1f32, 2f32]).expect("shape"),
        ];
        assert!(t.fits(&vals));
        assert!(!t.fits(&vals[..1]));
        let view = t.view(&mut vals.clone().into_iter()).expect("view");
        assert_eq!(t.flatten(&view), Some(vals));
    }

    #[test]
    fn results_stay_resident_and_move_between_backends() {
        let layout = Layout::Array(1, PrimType::I64);
        let mut a = cpu();
        let r = a
            .run(
                program(&format!("entry {CELL_ENTRY} = iota 4")),
                &[],
                &layout,
                "it",
                true,
            )
            .expect("runs");
        assert_eq!(ints(r.value.as_ref().expect("shown")), vec![0, 1, 2, 3]);
        let moved = a.take_host();
        assert!(a.residents().is_empty());
        let mut b = cpu();
        for (n, l, v) in moved {
            b.keep(&n, l, v);
        }
        assert_eq!(b.residents(), vec![("it".to_string(), layout.clone())]);
        let prog = program(&format!("entry {CELL_ENTRY} (it: []i64) = map (*2) it"));
        let r = b
            .run(prog, &["it".to_string()], &layout, "it", true)
            .expect("runs");
        assert_eq!(ints(r.value.as_ref().expect("shown")), vec![0, 2, 4, 6]);
        assert_eq!(r.kernels.len(), 1);
        assert_eq!(r.new_kernels, 1);
    }

    #[test]
    fn results_not_shown_stay_on_the_device_until_asked_for() {
        let layout = Layout::Array(1, PrimType::I64);
        let mut a = cpu();
        let prog = program(&format!("entry {CELL_ENTRY} = map (*3) (iota 4)"));
        let r = a.run(prog, &[], &layout, "ys", false).expect("runs");
        assert!(r.value.is_none());
        assert_eq!(r.downloaded, 0);
        // Later cells take it as a parameter; moving backends brings it home.
        let prog = program(&format!("entry {CELL_ENTRY} (ys: []i64) = map (+1) ys"));
        let r = a
            .run(prog, &["ys".to_string()], &layout, "it", true)
            .expect("runs");
        assert_eq!(ints(r.value.as_ref().expect("shown")), vec![1, 4, 7, 10]);
        let moved = a.take_host();
        let ys = moved.iter().find(|(n, _, _)| n == "ys").expect("ys kept");
        assert_eq!(ys.2.len(), 1);
        assert_eq!(ys.2[0].to_string(), "[0i64, 3i64, 6i64, 9i64]");
    }

    #[test]
    fn failures_are_classified() {
        let layout = Layout::Scalar(PrimType::I64);
        let mut a = cpu();
        let prog = program(&format!("entry {CELL_ENTRY} = [1i64, 2][3]"));
        assert!(matches!(
            a.run(prog, &[], &layout, "it", true),
            Err(RunError::Program(m)) if m.contains("out of bounds")
        ));
        // A parameter that is not resident is the session's mistake, not the program's.
        let prog = program(&format!("entry {CELL_ENTRY} (it: i64) = it"));
        assert!(matches!(
            a.run(prog, &["it".to_string()], &layout, "it", true),
            Err(RunError::Cannot(_))
        ));
        assert!(a.residents().is_empty());
    }
}
