//! Executor tests: kernel IR run directly on the CPU backend (every segmented operation),
//! and small Futhark programs compiled to kernels and run end to end.

use std::rc::Rc;

use futhark_db::{Database, IrStage};
use futhark_ir::types::{PrimType, PrimValue};
use futhark_ir::{
    ArrayDecl, BinOp, Body, CmpOp, Exp, Kernel, KernelProgram, Lambda, Scatter, SegHist, SegMap,
    SegOp, SegRed, SegScan, SegSpace, Size,
};
use futhark_values::{Buffer, Value};

use crate::cpu::run_program;
use crate::{CpuBackend, ExecError, Executor};

fn decl(name: &str, elem: PrimType, shape: Vec<Size>) -> ArrayDecl {
    ArrayDecl {
        name: name.into(),
        elem,
        shape,
    }
}

/// A 2-D space `[n][m]` with indices `i`, `j` and flat index `f`.
fn space2() -> SegSpace {
    SegSpace {
        flat: "f".into(),
        dims: vec![
            ("i".into(), Size::param("n")),
            ("j".into(), Size::param("m")),
        ],
    }
}

fn program(arrays: Vec<ArrayDecl>, op: SegOp) -> KernelProgram {
    KernelProgram {
        intra: None,
        sizes: vec!["n".into(), "m".into()],
        arrays,
        kernels: vec![Kernel {
            name: "k".into(),
            op,
        }],
    }
}

fn run(prog: &KernelProgram, sizes: &[i64], arrays: Vec<Buffer>) -> Vec<Buffer> {
    futhark_ir::check_program(prog).expect("well-typed kernel program");
    let mut bufs: Vec<Rc<Buffer>> = arrays.into_iter().map(Rc::new).collect();
    run_program(prog, sizes, &mut bufs, None).expect("kernel runs");
    bufs.into_iter().map(|b| (*b).clone()).collect()
}

fn read_xs() -> Exp {
    Exp::read("xs", Exp::var("f"))
}

#[test]
fn segmented_reduction_combines_each_row_in_order() {
    // Subtraction is not associative, but the in-order fold makes the result predictable:
    // each row's sum, via a + b.
    let op = SegOp::Red(SegRed {
        space: space2(),
        body: Body::results(vec![read_xs()]),
        op: Lambda::binop(BinOp::Add, PrimType::I32),
        neutral: vec![PrimValue::I32(0)],
        commutative: true,
        outputs: vec!["out".into()],
    });
    let prog = program(
        vec![
            decl(
                "xs",
                PrimType::I32,
                vec![Size::param("n"), Size::param("m")],
            ),
            decl("out", PrimType::I32, vec![Size::param("n")]),
        ],
        op,
    );
    let out = run(
        &prog,
        &[2, 3],
        vec![Buffer::I32(vec![1, 2, 3, 4, 5, 6]), Buffer::I32(vec![0; 2])],
    );
    assert_eq!(out[1], Buffer::I32(vec![6, 15]));
    // Empty rows give the neutral element.
    let out = run(
        &prog,
        &[2, 0],
        vec![Buffer::I32(vec![]), Buffer::I32(vec![7; 2])],
    );
    assert_eq!(out[1], Buffer::I32(vec![0, 0]));
}

#[test]
fn segmented_scan_restarts_at_each_row() {
    let op = SegOp::Scan(SegScan {
        space: space2(),
        body: Body::results(vec![read_xs()]),
        op: Lambda::binop(BinOp::Add, PrimType::I64),
        neutral: vec![PrimValue::I64(0)],
        outputs: vec!["out".into()],
    });
    let prog = program(
        vec![
            decl(
                "xs",
                PrimType::I64,
                vec![Size::param("n"), Size::param("m")],
            ),
            decl(
                "out",
                PrimType::I64,
                vec![Size::param("n"), Size::param("m")],
            ),
        ],
        op,
    );
    let out = run(
        &prog,
        &[2, 3],
        vec![Buffer::I64(vec![1, 2, 3, 4, 5, 6]), Buffer::I64(vec![0; 6])],
    );
    assert_eq!(out[1], Buffer::I64(vec![1, 3, 6, 4, 9, 15]));
}

