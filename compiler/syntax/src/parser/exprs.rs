//! Expressions below the binary operators: prefix operators, application, atoms with
//! their postfix projections and indices, parentheses (tuples and sections), array and
//! record literals, and the keyword-led forms (`if`, `let`, `loop`, `match`, `\`,
//! `assert`, `#[attr]`) whose bodies reach as far right as possible.
//!
//! `let` chains and `else if` chains are parsed iteratively so that long sequences of
//! bindings do not recurse; each link still counts towards the nesting limit because it
//! deepens the tree.

use super::Parser;
use crate::ast::*;
use crate::lexer::{Token, TokenKind, TokenValue};
use crate::span::Span;

/// The part of a `let` before its body.
enum LetHead {
    Pat {
        sizes: Vec<Ident>,
        pat: Pat,
    },
    Fun {
        name: Ident,
        tparams: Vec<TypeParam>,
        params: Vec<Pat>,
        ret: Option<TypeExp>,
    },
    With {
        dest: Ident,
        path: Vec<UpdateStep>,
    },
}

impl Parser<'_> {
    /// Prefix operators, keyword-led expressions and applications.
    pub(super) fn prefix(&mut self) -> Exp {
        use TokenKind::*;
        match self.kind() {
            Symbol if self.at_symbol("-") => self.unary(true),
            Bang => self.unary(false),
            If => self.if_exp(),
            Let => self.let_exp(),
            Loop => self.loop_exp(),
            Match => self.match_exp(),
            Backslash => self.lambda(),
            Assert => self.assert_exp(),
            HashBracket => self.attr_exp(),
            _ => self.application(),
        }
    }

    /// `-e` / `!e`: the operand is again a prefix expression, so `-f x` is `-(f x)` and
    /// `-x**2` is `(-x)**2`.
    #[inline(never)]
    fn unary(&mut self, negate: bool) -> Exp {
        if !self.enter() {
            return self.error_exp();
        }
        let start = self.bump().start;
        let e = Box::new(self.prefix());
        self.leave();
        let kind = if negate {
            ExpKind::Negate(e)
        } else {
            ExpKind::Not(e)
        };
        Exp {
            kind,
            span: self.span_from(start),
        }
    }

    /// Tokens that can start an atom (and so an argument of an application).
    pub(super) fn at_atom_start(&self) -> bool {
        use TokenKind::*;
        matches!(
            self.kind(),
            Int | Float
                | Char
                | String
                | Hole
                | Ident
                | Constructor
                | LParen
                | LBracket
                | IndexBracket
                | LBrace
                | True
                | False
        )
    }

    /// `{atom} (atom | lambda)`; a leading constructor takes the arguments as payload.
    #[inline(never)]
    fn application(&mut self) -> Exp {
        let start = self.start();
        let head = self.atom();
        let mut args = Vec::new();
        loop {
            if self.at_atom_start() {
                args.push(self.atom());
            } else if self.at(TokenKind::Backslash) {
                // A lambda may be the last argument without parentheses.
                args.push(self.lambda());
                break;
            } else {
                break;
            }
        }
        if args.is_empty() {
            return head;
        }
        let span = self.span_from(start);
        if let ExpKind::Constr(name, payload) = head.kind {
            if payload.is_empty() {
                return Exp {
                    kind: ExpKind::Constr(name, args),
                    span,
                };
            }
            let head = Exp {
                kind: ExpKind::Constr(name, payload),
                span: head.span,
            };
            return Exp {
                kind: ExpKind::Apply(Box::new(head), args),
                span,
            };
        }
        if let (
            ExpKind::Index(..),
            Some(
                first @ Exp {
                    kind: ExpKind::ArrayLit(_),
                    ..
                },
            ),
        ) = (&head.kind, args.first())
        {
            let bad = head.span.to(first.span);
            self.error_at(
                bad,
                "incorrect syntax for multi-dimensional indexing: write `a[i, j]`, not `a[i] [j]`",
            );
        }
        Exp {
            kind: ExpKind::Apply(Box::new(head), args),
            span,
        }
    }

    pub(super) fn literal_from(&self, t: Token, negative: bool, start: u32) -> Literal {
        let kind = match (t.kind, self.value(t)) {
            (TokenKind::True, _) => LitKind::Bool(true),
            (TokenKind::False, _) => LitKind::Bool(false),
            (_, Some(TokenValue::Int { value, suffix })) => LitKind::Int {
                value: *value,
                negative,
                suffix: *suffix,
            },
            (_, Some(TokenValue::Float { value, suffix })) => {
                let raw = self.text_of(t);
                let digits = match suffix {
                    Some(_) => raw.get(..raw.len().saturating_sub(3)).unwrap_or(raw),
                    None => raw,
                };
                LitKind::Float {
                    bits: value.to_bits(),
                    text: digits.chars().filter(|&c| c != '_').collect(),
                    negative,
                    suffix: *suffix,
                }
            }
            (_, Some(TokenValue::Char(c))) => LitKind::Char(*c),
            _ => LitKind::Int {
                value: 0,
                negative,
                suffix: None,
            },
        };
        Literal {
            kind,
            span: Span::new(self.file, start, t.end),
        }
    }

    /// An atom with its postfix `.field`, `.(e)` and `[indices]`.
    pub(super) fn atom(&mut self) -> Exp {
        use TokenKind::*;
        let start = self.start();
        let kind = match self.kind() {
            Int | Float | Char | True | False => {
                let t = self.bump();
                ExpKind::Literal(self.literal_from(t, false, t.start))
            }
            String => {
                let t = self.bump();
                match self.value(t) {
                    Some(TokenValue::Str(s)) => ExpKind::StringLit(s.clone()),
                    _ => ExpKind::StringLit(std::string::String::new()),
                }
            }
            Hole => {
                self.bump();
                ExpKind::Hole
            }
            Ident => {
                let t = self.bump();
                let name = self.ident_from(t);
                ExpKind::Var(QualName {
                    quals: Vec::new(),
                    span: name.span,
                    name,
                })
            }
            Constructor => {
                let t = self.bump();
                ExpKind::Constr(self.constructor_from(t), Vec::new())
            }
            LParen => self.paren_exp(),
            LBracket | IndexBracket => {
                self.bump();
                let elems = self.comma_list(RBracket, "`]` to close the array", |p| p.exp());
                ExpKind::ArrayLit(elems)
            }
            LBrace => self.record_lit(),
            _ => {
                self.expected("an expression");
                return self.error_exp();
            }
        };
        let e = Exp {
            kind,
            span: self.span_from(start),
        };
        self.postfix(e, start)
    }

    #[inline(never)]
    fn postfix(&mut self, mut e: Exp, start: u32) -> Exp {
        use TokenKind::*;
        let mut wraps = 0;
        loop {
            let wraps_node = match (self.kind(), self.nth(1)) {
                (Dot, Ident) => !matches!(e.kind, ExpKind::Var(_)),
                (Dot, Int) | (Dot, LParen) | (IndexBracket, _) => true,
                _ => false,
            };
            if wraps_node {
                if !self.enter() {
                    break;
                }
                wraps += 1;
            }
            let kind = match (self.kind(), self.nth(1)) {
                (Dot, Ident) if matches!(e.kind, ExpKind::Var(_)) => {
                    // `a.b` on a name extends the qualified name; the checker splits it
                    // into a module path and field projections using scope.
                    self.bump();
                    let t = self.bump();
                    let field = self.ident_from(t);
                    if let ExpKind::Var(qn) = &mut e.kind {
                        let old = std::mem::replace(&mut qn.name, field);
                        qn.quals.push(old);
                        qn.span = self.span_from(start);
                    }
                    e.span = self.span_from(start);
                    continue;
                }
                (Dot, Ident) | (Dot, Int)
                    if self.nth(1) == Ident || self.is_natural(self.nth_tok(1)) =>
                {
                    self.bump();
                    let t = self.bump();
                    ExpKind::Project(Box::new(e), self.ident_from(t))
                }
                (Dot, LParen) => {
                    let dot = self.bump();
                    match e.kind {
                        ExpKind::Var(qn) => {
                            self.bump();
                            let inner = self.exp();
                            self.expect(RParen, "`)` to close `.(`");
                            ExpKind::QualParens(qn, Box::new(inner))
                        }
                        _ => {
                            self.error_at(
                                self.token_span(dot),
                                "only a module name can be opened locally with `.(…)`",
                            );
                            ExpKind::Error
                        }
                    }
                }
                (Dot, _) => {
                    self.bump();
                    self.expected("a field name after `.`");
                    break;
                }
                (IndexBracket, _) => {
                    self.bump();
                    let dims = self.dim_indices();
                    ExpKind::Index(Box::new(e), dims)
                }
                _ => break,
            };
            e = Exp {
                kind,
                span: self.span_from(start),
            };
        }
        self.leave_n(wraps);
        e
    }

    pub(super) fn constructor_from(&self, t: Token) -> Ident {
        let text = self.text_of(t);
        Ident {
            name: text.strip_prefix('#').unwrap_or(text).to_string(),
            span: self.token_span(t),
        }
    }

    /// Parses `item (, item)* [,]` up to `close`, which it consumes. The opening bracket
    /// has been consumed.
    pub(super) fn comma_list<T>(
        &mut self,
        close: TokenKind,
        close_what: &str,
        mut item: impl FnMut(&mut Self) -> T,
    ) -> Vec<T> {
        let mut items = Vec::new();
        while !self.at(close) && !self.at_eof() {
            let before = self.pos;
            items.push(item(self));
            if !self.eat(TokenKind::Comma) || self.pos == before {
                break;
            }
        }
        self.expect(close, close_what);
        items
    }

    /// After `[` of an index: `idx, …]`.
    pub(super) fn dim_indices(&mut self) -> Vec<DimIndex> {
        self.comma_list(TokenKind::RBracket, "`]` to close the index", |p| {
            p.dim_index()
        })
    }

    /// `exp2 | [exp2] ":" [exp2] [":" exp2]`
    #[inline(never)]
    fn dim_index(&mut self) -> DimIndex {
        use TokenKind::*;
        let start = self.start();
        let first = if self.at(Colon) {
            None
        } else {
            Some(self.exp2())
        };
        if !self.eat(Colon) {
            return match first {
                Some(e) => DimIndex::Fix(e),
                None => DimIndex::Fix(self.error_exp()),
            };
        }
        let end = if matches!(self.kind(), Colon | Comma | RBracket) {
            None
        } else {
            Some(self.exp2())
        };
        let stride = if self.eat(Colon) && !matches!(self.kind(), Comma | RBracket) {
            Some(self.exp2())
        } else {
            None
        };
        DimIndex::Slice {
            start: first,
            end,
            stride,
            span: self.span_from(start),
        }
    }

    /// Steps of an update path: `[i]`, `.f`, `f` (the first step may omit the dot).
    pub(super) fn update_path(&mut self, what: &str) -> Vec<UpdateStep> {
        use TokenKind::*;
        let mut path = Vec::new();
        loop {
            let start = self.start();
            match self.kind() {
                LBracket | IndexBracket => {
                    self.bump();
                    let dims = self.dim_indices();
                    path.push(UpdateStep::Index(dims, self.span_from(start)));
                }
                Dot if path.is_empty()
                    || self.nth(1) == Ident
                    || self.is_natural(self.nth_tok(1)) =>
                {
                    self.bump();
                    path.push(UpdateStep::Field(self.field("a field name after `.`")));
                }
                _ if path.is_empty() && self.at_field() => {
                    path.push(UpdateStep::Field(self.field(what)));
                }
                _ => break,
            }
        }
        if path.is_empty() {
            self.expected(what);
        }
        path
    }

    /// After `(`: unit, tuples, parentheses and operator sections.
    #[inline(never)]
    fn paren_exp(&mut self) -> ExpKind {
        use TokenKind::*;
        self.bump();
        if self.eat(RParen) {
            return ExpKind::Tuple(Vec::new());
        }
        if let Some(len) = self.binop_len(0) {
            if self.nth(len) == RParen {
                let (op, backticked) = self.infix_op();
                self.bump();
                return ExpKind::OpSection { op, backticked };
            }
            // `(-x)` is a negation, not a section.
            if !self.at_symbol("-") {
                let (op, backticked) = self.infix_op();
                let rhs = Box::new(self.exp2());
                self.expect(RParen, "`)` to close the operator section");
                return ExpKind::RightSection {
                    op,
                    backticked,
                    rhs,
                };
            }
        }
        if self.at(Dot) {
            return self.projection_section();
        }
        let e = self.exp();
        if self.at_section_end() {
            let (op, backticked) = self.infix_op();
            self.bump();
            return ExpKind::LeftSection {
                op,
                backticked,
                lhs: Box::new(e),
            };
        }
        if self.at(Comma) {
            self.bump();
            let mut elems = vec![e];
            elems.extend(self.comma_list(RParen, "`)` to close the tuple", |p| p.exp()));
            if elems.len() == 1 {
                return elems
                    .pop()
                    .map_or(ExpKind::Error, |e| ExpKind::Parens(Box::new(e)));
            }
            return ExpKind::Tuple(elems);
        }
        self.expect(RParen, "`)`");
        ExpKind::Parens(Box::new(e))
    }

    /// `(.a.b[i])` and `(.[i])`, at the first `.`.
    #[inline(never)]
    fn projection_section(&mut self) -> ExpKind {
        use TokenKind::*;
        let mut steps = Vec::new();
        loop {
            let start = self.start();
            match self.kind() {
                Dot => {
                    self.bump();
                    if matches!(self.kind(), LBracket | IndexBracket) {
                        self.bump();
                        let dims = self.dim_indices();
                        steps.push(UpdateStep::Index(dims, self.span_from(start)));
                    } else {
                        steps.push(UpdateStep::Field(self.field("a field name after `.`")));
                    }
                }
                IndexBracket if !steps.is_empty() => {
                    self.bump();
                    let dims = self.dim_indices();
                    steps.push(UpdateStep::Index(dims, self.span_from(start)));
                }
                _ => break,
            }
        }
        self.expect(RParen, "`)` to close the projection section");
        ExpKind::ProjectSection(steps)
    }

    /// `{f = e, g, …}`
    #[inline(never)]
    fn record_lit(&mut self) -> ExpKind {
        self.bump();
        let fields = self.comma_list(TokenKind::RBrace, "`}` to close the record", |p| {
            let is_name = p.at(TokenKind::Ident);
            let name = p.field("a field name");
            if p.eat(TokenKind::Equals) {
                RecordField::Explicit(name, p.exp())
            } else {
                if !is_name {
                    p.expected("`=` after the field name");
                }
                RecordField::Pun(name)
            }
        });
        ExpKind::Record(fields)
    }

    /// `if c then a else b`; `else if` chains are handled iteratively.
    #[inline(never)]
    fn if_exp(&mut self) -> Exp {
        let mut links = Vec::new();
        let mut wraps = 0;
        let els = loop {
            if !self.enter() {
                break self.error_exp();
            }
            wraps += 1;
            let start = self.bump().start;
            let cond = self.exp();
            self.expect(TokenKind::Then, "`then` after the condition of `if`");
            let then = self.exp();
            let has_else = self.expect(TokenKind::Else, "`else` after the `then` branch");
            links.push((start, cond, then));
            if !has_else {
                break self.error_exp();
            }
            if !self.at(TokenKind::If) {
                break self.exp();
            }
        };
        self.leave_n(wraps);
        let mut e = els;
        while let Some((start, cond, then)) = links.pop() {
            e = Exp {
                kind: ExpKind::If {
                    cond: Box::new(cond),
                    then: Box::new(then),
                    els: Box::new(e),
                },
                span: self.span_from(start),
            };
        }
        e
    }

    /// A chain of `let … = e [in]` links ending in a body.
    #[inline(never)]
    fn let_exp(&mut self) -> Exp {
        use TokenKind::*;
        let mut links = Vec::new();
        let mut wraps = 0;
        let body = loop {
            if !self.enter() {
                break self.error_exp();
            }
            wraps += 1;
            let start = self.start();
            let (head, value) = self.let_link();
            links.push((start, head, value));
            match self.kind() {
                In => {
                    self.bump();
                    if !self.at(Let) {
                        break self.exp();
                    }
                }
                // `in` may be omitted before another `let`.
                Let => {}
                Def | Type | Module | Entry => {
                    let msg = format!("unexpected {}: is an `in` missing?", self.found());
                    let span = self.span();
                    self.error_at(span, msg);
                    break self.error_exp();
                }
                _ => {
                    self.expected("`in` after the value of `let`");
                    break self.error_exp();
                }
            }
        };
        self.leave_n(wraps);
        let mut body = body;
        while let Some((start, head, value)) = links.pop() {
            let value = Box::new(value);
            let kind = match head {
                LetHead::Pat { sizes, pat } => ExpKind::Let {
                    sizes,
                    pat,
                    value,
                    body: Box::new(body),
                },
                LetHead::Fun {
                    name,
                    tparams,
                    params,
                    ret,
                } => ExpKind::LetFun {
                    name,
                    tparams,
                    params,
                    ret,
                    value,
                    body: Box::new(body),
                },
                LetHead::With { dest, path } => ExpKind::LetWith {
                    dest,
                    path,
                    value,
                    body: Box::new(body),
                },
            };
            body = Exp {
                kind,
                span: self.span_from(start),
            };
        }
        body
    }

    /// `let` up to and including the bound value.
    #[inline(never)]
    fn let_link(&mut self) -> (LetHead, Exp) {
        use TokenKind::*;
        self.bump();
        let head = if self.at(Ident) && matches!(self.nth(1), IndexBracket | Dot) {
            // `let a[i] = v` / `let r.f = v`: update sugar.
            let t = self.bump();
            let dest = self.ident_from(t);
            let path = self.update_path("an index or field after the name");
            self.expect(Equals, "`=` after the updated path");
            LetHead::With { dest, path }
        } else if self.at(Ident) && !matches!(self.nth(1), Equals | Colon) {
            // `let f [n] 'a x y : t = …`: a local function.
            let t = self.bump();
            let name = self.ident_from(t);
            let tparams = self.type_params();
            let params = self.params();
            if params.is_empty() {
                self.expected(&format!(
                    "a parameter of the local function `{}`",
                    name.name
                ));
            }
            let ret = if self.eat(Colon) {
                Some(self.type_exp())
            } else {
                None
            };
            let what = format!("`=` after the parameters of `{}`", name.name);
            self.expect(Equals, &what);
            LetHead::Fun {
                name,
                tparams,
                params,
                ret,
            }
        } else {
            let mut sizes = Vec::new();
            while matches!(self.kind(), LBracket | IndexBracket)
                && self.nth(1) == Ident
                && self.nth(2) == RBracket
            {
                self.bump();
                let t = self.bump();
                sizes.push(self.ident_from(t));
                self.bump();
            }
            let pat = self.pat();
            self.expect(Equals, "`=` after the pattern of `let`");
            LetHead::Pat { sizes, pat }
        };
        let value = self.exp();
        (head, value)
    }

    /// `loop pat [= init] (for i < n | for p in xs | while c) do body`
    #[inline(never)]
    fn loop_exp(&mut self) -> Exp {
        use TokenKind::*;
        if !self.enter() {
            return self.error_exp();
        }
        let start = self.bump().start;
        let pat = self.pat();
        let init = if self.eat(Equals) {
            Some(Box::new(self.exp()))
        } else {
            None
        };
        let form = match self.kind() {
            For => {
                self.bump();
                if self.at(Ident) && self.nth_is_symbol(1, "<") {
                    let t = self.bump();
                    let var = self.ident_from(t);
                    self.bump();
                    LoopForm::For {
                        var,
                        bound: Box::new(self.exp()),
                    }
                } else {
                    let pat = self.pat();
                    self.expect(In, "`in` after the pattern of `for`");
                    LoopForm::ForIn {
                        pat,
                        array: Box::new(self.exp()),
                    }
                }
            }
            While => {
                self.bump();
                LoopForm::While(Box::new(self.exp()))
            }
            _ => {
                self.expected("`for` or `while` in `loop`");
                LoopForm::While(Box::new(self.error_exp()))
            }
        };
        self.expect(Do, "`do` before the body of the loop");
        let body = Box::new(self.exp());
        self.leave();
        Exp {
            kind: ExpKind::Loop {
                pat,
                init,
                form,
                body,
            },
            span: self.span_from(start),
        }
    }

    /// `match e case p -> e …`; a nested `match` takes all the cases after it.
    #[inline(never)]
    fn match_exp(&mut self) -> Exp {
        if !self.enter() {
            return self.error_exp();
        }
        let start = self.bump().start;
        let scrutinee = Box::new(self.exp());
        let mut cases = Vec::new();
        if !self.at(TokenKind::Case) {
            self.expected("`case` after the expression of `match`");
        }
        while self.at(TokenKind::Case) {
            let case_start = self.bump().start;
            let pat = self.pat();
            self.expect(TokenKind::Arrow, "`->` after the pattern of `case`");
            let body = self.exp();
            cases.push(Case {
                pat,
                body,
                span: self.span_from(case_start),
            });
        }
        self.leave();
        Exp {
            kind: ExpKind::Match { scrutinee, cases },
            span: self.span_from(start),
        }
    }

    /// `\p… [: t] -> body`
    #[inline(never)]
    pub(super) fn lambda(&mut self) -> Exp {
        if !self.enter() {
            return self.error_exp();
        }
        let start = self.bump().start;
        let params = self.params();
        if params.is_empty() {
            self.expected("a parameter after `\\`");
        }
        let ret = if self.eat(TokenKind::Colon) {
            Some(self.type_term())
        } else {
            None
        };
        self.expect(TokenKind::Arrow, "`->` after the parameters of the lambda");
        let body = Box::new(self.exp());
        self.leave();
        Exp {
            kind: ExpKind::Lambda { params, ret, body },
            span: self.span_from(start),
        }
    }

    /// `assert cond body`, where `cond` is an atom.
    #[inline(never)]
    fn assert_exp(&mut self) -> Exp {
        if !self.enter() {
            return self.error_exp();
        }
        let start = self.bump().start;
        let cond = Box::new(self.atom());
        let body = Box::new(self.exp());
        self.leave();
        Exp {
            kind: ExpKind::Assert { cond, body },
            span: self.span_from(start),
        }
    }

    /// `#[attr] e`
    #[inline(never)]
    fn attr_exp(&mut self) -> Exp {
        if !self.enter() {
            return self.error_exp();
        }
        let start = self.start();
        let attr = self.attr();
        let body = Box::new(self.exp());
        self.leave();
        Exp {
            kind: ExpKind::Attr(attr, body),
            span: self.span_from(start),
        }
    }
}
