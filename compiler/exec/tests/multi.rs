//! The multi-device backend (`futhark_exec::Multi`) over simulated CPU devices: split
//! launches (map, reduce with a non-commutative operator, scan, histogram), arrays kept
//! partitioned between launches, gathers for whole launches, and the cost model's choices.

use std::rc::Rc;

use futhark_exec::{Backend, CpuBackend, Multi, SplitPolicy, run_kernel_program};
use futhark_ir::soacs::KernelDef;
use futhark_ir::{
    ArrayDecl, BinOp, Body, Exp, Kernel, KernelProgram, Lambda, PrimType, PrimValue, SegHist,
    SegMap, SegOp, SegRed, SegScan, SegSpace, Size,
};
use futhark_values::Buffer;

#[allow(dead_code)] // the compiling and value helpers are other tests' own
mod support;

fn decl(name: &str, shape: Vec<Size>) -> ArrayDecl {
    ArrayDecl {
        name: name.into(),
        elem: PrimType::I64,
        shape,
    }
}

fn ints(b: &Buffer) -> Vec<i64> {
    match b {
        Buffer::I64(v) => v.clone(),
        other => panic!("expected i64 elements, got {:?}", other.elem_type()),
    }
}

/// Digit concatenation `(a, p) ⊕ (b, q) = (a·q + b, p·q)`: associative, not commutative.
fn concat_op() -> Lambda {
    let v = |n: &str| Exp::var(n);
    Lambda {
        params: vec![
            ("a".into(), PrimType::I64),
            ("p".into(), PrimType::I64),
            ("b".into(), PrimType::I64),
            ("q".into(), PrimType::I64),
        ],
        body: Body::results(vec![
            v("a").times(v("q")).plus(v("b")),
            v("p").times(v("q")),
        ]),
    }
}

fn one_kernel(name: &str, sizes: &[&str], arrays: Vec<ArrayDecl>, op: SegOp) -> KernelDef {
    KernelDef {
        name: name.into(),
        program: KernelProgram {
            intra: None,
            sizes: sizes.iter().map(|s| s.to_string()).collect(),
            arrays,
            kernels: vec![Kernel {
                name: "k".into(),
                op,
            }],
        },
    }
}

/// `out[i][j] = xs[i][j] * 3 + ys[j]`.
fn map2d() -> KernelDef {
    let (n, m) = (Size::param("n"), Size::param("m"));
    one_kernel(
        "map2d",
        &["n", "m"],
        vec![
            decl("xs", vec![n.clone(), m.clone()]),
            decl("ys", vec![m.clone()]),
            decl("out", vec![n.clone(), m.clone()]),
        ],
        SegOp::Map(SegMap {
            space: SegSpace {
                flat: "f".into(),
                dims: vec![("i".into(), n), ("j".into(), m)],
            },
            body: Body::results(vec![
                Exp::read("xs", Exp::var("f"))
                    .times(Exp::Const(PrimValue::I64(3)))
                    .plus(Exp::read("ys", Exp::var("j"))),
            ]),
            outputs: vec!["out".into()],
        }),
    )
}

/// The digit-concatenation reduction (or scan) of `xs` paired with 10s.
fn concat(scan: bool) -> KernelDef {
    let n = Size::param("n");
    let space = SegSpace::flat("i", n.clone());
    let body = Body::results(vec![Exp::read("xs", Exp::var("i")), Exp::i64(10)]);
    let neutral = vec![PrimValue::I64(0), PrimValue::I64(1)];
    let outs = vec!["r0".to_string(), "r1".to_string()];
    let shape = if scan { vec![n.clone()] } else { vec![] };
    let op = if scan {
        SegOp::Scan(SegScan {
            space,
            body,
            op: concat_op(),
            neutral,
            outputs: outs,
        })
    } else {
        SegOp::Red(SegRed {
            space,
            body,
            op: concat_op(),
            neutral,
            commutative: false,
            outputs: outs,
        })
    };
    one_kernel(
        if scan { "cscan" } else { "cred" },
        &["n"],
        vec![
            decl("xs", vec![n]),
            decl("r0", shape.clone()),
            decl("r1", shape),
        ],
        op,
    )
}

/// `hist (+) 0 8 (map (% 8) is) is`.
fn hist() -> KernelDef {
    let n = Size::param("n");
    one_kernel(
        "hist",
        &["n"],
        vec![decl("is", vec![n.clone()]), decl("h", vec![Size::Const(8)])],
        SegOp::Hist(SegHist {
            space: SegSpace::flat("i", n),
            body: Body::results(vec![
                Exp::Bin(
                    BinOp::Rem,
                    Box::new(Exp::read("is", Exp::var("i"))),
                    Box::new(Exp::i64(8)),
                ),
                Exp::read("is", Exp::var("i")),
            ]),
            op: Lambda::binop(BinOp::Add, PrimType::I64),
            neutral: vec![PrimValue::I64(0)],
            num_buckets: Size::Const(8),
            dests: vec!["h".into()],
        }),
    )
}

