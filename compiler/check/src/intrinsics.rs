//! The initial environment: primitive types, the accumulator type `acc`, the overloaded
//! operators, and the `intrinsics` module with every built-in function.
//!
//! Intrinsic signatures are written as small Futhark type strings (`'a [n] : [n]a -> i64`)
//! and read by a tiny parser here, so the table below reads like the specification. All
//! intrinsic names come from one deterministic name supply in a reserved file id, so every
//! check of every file agrees on them.

use std::sync::Arc;

use futhark_syntax::FileId;
use rustc_hash::FxHashMap;

use crate::env::{Env, Mod, ModBinding, Overload, Scheme, TypeBinding, ValBinding};
use crate::info::{DefKind, DefRef};
use crate::types::{
    Arrow, Liftedness, Name, PrimType, RetType, Size, TParam, Type, TypeArg, TypeVar, VName,
};
use crate::unify::NameSupply;

/// The file id reserved for intrinsic names.
pub const INTRINSICS_FILE: FileId = FileId(u32::MAX);

/// The initial environment and the names other parts of the checker need to know.
#[derive(Clone, Debug)]
pub struct Intrinsics {
    /// Unqualified scope before the prelude: primitive types, `acc`, the overloaded operators
    /// and the `intrinsics` module.
    pub env: Env,
    /// The `intrinsics` module's own environment.
    pub module: Arc<Env>,
    pub intrinsics_mod: VName,
    /// Names of the overloaded operators, by operator text.
    pub ops: FxHashMap<Name, VName>,
    pub acc: VName,
}

impl Intrinsics {
    pub fn op(&self, name: &str) -> Option<&VName> {
        self.ops.get(name)
    }
}

const OVERLOADED: &[(&str, Overload)] = &[
    ("+", Overload::Arith),
    ("-", Overload::Arith),
    ("*", Overload::Arith),
    ("/", Overload::Arith),
    ("%", Overload::Arith),
    ("**", Overload::Arith),
    ("//", Overload::IntArith),
    ("%%", Overload::IntArith),
    (">>", Overload::IntArith),
    ("<<", Overload::IntArith),
    ("&", Overload::IntArith),
    ("^", Overload::IntArith),
    ("|", Overload::IntArith),
    ("&&", Overload::Logic),
    ("||", Overload::Logic),
    ("==", Overload::Equality),
    ("!=", Overload::Equality),
    ("<", Overload::Ordering),
    ("<=", Overload::Ordering),
    (">", Overload::Ordering),
    (">=", Overload::Ordering),
    ("!", Overload::Not),
];

