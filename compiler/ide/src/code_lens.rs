//! Code lenses: a "run" lens over every `-- >>> expr` comment. Evaluating the expression
//! is not analysis; the language server does it with the REPL's session. Here: where the
//! examples are, and what output the comments after one expect (as in doc-tests):
//!
//! ```text
//! -- >>> double 3
//! -- 6
//! ```

use futhark_db::{Db, File};

use crate::TextRange;

/// One `-- >>> expr` comment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodeLens {
    /// The comment, from `--` to the end of its line.
    pub range: TextRange,
    /// The expression to evaluate, as written after `>>>`.
    pub expr: String,
    /// The output the comment lines right after it give, one line each, if any.
    pub expected: Option<String>,
}

/// Every `-- >>> expr` comment in `file`.
pub fn code_lenses(db: &dyn Db, file: File) -> Vec<CodeLens> {
    let text = file.text(db);
    let mut out: Vec<CodeLens> = Vec::new();
    // The expected lines of the example just seen, while they continue.
    let mut expecting: Option<Vec<&str>> = None;
    let mut line_start = 0usize;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_start();
        let comment = trimmed.strip_prefix("--").filter(|r| !r.starts_with('-'));
        let example = comment.and_then(|r| r.trim_start().strip_prefix(">>>"));
        match (comment, example) {
            (_, Some(expr)) => {
                finish(&mut out, expecting.take());
                let expr = expr.trim();
                if !expr.is_empty() {
                    let indent = line.len() - trimmed.len();
                    out.push(CodeLens {
                        range: TextRange::new(
                            (line_start + indent) as u32,
                            (line_start + line.trim_end().len()) as u32,
                        ),
                        expr: expr.to_string(),
                        expected: None,
                    });
                    expecting = Some(Vec::new());
                }
            }
            // A doc comment's `|` or an empty comment line ends the expected output.
            (Some(rest), None) if expecting.is_some() => {
                let rest = rest.trim();
                if rest.is_empty() || rest.starts_with('|') {
                    finish(&mut out, expecting.take());
                } else if let Some(lines) = expecting.as_mut() {
                    lines.push(rest);
                }
            }
            _ => finish(&mut out, expecting.take()),
        }
        line_start += line.len();
    }
    finish(&mut out, expecting);
    out
}

/// Gives the last lens the expected lines collected after it.
fn finish(out: &mut [CodeLens], lines: Option<Vec<&str>>) {
    if let (Some(lens), Some(lines)) = (out.last_mut(), lines)
        && !lines.is_empty()
    {
        lens.expected = Some(lines.join("\n"));
    }
}

/// Whether a printed value is the expected output, ignoring differences in white space
/// (an expected array may be wrapped over several comment lines).
pub fn example_matches(expected: &str, printed: &str) -> bool {
    expected.split_whitespace().eq(printed.split_whitespace())
}

#[cfg(test)]
mod tests {
    use expect_test::expect;

    use crate::fixture::Fixture;

    fn check(fixture: &str, expect: expect_test::Expect) {
        let f = Fixture::new(fixture);
        let lenses = super::code_lenses(&f.db, f.file());
        let text = f.text();
        let shown: Vec<String> = lenses
            .iter()
            .map(|l| {
                format!(
                    "{:?} {} => {:?}",
                    &text[l.range.start as usize..l.range.end as usize],
                    l.expr,
                    l.expected
                )
            })
            .collect();
        expect.assert_eq(&shown.join("\n"));
    }

    #[test]
    fn finds_examples() {
        check(
            r#"
-- | Doubles.
-- >>> double 2
def double x = x * 2
  -- >>>   double (double 3)

-- >> not this
--- >>> nor this
-- >>>
"#,
            expect![[r#"
                "-- >>> double 2" double 2 => None
                "-- >>>   double (double 3)" double (double 3) => None"#]],
        );
    }

    #[test]
    fn collects_expected_output() {
        check(
            r#"
-- >>> double 2
-- 4
-- >>> [double 1,
-- >>> iota 3
-- [0, 1,
--  2]
--
-- not expected any more
-- >>> 1
-- | 1
def double (x: i32) = x * 2
"#,
            expect![[r#"
                "-- >>> double 2" double 2 => Some("4")
                "-- >>> [double 1," [double 1, => None
                "-- >>> iota 3" iota 3 => Some("[0, 1,\n2]")
                "-- >>> 1" 1 => None"#]],
        );
    }

    #[test]
    fn offsets_are_bytes_after_multibyte_text() {
        let f = Fixture::new("-- ünïcode\n-- >>> x\ndef x = 1\n");
        let lenses = super::code_lenses(&f.db, f.file());
        assert_eq!(lenses.len(), 1);
        let r = lenses[0].range;
        assert_eq!(&f.text()[r.start as usize..r.end as usize], "-- >>> x");
    }

    #[test]
    fn matching_ignores_white_space() {
        assert!(super::example_matches("[0, 1,\n2]", "[0, 1, 2]"));
        assert!(!super::example_matches("[0, 1]", "[0, 2]"));
        assert!(!super::example_matches("4", "4i32"));
    }
}
