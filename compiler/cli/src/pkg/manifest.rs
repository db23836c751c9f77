//! `futhark.pkg`: an optional `package PATH` line and a `require { PATH X.Y.Z #HASH … }`
//! block; `--` starts a comment. Parsed with line numbers for errors, printed in one
//! canonical layout (what `futhark-rs pkg fmt` writes).

use super::PkgError;
use super::semver::Version;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Required {
    pub path: String,
    pub version: Version,
    /// The commit the version's tag names, pinned when the requirement was added.
    pub hash: Option<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Manifest {
    pub package: Option<String>,
    pub requires: Vec<Required>,
}

/// Where `futhark.pkg` sits, for messages.
pub const FILE: &str = "futhark.pkg";

impl Manifest {
    pub fn parse(text: &str, file: &str) -> Result<Manifest, PkgError> {
        let mut tokens = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let line = line.split("--").next().unwrap_or("");
            for t in line.split_whitespace() {
                tokens.push((i + 1, t));
            }
        }
        let err = |line: usize, msg: String| PkgError::Manifest {
            file: file.to_string(),
            line,
            msg,
        };
        let mut m = Manifest::default();
        let mut it = tokens.into_iter().peekable();
        let mut seen_require = false;
        while let Some((line, t)) = it.next() {
            match t {
                "package" => {
                    if m.package.is_some() {
                        return Err(err(line, "a second `package` line".into()));
                    }
                    let (_, p) = it
                        .next()
                        .ok_or_else(|| err(line, "`package` needs a package path".into()))?;
                    m.package = Some(check_path(p).map_err(|e| err(line, e))?);
                }
                "require" => {
                    if seen_require {
                        return Err(err(line, "a second `require` block".into()));
                    }
                    seen_require = true;
                    match it.next() {
                        Some((_, "{")) => {}
                        _ => return Err(err(line, "`require` must be followed by `{`".into())),
                    }
                    loop {
                        let (l, p) = it.next().ok_or_else(|| {
                            err(line, "the `require` block is not closed with `}`".into())
                        })?;
                        if p == "}" {
                            break;
                        }
                        let path = check_path(p).map_err(|e| err(l, e))?;
                        let (lv, v) = it
                            .next()
                            .ok_or_else(|| err(l, format!("`{path}` needs a version")))?;
                        let version = Version::parse(v).ok_or_else(|| {
                            err(
                                lv,
                                format!("`{v}` is not a version (X.Y.Z, all three numbers)"),
                            )
                        })?;
                        if let Some(admitted) = other_major(&path, &version) {
                            return Err(err(
                                lv,
                                format!("`{path}` admits major version {admitted}, not {version}"),
                            ));
                        }
                        let hash = match it.peek() {
                            Some((_, h)) if h.starts_with('#') => {
                                let (lh, h) = it.next().expect("peeked");
                                let h = &h[1..];
                                if h.is_empty() || !h.chars().all(|c| c.is_ascii_hexdigit()) {
                                    return Err(err(lh, format!("`#{h}` is not a commit hash")));
                                }
                                Some(h.to_string())
                            }
                            _ => None,
                        };
                        if m.requires.iter().any(|r| r.path == path) {
                            return Err(err(l, format!("`{path}` is required twice")));
                        }
                        m.requires.push(Required {
                            path,
                            version,
                            hash,
                        });
                    }
                }
                other => {
                    return Err(err(
                        line,
                        format!("unexpected `{other}` (expected `package` or `require`)"),
                    ));
                }
            }
        }
        Ok(m)
    }

    pub fn render(&self) -> String {
        let mut s = String::new();
        if let Some(p) = &self.package {
            s.push_str(&format!("package {p}\n\n"));
        }
        s.push_str("require {\n");
        let mut reqs: Vec<&Required> = self.requires.iter().collect();
        reqs.sort_by(|a, b| a.path.cmp(&b.path));
        for r in reqs {
            s.push_str(&format!("  {} {}", r.path, r.version));
            if let Some(h) = &r.hash {
                s.push_str(&format!(" #{h}"));
            }
            s.push('\n');
        }
        s.push_str("}\n");
        s
    }
}

