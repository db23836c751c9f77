//! Application: monomorphisation and defunctionalisation by specialisation.
//!
//! Every function value is a statically known [`Closure`], so a call is resolved at
//! lowering time. A call of a definition whose arguments and result hold no functions
//! becomes an IR function, specialised once per shape of its arguments (structure, element
//! types, ranks, and which argument dimensions are equal) — this is monomorphisation: a
//! polymorphic `def` gets one IR function per instance. Any other call (a higher-order
//! function, a lambda, a local function) is inlined with its function arguments bound as
//! closures, which is defunctionalisation with the closure's tag resolved statically; a
//! lambda passed to a SOAC intrinsic becomes the SOAC's IR lambda (`soac.rs`).
//! Recursive definitions become recursive IR functions whose results have existential
//! sizes.

use std::collections::HashMap;
use std::rc::Rc;

use futhark_check::types::{Size as CSize, Type as CType};
use futhark_ir::soacs::{Body, Exp as IExp, ExtSize, ExtType, FunDef, Param, SubExp, Type};
use futhark_ir::types::PrimType;
use futhark_syntax::Span;
use futhark_syntax::ast::{ExpKind, Pat, PatKind, SizeExp, TypeExp, TypeExpKind};

use crate::error::{LResult, LowerError};
use crate::modenv::Binding;
use crate::state::{Lowerer, Spec};
use crate::types::{unify, vty_of};
use crate::value::{Closure, Ctx, Def, Inst, TSubst, VTy, Value};

/// How many arguments an intrinsic takes before it acts.
fn intrinsic_arity(name: &str) -> usize {
    match name {
        "map" | "zip" | "concat" | "flatmap" => 2,
        "reduce" | "reduce_comm" | "scan" | "scatter" | "scatter_2d" | "scatter_3d"
        | "unflatten" | "partition" | "jvp2" | "vjp2" | "jmp2" | "mjp2" | "with_vjp"
        | "acc_write" | "scatter_stream" => 3,
        "hist_stream" | "flat_update_2d" => 5,
        "hist_1d" | "hist_2d" | "hist_3d" | "flat_index_2d" | "flat_update_3d" => 6,
        "flat_update_4d" => 7,
        "flat_index_3d" => 8,
        "flat_index_4d" => 10,
        _ => 1,
    }
}

