//! The evaluator of the internal form: a tree walker over [`Exp`] with one frame of slots per
//! function call.
//!
//! Function values are applied by [`Machine::apply`], which handles currying (partial
//! applications are values), closures, built-in operators and intrinsics. Every call checks
//! the interrupt flag and the remaining native stack, so an endless loop can be stopped from
//! another thread and deep recursion ends in an error rather than a crash.

pub mod exp;
mod pat;

use std::io::Write;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use futhark_syntax::Span;

use crate::errors::{Result, RuntimeError};
use crate::ir::{Exp, Lambda};
use crate::prim::Prim;
use crate::prim_ops;
use crate::value::{Builtin, Fun, Value};

pub use pat::{bind_pat, match_shape};

/// One function activation: its slots, the closure's captured values, and the closure itself
/// (for recursive references).
pub struct Frame<'a> {
    pub slots: Vec<Value>,
    pub env: &'a [Value],
    pub this: Option<&'a Rc<Fun>>,
}

impl<'a> Frame<'a> {
    pub fn new(nslots: usize, env: &'a [Value], this: Option<&'a Rc<Fun>>) -> Frame<'a> {
        Frame {
            slots: vec![unit(); nslots],
            env,
            this,
        }
    }
}

thread_local! {
    static UNIT: Value = Value::unit();
}

/// A shared unit value (frame slots start out as this).
pub fn unit() -> Value {
    UNIT.with(|u| u.clone())
}

/// Where `#[trace]` output goes.
pub type TraceSink = Box<dyn FnMut(&str)>;

/// The evaluation state shared by all frames.
pub struct Machine {
    interrupt: Arc<AtomicBool>,
    /// Address of a local in the outermost evaluation call, to measure stack use.
    stack_base: Option<usize>,
    /// How many bytes of native stack evaluation may use.
    pub stack_limit: usize,
    /// Counts calls between checks of the interrupt flag.
    ticks: u32,
    /// Receives `#[trace]` output; stderr when `None`.
    pub trace: Option<TraceSink>,
    /// Turns a span into `file:line:col-col` for trace output.
    pub describe: Rc<dyn Fn(Span) -> String>,
    /// Whether SOACs may evaluate lambda bodies over whole arrays.
    pub vectorise: bool,
    /// The last tag given to a forward-mode differentiation.
    ad_tag: u32,
}

impl Machine {
    pub fn new(interrupt: Arc<AtomicBool>, describe: Rc<dyn Fn(Span) -> String>) -> Machine {
        Machine {
            interrupt,
            stack_base: None,
            stack_limit: 200 << 20,
            ticks: 0,
            trace: None,
            describe,
            vectorise: true,
            ad_tag: 0,
        }
    }

    /// A fresh tag for a nested differentiation.
    pub fn next_ad_tag(&mut self) -> u32 {
        self.ad_tag += 1;
        self.ad_tag
    }

    /// Checks the interrupt flag and the stack depth; called on every function call and loop
    /// iteration.
    #[inline]
    pub fn tick(&mut self) -> Result<()> {
        self.ticks = self.ticks.wrapping_add(1);
        if self.ticks.is_multiple_of(256) && self.interrupt.load(Ordering::Relaxed) {
            return Err(RuntimeError::interrupted());
        }
        Ok(())
    }

    fn check_stack(&mut self) -> Result<()> {
        let here = 0u8;
        let addr = &here as *const u8 as usize;
        match self.stack_base {
            None => self.stack_base = Some(addr),
            Some(base) => {
                if base.saturating_sub(addr) > self.stack_limit {
                    return Err(RuntimeError::new(
                        "Stack overflow: recursion is too deep for the interpreter.",
                    ));
                }
            }
        }
        Ok(())
    }

    /// Sets where the stack starts (call at the top of evaluation on a fresh thread).
    pub fn set_stack_base(&mut self) {
        self.stack_base = None;
        let _ = self.check_stack();
    }

    /// Evaluates an expression in a frame.
    pub fn eval(&mut self, e: &Exp, f: &mut Frame<'_>) -> Result<Value> {
        exp::eval(self, e, f)
    }

    /// Evaluates a closed expression (a top-level definition's body) in a fresh frame.
    pub fn eval_closed(&mut self, e: &Exp, nslots: usize) -> Result<Value> {
        let mut frame = Frame::new(nslots, &[], None);
        self.eval(e, &mut frame)
    }

    /// Applies a function value to arguments (any number: partial application and
    /// over-application are handled).
    pub fn apply(&mut self, fun: Value, args: Vec<Value>, span: Span) -> Result<Value> {
        let Value::Fun(f) = fun else {
            return Err(RuntimeError::at(span, "Cannot apply a non-function value."));
        };
        self.apply_fun(&f, args, span)
    }

    pub fn apply_fun(&mut self, f: &Rc<Fun>, mut args: Vec<Value>, span: Span) -> Result<Value> {
        if args.is_empty() {
            return Ok(Value::Fun(f.clone()));
        }
        let arity = fun_arity(f);
        if args.len() < arity {
            return Ok(Value::Fun(Rc::new(Fun::Partial {
                fun: f.clone(),
                args,
            })));
        }
        let rest = if args.len() > arity {
            args.split_off(arity)
        } else {
            Vec::new()
        };
        let result = self.call_saturated(f, args, span)?;
        if rest.is_empty() {
            Ok(result)
        } else {
            self.apply(result, rest, span)
        }
    }

