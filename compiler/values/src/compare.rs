//! Comparing a result against the expected value, as the test runner does: integers and booleans
//! exactly, element types and shapes must match, floats within a tolerance relative to the
//! largest finite expected magnitude, NaN equal to NaN, infinities equal with the same sign.

use std::fmt;

use half::f16;

use crate::text_write::write_elem;
use crate::value::{Buffer, Value};
use futhark_prim::PrimType;

/// Futhark's default tolerance: 0.2%.
pub const TOLERANCE: f64 = 0.002;

/// How two values (or lists of values) differ.
#[derive(Clone, Debug, PartialEq)]
pub struct Mismatch {
    /// Position of the value in a list of values, when comparing lists.
    pub value_index: Option<usize>,
    /// The difference.
    pub kind: MismatchKind,
}

/// The kinds of difference [`compare`] reports.
#[derive(Clone, Debug, PartialEq)]
pub enum MismatchKind {
    /// The lists have different lengths.
    Count {
        /// Number of values expected.
        expected: usize,
        /// Number of values got.
        got: usize,
    },
    /// The element types differ.
    Type {
        /// Element type expected.
        expected: PrimType,
        /// Element type got.
        got: PrimType,
    },
    /// The shapes differ.
    Shape {
        /// Shape expected.
        expected: Vec<i64>,
        /// Shape got.
        got: Vec<i64>,
    },
    /// The first element that differs (beyond the tolerance, for floats).
    Element {
        /// Its multi-dimensional index (empty for a scalar).
        index: Vec<i64>,
        /// The expected element in the text format.
        expected: String,
        /// The element got, in the text format.
        got: String,
        /// The absolute tolerance that applied, for floats.
        tolerance: Option<f64>,
    },
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(i) = self.value_index {
            write!(f, "value #{i}")?;
            if !matches!(self.kind, MismatchKind::Count { .. }) {
                f.write_str(": ")?;
            }
        }
        match &self.kind {
            MismatchKind::Count { expected, got } => {
                if self.value_index.is_some() {
                    f.write_str(": ")?;
                }
                write!(f, "expected {expected} values, got {got}")
            }
            MismatchKind::Type { expected, got } => {
                write!(f, "expected element type {expected}, got {got}")
            }
            MismatchKind::Shape { expected, got } => {
                write!(f, "expected shape {}, got {}", dims(expected), dims(got))
            }
            MismatchKind::Element {
                index,
                expected,
                got,
                tolerance,
            } => {
                if !index.is_empty() {
                    write!(f, "at {}: ", dims(index))?;
                }
                write!(f, "expected {expected}, got {got}")?;
                if let Some(t) = tolerance {
                    write!(f, " (tolerance {t})")?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for Mismatch {}

fn dims(ds: &[i64]) -> String {
    let mut s = String::new();
    for d in ds {
        s.push_str(&format!("[{d}]"));
    }
    if s.is_empty() {
        s.push_str("[] (scalar)");
    }
    s
}

/// Compares `got` against `expected` with the default [`TOLERANCE`].
pub fn compare(expected: &Value, got: &Value) -> Result<(), Mismatch> {
    compare_with_tolerance(expected, got, TOLERANCE)
}

/// Compares two lists of values (an entry point's results) pairwise with the default tolerance;
/// mismatches name the value's position.
pub fn compare_values(expected: &[Value], got: &[Value]) -> Result<(), Mismatch> {
    if expected.len() != got.len() {
        return Err(Mismatch {
            value_index: None,
            kind: MismatchKind::Count {
                expected: expected.len(),
                got: got.len(),
            },
        });
    }
    for (i, (e, g)) in expected.iter().zip(got).enumerate() {
        compare(e, g).map_err(|m| Mismatch {
            value_index: Some(i),
            ..m
        })?;
    }
    Ok(())
}

/// Compares `got` against `expected`. Floats pass when `|got − exp| ≤ max(tol, tol · m)` where
/// `m` is the largest finite `|x|` over the whole expected array.
pub fn compare_with_tolerance(expected: &Value, got: &Value, tol: f64) -> Result<(), Mismatch> {
    let mismatch = |kind| Mismatch {
        value_index: None,
        kind,
    };
    if expected.elem_type() != got.elem_type() {
        return Err(mismatch(MismatchKind::Type {
            expected: expected.elem_type(),
            got: got.elem_type(),
        }));
    }
    if expected.shape() != got.shape() {
        return Err(mismatch(MismatchKind::Shape {
            expected: expected.shape().to_vec(),
            got: got.shape().to_vec(),
        }));
    }
    let (e, g) = (expected.data(), got.data());
    let (first_bad, tolerance) = match (e, g) {
        (Buffer::F16(a), Buffer::F16(b)) => {
            let a: Vec<f64> = a.iter().map(|x| f64::from(f16::to_f32(*x))).collect();
            let b: Vec<f64> = b.iter().map(|x| f64::from(f16::to_f32(*x))).collect();
            float_mismatch(&a, &b, tol)
        }
        (Buffer::F32(a), Buffer::F32(b)) => {
            let a: Vec<f64> = a.iter().map(|x| f64::from(*x)).collect();
            let b: Vec<f64> = b.iter().map(|x| f64::from(*x)).collect();
            float_mismatch(&a, &b, tol)
        }
        (Buffer::F64(a), Buffer::F64(b)) => float_mismatch(a, b, tol),
        _ => (exact_mismatch(e, g), None),
    };
    match first_bad {
        None => Ok(()),
        Some(i) => {
            let (mut es, mut gs) = (String::new(), String::new());
            write_elem(e, i, &mut es);
            write_elem(g, i, &mut gs);
            Err(mismatch(MismatchKind::Element {
                index: unflatten(expected.shape(), i),
                expected: es,
                got: gs,
                tolerance,
            }))
        }
    }
}

/// The absolute tolerance for an expected float array.
pub fn float_tolerance(expected: &[f64], tol: f64) -> f64 {
    let m = expected
        .iter()
        .filter(|x| x.is_finite())
        .fold(0.0f64, |m, x| m.max(x.abs()));
    tol.max(tol * m)
}

fn float_mismatch(expected: &[f64], got: &[f64], tol: f64) -> (Option<usize>, Option<f64>) {
    let abstol = float_tolerance(expected, tol);
    let bad = expected.iter().zip(got).position(|(e, g)| {
        let same = (e.is_nan() && g.is_nan())
            || (e.is_infinite() && g.is_infinite() && e.signum() == g.signum())
            || (g - e).abs() <= abstol;
        !same
    });
    (bad, Some(abstol))
}

fn exact_mismatch(e: &Buffer, g: &Buffer) -> Option<usize> {
    macro_rules! pos {
        ($($var:ident),*) => {
            match (e, g) {
                $((Buffer::$var(a), Buffer::$var(b)) => a.iter().zip(b).position(|(x, y)| x != y),)*
                // Types were checked equal by the caller; report the first element otherwise.
                _ => Some(0),
            }
        };
    }
    pos!(I8, I16, I32, I64, U8, U16, U32, U64, Bool)
}

fn unflatten(shape: &[i64], mut flat: usize) -> Vec<i64> {
    let mut index = vec![0i64; shape.len()];
    for (slot, d) in index.iter_mut().zip(shape).rev() {
        let d = (*d).max(1) as usize;
        *slot = (flat % d) as i64;
        flat /= d;
    }
    index
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32s(v: &[f32]) -> Value {
        Value::from(v.to_vec())
    }

    #[test]
    fn integers_and_bools_exactly() {
        assert!(compare(&Value::from(vec![1i32, 2]), &Value::from(vec![1i32, 2])).is_ok());
        let m = compare(&Value::from(vec![1i32, 2]), &Value::from(vec![1i32, 3])).unwrap_err();
        assert_eq!(m.to_string(), "at [1]: expected 2i32, got 3i32");
        let m = compare(&Value::scalar(true), &Value::scalar(false)).unwrap_err();
        assert_eq!(m.to_string(), "expected true, got false");
    }

    #[test]
    fn types_and_shapes_must_match() {
        let m = compare(&Value::scalar(1i32), &Value::scalar(1i64)).unwrap_err();
        assert_eq!(m.to_string(), "expected element type i32, got i64");
        let a = Value::from_vec(vec![2, 2], vec![0u8; 4]).unwrap();
        let b = Value::from(vec![0u8; 4]);
        let m = compare(&a, &b).unwrap_err();
        assert_eq!(m.to_string(), "expected shape [2][2], got [4]");
        let e0 = Value::from_vec(vec![0, 3], Vec::<f32>::new()).unwrap();
        let e1 = Value::from_vec(vec![0, 2], Vec::<f32>::new()).unwrap();
        assert!(compare(&e0, &e0.clone()).is_ok());
        assert!(matches!(
            compare(&e0, &e1).unwrap_err().kind,
            MismatchKind::Shape { .. }
        ));
    }

    #[test]
    fn float_tolerance_is_relative_to_the_largest_expected() {
        // max |x| = 1000, so everything within 2.0 passes.
        let exp = f32s(&[1000.0, 1.0]);
        assert!(compare(&exp, &f32s(&[1001.5, 2.9])).is_ok());
        let m = compare(&exp, &f32s(&[1000.0, 3.5])).unwrap_err();
        assert_eq!(
            m.to_string(),
            "at [1]: expected 1f32, got 3.5f32 (tolerance 2)"
        );
        // Small values: the absolute floor 0.002 applies.
        assert!(compare(&Value::scalar(0.0f64), &Value::scalar(0.0019f64)).is_ok());
        assert!(compare(&Value::scalar(0.0f64), &Value::scalar(0.0021f64)).is_err());
        // Negative magnitudes count too.
        assert!(compare(&f32s(&[-1000.0, 0.0]), &f32s(&[-1000.0, 1.9])).is_ok());
    }

    #[test]
    fn nan_and_infinities() {
        let exp = f32s(&[f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 1e30]);
        assert!(compare(&exp, &exp.clone()).is_ok());
        // Infinities don't widen the tolerance; 1e30 does, but a NaN still only matches NaN.
        assert!(compare(&exp, &f32s(&[1.0, f32::INFINITY, f32::NEG_INFINITY, 1e30])).is_err());
        assert!(
            compare(
                &exp,
                &f32s(&[f32::NAN, f32::NEG_INFINITY, f32::NEG_INFINITY, 1e30])
            )
            .is_err()
        );
        assert!(compare(&exp, &f32s(&[f32::NAN, f32::INFINITY, f32::INFINITY, 1e30])).is_err());
        assert!(compare(&f32s(&[f32::INFINITY]), &f32s(&[f32::MAX])).is_err());
        assert!(compare(&f32s(&[1.0]), &f32s(&[f32::NAN])).is_err());
        assert!(compare(&Value::scalar(f16::NAN), &Value::scalar(f16::NAN)).is_ok());
        // Only finite expected values set the scale: with an infinity and 1.0, tolerance is 0.002.
        let exp = Value::from(vec![f64::INFINITY, 1.0]);
        assert!(compare(&exp, &Value::from(vec![f64::INFINITY, 1.003])).is_err());
    }

    #[test]
    fn multi_dimensional_index() {
        let a = Value::from_vec(vec![2, 3], vec![0i64; 6]).unwrap();
        let mut b = a.clone();
        if let Some(s) = b.as_mut_slice::<i64>() {
            s[5] = 1;
        }
        let m = compare(&a, &b).unwrap_err();
        assert_eq!(
            m.kind,
            MismatchKind::Element {
                index: vec![1, 2],
                expected: "0i64".into(),
                got: "1i64".into(),
                tolerance: None
            }
        );
    }

    #[test]
    fn lists_of_values() {
        let a = vec![Value::scalar(1i32), Value::scalar(2.0f32)];
        assert!(compare_values(&a, &a.clone()).is_ok());
        let m = compare_values(&a, &a[..1]).unwrap_err();
        assert_eq!(m.to_string(), "expected 2 values, got 1");
        let b = vec![Value::scalar(1i32), Value::scalar(3.0f32)];
        let m = compare_values(&a, &b).unwrap_err();
        assert_eq!(m.value_index, Some(1));
        assert_eq!(
            m.to_string(),
            "value #1: expected 2f32, got 3f32 (tolerance 0.004)"
        );
    }
}
