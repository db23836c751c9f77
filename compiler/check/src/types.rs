//! The semantic representation of Futhark types: primitive types, sizes (syntactic `i64`
//! terms), arrays, records, sums, functions with named parameters and existential results.
//!
//! Types refer to names by [`VName`], a base name plus a globally unique id, so that shadowing
//! and abstract (nominal) types never get confused. Type variables, abstract types and
//! unification variables are all [`Type::Var`]; whether a name is a unification variable is
//! decided by the constraint store in `unify.rs`, not by the type itself.

use std::collections::BTreeMap;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

pub use futhark_syntax::ast::Liftedness;

/// A base name as written in the source (`x`, `+`, `M.t` for display of abstract types).
pub type Name = Arc<str>;

/// A resolved name: the base name for display plus a unique id for identity.
///
/// The id is `(file << 32) | counter`, so names made while checking different files (or
/// REPL cells) never collide even though each file is checked independently.
#[derive(Clone)]
pub struct VName {
    pub name: Name,
    pub id: u64,
}

impl VName {
    pub fn new(name: impl Into<Name>, id: u64) -> VName {
        VName {
            name: name.into(),
            id,
        }
    }

    pub fn name(&self) -> &str {
        &self.name
    }
}

impl PartialEq for VName {
    fn eq(&self, other: &VName) -> bool {
        self.id == other.id
    }
}

impl Eq for VName {}

impl Hash for VName {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.id.hash(state)
    }
}

impl PartialOrd for VName {
    fn partial_cmp(&self, other: &VName) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for VName {
    fn cmp(&self, other: &VName) -> std::cmp::Ordering {
        self.id.cmp(&other.id)
    }
}

impl fmt::Debug for VName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}_{}", self.name, self.id & 0xffff_ffff)
    }
}

impl fmt::Display for VName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)
    }
}

pub use futhark_prim::PrimType;

/// A size: an `i64` term compared syntactically.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Size {
    /// A variable: a size parameter, an `i64` variable, an unknown (existential) size, or a
    /// size unification variable.
    Var(VName),
    Lit(i64),
    /// `a op b`, with the operator's resolved name (usually the intrinsic `+`, `-`, `*`).
    BinOp(VName, Box<Size>, Box<Size>),
    /// `f a b …`, a function application used as a size (`length xs`).
    Apply(VName, Vec<Size>),
    /// `a[i, …]`, an indexing used as a size (`shape[0]`).
    Index(Box<Size>, Vec<Size>),
    /// `r.f`, a field projection used as a size.
    Proj(Box<Size>, Name),
}

impl Size {
    /// Calls `f` on every variable occurring in the size (operators and functions excluded).
    pub fn each_var(&self, f: &mut impl FnMut(&VName)) {
        match self {
            Size::Var(v) => f(v),
            Size::Lit(_) => {}
            Size::BinOp(_, a, b) => {
                a.each_var(f);
                b.each_var(f);
            }
            Size::Apply(_, args) => args.iter().for_each(|a| a.each_var(f)),
            Size::Index(a, idxs) => {
                a.each_var(f);
                idxs.iter().for_each(|i| i.each_var(f));
            }
            Size::Proj(a, _) => a.each_var(f),
        }
    }

    pub fn mentions(&self, v: &VName) -> bool {
        let mut found = false;
        self.each_var(&mut |w| found |= w == v);
        found
    }

    /// Replaces variables for which `f` returns a size.
    pub fn subst(&self, f: &impl Fn(&VName) -> Option<Size>) -> Size {
        match self {
            Size::Var(v) => f(v).unwrap_or_else(|| self.clone()),
            Size::Lit(_) => self.clone(),
            Size::BinOp(op, a, b) => {
                Size::BinOp(op.clone(), Box::new(a.subst(f)), Box::new(b.subst(f)))
            }
            Size::Apply(func, args) => {
                Size::Apply(func.clone(), args.iter().map(|a| a.subst(f)).collect())
            }
            Size::Index(a, idxs) => Size::Index(
                Box::new(a.subst(f)),
                idxs.iter().map(|i| i.subst(f)).collect(),
            ),
            Size::Proj(a, field) => Size::Proj(Box::new(a.subst(f)), field.clone()),
        }
    }

