//! Values as a typed flat buffer plus a shape: [`Buffer`], [`Value`], [`ValueType`] and the
//! [`Element`] trait that links Rust scalar types to [`PrimType`].
//!
//! **Invariant:** a [`Value`]'s buffer holds exactly `∏ shape` elements in row-major order, and no
//! dimension is negative. Every constructor checks it, so code that receives a `Value` can index
//! the flat slice without further checks. A scalar has the empty shape and one element.

use std::fmt;

use half::f16;

use futhark_prim::PrimType;

/// Runs `$body` with `$v` bound to the vector inside any [`Buffer`] variant.
///
/// ```
/// use futhark_values::{with_buffer, Buffer};
/// let b = Buffer::F32(vec![1.0, 2.0]);
/// assert_eq!(with_buffer!(&b, v => v.len()), 2);
/// ```
#[macro_export]
macro_rules! with_buffer {
    ($buf:expr, $v:ident => $body:expr) => {
        match $buf {
            $crate::Buffer::I8($v) => $body,
            $crate::Buffer::I16($v) => $body,
            $crate::Buffer::I32($v) => $body,
            $crate::Buffer::I64($v) => $body,
            $crate::Buffer::U8($v) => $body,
            $crate::Buffer::U16($v) => $body,
            $crate::Buffer::U32($v) => $body,
            $crate::Buffer::U64($v) => $body,
            $crate::Buffer::F16($v) => $body,
            $crate::Buffer::F32($v) => $body,
            $crate::Buffer::F64($v) => $body,
            $crate::Buffer::Bool($v) => $body,
        }
    };
}

/// Like [`with_buffer!`], but `$body` must produce a `Vec` of the same element type, which is
/// wrapped back into the same [`Buffer`] variant.
///
/// ```
/// use futhark_values::{map_buffer, Buffer};
/// let b = Buffer::I32(vec![1, 2, 3]);
/// let tail = map_buffer!(&b, v => v[1..].to_vec());
/// assert_eq!(tail, Buffer::I32(vec![2, 3]));
/// ```
#[macro_export]
macro_rules! map_buffer {
    ($buf:expr, $v:ident => $body:expr) => {
        match $buf {
            $crate::Buffer::I8($v) => $crate::Buffer::I8($body),
            $crate::Buffer::I16($v) => $crate::Buffer::I16($body),
            $crate::Buffer::I32($v) => $crate::Buffer::I32($body),
            $crate::Buffer::I64($v) => $crate::Buffer::I64($body),
            $crate::Buffer::U8($v) => $crate::Buffer::U8($body),
            $crate::Buffer::U16($v) => $crate::Buffer::U16($body),
            $crate::Buffer::U32($v) => $crate::Buffer::U32($body),
            $crate::Buffer::U64($v) => $crate::Buffer::U64($body),
            $crate::Buffer::F16($v) => $crate::Buffer::F16($body),
            $crate::Buffer::F32($v) => $crate::Buffer::F32($body),
            $crate::Buffer::F64($v) => $crate::Buffer::F64($body),
            $crate::Buffer::Bool($v) => $crate::Buffer::Bool($body),
        }
    };
}

/// The elements of a value, flat and row-major, in one `Vec` of the element type.
#[derive(Clone, Debug, PartialEq)]
pub enum Buffer {
    /// `i8` elements.
    I8(Vec<i8>),
    /// `i16` elements.
    I16(Vec<i16>),
    /// `i32` elements.
    I32(Vec<i32>),
    /// `i64` elements.
    I64(Vec<i64>),
    /// `u8` elements.
    U8(Vec<u8>),
    /// `u16` elements.
    U16(Vec<u16>),
    /// `u32` elements.
    U32(Vec<u32>),
    /// `u64` elements.
    U64(Vec<u64>),
    /// `f16` elements.
    F16(Vec<f16>),
    /// `f32` elements.
    F32(Vec<f32>),
    /// `f64` elements.
    F64(Vec<f64>),
    /// `bool` elements.
    Bool(Vec<bool>),
}

impl Buffer {
    /// An empty buffer of the given element type.
    pub fn new(elem: PrimType) -> Buffer {
        Buffer::with_capacity(elem, 0)
    }

