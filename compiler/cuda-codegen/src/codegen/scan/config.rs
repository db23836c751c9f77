//! The look-back scan's tile shapes and variants (`ScanConfig`) and the named presets
//! benchmarks compare (`SCAN_PRESETS`).
//!
//! Variants (`ScanConfig`, named in `SCAN_PRESETS`, the default is `SCAN_DEFAULT`): wider
//! look-back steps read as coalesced 32-word windows, polling only the nearest predecessor,
//! publishing the inclusive prefix from the look-back warp, CUB's order (warp 0 looks back
//! after the aggregate, no extra warp), and staged loads (all of a thread's loads into
//! registers first, unchecked in full tiles). On an H200 (2^28 f32) none of the look-back
//! changes moved the time (1.57-1.69 ms, blocks live ~20 us whatever the look-back width), so
//! the suspect is the load phase: per-element bounds checks between the loads and the shared
//! stores can keep a thread's loads from being in flight together; `staged` tests that.
//!
//! Further variants for the next measurement: `wide-*` (CUB's `AgentScan` shape: 256 to
//! 1024 threads, no look-back warp, warp 0 publishes and looks back, 16-byte vector loads and
//! stores in full tiles, optional exponential backoff or CUB's fixed ~700 ns delay between
//! polls, optionally `ld/st.relaxed.gpu` status accesses) and `*-expo` (exponential backoff
//! on the look-back warp). `ScanConfig::trace` makes a kernel record per-tile event times
//! (see [`TRACE_WORDS`]), `ScanConfig::skip_lookback` drops the look-back (a diagnostic, not
//! a scan).

/// Threads per block of the look-back kernel.
pub const SCAN_BLOCK: u32 = 256;

/// Windows of 32 status words the look-back warp reads per step (one coalesced load each).
/// One is what the H200 sweep of 2026-11-22 measured fastest, with an older layout where a
/// lane read `L` *consecutive* words (16x-256x the L2 requests of the coalesced windows now).
pub const SCAN_LOOKBACK: u32 = 1;

/// The named configuration `gen_scan` uses (see [`SCAN_PRESETS`]): switching the default is
/// this one constant. `wide-b512-q24-delay` (CUB's shape: 512 threads x 24 items, 16-byte
/// loads, warp 0 looks back after the aggregate, ~700 ns pause between polls) was the
/// fastest of the sweep on an H200 on 2026-11-26: 0.724 ms for 2^28 f32, 71% of
/// `cuMemcpyDtoD` (`base`: 0.791 ms, 65%), and passed every prims_bench check.
pub const SCAN_DEFAULT: &str = "wide-b512-q24-delay";

/// Items per thread: about 64 bytes of accumulators per thread, at most 16.
pub fn items_per_thread(acc_size: usize) -> u32 {
    (64 / acc_size.max(1)).clamp(1, 16) as u32
}

/// The tile shape, status layout and look-back strategy of the look-back kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScanConfig {
    /// Loading threads per block (a multiple of 32, at most 992); with `lookback_warp`, one
    /// look-back warp is added.
    pub block: u32,
    /// Elements per loading thread.
    pub items: u32,
    /// Publish status and value in one 64-bit word when the accumulator fits in 4 bytes.
    pub packed: bool,
    /// Windows of 32 consecutive status words read per look-back step (each window one
    /// coalesced warp load), so one round trip to L2 covers `32 * lookback` predecessors.
    pub lookback: u32,
    /// Nanoseconds to sleep before polling status words again (0: spin).
    pub backoff_ns: u32,
    /// Before reading a window, one lane polls only the nearest predecessor's status word
    /// until it is set (one L2 request per poll instead of a whole window's).
    pub poll_nearest: bool,
    /// An extra warp looks back from the start of the block, while the tile loads. Without
    /// it, warp 0 looks back after publishing the tile's aggregate (as CUB does).
    pub lookback_warp: bool,
    /// With `lookback_warp`: the look-back warp publishes the inclusive prefix as soon as it
    /// has both the exclusive prefix and the aggregate (named barrier with warp 0), rather
    /// than thread 0 after the block barrier.
    pub early_publish: bool,
    /// Minimum resident blocks per SM for `__launch_bounds__` (0: no hint).
    pub min_blocks: u32,
    /// Tile index = `blockIdx.x` instead of an atomic counter. Saves one L2 atomic before
    /// the loads, but relies on blocks being dispatched in index order, which the CUDA
    /// programming model does not promise (CUB relies on it): for measurement only.
    pub block_order: bool,
    /// Load the tile into registers first (straight-line code without bounds checks when
    /// the tile is full), then into shared memory; likewise store without checks.
    pub staged: bool,
    /// With `staged`: full tiles whose arrays are 16-byte aligned read the body's inputs
    /// and write the outputs with 16-byte vector accesses (thread `t`'s `s`-th step covers
    /// elements `(s*B + t)*V ..+ V`, `V = 16 / smallest element size`), when `V` divides
    /// the items per thread and the body reads its inputs at the flat index.
    pub vector: bool,
    /// Exponential backoff: with `backoff_ns > 0`, each poll sleeps `backoff_ns`, doubling
    /// after every poll up to this many nanoseconds (0 or at most `backoff_ns`: fixed).
    pub backoff_max_ns: u32,
    /// Packed status words are read and written with `ld/st.relaxed.gpu` instead of
    /// volatile accesses (which PTX treats as system scope).
    pub relaxed: bool,
    /// Diagnostic: the kernel takes one more array, `fut_trace` (after the program's arrays;
    /// declared as bytes with the scan's shape), and records per tile `%globaltimer` and
    /// `clock64` at the events of [`TRACE_EVENTS`] plus the SM, the block index, the
    /// look-back's distance and polls ([`TRACE_WORDS`] `u64` per tile; tiles past
    /// `n / (8 * TRACE_WORDS)` are not recorded).
    pub trace: bool,
    /// Diagnostic, wrong results: no look-back (every tile's exclusive prefix is the
    /// neutral element; statuses are still published). Times the tile's own work without
    /// waiting for predecessors, the ceiling of this tile design.
    pub skip_lookback: bool,
}

