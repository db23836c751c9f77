//! The polymorphic intrinsics (`intrinsics.map`, `intrinsics.scatter`, …): names, arities, and
//! dispatch to their implementations in `soacs.rs`, `array_ops.rs` and `ad.rs`.

use futhark_syntax::Span;

use crate::errors::{Result, err};
use crate::eval::Machine;
use crate::value::Value;
use crate::{ad, array_ops, soacs};

/// A polymorphic intrinsic function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Intrinsic {
    Map,
    Reduce,
    ReduceComm,
    Scan,
    Hist1d,
    Hist2d,
    Hist3d,
    Scatter,
    Scatter2d,
    Scatter3d,
    Zip,
    Unzip,
    Concat,
    Transpose,
    Flatten,
    Unflatten,
    Manifest,
    Flatmap,
    Partition,
    Jvp2,
    Vjp2,
    Jmp2,
    Mjp2,
    WithVjp,
    AccWrite,
    ScatterStream,
    HistStream,
    FlatIndex2d,
    FlatUpdate2d,
    FlatIndex3d,
    FlatUpdate3d,
    FlatIndex4d,
    FlatUpdate4d,
}

impl Intrinsic {
    pub fn lookup(name: &str) -> Option<Intrinsic> {
        use Intrinsic as I;
        Some(match name {
            "map" => I::Map,
            "reduce" => I::Reduce,
            "reduce_comm" => I::ReduceComm,
            "scan" => I::Scan,
            "hist_1d" => I::Hist1d,
            "hist_2d" => I::Hist2d,
            "hist_3d" => I::Hist3d,
            "scatter" => I::Scatter,
            "scatter_2d" => I::Scatter2d,
            "scatter_3d" => I::Scatter3d,
            "zip" => I::Zip,
            "unzip" => I::Unzip,
            "concat" => I::Concat,
            "transpose" => I::Transpose,
            "flatten" => I::Flatten,
            "unflatten" => I::Unflatten,
            "manifest" => I::Manifest,
            "flatmap" => I::Flatmap,
            "partition" => I::Partition,
            "jvp2" => I::Jvp2,
            "vjp2" => I::Vjp2,
            "jmp2" => I::Jmp2,
            "mjp2" => I::Mjp2,
            "with_vjp" => I::WithVjp,
            "acc_write" => I::AccWrite,
            "scatter_stream" => I::ScatterStream,
            "hist_stream" => I::HistStream,
            "flat_index_2d" => I::FlatIndex2d,
            "flat_update_2d" => I::FlatUpdate2d,
            "flat_index_3d" => I::FlatIndex3d,
            "flat_update_3d" => I::FlatUpdate3d,
            "flat_index_4d" => I::FlatIndex4d,
            "flat_update_4d" => I::FlatUpdate4d,
            _ => return None,
        })
    }

    /// Number of curried arguments.
    pub fn arity(self) -> usize {
        use Intrinsic as I;
        match self {
            I::Unzip | I::Transpose | I::Flatten | I::Manifest => 1,
            I::Map | I::Zip | I::Concat | I::Flatmap => 2,
            I::Reduce | I::ReduceComm | I::Scan | I::Unflatten | I::Scatter | I::Scatter2d => 3,
            I::Scatter3d | I::Partition | I::Jvp2 | I::Vjp2 | I::Jmp2 | I::Mjp2 => 3,
            I::WithVjp | I::AccWrite | I::ScatterStream => 3,
            I::Hist1d | I::Hist2d | I::Hist3d => 6,
            I::HistStream => 5,
            I::FlatIndex2d => 6,
            I::FlatUpdate2d => 5,
            I::FlatIndex3d => 8,
            I::FlatUpdate3d => 6,
            I::FlatIndex4d => 10,
            I::FlatUpdate4d => 7,
        }
    }