    /// An empty buffer with room for `capacity` elements.
    pub fn with_capacity(elem: PrimType, capacity: usize) -> Buffer {
        match elem {
            PrimType::I8 => Buffer::I8(Vec::with_capacity(capacity)),
            PrimType::I16 => Buffer::I16(Vec::with_capacity(capacity)),
            PrimType::I32 => Buffer::I32(Vec::with_capacity(capacity)),
            PrimType::I64 => Buffer::I64(Vec::with_capacity(capacity)),
            PrimType::U8 => Buffer::U8(Vec::with_capacity(capacity)),
            PrimType::U16 => Buffer::U16(Vec::with_capacity(capacity)),
            PrimType::U32 => Buffer::U32(Vec::with_capacity(capacity)),
            PrimType::U64 => Buffer::U64(Vec::with_capacity(capacity)),
            PrimType::F16 => Buffer::F16(Vec::with_capacity(capacity)),
            PrimType::F32 => Buffer::F32(Vec::with_capacity(capacity)),
            PrimType::F64 => Buffer::F64(Vec::with_capacity(capacity)),
            PrimType::Bool => Buffer::Bool(Vec::with_capacity(capacity)),
        }
    }

    /// `len` zeros (or `false`s) of the given element type.
    pub fn zeros(elem: PrimType, len: usize) -> Buffer {
        match elem {
            PrimType::I8 => Buffer::I8(vec![0; len]),
            PrimType::I16 => Buffer::I16(vec![0; len]),
            PrimType::I32 => Buffer::I32(vec![0; len]),
            PrimType::I64 => Buffer::I64(vec![0; len]),
            PrimType::U8 => Buffer::U8(vec![0; len]),
            PrimType::U16 => Buffer::U16(vec![0; len]),
            PrimType::U32 => Buffer::U32(vec![0; len]),
            PrimType::U64 => Buffer::U64(vec![0; len]),
            PrimType::F16 => Buffer::F16(vec![f16::ZERO; len]),
            PrimType::F32 => Buffer::F32(vec![0.0; len]),
            PrimType::F64 => Buffer::F64(vec![0.0; len]),
            PrimType::Bool => Buffer::Bool(vec![false; len]),
        }
    }

    /// The element type.
    pub fn elem_type(&self) -> PrimType {
        match self {
            Buffer::I8(_) => PrimType::I8,
            Buffer::I16(_) => PrimType::I16,
            Buffer::I32(_) => PrimType::I32,
            Buffer::I64(_) => PrimType::I64,
            Buffer::U8(_) => PrimType::U8,
            Buffer::U16(_) => PrimType::U16,
            Buffer::U32(_) => PrimType::U32,
            Buffer::U64(_) => PrimType::U64,
            Buffer::F16(_) => PrimType::F16,
            Buffer::F32(_) => PrimType::F32,
            Buffer::F64(_) => PrimType::F64,
            Buffer::Bool(_) => PrimType::Bool,
        }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        with_buffer!(self, v => v.len())
    }

    /// True when there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// A copy of the elements in `start..end`; `None` when the range is out of bounds.
    pub fn slice(&self, start: usize, end: usize) -> Option<Buffer> {
        if start > end || end > self.len() {
            return None;
        }
        Some(map_buffer!(self, v => v[start..end].to_vec()))
    }

    /// Appends the elements of `other`; fails (changing nothing) when the element types differ.
    pub fn extend_from(&mut self, other: &Buffer) -> Result<(), ShapeError> {
        macro_rules! ext {
            ($($var:ident),*) => {
                match (&mut *self, other) {
                    $((Buffer::$var(a), Buffer::$var(b)) => {
                        a.extend_from_slice(b);
                        Ok(())
                    })*
                    (a, b) => Err(ShapeError::TypeMismatch {
                        expected: a.elem_type(),
                        found: b.elem_type(),
                    }),
                }
            };
        }
        ext!(I8, I16, I32, I64, U8, U16, U32, U64, F16, F32, F64, Bool)
    }

