//! Small kernel programs: the representative kernels of the snapshot tests, the NVRTC
//! compile-everything test, the GPU correctness checks and the benchmark. They are also
//! what a front end should produce for the corresponding Futhark expressions.

use futhark_ir::{
    ArrayDecl, BinOp, Body, CmpOp, Exp, Kernel, KernelProgram, Lambda, MathFn, PrimType, PrimValue,
    Scatter, SegHist, SegMap, SegOp, SegRed, SegScan, SegSpace, Size, UnOp,
};

fn arr(name: &str, elem: PrimType, shape: &[Size]) -> ArrayDecl {
    ArrayDecl {
        name: name.into(),
        elem,
        shape: shape.to_vec(),
    }
}

fn n() -> Size {
    Size::param("n")
}

fn m() -> Size {
    Size::param("m")
}

fn at(array: &str) -> Exp {
    Exp::read(array, Exp::var("i"))
}

/// `map (\x -> x * 2 + 1) xs` on f32: the benchmark's map.
pub fn saxpy(name: &str) -> KernelProgram {
    KernelProgram {
        intra: None,
        sizes: vec!["n".into()],
        arrays: vec![
            arr("xs", PrimType::F32, &[n()]),
            arr("ys", PrimType::F32, &[n()]),
        ],
        kernels: vec![Kernel {
            name: name.into(),
            op: SegOp::Map(SegMap {
                space: SegSpace::flat("i", n()),
                body: Body::results(vec![at("xs").times(Exp::f32(2.0)).plus(Exp::f32(1.0))]),
                outputs: vec!["ys".into()],
            }),
        }],
    }
}

/// `copy xs` as a map kernel: the bandwidth baseline a generated kernel can reach.
pub fn copy(name: &str) -> KernelProgram {
    let mut p = saxpy(name);
    if let SegOp::Map(m) = &mut p.kernels[0].op {
        m.body = Body::results(vec![at("xs")]);
    }
    p
}

/// A map computing every operator that applies to `t` on `xs[i]` and `ys[i]`, one output
/// each: binary operators, comparisons, unary operators and (for floats) math functions.
pub fn all_ops_map(name: &str, t: PrimType) -> KernelProgram {
    let (x, y) = (at("xs"), at("ys"));
    let mut results: Vec<(Exp, PrimType)> = Vec::new();
    for op in BinOp::ALL {
        if op.accepts(t) {
            let rt = if matches!(op, BinOp::LogAnd | BinOp::LogOr) {
                PrimType::Bool
            } else {
                t
            };
            results.push((Exp::bin(op, x.clone(), y.clone()), rt));
        }
    }
    for op in CmpOp::ALL {
        results.push((Exp::cmp(op, x.clone(), y.clone()), PrimType::Bool));
    }
    for op in UnOp::ALL {
        if op.accepts(t) {
            results.push((Exp::un(op, x.clone()), t));
        }
    }
    if t.is_float() {
        for f in MathFn::ALL {
            let args = vec![x.clone(), y.clone(), x.clone()][..f.arity()].to_vec();
            let rt = if f.returns_bool() { PrimType::Bool } else { t };
            results.push((Exp::Math(f, args), rt));
        }
    }
    results.push((
        Exp::select(Exp::cmp(CmpOp::Lt, x.clone(), y.clone()), x.clone(), y),
        t,
    ));
    let mut arrays = vec![arr("xs", t, &[n()]), arr("ys", t, &[n()])];
    let mut outputs = Vec::new();
    for (k, (_, rt)) in results.iter().enumerate() {
        arrays.push(arr(&format!("o{k}"), *rt, &[n()]));
        outputs.push(format!("o{k}"));
    }
    KernelProgram {
        intra: None,
        sizes: vec!["n".into()],
        arrays,
        kernels: vec![Kernel {
            name: name.into(),
            op: SegOp::Map(SegMap {
                space: SegSpace::flat("i", n()),
                body: Body::results(results.into_iter().map(|r| r.0).collect()),
                outputs,
            }),
        }],
    }
}

/// The target types of [`conversions_map`], in the order of its outputs `o0`…`o11`
/// (`bool` first, as the sample has always generated them).
pub const CONVERSION_TARGETS: [PrimType; 12] = [
    PrimType::Bool,
    PrimType::I8,
    PrimType::I16,
    PrimType::I32,
    PrimType::I64,
    PrimType::U8,
    PrimType::U16,
    PrimType::U32,
    PrimType::U64,
    PrimType::F16,
    PrimType::F32,
    PrimType::F64,
];

