//! Several devices as one backend: kernels split over them as husks (seed 000).
//!
//! Each array handle ([`MultiBuf`]) knows where its elements are: whole on some devices
//! (copies with equal contents), partitioned by rows over the devices, or both. A launch
//! either runs whole on device 0, or — when the kernel is a husk
//! ([`futhark_ir::husk::husk`]) and the cost model says splitting pays — runs one piece
//! per device on its rows, after which:
//!
//! - map results stay partitioned (no copy), and the next husk whose aligned inputs are
//!   partitioned the same way reads them where they are;
//! - reductions fold the per-device partials in device order on device 0;
//! - scans add to each piece the scan of the earlier pieces' totals (the carry);
//! - histograms fold the other devices' subhistograms into device 0's bucket by bucket.
//!
//! A split launch whose row boundaries are free (no aligned input) takes them from the times
//! its pieces took at the kernel's previous launch ([`balance`]): rows of uneven cost
//! (mandelbrot) still keep every device busy equally long. `FUTHARK_BALANCE=0` keeps every
//! split even.
//!
//! Copies between devices happen only when an operation needs elements that are not on its
//! device: broadcasting an input read at arbitrary indices, moving rows into a partition,
//! or gathering a partitioned array for a kernel that runs whole. With one device every
//! launch goes straight to it.

mod balance;
mod cost;
mod cpu_peer;
mod helpers;
mod place;

use std::collections::HashMap;
use std::ops::Range;
use std::rc::Rc;
use std::time::Instant;

use crate::partition::split_rows;
use futhark_ir::husk::{Combine, Husk, husk};
use futhark_ir::soacs::KernelDef;
use futhark_ir::types::PrimType;
use futhark_ir::{KernelProgram, Size};
use futhark_options::ExecOptions;
use futhark_values::Buffer;

use crate::backend::{Backend, KernelProfile, PeerBackend};
use crate::error::{ExecError, Result};
use crate::value::elems;

/// Uploads of at most this many bytes (the scalars a host computes) go to every device.
const SMALL_UPLOAD: usize = 1024;

pub use place::MultiBuf;

pub use futhark_options::SplitPolicy;

/// What became of one kernel program's launches, for `--profile`.
#[derive(Clone, Debug, Default)]
struct SplitStats {
    split: u64,
    whole: u64,
    /// Why the last whole launch was not split.
    reason: Option<Why>,
    /// Bytes copied between devices for this kernel's launches (inputs, combines).
    moved: u64,
    /// Host time spent issuing this kernel's launches (with more than one device).
    host_ns: u64,
}

/// Why a launch ran whole on one device.
#[derive(Clone, Debug)]
enum Why {
    /// The kernel cannot be split (shared with the plan).
    Husk(Rc<str>),
    Cost(cost::Declined),
}

impl std::fmt::Display for Why {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Why::Husk(s) => f.write_str(s),
            Why::Cost(d) => d.fmt(f),
        }
    }
}

/// A kernel's husk and the helper programs its combine runs.
struct Plan {
    /// The program's name, shared with the arrays its pieces write (see `charged`).
    name: Rc<str>,
    /// Shared: the launch path takes it on every launch.
    husk: std::result::Result<Rc<Husk>, Rc<str>>,
    /// Operations per point for the sizes of the last launch (see [`cost::kernel_ops`]).
    ops: Option<(Vec<i64>, f64)>,
    /// The piece and combine programs, once loaded on every device.
    /// Shared: a split launch takes them on every launch (cloning the programs was most
    /// of the host's cost per launch).
    helpers: Option<Rc<helpers::Helpers>>,
    /// Arrays some kernel of the program writes (shared: taken on every launch).
    written: Rc<[usize]>,
    /// Launches that reached the cost model, and whether the last of them was split.
    launches: u64,
    last_split: bool,
    /// A split launch after a split launch moved more than splitting gains: stop judging
    /// this kernel by its steady state (see [`cost::decide`]).
    distrust: bool,
}

