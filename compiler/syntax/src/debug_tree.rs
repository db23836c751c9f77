//! A terse S-expression rendering of syntax trees, for tests and `futhark-rs parse`.
//!
//! Every node that groups others is parenthesised with a head word, so precedence and
//! associativity can be read off directly: `1 + 2 * 3` prints as `(+ 1 (* 2 3))`,
//! `-f x` as `(neg (app f x))`. Names print as written (`M.x`), literals with their
//! suffix (`1i32`, `2.5f32`, `'a'`), types as `([n] i32)`, `(-> a b)`, `(tapp t [n] a)`.
//! Spans are not shown. Parse errors print as `<error>`.

use crate::ast::*;
use std::fmt::Write;

/// Renders a whole file, one top-level declaration per line.
pub fn debug_tree(file: &SourceFile) -> String {
    let mut p = Printer::default();
    if let Some(doc) = &file.doc {
        let _ = write!(p.out, "(file-doc {:?})", doc.text);
        p.out.push('\n');
    }
    for dec in &file.decs {
        p.dec(dec);
        p.out.push('\n');
    }
    p.out
}

/// Renders one expression.
pub fn debug_exp(e: &Exp) -> String {
    let mut p = Printer::default();
    p.exp(e);
    p.out
}

/// Renders one type expression.
pub fn debug_type(t: &TypeExp) -> String {
    let mut p = Printer::default();
    p.ty(t);
    p.out
}

/// Renders one pattern.
pub fn debug_pat(pat: &Pat) -> String {
    let mut p = Printer::default();
    p.pat(pat);
    p.out
}

/// Renders one declaration.
pub fn debug_dec(dec: &Dec) -> String {
    let mut p = Printer::default();
    p.dec(dec);
    p.out
}

#[derive(Default)]
struct Printer {
    out: String,
}

impl Printer {
    fn s(&mut self, text: &str) {
        self.out.push_str(text);
    }

    fn sp(&mut self) {
        self.out.push(' ');
    }

    fn qual(&mut self, q: &QualName) {
        for m in &q.quals {
            self.s(&m.name);
            self.s(".");
        }
        self.s(&q.name.name);
    }

    fn op(&mut self, q: &QualName, backticked: bool) {
        if backticked {
            self.s("`");
            self.qual(q);
            self.s("`");
        } else {
            self.qual(q);
        }
    }

    /// `(head a b …)`
    fn list<T>(&mut self, head: &str, items: &[T], mut f: impl FnMut(&mut Self, &T)) {
        self.s("(");
        self.s(head);
        for it in items {
            self.sp();
            f(self, it);
        }
        self.s(")");
    }

    fn attr(&mut self, a: &Attr) {
        match &a.kind {
            AttrKind::Name(n) => self.s(n),
            AttrKind::Int(i) => self.s(&i.to_string()),
            AttrKind::Call(n, args) => {
                self.s(n);
                self.s("(");
                for (i, arg) in args.iter().enumerate() {
                    if i > 0 {
                        self.s(", ");
                    }
                    self.attr(arg);
                }
                self.s(")");
            }
        }
    }

    fn literal(&mut self, l: &Literal) {
        match &l.kind {
            LitKind::Int {
                value,
                negative,
                suffix,
            } => {
                let _ = write!(self.out, "{}{}", if *negative { "-" } else { "" }, value);
                if let Some(s) = suffix {
                    self.s(s.name());
                }
            }
            LitKind::Float {
                text,
                negative,
                suffix,
                ..
            } => {
                let _ = write!(self.out, "{}{}", if *negative { "-" } else { "" }, text);
                if let Some(s) = suffix {
                    self.s(s.name());
                }
            }
            LitKind::Char(c) => match char::from_u32(*c) {
                Some(ch) => {
                    let _ = write!(self.out, "'{}'", ch.escape_debug());
                }
                None => {
                    let _ = write!(self.out, "(char {c})");
                }
            },
            LitKind::Bool(b) => self.s(if *b { "true" } else { "false" }),
        }
    }

