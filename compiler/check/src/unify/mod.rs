//! Unification of types and sizes with a constraint store.
//!
//! Unification variables (for types and for sizes) live in [`Unifier::vars`] with a *level*:
//! the depth of scope at which they were created. A variable may only be solved with a type
//! whose rigid names (type parameters, size parameters, local variables, unknown sizes) are
//! bound at the same or a shallower level; otherwise the name would escape its scope
//! (`scope-violation`). Solving lowers the levels of other variables in the solution.
//!
//! Type variables carry constraints from their uses (overloaded literals, record fields,
//! constructors, equality, liftedness) that are checked when they are solved.

mod branches;
mod constraints;

use std::collections::BTreeMap;

use futhark_syntax::Span;
use rustc_hash::FxHashMap;

use crate::types::{Arrow, Liftedness, Name, PrimType, RetType, Size, Subst, Type, TypeArg, VName};

/// Hands out fresh [`VName`]s unique to one file (or REPL cell).
#[derive(Clone, Debug)]
pub struct NameSupply {
    file: u32,
    counter: u32,
}

impl NameSupply {
    pub fn new(file: u32) -> NameSupply {
        NameSupply { file, counter: 0 }
    }

    /// The file (or cell) whose names this supply makes.
    pub fn file(&self) -> u32 {
        self.file
    }

    /// How many names were handed out (the counter part of the last id).
    pub fn counter(&self) -> u32 {
        self.counter
    }

    /// Continues numbering at `counter` (top-level declarations start at fixed points so
    /// that re-checking one of them leaves the names of the others as they were).
    pub fn set_counter(&mut self, counter: u32) {
        self.counter = counter;
    }

    pub fn fresh(&mut self, name: impl Into<Name>) -> VName {
        self.counter = self.counter.wrapping_add(1);
        VName::new(name, ((self.file as u64) << 32) | self.counter as u64)
    }
}

/// What is known about a unification variable.
#[derive(Clone, Debug)]
pub enum Constraint {
    /// Any type of at most this liftedness.
    Free(Liftedness),
    /// One of these primitive types (overloaded literals and operators).
    Overloaded(Vec<PrimType>),
    /// Any type supporting `==`.
    Equality,
    /// A record with at least these fields.
    HasFields(BTreeMap<Name, Type>),
    /// A sum type with at least these constructors.
    HasConstrs(BTreeMap<Name, Vec<Type>>),
    Solved(Type),
    /// A size not yet known.
    SizeFree,
    SizeSolved(Size),
}

#[derive(Clone, Debug)]
pub struct VarInfo {
    pub level: u32,
    pub constraint: Constraint,
    /// Where the variable arose, for "ambiguous type" diagnostics and notes.
    pub span: Span,
}

/// Why a rigid size is unknown, for notes in diagnostics.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UnknownSource {
    /// An existential returned by this function.
    Ret(Option<String>),
    /// A function argument that is not a variable or constant.
    Arg(Option<String>),
    Slice,
    Range,
    /// Branches of a conditional with different sizes.
    Cond,
    /// A loop parameter whose size changes.
    Loop,
    /// A size whose variable went out of scope.
    OutOfScope(String),
    /// An anonymous dimension in a coercion or abbreviation.
    Coerce,
    /// Invented to stand for an existential absorbed by a lifted type variable.
    Unify,
}

/// A rigid name bound in the definition being checked.
#[derive(Clone, Debug)]
pub struct RigidInfo {
    pub level: u32,
    /// `Some` for unknown sizes (existentials made concrete at a use).
    pub unknown: Option<(UnknownSource, Span)>,
    /// Set for sizes of loop parameters that change between iterations.
    pub loop_variant: bool,
}