/// Polymorphic intrinsics with their signatures.
const POLYMORPHIC: &[(&str, &str)] = &[
    ("map", "'a 'b [n] : (a -> b) -> [n]a -> *[n]b"),
    ("reduce", "'a [n] : (a -> a -> a) -> a -> [n]a -> *a"),
    ("reduce_comm", "'a [n] : (a -> a -> a) -> a -> [n]a -> *a"),
    ("scan", "'a [n] : (a -> a -> a) -> a -> [n]a -> *[n]a"),
    (
        "hist_1d",
        "'a [n] [m] : i64 -> *[m]a -> (a -> a -> a) -> a -> [n]i64 -> [n]a -> *[m]a",
    ),
    (
        "hist_2d",
        "'a [n] [m] [k] : i64 -> *[m][k]a -> (a -> a -> a) -> a -> [n](i64, i64) -> [n]a -> *[m][k]a",
    ),
    (
        "hist_3d",
        "'a [n] [m] [k] [l] : i64 -> *[m][k][l]a -> (a -> a -> a) -> a -> [n](i64, i64, i64) -> [n]a -> *[m][k][l]a",
    ),
    ("scatter", "'a [n] [l] : *[n]a -> [l]i64 -> [l]a -> *[n]a"),
    (
        "scatter_2d",
        "'a [n] [m] [l] : *[n][m]a -> [l](i64, i64) -> [l]a -> *[n][m]a",
    ),
    (
        "scatter_3d",
        "'a [n] [m] [k] [l] : *[n][m][k]a -> [l](i64, i64, i64) -> [l]a -> *[n][m][k]a",
    ),
    ("zip", "'a 'b [n] : [n]a -> [n]b -> *[n](a, b)"),
    ("unzip", "'a 'b [n] : [n](a, b) -> (*[n]a, *[n]b)"),
    ("concat", "'a [n] [m] : [n]a -> [m]a -> *[n + m]a"),
    ("transpose", "'a [n] [m] : [n][m]a -> [m][n]a"),
    ("flatten", "'a [n] [m] : [n][m]a -> [n * m]a"),
    (
        "unflatten",
        "'a [n] [m] : i64 -> i64 -> [n * m]a -> [n][m]a",
    ),
    ("manifest", "'a : a -> *a"),
    (
        "flatmap",
        "'a 'b 'c [n] : (a -> ?[k].([k]b, c)) -> [n]a -> ?[m].(*[n]i64, *[m]bool, *[n]i64, *[m]b, *[n]c)",
    ),
    (
        "partition",
        "'a [n] : i32 -> (a -> i64) -> [n]a -> ?[k].(*[n]a, *[k]i64)",
    ),
    ("jvp2", "'^a '^b : (a -> b) -> a -> a -> (b, b)"),
    ("vjp2", "'^a '^b : (a -> b) -> a -> b -> (b, a)"),
    ("jmp2", "'^a '^b [n] : (a -> b) -> a -> [n]a -> (b, *[n]b)"),
    ("mjp2", "'^a '^b [n] : (a -> b) -> a -> [n]b -> (b, *[n]a)"),
    ("with_vjp", "'^a '^b : (a -> b) -> (b -> b -> a) -> a -> b"),
    (
        "acc_write",
        "[k] 'a : *acc ([k]a) -> i64 -> a -> *acc ([k]a)",
    ),
    (
        "scatter_stream",
        "'a 'b [k] [n] : *[k]a -> (*acc ([k]a) -> b -> acc ([k]a)) -> [n]b -> *[k]a",
    ),
    (
        "hist_stream",
        "'a 'b [k] [n] : *[k]a -> (a -> a -> a) -> a -> (*acc ([k]a) -> b -> acc ([k]a)) -> [n]b -> *[k]a",
    ),
    (
        "flat_index_2d",
        "'a [n] : [n]a -> i64 -> i64 -> i64 -> i64 -> i64 -> ?[m][k].[m][k]a",
    ),
    (
        "flat_update_2d",
        "'a [n] [k] [l] : *[n]a -> i64 -> i64 -> i64 -> [k][l]a -> *[n]a",
    ),
    (
        "flat_index_3d",
        "'a [n] : [n]a -> i64 -> i64 -> i64 -> i64 -> i64 -> i64 -> i64 -> ?[m][k][l].[m][k][l]a",
    ),
    (
        "flat_update_3d",
        "'a [n] [k] [l] [p] : *[n]a -> i64 -> i64 -> i64 -> i64 -> [k][l][p]a -> *[n]a",
    ),
    (
        "flat_index_4d",
        "'a [n] : [n]a -> i64 -> i64 -> i64 -> i64 -> i64 -> i64 -> i64 -> i64 -> i64 -> ?[m][k][l][p].[m][k][l][p]a",
    ),
    (
        "flat_update_4d",
        "'a [n] [k] [l] [p] [q] : *[n]a -> i64 -> i64 -> i64 -> i64 -> i64 -> [k][l][p][q]a -> *[n]a",
    ),
];

