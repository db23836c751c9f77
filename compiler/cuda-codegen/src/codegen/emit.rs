//! Printing kernel-IR bodies as CUDA C: types, constants, expressions, statements, the
//! accumulator struct and operator function of reductions, and the vectorised element loop
//! shared by map, reduce, histogram and scatter.
//!
//! Naming keeps generated identifiers apart from the prelude's and from each other: IR
//! variables print as `v_NAME`, arrays as `a_NAME`, size parameters as `s_NAME`, generator
//! temporaries start with `fut_`, and per-kernel helpers with the kernel's name.

use std::collections::{HashMap, HashSet};
use std::fmt::Write;

use futhark_ir::{
    ArrayDecl, BinOp, Body, CmpOp, Exp, Kernel, KernelProgram, Lambda, MathFn, Name, PrimType,
    PrimValue, SegSpace, Size, Stm, UnOp,
};

/// The C type a value of `t` has in registers (`f16` computes in `float`).
pub fn reg_ty(t: PrimType) -> &'static str {
    match t {
        PrimType::F16 => "f32",
        _ => t.name(),
    }
}

/// The C type of an element of `t` in memory.
pub fn store_ty(t: PrimType) -> &'static str {
    match t {
        PrimType::F16 => "f16s",
        _ => t.name(),
    }
}

/// Converts a loaded element to its register value.
pub fn load_conv(t: PrimType, e: &str) -> String {
    match t {
        PrimType::F16 => format!("fut_f16_load({e})"),
        _ => e.to_string(),
    }
}

/// Converts a register value to the element stored in memory.
pub fn store_conv(t: PrimType, e: &str) -> String {
    match t {
        PrimType::F16 => format!("fut_f16_store({e})"),
        _ => e.to_string(),
    }
}

/// Size and alignment of a C struct holding one field per type, as the C compiler lays it
/// out (needed to size shared memory and scratch arrays of accumulators on the host).
pub fn struct_layout(tys: &[PrimType]) -> (usize, usize) {
    let mut size = 0usize;
    let mut align = 1usize;
    for t in tys {
        let s = match t {
            PrimType::F16 => 4,
            _ => t.size_bytes(),
        };
        size = size.div_ceil(s) * s + s;
        align = align.max(s);
    }
    (size.div_ceil(align) * align, align)
}

/// A constant as a C expression of the register type.
pub fn constant(v: PrimValue) -> String {
    fn int(ty: &str, neg: bool, bits: u64, mag: u64) -> String {
        if neg {
            format!("(({ty})0x{bits:x}ULL)")
        } else {
            format!("(({ty}){mag}ULL)")
        }
    }
    fn f32_lit(x: f32) -> String {
        if x.is_finite() {
            let s = format!("{x:?}");
            let s = if s.contains(['.', 'e', 'E']) {
                s
            } else {
                format!("{s}.0")
            };
            format!("{s}f")
        } else {
            format!("__uint_as_float(0x{:x}u)", x.to_bits())
        }
    }
    match v {
        PrimValue::Bool(b) => b.to_string(),
        PrimValue::I8(x) => int("i8", x < 0, x as u8 as u64, x.unsigned_abs() as u64),
        PrimValue::I16(x) => int("i16", x < 0, x as u16 as u64, x.unsigned_abs() as u64),
        PrimValue::I32(x) => int("i32", x < 0, x as u32 as u64, x.unsigned_abs() as u64),
        PrimValue::I64(x) => int("i64", x < 0, x as u64, x.unsigned_abs()),
        PrimValue::U8(x) => int("u8", false, 0, x as u64),
        PrimValue::U16(x) => int("u16", false, 0, x as u64),
        PrimValue::U32(x) => int("u32", false, 0, x as u64),
        PrimValue::U64(x) => int("u64", false, 0, x),
        PrimValue::F16(b) => f32_lit(futhark_ir::types::f16_bits_to_f32(b)),
        PrimValue::F32(x) => f32_lit(x),
        PrimValue::F64(x) => {
            if x.is_finite() {
                let s = format!("{x:?}");
                if s.contains(['.', 'e', 'E']) {
                    s
                } else {
                    format!("{s}.0")
                }
            } else {
                format!("__longlong_as_double(0x{:x}LL)", x.to_bits())
            }
        }
    }
}

/// The C expression of a size.
pub fn size_exp(s: &Size) -> String {
    match s {
        Size::Const(c) => format!("((i64){c}LL)"),
        Size::Param(p) => format!("s_{p}"),
    }
}

/// The product of some sizes (1 for none).
pub fn size_product(sizes: &[&Size]) -> String {
    if sizes.is_empty() {
        "((i64)1LL)".into()
    } else {
        let parts: Vec<String> = sizes.iter().map(|s| size_exp(s)).collect();
        format!("({})", parts.join(" * "))
    }
}

