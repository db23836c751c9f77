//! Removing the run-time checks of a kernel body that its iteration space already proves.
//!
//! Kernel extraction checks every index before the read (`let ok = u64(i) < u64(n)`, a
//! `check ok …`, then the read at `if ok then i else 0`). Where `i` ranges over a dimension
//! of the segment space or a `for` loop whose extent is `n` itself — `map (\i -> xs[i])
//! (indices xs)`, a loop over a row — the check can never fail: its condition becomes
//! `true`, the check and the guard go, and the read is what it was without checks.

use std::collections::{HashMap, HashSet};

use futhark_ir::{BinOp, CmpOp, Exp, Name, PrimType, PrimValue, SegOp, Size, Stm};

use super::bounds::Bounds;

/// The program without the run-time checks of its kernels (`--unsafe`): what is left are
/// the host's own checks, which cost nothing next to a launch.
pub fn strip_checks(mut prog: futhark_ir::soacs::Program) -> futhark_ir::soacs::Program {
    for k in &mut prog.kernels {
        for kernel in &mut k.program.kernels {
            // The guards of the checked reads go too: their conditions count as true.
            let mut facts = Facts {
                strip: true,
                ..Facts::default()
            };
            let (body, op) = kernel.op.body_and_op_mut();
            body.stms = prune(std::mem::take(&mut body.stms), &mut facts);
            for r in &mut body.results {
                facts.rewrite(r);
            }
            if let Some(op) = op {
                op.body.stms = futhark_ir::without_checks(&op.body.stms);
            }
        }
    }
    prog
}

/// Marks the checks at the top of a body that depend only on `sizes` (the kernel program's
/// size parameters) and constants, up to its first other check, as [`uniform`]: the host
/// makes them once before the launch instead of every point of the kernel (they would fail
/// or pass alike at every point; Mandelbrot's range check ran per element otherwise).
///
/// [`uniform`]: futhark_ir::Check::uniform
pub fn mark_uniform(op: &mut SegOp, sizes: &[Name]) {
    let mut known: HashSet<Name> = sizes.iter().cloned().collect();
    // What the host can evaluate from the sizes (`exec`'s `uniform_checks`): no reads, no
    // math functions.
    fn host_evaluable(e: &Exp) -> bool {
        match e {
            Exp::Const(_) | Exp::Var(_) => true,
            Exp::Bin(_, a, b) | Exp::Cmp(_, a, b) => host_evaluable(a) && host_evaluable(b),
            Exp::Un(_, a) | Exp::Conv(_, a) => host_evaluable(a),
            Exp::Select(c, t, f) => host_evaluable(c) && host_evaluable(t) && host_evaluable(f),
            Exp::Math(..) | Exp::Read(..) => false,
        }
    }
    let size_only = |e: &Exp, known: &HashSet<Name>| {
        let mut ok = host_evaluable(e);
        e.for_each_var(&mut |v| ok &= known.contains(v));
        ok
    };
    let (body, _) = op.body_and_op_mut();
    for s in &mut body.stms {
        match s {
            Stm::Let { name, exp, .. } => {
                if size_only(exp, &known) {
                    known.insert(name.clone());
                }
            }
            Stm::Check(c) => {
                if size_only(&c.cond, &known) && c.args.iter().all(|a| size_only(a, &known)) {
                    c.uniform = true;
                } else {
                    // Checks after this one would be reported before it.
                    return;
                }
            }
            Stm::Mut { .. } | Stm::Assign { .. } | Stm::Write { .. } => {}
            // A check inside runs only where its loop or branch does.
            Stm::For { body, .. } if has_check(body) => return,
            Stm::If {
                then_branch,
                else_branch,
                ..
            } if has_check(then_branch) || has_check(else_branch) => return,
            Stm::For { .. } | Stm::If { .. } => {}
        }
    }
}

