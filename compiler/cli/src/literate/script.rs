//! FutharkScript, the expression language of literate directives: a reader over the program's
//! text (an expression may go on over following `--` lines) and its translation to a Futhark
//! expression that the session evaluates in the program's scope.
//!
//! The language is the reference's: applications of the program's functions, literals in the
//! data format (`2f32`, `[1, 2]`, `empty([0]i32)`), tuples (a trailing comma is allowed),
//! records, `let PAT = e in e` (`in` may be left out before another `let`), projections
//! `(e).x` and the builtins `$loaddata`, `$loadbytes` and `$loadimg`, which read files
//! relative to the program. A builtin runs while the expression is translated: its value
//! becomes a literal in the Futhark text. As in the reference, a function of n ≥ 2
//! parameters applied to one argument, an n-tuple, is applied to its elements: the caller
//! translates again with those functions' arities when the plain translation does not
//! type-check ([`translate_uncurried`]).

use std::ops::Range;
use std::path::Path;

use futhark_values::{Buffer, Value};

/// A syntax error at a byte offset of the program.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    pub at: usize,
    pub message: String,
}

pub type Parsed<T> = Result<T, ParseError>;

/// A position in the program's text with the reference's whitespace rule: blanks, and line
/// breaks followed by `--` (the directive goes on in the next comment line).
pub struct Cursor<'a> {
    pub text: &'a str,
    pub pos: usize,
}

impl<'a> Cursor<'a> {
    pub fn new(text: &'a str, pos: usize) -> Cursor<'a> {
        Cursor { text, pos }
    }

    pub fn rest(&self) -> &'a str {
        &self.text[self.pos..]
    }

    pub fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    pub fn error<T>(&self, message: impl Into<String>) -> Parsed<T> {
        Err(ParseError {
            at: self.pos,
            message: message.into(),
        })
    }

    /// Skips spaces and tabs.
    pub fn hspace(&mut self) {
        let n = self.rest().len() - self.rest().trim_start_matches([' ', '\t']).len();
        self.pos += n;
    }

    /// Skips blanks and line breaks into following comment lines.
    pub fn sep(&mut self) {
        loop {
            self.hspace();
            let rest = self.rest();
            let after = rest
                .strip_prefix("\r\n--")
                .or_else(|| rest.strip_prefix("\n--"));
            match after {
                Some(a) => self.pos += rest.len() - a.len(),
                None => return,
            }
        }
    }

    /// Consumes `s` (and the blanks after it) if the text goes on with it.
    pub fn token(&mut self, s: &str) -> bool {
        if self.rest().starts_with(s) {
            self.pos += s.len();
            self.sep();
            true
        } else {
            false
        }
    }

    pub fn expect(&mut self, s: &str) -> Parsed<()> {
        if self.token(s) {
            Ok(())
        } else {
            self.error(format!("expected `{s}`{}", self.found()))
        }
    }

    /// `, found …` naming what is at the cursor.
    pub fn found(&self) -> String {
        match self.rest().lines().next().map(str::trim) {
            None => ", found the end of the file".to_string(),
            Some("") => ", found the end of the line".to_string(),
            Some(l) => {
                let word: String = l.chars().take(20).collect();
                format!(", found `{word}`")
            }
        }
    }

    /// Consumes a line break (or accepts the end of the text).
    pub fn end_of_line(&mut self) -> bool {
        let rest = self.rest();
        if rest.is_empty() {
            return true;
        }
        for nl in ["\r\n", "\n"] {
            if rest.starts_with(nl) {
                self.pos += nl.len();
                return true;
            }
        }
        false
    }

    /// An identifier (`[A-Za-z_][A-Za-z0-9_']*`), with qualifications and field accesses
    /// (`f32.sum`, `r.x.0`), without the blanks after it.
    fn name(&mut self) -> Option<String> {
        let rest = self.rest();
        let first = rest.chars().next()?;
        if !(first.is_ascii_alphabetic() || first == '_') {
            return None;
        }
        let mut end = 0;
        let bytes = rest.as_bytes();
        loop {
            while end < bytes.len()
                && (bytes[end].is_ascii_alphanumeric() || bytes[end] == b'_' || bytes[end] == b'\'')
            {
                end += 1;
            }
            if end + 1 < bytes.len()
                && bytes[end] == b'.'
                && (bytes[end + 1].is_ascii_alphanumeric() || bytes[end + 1] == b'_')
            {
                end += 1;
            } else {
                break;
            }
        }
        let name = &rest[..end];
        if RESERVED.contains(&name) {
            return None;
        }
        self.pos += end;
        Some(name.to_string())
    }

