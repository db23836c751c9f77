//! Run cases: inputs, expectations, names, tags and entry points.

use super::{only_case, only_run};
use crate::{CaseInput, Expectation, GenValue};

#[test]
fn input_and_output_values() {
    let c = only_case("-- ==\n-- input { [1,2,3] 2i64 }\n-- output { 3 }\n");
    assert_eq!(c.input, CaseInput::Values("[1,2,3] 2i64".into()));
    assert_eq!(c.expect, Expectation::Values("3".into()));
    assert_eq!(c.line, 2);
    assert_eq!(c.name, None);
    assert!(c.tags.is_empty());
}

#[test]
fn input_and_output_on_one_line_without_spaces() {
    let c = only_case("-- ==\n-- input{1}output{2}\n");
    assert_eq!(c.input, CaseInput::Values("1".into()));
    assert_eq!(c.expect, Expectation::Values("2".into()));
}

#[test]
fn multi_line_values_lose_their_comment_prefixes() {
    let src = "\
-- ==
-- input {
--   [[1, 2],
--    [3, 4]]
--   empty([0]i32)
-- }
-- output
-- { 10 }
";
    let c = only_case(src);
    assert_eq!(
        c.input,
        CaseInput::Values("[[1, 2],\n[3, 4]]\nempty([0]i32)".into())
    );
    assert_eq!(c.expect, Expectation::Values("10".into()));
}

#[test]
fn strings_in_values_may_hold_braces() {
    let c = only_case("-- ==\n-- input { \"a}b\\\"{\" } output { \"}\" }\n");
    assert_eq!(c.input, CaseInput::Values("\"a}b\\\"{\"".into()));
    assert_eq!(c.expect, Expectation::Values("\"}\"".into()));
}

#[test]
fn empty_input_values() {
    let c = only_case("-- ==\n-- input {} output { 1 }\n");
    assert_eq!(c.input, CaseInput::Values(String::new()));
}

#[test]
fn no_output_means_must_succeed() {
    let r = only_run("-- ==\n-- input { 1 }\n-- input { 2 }\n");
    assert_eq!(r.cases.len(), 2);
    assert!(r.cases.iter().all(|c| c.expect == Expectation::Succeed));
    assert_eq!(r.cases[1].index, 1);
}

#[test]
fn input_and_output_files() {
    let c = only_case("-- ==\n-- input @ data/64.in.gz\n-- output @ ../out/64.out\n");
    assert_eq!(c.input, CaseInput::File("data/64.in.gz".into()));
    assert_eq!(c.expect, Expectation::File("../out/64.out".into()));
}

#[test]
fn file_name_may_follow_on_next_line() {
    let c = only_case("-- ==\n-- input @\n--   x.in output @x.out\n");
    assert_eq!(c.input, CaseInput::File("x.in".into()));
    assert_eq!(c.expect, Expectation::File("x.out".into()));
}

#[test]
fn random_input_types_and_constants() {
    let c = only_case(
        "-- ==\n-- random input { [100]f32 [10][2_0]i32 f64 10i64 0.5f32 7 } auto output\n",
    );
    let typed = |dims: &[u64], elem: &str| GenValue::Random {
        dims: dims.to_vec(),
        elem: elem.into(),
    };
    assert_eq!(
        c.input,
        CaseInput::Random(vec![
            typed(&[100], "f32"),
            typed(&[10, 20], "i32"),
            typed(&[], "f64"),
            GenValue::Constant("10i64".into()),
            GenValue::Constant("0.5f32".into()),
            GenValue::Constant("7".into()),
        ])
    );
    assert_eq!(c.expect, Expectation::Auto);
    assert_eq!(c.tags, ["random"]);
    assert_eq!(c.dataset_name(), "[100]f32 [10][20]i32 f64 10i64 0.5f32 7");
}

#[test]
fn script_input_expression() {
    let c = only_case(
        "-- ==\n-- script input { (2f32, $loaddata \"data/x.in\") }\n-- output { 1f32 }\n",
    );
    assert_eq!(
        c.input,
        CaseInput::Script("(2f32, $loaddata \"data/x.in\")".into())
    );
    assert_eq!(c.expect, Expectation::Values("1f32".into()));
}

#[test]
fn script_input_braces_on_next_line_and_nested() {
    let c = only_case("-- ==\n-- \"n\" script input\n-- { f {x = 1} }\n");
    assert_eq!(c.input, CaseInput::Script("f {x = 1}".into()));
    assert_eq!(c.name.as_deref(), Some("n"));
}

#[test]
fn script_input_from_file() {
    let c = only_case("-- ==\n-- script input @ data.futharkscript\n");
    assert_eq!(c.input, CaseInput::ScriptFile("data.futharkscript".into()));
}

#[test]
fn auto_output_may_span_lines() {
    let c = only_case("-- ==\n-- random input { [10]i32 } auto\n-- output\n");
    assert_eq!(c.expect, Expectation::Auto);
}

#[test]
fn run_time_error_regex() {
    let r = only_run(
        "-- ==\n-- input { [1] 5i64 }\n-- error: Index \\[5\\] out of bounds\n-- input { 1 } error:\n",
    );
    assert_eq!(
        r.cases[0].expect,
        Expectation::RunError("Index \\[5\\] out of bounds".into())
    );
    assert_eq!(r.cases[1].expect, Expectation::RunError(String::new()));
}

#[test]
fn error_on_same_line_as_input() {
    let c = only_case("-- ==\n-- input { 0 } error: division by zero\n");
    assert_eq!(c.expect, Expectation::RunError("division by zero".into()));
}

#[test]
fn case_name_and_tags() {
    let c = only_case("-- ==\n-- \"big one\" compiled no_python nobench input { 1 }\n");
    assert_eq!(c.name.as_deref(), Some("big one"));
    assert_eq!(c.tags, ["compiled", "no_python", "nobench"]);
    assert!(c.has_tag("compiled"));
    assert_eq!(c.dataset_name(), "big one");
}

#[test]
fn case_name_escapes() {
    let c = only_case("-- ==\n-- \"a \\\"q\\\" b\" input { 1 }\n");
    assert_eq!(c.name.as_deref(), Some("a \"q\" b"));
}

#[test]
fn case_tags_may_span_lines() {
    let c = only_case("-- ==\n-- no_wasm compiled\n-- input @ data/tiny.in\n");
    assert_eq!(c.tags, ["no_wasm", "compiled"]);
    assert_eq!(c.line, 2);
}

#[test]
fn entry_points_apply_to_all_cases() {
    let r = only_run(
        "-- ==\n-- entry: rev fwd\n-- input { 1 } output { 2 }\n-- input { 3 } output { 4 }\n",
    );
    assert_eq!(r.entries, ["rev", "fwd"]);
    assert_eq!(r.cases.len(), 2);
}

#[test]
fn default_entry_is_main() {
    assert_eq!(only_run("-- ==\n-- input { 1 }\n").entries, ["main"]);
}

#[test]
fn entry_without_cases() {
    let r = only_run("-- ==\n-- entry: foo\n");
    assert_eq!(r.entries, ["foo"]);
    assert!(r.cases.is_empty());
}
