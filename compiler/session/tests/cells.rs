//! End-to-end behaviour of a session: cells, scope, errors, `it`, loading, interrupting.

use std::time::Duration;

use futhark_session::{
    BackendChoice, CellOutcome, ErrorKind, Evaluated, Options, Session, ValueView,
};

fn session() -> Session {
    match Session::new(Options {
        backend: BackendChoice::Interp,
        ..Options::default()
    }) {
        Ok(s) => s,
        Err(e) => panic!("session did not start: {e}"),
    }
}

fn eval(s: &mut Session, text: &str) -> CellOutcome {
    s.eval(text, &mut |_| {})
}

/// The printed value of an expression cell, or the rendered error.
fn show(s: &mut Session, text: &str) -> String {
    let out = eval(s, text);
    match out.result {
        Ok(Evaluated::Value(v)) => v.text.text,
        Ok(Evaluated::Declared(names)) => format!("declared {}", names.join(" ")),
        Ok(Evaluated::Nothing) => "nothing".to_string(),
        Err(e) => format!("error: {}", s.render_error(&e, false)),
    }
}

#[test]
fn declarations_persist_and_expressions_show_values() {
    let mut s = session();
    assert_eq!(
        show(&mut s, "def double (x: i32) = x * 2"),
        "declared double"
    );
    assert_eq!(show(&mut s, "double 21"), "42");
    assert_eq!(show(&mut s, "map double [1, 2, 3]"), "[2, 4, 6]");
}

#[test]
fn redefinition_replaces() {
    let mut s = session();
    show(&mut s, "def k = 1i64");
    show(&mut s, "def k = 2i64");
    assert_eq!(show(&mut s, "k + 1"), "3");
}

#[test]
fn results_are_bound_to_it_and_let_binds_names() {
    let mut s = session();
    assert_eq!(show(&mut s, "iota 4"), "[0, 1, 2, 3]");
    assert_eq!(show(&mut s, "reduce (+) 0 it"), "6");
    assert_eq!(show(&mut s, "it * 10"), "60");
    assert_eq!(show(&mut s, "let y = 5.5f32"), "declared y");
    assert_eq!(show(&mut s, "y"), "5.5f32");
}

#[test]
fn types_are_reported() {
    let mut s = session();
    match eval(&mut s, "[1f32, 2f32]").result {
        Ok(Evaluated::Value(v)) => assert!(v.ty.contains("f32"), "{}", v.ty),
        other => panic!("{other:?}"),
    }
    assert_eq!(s.type_of("1i8 + 2").ok().as_deref(), Some("i8"));
}

