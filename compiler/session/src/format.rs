//! Text of values as the reference `futhark repl` prints them: Futhark syntax, integers
//! without their type suffix, floats with it (`2.5f32`, `f64.nan`), and `empty([0]i32)`.
//! Large arrays are abbreviated like NumPy does: past [`FormatOptions::threshold`] elements,
//! each dimension shows its first and last [`FormatOptions::edge`] entries around `...`.

use futhark_values::{Buffer, Value as Data};

use crate::value::ValueView;

/// When and how much to abbreviate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FormatOptions {
    /// Arrays with more elements than this are abbreviated.
    pub threshold: usize,
    /// Entries kept at each end of an abbreviated dimension.
    pub edge: usize,
}

impl Default for FormatOptions {
    fn default() -> Self {
        FormatOptions {
            threshold: 1000,
            edge: 3,
        }
    }
}

/// A value's text and whether parts of it were left out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Formatted {
    pub text: String,
    pub abbreviated: bool,
}

/// Prints a value.
pub fn format_value(v: &ValueView, opts: FormatOptions) -> Formatted {
    let mut f = Formatter {
        out: String::new(),
        opts,
        abbreviated: false,
    };
    f.value(v);
    Formatted {
        text: f.out,
        abbreviated: f.abbreviated,
    }
}

/// One element of a buffer, reference style.
pub fn elem_text(buf: &Buffer, i: usize) -> String {
    let mut s = String::new();
    write_elem(buf, i, &mut s);
    s
}

/// `[2][3]` for a shape.
pub fn shape_text(shape: &[i64]) -> String {
    shape.iter().map(|d| format!("[{d}]")).collect()
}

struct Formatter {
    out: String,
    opts: FormatOptions,
    abbreviated: bool,
}

impl Formatter {
    fn value(&mut self, v: &ValueView) {
        match v {
            ValueView::Prim(d) => self.prim(d),
            ValueView::Rows { shape, first, last } => self.rows(shape, first, last),
            ValueView::Tuple(xs) => {
                self.out.push('(');
                for (i, x) in xs.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(", ");
                    }
                    self.value(x);
                }
                self.out.push(')');
            }
            ValueView::Record(fields) => {
                self.out.push('{');
                for (i, (n, x)) in fields.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(", ");
                    }
                    self.out.push_str(n);
                    self.out.push_str(" = ");
                    self.value(x);
                }
                self.out.push('}');
            }
            ValueView::Sum { ctor, payload } => {
                self.out.push('#');
                self.out.push_str(ctor);
                for p in payload {
                    self.out.push(' ');
                    let parens = matches!(p, ValueView::Sum { payload, .. } if !payload.is_empty());
                    if parens {
                        self.out.push('(');
                    }
                    self.value(p);
                    if parens {
                        self.out.push(')');
                    }
                }
            }
            ValueView::Opaque(s) => self.out.push_str(s),
        }
    }

    fn prim(&mut self, d: &Data) {
        let shape = d.shape();
        if shape.is_empty() {
            write_elem(d.data(), 0, &mut self.out);
            return;
        }
        if d.is_empty() {
            self.out.push_str("empty(");
            self.out.push_str(&shape_text(shape));
            self.out.push_str(d.elem_type().name());
            self.out.push(')');
            return;
        }
        let abbreviate = d.len() > self.opts.threshold;
        self.prim_dims(d.data(), shape, 0, abbreviate);
    }

    /// Writes the sub-array of `shape` starting at flat element `offset`.
    fn prim_dims(&mut self, buf: &Buffer, shape: &[i64], offset: usize, abbreviate: bool) {
        let n = shape[0].max(0) as usize;
        let inner: usize = shape[1..].iter().map(|&d| d.max(0) as usize).product();
        self.out.push('[');
        let mut first = true;
        for i in self.indices(n, abbreviate) {
            if !first {
                self.out.push_str(", ");
            }
            first = false;
            match i {
                None => self.out.push_str("..."),
                Some(i) if shape.len() == 1 => write_elem(buf, offset + i, &mut self.out),
                Some(i) => self.prim_dims(buf, &shape[1..], offset + i * inner, abbreviate),
            }
        }
        self.out.push(']');
    }

    fn rows(&mut self, shape: &[i64], first: &[ValueView], last: &[ValueView]) {
        let n = shape.first().copied().unwrap_or(0).max(0) as usize;
        if n == 0 {
            self.out.push_str("empty(");
            self.out.push_str(&shape_text(shape));
            self.out.push_str("...)");
            return;
        }
        let total: usize = shape.iter().map(|&d| d.max(0) as usize).product();
        let kept = first.len() + last.len();
        let abbreviate = total > self.opts.threshold || kept < n;
        self.out.push('[');
        let mut sep = false;
        for i in self.indices(n, abbreviate) {
            if sep {
                self.out.push_str(", ");
            }
            sep = true;
            // Row `i` of the array is in `first` or, counting from the end, in `last`.
            let row = match i {
                Some(i) if i < first.len() => first.get(i),
                Some(i) => last.len().checked_sub(n - i).and_then(|j| last.get(j)),
                None => None,
            };
            match row {
                Some(r) => self.value(r),
                None => self.out.push_str("..."),
            }
        }
        self.out.push(']');
    }

    /// The row indices to show of a dimension of length `n`; `None` marks the gap.
    fn indices(&mut self, n: usize, abbreviate: bool) -> Vec<Option<usize>> {
        let edge = self.opts.edge.max(1);
        if abbreviate && n > 2 * edge {
            self.abbreviated = true;
            (0..edge)
                .map(Some)
                .chain(std::iter::once(None))
                .chain((n - edge..n).map(Some))
                .collect()
        } else {
            (0..n).map(Some).collect()
        }
    }
}

