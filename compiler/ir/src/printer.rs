//! A readable text form of the kernel IR (used by `futhark-rs ir` and snapshot tests).
//!
//! The syntax follows Futhark where it can: `let x: f32 = xs[i] * 2f32`, lambdas as
//! `\(x: f32, y: f32) -> x + y`, and one block per kernel naming its space and results.

use std::fmt::{self, Display, Formatter, Write};

use crate::exp::{Body, Exp, Lambda, Stm};
use crate::kernel::{KernelProgram, SegOp, SegSpace, Size};
use crate::types::PrimValue;

impl Display for Size {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Size::Const(c) => write!(f, "{c}"),
            Size::Param(p) => f.write_str(p),
        }
    }
}

impl Display for Exp {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Exp::Const(v) => write!(f, "{v}"),
            Exp::Var(v) => f.write_str(v),
            Exp::Bin(op, a, b) => match op {
                crate::exp::BinOp::Min | crate::exp::BinOp::Max => {
                    write!(f, "{}({a}, {b})", op.name())
                }
                _ => write!(f, "({a} {} {b})", op.name()),
            },
            Exp::Cmp(op, a, b) => write!(f, "({a} {} {b})", op.name()),
            Exp::Un(op, a) => write!(f, "{}({a})", op.name()),
            Exp::Conv(t, a) => write!(f, "{t}({a})"),
            Exp::Math(m, args) => {
                write!(f, "{}(", m.name())?;
                for (i, a) in args.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{a}")?;
                }
                f.write_str(")")
            }
            Exp::Select(c, t, e) => write!(f, "(if {c} then {t} else {e})"),
            Exp::Read(a, i) => write!(f, "{a}[{i}]"),
        }
    }
}

fn write_stms(out: &mut String, stms: &[Stm], indent: usize) {
    let pad = "  ".repeat(indent);
    for s in stms {
        // Writing to a String cannot fail.
        let _ = match s {
            Stm::Let { name, ty, exp } => writeln!(out, "{pad}let {name}: {ty} = {exp}"),
            Stm::Mut { name, ty, init } => writeln!(out, "{pad}var {name}: {ty} = {init}"),
            Stm::Assign { name, exp } => writeln!(out, "{pad}{name} = {exp}"),
            Stm::For { var, bound, body } => {
                let _ = writeln!(out, "{pad}for {var} < {bound} do");
                write_stms(out, body, indent + 1);
                Ok(())
            }
            Stm::If {
                cond,
                then_branch,
                else_branch,
            } => {
                let _ = writeln!(out, "{pad}if {cond} then");
                write_stms(out, then_branch, indent + 1);
                if !else_branch.is_empty() {
                    let _ = writeln!(out, "{pad}else");
                    write_stms(out, else_branch, indent + 1);
                }
                Ok(())
            }
            Stm::Write {
                array,
                index,
                value,
            } => writeln!(out, "{pad}{array}[{index}] = {value}"),
            Stm::Check(c) => {
                let args: Vec<String> = c.args.iter().map(|a| a.to_string()).collect();
                writeln!(
                    out,
                    "{pad}check {} {:?} ({})",
                    c.cond,
                    c.msg,
                    args.join(", ")
                )
            }
        };
    }
}

fn write_body(out: &mut String, body: &Body, indent: usize) {
    write_stms(out, &body.stms, indent);
    let pad = "  ".repeat(indent);
    let results: Vec<String> = body.results.iter().map(|r| r.to_string()).collect();
    let _ = writeln!(out, "{pad}in ({})", results.join(", "));
}

impl Display for Lambda {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let params: Vec<String> = self
            .params
            .iter()
            .map(|(n, t)| format!("{n}: {t}"))
            .collect();
        write!(f, "\\({}) ->", params.join(", "))?;
        if self.body.stms.is_empty() {
            let results: Vec<String> = self.body.results.iter().map(|r| r.to_string()).collect();
            write!(f, " ({})", results.join(", "))
        } else {
            let mut s = String::from("\n");
            write_body(&mut s, &self.body, 3);
            f.write_str(s.trim_end())
        }
    }
}

impl Display for SegSpace {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let dims: Vec<String> = self
            .dims
            .iter()
            .map(|(n, s)| format!("{n} < {s}"))
            .collect();
        write!(f, "({}) flat {}", dims.join(", "), self.flat)
    }
}

fn values(vs: &[PrimValue]) -> String {
    let v: Vec<String> = vs.iter().map(|v| v.to_string()).collect();
    format!("({})", v.join(", "))
}

impl Display for SegOp {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let mut s = String::new();
        let space = self.space();
        match self {
            SegOp::Red(r) => {
                let comm = if r.commutative { " commutative" } else { "" };
                let _ = writeln!(s, "segred{comm} {space}");
            }
            _ => {
                let _ = writeln!(s, "{} {space}", self.kind_name());
            }
        }
        let _ = writeln!(s, "  body");
        write_body(&mut s, self.body(), 2);
        match self {
            SegOp::Red(r) => {
                let _ = writeln!(s, "  op {}\n  ne {}", r.op, values(&r.neutral));
            }
            SegOp::Scan(r) => {
                let _ = writeln!(s, "  op {}\n  ne {}", r.op, values(&r.neutral));
            }
            SegOp::Hist(h) => {
                let _ = writeln!(
                    s,
                    "  op {}\n  ne {}\n  buckets {}",
                    h.op,
                    values(&h.neutral),
                    h.num_buckets
                );
            }
            SegOp::Map(_) | SegOp::Scatter(_) => {}
        }
        let _ = write!(s, "  -> {}", self.result_arrays().join(", "));
        f.write_str(&s)
    }
}

impl Display for KernelProgram {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        if !self.sizes.is_empty() {
            writeln!(f, "sizes {}", self.sizes.join(", "))?;
        }
        for a in &self.arrays {
            let dims: String = a.shape.iter().map(|s| format!("[{s}]")).collect();
            writeln!(f, "array {}: {dims}{}", a.name, a.elem)?;
        }
        if let Some(intra) = &self.intra {
            writeln!(f, "intra-block (locals: {})", intra.locals.join(", "))?;
        }
        for k in &self.kernels {
            writeln!(f, "\nkernel {} =\n{}", k.name, k.op)?;
        }
        Ok(())
    }
}
