//! Lowering of expressions: name resolution to slots, captures and constants; literal
//! typing; desugaring of sections, update sugar and operators.

use std::collections::HashMap;
use std::rc::Rc;

use futhark_syntax::Span;
use futhark_syntax::ast::{
    self, AttrKind, DimIndex, ExpKind, LitKind, LoopForm as AstLoopForm, QualName, RecordField,
    TypeParam, UpdateStep,
};
use futhark_values::PrimType;
use half::f16;

use super::lambda::{apply, make_lambda};
use super::{Env, Lowerer, Module, Scope, fresh_slot, intrinsic_value, module_path};
use crate::errors::{Result, RuntimeError};
use crate::ir::{Capture, Exp, FlexLit, IdxExp, Loop, LoopForm, Pat, Slot, UpdStep};
use crate::prim::Prim;
use crate::value::{Array, Name, Value, field_order, tuple_names};

/// A name in a function's scope.
#[derive(Clone, Debug)]
pub enum Local {
    Var(Name, Slot),
    /// A module opened by `M.(e)`.
    Open(Rc<Scope>),
}

/// The lowering state of one function (or closed top-level expression).
#[derive(Debug, Default)]
pub struct FnCtx {
    pub locals: Vec<Local>,
    pub nslots: u32,
    pub captures: Vec<Capture>,
    capture_index: HashMap<CapKey, Slot>,
    pub self_name: Option<Name>,
    /// Size parameters of this function: whether a pattern has bound them yet.
    pub sizes: HashMap<Slot, bool>,
    /// Declared size parameters, by name.
    pub size_names: Vec<(Name, Slot)>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum CapKey {
    Local(Slot),
    Captured(Slot),
    SelfRef,
}

impl FnCtx {
    pub fn new(self_name: Option<Name>) -> FnCtx {
        FnCtx {
            self_name,
            ..FnCtx::default()
        }
    }

    fn capture(&mut self, key: CapKey) -> Slot {
        if let Some(&i) = self.capture_index.get(&key) {
            return i;
        }
        let i = self.captures.len() as Slot;
        self.captures.push(match key {
            CapKey::Local(s) => Capture::Local(s),
            CapKey::Captured(s) => Capture::Captured(s),
            CapKey::SelfRef => Capture::SelfRef,
        });
        self.capture_index.insert(key, i);
        i
    }
}

/// How a name was found.
enum Found {
    Slot(usize, Slot),
    SelfRef(usize),
    Const(Value),
}

/// Lowering of expressions within the static environment `env`.
pub struct LowerCx<'a> {
    pub lw: &'a Lowerer,
    pub env: Env,
    pub fns: Vec<FnCtx>,
}

fn err_at<T>(span: Span, msg: impl Into<String>) -> Result<T> {
    Err(RuntimeError::at(span, msg))
}