fn write_elem(buf: &Buffer, i: usize, out: &mut String) {
    use std::fmt::Write;
    let _ = match buf {
        Buffer::I8(v) => v.get(i).map(|x| write!(out, "{x}")),
        Buffer::I16(v) => v.get(i).map(|x| write!(out, "{x}")),
        Buffer::I32(v) => v.get(i).map(|x| write!(out, "{x}")),
        Buffer::I64(v) => v.get(i).map(|x| write!(out, "{x}")),
        Buffer::U8(v) => v.get(i).map(|x| write!(out, "{x}")),
        Buffer::U16(v) => v.get(i).map(|x| write!(out, "{x}")),
        Buffer::U32(v) => v.get(i).map(|x| write!(out, "{x}")),
        Buffer::U64(v) => v.get(i).map(|x| write!(out, "{x}")),
        Buffer::F16(v) => v.get(i).map(|x| {
            out.push_str(&float_text(x.to_f64(), x.to_f32().to_string(), "f16"));
            Ok(())
        }),
        Buffer::F32(v) => v.get(i).map(|x| {
            out.push_str(&float_text(*x as f64, format!("{x:e}"), "f32"));
            Ok(())
        }),
        Buffer::F64(v) => v.get(i).map(|x| {
            out.push_str(&float_text(*x, format!("{x:e}"), "f64"));
            Ok(())
        }),
        Buffer::Bool(v) => v.get(i).map(|x| write!(out, "{x}")),
    };
}

