//! Helpers shared by the integration tests: building programs from source text (through
//! the database, with the prelude), and running entry points or expressions.

#![allow(dead_code)]

use futhark_interp::program::Program;
use futhark_interp::{Interpreter, RuntimeError};

/// A program consisting of `src` as `main.fut` plus the prelude, loaded through the
/// database as every face loads programs. Checker errors do not stop it: the interpreter
/// runs whatever it can.
pub fn program(src: &str) -> Program {
    let mut db = futhark_db::Database::new();
    let file = db.set_file("main.fut", src);
    futhark_db::interp_program(&db, file).program
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

/// Loads `src` as a checked program on an interpreter thread.
pub fn load(src: &str) -> Interpreter {
    Interpreter::new(program(src)).unwrap_or_else(|e| panic!("{}", e.message))
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
