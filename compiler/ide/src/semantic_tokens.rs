//! Semantic tokens: every token of a file classified from the lexer (keywords, numbers,
//! strings, comments, operators, attributes) and from name resolution (functions,
//! variables, parameters, types, type parameters, modules, module types, constructors,
//! fields), with modifiers for definitions, the prelude and documentation.

use futhark_db::{Db, File};
use futhark_syntax::lexer::{Lexed, Token, TokenKind, lex};

use crate::TextRange;
use crate::prelude::is_prelude_path;
use crate::scope::{FileIndex, NameClass, Occurrence, Role, Target, file_index};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TokenClass {
    Keyword,
    Function,
    Variable,
    Parameter,
    Type,
    TypeParameter,
    Module,
    ModuleType,
    Operator,
    Constructor,
    Field,
    Number,
    String,
    Comment,
    Attribute,
}

/// Modifier bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Modifiers(pub u32);

impl Modifiers {
    /// The defining occurrence of a name.
    pub const DEFINITION: Modifiers = Modifiers(1);
    /// A name from the prelude or a built-in.
    pub const LIBRARY: Modifiers = Modifiers(2);
    /// A doc comment.
    pub const DOCUMENTATION: Modifiers = Modifiers(4);

    pub fn contains(self, other: Modifiers) -> bool {
        self.0 & other.0 == other.0
    }
}