impl<'a> Lowerer<'a> {
    /// Applies a function value to arguments (all at once; partial application allowed).
    pub fn apply_value(
        &mut self,
        f: Value<'a>,
        args: Vec<Value<'a>>,
        span: Span,
    ) -> LResult<Value<'a>> {
        if args.is_empty() {
            return Ok(f);
        }
        match f {
            Value::Fun(c) => self.apply_closure(c, args, span, true),
            _ => Err(LowerError::internal(
                Some(span),
                "applying a value that is not a function",
            )),
        }
    }

    /// Applies a function value the way an intrinsic (a SOAC) applies its lambda: the
    /// interpreter pushes no frame for such calls, so lowering adds none to locations.
    pub fn apply_in_intrinsic(
        &mut self,
        f: Value<'a>,
        args: Vec<Value<'a>>,
        span: Span,
    ) -> LResult<Value<'a>> {
        match f {
            Value::Fun(c) if !args.is_empty() => self.apply_closure(c, args, span, false),
            f => self.apply_value(f, args, span),
        }
    }

    /// `frame`: the application is written in the source (the interpreter's call pushes
    /// `span` on its backtrace), not made by an intrinsic.
    fn apply_closure(
        &mut self,
        c: Rc<Closure<'a>>,
        mut args: Vec<Value<'a>>,
        span: Span,
        frame: bool,
    ) -> LResult<Value<'a>> {
        let arity = match c.as_ref() {
            Closure::Def(d, _) => d.vb.params.len(),
            Closure::Lambda { params, .. } => params.len(),
            Closure::Partial(inner, prev) => {
                let mut all = prev.clone();
                all.append(&mut args);
                return self.apply_closure(inner.clone(), all, span, frame);
            }
            Closure::RightSection(..) | Closure::Project(..) => 1,
            Closure::Intrinsic(n) => intrinsic_arity(n),
            Closure::Op(o, _) => {
                if o == "neg" || o == "!" {
                    1
                } else {
                    2
                }
            }
        };
        if args.len() < arity {
            return Ok(Value::Fun(Rc::new(Closure::Partial(c, args))));
        }
        let rest = args.split_off(arity);
        let r = match c.as_ref() {
            Closure::Def(d, inst) if frame && crate::frames::forwards(d.vb) => {
                // The call the body makes is at this application; an operator's
                // run-time error too, when the body is a built-in operator.
                // Inlined, not specialised, so that the override reaches its body.
                let extra = self.call_sizes(d, inst.as_deref(), &args, span)?;
                let types = self.call_types(d, inst.as_deref(), span)?;
                self.next_frame = Some(span);
                self.next_located = Some(span);
                let r = self.inline_def(d, args, extra, types, span);
                self.next_frame = None;
                self.next_located = None;
                r?
            }
            Closure::Def(d, inst) if frame => {
                self.in_frame(span, |this| this.call_def(d, inst.as_deref(), args, span))?
            }
            Closure::Def(d, inst) => self.call_def(d, inst.as_deref(), args, span)?,
            Closure::Lambda {
                params,
                body,
                ctx,
                size_params,
                ..
            } => {
                let mut tsubst = (*ctx.tsubst).clone();
                for (p, a) in params.iter().zip(&args) {
                    self.unify_pat(p, a, &mut tsubst)?;
                }
                let mut inner = Ctx {
                    tsubst: Rc::new(tsubst),
                    ..ctx.clone()
                };
                let pats: Vec<&Pat> = params.iter().collect();
                for (p, a) in params.iter().zip(&args) {
                    inner = self.bind_pat(p, a.clone(), inner)?;
                }
                if !size_params.is_empty() {
                    inner = self.bind_sizes(&pats, &args, size_params, inner)?;
                }
                if frame {
                    self.in_frame(span, |this| this.exp(body, &inner))?
                } else {
                    self.exp(body, &inner)?
                }
            }
            Closure::RightSection(op, rhs) => {
                let mut a = args;
                a.push(rhs.clone());
                self.apply_closure(op.clone(), a, span, frame)?
            }
            Closure::Project(steps, ctx) => {
                let v = args.remove(0);
                self.project_steps(v, steps, ctx)?
            }
            Closure::Intrinsic(n) => self.intrinsic(n, args, span)?,
            Closure::Op(o, Some(at)) => {
                // The section's place for a failing operator, then what was pending before.
                let outer = self.next_located.replace(*at);
                let r = self.overloaded(o, args, span);
                self.next_located = outer;
                r?
            }
            Closure::Op(o, None) => self.overloaded(o, args, span)?,
            Closure::Partial(..) => unreachable_partial(span)?,
        };
        match r {
            Value::Fun(c) if !rest.is_empty() => self.apply_closure(c, rest, span, frame),
            r => self.apply_value(r, rest, span),
        }
    }

    /// Calls a definition with exactly its number of arguments.
    pub fn call_def(
        &mut self,
        def: &Rc<Def<'a>>,
        inst: Option<&Inst<'a>>,
        args: Vec<Value<'a>>,
        span: Span,
    ) -> LResult<Value<'a>> {
        let vb = def.vb;
        let info = self.info(vb.name.span)?;
        let returns_fun = info
            .exp_types
            .get(&vb.body.span)
            .is_none_or(CType::contains_fun);
        // Inside an accumulator stream's function calls are inlined, so that `acc_write`
        // sees the stream's operator.
        let first_order = !args.is_empty()
            && args.iter().all(|a| !a.has_fun())
            && !returns_fun
            && self.acc_ops.is_empty();
        let extra = self.call_sizes(def, inst, &args, span)?;
        if first_order {
            self.specialise(def, args, extra, span)
        } else {
            let types = self.call_types(def, inst, span)?;
            self.inline_def(def, args, extra, types, span)
        }
    }

    /// The context a definition's body is lowered in, with its parameters bound.
    fn def_ctx(
        &mut self,
        def: &Rc<Def<'a>>,
        args: &[Value<'a>],
        extra: &[(String, SubExp)],
        types: TSubst,
    ) -> LResult<Ctx<'a>> {
        let vb = def.vb;
        let mut tsubst = TSubst::new();
        for (p, a) in vb.params.iter().zip(args) {
            self.unify_pat(p, a, &mut tsubst)?;
        }
        for (id, t) in types {
            tsubst.entry(id).or_insert(t);
        }
        // A definition sees itself (recursion) and what was declared before it.
        let env = def.env.with_val(&vb.name.name, Binding::Def(def.clone()));
        let mut ctx = Ctx::new(env);
        ctx.tsubst = Rc::new(tsubst);
        for (n, s) in extra {
            ctx = ctx.bind(n, Value::prim(s.clone(), PrimType::I64));
        }
        for (p, a) in vb.params.iter().zip(args) {
            ctx = self.bind_pat(p, a.clone(), ctx)?;
        }
        let sizes = size_params(vb);
        if !sizes.is_empty() {
            let pats: Vec<&Pat> = vb.params.iter().collect();
            ctx = self.bind_sizes(&pats, args, &sizes, ctx)?;
        }
        // The declared type names every size, also of wildcard and abbreviated parameters.
        if let Some(decl) = self.info(vb.name.span)?.defs.get(&vb.name.span) {
            let mut found = Vec::new();
            let mut t = &decl.ty;
            for a in args {
                let CType::Arrow(ar) = t else { break };
                size_vars_in_type(&ar.param, a, 0, &mut found);
                t = &ar.ret.ty;
            }
            for (v, d) in found {
                ctx = ctx.bind_size_id(v.id, d.clone());
                if sizes.contains(&v.name()) && ctx.locals.get(v.name()).is_none() {
                    ctx = ctx.bind(v.name(), Value::prim(d, PrimType::I64));
                }
            }
        }
        // Size parameters nothing determined: a use is reported as unsupported.
        for n in sizes {
            if ctx.locals.get(n).is_none() {
                ctx = ctx.bind(&format!("%unbound:{n}"), Value::unit());
            }
        }
        Ok(ctx)
    }

    /// Lowers a definition's body in place.
    pub fn inline_def(
        &mut self,
        def: &Rc<Def<'a>>,
        args: Vec<Value<'a>>,
        extra: Vec<(String, SubExp)>,
        types: TSubst,
        span: Span,
    ) -> LResult<Value<'a>> {
        let ctx = self
            .def_ctx(def, &args, &extra, types)
            .map_err(|e| e.at(span))?;
        let r = self.exp(&def.vb.body, &ctx)?;
        self.coerce_to_declared(def, args.len(), &ctx, r)
            .map_err(|e| e.at(span))
    }

    /// A definition's result given the sizes its declared return type names where the
    /// body computed them otherwise (`reverse x : [n]t` is a slice whose length is
    /// computed; `xs ++ ys :> [n]t` has `n` already): the checker proved they are equal,
    /// and a caller (a SOAC's lambda in particular) can then see that the result has the
    /// size of an argument instead of one that only exists inside the call. Existential
    /// sizes of the return type, and sizes not known in `ctx`, stay as computed.
    fn coerce_to_declared(
        &mut self,
        def: &Rc<Def<'a>>,
        nargs: usize,
        ctx: &Ctx<'a>,
        v: Value<'a>,
    ) -> LResult<Value<'a>> {
        let vb = def.vb;
        let Some(decl) = self.info(vb.name.span)?.defs.get(&vb.name.span) else {
            return Ok(v);
        };
        let mut t = &decl.ty;
        let mut ext: Vec<u64> = Vec::new();
        for _ in 0..nargs {
            let CType::Arrow(ar) = t else {
                return Ok(v);
            };
            ext.extend(ar.ret.ext.iter().map(|n| n.id));
            t = &ar.ret.ty;
        }
        let resolve = |s: &CSize| -> Option<SubExp> {
            match s {
                CSize::Lit(k) => Some(SubExp::i64(*k)),
                CSize::Var(n) if !ext.contains(&n.id) => {
                    ctx.size_id(n.id)
                        .or_else(|| match ctx.locals.get(n.name()) {
                            Some(Value::Atom(d, Type::Prim(PrimType::I64))) => Some(d.clone()),
                            _ => None,
                        })
                }
                _ => None,
            }
        };
        self.coerce_to_ctype(&v, t, &mut Vec::new(), &resolve)
    }

    /// `v` with the dimensions that checker type `t` (under the outer dimensions `outer`)
    /// gives a known size coerced to it.
    fn coerce_to_ctype(
        &mut self,
        v: &Value<'a>,
        t: &CType,
        outer: &mut Vec<Option<SubExp>>,
        resolve: &dyn Fn(&CSize) -> Option<SubExp>,
    ) -> LResult<Value<'a>> {
        match (t, v) {
            (CType::Array(a), _) => {
                let k = outer.len();
                outer.extend(a.shape.iter().map(resolve));
                let r = self.coerce_to_ctype(v, &a.elem, outer, resolve);
                outer.truncate(k);
                r
            }
            (CType::Record(fts), Value::Record(fs)) => {
                let mut out = Vec::with_capacity(fs.len());
                for (n, fv) in fs {
                    let fv = match fts.get(n.as_str()) {
                        Some(ft) => self.coerce_to_ctype(fv, ft, outer, resolve)?,
                        None => fv.clone(),
                    };
                    out.push((n.clone(), fv));
                }
                Ok(Value::Record(out))
            }
            _ if outer.iter().all(Option::is_none) => Ok(v.clone()),
            _ => v.map_leaves(&mut |s, t| {
                if t.rank() < outer.len() {
                    return Ok((s.clone(), t.clone()));
                }
                let mut shape = t.shape().to_vec();
                for (d, w) in shape.iter_mut().zip(outer.iter()) {
                    if let Some(w) = w {
                        *d = w.clone();
                    }
                }
                let want = t.with_shape(shape);
                let r = self.coerce_atom(s.clone(), t, &want)?;
                Ok((r, want))
            }),
        }
    }

    /// Calls the IR function specialising `def` for the shape of `args`, making it first.
    fn specialise(
        &mut self,
        def: &Rc<Def<'a>>,
        args: Vec<Value<'a>>,
        extra: Vec<(String, SubExp)>,
        span: Span,
    ) -> LResult<Value<'a>> {
        let leaves: Vec<(SubExp, Type)> = args.iter().flat_map(Value::leaves).collect();
        let mut dims: Vec<SubExp> = Vec::new();
        let mut key = format!("{}|", def.id);
        for a in &args {
            a.shape_key(&mut key);
            key.push('|');
        }
        for (_, t) in &leaves {
            for d in t.shape() {
                let i = match dims.iter().position(|x| x == d) {
                    Some(i) => i,
                    None => {
                        dims.push(d.clone());
                        dims.len() - 1
                    }
                };
                key.push_str(&format!("{i},"));
            }
            key.push(';');
        }
        for (n, _) in &extra {
            key.push_str(&format!("#{n}"));
        }
        let extra_names: Vec<String> = extra.iter().map(|(n, _)| n.clone()).collect();
        if !self.specs.contains_key(&key) {
            self.make_spec(def, &args, &dims, &extra_names, &key, span)?;
        }
        let Some(spec) = self.specs.get_mut(&key) else {
            return Err(LowerError::internal(Some(span), "specialisation vanished"));
        };
        if spec.in_progress {
            spec.recursive = true;
        }
        let spec = spec.clone();
        let mut call_args = dims.clone();
        call_args.extend(leaves.iter().map(|(s, _)| s.clone()));
        call_args.extend(extra.into_iter().map(|(_, s)| s));
        Ok(self.emit_call(&spec, call_args, span))
    }

    fn emit_call(&mut self, spec: &Spec<'a>, args: Vec<SubExp>, _span: Span) -> Value<'a> {
        let ret: Vec<ExtType> = spec
            .ret
            .iter()
            .map(|t| {
                t.map_dims(|d| match d {
                    ExtSize::Free(SubExp::Var(v)) => match spec_param_index(spec, v) {
                        Some(i) => ExtSize::Free(args[i].clone()),
                        None => d.clone(),
                    },
                    d => d.clone(),
                })
            })
            .collect();
        // The call's location is the stack of frames at it (its own site on top when
        // the source applies the function; none when an intrinsic does): the `inline`
        // pass and the host add it to the backtrace of an error inside the function.
        let call_loc = self.frames_text();
        let outer_loc = self.loc.take();
        self.loc = (!call_loc.is_empty()).then(|| call_loc.into());
        let outs = self.bind_ext(
            "r",
            &ret,
            IExp::Apply {
                func: spec.name.clone(),
                args: args.clone(),
                ret: ret.clone(),
            },
        );
        self.loc = outer_loc;
        let outs = self.pin_result_sizes(spec, &args, &ret, outs);
        spec.template
            .rebuild(&mut outs.into_iter())
            .unwrap_or_else(Value::unit)
    }

    fn make_spec(
        &mut self,
        def: &Rc<Def<'a>>,
        args: &[Value<'a>],
        dims: &[SubExp],
        extra_names: &[String],
        key: &str,
        span: Span,
    ) -> LResult<()> {
        let vb = def.vb;
        let base = if vb.name.is_operator() {
            "op"
        } else {
            vb.name.name.as_str()
        };
        let name = self.fresh(base);
        // Parameters: one size per distinct dimension, then the leaves with those sizes.
        let size_params: Vec<Param> = dims
            .iter()
            .map(|_| self.param("n", Type::Prim(PrimType::I64)))
            .collect();
        let rename = |d: &SubExp| match dims.iter().position(|x| x == d) {
            Some(i) => SubExp::Var(size_params[i].name.clone()),
            None => d.clone(),
        };
        let mut value_params = Vec::new();
        let mut fargs = Vec::new();
        for a in args {
            let mut leaves = Vec::new();
            for (_, t) in a.leaves() {
                let p = self.param("p", t.map_dims(rename));
                leaves.push((SubExp::Var(p.name.clone()), p.ty.clone()));
                value_params.push(p);
            }
            let v = a
                .rebuild(&mut leaves.into_iter())
                .ok_or_else(|| LowerError::internal(Some(span), "argument structure"))?;
            fargs.push(v);
        }
        let extra_params: Vec<Param> = extra_names
            .iter()
            .map(|_| self.param("n", Type::Prim(PrimType::I64)))
            .collect();
        let extra: Vec<(String, SubExp)> = extra_names
            .iter()
            .zip(&extra_params)
            .map(|(n, p)| (n.clone(), SubExp::Var(p.name.clone())))
            .collect();
        let mut params = size_params;
        params.extend(value_params);
        params.extend(extra_params);
        let param_names: Vec<String> = params.iter().map(|p| p.name.clone()).collect();
        // A provisional result type for recursive calls: the checker's, all sizes unknown.
        let ctx = self
            .def_ctx(def, &fargs, &extra, TSubst::new())
            .map_err(|e| e.at(span))?;
        let info = self.info(vb.name.span)?;
        if let Some(t) = info.exp_types.get(&vb.body.span)
            && let Ok(vt) = vty_of(t, &ctx.tsubst, span)
        {
            let (template, ret) = self.template(&vt);
            self.specs.insert(
                key.to_string(),
                Spec {
                    name: name.clone(),
                    ret,
                    template,
                    in_progress: true,
                    params: param_names.clone(),
                    recursive: false,
                    size_formulas: Vec::new(),
                },
            );
        }
        let (stms, result) = self.outside_frames(|this| {
            this.block(|this| {
                let r = this.exp(&vb.body, &ctx)?;
                this.coerce_to_declared(def, fargs.len(), &ctx, r)
            })
        })?;
        self.specs
            .remove(key)
            .filter(|s| s.recursive)
            .map_or(Ok(()), |s| {
                // Keep the all-existential result type the recursive calls were given.
                let got: Vec<(PrimType, usize)> = result
                    .leaves()
                    .iter()
                    .map(|(_, t)| (t.elem(), t.rank()))
                    .collect();
                let want: Vec<(PrimType, usize)> =
                    s.ret.iter().map(|t| (t.elem(), t.rank())).collect();
                if got != want {
                    return Err(LowerError::unsupported(
                        Some(span),
                        "a recursive function whose result type could not be determined",
                    ));
                }
                self.specs.insert(
                    key.to_string(),
                    Spec {
                        in_progress: false,
                        ..s
                    },
                );
                Ok(())
            })?;
        if result.has_fun() {
            return Err(LowerError::internal(
                Some(span),
                "a first-order function returned a function",
            ));
        }
        let leaves = result.leaves();
        let (ret, size_formulas) = match self.specs.get(key) {
            Some(s) => (s.ret.clone(), Vec::new()),
            None => (
                ret_types(&leaves, &param_names),
                crate::result_sizes::size_formulas(&stms, &leaves, &param_names),
            ),
        };
        let fun = FunDef {
            name: name.clone(),
            entry: None,
            params,
            ret: ret.clone(),
            body: Body::new(stms, leaves.iter().map(|(s, _)| s.clone()).collect()),
        };
        self.funs.push(fun);
        self.specs.insert(
            key.to_string(),
            Spec {
                name,
                ret,
                template: result,
                in_progress: false,
                params: param_names,
                recursive: false,
                size_formulas,
            },
        );
        Ok(())
    }

    /// A value of shape `vt` with placeholder leaves, and its all-existential types.
    fn template(&mut self, vt: &VTy) -> (Value<'a>, Vec<ExtType>) {
        let v = placeholder(vt, 0);
        let mut k = 0;
        let ret = v
            .leaves()
            .iter()
            .map(|(_, t)| {
                t.map_dims(|_| {
                    k += 1;
                    ExtSize::Ext(k - 1)
                })
            })
            .collect();
        (v, ret)
    }

    /// Binds the type variables a parameter pattern's types mention to the argument's shape.
    pub fn unify_pat(&self, p: &Pat, v: &Value<'a>, out: &mut TSubst) -> LResult<()> {
        match &p.kind {
            PatKind::Id(x) => {
                if let Some(t) = self.info(x.span)?.exp_types.get(&x.span) {
                    unify(t, v, 0, out);
                }
            }
            PatKind::Parens(q) | PatKind::Attr(_, q) | PatKind::Ascript(q, _) => {
                self.unify_pat(q, v, out)?
            }
            PatKind::Tuple(ps) => {
                for (q, c) in ps.iter().zip(v.components()) {
                    self.unify_pat(q, &c, out)?;
                }
            }
            PatKind::Record(fs) => {
                for (n, q) in fs {
                    if let Some(f) = v.field(&n.name) {
                        self.unify_pat(q, f, out)?;
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// Binds size parameters (`[n]`) to the dimensions of the arguments they describe.
    pub fn bind_sizes(
        &mut self,
        pats: &[&Pat],
        args: &[Value<'a>],
        names: &[&str],
        mut ctx: Ctx<'a>,
    ) -> LResult<Ctx<'a>> {
        let mut found: HashMap<String, SubExp> = HashMap::new();
        for (p, a) in pats.iter().zip(args) {
            self.sizes_in_pat(p, a, names, &mut found)?;
        }
        for n in names {
            match found.get(*n) {
                Some(d) => ctx = ctx.bind(n, Value::prim(d.clone(), PrimType::I64)),
                None => ctx = ctx.bind(&format!("%unbound:{n}"), Value::unit()),
            }
        }
        Ok(ctx)
    }

    pub(crate) fn sizes_in_pat(
        &self,
        p: &Pat,
        v: &Value<'a>,
        names: &[&str],
        found: &mut HashMap<String, SubExp>,
    ) -> LResult<()> {
        match &p.kind {
            PatKind::Id(x) => {
                if let Some(t) = self.info(x.span)?.exp_types.get(&x.span) {
                    sizes_in_type(t, v, 0, names, found);
                }
            }
            PatKind::Ascript(q, te) => {
                sizes_in_typeexp(te, v, 0, names, found);
                self.sizes_in_pat(q, v, names, found)?;
            }
            PatKind::Parens(q) | PatKind::Attr(_, q) => self.sizes_in_pat(q, v, names, found)?,
            PatKind::Tuple(ps) => {
                for (q, c) in ps.iter().zip(v.components()) {
                    self.sizes_in_pat(q, &c, names, found)?;
                }
            }
            PatKind::Record(fs) => {
                for (n, q) in fs {
                    if let Some(f) = v.field(&n.name) {
                        self.sizes_in_pat(q, f, names, found)?;
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }
}

/// The names of a definition's size parameters.
pub(crate) fn size_params(vb: &futhark_syntax::ast::ValBind) -> Vec<&str> {
    vb.tparams
        .iter()
        .filter_map(|t| match t {
            futhark_syntax::ast::TypeParam::Size(n) => Some(n.name.as_str()),
            _ => None,
        })
        .collect()
}

fn unreachable_partial<T>(span: Span) -> LResult<T> {
    Err(LowerError::internal(Some(span), "partial application"))
}

fn spec_param_index(spec: &Spec<'_>, v: &str) -> Option<usize> {
    spec.params.iter().position(|p| p == v)
}

/// Result types of a function body: dimensions that are parameters (or constants) stay,
/// others become existential (one index per distinct variable).
pub fn ret_types(leaves: &[(SubExp, Type)], params: &[String]) -> Vec<ExtType> {
    let mut exts: Vec<SubExp> = Vec::new();
    leaves
        .iter()
        .map(|(_, t)| {
            t.map_dims(|d| match d {
                SubExp::Const(_) => ExtSize::Free(d.clone()),
                SubExp::Var(v) if params.contains(v) => ExtSize::Free(d.clone()),
                _ => {
                    let i = match exts.iter().position(|x| x == d) {
                        Some(i) => i,
                        None => {
                            exts.push(d.clone());
                            exts.len() - 1
                        }
                    };
                    ExtSize::Ext(i)
                }
            })
        })
        .collect()
}

/// A value of shape `vt` whose leaves are placeholders with `dims` unknown dimensions.
fn placeholder<'a>(vt: &VTy, outer: usize) -> Value<'a> {
    match vt {
        VTy::Prim(p) => Value::Atom(SubExp::i64(0), Type::array(*p, vec![SubExp::i64(0); outer])),
        VTy::Array(inner) => placeholder(inner, outer + 1),
        VTy::Record(fs) => Value::Record(
            fs.iter()
                .map(|(n, t)| (n.clone(), placeholder(t, outer)))
                .collect(),
        ),
        VTy::Sum(l) => Value::Sum(
            l.clone(),
            Box::new(placeholder(&VTy::Prim(PrimType::I8), outer)),
            l.ctors
                .iter()
                .map(|(_, ts)| ts.iter().map(|t| placeholder(t, outer)).collect())
                .collect(),
        ),
    }
}

/// Finds the named size variables among the dimensions of checker type `t` describing `v`.
fn sizes_in_type(
    t: &CType,
    v: &Value<'_>,
    offset: usize,
    names: &[&str],
    found: &mut HashMap<String, SubExp>,
) {
    match t {
        CType::Array(a) => {
            for (i, s) in a.shape.iter().enumerate() {
                if let futhark_check::Size::Var(vn) = s
                    && names.contains(&vn.name())
                    && !found.contains_key(vn.name())
                    && let Some(d) = leaf_dim(v, offset + i)
                {
                    found.insert(vn.name().to_string(), d);
                }
            }
            sizes_in_type(&a.elem, v, offset + a.shape.len(), names, found);
        }
        CType::Record(fs) => {
            for (k, ft) in fs {
                if let Some(f) = v.field(k) {
                    sizes_in_type(ft, f, offset, names, found);
                }
            }
        }
        _ => {}
    }
}

/// Every size variable among the dimensions of checker type `t` describing `v`, with the
/// dimension of `v` it stands for.
pub fn size_vars_in_type(
    t: &CType,
    v: &Value<'_>,
    offset: usize,
    out: &mut Vec<(futhark_check::VName, SubExp)>,
) {
    match t {
        CType::Array(a) => {
            for (i, s) in a.shape.iter().enumerate() {
                if let futhark_check::Size::Var(vn) = s
                    && let Some(d) = leaf_dim(v, offset + i)
                {
                    out.push((vn.clone(), d));
                }
            }
            size_vars_in_type(&a.elem, v, offset + a.shape.len(), out);
        }
        CType::Record(fs) => {
            for (k, ft) in fs {
                if let Some(f) = v.field(k) {
                    size_vars_in_type(ft, f, offset, out);
                }
            }
        }
        _ => {}
    }
}

/// Finds `[n]` in a written type describing `v`.
fn sizes_in_typeexp(
    te: &TypeExp,
    v: &Value<'_>,
    offset: usize,
    names: &[&str],
    found: &mut HashMap<String, SubExp>,
) {
    match &te.kind {
        TypeExpKind::Array { size, elem } => {
            if let SizeExp::Exp(e) = size
                && let ExpKind::Var(qn) = &e.kind
                && qn.quals.is_empty()
                && names.contains(&qn.name.name.as_str())
                && !found.contains_key(&qn.name.name)
                && let Some(d) = leaf_dim(v, offset)
            {
                found.insert(qn.name.name.clone(), d);
            }
            sizes_in_typeexp(elem, v, offset + 1, names, found);
        }
        TypeExpKind::Parens(t) | TypeExpKind::Unique(t) => {
            sizes_in_typeexp(t, v, offset, names, found)
        }
        TypeExpKind::Tuple(ts) => {
            for (t, c) in ts.iter().zip(v.components()) {
                sizes_in_typeexp(t, &c, offset, names, found);
            }
        }
        TypeExpKind::Record(fs) => {
            for (n, t) in fs {
                if let Some(f) = v.field(&n.name) {
                    sizes_in_typeexp(t, f, offset, names, found);
                }
            }
        }
        _ => {}
    }
}

/// Dimension `i` of the first leaf of `v`.
fn leaf_dim(v: &Value<'_>, i: usize) -> Option<SubExp> {
    v.leaves()
        .first()
        .and_then(|(_, t)| t.shape().get(i).cloned())
}
