//! Numeric literals and Haskell-style character escapes.
//!
//! Integers: decimal, `0x…`, `0b…` and the undocumented roman `0r…`, with `_` after the
//! first digit and an optional `i8…u64` suffix. Floats: `digits[.digits][e[±]digits]` with
//! an optional `f16/f32/f64` suffix (a suffixed integer such as `3f32` is a float), and hex
//! floats `0x1.8p3` whose binary exponent is mandatory. Values that overflow saturate; the
//! type checker reports out-of-range literals.

use super::TokenValue;
use crate::ast::NumSuffix;

/// A lexed numeric literal.
pub(super) struct NumLit {
    pub end: usize,
    pub value: TokenValue,
    pub error: Option<String>,
}

fn byte(bytes: &[u8], i: usize) -> u8 {
    bytes.get(i).copied().unwrap_or(0)
}

/// Advances over bytes satisfying `ok` or `_`.
fn scan(bytes: &[u8], mut i: usize, ok: impl Fn(u8) -> bool) -> usize {
    while ok(byte(bytes, i)) || byte(bytes, i) == b'_' {
        i += 1;
    }
    i
}

fn int_suffix(bytes: &[u8], i: usize) -> Option<(NumSuffix, usize)> {
    let s = |t: &[u8]| bytes.get(i..i + t.len()) == Some(t);
    let table: [(&[u8], NumSuffix); 8] = [
        (b"i16", NumSuffix::I16),
        (b"i32", NumSuffix::I32),
        (b"i64", NumSuffix::I64),
        (b"u16", NumSuffix::U16),
        (b"u32", NumSuffix::U32),
        (b"u64", NumSuffix::U64),
        (b"i8", NumSuffix::I8),
        (b"u8", NumSuffix::U8),
    ];
    table
        .iter()
        .find(|(t, _)| s(t))
        .map(|(t, suf)| (*suf, i + t.len()))
}

fn float_suffix(bytes: &[u8], i: usize) -> Option<(NumSuffix, usize)> {
    let table: [(&[u8], NumSuffix); 3] = [
        (b"f16", NumSuffix::F16),
        (b"f32", NumSuffix::F32),
        (b"f64", NumSuffix::F64),
    ];
    table
        .iter()
        .find(|(t, _)| bytes.get(i..i + t.len()) == Some(*t))
        .map(|(t, suf)| (*suf, i + t.len()))
}

/// Folds the digits of `bytes[from..to]` (skipping `_`) in `radix`, saturating.
fn fold_digits(bytes: &[u8], from: usize, to: usize, radix: u32) -> u128 {
    let mut acc: u128 = 0;
    for &b in bytes.get(from..to).unwrap_or(&[]) {
        if let Some(d) = (b as char).to_digit(radix) {
            acc = acc.saturating_mul(radix as u128).saturating_add(d as u128);
        }
    }
    acc
}

fn roman_value(bytes: &[u8]) -> u128 {
    const TABLE: [(&[u8], u128); 13] = [
        (b"M", 1000),
        (b"CM", 900),
        (b"D", 500),
        (b"CD", 400),
        (b"C", 100),
        (b"XC", 90),
        (b"L", 50),
        (b"XL", 40),
        (b"X", 10),
        (b"IX", 9),
        (b"V", 5),
        (b"IV", 4),
        (b"I", 1),
    ];
    let digits: Vec<u8> = bytes.iter().copied().filter(|&b| b != b'_').collect();
    let mut rest: &[u8] = &digits;
    let mut acc: u128 = 0;
    // Like the reference lexer: repeatedly take the largest numeral that is a prefix.
    while let Some((t, v)) = TABLE.iter().find(|(t, _)| rest.starts_with(t)) {
        acc = acc.saturating_add(*v);
        rest = rest.get(t.len()..).unwrap_or(&[]);
    }
    acc
}