/// A map converting `xs[i]` of type `from` to every primitive type ([`CONVERSION_TARGETS`]).
pub fn conversions_map(name: &str, from: PrimType) -> KernelProgram {
    let mut arrays = vec![arr("xs", from, &[n()])];
    let mut outputs = Vec::new();
    let mut results = Vec::new();
    for (k, to) in CONVERSION_TARGETS.iter().enumerate() {
        arrays.push(arr(&format!("o{k}"), *to, &[n()]));
        outputs.push(format!("o{k}"));
        results.push(Exp::conv(*to, at("xs")));
    }
    KernelProgram {
        intra: None,
        sizes: vec!["n".into()],
        arrays,
        kernels: vec![Kernel {
            name: name.into(),
            op: SegOp::Map(SegMap {
                space: SegSpace::flat("i", n()),
                body: Body::results(results),
                outputs,
            }),
        }],
    }
}

/// The space of a reduction or scan: `[n]`, or `[m][n]` when segmented.
fn red_space(segmented: bool) -> (SegSpace, Vec<Size>) {
    if segmented {
        (
            SegSpace {
                flat: "i".into(),
                dims: vec![("seg".into(), m()), ("j".into(), n())],
            },
            vec![m(), n()],
        )
    } else {
        (SegSpace::flat("i", n()), vec![n()])
    }
}

/// Input arrays `xs0..` of the operator's component types, read at the flat index.
fn tuple_inputs(tys: &[PrimType], shape: &[Size]) -> (Vec<ArrayDecl>, Vec<Exp>) {
    let arrays = tys
        .iter()
        .enumerate()
        .map(|(c, t)| arr(&format!("xs{c}"), *t, shape))
        .collect();
    let reads = (0..tys.len()).map(|c| at(&format!("xs{c}"))).collect();
    (arrays, reads)
}

/// `reduce op ne xs` (or a reduction of each row of `[m][n]` when segmented), with one
/// input and one output array per tuple component.
pub fn reduce(
    name: &str,
    op: Lambda,
    neutral: Vec<PrimValue>,
    segmented: bool,
    commutative: bool,
) -> KernelProgram {
    let tys: Vec<PrimType> = neutral.iter().map(|v| v.ty()).collect();
    let (space, shape) = red_space(segmented);
    let (mut arrays, reads) = tuple_inputs(&tys, &shape);
    let out_shape = &shape[..shape.len() - 1];
    let outputs: Vec<String> = (0..tys.len()).map(|c| format!("out{c}")).collect();
    for (c, t) in tys.iter().enumerate() {
        arrays.push(arr(&outputs[c], *t, out_shape));
    }
    KernelProgram {
        intra: None,
        sizes: if segmented {
            vec!["n".into(), "m".into()]
        } else {
            vec!["n".into()]
        },
        arrays,
        kernels: vec![Kernel {
            name: name.into(),
            op: SegOp::Red(SegRed {
                space,
                body: Body::results(reads),
                op,
                neutral,
                commutative,
                outputs,
            }),
        }],
    }
}

/// The matrix product `c[i][j] = op_k (a[i][k] * b[k][j])` of an `[n][k]` and a `[k][m]`
/// array of `t`, as kernel extraction leaves it (a `SegRed` over `(i, j, k)` reading `b`
/// through its transposed view): the tiled entry's kernel.
pub fn matmul(name: &str, t: PrimType, op: Lambda, neutral: PrimValue) -> KernelProgram {
    let (i, j, k) = (Exp::var("i"), Exp::var("j"), Exp::var("k"));
    let a = Exp::read("a", i.times(Exp::var("kk")).plus(k.clone()));
    let b = Exp::read("b", k.times(Exp::var("m")).plus(j));
    KernelProgram {
        intra: None,
        sizes: vec!["n".into(), "m".into(), "kk".into()],
        arrays: vec![
            arr("a", t, &[n(), Size::param("kk")]),
            arr("b", t, &[Size::param("kk"), m()]),
            arr("c", t, &[n(), m()]),
        ],
        kernels: vec![Kernel {
            name: name.into(),
            op: SegOp::Red(SegRed {
                space: SegSpace {
                    flat: "f".into(),
                    dims: vec![
                        ("i".into(), n()),
                        ("j".into(), m()),
                        ("k".into(), Size::param("kk")),
                    ],
                },
                body: Body::results(vec![Exp::bin(BinOp::Mul, a, b)]),
                op,
                neutral: vec![neutral],
                commutative: false,
                outputs: vec!["c".into()],
            }),
        }],
    }
}

