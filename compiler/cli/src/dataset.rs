//! `futhark-rs dataset`: random values of given types (`-g [10][20]f32`), or conversion of the
//! values on standard input between the text and binary data formats.
//!
//! As in the reference tool, integers are drawn from their type's full range and floats from
//! `[0, 1]` unless `--T-bounds=LO:HI` says otherwise; `-s SEED` (default 1) makes the output
//! reproducible; successive `-g` values come from one generator, so they differ.

use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

use clap::Args;
use futhark_values::{
    Bounds, BoundsError, DataError, PrimType, Reader, Rng, ShapeError, ValueType, generate_with,
    parse_type,
};

use crate::data::{self, Format};

#[derive(Args)]
pub struct DatasetArgs {
    /// Generate a random value of this type (e.g. `[10][20]f32`, `i64`); may be repeated.
    /// Without any, the values on standard input are converted instead.
    #[arg(short = 'g', long = "generate", value_name = "TYPE")]
    generate: Vec<String>,
    /// Write values in the binary data format.
    #[arg(short = 'b', long, conflicts_with = "text")]
    binary: bool,
    /// Write values in the text data format (the default).
    #[arg(long)]
    text: bool,
    /// Seed of the random generator.
    #[arg(short = 's', long, default_value_t = 1)]
    seed: u64,
    #[command(flatten)]
    bounds: BoundArgs,
}

/// `--T-bounds=LO:HI` for every numeric type.
#[derive(Args)]
struct BoundArgs {
    /// Range of generated i8 values.
    #[arg(long = "i8-bounds", value_name = "LO:HI", allow_hyphen_values = true)]
    i8: Option<String>,
    /// Range of generated i16 values.
    #[arg(long = "i16-bounds", value_name = "LO:HI", allow_hyphen_values = true)]
    i16: Option<String>,
    /// Range of generated i32 values.
    #[arg(long = "i32-bounds", value_name = "LO:HI", allow_hyphen_values = true)]
    i32: Option<String>,
    /// Range of generated i64 values.
    #[arg(long = "i64-bounds", value_name = "LO:HI", allow_hyphen_values = true)]
    i64: Option<String>,
    /// Range of generated u8 values.
    #[arg(long = "u8-bounds", value_name = "LO:HI", allow_hyphen_values = true)]
    u8: Option<String>,
    /// Range of generated u16 values.
    #[arg(long = "u16-bounds", value_name = "LO:HI", allow_hyphen_values = true)]
    u16: Option<String>,
    /// Range of generated u32 values.
    #[arg(long = "u32-bounds", value_name = "LO:HI", allow_hyphen_values = true)]
    u32: Option<String>,
    /// Range of generated u64 values.
    #[arg(long = "u64-bounds", value_name = "LO:HI", allow_hyphen_values = true)]
    u64: Option<String>,
    /// Range of generated f16 values (default 0:1).
    #[arg(long = "f16-bounds", value_name = "LO:HI", allow_hyphen_values = true)]
    f16: Option<String>,
    /// Range of generated f32 values (default 0:1).
    #[arg(long = "f32-bounds", value_name = "LO:HI", allow_hyphen_values = true)]
    f32: Option<String>,
    /// Range of generated f64 values (default 0:1).
    #[arg(long = "f64-bounds", value_name = "LO:HI", allow_hyphen_values = true)]
    f64: Option<String>,
}

impl BoundArgs {
    fn given(&self) -> [(PrimType, &Option<String>); 11] {
        [
            (PrimType::I8, &self.i8),
            (PrimType::I16, &self.i16),
            (PrimType::I32, &self.i32),
            (PrimType::I64, &self.i64),
            (PrimType::U8, &self.u8),
            (PrimType::U16, &self.u16),
            (PrimType::U32, &self.u32),
            (PrimType::U64, &self.u64),
            (PrimType::F16, &self.f16),
            (PrimType::F32, &self.f32),
            (PrimType::F64, &self.f64),
        ]
    }

    fn to_bounds(&self) -> Result<Bounds, DatasetError> {
        let mut bounds = Bounds::new();
        for (ty, range) in self.given() {
            if let Some(range) = range {
                bounds
                    .set(ty, range)
                    .map_err(|source| DatasetError::BadBounds { ty, source })?;
            }
        }
        Ok(bounds)
    }
}