/// Why two types failed to unify. The caller adds context ("Cannot apply …").
#[derive(Clone, Debug)]
pub enum UnifyError {
    Types {
        expected: Type,
        actual: Type,
    },
    Sizes {
        expected: Size,
        actual: Size,
    },
    Fields(Vec<Name>),
    Constrs(Vec<Name>),
    Arity(Name),
    Occurs {
        var: VName,
        ty: String,
    },
    Scope {
        var: String,
        name: VName,
        in_loop: bool,
    },
    /// A function consuming its argument where a non-consuming one is expected.
    ConsumingParam,
    /// A mismatch inside a record field (for the "When matching…" breadcrumb).
    InField(Name, Box<UnifyError>),
    Other(String),
}

impl UnifyError {
    pub fn message(&self) -> String {
        match self {
            UnifyError::Types { expected, actual } => {
                format!("Types \"{expected}\" and \"{actual}\" do not match.")
            }
            UnifyError::Sizes { expected, actual } => {
                format!("Sizes \"{expected}\" and \"{actual}\" do not match.")
            }
            UnifyError::Fields(fs) => {
                let names: Vec<&str> = fs.iter().map(|f| &**f).collect();
                format!(
                    "Cannot unify record types: unshared fields: {}.",
                    names.join(", ")
                )
            }
            UnifyError::Constrs(cs) => {
                let names: Vec<String> = cs.iter().map(|c| format!("#{c}")).collect();
                format!("Unshared constructors: {}.", names.join(", "))
            }
            UnifyError::Arity(c) => {
                format!("Constructor \"#{c}\" has payloads that differ in arity.")
            }
            UnifyError::Occurs { var, ty } => format!(
                "Occurs check: cannot instantiate \"{}\" with \"{ty}\" (the type would be infinite).",
                var.name()
            ),
            UnifyError::Scope { var, name, in_loop } => {
                if *in_loop {
                    format!(
                        "Size \"{}\" is created inside the loop body, but the loop parameter \"{var}\" needs it.",
                        name.name()
                    )
                } else {
                    format!(
                        "Cannot unify \"{var}\" with a type mentioning \"{}\" (scope-violation): \"{}\" is bound in a deeper scope.",
                        name.name(),
                        name.name()
                    )
                }
            }
            UnifyError::InField(f, inner) => {
                format!(
                    "{}\nWhen matching types of record field \"{f}\".",
                    inner.message()
                )
            }
            UnifyError::ConsumingParam => {
                "Parameter types are incompatible regarding consuming their arguments: a function that consumes its argument cannot be used where a non-consuming function is expected.".into()
            }
            UnifyError::Other(s) => s.clone(),
        }
    }

    pub fn code(&self) -> &'static str {
        match self {
            UnifyError::Occurs { .. } => "occurs-check",
            UnifyError::Scope { in_loop: false, .. } => "scope-violation",
            UnifyError::Scope { in_loop: true, .. } => "loop-variant-escape",
            UnifyError::InField(_, inner) => inner.code(),
            UnifyError::ConsumingParam => "unify-consuming-param",
            _ => "type-mismatch",
        }
    }
}

pub type UResult<T = ()> = Result<T, UnifyError>;

#[derive(Clone, Debug)]
pub struct Unifier {
    pub supply: NameSupply,
    pub vars: FxHashMap<VName, VarInfo>,
    pub rigid: FxHashMap<VName, RigidInfo>,
    /// Set while unifying branch types whose sizes were merged beforehand.
    ignore_sizes: bool,
    /// Unknown sizes created since the caller last looked (drained by the checker to note
    /// which expression produced them).
    pub created: Vec<VName>,
    /// Size variables standing for loop parameter sizes, for clearer scope errors.
    pub loop_vars: rustc_hash::FxHashSet<VName>,
    /// Liftedness of abstract types and type parameters (for instantiating unlifted type
    /// variables).
    pub abstract_lifted: FxHashMap<VName, Liftedness>,
    /// Unknown sizes invented when a lifted type variable absorbed an existential size.
    pub absorbed: Vec<VName>,
    /// Parameter names of function types being unified (dependent sizes).
    arrow_params: Vec<VName>,
    /// Size variables left undetermined by a run-time-checked size (see `unify_size_in`).
    pub dynamic_sizes: Vec<VName>,
    /// Unknown sizes made for pairs of differing branch sizes, during one merge.
    merge_memo: Vec<(Size, Size, Size)>,
}

