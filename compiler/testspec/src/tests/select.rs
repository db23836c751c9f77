//! Exclusion helpers and dataset names.

use super::{only_case, spec};
use crate::{RunMode, dataset_name};

#[test]
fn disabled_program_is_excluded_everywhere() {
    let s = spec("-- ==\n-- tags { disable }\n-- input { 1 }\n");
    assert!(s.is_excluded(&RunMode::interpreter()));
    assert!(s.is_excluded(&RunMode::compiled("c")));
    assert!(s.is_excluded(&RunMode::bench("c")));
}

#[test]
fn backend_tags_exclude_only_that_backend() {
    let s = spec("-- ==\n-- tags { no_cuda autodiff }\n-- input { 1 }\n");
    assert!(s.is_excluded(&RunMode::compiled("cuda")));
    assert!(!s.is_excluded(&RunMode::compiled("c")));
    assert!(!s.is_excluded(&RunMode::interpreter()));
    assert!(s.has_tag("autodiff"));
}

#[test]
fn extra_exclusions() {
    let s = spec("-- ==\n-- tags { autodiff }\n-- input { 1 }\n");
    let mut mode = RunMode::compiled("c");
    mode.exclude.push("autodiff".into());
    assert!(s.is_excluded(&mode));
}

#[test]
fn compiled_cases_skip_the_interpreter() {
    let c = only_case("-- ==\n-- compiled input { 1 }\n");
    assert!(c.is_excluded(&RunMode::interpreter()));
    assert!(!c.is_excluded(&RunMode::compiled("c")));
}

#[test]
fn notest_and_nobench() {
    let c = only_case("-- ==\n-- notest input { 1 }\n");
    assert!(c.is_excluded(&RunMode::compiled("c")));
    assert!(!c.is_excluded(&RunMode::bench("c")));
    let c = only_case("-- ==\n-- nobench input { 1 }\n");
    assert!(!c.is_excluded(&RunMode::compiled("c")));
    assert!(c.is_excluded(&RunMode::bench("c")));
}

#[test]
fn case_backend_tags() {
    let c = only_case("-- ==\n-- no_python input { 1 }\n");
    assert!(c.is_excluded(&RunMode::compiled("python")));
    assert!(!c.is_excluded(&RunMode::compiled("c")));
}

#[test]
fn generated_dataset_names() {
    let name = |src: &str| dataset_name(&only_case(src));
    assert_eq!(name("-- ==\n-- input @ data/a.in.gz\n"), "data/a.in");
    assert_eq!(name("-- ==\n-- input @ data/a.in\n"), "data/a.in");
    assert_eq!(name("-- ==\n-- script input { f\n--   1 }\n"), "f 1");
    assert_eq!(name("-- ==\n-- script input @ s.fs\n"), "s.fs");
    assert_eq!(
        name("-- ==\n-- input { [1,\n--   2] 3 }\n"),
        "#0 (\"[1, 2] 3\")"
    );
    let long = format!("-- ==\n-- input {{ [{}] }}\n", ["1"; 40].join(","));
    let expected = format!("#0 (\"[{}...\")", &["1"; 40].join(",")[..49]);
    assert_eq!(name(&long), expected);
}
