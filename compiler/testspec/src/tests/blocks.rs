//! Finding blocks: separators, descriptions, several blocks, tags, compile errors, properties.

use super::{only_run, spec};
use crate::{BlockBody, TestSpec};

#[test]
fn no_block_gives_empty_spec() {
    let s = spec("-- Just a comment.\ndef main = 1\n");
    assert!(s.blocks.is_empty());
    assert_eq!(TestSpec::parse(""), Ok(TestSpec::default()));
}

#[test]
fn separator_must_be_exact() {
    let src = "--==\n-- input { 1 }\n\n-- -- ==\n-- input { 2 }\n\n  -- ==\n";
    assert!(spec(src).blocks.is_empty());
}

#[test]
fn separator_may_have_trailing_whitespace_and_crlf() {
    let s = spec("-- Desc\r\n-- ==  \r\n-- input { 1 }\r\n");
    assert_eq!(s.blocks.len(), 1);
    assert_eq!(s.blocks[0].description, "Desc");
    assert_eq!(s.runs().count(), 1);
}

#[test]
fn description_is_the_comment_before_the_separator() {
    let src = "def x = 1\n-- Line one.\n--\n--   indented two.\n-- ==\n-- input { 1 }\n";
    let s = spec(src);
    let b = &s.blocks[0];
    assert_eq!(b.description, "Line one.\n\n  indented two.");
    assert_eq!(b.line, 5);
}

#[test]
fn empty_block_is_a_run_block_without_cases() {
    let r = only_run("-- ==\n");
    assert_eq!(r.entries, ["main"]);
    assert!(r.cases.is_empty());
}

#[test]
fn block_ends_at_first_non_comment_line() {
    let src = "-- ==\n-- input { 1 }\ndef main (x: i32) = x\n-- input { this is not a test }\n";
    assert_eq!(only_run(src).cases.len(), 1);
}

#[test]
fn several_blocks_each_with_entries() {
    let src = "\
-- Top.
-- ==
-- tags { autodiff }

def add x y = x + y

-- ==
-- entry: add1
-- input { 1 } output { 2 }
entry add1 (x: i32) = add x 1

-- Second.
-- ==
-- entry: sub1 sub1_alt
-- input { 1 } output { 0 }
entry sub1 (x: i32) = add x (-1)
";
    let s = spec(src);
    assert_eq!(s.blocks.len(), 3);
    assert_eq!(s.blocks[0].tags, ["autodiff"]);
    assert_eq!(s.blocks[2].description, "Second.");
    assert_eq!(s.blocks[2].line, 13);
    let runs: Vec<&str> = s.runs().map(|(e, _)| e).collect();
    assert_eq!(runs, ["add1", "sub1", "sub1_alt"]);
}

#[test]
fn block_tags_may_span_lines() {
    let s = spec("-- ==\n-- tags { no_python\n--   no_wasm futhark-c }\n-- input { 1 }\n");
    assert_eq!(s.blocks[0].tags, ["no_python", "no_wasm", "futhark-c"]);
    assert_eq!(s.tags(), ["no_python", "no_wasm", "futhark-c"]);
}

#[test]
fn compile_error_with_regex() {
    let s = spec("-- Bad.\n-- ==\n-- error: Cannot apply \"f\" to.*\n\ndef main = f 1\n");
    let b = &s.blocks[0];
    assert_eq!(
        b.body,
        BlockBody::CompileError {
            regex: "Cannot apply \"f\" to.*".to_string()
        }
    );
    assert_eq!(s.compile_error(), Some("Cannot apply \"f\" to.*"));
}

#[test]
fn compile_error_empty_regex_means_any() {
    let s = spec("-- ==\n-- error:\n");
    assert_eq!(s.compile_error(), Some(""));
}

#[test]
fn compile_error_after_tags() {
    let s = spec("-- ==\n-- tags { no_opencl }\n-- error: bad\n");
    assert_eq!(s.blocks[0].tags, ["no_opencl"]);
    assert_eq!(s.compile_error(), Some("bad"));
}

#[test]
fn property_block() {
    let s = spec("-- ==\n-- property: rev_involution rev_length\n");
    assert_eq!(
        s.blocks[0].body,
        BlockBody::Property {
            names: vec!["rev_involution".into(), "rev_length".into()]
        }
    );
    assert_eq!(
        s.properties().collect::<Vec<_>>(),
        ["rev_involution", "rev_length"]
    );
}

#[test]
fn byte_order_mark_is_ignored() {
    assert_eq!(spec("\u{feff}-- ==\n-- input { 1 }\n").runs().count(), 1);
}
