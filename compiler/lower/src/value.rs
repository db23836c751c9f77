//! Lowering-time values: what a Futhark expression lowers to.
//!
//! A [`Value`] is a tree whose leaves are IR atoms (a scalar or an array of primitives):
//! records and tuples are trees of their fields, sums a tag plus the payloads of every
//! constructor, and an array of records or sums is the same tree with array leaves
//! (structure of arrays). Function values are [`Closure`]s, known statically: Futhark
//! forbids functions in arrays, branches and loops, so every call site sees which
//! function it calls, and defunctionalisation is specialisation (see `apply.rs`).

use std::collections::HashMap;
use std::rc::Rc;

use futhark_ir::soacs::{SubExp, Type};
use futhark_ir::types::PrimType;
use futhark_syntax::ast::{Exp, Pat, ProjStep, ValBind};

use crate::modenv::Env;

/// A transformation of a value's leaves (atom and type to atom and type).
pub type LeafFn<'f, E> = dyn FnMut(&SubExp, &Type) -> Result<(SubExp, Type), E> + 'f;

/// A lowered value.
#[derive(Clone, Debug)]
pub enum Value<'a> {
    Atom(SubExp, Type),
    /// Fields in [`field_order`].
    Record(Vec<(String, Value<'a>)>),
    /// A sum: the `i8` tag (an array of tags for an array of sums) and, per constructor of
    /// the layout, its payload values.
    Sum(Rc<SumLayout>, Box<Value<'a>>, Vec<Vec<Value<'a>>>),
    Fun(Rc<Closure<'a>>),
}

/// The constructors of a sum type, sorted by name, with their payload types.
#[derive(Clone, Debug, PartialEq)]
pub struct SumLayout {
    pub ctors: Vec<(String, Vec<VTy>)>,
}

impl SumLayout {
    pub fn index(&self, name: &str) -> Option<usize> {
        self.ctors.iter().position(|(n, _)| n == name)
    }
}

/// The shape of a value without sizes: what sum payloads and empty arrays need to build
/// placeholder values, and what keys a specialisation.
#[derive(Clone, Debug, PartialEq)]
pub enum VTy {
    Prim(PrimType),
    /// One array dimension around an element type.
    Array(Box<VTy>),
    Record(Vec<(String, VTy)>),
    Sum(Rc<SumLayout>),
}

/// The order of record fields: tuple fields numerically, then names alphabetically.
pub fn field_order(a: &str, b: &str) -> std::cmp::Ordering {
    match (a.parse::<u64>(), b.parse::<u64>()) {
        (Ok(x), Ok(y)) => x.cmp(&y),
        (Ok(_), Err(_)) => std::cmp::Ordering::Less,
        (Err(_), Ok(_)) => std::cmp::Ordering::Greater,
        (Err(_), Err(_)) => a.cmp(b),
    }
}

impl<'a> Value<'a> {
    pub fn prim(se: SubExp, t: PrimType) -> Value<'a> {
        Value::Atom(se, Type::Prim(t))
    }

    pub fn unit() -> Value<'a> {
        Value::Record(Vec::new())
    }

    /// A tuple (a record with fields `0`, `1`, …); one element is itself.
    pub fn tuple(mut vs: Vec<Value<'a>>) -> Value<'a> {
        if vs.len() == 1 {
            return vs.remove(0);
        }
        Value::Record(
            vs.into_iter()
                .enumerate()
                .map(|(i, v)| (i.to_string(), v))
                .collect(),
        )
    }

    /// A record with fields sorted into [`field_order`].
    pub fn record(mut fields: Vec<(String, Value<'a>)>) -> Value<'a> {
        fields.sort_by(|a, b| field_order(&a.0, &b.0));
        Value::Record(fields)
    }

    pub fn field(&self, name: &str) -> Option<&Value<'a>> {
        match self {
            Value::Record(fs) => fs.iter().find(|(n, _)| n == name).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The components of a tuple (a non-record is a 1-tuple).
    pub fn components(&self) -> Vec<Value<'a>> {
        match self {
            Value::Record(fs) if fs.iter().enumerate().all(|(i, (n, _))| *n == i.to_string()) => {
                fs.iter().map(|(_, v)| v.clone()).collect()
            }
            v => vec![v.clone()],
        }
    }

    /// The leaves in order (tags before payloads, fields in order).
    pub fn leaves(&self) -> Vec<(SubExp, Type)> {
        let mut out = Vec::new();
        self.collect(&mut out);
        out
    }

    fn collect(&self, out: &mut Vec<(SubExp, Type)>) {
        match self {
            Value::Atom(s, t) => out.push((s.clone(), t.clone())),
            Value::Record(fs) => fs.iter().for_each(|(_, v)| v.collect(out)),
            Value::Sum(_, tag, ps) => {
                tag.collect(out);
                ps.iter().flatten().for_each(|v| v.collect(out));
            }
            Value::Fun(_) => {}
        }
    }

    /// The same structure with the leaves taken, in order, from `leaves`.
    pub fn rebuild(&self, leaves: &mut impl Iterator<Item = (SubExp, Type)>) -> Option<Value<'a>> {
        Some(match self {
            Value::Atom(..) => {
                let (s, t) = leaves.next()?;
                Value::Atom(s, t)
            }
            Value::Record(fs) => Value::Record(
                fs.iter()
                    .map(|(n, v)| Some((n.clone(), v.rebuild(leaves)?)))
                    .collect::<Option<_>>()?,
            ),
            Value::Sum(l, tag, ps) => Value::Sum(
                l.clone(),
                Box::new(tag.rebuild(leaves)?),
                ps.iter()
                    .map(|p| p.iter().map(|v| v.rebuild(leaves)).collect::<Option<_>>())
                    .collect::<Option<_>>()?,
            ),
            Value::Fun(c) => Value::Fun(c.clone()),
        })
    }

    /// The same structure with every leaf transformed.
    pub fn map_leaves<E>(&self, f: &mut LeafFn<'_, E>) -> Result<Value<'a>, E> {
        Ok(match self {
            Value::Atom(s, t) => {
                let (s, t) = f(s, t)?;
                Value::Atom(s, t)
            }
            Value::Record(fs) => Value::Record(
                fs.iter()
                    .map(|(n, v)| Ok((n.clone(), v.map_leaves(f)?)))
                    .collect::<Result<_, E>>()?,
            ),
            Value::Sum(l, tag, ps) => Value::Sum(
                l.clone(),
                Box::new(tag.map_leaves(f)?),
                ps.iter()
                    .map(|p| p.iter().map(|v| v.map_leaves(f)).collect::<Result<_, E>>())
                    .collect::<Result<_, E>>()?,
            ),
            Value::Fun(c) => Value::Fun(c.clone()),
        })
    }

    /// Whether a function value occurs anywhere in the tree.
    pub fn has_fun(&self) -> bool {
        match self {
            Value::Atom(..) => false,
            Value::Record(fs) => fs.iter().any(|(_, v)| v.has_fun()),
            Value::Sum(_, _, ps) => ps.iter().flatten().any(Value::has_fun),
            Value::Fun(_) => true,
        }
    }

    /// The outer size of an array value (of any leaf).
    pub fn outer_dim(&self) -> Option<SubExp> {
        self.leaves().first().and_then(|(_, t)| t.outer().cloned())
    }

    /// The value's shape without sizes, peeling `dims` outer array dimensions off every leaf.
    pub fn vty(&self, dims: usize) -> Option<VTy> {
        Some(match self {
            Value::Atom(_, t) => {
                let mut v = VTy::Prim(t.elem());
                for _ in dims..t.rank() {
                    v = VTy::Array(Box::new(v));
                }
                v
            }
            Value::Record(fs) => VTy::Record(
                fs.iter()
                    .map(|(n, v)| Some((n.clone(), v.vty(dims)?)))
                    .collect::<Option<_>>()?,
            ),
            Value::Sum(l, _, _) => VTy::Sum(l.clone()),
            Value::Fun(_) => return None,
        })
    }

    /// A key describing the structure, element types and ranks (for specialisation).
    pub fn shape_key(&self, out: &mut String) {
        match self {
            Value::Atom(_, t) => {
                out.push_str(&"[]".repeat(t.rank()));
                out.push_str(t.elem().name());
            }
            Value::Record(fs) => {
                out.push('{');
                for (n, v) in fs {
                    out.push_str(n);
                    out.push(':');
                    v.shape_key(out);
                    out.push(',');
                }
                out.push('}');
            }
            Value::Sum(l, tag, ps) => {
                out.push_str(&format!("sum{}<", l.ctors.len()));
                tag.shape_key(out);
                for p in ps.iter().flatten() {
                    p.shape_key(out);
                    out.push(',');
                }
                out.push('>');
            }
            Value::Fun(c) => out.push_str(&format!("fn{:p}", Rc::as_ptr(c))),
        }
    }
}

/// A function value.
#[derive(Debug)]
pub enum Closure<'a> {
    /// A top-level or module-level definition, with the type it was used at (for size
    /// parameters that no argument's shape determines, as in `unflatten`).
    Def(Rc<Def<'a>>, Option<Rc<Inst<'a>>>),
    /// A lambda or local function with the context it was made in.
    Lambda {
        params: &'a [Pat],
        body: &'a Exp,
        ctx: Ctx<'a>,
        /// Size parameters of a local function (`let f [n] (xs: [n]t) = …`).
        size_params: Vec<&'a str>,
    },
    /// A function applied to some of its arguments.
    Partial(Rc<Closure<'a>>, Vec<Value<'a>>),
    /// `(op e)`: the operator with its second argument fixed.
    RightSection(Rc<Closure<'a>>, Value<'a>),
    /// `(.a.b[i])`.
    Project(&'a [ProjStep], Ctx<'a>),
    /// A member of the `intrinsics` module.
    Intrinsic(String),
    /// An overloaded built-in operator (`+`, `==`, `neg`, …), with the span of the section
    /// it was written as (`(b **)`), where the interpreter places its run-time errors.
    Op(String, Option<futhark_syntax::Span>),
}

/// The instantiated type of a use of a definition, and the context to evaluate its
/// sizes in.
#[derive(Debug)]
pub struct Inst<'a> {
    pub ty: &'a futhark_check::Type,
    pub ctx: Ctx<'a>,
}

/// A definition from a module-level `def`/`entry`/`let`, with the environment it sees.
#[derive(Debug)]
pub struct Def<'a> {
    pub vb: &'a ValBind,
    pub env: Env<'a>,
    /// Distinct per definition (and per functor application), for specialisation keys.
    pub id: usize,
}

