//! Unit tests of the text reader: each literal form, each error class, and type strings.

use super::*;

fn one(s: &str) -> Value {
    match read_value(s.as_bytes()) {
        Ok(v) => v,
        Err(e) => panic!("{s:?}: {e}"),
    }
}

fn text_err(s: &str) -> (Location, TextError) {
    match read_values(s.as_bytes()) {
        Err(DataError::Text { at, kind }) => (at, kind),
        Err(e) => panic!("{s:?}: not a text error: {e}"),
        Ok(v) => panic!("{s:?}: unexpectedly read {v:?}"),
    }
}

#[test]
fn integer_literals() {
    assert_eq!(one("4"), Value::scalar(4i32));
    assert_eq!(one("-4"), Value::scalar(-4i32));
    assert_eq!(one("+4"), Value::scalar(4i32));
    assert_eq!(one("4i8"), Value::scalar(4i8));
    assert_eq!(one("4i16"), Value::scalar(4i16));
    assert_eq!(one("4i64"), Value::scalar(4i64));
    assert_eq!(one("4u8"), Value::scalar(4u8));
    assert_eq!(one("4u16"), Value::scalar(4u16));
    assert_eq!(one("4u32"), Value::scalar(4u32));
    assert_eq!(one("4u64"), Value::scalar(4u64));
    assert_eq!(one("1_000_000"), Value::scalar(1_000_000i32));
    assert_eq!(one("0xff"), Value::scalar(255i32));
    assert_eq!(one("0XFFu8"), Value::scalar(255u8));
    assert_eq!(one("0b1010i64"), Value::scalar(10i64));
    assert_eq!(one("-0x10"), Value::scalar(-16i32));
    assert_eq!(one("0x1f32"), Value::scalar(0x1f32i32));
    assert_eq!(one("18446744073709551615u64"), Value::scalar(u64::MAX));
    assert_eq!(one("-9223372036854775808i64"), Value::scalar(i64::MIN));
}

#[test]
fn integer_wrapping_like_the_reference() {
    assert_eq!(one("-271733879u32"), Value::scalar(4023233417u32));
    assert_eq!(one("-1u8"), Value::scalar(255u8));
    assert_eq!(one("255i8"), Value::scalar(-1i8));
    assert_eq!(one("32767i8"), Value::scalar(-1i8));
    assert_eq!(one("256u8"), Value::scalar(0u8));
    assert_eq!(one("0xffffffff"), Value::scalar(-1i32));
    assert_eq!(one("4294967296"), Value::scalar(0i32));
    assert_eq!(one("-1u64"), Value::scalar(u64::MAX));
}

#[test]
fn integer_out_of_range() {
    for s in [
        "18446744073709551616u64",
        "-9223372036854775809i64",
        "0x1_0000_0000_0000_0000i8",
        "18446744073709551616",
    ] {
        let (_, k) = text_err(s);
        assert!(matches!(k, TextError::OutOfRange { .. }), "{s}: {k}");
    }
    let (_, k) = text_err("999999999999999999999999999999999999999999999999");
    assert!(matches!(
        k,
        TextError::OutOfRange {
            ty: PrimType::I32,
            ..
        }
    ));
}

#[test]
fn float_literals() {
    assert_eq!(one("1.5"), Value::scalar(1.5f64));
    assert_eq!(one("1.5f32"), Value::scalar(1.5f32));
    assert_eq!(one("1.5f16"), Value::scalar(f16::from_f32(1.5)));
    assert_eq!(one("2f32"), Value::scalar(2.0f32));
    assert_eq!(one("1e3"), Value::scalar(1000.0f64));
    assert_eq!(one("1E+3f64"), Value::scalar(1000.0f64));
    assert_eq!(one("2.5e-3f32"), Value::scalar(2.5e-3f32));
    assert_eq!(one("-0.5"), Value::scalar(-0.5f64));
    assert_eq!(one("1_0.2_5"), Value::scalar(10.25f64));
    assert_eq!(one("0.1f32"), Value::scalar(0.1f32));
    assert!(one("-0f64").bit_eq(&Value::scalar(-0.0f64)));
    assert!(one("f32.nan").to_scalar::<f32>().is_some_and(f32::is_nan));
    assert!(one("f16.nan").to_scalar::<f16>().is_some_and(f16::is_nan));
    assert!(one("f64.nan").to_scalar::<f64>().is_some_and(f64::is_nan));
    assert_eq!(one("f32.inf"), Value::scalar(f32::INFINITY));
    assert_eq!(one("-f64.inf"), Value::scalar(f64::NEG_INFINITY));
    assert_eq!(one("-f16.inf"), Value::scalar(f16::NEG_INFINITY));
    assert_eq!(one("1e400"), Value::scalar(f64::INFINITY));
    assert_eq!(one("true"), Value::scalar(true));
    assert_eq!(one("false"), Value::scalar(false));
}

