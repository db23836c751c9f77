//! Printing types and sizes in Futhark syntax, as used in error messages and hover text:
//! `[n]i32`, `{a: f32, b: bool}`, `(i32, f64)`, `#foo i32 | #bar`, `?[k].[k]i32`,
//! `*[n]f32 -> f32`, `(n: i64) -> [n]i32`.

use std::fmt::{self, Display, Write};

use crate::types::{PrimType, RetType, Size, TParam, Type, TypeArg, record_as_tuple};

/// How tightly a type is bound by its context, to decide where parentheses go.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Prec {
    /// Anything, including function types.
    Top,
    /// No function types (the left of an arrow).
    NoArrow,
    /// No sums or applications with arguments either (array elements, type arguments).
    Atom,
}

fn write_size(out: &mut String, s: &Size, prec: u8) {
    match s {
        Size::Var(v) => out.push_str(v.name()),
        Size::Lit(n) => {
            let _ = write!(out, "{n}");
        }
        Size::BinOp(op, a, b) => {
            let p = op_prec(op.name());
            let paren = p < prec;
            if paren {
                out.push('(');
            }
            write_size(out, a, p);
            let _ = write!(out, " {} ", op.name());
            write_size(out, b, p + 1);
            if paren {
                out.push(')');
            }
        }
        Size::Index(a, idxs) => {
            write_size(out, a, 100);
            out.push('[');
            for (i, x) in idxs.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_size(out, x, 0);
            }
            out.push(']');
        }
        Size::Proj(a, f) => {
            write_size(out, a, 100);
            let _ = write!(out, ".{f}");
        }
        Size::Apply(f, args) => {
            let paren = prec > 0;
            if paren {
                out.push('(');
            }
            out.push_str(f.name());
            for a in args {
                out.push(' ');
                write_size(out, a, 100);
            }
            if paren {
                out.push(')');
            }
        }
    }
}

fn op_prec(op: &str) -> u8 {
    let first = op.chars().next().unwrap_or('+');
    match first {
        '*' | '/' | '%' => 20,
        '+' | '-' => 10,
        _ => 5,
    }
}

impl Display for Size {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = String::new();
        write_size(&mut s, self, 0);
        f.write_str(&s)
    }
}

fn write_dim(out: &mut String, s: &Size) {
    out.push('[');
    write_size(out, s, 0);
    out.push(']');
}

/// Gives a name for a type (an abbreviation in scope), printed instead of its structure.
type Names<'a> = Option<&'a dyn Fn(&Type) -> Option<String>>;

fn write_type(out: &mut String, t: &Type, prec: Prec, names: Names) {
    if let Some(name) = names.and_then(|f| f(t)) {
        out.push_str(&name);
        return;
    }
    match t {
        Type::Prim(p) => out.push_str(p.name()),
        Type::Error => out.push_str("???"),
        Type::Array(a) => {
            if a.unique {
                out.push('*');
            }
            for d in &a.shape {
                write_dim(out, d);
            }
            write_type(out, &a.elem, Prec::Atom, names);
        }
        Type::Record(fs) => {
            if let Some(elems) = record_as_tuple(fs) {
                out.push('(');
                for (i, e) in elems.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    write_type(out, e, Prec::Top, names);
                }
                out.push(')');
            } else {
                out.push('{');
                for (i, (k, v)) in fs.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    let _ = write!(out, "{k}: ");
                    write_type(out, v, Prec::Top, names);
                }
                out.push('}');
            }
        }
        Type::Sum(cs) => {
            let paren = prec >= Prec::Atom;
            if paren {
                out.push('(');
            }
            for (i, (k, ts)) in cs.iter().enumerate() {
                if i > 0 {
                    out.push_str(" | ");
                }
                let _ = write!(out, "#{k}");
                for t in ts {
                    out.push(' ');
                    write_type(out, t, Prec::Atom, names);
                }
            }
            if paren {
                out.push(')');
            }
        }
        Type::Arrow(a) => {
            let paren = prec > Prec::Top;
            if paren {
                out.push('(');
            }
            match &a.param_name {
                Some(p) => {
                    let _ = write!(out, "({}: ", p.name());
                    write_type(out, &a.param, Prec::Top, names);
                    out.push(')');
                }
                None => write_type(out, &a.param, Prec::NoArrow, names),
            }
            out.push_str(" -> ");
            write_ret(out, &a.ret, Prec::Top, names);
            if paren {
                out.push(')');
            }
        }
        Type::Var(v) => {
            let paren = prec >= Prec::Atom && !v.args.is_empty();
            if paren {
                out.push('(');
            }
            if v.unique {
                out.push('*');
            }
            out.push_str(v.name.name());
            for arg in &v.args {
                out.push(' ');
                match arg {
                    TypeArg::Size(s) => write_dim(out, s),
                    TypeArg::Type(t @ Type::Array(_)) => {
                        out.push('(');
                        write_type(out, t, Prec::Top, names);
                        out.push(')');
                    }
                    TypeArg::Type(t) => write_type(out, t, Prec::Atom, names),
                }
            }
            if paren {
                out.push(')');
            }
        }
    }
}

fn write_ret(out: &mut String, r: &RetType, prec: Prec, names: Names) {
    if r.ext.is_empty() {
        write_type(out, &r.ty, prec, names);
    } else {
        let paren = prec > Prec::Top;
        if paren {
            out.push('(');
        }
        out.push('?');
        for e in &r.ext {
            let _ = write!(out, "[{}]", e.name());
        }
        out.push('.');
        write_type(out, &r.ty, Prec::Top, names);
        if paren {
            out.push(')');
        }
    }
}

impl Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = String::new();
        write_type(&mut s, self, Prec::Top, None);
        f.write_str(&s)
    }
}

impl Display for RetType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = String::new();
        write_ret(&mut s, self, Prec::Top, None);
        f.write_str(&s)
    }
}

impl Display for TParam {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use futhark_syntax::ast::Liftedness as L;
        match self {
            TParam::Size { name } => write!(f, "[{}]", name.name()),
            TParam::Type { name, lifted } => {
                let mark = match lifted {
                    L::Unlifted => "",
                    L::SizeLifted => "~",
                    L::Lifted => "^",
                };
                write!(f, "'{mark}{}", name.name())
            }
        }
    }
}

/// Prints `t` as [`Display`] does, except that a part for which `name_of` gives a name
/// is printed as that name: how an editor shows a type with the abbreviations in scope
/// (`vec3.vector` rather than `{x: f32, y: f32, z: f32}`).
pub fn type_with_names(t: &Type, name_of: &dyn Fn(&Type) -> Option<String>) -> String {
    let mut s = String::new();
    write_type(&mut s, t, Prec::Top, Some(name_of));
    s
}

/// Prints `'a [n] ` style parameter lists (with a trailing space when non-empty).
pub fn tparams_prefix(ps: &[TParam]) -> String {
    let mut s = String::new();
    for p in ps {
        let _ = write!(s, "{p} ");
    }
    s
}

/// Prints a primitive type list like `i8, i16 or i32`.
pub fn prim_list(ps: &[PrimType]) -> String {
    let names: Vec<&str> = ps.iter().map(|p| p.name()).collect();
    match names.len() {
        0 => String::new(),
        1 => names[0].to_string(),
        n => format!("{} or {}", names[..n - 1].join(", "), names[n - 1]),
    }
}