    fn keyword(&mut self, k: &str) -> bool {
        let Some(after) = self.rest().strip_prefix(k) else {
            return false;
        };
        if after.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_') {
            return false;
        }
        self.token(k)
    }
}

const RESERVED: [&str; 2] = ["let", "in"];

/// A FutharkScript expression with its place in the program.
#[derive(Debug, Clone, PartialEq)]
pub struct Exp {
    pub kind: Kind,
    pub span: Range<usize>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    /// A name of the program (or the prelude), possibly qualified.
    Var(String),
    /// `$name args`.
    Builtin(String, Vec<Exp>),
    Apply(Box<Exp>, Vec<Exp>),
    /// A number or `true`/`false`, as written.
    Literal(String),
    Str(String),
    Tuple(Vec<Exp>),
    Record(Vec<(String, Exp)>),
    Array(Vec<Exp>),
    /// `empty([d]…t)`.
    Empty(Vec<u64>, String),
    Negate(Box<Exp>),
    Let(Vec<String>, Box<Exp>, Box<Exp>),
    /// `(e).field`.
    Project(Box<Exp>, String),
}

const PRIM_TYPES: [&str; 12] = [
    "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f16", "f32", "f64", "bool",
];

/// Reads an expression at the cursor (and the blanks after it).
pub fn parse_exp(c: &mut Cursor) -> Parsed<Exp> {
    let start = c.pos;
    if c.keyword("let") {
        let names = if c.token("(") {
            let mut names = vec![parse_name(c)?];
            while c.token(",") {
                names.push(parse_name(c)?);
            }
            c.expect(")")?;
            names
        } else {
            vec![parse_name(c)?]
        };
        c.expect("=")?;
        let value = parse_exp(c)?;
        // `in` may be left out before another `let`, as in Futhark.
        if !c.keyword("in") && !c.rest().starts_with("let") {
            return c.error(format!("expected `in`{}", c.found()));
        }
        let body = parse_exp(c)?;
        let span = start..body.span.end;
        return Ok(Exp {
            kind: Kind::Let(names, Box::new(value), Box::new(body)),
            span,
        });
    }
    if c.rest().starts_with('$') {
        c.pos += 1;
        let Some(name) = c.name() else {
            return c.error("expected the name of a builtin after `$`");
        };
        let end = c.pos;
        c.sep();
        let args = atoms(c)?;
        let end = args.last().map_or(end, |a| a.span.end);
        return Ok(Exp {
            kind: Kind::Builtin(name, args),
            span: start..end,
        });
    }
    let head = parse_atom(c)?;
    if !matches!(head.kind, Kind::Var(_)) {
        return Ok(head);
    }
    let args = atoms(c)?;
    if args.is_empty() {
        return Ok(head);
    }
    let end = args.last().map_or(head.span.end, |a| a.span.end);
    Ok(Exp {
        kind: Kind::Apply(Box::new(head), args),
        span: start..end,
    })
}

fn parse_name(c: &mut Cursor) -> Parsed<String> {
    match c.name() {
        Some(n) => {
            c.sep();
            Ok(n)
        }
        None => c.error(format!("expected a name{}", c.found())),
    }
}

/// Arguments: atoms up to something that cannot start one.
fn atoms(c: &mut Cursor) -> Parsed<Vec<Exp>> {
    let mut args = Vec::new();
    while starts_atom(c) {
        args.push(parse_atom(c)?);
    }
    Ok(args)
}

fn starts_atom(c: &Cursor) -> bool {
    let rest = c.rest();
    match rest.chars().next() {
        Some('(' | '{' | '[' | '"') => true,
        Some('-') => rest[1..]
            .chars()
            .next()
            .is_some_and(|d| d.is_ascii_alphanumeric()),
        Some(ch) if ch.is_ascii_digit() => true,
        Some(ch) if ch.is_ascii_alphabetic() || ch == '_' => {
            let word: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            !RESERVED.contains(&word.as_str())
        }
        _ => false,
    }
}

