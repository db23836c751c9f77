//! The binary data format: `b`, version byte 2, rank byte, four-byte type tag, `i64` little-endian
//! dimensions, then the elements little-endian (booleans one byte each).
//!
//! The reader checks every size against the bytes actually present before allocating, so a header
//! claiming 2^62 elements is an error, not an allocation.

use std::io;

use crate::error::{BinaryError, DataError};
use crate::value::{Buffer, Value, shape_elems};
use futhark_prim::PrimType;

/// The only binary format version there is.
pub const BINARY_VERSION: u8 = 2;

/// Length of the fixed header: `b`, version, rank and the four-byte tag.
const HEADER_LEN: usize = 7;

/// Appends the binary encoding of `v` to `out`.
pub fn write_binary(v: &Value, out: &mut Vec<u8>) {
    out.reserve(HEADER_LEN + 8 * v.rank() + v.len() * v.elem_type().size_bytes());
    out.push(b'b');
    out.push(BINARY_VERSION);
    // A rank above 255 cannot be written; values of that rank do not occur (Futhark's limit is
    // far lower), so the byte is truncated rather than made an error.
    out.push(v.rank() as u8);
    out.extend_from_slice(&v.elem_type().binary_tag());
    for d in v.shape() {
        out.extend_from_slice(&d.to_le_bytes());
    }
    v.data().write_le_bytes(out);
}

/// The binary encoding of `v`.
pub fn to_binary(v: &Value) -> Vec<u8> {
    let mut out = Vec::new();
    write_binary(v, &mut out);
    out
}

/// Writes the binary encoding of `v` to `w`.
pub fn write_binary_to(v: &Value, w: &mut impl io::Write) -> io::Result<()> {
    w.write_all(&to_binary(v))
}

fn err(offset: usize, kind: BinaryError) -> DataError {
    DataError::Binary { offset, kind }
}

fn take<'a>(
    input: &'a [u8],
    pos: usize,
    n: usize,
    what: &'static str,
) -> Result<&'a [u8], DataError> {
    let available = input.len().saturating_sub(pos);
    if n > available {
        return Err(err(
            pos,
            BinaryError::Truncated {
                what,
                needed: n,
                available,
            },
        ));
    }
    Ok(&input[pos..pos + n])
}

