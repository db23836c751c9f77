//! The lowering state and the statement builder.
//!
//! Lowering emits statements into the innermost of a stack of blocks (a function body, a
//! branch, a loop body, a lambda); [`Lowerer::block`] runs a closure in a fresh block and
//! returns what it emitted. Every bound name is fresh (the IR has no shadowing) and its
//! type is remembered, so helpers can ask for the type of any atom.

use std::collections::HashMap;
use std::rc::Rc;

use futhark_check::TypeInfo;
use futhark_ir::soacs::{
    BinOp, ConvOp, Exp, ExtSize, ExtType, FunDef, Name, NameSource, Param, Pat, Stm, SubExp, Type,
    TypeBase,
};
use futhark_ir::types::{PrimType, PrimValue};
use futhark_syntax::ast::SourceFile;
use futhark_syntax::{FileId, Span};

use crate::error::{LResult, LowerError};
use crate::modenv::{Env, Scope};
use crate::value::Value;

/// One source file as lowering sees it.
#[derive(Debug)]
pub struct FileInput<'a> {
    pub ast: &'a SourceFile,
    pub info: &'a TypeInfo,
    /// Import paths as written, resolved to files.
    pub imports: HashMap<String, FileId>,
    pub is_prelude: bool,
    pub path: String,
    pub source: &'a str,
}

/// A specialisation of a definition: the IR function made for one shape of arguments.
#[derive(Clone, Debug)]
pub struct Spec<'a> {
    pub name: Name,
    pub ret: Vec<ExtType>,
    /// The shape of the result value (leaves replaced at each call).
    pub template: Value<'a>,
    /// Set while the body is being lowered, so recursive calls know to use `ret` as is.
    pub in_progress: bool,
    /// Names of the IR function's parameters (result sizes refer to them).
    pub params: Vec<Name>,
    /// Set when a call was made while the body was being lowered.
    pub recursive: bool,
    /// How each existential result size follows from the parameters, where it does
    /// (`result_sizes.rs`).
    pub size_formulas: Vec<Option<crate::result_sizes::Formula>>,
}

pub struct Lowerer<'a> {
    pub files: HashMap<FileId, Rc<FileInput<'a>>>,
    pub prelude_main: FileId,
    pub file_scopes: HashMap<FileId, Rc<Scope<'a>>>,
    pub file_envs: HashMap<FileId, Env<'a>>,
    pub loading: Vec<FileId>,
    pub next_def: usize,
    pub ns: NameSource,
    pub types: HashMap<Name, Type>,
    stack: Vec<Vec<Stm>>,
    pub funs: Vec<FunDef>,
    pub specs: HashMap<String, Spec<'a>>,
    /// Nesting of inlined calls, to stop unbounded inlining of recursive functions.
    pub inline_depth: usize,
    /// Sizes named by the checker (by unique id) that results of calls were seen to have;
    /// the last resort for evaluating a size term.
    pub size_ids: HashMap<u64, SubExp>,
    /// The source location given to the statements emitted now (see [`Lowerer::located`]).
    pub loc: Option<std::sync::Arc<str>>,
    /// The application of the SOAC intrinsic being lowered, which its statement is located
    /// at when no enclosing operation gave one (so a host-loop fallback can say where).
    pub soac_site: Option<Span>,
    /// The calls being inlined, outermost first: the interpreter's call stack at the code
    /// lowered now, which [`Lowerer::located`] writes into locations as their backtrace.
    pub frames: Vec<Rc<str>>,
    /// The span the next frame is pushed at instead of its own: a call of a forwarding
    /// function (`|>`, `def f x = g x`) is the call of what it forwards to, at the outer
    /// application, as the interpreter rewrites it.
    pub next_frame: Option<Span>,
    /// The span the next located operation is reported at instead of its own (a call of
    /// `def f x y = x / y` fails at the call); entering a frame forgets it.
    pub next_located: Option<Span>,
    /// Line tables of the files whose locations were asked for.
    pub lines: std::cell::RefCell<HashMap<FileId, Rc<futhark_syntax::LineIndex>>>,
    /// The operators of the accumulator streams whose functions are being lowered,
    /// innermost last (`None` for `scatter_stream`); see `stream.rs`.
    pub acc_ops: Vec<Option<Value<'a>>>,
}

