//! Unifying the types of branches (`if`, `match`): sizes that differ between the branches
//! become fresh unknown sizes instead of errors.

use futhark_syntax::Span;

use super::{UResult, Unifier, UnknownSource};
use crate::types::{Size, Type, TypeArg, TypeVar};

impl Unifier {
    /// Unifies the types of two branches, turning sizes that differ between them into fresh
    /// unknown sizes instead of failing. Returns the common type.
    pub fn unify_branches(
        &mut self,
        t1: &Type,
        t2: &Type,
        level: u32,
        span: Span,
    ) -> UResult<Type> {
        let t1z = self.zonk(t1);
        let t2z = self.zonk(t2);
        self.merge_memo.clear();
        let merged = self.merge_sizes(&t1z, &t2z, level, span);
        self.ignore_sizes = true;
        let r = self.unify(&t1z, &t2z);
        self.ignore_sizes = false;
        r?;
        Ok(self.zonk(&merged))
    }

    /// Walks two types in parallel; where both have rigid, different sizes, uses a fresh
    /// unknown size. Everything else comes from `t1`.
    pub(crate) fn merge_sizes(&mut self, t1: &Type, t2: &Type, level: u32, span: Span) -> Type {
        match (t1, t2) {
            (Type::Array(a1), Type::Array(a2)) if a1.shape.len() == a2.shape.len() => {
                let shape = a1
                    .shape
                    .iter()
                    .zip(&a2.shape)
                    .map(|(d1, d2)| self.merge_dim(d1, d2, level, span))
                    .collect();
                let elem = self.merge_sizes(&a1.elem, &a2.elem, level, span);
                Type::array(elem, shape, a1.unique && a2.unique)
            }
            (Type::Array(a1), Type::Array(a2)) => {
                // Different ranks: merge the common outer dimensions when one side's element
                // may still be an array.
                let n = a1.shape.len().min(a2.shape.len());
                let shape: Vec<Size> = a1.shape[..n]
                    .iter()
                    .zip(&a2.shape[..n])
                    .map(|(d1, d2)| self.merge_dim(d1, d2, level, span))
                    .collect();
                let r1 = t1.strip_dims(n).unwrap_or(Type::Error);
                let r2 = t2.strip_dims(n).unwrap_or(Type::Error);
                let elem = self.merge_sizes(&r1, &r2, level, span);
                Type::array(elem, shape, false)
            }
            (Type::Record(f1), Type::Record(f2))
                if f1.len() == f2.len() && f1.keys().eq(f2.keys()) =>
            {
                Type::Record(
                    f1.iter()
                        .map(|(k, x)| (k.clone(), self.merge_sizes(x, &f2[k], level, span)))
                        .collect(),
                )
            }
            (Type::Sum(c1), Type::Sum(c2)) if c1.keys().eq(c2.keys()) => Type::Sum(
                c1.iter()
                    .map(|(k, xs)| {
                        let ys = &c2[k];
                        if xs.len() != ys.len() {
                            return (k.clone(), xs.clone());
                        }
                        (
                            k.clone(),
                            xs.iter()
                                .zip(ys)
                                .map(|(x, y)| self.merge_sizes(x, y, level, span))
                                .collect(),
                        )
                    })
                    .collect(),
            ),
            (Type::Var(v1), Type::Var(v2))
                if v1.name == v2.name && v1.args.len() == v2.args.len() =>
            {
                Type::Var(TypeVar {
                    name: v1.name.clone(),
                    unique: v1.unique,
                    args: v1
                        .args
                        .iter()
                        .zip(&v2.args)
                        .map(|(a, b)| match (a, b) {
                            (TypeArg::Size(d1), TypeArg::Size(d2)) => {
                                TypeArg::Size(self.merge_dim(d1, d2, level, span))
                            }
                            (TypeArg::Type(x), TypeArg::Type(y)) => {
                                TypeArg::Type(self.merge_sizes(x, y, level, span))
                            }
                            (a, _) => a.clone(),
                        })
                        .collect(),
                })
            }
            (Type::Var(v1), _) if self.is_free_var(&v1.name) => t2.clone(),
            _ => t1.clone(),
        }
    }

    pub(crate) fn merge_dim(&mut self, d1: &Size, d2: &Size, level: u32, span: Span) -> Size {
        let d1 = self.zonk_size(d1);
        let d2 = self.zonk_size(d2);
        if d1 == d2 {
            return d1;
        }
        let flexible = |u: &Unifier, d: &Size| matches!(d, Size::Var(v) if u.is_free_var(v));
        if (flexible(self, &d1) || flexible(self, &d2)) && self.unify_size(&d1, &d2).is_ok() {
            return self.zonk_size(&d1);
        }
        // The same pair of sizes gets the same unknown (`([3], [3])` vs `([2], [2])`).
        if let Some((_, _, u)) = self
            .merge_memo
            .iter()
            .find(|(a, b, _)| *a == d1 && *b == d2)
        {
            return u.clone();
        }
        let u = Size::Var(self.new_unknown("d", level, UnknownSource::Cond, span));
        self.merge_memo.push((d1, d2, u.clone()));
        u
    }
}