/// The unsigned type of the same width (signed overflow is undefined in C; Futhark wraps).
fn unsigned_of(t: PrimType) -> Option<&'static str> {
    match t {
        PrimType::I32 => Some("u32"),
        PrimType::I64 => Some("u64"),
        _ => None,
    }
}

/// Register buffers that replace identity reads inside a vectorised element loop.
#[derive(Clone, Debug)]
pub struct VecSubst {
    /// Array name to the C name of its register buffer.
    pub bufs: HashMap<Name, String>,
    /// The C expression of the lane within the vector.
    pub lane: String,
}

/// Prints expressions and statements of one kernel.
#[derive(Clone)]
pub struct Emitter<'a> {
    pub prog: &'a KernelProgram,
    /// The program's run-time checks, numbered as the host decodes them.
    checks: Vec<futhark_ir::Check>,
    types: HashMap<Name, PrimType>,
    sizes: HashSet<Name>,
    space: Option<SegSpace>,
    vec: Option<VecSubst>,
    /// Arrays whose point's row is in a shared-memory buffer (an intra-block stage):
    /// array name to the C name of the buffer, indexed by the offset in the row.
    rows: Option<HashMap<Name, String>>,
}

impl<'a> Emitter<'a> {
    /// An emitter for a kernel's body: knows the type of every name the body binds.
    pub fn for_kernel(prog: &'a KernelProgram, kernel: &Kernel) -> Emitter<'a> {
        let mut types = HashMap::new();
        let space = kernel.op.space();
        types.insert(space.flat.clone(), PrimType::I64);
        for (n, _) in &space.dims {
            types.insert(n.clone(), PrimType::I64);
        }
        collect_bindings(&kernel.op.body().stms, &mut types);
        Emitter {
            prog,
            checks: program_checks(prog),
            types,
            sizes: prog.sizes.iter().cloned().collect(),
            space: Some(space.clone()),
            vec: None,
            rows: None,
        }
    }

    /// An emitter for an operator: only its parameters and its own bindings are in scope.
    pub fn for_lambda(prog: &'a KernelProgram, lam: &Lambda) -> Emitter<'a> {
        let mut types: HashMap<Name, PrimType> = lam.params.iter().cloned().collect();
        collect_bindings(&lam.body.stms, &mut types);
        Emitter {
            prog,
            checks: program_checks(prog),
            types,
            sizes: HashSet::new(),
            space: None,
            vec: None,
            rows: None,
        }
    }

    /// The same emitter, reading identity accesses from register buffers.
    pub fn with_vec(&self, vec: VecSubst) -> Emitter<'a> {
        let mut e = self.clone();
        e.vec = Some(vec);
        e
    }

    /// The same emitter, reading the point's row of the given arrays from shared-memory
    /// buffers (array name to buffer).
    pub fn with_rows(&self, rows: HashMap<Name, String>) -> Emitter<'a> {
        let mut e = self.clone();
        e.rows = Some(rows);
        e
    }