    fn tparam(&mut self, t: &TypeParam) {
        match t {
            TypeParam::Size(n) => {
                let _ = write!(self.out, "[{}]", n.name);
            }
            TypeParam::Type(n, l) => {
                let mark = match l {
                    Liftedness::Unlifted => "'",
                    Liftedness::SizeLifted => "'~",
                    Liftedness::Lifted => "'^",
                };
                self.s(mark);
                self.s(&n.name);
            }
        }
    }

    fn dec(&mut self, d: &Dec) {
        if let Some(doc) = &d.doc {
            let _ = write!(self.out, "(doc {:?}) ", doc.text);
        }
        for a in &d.attrs {
            self.s("#[");
            self.attr(a);
            self.s("] ");
        }
        match &d.kind {
            DecKind::Val(v) => {
                let kw = match v.keyword {
                    ValKeyword::Def => "def",
                    ValKeyword::Entry => "entry",
                    ValKeyword::Let => "let",
                };
                self.s("(");
                self.s(kw);
                self.sp();
                if v.infix {
                    self.s("(infix ");
                    self.s(&v.name.name);
                    self.s(")");
                } else {
                    self.s(&v.name.name);
                }
                for t in &v.tparams {
                    self.sp();
                    self.tparam(t);
                }
                for p in &v.params {
                    self.sp();
                    self.pat(p);
                }
                if let Some(t) = &v.ret {
                    self.s(" : ");
                    self.ty(t);
                }
                self.s(" = ");
                self.exp(&v.body);
                self.s(")");
            }
            DecKind::Type(t) => {
                self.s("(type");
                self.liftedness(t.liftedness);
                self.sp();
                self.s(&t.name.name);
                for tp in &t.tparams {
                    self.sp();
                    self.tparam(tp);
                }
                self.s(" = ");
                self.ty(&t.ty);
                self.s(")");
            }
            DecKind::Module(m) => {
                self.s("(module ");
                self.s(&m.name.name);
                for p in &m.params {
                    self.sp();
                    self.mod_param(p);
                }
                if let Some(s) = &m.sig {
                    self.s(" : ");
                    self.sig(s);
                }
                self.s(" = ");
                self.mod_exp(&m.body);
                self.s(")");
            }
            DecKind::ModuleType(m) => {
                self.s("(module-type ");
                self.s(&m.name.name);
                self.s(" = ");
                self.sig(&m.sig);
                self.s(")");
            }
            DecKind::Open(m) => {
                self.s("(open ");
                self.mod_exp(m);
                self.s(")");
            }
            DecKind::Import(s) => {
                let _ = write!(self.out, "(import {:?})", s.value);
            }
            DecKind::Local(inner) => {
                self.s("(local ");
                self.dec(inner);
                self.s(")");
            }
            DecKind::Error => self.s("<error>"),
        }
    }

    fn liftedness(&mut self, l: Liftedness) {
        match l {
            Liftedness::Unlifted => {}
            Liftedness::SizeLifted => self.s("~"),
            Liftedness::Lifted => self.s("^"),
        }
    }

    fn mod_param(&mut self, p: &ModParam) {
        self.s("(");
        self.s(&p.name.name);
        self.s(": ");
        self.sig(&p.sig);
        self.s(")");
    }

