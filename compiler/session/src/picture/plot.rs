//! Line plots (`%plot2d`, `:plot2d`): `[]t` (against the index), `([]t, []t)` (x against y) or
//! a record of such pairs (one named line each, with a legend) for numeric `t`, drawn as a PNG
//! with axes, ticks at round values (1, 2 or 5 times a power of ten) with their labels, a light
//! grid and the axes' names; the ranges go in the text form.

use futhark_values::{Buffer, Value};

use super::glyphs;
use super::png::{ColorType, Image};
use crate::ValueView;

/// The size of a plot unless one is asked for: width and height in pixels.
pub const DEFAULT_SIZE: (usize, usize) = (640, 400);
/// Room left of the plot for the y ticks' labels, and below it for the x ticks' labels.
const LEFT: usize = 70;
const BOTTOM: usize = 40;
const TOP: usize = 20;
const RIGHT: usize = 25;
/// The smallest plot drawn (smaller sizes are enlarged to it).
const MIN_SIDE: usize = 120;
/// The lines' colours, one per series in turn.
const COLOURS: [[u8; 3]; 6] = [
    [31, 119, 180],
    [255, 127, 14],
    [44, 160, 44],
    [214, 39, 40],
    [148, 103, 189],
    [140, 86, 75],
];

/// Why a value cannot be plotted (the face puts its command first: `%plot2d needs …`).
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
#[error("needs a []t, a ([]t, []t) of numbers of equal length or a record of such pairs; got {0}")]
pub struct NotPlottable(pub String);

/// One line of a plot: its points and, in a record, its field's name.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    pub name: Option<String>,
    pub xs: Vec<f64>,
    pub ys: Vec<f64>,
}

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

/// The lines to plot: one unnamed line for a `[]t` or a `([]t, []t)`, one named line per
/// field (in the record's order) for a record of pairs.
pub fn series(v: &ValueView, ty: &str) -> Result<Vec<Series>, NotPlottable> {
    match v {
        ValueView::Record(fields) if !fields.is_empty() => fields
            .iter()
            .map(|(name, field)| {
                let (xs, ys) = match field {
                    ValueView::Tuple(_) => points(field, ty)?,
                    _ => return Err(NotPlottable(ty.to_string())),
                };
                Ok(Series {
                    name: Some(name.clone()),
                    xs,
                    ys,
                })
            })
            .collect(),
        _ => {
            let (xs, ys) = points(v, ty)?;
            Ok(vec![Series { name: None, xs, ys }])
        }
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

/// Round tick values covering `lo..=hi`: about five, at a step of 1, 2 or 5 times a power
/// of ten.
pub fn ticks(lo: f64, hi: f64) -> Vec<f64> {
    let span = hi - lo;
    if !(span.is_finite() && span > 0.0) {
        return vec![lo];
    }
    let raw = span / 5.0;
    let power = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * power)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * power);
    let first = (lo / step).ceil() as i64;
    let last = (hi / step).floor() as i64;
    (first..=last).map(|k| k as f64 * step).collect()
}

/// A tick's label: short, without float noise (`0.30000000000000004` is `0.3`).
pub fn label(v: f64, step: f64) -> String {
    let v = if v.abs() < step * 1e-9 { 0.0 } else { v };
    if v != 0.0 && (v.abs() >= 1e6 || v.abs() < 1e-3) {
        return format!("{v:.1e}");
    }
    let decimals = if step >= 1.0 {
        0
    } else {
        (-step.log10().floor()) as usize
    };
    format!("{v:.decimals$}")
}

struct Canvas {
    px: Vec<u8>,
    width: usize,
    height: usize,
}

impl Canvas {
    fn set(&mut self, x: i64, y: i64, c: [u8; 3]) {
        if x >= 0 && y >= 0 && (x as usize) < self.width && (y as usize) < self.height {
            let i = (y as usize * self.width + x as usize) * 3;
            self.px[i..i + 3].copy_from_slice(&c);
        }
    }

    /// `text` with its top-left corner at (`x`, `y`).
    fn text(&mut self, x: i64, y: i64, text: &str, c: [u8; 3]) {
        for (dx, dy) in glyphs::pixels(text) {
            self.set(x + dx as i64, y + dy as i64, c);
        }
    }

