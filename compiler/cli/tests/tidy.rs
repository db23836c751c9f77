//! Repository hygiene: every Rust source file in the workspace opens with a `//!` comment
//! saying what it holds (the habit ARCHITECTURE.md and STYLE.md ask for), no file is over
//! 1,000 lines, the IDE and the language server link no CUDA runtime, and shared types
//! (`PrimType`) are declared once.

use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if path.is_dir() {
            if !(name.starts_with('.') || name == "target" || name == "node_modules") {
                rust_files(&path, out);
            }
        } else if name.ends_with(".rs") {
            out.push(path);
        }
    }
}

#[test]
fn every_rust_file_has_a_module_doc() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = Vec::new();
    for top in ["compiler", "lsp", "repl", "jupyter", "tests"] {
        rust_files(&root.join(top), &mut files);
    }
    assert!(files.len() > 20, "found only {} Rust files", files.len());
    let missing: Vec<String> = files
        .iter()
        .filter(|path| {
            let text = std::fs::read_to_string(path).unwrap_or_default();
            let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
            !first.starts_with("//!")
        })
        .map(|p| p.display().to_string())
        .collect();
    assert!(
        missing.is_empty(),
        "files without a leading `//!` doc comment:\n{}",
        missing.join("\n")
    );
}

/// Files allowed over [`MAX_LINES`] for now, each waiting for its own split. The test fails
/// when one of them is back under the limit, so the list only shrinks.
const LONG_FILES: &[&str] = &[];

/// The longest a Rust file may be, in lines.
const MAX_LINES: usize = 1000;

/// No Rust file of the workspace is over [`MAX_LINES`] lines: sources, tests and examples
/// alike (a long file is split into modules named for what they hold).
#[test]
fn no_rust_file_is_over_a_thousand_lines() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = Vec::new();
    for top in ["compiler", "lsp", "repl", "jupyter", "tests"] {
        rust_files(&root.join(top), &mut files);
    }
    assert!(files.len() > 20, "found only {} Rust files", files.len());
    let mut long = Vec::new();
    let mut shrunk: Vec<&str> = LONG_FILES.to_vec();
    for path in &files {
        let lines = std::fs::read_to_string(path)
            .unwrap_or_default()
            .lines()
            .count();
        let rel = path
            .strip_prefix(&root)
            .unwrap_or(path)
            .to_string_lossy()
            .replace('\\', "/");
        if lines > MAX_LINES {
            if let Some(i) = shrunk.iter().position(|f| *f == rel) {
                shrunk.remove(i);
            } else {
                long.push(format!("{rel}: {lines} lines"));
            }
        }
    }
    assert!(
        long.is_empty(),
        "Rust files over {MAX_LINES} lines (split them by responsibility):\n{}",
        long.join("\n")
    );
    assert!(
        shrunk.is_empty(),
        "no longer over {MAX_LINES} lines (or gone): remove from LONG_FILES: {shrunk:?}"
    );
}

/// The packages `package`'s normal dependencies pull in on this platform, with the features
/// `package` itself asks for (`cargo tree -p`, which resolves features for the
/// one package, unlike `cargo metadata`'s workspace-wide resolve).
fn dependency_names(package: &str, extra: &[&str]) -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = std::process::Command::new(cargo)
        .current_dir(&root)
        .args(["tree", "--offline", "-p", package, "-e", "normal"])
        .args(["--prefix", "none", "--format", "{p}"])
        .args(extra)
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "cargo tree -p {package} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let names: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .map(str::to_string)
        .collect();
    assert!(
        names.iter().any(|n| n == package),
        "cargo tree did not list {package} itself"
    );
    names
}

