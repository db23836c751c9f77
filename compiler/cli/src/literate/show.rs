//! Values as `futhark literate` shows them: the data format of the reference's Haskell tools.
//! Integers and booleans as the data format writes them (`4i32`, `true`), floats as Haskell's
//! `show` does (the shortest digits that read back, `6.0f64`, `0.1f32`, `1.0e-2f32`, with an
//! exponent below 0.1 and from 10^7), `f32.nan` and `±f32.inf`; arrays `[a, b]`, tuples
//! `(a, b)`, records `{x=a, y=b}` and `empty([0]i32)`.

use futhark_session::ValueView;
use futhark_values::{Buffer, Value};

/// The text of a value, or why it has none (a function, say).
pub fn value_text(v: &ValueView) -> Result<String, String> {
    let mut out = String::new();
    view(v, &mut out)?;
    Ok(out)
}

fn view(v: &ValueView, out: &mut String) -> Result<(), String> {
    match v {
        ValueView::Prim(d) => prim(d, out),
        ValueView::Tuple(xs) => {
            out.push('(');
            for (i, x) in xs.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                view(x, out)?;
            }
            out.push(')');
        }
        ValueView::Record(fields) => {
            out.push('{');
            for (i, (name, x)) in fields.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(name);
                out.push('=');
                view(x, out)?;
            }
            out.push('}');
        }
        ValueView::Rows { first, last, .. } => {
            out.push('[');
            for (i, x) in first.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                view(x, out)?;
            }
            if !last.is_empty() {
                out.push_str(", ...");
                for x in last {
                    out.push_str(", ");
                    view(x, out)?;
                }
            }
            out.push(']');
        }
        ValueView::Sum { ctor, payload } => {
            out.push('#');
            out.push_str(ctor);
            for p in payload {
                out.push(' ');
                let parens = matches!(p, ValueView::Sum { payload, .. } if !payload.is_empty());
                if parens {
                    out.push('(');
                }
                view(p, out)?;
                if parens {
                    out.push(')');
                }
            }
        }
        ValueView::Opaque(text) => return Err(text.clone()),
    }
    Ok(())
}

fn prim(d: &Value, out: &mut String) {
    if !d.is_scalar() && d.is_empty() {
        futhark_values::write_text(d, out);
        return;
    }
    let mut next = 0;
    dims(d.shape(), d.data(), &mut next, out);
}

fn dims(shape: &[i64], data: &Buffer, next: &mut usize, out: &mut String) {
    match shape.split_first() {
        None => {
            elem(data, *next, out);
            *next += 1;
        }
        Some((n, rest)) => {
            out.push('[');
            for i in 0..*n {
                if i > 0 {
                    out.push_str(", ");
                }
                dims(rest, data, next, out);
            }
            out.push(']');
        }
    }
}

fn elem(data: &Buffer, i: usize, out: &mut String) {
    match data {
        Buffer::F16(v) => float(f64::from(v[i].to_f32()), Some(v[i].to_f32()), "f16", out),
        Buffer::F32(v) => float(f64::from(v[i]), Some(v[i]), "f32", out),
        Buffer::F64(v) => float(v[i], None, "f64", out),
        _ => futhark_values::write_elem(data, i, out),
    }
}

/// A float as Haskell's `show` writes it, then the type suffix. `single` is the value when
/// it is a single-precision float, whose shortest digits are fewer.
fn float(x: f64, single: Option<f32>, suffix: &str, out: &mut String) {
    if x.is_nan() {
        out.push_str(&format!("{suffix}.nan"));
        return;
    }
    if x.is_infinite() {
        let sign = if x < 0.0 { "-" } else { "" };
        out.push_str(&format!("{sign}{suffix}.inf"));
        return;
    }
    if x.is_sign_negative() {
        out.push('-');
    }
    // The shortest digits that read back, and the exponent e with x = 0.DIGITS × 10^e.
    let sci = match single {
        Some(f) => format!("{:e}", f.abs()),
        None => format!("{:e}", x.abs()),
    };
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let e = exp.parse::<i32>().unwrap_or(0) + 1;
    let text = if x == 0.0 {
        "0.0".to_string()
    } else if !(0..=7).contains(&e) {
        let (first, rest) = digits.split_at(1);
        let rest = if rest.is_empty() { "0" } else { rest };
        format!("{first}.{rest}e{}", e - 1)
    } else if e == 0 {
        format!("0.{digits}")
    } else {
        let e = e as usize;
        let (int, frac) = if digits.len() > e {
            (digits[..e].to_string(), digits[e..].to_string())
        } else {
            (
                format!("{digits}{}", "0".repeat(e - digits.len())),
                String::new(),
            )
        };
        let frac = if frac.is_empty() {
            "0".to_string()
        } else {
            frac
        };
        format!("{int}.{frac}")
    };
    out.push_str(&text);
    out.push_str(suffix);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f64_text(x: f64) -> String {
        let mut s = String::new();
        float(x, None, "f64", &mut s);
        s
    }

    fn f32_text(x: f32) -> String {
        let mut s = String::new();
        float(f64::from(x), Some(x), "f32", &mut s);
        s
    }

    #[test]
    fn floats_are_written_as_haskell_shows_them() {
        assert_eq!(f64_text(6.0), "6.0f64");
        assert_eq!(f64_text(0.1), "0.1f64");
        assert_eq!(f64_text(0.01), "1.0e-2f64");
        assert_eq!(f64_text(1234567.0), "1234567.0f64");
        assert_eq!(f64_text(12345678.0), "1.2345678e7f64");
        assert_eq!(f64_text(-2.5), "-2.5f64");
        assert_eq!(f64_text(0.0), "0.0f64");
        assert_eq!(f64_text(-0.0), "-0.0f64");
        assert_eq!(f64_text(f64::NEG_INFINITY), "-f64.inf");
        assert_eq!(f32_text(0.1), "0.1f32");
        assert_eq!(f32_text(1.5e-5), "1.5e-5f32");
        assert_eq!(f32_text(f32::NAN), "f32.nan");
    }

    #[test]
    fn compound_values_are_written_as_the_reference_writes_them() {
        let i = |x: i32| ValueView::Prim(Value::scalar(x));
        let v = ValueView::Record(vec![
            ("x".into(), i(10)),
            ("y".into(), ValueView::Tuple(vec![i(7), i(2)])),
        ]);
        assert_eq!(value_text(&v).as_deref(), Ok("{x=10i32, y=(7i32, 2i32)}"));
        let m = Value::from_vec(vec![2, 2], vec![1.0f32, 2.0, 3.0, 4.5]).map(ValueView::Prim);
        let text = m.map(|m| value_text(&m));
        assert_eq!(
            text,
            Ok(Ok("[[1.0f32, 2.0f32], [3.0f32, 4.5f32]]".to_string()))
        );
        let e = Value::from_vec(vec![0], Vec::<i64>::new()).map(ValueView::Prim);
        assert_eq!(e.map(|e| value_text(&e)), Ok(Ok("empty([0]i64)".into())));
        assert!(value_text(&ValueView::Opaque("#<fun>".into())).is_err());
    }
}
