//! Collecting the results of a per-element `map` into one array.
//!
//! Rows that are primitive arrays of one shape and type are copied into the result buffer as
//! they arrive, so each row's storage is freed (and reused by the next row) at once: a map
//! over 2000 rows then touches the memory of its result plus one row, not twice the result.
//! Anything else is kept and stacked at the end by [`array::stack`], whose errors it keeps.

use std::rc::Rc;

use futhark_values::Buffer;

use crate::array::{self, row};
use crate::errors::Result;
use crate::value::{Array, ArrayData, Value, buf_extend};

/// Rows received so far.
pub struct RowCollector {
    expected: usize,
    state: State,
}

enum State {
    Empty,
    /// Primitive array rows of this shape, copied into `buf`.
    Flat {
        row_shape: Vec<i64>,
        buf: Buffer,
        count: usize,
    },
    Kept(Vec<Value>),
}

impl RowCollector {
    /// A collector for about `expected` rows.
    pub fn new(expected: usize) -> RowCollector {
        RowCollector {
            expected,
            state: State::Empty,
        }
    }

    pub fn push(&mut self, r: Value) {
        match &mut self.state {
            State::Empty => {
                self.state = match prim_rows(&r) {
                    Some((shape, b, off, len)) => {
                        let mut buf = Buffer::with_capacity(b.elem_type(), len * self.expected);
                        buf_extend(&mut buf, b, off, len);
                        State::Flat {
                            row_shape: shape.to_vec(),
                            buf,
                            count: 1,
                        }
                    }
                    None => State::Kept(vec![r]),
                };
            }
            State::Flat {
                row_shape,
                buf,
                count,
            } => match prim_rows(&r) {
                Some((shape, b, off, len))
                    if shape == row_shape.as_slice()
                        && b.elem_type() == buf.elem_type()
                        && buf_extend(buf, b, off, len) =>
                {
                    *count += 1;
                }
                _ => {
                    // A row of another form: keep everything as values from here on.
                    let mut kept = self.unflatten();
                    kept.push(r);
                    self.state = State::Kept(kept);
                }
            },
            State::Kept(rows) => rows.push(r),
        }
    }

    /// The rows so far as separate values (views of the flat buffer).
    fn unflatten(&mut self) -> Vec<Value> {
        match std::mem::replace(&mut self.state, State::Empty) {
            State::Empty => Vec::new(),
            State::Kept(rows) => rows,
            State::Flat {
                row_shape,
                buf,
                count,
            } => {
                let all = stacked(&row_shape, buf, count);
                (0..count).map(|i| row(&all, i)).collect()
            }
        }
    }

    /// The stacked array.
    pub fn finish(mut self) -> Result<Value> {
        match std::mem::replace(&mut self.state, State::Empty) {
            State::Flat {
                row_shape,
                buf,
                count,
            } => Ok(Value::Array(stacked(&row_shape, buf, count))),
            State::Kept(rows) => array::stack(rows, None),
            State::Empty => array::stack(Vec::new(), None),
        }
    }
}

fn stacked(row_shape: &[i64], buf: Buffer, count: usize) -> Rc<Array> {
    let mut shape = vec![count as i64];
    shape.extend_from_slice(row_shape);
    Rc::new(Array::from_buffer(shape, buf))
}

/// The shape, buffer, offset and element count of a primitive array row.
fn prim_rows(v: &Value) -> Option<(&[i64], &Buffer, usize, usize)> {
    match v {
        Value::Array(a) => match &a.data {
            ArrayData::Prim { buf, offset } => Some((&a.shape, buf, *offset, a.elems())),
            _ => None,
        },
        _ => None,
    }
}
