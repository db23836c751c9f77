//! The text writer, matching the reference runtime's output byte for byte.
//!
//! Integers print with their suffix (`4i32`, `255u8`), booleans as `true`/`false`. Floats follow
//! the reference C runtime (`values.h`), which prints `%.*g` with `FLT_DECIMAL_DIG` (9)
//! significant digits for `f16` and `f32` and `DBL_DECIMAL_DIG` (17) for `f64`, then the suffix.
//! `%g` drops trailing zeros and switches to an exponent outside `1e-4 ≤ |x| < 1e9` (or `1e17`), so
//! an integral float prints without a fraction: `1f32`, `0.100000001f32`, `1e+10f32`,
//! `9.99999975e-06f32`, `-0f64`. Nine (seventeen) digits identify every `f32` (`f64`) exactly, so
//! the reader gets back the same bits. Non-finite values print as `f32.nan`, `f32.inf`,
//! `-f32.inf`. Arrays print as `[a, b]` with `, ` between elements at every depth (the C
//! runtime's choice; the Haskell tools put a newline between rows), and arrays with no elements
//! as `empty([0][3]i32)`.

use std::fmt::Write as _;
use std::io;

use half::f16;

use crate::value::{Buffer, Value};

/// Significant digits for `f16` and `f32` (C's `FLT_DECIMAL_DIG`).
pub const F32_DIGITS: usize = 9;
/// Significant digits for `f64` (C's `DBL_DECIMAL_DIG`).
pub const F64_DIGITS: usize = 17;

/// The text form of `v`.
pub fn to_text(v: &Value) -> String {
    let mut out = String::new();
    write_text(v, &mut out);
    out
}

/// Appends the text form of `v` to `out`.
pub fn write_text(v: &Value, out: &mut String) {
    if !v.is_scalar() && v.is_empty() {
        out.push_str("empty(");
        for d in v.shape() {
            // Writing to a String cannot fail.
            let _ = write!(out, "[{d}]");
        }
        out.push_str(v.elem_type().name());
        out.push(')');
        return;
    }
    write_dims(v.shape(), v.data(), 0, out);
}

/// Writes the text form of `v` to `w`.
pub fn write_text_to(v: &Value, w: &mut impl io::Write) -> io::Result<()> {
    w.write_all(to_text(v).as_bytes())
}

/// Appends element `i` of `buf` in the text format (`1.5f32`, `true`, ...). Out-of-range `i`
/// writes nothing.
pub fn write_elem(buf: &Buffer, i: usize, out: &mut String) {
    // Writing to a String cannot fail, so the fmt::Results below are ignored.
    match buf {
        Buffer::I8(v) => v.get(i).map(|x| write!(out, "{x}i8")),
        Buffer::I16(v) => v.get(i).map(|x| write!(out, "{x}i16")),
        Buffer::I32(v) => v.get(i).map(|x| write!(out, "{x}i32")),
        Buffer::I64(v) => v.get(i).map(|x| write!(out, "{x}i64")),
        Buffer::U8(v) => v.get(i).map(|x| write!(out, "{x}u8")),
        Buffer::U16(v) => v.get(i).map(|x| write!(out, "{x}u16")),
        Buffer::U32(v) => v.get(i).map(|x| write!(out, "{x}u32")),
        Buffer::U64(v) => v.get(i).map(|x| write!(out, "{x}u64")),
        Buffer::F16(v) => v.get(i).map(|x| {
            write_float(f64::from(f16::to_f32(*x)), F32_DIGITS, "f16", out);
            Ok(())
        }),
        Buffer::F32(v) => v.get(i).map(|x| {
            write_float(f64::from(*x), F32_DIGITS, "f32", out);
            Ok(())
        }),
        Buffer::F64(v) => v.get(i).map(|x| {
            write_float(*x, F64_DIGITS, "f64", out);
            Ok(())
        }),
        Buffer::Bool(v) => v.get(i).map(|x| {
            out.push_str(if *x { "true" } else { "false" });
            Ok(())
        }),
    };
}

fn write_dims(shape: &[i64], buf: &Buffer, offset: usize, out: &mut String) {
    let Some((&n, inner)) = shape.split_first() else {
        write_elem(buf, offset, out);
        return;
    };
    let stride: usize = inner.iter().map(|d| *d as usize).product();
    out.push('[');
    for i in 0..n as usize {
        if i > 0 {
            out.push_str(", ");
        }
        write_dims(inner, buf, offset + i * stride, out);
    }
    out.push(']');
}