    /// The elements as little-endian bytes (booleans as one byte 0 or 1): the payload of the
    /// binary format, and what a host-to-device copy sends.
    pub fn to_le_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.len() * self.elem_type().size_bytes());
        self.write_le_bytes(&mut out);
        out
    }

    /// Appends the elements as little-endian bytes to `out`.
    pub fn write_le_bytes(&self, out: &mut Vec<u8>) {
        match self {
            Buffer::I8(v) => out.extend(v.iter().map(|x| *x as u8)),
            Buffer::I16(v) => v
                .iter()
                .for_each(|x| out.extend_from_slice(&x.to_le_bytes())),
            Buffer::I32(v) => v
                .iter()
                .for_each(|x| out.extend_from_slice(&x.to_le_bytes())),
            Buffer::I64(v) => v
                .iter()
                .for_each(|x| out.extend_from_slice(&x.to_le_bytes())),
            Buffer::U8(v) => out.extend_from_slice(v),
            Buffer::U16(v) => v
                .iter()
                .for_each(|x| out.extend_from_slice(&x.to_le_bytes())),
            Buffer::U32(v) => v
                .iter()
                .for_each(|x| out.extend_from_slice(&x.to_le_bytes())),
            Buffer::U64(v) => v
                .iter()
                .for_each(|x| out.extend_from_slice(&x.to_le_bytes())),
            Buffer::F16(v) => v
                .iter()
                .for_each(|x| out.extend_from_slice(&x.to_le_bytes())),
            Buffer::F32(v) => v
                .iter()
                .for_each(|x| out.extend_from_slice(&x.to_le_bytes())),
            Buffer::F64(v) => v
                .iter()
                .for_each(|x| out.extend_from_slice(&x.to_le_bytes())),
            Buffer::Bool(v) => out.extend(v.iter().map(|x| u8::from(*x))),
        }
    }

    /// Decodes little-endian bytes into elements of type `elem`; `None` when the byte count is
    /// not a multiple of the element size. Any non-zero byte is `true` for booleans.
    pub fn from_le_bytes(elem: PrimType, bytes: &[u8]) -> Option<Buffer> {
        fn decode<T, const N: usize>(bytes: &[u8], f: impl Fn([u8; N]) -> T) -> Vec<T> {
            bytes
                .chunks_exact(N)
                .map(|c| {
                    let mut a = [0u8; N];
                    a.copy_from_slice(c);
                    f(a)
                })
                .collect()
        }
        if !bytes.chunks_exact(elem.size_bytes()).remainder().is_empty() {
            return None;
        }
        Some(match elem {
            PrimType::I8 => Buffer::I8(bytes.iter().map(|b| *b as i8).collect()),
            PrimType::I16 => Buffer::I16(decode(bytes, i16::from_le_bytes)),
            PrimType::I32 => Buffer::I32(decode(bytes, i32::from_le_bytes)),
            PrimType::I64 => Buffer::I64(decode(bytes, i64::from_le_bytes)),
            PrimType::U8 => Buffer::U8(bytes.to_vec()),
            PrimType::U16 => Buffer::U16(decode(bytes, u16::from_le_bytes)),
            PrimType::U32 => Buffer::U32(decode(bytes, u32::from_le_bytes)),
            PrimType::U64 => Buffer::U64(decode(bytes, u64::from_le_bytes)),
            PrimType::F16 => Buffer::F16(decode(bytes, f16::from_le_bytes)),
            PrimType::F32 => Buffer::F32(decode(bytes, f32::from_le_bytes)),
            PrimType::F64 => Buffer::F64(decode(bytes, f64::from_le_bytes)),
            PrimType::Bool => Buffer::Bool(bytes.iter().map(|b| *b != 0).collect()),
        })
    }
}

mod sealed {
    pub trait Sealed {}
}

/// A Rust scalar type that is the element type of one [`Buffer`] variant: `i8`..`u64`,
/// [`half::f16`], `f32`, `f64` and `bool`. Sealed; used for typed access to values.
pub trait Element: Copy + PartialEq + fmt::Debug + Send + Sync + 'static + sealed::Sealed {
    /// The primitive type this Rust type represents.
    const PRIM: PrimType;
    /// The elements, when `buf` holds this type.
    fn slice(buf: &Buffer) -> Option<&[Self]>;
    /// The elements, mutably, when `buf` holds this type.
    fn slice_mut(buf: &mut Buffer) -> Option<&mut [Self]>;
    /// The vector, when `buf` holds this type; otherwise `buf` back.
    fn into_vec(buf: Buffer) -> Result<Vec<Self>, Buffer>;
    /// Wraps a vector in its buffer variant.
    fn into_buffer(v: Vec<Self>) -> Buffer;
}