fn parse_atom(c: &mut Cursor) -> Parsed<Exp> {
    let start = c.pos;
    let parenthesised = c.rest().starts_with('(');
    let kind = if c.token("(") {
        let mut elems = Vec::new();
        let mut trailing = false;
        while !c.rest().starts_with(')') {
            elems.push(parse_exp(c)?);
            trailing = c.token(",");
            if !trailing {
                break;
            }
        }
        c.expect(")")?;
        if elems.len() == 1 && !trailing {
            let inner = elems.pop().map(|e| e.kind);
            inner.unwrap_or(Kind::Tuple(Vec::new()))
        } else {
            Kind::Tuple(elems)
        }
    } else if c.token("{") {
        let mut fields = Vec::new();
        while !c.rest().starts_with('}') {
            let name = parse_name(c)?;
            c.expect("=")?;
            fields.push((name, parse_exp(c)?));
            if !c.token(",") {
                break;
            }
        }
        c.expect("}")?;
        Kind::Record(fields)
    } else if c.token("[") {
        let mut elems = Vec::new();
        while !c.rest().starts_with(']') {
            elems.push(parse_exp(c)?);
            if !c.token(",") {
                break;
            }
        }
        c.expect("]")?;
        Kind::Array(elems)
    } else if c.rest().starts_with('"') {
        let s = string_literal(c)?;
        c.sep();
        Kind::Str(s)
    } else if c.rest().starts_with('-') {
        c.pos += 1;
        Kind::Negate(Box::new(parse_atom(c)?))
    } else if c.peek().is_some_and(|d| d.is_ascii_digit()) {
        let text = number(c);
        c.sep();
        Kind::Literal(text)
    } else if c.rest().starts_with("empty(") {
        c.pos += "empty".len();
        c.expect("(")?;
        let mut dims = Vec::new();
        while c.token("[") {
            let digits: String = c.rest().chars().take_while(char::is_ascii_digit).collect();
            let Ok(d) = digits.parse::<u64>() else {
                return c.error("expected a size in `empty([n]t)`");
            };
            c.pos += digits.len();
            c.sep();
            c.expect("]")?;
            dims.push(d);
        }
        let elem = c.name().unwrap_or_default();
        if dims.is_empty() || !PRIM_TYPES.contains(&elem.as_str()) {
            return c.error("expected `empty([n]…t)` with a primitive type t");
        }
        c.sep();
        c.expect(")")?;
        if !dims.contains(&0) {
            return Err(ParseError {
                at: start,
                message: "`empty` needs a dimension of size 0".to_string(),
            });
        }
        Kind::Empty(dims, elem)
    } else if let Some(name) = c.name() {
        c.sep();
        if name == "true" || name == "false" {
            Kind::Literal(name)
        } else {
            Kind::Var(name)
        }
    } else {
        return c.error(format!("expected an expression{}", c.found()));
    };
    let mut exp = Exp {
        kind,
        span: start..c.pos,
    };
    // Projections of a parenthesised expression: `(e).x.0`.
    while parenthesised && c.rest().starts_with('.') {
        c.pos += 1;
        let Some(field) = c.name().or_else(|| digits(c)) else {
            return c.error("expected a field name after `.`");
        };
        c.sep();
        exp = Exp {
            kind: Kind::Project(Box::new(exp), field),
            span: start..c.pos,
        };
    }
    // The span ends where the text of the atom does, not after the blanks.
    exp.span.end = trimmed_end(c.text, exp.span.clone());
    Ok(exp)
}

fn digits(c: &mut Cursor) -> Option<String> {
    let d: String = c.rest().chars().take_while(char::is_ascii_digit).collect();
    if d.is_empty() {
        return None;
    }
    c.pos += d.len();
    // `r.0.1` continues with more fields.
    if let Some(more) = c.rest().strip_prefix('.')
        && more.starts_with(|ch: char| ch.is_ascii_alphanumeric())
    {
        c.pos += 1;
        return c.name().or_else(|| digits(c)).map(|m| format!("{d}.{m}"));
    }
    Some(d)
}

fn trimmed_end(text: &str, span: Range<usize>) -> usize {
    let s = &text[span.clone()];
    // Continuation lines end in `--`; drop them with the blanks.
    let mut t = s.trim_end();
    while let Some(u) = t.strip_suffix("--") {
        t = u.trim_end();
    }
    span.start + t.len()
}

