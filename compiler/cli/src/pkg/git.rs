//! Everything `futhark-rs pkg` asks of a package's repository, by running `git`: the
//! released versions (tags `vX.Y.Z`) with their commits, and a checkout of one version.
//! A package path `host/user/repo[@N]` is the repository `https://host/user/repo`, as for
//! the reference tool; git's own configuration (`url.<base>.insteadOf`) can point it
//! elsewhere, e.g. at local repositories.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::PkgError;
use super::manifest::path_majors;
use super::semver::Version;

pub struct Git {
    pub verbose: bool,
}

/// The repository URL of a package path (without its `@N` suffix).
pub fn repo_url(path: &str) -> String {
    let base = path.rsplit_once('@').map_or(path, |(b, _)| b);
    format!("https://{base}")
}

/// The commit of `version` among a package's `versions`, or an error listing them.
pub fn commit_in(
    versions: &[(Version, String)],
    path: &str,
    version: &Version,
) -> Result<String, PkgError> {
    versions
        .iter()
        .find(|(v, _)| v == version)
        .map(|(_, h)| h.clone())
        .ok_or_else(|| PkgError::NoVersion {
            path: path.to_string(),
            version: version.to_string(),
            available: versions.iter().map(|(v, _)| v.to_string()).collect(),
        })
}

impl Git {
    fn run(&self, args: &[&str], dir: Option<&Path>) -> Result<String, PkgError> {
        if self.verbose {
            eprintln!("Running: git {}", args.join(" "));
        }
        let mut cmd = Command::new("git");
        cmd.args(args).env("GIT_TERMINAL_PROMPT", "0");
        if let Some(d) = dir {
            cmd.current_dir(d);
        }
        let out = cmd.output().map_err(|e| PkgError::Git {
            command: format!("git {}", args.join(" ")),
            msg: format!("cannot run git: {e} (futhark-rs pkg needs git on the PATH)"),
        })?;
        if !out.status.success() {
            return Err(PkgError::Git {
                command: format!("git {}", args.join(" ")),
                msg: String::from_utf8_lossy(&out.stderr).trim().to_string(),
            });
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }

    /// The package's released versions whose major version its path admits, oldest first,
    /// each with the commit its tag names.
    pub fn versions(&self, path: &str) -> Result<Vec<(Version, String)>, PkgError> {
        let url = repo_url(path);
        let text = self
            .run(&["ls-remote", "--tags", &url], None)
            .map_err(|e| match e {
                PkgError::Git { msg, .. } => PkgError::NoRepository {
                    path: path.to_string(),
                    url: url.clone(),
                    msg,
                },
                e => e,
            })?;
        let (lo, hi) = path_majors(path);
        let mut found: Vec<(Version, String, bool)> = Vec::new();
        for line in text.lines() {
            let Some((hash, name)) = line.split_once('\t') else {
                continue;
            };
            let Some(tag) = name.strip_prefix("refs/tags/v") else {
                continue;
            };
            // An annotated tag is listed twice; `^{}` names the commit it points at.
            let (tag, peeled) = match tag.strip_suffix("^{}") {
                Some(t) => (t, true),
                None => (tag, false),
            };
            let Some(v) = Version::parse(tag) else {
                continue;
            };
            if v.major < lo || v.major > hi {
                continue;
            }
            match found.iter_mut().find(|(w, _, _)| *w == v) {
                Some(entry) if peeled => *entry = (v, hash.to_string(), true),
                Some(_) => {}
                None => found.push((v, hash.to_string(), peeled)),
            }
        }
        let mut out: Vec<(Version, String)> = found.into_iter().map(|(v, h, _)| (v, h)).collect();
        out.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(out)
    }

    /// The commit of `version`, or an error listing the versions there are.
    pub fn commit_of(&self, path: &str, version: &Version) -> Result<String, PkgError> {
        commit_in(&self.versions(path)?, path, version)
    }

    /// A checkout of the tag `v{version}` in a new directory under `scratch`, checked to be
    /// commit `expect` when given.
    pub fn checkout(
        &self,
        path: &str,
        version: &Version,
        expect: Option<&str>,
        scratch: &Path,
    ) -> Result<PathBuf, PkgError> {
        let dir = scratch.join(format!("{}-{}", path.replace(['/', '@'], "_"), version));
        if dir.exists() {
            return Ok(dir);
        }
        let tag = format!("v{version}");
        let url = repo_url(path);
        let d = dir.to_string_lossy().into_owned();
        self.run(
            &[
                "-c",
                "advice.detachedHead=false",
                "clone",
                "--quiet",
                "--depth",
                "1",
                "--branch",
                &tag,
                &url,
                &d,
            ],
            None,
        )?;
        let head = self.run(&["rev-parse", "HEAD"], Some(&dir))?;
        let head = head.trim();
        if let Some(want) = expect
            && !head.starts_with(want)
        {
            return Err(PkgError::HashMismatch {
                path: path.to_string(),
                version: version.to_string(),
                expected: want.to_string(),
                found: head.to_string(),
            });
        }
        Ok(dir)
    }
}