#[test]
fn segmap_writes_every_point() {
    let op = SegOp::Map(SegMap {
        space: space2(),
        body: Body::results(vec![Exp::var("i").times(Exp::i64(10)).plus(Exp::var("j"))]),
        outputs: vec!["out".into()],
    });
    let prog = program(
        vec![decl(
            "out",
            PrimType::I64,
            vec![Size::param("n"), Size::param("m")],
        )],
        op,
    );
    let out = run(&prog, &[2, 2], vec![Buffer::I64(vec![0; 4])]);
    assert_eq!(out[0], Buffer::I64(vec![0, 1, 10, 11]));
}

#[test]
fn histogram_ignores_out_of_range_buckets() {
    let flat = SegSpace::flat("f", Size::param("n"));
    let op = SegOp::Hist(SegHist {
        space: flat,
        body: Body::results(vec![Exp::read("is", Exp::var("f")), Exp::i32(1)]),
        op: Lambda::binop(BinOp::Add, PrimType::I32),
        neutral: vec![PrimValue::I32(0)],
        num_buckets: Size::param("m"),
        dests: vec!["h".into()],
    });
    let prog = program(
        vec![
            decl("is", PrimType::I64, vec![Size::param("n")]),
            decl("h", PrimType::I32, vec![Size::param("m")]),
        ],
        op,
    );
    let out = run(
        &prog,
        &[6, 3],
        vec![
            Buffer::I64(vec![0, 2, 2, -1, 3, 2]),
            Buffer::I32(vec![10, 0, 0]),
        ],
    );
    assert_eq!(out[1], Buffer::I32(vec![11, 0, 3]));
}

#[test]
fn scatter_ignores_out_of_range_writes() {
    let flat = SegSpace::flat("f", Size::param("n"));
    let op = SegOp::Scatter(Scatter {
        space: flat,
        body: Body::results(vec![
            Exp::read("is", Exp::var("f")),
            Exp::conv(PrimType::F32, Exp::var("f")),
        ]),
        dests: vec!["d".into()],
    });
    let prog = program(
        vec![
            decl("is", PrimType::I64, vec![Size::param("n")]),
            decl("d", PrimType::F32, vec![Size::param("m")]),
        ],
        op,
    );
    let out = run(
        &prog,
        &[3, 2],
        vec![Buffer::I64(vec![1, 5, -3]), Buffer::F32(vec![9.0, 9.0])],
    );
    assert_eq!(out[1], Buffer::F32(vec![9.0, 0.0]));
}

#[test]
fn kernel_loops_and_branches_run_sequentially() {
    // out[f] = sum of 0..f, but only for even f (odd points give -1).
    use futhark_ir::Stm;
    let flat = SegSpace::flat("f", Size::param("n"));
    let body = Body::new(
        vec![
            Stm::Mut {
                name: "acc".into(),
                ty: PrimType::I64,
                init: Exp::i64(0),
            },
            Stm::For {
                var: "k".into(),
                bound: Exp::var("f"),
                body: vec![Stm::Assign {
                    name: "acc".into(),
                    exp: Exp::var("acc").plus(Exp::var("k")),
                }],
            },
            Stm::If {
                cond: Exp::cmp(
                    CmpOp::Eq,
                    Exp::bin(BinOp::Rem, Exp::var("f"), Exp::i64(2)),
                    Exp::i64(1),
                ),
                then_branch: vec![Stm::Assign {
                    name: "acc".into(),
                    exp: Exp::i64(-1),
                }],
                else_branch: vec![],
            },
        ],
        vec![Exp::var("acc")],
    );
    let op = SegOp::Map(SegMap {
        space: flat,
        body,
        outputs: vec!["out".into()],
    });
    let prog = program(vec![decl("out", PrimType::I64, vec![Size::param("n")])], op);
    let out = run(&prog, &[5, 0], vec![Buffer::I64(vec![0; 5])]);
    assert_eq!(out[0], Buffer::I64(vec![0, -1, 1, -1, 6]));
}

