//! [`ValueView`]: a cell's result as plain data that can leave the interpreter's thread.
//!
//! The interpreter's values share memory through `Rc` and cannot cross threads, so the worker
//! converts a result before sending it: arrays of primitives become one flat
//! [`futhark_values::Value`] (one copy of the buffer, which also feeds images and plots);
//! arrays of records or sums keep at most [`ROW_LIMIT`] rows, since only an abbreviated
//! text of them is ever shown.

use std::rc::Rc;

use futhark_interp::array::row;
use futhark_interp::value::{Array, ArrayData, Value, is_tuple_layout};
use futhark_values as fv;

/// Rows of a non-primitive array kept for display.
pub const ROW_LIMIT: usize = 64;

/// A value ready to be printed, turned into HTML or drawn.
#[derive(Clone, Debug, PartialEq)]
pub enum ValueView {
    /// A scalar or an array of primitives (rank 0 is a scalar).
    Prim(fv::Value),
    /// An array whose elements are records, tuples or sums: its shape and some rows. When
    /// the array has more than [`ROW_LIMIT`] rows only the first and last halves of that
    /// many are kept; otherwise `first` has them all and `last` is empty.
    Rows {
        shape: Vec<i64>,
        first: Vec<ValueView>,
        last: Vec<ValueView>,
    },
    Tuple(Vec<ValueView>),
    Record(Vec<(String, ValueView)>),
    Sum {
        ctor: String,
        payload: Vec<ValueView>,
    },
    /// A function or another value without a data form, with its printed text.
    Opaque(String),
}

impl ValueView {
    /// The primitive data, if this is a scalar or an array of primitives.
    pub fn as_prim(&self) -> Option<&fv::Value> {
        match self {
            ValueView::Prim(v) => Some(v),
            _ => None,
        }
    }

    /// The shape of an array (empty for anything else).
    pub fn shape(&self) -> &[i64] {
        match self {
            ValueView::Prim(v) => v.shape(),
            ValueView::Rows { shape, .. } => shape,
            _ => &[],
        }
    }
}

/// Converts an interpreter value (on the interpreter's thread).
pub fn view(v: &Value) -> ValueView {
    match v {
        Value::Prim(_) => prim_data(v),
        Value::Array(a) => array(a),
        Value::Record(r) => {
            if is_tuple_layout(&r.names) {
                ValueView::Tuple(r.values.iter().map(view).collect())
            } else {
                ValueView::Record(
                    r.names
                        .iter()
                        .zip(&r.values)
                        .map(|(n, x)| (n.to_string(), view(x)))
                        .collect(),
                )
            }
        }
        Value::Sum(s) => ValueView::Sum {
            ctor: s.ctor.to_string(),
            payload: s.payload.iter().map(view).collect(),
        },
        Value::Dual(d) => view(&d.primal),
        Value::Fun(_) | Value::Acc(_) => ValueView::Opaque(futhark_interp::show::show(v)),
    }
}

fn prim_data(v: &Value) -> ValueView {
    match futhark_interp::convert::to_external(v) {
        Ok(mut vs) if vs.len() == 1 => match vs.pop() {
            Some(x) => ValueView::Prim(x),
            None => ValueView::Opaque(futhark_interp::show::show(v)),
        },
        _ => ValueView::Opaque(futhark_interp::show::show(v)),
    }
}

fn array(a: &Rc<Array>) -> ValueView {
    if let ArrayData::Prim { .. } = a.data {
        return prim_data(&Value::Array(a.clone()));
    }
    // Boxed arrays may still hold primitives (after some generic operations).
    if let ArrayData::Boxed(elems) = &a.data
        && elems.first().is_some_and(|e| matches!(e, Value::Prim(_)))
        && let Ok(p) = futhark_interp::array::as_prim_array(a)
    {
        return prim_data(&Value::Array(p));
    }
    let n = a.len();
    let (first, last) = if n <= ROW_LIMIT {
        (0..n, n..n)
    } else {
        (0..ROW_LIMIT / 2, n - ROW_LIMIT / 2..n)
    };
    ValueView::Rows {
        shape: a.shape.clone(),
        first: first.map(|i| view(&row(a, i))).collect(),
        last: last.map(|i| view(&row(a, i))).collect(),
    }
}