fn has_check(stms: &[Stm]) -> bool {
    stms.iter().any(|s| match s {
        Stm::Check(_) => true,
        Stm::For { body, .. } => has_check(body),
        Stm::If {
            then_branch,
            else_branch,
            ..
        } => has_check(then_branch) || has_check(else_branch),
        _ => false,
    })
}

/// Prunes the checks of a segmented operation's body (its operator has none that a space
/// could prove). `sizes` are the kernel program's size parameters, `dimensions` those that
/// are extents of its arrays (never negative).
pub fn prune_checks(op: &mut SegOp, sizes: &[Name], dimensions: &HashSet<Name>) {
    let mut facts = Facts::default();
    for s in sizes {
        facts.bounds.size(s, dimensions.contains(s));
    }
    for (_, size) in &op.space().dims {
        if let Size::Param(p) = size {
            facts.bounds.size(p, dimensions.contains(p));
        }
    }
    for (name, size) in &op.space().dims {
        facts.ranges.insert(name.clone(), size.to_exp());
        // A point of the space exists where the body runs, so each extent is at least 1;
        // but a negative extent (an invalid slice's, say) has the host make the size-only
        // checks of the body instead of the points (`exec`'s `uniform_checks`), so those
        // must stay: only an array's extent, never negative, counts as nonempty here.
        let nonempty = match size {
            Size::Const(c) => *c >= 1,
            Size::Param(p) => dimensions.contains(p),
        };
        facts.bounds.index(name, &size.to_exp(), nonempty);
    }
    let (body, _) = op.body_and_op_mut();
    let stms = std::mem::take(&mut body.stms);
    body.stms = prune(stms, &mut facts);
    for r in &mut body.results {
        facts.rewrite(r);
    }
}

/// What is known at a point of the body.
#[derive(Clone, Default)]
struct Facts {
    /// Variables known to lie in `0..extent`.
    ranges: HashMap<Name, Exp>,
    /// Boolean variables known to be true.
    truths: HashSet<Name>,
    /// Boolean variables bound to a condition (for what a branch on them assumes).
    conditions: HashMap<Name, Exp>,
    /// Symbolic bounds of the integer variables.
    bounds: Bounds,
    /// Every check is dropped and its condition taken as true (`--unsafe`).
    strip: bool,
}

impl Facts {
    fn extent(&self, e: &Exp) -> Option<&Exp> {
        match e {
            Exp::Var(v) => self.ranges.get(v),
            _ => None,
        }
    }

    /// Whether `e` is true whenever it is evaluated.
    fn proves(&self, e: &Exp) -> bool {
        match e {
            Exp::Const(PrimValue::Bool(b)) => *b,
            Exp::Var(v) => self.truths.contains(v),
            Exp::Bin(BinOp::LogAnd, a, b) => self.proves(a) && self.proves(b),
            Exp::Bin(BinOp::LogOr, a, b) => self.proves(a) || self.proves(b),
            // `0 <= x < n` as the translator writes it.
            Exp::Cmp(CmpOp::Lt, a, b)
                if matches!(
                    (a.as_ref(), b.as_ref()),
                    (Exp::Conv(PrimType::U64, x), Exp::Conv(PrimType::U64, n))
                        if self.extent(x).is_some_and(|m| m == n.as_ref())
                ) =>
            {
                true
            }
            _ => self.bounds.proves(e),
        }
    }

    /// Replaces variables known to be true and drops the guards they made redundant.
    fn rewrite(&self, e: &mut Exp) {
        match e {
            Exp::Var(v) if self.truths.contains(v) => *e = Exp::Const(PrimValue::Bool(true)),
            Exp::Const(_) | Exp::Var(_) => {}
            Exp::Bin(_, a, b) | Exp::Cmp(_, a, b) => {
                self.rewrite(a);
                self.rewrite(b);
            }
            Exp::Un(_, a) | Exp::Conv(_, a) => self.rewrite(a),
            Exp::Math(_, args) => args.iter_mut().for_each(|a| self.rewrite(a)),
            Exp::Select(c, t, f) => {
                self.rewrite(c);
                self.rewrite(t);
                self.rewrite(f);
                if matches!(c.as_ref(), Exp::Const(PrimValue::Bool(true))) {
                    *e = std::mem::replace(t.as_mut(), Exp::i64(0));
                }
            }
            Exp::Read(_, i) => self.rewrite(i),
        }
    }
}