/// A float the way Haskell's `show` writes it (the reference prints floats so): the
/// shortest digits that read back, positional for magnitudes in [0.1, 10^7) and scientific
/// (`1.0e-2`) outside, followed by the type suffix. `sci` is Rust's shortest `{:e}` form.
fn float_text(x: f64, sci: String, suffix: &str) -> String {
    if x.is_nan() {
        return format!("{suffix}.nan");
    }
    if x.is_infinite() {
        return if x > 0.0 {
            format!("{suffix}.inf")
        } else {
            format!("-{suffix}.inf")
        };
    }
    let (mantissa, exp) = match sci.split_once('e') {
        Some((m, e)) => (m.to_string(), e.parse::<i32>().unwrap_or(0)),
        None => (sci.clone(), 0),
    };
    let negative = mantissa.starts_with('-');
    let digits: String = mantissa.chars().filter(|c| c.is_ascii_digit()).collect();
    let sign = if negative { "-" } else { "" };
    let body = if x == 0.0 {
        "0.0".to_string()
    } else if (-1..7).contains(&exp) {
        // Positional: the point goes after digit exp+1 (exp = -1 means 0.d…).
        if exp < 0 {
            format!("0.{digits}")
        } else {
            let point = exp as usize + 1;
            let mut d = digits.clone();
            while d.len() < point {
                d.push('0');
            }
            let (int, frac) = d.split_at(point);
            let frac = if frac.is_empty() { "0" } else { frac };
            format!("{int}.{frac}")
        }
    } else {
        let (lead, rest) = digits.split_at(1.min(digits.len()));
        let rest = if rest.is_empty() { "0" } else { rest };
        format!("{lead}.{rest}e{exp}")
    };
    format!("{sign}{body}{suffix}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(v: Data) -> String {
        format_value(&ValueView::Prim(v), FormatOptions::default()).text
    }

    #[test]
    fn integers_print_bare() {
        assert_eq!(text(Data::scalar(42i32)), "42");
        assert_eq!(text(Data::from_vec1(vec![1i64, 2, 3])), "[1, 2, 3]");
    }

    #[test]
    fn floats_print_like_haskell_show() {
        assert_eq!(text(Data::scalar(2.5f32)), "2.5f32");
        assert_eq!(text(Data::scalar(3.0f64)), "3.0f64");
        assert_eq!(text(Data::scalar(0.01f64)), "1.0e-2f64");
        assert_eq!(text(Data::scalar(1.5e7f32)), "1.5e7f32");
        assert_eq!(text(Data::scalar(-0.25f32)), "-0.25f32");
        assert_eq!(text(Data::scalar(f32::NAN)), "f32.nan");
        assert_eq!(text(Data::scalar(f64::NEG_INFINITY)), "-f64.inf");
        assert_eq!(text(Data::scalar(123456.0f64)), "123456.0f64");
        assert_eq!(text(Data::scalar(0.0f32)), "0.0f32");
    }

    #[test]
    fn empty_arrays_show_their_shape() {
        let v = Data::from_vec(vec![0, 3], Vec::<i32>::new()).ok();
        assert_eq!(v.map(text).as_deref(), Some("empty([0][3]i32)"));
    }

    #[test]
    fn large_arrays_are_abbreviated() {
        let v = Data::from_vec1((0..10_000i64).collect());
        let f = format_value(&ValueView::Prim(v), FormatOptions::default());
        assert!(f.abbreviated);
        assert_eq!(f.text, "[0, 1, 2, ..., 9997, 9998, 9999]");
    }

    #[test]
    fn large_matrices_abbreviate_every_dimension() {
        let v = Data::from_vec(vec![100, 100], (0..10_000i32).collect()).ok();
        let f = v.map(|v| format_value(&ValueView::Prim(v), FormatOptions::default()));
        let text = f.map(|f| f.text).unwrap_or_default();
        assert!(
            text.starts_with("[[0, 1, 2, ..., 97, 98, 99], [100, 101"),
            "{text}"
        );
        assert!(text.contains("], ..., [9700, 9701"), "{text}");
        assert!(
            text.ends_with("[9900, 9901, 9902, ..., 9997, 9998, 9999]]"),
            "{text}"
        );
    }

    #[test]
    fn tuples_records_and_sums() {
        let v = ValueView::Tuple(vec![
            ValueView::Prim(Data::scalar(1i32)),
            ValueView::Record(vec![("x".into(), ValueView::Prim(Data::scalar(true)))]),
            ValueView::Sum {
                ctor: "some".into(),
                payload: vec![ValueView::Sum {
                    ctor: "p".into(),
                    payload: vec![ValueView::Prim(Data::scalar(2u8))],
                }],
            },
        ]);
        assert_eq!(
            format_value(&v, FormatOptions::default()).text,
            "(1, {x = true}, #some (#p 2))"
        );
    }
}