    /// Bresenham's line.
    fn line(&mut self, (mut x0, mut y0): (i64, i64), (x1, y1): (i64, i64), c: [u8; 3]) {
        let (dx, dy) = ((x1 - x0).abs(), -(y1 - y0).abs());
        let (sx, sy) = (if x0 < x1 { 1 } else { -1 }, if y0 < y1 { 1 } else { -1 });
        let mut err = dx + dy;
        for _ in 0..(self.width + self.height) * 4 {
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

/// Draws one line at the default size (`indexed`: the x values are the indices); returns it
/// with a one-line description.
pub fn plot(xs: &[f64], ys: &[f64], indexed: bool) -> (Image, String) {
    let one = Series {
        name: None,
        xs: xs.to_vec(),
        ys: ys.to_vec(),
    };
    plot_series(std::slice::from_ref(&one), DEFAULT_SIZE, indexed)
}

/// Draws the lines of `series` in a picture of `size` (width, height; at least
/// [`MIN_SIDE`] each), with a legend when they have names; returns it with a one-line
/// description.
pub fn plot_series(series: &[Series], size: (usize, usize), indexed: bool) -> (Image, String) {
    let (width, height) = (size.0.max(MIN_SIDE), size.1.max(MIN_SIDE));
    let mut c = Canvas {
        px: vec![255; width * height * 3],
        width,
        height,
    };
    let all_xs: Vec<f64> = series.iter().flat_map(|s| s.xs.iter().copied()).collect();
    let all_ys: Vec<f64> = series.iter().flat_map(|s| s.ys.iter().copied()).collect();
    let (x_lo, x_hi) = range(&all_xs);
    let (y_lo, y_hi) = range(&all_ys);
    let (left, right) = (LEFT as i64, (width - RIGHT) as i64);
    let (top, bottom) = (TOP as i64, (height - BOTTOM) as i64);
    let sx = |x: f64| left + ((x - x_lo) / (x_hi - x_lo) * (right - left) as f64).round() as i64;
    let sy = |y: f64| bottom - ((y - y_lo) / (y_hi - y_lo) * (bottom - top) as f64).round() as i64;
    let (grid, ink) = ([225, 225, 225], [0, 0, 0]);
    let h = glyphs::H as i64;
    let xt = ticks(x_lo, x_hi);
    let x_step = xt.get(1).zip(xt.first()).map_or(1.0, |(b, a)| b - a);
    for &t in &xt {
        let x = sx(t);
        c.line((x, top), (x, bottom), grid);
        c.line((x, bottom), (x, bottom + 4), ink);
        let l = label(t, x_step);
        c.text(x - glyphs::width(&l) as i64 / 2, bottom + 8, &l, ink);
    }
    let yt = ticks(y_lo, y_hi);
    let y_step = yt.get(1).zip(yt.first()).map_or(1.0, |(b, a)| b - a);
    for &t in &yt {
        let y = sy(t);
        c.line((left, y), (right, y), grid);
        c.line((left - 4, y), (left, y), ink);
        let l = label(t, y_step);
        c.text(left - 8 - glyphs::width(&l) as i64, y - h / 2, &l, ink);
    }
    c.line((left, bottom), (right, bottom), ink);
    c.line((left, top), (left, bottom), ink);
    // The axes' names: `index` when plotting against it.
    let x_name = if indexed { "index" } else { "x" };
    c.text(
        right - glyphs::width(x_name) as i64,
        bottom + 10 + h,
        x_name,
        ink,
    );
    c.text(4, top - h / 2 - 4, "y", ink);
    for (k, s) in series.iter().enumerate() {
        let colour = COLOURS[k % COLOURS.len()];
        let pts: Vec<(i64, i64)> =
            s.xs.iter()
                .zip(&s.ys)
                .filter(|(x, y)| x.is_finite() && y.is_finite())
                .map(|(&x, &y)| (sx(x), sy(y)))
                .collect();
        for w in pts.windows(2) {
            c.line(w[0], w[1], colour);
        }
        if let [p] = pts.as_slice() {
            c.set(p.0, p.1, colour);
        }
        // The legend: one row per named line, at the top right inside the axes.
        if let Some(name) = &s.name {
            let y = top + 4 + k as i64 * (h + 4);
            let x = right - 4 - glyphs::width(name) as i64;
            c.line((x - 18, y + h / 2), (x - 4, y + h / 2), colour);
            c.text(x, y, name, ink);
        }
    }
    let points: usize = series.iter().map(|s| s.xs.len()).sum();
    let lines = match series.len() {
        1 => String::new(),
        n => format!(" in {n} lines"),
    };
    let text = format!(
        "line plot of {points} points{lines}; x from {x_lo} to {x_hi}, y from {y_lo} to {y_hi}"
    );
    (
        Image {
            width,
            height,
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
        let (img, text) = plot(&xs, &ys, true);
        assert_eq!(img.pixels.len(), DEFAULT_SIZE.0 * DEFAULT_SIZE.1 * 3);
        assert!(text.contains("3 points"), "{text}");
        // Some pixel is drawn in the line colour.
        assert!(img.pixels.chunks(3).any(|p| p == [31, 119, 180]));
    }

    #[test]
    fn ticks_are_round_and_labelled_briefly() {
        assert_eq!(ticks(0.0, 10.0), vec![0.0, 2.0, 4.0, 6.0, 8.0, 10.0]);
        assert_eq!(ticks(0.0, 361.0), vec![0.0, 100.0, 200.0, 300.0]);
        let t = ticks(0.1, 0.9);
        assert_eq!(t.len(), 4, "{t:?}");
        assert_eq!(label(t[2], t[1] - t[0]), "0.6");
        assert_eq!(label(-3.0, 1.0), "-3");
        assert_eq!(label(2.0e7, 1.0e7), "2.0e7");
    }

    #[test]
    fn axes_carry_tick_labels() {
        let xs: Vec<f64> = (0..20).map(f64::from).collect();
        let ys: Vec<f64> = xs.iter().map(|x| x * x).collect();
        let (img, _) = plot(&xs, &ys, true);
        // Black label pixels left of the y axis and below the x axis.
        let (width, height) = DEFAULT_SIZE;
        let black = |x: usize, y: usize| {
            let i = (y * width + x) * 3;
            img.pixels[i..i + 3] == [0, 0, 0]
        };
        let left_labels = (0..height).any(|y| (0..LEFT - 8).any(|x| black(x, y)));
        let bottom_labels = (height - BOTTOM + 8..height).any(|y| (0..width).any(|x| black(x, y)));
        assert!(left_labels && bottom_labels);
    }

    #[test]
    fn records_of_pairs_are_named_lines_in_their_own_colours() {
        let pair = |ys: Vec<f64>| {
            ValueView::Tuple(vec![
                ValueView::Prim(Value::from_vec1(vec![0.0f64, 1.0, 2.0])),
                ValueView::Prim(Value::from_vec1(ys)),
            ])
        };
        let v = ValueView::Record(vec![
            ("down".to_string(), pair(vec![2.0, 1.0, 0.0])),
            ("up".to_string(), pair(vec![0.0, 1.0, 2.0])),
        ]);
        let lines = series(&v, "{down: ([]f64, []f64), up: ([]f64, []f64)}").unwrap_or_default();
        let names: Vec<_> = lines.iter().map(|s| s.name.as_deref()).collect();
        assert_eq!(names, vec![Some("down"), Some("up")]);
        let (img, text) = plot_series(&lines, (300, 200), false);
        assert_eq!((img.width, img.height), (300, 200));
        assert!(text.contains("6 points in 2 lines;"), "{text}");
        for colour in &COLOURS[..2] {
            assert!(img.pixels.chunks(3).any(|p| p == colour), "{colour:?}");
        }
        // A record whose field is not a pair is refused.
        let bad = ValueView::Record(vec![(
            "a".to_string(),
            ValueView::Prim(Value::from_vec1(vec![1i32])),
        )]);
        assert!(series(&bad, "{a: []i32}").is_err());
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
