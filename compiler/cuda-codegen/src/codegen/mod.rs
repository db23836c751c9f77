//! Kernel IR to CUDA C.
//!
//! Each IR kernel becomes one CUDA module: the prelude, per-operator helper functions, and
//! one or more `extern "C"` entry points, plus a `LaunchPlan` that tells the runtime which
//! entry to launch for the sizes at hand and what scratch memory it needs. Block sizes that
//! the kernel's shared-memory layout depends on are compile-time constants of the source;
//! grid sizes, segment strategies and subhistogram counts are chosen at run time from the
//! sizes and the device (see `runtime::launch`).
//!
//! | IR | entries | strategy |
//! |---|---|---|
//! | `SegMap` | 1 | grid-stride loop, 16-byte vector loads/stores on identity accesses |
//! | `Scatter` | 1 | grid-stride loop, bounds-checked writes |
//! | `SegRed` | block, warp, thread (+ tiled) | per-thread accumulation, warp shuffles, block tree; several blocks per segment finish with a last-block reduction of their partials (in order); contractions (matmul, n-body) also get a block- and register-tiled entry (`tile.rs`) |
//! | `SegScan` | look-back (+ thread) | single-pass decoupled look-back over tiles; segments as flags in the operator |
//! | `SegHist` | shared, global (+ pack, unpack) | shared-memory subhistograms (in passes over chunks of buckets when large) merged with global updates, or global updates; native atomics, CAS loops (packed pairs) or locks per operator |

mod canonical;
pub mod emit;
pub mod hist;
pub mod intra;
pub mod prelude;
pub mod prims;
pub mod reduce;
pub mod scan;
pub mod tile;

pub use canonical::canonicalize;
pub use tile::{TileConfig, TilePlan};

/// The longest segment a segmented scan's warp entry takes: 32 lanes of
/// [`WARP_SCAN_ITEMS`] elements each.
pub const WARP_SCAN_MAX: i64 = 32 * WARP_SCAN_ITEMS as i64;
/// Elements each lane of a segmented scan's warp entry holds in registers.
pub const WARP_SCAN_ITEMS: usize = 8;

/// Opens a kernel entry point: `extern "C"` signature `signature` (name and parameter list)
/// with `__launch_bounds__(bounds)`, then `fut_pdl_enter()` as its first statement. Every
/// entry must start so: kernels are launched with programmatic dependent launch and may
/// read or write nothing before it (see the prelude).
pub(crate) fn open_entry(src: &mut String, bounds: impl std::fmt::Display, signature: &str) {
    src.push_str(&format!(
        "extern \"C\" __global__ void __launch_bounds__({bounds}) {signature} {{\n  fut_pdl_enter();\n"
    ));
}

use futhark_ir::{Kernel, KernelProgram, Name, PrimType, SegOp, Size, Stm, TypeError};
use thiserror::Error;

/// Why CUDA could not be generated.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum CodegenError {
    #[error(transparent)]
    Type(#[from] TypeError),
    #[error("kernel `{kernel}`: {what} is not supported by the CUDA backend yet")]
    Unsupported { kernel: Name, what: String },
}

/// A kernel parameter array, in the order the entry points take them.
#[derive(Clone, Debug, PartialEq)]
pub struct ArrayParam {
    pub name: Name,
    pub elem: PrimType,
    pub shape: Vec<Size>,
    pub written: bool,
}

/// How the runtime launches a reduction.
#[derive(Clone, Debug, PartialEq)]
pub struct RedPlan {
    /// One or more blocks per segment (large segments, and the unsegmented case).
    pub block_entry: String,
    /// One warp per segment (medium segments).
    pub warp_entry: String,
    /// One thread per segment (small segments).
    pub thread_entry: String,
    pub segments: Vec<Size>,
    pub inner: Size,
    /// Bytes of one accumulator (the C struct), for the partials scratch array.
    pub acc_size: usize,
    pub block_size: u32,
    pub commutative: bool,
    /// Dynamic shared memory of the block entry.
    pub block_shared: usize,
    /// The block- and register-tiled entries of a contraction (`tile.rs`), largest tiles
    /// first, when the reduction has that shape.
    pub tiled: Vec<TilePlan>,
}