    pub fn as_var(&self) -> Option<&VName> {
        match self {
            Size::Var(v) => Some(v),
            _ => None,
        }
    }
}

/// A type argument to an abstract type or type abbreviation.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum TypeArg {
    Size(Size),
    Type(Type),
}

/// A named type: a type parameter, abstract type or unification variable.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TypeVar {
    pub name: VName,
    pub unique: bool,
    pub args: Vec<TypeArg>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ArrayType {
    pub unique: bool,
    /// Outermost dimension first; never empty.
    pub shape: Vec<Size>,
    /// The element type, never itself an array.
    pub elem: Type,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Arrow {
    /// The parameter name when later types refer to it: `(n: i64) -> [n]i32`.
    pub param_name: Option<VName>,
    pub param: Type,
    pub ret: RetType,
}

/// A type with existentially quantified sizes: `?[n][m].t`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RetType {
    pub ext: Vec<VName>,
    pub ty: Type,
}

impl RetType {
    pub fn plain(ty: Type) -> RetType {
        RetType { ext: vec![], ty }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    Prim(PrimType),
    Array(Box<ArrayType>),
    /// Records and tuples (a tuple has the fields `0`, `1`, …).
    Record(BTreeMap<Name, Type>),
    Sum(BTreeMap<Name, Vec<Type>>),
    Arrow(Box<Arrow>),
    Var(TypeVar),
    /// The type of something erroneous; unifies with everything so errors do not cascade.
    Error,
}

/// A bound type parameter of a polymorphic value or type abbreviation.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum TParam {
    Type { name: VName, lifted: Liftedness },
    Size { name: VName },
}

impl TParam {
    pub fn name(&self) -> &VName {
        match self {
            TParam::Type { name, .. } | TParam::Size { name } => name,
        }
    }

    pub fn is_size(&self) -> bool {
        matches!(self, TParam::Size { .. })
    }
}

/// What a name can be replaced by in [`Type::subst`].
#[derive(Clone, Debug)]
pub enum Subst {
    Size(Size),
    Type(Type),
    /// A parametric type (from a type abbreviation or a module's parametric type): applied to
    /// the arguments of the variable it replaces.
    TypeFn(Vec<TParam>, RetType),
}

pub fn tuple_field(i: usize) -> Name {
    Name::from(i.to_string())
}

impl Type {
    pub fn unit() -> Type {
        Type::Record(BTreeMap::new())
    }

    pub fn tuple(elems: Vec<Type>) -> Type {
        if elems.len() == 1 {
            return elems.into_iter().next().unwrap_or(Type::Error);
        }
        Type::Record(
            elems
                .into_iter()
                .enumerate()
                .map(|(i, t)| (tuple_field(i), t))
                .collect(),
        )
    }

    pub fn var(name: VName) -> Type {
        Type::Var(TypeVar {
            name,
            unique: false,
            args: vec![],
        })
    }

    pub fn bool() -> Type {
        Type::Prim(PrimType::Bool)
    }

    pub fn i64() -> Type {
        Type::Prim(PrimType::I64)
    }

    pub fn arrow(param: Type, ret: Type) -> Type {
        Type::Arrow(Box::new(Arrow {
            param_name: None,
            param,
            ret: RetType::plain(ret),
        }))
    }

