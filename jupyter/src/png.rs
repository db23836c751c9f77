//! A minimal PNG encoder: 8-bit greyscale or RGB, no filtering, zlib-compressed with
//! `flate2` (already in the build through `futhark-values`).

use std::io::Write;

/// Pixel layout of the raw data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColorType {
    Grey,
    Rgb,
}

impl ColorType {
    fn channels(self) -> usize {
        match self {
            ColorType::Grey => 1,
            ColorType::Rgb => 3,
        }
    }

    fn code(self) -> u8 {
        match self {
            ColorType::Grey => 0,
            ColorType::Rgb => 2,
        }
    }
}

/// A picture: rows of `width * channels` bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Image {
    pub width: usize,
    pub height: usize,
    pub color: ColorType,
    pub pixels: Vec<u8>,
}

fn crc32(data: &[&[u8]]) -> u32 {
    let mut table = [0u32; 256];
    for (n, slot) in table.iter_mut().enumerate() {
        let mut c = n as u32;
        for _ in 0..8 {
            c = if c & 1 != 0 {
                0xedb8_8320 ^ (c >> 1)
            } else {
                c >> 1
            };
        }
        *slot = c;
    }
    let mut crc = 0xffff_ffffu32;
    for part in data {
        for &b in *part {
            crc = table[((crc ^ b as u32) & 0xff) as usize] ^ (crc >> 8);
        }
    }
    crc ^ 0xffff_ffff
}

fn chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    out.extend_from_slice(&(data.len() as u32).to_be_bytes());
    out.extend_from_slice(kind);
    out.extend_from_slice(data);
    out.extend_from_slice(&crc32(&[kind, data]).to_be_bytes());
}

/// Encodes an image as PNG bytes.
pub fn encode(img: &Image) -> Vec<u8> {
    let row = img.width * img.color.channels();
    let mut raw = Vec::with_capacity((row + 1) * img.height);
    for y in 0..img.height {
        raw.push(0); // filter type: none
        let start = y * row;
        match img.pixels.get(start..start + row) {
            Some(r) => raw.extend_from_slice(r),
            None => raw.extend(std::iter::repeat_n(0, row)),
        }
    }
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
    // Writing into a Vec cannot fail.
    let _ = z.write_all(&raw);
    let idat = z.finish().unwrap_or_default();
    let mut out = vec![0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a];
    let mut ihdr = Vec::with_capacity(13);
    ihdr.extend_from_slice(&(img.width as u32).to_be_bytes());
    ihdr.extend_from_slice(&(img.height as u32).to_be_bytes());
    ihdr.extend_from_slice(&[8, img.color.code(), 0, 0, 0]);
    chunk(&mut out, b"IHDR", &ihdr);
    chunk(&mut out, b"IDAT", &idat);
    chunk(&mut out, b"IEND", &[]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc_matches_the_known_value_of_iend() {
        // Every PNG ends with IEND and this CRC.
        assert_eq!(crc32(&[b"IEND"]), 0xae42_6082);
    }

    #[test]
    fn encodes_signature_header_and_end() {
        let png = encode(&Image {
            width: 2,
            height: 1,
            color: ColorType::Rgb,
            pixels: vec![255, 0, 0, 0, 0, 255],
        });
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        assert_eq!(&png[12..16], b"IHDR");
        assert_eq!(&png[16..20], &2u32.to_be_bytes());
        assert_eq!(&png[png.len() - 8..png.len() - 4], b"IEND");
    }
}
