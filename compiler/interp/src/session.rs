//! An interpreter session: a loaded program, its entry points, and REPL cells evaluated in
//! the environment of the root file's declarations. Not `Send` (values share memory through
//! `Rc`); [`crate::Interpreter`] runs one on a worker thread.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use futhark_syntax::FileId;
use futhark_values as fv;

use crate::convert;
use crate::errors::{Result, RuntimeError};
use crate::eval::Machine;
use crate::lower::{FnCtx, LowerCx, Lowerer, Scope};
use crate::program::{Program, SourceMap};
use crate::value::{TypeDesc, Value};

/// The first file id given to REPL cells.
pub const CELL_FILE_BASE: u32 = 0x4000_0000;

/// A loaded program ready to run entry points and REPL cells.
pub struct Session {
    lowerer: Lowerer,
    next_file: u32,
}

impl Session {
    /// Loads a program: processes every declaration of the root file and its imports.
    pub fn new(program: Program, interrupt: Arc<AtomicBool>) -> Result<Session> {
        let sources = Rc::new(RefCell::new(SourceMap::new(&program)));
        let describe_sources = sources.clone();
        let describe = Rc::new(move |span| describe_sources.borrow().describe(span));
        let mut machine = Machine::new(interrupt, describe);
        machine.set_stack_base();
        // REPL cells get ids above the program's files and below the ids the checker
        // reserves for the prelude (near `u32::MAX`).
        let next_file = program
            .files
            .iter()
            .map(|f| f.id.0)
            .filter(|&id| id < CELL_FILE_BASE)
            .max()
            .map_or(CELL_FILE_BASE, |m| m.saturating_add(1).max(CELL_FILE_BASE));
        let mut lowerer = Lowerer::new(program, machine, sources);
        lowerer.load_root()?;
        Ok(Session { lowerer, next_file })
    }

    /// Names of the entry points, in definition order.
    pub fn entry_names(&self) -> Vec<String> {
        self.lowerer
            .entries
            .iter()
            .map(|e| e.name.clone())
            .collect()
    }

    /// The machine, to adjust settings such as vectorisation or the trace sink.
    pub fn machine(&mut self) -> &mut Machine {
        &mut self.lowerer.machine
    }

    /// Runs an entry point. Tuple parameters take several values and tuple results give
    /// several values, as the data formats have no tuples.
    pub fn call_entry(&mut self, name: &str, args: Vec<fv::Value>) -> Result<Vec<fv::Value>> {
        let entry = self
            .lowerer
            .entries
            .iter()
            .find(|e| e.name == name)
            .cloned()
            .ok_or_else(|| RuntimeError::new(format!("No entry point named \"{name}\".")))?;
        self.lowerer.machine.set_stack_base();
        // Input errors are located at the entry point's definition.
        let at_entry = |e: RuntimeError| e.with_span(entry.span);
        // An entry whose result is a function (`entry main = f`, `def main y = map (g y)`)
        // takes the remaining values as further arguments.
        let more = matches!(entry.fun, Value::Fun(_));
        check_inputs(&entry.params, &args, more).map_err(at_entry)?;
        let args_len = args.len();
        let mut it = args.into_iter();
        let mut params = Vec::with_capacity(entry.params.len());
        for p in &entry.params {
            params.push(match p {
                Some(t) => convert::assemble(t, &mut it).map_err(at_entry)?,
                None => it.next().map(convert::from_external).ok_or_else(|| {
                    RuntimeError::at(entry.span, "Too few arguments for the entry point.")
                })?,
            });
        }
        let rest: Vec<Value> = it.map(convert::from_external).collect();
        let too_many = || {
            RuntimeError::at(
                entry.span,
                format!("Too many arguments for the entry point: {args_len} values given."),
            )
        };
        if !rest.is_empty() && !more {
            return Err(too_many());
        }
        // Binding the parameters checks their sizes; such errors carry no location of their
        // own.
        let mut result = if params.is_empty() {
            entry.fun.clone()
        } else {
            self.lowerer
                .machine
                .apply(entry.fun.clone(), params, entry.span)
                .map_err(at_entry)?
        };
        if !rest.is_empty() {
            if !matches!(result, Value::Fun(_)) {
                return Err(too_many());
            }
            result = self
                .lowerer
                .machine
                .apply(result, rest, entry.span)
                .map_err(at_entry)?;
        }
        let result = match self.lowerer.hints.entry_rets.get(name) {
            Some(t) => convert::fix_empty(result, t),
            None => result,
        };
        convert::into_external(result)
    }

    /// Adds the checker's facts about code evaluated later (REPL cells checked by the
    /// caller; see [`crate::checked::hints_from_info`]).
    pub fn add_hints(&mut self, hints: crate::program::TypeHints) {
        let h = &mut self.lowerer.hints;
        h.literal_types.extend(hints.literal_types);
        h.array_row_types.extend(hints.array_row_types);
        h.size_args.extend(hints.size_args);
        h.empty_rows.extend(hints.empty_rows);
    }