    fn mod_exp(&mut self, m: &ModExp) {
        match &m.kind {
            ModExpKind::Var(q) => self.qual(q),
            ModExpKind::Parens(inner) => {
                self.s("(paren ");
                self.mod_exp(inner);
                self.s(")");
            }
            ModExpKind::Import(s) => {
                let _ = write!(self.out, "(import {:?})", s.value);
            }
            ModExpKind::Decs(decs) => self.list("decs", decs, |p, d| p.dec(d)),
            ModExpKind::Apply(f, a) => {
                self.s("(app ");
                self.mod_exp(f);
                self.sp();
                self.mod_exp(a);
                self.s(")");
            }
            ModExpKind::Ascript(inner, s) => {
                self.s("(: ");
                self.mod_exp(inner);
                self.sp();
                self.sig(s);
                self.s(")");
            }
            ModExpKind::Lambda { param, ret, body } => {
                self.s("(lambda ");
                self.mod_param(param);
                if let Some(r) = ret {
                    self.s(" : ");
                    self.sig(r);
                }
                self.sp();
                self.mod_exp(body);
                self.s(")");
            }
            ModExpKind::Error => self.s("<error>"),
        }
    }

    fn sig(&mut self, s: &SigExp) {
        match &s.kind {
            SigExpKind::Var(q) => self.qual(q),
            SigExpKind::Parens(inner) => {
                self.s("(paren ");
                self.sig(inner);
                self.s(")");
            }
            SigExpKind::Specs(specs) => self.list("specs", specs, |p, s| p.spec(s)),
            SigExpKind::With {
                sig,
                name,
                tparams,
                ty,
            } => {
                self.s("(with ");
                self.sig(sig);
                self.sp();
                self.qual(name);
                for t in tparams {
                    self.sp();
                    self.tparam(t);
                }
                self.s(" = ");
                self.ty(ty);
                self.s(")");
            }
            SigExpKind::Arrow { param, from, to } => {
                self.s("(-> ");
                match param {
                    Some(n) => {
                        self.s("(");
                        self.s(&n.name);
                        self.s(": ");
                        self.sig(from);
                        self.s(")");
                    }
                    None => self.sig(from),
                }
                self.sp();
                self.sig(to);
                self.s(")");
            }
            SigExpKind::Error => self.s("<error>"),
        }
    }

    fn spec(&mut self, s: &Spec) {
        if let Some(doc) = &s.doc {
            let _ = write!(self.out, "(doc {:?}) ", doc.text);
        }
        for a in &s.attrs {
            self.s("#[");
            self.attr(a);
            self.s("] ");
        }
        match &s.kind {
            SpecKind::Val { name, tparams, ty } => {
                self.s("(val ");
                self.s(&name.name);
                for t in tparams {
                    self.sp();
                    self.tparam(t);
                }
                self.s(" : ");
                self.ty(ty);
                self.s(")");
            }
            SpecKind::Type {
                liftedness,
                name,
                tparams,
                def,
            } => {
                self.s("(type");
                self.liftedness(*liftedness);
                self.sp();
                self.s(&name.name);
                for t in tparams {
                    self.sp();
                    self.tparam(t);
                }
                if let Some(d) = def {
                    self.s(" = ");
                    self.ty(d);
                }
                self.s(")");
            }
            SpecKind::Module { name, sig } => {
                self.s("(module ");
                self.s(&name.name);
                self.s(" : ");
                self.sig(sig);
                self.s(")");
            }
            SpecKind::Include(sig) => {
                self.s("(include ");
                self.sig(sig);
                self.s(")");
            }
            SpecKind::Error => self.s("<error>"),
        }
    }

    fn size(&mut self, s: &SizeExp) {
        match s {
            SizeExp::Anonymous(_) => self.s("[]"),
            SizeExp::Exp(e) => {
                self.s("[");
                self.exp(e);
                self.s("]");
            }
        }
    }

