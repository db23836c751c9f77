//! Property tests: random values of every element type and rank 0..3 survive the text and binary
//! formats, and no input, however malformed, makes the reader panic.

use futhark_values::{Buffer, PrimType, Value, f16, read_value, read_values, to_binary, to_text};
use proptest::prelude::*;

/// Builds a value of type `prim` and `shape` from raw random bits, so floats cover NaN,
/// infinities, negative zero and subnormals as well as ordinary numbers.
fn from_bits(prim: PrimType, shape: Vec<i64>, bits: &[u64]) -> Value {
    let data = match prim {
        PrimType::I8 => Buffer::I8(bits.iter().map(|b| *b as i8).collect()),
        PrimType::I16 => Buffer::I16(bits.iter().map(|b| *b as i16).collect()),
        PrimType::I32 => Buffer::I32(bits.iter().map(|b| *b as i32).collect()),
        PrimType::I64 => Buffer::I64(bits.iter().map(|b| *b as i64).collect()),
        PrimType::U8 => Buffer::U8(bits.iter().map(|b| *b as u8).collect()),
        PrimType::U16 => Buffer::U16(bits.iter().map(|b| *b as u16).collect()),
        PrimType::U32 => Buffer::U32(bits.iter().map(|b| *b as u32).collect()),
        PrimType::U64 => Buffer::U64(bits.to_vec()),
        PrimType::F16 => Buffer::F16(bits.iter().map(|b| f16::from_bits(*b as u16)).collect()),
        PrimType::F32 => Buffer::F32(bits.iter().map(|b| f32::from_bits(*b as u32)).collect()),
        PrimType::F64 => Buffer::F64(bits.iter().map(|b| f64::from_bits(*b)).collect()),
        PrimType::Bool => Buffer::Bool(bits.iter().map(|b| b & 1 == 1).collect()),
    };
    Value::new(shape, data).expect("shape and data agree by construction")
}

/// Special values mixed into the random bits: zeros, ones, NaN, infinities, extremes.
fn special_bits(prim: PrimType) -> Vec<u64> {
    match prim {
        PrimType::F16 => [
            0x0000u16, 0x8000, 0x3c00, 0x7c00, 0xfc00, 0x7e00, 0x0001, 0x7bff,
        ]
        .map(u64::from)
        .to_vec(),
        PrimType::F32 => [
            0u32,
            0x8000_0000,
            0x3f80_0000,
            0x7f80_0000,
            0xff80_0000,
            0x7fc0_0000,
            1,
            0x7f7f_ffff,
        ]
        .map(u64::from)
        .to_vec(),
        PrimType::F64 => vec![
            0,
            0x8000_0000_0000_0000,
            1.0f64.to_bits(),
            f64::INFINITY.to_bits(),
            f64::NEG_INFINITY.to_bits(),
            f64::NAN.to_bits(),
            1,
            f64::MAX.to_bits(),
            0.1f64.to_bits(),
        ],
        _ => vec![0, 1, u64::MAX, 1 << 63, (1 << 63) - 1, 0x80, 0x7f, 0x8000],
    }
}

fn arb_value() -> impl Strategy<Value = Value> {
    (
        proptest::sample::select(PrimType::ALL.to_vec()),
        proptest::collection::vec(0i64..4, 0..=3),
    )
        .prop_flat_map(|(prim, shape)| {
            let n = shape.iter().product::<i64>() as usize;
            let specials = special_bits(prim);
            let elem = prop_oneof![
                3 => any::<u64>(),
                1 => proptest::sample::select(specials),
                1 => (-1000i64..1000).prop_map(|x| x as u64),
            ];
            proptest::collection::vec(elem, n)
                .prop_map(move |bits| from_bits(prim, shape.clone(), &bits))
        })
}

/// Bit-exact equality, except that any NaN equals any NaN (the text format has one NaN).
fn same_modulo_nan_payload(a: &Value, b: &Value) -> bool {
    if a.shape() != b.shape() {
        return false;
    }
    match (a.data(), b.data()) {
        (Buffer::F16(x), Buffer::F16(y)) => x
            .iter()
            .zip(y)
            .all(|(p, q)| (p.is_nan() && q.is_nan()) || p.to_bits() == q.to_bits()),
        (Buffer::F32(x), Buffer::F32(y)) => x
            .iter()
            .zip(y)
            .all(|(p, q)| (p.is_nan() && q.is_nan()) || p.to_bits() == q.to_bits()),
        (Buffer::F64(x), Buffer::F64(y)) => x
            .iter()
            .zip(y)
            .all(|(p, q)| (p.is_nan() && q.is_nan()) || p.to_bits() == q.to_bits()),
        (x, y) => x == y,
    }
}

proptest! {
    #[test]
    fn text_round_trip(v in arb_value()) {
        let text = to_text(&v);
        let back = read_value(text.as_bytes())
            .map_err(|e| TestCaseError::fail(format!("{text}: {e}")))?;
        prop_assert!(same_modulo_nan_payload(&v, &back), "{text}\n{v:?}\n{back:?}");
        // Writing again gives the same text.
        prop_assert_eq!(to_text(&back), text);
    }

    #[test]
    fn binary_round_trip(v in arb_value()) {
        let bytes = to_binary(&v);
        let back = read_value(&bytes)
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert!(v.bit_eq(&back), "{v:?}\n{back:?}");
    }

    #[test]
    fn concatenated_mixed_round_trip(vs in proptest::collection::vec((arb_value(), any::<bool>()), 0..5)) {
        let mut input = Vec::new();
        for (v, binary) in &vs {
            if *binary {
                input.extend(to_binary(v));
            } else {
                input.extend(to_text(v).as_bytes());
            }
            input.extend(b" -- comment\n");
        }
        let back = read_values(&input).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(back.len(), vs.len());
        for ((v, _), b) in vs.iter().zip(&back) {
            prop_assert!(same_modulo_nan_payload(v, b));
        }
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
        let _ = read_values(&bytes);
    }

    #[test]
    fn arbitrary_text_never_panics(s in "[\\[\\]0-9a-z_.,\" \\-+()\\\\\n]{0,40}") {
        let _ = read_values(s.as_bytes());
    }

    #[test]
    fn corrupted_values_never_panic(v in arb_value(), binary in any::<bool>(), at in any::<usize>(), byte in any::<u8>(), cut in any::<usize>()) {
        let mut input = if binary { to_binary(&v) } else { to_text(&v).into_bytes() };
        if !input.is_empty() {
            let i = at % input.len();
            input[i] = byte;
            input.truncate(cut % (input.len() + 1));
        }
        let _ = read_values(&input);
    }
}

#[test]
fn f32_nine_digits_round_trip_exactly() {
    // Sweep a spread of f32 bit patterns, including awkward ones near powers of ten.
    let mut x: u32 = 1;
    for _ in 0..200_000 {
        x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        let f = f32::from_bits(x);
        if !f.is_finite() {
            continue;
        }
        let text = to_text(&Value::scalar(f));
        let back = read_value(text.as_bytes()).unwrap();
        assert_eq!(
            back.to_scalar::<f32>().map(f32::to_bits),
            Some(f.to_bits()),
            "{text}"
        );
    }
}