/// All monomorphic primitive intrinsics, as (name, signature) pairs.
fn primitive_intrinsics() -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    let mut add = |n: String, t: String| out.push((n, t));
    for bits in [8, 16, 32, 64] {
        let i = format!("i{bits}");
        let u = format!("u{bits}");
        let bin = format!("({i}, {i}) -> {i}");
        add(format!("sign_i{bits}"), format!("{u} -> {i}"));
        add(format!("unsign_i{bits}"), format!("{i} -> {u}"));
        for op in [
            "add", "sub", "mul", "add_nw", "sub_nw", "mul_nw", "sdiv", "smod", "squot", "srem",
            "udiv", "umod", "sdiv_up", "udiv_up", "smin", "smax", "umin", "umax", "shl", "lshr",
            "ashr", "and", "or", "xor", "pow", "smul_hi", "umul_hi",
        ] {
            add(format!("{op}{bits}"), bin.clone());
        }
        for op in [
            "sdiv", "sdiv_up", "udiv", "udiv_up", "smod", "umod", "squot", "srem",
        ] {
            add(format!("{op}_safe{bits}"), bin.clone());
        }
        for op in ["complement", "abs", "ssignum", "usignum"] {
            add(format!("{op}{bits}"), format!("{i} -> {i}"));
        }
        for op in ["clz", "ctz", "popc"] {
            add(format!("{op}{bits}"), format!("{i} -> i32"));
        }
        for op in ["smad_hi", "umad_hi"] {
            add(format!("{op}{bits}"), format!("({i}, {i}, {i}) -> {i}"));
        }
        add(format!("eq_i{bits}"), format!("({i}, {i}) -> bool"));
        for op in ["slt", "sle", "ult", "ule"] {
            add(format!("{op}{bits}"), format!("({i}, {i}) -> bool"));
        }
        add(format!("itob_i{bits}_bool"), format!("{i} -> bool"));
        add(format!("btoi_bool_i{bits}"), format!("bool -> {i}"));
        for to in [8, 16, 32, 64] {
            add(format!("zext_i{bits}_i{to}"), format!("{i} -> i{to}"));
            add(format!("sext_i{bits}_i{to}"), format!("{i} -> i{to}"));
        }
        for f in [16, 32, 64] {
            add(format!("sitofp_i{bits}_f{f}"), format!("{i} -> f{f}"));
            add(format!("uitofp_i{bits}_f{f}"), format!("{i} -> f{f}"));
            add(format!("fptosi_f{f}_i{bits}"), format!("f{f} -> {i}"));
            add(format!("fptoui_f{f}_i{bits}"), format!("f{f} -> {i}"));
        }
    }
    for bits in [16, 32, 64] {
        let f = format!("f{bits}");
        let bin = format!("({f}, {f}) -> {f}");
        for op in [
            "fadd",
            "fsub",
            "fmul",
            "fdiv",
            "fmod",
            "fpow",
            "fmin",
            "fmax",
            "hypot",
            "nextafter",
            "copysign",
        ] {
            add(format!("{op}{bits}"), bin.clone());
        }
        for op in ["atan2_", "atan2pi_"] {
            add(format!("{op}{bits}"), bin.clone());
        }
        for op in ["eq_f", "lt", "le"] {
            add(format!("{op}{bits}"), format!("({f}, {f}) -> bool"));
        }
        for op in [
            "fabs", "fsignum", "sqrt", "rsqrt", "cbrt", "log", "log2_", "log10_", "log1p_", "exp",
            "sin", "cos", "tan", "sinpi", "cospi", "tanpi", "asin", "acos", "atan", "asinpi",
            "acospi", "atanpi", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "gamma",
            "lgamma", "erf", "erfc", "round", "ceil", "floor",
        ] {
            add(format!("{op}{bits}"), format!("{f} -> {f}"));
        }
        add(format!("ldexp{bits}"), format!("({f}, i32) -> {f}"));
        for op in ["isinf", "isnan"] {
            add(format!("{op}{bits}"), format!("{f} -> bool"));
        }
        for op in ["lerp", "mad", "fma"] {
            add(format!("{op}{bits}"), format!("({f}, {f}, {f}) -> {f}"));
        }
        for to in [16, 32, 64] {
            add(format!("fpconv_f{bits}_f{to}"), format!("{f} -> f{to}"));
        }
        add(
            format!("fptobits_f{bits}_i{bits}"),
            format!("{f} -> i{bits}"),
        );
        add(
            format!("bitstofp_i{bits}_f{bits}"),
            format!("i{bits} -> {f}"),
        );
        add(format!("ftob_f{bits}_bool"), format!("{f} -> bool"));
        add(format!("btof_bool_f{bits}"), format!("bool -> {f}"));
    }
    for t in ["i8", "i16", "i32", "i64", "f16", "f32", "f64", "bool"] {
        add(format!("neg_{t}"), format!("{t} -> {t}"));
        add(format!("cond_{t}"), format!("(bool, {t}, {t}) -> {t}"));
    }
    add("neg_unit".into(), "bool -> bool".into());
    add("cond_unit".into(), "(bool, bool, bool) -> bool".into());
    for op in ["eq_bool", "llt", "lle", "eq_unit", "logand", "logor"] {
        add(op.into(), "(bool, bool) -> bool".into());
    }
    out
}

