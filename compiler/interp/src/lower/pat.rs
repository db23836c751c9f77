//! Lowering of patterns.

use futhark_syntax::ast::{self, LitKind, PatKind};

use super::exp::LowerCx;
use crate::errors::Result;
use crate::ir::{FlexLit, LitPat, Pat};
use crate::value::{Name, field_order};

impl LowerCx<'_> {
    /// Lowers a pattern, declaring its names in the current function.
    pub fn pat(&mut self, p: &ast::Pat) -> Result<Pat> {
        Ok(match &p.kind {
            PatKind::Id(n) => Pat::Bind(self.bind_local(&n.name)),
            PatKind::Wildcard => Pat::Wild,
            PatKind::Parens(inner) | PatKind::Attr(_, inner) => self.pat(inner)?,
            PatKind::Tuple(ps) => {
                let mut out = Vec::with_capacity(ps.len());
                for q in ps {
                    out.push(self.pat(q)?);
                }
                Pat::Tuple(out)
            }
            PatKind::Record(fields) => {
                let mut out = Vec::with_capacity(fields.len());
                for (n, q) in fields {
                    out.push((Name::from(n.name.as_str()), self.pat(q)?));
                }
                out.sort_by(|a, b| field_order(&a.0, &b.0));
                Pat::Record(out)
            }
            PatKind::Literal(l) => Pat::Lit(self.lit_pat(l, None)),
            PatKind::Constr(c, ps) => {
                let mut out = Vec::with_capacity(ps.len());
                for q in ps {
                    out.push(self.pat(q)?);
                }
                Pat::Constr(Name::from(c.name.as_str()), out)
            }
            PatKind::Ascript(inner, t) => {
                if let PatKind::Literal(l) = &inner.kind {
                    let ty = self.prim_of(t);
                    return Ok(Pat::Lit(self.lit_pat(l, ty)));
                }
                let q = self.pat(inner)?;
                let shape = self.shape_pat(t, false)?;
                if shape.is_trivial() {
                    q
                } else {
                    Pat::Sized(Box::new(q), shape)
                }
            }
            PatKind::Error => Pat::Wild,
        })
    }

    fn lit_pat(&self, l: &ast::Literal, ty: Option<futhark_values::PrimType>) -> LitPat {
        let hinted = ty.or_else(|| self.lw.hints.literal_type(&l.span));
        let flex = match &l.kind {
            LitKind::Int {
                value,
                negative,
                suffix,
            } => {
                let v = (*value).min(i128::MAX as u128) as i128;
                let v = if *negative { -v } else { v };
                if let Some(s) = suffix {
                    let t = Some(s.prim_type());
                    return LitPat::Known(FlexLit::Int(v).at(t));
                }
                FlexLit::Int(v)
            }
            LitKind::Char(c) => FlexLit::Int(*c as i128),
            LitKind::Float {
                bits,
                negative,
                suffix,
                ..
            } => {
                let x = f64::from_bits(*bits);
                let x = if *negative { -x } else { x };
                if let Some(s) = suffix {
                    let t = Some(s.prim_type());
                    return LitPat::Known(FlexLit::Float(x).at(t));
                }
                FlexLit::Float(x)
            }
            LitKind::Bool(b) => return LitPat::Known(crate::prim::Prim::Bool(*b)),
        };
        match hinted {
            Some(t) => LitPat::Known(flex.at(Some(t))),
            None => LitPat::Flex(flex),
        }
    }
}
