//! Code lenses: a "run" lens over every `-- >>> expr` comment, which evaluates `expr` in
//! the context of the file. Evaluation is a hook ([`eval_comment`]) that answers "not
//! available" until the interpreter is usable.

use futhark_db::{Db, File};

use crate::TextRange;

/// One `-- >>> expr` comment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodeLens {
    /// The comment, from `--` to the end of its line.
    pub range: TextRange,
    /// The expression to evaluate, as written after `>>>`.
    pub expr: String,
}

/// What evaluating a `-- >>>` expression gave.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EvalOutcome {
    /// The value, printed as Futhark's interpreter prints it.
    Value(String),
    /// A run-time or type error, with its message.
    Error(String),
    /// Evaluation is not possible in this build.
    Unavailable(String),
}

/// Every `-- >>> expr` comment in `file`.
pub fn code_lenses(db: &dyn Db, file: File) -> Vec<CodeLens> {
    let text = file.text(db);
    let mut out = Vec::new();
    let mut line_start = 0usize;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        if let Some(rest) = trimmed.strip_prefix("--")
            && let Some(expr) = rest.trim_start().strip_prefix(">>>")
        {
            let expr = expr.trim();
            if !expr.is_empty() {
                let start = (line_start + indent) as u32;
                let end = (line_start + line.trim_end().len()) as u32;
                out.push(CodeLens {
                    range: TextRange::new(start, end),
                    expr: expr.to_string(),
                });
            }
        }
        line_start += line.len();
    }
    out
}

/// Evaluates `expr` with the definitions of `file` in scope.
pub fn eval_comment(db: &dyn Db, file: File, expr: &str) -> EvalOutcome {
    let _ = (db, file, expr);
    EvalOutcome::Unavailable(
        "not available yet: the interpreter is not built into the language server".to_string(),
    )
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
                    "{:?} {}",
                    &text[l.range.start as usize..l.range.end as usize],
                    l.expr
                )
            })
            .collect();
        expect.assert_eq(&shown.join("\n"));
    }

    #[test]
    fn finds_eval_comments() {
        check(
            r#"
-- | Doubles.
-- >>> double 2
def double x = x * 2
  -- >>>   double (double 3)
-- >> not this
-- >>>
"#,
            expect![[r#"
                "-- >>> double 2" double 2
                "-- >>>   double (double 3)" double (double 3)"#]],
        );
    }

    #[test]
    fn evaluation_waits_for_the_interpreter() {
        let f = Fixture::new("def x = 1\n");
        let outcome = super::eval_comment(&f.db, f.file(), "x");
        assert!(matches!(outcome, super::EvalOutcome::Unavailable(_)));
    }
}