impl<'a> LowerCx<'a> {
    pub fn new(lw: &'a Lowerer, env: Env) -> LowerCx<'a> {
        LowerCx {
            lw,
            env,
            fns: Vec::new(),
        }
    }

    fn top(&mut self) -> &mut FnCtx {
        if self.fns.is_empty() {
            self.fns.push(FnCtx::default());
        }
        let n = self.fns.len() - 1;
        &mut self.fns[n]
    }

    /// Declares a local variable in the current function.
    pub fn bind_local(&mut self, name: &str) -> Slot {
        let ctx = self.top();
        let s = fresh_slot(ctx);
        ctx.locals.push(Local::Var(Name::from(name), s));
        s
    }

    /// Declares the size parameters among `tparams` (bound later by patterns).
    pub fn declare_sizes(&mut self, tparams: &[TypeParam]) {
        for tp in tparams {
            if let TypeParam::Size(n) = tp {
                let s = self.bind_local(&n.name);
                self.top().sizes.insert(s, false);
                self.top().size_names.push((Name::from(n.name.as_str()), s));
            }
        }
    }

    fn scope_mark(&mut self) -> usize {
        self.top().locals.len()
    }

    fn scope_reset(&mut self, mark: usize) {
        self.top().locals.truncate(mark);
    }

    /// Finds an unqualified value name.
    fn find(&self, name: &str) -> Option<Found> {
        for level in (0..self.fns.len()).rev() {
            let ctx = &self.fns[level];
            for l in ctx.locals.iter().rev() {
                match l {
                    Local::Var(n, s) if &**n == name => return Some(Found::Slot(level, *s)),
                    Local::Open(scope) => {
                        if let Some(v) = scope.vals.get(name) {
                            return Some(Found::Const(v.clone()));
                        }
                    }
                    _ => {}
                }
            }
            if ctx.self_name.as_deref() == Some(name) {
                return Some(Found::SelfRef(level));
            }
        }
        self.env.lookup_val(name).map(Found::Const)
    }

    /// The expression for a found name, threading captures through nested functions.
    fn found_exp(&mut self, f: Found) -> Exp {
        let top = self.fns.len().saturating_sub(1);
        match f {
            Found::Const(v) => Exp::Const(v),
            Found::Slot(level, s) if level == top => Exp::Local(s),
            Found::SelfRef(level) if level == top => Exp::SelfRef,
            Found::Slot(level, s) => self.thread(level, CapKey::Local(s)),
            Found::SelfRef(level) => self.thread(level, CapKey::SelfRef),
        }
    }

    fn thread(&mut self, level: usize, first: CapKey) -> Exp {
        let mut key = first;
        let top = self.fns.len() - 1;
        let mut idx = 0;
        for l in level + 1..=top {
            idx = self.fns[l].capture(key);
            key = CapKey::Captured(idx);
        }
        Exp::Captured(idx)
    }

    /// Looks a module up, also among modules opened with `M.(e)`.
    fn find_module(&self, path: &[&str]) -> Option<Module> {
        for ctx in self.fns.iter().rev() {
            for l in ctx.locals.iter().rev() {
                if let Local::Open(scope) = l
                    && let Some(m) = scope.mods.get(path[0])
                {
                    let mut m = m.clone();
                    for p in &path[1..] {
                        m = match m {
                            Module::Struct(s) => s.mods.get(*p)?.clone(),
                            _ => return None,
                        };
                    }
                    return Some(m);
                }
            }
        }
        module_path(&self.env, path)
    }

    /// A possibly qualified variable; trailing components that are not modules are field
    /// projections (`r.x`, `M.r.x`).
    pub fn var(&mut self, qn: &QualName) -> Result<Exp> {
        let e = self.var_plain(qn)?;
        Ok(self.with_size_args(e, qn))
    }

    pub(super) fn var_plain(&mut self, qn: &QualName) -> Result<Exp> {
        let mut parts: Vec<&ast::Ident> = qn.quals.iter().collect();
        parts.push(&qn.name);
        // Longest module prefix first.
        for k in (1..parts.len()).rev() {
            let path: Vec<&str> = parts[..k].iter().map(|p| p.name.as_str()).collect();
            // A local variable shadows a module of the same name.
            if matches!(self.find(path[0]), Some(Found::Slot(..))) {
                break;
            }
            if let Some(m) = self.find_module(&path) {
                let member = &parts[k].name;
                let v = match &m {
                    Module::Struct(s) => s.vals.get(member.as_str()).cloned(),
                    Module::Intrinsics => intrinsic_value(member),
                    Module::Functor(_) => None,
                };
                let Some(v) = v else {
                    return err_at(qn.span, format!("Unknown name {}.{member}", path.join(".")));
                };
                let mut e = Exp::Const(v);
                for p in &parts[k + 1..] {
                    e = Exp::Project(Box::new(e), Name::from(p.name.as_str()), p.span);
                }
                return Ok(e);
            }
        }
        let first = parts[0];
        let Some(found) = self.find(&first.name) else {
            return err_at(first.span, format!("Unknown name \"{}\".", first.name));
        };
        let mut e = self.found_exp(found);
        for p in &parts[1..] {
            e = Exp::Project(Box::new(e), Name::from(p.name.as_str()), p.span);
        }
        Ok(e)
    }

    fn literal(&self, l: &ast::Literal, negate: bool, outer: Span) -> Exp {
        let hint = |sp: Span| self.lw.hints.literal_type(&sp);
        let hinted = hint(l.span).or_else(|| hint(outer));
        match &l.kind {
            LitKind::Int {
                value,
                negative,
                suffix,
            } => {
                let mut v = (*value).min(i128::MAX as u128) as i128;
                if *negative != negate {
                    v = v.wrapping_neg();
                }
                let ty = suffix.map(suffix_type).or(hinted);
                int_lit(v, ty)
            }
            LitKind::Char(c) => int_lit(if negate { -(*c as i128) } else { *c as i128 }, hinted),
            LitKind::Float {
                bits,
                text,
                negative,
                suffix,
            } => {
                let mut x = f64::from_bits(*bits);
                if *negative != negate {
                    x = -x;
                }
                let ty = suffix.map(suffix_type).or(hinted);
                match ty {
                    Some(PrimType::F32) => {
                        let mut y = text.parse::<f32>().unwrap_or(x as f32);
                        if x.is_sign_negative() != y.is_sign_negative() {
                            y = -y;
                        }
                        Exp::Const(Value::Prim(Prim::F32(y)))
                    }
                    Some(PrimType::F16) => Exp::Const(Value::Prim(Prim::F16(f16::from_f64(x)))),
                    Some(t) if t.is_float() => Exp::Const(Value::Prim(Prim::F64(x))),
                    Some(t) => Exp::Const(Value::Prim(Prim::from_f64(t, x))),
                    None => Exp::FlexLit(FlexLit::Float(x)),
                }
            }
            LitKind::Bool(b) => Exp::Const(Value::bool(*b)),
        }
    }

    pub fn exp(&mut self, e: &ast::Exp) -> Result<Exp> {
        let span = e.span;
        Ok(match &e.kind {
            ExpKind::Literal(l) => self.literal(l, false, span),
            ExpKind::StringLit(s) => {
                let bytes = s.as_bytes().to_vec();
                let n = bytes.len() as i64;
                Exp::Const(Value::Array(Rc::new(Array::from_buffer(
                    vec![n],
                    futhark_values::Buffer::U8(bytes),
                ))))
            }
            ExpKind::Hole => Exp::Hole(span),
            ExpKind::Var(qn) => self.var(qn)?,
            ExpKind::Constr(c, args) => {
                let mut es = Vec::with_capacity(args.len());
                for a in args {
                    es.push(self.exp(a)?);
                }
                Exp::Constr(Name::from(c.name.as_str()), es)
            }
            ExpKind::Parens(inner) => self.exp(inner)?,
            ExpKind::Tuple(es) => {
                if es.is_empty() {
                    return Ok(Exp::Const(Value::unit()));
                }
                let mut out = Vec::with_capacity(es.len());
                for x in es {
                    out.push(self.exp(x)?);
                }
                Exp::Tuple(out)
            }
            ExpKind::Record(fields) => {
                let mut exps = Vec::with_capacity(fields.len());
                let mut names = Vec::with_capacity(fields.len());
                for f in fields {
                    match f {
                        RecordField::Explicit(n, x) => {
                            names.push(Name::from(n.name.as_str()));
                            exps.push(self.exp(x)?);
                        }
                        RecordField::Pun(n) => {
                            names.push(Name::from(n.name.as_str()));
                            exps.push(self.var(&QualName {
                                quals: Vec::new(),
                                name: n.clone(),
                                span: n.span,
                            })?);
                        }
                    }
                }
                // Later duplicates win, as in record update semantics.
                let mut order: Vec<usize> = (0..names.len()).collect();
                order.sort_by(|&a, &b| field_order(&names[a], &names[b]));
                order.dedup_by(|a, b| names[*a] == names[*b]);
                let sorted: Rc<[Name]> = order.iter().map(|&i| names[i].clone()).collect();
                // `{0 = a, 1 = b}` is the tuple `(a, b)`: share the tuple layout.
                let sorted = if crate::value::is_tuple_layout(&sorted) {
                    tuple_names(sorted.len())
                } else {
                    sorted
                };
                Exp::Record {
                    exps,
                    names: sorted,
                    order,
                }
            }
            ExpKind::ArrayLit(es) => {
                let mut out = Vec::with_capacity(es.len());
                for x in es {
                    out.push(self.exp(x)?);
                }
                let row_type = self.lw.hints.array_row_type(&span).cloned();
                Exp::ArrayLit {
                    elems: out,
                    row_type,
                    span,
                }
            }
            ExpKind::Project(inner, field) => Exp::Project(
                Box::new(self.exp(inner)?),
                Name::from(field.name.as_str()),
                field.span,
            ),
            ExpKind::QualParens(qn, inner) => {
                let m = self.lw.lookup_module(qn, &self.env)?;
                let Module::Struct(scope) = m else {
                    return err_at(qn.span, "Cannot open a parametric module.");
                };
                let mark = self.scope_mark();
                self.top().locals.push(Local::Open(scope));
                let r = self.exp(inner);
                self.scope_reset(mark);
                r?
            }
            ExpKind::Index(arr, idx) => {
                let a = self.exp(arr)?;
                let idx = self.dim_indices(idx)?;
                Exp::Index(Box::new(a), idx, span)
            }
            ExpKind::Apply(f, args) => {
                let fe = self.exp(f)?;
                let mut es = Vec::with_capacity(args.len());
                for a in args {
                    es.push(self.exp(a)?);
                }
                self.empty_rows(apply(fe, es, span), span)
            }
            ExpKind::Negate(inner) => {
                if let ExpKind::Literal(l) = &inner.kind {
                    return Ok(self.literal(l, true, span));
                }
                Exp::Neg(Box::new(self.exp(inner)?), span)
            }
            ExpKind::Not(inner) => Exp::Not(Box::new(self.exp(inner)?), span),
            ExpKind::BinOp {
                op,
                backticked,
                lhs,
                rhs,
            } => {
                if !backticked && op.quals.is_empty() {
                    if op.name.name == "&&" {
                        return Ok(Exp::And(Box::new(self.exp(lhs)?), Box::new(self.exp(rhs)?)));
                    }
                    if op.name.name == "||" {
                        return Ok(Exp::Or(Box::new(self.exp(lhs)?), Box::new(self.exp(rhs)?)));
                    }
                }
                let f = self.var(op)?;
                let l = self.exp(lhs)?;
                let r = self.exp(rhs)?;
                self.empty_rows(apply(f, vec![l, r], span), span)
            }
            ExpKind::OpSection { op, .. } => self.var(op)?,
            ExpKind::LeftSection { op, lhs, .. } => {
                // `(e op)` = `\y -> e op y` with `e` evaluated now.
                let f = self.var(op)?;
                let left = self.exp(lhs)?;
                self.section(f, left, true, span)?
            }
            ExpKind::RightSection { op, rhs, .. } => {
                let f = self.var(op)?;
                let right = self.exp(rhs)?;
                self.section(f, right, false, span)?
            }
            ExpKind::ProjectSection(steps) => {
                self.fns.push(FnCtx::new(None));
                let s = self.bind_local(" x");
                let mut body = Exp::Local(s);
                for st in steps {
                    body = match st {
                        UpdateStep::Field(f) => {
                            Exp::Project(Box::new(body), Name::from(f.name.as_str()), f.span)
                        }
                        UpdateStep::Index(idx, sp) => {
                            let idx = self.dim_indices(idx)?;
                            Exp::Index(Box::new(body), idx, *sp)
                        }
                    };
                }
                let ctx = self.fns.pop().unwrap_or_default();
                Exp::Lambda(Rc::new(make_lambda(
                    None,
                    vec![Pat::Bind(s)],
                    body,
                    ctx,
                    span,
                )))
            }
            ExpKind::Range {
                start,
                second,
                end,
                kind,
            } => Exp::Range {
                start: Box::new(self.exp(start)?),
                second: match second {
                    Some(x) => Some(Box::new(self.exp(x)?)),
                    None => None,
                },
                end: Box::new(self.exp(end)?),
                kind: *kind,
                span,
            },
            ExpKind::Ascript(inner, t) => {
                let x = self.exp(inner)?;
                self.ascribe_literal(x, t)
            }
            ExpKind::Coerce(inner, t) => {
                let x = self.exp(inner)?;
                let x = self.ascribe_literal(x, t);
                let shape = self.shape_pat(t, true)?;
                if shape.is_trivial() {
                    x
                } else {
                    Exp::Coerce(Box::new(x), shape, span)
                }
            }
            ExpKind::If { cond, then, els } => Exp::If(
                Box::new(self.exp(cond)?),
                Box::new(self.exp(then)?),
                Box::new(self.exp(els)?),
            ),
            ExpKind::Let {
                sizes,
                pat,
                value,
                body,
            } => {
                let v = self.exp(value)?;
                let mark = self.scope_mark();
                for s in sizes {
                    let slot = self.bind_local(&s.name);
                    self.top().sizes.insert(slot, false);
                }
                let p = self.pat(pat)?;
                let b = self.exp(body);
                self.scope_reset(mark);
                Exp::Let(p, Box::new(v), Box::new(b?))
            }
            ExpKind::LetFun {
                name,
                tparams,
                params,
                value,
                body,
                ret,
            } => {
                let lam =
                    self.lambda(Some(&name.name), tparams, params, value, ret.as_ref(), span)?;
                let mark = self.scope_mark();
                let s = self.bind_local(&name.name);
                let b = self.exp(body);
                self.scope_reset(mark);
                Exp::Let(Pat::Bind(s), Box::new(lam), Box::new(b?))
            }
            ExpKind::LetWith {
                dest,
                path,
                value,
                body,
            } => {
                let target = self.var(&QualName {
                    quals: Vec::new(),
                    name: dest.clone(),
                    span: dest.span,
                })?;
                let path = self.upd_path(path)?;
                let v = self.exp(value)?;
                let upd = Exp::Update {
                    target: Box::new(target),
                    path,
                    value: Box::new(v),
                    span,
                };
                let mark = self.scope_mark();
                let s = self.bind_local(&dest.name);
                let b = self.exp(body);
                self.scope_reset(mark);
                Exp::Let(Pat::Bind(s), Box::new(upd), Box::new(b?))
            }
            ExpKind::Update {
                target,
                path,
                value,
            } => Exp::Update {
                target: Box::new(self.exp(target)?),
                path: self.upd_path(path)?,
                value: Box::new(self.exp(value)?),
                span,
            },
            ExpKind::Loop {
                pat,
                init,
                form,
                body,
            } => self.loop_exp(pat, init.as_deref(), form, body, span)?,
            ExpKind::Match { scrutinee, cases } => {
                let s = self.exp(scrutinee)?;
                let mut out = Vec::with_capacity(cases.len());
                for c in cases {
                    let mark = self.scope_mark();
                    let p = self.pat(&c.pat);
                    let b = p.and_then(|p| Ok((p, self.exp(&c.body)?)));
                    self.scope_reset(mark);
                    out.push(b?);
                }
                Exp::Match(Box::new(s), out, span)
            }
            ExpKind::Lambda { params, ret, body } => {
                self.lambda(None, &[], params, body, ret.as_ref(), span)?
            }
            ExpKind::Assert { cond, body } => {
                let text = self.lw.sources.borrow().text(cond.span).unwrap_or_default();
                let text = text
                    .strip_prefix('(')
                    .and_then(|t| t.strip_suffix(')'))
                    .unwrap_or(&text)
                    .to_string();
                Exp::Assert {
                    cond: Box::new(self.exp(cond)?),
                    body: Box::new(self.exp(body)?),
                    text,
                    span,
                }
            }
            ExpKind::Attr(attr, inner) => {
                let x = self.exp(inner)?;
                match &attr.kind {
                    AttrKind::Name(n) if n == "trace" => Exp::Trace(Box::new(x), None, span),
                    AttrKind::Call(n, args) if n == "trace" => {
                        let tag = args.first().map(|a| match &a.kind {
                            AttrKind::Name(t) => t.clone(),
                            AttrKind::Int(i) => i.to_string(),
                            AttrKind::Call(t, _) => t.clone(),
                        });
                        Exp::Trace(Box::new(x), tag, span)
                    }
                    _ => x,
                }
            }
            ExpKind::Error => return err_at(span, "Cannot evaluate a syntax error."),
        })
    }

    /// `(e op)` or `(op e)`: evaluates `e` now into a local the lambda captures.
    fn section(&mut self, f: Exp, operand: Exp, left: bool, span: Span) -> Result<Exp> {
        let mark = self.scope_mark();
        let tmp = self.bind_local(" sec");
        self.fns.push(FnCtx::new(None));
        let p = self.bind_local(" arg");
        let captured = self.var(&QualName {
            quals: Vec::new(),
            name: ast::Ident {
                name: " sec".to_string(),
                span,
            },
            span,
        })?;
        let args = if left {
            vec![captured, Exp::Local(p)]
        } else {
            vec![Exp::Local(p), captured]
        };
        let body = apply(f, args, span);
        let ctx = self.fns.pop().unwrap_or_default();
        self.scope_reset(mark);
        let lam = Exp::Lambda(Rc::new(make_lambda(
            None,
            vec![Pat::Bind(p)],
            body,
            ctx,
            span,
        )));
        Ok(Exp::Let(Pat::Bind(tmp), Box::new(operand), Box::new(lam)))
    }

    /// Lowers a lambda or local function.
    fn lambda(
        &mut self,
        name: Option<&str>,
        tparams: &[TypeParam],
        params: &[ast::Pat],
        body: &ast::Exp,
        ret: Option<&ast::TypeExp>,
        span: Span,
    ) -> Result<Exp> {
        self.fns.push(FnCtx::new(None));
        let r = (|| {
            self.declare_sizes(tparams);
            let mut ps = Vec::with_capacity(params.len());
            for p in params {
                ps.push(self.pat(p)?);
            }
            let b = self.exp(body)?;
            let b = match ret {
                Some(t) => self.ascribe_literal(b, t),
                None => b,
            };
            Ok((ps, b))
        })();
        let ctx = self.fns.pop().unwrap_or_default();
        let (ps, b) = r?;
        Ok(Exp::Lambda(Rc::new(make_lambda(
            name.map(Name::from),
            ps,
            b,
            ctx,
            span,
        ))))
    }

    fn loop_exp(
        &mut self,
        pat: &ast::Pat,
        init: Option<&ast::Exp>,
        form: &AstLoopForm,
        body: &ast::Exp,
        span: Span,
    ) -> Result<Exp> {
        let init = match init {
            Some(e) => self.exp(e)?,
            None => {
                let e = pat_as_exp(pat);
                self.exp(&e)?
            }
        };
        let pre = match form {
            AstLoopForm::For { bound, .. } => Some(self.exp(bound)?),
            AstLoopForm::ForIn { array, .. } => Some(self.exp(array)?),
            AstLoopForm::While(_) => None,
        };
        let mark = self.scope_mark();
        let r = (|| {
            let p = self.pat(pat)?;
            let form = match (form, pre) {
                (AstLoopForm::For { var, .. }, Some(b)) => {
                    let s = self.bind_local(&var.name);
                    LoopForm::For(s, b)
                }
                (AstLoopForm::ForIn { pat: xp, .. }, Some(a)) => LoopForm::ForIn(self.pat(xp)?, a),
                (AstLoopForm::While(c), _) => LoopForm::While(self.exp(c)?),
                _ => return err_at(span, "malformed loop"),
            };
            let b = self.exp(body)?;
            Ok((p, form, b))
        })();
        self.scope_reset(mark);
        let (pat, form, body) = r?;
        Ok(Exp::Loop(Box::new(Loop {
            pat,
            init,
            form,
            body,
            span,
        })))
    }

    pub fn dim_indices(&mut self, idx: &[DimIndex]) -> Result<Vec<IdxExp>> {
        let mut out = Vec::with_capacity(idx.len());
        for d in idx {
            out.push(match d {
                DimIndex::Fix(e) => IdxExp::Fix(self.exp(e)?),
                DimIndex::Slice {
                    start, end, stride, ..
                } => {
                    let mut opt = |e: &Option<ast::Exp>| -> Result<Option<Exp>> {
                        match e {
                            Some(e) => Ok(Some(self.exp(e)?)),
                            None => Ok(None),
                        }
                    };
                    let a = opt(start)?;
                    let b = opt(end)?;
                    let c = opt(stride)?;
                    IdxExp::Slice(a, b, c)
                }
            });
        }
        Ok(out)
    }

    fn upd_path(&mut self, path: &[UpdateStep]) -> Result<Vec<UpdStep>> {
        let mut out = Vec::with_capacity(path.len());
        for s in path {
            out.push(match s {
                UpdateStep::Field(f) => UpdStep::Field(Name::from(f.name.as_str())),
                UpdateStep::Index(idx, sp) => UpdStep::Index(self.dim_indices(idx)?, *sp),
            });
        }
        Ok(out)
    }

    /// Gives an untyped literal the type of an ascription, and an empty array literal its
    /// row type.
    pub fn ascribe_literal(&mut self, e: Exp, t: &ast::TypeExp) -> Exp {
        match e {
            e @ (Exp::FlexLit(_)
            | Exp::BinOp(..)
            | Exp::Neg(..)
            | Exp::PrimCall(..)
            | Exp::If(..)
            | Exp::Let(..)
            | Exp::Match(..)) => match self.prim_of(t) {
                Some(p) => retype(e, p),
                None => e,
            },
            Exp::ArrayLit {
                elems,
                row_type: None,
                span,
            } => {
                let row_type = match self.type_desc(t) {
                    Some(crate::value::TypeDesc::Array(dims, elem)) => Some(if dims.len() > 1 {
                        crate::value::TypeDesc::Array(dims[1..].to_vec(), elem)
                    } else {
                        *elem
                    }),
                    _ => None,
                };
                let elems = match row_type.as_ref().and_then(|r| match r {
                    crate::value::TypeDesc::Prim(p) => Some(*p),
                    _ => None,
                }) {
                    Some(p) => elems
                        .into_iter()
                        .map(|x| match x {
                            Exp::FlexLit(l) => Exp::Const(Value::Prim(l.at(Some(p)))),
                            x => x,
                        })
                        .collect(),
                    None => elems,
                };
                Exp::ArrayLit {
                    elems,
                    row_type,
                    span,
                }
            }
            e => e,
        }
    }
}

/// Gives untyped literals in the result positions of `e` the type `ty` (used where the
/// checker's literal types are unavailable and an ascription says what the type is).
fn retype(e: Exp, ty: PrimType) -> Exp {
    match e {
        Exp::FlexLit(l) => Exp::Const(Value::Prim(l.at(Some(ty)))),
        Exp::BinOp(op, a, b, sp) if !is_comparison(op) => {
            Exp::BinOp(op, Box::new(retype(*a, ty)), Box::new(retype(*b, ty)), sp)
        }
        Exp::Neg(x, sp) => Exp::Neg(Box::new(retype(*x, ty)), sp),
        Exp::PrimCall(pf, args, sp) if same_type_result(pf) => {
            Exp::PrimCall(pf, args.into_iter().map(|a| retype(a, ty)).collect(), sp)
        }
        Exp::If(c, t, f) => Exp::If(c, Box::new(retype(*t, ty)), Box::new(retype(*f, ty))),
        Exp::Let(p, v, b) => Exp::Let(p, v, Box::new(retype(*b, ty))),
        Exp::Match(s, cases, sp) => Exp::Match(
            s,
            cases.into_iter().map(|(p, b)| (p, retype(b, ty))).collect(),
            sp,
        ),
        e => e,
    }
}

fn same_type_result(pf: crate::prim_fns::PrimFn) -> bool {
    use crate::prim_fns::PrimFn as P;
    use crate::prim_ops::IntUn;
    match pf {
        P::IntBin(_) | P::IntBinSafe(_) | P::FloatBin(_) | P::FloatTern(_) | P::MadHi(_) => true,
        P::IntUn(u) => !matches!(u, IntUn::Clz | IntUn::Ctz | IntUn::Popc),
        P::FloatUn(u) => !matches!(
            u,
            crate::prim_ops::FloatUn::IsInf | crate::prim_ops::FloatUn::IsNan
        ),
        _ => false,
    }
}

fn is_comparison(op: crate::prim_ops::OvOp) -> bool {
    use crate::prim_ops::OvOp as O;
    matches!(
        op,
        O::Eq | O::Neq | O::Lt | O::Le | O::Gt | O::Ge | O::LogAnd | O::LogOr
    )
}

fn suffix_type(s: ast::NumSuffix) -> PrimType {
    use ast::NumSuffix as S;
    match s {
        S::I8 => PrimType::I8,
        S::I16 => PrimType::I16,
        S::I32 => PrimType::I32,
        S::I64 => PrimType::I64,
        S::U8 => PrimType::U8,
        S::U16 => PrimType::U16,
        S::U32 => PrimType::U32,
        S::U64 => PrimType::U64,
        S::F16 => PrimType::F16,
        S::F32 => PrimType::F32,
        S::F64 => PrimType::F64,
    }
}

fn int_lit(v: i128, ty: Option<PrimType>) -> Exp {
    match ty {
        Some(t) => Exp::Const(Value::Prim(FlexLit::Int(v).at(Some(t)))),
        None => Exp::FlexLit(FlexLit::Int(v)),
    }
}

/// The expression a loop pattern stands for when the loop has no initialiser.
fn pat_as_exp(p: &ast::Pat) -> ast::Exp {
    let kind = match &p.kind {
        ast::PatKind::Id(n) => ExpKind::Var(QualName {
            quals: Vec::new(),
            name: n.clone(),
            span: n.span,
        }),
        ast::PatKind::Parens(inner)
        | ast::PatKind::Ascript(inner, _)
        | ast::PatKind::Attr(_, inner) => {
            return pat_as_exp(inner);
        }
        ast::PatKind::Tuple(ps) => ExpKind::Tuple(ps.iter().map(pat_as_exp).collect()),
        ast::PatKind::Record(fs) => ExpKind::Record(
            fs.iter()
                .map(|(n, p)| RecordField::Explicit(n.clone(), pat_as_exp(p)))
                .collect(),
        ),
        _ => ExpKind::Error,
    };
    ast::Exp { kind, span: p.span }
}
