//! The process environment, read in one place: [`from_env`] is the only function in the
//! workspace that reads `FUTHARK_*` variables (a tidy test in `compiler/cli/tests/tidy.rs`
//! keeps it so), and the home and cache folders the runtime needs. Faces call it at
//! start-up and override its answers with their flags.

use std::path::PathBuf;

use crate::types::{IntraBlock, Options, SplitPolicy, TileTune};

/// A variable set to a value it cannot take.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EnvError {
    #[error("FUTHARK_GPUS must be a positive number of GPUs, not `{0}`")]
    Gpus(String),
}

/// The options the environment asks for, on top of the defaults. A malformed value of a
/// tuning switch keeps its default, as it always has; a malformed `FUTHARK_GPUS` is an
/// error, given back beside the options and kept in them (`ExecOptions::gpus_invalid`), so
/// that opening devices without an explicit count reports it, as it always has.
pub fn from_env() -> (Options, Option<EnvError>) {
    from_vars(|name| std::env::var(name).ok())
}

/// [`from_env`] over any source of variables (tests pass a map).
pub(crate) fn from_vars(var: impl Fn(&str) -> Option<String>) -> (Options, Option<EnvError>) {
    let mut o = Options::default();
    let mut error = None;
    let is = |name: &str, values: &[&str]| var(name).is_some_and(|v| values.contains(&v.trim()));
    if let Some(v) = var("FUTHARK_GPUS") {
        match v.trim().parse::<usize>() {
            Ok(n) if n > 0 => o.exec.gpus = Some(n),
            _ => {
                let e = EnvError::Gpus(v);
                o.exec.gpus_invalid = Some(e.to_string());
                error = Some(e);
            }
        }
    }
    if let Some(split) = var("FUTHARK_SPLIT").and_then(|v| SplitPolicy::from_name(&v)) {
        o.exec.split = split;
    }
    o.exec.balance = !is("FUTHARK_BALANCE", &["0", "off", "false"]);
    o.exec.two_way_peer_copies = is("FUTHARK_PEER_ORDER", &["both"]);
    o.exec.bare_device = var("FUTHARK_BARE_DEVICE").is_some();
    o.compile.promote_loops = !is("FUTHARK_PROMOTE_LOOPS", &["0"]);
    o.compile.intra_block = var("FUTHARK_INTRA")
        .map(|v| IntraBlock::from_name(&v))
        .unwrap_or_default();
    let cuda = &mut o.exec.cuda;
    cuda.fmad = is("FUTHARK_FMAD", &["1", "true"]);
    cuda.warp_scan = !is("FUTHARK_WARP_SCAN", &["0"]);
    cuda.intra_kernel = !is("FUTHARK_INTRA_KERNEL", &["0", "off", "false"]);
    cuda.intra_seq = var("FUTHARK_INTRA_Q")
        .and_then(|v| v.trim().parse::<u32>().ok())
        .filter(|&q| (1..=64).contains(&q));
    cuda.pdl = !is("FUTHARK_PDL", &["0", "false"]);
    cuda.trace = var("FUTHARK_TRACE")
        .filter(|p| !p.is_empty())
        .map(PathBuf::from);
    cuda.nvrtc_threads = var("FUTHARK_NVRTC_THREADS")
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|&n| n > 0);
    cuda.split_entries = is("FUTHARK_SPLIT_ENTRIES", &["1", "on", "true"]);
    cuda.tiling = !is("FUTHARK_TILING", &["0", "off", "false"]);
    cuda.tile_fma = !is("FUTHARK_TILE_FMA", &["0", "off", "false"]);
    cuda.tile_shape = var("FUTHARK_TILE").and_then(|v| {
        let parts: Vec<u32> = v
            .trim()
            .split('x')
            .map(|p| p.parse().ok())
            .collect::<Option<_>>()?;
        <[u32; 5]>::try_from(parts).ok()
    });
    if let Some(t) = var("FUTHARK_TILE_TUNE").and_then(|v| {
        let parts: Vec<u32> = v
            .trim()
            .split(',')
            .map(|p| p.trim().parse().ok())
            .collect::<Option<_>>()?;
        <[u32; 3]>::try_from(parts).ok()
    }) {
        cuda.tile_tune = TileTune {
            min_blocks: t[0],
            group: t[1],
            full_fast: t[2] != 0,
        };
    }
    cuda.kernel_cache = var("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| var("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .map(|base| base.join("futhark-rs").join("kernels"));
    let num = |name: &str| var(name).and_then(|v| v.trim().parse::<usize>().ok());
    if let Some(b) = num("FUTHARK_HIST_BLOCK").filter(|b| (32..=1024).contains(b)) {
        cuda.hist.block = b as u32;
    }
    cuda.hist.shared_bytes = num("FUTHARK_HIST_SHARED").filter(|&b| b > 0);
    if let Some(p) = num("FUTHARK_HIST_PASSES").filter(|&p| p > 0) {
        cuda.hist.max_passes = p.min(u32::MAX as usize) as u32;
    }
    cuda.hist.shared = match var("FUTHARK_HIST_MEMORY").as_deref() {
        Some("shared") => Some(true),
        Some("global") => Some(false),
        _ => None,
    };
    o.face.no_gpu = var("FUTHARK_NO_GPU").is_some();
    o.face.lsp_run_timeout_ms =
        var("FUTHARK_LSP_RUN_TIMEOUT_MS").and_then(|v| v.trim().parse().ok());
    o.face.repl_history = var("FUTHARK_REPL_HISTORY").map(PathBuf::from);
    (o, error)
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;
    use crate::types::Safety;

    fn with(vars: &[(&str, &str)]) -> (Options, Option<EnvError>) {
        let map: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        from_vars(|name| map.get(name).cloned())
    }

    #[test]
    fn nothing_set_gives_the_defaults() {
        assert_eq!(with(&[]), (Options::default(), None));
        let o = Options::default();
        assert!(o.compile.promote_loops && o.exec.balance && o.exec.cuda.pdl);
        assert!(o.exec.cuda.warp_scan && !o.exec.cuda.fmad && !o.exec.cuda.split_entries);
        assert_eq!(o.compile.safety, Safety::Checked);
    }

    #[test]
    fn variables_turn_switches() {
        let (o, err) = with(&[
            ("FUTHARK_GPUS", "2"),
            ("FUTHARK_SPLIT", "always"),
            ("FUTHARK_BALANCE", "off"),
            ("FUTHARK_PROMOTE_LOOPS", "0"),
            ("FUTHARK_FMAD", "1"),
            ("FUTHARK_WARP_SCAN", "0"),
            ("FUTHARK_PDL", "false"),
            ("FUTHARK_TRACE", "/tmp/t"),
            ("FUTHARK_NVRTC_THREADS", "3"),
            ("FUTHARK_SPLIT_ENTRIES", "1"),
            ("FUTHARK_PEER_ORDER", "both"),
            ("FUTHARK_NO_GPU", ""),
            ("FUTHARK_LSP_RUN_TIMEOUT_MS", "1500"),
            ("FUTHARK_HIST_BLOCK", "256"),
            ("FUTHARK_HIST_SHARED", "49152"),
            ("FUTHARK_HIST_PASSES", "8"),
            ("FUTHARK_HIST_MEMORY", "global"),
            ("FUTHARK_TILING", "0"),
            ("FUTHARK_TILE_FMA", "off"),
            ("FUTHARK_TILE", "64x64x16x4x4"),
        ]);
        assert_eq!(err, None);
        assert_eq!(o.exec.gpus, Some(2));
        assert_eq!(o.exec.split, SplitPolicy::Always);
        assert!(!o.exec.balance && !o.compile.promote_loops);
        assert!(o.exec.cuda.fmad && !o.exec.cuda.warp_scan && !o.exec.cuda.pdl);
        assert_eq!(o.exec.cuda.trace, Some(PathBuf::from("/tmp/t")));
        assert_eq!(o.exec.cuda.nvrtc_threads, Some(3));
        assert!(o.exec.cuda.split_entries);
        assert!(o.exec.two_way_peer_copies && o.face.no_gpu);
        assert_eq!(o.face.lsp_run_timeout_ms, Some(1500));
        let hist = &o.exec.cuda.hist;
        assert_eq!((hist.block, hist.shared_bytes), (256, Some(49152)));
        assert_eq!((hist.max_passes, hist.shared), (8, Some(false)));
        assert!(!o.exec.cuda.tiling && !o.exec.cuda.tile_fma);
        assert_eq!(o.exec.cuda.tile_shape, Some([64, 64, 16, 4, 4]));
    }

    #[test]
    fn malformed_values_keep_defaults_but_a_bad_gpu_count_is_an_error() {
        let (o, err) = with(&[
            ("FUTHARK_GPUS", "zero"),
            ("FUTHARK_SPLIT", "sometimes"),
            ("FUTHARK_NVRTC_THREADS", "0"),
            ("FUTHARK_HIST_BLOCK", "4096"),
            ("FUTHARK_HIST_PASSES", "none"),
            ("FUTHARK_HIST_MEMORY", "texture"),
            ("FUTHARK_TILE", "64x64"),
        ]);
        assert_eq!(err, Some(EnvError::Gpus("zero".to_string())));
        assert_eq!(o.exec.gpus, None);
        assert_eq!(o.exec.gpus_invalid, err.map(|e| e.to_string()));
        assert_eq!(o.exec.split, SplitPolicy::Auto);
        assert_eq!(o.exec.cuda, Options::default().exec.cuda);
        assert_eq!(
            with(&[("FUTHARK_GPUS", "0")]).1,
            Some(EnvError::Gpus("0".into()))
        );
    }
}
