//! Tests of the SOAC IR printer, checker and traversals on hand-built programs.

use super::*;
use crate::types::{PrimType, PrimValue};

fn v(n: &str) -> SubExp {
    SubExp::var(n)
}

fn f32s(n: &str) -> Type {
    Type::Array(PrimType::F32, vec![v(n)])
}

fn f32() -> Type {
    Type::Prim(PrimType::F32)
}

fn add_op() -> Lambda {
    Lambda {
        params: vec![Param::new("a", f32()), Param::new("b", f32())],
        body: Body::new(
            vec![Stm::new(
                Pat::one("c", f32()),
                Exp::BinOp(BinOp::Add, v("a"), v("b")),
            )],
            vec![v("c")],
        ),
        ret: vec![f32()],
    }
}

/// `sum (map (*2) xs)` plus a loop doubling a scalar, as lowering would produce it.
fn sample() -> Program {
    let double = Lambda {
        params: vec![Param::new("x", f32())],
        body: Body::new(
            vec![Stm::new(
                Pat::one("y", f32()),
                Exp::BinOp(BinOp::Mul, v("x"), SubExp::Const(PrimValue::F32(2.0))),
            )],
            vec![v("y")],
        ),
        ret: vec![f32()],
    };
    let ident = Lambda {
        params: vec![Param::new("z", f32())],
        body: Body::new(vec![], vec![v("z")]),
        ret: vec![f32()],
    };
    let body = Body::new(
        vec![
            Stm::new(
                Pat::one("ys", f32s("n")),
                Exp::Soac(Soac::Map {
                    w: v("n"),
                    lam: double,
                    arrs: vec!["xs".into()],
                }),
            ),
            Stm::new(
                Pat::one("s", f32()),
                Exp::Soac(Soac::Reduce {
                    w: v("n"),
                    comm: true,
                    op: add_op(),
                    nes: vec![SubExp::Const(PrimValue::F32(0.0))],
                    map: ident,
                    arrs: vec!["ys".into()],
                }),
            ),
            Stm::new(
                Pat::one("t", f32()),
                Exp::Loop {
                    params: vec![(Param::new("acc", f32()), v("s"))],
                    form: LoopForm::For {
                        var: "i".into(),
                        bound: SubExp::i64(3),
                    },
                    body: Body::new(
                        vec![Stm::new(
                            Pat::one("acc2", f32()),
                            Exp::BinOp(BinOp::Add, v("acc"), v("acc")),
                        )],
                        vec![v("acc2")],
                    ),
                },
            ),
        ],
        vec![v("t")],
    );
    Program {
        funs: vec![FunDef {
            name: "main".into(),
            entry: None,
            params: vec![
                Param::new("n", Type::Prim(PrimType::I64)),
                Param::new("xs", f32s("n")),
            ],
            ret: vec![f32().to_ext()],
            body,
        }],
        kernels: vec![],
        slow_paths: vec![],
    }
}

#[test]
fn sample_checks_and_prints() {
    let p = sample();
    check_program(&p).unwrap();
    insta::assert_snapshot!(p.to_string(), @r"
    fun main (n: i64, xs: [n]f32) : f32 = {
      let ys: [n]f32 = map n (xs)
        \(x: f32) : f32 ->
          let y: f32 = x * 2.0f32
          in y
      let s: f32 = redomap commutative n (ys)
        op \(a: f32, b: f32) : f32 ->
          let c: f32 = a + b
          in c
        ne (0.0f32)
        map \(z: f32) : f32 -> z
      let t: f32 = loop (acc: f32 = s) for i < 3i64 do {
        let acc2: f32 = acc + acc
        in acc2
      }
      in t
    }
    ");
}

fn error_of(p: &Program) -> String {
    check_program(p).unwrap_err().message
}

#[test]
fn map_input_of_wrong_width_is_rejected() {
    let mut p = sample();
    p.funs[0]
        .params
        .insert(0, Param::new("m", Type::Prim(PrimType::I64)));
    p.funs[0].params[2].ty = f32s("m");
    assert_eq!(
        error_of(&p),
        "SOAC input `xs` of type [m]f32 does not have outer size n"
    );
}

#[test]
fn shadowing_is_rejected() {
    let mut p = sample();
    p.funs[0].body.stms[0].pat.elems[0].name = "xs".into();
    assert_eq!(
        error_of(&p),
        "`xs` is bound twice (the IR has no shadowing)"
    );
}

#[test]
fn use_after_consumption_is_rejected() {
    let mut p = sample();
    let upd = Stm::new(
        Pat::one("ys2", f32s("n")),
        Exp::Update(
            "ys".into(),
            vec![DimIndex::Fix(SubExp::i64(0))],
            SubExp::Const(PrimValue::F32(1.0)),
        ),
    );
    p.funs[0].body.stms.insert(1, upd);
    assert_eq!(error_of(&p), "`ys` is used after being consumed");
}

#[test]
fn existential_pattern_accepts_unknown_sizes() {
    // let [d] (zs: [d]i64) = if c then iota n else iota 3
    let i64s = |d: SubExp| Type::Array(PrimType::I64, vec![d]);
    let branch = |name: &str, n: SubExp| {
        Body::new(
            vec![Stm::new(
                Pat::one(name, i64s(n.clone())),
                Exp::Iota {
                    n,
                    start: SubExp::i64(0),
                    stride: SubExp::i64(1),
                    ty: PrimType::I64,
                },
            )],
            vec![v(name)],
        )
    };
    let stm = Stm::new(
        Pat {
            ctx: vec!["d".into()],
            elems: vec![Param::new("zs", i64s(v("d")))],
        },
        Exp::If {
            cond: v("c"),
            then_body: branch("a", v("n")),
            else_body: branch("b", SubExp::i64(3)),
            ret: vec![TypeBase::Array(PrimType::I64, vec![ExtSize::Ext(0)])],
        },
    );
    let fun = FunDef {
        name: "f".into(),
        entry: None,
        params: vec![
            Param::new("n", Type::Prim(PrimType::I64)),
            Param::new("c", Type::Prim(PrimType::Bool)),
        ],
        ret: vec![TypeBase::Array(PrimType::I64, vec![ExtSize::Ext(0)])],
        body: Body::new(vec![stm], vec![v("zs")]),
    };
    let p = Program {
        funs: vec![fun],
        kernels: vec![],
        slow_paths: vec![],
    };
    check_program(&p).unwrap();
    assert!(
        p.to_string()
            .contains("let [d] (zs: [d]i64) = if c : [?0]i64 then {")
    );
}

#[test]
fn renaming_gives_fresh_binders_and_keeps_free_variables() {
    let p = sample();
    let Exp::Soac(Soac::Map { lam, .. }) = &p.funs[0].body.stms[0].exp else {
        unreachable!()
    };
    let mut ns = NameSource::for_program(&p);
    let r = renamed_lambda(lam, &mut ns);
    assert_eq!(r.params[0].name, "x_0");
    assert_eq!(r.body.result, vec![v("y_1")]);
    assert!(free_in_lambda(&r).is_empty());
    assert_eq!(
        free_in_body(&p.funs[0].body)
            .into_iter()
            .collect::<Vec<_>>(),
        vec!["n".to_string(), "xs".to_string()]
    );
}
