//! Type expressions, as far as evaluation needs them: the sizes that parameter ascriptions
//! bind and coercions check ([`ShapePat`]), and concrete layouts for entry-point arguments
//! and empty arrays ([`TypeDesc`]). Type abbreviations are expanded with their arguments.

use std::collections::HashMap;
use std::rc::Rc;

use futhark_syntax::ast::{self, ExpKind, LitKind, SizeExp, TypeArg, TypeExpKind, TypeParam};
use futhark_values::PrimType;

use super::exp::LowerCx;
use super::{Env, Lowerer, Module, module_path};
use crate::errors::Result;
use crate::ir::{DimPat, Exp, ShapePat};
use crate::value::{Name, TypeDesc, Value, field_order, tuple_names};

/// A type with abbreviations expanded, keeping only what matters at run time.
#[derive(Clone, Debug)]
enum NType {
    Prim(PrimType),
    Array(Vec<NDim>, Box<NType>),
    Record(Vec<(Name, NType)>),
    Other,
}

#[derive(Clone, Debug)]
enum NDim {
    Anon,
    Lit(i64),
    /// A name in the scope of the original type expression.
    Var(String),
    /// Any other size expression, in the scope of the original type expression.
    Exp(Box<ast::Exp>),
}

#[derive(Clone, Debug)]
enum Subst {
    Dim(NDim),
    Type(NType),
}

fn size_dim(s: &SizeExp, subst: &HashMap<String, Subst>, use_site: bool) -> NDim {
    let SizeExp::Exp(e) = s else {
        return NDim::Anon;
    };
    match &e.kind {
        ExpKind::Var(qn) if qn.quals.is_empty() => match subst.get(&qn.name.name) {
            Some(Subst::Dim(d)) => d.clone(),
            _ if use_site => NDim::Var(qn.name.name.clone()),
            _ => NDim::Anon,
        },
        ExpKind::Literal(l) => match &l.kind {
            LitKind::Int { value, .. } => NDim::Lit(*value as i64),
            _ => NDim::Anon,
        },
        ExpKind::Parens(inner) => size_dim(&SizeExp::Exp(inner.clone()), subst, use_site),
        _ if use_site => NDim::Exp(e.clone()),
        _ => NDim::Anon,
    }
}

/// Finds a type abbreviation by possibly qualified name.
fn lookup_type(env: &Env, qn: &ast::QualName) -> Option<Rc<super::TypeDef>> {
    if qn.quals.is_empty() {
        return env.lookup_type(&qn.name.name);
    }
    let path: Vec<&str> = qn.quals.iter().map(|q| q.name.as_str()).collect();
    match module_path(env, &path)? {
        Module::Struct(s) => s.types.get(qn.name.name.as_str()).cloned(),
        _ => None,
    }
}

fn normalise(
    t: &ast::TypeExp,
    env: &Env,
    subst: &HashMap<String, Subst>,
    use_site: bool,
    depth: u32,
) -> NType {
    if depth > 64 {
        return NType::Other;
    }
    match &t.kind {
        TypeExpKind::Parens(inner) | TypeExpKind::Unique(inner) => {
            normalise(inner, env, subst, use_site, depth)
        }
        TypeExpKind::Tuple(ts) => {
            let names = tuple_names(ts.len());
            NType::Record(
                ts.iter()
                    .zip(names.iter())
                    .map(|(t, n)| (n.clone(), normalise(t, env, subst, use_site, depth)))
                    .collect(),
            )
        }
        TypeExpKind::Record(fs) => {
            let mut out: Vec<(Name, NType)> = fs
                .iter()
                .map(|(n, t)| {
                    (
                        Name::from(n.name.as_str()),
                        normalise(t, env, subst, use_site, depth),
                    )
                })
                .collect();
            out.sort_by(|a, b| field_order(&a.0, &b.0));
            NType::Record(out)
        }
        TypeExpKind::Array { size, elem } => {
            let d = size_dim(size, subst, use_site);
            match normalise(elem, env, subst, use_site, depth) {
                NType::Array(mut dims, e) => {
                    dims.insert(0, d);
                    NType::Array(dims, e)
                }
                e => NType::Array(vec![d], Box::new(e)),
            }
        }
        TypeExpKind::Var(_) | TypeExpKind::Apply(..) => {
            // Collect the head and arguments of an application.
            let mut args: Vec<&TypeArg> = Vec::new();
            let mut head = t;
            while let TypeExpKind::Apply(h, a) = &head.kind {
                args.push(a);
                head = h;
            }
            args.reverse();
            let TypeExpKind::Var(qn) = &head.kind else {
                return NType::Other;
            };
            if qn.quals.is_empty()
                && args.is_empty()
                && let Some(Subst::Type(s)) = subst.get(&qn.name.name)
            {
                return s.clone();
            }
            if let Some(def) = lookup_type(env, qn) {
                let mut inner: HashMap<String, Subst> = HashMap::new();
                for (p, a) in def.params.iter().zip(&args) {
                    match (p, a) {
                        (TypeParam::Size(n), TypeArg::Size(s)) => {
                            inner.insert(n.name.clone(), Subst::Dim(size_dim(s, subst, use_site)));
                        }
                        (TypeParam::Type(n, _), TypeArg::Type(t)) => {
                            inner.insert(
                                n.name.clone(),
                                Subst::Type(normalise(t, env, subst, use_site, depth + 1)),
                            );
                        }
                        _ => {}
                    }
                }
                return normalise(&def.body, &def.env, &inner, false, depth + 1);
            }
            if qn.quals.is_empty()
                && let Some(p) = PrimType::from_name(&qn.name.name)
            {
                return NType::Prim(p);
            }
            NType::Other
        }
        _ => NType::Other,
    }
}

