//! The compiled path of a session over the CPU executor (`:backend cpu`): the same code that
//! runs cells on the GPUs (program building, compiling, the shared backend, resident `it`,
//! profiles, replay on the interpreter), with kernels interpreted on the host, so it runs
//! without a GPU. Every value is compared with what the interpreter shows for the same cell.

use std::path::PathBuf;

use futhark_session::commands::{self, Command};
use futhark_session::{BackendChoice, CellOutcome, Device, ErrorKind, Evaluated, Options, Session};

fn session(backend: BackendChoice) -> Session {
    match Session::new(Options {
        backend,
        // As a face does: the environment (FUTHARK_NO_GPU in CI) read at the edge.
        base: futhark_options::from_env().0,
        ..Options::default()
    }) {
        Ok(s) => s,
        Err(e) => panic!("session did not start: {e}"),
    }
}

fn eval(s: &mut Session, text: &str) -> CellOutcome {
    s.eval(text, &mut |_| {})
}

fn show(s: &mut Session, text: &str) -> String {
    let out = eval(s, text);
    match out.result {
        Ok(Evaluated::Value(v)) => v.text.text,
        Ok(Evaluated::Declared(names)) => format!("declared {}", names.join(" ")),
        Ok(Evaluated::Nothing) => "nothing".to_string(),
        Err(e) => format!("error: {}", s.render_error(&e, false)),
    }
}

/// Runs cells on a compiled and an interpreted session; the shown values must agree, and
/// every expression cell of the compiled one must have run compiled.
fn same_as_interpreter(cells: &[&str]) {
    let mut c = session(BackendChoice::Cpu);
    let mut i = session(BackendChoice::Interp);
    for cell in cells {
        let out = eval(&mut c, cell);
        let compiled = match &out.result {
            Ok(Evaluated::Value(v)) => {
                assert_eq!(
                    out.device,
                    Device::CpuExecutor,
                    "{cell} ran on {}",
                    out.location
                );
                assert!(out.profile.is_some(), "{cell}: no profile");
                v.text.text.clone()
            }
            Ok(Evaluated::Declared(n)) => format!("declared {}", n.join(" ")),
            Ok(Evaluated::Nothing) => "nothing".to_string(),
            Err(e) => format!("error: {}", c.render_error(e, false)),
        };
        assert_eq!(compiled, show(&mut i, cell), "cell {cell}");
    }
}

#[test]
fn values_match_the_interpreter() {
    same_as_interpreter(&[
        "1 + 2",
        "2.5f32 * 4",
        "map (*2) (iota 5)",
        "reduce (+) 0 (map (\\x -> x * x) (iota 100))",
        "scan (+) 0i32 [1, 2, 3, 4]",
        "(1i32, [true, false], 2.0f64)",
        "tabulate_2d 3 4 (\\i j -> i * 10 + j)",
        "[] : []i32",
        "let xs = [3, 1, 2] in (i64.maximum xs, length xs)",
    ]);
}

#[test]
fn values_match_the_interpreter_on_several_devices() {
    // The CPU executor stands in for two GPUs: kernels are split over both devices, and
    // `it` moves between them and the host, as on two GPUs.
    let mut c = session(BackendChoice::Cpu);
    c.set_gpus(Some(2));
    assert_eq!(c.location(), "the CPU executor (2 devices)");
    let mut i = session(BackendChoice::Interp);
    for cell in [
        "map (*3) (iota 1001)",
        "reduce (+) 0 it",
        "tabulate_2d 7 5 (\\i j -> f32.i64 (i * 5 + j))",
        "map (\\r -> f32.sum r) it",
        "scan (+) 0 (map (%7) (iota 999))",
    ] {
        let out = eval(&mut c, cell);
        let shown = match &out.result {
            Ok(Evaluated::Value(v)) => v.text.text.clone(),
            other => panic!("{cell}: {other:?}"),
        };
        assert_eq!(out.location, "the CPU executor (2 devices)");
        assert_eq!(shown, show(&mut i, cell), "cell {cell}");
    }
    // Back to one device: the resident `it` moves over through the host.
    c.set_gpus(Some(1));
    assert_eq!(c.location(), "the CPU executor");
    assert_eq!(show(&mut c, "length it"), show(&mut i, "length it"));
    // The two-device backend was kept, with its kernels: the same cell prepares nothing.
    c.set_gpus(Some(2));
    let out = eval(&mut c, "map (*3) (iota 1001)");
    assert_eq!(out.profile.map(|p| p.new_kernels), Some(0));
    assert_eq!(show(&mut c, "i64.sum it"), "1501500");
}

