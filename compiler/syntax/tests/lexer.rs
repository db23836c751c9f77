//! The lexer: token kinds, maximal munch, the glued-`[` rule, literals, comments and doc
//! comments, and lexical errors.

use futhark_syntax::lexer::{Lexed, TokenKind, TokenValue, lex};
use futhark_syntax::{FileId, ast::NumSuffix};

fn lexed(src: &str) -> Lexed {
    lex(FileId(0), src)
}

/// `kind:text` for every token but the final EOF.
fn tokens(src: &str) -> Vec<String> {
    let l = lexed(src);
    assert!(
        l.errors.is_empty(),
        "lexer errors for {src:?}: {:#?}",
        l.errors
    );
    l.tokens
        .iter()
        .filter(|t| t.kind != TokenKind::Eof)
        .map(|t| format!("{:?}:{}", t.kind, &src[t.start as usize..t.end as usize]))
        .collect()
}

fn values(src: &str) -> Vec<TokenValue> {
    lexed(src).values
}

#[test]
fn names_keywords_constructors() {
    assert_eq!(
        tokens("x _y x' if iff #foo _ M.x"),
        [
            "Ident:x",
            "Ident:_y",
            "Ident:x'",
            "If:if",
            "Ident:iff",
            "Constructor:#foo",
            "Underscore:_",
            "Ident:M",
            "Dot:.",
            "Ident:x"
        ]
    );
}

#[test]
fn operators_by_maximal_munch() {
    assert_eq!(tokens("x+-1"), ["Ident:x", "Symbol:+-", "Int:1"]);
    assert_eq!(tokens("a>->b"), ["Ident:a", "Symbol:>->", "Ident:b"]);
    assert_eq!(
        tokens("|> <| ** ->"),
        ["Symbol:|>", "Symbol:<|", "Symbol:**", "Arrow:->"]
    );
    assert_eq!(
        tokens("= == ! !="),
        ["Equals:=", "Symbol:==", "Bang:!", "Symbol:!="]
    );
    assert_eq!(
        tokens("M.+ f32.<= A.B.>>="),
        ["QualSymbol:M.+", "QualSymbol:f32.<=", "QualSymbol:A.B.>>="]
    );
    assert_eq!(
        tokens("a.b+c"),
        ["Ident:a", "Dot:.", "Ident:b", "Symbol:+", "Ident:c"]
    );
    assert_eq!(
        tokens(": :> \\ ` ~ ? ???"),
        [
            "Colon::",
            "ColonGt::>",
            "Backslash:\\",
            "Backtick:`",
            "Tilde:~",
            "Question:?",
            "Hole:???"
        ]
    );
}

#[test]
fn dots() {
    assert_eq!(
        tokens("a..b ... ..< ..> ."),
        [
            "Ident:a",
            "DotDot:..",
            "Ident:b",
            "DotDotDot:...",
            "DotDotLt:..<",
            "DotDotGt:..>",
            "Dot:."
        ]
    );
    // No float starts after a dot: two projections.
    assert_eq!(
        tokens("x.0.1"),
        ["Ident:x", "Dot:.", "Int:0", "Dot:.", "Int:1"]
    );
    assert_eq!(tokens("1..2"), ["Int:1", "DotDot:..", "Int:2"]);
}

#[test]
fn glued_brackets_index() {
    assert_eq!(tokens("a[0]")[1], "IndexBracket:[");
    assert_eq!(tokens("a [0]")[1], "LBracket:[");
    assert_eq!(tokens("f(x)[0]")[4], "IndexBracket:[");
    assert_eq!(tokens("a[0][1]")[4], "IndexBracket:[");
    assert_eq!(tokens("x'[0]")[1], "IndexBracket:[");
    assert_eq!(tokens("3[0]")[1], "IndexBracket:[");
    assert_eq!(tokens("([0])")[1], "LBracket:[");
    assert_eq!(tokens("#[inline]")[0], "HashBracket:#[");
}

#[test]
fn integers() {
    let v = values("1_000 0xff 0b101 0rXIV 257u8 7i64 0xffi32 0x1f32 0B1_1");
    let ints: Vec<(u128, Option<NumSuffix>)> = v
        .iter()
        .map(|v| match v {
            TokenValue::Int { value, suffix } => (*value, *suffix),
            other => panic!("not an int: {other:?}"),
        })
        .collect();
    assert_eq!(
        ints,
        [
            (1000, None),
            (255, None),
            (5, None),
            (14, None),
            (257, Some(NumSuffix::U8)),
            (7, Some(NumSuffix::I64)),
            (255, Some(NumSuffix::I32)),
            (0x1f32, None),
            (3, None),
        ]
    );
    // Overflow saturates; the type checker reports it.
    assert_eq!(
        values("999999999999999999999999999999999999999999"),
        [TokenValue::Int {
            value: u128::MAX,
            suffix: None
        }]
    );
}

