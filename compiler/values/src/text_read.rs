//! The value reader: any number of concatenated values in the text format, with binary values
//! (detected by a leading `b`) mixed in, and the parser for type strings like `[10][20]f32`.
//!
//! The reader works on a byte slice in one forward pass. Array elements go straight into one
//! typed `Vec` per array (never a `Value` per element), so reading is linear in the input.
//! Line and column numbers are computed only when an error is reported.
//!
//! Text syntax accepted (the reference `futhark-data` grammar):
//! - integers: decimal, `0x…`, `0b…`, `_` separators, optional sign, suffix `i8`…`u64`
//!   (none = `i32`). As in the reference, a literal is taken modulo 2^n for an n-bit type:
//!   `-1u8` is 255, `0xffi8` is -1, and `32767i8` is -1 (the conformance test
//!   `primitive/u16_convop.fut` relies on this). Only literals outside `[-2^63, 2^64)`, which fit
//!   no 64-bit integer, are rejected as out of range.
//! - floats: decimal digits with a `.` fraction and/or an exponent, or plain digits with a float
//!   suffix (`1f32`); suffix `f16`/`f32`/`f64` (none = `f64`); `f32.nan`, `f32.inf`,
//!   `-f32.inf` and likewise for f16/f64. Values too large for the type become infinities.
//! - `true`, `false`; strings `"…"` as `[]u8` of their UTF-8 bytes, with escapes `\n \t \r \\
//!   \" \' \0 \a \b \f \v`, `\xH…` (hex code point), `\oO…` (octal), `\D…` (decimal code point).
//! - arrays `[a, b, …]` (trailing comma allowed), regular, nested; `empty([0][3]i32)`.
//! - Inside an array, the type of the first element also applies to later elements written
//!   without a suffix (futhark-data 1.1.2): `[0x93u8, 0xb8]` is `[2]u8`, `[1f32, 2]` is
//!   `[2]f32`. An element with a different explicit type is an error.
//! - `--` comments to the end of the line and whitespace between tokens.

use half::f16;

use crate::binary::read_binary_at;
use crate::error::{DataError, Location, TextError};
use crate::value::{Buffer, Value, ValueType, shape_elems};
use futhark_prim::PrimType;

/// Reads every value in `input` (text and binary may be mixed).
pub fn read_values(input: &[u8]) -> Result<Vec<Value>, DataError> {
    Reader::new(input).collect()
}

/// Reads all of `r` and then every value in it.
pub fn read_values_from(mut r: impl std::io::Read) -> Result<Vec<Value>, DataError> {
    let mut bytes = Vec::new();
    r.read_to_end(&mut bytes)
        .map_err(|source| DataError::Io { path: None, source })?;
    read_values(&bytes)
}

/// Reads exactly one value from `input`; anything but whitespace and comments after it is an
/// error, as is an input with no value.
pub fn read_value(input: &[u8]) -> Result<Value, DataError> {
    let mut r = Reader::new(input);
    let Some(v) = r.next_value()? else {
        return Err(r.p.expected("a value"));
    };
    r.p.skip_ws();
    if r.p.pos < input.len() {
        return Err(r.p.expected("end of input after the value"));
    }
    Ok(v)
}

/// An iterator over the values in a byte slice, one at a time. After an error it yields nothing.
pub struct Reader<'a> {
    p: Parser<'a>,
    failed: bool,
}

