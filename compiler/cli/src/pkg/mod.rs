//! `futhark-rs pkg`: the reference tool's package manager. `futhark.pkg` lists required
//! packages with their minimum versions; `sync` picks each package's version by minimal
//! version selection over the transitive requirements and installs every package's
//! `lib/PATH` directory under `lib/`, building the new `lib/` in `lib~new` and keeping the
//! old one in `lib~old` until it is done. Packages are git repositories; versions are tags.

mod git;
mod manifest;
mod semver;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Subcommand};
use thiserror::Error;

use git::Git;
use manifest::{FILE, Manifest, Required, check_path};
use semver::Version;

#[derive(Debug, Error)]
pub enum PkgError {
    #[error("{file}:{line}: {msg}")]
    Manifest {
        file: String,
        line: usize,
        msg: String,
    },
    #[error("{0}")]
    Io(String),
    #[error("`{command}` failed: {msg}")]
    Git { command: String, msg: String },
    #[error("cannot read the versions of package {path} from {url}: {msg}")]
    NoRepository {
        path: String,
        url: String,
        msg: String,
    },
    #[error("package {path} has no version {version}; {}", available_text(.available))]
    NoVersion {
        path: String,
        version: String,
        available: Vec<String>,
    },
    #[error(
        "package {path} {version}: the tag names commit {found}, but futhark.pkg pins #{expected}"
    )]
    HashMismatch {
        path: String,
        version: String,
        expected: String,
        found: String,
    },
    #[error("{0}")]
    Usage(String),
}

fn available_text(vs: &[String]) -> String {
    if vs.is_empty() {
        "it has no released versions (tags vX.Y.Z)".into()
    } else {
        format!("available: {}", vs.join(", "))
    }
}

#[derive(Args)]
pub struct PkgArgs {
    /// Print the git commands run, to standard error.
    #[arg(short, long, global = true)]
    verbose: bool,
    #[command(subcommand)]
    command: PkgCommand,
}

#[derive(Subcommand)]
enum PkgCommand {
    /// Add a required package (newest version unless one is given) to futhark.pkg.
    Add {
        path: String,
        version: Option<String>,
    },
    /// Check that this directory is a well-formed package (a `package` line, `lib/PATH`).
    Check,
    /// Make this directory a package: `package PATH` in futhark.pkg and `lib/PATH/`.
    Init { path: String },
    /// Rewrite futhark.pkg in the canonical layout.
    Fmt,
    /// Remove a required package from futhark.pkg.
    Remove { path: String },
    /// Install the required packages and their dependencies into `lib/`.
    Sync,
    /// Raise every requirement to the newest version of the same major version.
    Upgrade,
    /// List the released versions of a package.
    Versions { path: String },
}

