//! Pictures of values (`%img`, `:img`): `[h][w]u32` and `[h][w]i32` as RGB (`0xRRGGBB`, the
//! convention of `futhark literate`; the top byte is ignored), `[h][w]f32`/`f64` as grey in
//! [0, 1], `[h][w]u8` as grey bytes, `[h][w]bool` as black (`false`) and white (`true`), and
//! `[h][w][3]u8` as RGB bytes.

use futhark_values::{Buffer, Value};

use super::png::{ColorType, Image};
use crate::ValueView;

/// Why a value is not a picture (the face puts its command first: `%img needs …`).
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "needs a [][]u32 or [][]i32 (RGB), [][]f32 or [][]f64 (grey in [0,1]), [][]u8, [][]bool or [][][3]u8 array; got {0}"
)]
pub struct NotAnImage(pub String);

fn grey(x: f64) -> u8 {
    if x.is_nan() {
        0
    } else {
        (x.clamp(0.0, 1.0) * 255.0).round() as u8
    }
}

/// Converts a value to an image.
pub fn to_image(v: &ValueView, ty: &str) -> Result<Image, NotAnImage> {
    let bad = || NotAnImage(ty.to_string());
    let data: &Value = v.as_prim().ok_or_else(bad)?;
    let shape = data.shape();
    let (height, width) = match shape {
        [h, w] | [h, w, 3] => (*h as usize, *w as usize),
        _ => return Err(bad()),
    };
    let rgb_bytes = shape.len() == 3;
    let (color, pixels) = match (data.data(), rgb_bytes) {
        (Buffer::U32(px), false) => (ColorType::Rgb, rgb(px.iter().copied())),
        (Buffer::I32(px), false) => (ColorType::Rgb, rgb(px.iter().map(|&x| x as u32))),
        (Buffer::F32(px), false) => (
            ColorType::Grey,
            px.iter().map(|&x| grey(x as f64)).collect(),
        ),
        (Buffer::F64(px), false) => (ColorType::Grey, px.iter().map(|&x| grey(x)).collect()),
        (Buffer::U8(px), false) => (ColorType::Grey, px.clone()),
        (Buffer::U8(px), true) => (ColorType::Rgb, px.clone()),
        (Buffer::Bool(px), false) => (
            ColorType::Grey,
            px.iter().map(|&b| if b { 255 } else { 0 }).collect(),
        ),
        _ => return Err(bad()),
    };
    if width == 0 || height == 0 {
        return Err(bad());
    }
    Ok(Image {
        width,
        height,
        color,
        pixels,
    })
}

fn rgb(px: impl Iterator<Item = u32>) -> Vec<u8> {
    let mut out = Vec::new();
    for p in px {
        out.extend_from_slice(&[(p >> 16) as u8, (p >> 8) as u8, p as u8]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn u32_pixels_are_rgb() {
        let v = Value::from_vec(vec![1, 2], vec![0xff0000u32, 0x0000ff]).ok();
        let img = v.map(|v| to_image(&ValueView::Prim(v), "[1][2]u32"));
        let img = img.and_then(Result::ok);
        assert_eq!(img.map(|i| i.pixels), Some(vec![255, 0, 0, 0, 0, 255]));
    }

    #[test]
    fn floats_are_grey_and_clamped() {
        let v = Value::from_vec(vec![1, 3], vec![0.0f32, 0.5, 7.0]).ok();
        let img = v.and_then(|v| to_image(&ValueView::Prim(v), "[1][3]f32").ok());
        assert_eq!(img.map(|i| i.pixels), Some(vec![0, 128, 255]));
    }

    #[test]
    fn booleans_are_black_and_white() {
        let v = Value::from_vec(vec![1, 2], vec![false, true]).ok();
        let img = v.and_then(|v| to_image(&ValueView::Prim(v), "[1][2]bool").ok());
        assert_eq!(img.map(|i| i.pixels), Some(vec![0, 255]));
    }

    #[test]
    fn other_values_are_refused() {
        let v = Value::from_vec1(vec![1i64, 2]);
        assert!(to_image(&ValueView::Prim(v), "[2]i64").is_err());
    }
}
