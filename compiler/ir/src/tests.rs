//! Tests of the printer and the type checker on small programs.

use crate::*;

fn arr(name: &str, elem: PrimType, shape: &[&str]) -> ArrayDecl {
    ArrayDecl {
        name: name.into(),
        elem,
        shape: shape.iter().map(|s| Size::param(s)).collect(),
    }
}

/// `sum (map (\x -> x * 2) xs)` per row of a matrix, with a sequential inner loop in the body.
fn sample() -> KernelProgram {
    KernelProgram {
        intra: None,
        sizes: vec!["n".into(), "m".into()],
        arrays: vec![
            arr("xss", PrimType::F32, &["n", "m"]),
            arr("sums", PrimType::F32, &["n"]),
        ],
        kernels: vec![Kernel {
            name: "row_sums".into(),
            op: SegOp::Red(SegRed {
                space: SegSpace {
                    flat: "gtid".into(),
                    dims: vec![
                        ("i".into(), Size::param("n")),
                        ("j".into(), Size::param("m")),
                    ],
                },
                body: Body::new(
                    vec![
                        Stm::let_("x", PrimType::F32, Exp::read("xss", Exp::var("gtid"))),
                        Stm::Mut {
                            name: "acc".into(),
                            ty: PrimType::F32,
                            init: Exp::var("x"),
                        },
                        Stm::For {
                            var: "k".into(),
                            bound: Exp::i64(3),
                            body: vec![Stm::Assign {
                                name: "acc".into(),
                                exp: Exp::var("acc").times(Exp::f32(0.5)),
                            }],
                        },
                    ],
                    vec![Exp::var("acc")],
                ),
                op: Lambda::binop(BinOp::Add, PrimType::F32),
                neutral: vec![PrimValue::F32(0.0)],
                commutative: true,
                outputs: vec!["sums".into()],
            }),
        }],
    }
}

#[test]
fn sample_checks_and_prints() {
    let p = sample();
    check_program(&p).unwrap();
    insta::assert_snapshot!(p.to_string(), @r"
    sizes n, m
    array xss: [n][m]f32
    array sums: [n]f32

    kernel row_sums =
    segred commutative (i < n, j < m) flat gtid
      body
        let x: f32 = xss[gtid]
        var acc: f32 = x
        for k < 3i64 do
          acc = (acc * 0.5f32)
        in (acc)
      op \(x: f32, y: f32) -> ((x + y))
      ne (0.0f32)
      -> sums
    ");
}

fn expect_error(p: &KernelProgram, needle: &str) {
    let e = check_program(p).unwrap_err();
    assert!(e.to_string().contains(needle), "{e}");
}

#[test]
fn rejects_type_mismatch_in_body() {
    let mut p = sample();
    if let SegOp::Red(r) = &mut p.kernels[0].op {
        r.body.results = vec![Exp::i32(1)];
    }
    expect_error(&p, "body returns (i32), neutral element has type (f32)");
}

#[test]
fn rejects_wrong_output_shape() {
    let mut p = sample();
    p.arrays[1].shape = vec![Size::param("m")];
    expect_error(&p, "result array `sums` has shape [m], expected [n]");
}

#[test]
fn rejects_unbound_and_immutable() {
    let mut p = sample();
    if let SegOp::Red(r) = &mut p.kernels[0].op {
        r.body.stms.push(Stm::Assign {
            name: "x".into(),
            exp: Exp::f32(1.0),
        });
    }
    expect_error(&p, "`x` is not mutable");
    let mut p = sample();
    if let SegOp::Red(r) = &mut p.kernels[0].op {
        r.body.results = vec![Exp::var("nope")];
    }
    expect_error(&p, "unbound variable `nope`");
}

#[test]
fn rejects_bad_operator_and_index_type() {
    let mut p = sample();
    if let SegOp::Red(r) = &mut p.kernels[0].op {
        r.op = Lambda::binop(BinOp::Add, PrimType::F64);
    }
    expect_error(&p, "operator parameter `x` has type f64");
    let mut p = sample();
    if let SegOp::Red(r) = &mut p.kernels[0].op {
        r.body.stms[0] = Stm::let_("x", PrimType::F32, Exp::read("xss", Exp::i32(0)));
    }
    expect_error(&p, "array index `0i32` has type i32, expected i64");
}

#[test]
fn hist_needs_i64_bucket_and_no_segments() {
    let p = KernelProgram {
        intra: None,
        sizes: vec!["n".into(), "h".into()],
        arrays: vec![
            arr("is", PrimType::I32, &["n"]),
            arr("hist", PrimType::F32, &["h"]),
        ],
        kernels: vec![Kernel {
            name: "k".into(),
            op: SegOp::Hist(SegHist {
                space: SegSpace::flat("i", Size::param("n")),
                body: Body::results(vec![Exp::read("is", Exp::var("i")), Exp::f32(1.0)]),
                op: Lambda::binop(BinOp::Add, PrimType::F32),
                neutral: vec![PrimValue::F32(0.0)],
                num_buckets: Size::param("h"),
                dests: vec!["hist".into()],
            }),
        }],
    };
    expect_error(&p, "first result is its i64 bucket");
}

#[test]
fn detects_simple_binops() {
    let l = Lambda::binop(BinOp::Max, PrimType::I32);
    assert_eq!(l.as_binop(), Some((BinOp::Max, PrimType::I32)));
    let swapped = Lambda {
        params: l.params.clone(),
        body: Body::results(vec![Exp::bin(BinOp::Sub, Exp::var("y"), Exp::var("x"))]),
    };
    assert_eq!(swapped.as_binop(), None);
}

#[test]
fn sees_binops_through_lets() {
    // As lowering writes `(+)` and `i32.max`.
    let let_bound = |op: BinOp, ty: PrimType, a: &str, b: &str| Lambda {
        params: vec![("x".into(), ty), ("y".into(), ty)],
        body: Body::new(
            vec![Stm::let_("r", ty, Exp::bin(op, Exp::var(a), Exp::var(b)))],
            vec![Exp::var("r")],
        ),
    };
    assert_eq!(
        let_bound(BinOp::Add, PrimType::F32, "x", "y").as_binop(),
        Some((BinOp::Add, PrimType::F32))
    );
    assert_eq!(
        let_bound(BinOp::Max, PrimType::I32, "y", "x").as_binop(),
        Some((BinOp::Max, PrimType::I32))
    );
    assert_eq!(
        let_bound(BinOp::Sub, PrimType::I32, "y", "x").as_binop(),
        None
    );
    // A chain of lets that renames the operands.
    let chained = Lambda {
        params: vec![("x".into(), PrimType::I64), ("y".into(), PrimType::I64)],
        body: Body::new(
            vec![
                Stm::let_("a", PrimType::I64, Exp::var("x")),
                Stm::let_(
                    "r",
                    PrimType::I64,
                    Exp::bin(BinOp::Min, Exp::var("a"), Exp::var("y")),
                ),
            ],
            vec![Exp::var("r")],
        ),
    };
    assert_eq!(chained.as_binop(), Some((BinOp::Min, PrimType::I64)));
    // Anything but lets (a loop, an `if`) is not an operator.
    let with_if = Lambda {
        params: chained.params.clone(),
        body: Body::new(
            vec![Stm::If {
                cond: Exp::Const(PrimValue::Bool(true)),
                then_branch: vec![],
                else_branch: vec![],
            }],
            vec![Exp::bin(BinOp::Add, Exp::var("x"), Exp::var("y"))],
        ),
    };
    assert_eq!(with_if.as_binop(), None);
}