    /// An array of `elem` with the given outer dimensions; nested arrays are flattened into one
    /// shape so the element is never an array.
    pub fn array(elem: Type, mut shape: Vec<Size>, unique: bool) -> Type {
        if shape.is_empty() {
            return elem;
        }
        match elem {
            Type::Array(inner) => {
                shape.extend(inner.shape);
                // Uniqueness belongs to the whole array: the outer annotation decides.
                Type::Array(Box::new(ArrayType {
                    unique,
                    shape,
                    elem: inner.elem,
                }))
            }
            elem => Type::Array(Box::new(ArrayType {
                unique,
                shape,
                elem: elem.with_unique(false),
            })),
        }
    }

    /// If this is a tuple (fields `0..n`, n ≠ 1), its components.
    pub fn as_tuple(&self) -> Option<Vec<&Type>> {
        match self {
            Type::Record(fs) => record_as_tuple(fs),
            _ => None,
        }
    }

    pub fn is_array(&self) -> bool {
        matches!(self, Type::Array(_))
    }

    pub fn rank(&self) -> usize {
        match self {
            Type::Array(a) => a.shape.len(),
            _ => 0,
        }
    }

    /// The type of a row: one dimension peeled off. `None` for non-arrays.
    pub fn row(&self) -> Option<Type> {
        match self {
            Type::Array(a) => {
                if a.shape.len() == 1 {
                    Some(a.elem.clone().with_unique(a.unique))
                } else {
                    Some(Type::Array(Box::new(ArrayType {
                        unique: a.unique,
                        shape: a.shape[1..].to_vec(),
                        elem: a.elem.clone(),
                    })))
                }
            }
            _ => None,
        }
    }

    /// Peels `n` dimensions.
    pub fn strip_dims(&self, n: usize) -> Option<Type> {
        let mut t = self.clone();
        for _ in 0..n {
            t = t.row()?;
        }
        Some(t)
    }

    /// The outermost size of an array.
    pub fn outer_size(&self) -> Option<&Size> {
        match self {
            Type::Array(a) => a.shape.first(),
            _ => None,
        }
    }

    /// Marks the type (deeply, through records and sums) as unique or not.
    pub fn with_unique(self, unique: bool) -> Type {
        match self {
            Type::Array(mut a) => {
                a.unique = unique;
                a.elem = a.elem.with_unique(false);
                Type::Array(a)
            }
            Type::Record(fs) => Type::Record(
                fs.into_iter()
                    .map(|(k, t)| (k, t.with_unique(unique)))
                    .collect(),
            ),
            Type::Sum(cs) => Type::Sum(
                cs.into_iter()
                    .map(|(k, ts)| (k, ts.into_iter().map(|t| t.with_unique(unique)).collect()))
                    .collect(),
            ),
            Type::Var(mut v) => {
                v.unique = unique;
                Type::Var(v)
            }
            t => t,
        }
    }

    /// True if any part of the type is marked unique (outside function types).
    pub fn is_unique(&self) -> bool {
        match self {
            Type::Array(a) => a.unique,
            Type::Record(fs) => fs.values().any(Type::is_unique),
            Type::Sum(cs) => cs.values().flatten().any(Type::is_unique),
            Type::Var(v) => v.unique,
            _ => false,
        }
    }

    pub fn is_fun(&self) -> bool {
        matches!(self, Type::Arrow(_))
    }

    /// True if the type contains a function type outside of array elements (which cannot hold
    /// them anyway).
    pub fn contains_fun(&self) -> bool {
        match self {
            Type::Arrow(_) => true,
            Type::Array(a) => a.elem.contains_fun(),
            Type::Record(fs) => fs.values().any(Type::contains_fun),
            Type::Sum(cs) => cs.values().flatten().any(Type::contains_fun),
            _ => false,
        }
    }

