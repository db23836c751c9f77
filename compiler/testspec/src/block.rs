//! Parsing the body of one test block: `[tags {...}]` then a compile error, properties, or
//! run cases followed by structure and warning checks.

use std::collections::HashSet;

use crate::case;
use crate::cursor::Cursor;
use crate::error::{ErrorKind, SpecError};
use crate::names::dataset_name;
use crate::scan::RawBlock;
use crate::spec::{BlockBody, Pipeline, RunBlock, StructureTest, TestBlock, WarningTest};
use crate::tokens;

/// Parses one block found by the scanner.
pub(crate) fn test_block(raw: &RawBlock<'_>) -> Result<TestBlock, SpecError> {
    let mut c = Cursor::new(&raw.body, raw.line);
    let tags = block_tags(&mut c)?;
    let body = if c.eat_directive("error") {
        let regex = c.rest_of_line().to_string();
        expect_end(&mut c, "end of test block after a compile-time `error:`")?;
        BlockBody::CompileError { regex }
    } else if c.eat_directive("property") {
        let names = names_on_line(&mut c, "property:")?;
        expect_end(&mut c, "end of test block after `property:`")?;
        BlockBody::Property { names }
    } else {
        BlockBody::Run(run_block(&mut c)?)
    };
    Ok(TestBlock {
        description: raw.description.clone(),
        tags,
        line: raw.line,
        body,
    })
}

/// Reads `tags { ... }` if present.
fn block_tags(c: &mut Cursor<'_>) -> Result<Vec<String>, SpecError> {
    c.skip_ws();
    if !c.eat_keyword("tags") {
        return Ok(Vec::new());
    }
    c.skip_ws();
    let line = c.line();
    let text = c.braced("tags")?;
    let tags = tokens::tag_list(&text).map_err(|k| SpecError::new(line, k))?;
    c.skip_ws();
    Ok(tags)
}

/// Reads the whitespace-separated names on the rest of the current line.
fn names_on_line(c: &mut Cursor<'_>, what: &'static str) -> Result<Vec<String>, SpecError> {
    let line = c.line();
    let names: Vec<String> = c
        .rest_of_line()
        .split_whitespace()
        .map(str::to_string)
        .collect();
    if names.is_empty() {
        return Err(SpecError::new(line, ErrorKind::NoNames(what)));
    }
    Ok(names)
}

/// Fails unless only whitespace remains.
fn expect_end(c: &mut Cursor<'_>, expected: &'static str) -> Result<(), SpecError> {
    if c.at_end() {
        Ok(())
    } else {
        Err(c.unexpected(expected))
    }
}

/// Parses `[entry: names]`, the cases, then `structure` and `warning:` lines in any order.
fn run_block(c: &mut Cursor<'_>) -> Result<RunBlock, SpecError> {
    let entries = if c.eat_directive("entry") {
        names_on_line(c, "entry:")?
    } else {
        vec!["main".to_string()]
    };
    let mut cases = Vec::new();
    let mut seen = HashSet::new();
    while !case::at_case_end(c) {
        let case = case::run_case(c, cases.len())?;
        let name = dataset_name(&case);
        if !seen.insert(name.clone()) {
            return Err(SpecError::new(case.line, ErrorKind::DuplicateDataset(name)));
        }
        cases.push(case);
    }
    let mut structures = Vec::new();
    let mut warnings = Vec::new();
    while !c.at_end() {
        let line = c.line();
        if c.eat_keyword("structure") {
            structures.push(structure(c, line)?);
        } else if c.eat_directive("warning") {
            let regex = c.rest_of_line().to_string();
            warnings.push(WarningTest { regex, line });
        } else {
            return Err(c.unexpected("`structure` or `warning:` after the run cases"));
        }
    }
    Ok(RunBlock {
        entries,
        cases,
        structures,
        warnings,
    })
}

/// Parses `[PIPELINE] { Name N ... }` after the `structure` keyword.
fn structure(c: &mut Cursor<'_>, line: u32) -> Result<StructureTest, SpecError> {
    c.skip_ws();
    let pipeline = match c.peek_word() {
        "" => Pipeline::Soacs,
        word => {
            let p = Pipeline::from_name(word)
                .ok_or_else(|| SpecError::new(c.line(), ErrorKind::UnknownPipeline(word.into())))?;
            c.take_word();
            c.skip_ws();
            p
        }
    };
    let text = c.braced("structure metrics")?;
    let metrics = tokens::metrics(&text).map_err(|k| SpecError::new(line, k))?;
    Ok(StructureTest {
        pipeline,
        metrics,
        line,
    })
}
