//! `simplify`: constant folding, copy propagation, branch folding and dead code removal,
//! repeated until nothing changes.
//!
//! Copy propagation replaces a name bound to an atom (or to an identity reshape, index or
//! transpose) by that atom everywhere after, types included. Folding evaluates scalar
//! operations on constants with Futhark's semantics (wrapping integers, flooring signed
//! division) and applies the algebraic identities that are exact (`x*1`, `x+0` on
//! integers, `b && true`). A branch on a constant is replaced by the chosen body. Dead code
//! removal keeps a statement only if something later uses what it binds, or it is an
//! assertion.

use std::collections::{HashMap, HashSet};

use futhark_ir::soacs::{
    BinOp, Body, CmpOp, ConvOp, Exp, FunDef, Name, Program, Rewriter, Stm, SubExp, Type, UnOp,
    uses_in_exp,
};
use futhark_ir::types::{PrimType, PrimValue};

use crate::util::{binder_types, inner_bodies_mut};

/// The `simplify` pass.
pub fn simplify(mut prog: Program) -> Program {
    for f in &mut prog.funs {
        simplify_fun(f);
    }
    prune_kernels(&mut prog);
    // Copy propagation may make an updated array and a later-read one the same name.
    let mut ns = futhark_ir::soacs::NameSource::for_program(&prog);
    futhark_ir::soacs::insert_copies(&mut prog, &mut ns);
    prog
}

/// Drops kernel programs that no launch refers to any more.
pub(crate) fn prune_kernels(prog: &mut Program) {
    if prog.kernels.is_empty() {
        return;
    }
    let mut launched = HashMap::new();
    for f in &prog.funs {
        launches(&f.body, &mut launched);
    }
    prog.kernels.retain(|k| launched.contains_key(&k.name));
}

/// How many launch statements name each kernel program (in branches and loops too).
pub(crate) fn launches(b: &Body, out: &mut HashMap<Name, usize>) {
    for s in &b.stms {
        match &s.exp {
            Exp::Launch(l) => {
                *out.entry(l.kernel.clone()).or_default() += 1;
            }
            Exp::If {
                then_body,
                else_body,
                ..
            } => {
                launches(then_body, out);
                launches(else_body, out);
            }
            Exp::Loop { body, .. } => launches(body, out),
            _ => {}
        }
    }
}

fn simplify_fun(f: &mut FunDef) {
    for _ in 0..8 {
        let before = f.clone();
        let mut s = Simplifier {
            subst: HashMap::new(),
            types: binder_types(f),
        };
        s.body(&mut f.body);
        if *f == before {
            break;
        }
    }
}

struct Simplifier {
    subst: HashMap<Name, SubExp>,
    types: HashMap<Name, Type>,
}

impl Simplifier {
    fn type_of(&self, s: &SubExp) -> Option<Type> {
        match s {
            SubExp::Const(c) => Some(Type::Prim(c.ty())),
            SubExp::Var(v) => self.types.get(v).cloned(),
        }
    }

    fn sub(&self, s: &SubExp) -> SubExp {
        match s {
            SubExp::Var(v) => self.subst.get(v).cloned().unwrap_or_else(|| s.clone()),
            c => c.clone(),
        }
    }

    fn body(&mut self, b: &mut Body) {
        let stms = std::mem::take(&mut b.stms);
        let mut out = Vec::with_capacity(stms.len());
        for mut stm in stms {
            if !self.subst.is_empty() {
                Rewriter::subst(&self.subst).stm(&mut stm);
            }
            inner_bodies_mut(&mut stm.exp, &mut |bb| self.body(bb));
            for h in hoist_invariant(&mut stm) {
                out.extend(self.fold(h));
            }
            out.extend(self.fold(stm));
        }
        for r in &mut b.result {
            *r = self.sub(r);
        }
        b.stms = out;
        dce(b);
    }