/// `G` devices of one kind behind the [`Backend`] interface.
pub struct Multi<D: PeerBackend> {
    /// Declared before `devs` so that its stamps (GPU events) go before their devices.
    balance: balance::Balancer,
    devs: Vec<D>,
    kernels: HashMap<String, KernelDef>,
    plans: HashMap<String, Plan>,
    policy: SplitPolicy,
    stats: HashMap<String, SplitStats>,
    /// Bytes copied between devices because a split kernel left its results partitioned
    /// where a later launch needed them elsewhere (a gather for a kernel kept on one device,
    /// a broadcast for one that reads every row), by that kernel. Its next decisions count
    /// these bytes per split launch as part of what splitting costs: a kernel whose
    /// partitioned results are always gathered again (one split kernel among unsplit
    /// neighbours) stops being split.
    charged: HashMap<Rc<str>, u64>,
    /// An intra-block program's kernels as programs of their own, each with the indices of
    /// its arrays in the program's: with several devices each is split on its own (a husk is
    /// one kernel), as it was before `fuse-intra` put them together.
    stages: HashMap<String, Vec<(KernelDef, Vec<usize>)>>,
}

impl<D: PeerBackend> Multi<D> {
    /// The devices, in order; device 0 runs whatever is not split. The split policy and
    /// balancing are the defaults (see [`Multi::with_options`]).
    pub fn new(devs: Vec<D>) -> Result<Multi<D>> {
        Multi::with_options(devs, &ExecOptions::default())
    }

    /// The devices, splitting and balancing launches as `options` say.
    pub fn with_options(devs: Vec<D>, options: &ExecOptions) -> Result<Multi<D>> {
        if devs.is_empty() {
            return Err(ExecError::Backend("no device to run on".into()));
        }
        Ok(Multi {
            balance: balance::Balancer::new(options.balance),
            devs,
            kernels: HashMap::new(),
            plans: HashMap::new(),
            policy: options.split,
            stats: HashMap::new(),
            charged: HashMap::new(),
            stages: HashMap::new(),
        })
    }

    pub fn set_policy(&mut self, policy: SplitPolicy) {
        self.policy = policy;
    }

    /// Whether split launches may take uneven rows from measured times (on unless
    /// `ExecOptions::balance` is off); switching forgets what was measured.
    pub fn set_balancing(&mut self, on: bool) {
        self.balance.set_enabled(on);
    }

    /// For each kernel whose launches are balanced, by name: the rows of each device at its
    /// next split launch.
    pub fn row_splits(&self) -> Vec<(String, Vec<Range<u64>>)> {
        self.balance.all()
    }

    /// How many devices launches may be spread over.
    pub fn device_count(&self) -> usize {
        self.devs.len()
    }

    /// The devices themselves.
    pub fn devices(&mut self) -> &mut [D] {
        &mut self.devs
    }

    /// Places `buf` partitioned by rows over the devices (rows of `row_len` elements), as
    /// if a split kernel had produced it: what a resident input looks like.
    pub fn distribute(&mut self, buf: &Rc<MultiBuf<D::Buf>>, row_len: usize) -> Result<()> {
        if row_len == 0 || buf.len % row_len != 0 {
            return Err(ExecError::malformed(format!(
                "cannot split {} elements into rows of {row_len}",
                buf.len
            )));
        }
        let ranges = element_ranges((buf.len / row_len) as u64, self.devs.len(), row_len);
        let mut moved = 0;
        place::partition(&mut self.devs, buf, &ranges, &mut moved)?;
        Ok(())
    }

    fn plan(&mut self, kd: &KernelDef) -> &mut Plan {
        by_name(&mut self.plans, &kd.name, || Self::new_plan(kd))
    }

