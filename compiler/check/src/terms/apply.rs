//! Function application: matching arguments against parameter types, substituting named
//! parameters into dependent result types, instantiating existential result sizes as fresh
//! unknown sizes, binary operators, and the restrictions on recursive calls.

use futhark_syntax::Span;
use futhark_syntax::ast::{Exp, ExpKind, QualName};

use crate::checker::{Checker, qual_string};
use crate::terms::exp_summary;
use crate::types::{RetType, Size, Type};
use crate::unify::UnknownSource;

/// Information about the top-level function being defined, for checking recursive calls.
#[derive(Clone, Debug)]
pub struct RecInfo {
    pub vname: crate::types::VName,
    pub name: String,
    /// For each parameter: its name if it is a plain variable, and whether it is a function.
    pub params: Vec<(Option<crate::types::VName>, bool)>,
}

fn strip(e: &Exp) -> &Exp {
    match &e.kind {
        ExpKind::Parens(x) | ExpKind::Attr(_, x) => strip(x),
        _ => e,
    }
}

/// True for arguments whose checking benefits from knowing the expected type first.
fn is_function_arg(e: &Exp) -> bool {
    matches!(
        strip(e).kind,
        ExpKind::Lambda { .. }
            | ExpKind::OpSection { .. }
            | ExpKind::LeftSection { .. }
            | ExpKind::RightSection { .. }
            | ExpKind::ProjectSection(_)
    )
}

