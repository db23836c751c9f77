//! Futhark's twelve primitive scalar types: the one [`PrimType`] that the type checker, the
//! IR (and everything after it) and the data formats share, with their names, sizes and the
//! binary data format's type tags.
//!
//! The type derives no `Ord`: where an order of the types means something (the binary
//! format's table, the checker's overload lists, the kernels a sample generates), it is an
//! explicit table ([`PrimType::ALL`], [`PrimType::SIGNED`], …, or the user's own).

use std::fmt;
use std::str::FromStr;

/// A primitive (scalar) type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PrimType {
    /// Signed 8-bit integer.
    I8,
    /// Signed 16-bit integer.
    I16,
    /// Signed 32-bit integer.
    I32,
    /// Signed 64-bit integer.
    I64,
    /// Unsigned 8-bit integer.
    U8,
    /// Unsigned 16-bit integer.
    U16,
    /// Unsigned 32-bit integer.
    U32,
    /// Unsigned 64-bit integer.
    U64,
    /// IEEE 754 half precision float.
    F16,
    /// IEEE 754 single precision float.
    F32,
    /// IEEE 754 double precision float.
    F64,
    /// Boolean; one byte (0 or 1) in memory and in the binary format.
    Bool,
}

impl PrimType {
    /// Every primitive type: the integers (signed first), the floats, then `bool` — the
    /// order of the binary data format's table and of the checker's overloads.
    pub const ALL: [PrimType; 12] = [
        PrimType::I8,
        PrimType::I16,
        PrimType::I32,
        PrimType::I64,
        PrimType::U8,
        PrimType::U16,
        PrimType::U32,
        PrimType::U64,
        PrimType::F16,
        PrimType::F32,
        PrimType::F64,
        PrimType::Bool,
    ];

    /// The signed integer types, narrowest first.
    pub const SIGNED: [PrimType; 4] = [PrimType::I8, PrimType::I16, PrimType::I32, PrimType::I64];

    /// The unsigned integer types, narrowest first.
    pub const UNSIGNED: [PrimType; 4] = [PrimType::U8, PrimType::U16, PrimType::U32, PrimType::U64];

    /// The floating-point types, narrowest first.
    pub const FLOATS: [PrimType; 3] = [PrimType::F16, PrimType::F32, PrimType::F64];

    /// All integer types, signed first.
    pub fn integers() -> Vec<PrimType> {
        let mut v = PrimType::SIGNED.to_vec();
        v.extend(PrimType::UNSIGNED);
        v
    }

    /// All numeric types (the integers, then the floats).
    pub fn numeric() -> Vec<PrimType> {
        let mut v = PrimType::integers();
        v.extend(PrimType::FLOATS);
        v
    }

