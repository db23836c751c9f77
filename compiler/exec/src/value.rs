//! Values of host code: scalars, and arrays whose elements live on the host or wherever the
//! backend's kernels put them.

use std::rc::Rc;

use futhark_ir::types::{PrimType, PrimValue};
use futhark_values::Buffer;

/// Where an array's elements are.
#[derive(Clone, Debug)]
pub enum Data<D> {
    /// In host memory (shared: updates copy when another value still holds it).
    Host(Rc<Buffer>),
    /// In the backend's memory.
    Device(D),
    /// In both, with the same elements (a device array that host code has read).
    Mirrored { host: Rc<Buffer>, device: D },
}

/// A regular array: element type, shape (outermost first) and row-major elements.
#[derive(Clone, Debug)]
pub struct Array<D> {
    pub elem: PrimType,
    pub shape: Vec<i64>,
    pub data: Data<D>,
}

impl<D> Array<D> {
    /// A host array.
    pub fn host(elem: PrimType, shape: Vec<i64>, buf: Buffer) -> Array<D> {
        Array {
            elem,
            shape,
            data: Data::Host(Rc::new(buf)),
        }
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        elems(&self.shape)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The element count of a shape (negative extents count as empty).
pub fn elems(shape: &[i64]) -> usize {
    shape.iter().map(|&d| d.max(0) as usize).product()
}

/// A value of host code.
#[derive(Clone, Debug)]
pub enum Val<D> {
    Prim(PrimValue),
    Arr(Array<D>),
}

impl<D> Val<D> {
    /// The shape (empty for scalars).
    pub fn shape(&self) -> &[i64] {
        match self {
            Val::Prim(_) => &[],
            Val::Arr(a) => &a.shape,
        }
    }

    pub fn elem(&self) -> PrimType {
        match self {
            Val::Prim(p) => p.ty(),
            Val::Arr(a) => a.elem,
        }
    }
}

/// `[a, b]` as Futhark prints shapes in messages: `[2][3]`.
pub fn show_shape(shape: &[i64]) -> String {
    shape.iter().map(|d| format!("[{d}]")).collect()
}
