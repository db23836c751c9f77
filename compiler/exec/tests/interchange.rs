//! Map–loop interchange (`compiler/opt/src/interchange.rs`) checked end to end: programs
//! whose maps hold loops are compiled to kernels, the host code is inspected (the loop must
//! have moved out of the kernels exactly when its bound does not depend on the map), and the
//! CPU executor's results, on one device and split over three, are compared with values
//! worked out by hand.

use futhark_exec::{CpuBackend, Executor};
use futhark_ir::soacs::{Body, Exp, Program};
use futhark_values::{Value, compare_values};

mod support;
use support::{compile, open_cpu, split_always, values};

/// Whether a body holds, at host level, a loop whose body launches kernels.
fn host_loop_of_launches(b: &Body) -> bool {
    b.stms.iter().any(|s| match &s.exp {
        Exp::Loop { body, .. } => {
            body.stms.iter().any(|s| matches!(s.exp, Exp::Launch(_))) || host_loop_of_launches(body)
        }
        Exp::If {
            then_body,
            else_body,
            ..
        } => host_loop_of_launches(then_body) || host_loop_of_launches(else_body),
        _ => false,
    })
}

fn run_cpu(prog: &Program, args: &str) -> Vec<Value> {
    let mut exec = Executor::new(prog.clone(), CpuBackend::new()).unwrap();
    exec.call_entry("main", values(args)).unwrap()
}

fn run_split(prog: &Program, args: &str, devices: usize) -> Vec<Value> {
    let multi = open_cpu(devices, &split_always());
    let mut exec = Executor::new(prog.clone(), multi).unwrap();
    exec.call_entry("main", values(args)).unwrap()
}

/// Each row is updated `k` times by a map that reads a reduction over the row: after the
/// interchange the loop runs on the host around a segmented reduction and a map over all
/// rows.
const ROWS: &str = "
entry main (k: i64) (xss: [][]i64) : [][]i64 =
  map (\\xs -> loop ys = copy xs for i < k do
                 let s = i64.sum ys
                 in map (\\y -> y + s + i) ys) xss
";

#[test]
fn a_loop_inside_a_map_runs_on_the_host_around_kernels() {
    let prog = compile("rows", ROWS);
    let main = prog.entries().next().unwrap();
    assert!(
        host_loop_of_launches(&main.body),
        "the loop was not interchanged:\n{prog}"
    );
    // Row [1, 2]: s = 3 -> [4, 5]; s = 9 -> [14, 15]. Row [3, 4]: s = 7 -> [10, 11];
    // s = 21 -> [32, 33]. Row [0, 0]: stays 0 + i -> [0, 0] then [1, 1].
    let args = "2i64 [[1i64, 2i64], [3i64, 4i64], [0i64, 0i64]]";
    let want = values("[[14i64, 15i64], [32i64, 33i64], [1i64, 1i64]]");
    compare_values(&want, &run_cpu(&prog, args)).unwrap();
    compare_values(&want, &run_split(&prog, args, 3)).unwrap();
    // No iterations: the rows come back unchanged.
    let args = "0i64 [[1i64, 2i64], [3i64, 4i64]]";
    compare_values(
        &values("[[1i64, 2i64], [3i64, 4i64]]"),
        &run_cpu(&prog, args),
    )
    .unwrap();
}

/// A bound that depends on the element cannot move out: the loop stays in the threads.
#[test]
fn a_loop_whose_bound_depends_on_the_element_stays_inside() {
    let prog = compile(
        "per_element",
        "entry main (xs: []i64) (ys: []i64) : []i64 =
           map (\\x -> loop acc = 0 for i < x do acc + i64.sum (map (\\y -> y * i) ys)) xs",
    );
    let main = prog.entries().next().unwrap();
    assert!(!host_loop_of_launches(&main.body), "{prog}");
    // x = 3, ys = [1, 2]: sum over i < 3 of 3i = 0 + 3 + 6 = 9; x = 0: 0; x = 1: 0.
    let got = run_cpu(&prog, "[3i64, 0i64, 1i64] [1i64, 2i64]");
    compare_values(&values("[9i64, 0i64, 0i64]"), &got).unwrap();
}

/// A transpose of each row inside the map becomes one rearrangement of the whole array, read
/// by the kernels through a view.
#[test]
fn a_transpose_inside_a_map_is_lifted() {
    let prog = compile(
        "transpose",
        "entry main [n][m][k] (xsss: [n][m][k]i64) : [n][k][m]i64 =
           map (\\xss -> let t = transpose xss in map (\\r -> map (+1) r) t) xsss",
    );
    let got = run_split(
        &prog,
        "[[[1i64, 2i64], [3i64, 4i64]], [[5i64, 6i64], [7i64, 8i64]]]",
        2,
    );
    compare_values(
        &values("[[[2i64, 4i64], [3i64, 5i64]], [[6i64, 8i64], [7i64, 9i64]]]"),
        &got,
    )
    .unwrap();
}
