//! Writing the kernelspec: `kernels/futhark/kernel.json` and the logos (`logo-32x32.png`,
//! `logo-64x64.png`) under the user's Jupyter data directory (or `$JUPYTER_DATA_DIR`), the
//! Python environment's prefix, or a given prefix.

use std::path::{Path, PathBuf};

use clap::Args;
use futhark_session::BackendChoice;

/// Where to install.
#[derive(Args, Debug)]
pub struct InstallArgs {
    /// Install for the current user (the default).
    #[arg(long, conflicts_with_all = ["sys_prefix", "prefix"])]
    pub user: bool,
    /// Install into the active Python environment (`$VIRTUAL_ENV`, `$CONDA_PREFIX`, or
    /// `sys.prefix` of `python3`).
    #[arg(long, conflicts_with = "prefix")]
    pub sys_prefix: bool,
    /// Install under this prefix (`PREFIX/share/jupyter/kernels/futhark`).
    #[arg(long)]
    pub prefix: Option<PathBuf>,
    /// The backend the kernel starts with.
    #[arg(long, default_value = "auto", value_parser = crate::parse_backend)]
    pub backend: BackendChoice,
}

/// Failures of `install`.
#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    #[error("cannot find the home directory (set JUPYTER_DATA_DIR)")]
    NoHome,
    #[error("cannot find the Python prefix: {0}")]
    NoPrefix(String),
    #[error("cannot find this program's path: {0}")]
    NoExe(std::io::Error),
    #[error("cannot write {0}: {1}")]
    Write(PathBuf, std::io::Error),
    #[error("cannot encode the logo: {0}")]
    Logo(String),
}

/// The user's Jupyter data directory, as Jupyter computes it: `$JUPYTER_DATA_DIR`, else
/// `~/Library/Jupyter` on macOS, else `$XDG_DATA_HOME/jupyter` or `~/.local/share/jupyter`.
pub fn user_data_dir() -> Result<PathBuf, InstallError> {
    if let Some(d) = std::env::var_os("JUPYTER_DATA_DIR").filter(|d| !d.is_empty()) {
        return Ok(PathBuf::from(d));
    }
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .ok_or(InstallError::NoHome)?;
    if cfg!(target_os = "macos") {
        return Ok(home.join("Library/Jupyter"));
    }
    match std::env::var_os("XDG_DATA_HOME").filter(|d| !d.is_empty()) {
        Some(x) => Ok(PathBuf::from(x).join("jupyter")),
        None => Ok(home.join(".local/share/jupyter")),
    }
}

fn sys_prefix() -> Result<PathBuf, InstallError> {
    for var in ["VIRTUAL_ENV", "CONDA_PREFIX"] {
        if let Some(p) = std::env::var_os(var).filter(|p| !p.is_empty()) {
            return Ok(PathBuf::from(p));
        }
    }
    let out = std::process::Command::new("python3")
        .args(["-c", "import sys; print(sys.prefix)"])
        .output()
        .map_err(|e| InstallError::NoPrefix(e.to_string()))?;
    let text = String::from_utf8_lossy(&out.stdout).trim().to_string();
    if !out.status.success() || text.is_empty() {
        return Err(InstallError::NoPrefix("python3 did not say".to_string()));
    }
    Ok(PathBuf::from(text))
}

/// The kernelspec JSON for the program at `exe`.
pub fn kernel_json(exe: &Path, backend: BackendChoice) -> serde_json::Value {
    serde_json::json!({
        "argv": [
            exe.to_string_lossy(),
            "kernel",
            "--backend",
            backend.name(),
            "--connection-file",
            "{connection_file}"
        ],
        "display_name": "Futhark",
        "language": "futhark",
        "interrupt_mode": "message",
        "metadata": { "debugger": false }
    })
}

/// Installs the kernelspec; returns its directory.
pub fn install(args: &InstallArgs) -> Result<PathBuf, InstallError> {
    let data = match (&args.prefix, args.sys_prefix) {
        (Some(p), _) => p.join("share/jupyter"),
        (None, true) => sys_prefix()?.join("share/jupyter"),
        (None, false) => user_data_dir()?,
    };
    let dir = data.join("kernels").join("futhark");
    let exe = std::env::current_exe().map_err(InstallError::NoExe)?;
    std::fs::create_dir_all(&dir).map_err(|e| InstallError::Write(dir.clone(), e))?;
    let spec = kernel_json(&exe, args.backend);
    let text = serde_json::to_string_pretty(&spec).unwrap_or_default();
    let file = dir.join("kernel.json");
    std::fs::write(&file, text).map_err(|e| InstallError::Write(file, e))?;
    for size in [32, 64] {
        let bytes = futhark_session::picture::png::encode(&crate::logo::logo(size))
            .map_err(|e| InstallError::Logo(e.to_string()))?;
        let file = dir.join(format!("logo-{size}x{size}.png"));
        std::fs::write(&file, bytes).map_err(|e| InstallError::Write(file, e))?;
    }
    Ok(dir)
}
