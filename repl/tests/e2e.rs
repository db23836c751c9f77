//! The REPL end to end over piped stdin: multi-line input, every command, errors followed
//! by working cells, redefinitions; and the reference REPL's transcripts from
//! `../shared/conformance/futhark-tests-repl` (skipped with a message when absent).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Runs the REPL with `args`, feeding `input`; returns stdout.
fn repl(args: &[&str], input: &str, dir: &Path) -> String {
    let mut child = match Command::new(env!("CARGO_BIN_EXE_futhark-repl"))
        .args(args)
        .current_dir(dir)
        .env("FUTHARK_REPL_HISTORY", dir.join("history"))
        .env("FUTHARK_NO_GPU", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
    {
        Ok(c) => c,
        Err(e) => panic!("cannot start futhark-repl: {e}"),
    };
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(input.as_bytes());
    }
    match child.wait_with_output() {
        Ok(out) => String::from_utf8_lossy(&out.stdout).into_owned(),
        Err(e) => panic!("futhark-repl failed: {e}"),
    }
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("futhark-repl-{name}-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    dir
}

#[test]
fn a_session_with_every_command() {
    let dir = scratch("commands");
    let _ = std::fs::write(
        dir.join("lib.fut"),
        "-- | Adds one.\ndef inc (x: i32) = x + 1\nmodule M = { def k = 5i32 }\n",
    );
    let input = "\
:load lib.fut
inc 41
def f (x: i32) =
  inc (x * 2)
f 10
1 + true
f 1
def f (x: i32) = x - 1
f 1
[1, 2, 3][7]
it + 1
:reload
inc 1
:type inc 1
:mtype M
:doc inc
:time on
2 + 2
:time off
:time
:gpus
:gpus 1
:backend
:backend interp
:kernels
:ir
:profile
:he
:nonsense
:quit
3 + 3
";
    let out = repl(&[], input, &dir);
    let expect = |needle: &str| assert!(out.contains(needle), "missing {needle:?} in:\n{out}");
    expect("[0]> Loaded lib.fut");
    expect("[1]> 42\n");
    // The two-line declaration takes one prompt; the next cell is [3].
    expect("[2]> [3]> 21\n");
    expect("[4]> [type-mismatch] Error");
    expect("[5]> 3\n");
    expect("[7]> 0\n");
    expect("out of bounds");
    // `it` still holds the last value that was shown.
    expect("[9]> 1\n");
    expect("[10]> Reloaded lib.fut");
    expect("[11]> 2\n");
    expect("inc 1 : i32");
    expect("val k");
    expect("Adds one.");
    expect("timing on");
    expect("[16]> 4\n-- ");
    expect("on the interpreter");
    expect("GPUs visible: 0");
    expect("GPUs requested: 1");
    expect("backend: auto");
    expect("backend: interp");
    // The last expression cell was `2 + 2`: no kernels, but its IR and its profile.
    expect("`futhark_cell` launches no kernels");
    expect("-- kernels IR of `futhark_cell`");
    expect("no kernels: the cell ran on the interpreter");
    expect(":mtype MODEXP");
    expect("unknown command :nonsense");
    assert!(out.ends_with("Leaving 'futhark repl'.\n"), "{out}");
    assert!(!out.contains("6\n"), ":quit must stop before 3 + 3:\n{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_blank_line_ends_an_incomplete_cell() {
    let dir = scratch("blank");
    let out = repl(&[], "def g (x: i32) =\n\n1 + 1\n", &dir);
    assert!(out.contains("[syntax-error]"), "{out}");
    assert!(out.contains("[1]> 2\n"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn large_arrays_are_abbreviated() {
    let dir = scratch("large");
    let out = repl(&[], "iota 5000\n", &dir);
    assert!(out.contains("[0, 1, 2, ..., 4997, 4998, 4999]\n"), "{out}");
    assert!(out.contains("-- abbreviated: a [5000] array"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// On the compiled path (the CPU executor, the GPU path's twin), an out-of-bounds index in
/// a kernel is the interpreter's located error, `:unsafe` turns the check off, and the next
/// cell works.
#[test]
fn compiled_cells_check_bounds_and_keep_the_session() {
    let dir = scratch("bounds");
    let input = "let xs = [1,2,3,4,5,6,7,8,9,10i32]\n\
                 map (\\j -> xs[j + 5]) (iota 10)\n\
                 i64.sum (iota 10)\n\
                 10 / (i32.i64 (length xs) - 10)\n\
                 :unsafe on\n\
                 map (\\j -> xs[j + 1]) (iota 9)\n";
    let out = repl(&["--backend", "cpu"], input, &dir);
    assert!(
        out.contains("Error: Index [10] out of bounds for array of shape [10].")
            && out.contains("[1]:1:12"),
        "{out}"
    );
    assert!(out.contains("[2]> 45\n"), "{out}");
    assert!(out.contains("division by zero"), "{out}");
    assert!(out.contains("run-time checks are off"), "{out}");
    assert!(out.contains("[2, 3, 4, 5, 6, 7, 8, 9, 10]"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The reference's transcripts: `X.fut` loaded, `X.in` piped in, stdout must equal `X.out`.
#[test]
fn reference_transcripts() {
    let root =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/conformance/futhark-tests-repl");
    let Ok(entries) = std::fs::read_dir(&root) else {
        eprintln!("skipped: {} is absent", root.display());
        return;
    };
    let mut programs: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "fut"))
        .collect();
    programs.sort();
    let mut failed = Vec::new();
    for prog in &programs {
        let (Ok(input), Ok(expected)) = (
            std::fs::read_to_string(prog.with_extension("in")),
            std::fs::read_to_string(prog.with_extension("out")),
        ) else {
            continue;
        };
        let name = prog
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let got = repl(&[&name], &input, &root);
        if got != expected {
            failed.push(format!("{name}:\n--- expected\n{expected}--- got\n{got}"));
        }
    }
    eprintln!(
        "REPL transcripts: {} of {} match",
        programs.len() - failed.len(),
        programs.len()
    );
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

/// Runs the REPL in a terminal (util-linux `script`) with `env`, typing `input`; returns
/// what the terminal showed, or `None` when `script` is missing.
fn in_terminal(env: &[(&str, &str)], input: &str, dir: &Path) -> Option<String> {
    Command::new("script").arg("--version").output().ok()?;
    let mut cmd = Command::new("script");
    cmd.args(["-qfec", env!("CARGO_BIN_EXE_futhark-repl"), "/dev/null"])
        .current_dir(dir)
        .env("FUTHARK_REPL_HISTORY", dir.join("history"))
        .env("FUTHARK_NO_GPU", "1")
        .env("TERM", "xterm")
        .env_remove("NO_COLOR")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().ok()?;
    if let Some(mut stdin) = child.stdin.take() {
        for line in input.lines() {
            let _ = stdin.write_all(format!("{line}\r").as_bytes());
            let _ = stdin.flush();
            std::thread::sleep(std::time::Duration::from_millis(300));
        }
    }
    let out = child.wait_with_output().ok()?;
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn a_terminal_shows_colours_unless_no_color_is_set() {
    let dir = scratch("colours");
    let input = "def x = 1\n1 + true\n:quit\n";
    let Some(coloured) = in_terminal(&[], input, &dir) else {
        eprintln!("skipped: util-linux `script` is not installed");
        return;
    };
    // The input line is highlighted (`def` a keyword) and the error is red.
    assert!(coloured.contains("\x1b[35mdef\x1b[0m"), "{coloured:?}");
    assert!(coloured.contains("\x1b[31m"), "{coloured:?}");
    let plain = in_terminal(&[("NO_COLOR", "1")], input, &dir).unwrap_or_default();
    assert!(plain.contains("type-mismatch"), "{plain:?}");
    assert!(
        !plain.contains("\x1b[35m") && !plain.contains("\x1b[31m"),
        "{plain:?}"
    );
}

#[test]
fn history_is_appended_after_each_entry() {
    // Run in a terminal (util-linux `script` gives it one: rustyline keeps no history of
    // piped input), then killed while a cell runs: what was entered before is in the
    // history file.
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("skipped: util-linux `script` is not installed");
        return;
    }
    let dir = scratch("history");
    let history = dir.join("history");
    let _ = std::fs::remove_file(&history);
    let repl = env!("CARGO_BIN_EXE_futhark-repl");
    let mut child = match Command::new("script")
        .args(["-qfec", repl, "/dev/null"])
        .current_dir(&dir)
        .env("FUTHARK_REPL_HISTORY", &history)
        .env("FUTHARK_NO_GPU", "1")
        .env("TERM", "xterm")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
    {
        Ok(c) => c,
        Err(e) => panic!("cannot start futhark-repl: {e}"),
    };
    let mut stdin = child.stdin.take();
    if let Some(s) = stdin.as_mut() {
        let _ = s.write_all(b"1 + 2\rloop i = 0i64 while true do i + 1\r");
        let _ = s.flush();
    }
    let start = std::time::Instant::now();
    let mut text = String::new();
    while start.elapsed() < std::time::Duration::from_secs(30) {
        text = std::fs::read_to_string(&history).unwrap_or_default();
        if text.contains("1 + 2") {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
    drop(stdin);
    assert!(text.contains("1 + 2"), "history so far: {text:?}");
}