/// A package path: `host/…` segments of letters, digits and `-._~`, no `..`, an optional
/// `@N` major-version suffix (N ≥ 2).
pub fn check_path(p: &str) -> Result<String, String> {
    let (base, major) = match p.rsplit_once('@') {
        Some((b, m)) => (b, Some(m)),
        None => (p, None),
    };
    if let Some(m) = major
        && (!m.parse::<u64>().is_ok_and(|n| n >= 2) || m.starts_with('0'))
    {
        return Err(format!(
            "`{p}`: a major-version suffix is `@N` with N at least 2"
        ));
    }
    let segs: Vec<&str> = base.split('/').collect();
    let ok = segs.len() >= 2
        && segs.iter().all(|s| {
            !s.is_empty()
                && *s != "."
                && *s != ".."
                && s.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-._~".contains(c))
        });
    if ok {
        Ok(p.to_string())
    } else {
        Err(format!(
            "`{p}` is not a package path (like `github.com/user/repo`, no `https://`)"
        ))
    }
}

/// The major version a package path admits: `@N` says N; without it, 0 or 1.
pub fn path_majors(p: &str) -> (u64, u64) {
    match p.rsplit_once('@').and_then(|(_, m)| m.parse::<u64>().ok()) {
        Some(n) => (n, n),
        None => (0, 1),
    }
}

/// When `path` does not admit `version`'s major version: the ones it does (`3`, `0 or 1`).
pub fn other_major(path: &str, version: &Version) -> Option<String> {
    let (lo, hi) = path_majors(path);
    (version.major < lo || version.major > hi).then(|| {
        if lo == hi {
            lo.to_string()
        } else {
            format!("{lo} or {hi}")
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_sorts_requirements() {
        let text = "-- my package\npackage github.com/me/lib\nrequire {\n  \
                    gitlab.com/b/c 1.0.0\n  github.com/a/b@2 2.1.0 #abc123 -- pinned\n}\n";
        let m = Manifest::parse(text, FILE).unwrap();
        assert_eq!(m.package.as_deref(), Some("github.com/me/lib"));
        assert_eq!(m.requires.len(), 2);
        let out = m.render();
        assert_eq!(
            out,
            "package github.com/me/lib\n\nrequire {\n  github.com/a/b@2 2.1.0 #abc123\n  gitlab.com/b/c 1.0.0\n}\n"
        );
        assert_eq!(Manifest::parse(&out, FILE).unwrap().render(), out);
    }

    #[test]
    fn errors_name_the_line() {
        let cases = [
            ("require {\n  github.com/a/b 1.0\n}", 2, "not a version"),
            ("require {\n  github.com/a/b 1.0.0\n", 1, "not closed"),
            ("package https://x/y\n", 1, "not a package path"),
            ("require {\n a/b 1.0.0\n a/b 1.0.1\n}", 3, "required twice"),
            ("requires {}", 1, "unexpected"),
            ("require {\n a/b@1 1.0.0\n}", 2, "major-version suffix"),
            ("require {\n a/b 1.0.0 #xyz\n}", 2, "commit hash"),
            ("require {\n a/b@3 2.0.0\n}", 2, "admits major version 3"),
            ("require {\n a/b 2.0.0\n}", 2, "admits major version 0 or 1"),
        ];
        for (text, line, what) in cases {
            match Manifest::parse(text, FILE) {
                Err(PkgError::Manifest { line: l, msg, .. }) => {
                    assert_eq!(l, line, "{text}: {msg}");
                    assert!(msg.contains(what), "{text}: {msg}");
                }
                other => panic!("{text}: {other:?}"),
            }
        }
    }
}
