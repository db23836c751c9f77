//! The causality check: a size may only be used after the expression that produces it has
//! been evaluated. Unknown sizes (from existential results, slices, ranges, branches, loops
//! and names going out of scope) are "known" only once their producing expression has been
//! evaluated, in evaluation order; a variable, hole, empty array or section whose type
//! mentions a size not yet known is an error.

use futhark_syntax::Span;
use futhark_syntax::ast::{
    DimIndex, Exp, ExpKind, LoopForm, Pat, PatKind, RecordField, UpdateStep, ValBind,
};
use rustc_hash::{FxHashMap, FxHashSet};

use crate::checker::Checker;
use crate::types::VName;
use crate::unify::UnknownSource;

type Known = FxHashSet<VName>;

struct Causality<'c, 'a> {
    c: &'c mut Checker<'a>,
    /// Unknown sizes by the span of the expression producing them.
    products: FxHashMap<Span, Vec<VName>>,
    reported: bool,
}

impl Causality<'_, '_> {
    fn check_type(&mut self, span: Span, known: &Known, what: &str) {
        if self.reported {
            return;
        }
        let Some(t) = self.c.info.exp_types.get(&span) else {
            return;
        };
        for v in t.free_size_vars() {
            if known.contains(&v) || !self.c.produced.contains_key(&v) {
                continue;
            }
            let from_unify = self
                .c
                .uni
                .rigid
                .get(&v)
                .is_some_and(|r| matches!(r.unknown, Some((UnknownSource::Unify, _))));
            if from_unify {
                continue;
            }
            let at = self.c.produced[&v];
            self.reported = true;
            // A size that varies from one iteration to the next exists only inside the
            // loop; a variable bound before the loop cannot have it (its type was
            // constrained from inside the loop body).
            let loop_variant = what.starts_with('"')
                && (self.c.uni.loop_vars.contains(&v)
                    || self
                        .c
                        .uni
                        .rigid
                        .get(&v)
                        .is_some_and(|r| matches!(r.unknown, Some((UnknownSource::Loop, _)))));
            let d = if loop_variant {
                self.c.error(
                    "loop-variant-escape",
                    span,
                    format!(
                        "Loop-variant size has escaped: the type of {what} needs size \"{}\", which changes with every iteration of a later loop.",
                        v.name()
                    ),
                )
            } else {
                self.c.error(
                    "causality-check",
                    span,
                    format!(
                        "Causality check: size \"{}\" needed for type of {what}, but it is computed later.",
                        v.name()
                    ),
                )
            };
            d.labels.push(futhark_syntax::Label {
                span: at,
                message: "the size is computed here".into(),
            });
            return;
        }
    }

    fn produced_by(&self, span: Span, out: &mut Known) {
        if let Some(vs) = self.products.get(&span) {
            out.extend(vs.iter().cloned());
        }
    }

    fn pat_types(&mut self, p: &Pat, known: &Known) {
        match &p.kind {
            PatKind::Id(x) => self.check_type(x.span, known, &format!("\"{}\"", x.name)),
            PatKind::Parens(q) | PatKind::Attr(_, q) | PatKind::Ascript(q, _) => {
                self.pat_types(q, known)
            }
            PatKind::Tuple(ps) | PatKind::Constr(_, ps) => {
                ps.iter().for_each(|q| self.pat_types(q, known))
            }
            PatKind::Record(fs) => fs.iter().for_each(|(_, q)| self.pat_types(q, known)),
            _ => {}
        }
    }

    /// Walks `e` with the sizes `known` so far; returns the sizes its evaluation makes known.
    fn walk(&mut self, e: &Exp, known: &Known) -> Known {
        if self.reported || self.c.too_deep() {
            return Known::default();
        }
        self.c.depth += 1;
        let mut new = self.walk_inner(e, known);
        self.c.depth -= 1;
        self.produced_by(e.span, &mut new);
        new
    }

    fn seq(&mut self, es: &[&Exp], known: &Known) -> Known {
        let mut cur = known.clone();
        let mut new = Known::default();
        for e in es {
            let n = self.walk(e, &cur);
            cur.extend(n.iter().cloned());
            new.extend(n);
        }
        new
    }

    fn union(a: &Known, b: &Known) -> Known {
        let mut k = a.clone();
        k.extend(b.iter().cloned());
        k
    }