/// A parser for the signature strings above.
struct SigParser<'a> {
    toks: Vec<String>,
    pos: usize,
    supply: &'a mut NameSupply,
    scope: Vec<(String, VName)>,
    acc: VName,
    plus: VName,
    times: VName,
}

fn tokenize(s: &str) -> Vec<String> {
    let mut toks = Vec::new();
    let cs: Vec<char> = s.chars().collect();
    let mut i = 0;
    while i < cs.len() {
        let c = cs[i];
        if c.is_whitespace() {
            i += 1;
        } else if c.is_ascii_alphanumeric() || c == '_' {
            let start = i;
            while i < cs.len() && (cs[i].is_ascii_alphanumeric() || cs[i] == '_') {
                i += 1;
            }
            toks.push(cs[start..i].iter().collect());
        } else if c == '-' && cs.get(i + 1) == Some(&'>') {
            toks.push("->".into());
            i += 2;
        } else if c == '\'' {
            // `'a`, `'^a`, `'~a` become one token.
            let start = i;
            i += 1;
            if i < cs.len() && (cs[i] == '^' || cs[i] == '~') {
                i += 1;
            }
            while i < cs.len() && (cs[i].is_ascii_alphanumeric() || cs[i] == '_') {
                i += 1;
            }
            toks.push(cs[start..i].iter().collect());
        } else {
            toks.push(c.to_string());
            i += 1;
        }
    }
    toks
}