    /// Calls `f` on every type-variable name (not size variables).
    pub fn each_tyvar(&self, f: &mut impl FnMut(&VName)) {
        match self {
            Type::Prim(_) | Type::Error => {}
            Type::Array(a) => a.elem.each_tyvar(f),
            Type::Record(fs) => fs.values().for_each(|t| t.each_tyvar(f)),
            Type::Sum(cs) => cs.values().flatten().for_each(|t| t.each_tyvar(f)),
            Type::Arrow(a) => {
                a.param.each_tyvar(f);
                a.ret.ty.each_tyvar(f);
            }
            Type::Var(v) => {
                f(&v.name);
                for arg in &v.args {
                    if let TypeArg::Type(t) = arg {
                        t.each_tyvar(f);
                    }
                }
            }
        }
    }

    /// Calls `f` on every size occurring in the type, with a flag telling whether the size is
    /// in a constructive position (an array dimension outside any function type).
    pub fn each_size(&self, f: &mut impl FnMut(&Size, bool)) {
        self.each_size_inner(true, f)
    }

    fn each_size_inner(&self, constructive: bool, f: &mut impl FnMut(&Size, bool)) {
        match self {
            Type::Prim(_) | Type::Error => {}
            Type::Array(a) => {
                for d in &a.shape {
                    f(d, constructive);
                }
                a.elem.each_size_inner(constructive, f);
            }
            Type::Record(fs) => fs.values().for_each(|t| t.each_size_inner(constructive, f)),
            Type::Sum(cs) => cs
                .values()
                .flatten()
                .for_each(|t| t.each_size_inner(constructive, f)),
            Type::Arrow(a) => {
                a.param.each_size_inner(false, f);
                a.ret.ty.each_size_inner(false, f);
            }
            Type::Var(v) => {
                for arg in &v.args {
                    match arg {
                        TypeArg::Size(s) => f(s, constructive),
                        TypeArg::Type(t) => t.each_size_inner(constructive, f),
                    }
                }
            }
        }
    }

    /// Every variable mentioned in any size of the type (including inside function types,
    /// excluding names bound by those function types' parameters and existentials).
    pub fn size_vars(&self) -> Vec<VName> {
        let mut out = Vec::new();
        self.each_size(&mut |s, _| {
            s.each_var(&mut |v| {
                if !out.contains(v) {
                    out.push(v.clone())
                }
            })
        });
        out
    }

    /// Variables mentioned in sizes of the type that are not bound inside it by a named
    /// parameter or an existential of a function type.
    pub fn free_size_vars(&self) -> Vec<VName> {
        let mut out = Vec::new();
        self.free_sizes_in(&mut Vec::new(), &mut out);
        out
    }

    fn free_sizes_in(&self, bound: &mut Vec<VName>, out: &mut Vec<VName>) {
        let add = |s: &Size, bound: &Vec<VName>, out: &mut Vec<VName>| {
            s.each_var(&mut |v| {
                if !bound.contains(v) && !out.contains(v) {
                    out.push(v.clone())
                }
            })
        };
        match self {
            Type::Prim(_) | Type::Error => {}
            Type::Array(a) => {
                for d in &a.shape {
                    add(d, bound, out);
                }
                a.elem.free_sizes_in(bound, out);
            }
            Type::Record(fs) => fs.values().for_each(|t| t.free_sizes_in(bound, out)),
            Type::Sum(cs) => cs
                .values()
                .flatten()
                .for_each(|t| t.free_sizes_in(bound, out)),
            Type::Arrow(a) => {
                a.param.free_sizes_in(bound, out);
                let n = bound.len();
                bound.extend(a.param_name.iter().cloned());
                bound.extend(a.ret.ext.iter().cloned());
                a.ret.ty.free_sizes_in(bound, out);
                bound.truncate(n);
            }
            Type::Var(v) => {
                for arg in &v.args {
                    match arg {
                        TypeArg::Size(s) => add(s, bound, out),
                        TypeArg::Type(t) => t.free_sizes_in(bound, out),
                    }
                }
            }
        }
    }

    /// Substitutes type variables and size variables.
    pub fn subst(&self, f: &impl Fn(&VName) -> Option<Subst>) -> Type {
        let size_f = |v: &VName| match f(v) {
            Some(Subst::Size(s)) => Some(s),
            _ => None,
        };
        self.subst_inner(f, &size_f)
    }