/// A number in the data format: decimal, hexadecimal or binary, with an optional fraction,
/// exponent and type suffix.
fn number(c: &mut Cursor) -> String {
    let rest = c.rest();
    let bytes = rest.as_bytes();
    let mut end = 0;
    let radix_prefix = rest.starts_with("0x") || rest.starts_with("0X") || rest.starts_with("0b");
    if radix_prefix {
        end = 2;
        while end < bytes.len() && (bytes[end].is_ascii_hexdigit() || bytes[end] == b'_') {
            end += 1;
        }
    } else {
        while end < bytes.len() && (bytes[end].is_ascii_digit() || bytes[end] == b'_') {
            end += 1;
        }
        if end + 1 < bytes.len() && bytes[end] == b'.' && bytes[end + 1].is_ascii_digit() {
            end += 1;
            while end < bytes.len() && bytes[end].is_ascii_digit() {
                end += 1;
            }
        }
        if end < bytes.len() && (bytes[end] == b'e' || bytes[end] == b'E') {
            let mut e = end + 1;
            if e < bytes.len() && (bytes[e] == b'+' || bytes[e] == b'-') {
                e += 1;
            }
            if e < bytes.len() && bytes[e].is_ascii_digit() {
                while e < bytes.len() && bytes[e].is_ascii_digit() {
                    e += 1;
                }
                end = e;
            }
        }
    }
    for suffix in PRIM_TYPES.iter().filter(|t| **t != "bool") {
        if rest[end..].starts_with(suffix) {
            end += suffix.len();
            break;
        }
    }
    c.pos += end;
    rest[..end].to_string()
}

fn string_literal(c: &mut Cursor) -> Parsed<String> {
    let start = c.pos;
    c.pos += 1;
    let mut out = String::new();
    let mut chars = c.rest().char_indices();
    while let Some((i, ch)) = chars.next() {
        match ch {
            '"' => {
                c.pos += i + 1;
                return Ok(out);
            }
            '\\' => match chars.next() {
                Some((_, 'n')) => out.push('\n'),
                Some((_, 't')) => out.push('\t'),
                Some((_, e @ ('"' | '\\'))) => out.push(e),
                _ => break,
            },
            '\n' => break,
            _ => out.push(ch),
        }
    }
    Err(ParseError {
        at: start,
        message: "unterminated string literal".to_string(),
    })
}

/// A located failure of translation (a builtin that could not run).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScriptError {
    pub span: Range<usize>,
    pub message: String,
}

/// Futhark text with, for positions in it, the program offsets they came from.
#[derive(Debug, Default)]
pub struct Translated {
    pub text: String,
    /// `(offset in text, offset in the program)`, in increasing order of the first.
    marks: Vec<(usize, usize)>,
}

impl Translated {
    /// The program offset of `offset` in the text.
    pub fn origin(&self, offset: usize) -> usize {
        let i = self.marks.partition_point(|(o, _)| *o <= offset);
        match i.checked_sub(1).and_then(|i| self.marks.get(i)) {
            Some((o, s)) => s + (offset - o),
            None => self.marks.first().map_or(0, |(_, s)| *s),
        }
    }

    fn mark(&mut self, program_offset: usize) {
        self.marks.push((self.text.len(), program_offset));
    }
}

/// Translates `exp` to Futhark, running its builtins with files relative to `dir`, with
/// functions applied to one argument uncurried where `arity` gives them two or more
/// parameters: `f e` becomes `let (a, b) = e in f a b`.
pub fn translate_uncurried(
    exp: &Exp,
    dir: &Path,
    arity: &dyn Fn(&str) -> Option<usize>,
) -> Result<Translated, ScriptError> {
    let mut t = Translated::default();
    emit(exp, dir, arity, &mut t)?;
    Ok(t)
}

/// The names of functions applied to exactly one argument in `exp` (candidates for
/// uncurrying).
pub fn applied_to_one(exp: &Exp) -> Vec<String> {
    let mut out = Vec::new();
    visit(exp, &mut |e| {
        if let Kind::Apply(f, args) = &e.kind
            && let (Kind::Var(name), [_]) = (&f.kind, args.as_slice())
            && !out.contains(name)
        {
            out.push(name.clone());
        }
    });
    out
}