impl<'a> Lowerer<'a> {
    pub fn new(files: HashMap<FileId, Rc<FileInput<'a>>>, prelude_main: FileId) -> Lowerer<'a> {
        Lowerer {
            files,
            prelude_main,
            file_scopes: HashMap::new(),
            file_envs: HashMap::new(),
            loading: Vec::new(),
            next_def: 0,
            ns: NameSource::new(),
            types: HashMap::new(),
            stack: vec![Vec::new()],
            funs: Vec::new(),
            specs: HashMap::new(),
            inline_depth: 0,
            size_ids: HashMap::new(),
            loc: None,
            soac_site: None,
            frames: Vec::new(),
            next_frame: None,
            next_located: None,
            lines: Default::default(),
            acc_ops: Vec::new(),
        }
    }

    /// Runs `f` with the statements it emits located at `span` (the expression whose
    /// run-time errors they raise: an index, an update, a division).
    pub fn located<T>(&mut self, span: Span, f: impl FnOnce(&mut Self) -> T) -> T {
        let span = self.next_located.take().unwrap_or(span);
        let loc: std::sync::Arc<str> = self.location_with_frames(span).into();
        let outer = self.loc.replace(loc);
        let r = f(self);
        self.loc = outer;
        r
    }

    /// `span`'s position followed by the frames of the calls being inlined, innermost
    /// first (see `futhark_ir::loc`).
    pub fn location_with_frames(&self, span: Span) -> String {
        let mut loc = self.location(span);
        let frames = self.frames_text();
        if !frames.is_empty() {
            loc.push('\n');
            loc.push_str(&frames);
        }
        loc
    }

    /// The frames of the calls being inlined, innermost first, one per line (empty when
    /// there are none).
    pub fn frames_text(&self) -> String {
        let frames: Vec<&str> = self
            .frames
            .iter()
            .rev()
            .take(futhark_ir::loc::MAX_FRAMES)
            .map(|f| &**f)
            .collect();
        frames.join("\n")
    }

    /// Runs `f` (lowering the body of a function called at `span`) with that call on the
    /// stack of frames, as the interpreter's call of a closure pushes it.
    pub fn in_frame<T>(&mut self, span: Span, f: impl FnOnce(&mut Self) -> T) -> T {
        let span = self.next_frame.take().unwrap_or(span);
        self.next_located = None;
        let frame: Rc<str> = self.location(span).into();
        self.frames.push(frame);
        let r = f(self);
        self.frames.pop();
        r
    }

    /// Runs `f` (lowering a specialised function's body, which the interpreter would enter
    /// through a call) with no frames and no location: the call site is added where the
    /// function is inlined or called.
    pub fn outside_frames<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> T {
        let frames = std::mem::take(&mut self.frames);
        let loc = self.loc.take();
        self.next_frame = None;
        self.next_located = None;
        let r = f(self);
        self.frames = frames;
        self.loc = loc;
        r
    }

    /// The checker's tables for the file a span is in.
    pub fn info(&self, span: Span) -> LResult<&'a TypeInfo> {
        self.files
            .get(&span.file)
            .map(|f| f.info)
            .ok_or_else(|| LowerError::internal(Some(span), "no type information for this file"))
    }

    pub fn fresh(&mut self, base: &str) -> Name {
        self.ns.fresh(base)
    }

    /// The type of an atom.
    pub fn type_of(&self, s: &SubExp) -> Type {
        match s {
            SubExp::Const(c) => Type::Prim(c.ty()),
            SubExp::Var(v) => self
                .types
                .get(v)
                .cloned()
                .unwrap_or(Type::Prim(PrimType::I64)),
        }
    }

    pub fn prim_of(&self, s: &SubExp) -> PrimType {
        self.type_of(s).elem()
    }

    pub fn declare(&mut self, name: &str, ty: Type) {
        self.types.insert(name.to_string(), ty);
    }

    pub fn param(&mut self, base: &str, ty: Type) -> Param {
        let name = self.fresh(base);
        self.declare(&name, ty.clone());
        Param { name, ty }
    }

    /// Appends a statement to the current block.
    pub fn emit(&mut self, pat: Pat, exp: Exp) {
        for c in &pat.ctx {
            self.types.insert(c.clone(), Type::Prim(PrimType::I64));
        }
        for p in &pat.elems {
            self.types.insert(p.name.clone(), p.ty.clone());
        }
        if let Some(top) = self.stack.last_mut() {
            top.push(Stm::new(pat, exp).at(self.loc.clone()));
        }
    }

    /// Binds one value of a known type.
    pub fn bind(&mut self, base: &str, ty: Type, exp: Exp) -> SubExp {
        let name = self.fresh(base);
        self.emit(Pat::one(&name, ty), exp);
        SubExp::Var(name)
    }

    /// Binds results whose types may have existential sizes: the pattern names a fresh
    /// size for each `Ext(i)`.
    pub fn bind_ext(&mut self, base: &str, ts: &[ExtType], exp: Exp) -> Vec<(SubExp, Type)> {
        let mut ctx: Vec<(usize, Name)> = Vec::new();
        let mut elems = Vec::new();
        for t in ts {
            let ty: Type = TypeBase::array(
                t.elem(),
                t.shape()
                    .iter()
                    .map(|d| match d {
                        ExtSize::Free(s) => s.clone(),
                        ExtSize::Ext(i) => {
                            if let Some((_, n)) = ctx.iter().find(|(j, _)| j == i) {
                                SubExp::Var(n.clone())
                            } else {
                                let n = self.ns.fresh("d");
                                ctx.push((*i, n.clone()));
                                SubExp::Var(n)
                            }
                        }
                    })
                    .collect(),
            );
            let name = self.fresh(base);
            elems.push(Param { name, ty });
        }
        let out = elems
            .iter()
            .map(|p| (SubExp::Var(p.name.clone()), p.ty.clone()))
            .collect();
        self.emit(
            Pat {
                ctx: ctx.into_iter().map(|(_, n)| n).collect(),
                elems,
            },
            exp,
        );
        out
    }

