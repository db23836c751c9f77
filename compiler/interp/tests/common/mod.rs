//! Helpers shared by the integration tests: building programs from source text with the
//! prelude, and running entry points or expressions.

#![allow(dead_code)]

use std::path::PathBuf;

use futhark_interp::program::Program;
use futhark_interp::{Interpreter, RuntimeError};
use futhark_syntax::FileId;

/// The directory of our prelude sources.
pub fn prelude_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../check/prelude")
}

/// A program consisting of `src` as `main.fut` plus the prelude.
pub fn program(src: &str) -> Program {
    let mut prog = Program::default();
    let mut id = 1;
    let mut entries: Vec<PathBuf> = std::fs::read_dir(prelude_dir())
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    entries.sort();
    for p in entries {
        if p.extension().is_some_and(|x| x == "fut") {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            let text = std::fs::read_to_string(&p).unwrap();
            prog.add_text(FileId(id), format!("/prelude/{name}"), text)
                .unwrap_or_else(|e| panic!("prelude: {e}"));
            id += 1;
        }
    }
    prog.add_text(FileId(id), "main.fut".to_string(), src.to_string())
        .unwrap_or_else(|e| panic!("{e}"));
    prog.root = "main.fut".to_string();
    prog
}

/// Loads `decs` and evaluates `exp` in their environment, returning the printed value.
pub fn eval_in(decs: &str, exp: &str) -> Result<String, RuntimeError> {
    let interp = Interpreter::new(program(decs))?;
    interp.eval_cell(exp).map(|v| v.unwrap_or_default())
}

/// Evaluates an expression with only the prelude loaded.
pub fn eval(exp: &str) -> Result<String, RuntimeError> {
    eval_in("", exp)
}

/// Evaluates and unwraps, panicking with the error message.
pub fn ev(exp: &str) -> String {
    eval(exp).unwrap_or_else(|e| panic!("{exp}: {} at {:?}", e.message, e.span))
}

thread_local! {
    static CHECK: futhark_check::CheckContext = futhark_check::CheckContext::new();
}

/// Loads `src` as a checked program on an interpreter thread.
pub fn load(src: &str) -> Interpreter {
    let checked = CHECK
        .with(|ctx| {
            futhark_interp::checked::check_sources(
                ctx,
                vec![("main.fut".to_string(), src.to_string())],
                "main.fut",
            )
        })
        .unwrap_or_else(|e| panic!("{e}"));
    Interpreter::new(checked.program).unwrap_or_else(|e| panic!("{}", e.message))
}

/// Runs entry `entry` of `src` on the values written in `input`; the results in the text
/// format separated by spaces, or the error message.
pub fn run(src: &str, entry: &str, input: &str) -> Result<String, String> {
    let interp = load(src);
    let args = futhark_values::read_values(input.as_bytes()).map_err(|e| e.to_string())?;
    match interp.call_entry(entry, args) {
        Ok(vs) => Ok(vs
            .iter()
            .map(|v| v.to_string())
            .collect::<Vec<_>>()
            .join(" ")),
        Err(e) => Err(e.message),
    }
}
