//! The husk transform (`futhark_ir::husk`) checked by running it: a kernel program split over
//! G = 1..4 devices by `futhark_exec::partition`, each piece run on the CPU backend on its
//! rows, and the pieces' results combined as the husk says, must equal the unsplit program's
//! result for every size, including fewer rows than devices.

use std::rc::Rc;

use futhark_exec::partition::split_rows;
use futhark_exec::run_kernel_program;
use futhark_ir::husk::{Combine, husk};
use futhark_ir::{
    ArrayDecl, BinOp, Body, Exp, Kernel, KernelProgram, Lambda, PrimType, PrimValue, SegMap, SegOp,
    SegRed, SegScan, SegSpace, Size,
};
use futhark_values::Buffer;

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

/// `out[i][j] = xs[i][j] * 3 + ys[j]` over an n×m space (xs aligned, ys whole).
fn map_prog() -> KernelProgram {
    let n = Size::param("n");
    let m = Size::param("m");
    KernelProgram {
        intra: None,
        sizes: vec!["n".into(), "m".into()],
        arrays: vec![
            decl("xs", vec![n.clone(), m.clone()]),
            decl("ys", vec![m.clone()]),
            decl("out", vec![n.clone(), m.clone()]),
        ],
        kernels: vec![Kernel {
            name: "k".into(),
            op: SegOp::Map(SegMap {
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
        }],
    }
}

/// `sum (map (\x -> x * x + i) xs)` and `scan (+)` of the same, over one dimension.
fn flat_prog(scan: bool) -> KernelProgram {
    let n = Size::param("n");
    let body = Body::results(vec![
        Exp::read("xs", Exp::var("i"))
            .times(Exp::read("xs", Exp::var("i")))
            .plus(Exp::var("i")),
    ]);
    let space = SegSpace::flat("i", n.clone());
    let op = Lambda::binop(BinOp::Add, PrimType::I64);
    let neutral = vec![PrimValue::I64(0)];
    let (out_shape, kop) = if scan {
        (
            vec![n.clone()],
            SegOp::Scan(SegScan {
                space,
                body,
                op,
                neutral,
                outputs: vec!["out".into()],
            }),
        )
    } else {
        (
            vec![],
            SegOp::Red(SegRed {
                space,
                body,
                op,
                neutral,
                commutative: true,
                outputs: vec!["out".into()],
            }),
        )
    };
    KernelProgram {
        intra: None,
        sizes: vec!["n".into()],
        arrays: vec![decl("xs", vec![n]), decl("out", out_shape)],
        kernels: vec![Kernel {
            name: "k".into(),
            op: kop,
        }],
    }
}

/// Runs a program on whole arrays and returns every array afterwards.
fn run(prog: &KernelProgram, sizes: &[i64], arrays: Vec<Vec<i64>>) -> Vec<Vec<i64>> {
    let mut bufs: Vec<Rc<Buffer>> = arrays
        .into_iter()
        .map(|v| Rc::new(Buffer::I64(v)))
        .collect();
    run_kernel_program(prog, sizes, &mut bufs, None).expect("kernel program runs");
    bufs.iter().map(|b| ints(b)).collect()
}

/// Runs the husk's pieces over `devices` row ranges and combines them.
fn run_split(
    prog: &KernelProgram,
    sizes: &[i64],
    inputs: &[Vec<i64>],
    row_len: &[usize],
    out_len: usize,
    devices: usize,
) -> Vec<i64> {
    let h = husk(prog).expect("splittable");
    let split = match &h.split {
        Size::Param(p) => sizes[prog.sizes.iter().position(|s| s == p).unwrap()],
        Size::Const(c) => *c,
    };
    let mut pieces = Vec::new();
    for r in split_rows(split as u64, devices) {
        let (start, rows) = (r.start as usize, (r.end - r.start) as usize);
        let mut piece_sizes = sizes.to_vec();
        piece_sizes.extend([start as i64, rows as i64]);
        let arrays: Vec<Vec<i64>> = prog
            .arrays
            .iter()
            .enumerate()
            .map(|(a, d)| {
                if h.results.contains(&d.name) {
                    // A partitioned output holds this piece's rows; a partial, one element.
                    let len = if d.shape.is_empty() {
                        1
                    } else {
                        rows * row_len[a]
                    };
                    vec![0; len.max(1)]
                } else if h.aligned.contains(&d.name) {
                    inputs[a][start * row_len[a]..(start + rows) * row_len[a]].to_vec()
                } else {
                    inputs[a].clone()
                }
            })
            .collect();
        let out_index = prog
            .arrays
            .iter()
            .position(|d| d.name == h.results[0])
            .unwrap();
        let mut after = if rows == 0 {
            // An empty piece computes nothing: no rows, and the neutral element as partial.
            match &h.combine {
                Combine::Reduce { neutral, .. } => vec![vec![neutral_i64(neutral)]; arrays.len()],
                _ => vec![Vec::new(); arrays.len()],
            }
        } else {
            run(&h.piece, &piece_sizes, arrays)
        };
        let mut out = std::mem::take(&mut after[out_index]);
        if !matches!(h.combine, Combine::Reduce { .. }) {
            out.truncate(rows * row_len[out_index]);
        }
        pieces.push(out);
    }
    let combined = match &h.combine {
        Combine::Rows => pieces.concat(),
        Combine::Reduce { neutral, .. } => {
            vec![
                pieces
                    .iter()
                    .fold(neutral_i64(neutral), |acc, p| acc + p[0]),
            ]
        }
        Combine::ScanCarry { .. } => {
            let mut carry = 0;
            let mut all = Vec::new();
            for p in pieces {
                let last = p.last().copied();
                all.extend(p.iter().map(|x| carry + x));
                if let Some(l) = last {
                    carry += l;
                }
            }
            all
        }
        Combine::Hist { .. } => unreachable!("no histogram here"),
    };
    assert_eq!(combined.len(), out_len);
    combined
}

fn neutral_i64(ne: &[PrimValue]) -> i64 {
    match ne.first() {
        Some(PrimValue::I64(x)) => *x,
        other => panic!("unexpected neutral {other:?}"),
    }
}

#[test]
fn split_map_equals_whole_for_every_device_count() {
    let prog = map_prog();
    for n in [0usize, 1, 2, 3, 7, 16] {
        let m = 5usize;
        let xs: Vec<i64> = (0..(n * m) as i64).map(|x| x * 7 - 11).collect();
        let ys: Vec<i64> = (0..m as i64).map(|x| 100 * x).collect();
        let whole = run(
            &prog,
            &[n as i64, m as i64],
            vec![xs.clone(), ys.clone(), vec![0; (n * m).max(1)]],
        );
        let expected = whole[2][..n * m].to_vec();
        for g in 1..=4 {
            let got = run_split(
                &prog,
                &[n as i64, m as i64],
                &[xs.clone(), ys.clone(), vec![]],
                &[m, 1, m],
                n * m,
                g,
            );
            assert_eq!(got, expected, "n = {n}, G = {g}");
        }
    }
}

#[test]
fn split_reduce_and_scan_equal_whole_for_every_device_count() {
    for scan in [false, true] {
        let prog = flat_prog(scan);
        for n in [0usize, 1, 2, 3, 5, 100] {
            let xs: Vec<i64> = (0..n as i64).map(|x| (x * 37) % 11 - 5).collect();
            let out_len = if scan { n } else { 1 };
            let whole = run(
                &prog,
                &[n as i64],
                vec![xs.clone(), vec![0; out_len.max(1)]],
            );
            let expected = whole[1][..out_len].to_vec();
            for g in 1..=4 {
                let got = run_split(
                    &prog,
                    &[n as i64],
                    &[xs.clone(), vec![]],
                    &[1, 1],
                    out_len,
                    g,
                );
                assert_eq!(got, expected, "scan = {scan}, n = {n}, G = {g}");
            }
        }
    }
}
