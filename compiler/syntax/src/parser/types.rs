//! Type expressions, sizes and type parameters.
//!
//! ```text
//! type  ::= "(" name ":" type ")" "->" type | term "->" type | "?" ("[" name "]")+ "." type | term
//! term  ::= "*" term | app | constr {tatom} {"|" constr {tatom}}
//! app   ::= app ("[" [exp] "]" | tatom) | tatom
//! tatom ::= "(" type,… ")" | "{" (field ":" type),… "}" | "[" [exp] "]" term | qualname
//! ```
//! In argument position `[n]` is a size argument, so `pt [n] t` passes `[n]` and then `t`.

use super::Parser;
use crate::ast::{Ident, Liftedness, SizeExp, TypeArg, TypeExp, TypeExpKind, TypeParam};
use crate::lexer::TokenKind;

impl Parser<'_> {
    pub(super) fn type_exp(&mut self) -> TypeExp {
        use TokenKind::*;
        if !self.enter() {
            return self.error_type();
        }
        let start = self.start();
        let t = if self.at(LParen) && self.nth(1) == Ident && self.nth(2) == Colon {
            // `(n: t) -> u`: a named parameter.
            self.bump();
            let t = self.bump();
            let name = self.ident_from(t);
            self.bump();
            let from = self.type_exp();
            self.expect(RParen, "`)` after the type of the named parameter");
            self.expect(Arrow, "`->` after the named parameter");
            let to = self.type_exp();
            TypeExp {
                kind: TypeExpKind::Arrow {
                    param: Some(name),
                    from: Box::new(from),
                    to: Box::new(to),
                },
                span: self.span_from(start),
            }
        } else if self.at(Question) {
            self.bump();
            let mut sizes = Vec::new();
            while matches!(self.kind(), LBracket | IndexBracket) {
                self.bump();
                sizes.push(self.ident("a size name in `?[…]`"));
                self.expect(RBracket, "`]` after the size name");
            }
            if sizes.is_empty() {
                self.expected("`[` after `?`");
            }
            self.expect(Dot, "`.` after the existential sizes");
            let ty = self.type_exp();
            TypeExp {
                kind: TypeExpKind::Existential {
                    sizes,
                    ty: Box::new(ty),
                },
                span: self.span_from(start),
            }
        } else {
            let from = self.type_term();
            if self.eat(Arrow) {
                let to = self.type_exp();
                TypeExp {
                    kind: TypeExpKind::Arrow {
                        param: None,
                        from: Box::new(from),
                        to: Box::new(to),
                    },
                    span: self.span_from(start),
                }
            } else {
                from
            }
        };
        self.leave();
        t
    }

    fn error_type(&self) -> TypeExp {
        TypeExp {
            kind: TypeExpKind::Error,
            span: self.here(),
        }
    }

    /// `*t`, sum types and type applications (no arrows).
    pub(super) fn type_term(&mut self) -> TypeExp {
        use TokenKind::*;
        if !self.enter() {
            return self.error_type();
        }
        let start = self.start();
        let t = if self.at_symbol("*") {
            self.bump();
            let inner = self.type_term();
            TypeExp {
                kind: TypeExpKind::Unique(Box::new(inner)),
                span: self.span_from(start),
            }
        } else if self.at(Constructor) {
            let mut clauses = Vec::new();
            loop {
                if !self.at(Constructor) {
                    self.expected("a constructor such as `#c` in the sum type");
                    break;
                }
                let t = self.bump();
                let name = self.constructor_from(t);
                let mut payload = Vec::new();
                while self.at_type_atom_start() {
                    let before = self.pos;
                    payload.push(self.type_atom());
                    if self.pos == before {
                        break;
                    }
                }
                clauses.push((name, payload));
                if !self.at_symbol("|") {
                    break;
                }
                self.bump();
            }
            TypeExp {
                kind: TypeExpKind::Sum(clauses),
                span: self.span_from(start),
            }
        } else {
            self.type_apply()
        };
        self.leave();
        t
    }

    fn at_type_atom_start(&self) -> bool {
        use TokenKind::*;
        matches!(
            self.kind(),
            LParen | LBrace | LBracket | IndexBracket | Ident
        )
    }

    /// A type constructor applied to size and type arguments.
    #[inline(never)]
    fn type_apply(&mut self) -> TypeExp {
        use TokenKind::*;
        let start = self.start();
        let mut t = self.type_atom();
        let mut wraps = 0;
        loop {
            let arg = match self.kind() {
                LBracket | IndexBracket => TypeArg::Size(self.size_exp()),
                LParen | LBrace | Ident => TypeArg::Type(Box::new(self.type_atom())),
                _ => break,
            };
            if !self.enter() {
                break;
            }
            wraps += 1;
            t = TypeExp {
                kind: TypeExpKind::Apply(Box::new(t), arg),
                span: self.span_from(start),
            };
        }
        self.leave_n(wraps);
        t
    }

    /// `[e]` or `[]`, at the `[`.
    pub(super) fn size_exp(&mut self) -> SizeExp {
        let start = self.bump().start;
        if self.eat(TokenKind::RBracket) {
            return SizeExp::Anonymous(self.span_from(start));
        }
        let e = self.exp();
        self.expect(TokenKind::RBracket, "`]` to close the size");
        SizeExp::Exp(Box::new(e))
    }

    #[inline(never)]
    fn type_atom(&mut self) -> TypeExp {
        use TokenKind::*;
        let start = self.start();
        let kind = match self.kind() {
            LParen => {
                self.bump();
                if self.eat(RParen) {
                    TypeExpKind::Tuple(Vec::new())
                } else {
                    let first = self.type_exp();
                    if self.eat(Comma) {
                        let mut elems = vec![first];
                        elems.extend(
                            self.comma_list(RParen, "`)` to close the tuple type", |p| {
                                p.type_exp()
                            }),
                        );
                        if elems.len() == 1 {
                            elems
                                .pop()
                                .map_or(TypeExpKind::Error, |t| TypeExpKind::Parens(Box::new(t)))
                        } else {
                            TypeExpKind::Tuple(elems)
                        }
                    } else {
                        self.expect(RParen, "`)` to close the type");
                        TypeExpKind::Parens(Box::new(first))
                    }
                }
            }
            LBrace => {
                self.bump();
                let fields = self.comma_list(RBrace, "`}` to close the record type", |p| {
                    let name = p.field("a field name");
                    p.expect(Colon, "`:` after the field name");
                    (name, p.type_exp())
                });
                TypeExpKind::Record(fields)
            }
            LBracket | IndexBracket => {
                let size = self.size_exp();
                let elem = self.type_term();
                TypeExpKind::Array {
                    size,
                    elem: Box::new(elem),
                }
            }
            Ident => TypeExpKind::Var(self.qual_name("a type name")),
            _ => {
                self.expected("a type");
                return self.error_type();
            }
        };
        TypeExp {
            kind,
            span: self.span_from(start),
        }
    }

    /// `{[n] | 'a | '~a | '^a}`
    pub(super) fn type_params(&mut self) -> Vec<TypeParam> {
        use TokenKind::*;
        let mut params = Vec::new();
        loop {
            match self.kind() {
                LBracket | IndexBracket => {
                    self.bump();
                    let name = self.ident("a size parameter name");
                    self.expect(RBracket, "`]` after the size parameter");
                    params.push(TypeParam::Size(name));
                }
                Apostrophe | ApostropheHat | ApostropheTilde => {
                    let lifted = match self.bump().kind {
                        ApostropheHat => Liftedness::Lifted,
                        ApostropheTilde => Liftedness::SizeLifted,
                        _ => Liftedness::Unlifted,
                    };
                    let name = self.ident("a type parameter name");
                    params.push(TypeParam::Type(name, lifted));
                }
                _ => break,
            }
        }
        params
    }

    /// `type` liftedness marker: nothing, `~` or `^`.
    pub(super) fn liftedness(&mut self) -> Liftedness {
        if self.eat(TokenKind::Tilde) {
            Liftedness::SizeLifted
        } else if self.at_symbol("^") {
            self.bump();
            Liftedness::Lifted
        } else {
            Liftedness::Unlifted
        }
    }

    /// A binding name for `val` specs and `def`s: a name or `(op)`/`op`.
    pub(super) fn binding_name(&mut self, what: &str) -> Ident {
        if self.at(TokenKind::LParen)
            && self
                .binop_len(1)
                .is_some_and(|len| self.nth(1 + len) == TokenKind::RParen)
        {
            self.bump();
            let name = self.binding_op();
            self.bump();
            return name;
        }
        self.ident(what)
    }

    /// An operator in binding position: unqualified, never `!`.
    pub(super) fn binding_op(&mut self) -> Ident {
        let (op, _) = self.infix_op();
        if !op.quals.is_empty() {
            self.error_at(op.span, "a qualified name cannot be bound");
        }
        op.name
    }
}
