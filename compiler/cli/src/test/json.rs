//! `--json FILE`: the totals and every result, as
//! `{"passed":N,"failed":N,"skipped":N,"results":[{"file","entry","case","status","message"}]}`.

use std::io::{self, BufWriter, Write};
use std::path::Path;

use serde::Serialize;

use super::outcome::CaseResult;
use super::report::Counts;

#[derive(Serialize)]
struct JsonReport<'a> {
    passed: usize,
    failed: usize,
    skipped: usize,
    results: &'a [CaseResult],
}

/// Writes the report to `path`.
pub fn write_report(path: &Path, totals: Counts, results: &[CaseResult]) -> io::Result<()> {
    let report = JsonReport {
        passed: totals.passed,
        failed: totals.failed,
        skipped: totals.skipped,
        results,
    };
    let mut out = BufWriter::new(std::fs::File::create(path)?);
    serde_json::to_writer(&mut out, &report)?;
    out.write_all(b"\n")?;
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test::outcome::Status;

    #[test]
    fn report_has_the_documented_shape() {
        let dir = std::env::temp_dir().join(format!("futhark-rs-json-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("r.json");
        let results = [CaseResult {
            file: "a.fut".to_string(),
            entry: None,
            case: None,
            status: Status::Passed,
            message: None,
            skip: None,
            regex_matched: None,
        }];
        let totals = Counts {
            passed: 1,
            failed: 0,
            skipped: 0,
        };
        write_report(&path, totals, &results).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(
            text.trim(),
            r#"{"passed":1,"failed":0,"skipped":0,"results":[{"file":"a.fut","entry":null,"case":null,"status":"passed","message":null}]}"#
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
