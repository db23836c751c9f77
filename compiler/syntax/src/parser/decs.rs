//! Declarations, attributes, doc comments, whole files and REPL cells, plus the
//! declaration-level error recovery.
//!
//! **Recovery.** When a declaration (or garbage where one should be) produced an error,
//! the declaration loop skips to the next plausible declaration start: `def`, `entry`,
//! `type`, `module`, `open`, `import`, `local`, a `let` or `#[` at column 1, or a doc
//! comment directly followed by one of those. Inside a module body it also stops at the
//! `}` that closes the body. Everything skipped belongs to the broken declaration, which
//! keeps whatever the parser made of it (with `Error` nodes inside).

use super::Parser;
use crate::ast::*;
use crate::lexer::{TokenKind, TokenValue};

/// What a REPL cell holds: declarations, or else an expression.
pub(crate) struct CellItems {
    pub decs: Vec<Dec>,
    pub exp: Option<Exp>,
}

impl Parser<'_> {
    pub(crate) fn source_file(&mut self) -> SourceFile {
        let doc = if self.at_file_doc() {
            let t = self.bump();
            Some(self.doc_from(t))
        } else {
            None
        };
        let decs = self.decs(true);
        SourceFile { doc, decs }
    }

    /// A leading doc comment documents the file (rather than the first declaration) when
    /// a blank line, another doc comment or the end of the file follows it.
    fn at_file_doc(&self) -> bool {
        if !self.at(TokenKind::Doc) {
            return false;
        }
        let doc = self.tok();
        let next = self.nth_tok(1);
        if matches!(next.kind, TokenKind::Eof | TokenKind::Doc) || !self.starts_dec(next.kind) {
            return true;
        }
        let gap = self
            .text
            .get(doc.end as usize..next.start as usize)
            .unwrap_or("");
        let lines: Vec<&str> = gap.split('\n').collect();
        lines.len() > 2
            && lines
                .get(1..lines.len() - 1)
                .unwrap_or(&[])
                .iter()
                .any(|l| l.trim().is_empty())
    }

    fn starts_dec(&self, kind: TokenKind) -> bool {
        use TokenKind::*;
        matches!(
            kind,
            Def | Entry | Let | Type | Module | Open | Import | Local | HashBracket | Doc
        )
    }

    /// A restart point for recovery (see the module docs).
    fn at_dec_sync(&self) -> bool {
        use TokenKind::*;
        let t = self.tok();
        match t.kind {
            Def | Entry | Type | Module | Open | Import | Local => true,
            Let | HashBracket => t.line_start,
            Doc => matches!(
                self.nth(1),
                Def | Entry | Type | Module | Open | Import | Local | Let | HashBracket
            ),
            _ => false,
        }
    }

    /// After the nesting limit: only a declaration keyword at column 1 restarts.
    fn at_line_start_dec_sync(&self) -> bool {
        self.tok().line_start && self.at_dec_sync()
    }

    /// Skips tokens until `sync` holds, the end of the file, or (when `nested`) a `}`
    /// closing the enclosing braces.
    pub(super) fn skip_to(&mut self, sync: fn(&Self) -> bool) {
        self.skip_until(sync, true);
    }

    fn skip_until(&mut self, sync: fn(&Self) -> bool, nested: bool) {
        use TokenKind::*;
        let mut depth = 0u32;
        loop {
            match self.kind() {
                Eof => return,
                _ if sync(self) => return,
                LParen | LBracket | IndexBracket | LBrace | HashBracket => depth += 1,
                RBrace if depth == 0 && nested => return,
                RParen | RBracket | RBrace => depth = depth.saturating_sub(1),
                _ => {}
            }
            self.bump();
        }
    }

    /// Declarations up to the end of the file or, if `!top`, a closing `}`.
    pub(super) fn decs(&mut self, top: bool) -> Vec<Dec> {
        let mut decs = Vec::new();
        loop {
            if self.bail && !top {
                break;
            }
            // Each declaration gets its own diagnostics.
            self.suppress = false;
            if self.at_eof() || (!top && self.at(TokenKind::RBrace)) {
                break;
            }
            let before = self.pos;
            let depth = self.depth;
            let brackets = self.open_brackets.len();
            if self.starts_dec(self.kind()) {
                decs.push(self.dec());
                // Every path restores the nesting depth; this keeps a slip from leaking
                // into later declarations.
                self.depth = depth;
                if self.bail && top {
                    self.skip_until(Self::at_line_start_dec_sync, false);
                    self.bail = false;
                } else if self.suppress {
                    self.skip_until(Self::at_dec_sync, !top);
                }
            } else {
                let start = self.start();
                self.expected("a declaration");
                self.skip_until(Self::at_dec_sync, !top);
                if self.pos == before {
                    self.bump();
                }
                decs.push(Dec {
                    doc: None,
                    attrs: Vec::new(),
                    kind: DecKind::Error,
                    span: self.span_from(start),
                });
            }
            if self.pos == before {
                self.bump();
            }
            self.open_brackets.truncate(brackets);
        }
        decs
    }

    /// A doc comment, if one is here. A doc comment directly followed by another one
    /// documents nothing and is reported.
    pub(super) fn doc_comment(&mut self) -> Option<DocComment> {
        let mut doc = None;
        while self.at(TokenKind::Doc) {
            if let Some(DocComment { span, .. }) = doc {
                self.error_diag(
                    crate::Diagnostic::error(
                        "misplaced-doc-comment",
                        span,
                        "this doc comment documents nothing: another doc comment follows it",
                    )
                    .with_note("use `--` for an ordinary comment"),
                );
            }
            let t = self.bump();
            doc = Some(self.doc_from(t));
        }
        doc
    }

    fn doc_from(&self, t: crate::lexer::Token) -> DocComment {
        let text = match self.value(t) {
            Some(TokenValue::Doc(s)) => s.clone(),
            _ => String::new(),
        };
        DocComment {
            text,
            span: self.token_span(t),
        }
    }

    pub(super) fn attrs(&mut self) -> Vec<Attr> {
        let mut attrs = Vec::new();
        while self.at(TokenKind::HashBracket) {
            attrs.push(self.attr());
        }
        attrs
    }

    /// `#[attr]`, at the `#[`.
    pub(super) fn attr(&mut self) -> Attr {
        let start = self.bump().start;
        let kind = self.attr_info();
        self.expect(TokenKind::RBracket, "`]` to close the attribute");
        Attr {
            kind,
            span: self.span_from(start),
        }
    }

    /// `name | decimal | name "(" attr,… ")"`
    fn attr_info(&mut self) -> AttrKind {
        if !self.enter() {
            return AttrKind::Name(String::new());
        }
        let kind = match self.kind() {
            TokenKind::Ident => {
                let t = self.bump();
                let name = self.text_of(t).to_string();
                if self.eat(TokenKind::LParen) {
                    let args =
                        self.comma_list(TokenKind::RParen, "`)` to close the attribute", |p| {
                            let start = p.start();
                            let kind = p.attr_info();
                            Attr {
                                kind,
                                span: p.span_from(start),
                            }
                        });
                    AttrKind::Call(name, args)
                } else {
                    AttrKind::Name(name)
                }
            }
            TokenKind::Int => {
                let t = self.bump();
                match self.value(t) {
                    Some(TokenValue::Int { value, .. }) => {
                        AttrKind::Int(i64::try_from(*value).unwrap_or(i64::MAX))
                    }
                    _ => AttrKind::Int(0),
                }
            }
            _ => {
                self.expected("an attribute (a name or a number)");
                AttrKind::Name(String::new())
            }
        };
        self.leave();
        kind
    }

    fn dec(&mut self) -> Dec {
        use TokenKind::*;
        if !self.enter() {
            return Dec {
                doc: None,
                attrs: Vec::new(),
                kind: DecKind::Error,
                span: self.here(),
            };
        }
        let doc = self.doc_comment();
        let start = self.start();
        let attrs = self.attrs();
        let kind = match self.kind() {
            Def | Entry | Let => self.val_bind(),
            Type => self.type_bind(),
            Module if self.nth(1) == Type => {
                self.bump();
                self.bump();
                let name = self.ident("a name for the module type");
                let what = format!("`=` after the name of module type `{}`", name.name);
                self.expect(Equals, &what);
                let sig = self.sig_exp();
                DecKind::ModuleType(ModTypeBind { name, sig })
            }
            Module => self.mod_bind(),
            Open => {
                self.bump();
                DecKind::Open(self.mod_exp())
            }
            Import => {
                self.bump();
                DecKind::Import(self.string_lit("a string with the path to import"))
            }
            Local => {
                self.bump();
                DecKind::Local(Box::new(self.dec()))
            }
            _ => {
                let what = if doc.is_some() {
                    "a declaration after the doc comment"
                } else {
                    "a declaration after the attribute"
                };
                self.expected(what);
                DecKind::Error
            }
        };
        self.leave();
        Dec {
            doc,
            attrs,
            kind,
            span: self.span_from(start),
        }
    }

    /// `def`/`entry`/`let` bindings, including the infix form `def x +^ y = …`.
    fn val_bind(&mut self) -> DecKind {
        use TokenKind::*;
        let kw = self.bump();
        let keyword = match kw.kind {
            Entry => ValKeyword::Entry,
            Let => ValKeyword::Let,
            _ => ValKeyword::Def,
        };
        let kw_text = self.text_of(kw);
        let op_follows = |p: &Self, n: usize| p.binop_len(n).is_some() || p.nth(n) == Bang;
        let (name, infix, mut params) = if self.at(Ident) && op_follows(self, 1) {
            let lhs = self.param();
            let op = self.infix_binding_op();
            let rhs = self.param();
            (op, true, vec![lhs, rhs])
        } else if self.at(Ident)
            || (self.at(LParen)
                && self
                    .binop_len(1)
                    .is_some_and(|len| self.nth(1 + len) == RParen))
        {
            let what = format!("a name after `{kw_text}`");
            (self.binding_name(&what), false, Vec::new())
        } else if self.at_param_start() {
            let start = self.start();
            let lhs = self.param();
            if op_follows(self, 0) {
                let op = self.infix_binding_op();
                let rhs = self.param();
                (op, true, vec![lhs, rhs])
            } else {
                let span = self.span_from(start);
                self.error_at(
                    span,
                    "cannot bind a pattern at the top level: bind a single name instead",
                );
                return DecKind::Error;
            }
        } else {
            self.expected(&format!("a name after `{kw_text}`"));
            return DecKind::Error;
        };
        let tparams = if infix {
            Vec::new()
        } else {
            self.type_params()
        };
        if !infix {
            params = self.params();
        }
        let ret = if self.eat(Colon) {
            Some(self.type_exp())
        } else {
            None
        };
        let what = if params.is_empty() && tparams.is_empty() {
            format!("`=` after `{}`", name.name)
        } else {
            format!("`=` after the parameters of `{}`", name.name)
        };
        self.expect(Equals, &what);
        let body = self.exp();
        DecKind::Val(ValBind {
            keyword,
            name,
            infix,
            tparams,
            params,
            ret,
            body,
            span: self.span_from(kw.start),
        })
    }

    /// The operator of an infix definition; `!` is reported (it is prefix-only).
    fn infix_binding_op(&mut self) -> Ident {
        if self.at(TokenKind::Bang) {
            let t = self.bump();
            self.error_at(
                self.token_span(t),
                "`!` is a prefix operator and cannot be defined as an infix operator",
            );
            return self.ident_from(t);
        }
        self.binding_op()
    }

    /// `type [~|^] name params = type`
    fn type_bind(&mut self) -> DecKind {
        self.bump();
        let liftedness = self.liftedness();
        let name = self.ident("a type name");
        let tparams = self.type_params();
        let what = format!("`=` in the definition of type `{}`", name.name);
        self.expect(TokenKind::Equals, &what);
        let ty = self.type_exp();
        DecKind::Type(TypeBind {
            liftedness,
            name,
            tparams,
            ty,
        })
    }

    /// `module name (P: mt)… [: mt] = mod_exp`
    fn mod_bind(&mut self) -> DecKind {
        self.bump();
        let name = self.ident("a module name");
        let mut params = Vec::new();
        while self.at(TokenKind::LParen) {
            let before = self.pos;
            params.push(self.mod_param());
            if self.pos == before {
                break;
            }
        }
        let sig = if self.eat(TokenKind::Colon) {
            Some(self.sig_exp())
        } else {
            None
        };
        let what = format!("`=` in the definition of module `{}`", name.name);
        self.expect(TokenKind::Equals, &what);
        let body = self.mod_exp();
        DecKind::Module(ModBind {
            name,
            params,
            sig,
            body,
        })
    }

    /// A REPL cell: declarations, or else one expression. A leading `let` is a
    /// declaration unless it turns out to be a `let … in …` expression.
    pub(crate) fn cell(&mut self) -> CellItems {
        use TokenKind::*;
        let mut decs = Vec::new();
        if self.at(Let) {
            let saved = (self.pos, self.prev_end, self.errors.len());
            let brackets = self.open_brackets.clone();
            let dec = self.dec();
            if !self.suppress && (self.at_eof() || self.starts_dec(self.kind())) {
                decs.push(dec);
            } else {
                (self.pos, self.prev_end) = (saved.0, saved.1);
                self.open_brackets = brackets;
                self.errors.truncate(saved.2);
                self.suppress = false;
                self.bail = false;
                return self.cell_exp();
            }
        }
        if decs.is_empty() && !self.starts_dec(self.kind()) {
            return self.cell_exp();
        }
        decs.extend(self.decs(true));
        CellItems { decs, exp: None }
    }

    fn cell_exp(&mut self) -> CellItems {
        let exp = self.whole_exp();
        CellItems {
            decs: Vec::new(),
            exp,
        }
    }

    /// An expression that must make up all of the input.
    pub(crate) fn whole_exp(&mut self) -> Option<Exp> {
        if self.at_eof() {
            let span = self.here();
            self.error_at(span, "expected an expression, found end of input");
            return None;
        }
        let e = self.exp();
        if !self.at_eof() {
            self.expected("the end of the input after the expression");
        }
        Some(e)
    }
}