/// What can go wrong in `futhark-rs dataset`.
#[derive(Debug, thiserror::Error)]
pub enum DatasetError {
    /// A `-g` argument that is not a value type.
    #[error("invalid type `{text}` given to -g: {}", data::describe_in_line(.source))]
    BadType {
        /// The argument as given.
        text: String,
        /// Why it was rejected.
        source: DataError,
    },
    /// A malformed `--T-bounds` argument.
    #[error("--{ty}-bounds: {source}")]
    BadBounds {
        /// The type the bounds are for.
        ty: PrimType,
        /// Why they were rejected.
        source: BoundsError,
    },
    /// A type too large to generate.
    #[error("cannot generate a value of type {ty}: {source}")]
    TooLarge {
        /// The type asked for.
        ty: ValueType,
        /// The shape problem.
        source: ShapeError,
    },
    /// Standard input could not be read.
    #[error("cannot read standard input: {0}")]
    ReadInput(io::Error),
    /// Standard input holds invalid data.
    #[error("standard input: {0}")]
    BadInput(DataError),
    /// Writing the output failed.
    #[error("cannot write output: {0}")]
    Write(io::Error),
}

pub fn run(args: DatasetArgs) -> ExitCode {
    match dataset(&args) {
        Ok(()) => ExitCode::SUCCESS,
        // A closed pipe (`| head`) is the reader's choice, not an error.
        Err(DatasetError::Write(e)) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn dataset(args: &DatasetArgs) -> Result<(), DatasetError> {
    let format = Format::from_flag(args.binary);
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    if args.generate.is_empty() {
        convert(&mut out, format)?;
    } else {
        // Check every argument before writing anything.
        let bounds = args.bounds.to_bounds()?;
        let types = args
            .generate
            .iter()
            .map(|text| {
                parse_type(text).map_err(|source| DatasetError::BadType {
                    text: text.clone(),
                    source,
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        generate(&mut out, &types, args.seed, &bounds, format)?;
    }
    out.flush().map_err(DatasetError::Write)
}

/// Writes one random value per type, all drawn from one generator seeded with `seed`.
pub fn generate(
    out: &mut impl Write,
    types: &[ValueType],
    seed: u64,
    bounds: &Bounds,
    format: Format,
) -> Result<(), DatasetError> {
    let mut rng = Rng::new(seed);
    for ty in types {
        let value =
            generate_with(ty, &mut rng, bounds).map_err(|source| DatasetError::TooLarge {
                ty: ty.clone(),
                source,
            })?;
        data::write_value(out, &value, format).map_err(DatasetError::Write)?;
    }
    Ok(())
}

/// Copies the values on standard input to `out` in `format`, value by value, so the values
/// before a malformed one are still written.
fn convert(out: &mut impl Write, format: Format) -> Result<(), DatasetError> {
    let bytes = data::read_stdin().map_err(DatasetError::ReadInput)?;
    for value in Reader::new(&bytes) {
        let value = value.map_err(DatasetError::BadInput)?;
        data::write_value(out, &value, format).map_err(DatasetError::Write)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gen_text(types: &[&str], seed: u64, bounds: &Bounds) -> String {
        let types: Vec<ValueType> = types.iter().map(|t| parse_type(t).unwrap()).collect();
        let mut out = Vec::new();
        generate(&mut out, &types, seed, bounds, Format::Text).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn same_seed_same_values() {
        let b = Bounds::new();
        assert_eq!(gen_text(&["[3]i32"], 7, &b), gen_text(&["[3]i32"], 7, &b));
        assert_ne!(gen_text(&["[3]i32"], 7, &b), gen_text(&["[3]i32"], 8, &b));
    }

    #[test]
    fn successive_values_differ() {
        let text = gen_text(&["[4]i64", "[4]i64"], 1, &Bounds::new());
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 2);
        assert_ne!(lines[0], lines[1]);
    }

    #[test]
    fn bounds_are_respected() {
        let mut b = Bounds::new();
        b.set(PrimType::I32, "5:5").unwrap();
        assert_eq!(gen_text(&["[2]i32"], 3, &b), "[5i32, 5i32]\n");
    }
}