    /// The same emitter with more scalar variables in scope (generator-made names).
    pub fn with_vars(&self, vars: &[(Name, PrimType)]) -> Emitter<'a> {
        let mut e = self.clone();
        e.types.extend(vars.iter().cloned());
        e
    }

    fn var_ty(&self, v: &str) -> PrimType {
        if self.sizes.contains(v) {
            PrimType::I64
        } else {
            // The type checker has run, so every variable is bound; i64 is never reached.
            self.types.get(v).copied().unwrap_or(PrimType::I64)
        }
    }

    fn var(&self, v: &str) -> String {
        if self.sizes.contains(v) && !self.types.contains_key(v) {
            format!("s_{v}")
        } else {
            format!("v_{v}")
        }
    }

    /// The C text and type of an expression.
    pub fn exp(&self, e: &Exp) -> (String, PrimType) {
        match e {
            Exp::Const(v) => (constant(*v), v.ty()),
            Exp::Var(v) => (self.var(v), self.var_ty(v)),
            Exp::Bin(op, a, b) => {
                let (x, t) = self.exp(a);
                let (y, _) = self.exp(b);
                let rt = reg_ty(t);
                let float = t.is_float();
                let s = match op {
                    BinOp::Add | BinOp::Sub | BinOp::Mul => {
                        let o = match op {
                            BinOp::Add => "+",
                            BinOp::Sub => "-",
                            _ => "*",
                        };
                        match unsigned_of(t) {
                            Some(u) => format!("(({rt})(({u}){x} {o} ({u}){y}))"),
                            None => format!("(({rt})({x} {o} {y}))"),
                        }
                    }
                    BinOp::Div => format!("(({rt})({x} / {y}))"),
                    BinOp::Rem if float => {
                        let f = if t == PrimType::F64 { "fmod" } else { "fmodf" };
                        format!("{f}({x}, {y})")
                    }
                    BinOp::Rem => format!("(({rt})({x} % {y}))"),
                    BinOp::Min => format!("fut_min(({rt}){x}, ({rt}){y})"),
                    BinOp::Max => format!("fut_max(({rt}){x}, ({rt}){y})"),
                    BinOp::Pow if float => {
                        let f = if t == PrimType::F64 { "pow" } else { "powf" };
                        format!("{f}({x}, {y})")
                    }
                    BinOp::Pow => format!("fut_ipow(({rt}){x}, ({rt}){y})"),
                    BinOp::And => format!("(({rt})({x} & {y}))"),
                    BinOp::Or => format!("(({rt})({x} | {y}))"),
                    BinOp::Xor => format!("(({rt})({x} ^ {y}))"),
                    BinOp::Shl => match unsigned_of(t) {
                        Some(u) => format!("(({rt})(({u}){x} << {y}))"),
                        None => format!("(({rt})({x} << {y}))"),
                    },
                    BinOp::Shr => format!("(({rt})({x} >> {y}))"),
                    BinOp::LogAnd => format!("({x} && {y})"),
                    BinOp::LogOr => format!("({x} || {y})"),
                };
                let rt_ = match op {
                    BinOp::LogAnd | BinOp::LogOr => PrimType::Bool,
                    _ => t,
                };
                (round_f16(rt_, s), rt_)
            }
            Exp::Cmp(op, a, b) => {
                let (x, _) = self.exp(a);
                let (y, _) = self.exp(b);
                let o = match op {
                    CmpOp::Eq => "==",
                    CmpOp::Ne => "!=",
                    CmpOp::Lt => "<",
                    CmpOp::Le => "<=",
                    CmpOp::Gt => ">",
                    CmpOp::Ge => ">=",
                };
                (format!("({x} {o} {y})"), PrimType::Bool)
            }
            Exp::Un(op, a) => {
                let (x, t) = self.exp(a);
                let rt = reg_ty(t);
                let s = match op {
                    UnOp::Neg => match unsigned_of(t) {
                        Some(u) => format!("(({rt})(0 - ({u}){x}))"),
                        None => format!("(({rt})(-{x}))"),
                    },
                    UnOp::Not if t == PrimType::Bool => format!("(!{x})"),
                    UnOp::Not => format!("(({rt})(~{x}))"),
                    UnOp::Abs => format!("fut_abs(({rt}){x})"),
                    UnOp::Signum => format!("fut_signum(({rt}){x})"),
                };
                (round_f16(t, s), t)
            }
            Exp::Conv(to, a) => {
                let (x, from) = self.exp(a);
                let s = if *to == PrimType::Bool {
                    format!("({x} != 0)")
                } else if from == PrimType::Bool {
                    format!("(({})({x} ? 1 : 0))", reg_ty(*to))
                } else {
                    format!("(({}){x})", reg_ty(*to))
                };
                let s = if *to == PrimType::F16 && from != PrimType::F16 {
                    format!("fut_f16_round({s})")
                } else {
                    s
                };
                (s, *to)
            }
            Exp::Math(f, args) => {
                let xs: Vec<(String, PrimType)> = args.iter().map(|a| self.exp(a)).collect();
                let t = xs.first().map(|x| x.1).unwrap_or(PrimType::F32);
                let suffix = if t == PrimType::F64 { "" } else { "f" };
                let a: Vec<&str> = xs.iter().map(|x| x.0.as_str()).collect();
                if let Some(special) = special_math(*f, t, &a) {
                    let tys: Vec<PrimType> = xs.iter().map(|x| x.1).collect();
                    let rt = f.result_type(&tys).unwrap_or(t);
                    return (round_f16(rt, special), rt);
                }
                let name = match f {
                    MathFn::Sqrt => "sqrt",
                    MathFn::Exp => "exp",
                    MathFn::Log => "log",
                    MathFn::Sin => "sin",
                    MathFn::Cos => "cos",
                    MathFn::Tan => "tan",
                    MathFn::Tanh => "tanh",
                    MathFn::Floor => "floor",
                    MathFn::Ceil => "ceil",
                    // Futhark rounds halfway cases to even, as rint does.
                    MathFn::Round => "rint",
                    MathFn::Atan2 => "atan2",
                    MathFn::Fma => "fma",
                    MathFn::Cbrt => "cbrt",
                    MathFn::Log2 => "log2",
                    MathFn::Log10 => "log10",
                    MathFn::Log1p => "log1p",
                    MathFn::Asin => "asin",
                    MathFn::Acos => "acos",
                    MathFn::Atan => "atan",
                    MathFn::Sinh => "sinh",
                    MathFn::Cosh => "cosh",
                    MathFn::Asinh => "asinh",
                    MathFn::Acosh => "acosh",
                    MathFn::Atanh => "atanh",
                    MathFn::Gamma => "tgamma",
                    MathFn::Lgamma => "lgamma",
                    MathFn::Erf => "erf",
                    MathFn::Erfc => "erfc",
                    MathFn::Hypot => "hypot",
                    MathFn::NextAfter => "nextafter",
                    MathFn::CopySign => "copysign",
                    MathFn::Ldexp => "ldexp",
                    MathFn::IsNan => return (format!("isnan({})", a[0]), PrimType::Bool),
                    MathFn::IsInf => return (format!("isinf({})", a[0]), PrimType::Bool),
                    // Handled by `special_math`.
                    MathFn::MulHi
                    | MathFn::MadHi
                    | MathFn::Popc
                    | MathFn::Clz
                    | MathFn::Ctz
                    | MathFn::ToBits
                    | MathFn::FromBits => "fut_unreachable",
                };
                (round_f16(t, format!("{name}{suffix}({})", a.join(", "))), t)
            }
            Exp::Select(c, a, b) => {
                let (c, _) = self.exp(c);
                let (x, t) = self.exp(a);
                let (y, _) = self.exp(b);
                (format!("({c} ? {x} : {y})"), t)
            }
            Exp::Read(arr, idx) => {
                let elem = self.prog.array(arr).map(|a| a.elem).unwrap_or(PrimType::I8);
                if let (Some(vec), Some(space)) = (&self.vec, &self.space)
                    && space.is_flat_index(idx)
                    && let Some(buf) = vec.bufs.get(arr)
                {
                    return (load_conv(elem, &format!("{buf}[{}]", vec.lane)), elem);
                }
                if let (Some(rows), Some(space)) = (&self.rows, &self.space)
                    && let Some(buf) = rows.get(arr)
                {
                    if let Some(off) = futhark_ir::intra::row_offset(space, idx) {
                        let (o, _) = self.exp(&off);
                        return (load_conv(elem, &format!("{buf}[{o}]")), elem);
                    }
                    // A reduction's result for the point's row (`intra_violation` allows
                    // no other read of it).
                    if futhark_ir::intra::row_index(space).as_ref() == Some(idx) {
                        return (load_conv(elem, &format!("{buf}[0]")), elem);
                    }
                }
                let (i, _) = self.exp(idx);
                (load_conv(elem, &format!("a_{arr}[{i}]")), elem)
            }
        }
    }

    /// Prints statements at the given indentation.
    pub fn stms(&self, out: &mut String, stms: &[Stm], indent: usize) {
        let pad = "  ".repeat(indent);
        for s in stms {
            match s {
                Stm::Let { name, ty, exp } => {
                    let (e, _) = self.exp(exp);
                    let _ = writeln!(out, "{pad}const {} v_{name} = {e};", reg_ty(*ty));
                }
                Stm::Mut { name, ty, init } => {
                    let (e, _) = self.exp(init);
                    let _ = writeln!(out, "{pad}{} v_{name} = {e};", reg_ty(*ty));
                }
                Stm::Assign { name, exp } => {
                    let (e, _) = self.exp(exp);
                    let _ = writeln!(out, "{pad}v_{name} = {e};");
                }
                Stm::For { var, bound, body } => {
                    let (b, _) = self.exp(bound);
                    // The bound is evaluated once (it may read an array).
                    let _ = writeln!(
                        out,
                        "{pad}for (i64 v_{var} = 0, fut_n_{var} = {b}; v_{var} < fut_n_{var}; v_{var}++) {{"
                    );
                    match futhark_ir::guarded_loop(var, body) {
                        // A while loop runs as a `for` over a bound whose body is guarded by
                        // its condition. Once the guard is false nothing in the loop runs,
                        // so nothing it reads changes and every later iteration is a no-op:
                        // leave the loop instead of spinning to the bound.
                        Some((cond, then_branch)) => {
                            let (c, _) = self.exp(cond);
                            let _ = writeln!(out, "{pad}  if (!({c})) break;");
                            self.stms(out, then_branch, indent + 1);
                        }
                        None => self.stms(out, body, indent + 1),
                    }
                    let _ = writeln!(out, "{pad}}}");
                }
                Stm::If {
                    cond,
                    then_branch,
                    else_branch,
                } => {
                    let (c, _) = self.exp(cond);
                    let _ = writeln!(out, "{pad}if ({c}) {{");
                    self.stms(out, then_branch, indent + 1);
                    if else_branch.is_empty() {
                        let _ = writeln!(out, "{pad}}}");
                    } else {
                        let _ = writeln!(out, "{pad}}} else {{");
                        self.stms(out, else_branch, indent + 1);
                        let _ = writeln!(out, "{pad}}}");
                    }
                }
                Stm::Write {
                    array,
                    index,
                    value,
                } => {
                    let elem = self
                        .prog
                        .array(array)
                        .map(|a| a.elem)
                        .unwrap_or(PrimType::I8);
                    let (i, _) = self.exp(index);
                    let (v, _) = self.exp(value);
                    let _ = writeln!(out, "{pad}a_{array}[{i}] = {};", store_conv(elem, &v));
                }
                // Made by the host before the launch.
                Stm::Check(c) if c.uniform => {}
                Stm::Check(c) => {
                    let id = self.checks.iter().position(|k| k == c).unwrap_or(0);
                    let (cond, _) = self.exp(&c.cond);
                    let args: Vec<String> = c
                        .args
                        .iter()
                        .map(|a| {
                            let (e, t) = self.exp(a);
                            check_arg(&e, t)
                        })
                        .collect();
                    // The arguments are computed only on the failure path. The slot is
                    // written through PTX without a memory clobber: to the optimiser the
                    // cold branch touches no memory the kernel reads or writes (stores
                    // through a plain pointer could alias every array and pin the loads
                    // of the hot path in place).
                    let mut fail = format!(
                        "{{ u64 *fut_e = fut_err; u64 fut_o = 1; if (fut_e != 0) asm volatile(\"atom.global.cas.b64 %0, [%1], %2, %3;\" : \"=l\"(fut_o) : \"l\"(fut_e), \"l\"(0ULL), \"l\"(((u64)fut_module << 32) | {}ULL)); if (fut_o == 0) {{",
                        id + 1
                    );
                    for (k, a) in args.iter().take(32).enumerate() {
                        let _ = write!(
                            fail,
                            " asm volatile(\"st.global.u64 [%0], %1;\" :: \"l\"(fut_e + {}), \"l\"((u64){a}));",
                            k + 1
                        );
                    }
                    fail.push_str(" } }");
                    let _ = writeln!(out, "{pad}if (__builtin_expect(!({cond}), 0)) {fail}");
                }
            }
        }
    }

    /// Prints a body's statements and binds its results to `fut_r{i}`; returns their names.
    pub fn body(&self, out: &mut String, body: &Body, indent: usize) -> Vec<String> {
        self.stms(out, &body.stms, indent);
        let pad = "  ".repeat(indent);
        body.results
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let (e, t) = self.exp(r);
                let _ = writeln!(out, "{pad}const {} fut_r{i} = {e};", reg_ty(t));
                format!("fut_r{i}")
            })
            .collect()
    }

    /// Binds the space's indices from the flat index expression `flat` (only those the body
    /// uses: the divisions are not free).
    pub fn space_indices(&self, out: &mut String, body: &Body, flat: &str, indent: usize) {
        let Some(space) = &self.space else { return };
        let pad = "  ".repeat(indent);
        let _ = writeln!(out, "{pad}const i64 v_{} = {flat};", space.flat);
        let needed = needed_indices(space, body);
        if !needed.iter().any(|x| *x) {
            return;
        }
        let _ = writeln!(out, "{pad}i64 fut_rem = v_{};", space.flat);
        unflatten(out, &pad, "fut_rem", &space.dims, &needed);
    }
}

