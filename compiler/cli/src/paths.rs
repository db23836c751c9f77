//! Expands command-line paths: files as given, directories walked recursively for `.fut`
//! files in sorted order so output is stable.

use std::path::{Path, PathBuf};

/// A path argument that could not be read.
#[derive(Debug)]
pub struct PathError {
    pub path: PathBuf,
    pub error: std::io::Error,
}

impl std::fmt::Display for PathError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.error)
    }
}

/// All `.fut` files named by `args` (directories recursively), and the paths that failed.
pub fn collect_fut_files(args: &[PathBuf]) -> (Vec<PathBuf>, Vec<PathError>) {
    let mut files = Vec::new();
    let mut errors = Vec::new();
    for arg in args {
        match std::fs::metadata(arg) {
            Ok(meta) if meta.is_dir() => walk(arg, &mut files, &mut errors),
            Ok(_) => files.push(arg.clone()),
            Err(error) => errors.push(PathError {
                path: arg.clone(),
                error,
            }),
        }
    }
    (files, errors)
}

fn walk(dir: &Path, files: &mut Vec<PathBuf>, errors: &mut Vec<PathError>) {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(error) => {
            errors.push(PathError {
                path: dir.to_path_buf(),
                error,
            });
            return;
        }
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            walk(&path, files, errors);
        } else if path.extension().is_some_and(|ext| ext == "fut") {
            files.push(path);
        }
    }
}