/// An uploaded array, or the length of a fresh output.
type Input = Result<Vec<i64>, usize>;

/// Runs `kd` on a `devices`-device backend: `inputs` are uploaded (None: a fresh output of
/// that many elements), and every array is downloaded afterwards.
fn run_multi(
    m: &mut Multi<CpuBackend>,
    kd: &KernelDef,
    sizes: &[i64],
    inputs: Vec<Result<Vec<i64>, usize>>,
) -> Vec<Vec<i64>> {
    m.prepare(std::slice::from_ref(kd)).unwrap();
    let mut bufs: Vec<_> = inputs
        .iter()
        .map(|i| match i {
            Ok(v) => m.upload(&Rc::new(Buffer::I64(v.clone()))).unwrap(),
            Err(len) => m.alloc(PrimType::I64, *len).unwrap(),
        })
        .collect();
    m.launch(kd, sizes, &mut bufs).unwrap();
    bufs.iter()
        .zip(&inputs)
        .map(|(b, i)| {
            let len = match i {
                Ok(v) => v.len(),
                Err(len) => *len,
            };
            ints(&m.download(b, PrimType::I64, len).unwrap())
        })
        .collect()
}

fn run_whole(kd: &KernelDef, sizes: &[i64], inputs: &[Result<Vec<i64>, usize>]) -> Vec<Vec<i64>> {
    let mut bufs: Vec<Rc<Buffer>> = inputs
        .iter()
        .map(|i| {
            Rc::new(Buffer::I64(match i {
                Ok(v) => v.clone(),
                Err(len) => vec![0; (*len).max(1)],
            }))
        })
        .collect();
    run_kernel_program(&kd.program, sizes, &mut bufs, None).unwrap();
    bufs.iter()
        .zip(inputs)
        .map(|(b, i)| {
            let v = ints(b);
            match i {
                Ok(x) => v[..x.len()].to_vec(),
                Err(len) => v[..*len].to_vec(),
            }
        })
        .collect()
}

fn multi(devices: usize, policy: SplitPolicy) -> Multi<CpuBackend> {
    let options = futhark_exec::ExecOptions {
        split: policy,
        ..futhark_exec::ExecOptions::default()
    };
    support::open_cpu(devices, &options)
}

#[test]
fn split_launches_equal_whole_launches_for_every_device_count_and_size() {
    for n in [0usize, 1, 2, 3, 5, 8, 33] {
        let xs: Vec<i64> = (0..n as i64).map(|x| (x * 7) % 10).collect();
        let cases: Vec<(KernelDef, Vec<i64>, Vec<Input>)> = vec![
            (
                map2d(),
                vec![n as i64, 3],
                vec![
                    Ok((0..3 * n as i64).collect()),
                    Ok(vec![5, 6, 7]),
                    Err(3 * n),
                ],
            ),
            (
                concat(false),
                vec![n as i64],
                vec![Ok(xs.clone()), Err(1), Err(1)],
            ),
            (
                concat(true),
                vec![n as i64],
                vec![Ok(xs.clone()), Err(n), Err(n)],
            ),
            (
                hist(),
                vec![n as i64],
                vec![Ok(xs.clone()), Ok((0..8).map(|b| b * 1000).collect())],
            ),
        ];
        for (kd, sizes, inputs) in &cases {
            let expected = run_whole(kd, sizes, inputs);
            for g in 1..=4 {
                let mut m = multi(g, SplitPolicy::Always);
                let got = run_multi(&mut m, kd, sizes, inputs.clone());
                assert_eq!(got, expected, "{} with n = {n} over {g} devices", kd.name);
            }
        }
    }
}

#[test]
fn partitioned_results_feed_the_next_split_launch_without_copies() {
    // Two maps in a row: the second's aligned input is the first's partitioned output.
    let kd = map2d();
    // Large enough that xs is not a small upload (those go to every device at once).
    let n = 100usize;
    let mut m = multi(2, SplitPolicy::Always);
    m.prepare(std::slice::from_ref(&kd)).unwrap();
    let xs = m
        .upload(&Rc::new(Buffer::I64((0..3 * n as i64).collect())))
        .unwrap();
    let ys = m.upload(&Rc::new(Buffer::I64(vec![1, 2, 3]))).unwrap();
    let sizes = [n as i64, 3];
    let mut first = vec![xs, ys.clone(), m.alloc(PrimType::I64, 3 * n).unwrap()];
    m.launch(&kd, &sizes, &mut first).unwrap();
    let moved_after_first = moved(&mut m);
    let mut second = vec![first[2].clone(), ys, m.alloc(PrimType::I64, 3 * n).unwrap()];
    m.launch(&kd, &sizes, &mut second).unwrap();
    // The first launch moved half of xs (ys, a small upload, is on both devices already);
    // the second reuses both.
    assert_eq!(moved_after_first, (3 * n / 2 * 8) as u64);
    assert_eq!(moved(&mut m), moved_after_first);
    let got = ints(&m.download(&second[2], PrimType::I64, 3 * n).unwrap());
    let expected: Vec<i64> = (0..3 * n as i64)
        .map(|x| (x * 3 + 1 + x % 3) * 3 + 1 + x % 3)
        .collect();
    assert_eq!(got, expected);
}

