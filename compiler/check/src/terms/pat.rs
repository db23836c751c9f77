//! Patterns: inferring their types against an optional expected type, collecting the names
//! they bind, and deciding refutability.

use std::collections::BTreeMap;

use futhark_syntax::ast::{Ident, LitKind, Pat, PatKind};

use crate::checker::Checker;
use crate::info::{DefKind, DefRef};
use crate::typeexp::AnonMode;
use crate::types::{Name, Type, VName, tuple_field};

/// A name bound by a pattern.
#[derive(Clone, Debug)]
pub struct PatBind {
    pub ident: Ident,
    pub vname: VName,
    pub ty: Type,
}

impl Checker<'_> {
    /// Checks a pattern. `expected` is the type of the value matched (for `let` and `case`),
    /// or `None` for parameters, whose types come from annotations or fresh variables.
    /// The bound names are appended to `binds` (not yet in scope).
    pub fn check_pat(
        &mut self,
        p: &Pat,
        expected: Option<&Type>,
        mode: AnonMode,
        binds: &mut Vec<PatBind>,
    ) -> Type {
        if self.too_deep() {
            self.error("too-deep", p.span, "Pattern nested too deeply.");
            return Type::Error;
        }
        self.depth += 1;
        let t = self.check_pat_inner(p, expected, mode, binds);
        self.depth -= 1;
        t
    }

    pub(crate) fn check_pat_inner(
        &mut self,
        p: &Pat,
        expected: Option<&Type>,
        mode: AnonMode,
        binds: &mut Vec<PatBind>,
    ) -> Type {
        match &p.kind {
            PatKind::Error => Type::Error,
            PatKind::Id(x) => {
                let t = match expected {
                    Some(t) => t.clone(),
                    None => self.new_tyvar(&x.name, p.span),
                };
                self.bind_pat_name(x, &t, binds);
                t
            }
            PatKind::Wildcard => match expected {
                Some(t) => t.clone(),
                None => self.new_tyvar("t", p.span),
            },
            PatKind::Parens(inner) | PatKind::Attr(_, inner) => {
                self.check_pat(inner, expected, mode, binds)
            }
            PatKind::Tuple(ps) => {
                let comps = self.expected_components(expected, ps.len(), p);
                let ts: Vec<Type> = ps
                    .iter()
                    .zip(comps.iter())
                    .map(|(q, c)| self.check_pat(q, c.as_ref(), mode, binds))
                    .collect();
                Type::tuple(ts)
            }
            PatKind::Record(fs) => {
                let mut seen: Vec<&str> = Vec::new();
                for (f, _) in fs {
                    if seen.contains(&f.name.as_str()) {
                        self.error(
                            "duplicate-field",
                            f.span,
                            format!("Duplicate fields in record pattern: \"{}\".", f.name),
                        );
                    }
                    seen.push(&f.name);
                }
                let field_types: Option<BTreeMap<Name, Type>> = match expected
                    .map(|t| self.uni.resolve(t))
                {
                    Some(Type::Record(m)) => Some(m),
                    Some(t @ Type::Var(_)) if expected.is_some() => {
                        // Give the value a record type with exactly these fields.
                        let mut m = BTreeMap::new();
                        for (f, _) in fs {
                            m.insert(Name::from(f.name.as_str()), self.new_tyvar(&f.name, f.span));
                        }
                        let rt = Type::Record(m.clone());
                        self.pat_unify(p, &rt, &t);
                        Some(m)
                    }
                    _ => None,
                };
                let mut m = BTreeMap::new();
                for (f, q) in fs {
                    let key = Name::from(f.name.as_str());
                    let ft = match &field_types {
                        Some(ftys) => match ftys.get(&key) {
                            Some(t) => Some(t.clone()),
                            None => {
                                self.error(
                                    "type-mismatch",
                                    f.span,
                                    format!("Record pattern has field \"{}\" not present in the value's type.", f.name),
                                );
                                Some(Type::Error)
                            }
                        },
                        None => None,
                    };
                    let t = self.check_pat(q, ft.as_ref(), mode, binds);
                    m.insert(key, t);
                }
                let t = Type::Record(m);
                if let (Some(e), Some(ftys)) = (expected, &field_types)
                    && ftys.len() != fs.len()
                {
                    self.pat_unify(p, &t, e);
                }
                t
            }
            PatKind::Literal(lit) => {
                let t = self.check_literal(lit, false);
                if let LitKind::Bool(_) = lit.kind {
                } else {
                    self.info.literal_types.remove(&lit.span);
                }
                if let Some(e) = expected {
                    self.pat_unify(p, e, &t);
                }
                self.record_type(p.span, &t);
                t
            }
            PatKind::Constr(c, ps) => {
                let cname = Name::from(c.name.as_str());
                let expected_payload = match expected.map(|t| self.uni.resolve(t)) {
                    Some(Type::Sum(cs)) => cs.get(&cname).cloned(),
                    _ => None,
                };
                let ts: Vec<Type> = match &expected_payload {
                    Some(pts) if pts.len() == ps.len() => ps
                        .iter()
                        .zip(pts)
                        .map(|(q, t)| self.check_pat(q, Some(t), mode, binds))
                        .collect(),
                    _ => ps
                        .iter()
                        .map(|q| self.check_pat(q, None, mode, binds))
                        .collect(),
                };
                let t = match expected {
                    Some(t) => t.clone(),
                    None => self.new_tyvar("sum", p.span),
                };
                if let Err(e) = self.uni.must_have_constr(&t, &cname, &ts) {
                    self.error("type-mismatch", p.span, e.message());
                }
                t
            }
            PatKind::Ascript(inner, te) => {
                let r = self.resolve_type(te, mode);
                if let Some(e) = expected
                    && let Err(err) = self.uni.unify(&r.ty, e)
                {
                    self.report_unify(
                        p.span,
                        "Type ascription in pattern cannot match the type of the value.",
                        &r.ty,
                        e,
                        err,
                    );
                }
                self.check_pat(inner, Some(&r.ty), mode, binds)
            }
        }
    }

    fn pat_unify(&mut self, p: &Pat, expected: &Type, actual: &Type) {
        if let Err(e) = self.uni.unify(expected, actual) {
            self.report_unify(
                p.span,
                "Pattern does not match the type of the value.",
                expected,
                actual,
                e,
            );
        }
    }

    /// Component types for a tuple pattern of `n` elements against an expected type.
    fn expected_components(
        &mut self,
        expected: Option<&Type>,
        n: usize,
        p: &Pat,
    ) -> Vec<Option<Type>> {
        let Some(e) = expected else {
            return vec![None; n];
        };
        let r = self.uni.resolve(e);
        if let Some(cs) = r.as_tuple()
            && cs.len() == n
        {
            return cs.into_iter().map(|t| Some(t.clone())).collect();
        }
        if matches!(r, Type::Error) {
            return vec![Some(Type::Error); n];
        }
        let comps: Vec<Type> = (0..n)
            .map(|i| self.new_tyvar(&format!("t{i}"), p.span))
            .collect();
        let tt = Type::tuple(comps.clone());
        if let Err(err) = self.uni.unify(&tt, &r) {
            self.report_unify(
                p.span,
                "Pattern does not match the type of the value.",
                &tt,
                &r,
                err,
            );
            return vec![Some(Type::Error); n];
        }
        let _ = tuple_field;
        comps.into_iter().map(Some).collect()
    }

    fn bind_pat_name(&mut self, x: &Ident, t: &Type, binds: &mut Vec<PatBind>) {
        if binds.iter().any(|b| b.ident.name == x.name) {
            self.error(
                "duplicate-binding",
                x.span,
                format!(
                    "Variable \"{}\" is also bound elsewhere in the same pattern.",
                    x.name
                ),
            );
        }
        let vname = self.fresh(&x.name);
        self.record_type(x.span, t);
        self.resolve_to(
            x.span,
            &DefRef::new(&vname, DefKind::Local, Some(x.span), None),
        );
        binds.push(PatBind {
            ident: x.clone(),
            vname,
            ty: t.clone(),
        });
    }

    /// Brings the names bound by a pattern into scope.
    pub fn bind_pat(&mut self, binds: &[PatBind]) {
        for b in binds {
            self.bind_local(&b.ident, b.vname.clone(), b.ty.clone());
        }
    }

    /// True if the pattern might fail to match a value of type `t`.
    pub fn is_refutable(&self, p: &Pat, t: &Type) -> bool {
        let t = self.uni.resolve(t);
        match &p.kind {
            PatKind::Id(_) | PatKind::Wildcard | PatKind::Error => false,
            PatKind::Parens(q) | PatKind::Attr(_, q) | PatKind::Ascript(q, _) => {
                self.is_refutable(q, &t)
            }
            PatKind::Tuple(ps) => match t.as_tuple() {
                Some(ts) if ts.len() == ps.len() => {
                    ps.iter().zip(ts).any(|(q, ct)| self.is_refutable(q, ct))
                }
                _ => ps.iter().any(|q| self.is_refutable(q, &Type::Error)),
            },
            PatKind::Record(fs) => match &t {
                Type::Record(m) => fs.iter().any(|(f, q)| {
                    let ft = m.get(f.name.as_str()).cloned().unwrap_or(Type::Error);
                    self.is_refutable(q, &ft)
                }),
                _ => fs.iter().any(|(_, q)| self.is_refutable(q, &Type::Error)),
            },
            PatKind::Literal(_) => true,
            PatKind::Constr(c, ps) => match &t {
                Type::Sum(cs) if cs.len() == 1 => match cs.get(c.name.as_str()) {
                    Some(ts) => ps.iter().zip(ts).any(|(q, ct)| self.is_refutable(q, ct)),
                    None => true,
                },
                _ => true,
            },
        }
    }
}
