//! Module expressions, module types and specs.
//!
//! ```text
//! mod_exp  ::= mod_exp ":" mt | "\" "(" name ":" mt ")" [":" mt_atom] "->" mod_exp
//!            | "import" string | mod_atom {mod_atom}
//! mod_atom ::= qualname | "(" mod_exp ")" | "{" {dec} "}"
//! mt       ::= "(" name ":" mt ")" "->" mt | mt_with "->" mt | mt_with
//! mt_with  ::= mt_atom {"with" qualname {tparam} "=" term}
//! mt_atom  ::= qualname | "{" {spec} "}" | "(" mt ")"
//! ```

use super::Parser;
use crate::ast::{ModExp, ModExpKind, ModParam, SigExp, SigExpKind, Spec, SpecKind, StrLit};
use crate::lexer::{TokenKind, TokenValue};

impl Parser<'_> {
    pub(super) fn mod_exp(&mut self) -> ModExp {
        use TokenKind::*;
        if !self.enter() {
            return self.error_mod_exp();
        }
        let start = self.start();
        let mut e = match self.kind() {
            Backslash => {
                self.bump();
                let param = self.mod_param();
                let ret = if self.eat(Colon) {
                    Some(self.sig_atom())
                } else {
                    None
                };
                self.expect(Arrow, "`->` after the parameter of the module lambda");
                let body = self.mod_exp();
                ModExp {
                    kind: ModExpKind::Lambda {
                        param,
                        ret,
                        body: Box::new(body),
                    },
                    span: self.span_from(start),
                }
            }
            Import => {
                self.bump();
                let path = self.string_lit("a string with the path to import");
                ModExp {
                    kind: ModExpKind::Import(path),
                    span: self.span_from(start),
                }
            }
            _ => {
                let mut e = self.mod_atom();
                let mut wraps = 0;
                while matches!(self.kind(), Ident | LParen | LBrace) {
                    if !self.enter() {
                        break;
                    }
                    wraps += 1;
                    let arg = self.mod_atom();
                    e = ModExp {
                        kind: ModExpKind::Apply(Box::new(e), Box::new(arg)),
                        span: self.span_from(start),
                    };
                }
                self.leave_n(wraps);
                e
            }
        };
        let mut wraps = 0;
        while self.at(Colon) {
            if !self.enter() {
                break;
            }
            wraps += 1;
            self.bump();
            let sig = self.sig_exp();
            e = ModExp {
                kind: ModExpKind::Ascript(Box::new(e), sig),
                span: self.span_from(start),
            };
        }
        self.leave_n(wraps + 1);
        e
    }

    fn error_mod_exp(&self) -> ModExp {
        ModExp {
            kind: ModExpKind::Error,
            span: self.here(),
        }
    }

    fn mod_atom(&mut self) -> ModExp {
        use TokenKind::*;
        let start = self.start();
        let kind = match self.kind() {
            Ident => ModExpKind::Var(self.qual_name("a module name")),
            LParen => {
                self.bump();
                let inner = self.mod_exp();
                self.expect(RParen, "`)` to close the module expression");
                ModExpKind::Parens(Box::new(inner))
            }
            LBrace => {
                self.bump();
                let decs = self.decs(false);
                self.expect(RBrace, "`}` to close the module");
                ModExpKind::Decs(decs)
            }
            _ => {
                self.expected("a module expression");
                return self.error_mod_exp();
            }
        };
        ModExp {
            kind,
            span: self.span_from(start),
        }
    }

    /// `(name : mt)`
    pub(super) fn mod_param(&mut self) -> ModParam {
        let start = self.start();
        self.expect(TokenKind::LParen, "`(` to start a module parameter");
        let name = self.ident("a module parameter name");
        self.expect(TokenKind::Colon, "`:` after the module parameter name");
        let sig = self.sig_exp();
        self.expect(TokenKind::RParen, "`)` to close the module parameter");
        ModParam {
            name,
            sig,
            span: self.span_from(start),
        }
    }

    pub(super) fn string_lit(&mut self, what: &str) -> StrLit {
        if self.at(TokenKind::String) {
            let t = self.bump();
            let value = match self.value(t) {
                Some(TokenValue::Str(s)) => s.clone(),
                _ => String::new(),
            };
            StrLit {
                value,
                span: self.token_span(t),
            }
        } else {
            self.expected(what);
            StrLit {
                value: String::new(),
                span: self.here(),
            }
        }
    }

    pub(super) fn sig_exp(&mut self) -> SigExp {
        use TokenKind::*;
        if !self.enter() {
            return self.error_sig();
        }
        let start = self.start();
        let e = if self.at(LParen) && self.nth(1) == Ident && self.nth(2) == Colon {
            self.bump();
            let t = self.bump();
            let name = self.ident_from(t);
            self.bump();
            let from = self.sig_exp();
            self.expect(RParen, "`)` after the parameter's module type");
            self.expect(Arrow, "`->` after the named parameter");
            let to = self.sig_exp();
            SigExp {
                kind: SigExpKind::Arrow {
                    param: Some(name),
                    from: Box::new(from),
                    to: Box::new(to),
                },
                span: self.span_from(start),
            }
        } else {
            let from = self.sig_with();
            if self.eat(Arrow) {
                let to = self.sig_exp();
                SigExp {
                    kind: SigExpKind::Arrow {
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
        e
    }

    fn error_sig(&self) -> SigExp {
        SigExp {
            kind: SigExpKind::Error,
            span: self.here(),
        }
    }

    /// A module type with its `with` refinements.
    fn sig_with(&mut self) -> SigExp {
        let start = self.start();
        let mut e = self.sig_atom();
        let mut wraps = 0;
        while self.at(TokenKind::With) {
            if !self.enter() {
                break;
            }
            wraps += 1;
            self.bump();
            let name = self.qual_name("the name of a type to refine after `with`");
            let tparams = self.type_params();
            self.expect(TokenKind::Equals, "`=` in the `with` refinement");
            // A term, so that `->` after it belongs to the module type; existentials
            // (`with t = ?[n].[n]u8`) are allowed too.
            let ty = if self.at(TokenKind::Question) {
                self.type_exp()
            } else {
                self.type_term()
            };
            e = SigExp {
                kind: SigExpKind::With {
                    sig: Box::new(e),
                    name,
                    tparams,
                    ty,
                },
                span: self.span_from(start),
            };
        }
        self.leave_n(wraps);
        e
    }

    fn sig_atom(&mut self) -> SigExp {
        use TokenKind::*;
        let start = self.start();
        let kind = match self.kind() {
            Ident => SigExpKind::Var(self.qual_name("a module type name")),
            LParen => {
                self.bump();
                let inner = self.sig_exp();
                self.expect(RParen, "`)` to close the module type");
                SigExpKind::Parens(Box::new(inner))
            }
            LBrace => {
                self.bump();
                let specs = self.specs();
                self.expect(RBrace, "`}` to close the module type");
                SigExpKind::Specs(specs)
            }
            _ => {
                self.expected("a module type");
                return self.error_sig();
            }
        };
        SigExp {
            kind,
            span: self.span_from(start),
        }
    }

    /// Specs up to (not including) `}`.
    fn specs(&mut self) -> Vec<Spec> {
        let mut specs = Vec::new();
        loop {
            if self.bail {
                break;
            }
            self.suppress = false;
            if self.at(TokenKind::RBrace) || self.at_eof() {
                break;
            }
            let before = self.pos;
            if self.at_spec_start() {
                specs.push(self.spec());
            } else {
                let start = self.start();
                self.expected("a spec (`val`, `type`, `module` or `include`)");
                specs.push(Spec {
                    doc: None,
                    attrs: Vec::new(),
                    kind: SpecKind::Error,
                    span: self.span_from(start),
                });
            }
            if self.suppress {
                self.skip_to(Self::at_spec_sync);
            }
            if self.pos == before {
                self.bump();
            }
        }
        specs
    }

    fn at_spec_start(&self) -> bool {
        use TokenKind::*;
        matches!(
            self.kind(),
            Val | Type | Module | Include | Doc | HashBracket
        )
    }

    fn at_spec_sync(&self) -> bool {
        use TokenKind::*;
        match self.kind() {
            Val | Type | Module | Include => true,
            Doc => matches!(self.nth(1), Val | Type | Module | Include | HashBracket),
            _ => false,
        }
    }

    fn spec(&mut self) -> Spec {
        use TokenKind::*;
        if !self.enter() {
            return Spec {
                doc: None,
                attrs: Vec::new(),
                kind: SpecKind::Error,
                span: self.here(),
            };
        }
        let doc = self.doc_comment();
        let start = self.start();
        let attrs = self.attrs();
        let kind = match self.kind() {
            Val => {
                self.bump();
                let name = if self.binop_len(0).is_some() {
                    self.binding_op()
                } else if self.at(Bang) {
                    let t = self.bump();
                    self.error_at(
                        self.token_span(t),
                        "`!` is a prefix operator and cannot be declared as infix",
                    );
                    self.ident_from(t)
                } else {
                    self.binding_name("a name after `val`")
                };
                let tparams = self.type_params();
                let what = format!("`:` after the name of `{}`", name.name);
                self.expect(Colon, &what);
                let ty = self.type_exp();
                SpecKind::Val { name, tparams, ty }
            }
            Type => {
                self.bump();
                let liftedness = self.liftedness();
                let name = self.ident("a type name");
                let tparams = self.type_params();
                let def = if self.eat(Equals) {
                    Some(self.type_exp())
                } else {
                    None
                };
                SpecKind::Type {
                    liftedness,
                    name,
                    tparams,
                    def,
                }
            }
            Module => {
                self.bump();
                let name = self.ident("a module name");
                self.expect(Colon, "`:` after the module name");
                SpecKind::Module {
                    name,
                    sig: self.sig_exp(),
                }
            }
            Include => {
                self.bump();
                SpecKind::Include(self.sig_exp())
            }
            _ => {
                if doc.is_some() {
                    self.expected("a spec after the doc comment");
                } else {
                    self.expected("a spec (`val`, `type`, `module` or `include`)");
                }
                SpecKind::Error
            }
        };
        self.leave();
        Spec {
            doc,
            attrs,
            kind,
            span: self.span_from(start),
        }
    }
}