impl Unifier {
    pub fn new(file: u32) -> Unifier {
        Unifier {
            supply: NameSupply::new(file),
            vars: FxHashMap::default(),
            rigid: FxHashMap::default(),
            ignore_sizes: false,
            created: Vec::new(),
            loop_vars: Default::default(),
            abstract_lifted: FxHashMap::default(),
            merge_memo: Vec::new(),
            dynamic_sizes: Vec::new(),
            arrow_params: Vec::new(),
            absorbed: Vec::new(),
        }
    }

    pub fn fresh_name(&mut self, name: &str) -> VName {
        self.supply.fresh(name)
    }

    pub fn new_var(&mut self, name: &str, level: u32, constraint: Constraint, span: Span) -> VName {
        let v = self.supply.fresh(name);
        self.vars.insert(
            v.clone(),
            VarInfo {
                level,
                constraint,
                span,
            },
        );
        v
    }

    pub fn new_tyvar(&mut self, name: &str, level: u32, span: Span) -> Type {
        Type::var(self.new_var(name, level, Constraint::Free(Liftedness::Lifted), span))
    }

    pub fn new_sizevar(&mut self, name: &str, level: u32, span: Span) -> VName {
        self.new_var(name, level, Constraint::SizeFree, span)
    }

    /// A fresh rigid unknown size at `level`.
    pub fn new_unknown(&mut self, name: &str, level: u32, src: UnknownSource, span: Span) -> VName {
        let v = self.supply.fresh(name);
        if src != UnknownSource::Unify {
            self.created.push(v.clone());
        }
        self.rigid.insert(
            v.clone(),
            RigidInfo {
                level,
                unknown: Some((src, span)),
                loop_variant: false,
            },
        );
        v
    }

    pub fn bind_rigid(&mut self, v: &VName, level: u32) {
        self.rigid.insert(
            v.clone(),
            RigidInfo {
                level,
                unknown: None,
                loop_variant: false,
            },
        );
    }

    pub fn is_var(&self, v: &VName) -> bool {
        self.vars.contains_key(v)
    }

    /// True if `v` is an unsolved unification variable.
    pub fn is_free_var(&self, v: &VName) -> bool {
        matches!(
            self.vars.get(v).map(|i| &i.constraint),
            Some(
                Constraint::Free(_)
                    | Constraint::Overloaded(_)
                    | Constraint::Equality
                    | Constraint::HasFields(_)
                    | Constraint::HasConstrs(_)
                    | Constraint::SizeFree
            )
        )
    }

    pub fn is_unknown(&self, v: &VName) -> bool {
        self.rigid.get(v).is_some_and(|r| r.unknown.is_some())
    }

    pub fn level_of(&self, v: &VName) -> Option<u32> {
        self.vars
            .get(v)
            .map(|i| i.level)
            .or_else(|| self.rigid.get(v).map(|r| r.level))
    }

    /// Follows solved variables at the top of a type.
    pub fn resolve(&self, t: &Type) -> Type {
        let mut t = t.clone();
        for _ in 0..10_000 {
            match &t {
                Type::Var(tv) if tv.args.is_empty() => match self.vars.get(&tv.name) {
                    Some(VarInfo {
                        constraint: Constraint::Solved(s),
                        ..
                    }) => {
                        let u = tv.unique;
                        t = if u {
                            s.clone().with_unique(true)
                        } else {
                            s.clone()
                        };
                    }
                    _ => return t,
                },
                // An array whose element variable was solved to an array has more
                // dimensions than its shape shows.
                Type::Array(a) if matches!(a.elem, Type::Var(_)) => {
                    let e = self.resolve(&a.elem);
                    return if e.is_array() {
                        Type::array(e, a.shape.clone(), a.unique)
                    } else {
                        t
                    };
                }
                _ => return t,
            }
        }
        t
    }