/// Which of the space's indices `body` uses (never the flat index itself).
pub fn needed_indices(space: &SegSpace, body: &Body) -> Vec<bool> {
    let used = used_vars(body);
    space
        .dims
        .iter()
        .map(|(d, _)| *d != space.flat && used.contains(d))
        .collect()
}

/// Binds the row-major indices `dims` that `needed` marks from the declared mutable `rem`
/// (their flat position), dividing `rem` down only while an outer index still needs it.
/// Positions and extents are never negative, so the prelude's `fut_idiv`/`fut_imod` may
/// divide in 32 bits when both fit (a 64-bit division is a long software routine on the
/// GPU, and this runs for every element); a remainder next to its quotient is one
/// multiply-subtract.
pub fn unflatten(out: &mut String, pad: &str, rem: &str, dims: &[(Name, Size)], needed: &[bool]) {
    for k in (0..dims.len()).rev() {
        let (d, s) = &dims[k];
        let outer = k > 0 && needed[..k].iter().any(|x| *x);
        if k == 0 {
            if needed[k] {
                let _ = writeln!(out, "{pad}const i64 v_{d} = {rem};");
            }
            continue;
        }
        let s = size_exp(s);
        match (needed[k], outer) {
            (true, true) => {
                let _ = writeln!(
                    out,
                    "{pad}const i64 fut_q_{d} = fut_idiv({rem}, {s});\n\
                     {pad}const i64 v_{d} = {rem} - fut_q_{d} * {s};\n\
                     {pad}{rem} = fut_q_{d};"
                );
            }
            (true, false) => {
                let _ = writeln!(out, "{pad}const i64 v_{d} = fut_imod({rem}, {s});");
            }
            (false, true) => {
                let _ = writeln!(out, "{pad}{rem} = fut_idiv({rem}, {s});");
            }
            (false, false) => {}
        }
    }
}

