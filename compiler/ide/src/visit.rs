//! A pre-order walk over every expression of a file (declaration bodies, module bodies,
//! nested expressions), for features that look for syntax shapes rather than names.

use futhark_syntax::ast::{
    Dec, DecKind, DimIndex, Exp, ExpKind, LoopForm, ModExp, ModExpKind, RecordField, UpdateStep,
};

/// Calls `f` on every expression under `decs`, parents before children.
pub(crate) fn each_exp<'a>(decs: &'a [Dec], f: &mut impl FnMut(&'a Exp)) {
    for dec in decs {
        dec_exps(dec, f);
    }
}

fn dec_exps<'a>(dec: &'a Dec, f: &mut impl FnMut(&'a Exp)) {
    match &dec.kind {
        DecKind::Val(v) => exp(&v.body, f, 0),
        DecKind::Module(m) => mod_exps(&m.body, f),
        DecKind::Open(m) => mod_exps(m, f),
        DecKind::Local(inner) => dec_exps(inner, f),
        DecKind::Type(_) | DecKind::ModuleType(_) | DecKind::Import(_) | DecKind::Error => {}
    }
}

fn mod_exps<'a>(m: &'a ModExp, f: &mut impl FnMut(&'a Exp)) {
    match &m.kind {
        ModExpKind::Decs(decs) => each_exp(decs, f),
        ModExpKind::Parens(inner) | ModExpKind::Ascript(inner, _) => mod_exps(inner, f),
        ModExpKind::Lambda { body, .. } => mod_exps(body, f),
        ModExpKind::Apply(a, b) => {
            mod_exps(a, f);
            mod_exps(b, f);
        }
        ModExpKind::Var(_) | ModExpKind::Import(_) | ModExpKind::Error => {}
    }
}

/// Deeper nesting than the parser produces; a guard against stack exhaustion only.
const MAX_DEPTH: u32 = 1000;

fn exp<'a>(e: &'a Exp, f: &mut impl FnMut(&'a Exp), depth: u32) {
    if depth > MAX_DEPTH {
        return;
    }
    f(e);
    let d = depth + 1;
    let mut sub = |x: &'a Exp| exp(x, f, d);
    match &e.kind {
        ExpKind::Literal(_)
        | ExpKind::StringLit(_)
        | ExpKind::Hole
        | ExpKind::Var(_)
        | ExpKind::OpSection { .. }
        | ExpKind::Error => {}
        ExpKind::Constr(_, es) | ExpKind::Tuple(es) | ExpKind::ArrayLit(es) => {
            es.iter().for_each(sub)
        }
        ExpKind::Parens(x)
        | ExpKind::Negate(x)
        | ExpKind::Not(x)
        | ExpKind::Project(x, _)
        | ExpKind::QualParens(_, x)
        | ExpKind::Ascript(x, _)
        | ExpKind::Coerce(x, _)
        | ExpKind::Attr(_, x)
        | ExpKind::LeftSection { lhs: x, .. }
        | ExpKind::RightSection { rhs: x, .. } => sub(x),
        ExpKind::Record(fields) => {
            for field in fields {
                if let RecordField::Explicit(_, x) = field {
                    sub(x);
                }
            }
        }
        ExpKind::Index(x, dims) => {
            sub(x);
            dims_exps(dims, &mut sub);
        }
        ExpKind::Apply(g, args) => {
            sub(g);
            args.iter().for_each(sub);
        }
        ExpKind::BinOp { lhs, rhs, .. } => {
            sub(lhs);
            sub(rhs);
        }
        ExpKind::ProjectSection(steps) => steps_exps(steps, &mut sub),
        ExpKind::Range {
            start, second, end, ..
        } => {
            sub(start);
            if let Some(s) = second {
                sub(s);
            }
            sub(end);
        }
        ExpKind::If { cond, then, els } => {
            sub(cond);
            sub(then);
            sub(els);
        }
        ExpKind::Let { value, body, .. }
        | ExpKind::LetFun { value, body, .. }
        | ExpKind::Assert {
            cond: value, body, ..
        } => {
            sub(value);
            sub(body);
        }
        ExpKind::LetWith {
            path, value, body, ..
        } => {
            steps_exps(path, &mut sub);
            sub(value);
            sub(body);
        }
        ExpKind::Update {
            target,
            path,
            value,
        } => {
            sub(target);
            steps_exps(path, &mut sub);
            sub(value);
        }
        ExpKind::Loop {
            init, form, body, ..
        } => {
            if let Some(init) = init {
                sub(init);
            }
            match form {
                LoopForm::For { bound: x, .. }
                | LoopForm::ForIn { array: x, .. }
                | LoopForm::While(x) => sub(x),
            }
            sub(body);
        }
        ExpKind::Match { scrutinee, cases } => {
            sub(scrutinee);
            for case in cases {
                sub(&case.body);
            }
        }
        ExpKind::Lambda { body, .. } => sub(body),
    }
}

fn dims_exps<'a>(dims: &'a [DimIndex], sub: &mut impl FnMut(&'a Exp)) {
    for d in dims {
        match d {
            DimIndex::Fix(x) => sub(x),
            DimIndex::Slice {
                start, end, stride, ..
            } => {
                for x in [start, end, stride].into_iter().flatten() {
                    sub(x);
                }
            }
        }
    }
}

fn steps_exps<'a>(steps: &'a [UpdateStep], sub: &mut impl FnMut(&'a Exp)) {
    for step in steps {
        if let UpdateStep::Index(dims, _) = step {
            dims_exps(dims, sub);
        }
    }
}
