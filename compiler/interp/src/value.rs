//! Run-time values.
//!
//! Scalars are unboxed [`Prim`]s. An array of primitives is one flat typed [`Buffer`] plus a
//! shape, shared through `Rc` and viewed at an offset, so taking a row (`a[i]`) or a
//! contiguous slice costs nothing. An array of records (tuples included) is a record of
//! arrays, as in Futhark's own compiler, so `zip` and `unzip` regroup without copying and
//! SOACs over them stay on flat buffers. Arrays of sum values fall back to boxed elements.
//! Everything is reference-counted; an in-place update mutates when it holds the only
//! reference (see `array::update`).

use std::cell::RefCell;
use std::rc::Rc;

use futhark_values::{Buffer, PrimType};
use half::f16;

use crate::ir::Lambda;
use crate::prim::Prim;
use crate::prim_ops::OvOp;

/// A field, constructor or variable name.
pub type Name = Rc<str>;

/// A run-time value.
#[derive(Clone, Debug)]
pub enum Value {
    Prim(Prim),
    Array(Rc<Array>),
    Record(Rc<Record>),
    Sum(Rc<SumValue>),
    Fun(Rc<Fun>),
    Acc(Rc<RefCell<Acc>>),
    /// A number carrying a derivative during forward-mode differentiation (see `ad.rs`).
    Dual(Rc<Dual>),
}

/// A dual number: `primal + ε·tangent`, where `ε` belongs to the differentiation with
/// number `tag`. Primal and tangent are scalars, or duals of enclosing differentiations.
#[derive(Clone, Debug)]
pub struct Dual {
    pub tag: u32,
    pub primal: Value,
    pub tangent: Value,
}

/// A record; tuples are records with fields `0`, `1`, …. Fields are kept sorted (see
/// [`field_order`]) so that equal records have equal layouts.
#[derive(Clone, Debug)]
pub struct Record {
    pub names: Rc<[Name]>,
    pub values: Vec<Value>,
}

/// A constructor applied to its payload.
#[derive(Clone, Debug)]
pub struct SumValue {
    pub ctor: Name,
    pub payload: Vec<Value>,
}

/// A function value.
#[derive(Clone, Debug)]
pub enum Fun {
    /// A lambda or named function with the values of its free variables.
    Closure { lam: Rc<Lambda>, env: Rc<[Value]> },
    /// A function applied to fewer arguments than it takes.
    Partial { fun: Rc<Fun>, args: Vec<Value> },
    /// A built-in function (intrinsic or overloaded operator).
    Builtin(Builtin),
    /// A closure with some size parameters given (see `ir::Exp::SizeArgs`).
    Sized {
        fun: Rc<Fun>,
        sizes: Vec<(crate::ir::Slot, Value)>,
    },
}

/// Built-in functions that can be values.
#[derive(Clone, Debug, PartialEq)]
pub enum Builtin {
    /// An overloaded operator as a curried two-argument function, e.g. `(+)`.
    Op(OvOp),
    /// A primitive intrinsic taking one (tuple) argument, e.g. `intrinsics.add32`.
    Prim(crate::prim_fns::PrimFn),
    /// A polymorphic intrinsic such as `map`, with its number of curried arguments.
    Intrinsic(crate::intrinsics::Intrinsic),
    /// `neg` at run-time type.
    Neg,
    /// `!` at run-time type.
    Not,
}

/// An accumulator: the array being written plus an optional combining operator.
#[derive(Clone, Debug)]
pub struct Acc {
    pub array: Value,
    pub op: Option<(Value, Value)>,
}

/// An array: its shape (outer dimensions for record and boxed arrays) and its elements.
#[derive(Clone, Debug)]
pub struct Array {
    /// For primitive arrays, every dimension. For record arrays and boxed arrays, the
    /// dimensions of the array itself; fields and elements may have further dimensions.
    pub shape: Vec<i64>,
    pub data: ArrayData,
}