#[test]
fn errors_leave_the_session_intact() {
    let mut s = session();
    show(&mut s, "def a = 10i32");
    let syntax = eval(&mut s, "def b = (");
    assert!(matches!(syntax.result, Err(ref e) if e.kind == ErrorKind::Syntax));
    let ty = eval(&mut s, "def a = 1 + true");
    assert!(matches!(ty.result, Err(ref e) if e.kind == ErrorKind::Type));
    let run = eval(&mut s, "[1, 2, 3][a]");
    match &run.result {
        Err(e) => {
            assert_eq!(e.kind, ErrorKind::Runtime);
            let text = s.render_error(e, false);
            assert!(text.contains("out of bounds"), "{text}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(show(&mut s, "a"), "10");
}

#[test]
fn large_arrays_are_abbreviated_with_their_shape_kept() {
    let mut s = session();
    let out = eval(&mut s, "iota 100000");
    match out.result {
        Ok(Evaluated::Value(v)) => {
            assert!(v.text.abbreviated);
            assert_eq!(v.text.text, "[0, 1, 2, ..., 99997, 99998, 99999]");
            assert_eq!(v.value.shape(), &[100000]);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn trace_lines_are_passed_on() {
    let mut s = session();
    let mut lines = Vec::new();
    let out = s.eval("#[trace] (1i32 + 2)", &mut |l| lines.push(l.to_string()));
    assert!(out.result.is_ok(), "{:?}", out.result);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(lines[0].contains("[0]:1:"), "{}", lines[0]);
    assert!(lines[0].contains('3'), "{}", lines[0]);
}

#[test]
fn interrupting_a_long_cell_keeps_the_session() {
    let mut s = session();
    show(&mut s, "def keep = 7i32");
    let stop = s.interrupter();
    let timer = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        stop.interrupt();
    });
    let out = eval(
        &mut s,
        "loop acc = 0i64 for i < 1000000000i64 do (acc + i) % 7",
    );
    let _ = timer.join();
    assert!(
        matches!(out.result, Err(ref e) if e.kind == ErrorKind::Interrupted),
        "{:?}",
        out.result
    );
    assert_eq!(show(&mut s, "keep"), "7");
}

#[test]
fn loading_a_file_sees_its_local_names() {
    let dir = std::env::temp_dir().join(format!("futhark-session-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let path = dir.join("prog.fut");
    let _ = std::fs::write(
        &path,
        "local def secret : i32 = 42\n-- | Doubles.\ndef twice (x: i32) = x + x\n",
    );
    let mut s = session();
    show(&mut s, "def gone = 1");
    let r = s.load(&path);
    assert!(r.is_ok(), "{r:?}");
    assert_eq!(show(&mut s, "twice secret"), "84");
    assert!(show(&mut s, "gone").starts_with("error:"));
    let info = s.inspect("twice");
    assert_eq!(
        info.as_ref().and_then(|i| i.doc.as_deref()).map(str::trim),
        Some("Doubles.")
    );
    let signature = info.map(|i| i.signature).unwrap_or_default();
    assert!(signature.starts_with("val twice"), "{signature}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn completion_sees_cells_and_modules() {
    let mut s = session();
    show(&mut s, "def my_value = 3i32");
    let c = s.complete("my_v", 4, ':');
    assert_eq!(c.start, 0);
    assert!(c.items.iter().any(|i| i.text == "my_value"), "{c:?}");
    let c = s.complete("f32.sq", 6, ':');
    assert_eq!(c.start, 4);
    assert!(c.items.iter().any(|i| i.text == "sqrt"), "{c:?}");
    let c = s.complete(":ty", 3, ':');
    assert!(c.items.iter().any(|i| i.text == "type"), "{c:?}");
}

#[test]
fn records_tuples_and_sums_print() {
    let mut s = session();
    assert_eq!(show(&mut s, "(1i32, true)"), "(1, true)");
    assert_eq!(show(&mut s, "{a = 1u8, b = 2.0f64}"), "{a = 1, b = 2.0f64}");
    assert_eq!(
        show(&mut s, "zip [1i32, 2] [true, false]"),
        "[(1, true), (2, false)]"
    );
    match eval(&mut s, "[1f32, 2f32]").result {
        Ok(Evaluated::Value(v)) => assert!(matches!(v.value, ValueView::Prim(_))),
        other => panic!("{other:?}"),
    }
}

#[test]
fn type_keeps_generic_sizes_and_cells_may_declare_then_evaluate() {
    let mut s = session();
    assert_eq!(
        s.type_of("map (+1)").ok().as_deref(),
        Some("[n]i32 -> *[n]i32")
    );
    // Declarations, then an expression on a line of its own: both happen.
    assert_eq!(show(&mut s, "def sq (x: i32) = x * x\nsq 3"), "9");
    assert_eq!(show(&mut s, "sq 4"), "16");
    // A cell numbered by its face names its locations so.
    s.set_next_cell(7);
    let out = eval(&mut s, "1 / 0i32");
    let e = out.result.expect_err("division by zero");
    assert!(s.render_error(&e, false).contains("[7]:1:1"));
}

#[test]
fn each_cell_is_checked_once_and_earlier_cells_not_again() {
    let mut s = session();
    s.db().log().enable();
    let cells = [
        "def x = 2i32",
        "x + 1",
        "it * 3",
        "1 + true",
        "def sq (y: i32) = y * y\nsq it",
        "it + 1",
    ];
    let shown: Vec<String> = cells.iter().map(|c| show(&mut s, c)).collect();
    assert_eq!(shown[5], "82", "{shown:?}");
    assert!(shown[3].starts_with("error"), "{shown:?}");
    let log = s.db().log().take();
    let checks: Vec<&String> = log
        .iter()
        .filter(|e| e.starts_with("check_cell("))
        .collect();
    // One check per cell: an expression is not checked a second time to bind `it`, and
    // no cell re-checks the ones before it.
    assert_eq!(checks.len(), cells.len(), "{log:?}");
    let mut distinct = checks.clone();
    distinct.dedup();
    assert_eq!(distinct.len(), cells.len(), "{log:?}");
    // Nor is a cell parsed or checked as a program file (it imports nothing).
    assert!(
        !log.iter()
            .any(|e| e.starts_with("check(") || e.starts_with("parse(")),
        "{log:?}"
    );
}
