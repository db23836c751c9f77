//! Structure and warning checks after the run cases.

use super::only_run;
use crate::{Pipeline, StructureTest, WarningTest};

#[test]
fn structure_default_pipeline() {
    let r = only_run("-- ==\n-- input { 1 }\n-- structure { Screma 1 /Index 2 SegMap/Loop 0 }\n");
    assert_eq!(
        r.structures,
        [StructureTest {
            pipeline: Pipeline::Soacs,
            metrics: vec![
                ("Screma".into(), 1),
                ("/Index".into(), 2),
                ("SegMap/Loop".into(), 0)
            ],
            line: 3,
        }]
    );
}

#[test]
fn structure_pipelines() {
    let src = "\
-- ==
-- structure gpu { SegMap 1 }
-- structure gpu-mem { Alloc 2 }
-- structure seq-mem { Alloc 0 }
-- structure mc-mem { Alloc 1 }
-- structure mc { SegRed 1 }
-- structure internalised {
--   Screma 3
-- }
";
    let r = only_run(src);
    let pipes: Vec<Pipeline> = r.structures.iter().map(|s| s.pipeline).collect();
    use Pipeline::*;
    assert_eq!(pipes, [Gpu, GpuMem, SeqMem, McMem, Mc, Internalised]);
    assert_eq!(r.structures[5].metrics, [("Screma".to_string(), 3)]);
    assert!(
        pipes
            .iter()
            .all(|p| Pipeline::from_name(p.name()) == Some(*p))
    );
}

#[test]
fn empty_structure() {
    let r = only_run("-- ==\n-- structure {}\n");
    assert!(r.structures[0].metrics.is_empty());
}

#[test]
fn warnings_after_cases_and_structures() {
    let src = "\
-- ==
-- input { [[1]] } output { true }
-- structure { Screma 1 }
-- warning: deprecated
-- structure gpu { SegMap 1 }
-- warning: ^$
";
    let r = only_run(src);
    assert_eq!(r.cases.len(), 1);
    assert_eq!(r.structures.len(), 2);
    assert_eq!(
        r.warnings,
        [
            WarningTest {
                regex: "deprecated".into(),
                line: 4
            },
            WarningTest {
                regex: "^$".into(),
                line: 6
            }
        ]
    );
}

#[test]
fn warning_alone() {
    let r = only_run("-- ==\n-- warning: Inclusion shadows type\n");
    assert!(r.cases.is_empty());
    assert_eq!(r.warnings[0].regex, "Inclusion shadows type");
}

#[test]
fn counts_over_blocks() {
    let src = "-- ==\n-- structure { A 1 }\n\n-- ==\n-- structure { B 1 }\n-- warning: w\n";
    let s = super::spec(src);
    assert_eq!(s.structure_count(), 2);
    assert_eq!(s.warning_count(), 1);
}
