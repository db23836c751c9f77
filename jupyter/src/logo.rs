//! The kernel's logo (`logo-32x32.png`, `logo-64x64.png` in the kernelspec, which
//! JupyterLab shows in its launcher instead of a letter): a white `F` on Futhark's dark red,
//! in a square with rounded corners, drawn at the size asked for.

use futhark_session::picture::glyphs;
use futhark_session::picture::png::{ColorType, Image};

const BACKGROUND: [u8; 3] = [0x5f, 0x02, 0x1f];
const INK: [u8; 3] = [255, 255, 255];
const CLEAR: [u8; 3] = [255, 255, 255];

/// The logo, `size` pixels square.
pub fn logo(size: usize) -> Image {
    let mut px = vec![0u8; size * size * 3];
    let r = (size / 6) as i64;
    let n = size as i64;
    let inside = |x: i64, y: i64| {
        // Distance into a rounded corner, if any.
        let cx = if x < r {
            r - x
        } else if x >= n - r {
            x - (n - r - 1)
        } else {
            0
        };
        let cy = if y < r {
            r - y
        } else if y >= n - r {
            y - (n - r - 1)
        } else {
            0
        };
        cx * cx + cy * cy <= r * r
    };
    for y in 0..n {
        for x in 0..n {
            let c = if inside(x, y) { BACKGROUND } else { CLEAR };
            let i = (y as usize * size + x as usize) * 3;
            px[i..i + 3].copy_from_slice(&c);
        }
    }
    // The letter, scaled to about two thirds of the height, centred.
    let scale = (size * 2 / 3 / glyphs::H).max(1);
    let (w, h) = (glyphs::W * scale, glyphs::H * scale);
    let (ox, oy) = ((size - w) / 2, (size - h) / 2);
    for (gx, gy) in glyphs::pixels("F") {
        for dy in 0..scale {
            for dx in 0..scale {
                let (x, y) = (ox + gx * scale + dx, oy + gy * scale + dy);
                if x < size && y < size {
                    let i = (y * size + x) * 3;
                    px[i..i + 3].copy_from_slice(&INK);
                }
            }
        }
    }
    Image {
        width: size,
        height: size,
        color: ColorType::Rgb,
        pixels: px,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn logos_have_their_size_and_both_colours() {
        for size in [32, 64] {
            let img = logo(size);
            assert_eq!(img.pixels.len(), size * size * 3);
            let corner_inside = (size / 2 * size + size / 10) * 3;
            assert!(img.pixels.chunks(3).any(|p| p == INK));
            assert_eq!(&img.pixels[corner_inside..corner_inside + 3], &BACKGROUND);
        }
    }
}