/// The C text of the integer and bit-level math functions, for arguments of type `t`.
fn special_math(f: MathFn, t: PrimType, a: &[&str]) -> Option<String> {
    let w = t.size_bytes() * 8;
    let signed = t.is_signed();
    // The operand as an unsigned word of its own width, zero-extended.
    let word = |x: &str| match w {
        8 => format!("((u32)(u8){x})"),
        16 => format!("((u32)(u16){x})"),
        32 => format!("((u32){x})"),
        _ => format!("((u64){x})"),
    };
    let mul_hi = |x: &str, y: &str| -> String {
        let rt = reg_ty(t);
        match (w, signed) {
            (64, true) => format!("((i64)__mul64hi((long long){x}, (long long){y}))"),
            (64, false) => {
                format!("((u64)__umul64hi((unsigned long long){x}, (unsigned long long){y}))")
            }
            (32, true) => format!("((i32)__mulhi((int){x}, (int){y}))"),
            (32, false) => format!("((u32)__umulhi((unsigned){x}, (unsigned){y}))"),
            (_, true) => format!("(({rt})(((i32){x} * (i32){y}) >> {w}))"),
            (_, false) => format!("(({rt})(((u32){x} * (u32){y}) >> {w}))"),
        }
    };
    Some(match f {
        MathFn::MulHi => mul_hi(a[0], a[1]),
        MathFn::MadHi => {
            let rt = reg_ty(t);
            match unsigned_of(t) {
                Some(u) => format!("(({rt})(({u}){} + ({u}){}))", mul_hi(a[0], a[1]), a[2]),
                None => format!("(({rt})({} + {}))", mul_hi(a[0], a[1]), a[2]),
            }
        }
        MathFn::Popc if w == 64 => format!("((i32)__popcll({}))", word(a[0])),
        MathFn::Popc => format!("((i32)__popc({}))", word(a[0])),
        MathFn::Clz if w == 64 => format!("((i32)__clzll((long long){}))", word(a[0])),
        MathFn::Clz => format!("((i32)(__clz((int){}) - {}))", word(a[0]), 32 - w.min(32)),
        MathFn::Ctz if w == 64 => {
            let x = word(a[0]);
            format!("({x} == 0 ? (i32)64 : (i32)(__ffsll((long long){x}) - 1))")
        }
        MathFn::Ctz => {
            let x = word(a[0]);
            format!("({x} == 0 ? (i32){w} : (i32)(__ffs((int){x}) - 1))")
        }
        MathFn::ToBits => match t {
            PrimType::F16 => format!("((i16)fut_f16_store({}))", a[0]),
            PrimType::F32 => format!("((i32)__float_as_int({}))", a[0]),
            _ => format!("((i64)__double_as_longlong({}))", a[0]),
        },
        MathFn::FromBits => match w {
            16 => format!("fut_f16_load((f16s){})", a[0]),
            32 => format!("__int_as_float((int){})", a[0]),
            _ => format!("__longlong_as_double((long long){})", a[0]),
        },
        _ => return None,
    })
}