    fn ty(&mut self, t: &TypeExp) {
        match &t.kind {
            TypeExpKind::Var(q) => self.qual(q),
            TypeExpKind::Parens(inner) => {
                self.s("(paren ");
                self.ty(inner);
                self.s(")");
            }
            TypeExpKind::Tuple(ts) if ts.is_empty() => self.s("()"),
            TypeExpKind::Tuple(ts) => self.list("tuple", ts, |p, t| p.ty(t)),
            TypeExpKind::Record(fields) => self.list("record", fields, |p, (n, t)| {
                p.s("(");
                p.s(&n.name);
                p.sp();
                p.ty(t);
                p.s(")");
            }),
            TypeExpKind::Array { size, elem } => {
                self.s("(");
                self.size(size);
                self.sp();
                self.ty(elem);
                self.s(")");
            }
            TypeExpKind::Unique(inner) => {
                self.s("(* ");
                self.ty(inner);
                self.s(")");
            }
            TypeExpKind::Apply(f, arg) => {
                self.s("(tapp ");
                self.ty(f);
                self.sp();
                match arg {
                    TypeArg::Size(s) => self.size(s),
                    TypeArg::Type(t) => self.ty(t),
                }
                self.s(")");
            }
            TypeExpKind::Arrow { param, from, to } => {
                self.s("(-> ");
                match param {
                    Some(n) => {
                        self.s("(");
                        self.s(&n.name);
                        self.s(": ");
                        self.ty(from);
                        self.s(")");
                    }
                    None => self.ty(from),
                }
                self.sp();
                self.ty(to);
                self.s(")");
            }
            TypeExpKind::Sum(clauses) => self.list("sum", clauses, |p, (c, ts)| {
                if ts.is_empty() {
                    p.s("#");
                    p.s(&c.name);
                } else {
                    p.list(&format!("#{}", c.name), ts, |p, t| p.ty(t));
                }
            }),
            TypeExpKind::Existential { sizes, ty } => {
                self.s("(?");
                for n in sizes {
                    let _ = write!(self.out, " [{}]", n.name);
                }
                self.sp();
                self.ty(ty);
                self.s(")");
            }
            TypeExpKind::Error => self.s("<error>"),
        }
    }

    fn pat(&mut self, p: &Pat) {
        match &p.kind {
            PatKind::Id(n) => self.s(&n.name),
            PatKind::Wildcard => self.s("_"),
            PatKind::Parens(inner) => {
                self.s("(paren ");
                self.pat(inner);
                self.s(")");
            }
            PatKind::Tuple(ps) if ps.is_empty() => self.s("()"),
            PatKind::Tuple(ps) => self.list("tuple", ps, |pr, p| pr.pat(p)),
            PatKind::Record(fields) => self.list("record", fields, |pr, (n, p)| {
                pr.s("(");
                pr.s(&n.name);
                pr.sp();
                pr.pat(p);
                pr.s(")");
            }),
            PatKind::Literal(l) => self.literal(l),
            PatKind::Constr(c, ps) if ps.is_empty() => {
                self.s("#");
                self.s(&c.name);
            }
            PatKind::Constr(c, ps) => self.list(&format!("#{}", c.name), ps, |pr, p| pr.pat(p)),
            PatKind::Ascript(inner, t) => {
                self.s("(: ");
                self.pat(inner);
                self.sp();
                self.ty(t);
                self.s(")");
            }
            PatKind::Attr(a, inner) => {
                self.s("(attr ");
                self.attr(a);
                self.sp();
                self.pat(inner);
                self.s(")");
            }
            PatKind::Error => self.s("<error>"),
        }
    }

    fn dim(&mut self, d: &DimIndex) {
        match d {
            DimIndex::Fix(e) => self.exp(e),
            DimIndex::Slice {
                start, end, stride, ..
            } => {
                self.s("(slice");
                for part in [start, end, stride] {
                    self.sp();
                    match part {
                        Some(e) => self.exp(e),
                        None => self.s("_"),
                    }
                }
                self.s(")");
            }
        }
    }

    fn steps(&mut self, steps: &[UpdateStep]) {
        for (i, step) in steps.iter().enumerate() {
            if i > 0 {
                self.sp();
            }
            match step {
                UpdateStep::Field(f) => {
                    self.s(".");
                    self.s(&f.name);
                }
                UpdateStep::Index(dims, _) => {
                    self.s("[");
                    for (j, d) in dims.iter().enumerate() {
                        if j > 0 {
                            self.s(", ");
                        }
                        self.dim(d);
                    }
                    self.s("]");
                }
            }
        }
    }