#[test]
fn declarations_and_redefinitions_reach_compiled_cells() {
    same_as_interpreter(&[
        "def double (x: i32) = x * 2",
        "map double [1, 2, 3]",
        "def k = 1i64",
        "def k = 2i64",
        "k + 1",
        "let y = 5.5f32",
        "y * 2",
        "type pair = (i32, i32)",
        "let p : pair = (1, 2)",
        "p.0 + p.1",
        "module M = { def three = 3i32 }",
        "M.three + double 1",
    ]);
}

#[test]
fn it_stays_resident_between_compiled_cells() {
    let mut s = session(BackendChoice::Cpu);
    assert_eq!(show(&mut s, "iota 5"), "[0, 1, 2, 3, 4]");
    assert_eq!(s.residents(), vec![("it".to_string(), "[]i64".to_string())]);
    let out = eval(&mut s, "map (+1) it");
    assert!(matches!(&out.result, Ok(Evaluated::Value(v)) if v.text.text == "[1, 2, 3, 4, 5]"));
    // The argument came from the resident value: nothing was uploaded for it twice, and the
    // map ran as a kernel of this cell.
    let p = out.profile.expect("a compiled cell has a profile");
    assert_eq!(p.kernels.len(), 1, "{p:?}");
    assert_eq!(p.kernels[0].launches, 1);
    assert_eq!(show(&mut s, "i64.sum it"), "15");
    assert_eq!(s.residents(), vec![("it".to_string(), "i64".to_string())]);
    // A declaration that binds `it` replaces the resident value.
    assert_eq!(show(&mut s, "def it = 7i32"), "declared it");
    assert!(s.residents().is_empty());
    assert_eq!(show(&mut s, "it + 1"), "8");
}

#[test]
fn let_bindings_run_once_and_stay_resident() {
    let mut s = session(BackendChoice::Cpu);
    let mut i = session(BackendChoice::Interp);
    assert_eq!(show(&mut s, "1i32"), "1");
    let out = eval(&mut s, "let x = map (*2) (iota 5)");
    assert!(matches!(&out.result, Ok(Evaluated::Declared(n)) if n == &["x"]));
    assert_eq!(out.device, Device::CpuExecutor, "{}", out.location);
    let p = out.profile.expect("the let ran compiled");
    assert!(p.kernels.iter().any(|k| k.launches > 0), "{p:?}");
    assert_eq!(
        s.residents(),
        vec![
            ("it".to_string(), "i32".to_string()),
            ("x".to_string(), "[]i64".to_string())
        ]
    );
    show(&mut i, "let x = map (*2) (iota 5)");
    // `x` is a parameter of later cells: showing it launches no kernel (its `def` would
    // launch the map again), and `it` is still the earlier value.
    let out = eval(&mut s, "x");
    assert!(matches!(&out.result, Ok(Evaluated::Value(v)) if v.text.text == "[0, 2, 4, 6, 8]"));
    assert_eq!(out.device, Device::CpuExecutor);
    let p = out.profile.expect("a compiled cell has a profile");
    assert!(p.kernels.is_empty(), "{p:?}");
    assert_eq!(show(&mut i, "x"), "[0, 2, 4, 6, 8]");
    for cell in ["i64.sum x", "map (+1) x", "it"] {
        let out = eval(&mut s, cell);
        assert_eq!(out.device, Device::CpuExecutor, "{cell}: {}", out.location);
        let shown = match &out.result {
            Ok(Evaluated::Value(v)) => v.text.text.clone(),
            other => panic!("{cell}: {other:?}"),
        };
        assert_eq!(shown, show(&mut i, cell), "cell {cell}");
    }
    assert_eq!(show(&mut s, "it"), "[1, 3, 5, 7, 9]");
    // A failing `let` binds nothing.
    let out = eval(&mut s, "let z = [1i32, 2][5]");
    let e = out.result.expect_err("out of bounds");
    assert_eq!(e.kind, ErrorKind::Runtime);
    assert!(show(&mut s, "z").starts_with("error"));
    assert!(!s.residents().iter().any(|r| r.0 == "z"));
}

