//! Printing values in Futhark syntax (for `#[trace]` and the REPL).

use crate::array::row;
use crate::value::{ArrayData, Fun, Value, is_tuple_layout};

/// The value written as Futhark would print it: `[1i32, 2i32]`, `(1i32, true)`, `#some 2i32`.
pub fn show(v: &Value) -> String {
    let mut out = String::new();
    write(&mut out, v);
    out
}

fn write(out: &mut String, v: &Value) {
    match v {
        Value::Prim(p) => out.push_str(&p.to_string()),
        Value::Array(a) => {
            if a.is_empty() {
                out.push_str("empty(");
                for d in &a.shape {
                    out.push_str(&format!("[{d}]"));
                }
                match &a.data {
                    ArrayData::Prim { buf, .. } => out.push_str(buf.elem_type().name()),
                    _ => out.push('?'),
                }
                out.push(')');
                return;
            }
            out.push('[');
            for i in 0..a.len() {
                if i > 0 {
                    out.push_str(", ");
                }
                write(out, &row(a, i));
            }
            out.push(']');
        }
        Value::Record(r) => {
            if is_tuple_layout(&r.names) {
                out.push('(');
                for (i, x) in r.values.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    write(out, x);
                }
                out.push(')');
            } else {
                out.push('{');
                for (i, (n, x)) in r.names.iter().zip(&r.values).enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    out.push_str(n);
                    out.push_str(" = ");
                    write(out, x);
                }
                out.push('}');
            }
        }
        Value::Sum(s) => {
            out.push('#');
            out.push_str(&s.ctor);
            for p in &s.payload {
                out.push(' ');
                let needs_parens = matches!(p, Value::Sum(x) if !x.payload.is_empty());
                if needs_parens {
                    out.push('(');
                }
                write(out, p);
                if needs_parens {
                    out.push(')');
                }
            }
        }
        Value::Fun(f) => match &**f {
            Fun::Closure { lam, .. } => match &lam.name {
                Some(n) => out.push_str(&format!("<function {n}>")),
                None => out.push_str("<function>"),
            },
            _ => out.push_str("<function>"),
        },
        Value::Acc(_) => out.push_str("<accumulator>"),
        Value::Dual(d) => {
            out.push_str("<dual ");
            write(out, &d.primal);
            out.push_str(" + ε");
            write(out, &d.tangent);
            out.push('>');
        }
    }
}
