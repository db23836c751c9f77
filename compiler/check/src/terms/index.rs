//! Indexing and slicing: `a[i]`, `a[i:j]`, `a[:n]`, `a[::-1]`, including the sizes of slices
//! that are known statically.

use futhark_syntax::Span;
use futhark_syntax::ast::{DimIndex, Exp, ExpKind, LitKind};

use crate::checker::Checker;
use crate::types::{PrimType, Size, Type};
use crate::unify::{Constraint, UnknownSource};

fn is_neg_one(e: &Exp) -> bool {
    match &e.kind {
        ExpKind::Parens(x) => is_neg_one(x),
        ExpKind::Negate(x) => {
            matches!(&x.kind, ExpKind::Literal(l) if matches!(l.kind, LitKind::Int { value: 1, .. }))
        }
        ExpKind::Literal(l) => matches!(
            l.kind,
            LitKind::Int {
                value: 1,
                negative: true,
                ..
            }
        ),
        _ => false,
    }
}

impl Checker<'_> {
    pub fn check_index(&mut self, t: &Type, idxs: &[DimIndex], span: Span, _arr: &Exp) -> Type {
        self.check_index_steps(t, idxs, span)
    }

    /// The type of indexing a value of type `t` with the given indices.
    pub fn check_index_steps(&mut self, t: &Type, idxs: &[DimIndex], span: Span) -> Type {
        let r = self.uni.resolve(t);
        let arr = match &r {
            Type::Error => {
                self.check_index_exps(idxs);
                return Type::Error;
            }
            Type::Array(a) if a.shape.len() >= idxs.len() => r.clone(),
            Type::Var(v) if self.uni.is_free_var(&v.name) => {
                let elem = self.new_tyvar("t", span);
                let shape = (0..idxs.len())
                    .map(|_| Size::Var(self.new_sizevar("n", span)))
                    .collect();
                let at = Type::array(elem, shape, false);
                if let Err(e) = self.uni.unify(&r, &at) {
                    self.report_unify(
                        span,
                        "Cannot index a value that is not an array.",
                        &at,
                        &r,
                        e,
                    );
                    self.check_index_exps(idxs);
                    return Type::Error;
                }
                at
            }
            _ => {
                let z = self.uni.zonk(&r);
                self.error(
                    "type-mismatch",
                    span,
                    format!(
                        "Cannot index value of type \"{z}\" with {} indices: it has {} dimension{}.",
                        idxs.len(),
                        z.rank(),
                        if z.rank() == 1 { "" } else { "s" }
                    ),
                );
                self.check_index_exps(idxs);
                return Type::Error;
            }
        };
        let Type::Array(a) = &arr else {
            return Type::Error;
        };
        let mut new_shape = Vec::new();
        for (d, idx) in a.shape.iter().zip(idxs) {
            match idx {
                DimIndex::Fix(e) => {
                    let it = self.check_exp(e);
                    if let Err(err) = self.uni.must_be_one_of(&it, &PrimType::SIGNED) {
                        self.error(
                            "type-mismatch",
                            e.span,
                            format!("Index must be a signed integer: {}", err.message()),
                        );
                    }
                }
                DimIndex::Slice {
                    start,
                    end,
                    stride,
                    span: _sp,
                } => {
                    for x in [start, end, stride].into_iter().flatten() {
                        let xt = self.check_exp(x);
                        self.expect(
                            x.span,
                            "Slice bounds must have type i64.",
                            &Type::i64(),
                            &xt,
                        );
                    }
                    let size = match (start, end, stride) {
                        (None, None, None) => Some(self.uni.zonk_size(d)),
                        (None, None, Some(s)) if is_neg_one(s) => Some(self.uni.zonk_size(d)),
                        (None, Some(j), None) => self.exp_to_size(j),
                        (Some(i), Some(j), None) => {
                            match (self.exp_to_size(j), self.exp_to_size(i)) {
                                (Some(j), Some(i)) => {
                                    if i == Size::Lit(0) {
                                        Some(j)
                                    } else {
                                        self.size_binop("-", j, i)
                                    }
                                }
                                _ => None,
                            }
                        }
                        (Some(i), None, None) => match self.exp_to_size(i) {
                            Some(Size::Lit(0)) => Some(self.uni.zonk_size(d)),
                            Some(i) => self.size_binop("-", self.uni.zonk_size(d), i),
                            None => None,
                        },
                        _ => None,
                    };
                    let size = match size {
                        Some(s) => s,
                        None => Size::Var(self.new_unknown("d", UnknownSource::Slice, span)),
                    };
                    new_shape.push(size);
                }
            }
        }
        new_shape.extend(a.shape[idxs.len()..].iter().cloned());
        let _ = Constraint::SizeFree;
        Type::array(a.elem.clone(), new_shape, false)
    }

    pub(crate) fn check_index_exps(&mut self, idxs: &[DimIndex]) {
        for idx in idxs {
            match idx {
                DimIndex::Fix(e) => {
                    self.check_exp(e);
                }
                DimIndex::Slice {
                    start, end, stride, ..
                } => {
                    for x in [start, end, stride].into_iter().flatten() {
                        self.check_exp(x);
                    }
                }
            }
        }
    }
}