    fn exp(&mut self, e: &Exp) {
        match &e.kind {
            ExpKind::Literal(l) => self.literal(l),
            ExpKind::StringLit(s) => {
                let _ = write!(self.out, "{s:?}");
            }
            ExpKind::Hole => self.s("???"),
            ExpKind::Var(q) => self.qual(q),
            ExpKind::Constr(c, args) if args.is_empty() => {
                self.s("#");
                self.s(&c.name);
            }
            ExpKind::Constr(c, args) => self.list(&format!("#{}", c.name), args, |p, e| p.exp(e)),
            ExpKind::Parens(inner) => {
                self.s("(paren ");
                self.exp(inner);
                self.s(")");
            }
            ExpKind::Tuple(es) if es.is_empty() => self.s("()"),
            ExpKind::Tuple(es) => self.list("tuple", es, |p, e| p.exp(e)),
            ExpKind::Record(fields) => self.list("record", fields, |p, f| match f {
                RecordField::Explicit(n, e) => {
                    p.s("(");
                    p.s(&n.name);
                    p.sp();
                    p.exp(e);
                    p.s(")");
                }
                RecordField::Pun(n) => p.s(&n.name),
            }),
            ExpKind::ArrayLit(es) => self.list("array", es, |p, e| p.exp(e)),
            ExpKind::Project(inner, f) => {
                self.s("(. ");
                self.exp(inner);
                self.sp();
                self.s(&f.name);
                self.s(")");
            }
            ExpKind::QualParens(q, inner) => {
                self.s("(open ");
                self.qual(q);
                self.sp();
                self.exp(inner);
                self.s(")");
            }
            ExpKind::Index(inner, dims) => {
                self.s("(idx ");
                self.exp(inner);
                for d in dims {
                    self.sp();
                    self.dim(d);
                }
                self.s(")");
            }
            ExpKind::Apply(f, args) => {
                self.s("(app ");
                self.exp(f);
                for a in args {
                    self.sp();
                    self.exp(a);
                }
                self.s(")");
            }
            ExpKind::Negate(inner) => {
                self.s("(neg ");
                self.exp(inner);
                self.s(")");
            }
            ExpKind::Not(inner) => {
                self.s("(not ");
                self.exp(inner);
                self.s(")");
            }
            ExpKind::BinOp {
                op,
                backticked,
                lhs,
                rhs,
            } => {
                self.s("(");
                self.op(op, *backticked);
                self.sp();
                self.exp(lhs);
                self.sp();
                self.exp(rhs);
                self.s(")");
            }
            ExpKind::OpSection { op, backticked } => {
                self.s("(section ");
                self.op(op, *backticked);
                self.s(")");
            }
            ExpKind::LeftSection {
                op,
                backticked,
                lhs,
            } => {
                self.s("(lsection ");
                self.op(op, *backticked);
                self.sp();
                self.exp(lhs);
                self.s(")");
            }
            ExpKind::RightSection {
                op,
                backticked,
                rhs,
            } => {
                self.s("(rsection ");
                self.op(op, *backticked);
                self.sp();
                self.exp(rhs);
                self.s(")");
            }
            ExpKind::ProjectSection(steps) => {
                self.s("(proj ");
                self.steps(steps);
                self.s(")");
            }
            ExpKind::Range {
                start,
                second,
                end,
                kind,
            } => {
                self.s("(range ");
                self.exp(start);
                if let Some(s) = second {
                    self.sp();
                    self.exp(s);
                }
                self.s(match kind {
                    RangeKind::Inclusive => " ... ",
                    RangeKind::UpToExclusive => " ..< ",
                    RangeKind::DownToExclusive => " ..> ",
                });
                self.exp(end);
                self.s(")");
            }
            ExpKind::Ascript(inner, t) => {
                self.s("(: ");
                self.exp(inner);
                self.sp();
                self.ty(t);
                self.s(")");
            }
            ExpKind::Coerce(inner, t) => {
                self.s("(:> ");
                self.exp(inner);
                self.sp();
                self.ty(t);
                self.s(")");
            }
            ExpKind::If { cond, then, els } => {
                self.s("(if ");
                self.exp(cond);
                self.sp();
                self.exp(then);
                self.sp();
                self.exp(els);
                self.s(")");
            }
            ExpKind::Let {
                sizes,
                pat,
                value,
                body,
            } => {
                self.s("(let ");
                for n in sizes {
                    let _ = write!(self.out, "[{}] ", n.name);
                }
                self.pat(pat);
                self.sp();
                self.exp(value);
                self.sp();
                self.exp(body);
                self.s(")");
            }
            ExpKind::LetFun {
                name,
                tparams,
                params,
                ret,
                value,
                body,
            } => {
                self.s("(letfun ");
                self.s(&name.name);
                for t in tparams {
                    self.sp();
                    self.tparam(t);
                }
                for p in params {
                    self.sp();
                    self.pat(p);
                }
                if let Some(t) = ret {
                    self.s(" : ");
                    self.ty(t);
                }
                self.s(" = ");
                self.exp(value);
                self.sp();
                self.exp(body);
                self.s(")");
            }
            ExpKind::LetWith {
                dest,
                path,
                value,
                body,
            } => {
                self.s("(letwith ");
                self.s(&dest.name);
                self.sp();
                self.steps(path);
                self.sp();
                self.exp(value);
                self.sp();
                self.exp(body);
                self.s(")");
            }
            ExpKind::Update {
                target,
                path,
                value,
            } => {
                self.s("(with ");
                self.exp(target);
                self.sp();
                self.steps(path);
                self.sp();
                self.exp(value);
                self.s(")");
            }
            ExpKind::Loop {
                pat,
                init,
                form,
                body,
            } => {
                self.s("(loop ");
                self.pat(pat);
                self.sp();
                match init {
                    Some(e) => self.exp(e),
                    None => self.s("_"),
                }
                self.sp();
                match form {
                    LoopForm::For { var, bound } => {
                        self.s("(for ");
                        self.s(&var.name);
                        self.sp();
                        self.exp(bound);
                        self.s(")");
                    }
                    LoopForm::ForIn { pat, array } => {
                        self.s("(for-in ");
                        self.pat(pat);
                        self.sp();
                        self.exp(array);
                        self.s(")");
                    }
                    LoopForm::While(c) => {
                        self.s("(while ");
                        self.exp(c);
                        self.s(")");
                    }
                }
                self.sp();
                self.exp(body);
                self.s(")");
            }
            ExpKind::Match { scrutinee, cases } => {
                self.s("(match ");
                self.exp(scrutinee);
                for c in cases {
                    self.s(" (case ");
                    self.pat(&c.pat);
                    self.sp();
                    self.exp(&c.body);
                    self.s(")");
                }
                self.s(")");
            }
            ExpKind::Lambda { params, ret, body } => {
                self.s("(lambda (");
                for (i, p) in params.iter().enumerate() {
                    if i > 0 {
                        self.sp();
                    }
                    self.pat(p);
                }
                self.s(")");
                if let Some(t) = ret {
                    self.s(" : ");
                    self.ty(t);
                }
                self.sp();
                self.exp(body);
                self.s(")");
            }
            ExpKind::Assert { cond, body } => {
                self.s("(assert ");
                self.exp(cond);
                self.sp();
                self.exp(body);
                self.s(")");
            }
            ExpKind::Attr(a, inner) => {
                self.s("(attr ");
                self.attr(a);
                self.sp();
                self.exp(inner);
                self.s(")");
            }
            ExpKind::Error => self.s("<error>"),
        }
    }
}