/// Wraps an f16 result so that it is rounded to f16 precision.
fn round_f16(t: PrimType, s: String) -> String {
    if t == PrimType::F16 {
        format!("fut_f16_round({s})")
    } else {
        s
    }
}

fn collect_bindings(stms: &[Stm], types: &mut HashMap<Name, PrimType>) {
    for s in stms {
        match s {
            Stm::Let { name, ty, .. } | Stm::Mut { name, ty, .. } => {
                types.insert(name.clone(), *ty);
            }
            Stm::For { var, body, .. } => {
                types.insert(var.clone(), PrimType::I64);
                collect_bindings(body, types);
            }
            Stm::If {
                then_branch,
                else_branch,
                ..
            } => {
                collect_bindings(then_branch, types);
                collect_bindings(else_branch, types);
            }
            Stm::Assign { .. } | Stm::Write { .. } | Stm::Check(_) => {}
        }
    }
}

/// What the host needs to report a failed check: the message with its holes, the types
/// of the values that fill them, and the source location.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckSite {
    pub msg: String,
    pub arg_types: Vec<PrimType>,
    pub loc: Option<String>,
}

/// The program's checks as [`CheckSite`]s, numbered as [`program_checks`] numbers them.
pub fn check_sites(prog: &KernelProgram) -> Vec<CheckSite> {
    let mut types = HashMap::new();
    for k in &prog.kernels {
        let space = k.op.space();
        types.insert(space.flat.clone(), PrimType::I64);
        for (n, _) in &space.dims {
            types.insert(n.clone(), PrimType::I64);
        }
        collect_bindings(&k.op.body().stms, &mut types);
        if let Some(op) = k.op.op() {
            types.extend(op.params.iter().cloned());
            collect_bindings(&op.body.stms, &mut types);
        }
    }
    let em = Emitter {
        prog,
        checks: Vec::new(),
        types,
        sizes: prog.sizes.iter().cloned().collect(),
        space: None,
        vec: None,
        rows: None,
    };
    program_checks(prog)
        .into_iter()
        .map(|c| CheckSite {
            arg_types: c.args.iter().map(|a| em.exp(a).1).collect(),
            msg: c.msg,
            loc: c.loc,
        })
        .collect()
}