fn visit(exp: &Exp, f: &mut dyn FnMut(&Exp)) {
    f(exp);
    match &exp.kind {
        Kind::Var(_) | Kind::Literal(_) | Kind::Str(_) | Kind::Empty(..) => {}
        Kind::Builtin(_, es) | Kind::Tuple(es) | Kind::Array(es) => {
            es.iter().for_each(|e| visit(e, f))
        }
        Kind::Apply(g, es) => {
            visit(g, f);
            es.iter().for_each(|e| visit(e, f));
        }
        Kind::Record(fields) => fields.iter().for_each(|(_, e)| visit(e, f)),
        Kind::Negate(e) | Kind::Project(e, _) => visit(e, f),
        Kind::Let(_, a, b) => {
            visit(a, f);
            visit(b, f);
        }
    }
}

/// The number of parameters of a function type as the checker writes it: its arrows outside
/// brackets.
pub fn arity(ty: &str) -> usize {
    let mut depth = 0i32;
    let mut arrows = 0;
    let bytes = ty.as_bytes();
    for (i, b) in bytes.iter().enumerate() {
        match b {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth -= 1,
            b'-' if depth == 0 && bytes.get(i + 1) == Some(&b'>') => arrows += 1,
            _ => {}
        }
    }
    arrows
}

fn emit(
    exp: &Exp,
    dir: &Path,
    arity: &dyn Fn(&str) -> Option<usize>,
    t: &mut Translated,
) -> Result<(), ScriptError> {
    t.mark(exp.span.start);
    let emit = |e: &Exp, t: &mut Translated| emit(e, dir, arity, t);
    if let Kind::Apply(f, args) = &exp.kind
        && let (Kind::Var(name), [arg]) = (&f.kind, args.as_slice())
        && let Some(n) = arity(name).filter(|n| *n >= 2)
    {
        let names: Vec<String> = (0..n).map(|i| format!("literate_arg_{i}")).collect();
        t.text.push_str("(let (");
        t.text.push_str(&names.join(", "));
        t.text.push_str(") = ");
        emit(arg, t)?;
        t.text.push_str(" in (");
        emit(f, t)?;
        t.text.push(' ');
        t.text.push_str(&names.join(" "));
        t.text.push_str("))");
        return Ok(());
    }
    match &exp.kind {
        Kind::Var(n) | Kind::Literal(n) => t.text.push_str(n),
        Kind::Str(s) => {
            t.text.push('"');
            for ch in s.chars() {
                match ch {
                    '"' => t.text.push_str("\\\""),
                    '\\' => t.text.push_str("\\\\"),
                    '\n' => t.text.push_str("\\n"),
                    '\t' => t.text.push_str("\\t"),
                    _ => t.text.push(ch),
                }
            }
            t.text.push('"');
        }
        Kind::Apply(f, args) => {
            t.text.push('(');
            emit(f, t)?;
            for a in args {
                t.text.push(' ');
                emit(a, t)?;
            }
            t.text.push(')');
        }
        Kind::Builtin(name, args) => {
            let values = builtin(name, args, dir).map_err(|message| ScriptError {
                span: exp.span.clone(),
                message,
            })?;
            t.text.push('(');
            for (i, v) in values.iter().enumerate() {
                if i > 0 {
                    t.text.push_str(", ");
                }
                literal(v, &mut t.text);
            }
            t.text.push(')');
        }
        Kind::Tuple(es) | Kind::Array(es) => {
            let (open, close) = if matches!(exp.kind, Kind::Tuple(_)) {
                ('(', ')')
            } else {
                ('[', ']')
            };
            t.text.push(open);
            for (i, e) in es.iter().enumerate() {
                if i > 0 {
                    t.text.push_str(", ");
                }
                emit(e, t)?;
            }
            t.text.push(close);
        }
        Kind::Record(fields) => {
            t.text.push('{');
            for (i, (name, e)) in fields.iter().enumerate() {
                if i > 0 {
                    t.text.push_str(", ");
                }
                t.text.push_str(name);
                t.text.push_str(" = ");
                emit(e, t)?;
            }
            t.text.push('}');
        }
        Kind::Empty(dims, elem) => empty(dims, elem, &mut t.text),
        Kind::Negate(e) => {
            t.text.push_str("(-");
            emit(e, t)?;
            t.text.push(')');
        }
        Kind::Let(names, value, body) => {
            t.text.push_str("(let ");
            if names.len() == 1 {
                t.text.push_str(&names[0]);
            } else {
                t.text.push('(');
                t.text.push_str(&names.join(", "));
                t.text.push(')');
            }
            t.text.push_str(" = ");
            emit(value, t)?;
            t.text.push_str(" in ");
            emit(body, t)?;
            t.text.push(')');
        }
        Kind::Project(e, field) => {
            t.text.push('(');
            emit(e, t)?;
            t.text.push_str(").");
            t.text.push_str(field);
        }
    }
    Ok(())
}