    fn new_plan(kd: &KernelDef) -> Plan {
        let prog = &kd.program;
        Plan {
            name: Rc::from(kd.name.as_str()),
            husk: husk(prog).map(Rc::new).map_err(Rc::from),
            ops: None,
            helpers: None,
            written: crate::backend::written_arrays(prog).into(),
            launches: 0,
            last_split: false,
            distrust: false,
        }
    }

    /// The profile entry of kernel `name`.
    fn stat(&mut self, name: &str) -> &mut SplitStats {
        by_name(&mut self.stats, name, SplitStats::default)
    }

    /// Runs the whole kernel program on device 0.
    fn launch_whole(
        &mut self,
        kd: &KernelDef,
        sizes: &[i64],
        arrays: &mut [Rc<MultiBuf<D::Buf>>],
        written: &[usize],
    ) -> Result<()> {
        let mut moved = 0u64;
        let mut bufs = Vec::with_capacity(arrays.len());
        for a in arrays.iter() {
            let before = moved;
            bufs.push(place::whole_on(&mut self.devs, 0, a, &mut moved)?);
            self.charge(a, moved - before);
        }
        self.devs[0].launch(kd, sizes, &mut bufs)?;
        for &i in written {
            arrays[i].set_whole(0, bufs[i].clone());
        }
        self.stat(&kd.name).moved += moved;
        Ok(())
    }

    /// Runs the launch whole on device 0 and records why it was not split.
    fn keep_whole(
        &mut self,
        kd: &KernelDef,
        why: Why,
        sizes: &[i64],
        arrays: &mut [Rc<MultiBuf<D::Buf>>],
        written: &[usize],
    ) -> Result<()> {
        let st = self.stat(&kd.name);
        st.whole += 1;
        st.reason = Some(why);
        self.launch_whole(kd, sizes, arrays, written)
    }

    /// Charges `bytes` copied for `a` to the split kernel that left it partitioned.
    fn charge(&mut self, a: &MultiBuf<D::Buf>, bytes: u64) {
        if bytes > 0
            && let Some(k) = a.producer()
        {
            *self.charged.entry(k).or_default() += bytes;
        }
    }

    /// Bytes per split launch that kernel `name`'s partitioned results have cost later
    /// launches so far.
    fn charged_per_split(&self, name: &str) -> f64 {
        let splits = self.stats.get(name).map_or(0, |s| s.split);
        match self.charged.get(name) {
            Some(&b) if splits > 0 => b as f64 / splits as f64,
            _ => 0.0,
        }
    }