impl SigParser<'_> {
    fn peek(&self) -> &str {
        self.toks.get(self.pos).map(|s| s.as_str()).unwrap_or("")
    }

    fn next(&mut self) -> String {
        let t = self.peek().to_string();
        self.pos += 1;
        t
    }

    fn lookup(&self, n: &str) -> Option<VName> {
        self.scope
            .iter()
            .rev()
            .find(|(x, _)| x == n)
            .map(|(_, v)| v.clone())
    }

    fn sig(&mut self) -> (Vec<TParam>, Type) {
        let mut tparams = Vec::new();
        loop {
            let t = self.peek().to_string();
            if let Some(rest) = t.strip_prefix('\'') {
                self.pos += 1;
                let (lifted, name) = if let Some(n) = rest.strip_prefix('^') {
                    (Liftedness::Lifted, n)
                } else if let Some(n) = rest.strip_prefix('~') {
                    (Liftedness::SizeLifted, n)
                } else {
                    (Liftedness::Unlifted, rest)
                };
                let v = self.supply.fresh(name);
                self.scope.push((name.to_string(), v.clone()));
                tparams.push(TParam::Type { name: v, lifted });
            } else if t == "[" {
                self.pos += 1;
                let name = self.next();
                self.next(); // ]
                let v = self.supply.fresh(name.as_str());
                self.scope.push((name, v.clone()));
                tparams.push(TParam::Size { name: v });
            } else {
                break;
            }
        }
        if self.peek() == ":" {
            self.pos += 1;
        }
        let t = self.ty();
        (tparams, t)
    }

    fn ty(&mut self) -> Type {
        let r = self.ret();
        if self.peek() == "->" {
            self.pos += 1;
            let rest = self.ret_or_ty();
            let param = if r.ext.is_empty() { r.ty } else { Type::Error };
            Type::Arrow(Box::new(Arrow {
                param_name: None,
                param,
                ret: rest,
            }))
        } else if r.ext.is_empty() {
            r.ty
        } else {
            // A bare existential at the top is only meaningful as a return type.
            r.ty
        }
    }

    fn ret_or_ty(&mut self) -> RetType {
        let save = self.pos;
        let r = self.ret();
        if self.peek() == "->" {
            self.pos = save;
            return RetType::plain(self.ty());
        }
        r
    }

    /// `?[k]… .t` or a plain term.
    fn ret(&mut self) -> RetType {
        if self.peek() == "?" {
            self.pos += 1;
            let mut ext = Vec::new();
            while self.peek() == "[" {
                self.pos += 1;
                let name = self.next();
                self.next();
                let v = self.supply.fresh(name.as_str());
                self.scope.push((name, v.clone()));
                ext.push(v);
            }
            self.next(); // .
            let ty = self.ty();
            RetType { ext, ty }
        } else {
            RetType::plain(self.term())
        }
    }

    fn term(&mut self) -> Type {
        if self.peek() == "*" {
            self.pos += 1;
            return self.term().with_unique(true);
        }
        if self.peek() == "acc" {
            self.pos += 1;
            let arg = self.atom();
            return Type::Var(TypeVar {
                name: self.acc.clone(),
                unique: false,
                args: vec![TypeArg::Type(arg)],
            });
        }
        self.atom()
    }

    fn atom(&mut self) -> Type {
        let t = self.next();
        match t.as_str() {
            "(" => {
                if self.peek() == ")" {
                    self.pos += 1;
                    return Type::unit();
                }
                let mut elems = vec![self.ty()];
                while self.peek() == "," {
                    self.pos += 1;
                    elems.push(self.ty());
                }
                self.next(); // )
                Type::tuple(elems)
            }
            "[" => {
                let size = self.size();
                self.next(); // ]
                let elem = self.term();
                Type::array(elem, vec![size], false)
            }
            name => {
                if let Some(p) = PrimType::from_name(name) {
                    Type::Prim(p)
                } else if let Some(v) = self.lookup(name) {
                    Type::var(v)
                } else {
                    Type::Error
                }
            }
        }
    }

    fn size(&mut self) -> Size {
        let mut s = self.size_atom();
        loop {
            match self.peek() {
                "+" => {
                    self.pos += 1;
                    let r = self.size_atom();
                    s = Size::BinOp(self.plus.clone(), Box::new(s), Box::new(r));
                }
                "*" => {
                    self.pos += 1;
                    let r = self.size_atom();
                    s = Size::BinOp(self.times.clone(), Box::new(s), Box::new(r));
                }
                _ => return s,
            }
        }
    }

    fn size_atom(&mut self) -> Size {
        let t = self.next();
        match self.lookup(&t) {
            Some(v) => Size::Var(v),
            None => Size::Lit(t.parse().unwrap_or(0)),
        }
    }
}

fn intrinsic_def(v: &VName) -> DefRef {
    DefRef::new(v, DefKind::Intrinsic, None, None)
}

