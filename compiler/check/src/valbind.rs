//! Top-level value definitions: checking, defaulting of overloaded literals, literal range
//! checks, generalisation into type schemes, entry-point rules, and the end-of-definition
//! passes (exhaustiveness, refutability, causality, uniqueness) once all types are known.

use futhark_syntax::Span;
use futhark_syntax::ast::{Dec, Pat, PatKind, TypeArg, TypeExp, TypeExpKind, ValBind, ValKeyword};

use crate::checker::{Checker, LitValue};
use crate::env::{Scheme, ValBinding};
use crate::info::{DefInfo, DefKind, DefRef, EntryInfo, EntryParam};
use crate::terms::apply::RecInfo;
use crate::types::{Liftedness, Name, PrimType, RetType, Size, Subst, TParam, Type, VName};
use crate::unify::Constraint;

/// A type that an entry point can only pass as an opaque value: anything but arrays of
/// primitives (the unit type aside).
fn opaque_at_entry(t: &Type) -> bool {
    match t {
        Type::Prim(_) | Type::Error => false,
        Type::Array(a) => opaque_at_entry(&a.elem),
        Type::Record(fs) => !fs.is_empty(),
        _ => true,
    }
}

/// A type written as a plain type name (possibly in array or uniqueness brackets): its
/// values get that name on the other side of the entry boundary.
fn nice_type_exp(te: &TypeExp) -> bool {
    match &te.kind {
        TypeExpKind::Var(q) => q.quals.is_empty(),
        TypeExpKind::Apply(f, TypeArg::Size(_)) => nice_type_exp(f),
        TypeExpKind::Array { elem, .. } => nice_type_exp(elem),
        TypeExpKind::Unique(t) | TypeExpKind::Parens(t) => nice_type_exp(t),
        _ => false,
    }
}

fn ascribed_nice(p: &Pat) -> bool {
    match &p.kind {
        PatKind::Ascript(_, te) => nice_type_exp(te),
        PatKind::Parens(q) | PatKind::Attr(_, q) => ascribed_nice(q),
        _ => false,
    }
}

/// Whether an entry point's result (as declared by `te`, if at all) is opaque: a function
/// result is judged by its parameters and final result, a tuple by its components.
fn opaque_result(te: Option<&TypeExp>, t: &Type) -> bool {
    let te = te.map(|te| {
        let mut te = te;
        while let TypeExpKind::Parens(inner) = &te.kind {
            te = inner;
        }
        te
    });
    if let Type::Arrow(a) = t {
        return match te.map(|te| &te.kind) {
            Some(TypeExpKind::Arrow { from, to, .. }) => {
                (!nice_type_exp(from) && opaque_at_entry(&a.param))
                    || opaque_result(Some(to), &a.ret.ty)
            }
            _ => opaque_at_entry(&a.param) || opaque_result(None, &a.ret.ty),
        };
    }
    if te.is_some_and(nice_type_exp) {
        return false;
    }
    if let Some(ts) = t.as_tuple().filter(|ts| ts.len() > 1) {
        return match te.map(|te| &te.kind) {
            Some(TypeExpKind::Tuple(tes)) if tes.len() == ts.len() => tes
                .iter()
                .zip(ts)
                .any(|(te, t)| !nice_type_exp(te) && opaque_at_entry(t)),
            _ => ts.iter().any(|t| opaque_at_entry(t)),
        };
    }
    opaque_at_entry(t)
}