    fn walk_inner(&mut self, e: &Exp, known: &Known) -> Known {
        match &e.kind {
            ExpKind::Var(qn) => {
                self.check_type(
                    e.span,
                    known,
                    &format!("\"{}\"", crate::checker::qual_string(qn)),
                );
                Known::default()
            }
            ExpKind::Hole => {
                self.check_type(e.span, known, "hole");
                Known::default()
            }
            ExpKind::ArrayLit(es) if es.is_empty() => {
                self.check_type(e.span, known, "empty array");
                Known::default()
            }
            // Sizes a section makes itself are known when it is applied.
            ExpKind::ProjectSection(_) => {
                let mut k = known.clone();
                self.produced_by(e.span, &mut k);
                self.check_type(e.span, &k, "projection section");
                Known::default()
            }
            ExpKind::OpSection { .. } => {
                let mut k = known.clone();
                self.produced_by(e.span, &mut k);
                self.check_type(e.span, &k, "operator section");
                Known::default()
            }
            ExpKind::LeftSection { lhs, .. } => {
                let mut k = known.clone();
                self.produced_by(e.span, &mut k);
                self.check_type(e.span, &k, "operator section");
                self.walk(lhs, known)
            }
            ExpKind::RightSection { rhs, .. } => {
                let mut k = known.clone();
                self.produced_by(e.span, &mut k);
                self.check_type(e.span, &k, "operator section");
                self.walk(rhs, known)
            }
            ExpKind::Lambda { params, body, .. } => {
                for p in params {
                    self.pat_types(p, known);
                }
                self.walk(body, known);
                Known::default()
            }
            ExpKind::Apply(f, args) => {
                // Later arguments are considered first, as Futhark does: a size produced by
                // an argument may appear in the types of earlier ones.
                let refs: Vec<&Exp> = args.iter().rev().collect();
                let new = self.seq(&refs, known);
                let k = Self::union(known, &new);
                let mut n2 = self.walk(f, &k);
                n2.extend(new);
                n2
            }
            ExpKind::BinOp { op, lhs, rhs, .. } => {
                let new = self.seq(&[lhs, rhs], known);
                let k = Self::union(known, &new);
                self.check_type(
                    op.span,
                    &k,
                    &format!("\"{}\"", crate::checker::qual_string(op)),
                );
                new
            }
            ExpKind::Let {
                value, body, pat, ..
            } => {
                let new = self.walk(value, known);
                let k = Self::union(known, &new);
                let _ = pat;
                let mut n2 = self.walk(body, &k);
                n2.extend(new);
                n2
            }
            ExpKind::LetFun {
                params,
                value,
                body,
                ..
            } => {
                for p in params {
                    self.pat_types(p, known);
                }
                self.walk(value, known);
                self.walk(body, known)
            }
            ExpKind::If { cond, then, els } => {
                let new = self.walk(cond, known);
                let k = Self::union(known, &new);
                self.walk(then, &k);
                self.walk(els, &k);
                new
            }
            ExpKind::Match { scrutinee, cases } => {
                let new = self.walk(scrutinee, known);
                let k = Self::union(known, &new);
                for c in cases {
                    self.walk(&c.body, &k);
                }
                new
            }
            ExpKind::Loop {
                init, form, body, ..
            } => {
                let mut new = match init {
                    Some(i) => self.walk(i, known),
                    None => Known::default(),
                };
                match form {
                    LoopForm::For { bound, .. } => {
                        new.extend(self.walk(bound, &Self::union(known, &new)))
                    }
                    LoopForm::ForIn { array, .. } => {
                        new.extend(self.walk(array, &Self::union(known, &new)))
                    }
                    LoopForm::While(_) => {}
                }
                let mut inside = Self::union(known, &new);
                self.produced_by(e.span, &mut inside);
                if let LoopForm::While(c) = form {
                    self.walk(c, &inside);
                }
                self.walk(body, &inside);
                new
            }
            _ => {
                let kids = children(e);
                self.seq(&kids, known)
            }
        }
    }
}

/// The subexpressions of an expression, in evaluation order (for the generic cases).
fn children(e: &Exp) -> Vec<&Exp> {
    let mut out: Vec<&Exp> = Vec::new();
    let idx = |out: &mut Vec<&'_ Exp>, is: &'_ [DimIndex]| {
        let _ = (out, is);
    };
    let _ = idx;
    fn dims<'e>(out: &mut Vec<&'e Exp>, is: &'e [DimIndex]) {
        for i in is {
            match i {
                DimIndex::Fix(x) => out.push(x),
                DimIndex::Slice {
                    start, end, stride, ..
                } => {
                    for x in [start, end, stride].into_iter().flatten() {
                        out.push(x);
                    }
                }
            }
        }
    }
    match &e.kind {
        ExpKind::Constr(_, xs) | ExpKind::Tuple(xs) | ExpKind::ArrayLit(xs) => {
            out.extend(xs.iter())
        }
        ExpKind::Parens(x)
        | ExpKind::QualParens(_, x)
        | ExpKind::Negate(x)
        | ExpKind::Not(x)
        | ExpKind::Project(x, _)
        | ExpKind::Ascript(x, _)
        | ExpKind::Coerce(x, _)
        | ExpKind::Attr(_, x) => out.push(x),
        ExpKind::Record(fs) => {
            for f in fs {
                if let RecordField::Explicit(_, x) = f {
                    out.push(x);
                }
            }
        }
        ExpKind::Index(x, is) => {
            out.push(x);
            dims(&mut out, is);
        }
        ExpKind::Range {
            start, second, end, ..
        } => {
            out.push(start);
            if let Some(s) = second {
                out.push(s);
            }
            out.push(end);
        }
        ExpKind::Update {
            target,
            path,
            value,
        } => {
            out.push(target);
            for s in path {
                if let UpdateStep::Index(is, _) = s {
                    dims(&mut out, is);
                }
            }
            out.push(value);
        }
        ExpKind::LetWith {
            path, value, body, ..
        } => {
            for s in path {
                if let UpdateStep::Index(is, _) = s {
                    dims(&mut out, is);
                }
            }
            out.push(value);
            out.push(body);
        }
        ExpKind::Assert { cond, body } => {
            out.push(cond);
            out.push(body);
        }
        _ => {}
    }
    out
}

impl Checker<'_> {
    pub fn causality_check(&mut self, vb: &ValBind) {
        let mut products: FxHashMap<Span, Vec<VName>> = FxHashMap::default();
        for (v, s) in &self.produced {
            products.entry(*s).or_default().push(v.clone());
        }
        let mut c = Causality {
            c: self,
            products,
            reported: false,
        };
        let known = Known::default();
        for p in &vb.params {
            c.pat_types(p, &known);
        }
        c.walk(&vb.body, &known);
    }
}