    /// Runs the launch split over the devices; the bytes it copied between them.
    fn launch_split(
        &mut self,
        kd: &KernelDef,
        h: &Husk,
        hp: &helpers::Helpers,
        sizes: &[i64],
        arrays: &mut [Rc<MultiBuf<D::Buf>>],
    ) -> Result<u64> {
        let prog = &kd.program;
        let size_of = |s: &Size| size_value(prog, sizes, s);
        let n = size_of(&h.split).max(0) as u64;
        // Elements per row of each array that is split with the rows.
        let row_len = |i: usize| -> usize {
            let shape = &prog.arrays[i].shape;
            elems(&shape.iter().skip(1).map(size_of).collect::<Vec<_>>())
        };
        // Aligned inputs already partitioned alike give their rows (no copy: a balanced
        // kernel's consumers follow it); without aligned inputs the rows are free, and
        // balanced by measured time; otherwise they are even.
        let (rows, timed) = if let Some(rows) = common_rows(prog, h, arrays, n, &row_len) {
            (rows, false)
        } else if self.balance.enabled() && h.aligned.is_empty() {
            self.balance.rows(&kd.name, n, &mut self.devs)?
        } else {
            (split_rows(n, self.devs.len()), false)
        };
        let active: Vec<usize> = (0..self.devs.len())
            .filter(|&g| rows[g].end > rows[g].start)
            .collect();
        let mut moved = 0u64;
        let mut per_dev: Vec<Vec<D::Buf>> = Vec::with_capacity(active.len());
        for &g in &active {
            let r = &rows[g];
            let mut bufs = Vec::with_capacity(prog.arrays.len());
            for (i, decl) in prog.arrays.iter().enumerate() {
                let a = &arrays[i];
                let is_result = h.results.contains(&decl.name);
                let before = moved;
                let buf = if h.private.contains(&decl.name) {
                    // Scratch: each device its own, nothing to copy in or keep.
                    self.devs[g].alloc(decl.elem, a.len.max(1))?
                } else if h.aligned.contains(&decl.name) {
                    let ranges = row_elements(&rows, row_len(i));
                    match place::partition(&mut self.devs, a, &ranges, &mut moved)?[g].clone() {
                        Some(b) => b,
                        // Rows of no elements (an inner extent of 0): nothing to read.
                        None if ranges[g].is_empty() => self.devs[g].alloc(decl.elem, 1)?,
                        None => return Err(ExecError::Backend("missing partition".into())),
                    }
                } else if is_result {
                    match &h.combine {
                        Combine::Rows | Combine::ScanCarry { .. } => {
                            let len = (r.end - r.start) as usize * row_len(i);
                            self.devs[g].alloc(decl.elem, len)?
                        }
                        Combine::Reduce { .. } => self.devs[g].alloc(decl.elem, a.len.max(1))?,
                        Combine::Hist { .. } => {
                            if g == active[0] {
                                place::whole_on(&mut self.devs, g, a, &mut moved)?
                            } else {
                                let k = h.results.iter().position(|x| *x == decl.name).unwrap_or(0);
                                let fill = hp.fill.get(k).ok_or_else(|| {
                                    ExecError::malformed("histogram without a neutral element")
                                })?;
                                let mut buf = [self.devs[g].alloc(decl.elem, a.len.max(1))?];
                                if a.len > 0 {
                                    self.devs[g].launch(fill, &[a.len as i64], &mut buf)?;
                                }
                                let [buf] = buf;
                                buf
                            }
                        }
                    }
                } else {
                    place::whole_on(&mut self.devs, g, a, &mut moved)?
                };
                self.charge(a, moved - before);
                bufs.push(buf);
            }
            per_dev.push(bufs);
        }
        // Launch only once every device has its inputs: a copy waits for everything queued
        // on its source device, so launching a piece before the next device's copies would
        // make those copies (and that device) wait for the piece. A timed piece is bracketed
        // by stamps in its device's queue, after its copies, read at a later launch.
        let mut stamps: balance::Stamps = (0..self.devs.len()).map(|_| None).collect();
        for (j, &g) in active.iter().enumerate() {
            let r = &rows[g];
            let mut piece_sizes = sizes.to_vec();
            piece_sizes.extend([r.start as i64, (r.end - r.start) as i64]);
            let start = if timed { self.devs[g].stamp()? } else { None };
            self.devs[g].launch(&hp.piece, &piece_sizes, &mut per_dev[j])?;
            if let Some(start) = start
                && let Some(end) = self.devs[g].stamp()?
            {
                stamps[g] = Some((start, end));
            }
        }
        if timed {
            self.balance.measured(&kd.name, &rows, stamps);
        }
        let result_idx: Vec<usize> = h
            .results
            .iter()
            .filter_map(|r| prog.arrays.iter().position(|d| d.name == *r))
            .collect();
        let first = active.first().copied().unwrap_or(0);
        // The name the plan shares with the arrays its pieces write (see `charged`).
        let producer: Rc<str> = self
            .plans
            .get(&kd.name)
            .map_or_else(|| Rc::from(kd.name.as_str()), |p| p.name.clone());
        for (i, decl) in prog.arrays.iter().enumerate() {
            if h.private.contains(&decl.name)
                && let Some(b) = per_dev.first()
            {
                arrays[i].set_whole(first, b[i].clone());
            }
        }
        let elems_t: Vec<PrimType> = result_idx.iter().map(|&i| prog.arrays[i].elem).collect();
        // Per result, each active device's piece buffer, in device order.
        let by_result: helpers::PerDevice<D::Buf> = result_idx
            .iter()
            .map(|&i| {
                active
                    .iter()
                    .enumerate()
                    .map(|(j, &g)| (g, per_dev[j][i].clone()))
                    .collect()
            })
            .collect();
        match &h.combine {
            Combine::Rows => {
                for &i in &result_idx {
                    let ranges = row_elements(&rows, row_len(i));
                    let mut parts = vec![None; self.devs.len()];
                    for (j, &g) in active.iter().enumerate() {
                        parts[g] = Some(per_dev[j][i].clone());
                    }
                    arrays[i].set_parts(ranges, parts);
                    arrays[i].set_producer(producer.clone());
                }
            }
            Combine::Reduce { .. } => {
                let outs = helpers::combine_reduce(
                    &mut self.devs,
                    hp,
                    &elems_t,
                    first,
                    by_result,
                    &mut moved,
                )?;
                for (&i, out) in result_idx.iter().zip(outs) {
                    arrays[i].set_whole(first, out);
                }
            }
            Combine::ScanCarry { .. } => {
                let pieces: Vec<Vec<(usize, D::Buf, usize)>> = result_idx
                    .iter()
                    .map(|&i| {
                        active
                            .iter()
                            .enumerate()
                            .map(|(j, &g)| {
                                let len = (rows[g].end - rows[g].start) as usize * row_len(i);
                                (g, per_dev[j][i].clone(), len)
                            })
                            .collect()
                    })
                    .collect();
                let carried =
                    helpers::combine_scan(&mut self.devs, hp, &elems_t, pieces, &mut moved)?;
                for (&i, parts_i) in result_idx.iter().zip(carried) {
                    let ranges = row_elements(&rows, row_len(i));
                    let mut parts = vec![None; self.devs.len()];
                    for (g, b) in parts_i {
                        parts[g] = Some(b);
                    }
                    arrays[i].set_parts(ranges, parts);
                    arrays[i].set_producer(producer.clone());
                }
            }
            Combine::Hist { .. } => {
                let buckets = result_idx.first().map_or(0, |&i| arrays[i].len);
                let outs = helpers::combine_hist(
                    &mut self.devs,
                    hp,
                    &elems_t,
                    buckets,
                    by_result,
                    &mut moved,
                )?;
                for (&i, out) in result_idx.iter().zip(outs) {
                    arrays[i].set_whole(first, out);
                }
            }
        }
        let st = self.stat(&kd.name);
        st.moved += moved;
        Ok(moved)
    }

