//! Matching modules against module types: ascription (sealing with fresh abstract types)
//! and functor application (substituting the argument's types for the parameter's abstract
//! types, with fresh names for the result's abstract types). Also substitution over
//! environments.

use std::sync::Arc;

use futhark_syntax::Span;
use rustc_hash::FxHashMap;

use crate::checker::Checker;
use crate::env::{AbsType, Env, FunSig, MTy, Mod, ModBinding, Scheme, TypeBinding, ValBinding};
use crate::types::{
    Liftedness, Name, RetType, Size, Subst, TParam, Type, TypeArg, VName, apply_type_fn,
};

/// A substitution of type names (abstract types) and value names (in sizes).
pub type SubstMap = FxHashMap<VName, Subst>;

pub fn subst_type(t: &Type, s: &SubstMap) -> Type {
    if s.is_empty() {
        return t.clone();
    }
    t.subst(&|v| s.get(v).cloned())
}

fn subst_ret(r: &RetType, s: &SubstMap) -> RetType {
    RetType {
        ext: r.ext.clone(),
        ty: subst_type(&r.ty, s),
    }
}

/// Where in a value's type a substituted size-lifted type occurs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Pos {
    /// Left of an arrow: its hidden sizes become implicit size parameters.
    Param,
    /// Right of an arrow (or in a type abbreviation): existential.
    Ret,
    /// The type of a constant: fixed but unknown.
    Top,
}