/// `u64` words per tile of a trace (`ScanConfig::trace`): `[0, 7)` `%globaltimer` (ns) at
/// each event of [`TRACE_EVENTS`], `[7, 14)` `clock64` at the same events, 14: SM id (low
/// half) and `blockIdx.x` (high half), 15: tiles back to the closed prefix the look-back
/// used (low half) and status polls (window reads and nearest-word reads, high half).
pub const TRACE_WORDS: usize = 16;

/// The events a trace records per tile, in order.
pub const TRACE_EVENTS: [&str; 7] = [
    "block start",
    "tile id",
    "loaded",
    "aggregate published",
    "look-back done",
    "inclusive published",
    "stores issued",
];

impl ScanConfig {
    /// The kernel measured at 36% of copy bandwidth on an H200 (B=256, Q=16 for 4-byte
    /// accumulators, packed status, look-back warp from block start, one window per step).
    pub const BASE: ScanConfig = ScanConfig {
        block: SCAN_BLOCK,
        items: 16,
        packed: true,
        lookback: SCAN_LOOKBACK,
        backoff_ns: 0,
        poll_nearest: false,
        lookback_warp: true,
        early_publish: false,
        min_blocks: 0,
        block_order: false,
        staged: false,
        vector: false,
        backoff_max_ns: 0,
        relaxed: false,
        trace: false,
        skip_lookback: false,
    };

    /// The configuration `gen_scan` uses for an accumulator of `acc_size` bytes: the
    /// preset [`SCAN_DEFAULT`] with its items per thread scaled to the accumulator size.
    pub fn default_for(acc_size: usize) -> ScanConfig {
        let p = ScanConfig::named(SCAN_DEFAULT).unwrap_or(ScanConfig::BASE);
        p.for_acc(acc_size)
    }

    /// This configuration with `items` (given for 4-byte accumulators) scaled to keep the
    /// bytes of accumulators per thread: `items * 4 / acc_size`, between 1 and `items`.
    pub fn for_acc(self, acc_size: usize) -> ScanConfig {
        let items = (self.items as usize * 4 / acc_size.max(1)).clamp(1, self.items as usize);
        ScanConfig {
            items: items as u32,
            ..self
        }
    }

    /// A preset by name (see [`SCAN_PRESETS`]).
    pub fn named(name: &str) -> Option<ScanConfig> {
        SCAN_PRESETS
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, c)| *c)
    }
}

#[allow(clippy::too_many_arguments)]
const fn preset(
    block: u32,
    items: u32,
    lookback: u32,
    poll_nearest: bool,
    lookback_warp: bool,
    early_publish: bool,
    backoff_ns: u32,
    staged: bool,
) -> ScanConfig {
    ScanConfig {
        block,
        items,
        packed: true,
        lookback,
        backoff_ns,
        poll_nearest,
        lookback_warp,
        early_publish,
        min_blocks: 0,
        block_order: false,
        staged,
        vector: false,
        backoff_max_ns: 0,
        relaxed: false,
        trace: false,
        skip_lookback: false,
    }
}