    fn subst_inner(
        &self,
        f: &impl Fn(&VName) -> Option<Subst>,
        size_f: &impl Fn(&VName) -> Option<Size>,
    ) -> Type {
        match self {
            Type::Prim(_) | Type::Error => self.clone(),
            Type::Array(a) => {
                let elem = a.elem.subst_inner(f, size_f);
                let shape = a.shape.iter().map(|d| d.subst(size_f)).collect();
                Type::array(elem, shape, a.unique)
            }
            Type::Record(fs) => Type::Record(
                fs.iter()
                    .map(|(k, t)| (k.clone(), t.subst_inner(f, size_f)))
                    .collect(),
            ),
            Type::Sum(cs) => Type::Sum(
                cs.iter()
                    .map(|(k, ts)| {
                        (
                            k.clone(),
                            ts.iter().map(|t| t.subst_inner(f, size_f)).collect(),
                        )
                    })
                    .collect(),
            ),
            Type::Arrow(a) => Type::Arrow(Box::new(Arrow {
                param_name: a.param_name.clone(),
                param: a.param.subst_inner(f, size_f),
                ret: RetType {
                    ext: a.ret.ext.clone(),
                    ty: a.ret.ty.subst_inner(f, size_f),
                },
            })),
            Type::Var(v) => {
                let args: Vec<TypeArg> = v
                    .args
                    .iter()
                    .map(|arg| match arg {
                        TypeArg::Size(s) => TypeArg::Size(s.subst(size_f)),
                        TypeArg::Type(t) => TypeArg::Type(t.subst_inner(f, size_f)),
                    })
                    .collect();
                match f(&v.name) {
                    Some(Subst::Type(t)) => {
                        // A substituted variable keeps the uniqueness of the occurrence.
                        if v.unique { t.with_unique(true) } else { t }
                    }
                    Some(Subst::TypeFn(params, body)) => {
                        let t = apply_type_fn(&params, &body, &args).ty;
                        if v.unique { t.with_unique(true) } else { t }
                    }
                    _ => Type::Var(TypeVar {
                        name: v.name.clone(),
                        unique: v.unique,
                        args,
                    }),
                }
            }
        }
    }

    /// Substitutes only sizes.
    pub fn subst_sizes(&self, f: &impl Fn(&VName) -> Option<Size>) -> Type {
        self.subst(&|v| f(v).map(Subst::Size))
    }
}

/// Instantiates a parametric type with arguments. Missing or mismatched arguments are
/// ignored (the caller reports them).
pub fn apply_type_fn(params: &[TParam], body: &RetType, args: &[TypeArg]) -> RetType {
    let mut map: Vec<(VName, Subst)> = Vec::new();
    for (p, a) in params.iter().zip(args) {
        match (p, a) {
            (TParam::Size { name }, TypeArg::Size(s)) => {
                map.push((name.clone(), Subst::Size(s.clone())))
            }
            (TParam::Type { name, .. }, TypeArg::Type(t)) => {
                map.push((name.clone(), Subst::Type(t.clone())))
            }
            _ => {}
        }
    }
    let lookup = |v: &VName| map.iter().find(|(n, _)| n == v).map(|(_, s)| s.clone());
    RetType {
        ext: body.ext.clone(),
        ty: body.ty.subst(&lookup),
    }
}

pub fn record_as_tuple<T>(fs: &BTreeMap<Name, T>) -> Option<Vec<&T>> {
    if fs.len() == 1 {
        return None;
    }
    (0..fs.len())
        .map(|i| fs.get(i.to_string().as_str()))
        .collect()
}

/// Combines two liftedness levels, taking the more permissive.
pub fn max_lifted(a: Liftedness, b: Liftedness) -> Liftedness {
    a.max(b)
}