    /// The statements replacing `stm` (none when it folded into substitutions).
    fn fold(&mut self, stm: Stm) -> Vec<Stm> {
        if stm.pat.ctx.is_empty()
            && let [p] = stm.pat.elems.as_slice()
            && let Some(v) = self.fold_exp(&stm.exp, &p.ty)
        {
            self.subst.insert(p.name.clone(), v);
            return Vec::new();
        }
        match &stm.exp {
            Exp::Assert {
                cond: SubExp::Const(PrimValue::Bool(true)),
                ..
            } => Vec::new(),
            Exp::If {
                cond: SubExp::Const(PrimValue::Bool(b)),
                then_body,
                else_body,
                ..
            } => {
                let body = if *b { then_body } else { else_body };
                self.bind_results(&stm, &body.result);
                body.stms.clone()
            }
            Exp::If {
                cond,
                then_body,
                else_body,
                ..
            } if then_body.stms.is_empty() && else_body.stms.is_empty() => {
                if then_body.result == else_body.result {
                    self.bind_results(&stm, &then_body.result);
                    return Vec::new();
                }
                // `if c then x else false` is `c && x` (and the `||` form), for atoms only.
                if let ([t], [e]) = (then_body.result.as_slice(), else_body.result.as_slice()) {
                    let logic = match (t, e) {
                        (x, SubExp::Const(PrimValue::Bool(false))) => Some((BinOp::LogAnd, x)),
                        (SubExp::Const(PrimValue::Bool(true)), x) => Some((BinOp::LogOr, x)),
                        _ => None,
                    };
                    if let Some((op, x)) = logic
                        && self.type_of(x) == Some(Type::Prim(PrimType::Bool))
                    {
                        return vec![Stm::new(
                            stm.pat.clone(),
                            Exp::BinOp(op, cond.clone(), x.clone()),
                        )];
                    }
                }
                vec![stm]
            }
            _ => vec![stm],
        }
    }

    /// Substitutes a statement's names (sizes included) by the given results.
    fn bind_results(&mut self, stm: &Stm, results: &[SubExp]) {
        for c in &stm.pat.ctx {
            'find: for (p, r) in stm.pat.elems.iter().zip(results) {
                if let Some(t) = self.type_of(r) {
                    for (pd, rd) in p.ty.shape().iter().zip(t.shape()) {
                        if pd.as_var() == Some(c) {
                            let rd = self.sub(rd);
                            self.subst.insert(c.clone(), rd);
                            break 'find;
                        }
                    }
                }
            }
        }
        for (p, r) in stm.pat.elems.iter().zip(results) {
            self.subst.insert(p.name.clone(), r.clone());
        }
    }

    /// What a single-result expression of type `ty` folds to, if it is an atom.
    fn fold_exp(&self, e: &Exp, ty: &Type) -> Option<SubExp> {
        let is = |s: &SubExp, k: i128| s.as_const().and_then(as_int) == Some(k);
        match e {
            Exp::SubExp(s) => (self.type_of(s).as_ref() == Some(ty)).then(|| s.clone()),
            Exp::BinOp(op, SubExp::Const(a), SubExp::Const(b)) => {
                eval_bin(*op, *a, *b).map(SubExp::Const)
            }
            Exp::BinOp(op, a, b) => {
                let int = ty.elem().is_int();
                match op {
                    BinOp::Add if int && is(b, 0) => Some(a.clone()),
                    BinOp::Add if int && is(a, 0) => Some(b.clone()),
                    BinOp::Sub if int && is(b, 0) => Some(a.clone()),
                    BinOp::Mul if int && is(b, 1) => Some(a.clone()),
                    BinOp::Mul if int && is(a, 1) => Some(b.clone()),
                    BinOp::SDiv | BinOp::SQuot | BinOp::UDiv if is(b, 1) => Some(a.clone()),
                    BinOp::LogAnd | BinOp::LogOr => {
                        let unit = *op == BinOp::LogAnd;
                        match (a.as_const(), b.as_const()) {
                            (_, Some(PrimValue::Bool(x))) if x == unit => Some(a.clone()),
                            (Some(PrimValue::Bool(x)), _) if x == unit => Some(b.clone()),
                            (_, Some(PrimValue::Bool(x))) | (Some(PrimValue::Bool(x)), _) => {
                                Some(SubExp::Const(PrimValue::Bool(x)))
                            }
                            _ => None,
                        }
                    }
                    _ => None,
                }
            }
            Exp::CmpOp(op, SubExp::Const(a), SubExp::Const(b)) => {
                eval_cmp(*op, *a, *b).map(|r| SubExp::Const(PrimValue::Bool(r)))
            }
            Exp::CmpOp(CmpOp::Eq, a, b) if a == b => {
                let t = self.type_of(a)?;
                (!t.elem().is_float()).then_some(SubExp::Const(PrimValue::Bool(true)))
            }
            Exp::UnOp(op, SubExp::Const(a)) => eval_un(*op, *a).map(SubExp::Const),
            Exp::Conv(op, SubExp::Const(a)) => eval_conv(*op, *a).map(SubExp::Const),
            Exp::Reshape { shape, arr } => {
                let t = self.types.get(arr)?;
                let shape: Vec<SubExp> = shape.iter().map(|d| self.sub(d)).collect();
                let have: Vec<SubExp> = t.shape().iter().map(|d| self.sub(d)).collect();
                (have == shape && t.with_shape(shape.clone()) == *ty)
                    .then(|| SubExp::Var(arr.clone()))
            }
            Exp::Rearrange { perm, arr } if perm.iter().enumerate().all(|(i, p)| i == *p) => {
                Some(SubExp::Var(arr.clone()))
            }
            Exp::Index(arr, idx) if idx.is_empty() => Some(SubExp::Var(arr.clone())),
            _ => None,
        }
    }
}