macro_rules! element {
    ($t:ty, $var:ident) => {
        impl sealed::Sealed for $t {}
        impl Element for $t {
            const PRIM: PrimType = PrimType::$var;
            fn slice(buf: &Buffer) -> Option<&[Self]> {
                match buf {
                    Buffer::$var(v) => Some(v),
                    _ => None,
                }
            }
            fn slice_mut(buf: &mut Buffer) -> Option<&mut [Self]> {
                match buf {
                    Buffer::$var(v) => Some(v),
                    _ => None,
                }
            }
            fn into_vec(buf: Buffer) -> Result<Vec<Self>, Buffer> {
                match buf {
                    Buffer::$var(v) => Ok(v),
                    other => Err(other),
                }
            }
            fn into_buffer(v: Vec<Self>) -> Buffer {
                Buffer::$var(v)
            }
        }
        impl From<Vec<$t>> for Buffer {
            fn from(v: Vec<$t>) -> Buffer {
                Buffer::$var(v)
            }
        }
        impl From<$t> for Value {
            fn from(x: $t) -> Value {
                Value::scalar(x)
            }
        }
        impl From<Vec<$t>> for Value {
            fn from(v: Vec<$t>) -> Value {
                Value::from_vec1(v)
            }
        }
    };
}

element!(i8, I8);
element!(i16, I16);
element!(i32, I32);
element!(i64, I64);
element!(u8, U8);
element!(u16, U16);
element!(u32, U32);
element!(u64, U64);
element!(f16, F16);
element!(f32, F32);
element!(f64, F64);
element!(bool, Bool);

/// Why a value could not be built from the given parts.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ShapeError {
    /// The buffer's length is not the product of the shape.
    #[error("shape {shape:?} needs {expected} elements but the buffer has {found}")]
    ElementCount {
        /// The shape asked for.
        shape: Vec<i64>,
        /// Its product (saturated at `usize::MAX`).
        expected: usize,
        /// The buffer's length.
        found: usize,
    },
    /// A dimension is negative.
    #[error("negative dimension {dim} in shape {shape:?}")]
    NegativeDim {
        /// The shape asked for.
        shape: Vec<i64>,
        /// The offending dimension.
        dim: i64,
    },
    /// The number of elements does not fit in memory's address space.
    #[error("shape {0:?} has more elements than fit in memory")]
    TooLarge(Vec<i64>),
    /// Two element types that should agree do not.
    #[error("element type {found} where {expected} was expected")]
    TypeMismatch {
        /// The type that was required.
        expected: PrimType,
        /// The type that was found.
        found: PrimType,
    },
    /// Rows of an array do not all have the same shape.
    #[error("irregular array: row {index} has shape {found:?} but row 0 has shape {expected:?}")]
    Irregular {
        /// Index of the first offending row.
        index: usize,
        /// The shape of row 0.
        expected: Vec<i64>,
        /// The shape of the offending row.
        found: Vec<i64>,
    },
    /// `from_rows` was given no rows and so cannot know the element type.
    #[error("cannot build an array from zero rows without knowing its type")]
    NoRows,
}

/// Number of elements of a shape, checked: `None` if a dimension is negative or the product
/// overflows `usize` (or `i64`).
pub fn shape_elems(shape: &[i64]) -> Option<usize> {
    let mut n: i64 = 1;
    for &d in shape {
        if d < 0 {
            return None;
        }
        n = n.checked_mul(d)?;
    }
    usize::try_from(n).ok()
}

/// The type of a value: its shape and element type, written like `[10][20]f32`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ValueType {
    /// One size per dimension, outermost first; empty for a scalar.
    pub shape: Vec<i64>,
    /// The element type.
    pub elem: PrimType,
}

impl ValueType {
    /// A type of the given shape and element type.
    pub fn new(shape: Vec<i64>, elem: PrimType) -> ValueType {
        ValueType { shape, elem }
    }

    /// The type of a scalar.
    pub fn scalar(elem: PrimType) -> ValueType {
        ValueType {
            shape: Vec::new(),
            elem,
        }
    }

    /// Number of dimensions.
    pub fn rank(&self) -> usize {
        self.shape.len()
    }