    /// Applies the intrinsic to exactly `arity` arguments.
    pub fn apply(self, m: &mut Machine, args: Vec<Value>, span: Span) -> Result<Value> {
        use Intrinsic as I;
        let mut it = args.into_iter();
        let mut next = || {
            it.next()
                .ok_or_else(|| crate::errors::RuntimeError::new("missing argument"))
        };
        match self {
            I::Map => {
                let f = next()?;
                let xs = next()?;
                soacs::map(m, &f, &xs, span)
            }
            I::Reduce | I::ReduceComm => {
                let (f, ne, xs) = (next()?, next()?, next()?);
                soacs::reduce(m, &f, ne, &xs, span)
            }
            I::Scan => {
                let (f, ne, xs) = (next()?, next()?, next()?);
                soacs::scan(m, &f, ne, &xs, span)
            }
            I::Hist1d | I::Hist2d | I::Hist3d => {
                let _hint = next()?;
                let (dest, f, ne, is, vs) = (next()?, next()?, next()?, next()?, next()?);
                soacs::hist(m, dest, &f, ne, &is, &vs, span)
            }
            I::Scatter | I::Scatter2d | I::Scatter3d => {
                let (dest, is, vs) = (next()?, next()?, next()?);
                array_ops::scatter(dest, &is, &vs)
            }
            I::Zip => {
                let (a, b) = (next()?, next()?);
                array_ops::zip(&[a, b])
            }
            I::Unzip => array_ops::unzip(&next()?),
            I::Concat => {
                let (a, b) = (next()?, next()?);
                array_ops::concat(&a, &b)
            }
            I::Transpose => array_ops::transpose(&next()?),
            I::Flatten => array_ops::flatten(&next()?),
            I::Unflatten => {
                let (n, k, xs) = (next()?, next()?, next()?);
                array_ops::unflatten(&n, &k, &xs)
            }
            I::Manifest => Ok(next()?),
            I::Flatmap => {
                let (f, xs) = (next()?, next()?);
                soacs::flatmap(m, &f, &xs, span)
            }
            I::Partition => {
                let (k, f, xs) = (next()?, next()?, next()?);
                soacs::partition(m, &k, &f, &xs, span)
            }
            I::Jvp2 => {
                let (f, x, dx) = (next()?, next()?, next()?);
                ad::jvp2(m, &f, &x, &dx, span)
            }
            I::Vjp2 => {
                let (f, x, dy) = (next()?, next()?, next()?);
                ad::vjp2(m, &f, &x, &dy, span)
            }
            I::Jmp2 => {
                let (f, x, dxs) = (next()?, next()?, next()?);
                ad::jmp2(m, &f, &x, &dxs, span)
            }
            I::Mjp2 => {
                let (f, x, dys) = (next()?, next()?, next()?);
                ad::mjp2(m, &f, &x, &dys, span)
            }
            I::WithVjp => {
                let (f, _fadj, x) = (next()?, next()?, next()?);
                m.apply(f, vec![x], span)
            }
            I::AccWrite => {
                let (acc, i, v) = (next()?, next()?, next()?);
                soacs::acc_write(m, acc, &i, v, span)
            }
            I::ScatterStream => {
                let (dest, f, xs) = (next()?, next()?, next()?);
                soacs::stream(m, dest, None, &f, &xs, span)
            }
            I::HistStream => {
                let (dest, op, ne, f, xs) = (next()?, next()?, next()?, next()?, next()?);
                soacs::stream(m, dest, Some((op, ne)), &f, &xs, span)
            }
            I::FlatIndex2d | I::FlatIndex3d | I::FlatIndex4d => {
                let arr = next()?;
                let rest: Vec<Value> = it.collect();
                array_ops::flat_index(&arr, &rest).map_err(|e| e.with_span(span))
            }
            I::FlatUpdate2d | I::FlatUpdate3d | I::FlatUpdate4d => {
                let arr = next()?;
                let mut rest: Vec<Value> = it.collect();
                let Some(v) = rest.pop() else {
                    return err("missing argument");
                };
                array_ops::flat_update(arr, &rest, &v).map_err(|e| e.with_span(span))
            }
        }
    }
}