impl LowerCx<'_> {
    fn normalise(&self, t: &ast::TypeExp) -> NType {
        normalise(t, &self.env, &HashMap::new(), true, 0)
    }

    /// The primitive type a type expression denotes, if it is one.
    pub fn prim_of(&self, t: &ast::TypeExp) -> Option<PrimType> {
        match self.normalise(t) {
            NType::Prim(p) => Some(p),
            _ => None,
        }
    }

    /// The run-time layout of a type (unknown dimensions are 0).
    pub fn type_desc(&self, t: &ast::TypeExp) -> Option<TypeDesc> {
        Some(desc(&self.normalise(t)))
    }

    /// The sizes a type binds (in a parameter) or checks (in a coercion).
    pub fn shape_pat(&mut self, t: &ast::TypeExp, coerce: bool) -> Result<ShapePat> {
        let n = self.normalise(t);
        if let (NType::Prim(p), false) = (&n, coerce) {
            return Ok(ShapePat::Prim(*p));
        }
        self.shape_of(&n, coerce)
    }

    fn shape_of(&mut self, t: &NType, coerce: bool) -> Result<ShapePat> {
        Ok(match t {
            NType::Prim(_) | NType::Other => ShapePat::Any,
            NType::Record(fs) => {
                let mut out = Vec::with_capacity(fs.len());
                for (n, f) in fs {
                    out.push((n.clone(), self.shape_of(f, coerce)?));
                }
                ShapePat::Record(out)
            }
            NType::Array(dims, elem) => {
                let mut out = Vec::with_capacity(dims.len());
                for d in dims {
                    out.push(self.dim_pat(d, coerce));
                }
                ShapePat::Array(out, Box::new(self.shape_of(elem, coerce)?))
            }
        })
    }

    fn dim_pat(&mut self, d: &NDim, coerce: bool) -> DimPat {
        match d {
            NDim::Anon => DimPat::Any,
            NDim::Lit(k) => {
                if coerce {
                    DimPat::Check(Rc::new(Exp::Const(Value::i64(*k))))
                } else {
                    DimPat::Any
                }
            }
            NDim::Var(name) => {
                // A size parameter of the current function: bind it the first time.
                let top = self.fns.len().saturating_sub(1);
                let slot = self.fns.get(top).and_then(|ctx| {
                    ctx.locals.iter().rev().find_map(|l| match l {
                        super::exp::Local::Var(n, s) if &**n == name => Some(*s),
                        _ => None,
                    })
                });
                if let Some(s) = slot
                    && let Some(bound) = self.fns[top].sizes.get_mut(&s)
                {
                    if *bound {
                        return DimPat::Same(s);
                    }
                    *bound = true;
                    return DimPat::Bind(s);
                }
                if !coerce {
                    return DimPat::Any;
                }
                let qn = ast::QualName {
                    quals: Vec::new(),
                    name: ast::Ident {
                        name: name.clone(),
                        span: futhark_syntax::Span::default(),
                    },
                    span: futhark_syntax::Span::default(),
                };
                match self.var(&qn) {
                    Ok(e) => DimPat::Check(Rc::new(e)),
                    Err(_) => DimPat::Any,
                }
            }
            NDim::Exp(e) => {
                if !coerce {
                    return DimPat::Any;
                }
                match self.exp(e) {
                    Ok(x) => DimPat::Check(Rc::new(x)),
                    Err(_) => DimPat::Any,
                }
            }
        }
    }
}

fn desc(t: &NType) -> TypeDesc {
    match t {
        NType::Prim(p) => TypeDesc::Prim(*p),
        NType::Other => TypeDesc::Opaque,
        NType::Record(fs) => TypeDesc::Record(
            fs.iter().map(|(n, _)| n.to_string()).collect(),
            fs.iter().map(|(_, t)| desc(t)).collect(),
        ),
        NType::Array(dims, elem) => TypeDesc::Array(
            dims.iter()
                .map(|d| match d {
                    NDim::Lit(k) => *k,
                    _ => 0,
                })
                .collect(),
            Box::new(desc(elem)),
        ),
    }
}

/// The type of an entry-point parameter from its pattern's ascriptions.
pub fn param_type_desc(lw: &Lowerer, p: &ast::Pat, env: &Env) -> Option<TypeDesc> {
    let cx = LowerCx::new(lw, env.clone());
    pat_desc(&cx, p)
}

fn pat_desc(cx: &LowerCx<'_>, p: &ast::Pat) -> Option<TypeDesc> {
    match &p.kind {
        ast::PatKind::Ascript(_, t) => cx.type_desc(t),
        ast::PatKind::Parens(inner) | ast::PatKind::Attr(_, inner) => pat_desc(cx, inner),
        ast::PatKind::Tuple(ps) if !ps.is_empty() => {
            let ds: Option<Vec<TypeDesc>> = ps.iter().map(|q| pat_desc(cx, q)).collect();
            Some(TypeDesc::Record(
                (0..ps.len()).map(|i| i.to_string()).collect(),
                ds?,
            ))
        }
        _ => None,
    }
}
