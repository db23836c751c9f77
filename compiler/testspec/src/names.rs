//! Dataset names of run cases, as `futhark test`/`futhark bench` report them.

use crate::spec::{CaseInput, RunCase};

/// Longest value text kept in a generated name before it is cut off with `...`.
const MAX_VALUES_CHARS: usize = 50;

/// The case's explicit name, or one generated from its input:
/// a file path (without `.gz`), the random types (`[100]f32 [10]i32`), the script
/// expression, or `#INDEX ("VALUES")` with the value text on one line, cut at 50 characters.
///
/// For literal values the reference prints the *parsed* values; we use the raw text with
/// whitespace collapsed, so such names can differ in spacing and number formatting.
pub fn dataset_name(case: &RunCase) -> String {
    if let Some(name) = &case.name {
        return name.clone();
    }
    match &case.input {
        CaseInput::File(path) => path.strip_suffix(".gz").unwrap_or(path).to_string(),
        CaseInput::ScriptFile(path) => path.clone(),
        CaseInput::Random(values) => {
            let types: Vec<String> = values.iter().map(ToString::to_string).collect();
            types.join(" ")
        }
        CaseInput::Script(expr) => one_line(expr),
        CaseInput::Values(text) => {
            let mut text = one_line(text);
            if text.chars().count() > MAX_VALUES_CHARS {
                text = text.chars().take(MAX_VALUES_CHARS).collect();
                text.push_str("...");
            }
            format!("#{} (\"{}\")", case.index, text)
        }
    }
}

/// `text` with every run of whitespace (line breaks included) replaced by one space.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