/// Every run-time check of a program's kernels (bodies, then operators), each once, in the
/// order that numbers them: the position here is the check's number in the failure slot.
pub fn program_checks(prog: &KernelProgram) -> Vec<futhark_ir::Check> {
    fn walk(stms: &[Stm], out: &mut Vec<futhark_ir::Check>) {
        for s in stms {
            match s {
                Stm::Check(c) => {
                    if !out.contains(c) {
                        out.push(c.clone());
                    }
                }
                Stm::For { body, .. } => walk(body, out),
                Stm::If {
                    then_branch,
                    else_branch,
                    ..
                } => {
                    walk(then_branch, out);
                    walk(else_branch, out);
                }
                Stm::Let { .. } | Stm::Mut { .. } | Stm::Assign { .. } | Stm::Write { .. } => {}
            }
        }
    }
    let mut out = Vec::new();
    for k in &prog.kernels {
        walk(&k.op.body().stms, &mut out);
        if let Some(op) = k.op.op() {
            walk(&op.body.stms, &mut out);
        }
    }
    out
}

/// A check's argument as the 64 bits the failure slot holds: integers sign- or
/// zero-extended, floats as the bits of an `f64`.
fn check_arg(e: &str, t: PrimType) -> String {
    if t.is_float() {
        format!("__double_as_longlong((f64){e})")
    } else {
        format!("(i64){e}")
    }
}

/// Every variable a body mentions.
pub fn used_vars(body: &Body) -> HashSet<Name> {
    let mut used = HashSet::new();
    body.walk(
        &mut |e| {
            e.for_each_var(&mut |v| {
                used.insert(v.clone());
            })
        },
        &mut |_| {},
    );
    used
}

/// Whether a body writes any array (such bodies are never vectorised: a write could alias
/// a vector-loaded input).
pub fn body_writes(body: &Body) -> bool {
    let mut writes = false;
    body.walk(&mut |_| {}, &mut |_| writes = true);
    writes
}

/// The arrays a body reads at the space's flat index, with their element types.
pub fn identity_reads(
    prog: &KernelProgram,
    space: &SegSpace,
    body: &Body,
) -> Vec<(Name, PrimType)> {
    let mut found: Vec<(Name, PrimType)> = Vec::new();
    body.walk(
        &mut |e| {
            e.for_each_read(&mut |arr, idx| {
                if space.is_flat_index(idx)
                    && !found.iter().any(|(n, _)| n == arr)
                    && let Some(a) = prog.array(arr)
                {
                    found.push((arr.clone(), a.elem));
                }
            })
        },
        &mut |_| {},
    );
    found
}

/// The kernel's C parameter list: arrays (const when only read), then sizes.
pub fn kernel_params(prog: &KernelProgram, kernel: &Kernel) -> Vec<String> {
    let mut written: HashSet<Name> = kernel.op.result_arrays().iter().cloned().collect();
    kernel.op.body().walk(&mut |_| {}, &mut |a| {
        written.insert(a.clone());
    });
    entry_params(prog.kernel_arrays(kernel), &written, prog.kernel_sizes())
}

/// An entry's C parameter list: the arrays (const unless in `written`), then the sizes.
pub fn entry_params<'d>(
    arrays: impl IntoIterator<Item = &'d ArrayDecl>,
    written: &HashSet<Name>,
    sizes: &[Name],
) -> Vec<String> {
    let mut params: Vec<String> = arrays
        .into_iter()
        .map(|a| {
            let c = if written.contains(&a.name) {
                ""
            } else {
                "const "
            };
            format!("{c}{}* __restrict__ a_{}", store_ty(a.elem), a.name)
        })
        .collect();
    params.extend(sizes.iter().map(|s| format!("const i64 s_{s}")));
    params
}

