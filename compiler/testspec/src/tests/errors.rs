//! Malformed blocks: each is reported with its line, never a panic.

use super::error;
use crate::{BlockBody, ErrorKind, TestSpec};

#[test]
fn unclosed_input_braces() {
    let e = error("-- ==\n-- input { 1\n-- 2\ndef main = 0\n");
    assert_eq!(e.line, 2);
    assert_eq!(
        e.kind,
        ErrorKind::UnclosedBrace {
            what: "input values"
        }
    );
}

#[test]
fn unclosed_string_literals() {
    assert_eq!(
        error("-- ==\n-- input { \"ab }\n-- }\n").kind,
        ErrorKind::UnclosedString
    );
    let e = error("-- ==\n-- \"name input { 1 }\n");
    assert_eq!((e.line, e.kind), (2, ErrorKind::UnclosedString));
}

#[test]
fn garbage_after_cases() {
    let e = error("-- ==\n-- input { 1 } output { 1 }\n-- structure { A 1 }\n-- input { 2 }\n");
    assert_eq!(e.line, 4);
    assert!(matches!(e.kind, ErrorKind::Unexpected { .. }), "{e}");
    assert!(
        e.to_string().starts_with("line 4: unexpected `input`"),
        "{e}"
    );
}

#[test]
fn tags_without_input() {
    let e = error("-- ==\n-- compiled output { 1 }\n");
    assert_eq!(e.line, 2);
    assert!(e.to_string().contains("`output`"), "{e}");
    let e = error("-- ==\n-- compiled\n");
    assert!(e.to_string().contains("end of test block"), "{e}");
}

#[test]
fn entry_after_cases() {
    let e = error("-- ==\n-- input { 1 }\n-- entry: foo\n");
    assert_eq!(e.line, 3);
    assert!(e.to_string().contains("`entry:`"), "{e}");
}

#[test]
fn entry_without_names() {
    let e = error("-- ==\n-- entry:\n-- input { 1 }\n");
    assert_eq!((e.line, e.kind), (2, ErrorKind::NoNames("entry:")));
}

#[test]
fn property_without_names() {
    assert_eq!(
        error("-- ==\n-- property:\n").kind,
        ErrorKind::NoNames("property:")
    );
}

#[test]
fn missing_input_braces() {
    let e = error("-- ==\n-- input 1 2\n");
    assert!(e.to_string().contains("expected `{`"), "{e}");
}

#[test]
fn missing_file_name() {
    let e = error("-- ==\n-- input @\n");
    assert_eq!(e.kind, ErrorKind::MissingPath);
}

#[test]
fn random_input_from_file() {
    assert_eq!(
        error("-- ==\n-- random input @ x.in\n").kind,
        ErrorKind::RandomFromFile
    );
}

#[test]
fn bad_random_types() {
    for bad in [
        "[n]f32", "[10]", "[10]x32", "[10f32", "foo", "[-1]i32", "[1]10",
    ] {
        let src = format!("-- ==\n-- random input {{ {bad} }}\n");
        assert_eq!(
            error(&src).kind,
            ErrorKind::BadRandomValue(bad.to_string()),
            "{bad}"
        );
    }
}

#[test]
fn auto_without_output() {
    let e = error("-- ==\n-- random input { i32 } auto\n");
    assert!(e.to_string().contains("`output` after `auto`"), "{e}");
}

#[test]
fn bad_structures() {
    let e = error("-- ==\n-- structure gpu-foo { A 1 }\n");
    assert_eq!(e.kind, ErrorKind::UnknownPipeline("gpu-foo".into()));
    let e = error("-- ==\n-- structure { A }\n");
    assert!(matches!(e.kind, ErrorKind::BadMetrics(_)), "{e}");
    let e = error("-- ==\n-- structure { A x }\n");
    assert!(matches!(e.kind, ErrorKind::BadMetrics(_)), "{e}");
    let e = error("-- ==\n-- structure { A1 2 }\n");
    assert!(matches!(e.kind, ErrorKind::BadMetrics(_)), "{e}");
    let e = error("-- ==\n-- structure\n");
    assert!(e.to_string().contains("expected `{`"), "{e}");
}

#[test]
fn bad_tags() {
    assert_eq!(
        error("-- ==\n-- tags { a.b }\n").kind,
        ErrorKind::BadTag("a.b".into())
    );
    assert!(
        error("-- ==\n-- tags a b\n")
            .to_string()
            .contains("expected `{`")
    );
}

#[test]
fn nothing_may_follow_a_compile_error() {
    let e = error("-- ==\n-- error: x\n-- input { 1 }\n");
    assert_eq!(e.line, 3);
}

#[test]
fn compile_error_must_be_alone() {
    let e = error("-- ==\n-- input { 1 }\n\n-- ==\n-- error: bad\n");
    assert_eq!((e.line, e.kind), (4, ErrorKind::CompileErrorNotAlone));
}

#[test]
fn two_separators_in_one_comment() {
    let e = error("-- ==\n-- input { 1 }\n-- ==\n-- input { 2 }\n");
    assert_eq!((e.line, e.kind), (3, ErrorKind::SecondSeparator(1)));
}

#[test]
fn duplicate_dataset_names() {
    let e = error("-- ==\n-- \"a\" input { 1 }\n-- \"a\" input { 2 }\n");
    assert_eq!(
        (e.line, e.kind),
        (3, ErrorKind::DuplicateDataset("a".into()))
    );
    let e = error("-- ==\n-- input @ x.in\n-- input @ x.in.gz\n");
    assert_eq!(e.kind, ErrorKind::DuplicateDataset("x.in".into()));
    let e = error("-- ==\n-- random input { [2]i32 }\n-- random input { [2]i32 }\n");
    assert_eq!(e.kind, ErrorKind::DuplicateDataset("[2]i32".into()));
}

#[test]
fn identical_literal_inputs_are_distinct_datasets() {
    let s = super::spec("-- ==\n-- input { 1 }\n-- input { 1 }\n");
    assert_eq!(s.runs().count(), 2);
}

#[test]
fn first_error_wins_in_strict_mode() {
    let src = "-- ==\n-- input {\n\n-- ==\n-- bogus\n";
    assert_eq!(error(src).line, 2);
}

#[test]
fn lenient_parse_keeps_good_blocks() {
    let src = "-- ==\n-- input { 1 }\n\n-- ==\n-- entry: f\n-- bogus\n\n-- ==\n-- entry: g\n-- input { 2 }\n";
    let (spec, errors) = TestSpec::parse_lenient(src);
    assert_eq!(spec.blocks.len(), 2);
    assert_eq!(spec.blocks[1].line, 8);
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].line, 6);
    assert!(matches!(spec.blocks[0].body, BlockBody::Run(_)));
}

#[test]
fn no_panics_on_odd_input() {
    let odd = [
        "-- ==\n-- \"",
        "-- ==\n-- \"\\",
        "-- ==\n-- {",
        "-- ==\n-- }",
        "-- ==\n-- input {\"}",
        "-- ==\n-- @",
        "-- ==\n-- error",
        "-- ==\n-- tags {",
        "-- ==\n-- structure {",
        "-- ==\n-- structure { é 1 }",
        "-- ==\n-- ünïcode input { ß }",
        "-- ==\n-- random input { [99999999999999999999999]i32 }",
        "-- ==\n--",
        "-- ==\n---",
        "-- ==",
        "--",
    ];
    for src in odd {
        let _ = TestSpec::parse(src);
        let _ = TestSpec::parse_lenient(src);
    }
}