/// `scan op ne xs` (row-wise when segmented).
pub fn scan(name: &str, op: Lambda, neutral: Vec<PrimValue>, segmented: bool) -> KernelProgram {
    let tys: Vec<PrimType> = neutral.iter().map(|v| v.ty()).collect();
    let (space, shape) = red_space(segmented);
    let (mut arrays, reads) = tuple_inputs(&tys, &shape);
    let outputs: Vec<String> = (0..tys.len()).map(|c| format!("out{c}")).collect();
    for (c, t) in tys.iter().enumerate() {
        arrays.push(arr(&outputs[c], *t, &shape));
    }
    KernelProgram {
        intra: None,
        sizes: if segmented {
            vec!["n".into(), "m".into()]
        } else {
            vec!["n".into()]
        },
        arrays,
        kernels: vec![Kernel {
            name: name.into(),
            op: SegOp::Scan(SegScan {
                space,
                body: Body::results(reads),
                op,
                neutral,
                outputs,
            }),
        }],
    }
}

/// `reduce_by_index hist op ne is vs` with `i32` indices.
pub fn hist(name: &str, op: Lambda, neutral: PrimValue) -> KernelProgram {
    let t = neutral.ty();
    KernelProgram {
        intra: None,
        sizes: vec!["n".into(), "h".into()],
        arrays: vec![
            arr("is", PrimType::I32, &[n()]),
            arr("vs", t, &[n()]),
            arr("hist", t, &[Size::param("h")]),
        ],
        kernels: vec![Kernel {
            name: name.into(),
            op: SegOp::Hist(SegHist {
                space: SegSpace::flat("i", n()),
                body: Body::results(vec![Exp::conv(PrimType::I64, at("is")), at("vs")]),
                op,
                neutral: vec![neutral],
                num_buckets: Size::param("h"),
                dests: vec!["hist".into()],
            }),
        }],
    }
}

/// `reduce_by_index` of tuples: `i32` indices, one value array `vs{c}` and destination
/// `hist{c}` per component of `neutral`; the second component's value is the element's
/// index when `with_index` (an argmax's position), else read from `vs1`.
pub fn hist_tuple(
    name: &str,
    op: Lambda,
    neutral: Vec<PrimValue>,
    with_index: bool,
) -> KernelProgram {
    let mut arrays = vec![arr("is", PrimType::I32, &[n()])];
    let mut results = vec![Exp::conv(PrimType::I64, at("is"))];
    for (c, v) in neutral.iter().enumerate() {
        if with_index && c == 1 {
            results.push(Exp::conv(v.ty(), Exp::var("i")));
        } else {
            arrays.push(arr(&format!("vs{c}"), v.ty(), &[n()]));
            results.push(Exp::Read(format!("vs{c}"), Box::new(Exp::var("i"))));
        }
    }
    let dests: Vec<String> = (0..neutral.len()).map(|c| format!("hist{c}")).collect();
    for (d, v) in dests.iter().zip(&neutral) {
        arrays.push(arr(d, v.ty(), &[Size::param("h")]));
    }
    KernelProgram {
        intra: None,
        sizes: vec!["n".into(), "h".into()],
        arrays,
        kernels: vec![Kernel {
            name: name.into(),
            op: SegOp::Hist(SegHist {
                space: SegSpace::flat("i", n()),
                body: Body::results(results),
                op,
                neutral,
                num_buckets: Size::param("h"),
                dests,
            }),
        }],
    }
}

/// Component-wise sums of (f64, i32, i32) triples: a bucket too wide for one word.
pub fn triple_sum() -> (Lambda, Vec<PrimValue>) {
    let tys = [PrimType::F64, PrimType::I32, PrimType::I32];
    let params = (0..6)
        .map(|i| (format!("p{i}"), tys[i % 3]))
        .collect::<Vec<_>>();
    let results = (0..3)
        .map(|i| {
            Exp::bin(
                BinOp::Add,
                Exp::var(&format!("p{i}")),
                Exp::var(&format!("p{}", i + 3)),
            )
        })
        .collect();
    (
        Lambda {
            params,
            body: Body::results(results),
        },
        vec![PrimValue::F64(0.0), PrimValue::I32(0), PrimValue::I32(0)],
    )
}