    /// One launch: whole on device 0 or split, as the husk and the cost model decide.
    fn launch_any(
        &mut self,
        kd: &KernelDef,
        sizes: &[i64],
        arrays: &mut [Rc<MultiBuf<D::Buf>>],
    ) -> Result<()> {
        let g = self.devs.len();
        let policy = self.policy;
        let plan = self.plan(kd);
        let written = plan.written.clone();
        if g == 1 || policy == SplitPolicy::Never {
            return self.launch_whole(kd, sizes, arrays, &written);
        }
        let h = match &plan.husk {
            Ok(h) => h.clone(),
            Err(why) => {
                let why = Why::Husk(why.clone());
                return self.keep_whole(kd, why, sizes, arrays, &written);
            }
        };
        if size_value(&kd.program, sizes, &h.split) < 1 {
            return self.launch_whole(kd, sizes, arrays, &written);
        }
        if !h.holds(|s| size_value(&kd.program, sizes, s)) {
            let why = Why::Husk(Rc::from(
                "its row-local reads need sizes that differ in this launch",
            ));
            return self.keep_whole(kd, why, sizes, arrays, &written);
        }
        let threads = self.devs[0].threads();
        let later = self.charged_per_split(&kd.name);
        let ops = match self.plans.get_mut(&kd.name) {
            Some(Plan {
                ops: Some((s, ops)),
                ..
            }) if s.as_slice() == sizes => *ops,
            Some(p) => {
                let ops = cost::kernel_ops(&kd.program, sizes);
                p.ops = Some((sizes.to_vec(), ops));
                ops
            }
            None => cost::kernel_ops(&kd.program, sizes),
        };
        // A kernel launched before is judged by its steady state, unless that trust failed.
        let (steady, after_split) = self.plans.get_mut(&kd.name).map_or((false, false), |p| {
            let seen = (p.launches > 0 && !p.distrust, p.last_split);
            p.launches += 1;
            p.last_split = false;
            seen
        });
        let decision = cost::decide(
            &kd.program,
            &h,
            sizes,
            arrays,
            g,
            threads,
            later,
            ops,
            steady,
        );
        if policy == SplitPolicy::Auto
            && let Err(why) = decision
        {
            return self.keep_whole(kd, Why::Cost(why), sizes, arrays, &written);
        }
        let hp = match &self.plans[&kd.name].helpers {
            Some(hp) => hp.clone(),
            None => {
                let hp = Rc::new(helpers::build(&kd.name, &h, &kd.program)?);
                let progs = hp.all();
                for d in &mut self.devs {
                    d.prepare(&progs)?;
                }
                if let Some(p) = self.plans.get_mut(&kd.name) {
                    p.helpers = Some(hp.clone());
                }
                hp
            }
        };
        let moved = self.launch_split(kd, &h, &hp, sizes, arrays)?;
        self.stat(&kd.name).split += 1;
        if let Some(p) = self.plans.get_mut(&kd.name) {
            p.last_split = true;
            // The second split in a row moves what the steady state moves: if that is more
            // than splitting gains, the neighbours did not split along (their results reach
            // this kernel whole), so count moves from now on.
            if let (Ok(est), true, true) = (decision, steady, after_split)
                && !est.pays(moved as f64 + later)
            {
                p.distrust = true;
            }
        }
        Ok(())
    }
}