/// How the runtime launches a scan.
#[derive(Clone, Debug, PartialEq)]
pub struct ScanPlan {
    /// The single-pass decoupled look-back kernel (one tile per block).
    pub lookback_entry: String,
    /// One thread per segment, for tiny segments (segmented scans only).
    pub thread_entry: Option<String>,
    /// One warp per segment, for segments of at most [`WARP_SCAN_MAX`] elements (segmented
    /// scans only): no tiles, no look-back; each warp needs
    /// [`scan::warp_slot`]`(acc_size)` bytes of shared memory.
    pub warp_entry: Option<String>,
    pub segments: Vec<Size>,
    pub inner: Size,
    pub acc_size: usize,
    /// Threads per block: the tile's loaders plus one look-back warp.
    pub block_size: u32,
    /// Elements per tile (block size times items per thread).
    pub tile: u64,
    pub shared_bytes: usize,
    /// Whether each tile's status and value share one 64-bit word (accumulators of at most
    /// 4 bytes): the kernel then takes the tile counter and the status words only, instead
    /// of the counter, 32-bit flags, aggregates and inclusive prefixes.
    pub packed: bool,
}

/// How the runtime launches a histogram (see `hist::plan` for the choice of entry).
#[derive(Clone, Debug, PartialEq)]
pub struct HistPlan {
    /// Subhistograms of a chunk of buckets in shared memory, merged into the destination;
    /// takes `(lo, hc, nsub, words, locks)` after the sizes.
    pub shared_entry: String,
    /// Updates straight into the destination; takes `(words, locks)`.
    pub global_entry: String,
    /// Packed buckets: the entries copying the destinations into a scratch array of one
    /// 64-bit word per bucket (which the other entries update) and back.
    pub pack_entries: Option<(String, String)>,
    /// Buckets updated under a lock each: a zeroed `u32` per bucket of scratch.
    pub locks: bool,
    pub elements: Vec<Size>,
    pub buckets: Size,
    /// Bytes per bucket of each shared-memory array (`hist::plan::shared_bytes`).
    pub shared_arrays: Vec<usize>,
    /// Most threads per block of the shared entry.
    pub block_size: u32,
    /// Shared-memory buckets are updated by native atomics (not a compare-and-swap loop or
    /// a lock).
    pub native: bool,
    /// How buckets are updated (`native atomicAdd`, `CAS loop`, ...), for reports and tests.
    pub update: String,
}

/// What the runtime needs to launch a generated kernel.
#[derive(Clone, Debug, PartialEq)]
pub enum LaunchPlan {
    /// A grid-stride kernel over `elements` points (map and scatter).
    Map {
        entry: String,
        elements: Vec<Size>,
        vector_width: usize,
    },
    Red(RedPlan),
    Scan(ScanPlan),
    Hist(HistPlan),
    Intra(IntraPlan),
}

/// How the runtime launches an intra-block kernel (`intra.rs`): a block per row, looping
/// over rows.
#[derive(Clone, Debug, PartialEq)]
pub struct IntraPlan {
    pub entry: String,
    pub rows: Vec<Size>,
    pub inner: Size,
    /// Bytes per element of each row buffer in shared memory (`m` elements each, each
    /// buffer rounded up to 16 bytes).
    pub row_bufs: Vec<usize>,
    /// Bytes of the block scans' scratch after the row buffers.
    pub scratch: usize,
    /// Elements per thread the block size aims at (seed 002's q).
    pub seq_factor: u32,
}

impl IntraPlan {
    /// Shared memory a block needs for rows of `m` elements.
    pub fn shared_bytes(&self, m: i64) -> usize {
        let m = m.max(0) as usize;
        self.row_bufs
            .iter()
            .map(|b| (m * b).div_ceil(16) * 16)
            .sum::<usize>()
            + self.scratch
    }