/// The accumulator struct, neutral element, operator and per-field helpers of a reduction,
/// scan or histogram operator, all prefixed with `name`.
pub fn operator_defs(
    prog: &KernelProgram,
    name: &str,
    op: &Lambda,
    neutral: &[PrimValue],
) -> String {
    let tys: Vec<PrimType> = neutral.iter().map(|v| v.ty()).collect();
    let k = tys.len();
    let mut s = String::new();
    let _ = writeln!(s, "struct {name}_acc {{");
    for (i, t) in tys.iter().enumerate() {
        let _ = writeln!(s, "  {} c{i};", reg_ty(*t));
    }
    let _ = writeln!(s, "}};");
    let _ = writeln!(
        s,
        "static __device__ __forceinline__ {name}_acc {name}_ne() {{"
    );
    let _ = writeln!(s, "  {name}_acc r;");
    for (i, v) in neutral.iter().enumerate() {
        let _ = writeln!(s, "  r.c{i} = {};", constant(*v));
    }
    let _ = writeln!(s, "  return r;\n}}");
    let _ = writeln!(
        s,
        "static __device__ __forceinline__ {name}_acc {name}_op(const {name}_acc fut_x, const {name}_acc fut_y) {{"
    );
    for (i, (p, t)) in op.params.iter().enumerate() {
        let src = if i < k { "fut_x" } else { "fut_y" };
        let _ = writeln!(s, "  const {} v_{p} = {src}.c{};", reg_ty(*t), i % k);
    }
    let em = Emitter::for_lambda(prog, op);
    let res = em.body(&mut s, &op.body, 1);
    let _ = writeln!(s, "  {name}_acc r;");
    for (i, r) in res.iter().enumerate() {
        let _ = writeln!(s, "  r.c{i} = {r};");
    }
    let _ = writeln!(s, "  return r;\n}}");
    for dir in ["down", "up"] {
        let _ = writeln!(
            s,
            "static __device__ __forceinline__ {name}_acc {name}_shfl_{dir}({name}_acc x, unsigned d) {{"
        );
        for i in 0..k {
            let _ = writeln!(s, "  x.c{i} = fut_shfl_{dir}(x.c{i}, d);");
        }
        let _ = writeln!(s, "  return x;\n}}");
    }
    let _ = writeln!(
        s,
        "static __device__ __forceinline__ {name}_acc {name}_shfl_idx({name}_acc x, int l) {{"
    );
    for i in 0..k {
        let _ = writeln!(s, "  x.c{i} = fut_shfl_idx(x.c{i}, l);");
    }
    let _ = writeln!(s, "  return x;\n}}");
    let _ = writeln!(
        s,
        "static __device__ __forceinline__ {name}_acc {name}_ldcg(const {name}_acc* p) {{\n  {name}_acc r;"
    );
    for i in 0..k {
        let _ = writeln!(s, "  r.c{i} = fut_ldcg(&p->c{i});");
    }
    let _ = writeln!(s, "  return r;\n}}");
    // Order-preserving warp reduction: after step d, lane l holds lanes [l, l + 2d) combined
    // left to right, so lane 0 ends with all 32 in order (non-commutative operators are safe).
    let _ = writeln!(
        s,
        "static __device__ __forceinline__ {name}_acc {name}_warp_reduce({name}_acc x) {{\n  #pragma unroll\n  for (unsigned d = 1; d < 32; d <<= 1) {{\n    const {name}_acc y = {name}_shfl_down(x, d);\n    if ((threadIdx.x & 31) + d < 32) x = {name}_op(x, y);\n  }}\n  return x;\n}}"
    );
    // Block reduction in thread order; the result is valid in thread 0. `scratch` holds one
    // accumulator per warp. Ends with a barrier so the scratch can be reused at once.
    let _ = writeln!(
        s,
        "static __device__ __forceinline__ {name}_acc {name}_block_reduce({name}_acc x, {name}_acc* scratch) {{\n  const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;\n  x = {name}_warp_reduce(x);\n  if (lane == 0) scratch[warp] = x;\n  __syncthreads();\n  if (warp == 0) {{\n    x = lane < nwarps ? scratch[lane] : {name}_ne();\n    x = {name}_warp_reduce(x);\n  }}\n  __syncthreads();\n  return x;\n}}"
    );
    // Stores of an accumulator into the result arrays (one per component).
    s
}

/// Statements storing accumulator `acc` at index `idx` of the given arrays.
pub fn store_acc(
    prog: &KernelProgram,
    outputs: &[Name],
    acc: &str,
    idx: &str,
    pad: &str,
) -> String {
    let mut s = String::new();
    for (i, o) in outputs.iter().enumerate() {
        let elem = prog.array(o).map(|a| a.elem).unwrap_or(PrimType::I8);
        let _ = writeln!(
            s,
            "{pad}a_{o}[{idx}] = {};",
            store_conv(elem, &format!("{acc}.c{i}"))
        );
    }
    s
}

/// Statements building an accumulator named `acc` from result names.
pub fn make_acc(name: &str, acc: &str, results: &[String], pad: &str) -> String {
    let mut s = format!("{pad}{name}_acc {acc};\n");
    for (i, r) in results.iter().enumerate() {
        let _ = writeln!(s, "{pad}{acc}.c{i} = {r};");
    }
    s
}