#[test]
fn copies_of_a_split_result_are_charged_to_the_kernel_that_split() {
    // map2d over 100 rows leaves `out` partitioned; a launch with one row then reads it
    // whole (as its `ys`) on device 0, gathering device 1's half: 150 elements of 8 bytes.
    let kd = map2d();
    let n = 100usize;
    let mut m = multi(2, SplitPolicy::Always);
    m.prepare(std::slice::from_ref(&kd)).unwrap();
    let xs = m
        .upload(&Rc::new(Buffer::I64((0..3 * n as i64).collect())))
        .unwrap();
    let ys = m.upload(&Rc::new(Buffer::I64(vec![1, 2, 3]))).unwrap();
    let mut first = vec![xs.clone(), ys, m.alloc(PrimType::I64, 3 * n).unwrap()];
    m.launch(&kd, &[n as i64, 3], &mut first).unwrap();
    let before: Vec<String> = m.profile().unwrap().into_iter().map(|p| p.name).collect();
    assert!(
        !before.iter().any(|p| p.contains("cost later launches")),
        "{before:?}"
    );
    let mut second = vec![xs, first[2].clone(), m.alloc(PrimType::I64, 3 * n).unwrap()];
    m.launch(&kd, &[1, 3 * n as i64], &mut second).unwrap();
    let after: Vec<String> = m.profile().unwrap().into_iter().map(|p| p.name).collect();
    assert!(
        after
            .iter()
            .any(|p| p.contains("cost later launches 0.0 MB") && p.contains("map2d")),
        "{after:?}"
    );
    // The values are still right.
    let got = ints(&m.download(&second[2], PrimType::I64, 3 * n).unwrap());
    let out1: Vec<i64> = (0..3 * n as i64).map(|x| x * 3 + 1 + x % 3).collect();
    let expected: Vec<i64> = (0..3 * n as i64)
        .map(|j| j * 3 + out1[j as usize])
        .collect();
    assert_eq!(got, expected);
}

/// Bytes moved between devices so far, from the profile.
fn moved(m: &mut Multi<CpuBackend>) -> u64 {
    m.profile()
        .unwrap()
        .iter()
        .filter(|p| p.name.starts_with("(husk)"))
        .map(|p| p.bytes)
        .sum()
}

fn split_count(m: &mut Multi<CpuBackend>) -> (usize, usize) {
    let p = m.profile().unwrap();
    let husks: Vec<_> = p.iter().filter(|p| p.name.starts_with("(husk)")).collect();
    let split = husks
        .iter()
        .filter(|p| p.name.contains("split over"))
        .count();
    (split, husks.len() - split)
}

#[test]
fn cost_model_keeps_a_small_launch_on_one_device() {
    // A few elements never pay for a second device (the decisions for large launches are
    // unit tests of the cost model, which need not run them).
    let mut m = multi(2, SplitPolicy::Auto);
    let kd = map2d();
    let got = run_multi(
        &mut m,
        &kd,
        &[4, 3],
        vec![Ok((0..12).collect()), Ok(vec![1, 2, 3]), Err(12)],
    );
    assert_eq!(split_count(&mut m), (0, 1));
    assert_eq!(
        got,
        run_whole(
            &kd,
            &[4, 3],
            &[Ok((0..12).collect()), Ok(vec![1, 2, 3]), Err(12)]
        )
    );
}

/// A product scan: the carry's scan must start from the operator's neutral element (1).
#[test]
fn split_scan_with_a_nonzero_neutral_element() {
    let n = Size::param("n");
    let kd = one_kernel(
        "prod",
        &["n"],
        vec![decl("xs", vec![n.clone()]), decl("out", vec![n.clone()])],
        SegOp::Scan(SegScan {
            space: SegSpace::flat("i", n),
            body: Body::results(vec![Exp::read("xs", Exp::var("i"))]),
            op: Lambda::binop(BinOp::Mul, PrimType::I64),
            neutral: vec![PrimValue::I64(1)],
            outputs: vec!["out".into()],
        }),
    );
    let inputs = vec![Ok((2..9).collect::<Vec<i64>>()), Err(7)];
    let expected = run_whole(&kd, &[7], &inputs);
    assert_eq!(expected[1], vec![2, 6, 24, 120, 720, 5040, 40320]);
    for g in 1..=4 {
        let mut m = multi(g, SplitPolicy::Always);
        assert_eq!(
            run_multi(&mut m, &kd, &[7], inputs.clone()),
            expected,
            "G = {g}"
        );
    }
}
