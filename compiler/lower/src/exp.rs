//! Lowering expressions: the dispatcher over the AST, and the simple forms (literals,
//! names, records, tuples, arrays, constructors, operators, `let`, lambdas, assertions).
//! Control flow is in `control.rs`, indexing and ranges in `index.rs`, application in
//! `apply.rs`.

use std::rc::Rc;

use futhark_ir::soacs::{Exp as IExp, Pat, SubExp, Type};
use futhark_ir::types::{PrimType, PrimValue, f32_to_f16_bits};
use futhark_syntax::Span;
use futhark_syntax::ast::{Exp, ExpKind, LitKind, Literal, QualName, RecordField};

use crate::error::{LResult, LowerError};
use crate::modenv::{Binding, Found, member_mod, member_val};
use crate::state::{Lowerer, int_const};
use crate::types::{layout_of, vty_of};
use crate::value::{Closure, Ctx, Inst, Value};

/// How deep expressions may nest before lowering gives up (instead of overflowing).
const MAX_DEPTH: usize = 400;

impl<'a> Lowerer<'a> {
    /// Lowers an expression, emitting statements into the current block.
    pub fn exp(&mut self, e: &'a Exp, ctx: &Ctx<'a>) -> LResult<Value<'a>> {
        self.inline_depth += 1;
        let r = if self.inline_depth > MAX_DEPTH {
            Err(LowerError::unsupported(
                Some(e.span),
                "expressions nested this deeply (or unbounded inlining of recursion)",
            ))
        } else {
            self.exp_inner(e, ctx)
        };
        self.inline_depth -= 1;
        r.map_err(|err| err.at(e.span))
    }

    fn exp_inner(&mut self, e: &'a Exp, ctx: &Ctx<'a>) -> LResult<Value<'a>> {
        let span = e.span;
        match &e.kind {
            ExpKind::Literal(lit) => {
                let v = self.literal(lit, None)?;
                Ok(Value::prim(SubExp::Const(v), v.ty()))
            }
            ExpKind::StringLit(s) => {
                let elems = s.bytes().map(|b| SubExp::Const(PrimValue::U8(b))).collect();
                Ok(self.array_lit(elems, Type::Prim(PrimType::U8)))
            }
            ExpKind::Hole => self.hole(span, ctx),
            ExpKind::Var(qn) => self.var(qn, ctx),
            ExpKind::Constr(name, args) => {
                let vals = args
                    .iter()
                    .map(|a| self.exp(a, ctx))
                    .collect::<LResult<Vec<_>>>()?;
                self.constr(&name.name, vals, span, ctx)
            }
            ExpKind::Parens(inner) | ExpKind::Ascript(inner, _) | ExpKind::Attr(_, inner) => {
                self.exp(inner, ctx)
            }
            ExpKind::Tuple(es) => {
                let vs = es
                    .iter()
                    .map(|x| self.exp(x, ctx))
                    .collect::<LResult<Vec<_>>>()?;
                Ok(Value::tuple(vs))
            }
            ExpKind::Record(fields) => {
                let mut out = Vec::new();
                for f in fields {
                    match f {
                        RecordField::Explicit(name, x) => {
                            out.push((name.name.clone(), self.exp(x, ctx)?));
                        }
                        RecordField::Pun(name) => {
                            let v = self.name_value(&name.name, name.span, ctx)?;
                            out.push((name.name.clone(), v));
                        }
                    }
                }
                Ok(Value::record(out))
            }
            ExpKind::ArrayLit(es) => self.array_literal(es, span, ctx),
            ExpKind::Project(x, field) => {
                let v = self.exp(x, ctx)?;
                project(v, &field.name, span)
            }
            ExpKind::QualParens(qn, inner) => {
                let mut quals = qn.quals.clone();
                quals.push(qn.name.clone());
                let m = ctx.env.module_path(&quals).ok_or_else(|| {
                    LowerError::internal(Some(qn.span), "unknown module in `M.(e)`")
                })?;
                let scope = match m {
                    crate::modenv::Module::Struct(s) => (*s).clone(),
                    _ => return Err(LowerError::internal(Some(qn.span), "not a module")),
                };
                // What the module defines shadows the locals of the same names.
                let mut locals = ctx.locals.clone();
                for n in scope.vals.keys().chain(scope.mods.keys()) {
                    if locals.get(n).is_some() {
                        locals = locals.hide(n);
                    }
                }
                let inner_ctx = Ctx {
                    env: ctx.env.with_layer(scope),
                    locals,
                    ..ctx.clone()
                };
                self.exp(inner, &inner_ctx)
            }
            ExpKind::Index(arr, idxs) => {
                let v = self.exp(arr, ctx)?;
                self.index_value(v, idxs, span, ctx)
            }
            ExpKind::Apply(f, args) => {
                let fv = self.exp(f, ctx)?;
                let mut vals = Vec::new();
                for a in args {
                    vals.push(self.exp(a, ctx)?);
                }
                let r = self.apply_value(fv, vals, span)?;
                if let Some(t) = self.info(span)?.exp_types.get(&span) {
                    let mut found = Vec::new();
                    crate::apply::size_vars_in_type(t, &r, 0, &mut found);
                    for (vn, d) in found {
                        self.size_ids.insert(vn.id, d);
                    }
                }
                Ok(r)
            }
            ExpKind::Negate(x) => {
                let v = self.exp(x, ctx)?;
                self.overloaded("neg", vec![v], span)
            }
            ExpKind::Not(x) => {
                let v = self.exp(x, ctx)?;
                self.overloaded("!", vec![v], span)
            }
            ExpKind::BinOp { op, lhs, rhs, .. } => {
                let f = self.var(op, ctx)?;
                if let Value::Fun(c) = &f
                    && let Closure::Op(o, _) = c.as_ref()
                    && (o == "&&" || o == "||")
                {
                    return self.short_circuit(o == "&&", lhs, rhs, ctx);
                }
                let l = self.exp(lhs, ctx)?;
                let r = self.exp(rhs, ctx)?;
                self.apply_value(f, vec![l, r], span)
            }
            ExpKind::OpSection { op, .. } => Ok(section_op(self.var(op, ctx)?, span)),
            ExpKind::LeftSection { op, lhs, .. } => {
                let f = section_op(self.var(op, ctx)?, span);
                let l = self.exp(lhs, ctx)?;
                self.apply_value(f, vec![l], span)
            }
            ExpKind::RightSection { op, rhs, .. } => {
                let f = section_op(self.var(op, ctx)?, span);
                let r = self.exp(rhs, ctx)?;
                match f {
                    Value::Fun(c) => Ok(Value::Fun(Rc::new(Closure::RightSection(c, r)))),
                    _ => Err(LowerError::internal(
                        Some(span),
                        "section of a non-function",
                    )),
                }
            }
            ExpKind::ProjectSection(steps) => {
                Ok(Value::Fun(Rc::new(Closure::Project(steps, ctx.clone()))))
            }
            ExpKind::Range {
                start,
                second,
                end,
                kind,
            } => self.range(start, second.as_deref(), end, *kind, ctx),
            ExpKind::Coerce(x, te) => {
                let v = self.exp(x, ctx)?;
                self.located(span, |this| this.coerce_to_typeexp(v, te, ctx))
            }
            ExpKind::If { cond, then, els } => {
                let c = self.exp(cond, ctx)?;
                let c = atom(&c, span)?;
                self.if_value(
                    c,
                    |this| this.exp(then, ctx),
                    |this| this.exp(els, ctx),
                    span,
                )
            }
            ExpKind::Let {
                sizes,
                pat,
                value,
                body,
            } => {
                let v = self.exp(value, ctx)?;
                let mut inner = self.bind_pat(pat, v.clone(), ctx.clone())?;
                if !sizes.is_empty() {
                    let names: Vec<&str> = sizes.iter().map(|s| s.name.as_str()).collect();
                    inner = self.bind_sizes(&[pat], &[v], &names, inner)?;
                }
                self.exp(body, &inner)
            }
            ExpKind::LetFun {
                name,
                tparams,
                params,
                value,
                body,
                ..
            } => {
                let size_params = tparams
                    .iter()
                    .filter_map(|t| match t {
                        futhark_syntax::ast::TypeParam::Size(n) => Some(n.name.as_str()),
                        _ => None,
                    })
                    .collect();
                let clo = Closure::Lambda {
                    params,
                    body: value,
                    ctx: ctx.clone(),
                    size_params,
                };
                let inner = ctx.bind(&name.name, Value::Fun(Rc::new(clo)));
                self.exp(body, &inner)
            }
            ExpKind::LetWith {
                dest,
                path,
                value,
                body,
            } => {
                let target = self.name_value(&dest.name, dest.span, ctx)?;
                let v = self.exp(value, ctx)?;
                let updated = self.located(span, |this| this.update_value(target, path, v, ctx))?;
                let inner = ctx.bind(&dest.name, updated);
                self.exp(body, &inner)
            }
            ExpKind::Update {
                target,
                path,
                value,
            } => {
                // The value is evaluated before the target (which it may read).
                let v = self.exp(value, ctx)?;
                let t = self.exp(target, ctx)?;
                self.located(span, |this| this.update_value(t, path, v, ctx))
            }
            ExpKind::Loop {
                pat,
                init,
                form,
                body,
            } => self.loop_value(pat, init.as_deref(), form, body, ctx, span),
            ExpKind::Match { scrutinee, cases } => {
                let v = self.exp(scrutinee, ctx)?;
                self.match_value(v, cases, ctx, span)
            }
            ExpKind::Lambda { params, body, .. } => Ok(Value::Fun(Rc::new(Closure::Lambda {
                params,
                body,
                ctx: ctx.clone(),
                size_params: Vec::new(),
            }))),
            ExpKind::Assert { cond, body } => {
                let c = self.exp(cond, ctx)?;
                let c = atom(&c, span)?;
                // As the interpreter says it: the condition's text, without its parentheses.
                let text = self.source_text(cond.span).trim();
                let text = text
                    .strip_prefix('(')
                    .and_then(|t| t.strip_suffix(')'))
                    .unwrap_or(text);
                let msg =
                    futhark_ir::soacs::message::escape(&format!("Assertion is false: {text}"));
                self.located(span, |this| {
                    this.emit(
                        Pat::default(),
                        IExp::Assert {
                            cond: c,
                            msg,
                            args: Vec::new(),
                        },
                    )
                });
                self.exp(body, ctx)
            }
            ExpKind::Error => Err(LowerError::internal(Some(span), "erroneous expression")),
        }
    }

    /// A hole (`???`): fails at run time as the interpreter does (`Reached a hole at …`),
    /// then stands for a blank value of its type (zeros, empty arrays), which the failure
    /// keeps from being used.
    fn hole(&mut self, span: Span, ctx: &Ctx<'a>) -> LResult<Value<'a>> {
        let Some(t) = self.info(span)?.exp_types.get(&span) else {
            return Err(LowerError::internal(Some(span), "a hole without a type"));
        };
        if t.contains_fun() {
            return Err(LowerError::unsupported(
                Some(span),
                "holes (`???`) of function type",
            ));
        }
        let vt = vty_of(t, &ctx.tsubst, span)?;
        let msg = format!("Reached a hole at {}.", self.location(span)).replace(['{', '}'], "");
        self.located(span, |this| {
            this.emit(
                Pat::default(),
                IExp::Assert {
                    cond: SubExp::bool(false),
                    msg,
                    args: Vec::new(),
                },
            )
        });
        Ok(self.blank(&vt, &[]))
    }

    /// `path:line:col-col` (or `path:line:col-line:col`) of a span, as the interpreter
    /// writes locations.
    pub fn location(&self, span: Span) -> String {
        let Some(f) = self.files.get(&span.file) else {
            return String::new();
        };
        let lines = self
            .lines
            .borrow_mut()
            .entry(span.file)
            .or_insert_with(|| Rc::new(futhark_syntax::LineIndex::new(f.source)))
            .clone();
        let (l0, c0) = lines.line_col(span.start);
        let (l1, c1) = lines.line_col(span.end.max(span.start + 1) - 1);
        if l0 == l1 {
            format!("{}:{l0}:{c0}-{c1}", f.path)
        } else {
            format!("{}:{l0}:{c0}-{l1}:{c1}", f.path)
        }
    }

    /// The source text of a span (empty when the file's text is not at hand).
    pub fn source_text(&self, span: Span) -> &'a str {
        self.files
            .get(&span.file)
            .and_then(|f| f.source.get(span.start as usize..span.end as usize))
            .unwrap_or("")
    }

    /// The value of a literal, typed as the checker decided (or as `want` for patterns).
    pub fn literal(&self, lit: &Literal, want: Option<PrimType>) -> LResult<PrimValue> {
        let info = self.info(lit.span)?;
        let ty = want.or_else(|| info.literal_types.get(&lit.span).copied());
        Ok(match &lit.kind {
            LitKind::Bool(b) => PrimValue::Bool(*b),
            LitKind::Char(c) => int_const(ty.unwrap_or(PrimType::I32), *c as i128),
            LitKind::Int {
                value,
                negative,
                suffix,
            } => {
                let t = ty
                    .or(suffix.map(|s| s.prim_type()))
                    .unwrap_or(PrimType::I32);
                let x = *value as i128;
                let x = if *negative { x.wrapping_neg() } else { x };
                if t.is_float() {
                    float_const(t, x as f64, None)
                } else {
                    int_const(t, x)
                }
            }
            LitKind::Float {
                bits,
                text,
                negative,
                suffix,
            } => {
                let t = ty
                    .or(suffix.map(|s| s.prim_type()))
                    .unwrap_or(PrimType::F64);
                let x = f64::from_bits(*bits);
                let (x, text) = if *negative {
                    (-x, format!("-{text}"))
                } else {
                    (x, text.clone())
                };
                float_const(t, x, Some(&text))
            }
        })
    }

    /// The value of a name (local, module-level, or qualified), with field projections
    /// for a path like `r.a.b` whose head is a value.
    pub fn var(&mut self, qn: &'a QualName, ctx: &Ctx<'a>) -> LResult<Value<'a>> {
        let span = qn.span;
        if qn.quals.is_empty() {
            return self.name_value(&qn.name.name, span, ctx);
        }
        let mut steps = qn.quals.iter().chain(std::iter::once(&qn.name));
        let Some(first) = steps.next() else {
            return Err(LowerError::internal(Some(span), "empty name"));
        };
        let mut module = None;
        let mut value = None;
        if ctx.locals.get(&first.name).is_some() {
            value = Some(self.name_value(&first.name, span, ctx)?);
        } else {
            match ctx.env.lookup(&first.name) {
                Some(Found::Mod(m)) => module = Some(m),
                Some(Found::Val(b)) => value = Some(self.binding_value(b, span, ctx)?),
                None => {
                    return Err(LowerError::internal(
                        Some(span),
                        format!("unknown name `{}`", first.name),
                    ));
                }
            }
        }
        for step in steps {
            if let Some(v) = value {
                value = Some(project(v, &step.name, span)?);
                continue;
            }
            let Some(m) = module.take() else {
                return Err(LowerError::internal(Some(span), "bad qualified name"));
            };
            if let Some(sub) = member_mod(&m, &step.name) {
                module = Some(sub);
            } else if let Some(b) = member_val(&m, &step.name) {
                value = Some(self.binding_value(b, span, ctx)?);
            } else {
                return Err(LowerError::internal(
                    Some(span),
                    format!("unknown member `{}`", step.name),
                ));
            }
        }
        value.ok_or_else(|| LowerError::internal(Some(span), "a module used as a value"))
    }

    /// An unqualified name: a local, or a module-level binding.
    pub fn name_value(&mut self, name: &str, span: Span, ctx: &Ctx<'a>) -> LResult<Value<'a>> {
        if let Some(v) = ctx.locals.get(name) {
            return Ok(v.clone());
        }
        match ctx.env.lookup(name) {
            Some(Found::Val(b)) => self.binding_value(b, span, ctx),
            _ if ctx.locals.get(&format!("%unbound:{name}")).is_some() => {
                Err(LowerError::unsupported(
                    Some(span),
                    format!(
                        "the size parameter `{name}`, which no argument's shape determines here"
                    ),
                ))
            }
            _ => Err(LowerError::internal(
                Some(span),
                format!("unknown name `{name}`"),
            )),
        }
    }

    /// A module-level binding as a value: constants are lowered (inlined) where used.
    fn binding_value(&mut self, b: Binding<'a>, span: Span, ctx: &Ctx<'a>) -> LResult<Value<'a>> {
        match b {
            Binding::Def(def) => {
                // The use's type gives what the arguments may not: size parameters, and
                // type parameters only a function argument's result or the result names.
                let polymorphic = !def.vb.tparams.is_empty();
                let inst = match self.info(span)?.exp_types.get(&span) {
                    Some(ty) if polymorphic => Some(Rc::new(Inst {
                        ty,
                        ctx: ctx.clone(),
                    })),
                    _ => None,
                };
                if def.vb.params.is_empty() {
                    // A constant, possibly with size and type parameters given by its use's
                    // type.
                    let extra = self.call_sizes(&def, inst.as_deref(), &[], span)?;
                    let types = self.call_types(&def, inst.as_deref(), span)?;
                    return self.inline_def(&def, Vec::new(), extra, types, span);
                }
                Ok(Value::Fun(Rc::new(Closure::Def(def, inst))))
            }
            Binding::Intrinsic(n) => Ok(Value::Fun(Rc::new(Closure::Intrinsic(n)))),
            Binding::Op(o) => Ok(Value::Fun(Rc::new(Closure::Op(o, None)))),
        }
    }

    /// `#c payload…`, laid out by the constructor's type.
    fn constr(
        &mut self,
        name: &str,
        payload: Vec<Value<'a>>,
        span: Span,
        ctx: &Ctx<'a>,
    ) -> LResult<Value<'a>> {
        let info = self.info(span)?;
        let t = info
            .exp_types
            .get(&span)
            .ok_or_else(|| LowerError::internal(Some(span), "constructor without a type"))?;
        let futhark_check::Type::Sum(cs) = t else {
            return Err(LowerError::unsupported(
                Some(span),
                "a constructor whose sum type is not known here",
            ));
        };
        let layout = Rc::new(layout_of(cs, &ctx.tsubst, span)?);
        let Some(k) = layout.index(name) else {
            return Err(LowerError::internal(Some(span), "unknown constructor"));
        };
        let tag = Value::prim(SubExp::Const(PrimValue::I8(k as i8)), PrimType::I8);
        let mut payloads = Vec::new();
        let mut given = Some(payload);
        for (i, (_, ts)) in layout.ctors.iter().enumerate() {
            if i == k {
                payloads.push(given.take().unwrap_or_default());
            } else {
                payloads.push(ts.iter().map(|t| self.blank(t, &[])).collect());
            }
        }
        Ok(Value::Sum(layout, Box::new(tag), payloads))
    }

    /// `[a, b, …]`: one array literal per leaf (structure of arrays).
    fn array_literal(&mut self, es: &'a [Exp], span: Span, ctx: &Ctx<'a>) -> LResult<Value<'a>> {
        if es.is_empty() {
            let info = self.info(span)?;
            let row = info
                .empty_array_rows
                .get(&span)
                .ok_or_else(|| LowerError::internal(Some(span), "empty array without a type"))?;
            let vt = vty_of(row, &ctx.tsubst, span)?;
            return Ok(self.blank(&vt, &[SubExp::i64(0)]));
        }
        let vals = es
            .iter()
            .map(|x| self.exp(x, ctx))
            .collect::<LResult<Vec<_>>>()?;
        let first = vals[0].clone();
        let per_elem: Vec<Vec<(SubExp, Type)>> = vals.iter().map(Value::leaves).collect();
        let n = first.leaves().len();
        if per_elem.iter().any(|l| l.len() != n) {
            return Err(LowerError::internal(
                Some(span),
                "array elements of different shapes",
            ));
        }
        let mut out = Vec::new();
        for i in 0..n {
            let row_t = per_elem[0][i].1.clone();
            let mut elems = Vec::new();
            for leaves in &per_elem {
                let (s, t) = leaves[i].clone();
                elems.push(self.coerce_atom(s, &t, &row_t)?);
            }
            match self.array_lit(elems, row_t) {
                Value::Atom(s, t) => out.push((s, t)),
                _ => return Err(LowerError::internal(Some(span), "array literal")),
            }
        }
        first
            .rebuild(&mut out.into_iter())
            .ok_or_else(|| LowerError::internal(Some(span), "array literal structure"))
    }

    pub fn array_lit(&mut self, elems: Vec<SubExp>, row: Type) -> Value<'a> {
        let ty = row.array_of(SubExp::i64(elems.len() as i64));
        let s = self.bind("arr", ty.clone(), IExp::ArrayLit(elems, row));
        Value::Atom(s, ty)
    }

    /// `a && b` / `a || b`, evaluating `b` only when needed.
    fn short_circuit(
        &mut self,
        and: bool,
        lhs: &'a Exp,
        rhs: &'a Exp,
        ctx: &Ctx<'a>,
    ) -> LResult<Value<'a>> {
        let l = self.exp(lhs, ctx)?;
        let l = atom(&l, lhs.span)?;
        let other = Value::prim(SubExp::bool(!and), PrimType::Bool);
        if and {
            self.if_value(l, |this| this.exp(rhs, ctx), |_| Ok(other), rhs.span)
        } else {
            self.if_value(l, |_| Ok(other), |this| this.exp(rhs, ctx), rhs.span)
        }
    }
}