    pub fn resolve_size(&self, s: &Size) -> Size {
        let mut s = s.clone();
        for _ in 0..10_000 {
            match &s {
                Size::Var(v) => match self.vars.get(v) {
                    Some(VarInfo {
                        constraint: Constraint::SizeSolved(d),
                        ..
                    }) => s = d.clone(),
                    _ => return s,
                },
                _ => return s,
            }
        }
        s
    }

    /// Applies the substitution deeply.
    pub fn zonk(&self, t: &Type) -> Type {
        self.zonk_depth(t, 0)
    }

    fn zonk_depth(&self, t: &Type, depth: u32) -> Type {
        if depth > 200 {
            return t.clone();
        }
        let f = |v: &VName| match self.vars.get(v).map(|i| &i.constraint) {
            Some(Constraint::Solved(s)) => Some(Subst::Type(self.zonk_depth(s, depth + 1))),
            Some(Constraint::SizeSolved(s)) => Some(Subst::Size(self.zonk_size(s))),
            _ => None,
        };
        t.subst(&f)
    }

    pub fn zonk_size(&self, s: &Size) -> Size {
        self.zonk_size_depth(s, 0)
    }

    fn zonk_size_depth(&self, s: &Size, depth: u32) -> Size {
        if depth > 200 {
            return s.clone();
        }
        s.subst(&|v| match self.vars.get(v).map(|i| &i.constraint) {
            Some(Constraint::SizeSolved(d)) => Some(self.zonk_size_depth(d, depth + 1)),
            _ => None,
        })
    }

    pub fn zonk_ret(&self, r: &RetType) -> RetType {
        RetType {
            ext: r.ext.clone(),
            ty: self.zonk(&r.ty),
        }
    }

    /// Unifies `expected` with `actual`.
    pub fn unify(&mut self, expected: &Type, actual: &Type) -> UResult {
        self.unify_in(expected, actual, &[], 0)
    }

