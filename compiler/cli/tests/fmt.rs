//! `futhark-rs fmt`: standard input to standard output, `--check`, files in place, and over
//! the whole Futhark test corpus (when `../shared` is there): formatting is idempotent,
//! every comma that lexes as one is spaced, and every program type-checks to the same result
//! (the same diagnostics, positions aside).

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn futhark(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_futhark-rs"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run futhark-rs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin)
        .expect("write stdin");
    child.wait_with_output().expect("wait for futhark-rs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("futhark-rs-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

#[test]
fn stdin_is_formatted_to_stdout_and_checked() {
    let messy = b"\n\ndef x = 1   \r\n\n\n\n-- | doc\ndef y = f [x]  \n";
    let out = futhark(&["fmt"], messy);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "def x = 1\n\n-- | doc\ndef y = f [x]\n");
    let check = futhark(&["fmt", "--check"], messy);
    assert_eq!(check.status.code(), Some(1));
    let clean = futhark(&["fmt", "--check"], &out.stdout);
    assert!(clean.status.success(), "{}", text(&clean.stderr));
}

#[test]
fn files_are_rewritten_in_place_and_check_lists_them() {
    let dir = temp_dir("fmt-files");
    let messy = dir.join("messy.fut");
    let tidy = dir.join("tidy.fut");
    std::fs::write(&messy, "def a = 1  \n\n\n\ndef b = 2").unwrap();
    std::fs::write(&tidy, "def c = 3\n").unwrap();
    let dir_arg = dir.to_str().unwrap();

    let check = futhark(&["fmt", "--check", dir_arg], b"");
    assert_eq!(check.status.code(), Some(1));
    let listed = text(&check.stdout);
    assert!(
        listed.contains("messy.fut") && !listed.contains("tidy.fut"),
        "{listed}"
    );
    assert!(listed.ends_with("2 files, 1 not formatted\n"), "{listed}");
    assert_eq!(
        std::fs::read_to_string(&messy).unwrap(),
        "def a = 1  \n\n\n\ndef b = 2",
        "--check must not write"
    );

    let out = futhark(&["fmt", dir_arg], b"");
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "2 files, 1 reformatted\n");
    assert_eq!(
        std::fs::read_to_string(&messy).unwrap(),
        "def a = 1\n\ndef b = 2\n"
    );
    let again = futhark(&["fmt", "--check", dir_arg], b"");
    assert!(again.status.success(), "{}", text(&again.stdout));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Copies every `.fut` file under `from` to the same place under `to`, with its layout made
/// worse in every way the formatter repairs: CRLF line ends, trailing spaces and tabs on every
/// line, each blank line doubled and two blank lines in front. Pushes (original, copy) pairs
/// onto `out`.
fn copy_programs_messed_up(from: &Path, to: &Path, out: &mut Vec<(PathBuf, PathBuf)>) {
    for entry in std::fs::read_dir(from).expect("read corpus").flatten() {
        let path = entry.path();
        let target = to.join(entry.file_name());
        if path.is_dir() {
            std::fs::create_dir_all(&target).expect("mkdir");
            copy_programs_messed_up(&path, &target, out);
        } else if path.extension().is_some_and(|e| e == "fut") {
            let text = std::fs::read_to_string(&path).expect("read program");
            let mut messy = String::from("\r\n \r\n");
            for line in text.lines() {
                messy.push_str(line);
                messy.push_str(" \t \r\n");
                if line.trim().is_empty() {
                    messy.push_str("\r\n");
                }
            }
            std::fs::write(&target, messy).expect("write copy");
            out.push((path, target));
        }
    }
}

/// `futhark-rs check --brief ROOT`'s diagnostics per file (relative to ROOT), with line and
/// column numbers blanked (blank lines removed by the formatter move them), and its summary.
fn diagnostics(root: &Path) -> (BTreeMap<String, Vec<String>>, String) {
    let out = futhark(&["check", "--brief", root.to_str().unwrap()], b"");
    let positions = regex::Regex::new(r"\d+:\d+(-\d+(:\d+)?)?").unwrap();
    let prefix = format!("{}/", root.display());
    let mut per_file: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for line in text(&out.stderr).lines() {
        let line = line.strip_prefix(&prefix).unwrap_or(line);
        let (file, rest) = line.split_once(':').unwrap_or(("", line));
        let rest = rest.replace(&prefix, "");
        per_file
            .entry(file.to_string())
            .or_default()
            .push(positions.replace_all(&rest, "#").into_owned());
    }
    (per_file, text(&out.stdout))
}

#[test]
fn corpus_is_formatted_idempotently_and_type_checks_the_same() {
    let corpus =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/conformance/futhark-tests");
    if !corpus.is_dir() {
        println!(
            "fmt corpus test skipped: ../shared/conformance/futhark-tests not found \
             (it exists only beside the project checkout)"
        );
        return;
    }
    let corpus = corpus.canonicalize().expect("corpus path");
    let copy = temp_dir("fmt-corpus");
    let mut files = Vec::new();
    copy_programs_messed_up(&corpus, &copy, &mut files);
    assert!(files.len() > 100, "found only {} programs", files.len());
    let copy_arg = copy.to_str().unwrap();

    let out = futhark(&["fmt", copy_arg], b"");
    assert!(out.status.success(), "{}", text(&out.stderr));
    println!(
        "fmt over the messed-up corpus: {}",
        text(&out.stdout).trim()
    );
    let again = futhark(&["fmt", "--check", copy_arg], b"");
    assert!(
        again.status.success(),
        "formatting is not idempotent for:\n{}",
        text(&again.stdout)
    );
    // The mess is undone exactly: the copy now reads as the original formatted, except where
    // a string gap (a string literal continued over lines) keeps its line as written.
    let mut undone = 0;
    let mut kept = Vec::new();
    for (original, copied) in &files {
        let source = std::fs::read_to_string(original).unwrap();
        if std::fs::read_to_string(copied).unwrap() == futhark_syntax::format::format(&source) {
            undone += 1;
        } else {
            kept.push(original.display().to_string());
        }
    }
    println!(
        "layout restored exactly in {undone} of {} files",
        files.len()
    );
    // Every comma token of a formatted program that lexes is followed by a blank, a line
    // break or a closing bracket, and comments are kept (as many, with the same text).
    let mut spaced = 0;
    for (original, copied) in &files {
        let before = std::fs::read_to_string(original).unwrap();
        let after = std::fs::read_to_string(copied).unwrap();
        let lexed = futhark_syntax::lexer::lex(futhark_syntax::FileId(0), &after);
        if !lexed.errors.is_empty() {
            continue;
        }
        let comments = |text: &str| -> Vec<String> {
            let l = futhark_syntax::lexer::lex(futhark_syntax::FileId(0), text);
            l.comments
                .iter()
                .map(|c| {
                    text[c.start as usize..c.end as usize]
                        .trim_end()
                        .to_string()
                })
                .collect()
        };
        assert_eq!(
            comments(&before),
            comments(&after),
            "{}",
            original.display()
        );
        for t in &lexed.tokens {
            if t.kind == futhark_syntax::lexer::TokenKind::Comma {
                let next = after[t.end as usize..].chars().next();
                assert!(
                    next.is_none_or(|c| c.is_whitespace() || ")]}".contains(c)),
                    "unspaced comma in {} at byte {}",
                    copied.display(),
                    t.start
                );
            }
        }
        spaced += 1;
    }
    println!("commas spaced and comments kept in {spaced} files that lex");
    // A string gap ends its line with `\` (inside the literal).
    let unexplained: Vec<&String> = kept
        .iter()
        .filter(|f| {
            let source = std::fs::read_to_string(f).unwrap();
            !source.lines().any(|l| l.trim_end().ends_with('\\'))
        })
        .collect();
    assert!(
        unexplained.is_empty(),
        "the layout was not restored in {unexplained:?}"
    );

    let (before, before_summary) = diagnostics(&corpus);
    let (after, after_summary) = diagnostics(&copy);
    assert_eq!(before_summary, after_summary);
    let differing: Vec<&String> = before
        .keys()
        .chain(after.keys())
        .filter(|f| before.get(*f) != after.get(*f))
        .collect();
    assert!(
        differing.is_empty(),
        "type-checking changed for {} files, e.g. {:?}: {:?} became {:?}",
        differing.len(),
        differing[0],
        before.get(differing[0]),
        after.get(differing[0])
    );
    println!(
        "check before and after: {} ({} files with diagnostics, identical)",
        after_summary.trim(),
        after.len()
    );
    let _ = std::fs::remove_dir_all(&copy);
}