    /// Threads per block for rows of `m` elements: `m / q` rounded up to a warp, at most
    /// [`intra::INTRA_MAX_BLOCK`] (longer rows take more elements per thread). With `seq`
    /// given, `q` is that; otherwise (the automatic choice) `q` is the plan's but the block
    /// keeps [`intra::INTRA_MIN_BLOCK`] threads when the row has that many elements: seed
    /// 002 measured q = 4 as the steady gain from 256 elements a row up, and a loss for maps
    /// whose blocks shrank to one warp (rows of 128).
    pub fn block(&self, m: i64, seq: Option<u32>) -> u32 {
        let q = seq.unwrap_or(self.seq_factor).max(1);
        let m = m.max(1) as u64;
        let warps = |n: u64| n.div_ceil(32) * 32;
        let mut b = warps(m.div_ceil(q as u64));
        if seq.is_none() {
            b = b.max(warps(m).min(intra::INTRA_MIN_BLOCK as u64));
        }
        b.clamp(32, intra::INTRA_MAX_BLOCK as u64) as u32
    }
}

impl LaunchPlan {
    /// Every entry point of the module.
    pub fn entries(&self) -> Vec<&str> {
        match self {
            LaunchPlan::Map { entry, .. } => vec![entry],
            LaunchPlan::Red(r) => {
                let mut v = vec![r.block_entry.as_str(), &r.warp_entry, &r.thread_entry];
                v.extend(r.tiled.iter().map(|t| t.entry.as_str()));
                v
            }
            LaunchPlan::Scan(s) => {
                let mut v = vec![s.lookback_entry.as_str()];
                v.extend(s.thread_entry.as_deref());
                v.extend(s.warp_entry.as_deref());
                v
            }
            LaunchPlan::Hist(h) => {
                let mut v = vec![h.shared_entry.as_str(), h.global_entry.as_str()];
                if let Some((p, u)) = &h.pack_entries {
                    v.extend([p.as_str(), u.as_str()]);
                }
                v
            }
            LaunchPlan::Intra(p) => vec![p.entry.as_str()],
        }
    }

    /// [`LaunchPlan::entries`], to rename them (in the same order).
    pub fn entries_mut(&mut self) -> Vec<&mut String> {
        match self {
            LaunchPlan::Map { entry, .. } => vec![entry],
            LaunchPlan::Red(r) => {
                let mut v = vec![&mut r.block_entry, &mut r.warp_entry, &mut r.thread_entry];
                v.extend(r.tiled.iter_mut().map(|t| &mut t.entry));
                v
            }
            LaunchPlan::Scan(s) => {
                let mut v = vec![&mut s.lookback_entry];
                v.extend(s.thread_entry.as_mut());
                v.extend(s.warp_entry.as_mut());
                v
            }
            LaunchPlan::Hist(h) => {
                let mut v = vec![&mut h.shared_entry, &mut h.global_entry];
                if let Some((p, u)) = &mut h.pack_entries {
                    v.extend([p, u]);
                }
                v
            }
            LaunchPlan::Intra(p) => vec![&mut p.entry],
        }
    }
}

/// One IR kernel as CUDA: the full module source and its launch plan.
#[derive(Clone, Debug, PartialEq)]
pub struct GeneratedKernel {
    /// The module's C name ([`canonicalize`] makes it a hash of the module's text).
    pub name: Name,
    /// The name reports show (the IR kernel's; kept by [`canonicalize`]).
    pub label: Name,
    /// The complete module source (prelude included), ready for NVRTC.
    pub source: String,
    pub plan: LaunchPlan,
    /// Array parameters in order; the size parameters follow them.
    pub arrays: Vec<ArrayParam>,
    pub sizes: Vec<Name>,
    /// Whether a thread runs a loop: its work may vary from point to point (a while loop,
    /// a loop whose bound depends on the point), so a map launch gives every block its own
    /// points for the hardware to balance instead of a grid-stride split fixed in advance.
    pub loops: bool,
    /// The run-time checks of the kernel, by the number a failing thread records.
    pub checks: Vec<emit::CheckSite>,
}

impl GeneratedKernel {
    fn new(prog: &KernelProgram, kernel: &Kernel, body: String, plan: LaunchPlan) -> Self {
        let mut written: Vec<Name> = kernel.op.result_arrays().to_vec();
        kernel
            .op
            .body()
            .walk(&mut |_| {}, &mut |a| written.push(a.clone()));
        GeneratedKernel {
            name: kernel.name.clone(),
            label: kernel.name.clone(),
            source: format!("{}\n{body}", prelude::PRELUDE),
            plan,
            arrays: prog
                .kernel_arrays(kernel)
                .into_iter()
                .map(|a| ArrayParam {
                    name: a.name.clone(),
                    elem: a.elem,
                    shape: a.shape.clone(),
                    written: written.contains(&a.name),
                })
                .collect(),
            sizes: prog.kernel_sizes().to_vec(),
            loops: kernel.op.body().stms.iter().any(has_loop),
            checks: emit::check_sites(prog),
        }
    }