impl Checker<'_> {
    pub fn check_apply(&mut self, e: &Exp, f: &Exp, args: &[Exp]) -> Type {
        self.in_apply_head = matches!(strip(f).kind, ExpKind::Var(_));
        let ft = self.check_exp(f);
        self.in_apply_head = false;
        let fname = match &strip(f).kind {
            ExpKind::Var(qn) => Some(qual_string(qn)),
            _ => None,
        };

        // Check non-function arguments first and relate them to their parameters, so that
        // lambdas see the types of their parameters (`map (\r -> r.x) rs`).
        let mut arg_types: Vec<Option<Type>> = vec![None; args.len()];
        let any_fun = args.iter().any(is_function_arg);
        for (i, a) in args.iter().enumerate() {
            if !any_fun || !is_function_arg(a) {
                arg_types[i] = Some(self.check_exp(a));
            }
        }
        if any_fun {
            let mut cur = ft.clone();
            for t in &arg_types {
                let Type::Arrow(a) = self.uni.resolve(&cur) else {
                    break;
                };
                if let Some(t) = t {
                    // Errors are reported properly below, in order.
                    let _ = self.uni.unify(&a.param, t);
                }
                cur = a.ret.ty.clone();
            }
        }

        let total = self.count_params(&ft);
        let mut checked_any = false;
        let mut t = ft;
        for (i, a) in args.iter().enumerate() {
            let at = match arg_types[i].take() {
                Some(t) => t,
                None => {
                    let expected = match self.uni.resolve(&t) {
                        Type::Arrow(arr) => Some(arr.param.clone()),
                        _ => None,
                    };
                    self.check_exp_expected(a, expected.as_ref())
                }
            };
            if total == Some(0) && fname.is_none() {
                self.error(
                    "type-mismatch",
                    f.span,
                    format!(
                        "Cannot apply expression as function, as it has type \"{}\".",
                        self.uni.zonk(&t)
                    ),
                );
                return Type::Error;
            }
            if let Some(n) = total
                && i >= n
            {
                let summary = exp_summary(a);
                let fname_s = fname.clone().unwrap_or_else(|| "function".into());
                self.error(
                        "type-mismatch",
                        a.span,
                        format!(
                            "Cannot apply \"{fname_s}\" to argument #{} \"{summary}\", as \"{fname_s}\" only takes {n} argument{}.",
                            i + 1,
                            if n == 1 { "" } else { "s" }
                        ),
                    );
                return Type::Error;
            }
            t = self.apply_one(fname.as_deref(), &t, a, &at, e.span, i + 1, args.len());
            checked_any = true;
        }
        if checked_any {
            self.check_recursive_call(f, args, e.span);
        }
        t
    }

    /// Checks an expression, using an expected type to give lambda parameters their types.
    pub fn check_exp_expected(&mut self, e: &Exp, expected: Option<&Type>) -> Type {
        match (&e.kind, expected) {
            (ExpKind::Lambda { params, ret, body }, Some(exp)) => {
                let t = self.check_lambda_expected(params, ret.as_ref(), body, e.span, Some(exp));
                self.record_type(e.span, &t);
                t
            }
            (ExpKind::Parens(inner), _) => {
                let t = self.check_exp_expected(inner, expected);
                self.record_type(e.span, &t);
                t
            }
            _ => self.check_exp(e),
        }
    }

    /// The number of parameters of a function type, if its result is not a type variable
    /// (which could still become a function).
    fn count_params(&self, t: &Type) -> Option<usize> {
        let mut n = 0;
        let mut cur = self.uni.resolve(t);
        loop {
            match cur {
                Type::Arrow(a) => {
                    n += 1;
                    cur = self.uni.resolve(&a.ret.ty);
                }
                Type::Var(_) | Type::Error => return None,
                _ => return Some(n),
            }
        }
    }

    /// Views a type as a function type, turning an unknown type into `a -> b`.
    pub fn as_arrow(&mut self, t: &Type, span: Span, fname: Option<&str>) -> Type {
        let r = self.uni.resolve(t);
        match &r {
            Type::Arrow(_) | Type::Error => r,
            Type::Var(v) if self.uni.is_free_var(&v.name) => {
                let a = self.new_tyvar("a", span);
                let b = self.new_tyvar("b", span);
                let arr = Type::arrow(a, b);
                match self.uni.unify(&r, &arr) {
                    Ok(()) => arr,
                    Err(e) => {
                        let msg = match fname {
                            Some(f) => format!("Cannot apply \"{f}\" as a function."),
                            None => "Cannot apply expression as function.".into(),
                        };
                        self.report_unify(span, &msg, &arr, &r, e);
                        Type::Error
                    }
                }
            }
            _ => {
                let z = self.uni.zonk(&r);
                match fname {
                    Some(f) => self.error(
                        "type-mismatch",
                        span,
                        format!("Cannot apply \"{f}\" as a function, as it has type \"{z}\"."),
                    ),
                    None => self.error(
                        "type-mismatch",
                        span,
                        format!("Cannot apply expression as function, as it has type \"{z}\"."),
                    ),
                };
                Type::Error
            }
        }
    }

    /// Applies a function of type `ft` to one argument; returns the result type.
    #[allow(clippy::too_many_arguments)]
    pub fn apply_one(
        &mut self,
        fname: Option<&str>,
        ft: &Type,
        arg: &Exp,
        argt: &Type,
        span: Span,
        _argno: usize,
        _nargs: usize,
    ) -> Type {
        let ft = self.as_arrow(ft, span, fname);
        let Type::Arrow(a) = ft else {
            return Type::Error;
        };
        self.uni.absorbed.clear();
        let dynamic_before = self.uni.dynamic_sizes.len();
        let unified = self.uni.unify(&a.param, argt);
        if unified.is_ok() && self.uni.dynamic_sizes.len() > dynamic_before {
            // A compound parameter size (`[n + 1]`) met another size: fine if something
            // else determines its variables, otherwise the application is wrong.
            let summary = exp_summary(arg);
            let param = self.uni.zonk(&a.param);
            let actual = self.uni.zonk(argt);
            let msg = format!(
                "Cannot apply \"{}\" to \"{summary}\" (invalid type).\nExpected: {param}\nActual:   {actual}\nThe sizes cannot be matched: nothing determines the size parameter \"{{}}\" of the parameter type.",
                fname.unwrap_or("function")
            );
            for v in self.uni.dynamic_sizes[dynamic_before..].iter().cloned() {
                self.dynamic_origin
                    .entry(v)
                    .or_insert_with(|| (arg.span, msg.clone()));
            }
        }
        if let Err(e) = unified {
            let summary = exp_summary(arg);
            let ctx = match fname {
                Some(f) => format!("Cannot apply \"{f}\" to \"{summary}\" (invalid type)."),
                None => format!("Cannot apply function to \"{summary}\" (invalid type)."),
            };
            self.report_unify(arg.span, &ctx, &a.param, argt, e);
            self.note_defaulted(fname);
        } else if !self.uni.absorbed.is_empty() {
            // A size hidden in the argument's result may not become a parameter size of the
            // resulting function (as in composing with a function returning an existential).
            let absorbed = std::mem::take(&mut self.uni.absorbed);
            let rest = self.uni.zonk(&a.ret.ty);
            let mut in_param = false;
            let mut cur = rest;
            while let Type::Arrow(arr) = cur {
                in_param |= arr
                    .param
                    .free_size_vars()
                    .iter()
                    .any(|v| absorbed.contains(v));
                cur = arr.ret.ty.clone();
            }
            if in_param {
                let summary = exp_summary(arg);
                let f = fname.unwrap_or("function");
                self.error(
                    "existential-param-ret",
                    arg.span,
                    format!(
                        "Existential size would appear in function parameter of return type: applying \"{f}\" to \"{summary}\" hides a size that the resulting function takes as a parameter size (use \"|>\" instead of composition)."
                    ),
                );
            }
        }
        let mut ret = a.ret.clone();
        if let Some(p) = &a.param_name
            && ret.ty.size_vars().contains(p)
        {
            let s = self.arg_size(arg, span, fname);
            ret.ty = ret.ty.subst_sizes(&|v| (v == p).then(|| s.clone()));
        }
        self.instantiate_ext(&ret, span, fname)
    }

    /// Explains that a function's type was fixed by defaulting an overloaded literal.
    pub fn note_defaulted(&mut self, fname: Option<&str>) {
        let Some(f) = fname else { return };
        let Some(d) = self.diags.last() else { return };
        let span = d.span;
        let _ = span;
        let defaulted = self
            .env
            .vals
            .get(f)
            .is_some_and(|b| self.defaulted_defs.contains(&b.vname));
        if defaulted && let Some(d) = self.diags.last_mut() {
            d.notes.push(format!(
                    "Default type i32 or f64 was chosen for an overloaded type in the definition of \"{f}\"; add a type annotation there to make it polymorphic in a different way."
                ));
        }
    }

    /// The size an argument stands for in a dependent result type: the argument itself if it
    /// is a size term, otherwise a fresh unknown size.
    pub fn arg_size(&mut self, arg: &Exp, span: Span, fname: Option<&str>) -> Size {
        match self.exp_to_size(arg) {
            Some(s) => s,
            None => {
                if contains_binding(arg, 0) {
                    self.warn(
                        "size-expression-bind",
                        arg.span,
                        "Size expression with binding is replaced by unknown size.",
                    );
                }
                Size::Var(self.new_unknown("n", UnknownSource::Arg(fname.map(String::from)), span))
            }
        }
    }

    /// Replaces the existential sizes of a result type by fresh unknown sizes produced by the
    /// application at `span`.
    pub fn instantiate_ext(&mut self, ret: &RetType, span: Span, fname: Option<&str>) -> Type {
        if ret.ext.is_empty() {
            return ret.ty.clone();
        }
        let mut map = Vec::new();
        for e in &ret.ext {
            let u = self.new_unknown(e.name(), UnknownSource::Ret(fname.map(String::from)), span);
            map.push((e.clone(), Size::Var(u)));
        }
        self.uni.created.clear();
        ret.ty
            .subst_sizes(&|v| map.iter().find(|(e, _)| e == v).map(|(_, s)| s.clone()))
    }

    /// Converts an expression to a size term, if it is one: a variable, an integer literal,
    /// or an operator or function applied to size terms.
    pub fn exp_to_size(&self, e: &Exp) -> Option<Size> {
        self.exp_to_size_depth(e, 0)
    }

    fn exp_to_size_depth(&self, e: &Exp, depth: u32) -> Option<Size> {
        if depth > 50 {
            return None;
        }
        match &e.kind {
            ExpKind::Parens(x) | ExpKind::Attr(_, x) => self.exp_to_size_depth(x, depth + 1),
            ExpKind::Assert { body, .. } => self.exp_to_size_depth(body, depth + 1),
            ExpKind::Index(a, idxs) => {
                let a = self.exp_to_size_depth(a, depth + 1)?;
                let mut is = Vec::new();
                for i in idxs {
                    match i {
                        futhark_syntax::ast::DimIndex::Fix(x) => {
                            is.push(self.exp_to_size_depth(x, depth + 1)?)
                        }
                        futhark_syntax::ast::DimIndex::Slice { .. } => return None,
                    }
                }
                Some(Size::Index(Box::new(a), is))
            }
            ExpKind::Project(a, f) => Some(Size::Proj(
                Box::new(self.exp_to_size_depth(a, depth + 1)?),
                crate::types::Name::from(f.name.as_str()),
            )),
            ExpKind::Var(qn) => {
                if let Some(r) = self.info.resolutions.get(&qn.span) {
                    return Some(Size::Var(r.vname.clone()));
                }
                // `r.x.y` where `r` is a variable.
                let first = qn.quals.first()?;
                let r = self.info.resolutions.get(&first.span)?;
                if !matches!(
                    r.kind,
                    crate::info::DefKind::Local | crate::info::DefKind::Value
                ) {
                    return None;
                }
                let mut s = Size::Var(r.vname.clone());
                for f in qn.quals[1..].iter().chain(std::iter::once(&qn.name)) {
                    s = Size::Proj(Box::new(s), crate::types::Name::from(f.name.as_str()));
                }
                Some(s)
            }
            ExpKind::Literal(l) => match &l.kind {
                futhark_syntax::ast::LitKind::Int {
                    value, negative, ..
                } => {
                    let v = (*value).min(i64::MAX as u128) as i64;
                    Some(Size::Lit(if *negative { -v } else { v }))
                }
                _ => None,
            },
            ExpKind::BinOp { op, lhs, rhs, .. } => {
                let r = self.info.resolutions.get(&op.span)?;
                Some(Size::BinOp(
                    r.vname.clone(),
                    Box::new(self.exp_to_size_depth(lhs, depth + 1)?),
                    Box::new(self.exp_to_size_depth(rhs, depth + 1)?),
                ))
            }
            ExpKind::Apply(f, args) => {
                let ExpKind::Var(qn) = &strip(f).kind else {
                    return None;
                };
                let r = self.info.resolutions.get(&qn.span)?;
                let mut sargs = Vec::new();
                for a in args {
                    sargs.push(self.exp_to_size_depth(a, depth + 1)?);
                }
                Some(Size::Apply(r.vname.clone(), sargs))
            }
            _ => None,
        }
    }

    pub fn check_binop(&mut self, e: &Exp, op: &QualName, lhs: &Exp, rhs: &Exp) -> Type {
        let ft = self.check_var(op, op.span);
        self.record_type(op.span, &ft);
        let opname = qual_string(op);
        let lt = self.check_exp(lhs);
        let rt = if is_function_arg(rhs) {
            let after = match self.uni.resolve(&ft) {
                Type::Arrow(a) => {
                    let _ = self.uni.unify(&a.param, &lt);
                    Some(a.ret.ty.clone())
                }
                _ => None,
            };
            let expected = after.and_then(|t| match self.uni.resolve(&t) {
                Type::Arrow(a) => Some(a.param.clone()),
                _ => None,
            });
            self.check_exp_expected(rhs, expected.as_ref())
        } else {
            self.check_exp(rhs)
        };
        // Futhark deprecates `==` on arrays (and says nothing about `!=`).
        if op.quals.is_empty() && op.name.name == "==" && self.uni.resolve(&lt).is_array() {
            self.warn(
                "array-equality",
                e.span,
                "Comparing arrays with \"==\" is deprecated and will stop working in a future revision of the language.",
            );
        }
        let t1 = self.apply_one(Some(&opname), &ft, lhs, &lt, e.span, 1, 2);
        self.apply_one(Some(&opname), &t1, rhs, &rt, e.span, 2, 2)
    }

    /// Recursive calls must be saturated and pass higher-order parameters unchanged.
    pub(crate) fn check_recursive_call(&mut self, f: &Exp, args: &[Exp], span: Span) {
        let Some(rec) = self.rec_info.clone() else {
            return;
        };
        let ExpKind::Var(qn) = &strip(f).kind else {
            return;
        };
        if !qn.quals.is_empty() {
            return;
        }
        let Some(r) = self.info.resolutions.get(&qn.span) else {
            return;
        };
        if r.vname != rec.vname {
            return;
        }
        if args.len() < rec.params.len() {
            self.error(
                "recursion",
                span,
                format!(
                    "Recursive call to \"{}\" is not fully saturated: it takes {} arguments.",
                    rec.name,
                    rec.params.len()
                ),
            );
            return;
        }
        for (i, (pname, is_fun)) in rec.params.iter().enumerate() {
            if !*is_fun {
                continue;
            }
            let ok = match (&strip(&args[i]).kind, pname) {
                (ExpKind::Var(aq), Some(p)) if aq.quals.is_empty() => self
                    .info
                    .resolutions
                    .get(&aq.span)
                    .is_some_and(|d| d.vname == *p),
                _ => false,
            };
            if !ok {
                self.error(
                    "recursion",
                    args[i].span,
                    format!(
                        "Higher-order parameter #{} of recursive function \"{}\" must be passed unchanged in recursive calls.",
                        i + 1,
                        rec.name
                    ),
                );
            }
        }
    }
}

