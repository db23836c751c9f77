//! Warp-level pieces of the scans: the per-operator warp scan helpers every scan kernel
//! calls, and the warp entry of a segmented scan (one warp per segment of at most
//! `WARP_SCAN_MAX` elements, no tiles and no look-back).

use std::fmt::Write;

use super::super::{WARP_SCAN_ITEMS, WARP_SCAN_MAX, open_entry};

/// Accumulators one warp of a segmented scan's warp entry keeps in shared memory: its
/// whole segment, padded against bank conflicts like the tiles (`_PAD`).
const WARP_SLOT_ELEMS: usize = WARP_SCAN_MAX as usize + WARP_SCAN_MAX as usize / 32;

/// Bytes of shared memory one warp of a segmented scan's warp entry needs.
pub fn warp_slot(acc_size: usize) -> usize {
    WARP_SLOT_ELEMS * acc_size
}

/// What the warp entry of a segmented scan is generated from.
pub(super) struct WarpScan<'a> {
    pub(super) name: &'a str,
    pub(super) params: &'a str,
    pub(super) nseg: &'a str,
    pub(super) seglen: &'a str,
    pub(super) acc: &'a str,
    pub(super) ne: &'a str,
}

/// The warp entry of a segmented scan whose segments have at most [`WARP_SCAN_MAX`]
/// elements: one warp per segment (grid-stride over segments). The warp evaluates its
/// segment with consecutive lanes on consecutive elements into shared memory, each lane
/// then scans [`WARP_SCAN_ITEMS`] consecutive elements in registers, the lanes' totals are
/// scanned with shuffles, and the results go back through shared memory to coalesced
/// stores. Segments are independent, so unlike the look-back kernel there is no tile
/// counter or status to clear and no wait between blocks: a piece over some of the rows
/// costs its share of the work.
pub(super) fn gen_warp_entry(
    src: &mut String,
    w: &WarpScan,
    evaluate: &dyn Fn(&str, &mut String, usize),
    store: &dyn Fn(&str, &str, &str) -> String,
) {
    let WarpScan {
        name,
        params,
        nseg,
        seglen,
        acc: a,
        ne,
    } = *w;
    let items = WARP_SCAN_ITEMS;
    let op = |x: &str, y: &str| format!("{name}_op({x}, {y})");
    open_entry(src, 256, &format!("{name}_warp({params})"));
    let _ = writeln!(
        src,
        "  const i64 fut_nseg = {nseg}, fut_seglen = {seglen};\n  \
         const unsigned fut_lane = threadIdx.x & 31;\n  \
         {a}* fut_buf = ({a}*)fut_shared + (threadIdx.x >> 5) * {slot};\n  \
         const i64 fut_nw = ((i64)gridDim.x * blockDim.x) >> 5;\n  \
         const int fut_per = (int)((fut_seglen + 31) >> 5);",
        slot = WARP_SLOT_ELEMS
    );
    let _ = writeln!(
        src,
        "  for (i64 fut_seg = ((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5; fut_seg < fut_nseg; fut_seg += fut_nw) {{"
    );
    let _ = writeln!(src, "    const i64 fut_s0 = fut_seg * fut_seglen;");
    // Load: consecutive lanes, consecutive elements; past the segment's end, the neutral.
    let _ = writeln!(
        src,
        "    #pragma unroll\n    for (int fut_k = 0; fut_k < {items}; fut_k++) {{"
    );
    let _ = writeln!(
        src,
        "      const int fut_i = fut_k * 32 + (int)fut_lane;\n      {a} fut_v = {ne};\n      if (fut_i < fut_seglen) {{\n        const i64 fut_f = fut_s0 + fut_i;"
    );
    evaluate("fut_f", src, 4);
    let _ = writeln!(
        src,
        "      }}\n      fut_buf[{name}_PAD(fut_i)] = fut_v;\n    }}\n    __syncwarp();"
    );
    // Each lane's run of `fut_per` elements, scanned in registers.
    let _ = writeln!(src, "    {a} fut_x[{items}];");
    let _ = writeln!(
        src,
        "    #pragma unroll\n    for (int fut_k = 0; fut_k < {items}; fut_k++) if (fut_k < fut_per) fut_x[fut_k] = fut_buf[{name}_PAD((int)fut_lane * fut_per + fut_k)];"
    );
    let _ = writeln!(src, "    {a} fut_t = fut_x[0];");
    let _ = writeln!(
        src,
        "    #pragma unroll\n    for (int fut_k = 1; fut_k < {items}; fut_k++) if (fut_k < fut_per) {{ fut_x[fut_k] = {}; fut_t = fut_x[fut_k]; }}",
        op("fut_x[fut_k - 1]", "fut_x[fut_k]")
    );
    // The lanes' totals: inclusive shuffle scan, shifted to an exclusive prefix.
    let _ = writeln!(src, "    fut_t = {name}_warp_scan(fut_t, fut_lane);");
    let _ = writeln!(
        src,
        "    const {a} fut_ex = {name}_shfl_up(fut_t, 1);\n    __syncwarp();"
    );
    let _ = writeln!(
        src,
        "    #pragma unroll\n    for (int fut_k = 0; fut_k < {items}; fut_k++) if (fut_k < fut_per) fut_buf[{name}_PAD((int)fut_lane * fut_per + fut_k)] = fut_lane == 0 ? fut_x[fut_k] : {};",
        op("fut_ex", "fut_x[fut_k]")
    );
    let _ = writeln!(
        src,
        "    __syncwarp();\n    #pragma unroll\n    for (int fut_k = 0; fut_k < {items}; fut_k++) {{\n      const int fut_i = fut_k * 32 + (int)fut_lane;\n      if (fut_i < fut_seglen) {{\n        const i64 fut_f = fut_s0 + fut_i;\n        const {a} fut_y = fut_buf[{name}_PAD(fut_i)];"
    );
    src.push_str(&store("fut_y", "fut_f", "        "));
    let _ = writeln!(src, "      }}\n    }}\n    __syncwarp();\n  }}\n}}");
}