/// Compiles `src` to kernels and runs `entry` on the CPU executor.
fn run_source(src: &str, entry: &str, args: Vec<Value>) -> Result<Vec<Value>, ExecError> {
    let mut db = Database::new();
    let file = db.set_file("test.fut", src);
    let prog = futhark_db::compile(&db, file, IrStage::Kernels)
        .unwrap_or_else(|e| panic!("does not compile: {:?}", e.diagnostics(&db, file)));
    let mut exec = Executor::new(prog, CpuBackend::new())?;
    exec.call_entry(entry, args)
}

#[test]
fn programs_with_loops_branches_and_calls_run() {
    let src = "
def fact (n: i64): i64 = if n <= 1 then 1 else n * fact (n - 1)
def step (xs: []i64) = map (\\x -> x * 2) xs
entry main (n: i64) (xs: []i64) =
  let ys = loop ys = xs for _i < n do step ys
  let s = reduce (+) 0 ys
  in (fact 5, s, scan (+) 0 ys)
";
    let got = run_source(
        src,
        "main",
        vec![Value::scalar(2i64), Value::from_vec1(vec![1i64, 2, 3])],
    )
    .expect("runs");
    assert_eq!(got[0], Value::scalar(120i64));
    assert_eq!(got[1], Value::scalar(24i64));
    assert_eq!(got[2], Value::from_vec1(vec![4i64, 12, 24]));
}

#[test]
fn while_loops_and_histograms_run() {
    let src = "
entry main (xs: []i64) =
  let h = hist (+) 0i32 4 xs (map (const 1) xs)
  let k = loop k = 1i64 while k < 100 do k * 3
  in (h, k)
";
    let got = run_source(
        src,
        "main",
        vec![Value::from_vec1(vec![0i64, 3, 3, 9, -1, 1])],
    );
    let got = got.expect("runs");
    assert_eq!(got[0], Value::from_vec1(vec![1i32, 1, 0, 2]));
    assert_eq!(got[1], Value::scalar(243i64));
}

#[test]
fn run_time_errors_use_futharks_wording() {
    let oob = run_source(
        "entry main (xs: []i32) (i: i64) = xs[i]",
        "main",
        vec![Value::from_vec1(vec![1i32, 2]), Value::scalar(5i64)],
    );
    let msg = oob.expect_err("out of bounds").to_string();
    assert!(
        msg.contains("Index [5] out of bounds for array of shape [2]"),
        "{msg}"
    );

    let div = run_source(
        "entry main (x: i32) (y: i32) = x / y",
        "main",
        vec![Value::scalar(1i32), Value::scalar(0i32)],
    );
    assert!(
        div.expect_err("division")
            .to_string()
            .contains("division by zero")
    );

    let asserted = run_source(
        "entry main (x: i32) = assert (x > 0) x",
        "main",
        vec![Value::scalar(-1i32)],
    );
    let msg = asserted.expect_err("assertion").to_string();
    // The message, then the backtrace: the entry point's definition.
    assert!(
        msg.starts_with("Error at ")
            && msg.contains(":\nAssertion is false: x > 0\n\nBacktrace:\n-> #0 ")
            && msg.lines().count() == 5,
        "{msg}"
    );
}