#[test]
fn bad_literals() {
    for s in [
        "1.", "1.e5", "1e", "0x", "0b2", "1.5i32", "1e3u8", "12abc", "1f", "1i7", "1.5.5", "truex",
        "nan", "-f32.nan", "-x",
    ] {
        let (_, k) = text_err(s);
        assert!(
            matches!(k, TextError::BadLiteral { .. } | TextError::Expected { .. }),
            "{s}: {k}"
        );
    }
}

#[test]
fn arrays() {
    assert_eq!(one("[1, 2, 3]"), Value::from(vec![1i32, 2, 3]));
    assert_eq!(one("[1, 2, 3,]"), Value::from(vec![1i32, 2, 3]));
    assert_eq!(
        one("[[1u8, 2u8], [3u8, 4u8], [5u8, 6u8]]"),
        Value::from_vec(vec![3, 2], vec![1u8, 2, 3, 4, 5, 6]).unwrap()
    );
    assert_eq!(
        one("[ [ [true] ] ]"),
        Value::from_vec(vec![1, 1, 1], vec![true]).unwrap()
    );
    assert_eq!(
        one("[ -- comment\n 1.5f32 , -- another\n 2f32 ]"),
        Value::from(vec![1.5f32, 2.0])
    );
}

#[test]
fn first_element_type_applies_to_unsuffixed_siblings() {
    assert_eq!(
        one("[0x93u8, 0xb8, 0x85]"),
        Value::from(vec![0x93u8, 0xb8, 0x85])
    );
    assert_eq!(one("[1f32, 2, 3.5]"), Value::from(vec![1f32, 2.0, 3.5]));
    assert_eq!(
        one("[[1i64, 2], [3, 4]]"),
        Value::from_vec(vec![2, 2], vec![1i64, 2, 3, 4]).unwrap()
    );
    assert_eq!(one("[1.0, 2]"), Value::from(vec![1.0f64, 2.0]));
}

#[test]
fn mixed_types_are_rejected() {
    let (at, k) = text_err("[1, 2i64]");
    assert_eq!(
        k,
        TextError::MixedTypes {
            expected: PrimType::I32,
            found: PrimType::I64
        }
    );
    assert_eq!((at.line, at.column), (1, 5));
    let (_, k) = text_err("[1u8, 2.5]");
    assert!(matches!(k, TextError::MixedTypes { .. }), "{k}");
    let (_, k) = text_err("[true, 1]");
    assert!(matches!(k, TextError::MixedTypes { .. }), "{k}");
    let (_, k) = text_err("[[1], [2u8]]");
    assert!(matches!(k, TextError::MixedTypes { .. }), "{k}");
}

#[test]
fn ragged_arrays_are_rejected() {
    let (at, k) = text_err("[[1, 2],\n [3]]");
    assert!(matches!(k, TextError::Irregular { .. }), "{k}");
    assert_eq!((at.line, at.column, at.offset), (2, 2, 10));
    let (_, k) = text_err("[[1], 2]");
    assert!(matches!(k, TextError::Irregular { .. }), "{k}");
    let (_, k) = text_err("[1, [2]]");
    assert!(matches!(k, TextError::Irregular { .. }), "{k}");
    let (_, k) = text_err("[[[1]], [2]]");
    assert!(matches!(k, TextError::Irregular { .. }), "{k}");
    let (_, k) = text_err("[\"ab\", \"c\"]");
    assert!(matches!(k, TextError::Irregular { .. }), "{k}");
}

#[test]
fn empty_arrays() {
    let v = one("empty([0][3]i32)");
    assert_eq!(v.shape(), &[0, 3]);
    assert_eq!(v.elem_type(), PrimType::I32);
    assert_eq!(one("empty( [2][0]bool )").shape(), &[2, 0]);
    let v = one("[empty([0]f32), empty([0]f32)]");
    assert_eq!(v.shape(), &[2, 0]);
    assert_eq!(v.elem_type(), PrimType::F32);
    let (_, k) = text_err("empty([2]i32)");
    assert!(matches!(k, TextError::NotEmpty { .. }));
    let (_, k) = text_err("empty(i32)");
    assert!(matches!(k, TextError::NotEmpty { .. }));
    let (_, k) = text_err("empty([0]int)");
    assert!(matches!(k, TextError::UnknownType { .. }));
    let (_, k) = text_err("[]");
    assert_eq!(k, TextError::EmptyBrackets);
    let (_, k) = text_err("[[], []]");
    assert_eq!(k, TextError::EmptyBrackets);
}

