//! The text form of the SOAC IR, shown by `futhark-rs ir`, the LSP's IR view and snapshot
//! tests.
//!
//! The syntax is Futhark-like: `let x: [n]f32 = map n (xs) \(x: f32): f32 -> ...`,
//! blocks in braces, existential sizes as `[?0]` in result types and as `[d]` binders in
//! patterns (`let [d] (ys: [d]f32) = ...`). Every construct prints on one line when its
//! bodies have no statements.

use std::fmt::{self, Display, Formatter, Write};

use super::syntax::*;

impl Display for SubExp {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            SubExp::Const(c) => write!(f, "{c}"),
            SubExp::Var(v) => f.write_str(v),
        }
    }
}

impl Display for ExtSize {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            ExtSize::Free(s) => write!(f, "{s}"),
            ExtSize::Ext(i) => write!(f, "?{i}"),
        }
    }
}

impl<D: Display + Clone> Display for TypeBase<D> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        for d in self.shape() {
            write!(f, "[{d}]")?;
        }
        write!(f, "{}", self.elem())
    }
}

impl Display for Param {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.name, self.ty)
    }
}

impl Display for DimIndex {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            DimIndex::Fix(i) => write!(f, "{i}"),
            DimIndex::Slice { start, len, stride } => write!(f, "{start}:+{len}*{stride}"),
        }
    }
}