impl<'a> Reader<'a> {
    /// A reader over `input`.
    pub fn new(input: &'a [u8]) -> Reader<'a> {
        Reader {
            p: Parser::new(input),
            failed: false,
        }
    }

    /// The byte offset the next value would be read from.
    pub fn offset(&self) -> usize {
        self.p.pos
    }

    /// The next value, or `None` at the end of the input (only whitespace and comments left).
    pub fn next_value(&mut self) -> Result<Option<Value>, DataError> {
        if self.failed {
            return Ok(None);
        }
        let res = self.next_inner();
        if res.is_err() {
            self.failed = true;
        }
        res
    }

    fn next_inner(&mut self) -> Result<Option<Value>, DataError> {
        self.p.skip_ws();
        match self.p.peek() {
            None => Ok(None),
            // A binary value starts with `b` and the version byte; `b` followed by a letter or
            // digit is a misspelt text token and is reported as such.
            Some(b'b') if !self.p.peek_at(1).is_some_and(is_ident_char) => {
                let (v, end) = read_binary_at(self.p.s, self.p.pos)?;
                self.p.pos = end;
                Ok(Some(v))
            }
            Some(_) => self.p.value(None).map(Some),
        }
    }
}

impl Iterator for Reader<'_> {
    type Item = Result<Value, DataError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_value().transpose()
    }
}

/// Parses a type string such as `[10][20]f32`, `i32` or `[0][3]bool`; no whitespace allowed.
pub fn parse_type(s: &str) -> Result<ValueType, DataError> {
    let mut p = Parser::new(s.as_bytes());
    let t = p.value_type()?;
    if p.pos < s.len() {
        return Err(p.expected("end of type"));
    }
    Ok(t)
}

impl std::str::FromStr for ValueType {
    type Err = DataError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        parse_type(s)
    }
}

/// One scalar read from the text; the array builder moves it into the typed buffer.
#[derive(Clone, Copy, Debug)]
enum Scalar {
    I8(i8),
    I16(i16),
    I32(i32),
    I64(i64),
    U8(u8),
    U16(u16),
    U32(u32),
    U64(u64),
    F16(f16),
    F32(f32),
    F64(f64),
    Bool(bool),
}

impl Scalar {
    fn prim(self) -> PrimType {
        match self {
            Scalar::I8(_) => PrimType::I8,
            Scalar::I16(_) => PrimType::I16,
            Scalar::I32(_) => PrimType::I32,
            Scalar::I64(_) => PrimType::I64,
            Scalar::U8(_) => PrimType::U8,
            Scalar::U16(_) => PrimType::U16,
            Scalar::U32(_) => PrimType::U32,
            Scalar::U64(_) => PrimType::U64,
            Scalar::F16(_) => PrimType::F16,
            Scalar::F32(_) => PrimType::F32,
            Scalar::F64(_) => PrimType::F64,
            Scalar::Bool(_) => PrimType::Bool,
        }
    }

    /// Appends to `buf`; hands the scalar back if the types differ.
    fn push(self, buf: &mut Buffer) -> Result<(), Scalar> {
        match (buf, self) {
            (Buffer::I8(v), Scalar::I8(x)) => v.push(x),
            (Buffer::I16(v), Scalar::I16(x)) => v.push(x),
            (Buffer::I32(v), Scalar::I32(x)) => v.push(x),
            (Buffer::I64(v), Scalar::I64(x)) => v.push(x),
            (Buffer::U8(v), Scalar::U8(x)) => v.push(x),
            (Buffer::U16(v), Scalar::U16(x)) => v.push(x),
            (Buffer::U32(v), Scalar::U32(x)) => v.push(x),
            (Buffer::U64(v), Scalar::U64(x)) => v.push(x),
            (Buffer::F16(v), Scalar::F16(x)) => v.push(x),
            (Buffer::F32(v), Scalar::F32(x)) => v.push(x),
            (Buffer::F64(v), Scalar::F64(x)) => v.push(x),
            (Buffer::Bool(v), Scalar::Bool(x)) => v.push(x),
            (_, s) => return Err(s),
        }
        Ok(())
    }
}

/// State of one array literal being read: its flat data, and the rank and inner dimensions
/// fixed by the first elements, which later elements must match.
struct ArrayBuilder {
    data: Option<Buffer>,
    rank: Option<usize>,
    /// `dims[d]` is the length of every array at nesting depth `d` (the outermost is depth 0,
    /// whose length is only known at the end).
    dims: Vec<Option<i64>>,
}

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