/// Builds the initial environment. Deterministic: every call yields the same names.
pub fn build() -> Intrinsics {
    let mut supply = NameSupply::new(INTRINSICS_FILE.0);
    let mut module = Env::default();
    let mut top = Env::default();

    // Primitive types and `acc`.
    for p in PrimType::ALL {
        let v = supply.fresh(p.name());
        let b = TypeBinding {
            params: vec![],
            ty: RetType::plain(Type::Prim(p)),
            lifted: Liftedness::Unlifted,
            def: DefRef::new(&v, DefKind::Intrinsic, None, None),
        };
        top.insert_type(Name::from(p.name()), b.clone());
        module.insert_type(Name::from(p.name()), b);
    }
    let acc = supply.fresh("acc");
    let acc_param = supply.fresh("t");
    let acc_binding = TypeBinding {
        params: vec![TParam::Type {
            name: acc_param.clone(),
            lifted: Liftedness::Unlifted,
        }],
        ty: RetType::plain(Type::Var(TypeVar {
            name: acc.clone(),
            unique: false,
            args: vec![TypeArg::Type(Type::var(acc_param))],
        })),
        lifted: Liftedness::SizeLifted,
        def: intrinsic_def(&acc),
    };
    top.insert_type(Name::from("acc"), acc_binding.clone());
    module.insert_type(Name::from("acc"), acc_binding);

    // Overloaded operators.
    let mut ops = FxHashMap::default();
    for (op, kind) in OVERLOADED {
        let v = supply.fresh(*op);
        ops.insert(Name::from(*op), v.clone());
        let b = ValBinding {
            vname: v.clone(),
            scheme: std::sync::Arc::new(Scheme::Overloaded(*kind)),
            def: intrinsic_def(&v),
        };
        top.insert_val(Name::from(*op), b.clone());
        module.insert_val(Name::from(*op), b);
    }
    let neg = supply.fresh("neg");
    module.insert_val(
        Name::from("neg"),
        ValBinding {
            vname: neg.clone(),
            scheme: std::sync::Arc::new(Scheme::Overloaded(Overload::Neg)),
            def: intrinsic_def(&neg),
        },
    );

    let plus = ops[&Name::from("+")].clone();
    let times = ops[&Name::from("*")].clone();
    let add_sig = |module: &mut Env, supply: &mut NameSupply, name: &str, sig: &str| {
        let mut p = SigParser {
            toks: tokenize(sig),
            pos: 0,
            supply,
            scope: Vec::new(),
            acc: acc.clone(),
            plus: plus.clone(),
            times: times.clone(),
        };
        let (tparams, ty) = p.sig();
        let v = p.supply.fresh(name);
        module.insert_val(
            Name::from(name),
            ValBinding {
                vname: v.clone(),
                scheme: std::sync::Arc::new(Scheme::Poly(tparams, ty)),
                def: intrinsic_def(&v),
            },
        );
    };
    for (name, sig) in POLYMORPHIC {
        add_sig(&mut module, &mut supply, name, sig);
    }
    for (name, sig) in primitive_intrinsics() {
        add_sig(&mut module, &mut supply, &name, &sig);
    }

    let module = Arc::new(module);
    let intrinsics_mod = supply.fresh("intrinsics");
    top.insert_mod(
        Name::from("intrinsics"),
        ModBinding {
            vname: intrinsics_mod.clone(),
            m: Mod::Env(module.clone()),
            def: DefRef::new(&intrinsics_mod, DefKind::Module, None, None),
        },
    );
    Intrinsics {
        env: top,
        module,
        intrinsics_mod,
        ops,
        acc,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn show(i: &Intrinsics, name: &str) -> String {
        match &*i.module.vals[name].scheme {
            Scheme::Poly(ps, t) => format!("{}: {}", crate::pretty::tparams_prefix(ps), t),
            Scheme::Overloaded(o) => format!("{o:?}"),
        }
    }

    #[test]
    fn signatures_parse() {
        let i = build();
        assert_eq!(show(&i, "map"), "'a 'b [n] : (a -> b) -> [n]a -> *[n]b");
        assert_eq!(show(&i, "concat"), "'a [n] [m] : [n]a -> [m]a -> *[n + m]a");
        assert_eq!(
            show(&i, "flatmap"),
            "'a 'b 'c [n] : (a -> ?[k].([k]b, c)) -> [n]a -> ?[m].(*[n]i64, *[m]bool, *[n]i64, *[m]b, *[n]c)"
        );
        assert_eq!(
            show(&i, "acc_write"),
            "[k] 'a : *acc ([k]a) -> i64 -> a -> *acc ([k]a)"
        );
        assert_eq!(show(&i, "add32"), ": (i32, i32) -> i32");
        assert_eq!(show(&i, "fptoui_f32_i8"), ": f32 -> i8");
        assert!(i.module.vals.len() > 500);
    }

    #[test]
    fn deterministic_names() {
        let a = build();
        let b = build();
        assert_eq!(a.ops[&Name::from("+")], b.ops[&Name::from("+")]);
        assert_eq!(a.module.vals["map"].vname, b.module.vals["map"].vname);
    }
}
