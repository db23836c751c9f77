//! Views: how a kernel reads a SOAC IR array (a device array with leading indices fixed,
//! permuted or reshaped, an `iota`, a replicated scalar, a slice of one of these), and
//! indexing them down to a kernel expression.

use futhark_ir::soacs::Name;
use futhark_ir::types::{PrimType, PrimValue};
use futhark_ir::{Exp as KExp, Size};

/// How a kernel can read an array.
#[derive(Clone, Debug)]
pub enum View {
    /// `decl[prefix…]` of a device array whose full (row-major) shape is `dims`, seen with
    /// its dimensions permuted: logical dimension `i` is stored dimension `perm[i]`.
    Global {
        decl: Name,
        dims: Vec<Size>,
        perm: Vec<usize>,
        prefix: Vec<KExp>,
        elem: PrimType,
    },
    /// `start + j * stride` for index `j` (a one-dimensional `iota`).
    Iota {
        start: KExp,
        stride: KExp,
        ty: PrimType,
    },
    /// The same scalar at every index.
    Replicate { value: KExp, elem: PrimType },
    /// A slice of `base`: one entry per leading dimension of `base`, fixed or a strided
    /// range; indexing fills the first range.
    Slice {
        base: Box<View>,
        dims: Vec<SliceDim>,
    },
}

/// One dimension of a [`View::Slice`].
#[derive(Clone, Debug)]
pub enum SliceDim {
    Fix(KExp),
    Range { start: KExp, stride: KExp },
}

/// Applies fixed indices one by one.
pub(super) fn index_all(v: KVal, idx: impl IntoIterator<Item = KExp>) -> KVal {
    let mut v = v;
    for i in idx {
        v = match v {
            KVal::Array(view) => view.index(i, None),
            s => s,
        };
    }
    v
}

impl View {
    /// The view with one more leading index, and, if that reaches a scalar, the read.
    pub fn index(&self, i: KExp, flat: Option<&(Vec<KExp>, KExp)>) -> KVal {
        match self {
            View::Global {
                decl,
                dims,
                perm,
                prefix,
                elem,
            } => {
                let mut prefix = prefix.clone();
                prefix.push(i);
                if prefix.len() < dims.len() {
                    return KVal::Array(View::Global {
                        decl: decl.clone(),
                        dims: dims.clone(),
                        perm: perm.clone(),
                        prefix,
                        elem: *elem,
                    });
                }
                let identity = perm.iter().enumerate().all(|(a, b)| a == *b);
                // The space's own flat index when reading the whole space in order.
                if let Some((idx, f)) = flat
                    && *idx == prefix
                    && identity
                {
                    return KVal::Scalar(KExp::read(decl, f.clone()), *elem);
                }
                // Stored index `perm[i]` is logical index `i`.
                let mut stored = prefix.clone();
                for (i, p) in perm.iter().enumerate() {
                    if let (Some(slot), Some(e)) = (stored.get_mut(*p), prefix.get(i)) {
                        *slot = e.clone();
                    }
                }
                let mut acc: Option<KExp> = None;
                for (e, d) in stored.into_iter().zip(dims) {
                    acc = Some(match acc {
                        None => e,
                        Some(a) => a.times(d.to_exp()).plus(e),
                    });
                }
                KVal::Scalar(KExp::read(decl, acc.unwrap_or(KExp::i64(0))), *elem)
            }
            View::Iota { start, stride, ty } => {
                let j = if *ty == PrimType::I64 {
                    i
                } else {
                    KExp::conv(*ty, i)
                };
                let one = KExp::Const(PrimValue::from_f64(*ty, 1.0));
                let zero = KExp::Const(PrimValue::from_f64(*ty, 0.0));
                let scaled = if *stride == one {
                    j
                } else {
                    j.times(stride.clone())
                };
                let e = if *start == zero {
                    scaled
                } else {
                    start.clone().plus(scaled)
                };
                KVal::Scalar(e, *ty)
            }
            View::Replicate { value, elem } => KVal::Scalar(value.clone(), *elem),
            View::Slice { base, dims } => {
                let mut dims = dims.clone();
                match dims
                    .iter()
                    .position(|d| matches!(d, SliceDim::Range { .. }))
                {
                    Some(pos) => {
                        if let SliceDim::Range { start, stride } = &dims[pos] {
                            let one = KExp::i64(1);
                            let zero = KExp::i64(0);
                            let scaled = if *stride == one {
                                i
                            } else {
                                i.times(stride.clone())
                            };
                            let e = if *start == zero {
                                scaled
                            } else {
                                start.clone().plus(scaled)
                            };
                            dims[pos] = SliceDim::Fix(e);
                        }
                    }
                    None => dims.push(SliceDim::Fix(i)),
                }
                if dims.iter().all(|d| matches!(d, SliceDim::Fix(_))) {
                    let fixed = dims.into_iter().filter_map(|d| match d {
                        SliceDim::Fix(e) => Some(e),
                        SliceDim::Range { .. } => None,
                    });
                    index_all(KVal::Array((**base).clone()), fixed)
                } else {
                    KVal::Array(View::Slice {
                        base: base.clone(),
                        dims,
                    })
                }
            }
        }
    }

    /// The kernel array behind a view of a device array.
    pub fn decl(&self) -> Option<&Name> {
        match self {
            View::Global { decl, .. } => Some(decl),
            View::Slice { base, .. } => base.decl(),
            View::Iota { .. } | View::Replicate { .. } => None,
        }
    }
}

/// What a SOAC IR variable is inside a kernel.
#[derive(Clone, Debug)]
pub enum KVal {
    Scalar(KExp, PrimType),
    Array(View),
}

/// A device array (or row of one) seen with its remaining dimensions permuted (`None`
/// for other views).
pub(super) fn rearranged(v: View, p: &[usize]) -> Option<View> {
    match v {
        View::Global {
            decl,
            dims,
            perm,
            prefix,
            elem,
        } => {
            // The permutation of the remaining dimensions, extended over the fixed ones.
            let k = prefix.len();
            let full: Vec<usize> = (0..k).chain(p.iter().map(|x| x + k)).collect();
            Some(View::Global {
                decl,
                dims,
                perm: full
                    .iter()
                    .map(|&i| perm.get(i).copied().unwrap_or(i))
                    .collect(),
                prefix,
                elem,
            })
        }
        _ => None,
    }
}

/// A whole row-major device array (or row of one) seen with another shape (`None` for
/// other views).
pub(super) fn reshaped(v: View, new: Vec<Size>) -> Option<View> {
    match v {
        View::Global {
            decl,
            perm,
            prefix,
            elem,
            dims,
        } if perm.iter().enumerate().all(|(a, b)| a == *b) => {
            let mut all: Vec<Size> = dims[..prefix.len().min(dims.len())].to_vec();
            all.extend(new);
            Some(View::Global {
                decl,
                perm: (0..all.len()).collect(),
                dims: all,
                prefix,
                elem,
            })
        }
        _ => None,
    }
}

pub(super) fn same_view(a: &View, b: &View) -> bool {
    match (a, b) {
        (
            View::Global {
                decl: d1,
                prefix: p1,
                perm: q1,
                ..
            },
            View::Global {
                decl: d2,
                prefix: p2,
                perm: q2,
                ..
            },
        ) => d1 == d2 && p1 == p2 && q1 == q2,
        _ => false,
    }
}

pub(super) fn view_elem(v: &View) -> PrimType {
    match v {
        View::Global { elem, .. } | View::Replicate { elem, .. } => *elem,
        View::Iota { ty, .. } => *ty,
        View::Slice { base, .. } => view_elem(base),
    }
}