    /// A fresh file id for a REPL cell.
    pub fn fresh_file_id(&mut self) -> FileId {
        let id = FileId(self.next_file);
        self.next_file = self.next_file.saturating_add(1);
        id
    }

    /// Evaluates a REPL cell: declarations are added to the environment (returning `None`),
    /// an expression is evaluated and its value returned. Without hints for the cell, untyped
    /// literals take their type from the values they meet (see `ir::FlexLit`).
    pub fn eval_cell(&mut self, text: &str) -> Result<Option<Value>> {
        let id = self.fresh_file_id();
        self.eval_cell_in(id, text)
    }

    /// Like [`Session::eval_cell`], parsing the text as file `id` (so that hints the caller
    /// computed for its own parse of the same text apply).
    pub fn eval_cell_in(&mut self, id: FileId, text: &str) -> Result<Option<Value>> {
        self.lowerer
            .sources
            .borrow_mut()
            .add(id, format!("[{}]", id.0), Arc::from(text));
        let cell = futhark_syntax::parse_cell(id, text);
        if let Some(e) = cell.errors.first() {
            return Err(RuntimeError::at(e.span, e.message.clone()));
        }
        let Some((env, defs, file)) = self.lowerer.root_env.clone() else {
            return Err(RuntimeError::new("No program loaded."));
        };
        if !cell.decs.is_empty() {
            let mut exports = Scope::default();
            self.lowerer
                .decs(&cell.decs, &env, &defs, &mut exports, &file, true)?;
        }
        let Some(exp) = cell.exp else {
            return Ok(None);
        };
        self.lowerer.machine.set_stack_base();
        let (body, nslots) = {
            let mut lx = LowerCx::new(&self.lowerer, env);
            lx.fns.push(FnCtx::new(None));
            let body = lx.exp(&exp)?;
            let ctx = lx.fns.pop().unwrap_or_default();
            (body, ctx.nslots as usize)
        };
        self.lowerer.machine.eval_closed(&body, nslots).map(Some)
    }
}

/// The types of the data values an entry point's parameters take, in order (tuples and
/// arrays of tuples take one value per component); `None` where not known.
fn input_types(params: &[Option<TypeDesc>]) -> Vec<Option<TypeDesc>> {
    fn leaves(t: &TypeDesc, out: &mut Vec<Option<TypeDesc>>) {
        match t {
            TypeDesc::Record(_, ts) => ts.iter().for_each(|t| leaves(t, out)),
            TypeDesc::Array(dims, elem) => match &**elem {
                TypeDesc::Record(_, ts) => ts
                    .iter()
                    .for_each(|t| leaves(&TypeDesc::Array(dims.clone(), Box::new(t.clone())), out)),
                _ => out.push(Some(t.clone())),
            },
            t => out.push(Some(t.clone())),
        }
    }
    let mut out = Vec::new();
    for p in params {
        match p {
            Some(t) => leaves(t, &mut out),
            None => out.push(None),
        }
    }
    out
}

/// Whether a data value fits a parameter type: its rank and element type (sizes are checked
/// when the parameters bind).
fn fits(t: &TypeDesc, v: &fv::Value) -> bool {
    match t {
        TypeDesc::Prim(p) => v.is_scalar() && v.elem_type() == *p,
        TypeDesc::Array(dims, elem) => match &**elem {
            TypeDesc::Prim(p) => v.rank() == dims.len() && v.elem_type() == *p,
            _ => true,
        },
        _ => true,
    }
}

fn type_name(t: &Option<TypeDesc>) -> String {
    match t {
        Some(TypeDesc::Prim(p)) => p.to_string(),
        Some(TypeDesc::Array(dims, elem)) => {
            format!(
                "{}{}",
                "[]".repeat(dims.len()),
                type_name(&Some((**elem).clone()))
            )
        }
        _ => "?".to_string(),
    }
}

/// Checks the number and types of an entry point's input values, as the reference
/// implementation does before running it.
fn check_inputs(params: &[Option<TypeDesc>], args: &[fv::Value], more: bool) -> Result<()> {
    let types = input_types(params);
    if args.len() < types.len() {
        return Err(RuntimeError::new(format!(
            "Too few arguments for the entry point: it takes {} values, {} given.",
            types.len(),
            args.len()
        )));
    }
    let bad = types
        .iter()
        .zip(args)
        .any(|(t, v)| t.as_ref().is_some_and(|t| !fits(t, v)));
    if bad || (args.len() > types.len() && !more) {
        let expected: Vec<String> = types.iter().map(type_name).collect();
        let provided: Vec<String> = args
            .iter()
            .map(|v| format!("{}{}", "[]".repeat(v.rank()), v.elem_type()))
            .collect();
        return Err(RuntimeError::new(format!(
            "Expected input of types: {}\nProvided input of types: {}",
            expected.join(" "),
            provided.join(" ")
        )));
    }
    Ok(())
}