    /// Calls a function with exactly its arity of arguments.
    fn call_saturated(&mut self, f: &Rc<Fun>, args: Vec<Value>, span: Span) -> Result<Value> {
        match &**f {
            Fun::Closure { lam, env } => self.call_closure(f, lam, env, args, span),
            Fun::Partial { fun, args: first } => {
                let mut all = first.clone();
                all.extend(args);
                self.call_saturated(fun, all, span)
            }
            Fun::Builtin(b) => self.call_builtin(b, args, span),
            Fun::Sized { fun, sizes } => match &**fun {
                Fun::Closure { lam, env } => {
                    self.call_closure_with(fun, lam, env, args, span, sizes)
                }
                _ => self.call_saturated(fun, args, span),
            },
        }
    }

    fn call_closure(
        &mut self,
        this: &Rc<Fun>,
        lam: &Rc<Lambda>,
        env: &Rc<[Value]>,
        args: Vec<Value>,
        span: Span,
    ) -> Result<Value> {
        self.call_closure_with(this, lam, env, args, span, &[])
    }

    fn call_closure_with(
        &mut self,
        this: &Rc<Fun>,
        lam: &Rc<Lambda>,
        env: &Rc<[Value]>,
        args: Vec<Value>,
        span: Span,
        sizes: &[(crate::ir::Slot, Value)],
    ) -> Result<Value> {
        self.tick()?;
        self.check_stack()?;
        let mut frame = Frame::new(lam.nslots, env, Some(this));
        for (s, v) in sizes {
            if let Some(slot) = frame.slots.get_mut(*s as usize) {
                *slot = v.clone();
            }
        }
        for (p, a) in lam.params.iter().zip(args) {
            if !bind_pat(self, p, a, &mut frame)? {
                return Err(RuntimeError::at(
                    span,
                    "Argument does not match parameter pattern.",
                ));
            }
        }
        self.eval(&lam.body, &mut frame).map_err(|mut e| {
            if e.backtrace.len() < 32 {
                e.backtrace.push(span);
            }
            e
        })
    }

    fn call_builtin(&mut self, b: &Builtin, args: Vec<Value>, span: Span) -> Result<Value> {
        match b {
            Builtin::Op(op) => {
                let mut it = args.into_iter();
                let (Some(x), Some(y)) = (it.next(), it.next()) else {
                    return Err(RuntimeError::at(
                        span,
                        "operator applied to too few arguments",
                    ));
                };
                exp::binop(*op, &x, &y, span)
            }
            Builtin::Prim(pf) => {
                let arg = args.into_iter().next().unwrap_or_else(unit);
                let parts = arg.tuple_elems();
                if parts.iter().any(|p| matches!(p, Value::Dual(_))) {
                    return crate::ad::prim_fn(*pf, &parts).map_err(|e| e.with_span(span));
                }
                let mut prims = Vec::with_capacity(parts.len());
                for p in parts {
                    match p {
                        Value::Prim(x) => prims.push(x),
                        _ => {
                            return Err(RuntimeError::at(
                                span,
                                "primitive operation applied to a non-primitive value",
                            ));
                        }
                    }
                }
                pf.apply(&prims)
                    .map(Value::Prim)
                    .map_err(|e| RuntimeError::at(span, e.message()))
            }
            Builtin::Intrinsic(i) => i.apply(self, args, span),
            Builtin::Neg => match args.first() {
                Some(d @ Value::Dual(_)) => {
                    crate::ad::prim_fn(crate::prim_fns::PrimFn::Neg, std::slice::from_ref(d))
                }
                Some(Value::Prim(p)) => prim_ops::negate(*p)
                    .map(Value::Prim)
                    .map_err(|e| RuntimeError::at(span, e.message())),
                _ => Err(RuntimeError::at(
                    span,
                    "neg applied to a non-primitive value",
                )),
            },
            Builtin::Not => match args.first() {
                Some(Value::Prim(p)) => prim_ops::not(*p)
                    .map(Value::Prim)
                    .map_err(|e| RuntimeError::at(span, e.message())),
                _ => Err(RuntimeError::at(span, "! applied to a non-primitive value")),
            },
        }
    }

    /// Writes a `#[trace]` line.
    pub fn emit_trace(&mut self, text: &str) {
        match &mut self.trace {
            Some(sink) => sink(text),
            None => {
                let _ = writeln!(std::io::stderr(), "{text}");
            }
        }
    }
}

/// Number of arguments a function value needs before it runs.
pub fn fun_arity(f: &Fun) -> usize {
    match f {
        Fun::Closure { lam, .. } => lam.params.len().max(1),
        Fun::Partial { fun, args } => fun_arity(fun).saturating_sub(args.len()).max(1),
        Fun::Sized { fun, .. } => fun_arity(fun),
        Fun::Builtin(b) => match b {
            Builtin::Op(_) => 2,
            Builtin::Intrinsic(i) => i.arity(),
            _ => 1,
        },
    }
}

/// A scalar result, or the error of a primitive operation at a location.
pub fn prim_result(
    r: std::result::Result<Prim, prim_ops::ArithError>,
    span: Span,
) -> Result<Value> {
    r.map(Value::Prim)
        .map_err(|e| RuntimeError::at(span, e.message()))
}