#[test]
fn strings() {
    assert_eq!(one("\"abc\""), Value::from(b"abc".to_vec()));
    assert_eq!(one("\"\""), Value::from(Vec::<u8>::new()));
    assert_eq!(
        one(r#""a\n\t\\\"\x41\65\o101""#),
        Value::from(b"a\n\t\\\"AAA".to_vec())
    );
    assert_eq!(one("\"\\xe9\""), Value::from("é".as_bytes().to_vec()));
    assert_eq!(one("\"é\""), Value::from("é".as_bytes().to_vec()));
    assert_eq!(
        one("[\"ab\", \"cd\"]"),
        Value::from_vec(vec![2, 2], b"abcd".to_vec()).unwrap()
    );
    let (_, k) = text_err("\"abc");
    assert_eq!(k, TextError::UnterminatedString);
    let (_, k) = text_err("\"\\q\"");
    assert!(matches!(k, TextError::BadEscape { .. }));
    let (_, k) = text_err("\"\\xd800\"");
    assert!(matches!(k, TextError::BadEscape { .. }));
}

#[test]
fn many_values_and_comments() {
    let vs = read_values(b"-- header\n1 2i64 -- trailing\n[3] \n-- end").unwrap();
    assert_eq!(
        vs,
        vec![
            Value::scalar(1i32),
            Value::scalar(2i64),
            Value::from(vec![3i32])
        ]
    );
    assert_eq!(read_values(b"").unwrap(), vec![]);
    assert_eq!(read_values(b"  -- only a comment").unwrap(), vec![]);
}

#[test]
fn text_and_binary_mixed() {
    let mut input = b"1 ".to_vec();
    input.extend(crate::binary::to_binary(&Value::from(vec![2.5f32])));
    input.extend(b" [3u8]");
    let vs = read_values(&input).unwrap();
    assert_eq!(
        vs,
        vec![
            Value::scalar(1i32),
            Value::from(vec![2.5f32]),
            Value::from(vec![3u8])
        ]
    );
}

#[test]
fn structural_errors_are_located() {
    let (at, k) = text_err("[1 2]");
    assert!(matches!(k, TextError::Expected { .. }));
    assert_eq!(at.offset, 3);
    let (at, k) = text_err("[1, 2");
    assert!(matches!(k, TextError::Expected { .. }));
    assert_eq!(at.offset, 5);
    let (_, k) = text_err("[,]");
    assert!(matches!(k, TextError::Expected { .. }));
    let (at, k) = text_err("1\n  ]");
    assert!(matches!(k, TextError::Expected { .. }));
    assert_eq!((at.line, at.column), (2, 3));
    let msg = read_values(b"1\n  ]").unwrap_err().to_string();
    assert_eq!(
        msg,
        "line 2, column 3 (byte 4): expected a value, found `]`"
    );
}

#[test]
fn read_value_wants_exactly_one() {
    assert!(read_value(b"1 2").is_err());
    assert!(read_value(b" -- nothing").is_err());
    assert!(read_value(b" 1 -- fine").is_ok());
}

#[test]
fn a_stray_b_is_a_text_error_and_a_bad_version_a_binary_one() {
    let (_, k) = text_err("1 bla");
    assert!(matches!(k, TextError::Expected { .. }), "{k}");
    assert!(matches!(
        read_values(b"1 b\x03\x00 i32\x01\x00\x00\x00"),
        Err(DataError::Binary {
            offset: 3,
            kind: crate::error::BinaryError::BadVersion(3)
        })
    ));
    assert!(matches!(
        read_values(b"b"),
        Err(DataError::Binary {
            kind: crate::error::BinaryError::Truncated { .. },
            ..
        })
    ));
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    let deep = "[".repeat(100_000);
    let (at, k) = text_err(&deep);
    assert_eq!(k, TextError::TooDeep);
    assert_eq!(at.offset, MAX_RANK);
    let ok = format!("{}1{}", "[".repeat(MAX_RANK), "]".repeat(MAX_RANK));
    assert_eq!(one(&ok).rank(), MAX_RANK);
    let (_, k) = text_err(&format!("empty({}[0]i32)", "[1]".repeat(MAX_RANK)));
    assert_eq!(k, TextError::TooDeep);
    assert!(parse_type(&format!("{}f32", "[1]".repeat(MAX_RANK))).is_ok());
}

#[test]
fn reader_stops_after_an_error() {
    let mut r = Reader::new(b"1 ] 2");
    assert!(matches!(r.next(), Some(Ok(_))));
    assert!(matches!(r.next(), Some(Err(_))));
    assert!(r.next().is_none());
}

#[test]
fn type_strings() {
    assert_eq!(
        parse_type("[10][20]f32").unwrap(),
        ValueType::new(vec![10, 20], PrimType::F32)
    );
    assert_eq!(parse_type("i32").unwrap(), ValueType::scalar(PrimType::I32));
    assert_eq!(
        parse_type("[0][3]bool").unwrap(),
        ValueType::new(vec![0, 3], PrimType::Bool)
    );
    assert_eq!(
        "[1_000]u8".parse::<ValueType>().unwrap(),
        ValueType::new(vec![1000], PrimType::U8)
    );
    for (s, col) in [
        ("[10]f31", 5),
        ("[]f32", 2),
        ("[-1]f32", 2),
        ("[10f32", 4),
        ("f32 ", 4),
        ("", 1),
        ("[99999999999999999999]i8", 2),
    ] {
        match parse_type(s) {
            Err(DataError::Text { at, .. }) => assert_eq!(at.column, col, "{s}"),
            other => panic!("{s}: {other:?}"),
        }
    }
    assert_eq!(
        ValueType::new(vec![10, 20], PrimType::F32).to_string(),
        "[10][20]f32"
    );
}
