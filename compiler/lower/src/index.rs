//! Indexing, slicing, in-place updates, ranges and size coercions.
//!
//! Index expressions are lowered once and applied to every leaf of a value (an array of
//! records is a record of arrays). Slice lengths are computed as `i64` atoms so the result
//! type is exact. A coercion (`e :> [n]t`, or two arrays that the checker knows have the
//! same size but whose IR sizes differ syntactically) becomes a `reshape`, which checks the
//! size at run time.

use futhark_ir::soacs::{BinOp, CmpOp, DimIndex, Exp as IExp, Pat, SubExp, Type, UnOp};
use futhark_ir::types::PrimType;
use futhark_syntax::Span;
use futhark_syntax::ast::{
    self, DimIndex as AstDimIndex, RangeKind, SizeExp, TypeExp, TypeExpKind, UpdateStep,
};

use crate::error::{LResult, LowerError};
use crate::exp::atom;
use crate::state::Lowerer;
use crate::value::{Ctx, Value};

impl<'a> Lowerer<'a> {
    /// Lowers index expressions against the dimensions `dims` of the indexed value.
    fn dim_indices(
        &mut self,
        idxs: &'a [AstDimIndex],
        dims: &[SubExp],
        span: Span,
        ctx: &Ctx<'a>,
    ) -> LResult<Vec<DimIndex>> {
        let mut out = Vec::new();
        for (k, i) in idxs.iter().enumerate() {
            let n = dims
                .get(k)
                .cloned()
                .ok_or_else(|| LowerError::internal(Some(span), "too many indices"))?;
            match i {
                AstDimIndex::Fix(e) => {
                    let x = atom(&self.exp(e, ctx)?, e.span)?;
                    out.push(DimIndex::Fix(self.int_to_i64(x)));
                }
                AstDimIndex::Slice {
                    start, end, stride, ..
                } => {
                    let get =
                        |this: &mut Self, e: &'a Option<ast::Exp>| -> LResult<Option<SubExp>> {
                            match e {
                                Some(e) => {
                                    let x = atom(&this.exp(e, ctx)?, e.span)?;
                                    Ok(Some(this.int_to_i64(x)))
                                }
                                None => Ok(None),
                            }
                        };
                    let start = get(self, start)?;
                    let end = get(self, end)?;
                    let stride = get(self, stride)?.unwrap_or(SubExp::i64(1));
                    out.push(self.slice(start, end, stride, n, span)?);
                }
            }
        }
        Ok(out)
    }

    fn slice(
        &mut self,
        start: Option<SubExp>,
        end: Option<SubExp>,
        stride: SubExp,
        n: SubExp,
        span: Span,
    ) -> LResult<DimIndex> {
        let i64t = Type::Prim(PrimType::I64);
        match stride.as_i64() {
            Some(1) => {
                let s = start.unwrap_or(SubExp::i64(0));
                let e = end.unwrap_or(n);
                let len = self.sub64(e, s.clone());
                Ok(DimIndex::Slice {
                    start: s,
                    len,
                    stride,
                })
            }
            Some(k) if k > 0 => {
                let s = start.unwrap_or(SubExp::i64(0));
                let e = end.unwrap_or(n);
                let d = self.sub64(e, s.clone());
                let d = self.add64(d, SubExp::i64(k - 1));
                let len = self.bind("n", i64t, IExp::BinOp(BinOp::SQuot, d, stride.clone()));
                Ok(DimIndex::Slice {
                    start: s,
                    len,
                    stride,
                })
            }
            Some(k) if k < 0 => {
                // Both bounds default (`xs[::-1]`): the distance is `n` itself, so a
                // reversal keeps the size of what it reverses.
                let whole = start.is_none() && end.is_none();
                let s = match start {
                    Some(s) => s,
                    None => self.sub64(n.clone(), SubExp::i64(1)),
                };
                let d = if whole {
                    n
                } else {
                    let e = end.unwrap_or(SubExp::i64(-1));
                    self.sub64(s.clone(), e)
                };
                let len = if k == -1 {
                    d
                } else {
                    let d = self.add64(d, SubExp::i64(-k - 1));
                    self.bind("n", i64t, IExp::BinOp(BinOp::SQuot, d, SubExp::i64(-k)))
                };
                Ok(DimIndex::Slice {
                    start: s,
                    len,
                    stride,
                })
            }
            Some(_) => Err(LowerError::unsupported(Some(span), "a slice with stride 0")),
            None => {
                let (Some(s), Some(e)) = (start, end) else {
                    return Err(LowerError::unsupported(
                        Some(span),
                        "a slice with a computed stride and default bounds",
                    ));
                };
                // A zero stride is out of bounds (as the interpreter says), and must not
                // reach the division below.
                let nonzero = self.bind(
                    "stride_ok",
                    Type::Prim(PrimType::Bool),
                    IExp::CmpOp(CmpOp::Eq, stride.clone(), SubExp::i64(0)),
                );
                let nonzero = self.bind(
                    "stride_ok",
                    Type::Prim(PrimType::Bool),
                    IExp::UnOp(UnOp::Not, nonzero),
                );
                self.located(span, |this| {
                    this.emit(
                        Pat::default(),
                        IExp::Assert {
                            cond: nonzero,
                            msg: "Index [{}:{}:{}] out of bounds for array of shape [{}].".into(),
                            args: vec![s.clone(), e.clone(), stride.clone(), n.clone()],
                        },
                    )
                });
                // len = (e - s + stride - signum(stride)) // stride
                let sg = self.bind(
                    "sg",
                    i64t.clone(),
                    IExp::UnOp(UnOp::SSignum, stride.clone()),
                );
                let d = self.sub64(e, s.clone());
                let d = self.add64(d, stride.clone());
                let d = self.sub64(d, sg);
                let len = self.bind("n", i64t, IExp::BinOp(BinOp::SQuot, d, stride.clone()));
                Ok(DimIndex::Slice {
                    start: s,
                    len,
                    stride,
                })
            }
        }
    }

    /// `v[idxs]` for written indices.
    pub fn index_value(
        &mut self,
        v: Value<'a>,
        idxs: &'a [AstDimIndex],
        span: Span,
        ctx: &Ctx<'a>,
    ) -> LResult<Value<'a>> {
        let dims = v
            .leaves()
            .first()
            .map(|(_, t)| t.shape().to_vec())
            .ok_or_else(|| LowerError::unsupported(Some(span), "indexing an array without data"))?;
        let idx = self.dim_indices(idxs, &dims, span, ctx)?;
        self.located(span, |this| this.index_with(&v, &idx))
    }

    /// `v[i, j, …]` for fixed `i64` indices.
    pub fn index_leaves(&mut self, v: &Value<'a>, idx: &[SubExp]) -> LResult<Value<'a>> {
        let idx: Vec<DimIndex> = idx.iter().cloned().map(DimIndex::Fix).collect();
        self.index_with(v, &idx)
    }

    pub fn index_with(&mut self, v: &Value<'a>, idx: &[DimIndex]) -> LResult<Value<'a>> {
        v.map_leaves(&mut |s, t| {
            let Some(arr) = s.as_var() else {
                return Err(LowerError::internal(None, "indexing a constant"));
            };
            let rt = indexed_type(t, idx);
            let r = self.bind("x", rt.clone(), IExp::Index(arr.clone(), idx.to_vec()));
            Ok((r, rt))
        })
    }

    /// `target with path = value` (functional for record fields, in place for arrays).
    pub fn update_value(
        &mut self,
        target: Value<'a>,
        path: &'a [UpdateStep],
        new: Value<'a>,
        ctx: &Ctx<'a>,
    ) -> LResult<Value<'a>> {
        let Some((step, rest)) = path.split_first() else {
            return Ok(new);
        };
        match step {
            UpdateStep::Field(f) => {
                let Value::Record(fs) = target else {
                    return Err(LowerError::internal(
                        Some(f.span),
                        "field update of a non-record",
                    ));
                };
                let mut out = Vec::new();
                for (n, fv) in fs {
                    if n == f.name {
                        out.push((n, self.update_value(fv, rest, new.clone(), ctx)?));
                    } else {
                        out.push((n, fv));
                    }
                }
                Ok(Value::Record(out))
            }
            UpdateStep::Index(idxs, span) => {
                let dims = target
                    .leaves()
                    .first()
                    .map(|(_, t)| t.shape().to_vec())
                    .ok_or_else(|| {
                        LowerError::unsupported(Some(*span), "updating an array without data")
                    })?;
                let idx = self.dim_indices(idxs, &dims, *span, ctx)?;
                let new = if rest.is_empty() {
                    new
                } else {
                    let cur = self.index_with(&target, &idx)?;
                    self.update_value(cur, rest, new, ctx)?
                };
                let news = new.leaves();
                let mut news = news.into_iter();
                let mut err = None;
                let r = target.map_leaves(&mut |s, t| {
                    let Some((nv, nt)) = news.next() else {
                        return Err(LowerError::internal(Some(*span), "update value shape"));
                    };
                    let Some(arr) = s.as_var() else {
                        return Err(LowerError::internal(Some(*span), "updating a constant"));
                    };
                    let want = indexed_type(t, &idx);
                    let nv = match self.coerce_atom(nv, &nt, &want) {
                        Ok(v) => v,
                        Err(e) => {
                            err = Some(e.clone());
                            return Err(e);
                        }
                    };
                    let upd = IExp::Update(arr.clone(), idx.clone(), nv);
                    let r = self.bind("upd", t.clone(), upd);
                    Ok((r, t.clone()))
                });
                match err {
                    Some(e) => Err(e),
                    None => r,
                }
            }
        }
    }

    /// An atom of type `have` as one of type `want` (same element type and rank): the
    /// same atom when the types agree, else a checked reshape.
    pub fn coerce_atom(&mut self, s: SubExp, have: &Type, want: &Type) -> LResult<SubExp> {
        if have == want {
            return Ok(s);
        }
        if have.elem() != want.elem() || have.rank() != want.rank() || !have.is_array() {
            return Err(LowerError::internal(
                None,
                format!("cannot use a value of type {have} as {want}"),
            ));
        }
        let Some(arr) = s.as_var() else {
            return Err(LowerError::internal(None, "reshaping a constant"));
        };
        Ok(self.bind(
            "coerce",
            want.clone(),
            IExp::Reshape {
                shape: want.shape().to_vec(),
                arr: arr.clone(),
            },
        ))
    }

    /// Gives every leaf the outer size `n` (coercing those that differ).
    pub fn with_outer(&mut self, v: &Value<'a>, n: &SubExp) -> LResult<Value<'a>> {
        v.map_leaves(&mut |s, t| {
            if t.outer() == Some(n) {
                return Ok((s.clone(), t.clone()));
            }
            let mut shape = t.shape().to_vec();
            if let Some(first) = shape.first_mut() {
                *first = n.clone();
            }
            let want = t.with_shape(shape);
            let r = self.coerce_atom(s.clone(), t, &want)?;
            Ok((r, want))
        })
    }

    /// `e :> t`: the outer dimensions written in `t` imposed on every leaf.
    pub fn coerce_to_typeexp(
        &mut self,
        v: Value<'a>,
        te: &'a TypeExp,
        ctx: &Ctx<'a>,
    ) -> LResult<Value<'a>> {
        let mut dims: Vec<Option<SubExp>> = Vec::new();
        let mut t = te;
        loop {
            match &t.kind {
                TypeExpKind::Array { size, elem } => {
                    dims.push(match size {
                        SizeExp::Exp(e) => {
                            let x = atom(&self.exp(e, ctx)?, e.span)?;
                            Some(self.int_to_i64(x))
                        }
                        SizeExp::Anonymous(_) => None,
                    });
                    t = elem;
                }
                TypeExpKind::Parens(inner) | TypeExpKind::Unique(inner) => t = inner,
                _ => break,
            }
        }
        if dims.iter().all(Option::is_none) {
            return Ok(v);
        }
        v.map_leaves(&mut |s, t| {
            let mut shape = t.shape().to_vec();
            for (d, want) in shape.iter_mut().zip(&dims) {
                if let Some(w) = want {
                    *d = w.clone();
                }
            }
            let want = t.with_shape(shape);
            self.check_shape(t, &want);
            let r = self.coerce_atom(s.clone(), t, &want)?;
            Ok((r, want))
        })
    }

    /// Fails as the interpreter does when a value of type `have` does not have the shape
    /// `want` (a size coercion: every dimension must be equal, not only the element count).
    fn check_shape(&mut self, have: &Type, want: &Type) {
        let mut ok: Option<SubExp> = None;
        for (h, w) in have.shape().iter().zip(want.shape()) {
            if h == w {
                continue;
            }
            let eq = self.bind(
                "shape_ok",
                Type::Prim(PrimType::Bool),
                IExp::CmpOp(CmpOp::Eq, h.clone(), w.clone()),
            );
            ok = Some(match ok {
                None => eq,
                Some(o) => self.bind(
                    "shape_ok",
                    Type::Prim(PrimType::Bool),
                    IExp::BinOp(BinOp::LogAnd, o, eq),
                ),
            });
        }
        let Some(cond) = ok else { return };
        let holes = vec!["{}"; have.rank()].join(", ");
        let dims: String = want.shape().iter().map(|_| "[{}]").collect();
        let mut args = have.shape().to_vec();
        args.extend(want.shape().iter().cloned());
        let msg = format!(
            "Value of (core language) shape ({holes}) cannot match shape of type \"{dims}{}\".",
            have.elem()
        );
        self.emit(Pat::default(), IExp::Assert { cond, msg, args });
    }

    /// `a..<b`, `a..b...c` and friends as an `iota`.
    pub fn range(
        &mut self,
        start: &'a ast::Exp,
        second: Option<&'a ast::Exp>,
        end: &'a ast::Exp,
        kind: RangeKind,
        ctx: &Ctx<'a>,
    ) -> LResult<Value<'a>> {
        let a = atom(&self.exp(start, ctx)?, start.span)?;
        let t = self.prim_of(&a);
        let second = match second {
            Some(s) => Some(atom(&self.exp(s, ctx)?, s.span)?),
            None => None,
        };
        let b = atom(&self.exp(end, ctx)?, end.span)?;
        // Work in i64 for the count.
        let a64 = self.int_to_i64(a.clone());
        let b64 = self.int_to_i64(b.clone());
        let step64 = match &second {
            Some(s) => {
                let s64 = self.int_to_i64(s.clone());
                self.sub64(s64, a64.clone())
            }
            None => SubExp::i64(if kind == RangeKind::DownToExclusive {
                -1
            } else {
                1
            }),
        };
        let whole = futhark_syntax::Span::new(start.span.file, start.span.start, end.span.end);
        self.located(whole, |this| {
            this.check_range(&a, second.as_ref(), &b, (&a64, &step64, &b64), kind)
        });
        let i64t = Type::Prim(PrimType::I64);
        let n = match (kind, step64.as_i64()) {
            (RangeKind::UpToExclusive, Some(1)) => self.sub64(b64, a64),
            (RangeKind::Inclusive, Some(1)) => {
                let d = self.sub64(b64, a64);
                self.add64(d, SubExp::i64(1))
            }
            (RangeKind::DownToExclusive, Some(-1)) => self.sub64(a64, b64),
            (RangeKind::Inclusive, _) => {
                // (b - a) / step + 1, for either direction.
                let d = self.sub64(b64, a64);
                let q = self.bind("n", i64t, IExp::BinOp(BinOp::SQuot, d, step64.clone()));
                self.add64(q, SubExp::i64(1))
            }
            _ => {
                // Exclusive with a step: ceil((b - a) / step) = (b - a + step - sgn) / step.
                let sg = self.bind(
                    "sg",
                    i64t.clone(),
                    IExp::UnOp(UnOp::SSignum, step64.clone()),
                );
                let d = self.sub64(b64, a64);
                let d = self.add64(d, step64.clone());
                let d = self.sub64(d, sg);
                self.bind("n", i64t, IExp::BinOp(BinOp::SQuot, d, step64.clone()))
            }
        };
        let stride = self.i64_to_int(step64, t);
        let ty = Type::Array(t, vec![n.clone()]);
        let r = self.bind(
            "range",
            ty.clone(),
            IExp::Iota {
                n,
                start: a,
                stride,
                ty: t,
            },
        );
        Ok(Value::Atom(r, ty))
    }
}