/// The IR constant of float type `t` for `x` (from the literal's text where it is exact).
fn float_const(t: PrimType, x: f64, text: Option<&str>) -> PrimValue {
    match t {
        PrimType::F32 => {
            let v = text.and_then(|s| s.parse::<f32>().ok()).unwrap_or(x as f32);
            PrimValue::F32(v)
        }
        PrimType::F16 => PrimValue::F16(f32_to_f16_bits(x as f32)),
        PrimType::F64 => PrimValue::F64(x),
        t => int_const(t, x as i128),
    }
}

/// A field of a record value.
pub fn project<'a>(v: Value<'a>, field: &str, span: Span) -> LResult<Value<'a>> {
    v.field(field).cloned().ok_or_else(|| {
        LowerError::internal(Some(span), format!("no field `{field}` in this value"))
    })
}

/// The single atom of a scalar value.
pub fn atom(v: &Value<'_>, span: Span) -> LResult<SubExp> {
    match v {
        Value::Atom(s, _) => Ok(s.clone()),
        _ => Err(LowerError::internal(Some(span), "expected a scalar")),
    }
}

/// A built-in operator written as a section fails at the section, as in the interpreter.
fn section_op(f: Value<'_>, span: Span) -> Value<'_> {
    match &f {
        Value::Fun(c) => match c.as_ref() {
            Closure::Op(o, None) => Value::Fun(Rc::new(Closure::Op(o.clone(), Some(span)))),
            _ => f,
        },
        _ => f,
    }
}
