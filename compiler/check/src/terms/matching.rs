//! `match` expressions and the exhaustiveness check (a usefulness test over pattern
//! matrices, run once the scrutinee's type is fully known at the end of the definition).

use futhark_syntax::Span;
use futhark_syntax::ast::{Case, Exp, LitKind, Pat, PatKind};

use crate::checker::Checker;
use crate::typeexp::AnonMode;
use crate::types::{Name, Type};

/// A pattern simplified for the exhaustiveness check.
#[derive(Clone, Debug, PartialEq)]
enum SPat {
    Wild,
    /// A constructor of a finite set: a sum constructor, `true`/`false`, or the single
    /// constructor of a record or tuple (named `{}`).
    Con(Name, Vec<SPat>),
    /// A literal of an infinite type.
    Lit(String),
}

impl Checker<'_> {
    pub fn check_match(&mut self, scrutinee: &Exp, cases: &[Case], span: Span) -> Type {
        let st = self.check_exp(scrutinee);
        let mut result: Option<Type> = None;
        for c in cases {
            let mark = self.scope_mark();
            self.level += 1;
            let mut binds = Vec::new();
            self.check_pat(&c.pat, Some(&st), AnonMode::Ascribe, &mut binds);
            self.bind_pat(&binds);
            let bt = self.check_exp(&c.body);
            self.scope_reset(mark);
            self.level -= 1;
            let bt = self.unscope(&bt, &binds, None, span);
            result = Some(match result {
                None => bt,
                Some(r) => self.branch_type(
                    &r,
                    &bt,
                    span,
                    "Branches of match-expression have different types.",
                ),
            });
        }
        let t = result.unwrap_or(Type::Error);
        self.no_function_result(&t, span, "Match expression");
        self.pending_matches
            .push((span, st, cases.iter().map(|c| c.pat.clone()).collect()));
        t
    }

    /// Reports a non-exhaustive match. Called when types are final.
    pub fn check_exhaustive(&mut self, span: Span, scrut: &Type, pats: &[Pat]) {
        let t = self.uni.zonk(scrut);
        let rows: Vec<Vec<SPat>> = pats.iter().map(|p| vec![self.simplify(p, &t)]).collect();
        if let Some(w) = self.useful(&rows, &[SPat::Wild], &[t], 0) {
            let missing = w.first().map(show_spat).unwrap_or_else(|| "_".into());
            self.error(
                "unmatched-cases",
                span,
                format!("Unmatched cases in match expression: {missing}"),
            );
        }
    }

    fn simplify(&self, p: &Pat, t: &Type) -> SPat {
        let t = self.uni.resolve(t);
        match &p.kind {
            PatKind::Id(_) | PatKind::Wildcard | PatKind::Error => SPat::Wild,
            PatKind::Parens(q) | PatKind::Attr(_, q) | PatKind::Ascript(q, _) => {
                self.simplify(q, &t)
            }
            PatKind::Tuple(ps) => {
                let ts: Vec<Type> = match t.as_tuple() {
                    Some(ts) if ts.len() == ps.len() => ts.into_iter().cloned().collect(),
                    _ => vec![Type::Error; ps.len()],
                };
                SPat::Con(
                    Name::from("{}"),
                    ps.iter()
                        .zip(&ts)
                        .map(|(q, t)| self.simplify(q, t))
                        .collect(),
                )
            }
            PatKind::Record(fs) => match &t {
                Type::Record(m) => SPat::Con(
                    Name::from("{}"),
                    m.iter()
                        .map(
                            |(k, ft)| match fs.iter().find(|(f, _)| f.name.as_str() == &**k) {
                                Some((_, q)) => self.simplify(q, ft),
                                None => SPat::Wild,
                            },
                        )
                        .collect(),
                ),
                _ => SPat::Wild,
            },
            PatKind::Literal(l) => match &l.kind {
                LitKind::Bool(b) => {
                    SPat::Con(Name::from(if *b { "true" } else { "false" }), vec![])
                }
                LitKind::Int {
                    value, negative, ..
                } => SPat::Lit(format!("{}{value}", if *negative { "-" } else { "" })),
                LitKind::Float { text, negative, .. } => {
                    SPat::Lit(format!("{}{text}", if *negative { "-" } else { "" }))
                }
                LitKind::Char(c) => SPat::Lit(format!("{c}")),
            },
            PatKind::Constr(c, ps) => {
                let payload: Vec<Type> = match &t {
                    Type::Sum(cs) => cs.get(c.name.as_str()).cloned().unwrap_or_default(),
                    _ => vec![],
                };
                SPat::Con(
                    Name::from(format!("#{}", c.name)),
                    ps.iter()
                        .enumerate()
                        .map(|(i, q)| self.simplify(q, payload.get(i).unwrap_or(&Type::Error)))
                        .collect(),
                )
            }
        }
    }

    /// The complete set of constructors of a type, with their argument types, if finite.
    fn signature(&self, t: &Type) -> Option<Vec<(Name, Vec<Type>)>> {
        match self.uni.resolve(t) {
            Type::Sum(cs) => Some(
                cs.into_iter()
                    .map(|(k, ts)| (Name::from(format!("#{k}")), ts))
                    .collect(),
            ),
            Type::Record(fs) => Some(vec![(Name::from("{}"), fs.into_values().collect())]),
            Type::Prim(crate::types::PrimType::Bool) => Some(vec![
                (Name::from("false"), vec![]),
                (Name::from("true"), vec![]),
            ]),
            _ => None,
        }
    }

    /// If `q` matches a value no row matches, returns such a value (as patterns).
    fn useful(
        &self,
        rows: &[Vec<SPat>],
        q: &[SPat],
        tys: &[Type],
        depth: u32,
    ) -> Option<Vec<SPat>> {
        if depth > 200 {
            return None;
        }
        if q.is_empty() {
            return if rows.is_empty() { Some(vec![]) } else { None };
        }
        let t = tys.first().cloned().unwrap_or(Type::Error);
        let rest_tys = &tys[1.min(tys.len())..];
        match &q[0] {
            SPat::Con(c, args) => {
                let arg_tys = self.con_arg_types(&t, c, args.len());
                let srows = specialize(rows, c, args.len());
                let mut nq = args.clone();
                nq.extend_from_slice(&q[1..]);
                let mut ntys = arg_tys;
                ntys.extend_from_slice(rest_tys);
                self.useful(&srows, &nq, &ntys, depth + 1)
                    .map(|w| rebuild(c, args.len(), w))
            }
            SPat::Lit(l) => {
                let srows: Vec<Vec<SPat>> = rows
                    .iter()
                    .filter_map(|r| match &r[0] {
                        SPat::Lit(x) if x == l => Some(r[1..].to_vec()),
                        SPat::Wild => Some(r[1..].to_vec()),
                        _ => None,
                    })
                    .collect();
                self.useful(&srows, &q[1..], rest_tys, depth + 1)
                    .map(|mut w| {
                        w.insert(0, SPat::Lit(l.clone()));
                        w
                    })
            }
            SPat::Wild => {
                let used: Vec<Name> = rows
                    .iter()
                    .filter_map(|r| match &r[0] {
                        SPat::Con(c, _) => Some(c.clone()),
                        _ => None,
                    })
                    .collect();
                let sig = self.signature(&t);
                match sig {
                    Some(sig) if !sig.is_empty() && sig.iter().all(|(c, _)| used.contains(c)) => {
                        for (c, arg_tys) in &sig {
                            let n = arg_tys.len();
                            let srows = specialize(rows, c, n);
                            let mut nq = vec![SPat::Wild; n];
                            nq.extend_from_slice(&q[1..]);
                            let mut ntys = arg_tys.clone();
                            ntys.extend_from_slice(rest_tys);
                            if let Some(w) = self.useful(&srows, &nq, &ntys, depth + 1) {
                                return Some(rebuild(c, n, w));
                            }
                        }
                        None
                    }
                    _ => {
                        let drows: Vec<Vec<SPat>> = rows
                            .iter()
                            .filter(|r| matches!(r[0], SPat::Wild))
                            .map(|r| r[1..].to_vec())
                            .collect();
                        self.useful(&drows, &q[1..], rest_tys, depth + 1)
                            .map(|mut w| {
                                let missing = match &sig {
                                    Some(sig) => sig
                                        .iter()
                                        .find(|(c, _)| !used.contains(c))
                                        .map(|(c, ts)| {
                                            SPat::Con(c.clone(), vec![SPat::Wild; ts.len()])
                                        })
                                        .unwrap_or(SPat::Wild),
                                    None => SPat::Wild,
                                };
                                w.insert(0, missing);
                                w
                            })
                    }
                }
            }
        }
    }

    fn con_arg_types(&self, t: &Type, c: &Name, n: usize) -> Vec<Type> {
        if let Some(sig) = self.signature(t)
            && let Some((_, ts)) = sig.into_iter().find(|(k, _)| k == c)
            && ts.len() == n
        {
            return ts;
        }
        vec![Type::Error; n]
    }
}