#[test]
fn redefining_a_let_binding_replaces_or_removes_it() {
    let cells = [
        "let x = iota 5",
        "let x = map (+10) x",
        "x",
        "let y = i64.sum x",
        "def x = 3i32",
        "x + 1",
        "y",
        "let x = (2.5f32, [true])",
        "x.1",
    ];
    same_as_interpreter(&cells);
    let mut s = session(BackendChoice::Cpu);
    for cell in &cells[..4] {
        eval(&mut s, cell);
    }
    let kept = |s: &Session, n: &str| s.residents().into_iter().find(|r| r.0 == n);
    assert_eq!(kept(&s, "x"), Some(("x".to_string(), "[]i64".to_string())));
    assert_eq!(kept(&s, "y"), Some(("y".to_string(), "i64".to_string())));
    assert_eq!(show(&mut s, "def x = 3i32"), "declared x");
    assert_eq!(kept(&s, "x"), None);
    assert_eq!(show(&mut s, "x + 1"), "4");
    assert_eq!(show(&mut s, "let x = (2.5f32, [true])"), "declared x");
    assert_eq!(
        kept(&s, "x"),
        Some(("x".to_string(), "(f32, []bool)".to_string()))
    );
}

#[test]
fn let_bindings_reach_the_interpreter_when_it_takes_over() {
    let mut s = session(BackendChoice::Cpu);
    assert_eq!(show(&mut s, "let x = map (*3) (iota 4)"), "declared x");
    assert_eq!(show(&mut s, "let y = i64.sum x"), "declared y");
    assert_eq!(show(&mut s, "7i64"), "7");
    s.set_backend(BackendChoice::Interp);
    let out = eval(&mut s, "map (+ (y + it)) x");
    assert_eq!(out.device, Device::Interpreter);
    assert!(matches!(&out.result, Ok(Evaluated::Value(v)) if v.text.text == "[25, 28, 31, 34]"));
    // A `let` on the interpreter is a declaration; the compiled path forgets its old value.
    assert_eq!(show(&mut s, "let y = 100i64"), "declared y");
    s.set_backend(BackendChoice::Cpu);
    assert!(!s.residents().iter().any(|r| r.0 == "y"));
    let out = eval(&mut s, "map (+y) x");
    assert_eq!(out.device, Device::CpuExecutor);
    assert!(
        matches!(&out.result, Ok(Evaluated::Value(v)) if v.text.text == "[100, 103, 106, 109]")
    );
}

#[test]
fn let_bindings_of_other_types_are_declarations() {
    same_as_interpreter(&[
        "let r = {a = 1i32, b = [1i32, 2]}",
        "r.a + i32.sum r.b",
        "let f = \\(v: i32) -> v + 1",
        "f 41",
    ]);
    let mut s = session(BackendChoice::Cpu);
    let out = eval(&mut s, "let r = {a = 1i32, b = [1i32, 2]}");
    assert!(matches!(&out.result, Ok(Evaluated::Declared(n)) if n == &["r"]));
    assert_eq!(out.device, Device::Interpreter);
    assert!(s.residents().is_empty());
    let out = eval(&mut s, "r.a + i32.sum r.b");
    assert_eq!(out.device, Device::CpuExecutor);
    assert!(matches!(&out.result, Ok(Evaluated::Value(v)) if v.text.text == "4"));
}