/// An empty array of shape `dims` (one of them 0) as a Futhark expression.
fn empty(dims: &[u64], elem: &str, out: &mut String) {
    match dims.split_first() {
        Some((0, _)) | None => {
            let shape: String = dims.iter().map(|d| format!("[{d}]")).collect();
            out.push_str(&format!("([] : {shape}{elem})"));
        }
        Some((d, rest)) => {
            out.push_str(&format!("(replicate {d} "));
            empty(rest, elem, out);
            out.push(')');
        }
    }
}

/// A data value as a Futhark expression.
fn literal(v: &Value, out: &mut String) {
    if !v.is_scalar() && v.is_empty() {
        let dims: Vec<u64> = v.shape().iter().map(|&d| d.max(0) as u64).collect();
        empty(&dims, v.elem_type().name(), out);
    } else {
        out.push('(');
        futhark_values::write_text(v, out);
        out.push(')');
    }
}

/// Runs a builtin: the values it gives (several for a data file of several values).
fn builtin(name: &str, args: &[Exp], dir: &Path) -> Result<Vec<Value>, String> {
    let path = match args {
        [
            Exp {
                kind: Kind::Str(p), ..
            },
        ] => dir.join(p),
        _ => return Err(format!("${name} takes one argument, a file name in quotes")),
    };
    let shown = path.display();
    match name {
        "loaddata" => {
            let values = futhark_values::read_file(&path)
                .map_err(|e| format!("$loaddata: {e}"))?;
            if values.is_empty() {
                return Err(format!("$loaddata: {shown} holds no values"));
            }
            Ok(values)
        }
        "loadbytes" => {
            let bytes =
                std::fs::read(&path).map_err(|e| format!("$loadbytes: cannot read {shown}: {e}"))?;
            Ok(vec![Value::from_vec1(bytes)])
        }
        "loadimg" => load_png(&path)
            .map(|v| vec![v])
            .map_err(|e| format!("$loadimg: {shown}: {e}")),
        "loadaudio" => Err(
            "$loadaudio is not supported by futhark-rs literate: it needs ffmpeg, which this tool does not run"
                .to_string(),
        ),
        "restore" => Err("$restore is not supported by futhark-rs literate".to_string()),
        _ => Err(format!("unknown builtin function ${name}")),
    }
}

