//! A literate program split into blocks, as the reference splits it: runs of code lines
//! (lines not starting with `--`), runs of comment lines (their text becomes Markdown), test
//! blocks (`-- ==` and the comment lines after it, kept as code) and directives (`-- >` at the
//! start of a block, going on over following `--` lines as long as the directive's syntax
//! does). A directive must therefore follow a blank or code line: straight after a comment
//! line it is part of the comment.

use super::script::{self, Cursor, Exp, ParseError, Parsed};

/// One block of the program.
#[derive(Debug, Clone, PartialEq)]
pub enum Block {
    /// Code, without leading and trailing blank lines, each line ending in a newline (empty
    /// when the block was only blank lines).
    Code(String),
    /// The text of comment lines, `--` and one space removed.
    Comment(String),
    Directive(Directive),
}

/// A directive with where it is and how it was written.
#[derive(Debug, Clone, PartialEq)]
pub struct Directive {
    pub kind: Kind,
    /// The directive's text without the comment markers, each line ending in a newline
    /// (`> :img e;\nfile: x.png\n`).
    pub text: String,
    /// Offset of the `-- >` in the program.
    pub at: usize,
}

/// What a directive does.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    /// `> e`: show the value.
    Value(Exp),
    /// `> :brief d`: as `d`, shown without its parameters.
    Brief(Box<Kind>),
    /// `> :covert d`: as `d`, without showing the directive.
    Covert(Box<Kind>),
    /// `> :img e[;\nfile: NAME]`.
    Img { exp: Exp, file: Option<String> },
    /// `> :plot2d e[;\nsize: (W,H)]`.
    Plot {
        exp: Exp,
        size: Option<(usize, usize)>,
    },
    /// `> :gnuplot e;\nscript…` (needs gnuplot).
    Gnuplot { exp: Exp, script: String },
    /// `> :video e[; params]` (needs ffmpeg).
    Video {
        exp: Exp,
        params: Vec<(String, String)>,
    },
    /// `> :audio e[; params]` (needs ffmpeg).
    Audio {
        exp: Exp,
        params: Vec<(String, String)>,
    },
}

impl Kind {
    /// The directive under any `:brief` and `:covert`.
    pub fn inner(&self) -> &Kind {
        match self {
            Kind::Brief(k) | Kind::Covert(k) => k.inner(),
            k => k,
        }
    }
}

/// Splits a program into blocks; a malformed directive is an error at its place.
pub fn parse(text: &str) -> Parsed<Vec<Block>> {
    let mut blocks = Vec::new();
    let mut pos = 0;
    while pos < text.len() {
        let line = line_at(text, pos);
        if line.starts_with("-- >") {
            let (d, next) = directive(text, pos)?;
            blocks.push(Block::Directive(d));
            pos = next;
        } else if line.trim_end() == "-- ==" && comment_line(text, next_line(text, pos)) {
            let mut code = String::from("-- ==\n");
            pos = next_line(text, pos);
            while comment_line(text, pos) {
                code.push_str("-- ");
                code.push_str(strip_comment(line_at(text, pos)));
                code.push('\n');
                pos = next_line(text, pos);
            }
            blocks.push(Block::Code(code));
        } else if line.starts_with("--") {
            let mut comment = String::new();
            while comment_line(text, pos) {
                comment.push_str(strip_comment(line_at(text, pos)));
                comment.push('\n');
                pos = next_line(text, pos);
            }
            blocks.push(Block::Comment(comment));
        } else {
            let mut lines = Vec::new();
            while pos < text.len() && !line_at(text, pos).starts_with("--") {
                lines.push(line_at(text, pos).trim_end_matches('\r'));
                pos = next_line(text, pos);
            }
            let first = lines.iter().position(|l| !l.trim().is_empty());
            let last = lines.iter().rposition(|l| !l.trim().is_empty());
            let code = match (first, last) {
                (Some(a), Some(b)) => lines[a..=b].iter().map(|l| format!("{l}\n")).collect(),
                _ => String::new(),
            };
            blocks.push(Block::Code(code));
        }
    }
    Ok(blocks)
}

fn line_at(text: &str, pos: usize) -> &str {
    let rest = &text[pos..];
    rest.split('\n').next().unwrap_or(rest)
}

fn next_line(text: &str, pos: usize) -> usize {
    text[pos..].find('\n').map_or(text.len(), |i| pos + i + 1)
}

fn comment_line(text: &str, pos: usize) -> bool {
    pos < text.len() && line_at(text, pos).starts_with("--")
}

/// A comment line's text: without `--` and one space.
fn strip_comment(line: &str) -> &str {
    let l = line.trim_end_matches('\r');
    let l = l.strip_prefix("--").unwrap_or(l);
    l.strip_prefix(' ').unwrap_or(l)
}