/// Lexes a number starting at the digit `bytes[start]`. After a `.` no float may start.
pub(super) fn number(bytes: &[u8], start: usize, after_dot: bool) -> NumLit {
    let c1 = byte(bytes, start + 1);
    let is_hex = |b: u8| b.is_ascii_hexdigit();
    if byte(bytes, start) == b'0' && matches!(c1, b'x' | b'X') && is_hex(byte(bytes, start + 2)) {
        let digits_end = scan(bytes, start + 2, is_hex);
        if let Some(lit) = hex_float(bytes, start, digits_end) {
            return lit;
        }
        let value = fold_digits(bytes, start + 2, digits_end, 16);
        return int_lit(bytes, digits_end, value);
    }
    if byte(bytes, start) == b'0'
        && matches!(c1, b'b' | b'B')
        && matches!(byte(bytes, start + 2), b'0' | b'1')
    {
        let end = scan(bytes, start + 2, |b| b == b'0' || b == b'1');
        let value = fold_digits(bytes, start + 2, end, 2);
        return int_lit(bytes, end, value);
    }
    let is_roman = |b: u8| matches!(b, b'I' | b'V' | b'X' | b'L' | b'C' | b'D' | b'M');
    if byte(bytes, start) == b'0' && matches!(c1, b'r' | b'R') && is_roman(byte(bytes, start + 2)) {
        let end = scan(bytes, start + 2, is_roman);
        let value = roman_value(bytes.get(start + 2..end).unwrap_or(&[]));
        return int_lit(bytes, end, value);
    }

    let int_end = scan(bytes, start, |b| b.is_ascii_digit());
    if !after_dot {
        let mut end = int_end;
        let mut is_float = false;
        if byte(bytes, end) == b'.' && byte(bytes, end + 1).is_ascii_digit() {
            end = scan(bytes, end + 1, |b| b.is_ascii_digit());
            is_float = true;
        }
        if matches!(byte(bytes, end), b'e' | b'E') {
            let mut i = end + 1;
            if matches!(byte(bytes, i), b'+' | b'-') {
                i += 1;
            }
            if byte(bytes, i).is_ascii_digit() {
                while byte(bytes, i).is_ascii_digit() {
                    i += 1;
                }
                end = i;
                is_float = true;
            }
        }
        let suffix = float_suffix(bytes, end);
        if is_float || suffix.is_some() {
            let text: String = bytes
                .get(start..end)
                .unwrap_or(&[])
                .iter()
                .filter(|&&b| b != b'_')
                .map(|&b| b as char)
                .collect();
            let value = text.parse::<f64>().unwrap_or(0.0);
            let (suffix, end) = match suffix {
                Some((s, e)) => (Some(s), e),
                None => (None, end),
            };
            return NumLit {
                end,
                value: TokenValue::Float { value, suffix },
                error: None,
            };
        }
    }
    let value = fold_digits(bytes, start, int_end, 10);
    int_lit(bytes, int_end, value)
}

fn int_lit(bytes: &[u8], end: usize, value: u128) -> NumLit {
    let (suffix, end) = match int_suffix(bytes, end) {
        Some((s, e)) => (Some(s), e),
        None => (None, end),
    };
    NumLit {
        end,
        value: TokenValue::Int { value, suffix },
        error: None,
    }
}

/// `0x<hex>.<hex>p[±]<dec>` with an optional float suffix, if the text has that shape.
fn hex_float(bytes: &[u8], start: usize, int_end: usize) -> Option<NumLit> {
    let is_hex = |b: u8| b.is_ascii_hexdigit();
    if byte(bytes, int_end) != b'.' || !is_hex(byte(bytes, int_end + 1)) {
        return None;
    }
    let frac_end = scan(bytes, int_end + 1, is_hex);
    if !matches!(byte(bytes, frac_end), b'p' | b'P') {
        return None;
    }
    let mut i = frac_end + 1;
    let negative = byte(bytes, i) == b'-';
    if matches!(byte(bytes, i), b'+' | b'-') {
        i += 1;
    }
    if !byte(bytes, i).is_ascii_digit() {
        return None;
    }
    let exp_start = i;
    let exp_end = scan(bytes, i, |b| b.is_ascii_digit());
    let mut mantissa = 0f64;
    for &b in bytes.get(start + 2..int_end).unwrap_or(&[]) {
        if let Some(d) = (b as char).to_digit(16) {
            mantissa = mantissa * 16.0 + d as f64;
        }
    }
    let mut scale = 1.0 / 16.0;
    for &b in bytes.get(int_end + 1..frac_end).unwrap_or(&[]) {
        if let Some(d) = (b as char).to_digit(16) {
            mantissa += d as f64 * scale;
            scale /= 16.0;
        }
    }
    let exp = fold_digits(bytes, exp_start, exp_end, 10).min(100_000) as i32;
    let exp = if negative { -exp } else { exp };
    let value = mantissa * 2f64.powi(exp);
    let (suffix, end) = match float_suffix(bytes, exp_end) {
        Some((s, e)) => (Some(s), e),
        None => (None, exp_end),
    };
    Some(NumLit {
        end,
        value: TokenValue::Float { value, suffix },
        error: None,
    })
}