/// Local variables, innermost first (a persistent list: closures capture it cheaply).
#[derive(Clone, Debug, Default)]
pub struct Locals<'a>(Option<Rc<LocalNode<'a>>>);

#[derive(Debug)]
struct LocalNode<'a> {
    name: String,
    /// `None`: the name is hidden, so it resolves in the module environment (a module
    /// opened by `M.(e)` binds it over the locals outside).
    value: Option<Value<'a>>,
    next: Locals<'a>,
}

impl<'a> Locals<'a> {
    pub fn with(&self, name: &str, value: Value<'a>) -> Locals<'a> {
        Locals(Some(Rc::new(LocalNode {
            name: name.to_string(),
            value: Some(value),
            next: self.clone(),
        })))
    }

    /// The locals with `name` hidden (looked up in the environment instead).
    pub fn hide(&self, name: &str) -> Locals<'a> {
        Locals(Some(Rc::new(LocalNode {
            name: name.to_string(),
            value: None,
            next: self.clone(),
        })))
    }

    pub fn get(&self, name: &str) -> Option<&Value<'a>> {
        let mut cur = &self.0;
        while let Some(node) = cur {
            if node.name == name {
                return node.value.as_ref();
            }
            cur = &node.next.0;
        }
        None
    }
}

/// Type variables (and abstract types) of the code being lowered, bound to shapes by the
/// arguments of the call that instantiated it; keyed by the checker's unique name id.
pub type TSubst = HashMap<u64, VTy>;

/// Everything an expression is lowered in.
#[derive(Clone, Debug)]
pub struct Ctx<'a> {
    pub locals: Locals<'a>,
    pub env: Env<'a>,
    pub tsubst: Rc<TSubst>,
}

impl<'a> Ctx<'a> {
    pub fn new(env: Env<'a>) -> Ctx<'a> {
        Ctx {
            locals: Locals::default(),
            env,
            tsubst: Rc::new(HashMap::new()),
        }
    }

    pub fn bind(&self, name: &str, v: Value<'a>) -> Ctx<'a> {
        Ctx {
            locals: self.locals.with(name, v),
            ..self.clone()
        }
    }

    /// Records what a checker size variable (by unique id) is in this context.
    pub fn bind_size_id(&self, id: u64, d: SubExp) -> Ctx<'a> {
        self.bind(&format!("%{id}"), Value::Atom(d, Type::Prim(PrimType::I64)))
    }

    pub fn size_id(&self, id: u64) -> Option<SubExp> {
        match self.locals.get(&format!("%{id}")) {
            Some(Value::Atom(d, _)) => Some(d.clone()),
            _ => None,
        }
    }
}
