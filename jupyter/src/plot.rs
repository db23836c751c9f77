//! `%plot2d`: a line plot of `[]t` (against the index) or `([]t, []t)` (x against y) for
//! numeric `t`, drawn as a PNG with axes and a light grid; the ranges go in the text form.

use futhark_session::ValueView;
use futhark_values::{Buffer, Value};

use crate::png::{ColorType, Image};

const WIDTH: usize = 640;
const HEIGHT: usize = 400;
const MARGIN: usize = 40;

/// Why a value cannot be plotted.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
#[error("%plot2d needs a []t or a ([]t, []t) of numbers of equal length; got {0}")]
pub struct NotPlottable(pub String);

fn numbers(v: &Value) -> Option<Vec<f64>> {
    if v.rank() != 1 {
        return None;
    }
    Some(match v.data() {
        Buffer::I8(x) => x.iter().map(|&a| a as f64).collect(),
        Buffer::I16(x) => x.iter().map(|&a| a as f64).collect(),
        Buffer::I32(x) => x.iter().map(|&a| a as f64).collect(),
        Buffer::I64(x) => x.iter().map(|&a| a as f64).collect(),
        Buffer::U8(x) => x.iter().map(|&a| a as f64).collect(),
        Buffer::U16(x) => x.iter().map(|&a| a as f64).collect(),
        Buffer::U32(x) => x.iter().map(|&a| a as f64).collect(),
        Buffer::U64(x) => x.iter().map(|&a| a as f64).collect(),
        Buffer::F16(x) => x.iter().map(|a| a.to_f64()).collect(),
        Buffer::F32(x) => x.iter().map(|&a| a as f64).collect(),
        Buffer::F64(x) => x.clone(),
        Buffer::Bool(_) => return None,
    })
}

/// The points to plot.
pub fn points(v: &ValueView, ty: &str) -> Result<(Vec<f64>, Vec<f64>), NotPlottable> {
    let bad = || NotPlottable(ty.to_string());
    match v {
        ValueView::Prim(d) => {
            let ys = numbers(d).ok_or_else(bad)?;
            Ok(((0..ys.len()).map(|i| i as f64).collect(), ys))
        }
        ValueView::Tuple(parts) => match parts.as_slice() {
            [ValueView::Prim(x), ValueView::Prim(y)] => {
                let (xs, ys) = (numbers(x).ok_or_else(bad)?, numbers(y).ok_or_else(bad)?);
                if xs.len() != ys.len() {
                    return Err(bad());
                }
                Ok((xs, ys))
            }
            _ => Err(bad()),
        },
        _ => Err(bad()),
    }
}

fn range(v: &[f64]) -> (f64, f64) {
    let finite = v.iter().copied().filter(|x| x.is_finite());
    let lo = finite.clone().fold(f64::INFINITY, f64::min);
    let hi = finite.fold(f64::NEG_INFINITY, f64::max);
    if !lo.is_finite() {
        (0.0, 1.0)
    } else if lo == hi {
        (lo - 1.0, hi + 1.0)
    } else {
        (lo, hi)
    }
}

struct Canvas {
    px: Vec<u8>,
}

impl Canvas {
    fn set(&mut self, x: i64, y: i64, c: [u8; 3]) {
        if x >= 0 && y >= 0 && (x as usize) < WIDTH && (y as usize) < HEIGHT {
            let i = (y as usize * WIDTH + x as usize) * 3;
            self.px[i..i + 3].copy_from_slice(&c);
        }
    }

    /// Bresenham's line.
    fn line(&mut self, (mut x0, mut y0): (i64, i64), (x1, y1): (i64, i64), c: [u8; 3]) {
        let (dx, dy) = ((x1 - x0).abs(), -(y1 - y0).abs());
        let (sx, sy) = (if x0 < x1 { 1 } else { -1 }, if y0 < y1 { 1 } else { -1 });
        let mut err = dx + dy;
        for _ in 0..(WIDTH + HEIGHT) * 4 {
            self.set(x0, y0, c);
            if x0 == x1 && y0 == y1 {
                break;
            }
            let e2 = 2 * err;
            if e2 >= dy {
                err += dy;
                x0 += sx;
            }
            if e2 <= dx {
                err += dx;
                y0 += sy;
            }
        }
    }
}

/// Draws the plot; returns it with a one-line description.
pub fn plot(xs: &[f64], ys: &[f64]) -> (Image, String) {
    let mut c = Canvas {
        px: vec![255; WIDTH * HEIGHT * 3],
    };
    let (x_lo, x_hi) = range(xs);
    let (y_lo, y_hi) = range(ys);
    let (left, right) = (MARGIN as i64, (WIDTH - MARGIN / 2) as i64);
    let (top, bottom) = ((MARGIN / 2) as i64, (HEIGHT - MARGIN) as i64);
    let sx = |x: f64| left + ((x - x_lo) / (x_hi - x_lo) * (right - left) as f64).round() as i64;
    let sy = |y: f64| bottom - ((y - y_lo) / (y_hi - y_lo) * (bottom - top) as f64).round() as i64;
    for k in 0..=4 {
        let gx = left + (right - left) * k / 4;
        let gy = top + (bottom - top) * k / 4;
        c.line((gx, top), (gx, bottom), [225, 225, 225]);
        c.line((left, gy), (right, gy), [225, 225, 225]);
    }
    c.line((left, bottom), (right, bottom), [0, 0, 0]);
    c.line((left, top), (left, bottom), [0, 0, 0]);
    let pts: Vec<(i64, i64)> = xs
        .iter()
        .zip(ys)
        .filter(|(x, y)| x.is_finite() && y.is_finite())
        .map(|(&x, &y)| (sx(x), sy(y)))
        .collect();
    for w in pts.windows(2) {
        c.line(w[0], w[1], [31, 119, 180]);
    }
    if let [p] = pts.as_slice() {
        c.set(p.0, p.1, [31, 119, 180]);
    }
    let text = format!(
        "line plot of {} points; x from {x_lo} to {x_hi}, y from {y_lo} to {y_hi}",
        xs.len()
    );
    (
        Image {
            width: WIDTH,
            height: HEIGHT,
            color: ColorType::Rgb,
            pixels: c.px,
        },
        text,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vectors_plot_against_their_index() {
        let v = ValueView::Prim(Value::from_vec1(vec![1.0f32, 4.0, 9.0]));
        let (xs, ys) = points(&v, "[3]f32").unwrap_or_default();
        assert_eq!(xs, vec![0.0, 1.0, 2.0]);
        assert_eq!(ys, vec![1.0, 4.0, 9.0]);
        let (img, text) = plot(&xs, &ys);
        assert_eq!(img.pixels.len(), WIDTH * HEIGHT * 3);
        assert!(text.contains("3 points"), "{text}");
        // Some pixel is drawn in the line colour.
        assert!(img.pixels.chunks(3).any(|p| p == [31, 119, 180]));
    }

    #[test]
    fn pairs_of_unequal_length_are_refused() {
        let v = ValueView::Tuple(vec![
            ValueView::Prim(Value::from_vec1(vec![1i32, 2])),
            ValueView::Prim(Value::from_vec1(vec![1i32])),
        ]);
        assert!(points(&v, "([]i32, []i32)").is_err());
    }
}