/// The IDE analysis and the language server link no CUDA runtime: the CUDA view is
/// generated text (`futhark-cuda-codegen`), and the LSP runs examples on the interpreter.
/// The command-line tool does link it, which shows the check can see cudarc at all.
#[test]
fn ide_and_lsp_do_not_link_cudarc() {
    for package in ["futhark-ide", "futhark-lsp", "futhark-cuda-codegen"] {
        let names = dependency_names(package, &[]);
        for banned in ["cudarc", "futhark-cuda"] {
            assert!(
                !names.iter().any(|n| n == banned),
                "{package} depends on {banned}"
            );
        }
    }
    for package in ["futhark-rs", "futhark-session", "futhark-exec"] {
        let names = dependency_names(package, &[]);
        assert!(
            names.iter().any(|n| n == "cudarc"),
            "{package} should link cudarc by default"
        );
    }
    // Without their `cuda` feature, the session and the executor build without it.
    for package in ["futhark-session", "futhark-exec", "futhark-repl"] {
        let names = dependency_names(package, &["--no-default-features"]);
        assert!(
            !names.iter().any(|n| n == "cudarc"),
            "{package} --no-default-features depends on cudarc"
        );
    }
}

/// The Rust files under the workspace's crates, with their paths relative to the root
/// (`compiler/db/src/lib.rs`).
fn workspace_sources() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = Vec::new();
    for top in ["compiler", "lsp", "repl", "jupyter"] {
        rust_files(&root.join(top), &mut files);
    }
    let root = root.canonicalize().unwrap_or(root);
    files
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            let path = path.canonicalize().unwrap_or(path);
            let rel = path.strip_prefix(&root).unwrap_or(&path);
            (rel.display().to_string(), text)
        })
        .collect()
}