fn prune(stms: Vec<Stm>, facts: &mut Facts) -> Vec<Stm> {
    let mut out = Vec::with_capacity(stms.len());
    for s in stms {
        match s {
            Stm::Let { name, ty, mut exp } => {
                facts.rewrite(&mut exp);
                if ty == PrimType::Bool && facts.proves(&exp) {
                    facts.truths.insert(name);
                    continue;
                }
                if ty == PrimType::Bool {
                    facts.conditions.insert(name.clone(), exp.clone());
                }
                facts.bounds.bind(&name, ty, &exp);
                // A copy of a ranged index has its range.
                if let Some(r) = facts.extent(&exp).cloned() {
                    facts.ranges.insert(name.clone(), r);
                }
                out.push(Stm::Let { name, ty, exp });
            }
            Stm::Mut { name, ty, mut init } => {
                facts.rewrite(&mut init);
                // Assigned later: no fact about it holds throughout.
                facts.ranges.remove(&name);
                facts.truths.remove(&name);
                facts.conditions.remove(&name);
                facts.bounds.forget(&name);
                out.push(Stm::Mut { name, ty, init });
            }
            Stm::Assign { name, mut exp } => {
                facts.rewrite(&mut exp);
                out.push(Stm::Assign { name, exp });
            }
            Stm::For {
                var,
                mut bound,
                body,
            } => {
                facts.rewrite(&mut bound);
                let mut inner = facts.clone();
                inner.ranges.insert(var.clone(), bound.clone());
                inner.bounds.index(&var, &bound, true);
                let body = prune(body, &mut inner);
                out.push(Stm::For { var, bound, body });
            }
            Stm::If {
                mut cond,
                then_branch,
                else_branch,
            } => {
                facts.rewrite(&mut cond);
                let assumed = match &cond {
                    Exp::Var(v) => facts.conditions.get(v).cloned(),
                    _ => None,
                }
                .unwrap_or_else(|| cond.clone());
                let branch = |stms: Vec<Stm>, holds: bool| {
                    let mut inner = facts.clone();
                    inner.bounds.assume(&assumed, holds);
                    prune(stms, &mut inner)
                };
                let then_branch = branch(then_branch, true);
                let else_branch = branch(else_branch, false);
                out.push(Stm::If {
                    cond,
                    then_branch,
                    else_branch,
                });
            }
            Stm::Write {
                array,
                mut index,
                mut value,
            } => {
                facts.rewrite(&mut index);
                facts.rewrite(&mut value);
                out.push(Stm::Write {
                    array,
                    index,
                    value,
                });
            }
            Stm::Check(mut c) => {
                if facts.strip {
                    // Conditions are bound just before their check (see the translator).
                    if let Exp::Var(v) = &c.cond {
                        facts.truths.insert(v.clone());
                        if let Some(pos) = out
                            .iter()
                            .rposition(|s| matches!(s, Stm::Let { name, .. } if name == v))
                        {
                            out.remove(pos);
                        }
                    }
                    continue;
                }
                facts.rewrite(&mut c.cond);
                if facts.proves(&c.cond) {
                    continue;
                }
                c.args.iter_mut().for_each(|a| facts.rewrite(a));
                out.push(Stm::Check(c));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use futhark_ir::{Body, SegMap, SegSpace, Size};

    fn checked_read(i: &str, n: Exp) -> Vec<Stm> {
        vec![
            Stm::let_(
                "ok",
                PrimType::Bool,
                Exp::cmp(
                    CmpOp::Lt,
                    Exp::conv(PrimType::U64, Exp::var(i)),
                    Exp::conv(PrimType::U64, n),
                ),
            ),
            Stm::Check(futhark_ir::Check {
                cond: Exp::var("ok"),
                msg: "Index [{}] out of bounds".into(),
                args: vec![Exp::var(i)],
                loc: None,
                uniform: false,
            }),
            Stm::let_(
                "x",
                PrimType::I32,
                Exp::read(
                    "xs",
                    Exp::Select(
                        Box::new(Exp::var("ok")),
                        Box::new(Exp::var(i)),
                        Box::new(Exp::i64(0)),
                    ),
                ),
            ),
        ]
    }

    fn map(stms: Vec<Stm>, extent: &str) -> SegOp {
        SegOp::Map(SegMap {
            space: SegSpace::flat("i", Size::param(extent)),
            body: Body::new(stms, vec![Exp::var("x")]),
            outputs: vec!["out".into()],
        })
    }

    #[test]
    fn an_index_over_its_own_extent_is_not_checked() {
        let mut op = map(checked_read("i", Exp::var("n")), "n");
        prune_checks(&mut op, &[], &HashSet::new());
        assert_eq!(
            op.body().stms,
            vec![Stm::let_(
                "x",
                PrimType::I32,
                Exp::read("xs", Exp::var("i"))
            )]
        );
    }

    #[test]
    fn an_index_over_another_extent_keeps_its_check() {
        let stms = checked_read("i", Exp::var("m"));
        let mut op = map(stms.clone(), "n");
        prune_checks(&mut op, &[], &HashSet::new());
        assert_eq!(op.body().stms, stms);
    }

    #[test]
    fn leading_size_only_checks_are_left_to_the_host() {
        let size_check = |n: &str| {
            Stm::Check(futhark_ir::Check {
                cond: Exp::cmp(CmpOp::Le, Exp::i64(0), Exp::var(n)),
                msg: "Range {}..<{} is invalid.".into(),
                args: vec![Exp::i64(0), Exp::var(n)],
                loc: None,
                uniform: false,
            })
        };
        let mut stms = vec![size_check("n")];
        stms.extend(checked_read("i", Exp::var("m")));
        stms.push(size_check("m"));
        let mut op = map(stms, "n");
        mark_uniform(&mut op, &["n".to_string(), "m".to_string()]);
        let uniform: Vec<bool> = op
            .body()
            .stms
            .iter()
            .filter_map(|s| match s {
                Stm::Check(c) => Some(c.uniform),
                _ => None,
            })
            .collect();
        // The last one comes after a check of the point's own index: it stays in the kernel,
        // so a failure of the index is reported first, as the interpreter reports it.
        assert_eq!(uniform, vec![true, false, false]);
    }

    #[test]
    fn a_loop_counter_is_bounded_by_its_loop() {
        let stms = vec![Stm::For {
            var: "j".into(),
            bound: Exp::var("m"),
            body: checked_read("j", Exp::var("m")),
        }];
        let mut op = map(stms, "n");
        prune_checks(&mut op, &[], &HashSet::new());
        let Stm::For { body, .. } = &op.body().stms[0] else {
            panic!("not a loop")
        };
        assert_eq!(
            body,
            &vec![Stm::let_(
                "x",
                PrimType::I32,
                Exp::read("xs", Exp::var("j"))
            )]
        );
    }

    fn sub(a: Exp, b: Exp) -> Exp {
        Exp::bin(BinOp::Sub, a, b)
    }

    fn add(a: Exp, b: Exp) -> Exp {
        Exp::bin(BinOp::Add, a, b)
    }

    /// Whether the read of `checked_read(index)` keeps its check after pruning `stms`
    /// followed by the read, in a map over `0..n` (`n` an array's extent).
    fn keeps_check(before: Vec<Stm>, index: Exp) -> bool {
        let mut stms = before;
        stms.push(Stm::let_("idx", PrimType::I64, index));
        stms.extend(checked_read("idx", Exp::var("n")));
        let mut op = map(stms, "n");
        let dims = HashSet::from(["n".to_string()]);
        prune_checks(&mut op, &["n".to_string(), "m".to_string()], &dims);
        has_check(&op.body().stms)
    }

    #[test]
    fn a_reversed_index_is_in_bounds_and_one_past_it_is_not() {
        // `n - i - 1` for `i < n` (a tridiagonal solve's backward sweep).
        let rev = |k| sub(sub(Exp::var("n"), Exp::var("i")), Exp::i64(k));
        assert!(!keeps_check(vec![], rev(1)));
        assert!(keeps_check(vec![], rev(0)));
        // `n - 1` needs `n ≥ 1`, which a point of the space shows.
        assert!(!keeps_check(vec![], sub(Exp::var("n"), Exp::i64(1))));
        assert!(keeps_check(vec![], Exp::var("n")));
    }

    #[test]
    fn a_clamped_index_is_in_bounds() {
        let min = |a, b| Exp::bin(BinOp::Min, a, b);
        let max = |a, b| Exp::bin(BinOp::Max, a, b);
        let up = add(Exp::var("i"), Exp::i64(1));
        let last = sub(Exp::var("n"), Exp::i64(1));
        assert!(!keeps_check(vec![], min(up.clone(), last.clone())));
        assert!(!keeps_check(
            vec![],
            max(sub(Exp::var("i"), Exp::i64(1)), Exp::i64(0))
        ));
        // Clamped at one side only.
        assert!(keeps_check(vec![], min(up.clone(), Exp::var("n"))));
        assert!(keeps_check(vec![], max(up, Exp::i64(0))));
        // `m` is no extent of an array: it may be anything.
        assert!(keeps_check(vec![], min(Exp::var("i"), Exp::var("m"))));
    }

    #[test]
    fn a_branch_on_the_index_bounds_it() {
        // `if 0 < i then xs[i - 1]`.
        let guarded = |cond: Exp, k| {
            let mut stms = vec![Stm::let_(
                "idx",
                PrimType::I64,
                sub(Exp::var("i"), Exp::i64(k)),
            )];
            stms.extend(checked_read("idx", Exp::var("n")));
            let body = vec![
                Stm::let_("c", PrimType::Bool, cond),
                Stm::If {
                    cond: Exp::var("c"),
                    then_branch: stms,
                    else_branch: vec![],
                },
            ];
            let mut op = map(body, "n");
            prune_checks(
                &mut op,
                &["n".to_string()],
                &HashSet::from(["n".to_string()]),
            );
            has_check(&op.body().stms)
        };
        let gt0 = Exp::cmp(CmpOp::Lt, Exp::i64(0), Exp::var("i"));
        assert!(!guarded(gt0.clone(), 1));
        // `i = 1` reads `xs[-1]`.
        assert!(guarded(gt0, 2));
    }

    #[test]
    fn a_loop_bound_below_the_extent_bounds_an_offset_counter() {
        // `for j < n - 1 do xs[j + 1]`, and `for j < n do xs[j + 1]`.
        let looped = |bound: Exp| {
            let mut stms = vec![Stm::let_(
                "idx",
                PrimType::I64,
                add(Exp::var("j"), Exp::i64(1)),
            )];
            stms.extend(checked_read("idx", Exp::var("n")));
            let mut op = map(
                vec![Stm::For {
                    var: "j".into(),
                    bound,
                    body: stms,
                }],
                "n",
            );
            prune_checks(
                &mut op,
                &["n".to_string()],
                &HashSet::from(["n".to_string()]),
            );
            has_check(&op.body().stms)
        };
        assert!(!looped(sub(Exp::var("n"), Exp::i64(1))));
        assert!(looped(Exp::var("n")));
    }

    #[test]
    fn a_mutable_variable_proves_nothing() {
        let stms = vec![
            Stm::Mut {
                name: "v".into(),
                ty: PrimType::I64,
                init: Exp::i64(0),
            },
            Stm::Assign {
                name: "v".into(),
                exp: Exp::var("n"),
            },
        ];
        assert!(keeps_check(stms, Exp::var("v")));
    }
}