impl std::ops::BitOr for Modifiers {
    type Output = Modifiers;
    fn bitor(self, rhs: Modifiers) -> Modifiers {
        Modifiers(self.0 | rhs.0)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SemanticToken {
    /// A token may span lines (doc comments); the protocol layer splits it if needed.
    pub range: TextRange,
    pub class: TokenClass,
    pub modifiers: Modifiers,
}

/// The semantic tokens of `file` overlapping `range` (all of them for `None`), sorted and
/// non-overlapping.
pub fn semantic_tokens(db: &dyn Db, file: File, range: Option<TextRange>) -> Vec<SemanticToken> {
    let text = file.text(db);
    let lexed = lex(file.id(db), text);
    let index = file_index(db, file);
    let tokens = &lexed.tokens;
    let mut out = classify(&lexed, |i, t, out| match t.kind {
        k if plain_class(k).is_some() => plain_class(k),
        TokenKind::Doc => {
            push(out, t, TokenClass::Comment, Modifiers::DOCUMENTATION);
            None
        }
        TokenKind::Symbol | TokenKind::Bang | TokenKind::Backtick => {
            let m = name_modifiers(db, index, occurrence(index, t.start));
            push(out, t, TokenClass::Operator, m);
            None
        }
        TokenKind::QualSymbol => {
            qual_symbol(db, index, t, out);
            None
        }
        TokenKind::Constructor => Some(TokenClass::Constructor),
        TokenKind::Ident => {
            ident(db, index, t, out);
            None
        }
        TokenKind::Apostrophe | TokenKind::ApostropheHat | TokenKind::ApostropheTilde => {
            // The marker of a type parameter `'a` is part of its name.
            let next_is_name = tokens
                .get(i + 1)
                .is_some_and(|n| n.kind == TokenKind::Ident && n.start == t.end);
            next_is_name.then_some(TokenClass::TypeParameter)
        }
        _ => None,
    });
    if let Some(range) = range {
        out.retain(|t| t.range.end > range.start && t.range.start < range.end);
    }
    out
}

/// The tokens of a lexed text, sorted: everything inside an attribute `#[…]` (nested
/// brackets included) as an attribute, every other token as `other` says (it may push
/// tokens itself and return `None`, or return the class of a token without modifiers),
/// and the comments.
fn classify(
    lexed: &Lexed,
    mut other: impl FnMut(usize, &Token, &mut Vec<SemanticToken>) -> Option<TokenClass>,
) -> Vec<SemanticToken> {
    let mut out = Vec::new();
    let mut in_attr = 0u32;
    for (i, t) in lexed.tokens.iter().enumerate() {
        if in_attr > 0 {
            match t.kind {
                TokenKind::LBracket | TokenKind::IndexBracket | TokenKind::HashBracket => {
                    in_attr += 1
                }
                TokenKind::RBracket => in_attr -= 1,
                _ => {}
            }
            push(&mut out, t, TokenClass::Attribute, Modifiers::default());
            continue;
        }
        if t.kind == TokenKind::HashBracket {
            in_attr = 1;
            push(&mut out, t, TokenClass::Attribute, Modifiers::default());
            continue;
        }
        if let Some(class) = other(i, t, &mut out) {
            push(&mut out, t, class, Modifiers::default());
        }
    }
    for c in &lexed.comments {
        out.push(SemanticToken {
            range: TextRange::new(c.start, c.end),
            class: TokenClass::Comment,
            modifiers: Modifiers::default(),
        });
    }
    out.sort_by_key(|t| t.range.start);
    out
}

/// The class of a token that the lexer alone decides (no name resolution needed).
fn plain_class(kind: TokenKind) -> Option<TokenClass> {
    match kind {
        k if k.is_keyword() => Some(TokenClass::Keyword),
        TokenKind::Int | TokenKind::Float | TokenKind::Char => Some(TokenClass::Number),
        TokenKind::String => Some(TokenClass::String),
        _ => None,
    }
}

/// Tokens of a text classified by the lexer alone, as [`semantic_tokens`] classifies them
/// before name resolution: keywords, numbers, strings, comments, attributes, operators and
/// constructors (names are left out). For highlighting text that is no file of the
/// database, such as a REPL's input line.
pub fn lexical_tokens(text: &str) -> Vec<SemanticToken> {
    let lexed = lex(futhark_syntax::FileId(u32::MAX), text);
    let mut out = classify(&lexed, |_, t, _| match t.kind {
        TokenKind::Doc => Some(TokenClass::Comment),
        TokenKind::Symbol | TokenKind::Bang | TokenKind::Backtick | TokenKind::QualSymbol => {
            Some(TokenClass::Operator)
        }
        TokenKind::Constructor => Some(TokenClass::Constructor),
        k => plain_class(k),
    });
    out.retain(|t| t.range.end as usize <= text.len() && t.range.start < t.range.end);
    out
}

fn push(out: &mut Vec<SemanticToken>, t: &Token, class: TokenClass, modifiers: Modifiers) {
    out.push(SemanticToken {
        range: TextRange::new(t.start, t.end),
        class,
        modifiers,
    });
}

/// The occurrence starting exactly at `start`, preferring a name over a field.
fn occurrence(index: &FileIndex, start: u32) -> Option<&Occurrence> {
    let from = index.occurrences.partition_point(|o| o.span.start < start);
    index.occurrences[from..]
        .iter()
        .take_while(|o| o.span.start == start)
        .min_by_key(|o| o.class == NameClass::Field)
}

fn name_modifiers(db: &dyn Db, index: &FileIndex, occ: Option<&Occurrence>) -> Modifiers {
    let Some(occ) = occ else {
        return Modifiers::default();
    };
    let mut m = Modifiers::default();
    if occ.role == Role::Definition {
        m = m | Modifiers::DEFINITION;
    }
    let library = match occ.target {
        Target::Builtin => true,
        Target::Def(loc) => is_prelude_path(loc.file.path(db)),
        Target::File(_) | Target::Unresolved => false,
    };
    let _ = index;
    if library {
        m = m | Modifiers::LIBRARY;
    }
    m
}

fn class_of(class: NameClass) -> TokenClass {
    match class {
        NameClass::Function => TokenClass::Function,
        NameClass::Value | NameClass::Local => TokenClass::Variable,
        NameClass::Param => TokenClass::Parameter,
        NameClass::Type => TokenClass::Type,
        NameClass::TypeParam => TokenClass::TypeParameter,
        NameClass::Module => TokenClass::Module,
        NameClass::ModuleType => TokenClass::ModuleType,
        NameClass::Operator => TokenClass::Operator,
        NameClass::Constructor => TokenClass::Constructor,
        NameClass::Field => TokenClass::Field,
        NameClass::File => TokenClass::String,
    }
}

fn ident(db: &dyn Db, index: &FileIndex, t: &Token, out: &mut Vec<SemanticToken>) {
    let occ = occurrence(index, t.start);
    let class = occ.map_or(TokenClass::Variable, |o| class_of(o.class));
    push(out, t, class, name_modifiers(db, index, occ));
}

/// `M.N.+`: the module names, then the operator.
fn qual_symbol(db: &dyn Db, index: &FileIndex, t: &Token, out: &mut Vec<SemanticToken>) {
    let op_start = t.data;
    for occ in index
        .occurrences
        .iter()
        .filter(|o| o.span.start >= t.start && o.span.end <= op_start)
    {
        out.push(SemanticToken {
            range: occ.span.into(),
            class: TokenClass::Module,
            modifiers: name_modifiers(db, index, Some(occ)),
        });
    }
    let op = occurrence(index, op_start);
    out.push(SemanticToken {
        range: TextRange::new(op_start, t.end),
        class: TokenClass::Operator,
        modifiers: name_modifiers(db, index, op),
    });
}

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};