/// A CUB-like tile (`AgentScan`): no look-back warp, warp 0 publishes the aggregate, looks
/// back and publishes the inclusive prefix; staged loads with 16-byte vectors in full
/// tiles; exponential backoff from `backoff_ns` to `backoff_max_ns` between polls.
const fn wide(block: u32, items: u32, backoff_ns: u32, backoff_max_ns: u32) -> ScanConfig {
    ScanConfig {
        block,
        items,
        packed: true,
        lookback: 1,
        backoff_ns,
        poll_nearest: false,
        lookback_warp: false,
        early_publish: false,
        min_blocks: 0,
        block_order: false,
        staged: true,
        vector: true,
        backoff_max_ns,
        relaxed: false,
        trace: false,
        skip_lookback: false,
    }
}

/// Named configurations the benchmark sweeps (items are for 4-byte accumulators; the
/// generator scales them by accumulator size). `w<k>` = `k` windows of 32 status words per
/// look-back step, `near` = poll the nearest predecessor first, `early` = the look-back warp
/// publishes the inclusive prefix itself, `cub` = no extra warp: warp 0 looks back after the
/// tile's aggregate, `staged` = the tile's loads go to registers first (no bounds checks in
/// full tiles) so that all of them are in flight at once, `expo` = exponential backoff between
/// polls, `wide-b<B>-q<Q>` = `wide()` (CUB-like, 16-byte vectors).
pub const SCAN_PRESETS: &[(&str, ScanConfig)] = &[
    ("base", ScanConfig::BASE),
    ("staged", preset(256, 16, 1, false, true, false, 0, true)),
    ("near-early", preset(256, 16, 1, true, true, true, 0, false)),
    (
        "near-early-staged",
        preset(256, 16, 1, true, true, true, 0, true),
    ),
    (
        "w4-near-early",
        preset(256, 16, 4, true, true, true, 0, false),
    ),
    (
        "w4-near-early-staged",
        preset(256, 16, 4, true, true, true, 0, true),
    ),
    (
        "w8-near-early-staged",
        preset(256, 16, 8, true, true, true, 0, true),
    ),
    (
        "w4-near-early-staged-q8",
        preset(256, 8, 4, true, true, true, 0, true),
    ),
    (
        "w4-near-early-staged-q32",
        preset(256, 32, 4, true, true, true, 0, true),
    ),
    (
        "w4-near-early-staged-b128",
        preset(128, 16, 4, true, true, true, 0, true),
    ),
    (
        "w4-near-early-staged-b512",
        preset(512, 16, 4, true, true, true, 0, true),
    ),
    (
        "w4-near-early-staged-sleep",
        preset(256, 16, 4, true, true, true, 100, true),
    ),
    ("cub-w1", preset(256, 16, 1, false, false, false, 0, false)),
    (
        "cub-w1-staged",
        preset(256, 16, 1, false, false, false, 0, true),
    ),
    (
        "cub-w4-near-staged",
        preset(256, 16, 4, true, false, false, 0, true),
    ),
    (
        "cub-w4-near-staged-b128",
        preset(128, 16, 4, true, false, false, 0, true),
    ),
    // The look-back warp of `near-early-staged`, polling with exponential backoff (64 ns
    // doubling to 2 us) so that ~900 waiting warps do not keep the status lines' L2 slices
    // busy.
    (
        "near-early-staged-expo",
        ScanConfig {
            backoff_max_ns: 2048,
            ..preset(256, 16, 1, true, true, true, 64, true)
        },
    ),
    // CUB-like wide tiles (no look-back warp, float4 loads and stores). `wide-b256-q16` is
    // `cub-w1-staged` with vector accesses only (isolates the vectors).
    ("wide-b256-q16", wide(256, 16, 0, 0)),
    ("wide-b512-q16", wide(512, 16, 0, 0)),
    ("wide-b512-q16-expo", wide(512, 16, 64, 2048)),
    (
        "wide-b512-q16-expo-relaxed",
        ScanConfig {
            relaxed: true,
            ..wide(512, 16, 64, 2048)
        },
    ),
    // CUB's sm_90 f32 tuning sleeps a fixed ~700 ns between polls.
    ("wide-b512-q24-delay", wide(512, 24, 700, 0)),
    ("wide-b1024-q16-expo", wide(1024, 16, 64, 2048)),
];