fn is_ident_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'.'
}

/// Describes the byte at `pos` (or the end) for an error message.
fn describe(s: &[u8], pos: usize) -> String {
    match s.get(pos) {
        None => "end of input".to_string(),
        Some(&b) if b.is_ascii_graphic() || b == b' ' => format!("`{}`", b as char),
        Some(b'\n') => "end of line".to_string(),
        Some(&b) => format!("byte 0x{b:02x}"),
    }
}

/// The most dimensions an array literal may have: the binary format's rank byte allows 127, and
/// the limit keeps the recursive reader's stack bounded on hostile input like `[[[[…`.
const MAX_RANK: usize = 127;

const INT_SUFFIXES: [(&[u8], PrimType); 11] = [
    (b"i16", PrimType::I16),
    (b"i32", PrimType::I32),
    (b"i64", PrimType::I64),
    (b"u16", PrimType::U16),
    (b"u32", PrimType::U32),
    (b"u64", PrimType::U64),
    (b"f16", PrimType::F16),
    (b"f32", PrimType::F32),
    (b"f64", PrimType::F64),
    (b"i8", PrimType::I8),
    (b"u8", PrimType::U8),
];

struct Parser<'a> {
    s: &'a [u8],
    pos: usize,
    /// Reused for float literals that contain `_` separators.
    scratch: String,
}

impl<'a> Parser<'a> {
    fn new(s: &'a [u8]) -> Parser<'a> {
        Parser {
            s,
            pos: 0,
            scratch: String::new(),
        }
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.pos).copied()
    }

    fn peek_at(&self, i: usize) -> Option<u8> {
        self.s.get(self.pos + i).copied()
    }

    fn err(&self, at: usize, kind: TextError) -> DataError {
        DataError::Text {
            at: Location::of(self.s, at),
            kind,
        }
    }

    fn expected(&self, what: &str) -> DataError {
        self.err(
            self.pos,
            TextError::Expected {
                expected: what.to_string(),
                found: describe(self.s, self.pos),
            },
        )
    }

    fn skip_ws(&mut self) {
        loop {
            while self.pos < self.s.len() && is_space(self.s[self.pos]) {
                self.pos += 1;
            }
            if self.s[self.pos..].starts_with(b"--") {
                match self.s[self.pos..].iter().position(|b| *b == b'\n') {
                    Some(i) => self.pos += i + 1,
                    None => self.pos = self.s.len(),
                }
            } else {
                return;
            }
        }
    }

    fn lit_text(&self, start: usize) -> String {
        String::from_utf8_lossy(&self.s[start..self.pos]).into_owned()
    }

    /// One value of any kind, at the current position (not whitespace).
    fn value(&mut self, want: Option<PrimType>) -> Result<Value, DataError> {
        match self.peek() {
            Some(b'[') => self.array(want),
            Some(b'"') => self.string(),
            Some(b'e') => self.empty(),
            _ => {
                let start = self.pos;
                let sc = self.scalar(want)?;
                let mut buf = Buffer::with_capacity(sc.prim(), 1);
                // A fresh buffer of the scalar's own type always accepts it.
                sc.push(&mut buf)
                    .map_err(|_| self.internal(start, "scalar buffer"))?;
                Value::new(Vec::new(), buf).map_err(|_| self.internal(start, "scalar shape"))
            }
        }
    }

    /// An error for a state the parser's own logic should rule out; reported rather than
    /// panicking so that no input can crash the reader.
    fn internal(&self, at: usize, what: &str) -> DataError {
        self.err(
            at,
            TextError::Irregular {
                reason: format!("internal reader error ({what})"),
            },
        )
    }

    // ---- scalars ----------------------------------------------------------------------------