fn specialize(rows: &[Vec<SPat>], c: &Name, n: usize) -> Vec<Vec<SPat>> {
    rows.iter()
        .filter_map(|r| match &r[0] {
            SPat::Con(k, args) if k == c => {
                let mut nr = args.clone();
                nr.resize(n, SPat::Wild);
                nr.extend_from_slice(&r[1..]);
                Some(nr)
            }
            SPat::Con(..) | SPat::Lit(_) => None,
            SPat::Wild => {
                let mut nr = vec![SPat::Wild; n];
                nr.extend_from_slice(&r[1..]);
                Some(nr)
            }
        })
        .collect()
}

fn rebuild(c: &Name, n: usize, mut w: Vec<SPat>) -> Vec<SPat> {
    let n = n.min(w.len());
    let rest = w.split_off(n);
    let mut out = vec![SPat::Con(c.clone(), w)];
    out.extend(rest);
    out
}

fn show_spat(p: &SPat) -> String {
    match p {
        SPat::Wild => "_".into(),
        SPat::Lit(l) => l.clone(),
        SPat::Con(c, args) if &**c == "{}" => {
            format!(
                "({})",
                args.iter().map(show_spat).collect::<Vec<_>>().join(", ")
            )
        }
        SPat::Con(c, args) if args.is_empty() => c.to_string(),
        SPat::Con(c, args) => {
            let mut s = c.to_string();
            for a in args {
                s.push(' ');
                let inner = show_spat(a);
                if matches!(a, SPat::Con(_, xs) if !xs.is_empty()) && !inner.starts_with('(') {
                    s.push_str(&format!("({inner})"));
                } else {
                    s.push_str(&inner);
                }
            }
            s
        }
    }
}
