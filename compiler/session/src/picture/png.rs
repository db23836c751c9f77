//! Pictures and their PNG encoding (through the `png` crate): 8-bit greyscale or RGB.

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
}

/// A picture: rows of `width * channels` bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Image {
    pub width: usize,
    pub height: usize,
    pub color: ColorType,
    pub pixels: Vec<u8>,
}

/// Encodes an image as PNG bytes; a picture whose pixels do not fill it is padded black.
pub fn encode(img: &Image) -> Result<Vec<u8>, png::EncodingError> {
    let len = img.width * img.height * img.color.channels();
    let mut pixels = img.pixels.clone();
    pixels.resize(len, 0);
    let mut out = Vec::new();
    let mut enc = png::Encoder::new(&mut out, img.width as u32, img.height as u32);
    enc.set_color(match img.color {
        ColorType::Grey => png::ColorType::Grayscale,
        ColorType::Rgb => png::ColorType::Rgb,
    });
    enc.set_depth(png::BitDepth::Eight);
    enc.set_compression(png::Compression::Fast);
    let mut writer = enc.write_header()?;
    writer.write_image_data(&pixels)?;
    writer.finish()?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_what_a_decoder_reads_back() {
        let img = Image {
            width: 2,
            height: 1,
            color: ColorType::Rgb,
            pixels: vec![255, 0, 0, 0, 0, 255],
        };
        let bytes = encode(&img).expect("encodes");
        assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
        let mut reader = png::Decoder::new(std::io::Cursor::new(bytes))
            .read_info()
            .expect("a PNG header");
        let mut buf = vec![0; reader.output_buffer_size().unwrap_or(0)];
        let info = reader.next_frame(&mut buf).expect("a frame");
        assert_eq!((info.width, info.height), (2, 1));
        assert_eq!(&buf[..info.buffer_size()], &img.pixels[..]);
    }
}