/// Reads one binary value starting at `start` (where `input[start]` is `b`); returns the value
/// and the offset just past it. Offsets in errors are from the start of `input`.
pub(crate) fn read_binary_at(input: &[u8], start: usize) -> Result<(Value, usize), DataError> {
    let version = take(input, start + 1, 1, "version")?[0];
    if version != BINARY_VERSION {
        return Err(err(start + 1, BinaryError::BadVersion(version)));
    }
    let header = take(input, start, HEADER_LEN, "header")?;
    let rank_byte = header[2];
    if rank_byte > 127 {
        return Err(err(start + 2, BinaryError::BadRank(rank_byte)));
    }
    let rank = usize::from(rank_byte);
    let tag = [header[3], header[4], header[5], header[6]];
    let elem = PrimType::from_binary_tag(tag).ok_or_else(|| {
        err(
            start + 3,
            BinaryError::UnknownTag {
                tag: String::from_utf8_lossy(&tag).into_owned(),
            },
        )
    })?;
    let dims_at = start + HEADER_LEN;
    let dims = take(input, dims_at, 8 * rank, "dimensions")?;
    let mut shape = Vec::with_capacity(rank);
    for (index, chunk) in dims.chunks_exact(8).enumerate() {
        let mut a = [0u8; 8];
        a.copy_from_slice(chunk);
        let dim = i64::from_le_bytes(a);
        if dim < 0 {
            return Err(err(
                dims_at + 8 * index,
                BinaryError::NegativeDim { index, dim },
            ));
        }
        shape.push(dim);
    }
    let too_large = || {
        err(
            dims_at,
            BinaryError::TooLarge {
                shape: shape.clone(),
                elem,
            },
        )
    };
    let count = shape_elems(&shape).ok_or_else(too_large)?;
    let nbytes = count.checked_mul(elem.size_bytes()).ok_or_else(too_large)?;
    let data_at = dims_at + 8 * rank;
    let bytes = take(input, data_at, nbytes, "elements")?;
    let data = Buffer::from_le_bytes(elem, bytes).ok_or_else(too_large)?;
    let value = Value::new(shape.clone(), data).map_err(|_| too_large())?;
    Ok((value, data_at + nbytes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use half::f16;

    fn read_one(bytes: &[u8]) -> Result<Value, DataError> {
        read_binary_at(bytes, 0).map(|(v, _)| v)
    }

    fn kind(e: DataError) -> (usize, BinaryError) {
        match e {
            DataError::Binary { offset, kind } => (offset, kind),
            other => panic!("not a binary error: {other}"),
        }
    }

    #[test]
    fn writes_the_documented_layout() {
        let v = Value::from(vec![1i32, 2]);
        let mut expected = vec![b'b', 2, 1, b' ', b'i', b'3', b'2'];
        expected.extend_from_slice(&2i64.to_le_bytes());
        expected.extend_from_slice(&[1, 0, 0, 0, 2, 0, 0, 0]);
        assert_eq!(to_binary(&v), expected);
        assert_eq!(
            to_binary(&Value::scalar(true)),
            vec![b'b', 2, 0, b'b', b'o', b'o', b'l', 1]
        );
    }

    #[test]
    fn reads_what_it_writes() {
        let vs = [
            Value::from_vec(vec![2, 2], vec![1.5f64, -0.0, f64::INFINITY, f64::NAN]).unwrap(),
            Value::scalar(f16::from_f32(0.5)),
            Value::from_vec(vec![0, 3], Vec::<u64>::new()).unwrap(),
            Value::from(vec![true, false]),
        ];
        for v in vs {
            let bytes = to_binary(&v);
            let (back, end) = read_binary_at(&bytes, 0).unwrap();
            assert!(back.bit_eq(&v), "{v:?} vs {back:?}");
            assert_eq!(end, bytes.len());
        }
    }

    #[test]
    fn bad_version() {
        assert_eq!(
            kind(read_one(b"b\x01\x00 i32\x00\x00\x00\x00").unwrap_err()),
            (1, BinaryError::BadVersion(1))
        );
    }

    #[test]
    fn unknown_tag() {
        let (off, k) = kind(read_one(b"b\x02\x00 i33\x00\x00\x00\x00").unwrap_err());
        assert_eq!(off, 3);
        assert!(matches!(k, BinaryError::UnknownTag { .. }));
    }

    #[test]
    fn bad_rank() {
        assert_eq!(
            kind(read_one(b"b\x02\xff i32").unwrap_err()),
            (2, BinaryError::BadRank(255))
        );
    }

    #[test]
    fn truncated_everywhere() {
        let full = to_binary(&Value::from(vec![1u16, 2, 3]));
        for cut in 1..full.len() {
            let (_, k) = kind(read_one(&full[..cut]).unwrap_err());
            assert!(matches!(k, BinaryError::Truncated { .. }), "cut {cut}: {k}");
        }
    }

    #[test]
    fn huge_claims_do_not_allocate() {
        let mut b = vec![b'b', 2, 1, b' ', b'f', b'6', b'4'];
        b.extend_from_slice(&(1i64 << 62).to_le_bytes());
        let (off, k) = kind(read_one(&b).unwrap_err());
        assert_eq!(off, 7);
        assert!(matches!(k, BinaryError::TooLarge { .. }));

        let mut b = vec![b'b', 2, 2, b' ', b'i', b'3', b'2'];
        b.extend_from_slice(&(1i64 << 40).to_le_bytes());
        b.extend_from_slice(&(1i64 << 20).to_le_bytes());
        let (_, k) = kind(read_one(&b).unwrap_err());
        assert!(matches!(
            k,
            BinaryError::Truncated {
                what: "elements",
                ..
            }
        ));
    }

    #[test]
    fn negative_dim() {
        let mut b = vec![b'b', 2, 1, b' ', b'i', b'3', b'2'];
        b.extend_from_slice(&(-3i64).to_le_bytes());
        assert_eq!(
            kind(read_one(&b).unwrap_err()),
            (7, BinaryError::NegativeDim { index: 0, dim: -3 })
        );
    }
}
