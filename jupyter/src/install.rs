//! Writing the kernelspec: `kernels/futhark/kernel.json` and the logos (`logo-32x32.png`,
//! `logo-64x64.png`) under the user's Jupyter data directory (or `$JUPYTER_DATA_DIR`), the
//! Python environment's prefix, or a given prefix; and beside it, in
//! `labextensions/jupyterlab-futhark`, the prebuilt JupyterLab extension that highlights
//! Futhark (`editors/jupyterlab`, a CodeMirror 6 language mode; embedded by `build.rs`).

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
    /// Leave out the JupyterLab extension (Futhark highlighting in notebooks).
    #[arg(long)]
    pub no_lab_extension: bool,
}

/// The prebuilt JupyterLab extension: (path inside its directory, contents).
const LAB_EXTENSION: &[(&str, &[u8])] = include!(concat!(env!("OUT_DIR"), "/labextension.rs"));

/// Its package name, which is also its directory under `labextensions/`.
pub const LAB_EXTENSION_NAME: &str = "jupyterlab-futhark";

/// What was installed, for the message.
pub struct Installed {
    pub kernelspec: PathBuf,
    pub lab_extension: Option<PathBuf>,
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

/// Installs the kernelspec and (unless asked not to) the JupyterLab extension.
pub fn install(args: &InstallArgs) -> Result<Installed, InstallError> {
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
    let lab_extension = if args.no_lab_extension {
        None
    } else {
        Some(install_lab_extension(&data)?)
    };
    Ok(Installed {
        kernelspec: dir,
        lab_extension,
    })
}

/// Writes the JupyterLab extension into `data/labextensions/jupyterlab-futhark`, replacing
/// an earlier one (whose file names carry other content hashes); returns the directory.
pub fn install_lab_extension(data: &Path) -> Result<PathBuf, InstallError> {
    let dir = data.join("labextensions").join(LAB_EXTENSION_NAME);
    if dir.exists() {
        std::fs::remove_dir_all(&dir).map_err(|e| InstallError::Write(dir.clone(), e))?;
    }
    for (rel, bytes) in LAB_EXTENSION {
        if *rel == "SOURCE_HASH" {
            continue;
        }
        let file = dir.join(rel);
        if let Some(parent) = file.parent() {
            std::fs::create_dir_all(parent).map_err(|e| InstallError::Write(file.clone(), e))?;
        }
        std::fs::write(&file, bytes).map_err(|e| InstallError::Write(file.clone(), e))?;
    }
    // JupyterLab shows where an extension came from and how to remove it.
    let info = serde_json::json!({
        "packageManager": "futhark-jupyter",
        "packageName": "futhark-jupyter",
        "uninstallInstructions": format!("Delete {}", dir.display()),
    });
    let file = dir.join("install.json");
    let text = serde_json::to_string_pretty(&info).unwrap_or_default();
    std::fs::write(&file, text).map_err(|e| InstallError::Write(file, e))?;
    Ok(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lab_extension_is_embedded_whole() {
        let names: Vec<&str> = LAB_EXTENSION.iter().map(|(n, _)| *n).collect();
        assert!(names.contains(&"package.json"), "{names:?}");
        let package = LAB_EXTENSION
            .iter()
            .find(|(n, _)| *n == "package.json")
            .map(|(_, b)| serde_json::from_slice::<serde_json::Value>(b));
        let Some(Ok(package)) = package else {
            panic!("package.json is not JSON");
        };
        assert_eq!(package["name"], LAB_EXTENSION_NAME);
        // The entry point JupyterLab loads is among the files.
        let load = package["jupyterlab"]["_build"]["load"]
            .as_str()
            .unwrap_or("");
        assert!(load.starts_with("static/remoteEntry."), "{load}");
        assert!(names.contains(&load), "{load} not in {names:?}");
    }

    #[test]
    fn installing_replaces_an_earlier_extension() {
        let data = std::env::temp_dir().join(format!("futhark-lab-{}", std::process::id()));
        let stale = data
            .join("labextensions")
            .join(LAB_EXTENSION_NAME)
            .join("static/old.js");
        std::fs::create_dir_all(stale.parent().unwrap_or(&data)).unwrap_or_default();
        std::fs::write(&stale, "old").unwrap_or_default();
        let dir = install_lab_extension(&data);
        let Ok(dir) = dir else {
            panic!("install failed: {:?}", dir.err().map(|e| e.to_string()));
        };
        assert!(!stale.exists());
        assert!(dir.join("package.json").is_file());
        assert!(dir.join("install.json").is_file());
        assert!(!dir.join("SOURCE_HASH").exists());
        let _ = std::fs::remove_dir_all(&data);
    }
}