#[test]
fn kernels_prepared_once_are_not_prepared_again() {
    let mut s = session(BackendChoice::Cpu);
    let first = eval(&mut s, "map (*3) (iota 10)").profile.expect("profile");
    let again = eval(&mut s, "map (*3) (iota 10)").profile.expect("profile");
    assert_eq!(first.new_kernels, 1, "{first:?}");
    assert_eq!(again.new_kernels, 0, "{again:?}");
}

#[test]
fn interpreter_replays_compiled_cells_when_it_takes_over() {
    let mut s = session(BackendChoice::Cpu);
    assert_eq!(show(&mut s, "iota 4"), "[0, 1, 2, 3]");
    assert_eq!(show(&mut s, "map (*10) it"), "[0, 10, 20, 30]");
    assert_eq!(show(&mut s, "def f (x: i64) = x + 1"), "declared f");
    s.set_backend(BackendChoice::Interp);
    // The interpreter evaluates the queued cells first, so `it` and `f` are there.
    let out = eval(&mut s, "map f it");
    assert_eq!(out.device, Device::Interpreter);
    assert!(matches!(&out.result, Ok(Evaluated::Value(v)) if v.text.text == "[1, 11, 21, 31]"));
    // Back on the compiled path, the interpreter's result is resident.
    s.set_backend(BackendChoice::Cpu);
    assert_eq!(show(&mut s, "i64.sum it"), "64");
}

#[test]
fn program_errors_are_runtime_errors_and_unsupported_types_are_refused() {
    let mut s = session(BackendChoice::Cpu);
    let out = eval(&mut s, "[1, 2, 3][5]");
    let e = out.result.expect_err("out of bounds");
    assert_eq!(e.kind, ErrorKind::Runtime);
    assert!(e.summary.contains("out of bounds"), "{}", e.summary);
    // Records have no data form on the compiled path; with `cpu` chosen that is an error
    // that says so (with `auto` the cell would run on the interpreter instead).
    let out = eval(&mut s, "{a = 1i32}");
    let e = out.result.expect_err("records are not kept");
    assert_eq!(e.kind, ErrorKind::Usage);
    assert!(e.summary.contains("cannot run this cell"), "{}", e.summary);
    // A failed cell leaves `it` as it was.
    assert_eq!(show(&mut s, "2i32"), "2");
    eval(&mut s, "[1][3]");
    assert_eq!(show(&mut s, "it"), "2");
}

#[test]
fn loaded_programs_are_opened_by_compiled_cells() {
    let file = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/mandelbrot.fut");
    let mut c = session(BackendChoice::Cpu);
    let mut i = session(BackendChoice::Interp);
    for s in [&mut c, &mut i] {
        if let Err(e) = s.load(&file) {
            panic!("load: {e}");
        }
    }
    let cell = "main 12 6 30 (-2) (-1) 1 1";
    let out = eval(&mut c, cell);
    assert_eq!(out.device, Device::CpuExecutor, "{:?}", out.result);
    let p = out.profile.clone().expect("profile");
    assert!(!p.kernels.is_empty(), "mandelbrot launches a kernel: {p:?}");
    let compiled = match out.result {
        Ok(Evaluated::Value(v)) => v.text.text,
        other => panic!("{other:?}"),
    };
    assert_eq!(compiled, show(&mut i, cell));
    assert_eq!(
        show(&mut c, "i32.sum (flatten it)"),
        show(&mut i, "i32.sum (flatten it)")
    );
}