/// `text` with `//` comments removed (doc comments may name what code may not call); lines
/// keep their numbers.
fn strip_comments(text: &str) -> String {
    text.lines()
        .map(|line| line.find("//").map_or(line, |at| &line[..at]))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The lines (from 1) where `code` names `item` of `path`: as `path::item` (a call, a
/// function value) or in a `use` of it (`use path::item;`, `use path::{a, item}`, over
/// several lines too); `item` as a whole word, so `parse` is not `parse_cell`.
fn mentions(code: &str, path: &str, item: &str) -> Vec<usize> {
    let whole = |s: &str| {
        s.strip_prefix(item)
            .is_some_and(|rest| !rest.starts_with(|c: char| c.is_alphanumeric() || c == '_'))
    };
    let prefix = format!("{path}::");
    let mut lines = Vec::new();
    for (at, _) in code.match_indices(&prefix) {
        let rest = &code[at + prefix.len()..];
        let hit = match rest.strip_prefix('{') {
            Some(group) => {
                let mut depth = 1;
                let end = group
                    .char_indices()
                    .find(|&(_, c)| {
                        depth += match c {
                            '{' => 1,
                            '}' => -1,
                            _ => 0,
                        };
                        depth == 0
                    })
                    .map_or(group.len(), |(i, _)| i);
                group[..end]
                    .split([',', '{', '}'])
                    .map(str::trim)
                    .any(whole)
            }
            None => whole(rest),
        };
        if hit {
            lines.push(code[..at].matches('\n').count() + 1);
        }
    }
    lines
}

/// Every program the faces load is parsed and checked by the database's queries
/// (`futhark_db::parse`, `check`, `interp_program`, `compile`), so no face parses or checks
/// a file a second time: outside `compiler/db` (and the parser's and checker's own crates,
/// their tests and examples), no code calls the whole-file entry points
/// `futhark_syntax::parse`, `futhark_check::check_file`/`check_file_cached`, or builds a
/// second checker context (`CheckContext::new`: it parses and checks the prelude). REPL
/// cells and expressions (`parse_cell`, `parse_exp`, `check_decs_incremental`,
/// `check_exp`) are not files.
#[test]
fn only_the_database_parses_and_checks_program_files() {
    let forbidden = [
        ("futhark_syntax", "parse"),
        ("futhark_check", "check_file"),
        ("futhark_check", "check_file_cached"),
        ("CheckContext", "new"),
        ("CheckContext", "default"),
    ];
    let owners = ["compiler/db/", "compiler/syntax/", "compiler/check/"];
    let sources = workspace_sources();
    assert!(
        sources.len() > 20,
        "found only {} Rust files",
        sources.len()
    );
    let mut offences = Vec::new();
    for (path, text) in &sources {
        if owners.iter().any(|o| path.starts_with(o)) {
            continue;
        }
        let code = strip_comments(text);
        for (krate, item) in forbidden {
            for n in mentions(&code, krate, item) {
                offences.push(format!("{path}:{n}: {krate}::{item}"));
            }
        }
    }
    assert!(
        offences.is_empty(),
        "program files are parsed and checked by futhark-db's queries only; go through \
         futhark_db (Database::set_file, parse, check, interp_program, compile):\n{}",
        offences.join("\n")
    );
}

/// Options are values: `FUTHARK_*` variables are read in exactly one module,
/// `compiler/options/src/env.rs` (`futhark_options::from_env`), which each face calls at
/// its edge, and no code sets or removes environment variables. Not counted: test and
/// example code (`tests/`, `examples/`, a file's `#[cfg(test)]` module), whose harness
/// settings (`FUTHARK_NVRTC_DIR`, `FUTHARK_SHARED`) are no options of the product. Faces
/// may still read `NO_COLOR`, `HOME`, `XDG_*` and `JUPYTER_DATA_DIR` where they print or
/// install; those are not options and are not checked here.
#[test]
fn futhark_variables_are_read_in_one_module() {
    const HOME: &str = "compiler/options/src/env.rs";
    let reads = ["var(\"FUTHARK_", "var_os(\"FUTHARK_"];
    let writes = ["set_var(", "remove_var("];
    let mut readers = std::collections::BTreeSet::new();
    let mut writers = Vec::new();
    for (path, text) in workspace_sources() {
        if path.contains("/tests/") || path.contains("/examples/") {
            continue;
        }
        // A test module sits at the end of its file: nothing after its attribute counts.
        let product = text.split("#[cfg(test)]").next().unwrap_or_default();
        for (i, code) in strip_comments(product).lines().enumerate() {
            if reads.iter().any(|p| code.contains(p)) {
                readers.insert(path.clone());
            }
            if writes.iter().any(|p| code.contains(p)) {
                writers.push(format!("{path}:{}: {}", i + 1, code.trim()));
            }
        }
    }
    let readers: Vec<String> = readers.into_iter().collect();
    assert_eq!(
        readers,
        [HOME],
        "FUTHARK_* variables are read only by futhark_options::from_env ({HOME}); add the \
         setting to futhark_options::Options and pass it down"
    );
    assert!(
        writers.is_empty(),
        "options travel as values, not through the environment:\n{}",
        writers.join("\n")
    );
}

/// The files of `sources` whose code (comments left out) declares `enum NAME`, as
/// `path:line` strings.
fn enum_declarations(sources: &[(String, String)], name: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (path, text) in sources {
        for (i, line) in strip_comments(text).lines().enumerate() {
            let words: Vec<&str> = line
                .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .filter(|w| !w.is_empty())
                .collect();
            if words.windows(2).any(|w| w == ["enum", name]) {
                found.push(format!("{path}:{}", i + 1));
            }
        }
    }
    found
}

/// One `PrimType` for the whole compiler: the checker, the IR and the data formats share
/// `futhark_prim::PrimType` (`compiler/prim`), so no crate declares its own enum of the
/// primitive types and no converters between such enums come back.
#[test]
fn prim_type_is_declared_once() {
    let sources = workspace_sources();
    let found = enum_declarations(&sources, "PrimType");
    let files: Vec<&str> = found
        .iter()
        .filter_map(|at| at.rsplit_once(':').map(|(path, _)| path))
        .collect();
    assert_eq!(
        files,
        ["compiler/prim/src/lib.rs"],
        "the primitive types are declared once, in futhark-prim; use (or re-export) \
         futhark_prim::PrimType instead of declaring another"
    );
    // The check sees a second declaration, wherever it is written (the text is put
    // together here so that this file does not declare one itself).
    let mut more = sources;
    let keyword = "enum";
    more.push((
        "elsewhere.rs".to_string(),
        format!("//! x\n#[derive(Clone)]\npub(crate) {keyword} PrimType {{ I8 }}\n"),
    ));
    assert_eq!(enum_declarations(&more, "PrimType").len(), 2);
}