/// ASCII control-character names accepted after a backslash, as in Haskell.
const ASCII_NAMES: [(&str, u32); 34] = [
    ("NUL", 0),
    ("SOH", 1),
    ("STX", 2),
    ("ETX", 3),
    ("EOT", 4),
    ("ENQ", 5),
    ("ACK", 6),
    ("BEL", 7),
    ("BS", 8),
    ("HT", 9),
    ("LF", 10),
    ("VT", 11),
    ("FF", 12),
    ("CR", 13),
    ("SO", 14),
    ("SI", 15),
    ("DLE", 16),
    ("DC1", 17),
    ("DC2", 18),
    ("DC3", 19),
    ("DC4", 20),
    ("NAK", 21),
    ("SYN", 22),
    ("ETB", 23),
    ("CAN", 24),
    ("EM", 25),
    ("SUB", 26),
    ("ESC", 27),
    ("FS", 28),
    ("GS", 29),
    ("RS", 30),
    ("US", 31),
    ("SP", 32),
    ("DEL", 127),
];

/// Decodes the escape whose backslash is at `text[at]`. Returns the code point (`None`
/// for the empty escape `\&` and string gaps) and the offset after the escape; on error a
/// message and an offset to continue from.
pub(super) fn escape(text: &str, at: usize) -> Result<(Option<u32>, usize), (String, usize)> {
    let bytes = text.as_bytes();
    let c = byte(bytes, at + 1);
    let simple = match c {
        b'a' => Some(7),
        b'b' => Some(8),
        b'f' => Some(12),
        b'n' => Some(10),
        b'r' => Some(13),
        b't' => Some(9),
        b'v' => Some(11),
        b'\\' | b'"' | b'\'' => Some(c as u32),
        _ => None,
    };
    if let Some(v) = simple {
        return Ok((Some(v), at + 2));
    }
    let numeric = |from: usize, radix: u32| -> Result<(Option<u32>, usize), (String, usize)> {
        let mut i = from;
        let mut v: u64 = 0;
        while let Some(d) = (byte(bytes, i) as char).to_digit(radix) {
            v = v.saturating_mul(radix as u64).saturating_add(d as u64);
            i += 1;
        }
        if i == from {
            Err(("escape sequence has no digits".to_string(), i))
        } else if v > 0x10FFFF {
            Err(("escape sequence is beyond the Unicode range".to_string(), i))
        } else {
            Ok((Some(v as u32), i))
        }
    };
    match c {
        b'0'..=b'9' => numeric(at + 1, 10),
        b'x' => numeric(at + 2, 16),
        b'o' => numeric(at + 2, 8),
        b'&' => Ok((None, at + 2)),
        b'^' => {
            let d = byte(bytes, at + 2);
            if (b'@'..=b'_').contains(&d) {
                Ok((Some((d - b'@') as u32), at + 3))
            } else {
                Err(("invalid control-character escape".to_string(), at + 2))
            }
        }
        b'A'..=b'Z' => {
            let rest = bytes.get(at + 1..).unwrap_or(&[]);
            // Longest name first, so `\SOH` is not read as `\SO` followed by `H`.
            let best = ASCII_NAMES
                .iter()
                .filter(|(name, _)| rest.starts_with(name.as_bytes()))
                .max_by_key(|(name, _)| name.len());
            match best {
                Some((name, v)) => Ok((Some(*v), at + 1 + name.len())),
                None => Err(("unknown escape sequence".to_string(), at + 2)),
            }
        }
        b' ' | b'\t' | b'\n' | b'\r' => {
            // A string gap: whitespace between two backslashes is ignored.
            let mut i = at + 1;
            while matches!(byte(bytes, i), b' ' | b'\t' | b'\n' | b'\r') {
                i += 1;
            }
            if byte(bytes, i) == b'\\' {
                Ok((None, i + 1))
            } else {
                Err(("unterminated string gap".to_string(), i))
            }
        }
        _ => {
            // Skip the whole (possibly multi-byte) character after the backslash.
            let mut end = (at + 2).min(bytes.len());
            while end < bytes.len() && !text.is_char_boundary(end) {
                end += 1;
            }
            let shown = text.get(at..end).unwrap_or("\\");
            Err((
                format!("unknown escape sequence `{}`", shown.escape_debug()),
                end,
            ))
        }
    }
}
