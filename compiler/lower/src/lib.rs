//! Typed AST to SOAC IR: defunctorise, monomorphise, defunctionalise, and flatten records,
//! tuples and sums into several variables.
//!
//! [`lower_program`] takes the parsed and checked files of a program (the prelude comes
//! from the checker's context) and produces a [`futhark_ir::soacs::Program`] with one IR
//! function per entry point plus the functions they call, or diagnostics.
//!
//! # How
//!
//! * **Modules** (`modenv.rs`) are evaluated by name at lowering time, functors applied by
//!   processing their bodies again; nothing of them reaches the IR.
//! * **Values** (`value.rs`) are trees with IR atoms at the leaves: records and tuples are
//!   their fields, an array of records is a record of arrays, a sum is an `i8` tag and the
//!   payloads of all its constructors, and a function value is a statically known closure.
//! * **Calls** (`apply.rs`) of first-order functions become IR functions specialised per
//!   argument shape (monomorphisation); higher-order functions are inlined with their
//!   function arguments as closures (defunctionalisation), and a lambda given to a SOAC
//!   becomes the SOAC's IR lambda (`soac.rs`).
//! * **Types** come from the values; the checker's types (`types.rs`) are consulted only to
//!   build values from nothing (sum payloads, empty arrays, entry inputs).
//! * **Entry points** (`entry.rs`) read every input dimension from the input and check the
//!   equalities their Futhark types promise.
//!
//! **Invariant:** lowering never panics on a program the checker accepted; what it cannot
//! handle yet is a located `gpu-unsupported` diagnostic ("not supported by the GPU path
//! yet: …"), and the program it returns passes the IR checker.

mod ad;
mod apply;
mod control;
mod entry;
mod equality;
mod error;
mod exp;
mod flat;
mod flatmap;
mod frames;
mod index;
mod instance;
mod modenv;
mod ops;
mod pat;
mod result_sizes;
mod row_sizes;
mod soac;
mod state;
mod stream;
mod types;
mod value;

use std::collections::HashMap;
use std::rc::Rc;

use futhark_check::{CheckContext, TypeInfo};
use futhark_ir::soacs::Program;
use futhark_syntax::ast::SourceFile;
use futhark_syntax::{Diagnostic, FileId, Span};

pub use error::LowerError;

use state::{FileInput, Lowerer};

/// One user source file of a program.
#[derive(Clone, Copy, Debug)]
pub struct SourceUnit<'a> {
    pub id: FileId,
    /// The file's path (for messages).
    pub path: &'a str,
    /// The file's text (assertion messages quote their conditions).
    pub source: &'a str,
    pub ast: &'a SourceFile,
    pub info: &'a TypeInfo,
    /// Each `import "…"` of the file, as written, with the file it resolves to.
    pub imports: &'a [(String, FileId)],
}

/// The result of lowering: the program, or the diagnostics saying why there is none.
#[derive(Clone, Debug)]
pub struct Lowered {
    pub program: Option<Program>,
    pub diagnostics: Vec<Diagnostic>,
}

/// Lowers the entry points of `root` (and everything they use) to SOAC IR.
pub fn lower_program<'a>(ctx: &'a CheckContext, files: &[SourceUnit<'a>], root: FileId) -> Lowered {
    let mut inputs: HashMap<FileId, Rc<FileInput<'a>>> = HashMap::new();
    // The trees the checker parsed when it built `ctx`.
    let prelude = ctx.prelude_asts();
    let mut prelude_main = FileId(0);
    for (pf, ast) in prelude {
        if pf.path == "/prelude/prelude.fut" {
            prelude_main = pf.file;
        }
        let imports = prelude
            .iter()
            .filter_map(|(other, _)| {
                let name = other.path.strip_prefix("/prelude/")?.strip_suffix(".fut")?;
                Some((name.to_string(), other.file))
            })
            .collect();
        inputs.insert(
            pf.file,
            Rc::new(FileInput {
                ast,
                info: ctx.prelude_info(),
                imports,
                is_prelude: true,
                path: pf.path.to_string(),
                source: pf.source,
            }),
        );
    }
    for f in files {
        inputs.insert(
            f.id,
            Rc::new(FileInput {
                ast: f.ast,
                info: f.info,
                imports: f.imports.iter().cloned().collect(),
                is_prelude: false,
                path: f.path.to_string(),
                source: f.source,
            }),
        );
    }
    let fallback = Span::new(root, 0, 0);
    let Some(root_input) = inputs.get(&root).cloned() else {
        return Lowered {
            program: None,
            diagnostics: vec![
                LowerError::internal(None, "the root file was not given").to_diagnostic(fallback),
            ],
        };
    };
    let mut l = Lowerer::new(inputs, prelude_main);
    let mut diagnostics = Vec::new();
    let env = match l.file_env(root) {
        Ok(env) => env,
        Err(e) => {
            return Lowered {
                program: None,
                diagnostics: vec![e.to_diagnostic(fallback)],
            };
        }
    };
    let mut entries = Vec::new();
    for e in &root_input.info.entries {
        match l.entry(e, &env) {
            Ok(f) => entries.push(f),
            Err(err) => diagnostics.push(err.to_diagnostic(e.span)),
        }
    }
    if !diagnostics.is_empty() {
        return Lowered {
            program: None,
            diagnostics,
        };
    }
    let mut funs = std::mem::take(&mut l.funs);
    funs.extend(entries);
    let mut program = Program {
        funs,
        kernels: Vec::new(),
        slow_paths: Vec::new(),
    };
    futhark_ir::soacs::insert_copies(&mut program, &mut l.ns);
    if let Err(e) = futhark_ir::soacs::check_program(&program) {
        return Lowered {
            program: None,
            diagnostics: vec![LowerError::internal(None, e.to_string()).to_diagnostic(fallback)],
        };
    }
    Lowered {
        program: Some(program),
        diagnostics,
    }
}