    use super::{Modifiers, TokenClass};
    use crate::fixture::Fixture;

    fn check(fixture: &str, expect: Expect) {
        let f = Fixture::new(fixture);
        let text = f.text();
        let shown: Vec<String> = super::semantic_tokens(&f.db, f.file(), None)
            .iter()
            .map(|t| {
                let mut mods = String::new();
                if t.modifiers.contains(Modifiers::DEFINITION) {
                    mods.push_str(" def");
                }
                if t.modifiers.contains(Modifiers::LIBRARY) {
                    mods.push_str(" lib");
                }
                if t.modifiers.contains(Modifiers::DOCUMENTATION) {
                    mods.push_str(" doc");
                }
                let s = &text[t.range.start as usize..t.range.end as usize];
                format!("{s:?} {:?}{mods}", t.class)
            })
            .collect();
        expect.assert_eq(&shown.join("\n"));
    }

    #[test]
    fn every_class() {
        check(
            r#"-- | Doc.
#[inline]
def f 't [n] (xs: [n]t) (g: t -> i32) : i32 =
  let r = {a = 1, b = 2.5f32}
  -- a comment
  in r.a + g xs[0] + f32.i32 'c' + length "s" |> (M.+) 1 +
     (match #some 1 case #some v -> v case _ -> 0)
module M = { def (+) (a: i32) (b: i32) = a }
module type S = { val z : i32 }
"#,
            expect![[r##"
                "-- | Doc." Comment doc
                "#[" Attribute
                "inline" Attribute
                "]" Attribute
                "def" Keyword
                "f" Function def
                "'" TypeParameter
                "t" TypeParameter def
                "n" TypeParameter def
                "xs" Parameter def
                "n" TypeParameter
                "t" TypeParameter
                "g" Parameter def
                "t" TypeParameter
                "i32" Type lib
                "i32" Type lib
                "let" Keyword
                "r" Variable def
                "a" Field
                "1" Number
                "b" Field
                "2.5f32" Number
                "-- a comment" Comment
                "in" Keyword
                "r" Variable
                "a" Field
                "+" Operator lib
                "g" Parameter
                "xs" Parameter
                "0" Number
                "+" Operator lib
                "f32" Module lib
                "i32" Function lib
                "'c'" Number
                "+" Operator lib
                "length" Function lib
                "\"s\"" String
                "|>" Operator lib
                "M" Module
                "+" Operator
                "1" Number
                "+" Operator lib
                "match" Keyword
                "#some" Constructor
                "1" Number
                "case" Keyword
                "#some" Constructor
                "v" Variable def
                "v" Variable
                "case" Keyword
                "0" Number
                "module" Keyword
                "M" Module def
                "def" Keyword
                "+" Operator def
                "a" Parameter def
                "i32" Type lib
                "b" Parameter def
                "i32" Type lib
                "a" Parameter
                "module" Keyword
                "type" Keyword
                "S" ModuleType def
                "val" Keyword
                "z" Variable def
                "i32" Type lib"##]],
        );
    }

    #[test]
    fn range_filter() {
        let f = Fixture::new("def a = 1\ndef b = 2\n");
        let tokens = super::semantic_tokens(&f.db, f.file(), Some(crate::TextRange::new(10, 19)));
        assert!(tokens.iter().all(|t| t.range.start >= 10));
        assert_eq!(tokens.first().map(|t| t.class), Some(TokenClass::Keyword));
    }
}