    /// The name as written in Futhark source and as a literal suffix: `"i32"`, `"bool"`, …
    pub fn name(self) -> &'static str {
        match self {
            PrimType::I8 => "i8",
            PrimType::I16 => "i16",
            PrimType::I32 => "i32",
            PrimType::I64 => "i64",
            PrimType::U8 => "u8",
            PrimType::U16 => "u16",
            PrimType::U32 => "u32",
            PrimType::U64 => "u64",
            PrimType::F16 => "f16",
            PrimType::F32 => "f32",
            PrimType::F64 => "f64",
            PrimType::Bool => "bool",
        }
    }

    /// The type called `name` (`"i32"`, `"bool"`); `None` for anything else.
    pub fn from_name(name: &str) -> Option<PrimType> {
        PrimType::from_name_bytes(name.as_bytes())
    }

    /// Like [`PrimType::from_name`], on raw bytes.
    pub fn from_name_bytes(name: &[u8]) -> Option<PrimType> {
        PrimType::ALL
            .into_iter()
            .find(|t| t.name().as_bytes() == name)
    }

    /// Size of one element in bytes, in memory and in the binary format (`bool`: 1).
    pub fn size_bytes(self) -> usize {
        match self {
            PrimType::I8 | PrimType::U8 | PrimType::Bool => 1,
            PrimType::I16 | PrimType::U16 | PrimType::F16 => 2,
            PrimType::I32 | PrimType::U32 | PrimType::F32 => 4,
            PrimType::I64 | PrimType::U64 | PrimType::F64 => 8,
        }
    }

    /// Width in bits (8 for `bool`).
    pub fn bits(self) -> u32 {
        (self.size_bytes() * 8) as u32
    }

    /// True for the eight integer types.
    pub fn is_int(self) -> bool {
        self.is_signed() || self.is_unsigned()
    }

    /// True for `i8`..`i64`.
    pub fn is_signed(self) -> bool {
        matches!(
            self,
            PrimType::I8 | PrimType::I16 | PrimType::I32 | PrimType::I64
        )
    }

    /// True for `u8`..`u64`.
    pub fn is_unsigned(self) -> bool {
        matches!(
            self,
            PrimType::U8 | PrimType::U16 | PrimType::U32 | PrimType::U64
        )
    }

    /// True for `f16`, `f32` and `f64`.
    pub fn is_float(self) -> bool {
        matches!(self, PrimType::F16 | PrimType::F32 | PrimType::F64)
    }

    /// The four-byte type tag of the binary data format: the name right-aligned with spaces.
    pub fn binary_tag(self) -> [u8; 4] {
        let name = self.name().as_bytes();
        let mut tag = [b' '; 4];
        tag[4 - name.len()..].copy_from_slice(name);
        tag
    }

    /// The type whose binary tag is exactly `tag`, if any.
    pub fn from_binary_tag(tag: [u8; 4]) -> Option<PrimType> {
        PrimType::ALL.into_iter().find(|t| t.binary_tag() == tag)
    }
}

impl fmt::Display for PrimType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The error of parsing a [`PrimType`] from a string that names no primitive type.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown primitive type `{0}` (expected one of i8 i16 i32 i64 u8 u16 u32 u64 f16 f32 f64 bool)"
)]
pub struct UnknownPrimType(pub String);

impl FromStr for PrimType {
    type Err = UnknownPrimType;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        PrimType::from_name(s).ok_or_else(|| UnknownPrimType(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for t in PrimType::ALL {
            assert_eq!(t.name().parse::<PrimType>(), Ok(t));
            assert_eq!(PrimType::from_name_bytes(t.name().as_bytes()), Some(t));
            assert_eq!(PrimType::from_binary_tag(t.binary_tag()), Some(t));
        }
        assert!("int".parse::<PrimType>().is_err());
        assert_eq!(PrimType::from_name("I32"), None);
    }

    #[test]
    fn tags_are_right_aligned() {
        assert_eq!(&PrimType::I8.binary_tag(), b"  i8");
        assert_eq!(&PrimType::F32.binary_tag(), b" f32");
        assert_eq!(&PrimType::Bool.binary_tag(), b"bool");
        assert_eq!(PrimType::from_binary_tag(*b"i32 "), None);
    }

    #[test]
    fn sizes() {
        assert_eq!(PrimType::Bool.size_bytes(), 1);
        assert_eq!(PrimType::F16.size_bytes(), 2);
        assert_eq!(PrimType::U32.size_bytes(), 4);
        assert_eq!(PrimType::I64.size_bytes(), 8);
        assert_eq!(PrimType::F64.bits(), 64);
    }

    #[test]
    fn classes_partition_the_types() {
        for t in PrimType::ALL {
            let classes = [
                t.is_signed(),
                t.is_unsigned(),
                t.is_float(),
                t == PrimType::Bool,
            ];
            assert_eq!(classes.iter().filter(|c| **c).count(), 1, "{t}");
            assert_eq!(t.is_int(), t.is_signed() || t.is_unsigned(), "{t}");
        }
        assert_eq!(PrimType::integers().len(), 8);
        assert_eq!(PrimType::numeric().len(), 11);
        assert!(!PrimType::numeric().contains(&PrimType::Bool));
    }

    #[test]
    fn the_binary_table_order_is_fixed() {
        // The data format's table and the checker's overload defaults depend on it.
        let names: Vec<&str> = PrimType::ALL.iter().map(|t| t.name()).collect();
        assert_eq!(
            names.join(" "),
            "i8 i16 i32 i64 u8 u16 u32 u64 f16 f32 f64 bool"
        );
    }
}
