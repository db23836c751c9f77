//! `futhark-rs pkg` against local git repositories: package paths `example.org/…` are sent
//! to `file://` repositories through git's own `url.<base>.insteadOf` (a private git
//! configuration, so no network and no user settings are involved). Covers init, add (a
//! given and the newest version), sync with minimal version selection over a transitive
//! requirement, upgrade, remove, versions, and the errors: unknown version, unknown
//! repository, a pinned hash that the tag no longer names, a malformed manifest.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

struct Sandbox {
    root: PathBuf,
    gitconfig: PathBuf,
}

impl Sandbox {
    fn new(name: &str) -> Sandbox {
        let root =
            std::env::temp_dir().join(format!("futhark-pkg-test-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("repos")).unwrap();
        std::fs::create_dir_all(root.join("project")).unwrap();
        let gitconfig = root.join("gitconfig");
        std::fs::write(
            &gitconfig,
            format!(
                "[url \"file://{}/\"]\n\tinsteadOf = https://example.org/\n[user]\n\tname = t\n\temail = t@example.org\n[init]\n\tdefaultBranch = main\n",
                root.join("repos").display()
            ),
        )
        .unwrap();
        Sandbox { root, gitconfig }
    }

    fn cmd(&self, program: &str, dir: &Path) -> Command {
        let mut c = Command::new(program);
        c.current_dir(dir)
            .env("GIT_CONFIG_GLOBAL", &self.gitconfig)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("HOME", &self.root);
        c
    }

    fn git(&self, dir: &Path, args: &[&str]) -> String {
        let out = self.cmd("git", dir).args(args).output().expect("git runs");
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    /// Commits `files` to the repository of `path` (made on first use) and tags `v{tag}`.
    fn release(&self, path: &str, tag: &str, files: &[(&str, &str)]) {
        let name = path.strip_prefix("example.org/").unwrap();
        let repo = self.root.join("repos").join(name);
        if !repo.exists() {
            std::fs::create_dir_all(&repo).unwrap();
            self.git(&repo, &["init", "--quiet"]);
        }
        for (f, text) in files {
            let p = repo.join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        self.git(&repo, &["add", "-A"]);
        self.git(&repo, &["commit", "--quiet", "-m", tag]);
        self.git(&repo, &["tag", "-a", &format!("v{tag}"), "-m", tag]);
    }

    fn project(&self) -> PathBuf {
        self.root.join("project")
    }

    fn pkg(&self, args: &[&str]) -> Output {
        self.cmd(env!("CARGO_BIN_EXE_futhark-rs"), &self.project())
            .arg("pkg")
            .args(args)
            .output()
            .expect("futhark-rs runs")
    }

    fn ok(&self, args: &[&str]) -> String {
        let out = self.pkg(args);
        assert!(
            out.status.success(),
            "pkg {args:?} failed: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn fails(&self, args: &[&str]) -> String {
        let out = self.pkg(args);
        assert!(!out.status.success(), "pkg {args:?} should fail");
        String::from_utf8_lossy(&out.stderr).into_owned()
    }

    fn read(&self, rel: &str) -> Option<String> {
        std::fs::read_to_string(self.project().join(rel)).ok()
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

fn git_available() -> bool {
    Command::new("git")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

fn publish(s: &Sandbox) {
    let foo_file = "lib/example.org/a/foo/foo.fut";
    let bar_file = "lib/example.org/a/bar/bar.fut";
    s.release(
        "example.org/a/bar",
        "1.0.0",
        &[
            ("futhark.pkg", "package example.org/a/bar\nrequire {\n}\n"),
            (bar_file, "def bar : i32 = 10\n"),
        ],
    );
    s.release(
        "example.org/a/bar",
        "1.1.0",
        &[(bar_file, "def bar : i32 = 11\n")],
    );
    s.release(
        "example.org/a/foo",
        "0.1.0",
        &[
            ("futhark.pkg", "package example.org/a/foo\nrequire {\n}\n"),
            (foo_file, "def foo : i32 = 1\n"),
            ("README.md", "not part of the package\n"),
        ],
    );
    s.release(
        "example.org/a/foo",
        "0.2.0",
        &[
            (
                "futhark.pkg",
                "package example.org/a/foo\nrequire {\n  example.org/a/bar 1.0.0\n}\n",
            ),
            (foo_file, "import \"../bar/bar\"\ndef foo : i32 = 2 + bar\n"),
        ],
    );
}

#[test]
fn add_sync_upgrade_remove_round_trip() {
    if !git_available() {
        eprintln!("git not found; futhark-rs pkg not tested");
        return;
    }
    let s = Sandbox::new("round");
    publish(&s);

    // A package of our own: its files in lib/PATH survive every sync.
    let out = s.ok(&["init", "example.org/me/proj"]);
    assert!(
        out.contains("Created directory lib/example.org/me/proj"),
        "{out}"
    );
    std::fs::write(
        s.project().join("lib/example.org/me/proj/own.fut"),
        "def own = 0\n",
    )
    .unwrap();

    assert_eq!(s.ok(&["versions", "example.org/a/foo"]), "0.1.0\n0.2.0\n");
    let out = s.ok(&["add", "example.org/a/foo", "0.1.0"]);
    assert!(
        out.contains("Added new required package example.org/a/foo 0.1.0."),
        "{out}"
    );
    let tag_commit = s.git(
        &s.root.join("repos/a/foo"),
        &["rev-parse", "v0.1.0^{commit}"],
    );
    let manifest = s.read("futhark.pkg").unwrap();
    assert_eq!(
        manifest,
        format!(
            "package example.org/me/proj\n\nrequire {{\n  example.org/a/foo 0.1.0 #{tag_commit}\n}}\n"
        )
    );
    assert!(
        s.read("lib/example.org/a/foo/foo.fut").is_none(),
        "add downloads nothing"
    );

    let out = s.ok(&["sync"]);
    assert!(out.contains("Installed example.org/a/foo 0.1.0."), "{out}");
    assert_eq!(
        s.read("lib/example.org/a/foo/foo.fut").unwrap(),
        "def foo : i32 = 1\n"
    );
    assert!(s.read("lib/example.org/a/foo/README.md").is_none());
    assert_eq!(
        s.read("lib/example.org/me/proj/own.fut").unwrap(),
        "def own = 0\n"
    );
    assert!(!s.project().join("lib~new").exists() && !s.project().join("lib~old").exists());

    // The installed files are imported like any other.
    std::fs::write(
        s.project().join("main.fut"),
        "import \"lib/example.org/a/foo/foo\"\nentry main (x: i32) = x + foo\n",
    )
    .unwrap();
    let run = s
        .cmd(env!("CARGO_BIN_EXE_futhark-rs"), &s.project())
        .args(["run", "--backend", "interp", "main.fut"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            use std::io::Write;
            c.stdin.take().unwrap().write_all(b"41")?;
            c.wait_with_output()
        })
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&run.stdout).trim(), "42i32");

    // Upgrade: the newest 0.x; its requirement on bar 1.0.0 is installed at 1.0.0 (the
    // minimum asked for, though 1.1.0 exists).
    let out = s.ok(&["upgrade"]);
    assert!(
        out.contains("Upgraded example.org/a/foo 0.1.0 => 0.2.0."),
        "{out}"
    );
    s.ok(&["sync"]);
    assert!(
        s.read("lib/example.org/a/foo/foo.fut")
            .unwrap()
            .contains("2 + bar")
    );
    assert_eq!(
        s.read("lib/example.org/a/bar/bar.fut").unwrap(),
        "def bar : i32 = 10\n"
    );
    assert!(s.ok(&["upgrade"]).contains("Nothing to upgrade."));

    // Asking for bar 1.1.0 ourselves raises the selection.
    s.ok(&["add", "example.org/a/bar"]);
    s.ok(&["sync"]);
    assert_eq!(
        s.read("lib/example.org/a/bar/bar.fut").unwrap(),
        "def bar : i32 = 11\n"
    );

    // Remove foo: bar stays (we require it), foo goes at the next sync.
    let out = s.ok(&["remove", "example.org/a/foo"]);
    assert!(out.contains("Removed example.org/a/foo 0.2.0."), "{out}");
    s.ok(&["sync"]);
    assert!(s.read("lib/example.org/a/foo/foo.fut").is_none());
    assert!(s.read("lib/example.org/a/bar/bar.fut").is_some());
    assert_eq!(
        s.read("lib/example.org/me/proj/own.fut").unwrap(),
        "def own = 0\n"
    );
    assert!(s.ok(&["check"]).contains("looks fine"));
}

#[test]
fn errors_say_what_is_wrong() {
    if !git_available() {
        eprintln!("git not found; futhark-rs pkg not tested");
        return;
    }
    let s = Sandbox::new("errors");
    publish(&s);
    let e = s.fails(&["add", "example.org/a/foo", "0.9.9"]);
    assert!(
        e.contains("package example.org/a/foo has no version 0.9.9; available: 0.1.0, 0.2.0"),
        "{e}"
    );
    let e = s.fails(&["add", "example.org/a/foo", "2.0.0"]);
    assert!(
        e.contains("package path example.org/a/foo admits 0 or 1"),
        "{e}"
    );
    let e = s.fails(&["add", "example.org/a/foo", "1.0"]);
    assert!(e.contains("`1.0` is not a version"), "{e}");
    let e = s.fails(&["add", "example.org/nobody/here"]);
    assert!(
        e.contains("cannot read the versions of package example.org/nobody/here"),
        "{e}"
    );
    let e = s.fails(&["add", "https://example.org/a/foo"]);
    assert!(e.contains("not a package path"), "{e}");
    let e = s.fails(&["remove", "example.org/a/foo"]);
    assert!(
        e.contains("no package example.org/a/foo in futhark.pkg"),
        "{e}"
    );

    // A pinned hash the tag does not name (a re-tagged release) stops sync, lib/ untouched.
    s.ok(&["add", "example.org/a/foo", "0.1.0"]);
    let m = s.read("futhark.pkg").unwrap();
    let bad = regex_like_replace_hash(&m, "0123456789abcdef0123456789abcdef01234567");
    std::fs::write(s.project().join("futhark.pkg"), bad).unwrap();
    let e = s.fails(&["sync"]);
    assert!(e.contains("futhark.pkg pins #0123456789abcdef"), "{e}");
    assert!(!s.project().join("lib").exists());

    std::fs::write(
        s.project().join("futhark.pkg"),
        "require {\n  example.org/a/foo 0.1\n}\n",
    )
    .unwrap();
    let e = s.fails(&["sync"]);
    assert!(e.contains("futhark.pkg:2: `0.1` is not a version"), "{e}");
}

fn regex_like_replace_hash(manifest: &str, with: &str) -> String {
    let i = manifest.find('#').expect("a pinned hash");
    let end = manifest[i..].find('\n').map_or(manifest.len(), |j| i + j);
    format!("{}#{with}{}", &manifest[..i], &manifest[end..])
}