impl Checker<'_> {
    /// Substitutes in a value's type scheme. A size-lifted type (one with hidden sizes)
    /// substituted for an abstract type gets fresh sizes at each occurrence: size parameters
    /// in parameters, existentials in results.
    pub fn subst_scheme(&mut self, ps: &[TParam], t: &Type, s: &SubstMap) -> (Vec<TParam>, Type) {
        let share = self.share_in_env;
        let (mut ps, hidden, t) = self.subst_scheme_split(ps, t, s, share);
        ps.extend(hidden.into_iter().map(|name| TParam::Size { name }));
        (ps, t)
    }

    /// Like [`Checker::subst_scheme`], but returns the sizes hidden in parameter types
    /// separately.
    fn subst_scheme_split(
        &mut self,
        ps: &[TParam],
        t: &Type,
        s: &SubstMap,
        share: bool,
    ) -> (Vec<TParam>, Vec<VName>, Type) {
        if s.is_empty() {
            return (ps.to_vec(), vec![], t.clone());
        }
        let mut new_params = Vec::new();
        let mut top_ext = Vec::new();
        self.subst_memo.clear();
        self.subst_share = share;
        let t = self.subst_pos(t, s, Pos::Top, &mut new_params, &mut top_ext);
        self.subst_share = true;
        for e in top_ext {
            self.uni.bind_rigid(&e, 0);
        }
        (ps.to_vec(), new_params, t)
    }

    /// Substitutes in a type abbreviation's body; hidden sizes become its existentials.
    pub fn subst_binding(&mut self, r: &RetType, s: &SubstMap) -> RetType {
        if s.is_empty() {
            return r.clone();
        }
        let mut params = Vec::new();
        let mut ext = r.ext.clone();
        self.subst_memo.clear();
        let ty = self.subst_pos(&r.ty, s, Pos::Ret, &mut params, &mut ext);
        ext.extend(params);
        RetType { ext, ty }
    }

    fn subst_pos(
        &mut self,
        t: &Type,
        s: &SubstMap,
        pos: Pos,
        params: &mut Vec<VName>,
        ext: &mut Vec<VName>,
    ) -> Type {
        let mut memo = std::mem::take(&mut self.subst_memo);
        let r = self.subst_pos_memo(t, s, pos, params, ext, &mut memo);
        self.subst_memo = memo;
        r
    }

    /// `memo` remembers the sizes chosen for a size-lifted type at its occurrences in
    /// parameters, so that the same type in the result refers to the same sizes.
    fn subst_pos_memo(
        &mut self,
        t: &Type,
        s: &SubstMap,
        pos: Pos,
        params: &mut Vec<VName>,
        ext: &mut Vec<VName>,
        memo: &mut Vec<(String, Vec<(VName, Size)>)>,
    ) -> Type {
        match t {
            Type::Arrow(a) => {
                let param = self.subst_pos_memo(&a.param, s, Pos::Param, params, ext, memo);
                let mut here = a.ret.ext.clone();
                let ret = self.subst_pos_memo(&a.ret.ty, s, Pos::Ret, params, &mut here, memo);
                Type::Arrow(Box::new(crate::types::Arrow {
                    param_name: a.param_name.clone(),
                    param,
                    ret: RetType { ext: here, ty: ret },
                }))
            }
            Type::Array(a) => {
                let elem = self.subst_pos_memo(&a.elem, s, pos, params, ext, memo);
                let shape = a
                    .shape
                    .iter()
                    .map(|d| {
                        d.subst(&|v| match s.get(v) {
                            Some(Subst::Size(x)) => Some(x.clone()),
                            _ => None,
                        })
                    })
                    .collect();
                Type::array(elem, shape, a.unique)
            }
            Type::Record(fs) => Type::Record(
                fs.iter()
                    .map(|(k, x)| (k.clone(), self.subst_pos_memo(x, s, pos, params, ext, memo)))
                    .collect(),
            ),
            Type::Sum(cs) => Type::Sum(
                cs.iter()
                    .map(|(k, xs)| {
                        (
                            k.clone(),
                            xs.iter()
                                .map(|x| self.subst_pos_memo(x, s, pos, params, ext, memo))
                                .collect(),
                        )
                    })
                    .collect(),
            ),
            Type::Var(v) => {
                let args: Vec<TypeArg> = v
                    .args
                    .iter()
                    .map(|a| match a {
                        TypeArg::Type(x) => {
                            TypeArg::Type(self.subst_pos_memo(x, s, pos, params, ext, memo))
                        }
                        TypeArg::Size(d) => TypeArg::Size(d.subst(&|w| match s.get(w) {
                            Some(Subst::Size(x)) => Some(x.clone()),
                            _ => None,
                        })),
                    })
                    .collect();
                match s.get(&v.name) {
                    Some(Subst::TypeFn(ps, body)) => {
                        let r = apply_type_fn(ps, body, &args);
                        let key = format!("{}{:?}", v.name.id, args);
                        let mut map = Vec::new();
                        if let Some((_, m)) = memo.iter().find(|(k, _)| *k == key) {
                            for ((_, n), e) in m.iter().zip(&r.ext) {
                                map.push((e.clone(), n.clone()));
                            }
                        } else {
                            for e in &r.ext {
                                let n = self.fresh(e.name());
                                match pos {
                                    Pos::Param => params.push(n.clone()),
                                    Pos::Ret | Pos::Top => ext.push(n.clone()),
                                }
                                map.push((e.clone(), Size::Var(n)));
                            }
                            if pos == Pos::Param && !r.ext.is_empty() && self.subst_share {
                                memo.push((key, map.clone()));
                            }
                        }
                        let ty = r.ty.subst_sizes(&|w| {
                            map.iter().find(|(x, _)| x == w).map(|(_, d)| d.clone())
                        });
                        if v.unique { ty.with_unique(true) } else { ty }
                    }
                    Some(Subst::Type(x)) => {
                        if v.unique {
                            x.clone().with_unique(true)
                        } else {
                            x.clone()
                        }
                    }
                    _ => Type::Var(crate::types::TypeVar {
                        name: v.name.clone(),
                        unique: v.unique,
                        args,
                    }),
                }
            }
            Type::Prim(_) | Type::Error => t.clone(),
        }
    }

    pub fn subst_env(&mut self, env: &Env, s: &SubstMap) -> Env {
        if s.is_empty() {
            return env.clone();
        }
        let mut out = env.clone();
        let names: Vec<Name> = out.vals.keys().cloned().collect();
        for n in names {
            let b = out.vals.get(&n).cloned();
            if let Some(mut b) = b {
                if let Scheme::Poly(ps, t) = &*b.scheme {
                    let (ps, t) = self.subst_scheme(ps, t, s);
                    b.scheme = std::sync::Arc::new(Scheme::Poly(ps, t));
                }
                out.vals.insert(n, b);
            }
        }
        let names: Vec<Name> = out.types.keys().cloned().collect();
        for n in names {
            if let Some(mut b) = out.types.get(&n).cloned() {
                b.ty = self.subst_binding(&b.ty, s);
                if !b.ty.ext.is_empty() && b.lifted == Liftedness::Unlifted {
                    b.lifted = Liftedness::SizeLifted;
                }
                out.types.insert(n, b);
            }
        }
        let names: Vec<Name> = out.mods.keys().cloned().collect();
        for n in names {
            if let Some(mut b) = out.mods.get(&n).cloned() {
                b.m = self.subst_mod(&b.m, s);
                out.mods.insert(n, b);
            }
        }
        let names: Vec<Name> = out.modtypes.keys().cloned().collect();
        for n in names {
            if let Some(mut b) = out.modtypes.get(&n).cloned() {
                b.mty = self.subst_mty(&b.mty, s);
                out.modtypes.insert(n, b);
            }
        }
        out
    }

    pub fn subst_mod(&mut self, m: &Mod, s: &SubstMap) -> Mod {
        match m {
            Mod::Env(e) => Mod::Env(Arc::new(self.subst_env(e, s))),
            Mod::Fun(f) => {
                let param = self.subst_mty(&f.param, s);
                let ret = self.subst_mty(&f.ret, s);
                Mod::Fun(Arc::new(FunSig {
                    param_name: f.param_name.clone(),
                    param,
                    ret,
                }))
            }
        }
    }

    pub fn subst_mty(&mut self, m: &MTy, s: &SubstMap) -> MTy {
        MTy {
            abs: m.abs.clone(),
            m: self.subst_mod(&m.m, s),
        }
    }
}