impl<'a> Lowerer<'a> {
    /// Fails as the interpreter does (`Range 5...1 is invalid.`) when a range is empty the
    /// wrong way round or its step is zero: `a...z` and `a..<z` need `a <= z`, `a..>z`
    /// needs `a >= z`; with a second element, the step must point from `a` towards `z`
    /// (`a...z` with `a == z` is fine with any nonzero step).
    fn check_range(
        &mut self,
        a: &SubExp,
        second: Option<&SubExp>,
        z: &SubExp,
        (a64, step64, z64): (&SubExp, &SubExp, &SubExp),
        kind: RangeKind,
    ) {
        let bool_t = Type::Prim(PrimType::Bool);
        let cmp = |this: &mut Self, op: CmpOp, x: &SubExp, y: &SubExp| {
            this.bind(
                "range_ok",
                bool_t.clone(),
                IExp::CmpOp(op, x.clone(), y.clone()),
            )
        };
        let and = |this: &mut Self, x: SubExp, y: SubExp| {
            this.bind("range_ok", bool_t.clone(), IExp::BinOp(BinOp::LogAnd, x, y))
        };
        let or = |this: &mut Self, x: SubExp, y: SubExp| {
            this.bind("range_ok", bool_t.clone(), IExp::BinOp(BinOp::LogOr, x, y))
        };
        let zero = SubExp::i64(0);
        let ok = match (kind, step64.as_i64()) {
            (RangeKind::Inclusive | RangeKind::UpToExclusive, Some(1)) => {
                cmp(self, CmpOp::SLe, a64, z64)
            }
            (RangeKind::DownToExclusive, Some(-1)) => cmp(self, CmpOp::SLe, z64, a64),
            _ => {
                // The step must point from `a` towards `z`; `a...z` with `a == z` is one
                // element whatever the (nonzero) step.
                let up = |this: &mut Self| {
                    let rising = cmp(this, CmpOp::SLt, &zero, step64);
                    let le = cmp(this, CmpOp::SLe, a64, z64);
                    (rising.clone(), and(this, rising, le))
                };
                let down = |this: &mut Self| {
                    let falling = cmp(this, CmpOp::SLt, step64, &zero);
                    let ge = cmp(this, CmpOp::SLe, z64, a64);
                    (falling.clone(), and(this, falling, ge))
                };
                match kind {
                    RangeKind::UpToExclusive => up(self).1,
                    RangeKind::DownToExclusive => down(self).1,
                    RangeKind::Inclusive => {
                        let (rising, rise) = up(self);
                        let (falling, fall) = down(self);
                        let either = or(self, rise, fall);
                        let nonzero = or(self, rising, falling);
                        let same = cmp(self, CmpOp::Eq, a64, z64);
                        let one = and(self, same, nonzero);
                        or(self, either, one)
                    }
                }
            }
        };
        let op = match kind {
            RangeKind::Inclusive => "...",
            RangeKind::UpToExclusive => "..<",
            RangeKind::DownToExclusive => "..>",
        };
        let (msg, args) = match second {
            Some(s) => (
                format!("Range {{}}..{{}}{op}{{}} is invalid."),
                vec![a.clone(), s.clone(), z.clone()],
            ),
            None => (
                format!("Range {{}}{op}{{}} is invalid."),
                vec![a.clone(), z.clone()],
            ),
        };
        self.emit(
            Pat::default(),
            IExp::Assert {
                cond: ok,
                msg,
                args,
            },
        );
    }
}

/// The type of `t[idx]`.
pub fn indexed_type(t: &Type, idx: &[DimIndex]) -> Type {
    let mut shape = Vec::new();
    for i in idx {
        if let DimIndex::Slice { len, .. } = i {
            shape.push(len.clone());
        }
    }
    shape.extend(t.shape().iter().skip(idx.len()).cloned());
    t.with_shape(shape)
}