    fn unify_in(&mut self, t1: &Type, t2: &Type, bound: &[VName], depth: u32) -> UResult {
        if depth > 500 {
            return Err(UnifyError::Other("Type too deeply nested.".into()));
        }
        let t1 = self.resolve(t1);
        let t2 = self.resolve(t2);
        let mismatch = |s: &Unifier| UnifyError::Types {
            expected: s.zonk(&t1),
            actual: s.zonk(&t2),
        };
        match (&t1, &t2) {
            (Type::Error, _) | (_, Type::Error) => Ok(()),
            (Type::Var(v1), Type::Var(v2)) if v1.name == v2.name => {
                if v1.args.len() != v2.args.len() {
                    return Err(mismatch(self));
                }
                for (a1, a2) in v1.args.iter().zip(&v2.args) {
                    match (a1, a2) {
                        (TypeArg::Size(s1), TypeArg::Size(s2)) => {
                            self.unify_size_in(s1, s2, bound)?
                        }
                        (TypeArg::Type(x1), TypeArg::Type(x2)) => {
                            self.unify_in(x1, x2, bound, depth + 1)?
                        }
                        _ => return Err(mismatch(self)),
                    }
                }
                Ok(())
            }
            (Type::Var(v1), Type::Var(v2))
                if v1.args.is_empty()
                    && v2.args.is_empty()
                    && self.is_free_var(&v1.name)
                    && self.is_free_var(&v2.name) =>
            {
                // Link the deeper variable to the shallower one so levels only decrease.
                let l1 = self.vars[&v1.name].level;
                let l2 = self.vars[&v2.name].level;
                if l1 <= l2 {
                    self.link(&v2.name, &t1, bound)
                } else {
                    self.link(&v1.name, &t2, bound)
                }
            }
            (Type::Var(v1), _) if v1.args.is_empty() && self.is_free_var(&v1.name) => {
                self.link(&v1.name, &t2, bound)
            }
            (_, Type::Var(v2)) if v2.args.is_empty() && self.is_free_var(&v2.name) => {
                self.link(&v2.name, &t1, bound)
            }
            (Type::Prim(p1), Type::Prim(p2)) if p1 == p2 => Ok(()),
            (Type::Array(a1), Type::Array(a2)) => {
                self.unify_size_in(&a1.shape[0], &a2.shape[0], bound)
                    .map_err(|e| self.explain_size_error(e, &t1, &t2))?;
                let r1 = t1.row().unwrap_or(Type::Error);
                let r2 = t2.row().unwrap_or(Type::Error);
                match self.unify_in(&r1, &r2, bound, depth + 1) {
                    Err(UnifyError::Types { .. }) => Err(mismatch(self)),
                    r => r,
                }
            }
            (Type::Record(f1), Type::Record(f2)) => {
                let mut missing: Vec<Name> = f1
                    .keys()
                    .filter(|k| !f2.contains_key(*k))
                    .chain(f2.keys().filter(|k| !f1.contains_key(*k)))
                    .cloned()
                    .collect();
                missing.sort();
                if !missing.is_empty() {
                    if t1.as_tuple().is_some() && t2.as_tuple().is_some() {
                        return Err(mismatch(self));
                    }
                    return Err(UnifyError::Fields(missing));
                }
                for (k, x1) in f1 {
                    let x2 = &f2[k];
                    if let Err(e) = self.unify_in(x1, x2, bound, depth + 1) {
                        return Err(UnifyError::InField(k.clone(), Box::new(e)));
                    }
                }
                Ok(())
            }
            (Type::Sum(c1), Type::Sum(c2)) => {
                let mut missing: Vec<Name> = c1
                    .keys()
                    .filter(|k| !c2.contains_key(*k))
                    .chain(c2.keys().filter(|k| !c1.contains_key(*k)))
                    .cloned()
                    .collect();
                missing.sort();
                if !missing.is_empty() {
                    return Err(UnifyError::Constrs(missing));
                }
                for (k, ts1) in c1 {
                    let ts2 = &c2[k];
                    if ts1.len() != ts2.len() {
                        return Err(UnifyError::Arity(k.clone()));
                    }
                    for (x1, x2) in ts1.iter().zip(ts2) {
                        match self.unify_in(x1, x2, bound, depth + 1) {
                            Err(UnifyError::Types { .. }) => return Err(mismatch(self)),
                            r => r?,
                        }
                    }
                }
                Ok(())
            }
            (Type::Arrow(a1), Type::Arrow(a2)) => self.unify_arrows(a1, a2, bound, depth),
            _ => Err(mismatch(self)),
        }
    }

    /// Adds the full types to a size error found inside them.
    fn explain_size_error(&self, e: UnifyError, _t1: &Type, _t2: &Type) -> UnifyError {
        e
    }

    fn unify_arrows(&mut self, a1: &Arrow, a2: &Arrow, bound: &[VName], depth: u32) -> UResult {
        let mut bound: Vec<VName> = bound.to_vec();
        bound.extend(a1.param_name.iter().cloned());
        bound.extend(a2.param_name.iter().cloned());
        let n_params = self.arrow_params.len();
        self.arrow_params.extend(a1.param_name.iter().cloned());
        self.arrow_params.extend(a2.param_name.iter().cloned());
        let r = self.unify_arrows_inner(a1, a2, bound, depth);
        self.arrow_params.truncate(n_params);
        r
    }

