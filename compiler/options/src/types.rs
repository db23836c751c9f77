//! The option types. Defaults are what a user gets with no flag and no variable set.

use std::path::PathBuf;

/// Whether compiled programs keep the run-time checks inside kernels (`--unsafe`,
/// `:unsafe` drop them).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Safety {
    #[default]
    Checked,
    Unchecked,
}

impl Safety {
    pub fn from_unsafe(unsafe_checks: bool) -> Safety {
        if unsafe_checks {
            Safety::Unchecked
        } else {
            Safety::Checked
        }
    }
}

/// When launches are split over the devices (`--split`, `FUTHARK_SPLIT`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum SplitPolicy {
    /// When the cost model expects a gain.
    #[default]
    Auto,
    /// Whenever the kernel can be split (tests use this to exercise every husk).
    Always,
    /// Never: everything runs on device 0.
    Never,
}

impl SplitPolicy {
    /// `auto`, `always` or `never`.
    pub fn from_name(name: &str) -> Option<SplitPolicy> {
        match name.trim() {
            "auto" => Some(SplitPolicy::Auto),
            "always" => Some(SplitPolicy::Always),
            "never" => Some(SplitPolicy::Never),
            _ => None,
        }
    }
}

/// What compiling a program to kernels depends on besides its text. The database keeps it
/// as an input: changing it re-runs compilation, never parsing or checking.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CompileOptions {
    pub safety: Safety,
    /// Loop promotion at the end of kernel extraction (`FUTHARK_PROMOTE_LOOPS=0` turns it
    /// off).
    pub promote_loops: bool,
    /// Which kernels over rows are marked to run as intra-block kernels (`fuse-intra`;
    /// `FUTHARK_INTRA=0` turns it off, `FUTHARK_INTRA=all` takes lone kernels too).
    pub intra_block: IntraBlock,
}

/// Which kernels `fuse-intra` marks as intra-block programs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum IntraBlock {
    /// None: every kernel runs on its own.
    Off,
    /// Runs of two or more adjacent kernels over the same rows that pass arrays row by row.
    #[default]
    Runs,
    /// Those runs, and every lone `segmap`/`segscan`/`segred` over rows (seed 002's
    /// micro-benchmarks: one SOAC per row as a block per row).
    Every,
}

impl IntraBlock {
    /// `0`/`off`, `all`/`every`, or anything else for the default.
    pub fn from_name(v: &str) -> IntraBlock {
        match v.trim() {
            "0" | "off" | "false" => IntraBlock::Off,
            "all" | "every" => IntraBlock::Every,
            _ => IntraBlock::Runs,
        }
    }
}

impl Default for CompileOptions {
    fn default() -> Self {
        CompileOptions {
            safety: Safety::Checked,
            promote_loops: true,
            intra_block: IntraBlock::Runs,
        }
    }
}

/// The CUDA runtime's switches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CudaOptions {
    /// Let NVRTC contract `a * b + c` into fused multiply-adds (`FUTHARK_FMAD=1`); off so
    /// that GPU results round as the interpreter's do.
    pub fmad: bool,
    /// Segmented scans of short segments use their warp entry (`FUTHARK_WARP_SCAN=0`
    /// sends them to the look-back kernel).
    pub warp_scan: bool,
    /// Elements per thread of intra-block kernels (seed 002's q; `FUTHARK_INTRA_Q`; `None`:
    /// the generator's choice).
    pub intra_seq: Option<u32>,
    /// Run an intra-block program (`fuse-intra`) as its one generated kernel, a block per
    /// row, where its rows fit in shared memory (`FUTHARK_INTRA_KERNEL=0` turns it off: the
    /// program's kernels then run one after another). Checked on an H100 in session 22
    /// (`bench/results/intrablock.md`).
    pub intra_kernel: bool,
    /// Programmatic dependent launch on sm_90+ (`FUTHARK_PDL=0` turns it off).
    pub pdl: bool,
    /// Where per-GPU launch timelines go (`FUTHARK_TRACE=PATH`: `PATH.gpuN.tsv`).
    pub trace: Option<PathBuf>,
    /// Threads compiling a program's kernels (`FUTHARK_NVRTC_THREADS`; `None`: the
    /// machine's parallelism, at most 16).
    pub nvrtc_threads: Option<usize>,
    /// Each entry point of a generated module (its code versions: block, warp and thread
    /// reductions, tiled versions, …) is compiled as a module of its own, side by side with
    /// the others (`FUTHARK_SPLIT_ENTRIES=1`). Off: on an H100 it made a warm compile of a
    /// small reduction 2.5–3× slower and the largest corpus programs 1.4–1.6× slower
    /// (`bench/results/compile-latency.md`).
    pub split_entries: bool,
    /// Where compiled kernels are kept between runs (`$XDG_CACHE_HOME/futhark-rs/kernels`,
    /// else `~/.cache/futhark-rs/kernels`; `None`: no disk cache).
    pub kernel_cache: Option<PathBuf>,
    /// Contractions (matmul, n-body: reductions whose reads are invariant to one parallel
    /// dimension) get a block- and register-tiled kernel (`FUTHARK_TILING=0` turns it off).
    pub tiling: bool,
    /// Tiled sums of products fold with `fma`, one rounding per step instead of two
    /// (`FUTHARK_TILE_FMA=0` turns it off): about twice the f32 throughput; results then
    /// differ from the interpreter's within float tolerance, as the reference Futhark
    /// compiler's do.
    pub tile_fma: bool,
    /// Tile shape override `[BM, BN, BK, TM, TN]` of 2-D tiled kernels
    /// (`FUTHARK_TILE=128x128x16x8x8`); `None`: chosen from the device.
    pub tile_shape: Option<[u32; 5]>,
    /// Tuning of the large 2-D tiled kernel (`FUTHARK_TILE_TUNE=MINBLOCKS,GROUP,FULL`):
    /// blocks per multiprocessor promised to the compiler (0: unstated), tile rows per
    /// L2 group of the launch order (0: row by row), and a bound-free fold of full `k`
    /// slices (0/1). Default `0,8,1`.
    pub tile_tune: TileTune,
    /// How histograms are launched (`FUTHARK_HIST_*`).
    pub hist: HistOptions,
}

