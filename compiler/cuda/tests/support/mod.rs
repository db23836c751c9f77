//! Shared by the integration tests: finding NVRTC without a CUDA installation.

use std::path::PathBuf;
use std::process::Command;

use futhark_cuda::runtime::nvrtc;

/// Makes NVRTC loadable: from the loader path if it is there, else from the
/// `nvidia-cuda-nvrtc` wheel of the first `python3` on PATH. Returns false (the caller prints
/// a skip message) when neither has it.
pub fn ensure_nvrtc() -> bool {
    if nvrtc::available() {
        return true;
    }
    let mut dirs: Vec<PathBuf> = Vec::new();
    if let Ok(out) = Command::new("python3")
        .args([
            "-c",
            "import nvidia, os; print(os.path.dirname(nvidia.__path__[0]))",
        ])
        .output()
        && out.status.success()
    {
        let site = String::from_utf8_lossy(&out.stdout).trim().to_string();
        dirs.push(PathBuf::from(site).join("nvidia/cu13/lib"));
    }
    if let Ok(extra) = std::env::var("FUTHARK_NVRTC_DIR") {
        dirs.push(PathBuf::from(extra));
    }
    dirs.iter().any(|d| nvrtc::preload_from(d))
}