    /// Number of elements, or `None` if negative or too large (see [`shape_elems`]).
    pub fn elems(&self) -> Option<usize> {
        shape_elems(&self.shape)
    }
}

impl fmt::Display for ValueType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for d in &self.shape {
            write!(f, "[{d}]")?;
        }
        f.write_str(self.elem.name())
    }
}

/// A Futhark value: a shape plus a flat row-major buffer of elements (see the module doc for the
/// invariant). `PartialEq` compares floats with `==`, so NaN differs from itself: use
/// [`Value::bit_eq`] for exact identity or [`crate::compare`] for result checking.
#[derive(Clone, Debug, PartialEq)]
pub struct Value {
    shape: Vec<i64>,
    data: Buffer,
}

impl Value {
    /// Builds a value, checking that `data` has exactly `∏ shape` elements.
    pub fn new(shape: Vec<i64>, data: Buffer) -> Result<Value, ShapeError> {
        if let Some(&dim) = shape.iter().find(|d| **d < 0) {
            return Err(ShapeError::NegativeDim { shape, dim });
        }
        let Some(expected) = shape_elems(&shape) else {
            return Err(ShapeError::TooLarge(shape));
        };
        if expected != data.len() {
            return Err(ShapeError::ElementCount {
                shape,
                expected,
                found: data.len(),
            });
        }
        Ok(Value { shape, data })
    }

    /// A scalar value.
    pub fn scalar<T: Element>(x: T) -> Value {
        Value {
            shape: Vec::new(),
            data: T::into_buffer(vec![x]),
        }
    }

    /// A one-dimensional array holding `v`.
    pub fn from_vec1<T: Element>(v: Vec<T>) -> Value {
        Value {
            // A Vec never holds more than isize::MAX elements, so this cannot wrap.
            shape: vec![v.len() as i64],
            data: T::into_buffer(v),
        }
    }

    /// An array of the given shape holding `v` in row-major order.
    pub fn from_vec<T: Element>(shape: Vec<i64>, v: Vec<T>) -> Result<Value, ShapeError> {
        Value::new(shape, T::into_buffer(v))
    }

    /// A value of type `ty` filled with zeros (or `false`).
    pub fn zeros(ty: &ValueType) -> Result<Value, ShapeError> {
        let n = ty
            .elems()
            .ok_or_else(|| ShapeError::TooLarge(ty.shape.clone()))?;
        Value::new(ty.shape.clone(), Buffer::zeros(ty.elem, n))
    }

    /// An array with no elements of type `ty`; `ty` must have a zero dimension.
    pub fn empty(ty: &ValueType) -> Result<Value, ShapeError> {
        Value::new(ty.shape.clone(), Buffer::new(ty.elem))
    }

    /// The shape: one size per dimension, outermost first; empty for a scalar.
    pub fn shape(&self) -> &[i64] {
        &self.shape
    }

    /// The flat element buffer.
    pub fn data(&self) -> &Buffer {
        &self.data
    }

    /// Takes the value apart into its shape and buffer.
    pub fn into_parts(self) -> (Vec<i64>, Buffer) {
        (self.shape, self.data)
    }

    /// The element type.
    pub fn elem_type(&self) -> PrimType {
        self.data.elem_type()
    }

    /// The type: shape and element type.
    pub fn value_type(&self) -> ValueType {
        ValueType {
            shape: self.shape.clone(),
            elem: self.elem_type(),
        }
    }

    /// Number of dimensions (0 for a scalar).
    pub fn rank(&self) -> usize {
        self.shape.len()
    }

    /// True for a scalar (rank 0).
    pub fn is_scalar(&self) -> bool {
        self.shape.is_empty()
    }

    /// Total number of scalar elements (the flat buffer's length; 1 for a scalar). For the
    /// outer dimension use [`Value::num_rows`].
    pub fn len(&self) -> usize {
        self.data.len()
    }

    /// True when the value has no elements (some dimension is 0).
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// The outer dimension; `None` for a scalar.
    pub fn num_rows(&self) -> Option<usize> {
        // Dimensions are non-negative and their product fits in usize (the invariant), so the
        // outer dimension fits too unless another dimension is 0; saturate in that case.
        self.shape
            .first()
            .map(|d| usize::try_from(*d).unwrap_or(usize::MAX))
    }

