//! Values as typed flat buffers plus shape; text and binary formats; tolerance comparison; random data.
//!
//! A [`Value`] is a shape and one flat, row-major [`Buffer`] holding a `Vec` of the element type,
//! never a `Vec<Value>` per element, so an interpreter can work on slices at native speed and a
//! copy to a device is one memcpy. The crate reads and writes Futhark's data formats:
//!
//! - [`read_values`] / [`read_file`]: any number of concatenated values, text and binary mixed,
//!   `.gz` files gunzipped; errors give byte offset and line:column.
//! - [`to_text`] / [`write_text`]: the reference runtime's text output (`4i32`, `1.5f32`, ...).
//! - [`to_binary`] / [`write_binary`]: the binary format.
//! - [`compare`]: the test runner's tolerance comparison.
//! - [`generate`]: random values of a [`ValueType`] such as `[10][20]f32`.
//!
//! **Invariant:** every `Value` satisfies `len(buffer) == ∏ shape` with no negative dimension.
//! **Invariant:** no input makes a reader panic or allocate more than the input could fill.

#![warn(missing_docs)]
// No input may make the library panic; tests are free to unwrap.
#![cfg_attr(
    not(test),
    warn(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

mod binary;
mod compare;
mod error;
mod file;
mod random;
pub mod special;
mod text_read;
mod text_write;
mod value;

pub use binary::{BINARY_VERSION, to_binary, write_binary, write_binary_to};
pub use compare::{
    Mismatch, MismatchKind, TOLERANCE, compare, compare_values, compare_with_tolerance,
    float_tolerance,
};
pub use error::{BinaryError, DataError, Location, TextError};
pub use file::{read_file, read_file_bytes};
pub use futhark_prim::{PrimType, UnknownPrimType};
pub use half::f16;
pub use random::{Bound, Bounds, BoundsError, Rng, generate, generate_with};
pub use text_read::{Reader, parse_type, read_value, read_values, read_values_from};
pub use text_write::{
    F32_DIGITS, F64_DIGITS, to_text, write_elem, write_float, write_text, write_text_to,
};
pub use value::{Buffer, Element, ShapeError, Value, ValueType, shape_elems};
