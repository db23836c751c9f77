//! Reading values from standard input and writing them to standard output, in Futhark's text or
//! binary data format; shared by `dataset` and `run`.

use std::io::{self, Read, Write};

use futhark_values::{DataError, Value, to_text, write_binary};

/// Output format of values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// One value per line in the text format.
    Text,
    /// Concatenated values in the binary format.
    Binary,
}

impl Format {
    /// Binary when `binary` is set, text otherwise.
    pub fn from_flag(binary: bool) -> Format {
        if binary { Format::Binary } else { Format::Text }
    }
}

/// Why values could not be read from standard input.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    /// Reading the bytes failed.
    #[error("cannot read standard input: {0}")]
    Io(#[from] io::Error),
    /// The bytes are not valid data (the error says where).
    #[error("standard input: {0}")]
    Data(#[from] DataError),
}

/// All of standard input, read as bytes.
pub fn read_stdin() -> Result<Vec<u8>, io::Error> {
    let mut bytes = Vec::new();
    io::stdin().lock().read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Writes one value in `format`: text values end with a newline.
pub fn write_value(out: &mut impl Write, value: &Value, format: Format) -> io::Result<()> {
    match format {
        Format::Text => {
            let mut text = to_text(value);
            text.push('\n');
            out.write_all(text.as_bytes())
        }
        Format::Binary => {
            let mut bytes = Vec::new();
            write_binary(value, &mut bytes);
            out.write_all(&bytes)
        }
    }
}

/// Writes `values` in `format`, one after the other.
pub fn write_values(out: &mut impl Write, values: &[Value], format: Format) -> io::Result<()> {
    for v in values {
        write_value(out, v, format)?;
    }
    Ok(())
}

/// Describes an error from the data readers for a one-line message. Errors in a type string
/// have only one line, so for them the column alone is enough.
pub fn describe_in_line(err: &DataError) -> String {
    match err {
        DataError::Text { at, kind } => format!("column {}: {kind}", at.column),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futhark_values::read_values;

    #[test]
    fn text_values_are_one_per_line() {
        let vals = read_values(b"1 [2.5f32, 3f32] true").unwrap();
        let mut out = Vec::new();
        write_values(&mut out, &vals, Format::Text).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3, "{text}");
        assert_eq!((lines[0], lines[2]), ("1i32", "true"));
        assert!(text.ends_with('\n'));
        assert_eq!(read_values(text.as_bytes()).unwrap(), vals);
    }

    #[test]
    fn binary_round_trips() {
        let vals = read_values(b"[1i64, 2i64] 3u8").unwrap();
        let mut out = Vec::new();
        write_values(&mut out, &vals, Format::Binary).unwrap();
        assert_eq!(out[0], b'b');
        let back = read_values(&out).unwrap();
        assert_eq!(back, vals);
    }

    #[test]
    fn type_errors_name_the_column() {
        let err = futhark_values::parse_type("[10]f3").unwrap_err();
        assert!(describe_in_line(&err).starts_with("column "), "{err}");
    }
}