/// Looks up the type binding at a path inside a module.
fn find_type<'e>(env: &'e Env, path: &[Name]) -> Option<&'e TypeBinding> {
    match path {
        [] => None,
        [t] => env.types.get(t),
        [m, rest @ ..] => match &env.mods.get(m)?.m {
            Mod::Env(e) => find_type(e, rest),
            Mod::Fun(_) => None,
        },
    }
}

fn path_string(prefix: &[Name], name: &str) -> String {
    let mut s = String::new();
    for p in prefix {
        s.push_str(p);
        s.push('.');
    }
    s.push_str(name);
    s
}

impl Checker<'_> {
    /// Gives the abstract types of a module type fresh names (used whenever a named module
    /// type is referenced, and for generative functor application).
    pub fn freshen_mty(&mut self, mty: &MTy, prefix: &str) -> MTy {
        let mut s = SubstMap::default();
        let mut abs = Vec::new();
        for a in &mty.abs {
            let display = if prefix.is_empty() {
                a.path
                    .iter()
                    .map(|x| x.to_string())
                    .collect::<Vec<_>>()
                    .join(".")
            } else {
                format!(
                    "{prefix}.{}",
                    a.path
                        .iter()
                        .map(|x| x.to_string())
                        .collect::<Vec<_>>()
                        .join(".")
                )
            };
            let v = self.fresh(&display);
            self.abstract_lifted.insert(v.clone(), a.lifted);
            self.uni.abstract_lifted.insert(v.clone(), a.lifted);
            s.insert(
                a.vname.clone(),
                Subst::TypeFn(a.params.clone(), RetType::plain(abs_type(&v, &a.params))),
            );
            abs.push(AbsType {
                vname: v,
                params: a.params.clone(),
                lifted: a.lifted,
                path: a.path.clone(),
            });
        }
        // Values get fresh names too, so that two parameters of the same module type do not
        // share the names their sizes refer to.
        let mut renames: Vec<(VName, VName)> = Vec::new();
        collect_vals(&mty.m, &mut |v| {
            if !renames.iter().any(|(a, _)| a == v) {
                renames.push((v.clone(), VName::new(v.name.clone(), 0)));
            }
        });
        for r in renames.iter_mut() {
            r.1 = self.fresh(r.0.name());
            s.insert(r.0.clone(), Subst::Size(Size::Var(r.1.clone())));
        }
        let m = self.subst_mod(&mty.m, &s);
        MTy {
            abs,
            m: rename_vals(&m, &renames),
        }
    }

    /// Matches module `actual` against module type `spec`. On success returns the
    /// substitution from the spec's abstract types (and values) to the actual module's.
    /// Reports mismatches at `span` and returns `None`.
    pub fn match_mod(&mut self, actual: &Mod, spec: &MTy, span: Span) -> Option<SubstMap> {
        let mut s = SubstMap::default();
        // First the abstract types.
        let mut ok = true;
        for a in &spec.abs {
            let Mod::Env(actual_env) = actual else {
                break;
            };
            let name = a.path.last().cloned().unwrap_or_else(|| Name::from("?"));
            let pstr = path_string(&a.path[..a.path.len().saturating_sub(1)], &name);
            match find_type(actual_env, &a.path) {
                None => {
                    self.error(
                        "module-mismatch",
                        span,
                        format!("Module does not define a type named \"{pstr}\" (the module type requires one)."),
                    );
                    ok = false;
                }
                Some(b) => {
                    let mut ok_all = true;
                    if b.params.len() != a.params.len()
                        || b.params
                            .iter()
                            .zip(&a.params)
                            .any(|(x, y)| x.is_size() != y.is_size())
                    {
                        self.error(
                            "module-mismatch",
                            span,
                            format!(
                                "Module defines\n  type {pstr}{}\nbut module type requires\n  type {pstr}{}\n(the type parameters differ).",
                                spaced_params(&b.params),
                                spaced_params(&a.params)
                            ),
                        );
                        ok = false;
                        continue;
                    }
                    if b.lifted > a.lifted {
                        let what = match a.lifted {
                            Liftedness::Unlifted => "non-lifted",
                            Liftedness::SizeLifted => "size-lifted",
                            Liftedness::Lifted => "lifted",
                        };
                        self.error(
                            "module-mismatch",
                            span,
                            format!(
                                "Type \"{pstr}\" is declared {what} in the module type, but is more lifted in the module (\"{}\").",
                                b.ty
                            ),
                        );
                        ok = false;
                        continue;
                    }
                    // Abstract size parameters must be array sizes in the definition.
                    for p in &b.params {
                        if let TParam::Size { name: n } = p {
                            let mut ok = false;
                            b.ty.ty.each_size(&mut |s, c| {
                                ok |= c && matches!(s, crate::types::Size::Var(v) if v == n)
                            });
                            if !ok {
                                self.error(
                                    "module-mismatch",
                                    span,
                                    format!(
                                        "Type \"{pstr}\" cannot be made abstract because size parameter \"[{}]\" is not used as an array size in the definition (it is not used constructively).",
                                        n.name()
                                    ),
                                );
                                ok_all = false;
                            }
                        }
                    }
                    // Parameter liftedness: the module's parameters must accept at least
                    // what the module type's do.
                    for (x, y) in b.params.iter().zip(&a.params) {
                        if let (TParam::Type { lifted: lx, .. }, TParam::Type { lifted: ly, .. }) =
                            (x, y)
                            && lx < ly
                        {
                            self.error(
                                    "module-mismatch",
                                    span,
                                    format!(
                                        "Type \"{pstr}\" has a parameter less lifted than the module type requires (non-lifted parameter)."
                                    ),
                                );
                            ok = false;
                        }
                    }
                    if !ok_all {
                        ok = false;
                        continue;
                    }
                    let params = a.params.clone();
                    let args: Vec<TypeArg> = params
                        .iter()
                        .map(|p| match p {
                            TParam::Size { name } => TypeArg::Size(Size::Var(name.clone())),
                            TParam::Type { name, .. } => TypeArg::Type(Type::var(name.clone())),
                        })
                        .collect();
                    // Hidden sizes stay existential: each occurrence gets its own.
                    let body = apply_type_fn(&b.params, &b.ty, &args);
                    s.insert(a.vname.clone(), Subst::TypeFn(params, body));
                }
            }
        }
        if !ok {
            return None;
        }
        let spec_m = self.subst_mod(&spec.m, &s);
        let abs_paths: Vec<Vec<Name>> = spec.abs.iter().map(|a| a.path.clone()).collect();
        if self.match_mod_items(actual, &spec_m, &[], span, &mut s, &abs_paths) {
            Some(s)
        } else {
            None
        }
    }

    /// Checks the values, types and modules of a module against a spec (whose abstract
    /// types are already substituted). Value names of the spec map to the module's.
    fn match_mod_items(
        &mut self,
        actual: &Mod,
        spec: &Mod,
        path: &[Name],
        span: Span,
        s: &mut SubstMap,
        abs_paths: &[Vec<Name>],
    ) -> bool {
        match (actual, spec) {
            (Mod::Fun(_), Mod::Env(_)) => {
                self.error(
                    "module-mismatch",
                    span,
                    "Cannot match parametric module with non-parametric module type.",
                );
                false
            }
            (Mod::Env(_), Mod::Fun(_)) => {
                self.error(
                    "module-mismatch",
                    span,
                    "Cannot match non-parametric module with parametric module type.",
                );
                false
            }
            (Mod::Fun(fa), Mod::Fun(fs)) => self.match_funsig(fa, fs, span),
            (Mod::Env(a), Mod::Env(sp)) => {
                let mut ok = true;
                // Values of type i64 may appear in sizes of later specs.
                for (name, sb) in &sp.vals {
                    if let Some(ab) = a.vals.get(name) {
                        s.insert(sb.vname.clone(), Subst::Size(Size::Var(ab.vname.clone())));
                    }
                }
                let mut order = sp.order.clone();
                order.sort_by_key(|(ns, _)| match ns {
                    crate::env::Namespace::Type => 0,
                    crate::env::Namespace::ModType => 1,
                    crate::env::Namespace::Mod => 2,
                    crate::env::Namespace::Val => 3,
                });
                for (ns, name) in order {
                    let p = path_string(path, &name);
                    match ns {
                        crate::env::Namespace::Type => {
                            let Some(st) = sp.types.get(&name) else {
                                continue;
                            };
                            let mut full = path.to_vec();
                            full.push(name.clone());
                            if abs_paths.contains(&full) {
                                // Abstract types were matched already.
                                continue;
                            }
                            let Some(at) = a.types.get(&name) else {
                                self.error(
                                    "module-mismatch",
                                    span,
                                    format!("Module does not define a type named \"{p}\" (the module type requires one)."),
                                );
                                ok = false;
                                continue;
                            };
                            if !self.types_equal(at, st, s) {
                                let sty = subst_ret(&st.ty, s);
                                let aty = subst_ret(&at.ty, s);
                                self.error(
                                    "module-mismatch",
                                    span,
                                    format!(
                                        "Module defines\n  type {p}{} = {aty}\nbut module type requires\n  type {p}{} = {sty}",
                                        spaced_params(&at.params),
                                        spaced_params(&st.params)
                                    ),
                                );
                                ok = false;
                            }
                        }
                        crate::env::Namespace::Val => {
                            let Some(sv) = sp.vals.get(&name) else {
                                continue;
                            };
                            let Some(av) = a.vals.get(&name) else {
                                self.error(
                                    "module-mismatch",
                                    span,
                                    format!("Module does not define a value named \"{p}\" (the module type requires one)."),
                                );
                                ok = false;
                                continue;
                            };
                            if !self.value_matches(av, sv, s, &p, span) {
                                ok = false;
                            }
                        }
                        crate::env::Namespace::Mod => {
                            let Some(sm) = sp.mods.get(&name) else {
                                continue;
                            };
                            let Some(am) = a.mods.get(&name) else {
                                self.error(
                                    "module-mismatch",
                                    span,
                                    format!("Module does not define a module named \"{p}\" (the module type requires one)."),
                                );
                                ok = false;
                                continue;
                            };
                            let mut sub = path.to_vec();
                            sub.push(name.clone());
                            let sm_m = self.subst_mod(&sm.m, s);
                            if !self.match_mod_items(&am.m, &sm_m, &sub, span, s, abs_paths) {
                                ok = false;
                            }
                        }
                        crate::env::Namespace::ModType => {}
                    }
                }
                ok
            }
        }
    }

    /// A functor matches a functor type if its parameter accepts the spec's parameter and its
    /// result matches the spec's result.
    fn match_funsig(&mut self, actual: &FunSig, spec: &FunSig, span: Span) -> bool {
        // The spec's parameter must match the actual parameter type (contravariance).
        let Some(s1) = self.match_mod(&spec.param.m, &actual.param, span) else {
            return false;
        };
        let actual_ret = self.subst_mty(&actual.ret, &s1);
        let actual_ret = self.freshen_mty(&actual_ret, "");
        let spec_ret = spec.ret.clone();
        self.match_mod(&actual_ret.m, &spec_ret, span).is_some()
    }

    fn types_equal(&mut self, a: &TypeBinding, s: &TypeBinding, subst: &SubstMap) -> bool {
        if a.params.len() != s.params.len() {
            return false;
        }
        let args: Vec<TypeArg> = s
            .params
            .iter()
            .map(|p| match p {
                TParam::Size { name } => TypeArg::Size(Size::Var(name.clone())),
                TParam::Type { name, .. } => TypeArg::Type(Type::var(name.clone())),
            })
            .collect();
        let at = apply_type_fn(&a.params, &subst_ret(&a.ty, subst), &args);
        let st = subst_ret(&s.ty, subst);
        if at.ext.len() != st.ext.len() {
            return false;
        }
        let ren: Vec<(VName, Size)> = at
            .ext
            .iter()
            .cloned()
            .zip(st.ext.iter().map(|e| Size::Var(e.clone())))
            .collect();
        let aty = at
            .ty
            .subst_sizes(&|v| ren.iter().find(|(x, _)| x == v).map(|(_, s)| s.clone()));
        let mut u = crate::unify::Unifier::new(u32::MAX - 1);
        u.unify(&st.ty, &aty).is_ok()
    }

    /// The module's value must be at least as general as the spec, with compatible
    /// uniqueness.
    fn value_matches(
        &mut self,
        av: &ValBinding,
        sv: &ValBinding,
        s: &SubstMap,
        path: &str,
        span: Span,
    ) -> bool {
        let (sps, hidden, st) = match &*sv.scheme {
            Scheme::Poly(ps, t) => self.subst_scheme_split(ps, t, s, false),
            Scheme::Overloaded(_) => return true,
        };
        let saved_level = self.level;
        self.level = 1;
        // The spec's type parameters are rigid.
        let mut rigid = Vec::new();
        for p in &sps {
            let v = self.fresh(p.name().name());
            self.uni.bind_rigid(&v, 1);
            if let TParam::Type { lifted, .. } = p {
                self.uni.abstract_lifted.insert(v.clone(), *lifted);
            }
            rigid.push((p.name().clone(), v, p.is_size()));
        }
        // Sizes hidden in parameters by size-lifted types may be anything.
        for h in hidden {
            let v = self.new_sizevar(h.name(), span);
            rigid.push((h, v, true));
        }
        let st = st.subst(&|v| {
            rigid
                .iter()
                .find(|(n, _, _)| n == v)
                .map(|(_, r, is_size)| {
                    if *is_size {
                        Subst::Size(Size::Var(r.clone()))
                    } else {
                        Subst::Type(Type::var(r.clone()))
                    }
                })
        });
        let r = crate::checker::ValRef::Global(av.clone());
        let at = self.instantiate(&r, span);
        let res = self.uni.unify(&st, &at);
        self.level = saved_level;
        let spec_line = format!("val {} : {}", sv.def.name, st);
        match res {
            Ok(()) => {
                let at = self.uni.zonk(&at);
                if !uniqueness_compatible(&st, &at) {
                    self.error(
                        "module-mismatch",
                        span,
                        format!(
                            "Module type specifies\n  {spec_line}\nbut module provides\n  val {} : {}\n(for \"{path}\", uniqueness differs)",
                            sv.def.name, at
                        ),
                    );
                    return false;
                }
                true
            }
            Err(e) => {
                let at = self.uni.zonk(&at);
                let defaulted = self.defaulted_defs.contains(&av.vname);
                self.error(
                    "module-mismatch",
                    span,
                    format!(
                        "Module type specifies\n  {spec_line}\nbut module provides\n  val {} : {}\nfor \"{path}\": {}",
                        sv.def.name,
                        at,
                        e.message()
                    ),
                );
                if defaulted && let Some(d) = self.diags.last_mut() {
                    d.notes.push("Default type i32 or f64 was chosen for an overloaded type in this definition.".into());
                }
                false
            }
        }
    }

    /// Seals a module with a module type: the result has exactly the spec's contents, with
    /// the spec's abstract types replaced by fresh abstract types (named after `bind_path`)
    /// unless `transparent`.
    pub fn ascribe(
        &mut self,
        actual: &Mod,
        spec: &MTy,
        span: Span,
        bind_path: &str,
    ) -> Option<(Mod, Vec<AbsType>)> {
        let s = self.match_mod(actual, spec, span)?;
        let fresh = self.freshen_mty(spec, bind_path);
        let _ = &s;
        let result = self.seal(actual, &fresh.m);
        Some((result, fresh.abs))
    }

    /// Builds the sealed module: spec contents, with value names of the actual module.
    fn seal(&mut self, actual: &Mod, spec: &Mod) -> Mod {
        match (actual, spec) {
            (Mod::Env(a), Mod::Env(sp)) => {
                let mut out = Env::default();
                let mut value_names: SubstMap = SubstMap::default();
                for (name, sv) in &sp.vals {
                    if let Some(av) = a.vals.get(name) {
                        value_names
                            .insert(sv.vname.clone(), Subst::Size(Size::Var(av.vname.clone())));
                    }
                }
                for (ns, name) in &sp.order {
                    match ns {
                        crate::env::Namespace::Val => {
                            if let (Some(sv), Some(av)) = (sp.vals.get(name), a.vals.get(name)) {
                                let scheme = match &*sv.scheme {
                                    Scheme::Poly(ps, t) => std::sync::Arc::new(Scheme::Poly(
                                        ps.clone(),
                                        subst_type(t, &value_names),
                                    )),
                                    _ => sv.scheme.clone(),
                                };
                                // Hover shows the spec's documentation when the
                                // implementation has none.
                                let mut def = av.def.clone();
                                if def.doc.is_none() {
                                    def.doc = sv.def.doc.clone();
                                }
                                out.insert_val(
                                    name.clone(),
                                    ValBinding {
                                        vname: av.vname.clone(),
                                        scheme,
                                        def,
                                    },
                                );
                            }
                        }
                        crate::env::Namespace::Type => {
                            if let Some(st) = sp.types.get(name) {
                                let mut b = st.clone();
                                b.ty = subst_ret(&b.ty, &value_names);
                                if let Some(at) = a.types.get(name) {
                                    b.def = at.def.clone();
                                }
                                out.insert_type(name.clone(), b);
                            }
                        }
                        crate::env::Namespace::Mod => {
                            if let (Some(sm), Some(am)) = (sp.mods.get(name), a.mods.get(name)) {
                                let m = self.seal(&am.m, &sm.m);
                                out.insert_mod(
                                    name.clone(),
                                    ModBinding {
                                        vname: am.vname.clone(),
                                        m,
                                        def: am.def.clone(),
                                    },
                                );
                            }
                        }
                        crate::env::Namespace::ModType => {
                            if let Some(b) = sp.modtypes.get(name) {
                                out.insert_modtype(name.clone(), b.clone());
                            }
                        }
                    }
                }
                Mod::Env(Arc::new(out))
            }
            (_, spec) => spec.clone(),
        }
    }

    /// Applies a functor to an argument module: the result has the functor's result type
    /// with the parameter's abstract types replaced by the argument's and fresh abstract
    /// types of its own.
    pub fn apply_functor(
        &mut self,
        f: &FunSig,
        arg: &Mod,
        span: Span,
        bind_path: &str,
    ) -> Option<(Mod, Vec<AbsType>)> {
        let s = self.match_mod(arg, &f.param, span)?;
        // In a functor's result, a size-lifted argument type occurring in both a parameter
        // and the result of a function refers to the same sizes.
        self.share_in_env = true;
        let ret = self.subst_mty(&f.ret, &s);
        self.share_in_env = false;
        let fresh = self.freshen_mty(&ret, bind_path);
        Some((fresh.m, fresh.abs))
    }
}

