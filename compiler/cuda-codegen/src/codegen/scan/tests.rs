//! Unit tests of the scan generator's presets.

use super::*;
use crate::samples;
use futhark_ir::{BinOp, Lambda, PrimValue, SegOp};

fn cases() -> Vec<(futhark_ir::KernelProgram, usize)> {
    let (aff, aff_ne) = samples::affine_compose();
    vec![
        (
            samples::scan(
                "s",
                Lambda::binop(BinOp::Add, PrimType::F32),
                vec![PrimValue::F32(0.0)],
                false,
            ),
            4,
        ),
        (
            samples::scan(
                "s",
                Lambda::binop(BinOp::Add, PrimType::I32),
                vec![PrimValue::I32(0)],
                true,
            ),
            4,
        ),
        (samples::scan("s", aff, aff_ne, true), 8),
    ]
}

/// Presets without the new options generate what they did before them (spot check:
/// the trace, vector, relaxed and exponential-backoff code stays out).
#[test]
fn plain_presets_have_no_new_code() {
    for (prog, acc) in &cases() {
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
