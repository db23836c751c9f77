//! Binary operators: fixity of (user-defined) operators and the precedence climber.
//!
//! Levels, loosest first (all left-associative unless marked): `:`/`:>` (handled by
//! `exp`), ranges `.. ... ..< ..>` (right), `` `f` ``, `with … =`, `|>`, `<|` (right),
//! `||`, `&&`, comparisons (`== != < <= > >=` and every operator starting with `!` or `=`),
//! `& ^ |`, `<< >>`, `+ -`, `* / % // %%`, `**`. Then prefix `-`/`!` and application,
//! which bind tighter than every binary operator. A user operator takes the level of the
//! longest built-in operator that is a prefix of it (`+^` like `+`, `>->` like `>`).

use super::Parser;
use crate::ast::{Exp, ExpKind, QualName, RangeKind};
use crate::lexer::TokenKind;

pub(super) const RANGE: u8 = 1;
pub(super) const BACKTICK: u8 = 2;
pub(super) const WITH: u8 = 3;
const PIPE_RIGHT: u8 = 4;
const PIPE_LEFT: u8 = 5;
const LOG_OR: u8 = 6;
const LOG_AND: u8 = 7;
const COMPARE: u8 = 8;
const BITWISE: u8 = 9;
const SHIFT: u8 = 10;
const ADDITIVE: u8 = 11;
const MULTIPLICATIVE: u8 = 12;
const POWER: u8 = 13;

