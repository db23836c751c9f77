//! Unit tests of the scan generator's presets.

use super::*;
use crate::samples;
use futhark_ir::SegOp;

/// Presets without the new options generate what they did before them (spot check:
/// the trace, vector, relaxed and exponential-backoff code stays out).
#[test]
fn plain_presets_have_no_new_code() {
    for (prog, acc) in &samples::scan_cases() {
        let k = &prog.kernels[0];
        let SegOp::Scan(op) = &k.op else {
            panic!("not a scan")
        };
        let gk = gen_scan_with(prog, k, op, ScanConfig::BASE.for_acc(*acc)).expect("gen");
        for s in ["fut_trace", "fut_vw_", "relaxed", "__nanosleep"] {
            assert!(!gk.source.contains(s), "{s} in the base kernel");
        }
    }
}