    fn unify_arrows_inner(
        &mut self,
        a1: &Arrow,
        a2: &Arrow,
        mut bound: Vec<VName>,
        depth: u32,
    ) -> UResult {
        self.unify_in(&a1.param, &a2.param, &bound, depth + 1)?;
        if a2.param.is_unique() && !a1.param.is_unique() {
            return Err(UnifyError::ConsumingParam);
        }
        // Rename the actual parameter name to the expected one in dependent return types.
        let mut r2 = a2.ret.ty.clone();
        if let (Some(p1), Some(p2)) = (&a1.param_name, &a2.param_name)
            && p1 != p2
        {
            let p1 = p1.clone();
            let p2c = p2.clone();
            r2 = r2.subst_sizes(&|v| (*v == p2c).then(|| Size::Var(p1.clone())));
        }
        // Existentials of the expected side may be instantiated to anything (fresh size
        // variables each time); those of the actual side are rigid.
        let level = u32::MAX;
        let mut r1 = a1.ret.ty.clone();
        if !a1.ret.ext.is_empty() {
            let mut map = Vec::new();
            for e in &a1.ret.ext {
                let v = self.new_var(e.name(), level, Constraint::SizeFree, Span::default());
                map.push((e.clone(), Size::Var(v)));
            }
            r1 = r1.subst_sizes(&|v| map.iter().find(|(x, _)| x == v).map(|(_, s)| s.clone()));
        }
        for e in &a2.ret.ext {
            self.rigid.insert(
                e.clone(),
                RigidInfo {
                    level,
                    unknown: Some((UnknownSource::Unify, Span::default())),
                    loop_variant: false,
                },
            );
        }
        // Only the actual side's existentials are rigid names that must not escape; the
        // expected side's are ordinary size variables (and keep their solutions).
        bound.extend(a2.ret.ext.iter().cloned());
        let r = self.unify_in(&r1, &r2, &bound, depth + 1);
        // A function whose result must be unique cannot be given one returning an alias.
        if r.is_ok() && !ret_uniqueness_ok(&self.zonk(&r1), &self.zonk(&r2)) {
            for e in &a2.ret.ext {
                self.rigid.remove(e);
            }
            return Err(UnifyError::Other(
                "The function's result must be unique, but the function given returns a non-unique value.".into(),
            ));
        }
        for e in &a2.ret.ext {
            self.rigid.remove(e);
        }
        r
    }

    pub fn unify_size(&mut self, expected: &Size, actual: &Size) -> UResult {
        self.unify_size_in(expected, actual, &[])
    }

    fn unify_size_in(&mut self, s1: &Size, s2: &Size, bound: &[VName]) -> UResult {
        if self.ignore_sizes {
            return Ok(());
        }
        let s1 = self.zonk_size(s1);
        let s2 = self.zonk_size(s2);
        if s1 == s2 {
            return Ok(());
        }
        let free = |u: &Unifier, s: &Size| match s {
            Size::Var(v) if u.is_free_var(v) => Some(v.clone()),
            _ => None,
        };
        match (free(self, &s1), free(self, &s2)) {
            (Some(v1), Some(v2)) => {
                let l1 = self.vars[&v1].level;
                let l2 = self.vars[&v2].level;
                if l1 <= l2 {
                    self.link_size(&v2, &s1, bound)
                } else {
                    self.link_size(&v1, &s2, bound)
                }
            }
            (Some(v1), None) => self.link_size(&v1, &s2, bound),
            (None, Some(v2)) => self.link_size(&v2, &s1, bound),
            (None, None) => {
                // Sizes are terms: the same operator or function applied to unifiable
                // arguments unify (`[n' * m']` with `[n * m]`).
                let mismatch = || UnifyError::Sizes {
                    expected: s1.clone(),
                    actual: s2.clone(),
                };
                match (&s1, &s2) {
                    (Size::BinOp(o1, a1, b1), Size::BinOp(o2, a2, b2)) if o1 == o2 => {
                        self.unify_size_in(a1, a2, bound).map_err(|_| mismatch())?;
                        self.unify_size_in(b1, b2, bound).map_err(|_| mismatch())
                    }
                    (Size::Index(a1, x1), Size::Index(a2, x2)) if x1.len() == x2.len() => {
                        self.unify_size_in(a1, a2, bound).map_err(|_| mismatch())?;
                        for (a, b) in x1.iter().zip(x2) {
                            self.unify_size_in(a, b, bound).map_err(|_| mismatch())?;
                        }
                        Ok(())
                    }
                    (Size::Proj(a1, f1), Size::Proj(a2, f2)) if f1 == f2 => {
                        self.unify_size_in(a1, a2, bound).map_err(|_| mismatch())
                    }
                    (Size::Apply(f1, x1), Size::Apply(f2, x2))
                        if f1 == f2 && x1.len() == x2.len() =>
                    {
                        for (a, b) in x1.iter().zip(x2) {
                            self.unify_size_in(a, b, bound).map_err(|_| mismatch())?;
                        }
                        Ok(())
                    }
                    _ => {
                        // A compound size of variables to be inferred (`[n * m]` of
                        // `unflatten`) against some other size: Futhark checks this at run
                        // time, so accept and leave the variables to be decided later.
                        let mut vs = Vec::new();
                        let unknown =
                            |u: &Unifier, s: &Size| matches!(s, Size::Var(v) if u.is_unknown(v));
                        if !(unknown(self, &s1) || unknown(self, &s2)) {
                            return Err(mismatch());
                        }
                        let compound = |s: &Size| !matches!(s, Size::Var(_) | Size::Lit(_));
                        for s in [&s1, &s2] {
                            if compound(s) {
                                s.each_var(&mut |v| {
                                    if self.is_free_var(v) {
                                        vs.push(v.clone())
                                    }
                                });
                            }
                        }
                        if vs.is_empty() {
                            return Err(mismatch());
                        }
                        self.dynamic_sizes.extend(vs);
                        Ok(())
                    }
                }
            }
        }
    }

