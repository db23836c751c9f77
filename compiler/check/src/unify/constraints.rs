//! Solving a unification variable against a type, and the constraints on variables
//! (overloaded primitive types, record fields, constructors, equality, liftedness).

use std::collections::BTreeMap;

use futhark_syntax::Span;

use super::{Constraint, UResult, Unifier, UnifyError, UnknownSource};
use crate::types::{Liftedness, Name, PrimType, Size, Type, VName};

impl Unifier {
    pub(crate) fn occurs(&self, v: &VName, t: &Type) -> bool {
        let mut found = false;
        t.each_tyvar(&mut |w| found |= w == v);
        found
    }

    /// Solves the type variable `v` with `t`, checking its constraint.
    pub(crate) fn link(&mut self, v: &VName, t: &Type, bound: &[VName]) -> UResult {
        let t = self.zonk(t);
        if let Type::Var(tv) = &t
            && tv.name == *v
        {
            return Ok(());
        }
        if self.occurs(v, &t) {
            return Err(UnifyError::Occurs {
                var: v.clone(),
                ty: t.to_string(),
            });
        }
        let info = self.vars[v].clone();
        let level = info.level;
        let mut t = t.with_unique(false);

        // Names bound by an enclosing function type under unification may not escape into
        // a variable, except into a lifted one where they become unknown sizes.
        let bound_here: Vec<VName> = t
            .size_vars()
            .into_iter()
            .filter(|n| bound.contains(n))
            .collect();
        let dependent = bound_here.iter().any(|b| self.arrow_params.contains(b));
        if dependent
            && !matches!(
                info.constraint,
                Constraint::Free(Liftedness::Lifted) | Constraint::Free(Liftedness::SizeLifted)
            )
        {
            return Err(UnifyError::Other(format!(
                "Type variable \"{}\" cannot be instantiated with \"{}\", whose size depends on a function parameter.",
                v.name(),
                t
            )));
        }
        // An existential size of a function's result (as in `filter p` passed to `map`)
        // differs from call to call: a non-lifted variable cannot hold it.
        if !bound_here.is_empty()
            && matches!(info.constraint, Constraint::Free(Liftedness::Unlifted))
        {
            return Err(UnifyError::Other(format!(
                "Type variable \"{}\" cannot be instantiated with \"{}\", whose size is existential (each application of the function makes a new size); only size-lifted type parameters may hide sizes.",
                v.name(),
                t
            )));
        }
        if !bound_here.is_empty() {
            // The names become unknown sizes fixed for this variable.
            let mut map = Vec::new();
            for b in &bound_here {
                let u = self.new_unknown(b.name(), level, UnknownSource::Unify, info.span);
                self.absorbed.push(u.clone());
                map.push((b.clone(), Size::Var(u)));
            }
            t = t.subst_sizes(&|n| map.iter().find(|(b, _)| b == n).map(|(_, s)| s.clone()));
        }

        self.scope_check(v, level, &t)?;

        match info.constraint.clone() {
            Constraint::Free(l) => {
                if l < Liftedness::Lifted {
                    self.at_most_lifted(&t, l).map_err(|_| {
                        if t.contains_fun() {
                            UnifyError::Other(format!(
                                "Type variable \"{}\" is non-lifted, so it cannot be instantiated with the functional type \"{}\" (only lifted type parameters may be a function type).",
                                v.name(),
                                t
                            ))
                        } else {
                            UnifyError::Other(format!(
                                "Type variable \"{}\" is non-lifted, but \"{}\" is lifted (it may hide sizes).",
                                v.name(),
                                t
                            ))
                        }
                    })?;
                }
                self.set_solved(v, t);
                Ok(())
            }
            Constraint::Overloaded(ps) => match &t {
                Type::Prim(p) if ps.contains(p) => {
                    self.set_solved(v, t);
                    Ok(())
                }
                Type::Var(tv) if tv.args.is_empty() && self.is_free_var(&tv.name) => {
                    self.constrain_one_of(&tv.name.clone(), &ps)?;
                    self.set_solved(v, t);
                    Ok(())
                }
                _ => Err(UnifyError::Other(format!(
                    "Type \"{t}\" is not one of {} (required by an overloaded use).",
                    crate::pretty::prim_list(&ps)
                ))),
            },
            Constraint::Equality => {
                self.equality(&t)?;
                self.set_solved(v, t);
                Ok(())
            }
            Constraint::HasFields(fs) => match &t {
                Type::Record(tfs) => {
                    for (k, ft) in &fs {
                        match tfs.get(k) {
                            Some(x) => self.unify_in(ft, x, bound, 1)?,
                            None => {
                                return Err(UnifyError::Other(format!(
                                    "Cannot unify record type with \"{t}\": no field \"{k}\"."
                                )));
                            }
                        }
                    }
                    self.set_solved(v, t);
                    Ok(())
                }
                Type::Var(tv) if tv.args.is_empty() && self.is_free_var(&tv.name) => {
                    let w = tv.name.clone();
                    self.merge_fields(&w, fs, bound)?;
                    self.set_solved(v, t);
                    Ok(())
                }
                _ => Err(UnifyError::Other(format!(
                    "Cannot unify record type with fields {} with type \"{t}\".",
                    fs.keys()
                        .map(|k| format!("\"{k}\""))
                        .collect::<Vec<_>>()
                        .join(", ")
                ))),
            },
            Constraint::HasConstrs(cs) => match &t {
                Type::Sum(tcs) => {
                    for (k, ps) in &cs {
                        match tcs.get(k) {
                            Some(ts) if ts.len() == ps.len() => {
                                for (a, b) in ps.iter().zip(ts) {
                                    self.unify_in(a, b, bound, 1)?;
                                }
                            }
                            Some(_) => return Err(UnifyError::Arity(k.clone())),
                            None => {
                                let mut missing: Vec<Name> = cs
                                    .keys()
                                    .filter(|c| !tcs.contains_key(*c))
                                    .cloned()
                                    .collect();
                                missing.sort();
                                return Err(UnifyError::Constrs(missing));
                            }
                        }
                    }
                    self.set_solved(v, t);
                    Ok(())
                }
                Type::Var(tv) if tv.args.is_empty() && self.is_free_var(&tv.name) => {
                    let w = tv.name.clone();
                    self.merge_constrs(&w, cs, bound)?;
                    self.set_solved(v, t);
                    Ok(())
                }
                _ => Err(UnifyError::Other(format!(
                    "Cannot unify type with constructors {} with type \"{t}\".",
                    cs.keys()
                        .map(|k| format!("#{k}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ))),
            },
            Constraint::Solved(_) | Constraint::SizeSolved(_) | Constraint::SizeFree => {
                self.set_solved(v, t);
                Ok(())
            }
        }
    }

    pub(crate) fn set_solved(&mut self, v: &VName, t: Type) {
        if let Some(i) = self.vars.get_mut(v) {
            i.constraint = Constraint::Solved(t);
        }
    }

    /// Every rigid name in `t` must be bound at `level` or above; unification variables in
    /// `t` are moved up to `level`.
    pub(crate) fn scope_check(&mut self, v: &VName, level: u32, t: &Type) -> UResult {
        if level == u32::MAX {
            return Ok(());
        }
        let mut names = Vec::new();
        t.each_tyvar(&mut |n| names.push(n.clone()));
        let sizes = t.free_size_vars();
        for n in names.iter().chain(sizes.iter()) {
            if let Some(info) = self.vars.get_mut(n) {
                if info.level > level {
                    info.level = level;
                }
            } else if let Some(r) = self.rigid.get(n)
                && r.level > level
                && r.unknown.is_none()
            {
                return Err(UnifyError::Scope {
                    var: v.name().to_string(),
                    name: n.clone(),
                    in_loop: false,
                });
            }
        }
        Ok(())
    }

    pub(crate) fn merge_fields(
        &mut self,
        w: &VName,
        fs: BTreeMap<Name, Type>,
        bound: &[VName],
    ) -> UResult {
        let winfo = self.vars[w].clone();
        match winfo.constraint {
            Constraint::Free(_) | Constraint::Equality => {
                if let Some(i) = self.vars.get_mut(w) {
                    i.constraint = Constraint::HasFields(fs);
                }
                Ok(())
            }
            Constraint::HasFields(mut wfs) => {
                for (k, t) in fs {
                    if let Some(x) = wfs.get(&k).cloned() {
                        self.unify_in(&x, &t, bound, 1)?;
                    } else {
                        wfs.insert(k, t);
                    }
                }
                if let Some(i) = self.vars.get_mut(w) {
                    i.constraint = Constraint::HasFields(wfs);
                }
                Ok(())
            }
            _ => Err(UnifyError::Other(
                "Cannot unify record type with a non-record type.".into(),
            )),
        }
    }

    pub(crate) fn merge_constrs(
        &mut self,
        w: &VName,
        cs: BTreeMap<Name, Vec<Type>>,
        bound: &[VName],
    ) -> UResult {
        let winfo = self.vars[w].clone();
        match winfo.constraint {
            Constraint::Free(_) | Constraint::Equality => {
                if let Some(i) = self.vars.get_mut(w) {
                    i.constraint = Constraint::HasConstrs(cs);
                }
                Ok(())
            }
            Constraint::HasConstrs(mut wcs) => {
                for (k, ts) in cs {
                    if let Some(xs) = wcs.get(&k).cloned() {
                        if xs.len() != ts.len() {
                            return Err(UnifyError::Arity(k));
                        }
                        for (x, t) in xs.iter().zip(&ts) {
                            self.unify_in(x, t, bound, 1)?;
                        }
                    } else {
                        wcs.insert(k, ts);
                    }
                }
                if let Some(i) = self.vars.get_mut(w) {
                    i.constraint = Constraint::HasConstrs(wcs);
                }
                Ok(())
            }
            _ => Err(UnifyError::Other(
                "Cannot unify type with constructors with a non-sum type.".into(),
            )),
        }
    }

    /// Restricts the free variable `w` to the given primitive types.
    pub(crate) fn constrain_one_of(&mut self, w: &VName, ps: &[PrimType]) -> UResult {
        let winfo = self.vars[w].clone();
        let new = match winfo.constraint {
            Constraint::Free(_) | Constraint::Equality => ps.to_vec(),
            Constraint::Overloaded(ws) => {
                let both: Vec<PrimType> = ws.iter().filter(|p| ps.contains(p)).copied().collect();
                if both.is_empty() {
                    return Err(UnifyError::Other(format!(
                        "Type constrained to one of {} but also one of {}.",
                        crate::pretty::prim_list(ps),
                        crate::pretty::prim_list(&ws)
                    )));
                }
                both
            }
            Constraint::HasFields(_) => {
                return Err(UnifyError::Other(format!(
                    "Cannot unify a type constrained to one of {} with type that must be a record.",
                    crate::pretty::prim_list(ps)
                )));
            }
            Constraint::HasConstrs(_) => {
                return Err(UnifyError::Other(format!(
                    "Cannot unify a type constrained to one of {} with a sum type.",
                    crate::pretty::prim_list(ps)
                )));
            }
            _ => return Ok(()),
        };
        if let Some(i) = self.vars.get_mut(w) {
            i.constraint = Constraint::Overloaded(new);
        }
        Ok(())
    }

    /// `t` must be one of the primitive types `ps`.
    pub fn must_be_one_of(&mut self, t: &Type, ps: &[PrimType]) -> UResult {
        let t = self.resolve(t);
        match &t {
            Type::Error => Ok(()),
            Type::Prim(p) if ps.contains(p) => Ok(()),
            Type::Var(tv) if tv.args.is_empty() && self.is_free_var(&tv.name) => {
                if ps.len() == 1 {
                    return self.unify(&Type::Prim(ps[0]), &t);
                }
                self.constrain_one_of(&tv.name.clone(), ps)
            }
            _ => Err(UnifyError::Other(format!(
                "Type \"{}\" is not one of {}.",
                self.zonk(&t),
                crate::pretty::prim_list(ps)
            ))),
        }
    }

    /// `t` must support equality: no function types anywhere.
    pub fn equality(&mut self, t: &Type) -> UResult {
        let t = self.zonk(t);
        if t.contains_fun() {
            return Err(UnifyError::Other(format!(
                "Type \"{t}\" does not support equality (it is a function type)."
            )));
        }
        let mut names = Vec::new();
        t.each_tyvar(&mut |n| names.push(n.clone()));
        for n in names {
            match self.vars.get(&n).map(|i| i.constraint.clone()) {
                Some(Constraint::Free(_)) => {
                    if let Some(i) = self.vars.get_mut(&n) {
                        i.constraint = Constraint::Equality;
                    }
                }
                Some(Constraint::HasConstrs(cs)) => {
                    for t in cs.values().flatten() {
                        self.equality(t)?;
                    }
                }
                Some(Constraint::HasFields(fs)) => {
                    for t in fs.values() {
                        self.equality(t)?;
                    }
                }
                Some(_) => {}
                None => {
                    // A rigid type parameter: only allowed if it cannot be a function, and even
                    // then Futhark has no equality on type parameters.
                    if (!self.rigid.contains_key(&n)
                        || self.rigid.get(&n).is_some_and(|r| r.unknown.is_none()))
                        && self.rigid.contains_key(&n)
                    {
                        return Err(UnifyError::Other(format!(
                            "Type \"{t}\" does not support equality (type parameter \"{}\").",
                            n.name()
                        )));
                    }
                }
            }
        }
        Ok(())
    }

    /// `t` must not be (or contain) a function type; unconstrained variables in it become
    /// unlifted.
    pub fn zero_order(&mut self, t: &Type) -> UResult {
        self.at_most_lifted(t, Liftedness::Unlifted)
    }

    /// `t` may be at most `max` lifted: never a function type, and no type parameter or
    /// abstract type of higher liftedness. Unconstrained variables in it are restricted.
    pub fn at_most_lifted(&mut self, t: &Type, max: Liftedness) -> UResult {
        let t = self.zonk(t);
        if t.contains_fun() {
            return Err(UnifyError::Other(format!(
                "Type \"{t}\" is a function type."
            )));
        }
        let mut names = Vec::new();
        t.each_tyvar(&mut |n| names.push(n.clone()));
        for n in names {
            if let Some(i) = self.vars.get_mut(&n) {
                if let Constraint::Free(l) = i.constraint {
                    i.constraint = Constraint::Free(l.min(max));
                }
            } else if let Some(l) = self.abstract_lifted.get(&n)
                && *l > max
            {
                return Err(UnifyError::Other(format!(
                    "Type \"{t}\" is lifted: \"{}\" may hide sizes or be a function type.",
                    n.name()
                )));
            }
        }
        Ok(())
    }

    /// The type must have a field `name`; returns its type.
    pub fn must_have_field(
        &mut self,
        t: &Type,
        name: &Name,
        level: u32,
        span: Span,
    ) -> UResult<Type> {
        let t = self.resolve(t);
        match &t {
            Type::Error => Ok(Type::Error),
            Type::Record(fs) => fs.get(name).cloned().ok_or_else(|| {
                UnifyError::Other(format!(
                    "Attempt to access field \"{name}\" of value of type \"{}\".",
                    self.zonk(&t)
                ))
            }),
            Type::Var(tv) if tv.args.is_empty() && self.is_free_var(&tv.name) => {
                let w = tv.name.clone();
                let winfo = self.vars[&w].clone();
                match winfo.constraint {
                    Constraint::HasFields(fs) if fs.contains_key(name) => Ok(fs[name].clone()),
                    Constraint::Free(_) | Constraint::HasFields(_) | Constraint::Equality => {
                        let ft = self.new_tyvar("t", level.min(winfo.level), span);
                        let mut m = BTreeMap::new();
                        m.insert(name.clone(), ft.clone());
                        self.merge_fields(&w, m, &[])?;
                        Ok(ft)
                    }
                    _ => Err(UnifyError::Other(format!(
                        "Attempt to access field \"{name}\" of value of type \"{}\".",
                        self.zonk(&t)
                    ))),
                }
            }
            _ => Err(UnifyError::Other(format!(
                "Attempt to access field \"{name}\" of value of type \"{}\".",
                self.zonk(&t)
            ))),
        }
    }

    /// The type must be a sum with constructor `c` carrying `payload`.
    pub fn must_have_constr(&mut self, t: &Type, c: &Name, payload: &[Type]) -> UResult {
        let t = self.resolve(t);
        match &t {
            Type::Error => Ok(()),
            Type::Sum(cs) => match cs.get(c) {
                Some(ts) if ts.len() == payload.len() => {
                    for (a, b) in ts.iter().zip(payload) {
                        self.unify(a, b)?;
                    }
                    Ok(())
                }
                Some(_) => Err(UnifyError::Arity(c.clone())),
                None => Err(UnifyError::Other(format!(
                    "Constructor \"#{c}\" is not present in type \"{}\".",
                    self.zonk(&t)
                ))),
            },
            Type::Var(tv) if tv.args.is_empty() && self.is_free_var(&tv.name) => {
                let mut m = BTreeMap::new();
                m.insert(c.clone(), payload.to_vec());
                self.merge_constrs(&tv.name.clone(), m, &[])
            }
            _ => Err(UnifyError::Other(format!(
                "Cannot unify type with constructors \"#{c}\" with type \"{}\" (not a sum type).",
                self.zonk(&t)
            ))),
        }
    }
}