/// Reads a PNG file as a `[height][width]u32` array of `0xAARRGGBB` pixels.
fn load_png(path: &Path) -> Result<Value, String> {
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let mut decoder = png::Decoder::new(std::io::BufReader::new(file));
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = decoder
        .read_info()
        .map_err(|e| format!("not a PNG file futhark-rs can read ({e}); only PNG is supported"))?;
    let mut buf = vec![0; reader.output_buffer_size().unwrap_or(0)];
    let info = reader.next_frame(&mut buf).map_err(|e| e.to_string())?;
    let channels = info.color_type.samples();
    let (w, h) = (info.width as usize, info.height as usize);
    let mut px = Vec::with_capacity(w * h);
    for p in buf[..info.buffer_size()].chunks(channels) {
        let (r, g, b, a) = match *p {
            [grey] => (grey, grey, grey, 255),
            [grey, a] => (grey, grey, grey, a),
            [r, g, b] => (r, g, b, 255),
            [r, g, b, a] => (r, g, b, a),
            _ => return Err("unsupported pixel layout".to_string()),
        };
        px.push(u32::from_be_bytes([a, r, g, b]));
    }
    Value::new(vec![h as i64, w as i64], Buffer::U32(px)).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn translate(exp: &Exp, dir: &Path) -> Result<Translated, ScriptError> {
        translate_uncurried(exp, dir, &|_| None)
    }

    fn parse(s: &str) -> Exp {
        let mut c = Cursor::new(s, 0);
        parse_exp(&mut c).unwrap_or_else(|e| panic!("{s}: {e:?}"))
    }

    fn futhark(s: &str) -> String {
        translate(&parse(s), Path::new(".")).map_or_else(|e| e.message, |t| t.text)
    }

    #[test]
    fn applications_literals_and_records_translate() {
        assert_eq!(futhark("main 2f32"), "(main 2f32)");
        assert_eq!(futhark("f (1,(2,3))"), "(f (1, (2, 3)))");
        assert_eq!(futhark("g {y=(7,2),x=10}"), "(g {y = (7, 2), x = 10})");
        assert_eq!(futhark("f -2 [1, -3]"), "(f (-2) [1, (-3)])");
        assert_eq!(futhark("(a, b, 5i64,)"), "(a, b, 5i64)");
        assert_eq!(futhark("empty([0]i32)"), "([] : [0]i32)");
        assert_eq!(futhark("empty([2][0]f32)"), "(replicate 2 ([] : [0]f32))");
    }

    #[test]
    fn lets_may_chain_without_in_and_projections_follow_parentheses() {
        assert_eq!(
            futhark("let (a, r) = f 1 let (b, c) = r in (c, b, a)"),
            "(let (a, r) = (f 1) in (let (b, c) = r in (c, b, a)))"
        );
        assert_eq!(futhark("(g 10 7 2).y.1"), "((g 10 7 2)).y.1");
        assert_eq!(futhark("r.x"), "r.x");
    }

    #[test]
    fn expressions_continue_over_comment_lines() {
        let text = "f 1\n-- 2\nnext";
        let mut c = Cursor::new(text, 0);
        let e = parse_exp(&mut c).map(|e| e.span);
        assert_eq!(e, Ok(0..8));
        assert_eq!(c.rest(), "\nnext");
    }

    #[test]
    fn malformed_expressions_are_located() {
        let mut c = Cursor::new("f (1, 2", 0);
        let e = parse_exp(&mut c).map(drop);
        assert!(matches!(e, Err(ParseError { at: 7, .. })), "{e:?}");
        let mut c = Cursor::new("let x = 1 x", 0);
        assert!(parse_exp(&mut c).is_err());
        let mut c = Cursor::new("empty([3]i32)", 0);
        assert!(parse_exp(&mut c).is_err());
    }

    #[test]
    fn functions_of_several_parameters_take_tuples_when_asked() {
        let e = parse("g (f (1, 2)) 3");
        assert_eq!(applied_to_one(&e), ["f"]);
        let t = translate_uncurried(&e, Path::new("."), &|n| (n == "f").then_some(2));
        assert_eq!(
            t.map(|t| t.text).as_deref(),
            Ok(
                "(g (let (literate_arg_0, literate_arg_1) = (1, 2) in (f literate_arg_0 literate_arg_1)) 3)"
            )
        );
        assert_eq!(arity("i32 -> (x: i32) -> (i32, i32 -> i32)"), 2);
        assert_eq!(arity("[n]i32 -> {a: i32 -> i32}"), 1);
        assert_eq!(arity("i32"), 0);
    }

    #[test]
    fn origins_map_back_to_the_program() {
        let text = "-- > main  2";
        let mut c = Cursor::new(text, 5);
        let t = parse_exp(&mut c).map(|e| translate(&e, Path::new(".")));
        let Ok(Ok(t)) = t else { panic!("{t:?}") };
        // `(main 2)`: `2` is at 6 in the text and at 11 in the program.
        assert_eq!(t.text, "(main 2)");
        assert_eq!(t.origin(1), 5);
        assert_eq!(t.origin(6), 11);
    }

    #[test]
    fn builtins_read_files_or_say_why_not() {
        let dir = std::env::temp_dir().join(format!("lit-script-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        let _ = std::fs::write(dir.join("two.in"), "[1i32, 2]\n3i64\n");
        let t = translate(&parse("$loaddata \"two.in\""), &dir).map(|t| t.text);
        assert_eq!(t.as_deref(), Ok("(([1i32, 2i32]), (3i64))"));
        let e = translate(&parse("$loaddata \"missing.in\""), &dir).map(|t| t.text);
        assert!(
            e.as_ref().is_err_and(
                |e| e.message.starts_with("$loaddata: ") && e.message.contains("missing.in")
            ),
            "{e:?}"
        );
        let e = translate(&parse("$nope \"x\""), &dir).map(|t| t.text);
        assert!(e.is_err_and(|e| e.message.contains("unknown builtin")));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