    /// Runs `f` in a fresh block and returns the statements it emitted.
    pub fn block<T>(&mut self, f: impl FnOnce(&mut Self) -> LResult<T>) -> LResult<(Vec<Stm>, T)> {
        self.stack.push(Vec::new());
        let r = f(self);
        let stms = self.stack.pop().unwrap_or_default();
        r.map(|t| (stms, t))
    }

    // ---------------------------------------------------------------------------------
    // Scalar helpers

    /// `a + b` on `i64` sizes, folding constants (sizes are everywhere; folding here keeps
    /// types readable).
    pub fn add64(&mut self, a: SubExp, b: SubExp) -> SubExp {
        match (a.as_i64(), b.as_i64()) {
            (Some(x), Some(y)) => SubExp::i64(x.wrapping_add(y)),
            (Some(0), None) => b,
            (None, Some(0)) => a,
            _ => self.bind("n", Type::Prim(PrimType::I64), Exp::BinOp(BinOp::Add, a, b)),
        }
    }

    pub fn sub64(&mut self, a: SubExp, b: SubExp) -> SubExp {
        match (a.as_i64(), b.as_i64()) {
            (Some(x), Some(y)) => SubExp::i64(x.wrapping_sub(y)),
            (None, Some(0)) => a,
            _ => self.bind("n", Type::Prim(PrimType::I64), Exp::BinOp(BinOp::Sub, a, b)),
        }
    }

    pub fn mul64(&mut self, a: SubExp, b: SubExp) -> SubExp {
        match (a.as_i64(), b.as_i64()) {
            (Some(x), Some(y)) => SubExp::i64(x.wrapping_mul(y)),
            (Some(1), None) => b,
            (None, Some(1)) => a,
            _ => self.bind("n", Type::Prim(PrimType::I64), Exp::BinOp(BinOp::Mul, a, b)),
        }
    }

    /// Converts an integer atom to `i64` (sign- or zero-extending by its type).
    pub fn int_to_i64(&mut self, s: SubExp) -> SubExp {
        let t = self.prim_of(&s);
        if t == PrimType::I64 {
            return s;
        }
        if let SubExp::Const(c) = &s
            && let Some(x) = const_as_i128(*c)
        {
            return SubExp::i64(x as i64);
        }
        let op = if t.is_unsigned() {
            ConvOp::ZExt(PrimType::I64)
        } else {
            ConvOp::SExt(PrimType::I64)
        };
        self.bind("i", Type::Prim(PrimType::I64), Exp::Conv(op, s))
    }

    /// Converts an `i64` size to integer type `t`.
    pub fn i64_to_int(&mut self, s: SubExp, t: PrimType) -> SubExp {
        if t == PrimType::I64 {
            return s;
        }
        if let Some(x) = s.as_i64() {
            return SubExp::Const(int_const(t, x as i128));
        }
        self.bind("i", Type::Prim(t), Exp::Conv(ConvOp::SExt(t), s))
    }
}

/// An integer constant as `i128`.
pub fn const_as_i128(c: PrimValue) -> Option<i128> {
    Some(match c {
        PrimValue::I8(x) => x as i128,
        PrimValue::I16(x) => x as i128,
        PrimValue::I32(x) => x as i128,
        PrimValue::I64(x) => x as i128,
        PrimValue::U8(x) => x as i128,
        PrimValue::U16(x) => x as i128,
        PrimValue::U32(x) => x as i128,
        PrimValue::U64(x) => x as i128,
        _ => return None,
    })
}

/// The constant `x` of type `t` (wrapping; floats converted; `bool` is `x != 0`).
pub fn int_const(t: PrimType, x: i128) -> PrimValue {
    match t {
        PrimType::I8 => PrimValue::I8(x as i8),
        PrimType::I16 => PrimValue::I16(x as i16),
        PrimType::I32 => PrimValue::I32(x as i32),
        PrimType::I64 => PrimValue::I64(x as i64),
        PrimType::U8 => PrimValue::U8(x as u8),
        PrimType::U16 => PrimValue::U16(x as u16),
        PrimType::U32 => PrimValue::U32(x as u32),
        PrimType::U64 => PrimValue::U64(x as u64),
        PrimType::Bool => PrimValue::Bool(x != 0),
        t => PrimValue::from_f64(t, x as f64),
    }
}

/// Zero of a type (the placeholder for unused sum payloads).
pub fn zero(t: PrimType) -> PrimValue {
    int_const(t, 0)
}