pub fn run(args: PkgArgs) -> ExitCode {
    let git = Git {
        verbose: args.verbose,
    };
    let root = PathBuf::from(".");
    match command(&root, &git, args.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn io<E: std::fmt::Display>(what: &str, path: &Path) -> impl FnOnce(E) -> PkgError {
    let p = path.display().to_string();
    let what = what.to_string();
    move |e| PkgError::Io(format!("cannot {what} {p}: {e}"))
}

fn read_manifest(root: &Path) -> Result<Option<Manifest>, PkgError> {
    let p = root.join(FILE);
    match std::fs::read_to_string(&p) {
        Ok(text) => Manifest::parse(&text, FILE).map(Some),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(io("read", &p)(e)),
    }
}

fn write_manifest(root: &Path, m: &Manifest) -> Result<(), PkgError> {
    let p = root.join(FILE);
    std::fs::write(&p, m.render()).map_err(io("write", &p))
}

fn command(root: &Path, git: &Git, cmd: PkgCommand) -> Result<(), PkgError> {
    match cmd {
        PkgCommand::Add { path, version } => {
            let path = check_path(&path).map_err(PkgError::Usage)?;
            let mut m = read_manifest(root)?.unwrap_or_default();
            let versions = git.versions(&path)?;
            let (v, hash) = match version {
                Some(text) => {
                    let v = Version::parse(&text).ok_or_else(|| {
                        PkgError::Usage(format!("`{text}` is not a version (X.Y.Z)"))
                    })?;
                    if let Some(admitted) = manifest::other_major(&path, &v) {
                        return Err(PkgError::Usage(format!(
                            "version {v} has major version {}; package path {path} admits {admitted}",
                            v.major
                        )));
                    }
                    let hash = git::commit_in(&versions, &path, &v)?;
                    (v, hash)
                }
                None => versions
                    .last()
                    .cloned()
                    .ok_or_else(|| PkgError::NoVersion {
                        path: path.clone(),
                        version: "(newest)".into(),
                        available: Vec::new(),
                    })?,
            };
            let req = Required {
                path: path.clone(),
                version: v.clone(),
                hash: Some(hash),
            };
            match m.requires.iter_mut().find(|r| r.path == path) {
                Some(old) => {
                    println!("Replaced {path} {} => {v}.", old.version);
                    *old = req;
                }
                None => {
                    println!("Added new required package {path} {v}.");
                    m.requires.push(req);
                }
            }
            write_manifest(root, &m)?;
            println!("Remember to run 'futhark-rs pkg sync'.");
            Ok(())
        }
        PkgCommand::Remove { path } => {
            let mut m = read_manifest(root)?.unwrap_or_default();
            let Some(i) = m.requires.iter().position(|r| r.path == path) else {
                return Err(PkgError::Usage(format!("no package {path} in {FILE}")));
            };
            let r = m.requires.remove(i);
            write_manifest(root, &m)?;
            println!("Removed {path} {}.", r.version);
            Ok(())
        }
        PkgCommand::Init { path } => {
            let path = check_path(&path).map_err(PkgError::Usage)?;
            let mut m = read_manifest(root)?.unwrap_or_default();
            if let Some(p) = &m.package {
                return Err(PkgError::Usage(format!(
                    "{FILE} already declares package {p}"
                )));
            }
            m.package = Some(path.clone());
            let dir = root.join("lib").join(&path);
            std::fs::create_dir_all(&dir).map_err(io("create", &dir))?;
            println!("Created directory lib/{path}.");
            write_manifest(root, &m)?;
            println!("Wrote {FILE}.");
            Ok(())
        }
        PkgCommand::Fmt => {
            let m = read_manifest(root)?
                .ok_or_else(|| PkgError::Usage(format!("no {FILE} in this directory")))?;
            write_manifest(root, &m)
        }
        PkgCommand::Check => {
            let m = read_manifest(root)?
                .ok_or_else(|| PkgError::Usage(format!("no {FILE} in this directory")))?;
            let p = m.package.ok_or_else(|| {
                PkgError::Usage(format!("{FILE} declares no package (`package PATH`)"))
            })?;
            let dir = root.join("lib").join(&p);
            let has_fut = std::fs::read_dir(&dir).is_ok_and(|rd| {
                rd.flatten()
                    .any(|e| e.path().extension().is_some_and(|x| x == "fut"))
            });
            if !has_fut {
                return Err(PkgError::Usage(format!(
                    "lib/{p} holds no .fut files: a package's files live there"
                )));
            }
            println!("Package {p} looks fine.");
            Ok(())
        }
        PkgCommand::Versions { path } => {
            for (v, _) in git.versions(&path)? {
                println!("{v}");
            }
            Ok(())
        }
        PkgCommand::Upgrade => {
            let mut m = read_manifest(root)?.unwrap_or_default();
            let mut any = false;
            for r in &mut m.requires {
                if let Some((v, h)) = git.versions(&r.path)?.pop()
                    && v > r.version
                {
                    println!("Upgraded {} {} => {v}.", r.path, r.version);
                    r.version = v;
                    r.hash = Some(h);
                    any = true;
                }
            }
            if any {
                write_manifest(root, &m)?;
            } else {
                println!("Nothing to upgrade.");
            }
            Ok(())
        }
        PkgCommand::Sync => sync(root, git),
    }
}

/// Minimal version selection, then the new `lib/`.
fn sync(root: &Path, git: &Git) -> Result<(), PkgError> {
    let m = read_manifest(root)?.unwrap_or_default();
    let scratch = tempdir()?;
    let result = (|| {
        let chosen = build_list(&m, git, &scratch)?;
        install(root, &m, &chosen, git, &scratch)
    })();
    let _ = std::fs::remove_dir_all(&scratch);
    result
}

fn tempdir() -> Result<PathBuf, PkgError> {
    let d = std::env::temp_dir().join(format!(
        "futhark-pkg-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos())
    ));
    std::fs::create_dir_all(&d).map_err(io("create", &d))?;
    Ok(d)
}

/// Each package's version: the largest of the minimums that every requirement reachable
/// from `futhark.pkg` asks for (the requirements of every version looked at count).
fn build_list(
    m: &Manifest,
    git: &Git,
    scratch: &Path,
) -> Result<BTreeMap<String, Required>, PkgError> {
    let mut chosen: BTreeMap<String, Required> = BTreeMap::new();
    let mut seen: Vec<(String, Version)> = Vec::new();
    let mut queue: Vec<Required> = m.requires.clone();
    while let Some(r) = queue.pop() {
        if seen.iter().any(|(p, v)| *p == r.path && *v == r.version) {
            continue;
        }
        seen.push((r.path.clone(), r.version.clone()));
        let hash = match &r.hash {
            Some(h) => h.clone(),
            None => git.commit_of(&r.path, &r.version)?,
        };
        let dir = git.checkout(&r.path, &r.version, Some(&hash), scratch)?;
        let deps_file = dir.join(FILE);
        if let Ok(text) = std::fs::read_to_string(&deps_file) {
            let label = format!("{FILE} of {} {}", r.path, r.version);
            let deps = Manifest::parse(&text, &label)?;
            queue.extend(deps.requires);
        }
        let newer = chosen.get(&r.path).is_none_or(|c| r.version > c.version);
        if newer {
            chosen.insert(
                r.path.clone(),
                Required {
                    hash: Some(hash),
                    ..r
                },
            );
        }
    }
    Ok(chosen)
}

fn install(
    root: &Path,
    m: &Manifest,
    chosen: &BTreeMap<String, Required>,
    git: &Git,
    scratch: &Path,
) -> Result<(), PkgError> {
    let lib = root.join("lib");
    let new = root.join("lib~new");
    let old = root.join("lib~old");
    for d in [&new, &old] {
        if d.exists() {
            std::fs::remove_dir_all(d).map_err(io("remove", d))?;
        }
    }
    std::fs::create_dir_all(&new).map_err(io("create", &new))?;
    // The package's own files (a package keeps them in lib/PATH) stay.
    if let Some(own) = &m.package {
        let src = lib.join(own);
        if src.is_dir() {
            copy_dir(&src, &new.join(own))?;
        }
    }
    for r in chosen.values() {
        let dir = git.checkout(&r.path, &r.version, r.hash.as_deref(), scratch)?;
        let src = dir.join("lib").join(&r.path);
        if !src.is_dir() {
            return Err(PkgError::Io(format!(
                "package {} {} has no directory lib/{} (where a package keeps its files)",
                r.path, r.version, r.path
            )));
        }
        copy_dir(&src, &new.join(&r.path))?;
        println!("Installed {} {}.", r.path, r.version);
    }
    if lib.exists() {
        std::fs::rename(&lib, &old).map_err(io("move", &lib))?;
    }
    std::fs::rename(&new, &lib).map_err(io("move", &new))?;
    if old.exists() {
        std::fs::remove_dir_all(&old).map_err(io("remove", &old))?;
    }
    Ok(())
}

fn copy_dir(src: &Path, dst: &Path) -> Result<(), PkgError> {
    std::fs::create_dir_all(dst).map_err(io("create", dst))?;
    for e in std::fs::read_dir(src).map_err(io("read", src))? {
        let e = e.map_err(io("read", src))?;
        let (from, to) = (e.path(), dst.join(e.file_name()));
        let ty = e.file_type().map_err(io("read", &from))?;
        if ty.is_dir() {
            copy_dir(&from, &to)?;
        } else if ty.is_file() {
            std::fs::copy(&from, &to).map_err(io("copy", &from))?;
        }
    }
    Ok(())
}