/// The directive at `at` (a `-- >` line) and the offset after it.
fn directive(text: &str, at: usize) -> Parsed<(Directive, usize)> {
    let mut c = Cursor::new(text, at);
    c.expect("-- >")?;
    let kind = kind(&mut c)?;
    let source = &text[at..c.pos];
    let mut shown = String::new();
    for l in source.lines() {
        let l = l.trim_end_matches('\r');
        shown.push_str(
            l.strip_prefix("-- ")
                .unwrap_or_else(|| l.get(2..).unwrap_or("")),
        );
        shown.push('\n');
    }
    Ok((
        Directive {
            kind,
            text: shown,
            at,
        },
        c.pos,
    ))
}

/// A directive's name (`:img`) if the cursor is at one.
fn name(c: &mut Cursor, n: &str) -> bool {
    let rest = c.rest();
    let Some(after) = rest.strip_prefix(':').and_then(|r| r.strip_prefix(n)) else {
        return false;
    };
    if after.starts_with(|ch: char| ch.is_ascii_alphanumeric() || ch == '_') {
        return false;
    }
    c.pos += 1 + n.len();
    c.sep();
    true
}

const NAMES: [&str; 7] = [
    "covert", "brief", "img", "plot2d", "gnuplot", "video", "audio",
];

fn kind(c: &mut Cursor) -> Parsed<Kind> {
    if name(c, "covert") {
        return Ok(Kind::Covert(Box::new(kind(c)?)));
    }
    if name(c, "brief") {
        return Ok(Kind::Brief(Box::new(kind(c)?)));
    }
    if name(c, "img") {
        let exp = script::parse_exp(c)?;
        let mut file = None;
        for (key, value, at) in params(c, &["file"])? {
            debug_assert_eq!(key, "file");
            if value.is_empty() || value.contains(['/', '\\']) {
                return Err(ParseError {
                    at,
                    message: format!(
                        "`file: {value}` must name a file without a directory (it goes in the image directory)"
                    ),
                });
            }
            file = Some(value);
        }
        end(c)?;
        return Ok(Kind::Img { exp, file });
    }
    if name(c, "plot2d") {
        let exp = script::parse_exp(c)?;
        let mut size = None;
        for (_, value, at) in params(c, &["size"])? {
            size = Some(plot_size(&value).ok_or_else(|| ParseError {
                at,
                message: format!("`size: {value}` must be `(WIDTH,HEIGHT)` in pixels"),
            })?);
        }
        end(c)?;
        return Ok(Kind::Plot { exp, size });
    }
    if name(c, "gnuplot") {
        let exp = script::parse_exp(c)?;
        c.hspace();
        if !c.rest().starts_with(';') {
            return c.error(format!(
                "expected `;` and the gnuplot script on the next lines{}",
                c.found()
            ));
        }
        c.pos += 1;
        c.hspace();
        if !c.end_of_line() {
            return c.error("expected the gnuplot script to start on the next line");
        }
        let mut script = String::new();
        while comment_line(c.text, c.pos) {
            script.push_str(strip_comment(line_at(c.text, c.pos)));
            script.push('\n');
            c.pos = next_line(c.text, c.pos);
        }
        return Ok(Kind::Gnuplot { exp, script });
    }
    for (n, keys) in [
        ("video", &["fps", "loop", "autoplay", "format", "file"][..]),
        ("audio", &["sampling_frequency", "codec"][..]),
    ] {
        if name(c, n) {
            let exp = script::parse_exp(c)?;
            let params = params(c, keys)?
                .into_iter()
                .map(|(k, v, _)| (k, v))
                .collect();
            end(c)?;
            return Ok(if n == "video" {
                Kind::Video { exp, params }
            } else {
                Kind::Audio { exp, params }
            });
        }
    }
    if c.rest().starts_with(':') {
        let word: String = c.rest()[1..]
            .chars()
            .take_while(|ch| ch.is_ascii_alphanumeric() || *ch == '_')
            .collect();
        return c.error(format!(
            "unknown directive `:{word}` (expected one of {})",
            NAMES.map(|n| format!(":{n}")).join(", ")
        ));
    }
    let exp = script::parse_exp(c)?;
    end(c)?;
    Ok(Kind::Value(exp))
}

/// The end of a directive: the end of its line.
fn end(c: &mut Cursor) -> Parsed<()> {
    c.hspace();
    if c.end_of_line() {
        Ok(())
    } else {
        c.error(format!("expected the end of the directive{}", c.found()))
    }
}