/// Overrides of the histogram launch planner (`futhark_cuda::codegen::hist::plan`); the
/// defaults let it choose from the device.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HistOptions {
    /// Threads per block of the shared-memory entry (`FUTHARK_HIST_BLOCK`, 32..=1024).
    pub block: u32,
    /// Most shared memory per block for subhistograms (`FUTHARK_HIST_SHARED`, bytes;
    /// `None`: what the device allows).
    pub shared_bytes: Option<usize>,
    /// Most passes over the input (chunks of buckets) before global memory is used
    /// (`FUTHARK_HIST_PASSES`).
    pub max_passes: u32,
    /// `Some(true)`: always shared memory, `Some(false)`: always global
    /// (`FUTHARK_HIST_MEMORY=shared|global`).
    pub shared: Option<bool>,
}

impl Default for HistOptions {
    fn default() -> Self {
        HistOptions {
            block: 1024,
            shared_bytes: None,
            max_passes: 4,
            shared: None,
        }
    }
}

impl Default for CudaOptions {
    fn default() -> Self {
        CudaOptions {
            fmad: false,
            warp_scan: true,
            pdl: true,
            trace: None,
            nvrtc_threads: None,
            split_entries: false,
            kernel_cache: None,
            hist: HistOptions::default(),
            tiling: true,
            tile_fma: true,
            tile_shape: None,
            tile_tune: TileTune::default(),
            intra_seq: None,
            intra_kernel: true,
        }
    }
}

/// How compiled programs run: on how many devices, how launches are spread over them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExecOptions {
    /// Devices to use (`--gpus`, `FUTHARK_GPUS`; `None`: all visible GPUs, one simulated
    /// CPU device).
    pub gpus: Option<usize>,
    /// `FUTHARK_GPUS` was set to something other than a positive number: an error when
    /// devices are opened without an explicit count (`gpus` is then `None`).
    pub gpus_invalid: Option<String>,
    pub split: SplitPolicy,
    /// Row boundaries of split launches follow measured per-device times
    /// (`FUTHARK_BALANCE=0` keeps them even).
    pub balance: bool,
    /// Every copy out of a buffer makes its GPU wait for the copy at once, the old two-way
    /// ordering (`FUTHARK_PEER_ORDER=both`, for comparisons).
    pub two_way_peer_copies: bool,
    /// One GPU without the multi-GPU layer (`FUTHARK_BARE_DEVICE`): the baseline of the
    /// multi-GPU benchmark.
    pub bare_device: bool,
    pub cuda: CudaOptions,
    /// This process is one rank of a distributed run (`--distributed`): its devices are
    /// some of the run's, the others are driven by the other ranks.
    pub distributed: Option<crate::Launch>,
}

impl Default for ExecOptions {
    fn default() -> Self {
        ExecOptions {
            gpus: None,
            gpus_invalid: None,
            split: SplitPolicy::Auto,
            balance: true,
            two_way_peer_copies: false,
            bare_device: false,
            cuda: CudaOptions::default(),
            distributed: None,
        }
    }
}

/// Settings of one face or another that the environment may give.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FaceOptions {
    /// Hide the GPUs from sessions, as `CUDA_VISIBLE_DEVICES=` would (`FUTHARK_NO_GPU`).
    pub no_gpu: bool,
    /// The LSP's time limit for a Run lens, in milliseconds
    /// (`FUTHARK_LSP_RUN_TIMEOUT_MS`; the client's options win).
    pub lsp_run_timeout_ms: Option<u64>,
    /// The REPL's history file (`FUTHARK_REPL_HISTORY`).
    pub repl_history: Option<PathBuf>,
}

/// Everything a face hands down.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Options {
    pub compile: CompileOptions,
    pub exec: ExecOptions,
    pub face: FaceOptions,
}

/// Tuning knobs of the large 2-D tiled kernel (see [`CudaOptions::tile_tune`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TileTune {
    pub min_blocks: u32,
    pub group: u32,
    pub full_fast: bool,
}

impl Default for TileTune {
    fn default() -> Self {
        TileTune {
            min_blocks: 0,
            group: 8,
            full_fast: true,
        }
    }
}