impl Checker<'_> {
    /// Resets the per-definition state.
    pub fn begin_def(&mut self) {
        self.pending_types.clear();
        self.pending_literals.clear();
        self.pending_empty_rows.clear();
        self.pending_matches.clear();
        self.pending_irrefutable.clear();
        self.produced.clear();
        self.def_vars.clear();
        self.var_origin.clear();
        self.dynamic_origin.clear();
        self.level = 0;
    }

    /// Checks a top-level `def`/`entry`/`let`; returns the binding to add to the scope.
    pub fn check_valbind(&mut self, dec: &Dec, vb: &ValBind) -> Option<(Name, ValBinding)> {
        let name = &vb.name;
        if name.name == "&&" || name.name == "||" {
            self.error(
                "may-not-be-redefined",
                name.span,
                format!("The \"{}\" operator may not be redefined.", name.name),
            );
            return None;
        }
        let is_entry = vb.keyword == ValKeyword::Entry;
        if is_entry && (self.module_depth > 0 || !self.mod_path.is_empty()) {
            self.error(
                "nested-entry",
                name.span,
                "Entry points may not be declared inside modules, only at the top level of a file.",
            );
        }
        self.begin_def();
        let vname = self.fresh(&name.name);
        let doc = dec
            .doc
            .as_ref()
            .map(|d| std::sync::Arc::<str>::from(d.text.as_str()));
        let def = DefRef::new(&vname, DefKind::Value, Some(name.span), doc);
        self.resolve_to(name.span, &def);

        let self_name = if vb.params.is_empty() {
            None
        } else {
            Some((&vb.name, vname.clone()))
        };
        self.rec_used = false;
        self.rec_info = None;
        let r = self.check_function(
            &vb.tparams,
            &vb.params,
            vb.ret.as_ref(),
            &vb.body,
            vb.span,
            &[],
            self_name,
        );
        self.rec_info = None;
        if self.rec_used && self.uni.zonk(&r.ret.ty).contains_fun() {
            self.error(
                "recursion",
                name.span,
                format!("Recursive function \"{}\" must return a first-order type, not a function (not first-order).", name.name),
            );
        }

        {
            let zt = self.uni.zonk(&r.ty);
            let mut overloaded = false;
            zt.each_tyvar(&mut |v| {
                overloaded |= matches!(
                    self.uni.vars.get(v).map(|i| &i.constraint),
                    Some(Constraint::Overloaded(_))
                )
            });
            if overloaded {
                self.defaulted_defs.insert(vname.clone());
                self.warn(
                    "ambiguous-type",
                    name.span,
                    format!(
                        "The type of \"{}\" is ambiguous (overloaded); it was defaulted to i32 or f64.",
                        name.name
                    ),
                );
            }
        }
        self.apply_defaults();
        let is_main_entry = name.name == "main"
            && !self.in_prelude
            && self.mod_path.is_empty()
            && self.module_depth == 0;
        let entry = is_entry || (is_main_entry && vb.keyword != ValKeyword::Entry);
        let (mut tparams, mut ty) =
            self.generalise(&r.tparams, &r.ty, entry, name.span, &name.name);

        // A constant with existential size: the size is a fixed unknown.
        if vb.params.is_empty() && !r.ret.ext.is_empty() {
            let mut map = Vec::new();
            for e in &r.ret.ext {
                let u = self.uni.new_unknown(
                    e.name(),
                    0,
                    crate::unify::UnknownSource::Ret(Some(name.name.clone())),
                    name.span,
                );
                self.uni.created.clear();
                map.push((e.clone(), Size::Var(u)));
            }
            ty = ty.subst_sizes(&|v| map.iter().find(|(a, _)| a == v).map(|(_, s)| s.clone()));
        }

        let declared_ret = vb.ret.is_some();
        let ret_ty = self.uni.zonk(&r.ret.ty);
        if let Some(inferred) = self.finish_def(Some((vb, &ret_ty, declared_ret))) {
            ty = set_ret_uniqueness(&ty, vb.params.len(), &inferred);
        }

        if entry {
            let explicit: Vec<VName> = r.tparams.iter().map(|p| p.name().clone()).collect();
            self.check_entry(vb, &tparams, &explicit, &ty, &vname, is_entry);
        }
        tparams.retain(|_| true);
        self.info.defs.insert(
            name.span,
            DefInfo {
                vname: vname.clone(),
                tparams: tparams.clone(),
                ty: ty.clone(),
            },
        );
        self.record_final(name.span, &ty);
        Some((
            Name::from(name.name.as_str()),
            ValBinding {
                vname,
                scheme: std::sync::Arc::new(Scheme::Poly(tparams, ty)),
                def,
            },
        ))
    }

    /// Binds `name` to the value of the expression this definition checked, as a cell's
    /// `def name = <exp>` would, without checking the expression again: `t` is its type and
    /// `uni` the unifier as it was once the expression's defaults were applied, before the
    /// end of the definition settled the type's free variables (to `()`, for showing it).
    /// Those variables become the binding's type and size parameters. Returns false, and
    /// binds nothing, when generalising the type is an error (a variable used with equality,
    /// a record known only by some fields); the binding's own diagnostics are not kept.
    pub(crate) fn bind_checked_exp(
        &mut self,
        name: &str,
        at: Span,
        t: &Type,
        uni: crate::unify::Unifier,
    ) -> bool {
        // Names made since the snapshot stay taken.
        let counter = self.uni.supply.counter();
        self.uni = uni;
        self.uni.supply.set_counter(counter);
        let before = self.diags.len();
        let vname = self.fresh(name);
        let (tparams, ty) = self.generalise(&[], t, false, at, name);
        let failed = self.diags[before..].iter().any(|d| d.is_error());
        self.diags.truncate(before);
        if failed {
            return false;
        }
        let def = DefRef::new(&vname, DefKind::Value, Some(at), None);
        self.env.insert_val(
            Name::from(name),
            ValBinding {
                vname,
                scheme: std::sync::Arc::new(Scheme::Poly(tparams, ty)),
                def,
            },
        );
        true
    }

    fn record_final(&mut self, span: Span, t: &Type) {
        self.info.exp_types.insert(span, t.clone());
    }

    /// Unresolved overloaded types become `i32` (integers) or `f64` (floats).
    pub fn apply_defaults(&mut self) {
        for v in self.def_vars.clone() {
            let c = self.uni.vars.get(&v).map(|i| i.constraint.clone());
            if let Some(Constraint::Overloaded(ps)) = c {
                let p = if ps.contains(&PrimType::I32) {
                    PrimType::I32
                } else if ps.contains(&PrimType::F64) {
                    PrimType::F64
                } else {
                    ps.first().copied().unwrap_or(PrimType::I32)
                };
                let _ = self.uni.unify(&Type::var(v.clone()), &Type::Prim(p));
            }
        }
    }

    /// Turns the remaining unification variables of a definition's type into type and size
    /// parameters; resolves or reports the others.
    fn generalise(
        &mut self,
        explicit: &[TParam],
        t: &Type,
        entry: bool,
        span: Span,
        fname: &str,
    ) -> (Vec<TParam>, Type) {
        let t = self.uni.zonk(t);
        let mut tparams: Vec<TParam> = explicit.to_vec();
        let mut subst: Vec<(VName, Subst)> = Vec::new();
        let mut letters = "abcdefghijklmnopqrstuvwxyz".chars();
        let mut tyvars = Vec::new();
        t.each_tyvar(&mut |v| {
            if !tyvars.contains(v) {
                tyvars.push(v.clone())
            }
        });
        for v in tyvars {
            let Some(info) = self.uni.vars.get(&v).cloned() else {
                continue;
            };
            match info.constraint {
                Constraint::Free(l) => {
                    let n = letters
                        .next()
                        .map(|c| c.to_string())
                        .unwrap_or_else(|| "t".into());
                    let p = self.fresh(&n);
                    tparams.push(TParam::Type {
                        name: p.clone(),
                        lifted: l,
                    });
                    let _ = self.uni.unify(&Type::var(v.clone()), &Type::var(p.clone()));
                    subst.push((v, Subst::Type(Type::var(p))));
                }
                Constraint::Equality => {
                    self.error(
                        "ambiguous-type",
                        span,
                        format!(
                            "Cannot generalise the type of \"{fname}\": a type variable is used with equality, which type parameters do not support."
                        ),
                    );
                    let _ = self.uni.unify(&Type::var(v.clone()), &Type::unit());
                }
                Constraint::HasConstrs(cs) => self.settle_sum(&v, info.span, cs),
                Constraint::HasFields(fs) => {
                    self.error(
                        "ambiguous-type",
                        info.span,
                        format!(
                            "Type is ambiguous: a record with fields {} whose full type is not known.",
                            fs.keys().map(|k| format!("\"{k}\"")).collect::<Vec<_>>().join(", ")
                        ),
                    );
                    let _ = self.uni.unify(&Type::var(v.clone()), &Type::Record(fs));
                }
                _ => {}
            }
        }
        let t = self.uni.zonk(&t);
        for v in t.size_vars() {
            if self.uni.is_free_var(&v) {
                let p = self.fresh(v.name());
                tparams.push(TParam::Size { name: p.clone() });
                let _ = self
                    .uni
                    .unify_size(&Size::Var(v.clone()), &Size::Var(p.clone()));
            }
        }
        let t = self.uni.zonk(&t);
        self.resolve_leftovers(entry, fname);
        (tparams, t)
    }

    /// A type variable known only by the constructors used with it becomes the sum of those
    /// constructors; where such sums are ambiguous (`ambiguous_sums`), that is an error.
    fn settle_sum(
        &mut self,
        v: &VName,
        span: Span,
        cs: std::collections::BTreeMap<Name, Vec<Type>>,
    ) {
        if self.ambiguous_sums {
            self.error(
                "ambiguous-type",
                span,
                format!(
                    "Type is ambiguous: a sum type with constructors {} whose full type is not known; add a type annotation.",
                    cs.keys().map(|k| format!("#{k}")).collect::<Vec<_>>().join(", ")
                ),
            );
        }
        let _ = self.uni.unify(&Type::var(v.clone()), &Type::Sum(cs));
    }

    /// Variables of the definition that its type does not mention: unconstrained types
    /// become `()`, sums become the constructors seen, sizes are ambiguous.
    fn resolve_leftovers(&mut self, entry: bool, fname: &str) {
        for v in self.def_vars.clone() {
            let Some(info) = self.uni.vars.get(&v).cloned() else {
                continue;
            };
            match info.constraint {
                Constraint::Free(_) | Constraint::Equality => {
                    let _ = self.uni.unify(&Type::var(v.clone()), &Type::unit());
                }
                Constraint::HasConstrs(cs) => self.settle_sum(&v, info.span, cs),
                Constraint::HasFields(fs) => {
                    self.error(
                        "ambiguous-type",
                        info.span,
                        format!(
                            "Type is ambiguous: a record with fields {} whose full type is not known.",
                            fs.keys().map(|k| format!("\"{k}\"")).collect::<Vec<_>>().join(", ")
                        ),
                    );
                    let _ = self.uni.unify(&Type::var(v.clone()), &Type::Record(fs));
                }
                Constraint::SizeFree if self.dynamic_origin.contains_key(&v) => {
                    let (span, msg) = self.dynamic_origin[&v].clone();
                    self.error("type-mismatch", span, msg.replace("{}", v.name()));
                    let _ = self.uni.unify_size(&Size::Var(v.clone()), &Size::Lit(0));
                }
                Constraint::SizeFree if self.uni.dynamic_sizes.contains(&v) => {
                    let u = self.uni.new_unknown(
                        v.name(),
                        info.level,
                        crate::unify::UnknownSource::Unify,
                        info.span,
                    );
                    let _ = self.uni.unify_size(&Size::Var(v.clone()), &Size::Var(u));
                }
                Constraint::SizeFree => {
                    let origin = self
                        .var_origin
                        .get(&v)
                        .map(|o| format!(" ({o})"))
                        .unwrap_or_default();
                    let msg = if entry {
                        format!(
                            "Ambiguous size \"{}\"{origin}: Entry point \"{fname}\" would be size-polymorphic; add an explicit type ascription.",
                            v.name()
                        )
                    } else {
                        format!(
                            "Ambiguous size \"{}\"{origin}; add an explicit type ascription.",
                            v.name()
                        )
                    };
                    self.error(
                        if entry {
                            "size-polymorphic-entry"
                        } else {
                            "ambiguous-size"
                        },
                        info.span,
                        msg,
                    )
                    .notes
                    .push("Add a type ascription to make the size known.".into());
                    let _ = self.uni.unify_size(&Size::Var(v.clone()), &Size::Lit(0));
                }
                _ => {}
            }
        }
    }

    /// Records final types, checks literal ranges, matches and patterns, and runs the
    /// causality and uniqueness passes over a finished definition.
    pub fn finish_def(&mut self, vb: Option<(&ValBind, &Type, bool)>) -> Option<Type> {
        self.apply_defaults();
        self.resolve_leftovers(false, "");
        for (span, t) in std::mem::take(&mut self.pending_types) {
            let z = self.uni.zonk(&t);
            self.info.exp_types.insert(span, z);
        }
        for (span, t) in std::mem::take(&mut self.pending_empty_rows) {
            let z = self.uni.zonk(&t);
            self.info.empty_array_rows.insert(span, z);
        }
        for lit in std::mem::take(&mut self.pending_literals) {
            let z = self.uni.zonk(&lit.ty);
            if let Type::Prim(p) = z {
                self.info.literal_types.insert(lit.span, p);
                if !lit.suffixed {
                    self.check_literal_range(lit.span, p, &lit.kind);
                }
            }
        }
        for (span, t, pats) in std::mem::take(&mut self.pending_matches) {
            self.check_exhaustive(span, &t, &pats);
        }
        for (p, t) in std::mem::take(&mut self.pending_irrefutable) {
            let z = self.uni.zonk(&t);
            if self.is_refutable(&p, &z) {
                self.error(
                    "refutable-pattern",
                    p.span,
                    "Refutable pattern not allowed here; use a match expression instead.",
                );
            }
        }
        if let Some((vb, ret, declared)) = vb {
            if !self.has_errors_since_def() {
                self.causality_check(vb);
            }
            if !self.has_errors_since_def() {
                return self.uniqueness_check(vb, ret, declared);
            }
        }
        None
    }

    fn has_errors_since_def(&self) -> bool {
        self.diags
            .iter()
            .skip(self.def_diag_start)
            .any(|d| d.is_error())
    }

    fn check_literal_range(&mut self, span: Span, p: PrimType, v: &LitValue) {
        let bad = match v {
            LitValue::Int { value, negative } => {
                let v = *value;
                match p {
                    PrimType::I8 => {
                        if *negative {
                            v > 128
                        } else {
                            v > 127
                        }
                    }
                    PrimType::I16 => {
                        if *negative {
                            v > 32768
                        } else {
                            v > 32767
                        }
                    }
                    PrimType::I32 => {
                        if *negative {
                            v > 2147483648
                        } else {
                            v > 2147483647
                        }
                    }
                    PrimType::I64 => {
                        if *negative {
                            v > 9223372036854775808
                        } else {
                            v > 9223372036854775807
                        }
                    }
                    PrimType::U8 => (*negative && v > 0) || v > 255,
                    PrimType::U16 => (*negative && v > 0) || v > 65535,
                    PrimType::U32 => (*negative && v > 0) || v > 4294967295,
                    PrimType::U64 => (*negative && v > 0) || v > 18446744073709551615,
                    PrimType::F16 => v > 65504,
                    PrimType::F32 => (v as f64) > f32::MAX as f64,
                    PrimType::F64 | PrimType::Bool => false,
                }
            }
            LitValue::Float { value, .. } => match p {
                PrimType::F16 => value.abs() > 65504.0,
                PrimType::F32 => value.abs() > f32::MAX as f64,
                PrimType::F64 => value.is_infinite(),
                _ => false,
            },
            LitValue::Char => false,
        };
        if bad {
            let shown = match v {
                LitValue::Int { value, negative } => {
                    format!("{}{value}", if *negative { "-" } else { "" })
                }
                LitValue::Float { value, negative } => {
                    format!("{}{value}", if *negative { "-" } else { "" })
                }
                LitValue::Char => "char".into(),
            };
            self.error(
                "literal-out-of-bounds",
                span,
                format!("Literal {shown} out of bounds for type {p}."),
            );
        }
    }

    fn check_entry(
        &mut self,
        vb: &ValBind,
        tparams: &[TParam],
        explicit_params: &[VName],
        ty: &Type,
        vname: &VName,
        explicit: bool,
    ) {
        let name = &vb.name;
        if tparams.iter().any(|p| matches!(p, TParam::Type { .. })) {
            self.error(
                "polymorphic-entry",
                name.span,
                format!(
                    "Entry point functions may not be polymorphic: \"{}\" has type parameters.",
                    name.name
                ),
            );
            return;
        }
        // Walk the parameters: every arrow of the type (entry points may be defined
        // point-free, as in `entry f = map g`).
        let mut params = Vec::new();
        let mut cur = ty.clone();
        let mut i = 0;
        let ret: RetType;
        loop {
            match cur {
                Type::Arrow(a) => {
                    let pname = vb
                        .params
                        .get(i)
                        .and_then(Pat::simple_name)
                        .map(|x| Name::from(x.name.as_str()));
                    params.push(EntryParam {
                        name: pname,
                        ty: a.param.clone(),
                    });
                    i += 1;
                    match &a.ret.ty {
                        Type::Arrow(_) if a.ret.ext.is_empty() => cur = a.ret.ty.clone(),
                        _ => {
                            ret = a.ret.clone();
                            break;
                        }
                    }
                }
                other => {
                    ret = RetType::plain(other);
                    break;
                }
            }
        }
        if params.iter().any(|p| p.ty.contains_fun()) || ret.ty.contains_fun() {
            self.error(
                "higher-order-entry",
                name.span,
                "Entry point functions may not be higher-order.",
            );
            return;
        }
        let mut param_sizes: Vec<VName> = Vec::new();
        for p in &params {
            param_sizes.extend(p.ty.size_vars());
        }
        for v in ret.ty.size_vars() {
            let bound_by_param = params.iter().any(|_| param_sizes.contains(&v));
            let is_param_name = vb.params.iter().any(|_| false);
            let is_ext = ret.ext.contains(&v);
            let is_global = self.uni.level_of(&v).is_none_or(|l| l == 0)
                && !tparams.iter().any(|t| t.name() == &v);
            let is_named_param = {
                let mut found = false;
                let mut c = ty.clone();
                while let Type::Arrow(a) = c {
                    if a.param_name.as_ref() == Some(&v) {
                        found = true;
                    }
                    c = a.ret.ty.clone();
                }
                found
            };
            if !(bound_by_param || is_param_name || is_ext || is_global || is_named_param) {
                self.error(
                    "size-polymorphic-entry",
                    name.span,
                    format!(
                        "Entry point functions must not be size-polymorphic in their return type: size \"{}\" is not determined by the parameters.",
                        v.name()
                    ),
                );
            }
        }
        // Size parameters must appear as array dimensions of parameters.
        let mut constructive = Vec::new();
        for p in &params {
            array_dims(&p.ty, &mut constructive);
        }
        for tp in tparams {
            if let TParam::Size { name: n } = tp
                && !constructive.contains(n)
                && explicit_params.contains(n)
                && param_sizes.contains(n)
            {
                self.error(
                        "nonconstructive-entry",
                        name.span,
                        format!(
                            "Entry point size parameter [{}] only used non-constructively in the parameter types.",
                            n.name()
                        ),
                    );
            }
        }
        // Values that only cross the entry boundary as opaque handles: warn, as the entry
        // point will be hard to call (declared entry points only, as in Futhark).
        if explicit {
            self.warn_opaque_entry(vb, &params, ty, name.span);
        }
        let size_params = tparams.iter().filter(|p| p.is_size()).cloned().collect();
        self.info.entries.push(EntryInfo {
            name: Name::from(name.name.as_str()),
            vname: vname.clone(),
            span: name.span,
            size_params,
            params,
            ret,
            explicit,
        });
    }

    /// Warns about an entry point's parameters or result that can only cross the entry
    /// boundary as opaque values.
    fn warn_opaque_entry(
        &mut self,
        vb: &ValBind,
        params: &[EntryParam],
        ty: &Type,
        fallback: Span,
    ) {
        if let Some(p) = vb
            .params
            .iter()
            .zip(params)
            .find(|(p, ep)| opaque_at_entry(&ep.ty) && !ascribed_nice(p))
            .map(|(p, _)| p)
        {
            self.warn(
                "opaque-entry",
                p.span,
                "Entry point parameter will have an opaque type, so the entry point will likely not be callable.",
            );
        } else {
            let mut rt = ty.clone();
            for _ in &vb.params {
                match rt {
                    Type::Arrow(a) => rt = a.ret.ty.clone(),
                    _ => break,
                }
            }
            if opaque_result(vb.ret.as_ref(), &rt) {
                self.warn(
                    "opaque-entry",
                    vb.ret.as_ref().map_or(fallback, |te| te.span),
                    "Entry point return type will have an opaque type, so the result will likely not be usable.",
                );
            }
        }
    }

    /// Builds the recursion information for the function being defined.
    pub fn make_rec_info(
        &self,
        name: &str,
        vname: &VName,
        params: &[(Type, Vec<crate::terms::pat::PatBind>)],
        pats: &[Pat],
    ) -> RecInfo {
        let ps = params
            .iter()
            .zip(pats)
            .map(|((t, binds), p)| {
                let pname = p
                    .simple_name()
                    .and_then(|x| binds.iter().find(|b| b.ident.name == x.name))
                    .map(|b| b.vname.clone());
                let r = self.uni.resolve(t);
                let is_fun = match &r {
                    Type::Arrow(_) => true,
                    Type::Var(v) => self.is_lifted_tparam(&v.name),
                    _ => false,
                };
                (pname, is_fun)
            })
            .collect();
        RecInfo {
            vname: vname.clone(),
            name: name.to_string(),
            params: ps,
        }
    }

    fn is_lifted_tparam(&self, v: &VName) -> bool {
        self.locals.iter().any(|l| {
            l.vname == *v
                && matches!(&l.kind, crate::checker::LocalKind::Type(b) if b.lifted == Liftedness::Lifted)
        })
    }
}