    fn link_size(&mut self, v: &VName, s: &Size, bound: &[VName]) -> UResult {
        if s.mentions(v) {
            return Err(UnifyError::Occurs {
                var: v.clone(),
                ty: s.to_string(),
            });
        }
        let level = self.vars[v].level;
        let mut err = None;
        let mut lower = Vec::new();
        s.each_var(&mut |w| {
            if err.is_some() {
                return;
            }
            if bound.contains(w) && level != u32::MAX {
                err = Some(UnifyError::Scope {
                    var: v.name().to_string(),
                    name: w.clone(),
                    in_loop: false,
                });
            } else if let Some(info) = self.vars.get(w) {
                if info.level > level {
                    lower.push(w.clone());
                }
            } else if let Some(r) = self.rigid.get(w) {
                // Unknown sizes are governed by causality, not scope.
                if r.level > level && r.unknown.is_none() {
                    err = Some(UnifyError::Scope {
                        var: v.name().to_string(),
                        name: w.clone(),
                        in_loop: self.loop_vars.contains(v),
                    });
                }
            }
        });
        if let Some(e) = err {
            return Err(e);
        }
        for w in lower {
            if let Some(info) = self.vars.get_mut(&w) {
                info.level = level;
            }
        }
        if let Some(info) = self.vars.get_mut(v) {
            info.constraint = Constraint::SizeSolved(s.clone());
        }
        Ok(())
    }

    /// Unifies two types whose sizes are allowed to differ (size coercions).
    pub fn unify_ignoring_sizes(&mut self, expected: &Type, actual: &Type) -> UResult {
        let old = self.ignore_sizes;
        self.ignore_sizes = true;
        let r = self.unify(expected, actual);
        self.ignore_sizes = old;
        r
    }
}

/// Unique parts of an expected result must be unique in the actual one.
fn ret_uniqueness_ok(expected: &Type, actual: &Type) -> bool {
    match (expected, actual) {
        (Type::Record(e), Type::Record(a)) => e
            .iter()
            .all(|(k, t)| a.get(k).is_none_or(|u| ret_uniqueness_ok(t, u))),
        (Type::Array(e), Type::Array(a)) => !e.unique || a.unique,
        _ => true,
    }
}

#[cfg(test)]
mod tests;