/// The element storage of an [`Array`].
#[derive(Clone, Debug)]
pub enum ArrayData {
    /// `∏ shape` elements of `buf` starting at `offset`.
    Prim { buf: Rc<Buffer>, offset: usize },
    /// One array per field, each with `shape` as its leading dimensions.
    Record {
        names: Rc<[Name]>,
        fields: Vec<Rc<Array>>,
    },
    /// `∏ shape` non-array elements, row-major.
    Boxed(Rc<Vec<Value>>),
}

/// A static description of a value's type where the run time needs one: to build empty arrays
/// and to read entry-point arguments. Dimensions are concrete.
#[derive(Clone, Debug, PartialEq)]
pub enum TypeDesc {
    Prim(PrimType),
    Array(Vec<i64>, Box<TypeDesc>),
    Record(Vec<String>, Vec<TypeDesc>),
    /// Sums, functions and anything without a flat layout.
    Opaque,
}

impl Value {
    pub fn unit() -> Value {
        Value::Record(Rc::new(Record {
            names: Rc::from(Vec::new()),
            values: Vec::new(),
        }))
    }

    pub fn bool(b: bool) -> Value {
        Value::Prim(Prim::Bool(b))
    }

    pub fn i64(x: i64) -> Value {
        Value::Prim(Prim::I64(x))
    }

    pub fn i32(x: i32) -> Value {
        Value::Prim(Prim::I32(x))
    }

    /// A tuple; one value alone is itself (there are no 1-tuples).
    pub fn tuple(mut values: Vec<Value>) -> Value {
        if values.len() == 1 {
            return values.pop().unwrap_or_else(Value::unit);
        }
        Value::Record(Rc::new(Record {
            names: tuple_names(values.len()),
            values,
        }))
    }

    /// A record from fields in any order; they are sorted into the canonical order.
    pub fn record(mut fields: Vec<(Name, Value)>) -> Value {
        fields.sort_by(|a, b| field_order(&a.0, &b.0));
        let names: Rc<[Name]> = fields.iter().map(|(n, _)| n.clone()).collect();
        let values = fields.into_iter().map(|(_, v)| v).collect();
        Value::Record(Rc::new(Record { names, values }))
    }

    /// The scalar (the primal of a dual number: sizes, indices and conditions ignore
    /// derivatives).
    pub fn as_prim(&self) -> Option<Prim> {
        match self {
            Value::Prim(p) => Some(*p),
            Value::Dual(d) => d.primal.as_prim(),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        self.as_prim().and_then(Prim::as_bool)
    }

    /// An integer scalar as `i64`.
    pub fn as_i64(&self) -> Option<i64> {
        self.as_prim().and_then(Prim::as_i64)
    }

    pub fn as_array(&self) -> Option<&Rc<Array>> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }

    /// The components of a tuple (a record with fields 0..n), or the value alone.
    pub fn tuple_elems(&self) -> Vec<Value> {
        match self {
            Value::Record(r) if is_tuple_layout(&r.names) => r.values.clone(),
            v => vec![v.clone()],
        }
    }

    /// A record field by name.
    pub fn field(&self, name: &str) -> Option<&Value> {
        match self {
            Value::Record(r) => r
                .names
                .iter()
                .position(|n| &**n == name)
                .map(|i| &r.values[i]),
            _ => None,
        }
    }

    /// The shape of an array value (including the shapes of its elements' rows for record
    /// arrays: the common leading dimensions); empty for non-arrays.
    pub fn shape(&self) -> Vec<i64> {
        match self {
            Value::Array(a) => a.full_shape(),
            _ => Vec::new(),
        }
    }
}

impl Array {
    /// A primitive array over a whole buffer.
    pub fn from_buffer(shape: Vec<i64>, buf: Buffer) -> Array {
        Array {
            shape,
            data: ArrayData::Prim {
                buf: Rc::new(buf),
                offset: 0,
            },
        }
    }