/// Copies the uniqueness of `src` onto the result of a function type after `n` parameters.
fn set_ret_uniqueness(t: &Type, n: usize, src: &Type) -> Type {
    match t {
        Type::Arrow(a) if n > 0 => {
            let mut a = a.clone();
            if n == 1 {
                a.ret.ty = copy_uniqueness(&a.ret.ty, src);
            } else {
                a.ret.ty = set_ret_uniqueness(&a.ret.ty, n - 1, src);
            }
            Type::Arrow(a)
        }
        _ => t.clone(),
    }
}

fn copy_uniqueness(t: &Type, src: &Type) -> Type {
    match (t, src) {
        (Type::Record(fs), Type::Record(ss)) => Type::Record(
            fs.iter()
                .map(|(k, x)| {
                    (
                        k.clone(),
                        ss.get(k)
                            .map(|s| copy_uniqueness(x, s))
                            .unwrap_or_else(|| x.clone()),
                    )
                })
                .collect(),
        ),
        (Type::Array(_) | Type::Var(_), s) => t.clone().with_unique(s.is_unique()),
        _ => t.clone(),
    }
}

/// Variables used directly as array dimensions (outside function types and abstract type
/// arguments).
fn array_dims(t: &Type, out: &mut Vec<VName>) {
    match t {
        Type::Array(a) => {
            for d in &a.shape {
                if let Size::Var(v) = d {
                    out.push(v.clone());
                }
            }
            array_dims(&a.elem, out);
        }
        Type::Record(fs) => fs.values().for_each(|t| array_dims(t, out)),
        Type::Sum(cs) => cs.values().flatten().for_each(|t| array_dims(t, out)),
        // A size argument of an abstract type may well be an array size inside it.
        Type::Var(v) => {
            for a in &v.args {
                if let crate::types::TypeArg::Size(Size::Var(x)) = a {
                    out.push(x.clone());
                }
            }
        }
        _ => {}
    }
}