    /// Elements in one row (the product of all but the outer dimension); `None` for a scalar.
    pub fn row_len(&self) -> Option<usize> {
        if self.shape.is_empty() {
            None
        } else {
            shape_elems(&self.shape[1..])
        }
    }

    /// A copy of row `i` (rank one less); `None` for a scalar or when `i` is out of bounds.
    pub fn row(&self, i: usize) -> Option<Value> {
        let rows = self.num_rows()?;
        if i >= rows {
            return None;
        }
        let k = self.row_len()?;
        let start = i.checked_mul(k)?;
        let data = self.data.slice(start, start.checked_add(k)?)?;
        Some(Value {
            shape: self.shape[1..].to_vec(),
            data,
        })
    }

    /// Copies of all rows, in order; empty for a scalar.
    pub fn rows(&self) -> impl Iterator<Item = Value> + '_ {
        let n = if self.is_scalar() {
            0
        } else {
            self.num_rows().unwrap_or(0)
        };
        (0..n).filter_map(move |i| self.row(i))
    }

    /// Stacks rows of equal type and shape into an array of rank one more. Fails on zero rows
    /// (the type would be unknown: see [`Value::from_rows_typed`]) or irregular rows.
    pub fn from_rows(rows: Vec<Value>) -> Result<Value, ShapeError> {
        let row_type = rows.first().ok_or(ShapeError::NoRows)?.value_type();
        Value::from_rows_typed(&row_type, rows)
    }

    /// Like [`Value::from_rows`], with every row required to have type `row_type`; zero rows give
    /// an empty array.
    pub fn from_rows_typed(row_type: &ValueType, rows: Vec<Value>) -> Result<Value, ShapeError> {
        let k = row_type
            .elems()
            .ok_or_else(|| ShapeError::TooLarge(row_type.shape.clone()))?;
        let mut data = Buffer::with_capacity(row_type.elem, k.saturating_mul(rows.len()));
        for (index, row) in rows.iter().enumerate() {
            if row.elem_type() != row_type.elem {
                return Err(ShapeError::TypeMismatch {
                    expected: row_type.elem,
                    found: row.elem_type(),
                });
            }
            if row.shape != row_type.shape {
                return Err(ShapeError::Irregular {
                    index,
                    expected: row_type.shape.clone(),
                    found: row.shape.clone(),
                });
            }
            data.extend_from(&row.data)?;
        }
        let mut shape = Vec::with_capacity(row_type.shape.len() + 1);
        shape.push(rows.len() as i64);
        shape.extend_from_slice(&row_type.shape);
        Value::new(shape, data)
    }

    /// The same elements under another shape with the same number of elements.
    pub fn reshape(self, shape: Vec<i64>) -> Result<Value, ShapeError> {
        Value::new(shape, self.data)
    }

    /// The elements as a slice of `T`, if the element type is `T`.
    pub fn as_slice<T: Element>(&self) -> Option<&[T]> {
        T::slice(&self.data)
    }

    /// The elements as a mutable slice of `T`, if the element type is `T`. The length (and so the
    /// shape invariant) cannot change through it.
    pub fn as_mut_slice<T: Element>(&mut self) -> Option<&mut [T]> {
        T::slice_mut(&mut self.data)
    }

    /// The elements as a `Vec<T>` (row-major, shape dropped); the value back if the type differs.
    pub fn into_vec<T: Element>(self) -> Result<Vec<T>, Value> {
        let Value { shape, data } = self;
        T::into_vec(data).map_err(|data| Value { shape, data })
    }

    /// The element of a scalar of type `T`.
    pub fn to_scalar<T: Element>(&self) -> Option<T> {
        if self.is_scalar() {
            self.as_slice::<T>().and_then(|s| s.first().copied())
        } else {
            None
        }
    }

    /// Exact identity: same shape, same type, and the same bits in every element (so NaN equals
    /// a NaN with the same payload, and `0.0` differs from `-0.0`).
    pub fn bit_eq(&self, other: &Value) -> bool {
        if self.shape != other.shape {
            return false;
        }
        match (&self.data, &other.data) {
            (Buffer::F16(a), Buffer::F16(b)) => a
                .iter()
                .map(|x| x.to_bits())
                .eq(b.iter().map(|x| x.to_bits())),
            (Buffer::F32(a), Buffer::F32(b)) => a
                .iter()
                .map(|x| x.to_bits())
                .eq(b.iter().map(|x| x.to_bits())),
            (Buffer::F64(a), Buffer::F64(b)) => a
                .iter()
                .map(|x| x.to_bits())
                .eq(b.iter().map(|x| x.to_bits())),
            (a, b) => a == b,
        }
    }
}

