//! Pictures of values, shared by the Jupyter kernel (`%img`, `%plot2d`) and
//! `futhark-rs literate` (`:img`, `:plot2d`): `image` turns arrays into pixels, `plot` draws
//! line plots with axes and a legend, `glyphs` is the bitmap font of their labels and `png`
//! encodes the result.

pub mod glyphs;
pub mod image;
pub mod plot;
pub mod png;