/// Precedence level and right-associativity of an operator symbol, from the longest
/// built-in operator that is a prefix of it.
pub fn symbol_fixity(op: &str) -> (u8, bool) {
    const TWO_CHAR: [(&str, u8); 13] = [
        ("|>", PIPE_RIGHT),
        ("<|", PIPE_LEFT),
        ("||", LOG_OR),
        ("&&", LOG_AND),
        ("==", COMPARE),
        ("!=", COMPARE),
        ("<=", COMPARE),
        (">=", COMPARE),
        ("<<", SHIFT),
        (">>", SHIFT),
        ("//", MULTIPLICATIVE),
        ("%%", MULTIPLICATIVE),
        ("**", POWER),
    ];
    let two_char = op
        .get(..2)
        .and_then(|two| TWO_CHAR.iter().find(|(s, _)| *s == two));
    if let Some((_, level)) = two_char {
        return (*level, *level == PIPE_LEFT);
    }
    let level = match op.bytes().next() {
        Some(b'!' | b'=' | b'<' | b'>') => COMPARE,
        Some(b'&' | b'^' | b'|') => BITWISE,
        Some(b'+' | b'-') => ADDITIVE,
        Some(b'*' | b'/' | b'%') => MULTIPLICATIVE,
        _ => COMPARE,
    };
    (level, false)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum InfixKind {
    /// An operator symbol or a backticked name (`len` tokens long).
    Op {
        len: usize,
    },
    With,
    Range,
}

#[derive(Clone, Copy)]
struct Infix {
    kind: InfixKind,
    prec: u8,
    right: bool,
}

impl Parser<'_> {
    /// If a binary operator (symbol, qualified symbol or `` `name` ``) starts `n` tokens
    /// ahead, how many tokens it spans.
    pub(super) fn binop_len(&self, n: usize) -> Option<usize> {
        match self.nth(n) {
            TokenKind::Symbol | TokenKind::QualSymbol => Some(1),
            TokenKind::Backtick => {
                let mut i = n + 1;
                if self.nth(i) != TokenKind::Ident {
                    return None;
                }
                i += 1;
                while self.nth(i) == TokenKind::Dot && self.nth(i + 1) == TokenKind::Ident {
                    i += 2;
                }
                (self.nth(i) == TokenKind::Backtick).then_some(i + 1 - n)
            }
            _ => None,
        }
    }

    /// True if the current token is a binary operator directly followed by `)`, as in
    /// the left section `(x +)`.
    pub(super) fn at_section_end(&self) -> bool {
        self.binop_len(0)
            .is_some_and(|len| self.nth(len) == TokenKind::RParen)
    }

    fn peek_infix(&self) -> Option<Infix> {
        use TokenKind::*;
        let t = self.tok();
        match t.kind {
            Symbol | QualSymbol => {
                let (prec, right) = symbol_fixity(self.op_text(t));
                Some(Infix {
                    kind: InfixKind::Op { len: 1 },
                    prec,
                    right,
                })
            }
            Backtick => self.binop_len(0).map(|len| Infix {
                kind: InfixKind::Op { len },
                prec: BACKTICK,
                right: false,
            }),
            With => Some(Infix {
                kind: InfixKind::With,
                prec: WITH,
                right: false,
            }),
            DotDot | DotDotDot | DotDotLt | DotDotGt => Some(Infix {
                kind: InfixKind::Range,
                prec: RANGE,
                right: true,
            }),
            _ => None,
        }
    }

    /// Consumes a binary operator (symbol or backticked name) and returns its name and
    /// whether it was backticked. The caller has checked [`Parser::binop_len`].
    pub(super) fn infix_op(&mut self) -> (QualName, bool) {
        if self.at(TokenKind::Backtick) {
            self.bump();
            let name = self.qual_name("a function name between backticks");
            self.expect(TokenKind::Backtick, "a closing backtick");
            (name, true)
        } else {
            let t = self.bump();
            (self.op_name(t), false)
        }
    }

    /// `exp ::= exp2 { (":" | ":>") type }`
    pub(super) fn exp(&mut self) -> Exp {
        let start = self.start();
        let mut e = self.exp2();
        let mut wraps = 0;
        while matches!(self.kind(), TokenKind::Colon | TokenKind::ColonGt) {
            if !self.enter() {
                break;
            }
            wraps += 1;
            let coerce = self.bump().kind == TokenKind::ColonGt;
            let ty = self.type_exp();
            let kind = if coerce {
                ExpKind::Coerce(Box::new(e), ty)
            } else {
                ExpKind::Ascript(Box::new(e), ty)
            };
            e = Exp {
                kind,
                span: self.span_from(start),
            };
        }
        self.leave_n(wraps);
        e
    }

    /// An expression without a top-level ascription (used in indices, where `:` slices).
    pub(super) fn exp2(&mut self) -> Exp {
        self.binary(RANGE)
    }

    /// Precedence climbing over operators of level `min` or looser-binding ones excluded.
    pub(super) fn binary(&mut self, min: u8) -> Exp {
        if !self.enter() {
            return self.error_exp();
        }
        let start = self.start();
        let mut lhs = self.prefix();
        let mut wraps = 0;
        while let Some(op) = self.peek_infix() {
            if op.prec < min {
                break;
            }
            if let InfixKind::Op { len } = op.kind {
                // `(x +)` is a section: leave the operator to the parenthesis.
                if self.nth(len) == TokenKind::RParen {
                    break;
                }
            }
            if !self.enter() {
                break;
            }
            wraps += 1;
            let kind = match op.kind {
                InfixKind::Op { .. } => {
                    let (name, backticked) = self.infix_op();
                    let rhs = self.binary(if op.right { op.prec } else { op.prec + 1 });
                    ExpKind::BinOp {
                        op: name,
                        backticked,
                        lhs: Box::new(lhs),
                        rhs: Box::new(rhs),
                    }
                }
                InfixKind::With => {
                    self.bump();
                    let path = self.update_path("a path after `with`");
                    self.expect(TokenKind::Equals, "`=` after the path of `with`");
                    let value = self.binary(WITH + 1);
                    ExpKind::Update {
                        target: Box::new(lhs),
                        path,
                        value: Box::new(value),
                    }
                }
                InfixKind::Range => self.range_rest(lhs),
            };
            lhs = Exp {
                kind,
                span: self.span_from(start),
            };
        }
        self.leave_n(wraps + 1);
        lhs
    }

    /// The rest of `start [.. second] (... | ..< | ..>) end`, at the first dots.
    #[inline(never)]
    fn range_rest(&mut self, start: Exp) -> ExpKind {
        let mut second = None;
        if self.eat(TokenKind::DotDot) {
            second = Some(Box::new(self.binary(RANGE + 1)));
        }
        let kind = match self.kind() {
            TokenKind::DotDotDot => RangeKind::Inclusive,
            TokenKind::DotDotLt => RangeKind::UpToExclusive,
            TokenKind::DotDotGt => RangeKind::DownToExclusive,
            _ => {
                self.expected("`...`, `..<` or `..>` to end the range");
                return ExpKind::Range {
                    start: Box::new(start),
                    second,
                    end: Box::new(self.error_exp()),
                    kind: RangeKind::Inclusive,
                };
            }
        };
        self.bump();
        let end = self.binary(RANGE);
        ExpKind::Range {
            start: Box::new(start),
            second,
            end: Box::new(end),
            kind,
        }
    }

    pub(super) fn error_exp(&self) -> Exp {
        Exp {
            kind: ExpKind::Error,
            span: self.here(),
        }
    }
}
