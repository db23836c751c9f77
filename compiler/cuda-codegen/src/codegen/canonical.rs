//! Kernels named by their content. The IR's names carry counters (`xs_12`, `map_res_40`)
//! that shift whenever anything earlier in the program changes — a notebook cell defined
//! above, another entry point — so the same kernel would be new CUDA text, and a new NVRTC
//! compile, every time. [`canonicalize`] renames, in one generated module, every IR name
//! to a name given by its first appearance and every entry point to one given by a hash
//! of the resulting text: kernels that differ only in names become the same module, which
//! the runtime's caches (in memory and on disk, keyed by the source) then find.
//!
//! The renaming is consistent over the whole translation unit and touches only
//! identifiers the prelude does not use, so the module means what it meant; where a new
//! name would meet one already present, the kernel is left as it was.

use std::collections::{HashMap, HashSet};

use super::{GeneratedKernel, prelude};

/// Renames `gk`'s IR names and entry points as the module doc says; `gk.name` becomes the
/// module's key (see below), `gk.label` keeps the name reports show. Idempotent.
pub fn canonicalize(gk: &mut GeneratedKernel) {
    let Some(body) = gk.source.strip_prefix(prelude::PRELUDE) else {
        return;
    };
    let reserved = prelude_identifiers();
    let entries: Vec<String> = gk.plan.entries().iter().map(|e| e.to_string()).collect();
    // Pass 1: IR names by first appearance; entries become placeholders until the hash
    // of the text is known.
    let mut names: HashMap<&str, String> = HashMap::new();
    let mut present: HashSet<&str> = HashSet::new();
    let mut next = 0usize;
    let tokens = tokens_of(body, true);
    let own: &str = &gk.name;
    for t in &tokens {
        let Token::Ident(id) = *t else {
            continue;
        };
        present.insert(id);
        if names.contains_key(id) {
            continue;
        }
        if let Some(i) = entries.iter().position(|e| e == id) {
            names.insert(id, format!("{ENTRY_MARK}{i}"));
        } else if let Some(rest) = id
            .strip_prefix(own)
            .filter(|r| r.is_empty() || r.starts_with('_'))
        {
            // The module's own name, or a helper named after it (`{name}_warp_reduce`).
            names.insert(id, format!("{ENTRY_MARK}{rest}"));
        } else if is_ir_name(id) && !reserved.contains(id) {
            names.insert(id, format!("{VAR_PREFIX}{next}"));
            next += 1;
        }
    }
    // A new name that some untouched identifier already has would merge two variables.
    let is_fresh_name = |id: &str| {
        id.strip_prefix(VAR_PREFIX)
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    };
    if present
        .iter()
        .any(|id| !names.contains_key(id) && is_fresh_name(id))
    {
        return;
    }
    let text = rename(&tokens, &names);
    let base = format!("k{:016x}", fnv1a(text.as_bytes()));
    // The module's key in the runtime: the text and everything launching it and reading
    // its failures uses (plan, parameters, checks with their messages and locations), so
    // one key never stands for two different launches or error texts, while modules that
    // differ only there still share the compiled text (the entries are named by `text`).
    let meta = format!(
        "{text}\n{:?}\n{:?}\n{:?}\n{}\n{:?}",
        gk.plan, gk.arrays, gk.sizes, gk.loops, gk.checks
    );
    // Names the text does not show (parameters appear there under derived names) are
    // numbered by first appearance here too.
    let meta_tokens = tokens_of(&meta, false);
    let mut meta_names = names.clone();
    let mut unseen = 0usize;
    for t in &meta_tokens {
        if let Token::Ident(id) = *t
            && !meta_names.contains_key(id)
            && is_ir_name(id)
        {
            meta_names.insert(id, format!("m{unseen}"));
            unseen += 1;
        }
    }
    let key = format!(
        "k{:016x}",
        fnv1a(rename(&meta_tokens, &meta_names).as_bytes())
    );
    // Pass 2: the placeholders become the hash-derived entry names (longest first, so
    // `@E1` does not eat the start of `@E12`; helpers' `@E_…` go last, with the bare mark).
    let mut marks: Vec<(String, String)> = (0..entries.len())
        .map(|i| (format!("{ENTRY_MARK}{i}"), format!("{base}_{i}")))
        .collect();
    marks.sort_by_key(|(m, _)| std::cmp::Reverse(m.len()));
    let mut body = text;
    for (m, new) in &marks {
        body = body.replace(m.as_str(), new);
    }
    body = body.replace(ENTRY_MARK, &base);
    let renamed: HashMap<String, String> = entries
        .iter()
        .enumerate()
        .map(|(i, e)| (e.clone(), format!("{base}_{i}")))
        .collect();
    for e in gk.plan.entries_mut() {
        if let Some(new) = renamed.get(e.as_str()) {
            *e = new.clone();
        }
    }
    gk.source = format!("{}{body}", prelude::PRELUDE);
    gk.name = key;
}