/// Removes statements whose results nothing uses (assertions stay).
/// Moves the statements of a SOAC lambda's or a loop's body that compute a size its
/// arrays have (an `i64` scalar named in a type inside the body, or one such a size is
/// computed from) and use nothing the body binds (its parameters, its other statements)
/// out in front of it: they compute the same value every time. Such a size, computed from
/// values known outside (`n - 1` of an inlined call), is then known before a kernel
/// starts. Only operations that cannot fail move (no integer division by a non-constant),
/// so a body that never runs fails the same; other scalars stay where they are used.
/// Invariant `rearrange`s (views, which cannot fail) move too, with the scalars they need.
pub(crate) fn hoist_invariant(stm: &mut Stm) -> Vec<Stm> {
    let mut out = Vec::new();
    let mut take = |body: &mut Body, bound: HashSet<Name>| {
        let mut sizes = HashSet::new();
        dims_in_body(body, &mut sizes);
        // Invariant transpositions are views: hoisted, the array is rearranged once (kernel
        // extraction reads through the view) instead of being replicated per row when the
        // map is distributed (matmul's `transpose b` made an n×p×m array). Only where
        // nothing in the body consumes an array, so no iteration updates the shared view.
        let views = !consumes_deep(body);
        if views {
            sizes.extend(
                body.stms
                    .iter()
                    .filter(|s| matches!(s.exp, Exp::Rearrange { .. }))
                    .flat_map(|s| s.pat.elems.iter().map(|p| p.name.clone())),
            );
        }
        if sizes.is_empty() {
            return;
        }
        // What those sizes are computed from, among the body's own statements.
        for s in body.stms.iter().rev() {
            if let [p] = s.pat.elems.as_slice()
                && sizes.contains(&p.name)
                && cannot_fail(&s.exp)
            {
                sizes.extend(uses_in_exp(&s.exp));
            }
        }
        let mut inner = bound;
        for s in &body.stms {
            inner.extend(s.pat.ctx.iter().cloned());
            inner.extend(s.pat.elems.iter().map(|p| p.name.clone()));
        }
        let mut kept = Vec::with_capacity(body.stms.len());
        for s in std::mem::take(&mut body.stms) {
            let movable = s.pat.ctx.is_empty()
                && s.pat.elems.len() == 1
                && sizes.contains(&s.pat.elems[0].name)
                && (!s.pat.elems[0].ty.is_array() || matches!(s.exp, Exp::Rearrange { .. }))
                && (cannot_fail(&s.exp) || matches!(s.exp, Exp::Rearrange { .. }))
                && uses_in_exp(&s.exp).iter().all(|v| !inner.contains(v));
            if movable {
                inner.remove(&s.pat.elems[0].name);
                out.push(s);
            } else {
                kept.push(s);
            }
        }
        body.stms = kept;
    };
    match &mut stm.exp {
        Exp::Soac(soac) => {
            for l in crate::util::soac_lambdas_mut(soac) {
                let bound = l.params.iter().map(|p| p.name.clone()).collect();
                take(&mut l.body, bound);
            }
        }
        Exp::Loop { params, form, body } => {
            let mut bound: HashSet<Name> = params.iter().map(|(p, _)| p.name.clone()).collect();
            if let futhark_ir::soacs::LoopForm::For { var, .. } = form {
                bound.insert(var.clone());
            }
            take(body, bound);
        }
        _ => {}
    }
    out
}