/// The entry of `map` for `name`, made by `make` if there is none. Looked up before
/// inserting: `HashMap::entry` would allocate the name on every launch.
fn by_name<'a, V>(
    map: &'a mut HashMap<String, V>,
    name: &str,
    make: impl FnOnce() -> V,
) -> &'a mut V {
    if !map.contains_key(name) {
        map.insert(name.to_string(), make());
    }
    map.get_mut(name).expect("inserted above")
}

/// The value of a size under a launch's sizes.
pub(crate) fn size_value(prog: &KernelProgram, sizes: &[i64], s: &Size) -> i64 {
    match s {
        Size::Const(c) => *c,
        Size::Param(p) => prog
            .sizes
            .iter()
            .position(|n| n == p)
            .and_then(|i| sizes.get(i).copied())
            .unwrap_or(0),
    }
}

/// The element ranges of `rows` rows of `row_len` elements each, split evenly over
/// `devices`.
fn element_ranges(rows: u64, devices: usize, row_len: usize) -> Vec<Range<usize>> {
    row_elements(&split_rows(rows, devices), row_len)
}

/// The row ranges every partitioned aligned input of `h` shares (uneven ones included), when
/// there is at least one and they agree; `None` otherwise.
fn common_rows<B: Clone>(
    prog: &KernelProgram,
    h: &Husk,
    arrays: &[Rc<MultiBuf<B>>],
    n: u64,
    row_len: &dyn Fn(usize) -> usize,
) -> Option<Vec<Range<u64>>> {
    let mut common: Option<Vec<Range<u64>>> = None;
    for (i, decl) in prog.arrays.iter().enumerate() {
        if !h.aligned.contains(&decl.name) {
            continue;
        }
        let Some(parts) = arrays.get(i)?.layout().1 else {
            continue;
        };
        let rl = row_len(i);
        if rl == 0 || parts.iter().any(|r| r.start % rl != 0 || r.end % rl != 0) {
            return None;
        }
        let rows: Vec<Range<u64>> = parts
            .iter()
            .map(|r| (r.start / rl) as u64..(r.end / rl) as u64)
            .collect();
        if rows.last().map(|r| r.end) != Some(n) || rows.first().map(|r| r.start) != Some(0) {
            return None;
        }
        match &common {
            Some(c) if *c != rows => return None,
            Some(_) => {}
            None => common = Some(rows),
        }
    }
    common
}