/// The tokens' text with identifiers replaced as `names` says.
fn rename(tokens: &[Token<'_>], names: &HashMap<&str, String>) -> String {
    let mut text = String::new();
    for t in tokens {
        match t {
            Token::Ident(id) => text.push_str(names.get(id).map_or(*id, String::as_str)),
            Token::Other(s) => text.push_str(s),
        }
    }
    text
}

/// Stands for an entry point until the module's hash is known; `@` cannot occur in C
/// identifiers, so no identifier of the text contains it.
const ENTRY_MARK: &str = "@E";
/// The prefix of renamed IR names (`q0`, `q1`, …; no IR name lacks an `_`).
const VAR_PREFIX: &str = "q";

/// An IR name as the generator writes it: a base, `_`, and the counter (`xs_12`), or
/// something built from one (`s_xs_12`); never a CUDA built-in (`__…`).
fn is_ir_name(id: &str) -> bool {
    if id.starts_with("__") {
        return false;
    }
    let Some((head, digits)) = id.rsplit_once('_') else {
        return false;
    };
    !head.is_empty() && !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

/// Identifiers the prelude declares or uses, which the renaming leaves alone.
fn prelude_identifiers() -> HashSet<&'static str> {
    tokens_of(prelude::PRELUDE, true)
        .into_iter()
        .filter_map(|t| match t {
            Token::Ident(id) => Some(id),
            Token::Other(_) => None,
        })
        .collect()
}

#[derive(Debug, PartialEq)]
enum Token<'s> {
    Ident(&'s str),
    /// Anything else, verbatim: punctuation, white space, numbers, literals, comments.
    Other(&'s str),
}

/// Splits C source into identifiers and the text between them. Numbers (`1e10f`,
/// `0x1fu`), comments and (when `literals`) string and character literals are never
/// identifiers; without `literals`, quotes are plain text (for `Debug` output, whose
/// strings hold names).
fn tokens_of(src: &str, literals: bool) -> Vec<Token<'_>> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let mut other = 0;
    let ident_char = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    while i < b.len() {
        let c = b[i];
        let end = if c.is_ascii_alphabetic() || c == b'_' {
            let mut j = i;
            while j < b.len() && ident_char(b[j]) {
                j += 1;
            }
            if other < i {
                out.push(Token::Other(&src[other..i]));
            }
            out.push(Token::Ident(&src[i..j]));
            other = j;
            j
        } else if c.is_ascii_digit() || (c == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit))
        {
            let mut j = i + 1;
            while j < b.len()
                && (ident_char(b[j])
                    || b[j] == b'.'
                    || ((b[j] == b'+' || b[j] == b'-')
                        && matches!(b[j - 1], b'e' | b'E' | b'p' | b'P')))
            {
                j += 1;
            }
            j
        } else if literals && (c == b'"' || c == b'\'') {
            let mut j = i + 1;
            while j < b.len() && b[j] != c {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            (j + 1).min(b.len())
        } else if src[i..].starts_with("//") {
            src[i..].find('\n').map_or(b.len(), |n| i + n)
        } else if src[i..].starts_with("/*") {
            src[i + 2..].find("*/").map_or(b.len(), |n| i + 2 + n + 2)
        } else {
            i + 1
        };
        i = end;
    }
    if other < b.len() {
        out.push(Token::Other(&src[other..]));
    }
    out
}

/// FNV-1a, 64 bits: a hash that stays the same across runs and Rust versions (the disk
/// cache outlives both).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_keep_the_text_and_skip_literals_and_comments() {
        let src = "x_1 = 1e10f + y_2; // z_3\n/* w_4 */ s = \"q_5\"; c = 'a'; f(0x1fu, .5e-3);";
        let toks = tokens_of(src, true);
        let joined: String = toks
            .iter()
            .map(|t| match t {
                Token::Ident(s) | Token::Other(s) => *s,
            })
            .collect();
        assert_eq!(joined, src);
        let ids: Vec<&str> = toks
            .iter()
            .filter_map(|t| match t {
                Token::Ident(s) => Some(*s),
                Token::Other(_) => None,
            })
            .collect();
        assert_eq!(ids, ["x_1", "y_2", "s", "c", "f"]);
    }

    #[test]
    fn ir_names_are_a_base_and_a_counter() {
        assert!(is_ir_name("xs_12"));
        assert!(is_ir_name("s_xs_3"));
        assert!(!is_ir_name("int32_t"));
        assert!(!is_ir_name("__shfl_down_sync"));
        assert!(!is_ir_name("_1"));
        assert!(!is_ir_name("float2"));
        assert!(!is_ir_name("x_"));
    }
}
