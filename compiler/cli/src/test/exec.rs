//! Checking one item of a plan, inside a worker process: parsing, type checking, or running
//! a case on a loaded program and comparing what it produced with what the test block expects.

use std::path::Path;

use futhark_db::{Database, File, parse, render};
use futhark_options::ExecOptions;
use futhark_syntax::Diagnostic;
use futhark_testspec::{CaseInput, Expectation, GenValue, RunCase};
use futhark_values::{
    Bounds, DataError, PrimType, Rng, ShapeError, Value, ValueType, compare_values, generate_with,
    read_file, read_value, read_values,
};
use regex::Regex;

use super::outcome::Verdict;
use crate::engine::{self, ExecBackend, LoadError, Program};

/// Seed of the generator behind `random input { ... }`: fixed, so every run sees the same data.
pub const RANDOM_INPUT_SEED: u64 = 1;

/// Why the arguments of a case could not be produced.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    /// Values (inline or from a file) that do not parse.
    #[error("cannot read input: {0}")]
    Data(#[from] DataError),
    /// A `random input` type naming no primitive type.
    #[error("random input: unknown element type `{0}`")]
    UnknownType(String),
    /// A `random input` dimension too large for the data format.
    #[error("random input: dimension {0} is too large")]
    HugeDim(u64),
    /// A `random input` value too large to generate.
    #[error("random input: {0}")]
    Shape(#[from] ShapeError),
    /// FutharkScript inputs are not supported (the planner skips them).
    #[error("script inputs are not supported")]
    Script,
}

/// The program of the file being tested, loaded on first use and kept for its other cases:
/// on the interpreter, or compiled on a backend (then the interpreter is loaded too, as the
/// reference for `auto output` cases).
pub struct ProgramSlot {
    backend: Option<ExecBackend>,
    exec: ExecOptions,
    loaded: Option<Result<Box<dyn Program>, LoadError>>,
    reference: Option<Result<Box<dyn Program>, LoadError>>,
}

impl ProgramSlot {
    /// Nothing loaded yet; programs will run on `backend` (`None`: the interpreter).
    pub fn new(backend: Option<ExecBackend>, exec: &ExecOptions) -> ProgramSlot {
        ProgramSlot {
            backend,
            exec: exec.clone(),
            loaded: None,
            reference: None,
        }
    }

    fn get(&mut self, db: &Database, file: File) -> &mut Result<Box<dyn Program>, LoadError> {
        let (backend, exec) = (self.backend, &self.exec);
        self.loaded.get_or_insert_with(|| match backend {
            None => engine::load_interpreter(db, file),
            Some(b) => engine::load_compiled(db, file, b, exec),
        })
    }

    /// The interpreter, when the program runs elsewhere.
    fn reference(&mut self, db: &Database, file: File) -> Option<&mut Box<dyn Program>> {
        self.backend?;
        self.reference
            .get_or_insert_with(|| engine::load_interpreter(db, file))
            .as_mut()
            .ok()
    }
}

/// The first error among `diags` on one line, with a count of the others.
fn first_error(db: &Database, diags: &[Diagnostic]) -> String {
    let errors: Vec<&Diagnostic> = diags.iter().filter(|d| d.is_error()).collect();
    match errors.first() {
        None => "no error reported".to_string(),
        Some(d) => {
            let mut msg = render::render_plain(db, d);
            if errors.len() > 1 {
                msg.push_str(&format!(" (and {} more errors)", errors.len() - 1));
            }
            msg
        }
    }
}

/// The program must parse without errors.
pub fn check_parse(db: &Database, file: File) -> Verdict {
    let errors = &parse(db, file).errors;
    if errors.iter().any(Diagnostic::is_error) {
        Verdict::fail(first_error(db, errors))
    } else {
        Verdict::pass()
    }
}

/// Judges a compile result against a test's expectation: with `expect_error`, the program
/// must be rejected (and we record whether a message matched); without, accepted.
fn judge_compile(db: &Database, diags: &[Diagnostic], expect_error: Option<&str>) -> Verdict {
    let rejected = diags.iter().any(Diagnostic::is_error);
    match (expect_error, rejected) {
        (None, false) => Verdict::pass(),
        (None, true) => Verdict::fail(first_error(db, diags)),
        (Some(regex), false) => Verdict::fail(format!(
            "the program was accepted, but the test expects a compile error matching /{regex}/"
        )),
        (Some(regex), true) => {
            // Each error whole (labels, notes, code), matched with `.` spanning lines as
            // Futhark's test runner does for its multi-line messages.
            let text: Vec<String> = diags
                .iter()
                .filter(|d| d.is_error())
                .map(|d| render::render_full(db, d))
                .collect();
            let text = text.join("\n");
            match regex::RegexBuilder::new(regex)
                .dot_matches_new_line(true)
                .build()
            {
                Ok(re) => {
                    let matched = re.is_match(&text);
                    Verdict {
                        regex_matched: Some(matched),
                        ..if matched {
                            Verdict::pass()
                        } else {
                            Verdict::pass_with(format!(
                                "rejected, but no error matches /{regex}/: {}",
                                first_error(db, diags)
                            ))
                        }
                    }
                }
                Err(e) => Verdict {
                    regex_matched: Some(false),
                    ..Verdict::pass_with(format!("rejected; the test's regex is invalid: {e}"))
                },
            }
        }
    }
}

/// Type-checking mode: accepted, or rejected as expected.
pub fn check_types(db: &Database, file: File, expect_error: Option<&str>) -> Verdict {
    match engine::typecheck(db, file) {
        Ok(diags) => judge_compile(db, &diags, expect_error),
        Err(u) => Verdict::fail(u.to_string()),
    }
}

/// Run modes: the program must (or, with `expect_error`, must not) compile.
pub fn check_compiles(
    db: &Database,
    file: File,
    slot: &mut ProgramSlot,
    expect_error: Option<&str>,
) -> Verdict {
    match slot.get(db, file) {
        Ok(_) => judge_compile(db, &[], expect_error),
        Err(LoadError::Compile(diags)) => judge_compile(db, diags, expect_error),
        Err(LoadError::Unavailable(u)) => Verdict::fail(u.to_string()),
        Err(e @ LoadError::NoDevice(_)) => Verdict::fail(e.to_string()),
    }
}

/// Runs one case on `entry` and checks the outcome.
pub fn run_case(
    db: &Database,
    file: File,
    slot: &mut ProgramSlot,
    entry: &str,
    case: &RunCase,
) -> Verdict {
    match slot.get(db, file) {
        Ok(_) => {}
        Err(LoadError::Compile(diags)) => {
            return Verdict::fail(format!(
                "the program does not compile: {}",
                first_error(db, diags)
            ));
        }
        Err(LoadError::Unavailable(u)) => return Verdict::fail(u.to_string()),
        Err(e @ LoadError::NoDevice(_)) => return Verdict::fail(e.to_string()),
    }
    let dir = file
        .path(db)
        .parent()
        .unwrap_or(Path::new("."))
        .to_path_buf();
    if matches!(case.expect, Expectation::Auto) && slot.backend.is_some() {
        return run_against_reference(db, file, slot, &dir, entry, case);
    }
    match slot.get(db, file) {
        Ok(program) => run_loaded(program.as_mut(), &dir, entry, case),
        Err(_) => Verdict::fail("the program did not load"),
    }
}

/// An `auto output` case on a compiled backend: the interpreter's result is the expected one.
fn run_against_reference(
    db: &Database,
    file: File,
    slot: &mut ProgramSlot,
    dir: &Path,
    entry: &str,
    case: &RunCase,
) -> Verdict {
    let args = match case_inputs(dir, &case.input) {
        Ok(args) => args,
        Err(e) => return Verdict::fail(e.to_string()),
    };
    let expected = match slot.reference(db, file) {
        Some(reference) => reference.call(entry, args.clone()),
        None => return Verdict::fail("auto output: the interpreter cannot load the program"),
    };
    let got = match slot.get(db, file) {
        Ok(program) => program.call(entry, args),
        Err(_) => return Verdict::fail("the program did not load"),
    };
    match (expected, got) {
        (Ok(expected), Ok(got)) => compare(&expected, &got),
        (Err(_), Err(_)) => {
            Verdict::pass_with("auto output: both the interpreter and the backend failed")
        }
        (Err(e), Ok(_)) => Verdict::fail(format!(
            "auto output: the interpreter failed, the backend succeeded:\n{}",
            e.message
        )),
        (Ok(_), Err(e)) => Verdict::fail(format!("run-time error:\n{}", e.message)),
    }
}

/// Runs one case on `entry` of a loaded program; `dir` is the program's directory.
pub fn run_loaded(program: &mut dyn Program, dir: &Path, entry: &str, case: &RunCase) -> Verdict {
    let args = match case_inputs(dir, &case.input) {
        Ok(args) => args,
        Err(e) => return Verdict::fail(e.to_string()),
    };
    let result = program.call(entry, args);
    match (&case.expect, result) {
        (Expectation::RunError(regex), Ok(_)) => Verdict::fail(format!(
            "the entry point succeeded, but the test expects an error matching /{regex}/"
        )),
        (Expectation::RunError(regex), Err(e)) => match Regex::new(regex) {
            Ok(re) if re.is_match(&e.message) => Verdict::pass(),
            Ok(_) => Verdict::fail(format!(
                "the error does not match /{regex}/:\n{}",
                e.message
            )),
            Err(err) => Verdict::fail(format!("the test's error regex is invalid: {err}")),
        },
        (_, Err(e)) => Verdict::fail(format!("run-time error:\n{}", e.message)),
        (Expectation::Succeed, Ok(_)) => Verdict::pass(),
        (Expectation::Auto, Ok(_)) => Verdict::pass_with(
            "auto output: the interpreter is the reference, so the result was not compared",
        ),
        (Expectation::Values(text), Ok(got)) => match read_values(text.as_bytes()) {
            Ok(expected) => compare(&expected, &got),
            Err(e) => Verdict::fail(format!("cannot read expected output: {e}")),
        },
        (Expectation::File(path), Ok(got)) => match read_file(dir.join(path)) {
            Ok(expected) => compare(&expected, &got),
            Err(e) => Verdict::fail(format!("cannot read expected output: {e}")),
        },
    }
}

fn compare(expected: &[Value], got: &[Value]) -> Verdict {
    match compare_values(expected, got) {
        Ok(()) => Verdict::pass(),
        Err(m) => Verdict::fail(format!("result differs: {m}")),
    }
}

/// The argument values of a case; `dir` is the program's directory (data files are relative
/// to it).
pub fn case_inputs(dir: &Path, input: &CaseInput) -> Result<Vec<Value>, InputError> {
    match input {
        CaseInput::Values(text) => Ok(read_values(text.as_bytes())?),
        CaseInput::File(path) => Ok(read_file(dir.join(path))?),
        CaseInput::Random(gens) => {
            let mut rng = Rng::new(RANDOM_INPUT_SEED);
            let bounds = Bounds::new();
            gens.iter()
                .map(|g| random_value(g, &mut rng, &bounds))
                .collect()
        }
        CaseInput::Script(_) | CaseInput::ScriptFile(_) => Err(InputError::Script),
    }
}

fn random_value(g: &GenValue, rng: &mut Rng, bounds: &Bounds) -> Result<Value, InputError> {
    match g {
        GenValue::Constant(lit) => Ok(read_value(lit.as_bytes())?),
        GenValue::Random { dims, elem } => {
            let elem =
                PrimType::from_name(elem).ok_or_else(|| InputError::UnknownType(elem.clone()))?;
            let shape = dims
                .iter()
                .map(|&d| i64::try_from(d).map_err(|_| InputError::HugeDim(d)))
                .collect::<Result<Vec<i64>, _>>()?;
            Ok(generate_with(&ValueType::new(shape, elem), rng, bounds)?)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::RunError;
    use crate::test::outcome::Status;

    /// Stands in for the interpreter: `id` returns its arguments, `fail` fails, `loop` is
    /// not needed here (timeouts are the parent's business).
    struct Fake;

    impl Program for Fake {
        fn call(&mut self, entry: &str, args: Vec<Value>) -> Result<Vec<Value>, RunError> {
            match entry {
                "id" => Ok(args),
                _ => Err(RunError::new(
                    "Error: Index [7] out of bounds for array of shape [5].\nat a.fut:3:5-9",
                )),
            }
        }
    }

    /// The verdict on every (entry, case) of the test block in `src`.
    fn verdicts(src: &str) -> Vec<Verdict> {
        let spec = futhark_testspec::TestSpec::parse(src).unwrap();
        spec.runs()
            .map(|(entry, case)| run_loaded(&mut Fake, Path::new("."), entry, case))
            .collect()
    }

    #[test]
    fn outputs_are_compared_with_tolerance() {
        let v = verdicts(
            "-- ==\n-- entry: id\n-- input { 1.0f32 [1, 2] } output { 1.001f32 [1, 2] }\n\
             -- input { [1, 2, 3] } output { [1, 2, 4] }\n-- input { 1 } output { 1 2 }\n\
             -- input { 1 }\n-- input { 1 } auto output\n",
        );
        assert_eq!(v[0], Verdict::pass());
        assert_eq!(
            v[1].message.as_deref(),
            Some("result differs: value #0: at [2]: expected 4i32, got 3i32")
        );
        assert_eq!(v[2].status, Status::Failed);
        assert_eq!(v[3], Verdict::pass());
        assert_eq!(v[4].status, Status::Passed);
        assert!(v[4].message.as_deref().unwrap().starts_with("auto output"));
    }

    #[test]
    fn run_time_errors_are_matched_against_the_regex() {
        let v = verdicts(
            "-- ==\n-- entry: bad\n-- input { 1 } error: out of bounds\n\
             -- input { 1 } error: division by zero\n-- input { 1 } error:\n\
             -- input { 1 } output { 1 }\n",
        );
        assert_eq!(v[0], Verdict::pass());
        assert!(v[1].message.as_deref().unwrap().contains("does not match"));
        assert_eq!(v[2], Verdict::pass());
        assert!(
            v[3].message
                .as_deref()
                .unwrap()
                .starts_with("run-time error:")
        );
        let ok = verdicts("-- ==\n-- entry: id\n-- input { 1 } error: boom\n");
        assert_eq!(ok[0].status, Status::Failed);
    }

    #[test]
    fn bad_case_data_fails_the_case() {
        let v = verdicts(
            "-- ==\n-- entry: id\n-- input { [1, 2 } output { 1 }\n\
             -- input { 1 } output { [1, }\n-- input @ missing.in\n",
        );
        assert!(v.iter().all(|v| v.status == Status::Failed), "{v:?}");
        assert!(
            v[0].message
                .as_deref()
                .unwrap()
                .starts_with("cannot read input")
        );
        assert!(
            v[1].message
                .as_deref()
                .unwrap()
                .starts_with("cannot read expected output")
        );
    }

    #[test]
    fn compile_results_are_judged_against_the_expectation() {
        let mut db = Database::new();
        let file = db.set_file("a.fut", "def main = nonexistent");
        let span = futhark_syntax::Span::new(file.id(&db), 11, 22);
        let error = Diagnostic::error("unknown-name", span, "Unknown name \"nonexistent\"");
        let warning = Diagnostic::warning("unused", span, "unused");
        assert_eq!(judge_compile(&db, &[], None), Verdict::pass());
        assert_eq!(judge_compile(&db, &[warning], None), Verdict::pass());
        let rejected = judge_compile(&db, std::slice::from_ref(&error), None);
        assert_eq!(rejected.status, Status::Failed);
        assert!(rejected.message.unwrap().contains("Unknown name"));
        let matched = judge_compile(&db, std::slice::from_ref(&error), Some("Unknown name"));
        assert_eq!(
            (matched.status, matched.regex_matched),
            (Status::Passed, Some(true))
        );
        let unmatched = judge_compile(&db, std::slice::from_ref(&error), Some("mismatch"));
        assert_eq!(
            (unmatched.status, unmatched.regex_matched),
            (Status::Passed, Some(false))
        );
        let accepted = judge_compile(&db, &[], Some("Unknown"));
        assert_eq!(accepted.status, Status::Failed);
    }

    #[test]
    fn random_inputs_are_reproducible_and_typed() {
        let input = CaseInput::Random(vec![
            GenValue::Random {
                dims: vec![3, 2],
                elem: "f32".to_string(),
            },
            GenValue::Constant("10i64".to_string()),
        ]);
        let a = case_inputs(Path::new("."), &input).unwrap();
        let b = case_inputs(Path::new("."), &input).unwrap();
        assert_eq!(a, b);
        assert_eq!(a[0].shape(), &[3, 2]);
        assert_eq!(a[0].elem_type(), PrimType::F32);
        assert_eq!(a[1], Value::scalar(10i64));
    }

    #[test]
    fn bad_inputs_are_errors() {
        let bad = CaseInput::Values("[1, 2".to_string());
        assert!(matches!(
            case_inputs(Path::new("."), &bad),
            Err(InputError::Data(_))
        ));
        let unknown = CaseInput::Random(vec![GenValue::Random {
            dims: vec![1],
            elem: "f8".to_string(),
        }]);
        assert!(matches!(
            case_inputs(Path::new("."), &unknown),
            Err(InputError::UnknownType(_))
        ));
    }
}
