//! The plain data a test specification consists of: blocks, run cases, inputs and expectations.
//!
//! Values are kept as raw text (comment prefixes stripped); the `futhark-values` crate parses
//! them. Regular expressions are kept as text; the runner compiles them.

use std::fmt;

/// All test blocks of one program, in source order. Empty when the program has no `-- ==`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TestSpec {
    /// The test blocks, in the order they appear in the file.
    pub blocks: Vec<TestBlock>,
}

/// One comment at column 0 containing a line that is exactly `-- ==`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestBlock {
    /// The comment lines before `==`, without their `--` prefixes, trimmed; may be empty.
    pub description: String,
    /// Program tags from `tags { a b }` right after `==` (empty if absent).
    pub tags: Vec<String>,
    /// 1-based line of the `-- ==` separator.
    pub line: u32,
    /// What the block asks for.
    pub body: BlockBody,
}

/// The action of a test block: exactly one of these.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BlockBody {
    /// `error: REGEX`: the program must fail to compile (type-check) with a message matching
    /// `regex`. An empty regex means any error.
    CompileError {
        /// The regex text, trimmed; empty matches any error.
        regex: String,
    },
    /// `property: p1 p2`: property-based tests of the named `#[prop]` entry points.
    Property {
        /// The property entry points, as written on the `property:` line.
        names: Vec<String>,
    },
    /// Input/output cases, possibly none (e.g. a block holding only `tags`), plus
    /// structure and warning checks.
    Run(RunBlock),
}

/// The run cases of a block and the checks that follow them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunBlock {
    /// Entry points each case is run against: from `entry: e1 e2`, default `["main"]`.
    pub entries: Vec<String>,
    /// The cases, in source order.
    pub cases: Vec<RunCase>,
    /// `structure` checks (counts of IR nodes of the reference compiler's IR).
    pub structures: Vec<StructureTest>,
    /// `warning: REGEX` checks: compiling must succeed with a matching warning.
    pub warnings: Vec<WarningTest>,
}

/// One input (and optional expected result) of a run block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunCase {
    /// The quoted dataset name written before the tags, if any.
    pub name: Option<String>,
    /// Words before `input` (`compiled`, `nobench`, `random`, `script`, `no_opencl`, ...).
    pub tags: Vec<String>,
    /// Where the arguments come from.
    pub input: CaseInput,
    /// What running must produce.
    pub expect: Expectation,
    /// 1-based line where the case starts (its name, first tag, or `input`).
    pub line: u32,
    /// Position of the case within its block, from 0 (used in generated dataset names).
    pub index: usize,
}

/// The arguments of a run case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CaseInput {
    /// `input { VALUES }`: the raw value text between the braces, comment prefixes
    /// stripped, lines joined with `\n`, trimmed.
    Values(String),
    /// `input @ PATH`: values read from a file (text or binary, maybe `.gz`), relative to
    /// the program's directory.
    File(String),
    /// `random input { TYPES }`: values generated from these types and constants.
    Random(Vec<GenValue>),
    /// `script input { EXPR }`: the raw FutharkScript expression (trimmed).
    Script(String),
    /// `script input @ PATH`: a file holding a FutharkScript expression, relative to the
    /// program's directory.
    ScriptFile(String),
}

/// One argument of a `random input` case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GenValue {
    /// A random value of this type: `dims` are the array dimensions (empty for a scalar),
    /// `elem` the primitive type name (`i32`, `f32`, `bool`, ...).
    Random {
        /// Array dimensions, outermost first.
        dims: Vec<u64>,
        /// Primitive element type name.
        elem: String,
    },
    /// A fixed scalar written as a value literal (`10i64`, `0.5f32`, `1000`).
    Constant(String),
}

/// How a run case must end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expectation {
    /// No `output` or `error:`: running must succeed; results are not checked.
    Succeed,
    /// `output { VALUES }`: raw expected value text, as for [`CaseInput::Values`].
    Values(String),
    /// `output @ PATH`: expected values in a file relative to the program's directory.
    File(String),
    /// `auto output`: compare against a reference implementation's result.
    Auto,
    /// `error: REGEX`: running must fail with a message matching the regex (empty: any).
    RunError(String),
}

/// A `structure [PIPELINE] { Name N ... }` check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StructureTest {
    /// The compiler pipeline after which the IR is measured.
    pub pipeline: Pipeline,
    /// `(node name, expected count)` pairs, e.g. `("/Screma", 3)` or `("SegMap/Loop", 1)`.
    pub metrics: Vec<(String, u64)>,
    /// 1-based line of the `structure` keyword.
    pub line: u32,
}

/// The pipeline named by a structure test.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Pipeline {
    /// No name: the default SOACS optimisation pipeline.
    Soacs,
    /// `gpu`.
    Gpu,
    /// `gpu-mem`.
    GpuMem,
    /// `mc`.
    Mc,
    /// `mc-mem`.
    McMem,
    /// `seq-mem`.
    SeqMem,
    /// `internalised`: right after internalisation, before optimisation.
    Internalised,
}

impl Pipeline {
    /// The pipeline written as `name` after `structure`, if it is one.
    pub fn from_name(name: &str) -> Option<Pipeline> {
        Some(match name {
            "gpu" => Pipeline::Gpu,
            "gpu-mem" => Pipeline::GpuMem,
            "mc" => Pipeline::Mc,
            "mc-mem" => Pipeline::McMem,
            "seq-mem" => Pipeline::SeqMem,
            "internalised" => Pipeline::Internalised,
            _ => return None,
        })
    }

    /// The name as written in test blocks (`""` for the default pipeline).
    pub fn name(self) -> &'static str {
        match self {
            Pipeline::Soacs => "",
            Pipeline::Gpu => "gpu",
            Pipeline::GpuMem => "gpu-mem",
            Pipeline::Mc => "mc",
            Pipeline::McMem => "mc-mem",
            Pipeline::SeqMem => "seq-mem",
            Pipeline::Internalised => "internalised",
        }
    }
}

/// A `warning: REGEX` check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WarningTest {
    /// The regex text, trimmed.
    pub regex: String,
    /// 1-based line of the `warning:` directive.
    pub line: u32,
}

impl fmt::Display for GenValue {
    /// Writes the value as in the test block: `[100][10]f32` or the constant literal.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GenValue::Random { dims, elem } => {
                for d in dims {
                    write!(f, "[{d}]")?;
                }
                f.write_str(elem)
            }
            GenValue::Constant(lit) => f.write_str(lit),
        }
    }
}
