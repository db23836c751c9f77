//! Patterns: `let`/`case`/`loop` patterns and the more restricted function parameters
//! (which exclude negative literals and need parentheses around ascriptions).

use super::Parser;
use crate::ast::{Pat, PatKind};
use crate::lexer::TokenKind;

impl Parser<'_> {
    /// `pat ::= "#[" attr "]" pat | ipat ":" type | ipat | constr {ipat}`
    pub(super) fn pat(&mut self) -> Pat {
        if !self.enter() {
            return self.error_pat();
        }
        let start = self.start();
        let p = match self.kind() {
            TokenKind::HashBracket => {
                let attr = self.attr();
                let inner = self.pat();
                Pat {
                    kind: PatKind::Attr(attr, Box::new(inner)),
                    span: self.span_from(start),
                }
            }
            TokenKind::Constructor => {
                let t = self.bump();
                let name = self.constructor_from(t);
                let mut fields = Vec::new();
                while self.at_inner_pat_start(true) {
                    let before = self.pos;
                    fields.push(self.inner_pat(true));
                    if self.pos == before {
                        break;
                    }
                }
                let p = Pat {
                    kind: PatKind::Constr(name, fields),
                    span: self.span_from(start),
                };
                self.maybe_ascribed(p, start)
            }
            _ => {
                let p = self.inner_pat(true);
                self.maybe_ascribed(p, start)
            }
        };
        self.leave();
        p
    }

    fn maybe_ascribed(&mut self, p: Pat, start: u32) -> Pat {
        if !self.eat(TokenKind::Colon) {
            return p;
        }
        let ty = self.type_exp();
        Pat {
            kind: PatKind::Ascript(Box::new(p), ty),
            span: self.span_from(start),
        }
    }

    fn error_pat(&self) -> Pat {
        Pat {
            kind: PatKind::Error,
            span: self.here(),
        }
    }

    /// Can an inner pattern (or, without `negative`, a parameter) start here?
    fn at_inner_pat_start(&self, negative: bool) -> bool {
        use TokenKind::*;
        match self.kind() {
            Ident | Underscore | LParen | LBrace | Int | Float | Char | True | False
            | Constructor => true,
            Symbol => negative && self.at_symbol("-") && matches!(self.nth(1), Int | Float),
            _ => false,
        }
    }

    /// Function parameters: zero or more inner patterns without negative literals.
    pub(super) fn params(&mut self) -> Vec<Pat> {
        let mut params = Vec::new();
        while self.at_inner_pat_start(false) {
            let before = self.pos;
            params.push(self.inner_pat(false));
            if self.pos == before {
                break;
            }
        }
        params
    }

    pub(super) fn at_param_start(&self) -> bool {
        self.at_inner_pat_start(false)
    }

    /// One parameter pattern.
    pub(super) fn param(&mut self) -> Pat {
        self.inner_pat(false)
    }

    /// `ipat`: names, `_`, `(op)`, tuples, records, literals and bare constructors.
    fn inner_pat(&mut self, negative: bool) -> Pat {
        use TokenKind::*;
        let start = self.start();
        let kind = match self.kind() {
            Ident => {
                let t = self.bump();
                PatKind::Id(self.ident_from(t))
            }
            Underscore => {
                self.bump();
                PatKind::Wildcard
            }
            Constructor => {
                let t = self.bump();
                PatKind::Constr(self.constructor_from(t), Vec::new())
            }
            Int | Float | Char | True | False => {
                let t = self.bump();
                PatKind::Literal(self.literal_from(t, false, t.start))
            }
            Symbol if negative && self.at_symbol("-") && matches!(self.nth(1), Int | Float) => {
                self.bump();
                let t = self.bump();
                PatKind::Literal(self.literal_from(t, true, start))
            }
            LParen => self.paren_pat(),
            LBrace => {
                self.bump();
                let fields = self.comma_list(RBrace, "`}` to close the record pattern", |p| {
                    let name = p.field("a field name");
                    let field_start = name.span.start;
                    let pat = if p.eat(Equals) {
                        p.pat()
                    } else if p.eat(Colon) {
                        let ty = p.type_exp();
                        let id = Pat {
                            kind: PatKind::Id(name.clone()),
                            span: name.span,
                        };
                        Pat {
                            kind: PatKind::Ascript(Box::new(id), ty),
                            span: p.span_from(field_start),
                        }
                    } else {
                        Pat {
                            kind: PatKind::Id(name.clone()),
                            span: name.span,
                        }
                    };
                    (name, pat)
                });
                PatKind::Record(fields)
            }
            _ => {
                self.expected("a pattern");
                return self.error_pat();
            }
        };
        Pat {
            kind,
            span: self.span_from(start),
        }
    }

    /// After `(`: `()`, `(op)`, `(p)`, `(p, q, …)`.
    fn paren_pat(&mut self) -> PatKind {
        use TokenKind::*;
        self.bump();
        if self.eat(RParen) {
            return PatKind::Tuple(Vec::new());
        }
        if self.binop_len(0).is_some_and(|len| self.nth(len) == RParen) {
            let (op, _) = self.infix_op();
            self.bump();
            if !op.quals.is_empty() {
                self.error_at(op.span, "a qualified name cannot be bound");
            }
            return PatKind::Id(op.name);
        }
        let first = self.pat();
        if !self.eat(Comma) {
            self.expect(RParen, "`)` to close the pattern");
            return PatKind::Parens(Box::new(first));
        }
        let mut elems = vec![first];
        elems.extend(self.comma_list(RParen, "`)` to close the tuple pattern", |p| p.pat()));
        if elems.len() == 1 {
            return elems
                .pop()
                .map_or(PatKind::Error, |p| PatKind::Parens(Box::new(p)));
        }
        PatKind::Tuple(elems)
    }
}
