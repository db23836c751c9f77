//! Unit tests of unification.

use super::*;

fn sp() -> Span {
    Span::default()
}

#[test]
fn prim_mismatch() {
    let mut u = Unifier::new(1);
    let e = u.unify(&Type::Prim(PrimType::I32), &Type::Prim(PrimType::F32));
    assert!(matches!(e, Err(UnifyError::Types { .. })));
}

#[test]
fn var_solves_and_zonks() {
    let mut u = Unifier::new(1);
    let a = u.new_tyvar("a", 0, sp());
    let arr = Type::array(a.clone(), vec![Size::Lit(3)], false);
    u.unify(
        &arr,
        &Type::array(Type::Prim(PrimType::I64), vec![Size::Lit(3)], false),
    )
    .unwrap();
    assert_eq!(u.zonk(&a), Type::Prim(PrimType::I64));
}

#[test]
fn row_polymorphic_elem() {
    // [n]a ~ [3][4]i32 gives a = [4]i32.
    let mut u = Unifier::new(1);
    let a = u.new_tyvar("a", 0, sp());
    let n = u.new_sizevar("n", 0, sp());
    let t1 = Type::array(a.clone(), vec![Size::Var(n.clone())], false);
    let t2 = Type::array(
        Type::Prim(PrimType::I32),
        vec![Size::Lit(3), Size::Lit(4)],
        false,
    );
    u.unify(&t1, &t2).unwrap();
    assert_eq!(u.zonk(&a).to_string(), "[4]i32");
    assert_eq!(u.zonk_size(&Size::Var(n)), Size::Lit(3));
}

#[test]
fn rigid_sizes_mismatch() {
    let mut u = Unifier::new(1);
    let n = u.fresh_name("n");
    let m = u.fresh_name("m");
    u.bind_rigid(&n, 0);
    u.bind_rigid(&m, 0);
    let t1 = Type::array(Type::bool(), vec![Size::Var(n)], false);
    let t2 = Type::array(Type::bool(), vec![Size::Var(m)], false);
    let e = u.unify(&t1, &t2).unwrap_err();
    assert_eq!(e.message(), "Sizes \"n\" and \"m\" do not match.");
}

#[test]
fn occurs_check() {
    let mut u = Unifier::new(1);
    let a = u.new_tyvar("a", 0, sp());
    let arr = Type::array(a.clone(), vec![Size::Lit(1)], false);
    let e = u.unify(&a, &arr).unwrap_err();
    assert_eq!(e.code(), "occurs-check");
}

#[test]
fn scope_violation_by_level() {
    let mut u = Unifier::new(1);
    let a = u.new_tyvar("a", 1, sp());
    let n = u.fresh_name("n");
    u.bind_rigid(&n, 2);
    let t = Type::array(Type::bool(), vec![Size::Var(n)], false);
    let e = u.unify(&a, &t).unwrap_err();
    assert_eq!(e.code(), "scope-violation");
}

#[test]
fn overloaded_literal() {
    let mut u = Unifier::new(1);
    let v = u.new_var("t", 0, Constraint::Overloaded(PrimType::numeric()), sp());
    assert!(u.unify(&Type::var(v.clone()), &Type::bool()).is_err());
    u.unify(&Type::var(v.clone()), &Type::Prim(PrimType::U8))
        .unwrap();
    assert_eq!(u.zonk(&Type::var(v)), Type::Prim(PrimType::U8));
}

#[test]
fn record_fields_mismatch() {
    let mut u = Unifier::new(1);
    let mut f1 = BTreeMap::new();
    f1.insert(Name::from("a"), Type::bool());
    f1.insert(Name::from("c"), Type::bool());
    let mut f2 = BTreeMap::new();
    f2.insert(Name::from("a"), Type::bool());
    f2.insert(Name::from("d"), Type::bool());
    let e = u.unify(&Type::Record(f1), &Type::Record(f2)).unwrap_err();
    assert!(e.message().contains("unshared fields: c, d."));
}

#[test]
fn has_field_constraint() {
    let mut u = Unifier::new(1);
    let r = u.new_tyvar("r", 0, sp());
    let ft = u.must_have_field(&r, &Name::from("x"), 0, sp()).unwrap();
    let mut fs = BTreeMap::new();
    fs.insert(Name::from("x"), Type::Prim(PrimType::F32));
    fs.insert(Name::from("y"), Type::bool());
    u.unify(&r, &Type::Record(fs)).unwrap();
    assert_eq!(u.zonk(&ft), Type::Prim(PrimType::F32));
}

#[test]
fn branches_of_different_sizes() {
    let mut u = Unifier::new(1);
    let n = u.fresh_name("n");
    let m = u.fresh_name("m");
    u.bind_rigid(&n, 0);
    u.bind_rigid(&m, 0);
    let t1 = Type::array(Type::bool(), vec![Size::Var(n)], false);
    let t2 = Type::array(Type::bool(), vec![Size::Var(m)], false);
    let t = u.unify_branches(&t1, &t2, 0, sp()).unwrap();
    let d = t.outer_size().and_then(Size::as_var).unwrap().clone();
    assert!(u.is_unknown(&d));
}

#[test]
fn dependent_arrows_unify() {
    // (n: i64) -> [n]i32  ~  (x: i64) -> [x]i32
    let mut u = Unifier::new(1);
    let n = u.fresh_name("n");
    let x = u.fresh_name("x");
    let mk = |p: &VName| {
        Type::Arrow(Box::new(Arrow {
            param_name: Some(p.clone()),
            param: Type::i64(),
            ret: RetType::plain(Type::array(
                Type::Prim(PrimType::I32),
                vec![Size::Var(p.clone())],
                false,
            )),
        }))
    };
    u.unify(&mk(&n), &mk(&x)).unwrap();
}

#[test]
fn existential_into_unlifted_var_is_rejected() {
    // a -> b  ~  i64 -> ?[k].[k]i32 with b unlifted: each application would make a new k,
    // which b cannot stand for (as when `map` is given `filter p`).
    let (mut u, expected, actual, _) = existential_setup(Liftedness::Unlifted);
    assert!(u.unify(&expected, &actual).is_err());
}

#[test]
fn existential_into_size_lifted_var_becomes_unknown() {
    // The same with b size-lifted: b gets an unknown size.
    let (mut u, expected, actual, b) = existential_setup(Liftedness::SizeLifted);
    u.unify(&expected, &actual).unwrap();
    let t = u.zonk(&Type::var(b.clone()));
    let d = t.outer_size().and_then(Size::as_var).unwrap().clone();
    assert!(u.is_unknown(&d));
}

/// `a -> b` and `i64 -> ?[k].[k]i32`, with `b` of the given liftedness.
fn existential_setup(l: Liftedness) -> (Unifier, Type, Type, VName) {
    let mut u = Unifier::new(1);
    let a = u.new_tyvar("a", 0, sp());
    let b = u.new_var("b", 0, Constraint::Free(l), sp());
    let k = u.fresh_name("k");
    let expected = Type::arrow(a, Type::var(b.clone()));
    let actual = Type::Arrow(Box::new(Arrow {
        param_name: None,
        param: Type::i64(),
        ret: RetType {
            ext: vec![k.clone()],
            ty: Type::array(Type::Prim(PrimType::I32), vec![Size::Var(k)], false),
        },
    }));
    (u, expected, actual, b)
}
