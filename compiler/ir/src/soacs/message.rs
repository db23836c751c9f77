//! Assertion messages with holes: `{}` is replaced by the next value, `{{` and `}}` stand
//! for literal braces (the escapes of Rust's `format!`, so lowering can build them with it).

/// How many `{}` holes `msg` has.
pub fn holes(msg: &str) -> usize {
    let mut n = 0;
    fill_with(msg, |_| {
        n += 1;
        String::new()
    });
    n
}

/// `msg` with its holes filled, in order, by `values` (a hole without a value stays `{}`).
pub fn fill(msg: &str, values: &[String]) -> String {
    fill_with(msg, |k| {
        values.get(k).cloned().unwrap_or_else(|| "{}".into())
    })
}

fn fill_with(msg: &str, mut value: impl FnMut(usize) -> String) -> String {
    let mut out = String::with_capacity(msg.len());
    let mut chars = msg.chars().peekable();
    let mut k = 0;
    while let Some(c) = chars.next() {
        match (c, chars.peek()) {
            ('{', Some('{')) | ('}', Some('}')) => {
                chars.next();
                out.push(c);
            }
            ('{', Some('}')) => {
                chars.next();
                out.push_str(&value(k));
                k += 1;
            }
            _ => out.push(c),
        }
    }
    out
}

/// A value as a message shows it: integers without their type suffix, as Futhark prints
/// them in run-time errors; other values as the IR prints them.
pub fn show(v: crate::types::PrimValue) -> String {
    use crate::types::PrimValue as V;
    match v {
        V::I8(x) => x.to_string(),
        V::I16(x) => x.to_string(),
        V::I32(x) => x.to_string(),
        V::I64(x) => x.to_string(),
        V::U8(x) => x.to_string(),
        V::U16(x) => x.to_string(),
        V::U32(x) => x.to_string(),
        V::U64(x) => x.to_string(),
        other => other.to_string(),
    }
}

/// Escapes braces so that `text` reads as itself in a message.
pub fn escape(text: &str) -> String {
    text.replace('{', "{{").replace('}', "}}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holes_escapes_and_filling() {
        assert_eq!(holes("Range {}..<{} is invalid."), 2);
        assert_eq!(holes("a {{}} b"), 0);
        assert_eq!(
            fill("Range {}...{} is invalid.", &["5".into(), "1".into()]),
            "Range 5...1 is invalid."
        );
        assert_eq!(fill(&escape("f {x} {}"), &[]), "f {x} {}");
        assert_eq!(fill("{} and {}", &["1".into()]), "1 and {}");
    }
}