impl fmt::Display for Value {
    /// The text format, exactly as [`crate::to_text`] writes it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&crate::text_write::to_text(self))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_checks_element_count() {
        assert!(Value::from_vec(vec![2, 3], vec![0i32; 6]).is_ok());
        assert!(matches!(
            Value::from_vec(vec![2, 3], vec![0i32; 5]),
            Err(ShapeError::ElementCount {
                expected: 6,
                found: 5,
                ..
            })
        ));
        assert!(matches!(
            Value::from_vec(vec![-1], Vec::<i32>::new()),
            Err(ShapeError::NegativeDim { dim: -1, .. })
        ));
        assert!(matches!(
            Value::from_vec(vec![1 << 40, 1 << 40], Vec::<i32>::new()),
            Err(ShapeError::TooLarge(_))
        ));
    }

    #[test]
    fn rows_and_from_rows() {
        let v = Value::from_vec(vec![3, 2], vec![1u8, 2, 3, 4, 5, 6]).unwrap();
        assert_eq!(v.num_rows(), Some(3));
        assert_eq!(v.row_len(), Some(2));
        assert_eq!(v.row(1).unwrap(), Value::from(vec![3u8, 4]));
        assert_eq!(v.row(3), None);
        let rows: Vec<Value> = v.rows().collect();
        assert_eq!(Value::from_rows(rows).unwrap(), v);
        assert_eq!(Value::scalar(1i32).row(0), None);
    }

    #[test]
    fn from_rows_rejects_irregular_and_mixed() {
        let a = Value::from(vec![1i32, 2]);
        let b = Value::from(vec![1i32]);
        assert!(matches!(
            Value::from_rows(vec![a.clone(), b]),
            Err(ShapeError::Irregular { index: 1, .. })
        ));
        let c = Value::from(vec![1i64, 2]);
        assert!(matches!(
            Value::from_rows(vec![a, c]),
            Err(ShapeError::TypeMismatch { .. })
        ));
        assert_eq!(Value::from_rows(vec![]), Err(ShapeError::NoRows));
        let t = ValueType::new(vec![3], PrimType::F32);
        let e = Value::from_rows_typed(&t, vec![]).unwrap();
        assert_eq!(e.shape(), &[0, 3]);
    }

    #[test]
    fn typed_access() {
        let mut v = Value::from(vec![1.5f32, 2.5]);
        assert_eq!(v.as_slice::<f32>(), Some(&[1.5f32, 2.5][..]));
        assert_eq!(v.as_slice::<f64>(), None);
        if let Some(s) = v.as_mut_slice::<f32>() {
            s[0] = 9.0;
        }
        assert_eq!(v.clone().into_vec::<f32>().unwrap(), vec![9.0, 2.5]);
        assert!(v.into_vec::<i32>().is_err());
        assert_eq!(Value::scalar(true).to_scalar::<bool>(), Some(true));
        assert_eq!(Value::scalar(7u64).to_scalar::<u64>(), Some(7));
    }

    #[test]
    fn le_bytes_round_trip() {
        let b = Buffer::I16(vec![1, -2, 300]);
        let bytes = b.to_le_bytes();
        assert_eq!(bytes, vec![1, 0, 0xfe, 0xff, 0x2c, 0x01]);
        assert_eq!(Buffer::from_le_bytes(PrimType::I16, &bytes), Some(b));
        assert_eq!(Buffer::from_le_bytes(PrimType::I16, &[1, 2, 3]), None);
    }

    #[test]
    fn bit_eq_sees_nan_and_negative_zero() {
        let a = Value::scalar(f32::NAN);
        assert!(a.bit_eq(&a.clone()));
        assert_ne!(a, a.clone());
        assert!(!Value::scalar(0.0f64).bit_eq(&Value::scalar(-0.0f64)));
    }
}
