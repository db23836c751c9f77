//! The rustyline helper: completion of names, module members, commands and file names
//! from the session, and multi-line input that continues while a cell is incomplete.

use std::cell::RefCell;
use std::rc::Rc;

use futhark_session::{Completeness, Session};
use rustyline::completion::{Completer, Pair};
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::validate::{ValidationContext, ValidationResult, Validator};
use rustyline::{Context, Helper};

/// Shares the session with the main loop, which only evaluates while no line is being
/// edited, so the borrows never overlap.
pub struct ReplHelper {
    pub session: Rc<RefCell<Session>>,
}

impl Completer for ReplHelper {
    type Candidate = Pair;

    fn complete(
        &self,
        line: &str,
        pos: usize,
        _ctx: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<Pair>)> {
        let Ok(session) = self.session.try_borrow() else {
            return Ok((pos, Vec::new()));
        };
        let c = session.complete(line, pos, ':');
        let pairs = c
            .items
            .into_iter()
            .map(|i| Pair {
                display: i.text.clone(),
                replacement: i.text,
            })
            .collect();
        Ok((c.start, pairs))
    }
}

impl Hinter for ReplHelper {
    type Hint = String;
}

impl Highlighter for ReplHelper {}

impl Validator for ReplHelper {
    fn validate(&self, ctx: &mut ValidationContext<'_>) -> rustyline::Result<ValidationResult> {
        Ok(validate(ctx.input()))
    }
}

impl Helper for ReplHelper {}

/// Whether to submit `input`: always after an empty line (the way out of a cell that would
/// otherwise wait for more), else when the text is not incomplete.
pub fn validate(input: &str) -> ValidationResult {
    if input.ends_with('\n') || input.ends_with("\n\r") {
        return ValidationResult::Valid(None);
    }
    match futhark_session::complete::is_complete(input, ':') {
        Completeness::Incomplete => ValidationResult::Incomplete,
        Completeness::Complete | Completeness::Invalid => ValidationResult::Valid(None),
    }
}