/// The warp scans of operator `name`: `{name}_warp_scan(x, lane)`, the inclusive scan of
/// `x` over the warp's lanes, and for segmented scans `{name}_warp_scan_flagged(x, f, lane)`,
/// the same under segment-start flags `f` (`(f1, x) ⊕ (f2, y) = (f1 || f2, f2 ? y : x ⊕ y)`).
/// Step `d` combines the value `d` lanes below on the left (`op(below, x)`), so the lanes
/// are combined in order and non-commutative operators are safe.
pub(crate) fn warp_scan_defs(name: &str, segmented: bool) -> String {
    let mut s = format!(
        "static __device__ __forceinline__ {name}_acc {name}_warp_scan({name}_acc x, unsigned lane) {{\n  #pragma unroll\n  for (unsigned d = 1; d < 32; d <<= 1) {{\n    const {name}_acc o = {name}_shfl_up(x, d);\n    if (lane >= d) x = {name}_op(o, x);\n  }}\n  return x;\n}}\n"
    );
    if segmented {
        let _ = writeln!(
            s,
            "static __device__ __forceinline__ void {name}_warp_scan_flagged({name}_acc& x, bool& f, unsigned lane) {{\n  #pragma unroll\n  for (unsigned d = 1; d < 32; d <<= 1) {{\n    const {name}_acc o = {name}_shfl_up(x, d);\n    const bool of = fut_shfl_up(f, d);\n    if (lane >= d) {{ if (!f) x = {name}_op(o, x); f = f || of; }}\n  }}\n}}"
        );
    }
    s
}

/// A statement scanning `val` (with segment-start flag `flag` when `segmented`) across the
/// lanes of the warp, in place, through [`warp_scan_defs`]' helpers.
pub(crate) fn warp_scan_call(
    val: &str,
    flag: &str,
    name: &str,
    segmented: bool,
    pad: &str,
) -> String {
    if segmented {
        format!("{pad}{name}_warp_scan_flagged({val}, {flag}, fut_lane);\n")
    } else {
        format!("{pad}{val} = {name}_warp_scan({val}, fut_lane);\n")
    }
}