/// Whether an expression binds names (a `let`, loop, `match`, lambda…) somewhere outside of
/// nested function bodies: such an expression cannot stand as a size in a type.
fn contains_binding(e: &Exp, depth: u32) -> bool {
    if depth > 64 {
        return false;
    }
    let d = depth + 1;
    match &e.kind {
        ExpKind::Let { .. }
        | ExpKind::LetFun { .. }
        | ExpKind::LetWith { .. }
        | ExpKind::Loop { .. }
        | ExpKind::Match { .. }
        | ExpKind::Lambda { .. } => true,
        ExpKind::Parens(x)
        | ExpKind::Attr(_, x)
        | ExpKind::Negate(x)
        | ExpKind::Not(x)
        | ExpKind::Ascript(x, _)
        | ExpKind::Coerce(x, _)
        | ExpKind::Project(x, _)
        | ExpKind::Index(x, _) => contains_binding(x, d),
        ExpKind::Assert { cond, body } => contains_binding(cond, d) || contains_binding(body, d),
        ExpKind::BinOp { lhs, rhs, .. } => contains_binding(lhs, d) || contains_binding(rhs, d),
        ExpKind::Apply(f, args) => {
            contains_binding(f, d) || args.iter().any(|a| contains_binding(a, d))
        }
        ExpKind::If { cond, then, els } => {
            contains_binding(cond, d) || contains_binding(then, d) || contains_binding(els, d)
        }
        ExpKind::Tuple(xs) | ExpKind::ArrayLit(xs) => xs.iter().any(|x| contains_binding(x, d)),
        _ => false,
    }
}
