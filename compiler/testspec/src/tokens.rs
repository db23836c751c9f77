//! Parsing the whitespace-separated contents of braces: tags, random types, structure metrics.

use crate::cursor::is_tag_char;
use crate::error::ErrorKind;
use crate::spec::GenValue;

/// Primitive type names allowed in `random input`.
const PRIM_TYPES: &[&str] = &[
    "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f16", "f32", "f64", "bool",
];

/// Splits the text of `tags { ... }` into tag names.
pub(crate) fn tag_list(text: &str) -> Result<Vec<String>, ErrorKind> {
    text.split_whitespace()
        .map(|t| {
            if t.chars().all(is_tag_char) {
                Ok(t.to_string())
            } else {
                Err(ErrorKind::BadTag(t.to_string()))
            }
        })
        .collect()
}

/// Parses the text of `random input { ... }`.
pub(crate) fn gen_values(text: &str) -> Result<Vec<GenValue>, ErrorKind> {
    text.split_whitespace().map(gen_value).collect()
}

/// One random-input token: `[d1][d2]t`, or a scalar constant such as `10i64` or `0.5f32`.
fn gen_value(tok: &str) -> Result<GenValue, ErrorKind> {
    let bad = || ErrorKind::BadRandomValue(tok.to_string());
    let mut rest = tok;
    let mut dims = Vec::new();
    while let Some(inner) = rest.strip_prefix('[') {
        let (num, after) = inner.split_once(']').ok_or_else(bad)?;
        dims.push(natural(num).ok_or_else(bad)?);
        rest = after;
    }
    if PRIM_TYPES.contains(&rest) {
        return Ok(GenValue::Random {
            dims,
            elem: rest.to_string(),
        });
    }
    if dims.is_empty() && is_constant(tok) {
        return Ok(GenValue::Constant(tok.to_string()));
    }
    Err(bad())
}

/// A decimal natural number, `_` separators allowed.
fn natural(text: &str) -> Option<u64> {
    let digits: String = text.chars().filter(|&c| c != '_').collect();
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// Whether `tok` looks like a scalar literal (checked further by the values reader).
fn is_constant(tok: &str) -> bool {
    let body = tok.strip_prefix('-').unwrap_or(tok);
    let starts_numeric = body.starts_with(|c: char| c.is_ascii_digit());
    let literal_chars = body
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '+' | '-'));
    (starts_numeric && literal_chars) || matches!(tok, "true" | "false")
}

/// Parses the text of `structure { Name N ... }` into `(name, count)` pairs. Names consist of
/// letters and `/`.
pub(crate) fn metrics(text: &str) -> Result<Vec<(String, u64)>, ErrorKind> {
    let toks: Vec<&str> = text.split_whitespace().collect();
    toks.chunks(2)
        .map(|pair| match pair {
            [name, count] => {
                let name_ok = name.chars().all(|c| c.is_alphabetic() || c == '/');
                let n = count.parse::<u64>().ok().filter(|_| name_ok);
                let pair = pair.join(" ");
                let n = n.ok_or_else(|| ErrorKind::BadMetrics(format!("`{pair}`")))?;
                Ok((name.to_string(), n))
            }
            _ => Err(ErrorKind::BadMetrics(format!(
                "`{}` has no count",
                pair.join(" ")
            ))),
        })
        .collect()
}