#[test]
fn commands_show_kernels_ir_and_profile() {
    let mut s = session(BackendChoice::Cpu);
    let run = |s: &mut Session, c: &str| {
        let cmd = commands::parse(c, ':').expect("command parses");
        let out = commands::run(s, cmd, ':');
        assert!(out.error.is_none(), "{c}: {:?}", out.error);
        out.text
    };
    let none = commands::run(&mut s, Command::Kernels, ':');
    assert!(none.error.is_some(), "no cell yet");
    eval(&mut s, "map (\\x -> x * 2 + 1) (iota 1000)");
    let cuda = run(&mut s, "kernels");
    assert!(cuda.contains("__global__"), "{cuda}");
    let ir = run(&mut s, "ir soacs");
    assert!(ir.contains("futhark_cell"), "{ir}");
    let ir = run(&mut s, "ir");
    assert!(ir.contains("kernels IR"), "{ir}");
    let bad = commands::run(&mut s, Command::Ir(Some("nonsense".into())), ':');
    assert!(bad.error.is_some());
    let profile = run(&mut s, "profile");
    assert!(profile.contains("on the CPU executor"), "{profile}");
    assert!(profile.contains("launches"), "{profile}");
    let time = run(&mut s, "time");
    assert!(time.contains("kernels:"), "{time}");
    eval(&mut s, "i64.sum it");
    let cmp = run(&mut s, "compare");
    assert!(cmp.contains("speedup") && cmp.contains("kernels"), "{cmp}");
    let bad = commands::run(&mut s, Command::Compare(Some((0, 99))), ':');
    assert!(bad.error.is_some());
    eval(&mut s, "map (\\x -> x * 2 + 1) (iota 1000)");
    let gpus = run(&mut s, "gpus");
    assert!(gpus.contains("resident: it : []i64"), "{gpus}");
}

#[test]
fn cuda_without_a_gpu_is_a_clear_error() {
    // FUTHARK_NO_GPU is what CI sets for every test.
    let hidden = futhark_options::from_env().0.face.no_gpu;
    if futhark_session::backend::probe_gpus(hidden).count > 0 {
        eprintln!("skipped: a GPU is visible");
        return;
    }
    let mut s = session(BackendChoice::Cuda);
    assert_eq!(s.placement().device, Device::Interpreter);
    assert!(s.placement().note.is_some());
    let e = eval(&mut s, "1 + 2").result.expect_err("no GPU");
    assert_eq!(e.kind, ErrorKind::Usage);
    assert!(e.detail.unwrap_or_default().contains(":backend auto"));
    // Declarations still work, and `auto` runs on the interpreter.
    assert_eq!(show(&mut s, "def x = 1i32"), "declared x");
    s.set_backend(BackendChoice::Auto);
    let out = eval(&mut s, "x + 1");
    assert_eq!(out.device, Device::Interpreter);
    assert!(matches!(out.result, Ok(Evaluated::Value(v)) if v.text.text == "2"));
}

#[test]
fn interrupting_a_compiled_cell_stops_it_and_keeps_the_session() {
    let mut s = session(BackendChoice::Cpu);
    assert_eq!(show(&mut s, "41i32 + 1"), "42");
    let stop = s.interrupter();
    let t = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(300));
        stop.interrupt();
    });
    // Millions of kernel launches: only the interrupt ends it in reasonable time.
    let out = eval(
        &mut s,
        "loop xs = iota 4 for _i < 100000000i64 do map (+ 1) xs",
    );
    t.join().unwrap();
    let e = out.result.expect_err("interrupted");
    assert!(e.summary.contains("Interrupted"), "{}", e.summary);
    assert_eq!(e.kind, ErrorKind::Interrupted);
    assert_eq!(out.device, Device::CpuExecutor, "ran on {}", out.location);
    // The session goes on, with `it` from before.
    assert_eq!(show(&mut s, "it"), "42");
    assert_eq!(show(&mut s, "it + 1"), "43");
}

#[test]
fn a_host_loop_fallback_is_the_cells_note_at_its_position() {
    let mut s = session(BackendChoice::Cpu);
    let grow = "map (\\n -> let ys = loop ys = [] while length ys < n do ys ++ [length ys] \
                in i64.sum ys) (iota 4)";
    let out = eval(&mut s, grow);
    assert_eq!(out.device, Device::CpuExecutor, "{}", out.location);
    let note = out.note.expect("a note for the host loop");
    assert!(
        note.starts_with("`map` at [0]:1:1 runs as a sequential loop on the host"),
        "{note}"
    );
    // A cell that flattens into kernels has no note.
    let out = eval(&mut s, "i64.sum (map (*2) (iota 10))");
    assert_eq!(out.note, None);
}