/// The variables that are dimensions of a type somewhere inside a body.
fn dims_in_body(b: &Body, out: &mut HashSet<Name>) {
    let ty = |t: &Type, out: &mut HashSet<Name>| {
        out.extend(t.shape().iter().filter_map(|d| d.as_var().cloned()));
    };
    for s in &b.stms {
        for p in &s.pat.elems {
            ty(&p.ty, out);
        }
        match &s.exp {
            Exp::If {
                then_body,
                else_body,
                ..
            } => {
                dims_in_body(then_body, out);
                dims_in_body(else_body, out);
            }
            Exp::Loop { params, body, .. } => {
                for (p, _) in params {
                    ty(&p.ty, out);
                }
                dims_in_body(body, out);
            }
            Exp::Soac(soac) => {
                for l in crate::util::soac_lambdas(soac) {
                    for p in &l.params {
                        ty(&p.ty, out);
                    }
                    for t in &l.ret {
                        ty(t, out);
                    }
                    dims_in_body(&l.body, out);
                }
            }
            _ => {}
        }
    }
}

/// Whether anything in a body (nested bodies included) may consume an array: in-place
/// updates, histograms, scatters, loops (which may consume their parameters' initial values)
/// and calls.
fn consumes_deep(b: &Body) -> bool {
    b.stms.iter().any(|s| match &s.exp {
        Exp::Update(..)
        | Exp::Apply { .. }
        | Exp::Loop { .. }
        | Exp::Soac(futhark_ir::soacs::Soac::Hist { .. })
        | Exp::Soac(futhark_ir::soacs::Soac::Scatter { .. }) => true,
        Exp::If {
            then_body,
            else_body,
            ..
        } => consumes_deep(then_body) || consumes_deep(else_body),
        Exp::Soac(soac) => crate::util::soac_lambdas(soac)
            .iter()
            .any(|l| consumes_deep(&l.body)),
        _ => false,
    })
}

/// Whether evaluating a scalar expression can never fail.
fn cannot_fail(e: &Exp) -> bool {
    match e {
        Exp::SubExp(_) | Exp::CmpOp(..) | Exp::UnOp(..) | Exp::Conv(..) => true,
        Exp::BinOp(op, _, d) => match op {
            BinOp::SDiv | BinOp::UDiv | BinOp::SQuot | BinOp::SMod | BinOp::UMod | BinOp::SRem => {
                matches!(d, SubExp::Const(c) if as_int(*c).is_some_and(|x| x != 0))
            }
            BinOp::Pow => false,
            _ => true,
        },
        _ => false,
    }
}

fn dce(b: &mut Body) {
    let mut live: HashSet<Name> = b
        .result
        .iter()
        .filter_map(|r| r.as_var().cloned())
        .collect();
    let mut keep = Vec::with_capacity(b.stms.len());
    for stm in b.stms.drain(..).rev() {
        let needed =
            stm.pat.names().any(|n| live.contains(n)) || matches!(stm.exp, Exp::Assert { .. });
        if needed {
            live.extend(uses_in_exp(&stm.exp));
            for p in &stm.pat.elems {
                live.extend(p.ty.shape().iter().filter_map(|d| d.as_var().cloned()));
            }
            keep.push(stm);
        }
    }
    keep.reverse();
    b.stms = keep;
}