/// Parameters after `;` on the following comment lines: `key: value`, keys from `keys`.
/// Gives each with the offset of its value.
fn params(c: &mut Cursor, keys: &[&str]) -> Parsed<Vec<(String, String, usize)>> {
    c.hspace();
    if !c.rest().starts_with(';') {
        return Ok(Vec::new());
    }
    c.pos += 1;
    c.hspace();
    let rest = c.rest();
    let Some(after) = rest
        .strip_prefix("\r\n--")
        .or_else(|| rest.strip_prefix("\n--"))
    else {
        return c.error("expected parameters (`key: value`) on the next comment lines after `;`");
    };
    c.pos += rest.len() - after.len();
    c.sep();
    let mut out = Vec::new();
    loop {
        let key: String = c
            .rest()
            .chars()
            .take_while(|ch| ch.is_ascii_alphanumeric() || *ch == '_')
            .collect();
        if key.is_empty() && !out.is_empty() {
            return Ok(out);
        }
        if !keys.contains(&key.as_str()) || !c.rest()[key.len()..].starts_with(':') {
            return c.error(format!(
                "expected a parameter `{}: …`{}",
                keys.join("`, `"),
                c.found()
            ));
        }
        c.pos += key.len() + 1;
        c.hspace();
        let at = c.pos;
        let value = if c.rest().starts_with('(') {
            // `(W,H)`, perhaps with blanks.
            let close = c.rest().find(')').map_or(0, |i| i + 1);
            c.rest()[..close]
                .chars()
                .filter(|ch| !ch.is_whitespace())
                .collect()
        } else {
            c.rest()
                .chars()
                .take_while(|ch| !ch.is_whitespace())
                .collect::<String>()
        };
        if value.is_empty() {
            return c.error(format!("expected a value for `{key}`"));
        }
        c.pos += if value.starts_with('(') {
            c.rest().find(')').map_or(0, |i| i + 1)
        } else {
            value.len()
        };
        c.sep();
        out.push((key, value, at));
    }
}

fn plot_size(value: &str) -> Option<(usize, usize)> {
    let inner = value.strip_prefix('(')?.strip_suffix(')')?;
    let (w, h) = inner.split_once(',')?;
    let (w, h) = (w.trim().parse().ok()?, h.trim().parse().ok()?);
    (w > 0 && h > 0 && w <= 10_000 && h <= 10_000).then_some((w, h))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<&'static str> {
        parse(text)
            .unwrap_or_default()
            .iter()
            .map(|b| match b {
                Block::Code(c) if c.is_empty() => "blank",
                Block::Code(_) => "code",
                Block::Comment(_) => "comment",
                Block::Directive(_) => "directive",
            })
            .collect()
    }

    #[test]
    fn blocks_are_split_as_the_reference_splits_them() {
        let text = "-- Intro.\nlet main x = x + 2\n\n-- > main 2\n\n--Tail\nlet x = true";
        assert_eq!(
            kinds(text),
            ["comment", "code", "directive", "blank", "comment", "code"]
        );
        let blocks = parse(text).unwrap_or_default();
        assert_eq!(blocks[0], Block::Comment("Intro.\n".into()));
        assert_eq!(blocks[1], Block::Code("let main x = x + 2\n".into()));
        assert_eq!(blocks[5], Block::Code("let x = true\n".into()));
        // Straight after a comment line, `-- >` is comment text.
        assert_eq!(kinds("-- a\n-- > main 2\n"), ["comment"]);
        // A test block is code.
        let t = parse("-- ==\n-- input { 1 }\n--output { 2 }\n").unwrap_or_default();
        assert_eq!(
            t,
            [Block::Code(
                "-- ==\n-- input { 1 }\n-- output { 2 }\n".into()
            )]
        );
    }

    #[test]
    fn directives_keep_their_text_and_parameters() {
        let text = "-- > :img checkerboard;\n-- file: foo.png\n";
        let blocks = parse(text).unwrap_or_default();
        let Some(Block::Directive(d)) = blocks.first() else {
            panic!("{blocks:?}")
        };
        assert_eq!(d.text, "> :img checkerboard;\nfile: foo.png\n");
        assert!(matches!(&d.kind, Kind::Img { file: Some(f), .. } if f == "foo.png"));
        let text = "-- > :covert :plot2d (xs, ys);\n-- size: (300, 200)";
        let blocks = parse(text).unwrap_or_default();
        let Some(Block::Directive(d)) = blocks.first() else {
            panic!("{blocks:?}")
        };
        assert!(matches!(
            d.kind.inner(),
            Kind::Plot {
                size: Some((300, 200)),
                ..
            }
        ));
        // Multi-line expressions.
        let blocks = parse("-- > f 1\n--   2 3\n\nlet x = 1\n").unwrap_or_default();
        assert!(matches!(&blocks[0], Block::Directive(d) if d.text == "> f 1\n  2 3\n"));
    }

    #[test]
    fn malformed_directives_are_located() {
        let e = parse("let x = 1\n\n-- > :img x;\n-- size: (1,2)\n").map(drop);
        assert!(matches!(&e, Err(ParseError { at: 27, .. })), "{e:?}");
        let e = parse("-- > :nope x\n").map(drop);
        assert!(
            e.as_ref()
                .is_err_and(|e| e.message.contains("unknown directive `:nope`")),
            "{e:?}"
        );
        let e = parse("-- > :img x;\n-- file: a/b.png\n").map(drop);
        assert!(e.is_err_and(|e| e.message.contains("without a directory")));
        let e = parse("-- > f (1\n\nlet x = 1\n").map(drop);
        assert!(e.is_err());
    }
}
