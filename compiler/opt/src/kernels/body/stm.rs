//! Translating one SOAC IR statement into kernel statements (scalars, indexing, updates,
//! array operations, checks), dispatching loops and sequential SOACs to their modules.

use futhark_ir::soacs::{Exp, Soac, Stm, SubExp, Type};
use futhark_ir::types::{PrimType, PrimValue};
use futhark_ir::{Exp as KExp, Stm as KStm};

use crate::kernels::scalar;

use super::view::{index_all, rearranged, reshaped};
use super::{KVal, TResult, Translator, View, check};

impl Translator<'_> {
    pub fn stm(&mut self, s: &Stm, out: &mut Vec<KStm>) -> TResult<()> {
        let elems = &s.pat.elems;
        let one = || {
            elems
                .first()
                .ok_or_else(|| "a statement without results".to_string())
        };
        match &s.exp {
            Exp::SubExp(x) => {
                let p = one()?;
                match self.val(x)? {
                    KVal::Scalar(e, t) => self.let_(out, &p.name, t, e),
                    v @ KVal::Array(_) => {
                        self.env.insert(p.name.clone(), v);
                    }
                }
            }
            Exp::BinOp(op, a, b) => {
                let (x, t) = self.scalar_typed(a)?;
                let y = self.scalar(b)?;
                if let Some((cond, msg)) = scalar::operand_check(*op, &y, t) {
                    out.push(check(cond, msg.into(), Vec::new(), s.loc.as_ref()));
                }
                let e = scalar::binop(*op, x, y, t)?;
                self.let_(out, &one()?.name, t, e);
            }
            Exp::CmpOp(op, a, b) => {
                let (x, t) = self.scalar_typed(a)?;
                let y = self.scalar(b)?;
                self.let_(
                    out,
                    &one()?.name,
                    PrimType::Bool,
                    scalar::cmpop(*op, x, y, t),
                );
            }
            Exp::UnOp(op, a) => {
                let (x, t) = self.scalar_typed(a)?;
                let e = scalar::unop(*op, x, t)?;
                self.let_(out, &one()?.name, one()?.ty.elem(), e);
            }
            Exp::Conv(op, a) => {
                let (x, t) = self.scalar_typed(a)?;
                let e = scalar::conv(*op, x, t)?;
                self.let_(out, &one()?.name, op.target(), e);
            }
            Exp::Math(f, args) => {
                let mut xs = Vec::new();
                let mut t = PrimType::F32;
                for (i, a) in args.iter().enumerate() {
                    let (x, ta) = self.scalar_typed(a)?;
                    if i == 0 {
                        t = ta;
                    }
                    xs.push(x);
                }
                let e = scalar::math(*f, xs, t)?;
                self.let_(out, &one()?.name, one()?.ty.elem(), e);
            }
            Exp::Index(arr, idx) => {
                let v = KVal::Array(self.view(arr)?);
                let (idx, ok) = self.checked_indices(arr, idx, s.loc.as_ref(), out)?;
                let p = one()?;
                let v = match ok {
                    Some(ok) if p.ty.rank() == 0 => match self.index_val(v, idx)? {
                        KVal::Scalar(e, t) => {
                            let zero = KExp::Const(PrimValue::from_f64(t, 0.0));
                            KVal::Scalar(KExp::select(KExp::var(&ok), e, zero), t)
                        }
                        KVal::Array(_) => return Err("a scalar index giving an array".into()),
                    },
                    ok => self.index_val(v, Self::guarded(idx, ok.as_deref()))?,
                };
                match v {
                    KVal::Scalar(e, t) => self.let_(out, &p.name, t, e),
                    a => {
                        self.env.insert(p.name.clone(), a);
                    }
                }
            }
            Exp::Iota {
                start, stride, ty, ..
            } => {
                let view = View::Iota {
                    start: self.scalar(start)?,
                    stride: self.scalar(stride)?,
                    ty: *ty,
                };
                self.env.insert(one()?.name.clone(), KVal::Array(view));
            }
            Exp::Replicate { shape, value } if shape.len() == 1 && one()?.ty.rank() == 1 => {
                let (value, elem) = self.scalar_typed(value)?;
                self.env.insert(
                    one()?.name.clone(),
                    KVal::Array(View::Replicate { value, elem }),
                );
            }
            Exp::Replicate { shape, value } => {
                let p = one()?;
                let v = self.val(value)?;
                let launch = self.launch_shape(&p.ty)?;
                let dims = self.dims(&p.ty)?;
                let view = self.alloc(p.ty.elem(), launch);
                self.store(KVal::Array(view.clone()), v, shape.len(), &dims, out)?;
                self.env.insert(p.name.clone(), KVal::Array(view));
            }
            Exp::ArrayLit(items, _) => {
                let p = one()?;
                let launch = self.launch_shape(&p.ty)?;
                let dims = self.dims(&p.ty)?;
                let view = self.alloc(p.ty.elem(), launch);
                for (k, it) in items.iter().enumerate() {
                    let v = self.val(it)?;
                    let dst = view.index(KExp::i64(k as i64), None);
                    self.store(dst, v, 0, &dims[1..], out)?;
                }
                self.env.insert(p.name.clone(), KVal::Array(view));
            }
            Exp::Concat { arrs, .. } => {
                let p = one()?;
                let launch = self.launch_shape(&p.ty)?;
                let dims = self.dims(&p.ty)?;
                let view = self.alloc(p.ty.elem(), launch);
                let mut offset = KExp::i64(0);
                for a in arrs {
                    let src = self.val(&SubExp::var(a))?;
                    let ty = self.type_of(a)?;
                    let n = self.dims(&ty)?.into_iter().next().unwrap_or(KExp::i64(0));
                    let j = self.fresh("j");
                    let mut body = Vec::new();
                    let dst = view.index(offset.clone().plus(KExp::var(&j)), None);
                    let row = index_all(src, [KExp::var(&j)]);
                    self.store(dst, row, 0, &dims[1..], &mut body)?;
                    out.push(KStm::For {
                        var: j,
                        bound: n.clone(),
                        body,
                    });
                    offset = offset.plus(n);
                }
                self.env.insert(p.name.clone(), KVal::Array(view));
            }
            Exp::Update(arr, idx, v) => {
                let p = one()?;
                let ty = self.type_of(arr)?;
                let mut view = self.view(arr)?;
                if !self.is_scratch(&view) {
                    view = self.materialize(KVal::Array(view), &ty, out)?;
                }
                let src = self.val(v)?;
                let vdims = match v {
                    SubExp::Var(n) => {
                        let t = self.type_of(n)?;
                        self.dims(&t)?
                    }
                    SubExp::Const(_) => Vec::new(),
                };
                let (idx, ok) = self.checked_indices(arr, idx, s.loc.as_ref(), out)?;
                let idx = Self::guarded(idx, ok.as_deref());
                let dst = self.index_val(KVal::Array(view.clone()), idx)?;
                self.store(dst, src, 0, &vdims, out)?;
                self.env.insert(p.name.clone(), KVal::Array(view));
            }
            Exp::Copy(a) => {
                let v = self.val(&SubExp::var(a))?;
                let p = one()?;
                // A per-thread array is copied: the copy may be updated in place.
                let v = match v {
                    KVal::Array(view) if self.is_scratch(&view) => {
                        KVal::Array(self.materialize(KVal::Array(view), &p.ty, out)?)
                    }
                    v => v,
                };
                self.env.insert(p.name.clone(), v);
            }
            Exp::Rearrange { perm, arr } => {
                let v = rearranged(self.view(arr)?, perm)
                    .ok_or("transposing a row inside a kernel thread")?;
                self.env.insert(one()?.name.clone(), KVal::Array(v));
            }
            // A vector coerced to a length the thread computes (checked equal): the same view.
            Exp::Reshape { shape, arr }
                if shape.len() == 1
                    && self.type_of(arr)?.rank() == 1
                    && self.launch_size(&shape[0]).is_err() =>
            {
                self.reshape_check(arr, shape, s.loc.as_ref(), out)?;
                let v = self.view(arr)?;
                self.env.insert(one()?.name.clone(), KVal::Array(v));
            }
            Exp::Reshape { shape, arr } => {
                let mut dims = Vec::new();
                for d in shape {
                    let d = self.launch_size(d).map_err(|_| {
                        "reshaping to a size computed inside a kernel thread".to_string()
                    })?;
                    dims.push(d);
                }
                self.reshape_check(arr, shape, s.loc.as_ref(), out)?;
                let src = self.view(arr)?;
                self.unpadded(&src)?;
                let v = match src {
                    // The same value at every index, whatever the shape.
                    View::Replicate { .. } => src,
                    src => match reshaped(src.clone(), dims.clone()) {
                        Some(v) => v,
                        None => {
                            // A view that is not a row-major block (a slice, a transposed
                            // row, an iota) is first copied into per-thread storage.
                            let ty = self.type_of(arr)?;
                            let copy = self.materialize(KVal::Array(src), &ty, out)?;
                            self.unpadded(&copy)?;
                            reshaped(copy, dims).ok_or("reshaping a row inside a kernel thread")?
                        }
                    },
                };
                self.env.insert(one()?.name.clone(), KVal::Array(v));
            }
            Exp::Assert { cond, msg, args } => {
                let cond = self.scalar(cond)?;
                let args = args
                    .iter()
                    .map(|a| self.scalar(a))
                    .collect::<TResult<Vec<_>>>()?;
                out.push(check(cond, msg.clone(), args, s.loc.as_ref()));
            }
            Exp::If {
                cond,
                then_body,
                else_body,
                ret,
            } => {
                let c = self.scalar(cond)?;
                // Existential sizes of the results are mutable variables each branch sets
                // to its result's extent: (name, result, dimension).
                let mut sizes = Vec::new();
                for (k, name) in s.pat.ctx.iter().enumerate() {
                    let at = ret.iter().enumerate().find_map(|(i, t)| {
                        t.shape()
                            .iter()
                            .position(|d| *d == futhark_ir::soacs::ExtSize::Ext(k))
                            .map(|j| (i, j))
                    });
                    let Some((i, j)) = at else {
                        return Err("a branch with an unused existential size".into());
                    };
                    out.push(KStm::Mut {
                        name: name.clone(),
                        ty: PrimType::I64,
                        init: KExp::i64(0),
                    });
                    self.env
                        .insert(name.clone(), KVal::Scalar(KExp::var(name), PrimType::I64));
                    sizes.push((name.clone(), i, j));
                }
                // Scalars become mutable variables, arrays per-thread arrays.
                let mut slots: Vec<(KVal, Vec<KExp>)> = Vec::new();
                for p in elems {
                    match &p.ty {
                        Type::Prim(t) => {
                            out.push(KStm::Mut {
                                name: p.name.clone(),
                                ty: *t,
                                init: KExp::Const(PrimValue::from_f64(*t, 0.0)),
                            });
                            slots.push((KVal::Scalar(KExp::var(&p.name), *t), Vec::new()));
                        }
                        ty @ Type::Array(..) => {
                            let launch = self.launch_shape(ty)?;
                            let dims = self.dims(ty)?;
                            let view = self.alloc(ty.elem(), launch);
                            slots.push((KVal::Array(view), dims));
                        }
                    }
                }
                let mut branches = Vec::new();
                for body in [then_body, else_body] {
                    let mut stms = Vec::new();
                    let rs = self.body(body, &mut stms)?;
                    for (name, i, j) in &sizes {
                        let d = match body.result.get(*i) {
                            Some(SubExp::Var(v)) => self.type_of(v)?.shape().get(*j).cloned(),
                            _ => None,
                        }
                        .ok_or("a branch result without the extent its type promises")?;
                        let exp = self.scalar(&d)?;
                        stms.push(KStm::Assign {
                            name: name.clone(),
                            exp,
                        });
                    }
                    for ((slot, dims), r) in slots.iter().zip(rs) {
                        match (slot, r) {
                            (KVal::Scalar(KExp::Var(n), _), KVal::Scalar(e, _)) => {
                                stms.push(KStm::Assign {
                                    name: n.clone(),
                                    exp: e,
                                })
                            }
                            (KVal::Array(_), r @ KVal::Array(_)) => {
                                self.store(slot.clone(), r, 0, dims, &mut stms)?
                            }
                            _ => return Err("a branch of mismatched results in a kernel".into()),
                        }
                    }
                    branches.push(stms);
                }
                let else_branch = branches.pop().unwrap_or_default();
                let then_branch = branches.pop().unwrap_or_default();
                out.push(KStm::If {
                    cond: c,
                    then_branch,
                    else_branch,
                });
                for (p, (slot, _)) in elems.iter().zip(slots) {
                    self.env.insert(p.name.clone(), slot);
                }
            }
            Exp::Loop { params, form, body } => self.loop_(s, params, form, body, out)?,
            Exp::Soac(Soac::Reduce {
                w,
                op,
                nes,
                map,
                arrs,
                ..
            }) => self.seq_reduce(s, w, op, nes, map, arrs, out)?,
            Exp::Soac(Soac::Map { w, lam, arrs }) => self.seq_map(s, w, lam, arrs, out)?,
            Exp::Soac(Soac::Scan {
                w,
                op,
                nes,
                map,
                arrs,
            }) => self.seq_scan(s, w, op, nes, map, arrs, out)?,
            Exp::Soac(Soac::Scatter {
                w,
                dests,
                ranks,
                map,
                arrs,
            }) => self.seq_scatter(s, w, dests, ranks, map, arrs, out)?,
            Exp::Soac(Soac::Hist {
                w,
                dests,
                rank,
                op,
                map,
                arrs,
                ..
            }) => self.seq_hist(s, w, dests, *rank, op, map, arrs, out)?,
            Exp::Apply { func, .. } => {
                return Err(format!(
                    "calling `{func}` (a recursive function) inside a kernel"
                ));
            }
            Exp::Launch(_) => {
                return Err(format!("`{}` inside a kernel thread", short(&s.exp)));
            }
        }
        Ok(())
    }
}

fn short(e: &Exp) -> String {
    let s = e.to_string();
    s.split('(').next().unwrap_or("").to_string()
}