fn list<T: Display>(xs: &[T]) -> String {
    xs.iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// `x` for one item, `(x, y)` otherwise.
fn tuple<T: Display>(xs: &[T]) -> String {
    if xs.len() == 1 {
        xs[0].to_string()
    } else {
        format!("({})", list(xs))
    }
}

fn pad(indent: usize) -> String {
    "  ".repeat(indent)
}

/// Accumulates lines of text.
struct Printer {
    out: String,
}

impl Printer {
    fn line(&mut self, indent: usize, text: &str) {
        let _ = writeln!(self.out, "{}{text}", pad(indent));
    }

    /// The statements and result of a body, one statement per line.
    fn body(&mut self, body: &Body, indent: usize) {
        for stm in &body.stms {
            self.stm(stm, indent);
        }
        self.line(indent, &format!("in {}", tuple(&body.result)));
    }

    fn stm(&mut self, stm: &Stm, indent: usize) {
        let mut head = String::from("let ");
        if !stm.pat.ctx.is_empty() {
            let _ = write!(head, "[{}] ", stm.pat.ctx.join(", "));
        }
        match stm.pat.elems.as_slice() {
            [] => head.push_str("()"),
            [p] if stm.pat.ctx.is_empty() => head.push_str(&p.to_string()),
            ps => {
                let _ = write!(head, "({})", list(ps));
            }
        }
        head.push_str(" = ");
        self.exp(&stm.exp, &head, indent);
    }

    /// Prints `prefix` followed by the expression; multi-line expressions continue on
    /// following lines at `indent + 1`.
    fn exp(&mut self, e: &Exp, prefix: &str, indent: usize) {
        match e {
            Exp::If {
                cond,
                then_body,
                else_body,
                ret,
            } => {
                self.line(
                    indent,
                    &format!("{prefix}if {cond} : {} then {{", tuple(ret)),
                );
                self.body(then_body, indent + 1);
                self.line(indent, "} else {");
                self.body(else_body, indent + 1);
                self.line(indent, "}");
            }
            Exp::Loop { params, form, body } => {
                let ps: Vec<String> = params.iter().map(|(p, i)| format!("{p} = {i}")).collect();
                let form = match form {
                    LoopForm::For { var, bound } => format!("for {var} < {bound}"),
                    LoopForm::While { cond } => format!("while {cond}"),
                };
                self.line(
                    indent,
                    &format!("{prefix}loop ({}) {form} do {{", ps.join(", ")),
                );
                self.body(body, indent + 1);
                self.line(indent, "}");
            }
            Exp::Soac(soac) => self.soac(soac, prefix, indent),
            _ => self.line(indent, &format!("{prefix}{}", simple_exp(e))),
        }
    }

    fn lambda(&mut self, label: &str, lam: &Lambda, indent: usize) {
        let head = format!("{label}\\({}) : {} ->", list(&lam.params), tuple(&lam.ret));
        if lam.body.stms.is_empty() {
            self.line(indent, &format!("{head} {}", tuple(&lam.body.result)));
        } else {
            self.line(indent, &head);
            self.body(&lam.body, indent + 1);
        }
    }

    fn soac(&mut self, soac: &Soac, prefix: &str, indent: usize) {
        let w = soac.width();
        let arrs = soac.inputs().join(", ");
        match soac {
            Soac::Map { lam, .. } => {
                self.line(indent, &format!("{prefix}map {w} ({arrs})"));
                self.lambda("", lam, indent + 1);
            }
            Soac::Reduce {
                comm, op, nes, map, ..
            } => {
                let c = if *comm { " commutative" } else { "" };
                self.line(indent, &format!("{prefix}redomap{c} {w} ({arrs})"));
                self.lambda("op ", op, indent + 1);
                self.line(indent + 1, &format!("ne ({})", list(nes)));
                self.lambda("map ", map, indent + 1);
            }
            Soac::Scan { op, nes, map, .. } => {
                self.line(indent, &format!("{prefix}scanomap {w} ({arrs})"));
                self.lambda("op ", op, indent + 1);
                self.line(indent + 1, &format!("ne ({})", list(nes)));
                self.lambda("map ", map, indent + 1);
            }
            Soac::Hist {
                dests,
                rank,
                op,
                nes,
                map,
                ..
            } => {
                self.line(
                    indent,
                    &format!(
                        "{prefix}hist {w} ({arrs}) into ({}) rank {rank}",
                        dests.join(", ")
                    ),
                );
                self.lambda("op ", op, indent + 1);
                self.line(indent + 1, &format!("ne ({})", list(nes)));
                self.lambda("map ", map, indent + 1);
            }
            Soac::Scatter {
                dests, ranks, map, ..
            } => {
                let ds: Vec<String> = dests
                    .iter()
                    .zip(ranks)
                    .map(|(d, r)| format!("{d}/{r}"))
                    .collect();
                self.line(
                    indent,
                    &format!("{prefix}scatter {w} ({arrs}) into ({})", ds.join(", ")),
                );
                self.lambda("map ", map, indent + 1);
            }
        }
    }

    fn fun(&mut self, fun: &FunDef) {
        if let Some(e) = &fun.entry {
            let ps: Vec<String> = e.params.iter().map(|p| p.futhark_type.clone()).collect();
            let rs: Vec<String> = e.results.iter().map(|p| p.futhark_type.clone()).collect();
            self.line(
                0,
                &format!(
                    "-- entry {}: ({}) -> ({})",
                    e.name,
                    ps.join(", "),
                    rs.join(", ")
                ),
            );
        }
        let kw = if fun.entry.is_some() { "entry" } else { "fun" };
        self.line(
            0,
            &format!(
                "{kw} {} ({}) : {} = {{",
                fun.name,
                list(&fun.params),
                tuple(&fun.ret)
            ),
        );
        self.body(&fun.body, 1);
        self.line(0, "}");
    }
}

/// The one-line form of an expression without bodies (SOACs and control flow are printed
/// by `Printer::exp`).
fn simple_exp(e: &Exp) -> String {
    match e {
        Exp::SubExp(s) => s.to_string(),
        Exp::BinOp(op, a, b) if op.is_infix() => format!("{a} {} {b}", op.name()),
        Exp::BinOp(op, a, b) => format!("{}({a}, {b})", op.name()),
        Exp::CmpOp(op, a, b) => match op {
            super::CmpOp::Eq | super::CmpOp::FLt | super::CmpOp::FLe => {
                format!("{a} {} {b}", op.name())
            }
            _ => format!("{}({a}, {b})", op.name()),
        },
        Exp::UnOp(op, a) => format!("{}({a})", op.name()),
        Exp::Conv(op, a) => format!("{}_{}({a})", op.name(), op.target()),
        Exp::Math(f, args) => format!("{}({})", f.name(), list(args)),
        Exp::ArrayLit(elems, t) => format!("[{}] : []{t}", list(elems)),
        Exp::Index(a, idx) => format!("{a}[{}]", list(idx)),
        Exp::Update(a, idx, v) => format!("{a} with [{}] = {v}", list(idx)),
        Exp::Iota {
            n,
            start,
            stride,
            ty,
        } => format!("iota_{ty}({n}, {start}, {stride})"),
        Exp::Replicate { shape, value } => {
            let dims: String = shape.iter().map(|d| format!("[{d}]")).collect();
            format!("replicate({dims}, {value})")
        }
        Exp::Reshape { shape, arr } => {
            let dims: String = shape.iter().map(|d| format!("[{d}]")).collect();
            format!("reshape({dims}, {arr})")
        }
        Exp::Rearrange { perm, arr } => format!("rearrange(({}), {arr})", list(perm)),
        Exp::Concat { arrs, size } => format!("concat@{size}({})", arrs.join(", ")),
        Exp::Copy(a) => format!("copy({a})"),
        Exp::Assert { cond, msg, args } if args.is_empty() => format!("assert({cond}, {msg:?})"),
        Exp::Assert { cond, msg, args } => {
            let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
            format!("assert({cond}, {msg:?}, {})", args.join(", "))
        }
        Exp::Apply { func, args, ret } => format!("{func}({}) : {}", list(args), tuple(ret)),
        Exp::Launch(l) => {
            let args: Vec<String> = l
                .args
                .iter()
                .map(|a| match a {
                    KernelArg::In(s) => format!("in {s}"),
                    KernelArg::Out => "out".to_string(),
                    KernelArg::InOut(n) => format!("inout {n}"),
                })
                .collect();
            format!(
                "launch {} sizes ({}) arrays ({})",
                l.kernel,
                list(&l.sizes),
                args.join(", ")
            )
        }
        Exp::If { .. } | Exp::Loop { .. } | Exp::Soac(_) => {
            let mut p = Printer { out: String::new() };
            p.exp(e, "", 0);
            p.out.trim_end().to_string()
        }
    }
}

impl Display for Body {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let mut p = Printer { out: String::new() };
        p.body(self, 0);
        f.write_str(p.out.trim_end())
    }
}

impl Display for Lambda {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let mut p = Printer { out: String::new() };
        p.lambda("", self, 0);
        f.write_str(p.out.trim_end())
    }
}

impl Display for Exp {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(&simple_exp(self))
    }
}

impl Display for Stm {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let mut p = Printer { out: String::new() };
        p.stm(self, 0);
        f.write_str(p.out.trim_end())
    }
}

impl Display for FunDef {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let mut p = Printer { out: String::new() };
        p.fun(self);
        f.write_str(p.out.trim_end())
    }
}

impl Display for Program {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        for slow in &self.slow_paths {
            writeln!(f, "-- note: {slow}")?;
        }
        if !self.slow_paths.is_empty() {
            writeln!(f)?;
        }
        for (i, fun) in self.funs.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            writeln!(f, "{fun}")?;
        }
        for k in &self.kernels {
            writeln!(f, "\nkernels {} = {{", k.name)?;
            for line in k.program.to_string().lines() {
                if line.is_empty() {
                    writeln!(f)?;
                } else {
                    writeln!(f, "  {line}")?;
                }
            }
            writeln!(f, "}}")?;
        }
        Ok(())
    }
}