#[test]
fn floats() {
    let floats: Vec<(f64, Option<NumSuffix>)> =
        values("1.5 1e3 2.5e-2 3f32 1_0.2_5f64 0x1.8p1 0x1.0p-2f32")
            .iter()
            .map(|v| match v {
                TokenValue::Float { value, suffix } => (*value, *suffix),
                other => panic!("not a float: {other:?}"),
            })
            .collect();
    assert_eq!(
        floats,
        [
            (1.5, None),
            (1000.0, None),
            (0.025, None),
            (3.0, Some(NumSuffix::F32)),
            (10.25, Some(NumSuffix::F64)),
            (3.0, None),
            (0.25, Some(NumSuffix::F32)),
        ]
    );
    // Without a digit after it, `.` is not part of the number; neither is a bare `e`.
    assert_eq!(tokens("1.x"), ["Int:1", "Dot:.", "Ident:x"]);
    assert_eq!(tokens("1e"), ["Int:1", "Ident:e"]);
}

#[test]
fn chars_and_strings() {
    assert_eq!(
        values(r"'a' '\n' '\'' '\\' '\x41' '\65' '\o101' '\^A' '\DEL' 'é'"),
        [97, 10, 39, 92, 65, 65, 65, 1, 127, 233].map(TokenValue::Char)
    );
    assert_eq!(
        values(r#""a\tb" "\SOH\&9" "é\x41\&" "gap\   \x""#),
        [
            TokenValue::Str("a\tb".into()),
            TokenValue::Str("\u{1}9".into()),
            TokenValue::Str("éA".into()),
            TokenValue::Str("gapx".into()),
        ]
    );
    // Type-parameter apostrophes are not characters.
    assert_eq!(
        tokens("'a '^b '~c"),
        [
            "Apostrophe:'",
            "Ident:a",
            "ApostropheHat:'^",
            "Ident:b",
            "ApostropheTilde:'~",
            "Ident:c"
        ]
    );
}

#[test]
fn comments_and_docs() {
    let l = lexed(
        "x -- a comment\n-- | Doc line.\n  -- more\n--\n-- end\ny\n-- | Other.\n\n-- plain\nz",
    );
    let kinds: Vec<TokenKind> = l.tokens.iter().map(|t| t.kind).collect();
    assert_eq!(
        kinds,
        [
            TokenKind::Ident,
            TokenKind::Doc,
            TokenKind::Ident,
            TokenKind::Doc,
            TokenKind::Ident,
            TokenKind::Eof
        ]
    );
    assert_eq!(
        l.values,
        [
            TokenValue::Doc("Doc line.\nmore\n\nend".into()),
            TokenValue::Doc("Other.".into())
        ]
    );
    assert_eq!(l.comments.len(), 2);
    // `--` always starts a comment, even right after an operand.
    assert_eq!(tokens("x--y"), ["Ident:x"]);
    // But not in the middle of an operator.
    assert_eq!(tokens("x |-- y"), ["Ident:x", "Symbol:|--", "Ident:y"]);
}

#[test]
fn line_start_flag() {
    let l = lexed("let x = 1\n  let y = 2\nlet z = 3");
    let lets: Vec<bool> = l
        .tokens
        .iter()
        .filter(|t| t.kind == TokenKind::Let)
        .map(|t| t.line_start)
        .collect();
    assert_eq!(lets, [true, false, true]);
}

#[test]
fn lexical_errors_are_reported_and_skipped() {
    let l = lexed("a @@ b $ c\n\"open\nd '\\q' e");
    let msgs: Vec<(&str, u32)> = l.errors.iter().map(|e| (e.code, e.span.start)).collect();
    assert_eq!(
        msgs,
        [
            ("invalid-token", 2),
            ("invalid-token", 7),
            ("unterminated-string", 11),
            ("invalid-escape", 20),
        ]
    );
    let idents = l
        .tokens
        .iter()
        .filter(|t| t.kind == TokenKind::Ident)
        .count();
    assert_eq!(idents, 5);
}

#[test]
fn arbitrary_unicode_and_control_bytes() {
    for src in [
        "λx → x",
        "\u{0}\u{1}",
        "'",
        "\"",
        "'\\",
        "\"\\",
        "0x",
        "0b2",
        "0r",
        "#",
        "é'é'",
        "\"\\xFFFFFFFF\"",
    ] {
        let l = lexed(src);
        assert_eq!(
            l.tokens.last().map(|t| t.kind),
            Some(TokenKind::Eof),
            "{src:?}"
        );
        for t in &l.tokens {
            assert!(src.is_char_boundary(t.start as usize) && src.is_char_boundary(t.end as usize));
        }
    }
}