/// Appends `x` as C's `%.{digits}g` would print it, then `suffix`; non-finite values as
/// `{suffix}.nan`, `{suffix}.inf` or `-{suffix}.inf`.
pub fn write_float(x: f64, digits: usize, suffix: &str, out: &mut String) {
    if x.is_nan() {
        out.push_str(suffix);
        out.push_str(".nan");
        return;
    }
    if x.is_infinite() {
        if x < 0.0 {
            out.push('-');
        }
        out.push_str(suffix);
        out.push_str(".inf");
        return;
    }
    let digits = digits.max(1);
    // First format in scientific notation to learn the decimal exponent after rounding to
    // `digits` significant digits; `%g` chooses its style from that exponent. Everything is
    // written into `out` and trimmed in place, so no temporary strings are allocated.
    let mark = out.len();
    let _ = write!(out, "{:.*e}", digits - 1, x);
    let (mantissa_len, exp) = match out[mark..].rsplit_once('e') {
        Some((m, e)) => (m.len(), e.parse::<i32>().unwrap_or(0)),
        None => (out.len() - mark, 0),
    };
    if exp < -4 || exp >= digits as i32 {
        let keep = trim_fraction(&out[mark..mark + mantissa_len]).len();
        out.truncate(mark + keep);
        out.push('e');
        out.push(if exp < 0 { '-' } else { '+' });
        let _ = write!(out, "{:02}", exp.unsigned_abs());
    } else {
        out.truncate(mark);
        let decimals = (digits as i32 - 1 - exp) as usize;
        let _ = write!(out, "{x:.decimals$}");
        let keep = trim_fraction(&out[mark..]).len();
        out.truncate(mark + keep);
    }
    out.push_str(suffix);
}

/// Drops trailing zeros of a fraction, and the point if nothing is left after it.
fn trim_fraction(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn g(x: f64, digits: usize) -> String {
        let mut s = String::new();
        write_float(x, digits, "", &mut s);
        s
    }

    #[test]
    fn floats_like_printf_g() {
        // Expected strings are what glibc's printf("%.9g") / ("%.17g") prints.
        assert_eq!(g(1.0, 9), "1");
        assert_eq!(g(-0.0, 9), "-0");
        assert_eq!(g(0.0, 17), "0");
        assert_eq!(g(f64::from(0.1f32), 9), "0.100000001");
        assert_eq!(g(0.1, 17), "0.10000000000000001");
        assert_eq!(g(1e-5, 9), "1e-05");
        assert_eq!(g(f64::from(1e-5f32), 9), "9.99999975e-06");
        assert_eq!(g(123456789.0, 9), "123456789");
        assert_eq!(g(1234567890.0, 9), "1.23456789e+09");
        assert_eq!(g(1e100, 17), "1e+100");
        assert_eq!(g(0.0001, 9), "0.0001");
        assert_eq!(g(0.00001, 9), "1e-05");
        assert_eq!(g(1.5, 9), "1.5");
        assert_eq!(g(-2.25, 17), "-2.25");
        assert_eq!(g(1234567.125, 9), "1234567.12");
        assert_eq!(g(5e-324, 17), "4.9406564584124654e-324");
        assert_eq!(g(f64::MAX, 17), "1.7976931348623157e+308");
    }

    #[test]
    fn scalars() {
        assert_eq!(to_text(&Value::scalar(4i32)), "4i32");
        assert_eq!(to_text(&Value::scalar(-4i8)), "-4i8");
        assert_eq!(to_text(&Value::scalar(u64::MAX)), "18446744073709551615u64");
        assert_eq!(to_text(&Value::scalar(true)), "true");
        assert_eq!(to_text(&Value::scalar(false)), "false");
        assert_eq!(to_text(&Value::scalar(1.0f32)), "1f32");
        assert_eq!(to_text(&Value::scalar(0.5f64)), "0.5f64");
        assert_eq!(
            to_text(&Value::scalar(f16::from_f32(0.1))),
            "0.0999755859f16"
        );
        assert_eq!(to_text(&Value::scalar(f32::NAN)), "f32.nan");
        assert_eq!(to_text(&Value::scalar(f32::INFINITY)), "f32.inf");
        assert_eq!(to_text(&Value::scalar(f64::NEG_INFINITY)), "-f64.inf");
        assert_eq!(to_text(&Value::scalar(f16::NEG_INFINITY)), "-f16.inf");
    }

    #[test]
    fn arrays() {
        assert_eq!(to_text(&Value::from(vec![1i32, 2])), "[1i32, 2i32]");
        let m = Value::from_vec(vec![2, 2], vec![1u8, 2, 3, 4]).unwrap();
        assert_eq!(to_text(&m), "[[1u8, 2u8], [3u8, 4u8]]");
        let e = Value::from_vec(vec![0, 3], Vec::<i32>::new()).unwrap();
        assert_eq!(to_text(&e), "empty([0][3]i32)");
        let e = Value::from_vec(vec![2, 0], Vec::<bool>::new()).unwrap();
        assert_eq!(to_text(&e), "empty([2][0]bool)");
        assert_eq!(
            Value::from(vec![f32::NAN, -f32::INFINITY]).to_string(),
            "[f32.nan, -f32.inf]"
        );
    }
}