fn collect_vals(m: &Mod, f: &mut impl FnMut(&VName)) {
    if let Mod::Env(e) = m {
        for b in e.vals.values() {
            f(&b.vname);
        }
        for b in e.mods.values() {
            collect_vals(&b.m, f);
        }
    }
}

fn rename_vals(m: &Mod, renames: &[(VName, VName)]) -> Mod {
    match m {
        Mod::Env(e) => {
            let mut out = (**e).clone();
            for b in out.vals.values_mut() {
                if let Some((_, n)) = renames.iter().find(|(o, _)| *o == b.vname) {
                    b.vname = n.clone();
                }
            }
            for b in out.mods.values_mut() {
                b.m = rename_vals(&b.m, renames);
            }
            Mod::Env(Arc::new(out))
        }
        f => f.clone(),
    }
}

fn abs_type(v: &VName, params: &[TParam]) -> Type {
    Type::Var(crate::types::TypeVar {
        name: v.clone(),
        unique: false,
        args: params
            .iter()
            .map(|p| match p {
                TParam::Size { name } => TypeArg::Size(Size::Var(name.clone())),
                TParam::Type { name, .. } => TypeArg::Type(Type::var(name.clone())),
            })
            .collect(),
    })
}

/// The spec's uniqueness must be honoured: a unique result must be unique, and a parameter
/// may only be consumed if the spec says so.
fn uniqueness_compatible(spec: &Type, actual: &Type) -> bool {
    match (spec, actual) {
        (Type::Arrow(s), Type::Arrow(a)) => {
            if a.param.is_unique() && !s.param.is_unique() {
                return false;
            }
            uniqueness_compatible(&s.ret.ty, &a.ret.ty)
        }
        (Type::Record(fs), Type::Record(fa)) => fs
            .iter()
            .all(|(k, t)| fa.get(k).is_none_or(|u| uniqueness_compatible(t, u))),
        (s, a) => !s.is_unique() || a.is_unique(),
    }
}

/// Type parameters as written after a type's name: ` [n] 'a`, or nothing.
fn spaced_params(ps: &[TParam]) -> String {
    crate::pretty::tparams_prefix(ps)
        .split_whitespace()
        .map(|x| format!(" {x}"))
        .collect()
}