/// Ranges that run the wrong way or step by zero fail as the interpreter says it, with
/// their bounds; valid ones (including `a...a` and empty `a..<a`) run.
#[test]
fn invalid_ranges_fail_with_their_bounds() {
    /// Source, arguments, and the elements or the error text.
    type Case = (&'static str, Vec<i32>, Result<Vec<i32>, &'static str>);
    let cases: [Case; 8] = [
        (
            "entry main (a: i32) (b: i32) = a...b",
            vec![5, 1],
            Err("Range 5...1 is invalid."),
        ),
        (
            "entry main (a: i32) (b: i32) = a..<b",
            vec![5, 0],
            Err("Range 5..<0 is invalid."),
        ),
        (
            "entry main (a: i32) (b: i32) = a..>b",
            vec![0, 5],
            Err("Range 0..>5 is invalid."),
        ),
        (
            "entry main (a: i32) (s: i32) = a..s...5",
            vec![1, 1],
            Err("Range 1..1...5 is invalid."),
        ),
        (
            "entry main (a: i32) (s: i32) = a..s..<5",
            vec![5, 4],
            Err("Range 5..4..<5 is invalid."),
        ),
        (
            "entry main (a: i32) (s: i32) = a..s...a",
            vec![3, 3],
            Err("Range 3..3...3 is invalid."),
        ),
        (
            "entry main (a: i32) (s: i32) = a..s...a",
            vec![3, 7],
            Ok(vec![3]),
        ),
        (
            "entry main (a: i32) (b: i32) = a..<b",
            vec![4, 4],
            Ok(vec![]),
        ),
    ];
    for (src, args, want) in cases {
        let args: Vec<Value> = args.into_iter().map(Value::scalar).collect();
        let got = run_source(src, "main", args.clone());
        match want {
            Err(msg) => {
                let err = got.expect_err(src).to_string();
                assert!(err.contains(msg), "{src} {args:?}: {err}");
            }
            Ok(xs) => {
                let out = got.unwrap_or_else(|e| panic!("{src} {args:?}: {e}"));
                assert_eq!(out, vec![Value::from_vec1(xs)], "{src}");
            }
        }
    }
}

#[test]
fn entry_arguments_are_checked() {
    let r = run_source("entry main (xs: []i32) = xs", "main", vec![]);
    assert!(matches!(r, Err(ExecError::Args(_))));
    let r = run_source(
        "entry main (xs: []i32) = xs",
        "main",
        vec![Value::scalar(1.0f32)],
    );
    assert!(matches!(r, Err(ExecError::Args(_))));
    let r = run_source("entry main (xs: []i32) = xs", "nope", vec![]);
    assert!(matches!(r, Err(ExecError::Args(_))));
}

#[cfg(feature = "cuda")]
#[test]
fn cuda_backend_says_why_it_cannot_run() {
    // Without a driver (CI), opening fails with the reason instead of panicking.
    struct Opens;
    impl crate::UseBackend for Opens {
        type Out = ();
        fn with<B: crate::Backend + 'static>(self, _: B, _: &crate::Opened) {}
    }
    if let Some(reason) = crate::cuda_unavailable_reason() {
        let options = futhark_options::ExecOptions::default();
        let err = crate::open_backend(crate::Target::Cuda, Some(1), &options, Opens)
            .expect_err("no device, no backend");
        assert_eq!(err, ExecError::Backend(reason));
    }
}

/// A row that is not a row-major block of memory (here an iota-based row fused into the
/// map that flattens it) is copied into per-thread storage before it is reshaped; this was
/// "reshaping a row inside a kernel thread" before.
#[test]
fn rows_that_are_not_plain_memory_can_be_reshaped() {
    let src = "
entry main (m: i64) (b: i64) (xs: [m][b]u32) : [m * b]u32 =
  let is = map (map2 (\\i x -> i64.u32 x + i) (iota b)) xs
  let flat = flatten is
  in map2 (\\i x -> u32.i64 (x + i)) (iota (m * b)) flat
";
    let xs = Value::from_vec(vec![2, 3], vec![1u32, 2, 3, 4, 5, 6]).unwrap();
    let out = run_source(
        src,
        "main",
        vec![Value::scalar(2i64), Value::scalar(3i64), xs],
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out, vec![Value::from_vec1(vec![1u32, 4, 7, 7, 10, 13])]);
}