    /// The generated source without the prelude (what snapshot tests and IR views show).
    pub fn kernel_source(&self) -> &str {
        self.source
            .strip_prefix(prelude::PRELUDE)
            .map(|s| s.trim_start())
            .unwrap_or(&self.source)
    }
}

/// Choices of the code generator (configuration as a value; the runtime builds it from
/// `CudaOptions`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CodegenOptions {
    pub tile: TileConfig,
}

impl CodegenOptions {
    /// The choices `options` ask for on a device whose blocks get `shared` bytes of shared
    /// memory (`None`: at least 32 KiB, as on every GPU since sm_70): tiled contractions as
    /// the options say, 64×64 tiles (4×4 per thread) where a block has less than 32 KiB,
    /// and the user's tile shape and tuning over either.
    pub fn from_options(options: &futhark_options::CudaOptions, shared: Option<usize>) -> Self {
        let mut tile = TileConfig {
            enabled: options.tiling,
            fma: options.tile_fma,
            min_blocks: options.tile_tune.min_blocks,
            group: options.tile_tune.group,
            full_fast: options.tile_tune.full_fast,
            ..TileConfig::default()
        };
        if shared.is_some_and(|s| s < 32 * 1024) {
            (tile.bm, tile.bn, tile.tm, tile.tn) = (64, 64, 4, 4);
        }
        if let Some([bm, bn, bk, tm, tn]) = options.tile_shape {
            (tile.bm, tile.bn, tile.bk, tile.tm, tile.tn) = (bm, bn, bk, tm, tn);
        }
        CodegenOptions { tile }
    }
}

/// Type-checks a program and generates CUDA for each of its kernels (default options).
pub fn generate_program(prog: &KernelProgram) -> Result<Vec<GeneratedKernel>, CodegenError> {
    generate_program_with(prog, &CodegenOptions::default())
}

/// [`generate_program`] with the given options.
pub fn generate_program_with(
    prog: &KernelProgram,
    options: &CodegenOptions,
) -> Result<Vec<GeneratedKernel>, CodegenError> {
    futhark_ir::check_program(prog)?;
    let mut gks = prog
        .kernels
        .iter()
        .map(|k| generate_kernel_with(prog, k, options))
        .collect::<Result<Vec<_>, _>>()?;
    // An intra-block program also gets its one-kernel version, last: the runtime runs
    // either it or the kernels before it.
    if prog.intra.is_some() {
        gks.push(intra::gen_intra(prog, &prog.kernels[0].name)?);
    }
    Ok(gks)
}

/// Generates CUDA for one kernel of a program that has passed the type checker.
pub fn generate_kernel(
    prog: &KernelProgram,
    kernel: &Kernel,
) -> Result<GeneratedKernel, CodegenError> {
    generate_kernel_with(prog, kernel, &CodegenOptions::default())
}

/// [`generate_kernel`] with the given options.
pub fn generate_kernel_with(
    prog: &KernelProgram,
    kernel: &Kernel,
    options: &CodegenOptions,
) -> Result<GeneratedKernel, CodegenError> {
    match &kernel.op {
        SegOp::Map(m) => prims::gen_map(prog, kernel, m),
        SegOp::Scatter(s) => prims::gen_scatter(prog, kernel, s),
        SegOp::Red(r) => reduce::gen_red(prog, kernel, r, &options.tile),
        SegOp::Scan(s) => scan::gen_scan(prog, kernel, s),
        SegOp::Hist(h) => hist::gen_hist(prog, kernel, h),
    }
}

fn has_loop(s: &Stm) -> bool {
    match s {
        Stm::For { .. } => true,
        Stm::If {
            then_branch,
            else_branch,
            ..
        } => then_branch.iter().chain(else_branch).any(has_loop),
        _ => false,
    }
}
