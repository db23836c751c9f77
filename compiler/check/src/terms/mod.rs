//! Type inference for expressions. `check_exp` dispatches on the expression form; the
//! larger forms live in submodules (application, patterns, bindings, loops, matches).

pub mod apply;
mod bind;
mod exp;
mod index;
mod loops;
pub mod matching;
pub mod pat;

use futhark_syntax::ast::{Exp, ExpKind};

use crate::checker::Checker;
use crate::types::Type;

pub use exp::exp_summary;

impl Checker<'_> {
    /// Infers the type of an expression, recording it in the side tables.
    pub fn check_exp(&mut self, e: &Exp) -> Type {
        if self.too_deep() {
            self.error("too-deep", e.span, "Expression nested too deeply.");
            return Type::Error;
        }
        self.depth += 1;
        let t = self.check_exp_inner(e);
        self.depth -= 1;
        self.record_type(e.span, &t);
        t
    }

    pub(crate) fn check_exp_inner(&mut self, e: &Exp) -> Type {
        match &e.kind {
            ExpKind::Error => Type::Error,
            ExpKind::Literal(lit) => self.check_literal(lit, false),
            ExpKind::StringLit(s) => Type::array(
                Type::Prim(crate::types::PrimType::U8),
                vec![crate::types::Size::Lit(s.len() as i64)],
                false,
            ),
            ExpKind::Hole => self.new_tyvar("hole", e.span),
            ExpKind::Var(qn) => self.check_var(qn, e.span),
            ExpKind::Constr(c, args) => self.check_constr(c, args, e.span),
            ExpKind::Parens(inner) => self.check_exp(inner),
            ExpKind::Tuple(es) => {
                let ts = es.iter().map(|x| self.check_exp(x)).collect();
                Type::tuple(ts)
            }
            ExpKind::Record(fs) => self.check_record(fs),
            ExpKind::ArrayLit(es) => self.check_array_lit(es, e.span),
            ExpKind::Project(inner, field) => {
                let t = self.check_exp(inner);
                self.project(&t, field, e.span)
            }
            ExpKind::QualParens(qn, inner) => self.check_qual_parens(qn, inner),
            ExpKind::Index(arr, idxs) => {
                let t = self.check_exp(arr);
                self.check_index(&t, idxs, e.span, arr)
            }
            ExpKind::Apply(f, args) => self.check_apply(e, f, args),
            ExpKind::Negate(inner) => self.check_negate(inner, e.span),
            ExpKind::Not(inner) => {
                let t = self.check_exp(inner);
                let mut ps = crate::types::PrimType::integers();
                ps.push(crate::types::PrimType::Bool);
                if let Err(err) = self.uni.must_be_one_of(&t, &ps) {
                    self.error(
                        "type-mismatch",
                        e.span,
                        format!(
                            "Cannot apply \"!\" to a value of type \"{}\": {}",
                            self.uni.zonk(&t),
                            err.message()
                        ),
                    );
                }
                t
            }
            ExpKind::BinOp {
                op,
                backticked: _,
                lhs,
                rhs,
            } => self.check_binop(e, op, lhs, rhs),
            ExpKind::OpSection { op, .. } => self.check_op_section(op, e.span),
            ExpKind::LeftSection { op, lhs, .. } => self.check_left_section(op, lhs, e.span),
            ExpKind::RightSection { op, rhs, .. } => self.check_right_section(op, rhs, e.span),
            ExpKind::ProjectSection(steps) => self.check_project_section(steps, e.span),
            ExpKind::Range {
                start,
                second,
                end,
                kind,
            } => self.check_range(start, second.as_deref(), end, *kind, e.span),
            ExpKind::Ascript(inner, te) => self.check_ascript(inner, te),
            ExpKind::Coerce(inner, te) => self.check_coerce(inner, te, e.span),
            ExpKind::If { cond, then, els } => self.check_if(cond, then, els, e.span),
            ExpKind::Let {
                sizes,
                pat,
                value,
                body,
            } => self.check_let(sizes, pat, value, body, e.span),
            ExpKind::LetFun {
                name,
                tparams,
                params,
                ret,
                value,
                body,
            } => self.check_letfun(name, tparams, params, ret.as_ref(), value, body),
            ExpKind::LetWith {
                dest,
                path,
                value,
                body,
            } => self.check_letwith(dest, path, value, body, e.span),
            ExpKind::Update {
                target,
                path,
                value,
            } => {
                let t = self.check_exp(target);
                let what = exp::exp_summary(target);
                self.check_update(&t, path, value, e.span, &what)
            }
            ExpKind::Loop {
                pat,
                init,
                form,
                body,
            } => self.check_loop(pat, init.as_deref(), form, body, e.span),
            ExpKind::Match { scrutinee, cases } => self.check_match(scrutinee, cases, e.span),
            ExpKind::Lambda { params, ret, body } => {
                self.check_lambda(params, ret.as_ref(), body, e.span)
            }
            ExpKind::Assert { cond, body } => {
                let t = self.check_exp(cond);
                self.expect(
                    cond.span,
                    "Condition of assertion must have type bool.",
                    &Type::bool(),
                    &t,
                );
                self.check_exp(body)
            }
            ExpKind::Attr(_, inner) => self.check_exp(inner),
        }
    }
}
