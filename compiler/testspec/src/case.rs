//! Parsing one run case: `["name"] [tags...] INPUT [EXPECTATION]`.

use crate::cursor::Cursor;
use crate::error::{ErrorKind, SpecError};
use crate::spec::{CaseInput, Expectation, RunCase};
use crate::tokens;

/// Whether the cursor (after whitespace) is at something other than the start of a case:
/// the end of the block, `structure`, or `warning:`.
pub(crate) fn at_case_end(c: &mut Cursor<'_>) -> bool {
    c.at_end() || c.peek_word() == "structure" || c.at_directive("warning")
}

/// Parses the case at the cursor; `index` is its position in the block.
pub(crate) fn run_case(c: &mut Cursor<'_>, index: usize) -> Result<RunCase, SpecError> {
    c.skip_ws();
    let line = c.line();
    let name = if c.peek() == Some('"') {
        Some(c.string_literal()?)
    } else {
        None
    };
    let tags = case_tags(c)?;
    let input = case_input(c, &tags)?;
    let expect = expectation(c)?;
    Ok(RunCase {
        name,
        tags,
        input,
        expect,
        line,
        index,
    })
}

/// Words that cannot be case tags: they start other constructs (the reference accepts
/// `output` and `auto` as tags; rejecting them gives clearer errors for a missing `input`).
const NOT_TAGS: &[&str] = &["structure", "output", "auto"];

/// Reads tag words up to and including the keyword `input`.
fn case_tags(c: &mut Cursor<'_>) -> Result<Vec<String>, SpecError> {
    let mut tags = Vec::new();
    loop {
        c.skip_ws();
        let word = c.peek_word();
        let followed_by_colon = c.rest()[word.len()..].starts_with(':');
        if word.is_empty() || NOT_TAGS.contains(&word) || followed_by_colon {
            return Err(c.unexpected("a case tag or `input`"));
        }
        c.take_word();
        if word == "input" {
            return Ok(tags);
        }
        tags.push(word.to_string());
    }
}

/// Reads the input after the `input` keyword, according to the `random`/`script` tags.
fn case_input(c: &mut Cursor<'_>, tags: &[String]) -> Result<CaseInput, SpecError> {
    let has = |t: &str| tags.iter().any(|x| x == t);
    c.skip_ws();
    let line = c.line();
    if has("random") {
        if c.peek() == Some('@') {
            return Err(SpecError::new(line, ErrorKind::RandomFromFile));
        }
        let text = c.braced("random input types")?;
        let values = tokens::gen_values(&text).map_err(|k| SpecError::new(line, k))?;
        return Ok(CaseInput::Random(values));
    }
    if has("script") {
        return Ok(match file_ref(c)? {
            Some(path) => CaseInput::ScriptFile(path),
            None => CaseInput::Script(c.braced("script input")?),
        });
    }
    Ok(match file_ref(c)? {
        Some(path) => CaseInput::File(path),
        None => CaseInput::Values(c.braced("input values")?),
    })
}

/// Reads `@ PATH` if the cursor is at `@`.
fn file_ref(c: &mut Cursor<'_>) -> Result<Option<String>, SpecError> {
    if !c.eat_char('@') {
        return Ok(None);
    }
    c.skip_ws();
    let line = c.line();
    let path = c.take_nonspace();
    if path.is_empty() {
        return Err(SpecError::new(line, ErrorKind::MissingPath));
    }
    Ok(Some(path.to_string()))
}

/// Reads the optional `output ...`, `auto output`, or `error: REGEX` after an input.
fn expectation(c: &mut Cursor<'_>) -> Result<Expectation, SpecError> {
    c.skip_ws();
    if c.eat_keyword("auto") {
        c.skip_ws();
        if !c.eat_keyword("output") {
            return Err(c.unexpected("`output` after `auto`"));
        }
        return Ok(Expectation::Auto);
    }
    if c.eat_keyword("output") {
        c.skip_ws();
        return Ok(match file_ref(c)? {
            Some(path) => Expectation::File(path),
            None => Expectation::Values(c.braced("output values")?),
        });
    }
    if c.eat_directive("error") {
        return Ok(Expectation::RunError(c.rest_of_line().to_string()));
    }
    Ok(Expectation::Succeed)
}