    /// Reads an identifier-like token `[A-Za-z0-9_.]*` starting here.
    fn ident(&mut self) -> &'a [u8] {
        let start = self.pos;
        while self.pos < self.s.len() && is_ident_char(self.s[self.pos]) {
            self.pos += 1;
        }
        &self.s[start..self.pos]
    }

    fn scalar(&mut self, want: Option<PrimType>) -> Result<Scalar, DataError> {
        let start = self.pos;
        match self.peek() {
            Some(c) if c.is_ascii_alphabetic() => {
                let word = self.ident();
                let sc = match word {
                    b"true" => Scalar::Bool(true),
                    b"false" => Scalar::Bool(false),
                    b"f16.nan" => Scalar::F16(f16::NAN),
                    b"f32.nan" => Scalar::F32(f32::NAN),
                    b"f64.nan" => Scalar::F64(f64::NAN),
                    b"f16.inf" => Scalar::F16(f16::INFINITY),
                    b"f32.inf" => Scalar::F32(f32::INFINITY),
                    b"f64.inf" => Scalar::F64(f64::INFINITY),
                    _ => {
                        self.pos = start;
                        return Err(self.err(
                            start,
                            TextError::Expected {
                                expected: "a value".to_string(),
                                found: format!("`{}`", String::from_utf8_lossy(word)),
                            },
                        ));
                    }
                };
                Ok(sc)
            }
            Some(b'-') if self.peek_at(1).is_some_and(|c| c.is_ascii_alphabetic()) => {
                self.pos += 1;
                let word = self.ident();
                match word {
                    b"f16.inf" => Ok(Scalar::F16(f16::NEG_INFINITY)),
                    b"f32.inf" => Ok(Scalar::F32(f32::NEG_INFINITY)),
                    b"f64.inf" => Ok(Scalar::F64(f64::NEG_INFINITY)),
                    _ => Err(self.err(
                        start,
                        TextError::BadLiteral {
                            literal: self.lit_text(start),
                            reason: "only `-f16.inf`, `-f32.inf` and `-f64.inf` may follow a \
                                     minus sign without digits"
                                .to_string(),
                        },
                    )),
                }
            }
            Some(c) if c.is_ascii_digit() || c == b'-' || c == b'+' => self.number(want),
            _ => Err(self.expected("a value")),
        }
    }

    /// Scans digits of the given radix and `_` separators; returns the span. At least one digit
    /// must come first.
    fn digits(&mut self, radix: u32, start: usize) -> Result<(usize, usize), DataError> {
        let from = self.pos;
        if !self.peek().is_some_and(|c| (c as char).is_digit(radix)) {
            let what = match radix {
                2 => "a binary digit",
                16 => "a hexadecimal digit",
                _ => "a digit",
            };
            let found = describe(self.s, self.pos);
            // Consume the rest of the token so the message shows the whole literal.
            while self.peek().is_some_and(is_ident_char) {
                self.pos += 1;
            }
            return Err(self.err(
                start,
                TextError::BadLiteral {
                    literal: self.lit_text(start),
                    reason: format!("expected {what}, found {found}"),
                },
            ));
        }
        while self
            .peek()
            .is_some_and(|c| c == b'_' || (c as char).is_digit(radix))
        {
            self.pos += 1;
        }
        Ok((from, self.pos))
    }

    fn number(&mut self, want: Option<PrimType>) -> Result<Scalar, DataError> {
        let start = self.pos;
        let negative = match self.peek() {
            Some(b'-') => {
                self.pos += 1;
                true
            }
            Some(b'+') => {
                self.pos += 1;
                false
            }
            _ => false,
        };
        let radix = match (self.peek(), self.peek_at(1)) {
            (Some(b'0'), Some(b'x' | b'X')) => 16,
            (Some(b'0'), Some(b'b' | b'B')) => 2,
            _ => 10,
        };
        if radix != 10 {
            self.pos += 2;
        }
        let int_span = self.digits(radix, start)?;
        let mut is_float_syntax = false;
        if radix == 10 {
            if self.peek() == Some(b'.') {
                self.pos += 1;
                self.digits(10, start)?;
                is_float_syntax = true;
            }
            if matches!(self.peek(), Some(b'e' | b'E')) {
                self.pos += 1;
                if matches!(self.peek(), Some(b'+' | b'-')) {
                    self.pos += 1;
                }
                self.digits(10, start)?;
                is_float_syntax = true;
            }
        }
        let num_end = self.pos;
        let rest = &self.s[self.pos..];
        let suffix = INT_SUFFIXES
            .iter()
            .find(|(name, _)| rest.starts_with(name))
            .map(|(name, t)| (name.len(), *t));
        if let Some((len, _)) = suffix {
            self.pos += len;
        }
        if self.peek().is_some_and(is_ident_char) {
            let at = self.pos;
            while self.peek().is_some_and(is_ident_char) {
                self.pos += 1;
            }
            return Err(self.err(
                start,
                TextError::BadLiteral {
                    literal: self.lit_text(start),
                    reason: format!(
                        "unexpected {} after the number (suffixes are i8 i16 i32 i64 u8 u16 \
                         u32 u64 f16 f32 f64)",
                        describe(self.s, at)
                    ),
                },
            ));
        }
        let ty = match (suffix, want) {
            (Some((_, t)), _) => {
                if is_float_syntax && !t.is_float() {
                    return Err(self.err(
                        start,
                        TextError::BadLiteral {
                            literal: self.lit_text(start),
                            reason: format!(
                                "a literal with a fraction or exponent cannot have type {t}"
                            ),
                        },
                    ));
                }
                t
            }
            (None, Some(t)) if t.is_float() => t,
            (None, Some(t)) if t.is_int() && !is_float_syntax => t,
            (None, _) if is_float_syntax => PrimType::F64,
            (None, _) => PrimType::I32,
        };
        if ty.is_float() {
            self.float(start, negative, radix, int_span, num_end, ty)
        } else {
            self.integer(start, negative, radix, int_span, ty)
        }
    }

    fn integer(
        &self,
        start: usize,
        negative: bool,
        radix: u32,
        (from, to): (usize, usize),
        ty: PrimType,
    ) -> Result<Scalar, DataError> {
        let out_of_range = || {
            self.err(
                start,
                TextError::OutOfRange {
                    literal: self.lit_text(start),
                    ty,
                },
            )
        };
        let mut mag: u128 = 0;
        for &c in &self.s[from..to] {
            if c == b'_' {
                continue;
            }
            let d = (c as char).to_digit(radix).unwrap_or(0);
            mag = mag
                .checked_mul(u128::from(radix))
                .and_then(|m| m.checked_add(u128::from(d)))
                .ok_or_else(out_of_range)?;
        }
        let mag = i128::try_from(mag).map_err(|_| out_of_range())?;
        let v = if negative { -mag } else { mag };
        if v < i128::from(i64::MIN) || v > i128::from(u64::MAX) {
            return Err(out_of_range());
        }
        // Reduce modulo 2^64 and then 2^bits through two's complement truncation.
        let w = v as u64;
        Ok(match ty {
            PrimType::I8 => Scalar::I8(w as i8),
            PrimType::I16 => Scalar::I16(w as i16),
            PrimType::I32 => Scalar::I32(w as i32),
            PrimType::I64 => Scalar::I64(w as i64),
            PrimType::U8 => Scalar::U8(w as u8),
            PrimType::U16 => Scalar::U16(w as u16),
            PrimType::U32 => Scalar::U32(w as u32),
            _ => Scalar::U64(w),
        })
    }

    fn float(
        &mut self,
        start: usize,
        negative: bool,
        radix: u32,
        (from, to): (usize, usize),
        num_end: usize,
        ty: PrimType,
    ) -> Result<Scalar, DataError> {
        let x: f64 = if radix != 10 {
            // A hexadecimal or binary integer given a float type (by its array siblings).
            let mut m: f64 = 0.0;
            for &c in &self.s[from..to] {
                if let Some(d) = (c as char).to_digit(radix) {
                    m = m * f64::from(radix) + f64::from(d);
                }
            }
            if negative { -m } else { m }
        } else {
            let text = &self.s[start..num_end];
            let text = if text.contains(&b'_') {
                self.scratch.clear();
                self.scratch
                    .extend(text.iter().filter(|c| **c != b'_').map(|c| *c as char));
                self.scratch.as_str()
            } else {
                // The span holds only ASCII signs, digits, `.` and `e`, so this cannot fail.
                std::str::from_utf8(text).unwrap_or("")
            };
            let parsed = match ty {
                PrimType::F32 => text.parse::<f32>().map(f64::from),
                _ => text.parse::<f64>(),
            };
            parsed.map_err(|e| {
                self.err(
                    start,
                    TextError::BadLiteral {
                        literal: self.lit_text(start),
                        reason: e.to_string(),
                    },
                )
            })?
        };
        Ok(match ty {
            PrimType::F16 => Scalar::F16(f16::from_f64(x)),
            PrimType::F32 => Scalar::F32(x as f32),
            _ => Scalar::F64(x),
        })
    }

    // ---- strings ----------------------------------------------------------------------------

    fn string(&mut self) -> Result<Value, DataError> {
        let open = self.pos;
        self.pos += 1;
        let mut bytes = Vec::new();
        loop {
            let Some(c) = self.peek() else {
                return Err(self.err(open, TextError::UnterminatedString));
            };
            match c {
                b'"' => {
                    self.pos += 1;
                    break;
                }
                b'\\' => {
                    let esc = self.pos;
                    self.pos += 1;
                    self.escape(esc, &mut bytes)?;
                }
                _ => {
                    bytes.push(c);
                    self.pos += 1;
                }
            }
        }
        Ok(Value::from_vec1(bytes))
    }

    fn escape(&mut self, esc: usize, out: &mut Vec<u8>) -> Result<(), DataError> {
        let bad = |p: &Self| {
            let end = (p.pos + 1).min(p.s.len());
            p.err(
                esc,
                TextError::BadEscape {
                    escape: String::from_utf8_lossy(&p.s[esc..end]).into_owned(),
                },
            )
        };
        let Some(c) = self.peek() else {
            return Err(self.err(esc, TextError::UnterminatedString));
        };
        let simple = match c {
            b'n' => Some(b'\n'),
            b't' => Some(b'\t'),
            b'r' => Some(b'\r'),
            b'\\' => Some(b'\\'),
            b'"' => Some(b'"'),
            b'\'' => Some(b'\''),
            b'a' => Some(0x07),
            b'b' => Some(0x08),
            b'f' => Some(0x0c),
            b'v' => Some(0x0b),
            _ => None,
        };
        if let Some(b) = simple {
            out.push(b);
            self.pos += 1;
            return Ok(());
        }
        let (radix, skip) = match c {
            b'x' => (16, 1),
            b'o' => (8, 1),
            b'0'..=b'9' => (10, 0),
            _ => return Err(bad(self)),
        };
        self.pos += skip;
        let mut code: u32 = 0;
        let mut n = 0;
        while let Some(d) = self.peek().and_then(|c| (c as char).to_digit(radix)) {
            code = match code.checked_mul(radix).and_then(|m| m.checked_add(d)) {
                Some(v) => v,
                None => return Err(bad(self)),
            };
            self.pos += 1;
            n += 1;
        }
        if n == 0 {
            return Err(bad(self));
        }
        let ch = char::from_u32(code).ok_or_else(|| {
            self.err(
                esc,
                TextError::BadEscape {
                    escape: self.lit_text(esc),
                },
            )
        })?;
        let mut tmp = [0u8; 4];
        out.extend_from_slice(ch.encode_utf8(&mut tmp).as_bytes());
        Ok(())
    }

    // ---- types and empty(...) ---------------------------------------------------------------

    fn value_type(&mut self) -> Result<ValueType, DataError> {
        let mut shape = Vec::new();
        while self.peek() == Some(b'[') {
            if shape.len() >= MAX_RANK {
                return Err(self.err(self.pos, TextError::TooDeep));
            }
            self.pos += 1;
            let start = self.pos;
            if !self.peek().is_some_and(|c| c.is_ascii_digit()) {
                return Err(self.expected("a dimension size"));
            }
            let mut d: i64 = 0;
            while let Some(c) = self.peek() {
                if c == b'_' {
                    self.pos += 1;
                    continue;
                }
                if !c.is_ascii_digit() {
                    break;
                }
                self.pos += 1;
                d = d
                    .checked_mul(10)
                    .and_then(|x| x.checked_add(i64::from(c - b'0')))
                    .ok_or_else(|| {
                        self.err(
                            start,
                            TextError::OutOfRange {
                                literal: self.lit_text(start),
                                ty: PrimType::I64,
                            },
                        )
                    })?;
            }
            if self.peek() != Some(b']') {
                return Err(self.expected("`]`"));
            }
            self.pos += 1;
            shape.push(d);
        }
        let start = self.pos;
        while self.peek().is_some_and(|c| c.is_ascii_alphanumeric()) {
            self.pos += 1;
        }
        if start == self.pos {
            return Err(self.expected("`[` or a primitive type"));
        }
        let name = &self.s[start..self.pos];
        let elem = PrimType::from_name_bytes(name).ok_or_else(|| {
            self.err(
                start,
                TextError::UnknownType {
                    name: String::from_utf8_lossy(name).into_owned(),
                },
            )
        })?;
        Ok(ValueType { shape, elem })
    }

    fn empty(&mut self) -> Result<Value, DataError> {
        let start = self.pos;
        if !self.s[self.pos..].starts_with(b"empty") {
            let word = self.ident();
            let found = format!("`{}`", String::from_utf8_lossy(word));
            self.pos = start;
            return Err(self.err(
                start,
                TextError::Expected {
                    expected: "a value".to_string(),
                    found,
                },
            ));
        }
        self.pos += 5;
        self.skip_ws();
        if self.peek() != Some(b'(') {
            return Err(self.expected("`(` after `empty`"));
        }
        self.pos += 1;
        self.skip_ws();
        let ty = self.value_type()?;
        self.skip_ws();
        if self.peek() != Some(b')') {
            return Err(self.expected("`)`"));
        }
        self.pos += 1;
        if ty.shape.is_empty() || shape_elems(&ty.shape) != Some(0) {
            return Err(self.err(start, TextError::NotEmpty { ty }));
        }
        Value::empty(&ty).map_err(|_| self.internal(start, "empty value"))
    }

    // ---- arrays -----------------------------------------------------------------------------

    fn array(&mut self, want: Option<PrimType>) -> Result<Value, DataError> {
        let start = self.pos;
        let mut b = ArrayBuilder {
            data: None,
            rank: None,
            dims: Vec::new(),
        };
        let n = self.array_level(&mut b, 0, want)?;
        let (Some(rank), Some(data)) = (b.rank, b.data) else {
            return Err(self.internal(start, "array without elements"));
        };
        let mut shape = Vec::with_capacity(rank);
        shape.push(n);
        for d in 1..rank {
            match b.dims.get(d).copied().flatten() {
                Some(k) => shape.push(k),
                None => return Err(self.internal(start, "unknown inner dimension")),
            }
        }
        Value::new(shape, data).map_err(|_| self.internal(start, "array shape"))
    }

    fn irregular(&self, at: usize, reason: String) -> DataError {
        self.err(at, TextError::Irregular { reason })
    }

    fn set_rank(&self, b: &mut ArrayBuilder, rank: usize, at: usize) -> Result<(), DataError> {
        match b.rank {
            None => {
                b.rank = Some(rank);
                Ok(())
            }
            Some(r) if r == rank => Ok(()),
            Some(r) => Err(self.irregular(
                at,
                format!(
                    "this element makes the array {rank}-dimensional, but earlier elements \
                     made it {r}-dimensional"
                ),
            )),
        }
    }

    fn record_dim(
        &self,
        b: &mut ArrayBuilder,
        depth: usize,
        len: i64,
        at: usize,
    ) -> Result<(), DataError> {
        if b.dims.len() <= depth {
            b.dims.resize(depth + 1, None);
        }
        match b.dims[depth] {
            None => {
                b.dims[depth] = Some(len);
                Ok(())
            }
            Some(k) if k == len => Ok(()),
            Some(k) => Err(self.irregular(
                at,
                format!("this row has {len} elements, but earlier rows at the same depth have {k}"),
            )),
        }
    }

    fn append(&self, b: &mut ArrayBuilder, data: &Buffer, at: usize) -> Result<(), DataError> {
        match &mut b.data {
            None => {
                b.data = Some(data.clone());
                Ok(())
            }
            Some(buf) => buf.extend_from(data).map_err(|_| {
                self.err(
                    at,
                    TextError::MixedTypes {
                        expected: buf.elem_type(),
                        found: data.elem_type(),
                    },
                )
            }),
        }
    }

    /// Reads `[ … ]` at nesting `depth`, appending leaves to `b`; returns its element count.
    fn array_level(
        &mut self,
        b: &mut ArrayBuilder,
        depth: usize,
        want: Option<PrimType>,
    ) -> Result<i64, DataError> {
        let open = self.pos;
        if depth >= MAX_RANK {
            return Err(self.err(open, TextError::TooDeep));
        }
        self.pos += 1;
        let mut count: i64 = 0;
        loop {
            self.skip_ws();
            match self.peek() {
                None => return Err(self.expected("an array element or `]`")),
                Some(b']') => {
                    self.pos += 1;
                    break;
                }
                Some(_) => {}
            }
            let at = self.pos;
            match self.peek() {
                Some(b'[') => {
                    if b.rank.is_some_and(|r| r <= depth + 1) {
                        return Err(self.irregular(
                            at,
                            "found a nested array where earlier elements are scalars".to_string(),
                        ));
                    }
                    let n = self.array_level(b, depth + 1, want)?;
                    self.record_dim(b, depth + 1, n, at)?;
                }
                Some(b'"' | b'e') => {
                    let v = if self.peek() == Some(b'"') {
                        self.string()?
                    } else {
                        self.empty()?
                    };
                    self.set_rank(b, depth + 1 + v.rank(), at)?;
                    for (j, d) in v.shape().iter().enumerate() {
                        self.record_dim(b, depth + 1 + j, *d, at)?;
                    }
                    self.append(b, v.data(), at)?;
                }
                _ => {
                    if b.rank.is_some_and(|r| r > depth + 1) {
                        return Err(self.irregular(
                            at,
                            "found a scalar where earlier elements are arrays".to_string(),
                        ));
                    }
                    self.set_rank(b, depth + 1, at)?;
                    let hint = b.data.as_ref().map(Buffer::elem_type).or(want);
                    let sc = self.scalar(hint)?;
                    let buf = b
                        .data
                        .get_or_insert_with(|| Buffer::with_capacity(sc.prim(), 16));
                    if let Err(sc) = sc.push(buf) {
                        return Err(self.err(
                            at,
                            TextError::MixedTypes {
                                expected: buf.elem_type(),
                                found: sc.prim(),
                            },
                        ));
                    }
                }
            }
            count += 1;
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b']') => {}
                _ => return Err(self.expected("`,` or `]`")),
            }
        }
        if count == 0 {
            return Err(self.err(open, TextError::EmptyBrackets));
        }
        Ok(count)
    }
}

#[cfg(test)]
mod tests;