/// The element ranges of row ranges, rows of `row_len` elements each.
fn row_elements(rows: &[Range<u64>], row_len: usize) -> Vec<Range<usize>> {
    rows.iter()
        .map(|r| r.start as usize * row_len..r.end as usize * row_len)
        .collect()
}

/// Each kernel of an intra-block program as a program of its own (the program's sizes, the
/// arrays the kernel uses), with the indices of those arrays in the program's.
fn stage_programs(kd: &KernelDef) -> Vec<(KernelDef, Vec<usize>)> {
    let prog = &kd.program;
    prog.kernels
        .iter()
        .enumerate()
        .map(|(i, k)| {
            let used = prog.kernel_arrays(k);
            let idx = used
                .iter()
                .filter_map(|a| prog.arrays.iter().position(|d| d.name == a.name))
                .collect();
            let program = KernelProgram {
                sizes: prog.sizes.clone(),
                arrays: used.into_iter().cloned().collect(),
                kernels: vec![k.clone()],
                intra: None,
            };
            let name = format!("{}_stage{i}", kd.name);
            (KernelDef { name, program }, idx)
        })
        .collect()
}

impl<D: PeerBackend> Backend for Multi<D> {
    type Buf = Rc<MultiBuf<D::Buf>>;

    fn name(&self) -> &'static str {
        self.devs[0].name()
    }

    fn prepare(&mut self, kernels: &[KernelDef]) -> Result<()> {
        let mut all = kernels.to_vec();
        if self.devs.len() > 1 {
            for k in kernels.iter().filter(|k| k.program.intra.is_some()) {
                let stages = stage_programs(k);
                all.extend(stages.iter().map(|(d, _)| d.clone()));
                self.stages.insert(k.name.clone(), stages);
            }
        }
        self.devs[0].prepare(&all)?;
        for k in all {
            self.kernels.insert(k.name.clone(), k);
        }
        Ok(())
    }

    fn upload(&mut self, data: &Rc<Buffer>) -> Result<Self::Buf> {
        let elem = data.elem_type();
        let b = MultiBuf::new(elem, data.len(), self.devs.len());
        if data.len() * elem.size_bytes() <= SMALL_UPLOAD {
            // Scalars the host computes go to the other devices straight from the host, when
            // a launch there needs them: a peer copy would wait for everything queued on
            // GPU 0, and uploading to every device at once costs each upload a synchronous
            // copy per device even when only GPU 0 uses it (cfd: ~16 us per launch per extra
            // GPU, all its kernels on GPU 0).
            b.set_uploaded(0, self.devs[0].upload(data)?, data.clone());
        } else {
            b.set_whole(0, self.devs[0].upload(data)?);
        }
        Ok(Rc::new(b))
    }

    fn download(&mut self, buf: &Self::Buf, elem: PrimType, len: usize) -> Result<Rc<Buffer>> {
        let out = place::download(&mut self.devs, buf, elem, len)?;
        // What was downloaded may come from another GPU's failed piece (through a copy or
        // a combine): every GPU is asked.
        if self.devs.len() > 1 {
            self.check_failures()?;
        }
        Ok(out)
    }

    fn alloc(&mut self, elem: PrimType, len: usize) -> Result<Self::Buf> {
        // Storage is placed by the launch that writes it.
        Ok(Rc::new(MultiBuf::new(elem, len, self.devs.len())))
    }

    fn unique(&mut self, buf: Self::Buf, _elem: PrimType, _len: usize) -> Result<Self::Buf> {
        if Rc::strong_count(&buf) == 1 {
            return Ok(buf);
        }
        place::copy(&mut self.devs, &buf).map(Rc::new)
    }

    fn launch(&mut self, kd: &KernelDef, sizes: &[i64], arrays: &mut [Self::Buf]) -> Result<()> {
        if self.devs.len() == 1 {
            return self.launch_any(kd, sizes, arrays);
        }
        if let Some(stages) = self.stages.get(&kd.name).cloned() {
            for (stage, idx) in &stages {
                let mut sub: Vec<Self::Buf> = idx.iter().map(|&i| arrays[i].clone()).collect();
                self.launch(stage, sizes, &mut sub)?;
                for (&i, b) in idx.iter().zip(sub) {
                    arrays[i] = b;
                }
            }
            return Ok(());
        }
        // Host time per kernel (`--profile`): issuing pieces, copies and combines on every
        // device. It includes time blocked in the driver when a device's queue of launches
        // is full, so it equals the run's time when the host is ahead of the devices; only
        // when it is well below does it show the host's own cost.
        let t0 = Instant::now();
        let r = self.launch_any(kd, sizes, arrays);
        let ns = t0.elapsed().as_nanos() as u64;
        self.stat(&kd.name).host_ns += ns;
        r
    }

    fn profile(&mut self) -> Result<Vec<KernelProfile>> {
        let many = self.devs.len() > 1;
        let mut out = Vec::new();
        for (g, d) in self.devs.iter_mut().enumerate() {
            for mut p in d.profile()? {
                if many {
                    p.name = format!("gpu{g}: {}", p.name);
                }
                out.push(p);
            }
        }
        if many {
            let mut names: Vec<&String> = self.stats.keys().collect();
            names.sort();
            for name in names {
                let st = &self.stats[name];
                let later = match self.charged.get(name.as_str()) {
                    Some(&b) if b > 0 => format!(
                        "; its partitioned results cost later launches {:.1} MB between GPUs",
                        b as f64 / 1e6
                    ),
                    _ => String::new(),
                };
                let balanced = match self.balance.balanced(name) {
                    Some(rows) if st.split > 0 => {
                        let rows: Vec<String> = rows
                            .iter()
                            .map(|r| format!("{}..{}", r.start, r.end))
                            .collect();
                        format!("; rows balanced by measured time: {}", rows.join(", "))
                    }
                    _ => String::new(),
                };
                let what = if st.split > 0 && st.whole == 0 {
                    format!("split over {} GPUs", self.devs.len())
                } else {
                    let why = st.reason.as_ref().map_or(String::new(), |w| w.to_string());
                    if st.split == 0 {
                        format!("kept on gpu0: {why}")
                    } else {
                        format!("split {} times, kept whole {} ({why})", st.split, st.whole)
                    }
                };
                out.push(KernelProfile {
                    name: format!(
                        "(husk) {name}: {what}{balanced}{later}; host time in launch calls, bytes between GPUs"
                    ),
                    launches: st.split + st.whole,
                    total_ms: st.host_ns as f64 / 1e6,
                    bytes: st.moved,
                });
            }
        }
        Ok(out)
    }

    fn set_profiling(&mut self, on: bool) {
        for d in &mut self.devs {
            d.set_profiling(on);
        }
    }

    fn synchronize(&mut self) -> Result<()> {
        for d in &mut self.devs {
            d.synchronize()?;
        }
        Ok(())
    }

    /// Every GPU's slot is read and cleared; the first GPU's failure (in device order) is
    /// reported, so a failing piece is reported as the whole launch would report it.
    fn check_failures(&mut self) -> Result<()> {
        let mut first = Ok(());
        for d in &mut self.devs {
            let r = d.check_failures();
            if first.is_ok() {
                first = r;
            }
        }
        first
    }
}
