//! Embeds the prebuilt JupyterLab extension (`editors/jupyterlab/prebuilt`, built by its
//! `build.sh` and committed) so that `futhark-jupyter install` can write it out: generates
//! `$OUT_DIR/labextension.rs`, a list of (relative path, contents) pairs.

use std::path::{Path, PathBuf};

fn files(dir: &Path, base: &Path, out: &mut Vec<(String, PathBuf)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            files(&path, base, out);
        } else if let Ok(rel) = path.strip_prefix(base) {
            let rel = rel.to_string_lossy().replace('\\', "/");
            out.push((rel, path));
        }
    }
}

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default());
    let prebuilt = manifest.join("../editors/jupyterlab/prebuilt");
    println!("cargo:rerun-if-changed={}", prebuilt.display());
    let mut found = Vec::new();
    files(&prebuilt, &prebuilt, &mut found);
    let mut code = String::from("&[\n");
    for (rel, path) in found {
        code.push_str(&format!(
            "    ({rel:?}, include_bytes!({:?}).as_slice()),\n",
            path.display().to_string()
        ));
    }
    code.push_str("]\n");
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap_or_default()).join("labextension.rs");
    if let Err(e) = std::fs::write(&out, code) {
        panic!("cannot write {}: {e}", out.display());
    }
}