/// `scatter dest is vs` with `i32` indices into a destination of `m` elements.
pub fn scatter(name: &str, t: PrimType) -> KernelProgram {
    KernelProgram {
        intra: None,
        sizes: vec!["n".into(), "m".into()],
        arrays: vec![
            arr("is", PrimType::I32, &[n()]),
            arr("vs", t, &[n()]),
            arr("dest", t, &[m()]),
        ],
        kernels: vec![Kernel {
            name: name.into(),
            op: SegOp::Scatter(Scatter {
                space: SegSpace::flat("i", n()),
                body: Body::results(vec![Exp::conv(PrimType::I64, at("is")), at("vs")]),
                dests: vec!["dest".into()],
            }),
        }],
    }
}

/// Composition of affine maps `x -> a*x + b` on i32 (wrapping): associative, not
/// commutative, and exact, so it checks that reductions and scans keep element order.
pub fn affine_compose() -> (Lambda, Vec<PrimValue>) {
    let v = Exp::var;
    let lam = Lambda {
        params: vec![
            ("a1".into(), PrimType::I32),
            ("b1".into(), PrimType::I32),
            ("a2".into(), PrimType::I32),
            ("b2".into(), PrimType::I32),
        ],
        // (a1, b1) then (a2, b2): x -> a2*(a1*x + b1) + b2.
        body: Body::results(vec![
            v("a1").times(v("a2")),
            v("b1").times(v("a2")).plus(v("b2")),
        ]),
    };
    (lam, vec![PrimValue::I32(1), PrimValue::I32(0)])
}

/// Arg-max on (f32 value, i32 index), first index on ties: a tuple-valued operator.
pub fn argmax() -> (Lambda, Vec<PrimValue>) {
    let v = Exp::var;
    let take_first = Exp::bin(
        BinOp::LogOr,
        Exp::cmp(CmpOp::Gt, v("x1"), v("x2")),
        Exp::bin(
            BinOp::LogAnd,
            Exp::cmp(CmpOp::Eq, v("x1"), v("x2")),
            Exp::cmp(CmpOp::Lt, v("i1"), v("i2")),
        ),
    );
    let lam = Lambda {
        params: vec![
            ("x1".into(), PrimType::F32),
            ("i1".into(), PrimType::I32),
            ("x2".into(), PrimType::F32),
            ("i2".into(), PrimType::I32),
        ],
        body: Body::results(vec![
            Exp::select(take_first.clone(), v("x1"), v("x2")),
            Exp::select(take_first, v("i1"), v("i2")),
        ]),
    };
    (
        lam,
        vec![PrimValue::F32(f32::NEG_INFINITY), PrimValue::I32(i32::MAX)],
    )
}

/// The neutral element of a simple operator on `t`, if it has one.
pub fn neutral_of(op: BinOp, t: PrimType) -> Option<PrimValue> {
    Some(match op {
        BinOp::Add | BinOp::Or | BinOp::Xor | BinOp::LogOr => PrimValue::from_f64(t, 0.0),
        BinOp::Mul => PrimValue::from_f64(t, 1.0),
        BinOp::LogAnd => PrimValue::Bool(true),
        BinOp::And if t == PrimType::Bool => PrimValue::Bool(true),
        BinOp::And if t.is_unsigned() => PrimValue::max_value(t),
        BinOp::And => PrimValue::from_f64(t, -1.0),
        BinOp::Min => PrimValue::max_value(t),
        BinOp::Max => PrimValue::min_value(t),
        _ => return None,
    })
    .filter(|_| op.accepts(t))
}

/// Scans the scan generator is tested on, each with its accumulator's size in bytes: an f32
/// sum, a segmented i32 sum and the (non-commutative) affine composition, segmented.
pub fn scan_cases() -> Vec<(KernelProgram, usize)> {
    let (aff, aff_ne) = affine_compose();
    vec![
        (
            scan(
                "s",
                Lambda::binop(BinOp::Add, PrimType::F32),
                vec![PrimValue::F32(0.0)],
                false,
            ),
            4,
        ),
        (
            scan(
                "s",
                Lambda::binop(BinOp::Add, PrimType::I32),
                vec![PrimValue::I32(0)],
                true,
            ),
            4,
        ),
        (scan("s", aff, aff_ne, true), 8),
    ]
}