/// An integer constant's value (unsigned types as unsigned).
pub fn as_int(c: PrimValue) -> Option<i128> {
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

/// The bits of an integer constant read as unsigned.
fn as_uint(c: PrimValue) -> Option<u128> {
    let bits = c.ty().size_bytes() * 8;
    let x = as_int(c)?;
    Some((x as u128) & (u128::MAX >> (128 - bits)))
}

/// The bits of an integer constant read as signed.
fn as_sint(c: PrimValue) -> Option<i128> {
    let bits = c.ty().size_bytes() * 8;
    let u = as_uint(c)?;
    let shift = 128 - bits;
    Some(((u << shift) as i128) >> shift)
}

/// The constant of integer type `t` with value `x` (wrapping).
fn int(t: PrimType, x: i128) -> PrimValue {
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

fn as_float(c: PrimValue) -> Option<f64> {
    match c {
        PrimValue::F32(x) => Some(x as f64),
        PrimValue::F64(x) => Some(x),
        _ => None,
    }
}

fn float(t: PrimType, x: f64) -> PrimValue {
    match t {
        PrimType::F32 => PrimValue::F32(x as f32),
        _ => PrimValue::F64(x),
    }
}

fn eval_bin(op: BinOp, a: PrimValue, b: PrimValue) -> Option<PrimValue> {
    let t = a.ty();
    if t != b.ty() {
        return None;
    }
    if let (PrimValue::Bool(x), PrimValue::Bool(y)) = (a, b) {
        return match op {
            BinOp::LogAnd => Some(PrimValue::Bool(x && y)),
            BinOp::LogOr => Some(PrimValue::Bool(x || y)),
            _ => None,
        };
    }
    if t == PrimType::F32 || t == PrimType::F64 {
        let (x, y) = (as_float(a)?, as_float(b)?);
        let r = match op {
            BinOp::Add => x + y,
            BinOp::Sub => x - y,
            BinOp::Mul => x * y,
            BinOp::FDiv => x / y,
            BinOp::FMod => x % y,
            BinOp::Pow => x.powf(y),
            BinOp::FMin => x.min(y),
            BinOp::FMax => x.max(y),
            _ => return None,
        };
        // f32 arithmetic rounds each operation to f32.
        return Some(if t == PrimType::F32 {
            let (x, y) = (x as f32, y as f32);
            PrimValue::F32(match op {
                BinOp::Add => x + y,
                BinOp::Sub => x - y,
                BinOp::Mul => x * y,
                BinOp::FDiv => x / y,
                BinOp::FMod => x % y,
                BinOp::Pow => x.powf(y),
                BinOp::FMin => x.min(y),
                _ => x.max(y),
            })
        } else {
            float(t, r)
        });
    }
    if !t.is_int() {
        return None;
    }
    let bits = (t.size_bytes() * 8) as u32;
    let (sx, sy) = (as_sint(a)?, as_sint(b)?);
    let (ux, uy) = (as_uint(a)?, as_uint(b)?);
    let r: i128 = match op {
        BinOp::Add => sx.wrapping_add(sy),
        BinOp::Sub => sx.wrapping_sub(sy),
        BinOp::Mul => sx.wrapping_mul(sy),
        BinOp::SDiv if sy != 0 => {
            let q = sx / sy;
            if sx % sy != 0 && ((sx < 0) != (sy < 0)) {
                q - 1
            } else {
                q
            }
        }
        BinOp::SMod if sy != 0 => {
            let r = sx % sy;
            if r != 0 && ((r < 0) != (sy < 0)) {
                r + sy
            } else {
                r
            }
        }
        BinOp::SQuot if sy != 0 => sx / sy,
        BinOp::SRem if sy != 0 => sx % sy,
        BinOp::UDiv if uy != 0 => (ux / uy) as i128,
        BinOp::UMod if uy != 0 => (ux % uy) as i128,
        BinOp::SMin => sx.min(sy),
        BinOp::SMax => sx.max(sy),
        BinOp::UMin => ux.min(uy) as i128,
        BinOp::UMax => ux.max(uy) as i128,
        BinOp::And => sx & sy,
        BinOp::Or => sx | sy,
        BinOp::Xor => sx ^ sy,
        BinOp::Shl if (0..bits as i128).contains(&sy) => sx << sy,
        BinOp::AShr if (0..bits as i128).contains(&sy) => sx >> sy,
        BinOp::LShr if (0..bits as i128).contains(&sy) => (ux >> sy) as i128,
        BinOp::Pow if (0..64).contains(&sy) => {
            let mut acc: i128 = 1;
            for _ in 0..sy {
                acc = int_wrap(acc.wrapping_mul(sx), bits);
            }
            acc
        }
        _ => return None,
    };
    Some(int(t, r))
}

fn int_wrap(x: i128, bits: u32) -> i128 {
    let shift = 128 - bits;
    (x << shift) >> shift
}

fn eval_cmp(op: CmpOp, a: PrimValue, b: PrimValue) -> Option<bool> {
    if a.ty() != b.ty() {
        return None;
    }
    Some(match op {
        CmpOp::Eq => match (as_float(a), as_float(b)) {
            (Some(x), Some(y)) => x == y,
            _ => a == b,
        },
        CmpOp::SLt => as_sint(a)? < as_sint(b)?,
        CmpOp::SLe => as_sint(a)? <= as_sint(b)?,
        CmpOp::ULt => as_uint(a)? < as_uint(b)?,
        CmpOp::ULe => as_uint(a)? <= as_uint(b)?,
        CmpOp::FLt => as_float(a)? < as_float(b)?,
        CmpOp::FLe => as_float(a)? <= as_float(b)?,
        CmpOp::BLt | CmpOp::BLe => {
            let (PrimValue::Bool(x), PrimValue::Bool(y)) = (a, b) else {
                return None;
            };
            if op == CmpOp::BLt { !x & y } else { x <= y }
        }
    })
}

fn eval_un(op: UnOp, a: PrimValue) -> Option<PrimValue> {
    let t = a.ty();
    Some(match (op, a) {
        (UnOp::Not, PrimValue::Bool(x)) => PrimValue::Bool(!x),
        (UnOp::Neg, PrimValue::F32(x)) => PrimValue::F32(-x),
        (UnOp::Neg, PrimValue::F64(x)) => PrimValue::F64(-x),
        (UnOp::FAbs, PrimValue::F32(x)) => PrimValue::F32(x.abs()),
        (UnOp::FAbs, PrimValue::F64(x)) => PrimValue::F64(x.abs()),
        (UnOp::Neg, _) if t.is_int() => int(t, as_sint(a)?.wrapping_neg()),
        (UnOp::Complement, _) if t.is_int() => int(t, !as_sint(a)?),
        (UnOp::SAbs, _) if t.is_int() => int(t, as_sint(a)?.abs()),
        _ => return None,
    })
}

fn eval_conv(op: ConvOp, a: PrimValue) -> Option<PrimValue> {
    let to = op.target();
    Some(match op {
        ConvOp::SExt(_) => int(to, as_sint(a)?),
        ConvOp::ZExt(_) => int(to, as_uint(a)? as i128),
        ConvOp::BitCast(_) if a.ty().is_int() && to.is_int() => int(to, as_uint(a)? as i128),
        ConvOp::SiToFp(_) if to != PrimType::F16 => float(to, as_sint(a)? as f64),
        ConvOp::UiToFp(_) if to != PrimType::F16 => float(to, as_uint(a)? as f64),
        ConvOp::FpConv(_) if to != PrimType::F16 => float(to, as_float(a)?),
        ConvOp::BToI(_) => match a {
            PrimValue::Bool(b) => int(to, i128::from(b)),
            _ => return None,
        },
        ConvOp::IToB => PrimValue::Bool(as_int(a)? != 0),
        _ => return None,
    })
}