    /// Number of rows (the outer dimension).
    pub fn len(&self) -> usize {
        self.shape.first().map_or(0, |&d| d.max(0) as usize)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn rank(&self) -> usize {
        self.shape.len()
    }

    /// Number of elements in the storage sense: `∏ shape`.
    pub fn elems(&self) -> usize {
        self.shape.iter().map(|&d| d.max(0) as usize).product()
    }

    /// The shape including the dimensions shared by all fields of a record array, as the
    /// type `[n][m](a, b)` would show `[n][m]` (fields' extra dimensions are not included).
    pub fn full_shape(&self) -> Vec<i64> {
        self.shape.clone()
    }

    /// The primitive elements, if this is a primitive array.
    pub fn prim_slice(&self) -> Option<(&Buffer, usize, usize)> {
        match &self.data {
            ArrayData::Prim { buf, offset } => Some((buf, *offset, self.elems())),
            _ => None,
        }
    }

    /// The element type of a primitive array.
    pub fn prim_type(&self) -> Option<PrimType> {
        match &self.data {
            ArrayData::Prim { buf, .. } => Some(buf.elem_type()),
            _ => None,
        }
    }
}

/// The canonical order of record fields: numeric names by value, then the rest by text.
pub fn field_order(a: &str, b: &str) -> std::cmp::Ordering {
    match (a.parse::<u64>(), b.parse::<u64>()) {
        (Ok(x), Ok(y)) => x.cmp(&y),
        (Ok(_), Err(_)) => std::cmp::Ordering::Less,
        (Err(_), Ok(_)) => std::cmp::Ordering::Greater,
        _ => a.cmp(b),
    }
}

thread_local! {
    static TUPLE_NAMES: RefCell<Vec<Rc<[Name]>>> = const { RefCell::new(Vec::new()) };
}

/// The shared field layout of an n-tuple (`0`, `1`, …).
pub fn tuple_names(n: usize) -> Rc<[Name]> {
    TUPLE_NAMES.with(|cache| {
        let mut cache = cache.borrow_mut();
        while cache.len() <= n {
            let k = cache.len();
            cache.push((0..k).map(|i| Name::from(i.to_string())).collect());
        }
        cache[n].clone()
    })
}

/// Whether field names are exactly `0..n` (n ≠ 1), i.e. the record is a tuple.
pub fn is_tuple_layout(names: &[Name]) -> bool {
    names.len() != 1
        && names
            .iter()
            .enumerate()
            .all(|(i, n)| n.parse::<usize>() == Ok(i))
}

// ---------------------------------------------------------------------------------------------
// Element access on buffers

/// Element `i` of a buffer as a scalar.
#[inline]
pub fn buf_get(buf: &Buffer, i: usize) -> Prim {
    match buf {
        Buffer::I8(v) => Prim::I8(v[i]),
        Buffer::I16(v) => Prim::I16(v[i]),
        Buffer::I32(v) => Prim::I32(v[i]),
        Buffer::I64(v) => Prim::I64(v[i]),
        Buffer::U8(v) => Prim::U8(v[i]),
        Buffer::U16(v) => Prim::U16(v[i]),
        Buffer::U32(v) => Prim::U32(v[i]),
        Buffer::U64(v) => Prim::U64(v[i]),
        Buffer::F16(v) => Prim::F16(v[i]),
        Buffer::F32(v) => Prim::F32(v[i]),
        Buffer::F64(v) => Prim::F64(v[i]),
        Buffer::Bool(v) => Prim::Bool(v[i]),
    }
}

/// Sets element `i`; false when the scalar's type differs from the buffer's.
#[inline]
pub fn buf_set(buf: &mut Buffer, i: usize, x: Prim) -> bool {
    match (buf, x) {
        (Buffer::I8(v), Prim::I8(x)) => v[i] = x,
        (Buffer::I16(v), Prim::I16(x)) => v[i] = x,
        (Buffer::I32(v), Prim::I32(x)) => v[i] = x,
        (Buffer::I64(v), Prim::I64(x)) => v[i] = x,
        (Buffer::U8(v), Prim::U8(x)) => v[i] = x,
        (Buffer::U16(v), Prim::U16(x)) => v[i] = x,
        (Buffer::U32(v), Prim::U32(x)) => v[i] = x,
        (Buffer::U64(v), Prim::U64(x)) => v[i] = x,
        (Buffer::F16(v), Prim::F16(x)) => v[i] = x,
        (Buffer::F32(v), Prim::F32(x)) => v[i] = x,
        (Buffer::F64(v), Prim::F64(x)) => v[i] = x,
        (Buffer::Bool(v), Prim::Bool(x)) => v[i] = x,
        _ => return false,
    }
    true
}

/// Appends a scalar; false when the types differ.
#[inline]
pub fn buf_push(buf: &mut Buffer, x: Prim) -> bool {
    match (buf, x) {
        (Buffer::I8(v), Prim::I8(x)) => v.push(x),
        (Buffer::I16(v), Prim::I16(x)) => v.push(x),
        (Buffer::I32(v), Prim::I32(x)) => v.push(x),
        (Buffer::I64(v), Prim::I64(x)) => v.push(x),
        (Buffer::U8(v), Prim::U8(x)) => v.push(x),
        (Buffer::U16(v), Prim::U16(x)) => v.push(x),
        (Buffer::U32(v), Prim::U32(x)) => v.push(x),
        (Buffer::U64(v), Prim::U64(x)) => v.push(x),
        (Buffer::F16(v), Prim::F16(x)) => v.push(x),
        (Buffer::F32(v), Prim::F32(x)) => v.push(x),
        (Buffer::F64(v), Prim::F64(x)) => v.push(x),
        (Buffer::Bool(v), Prim::Bool(x)) => v.push(x),
        _ => return false,
    }
    true
}

/// `n` copies of a scalar.
pub fn buf_fill(x: Prim, n: usize) -> Buffer {
    match x {
        Prim::I8(x) => Buffer::I8(vec![x; n]),
        Prim::I16(x) => Buffer::I16(vec![x; n]),
        Prim::I32(x) => Buffer::I32(vec![x; n]),
        Prim::I64(x) => Buffer::I64(vec![x; n]),
        Prim::U8(x) => Buffer::U8(vec![x; n]),
        Prim::U16(x) => Buffer::U16(vec![x; n]),
        Prim::U32(x) => Buffer::U32(vec![x; n]),
        Prim::U64(x) => Buffer::U64(vec![x; n]),
        Prim::F16(x) => Buffer::F16(vec![x; n]),
        Prim::F32(x) => Buffer::F32(vec![x; n]),
        Prim::F64(x) => Buffer::F64(vec![x; n]),
        Prim::Bool(x) => Buffer::Bool(vec![x; n]),
    }
}

/// A copy of `len` elements starting at `start`.
pub fn buf_range(buf: &Buffer, start: usize, len: usize) -> Buffer {
    futhark_values::map_buffer!(buf, v => v[start..start + len].to_vec())
}

/// Appends `len` elements of `src` starting at `start` to `dst` (same element type).
pub fn buf_extend(dst: &mut Buffer, src: &Buffer, start: usize, len: usize) -> bool {
    macro_rules! ext {
        ($($var:ident),*) => {
            match (dst, src) {
                $((Buffer::$var(d), Buffer::$var(s)) => d.extend_from_slice(&s[start..start + len]),)*
                _ => return false,
            }
        };
    }
    ext!(I8, I16, I32, I64, U8, U16, U32, U64, F16, F32, F64, Bool);
    true
}

/// Copies `len` elements from `src[src_start..]` over `dst[dst_start..]`.
pub fn buf_copy(
    dst: &mut Buffer,
    dst_start: usize,
    src: &Buffer,
    src_start: usize,
    len: usize,
) -> bool {
    macro_rules! cp {
        ($($var:ident),*) => {
            match (dst, src) {
                $((Buffer::$var(d), Buffer::$var(s)) => {
                    d[dst_start..dst_start + len].copy_from_slice(&s[src_start..src_start + len])
                })*
                _ => return false,
            }
        };
    }
    cp!(I8, I16, I32, I64, U8, U16, U32, U64, F16, F32, F64, Bool);
    true
}

/// The default scalar of a type (used for blank arrays that are overwritten).
pub fn prim_zero(ty: PrimType) -> Prim {
    match ty {
        PrimType::F16 => Prim::F16(f16::ZERO),
        _ => Prim::zero(ty),
    }
}
