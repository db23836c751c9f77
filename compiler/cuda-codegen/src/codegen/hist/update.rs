//! How a histogram's buckets are updated: seed 001's three code generations, chosen per
//! operator and bucket type.
//!
//! * One component whose operator the hardware has: a native atomic (`atomicAdd` on
//!   i32/u32/i64/u64/f32/f64, `atomicMin`/`atomicMax` on integers, `atomicAnd`/`Or`/`Xor`).
//!   f32/f64 `min`/`max` use the integer trick: for a value with the sign bit clear the
//!   float order is the signed integer order of its bits, for one with it set the reversed
//!   unsigned order, so `atomicMax` on `int` or `atomicMin` on `unsigned` computes `fmax`
//!   exactly (a NaN value is skipped, as `fmaxf` ignores it; a bucket that holds a NaN is
//!   finished by the CAS loop; `-0 < +0`, IEEE's maximum).
//! * Any other bucket of at most 64 bits: a compare-and-swap loop on the word holding it
//!   (bit patterns compared, so a NaN cannot loop forever; no write when the operator leaves
//!   the bucket unchanged, which keeps max-like operators cheap under contention). Two
//!   32-bit components (an (f32, i32) argmax) are packed into one 64-bit word: in shared
//!   memory directly, in global memory through a scratch array of words the `_pack` entry
//!   fills from the destinations and the `_unpack` entry writes back.
//! * Wider buckets: a lock per bucket (`atomicCAS` to take it, `atomicExch` to give it
//!   back); the components live in their own arrays.

use std::fmt::Write;

use futhark_ir::{BinOp, PrimType};

use super::super::emit::{load_conv, reg_ty, store_conv, store_ty};

/// The type of a shared-memory bucket component holding a value of type `t`: 8- and
/// 16-bit values live in 32-bit slots (f16 in an f32 slot).
pub fn slot_ty(t: PrimType) -> PrimType {
    match t {
        PrimType::I8 | PrimType::I16 => PrimType::I32,
        PrimType::U8 | PrimType::U16 | PrimType::Bool => PrimType::U32,
        PrimType::F16 => PrimType::F32,
        t => t,
    }
}

/// How a bucket is represented and updated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// One component: native atomic, the float trick or a CAS loop on its own word.
    Single,
    /// Two 32-bit components packed into one 64-bit word, updated by a CAS loop.
    Packed,
    /// Any other tuple: a lock per bucket.
    Locked,
}

/// The bucket layout of a histogram with components `tys`.
pub fn kind(tys: &[PrimType]) -> Kind {
    match tys {
        [_] => Kind::Single,
        [a, b] if slot_ty(*a).size_bytes() == 4 && slot_ty(*b).size_bytes() == 4 => Kind::Packed,
        _ => Kind::Locked,
    }
}

/// Bytes of each shared-memory array of one bucket, in the order the kernel carves them
/// out of shared memory (each array starts 8-byte aligned): what the host needs to size it.
pub fn shared_arrays(tys: &[PrimType]) -> Vec<usize> {
    match kind(tys) {
        Kind::Single => vec![slot_ty(tys[0]).size_bytes()],
        Kind::Packed => vec![8],
        Kind::Locked => tys
            .iter()
            .map(|t| slot_ty(*t).size_bytes())
            .chain([4])
            .collect(),
    }
}

/// The native atomic for `op` on memory of C type `t`, as (function, pointer cast, value
/// cast), if there is one.
pub fn native_atomic(op: BinOp, t: PrimType) -> Option<(&'static str, &'static str, &'static str)> {
    use PrimType::*;
    let f = match op {
        BinOp::Add => "atomicAdd",
        BinOp::Min => "atomicMin",
        BinOp::Max => "atomicMax",
        BinOp::And | BinOp::LogAnd => "atomicAnd",
        BinOp::Or | BinOp::LogOr => "atomicOr",
        BinOp::Xor => "atomicXor",
        _ => return None,
    };
    let logical = matches!(op, BinOp::LogAnd | BinOp::LogOr);
    let float_ok = op == BinOp::Add;
    match t {
        I32 if !logical => Some((f, "(int*)", "(int)")),
        U32 => Some((f, "(unsigned int*)", "(unsigned int)")),
        F32 if float_ok => Some((f, "(float*)", "(float)")),
        F64 if float_ok => Some((f, "(double*)", "(double)")),
        I64 if op == BinOp::Min || op == BinOp::Max => Some((f, "(long long*)", "(long long)")),
        I64 | U64 if !logical => Some((f, "(unsigned long long*)", "(unsigned long long)")),
        _ => None,
    }
}

/// The native atomic a single-component shared bucket (slot type `slot_ty(t)`) gets.
fn native_shared(op: BinOp, t: PrimType) -> Option<(&'static str, &'static str, &'static str)> {
    let slot = slot_ty(t);
    // A native atomic on the wider slot computes the same bucket value: integer add, and,
    // or, xor wrap identically, min/max agree on sign-extended values, and f16 sums are
    // kept in f32 (rounded when merged).
    if t == PrimType::F16 && op != BinOp::Add {
        return None;
    }
    let ok = t == slot
        || matches!(
            op,
            BinOp::Add | BinOp::And | BinOp::Or | BinOp::Xor | BinOp::Min | BinOp::Max
        )
        || (t == PrimType::Bool && matches!(op, BinOp::LogAnd | BinOp::LogOr));
    if !ok {
        return None;
    }
    let op = match op {
        BinOp::LogAnd => BinOp::And,
        BinOp::LogOr => BinOp::Or,
        o => o,
    };
    native_atomic(op, slot)
}

/// Whether f32/f64 `op` takes the integer trick.
fn float_trick(op: BinOp, t: PrimType) -> bool {
    matches!(op, BinOp::Min | BinOp::Max) && matches!(t, PrimType::F32 | PrimType::F64)
}

/// Whether shared-memory buckets of `tys` with operator `binop` are updated by native
/// atomics (no compare-and-swap loop, no lock).
pub fn shared_native(tys: &[PrimType], binop: Option<BinOp>) -> bool {
    kind(tys) == Kind::Single
        && binop.is_some_and(|op| native_shared(op, tys[0]).is_some() || float_trick(op, tys[0]))
}

/// The update a bucket of `tys` with operator `binop` (when the operator is one) gets, in
/// shared and in global memory, as short descriptions for plans, reports and tests.
pub fn describe(tys: &[PrimType], binop: Option<BinOp>) -> (String, String) {
    match kind(tys) {
        Kind::Packed => (
            "CAS loop (64-bit, packed)".into(),
            "CAS loop (64-bit, packed)".into(),
        ),
        Kind::Locked => ("lock per bucket".into(), "lock per bucket".into()),
        Kind::Single => {
            let t = tys[0];
            let shared = if let Some((f, ..)) = binop.and_then(|op| native_shared(op, t)) {
                format!("native {f}")
            } else if binop.is_some_and(|op| float_trick(op, t)) {
                "native integer atomics (float min/max trick)".into()
            } else {
                format!("CAS loop ({}-bit)", slot_ty(t).size_bytes() * 8)
            };
            let global = if let Some((f, ..)) = binop.and_then(|op| native_atomic(op, t)) {
                format!("native {f}")
            } else if binop.is_some_and(|op| float_trick(op, t)) {
                "native integer atomics (float min/max trick)".into()
            } else if t.size_bytes() >= 4 {
                format!("CAS loop ({}-bit)", t.size_bytes() * 8)
            } else {
                format!(
                    "CAS loop (containing 32-bit word, {}-bit value)",
                    t.size_bytes() * 8
                )
            };
            (shared, global)
        }
    }
}

/// C helpers of kernel `name` for buckets of `tys` (the operator `{name}_op`, `{name}_ne`
/// and the accumulator struct `{name}_acc` are defined before them):
/// `{name}_sh` (pointers into shared memory) with `_sh_carve`, `_sh_init`, `_sh_read`,
/// `_sh_update`; `{name}_gl` (the destinations, the scratch words or locks) with
/// `_gl_update`; and for packed buckets `_pack`/`_unpack`.
pub fn helpers(name: &str, tys: &[PrimType], binop: Option<BinOp>) -> String {
    let mut s = String::new();
    let k = kind(tys);
    let acc = format!("{name}_acc");
    // Shared memory: one array per field.
    let fields: Vec<(String, &str)> = match k {
        Kind::Single => vec![("c0".into(), reg_ty(slot_ty(tys[0])))],
        Kind::Packed => vec![("w".into(), "u64")],
        Kind::Locked => tys
            .iter()
            .enumerate()
            .map(|(i, t)| (format!("c{i}"), reg_ty(slot_ty(*t))))
            .chain([("lk".to_string(), "u32")])
            .collect(),
    };
    let _ = writeln!(s, "struct {name}_sh {{");
    for (f, t) in &fields {
        let _ = writeln!(s, "  {t}* {f};");
    }
    let _ = writeln!(s, "}};");
    // Carves `n` buckets out of `base`, each array 8-byte aligned.
    let _ = writeln!(
        s,
        "static __device__ __forceinline__ {name}_sh {name}_sh_carve(char* base, i64 n) {{\n  {name}_sh r;\n  i64 off = 0;"
    );
    for (f, t) in &fields {
        let _ = writeln!(
            s,
            "  r.{f} = ({t}*)(base + off);\n  off = (off + n * (i64)sizeof({t}) + 7) & ~(i64)7;"
        );
    }
    let _ = writeln!(s, "  return r;\n}}");
    // Init, read.
    let _ = writeln!(
        s,
        "static __device__ __forceinline__ void {name}_sh_init({name}_sh p, i64 i) {{\n  const {acc} ne = {name}_ne();"
    );
    match k {
        Kind::Single => {
            let _ = writeln!(s, "  p.c0[i] = ({})ne.c0;", reg_ty(slot_ty(tys[0])));
        }
        Kind::Packed => {
            let _ = writeln!(s, "  p.w[i] = {name}_pack(ne);");
        }
        Kind::Locked => {
            for (i, t) in tys.iter().enumerate() {
                let _ = writeln!(s, "  p.c{i}[i] = ({})ne.c{i};", reg_ty(slot_ty(*t)));
            }
            let _ = writeln!(s, "  p.lk[i] = 0u;");
        }
    }
    let _ = writeln!(s, "}}");
    let _ = writeln!(
        s,
        "static __device__ __forceinline__ {acc} {name}_sh_read({name}_sh p, i64 i) {{"
    );
    match k {
        Kind::Packed => {
            let _ = writeln!(s, "  return {name}_unpack(p.w[i]);");
        }
        _ => {
            let _ = writeln!(s, "  {acc} r;");
            for (i, t) in tys.iter().enumerate() {
                let _ = writeln!(s, "  r.c{i} = ({})p.c{i}[i];", reg_ty(*t));
            }
            let _ = writeln!(s, "  return r;");
        }
    }
    let _ = writeln!(s, "}}");
    // Shared update.
    let _ = writeln!(
        s,
        "static __device__ __forceinline__ void {name}_sh_update({name}_sh p, i64 i, {acc} v) {{"
    );
    match k {
        Kind::Single => single_update(&mut s, name, tys[0], binop, true),
        Kind::Packed => {
            let _ = writeln!(s, "  {name}_cas_packed(&p.w[i], v);");
        }
        Kind::Locked => {
            let reads: Vec<String> = tys
                .iter()
                .enumerate()
                .map(|(c, t)| {
                    format!(
                        "cur.c{c} = ({})((volatile {}*)p.c{c})[i];",
                        reg_ty(*t),
                        reg_ty(slot_ty(*t))
                    )
                })
                .collect();
            let writes: Vec<String> = tys
                .iter()
                .enumerate()
                .map(|(c, t)| {
                    let st = reg_ty(slot_ty(*t));
                    format!("((volatile {st}*)p.c{c})[i] = ({st})r.c{c};")
                })
                .collect();
            locked(
                &mut s,
                name,
                "&p.lk[i]",
                &reads,
                &writes,
                "__threadfence_block()",
            );
        }
    }
    let _ = writeln!(s, "}}");
    // Global memory.
    let _ = writeln!(s, "struct {name}_gl {{");
    for (i, t) in tys.iter().enumerate() {
        let _ = writeln!(s, "  {}* d{i};", store_ty(*t));
    }
    let _ = writeln!(s, "  u64* w;\n  u32* lk;\n}};");
    let _ = writeln!(
        s,
        "static __device__ __forceinline__ void {name}_gl_update({name}_gl g, i64 b, {acc} v) {{"
    );
    match k {
        Kind::Single => {
            let _ = writeln!(s, "  {}* p = &g.d0[b];", store_ty(tys[0]));
            single_update(&mut s, name, tys[0], binop, false);
        }
        Kind::Packed => {
            let _ = writeln!(s, "  {name}_cas_packed(&g.w[b], v);");
        }
        Kind::Locked => {
            let reads: Vec<String> = tys
                .iter()
                .enumerate()
                .map(|(c, t)| {
                    format!(
                        "cur.c{c} = {};",
                        load_conv(*t, &format!("((volatile {}*)g.d{c})[b]", store_ty(*t)))
                    )
                })
                .collect();
            let writes: Vec<String> = tys
                .iter()
                .enumerate()
                .map(|(c, t)| {
                    format!(
                        "((volatile {}*)g.d{c})[b] = {};",
                        store_ty(*t),
                        store_conv(*t, &format!("r.c{c}"))
                    )
                })
                .collect();
            locked(&mut s, name, "&g.lk[b]", &reads, &writes, "__threadfence()");
        }
    }
    let _ = writeln!(s, "}}");
    s
}

/// Packing helpers and the 64-bit CAS loop of a packed bucket; they come before
/// [`helpers`] (its init and update call them).
pub fn packed_helpers(name: &str, tys: &[PrimType]) -> String {
    let acc = format!("{name}_acc");
    let (s0, s1) = (reg_ty(slot_ty(tys[0])), reg_ty(slot_ty(tys[1])));
    let (r0, r1) = (reg_ty(tys[0]), reg_ty(tys[1]));
    let mut s = String::new();
    let _ = writeln!(
        s,
        "static __device__ __forceinline__ u64 {name}_pack({acc} a) {{ return (u64)fut_to_bits32(({s0})a.c0) | ((u64)fut_to_bits32(({s1})a.c1) << 32); }}"
    );
    let _ = writeln!(
        s,
        "static __device__ __forceinline__ {acc} {name}_unpack(u64 w) {{ {acc} a; a.c0 = ({r0})fut_from_bits32<{s0}>((u32)w); a.c1 = ({r1})fut_from_bits32<{s1}>((u32)(w >> 32)); return a; }}"
    );
    let _ = writeln!(
        s,
        "static __device__ __forceinline__ void {name}_cas_packed(u64* p, {acc} v) {{\n  unsigned long long* w = (unsigned long long*)p;\n  unsigned long long old = *(volatile unsigned long long*)w, as;\n  do {{\n    as = old;\n    const unsigned long long nw = {name}_pack({name}_op({name}_unpack(as), v));\n    if (nw == as) break;\n    old = atomicCAS(w, as, nw);\n  }} while (old != as);\n}}"
    );
    s
}

/// The critical section of a locked bucket: take the lock at `lock`, read the components
/// into `cur`, combine, write `r`, fence, release. Threads of one warp that want the same
/// lock take turns (independent thread scheduling, sm_70+).
fn locked(
    s: &mut String,
    name: &str,
    lock: &str,
    reads: &[String],
    writes: &[String],
    fence: &str,
) {
    let _ = writeln!(
        s,
        "  for (bool done = false; !done;) {{\n    if (atomicCAS({lock}, 0u, 1u) == 0u) {{\n      {name}_acc cur;"
    );
    for r in reads {
        let _ = writeln!(s, "      {r}");
    }
    let _ = writeln!(s, "      const {name}_acc r = {name}_op(cur, v);");
    for w in writes {
        let _ = writeln!(s, "      {w}");
    }
    let _ = writeln!(
        s,
        "      {fence};\n      atomicExch({lock}, 0u);\n      done = true;\n    }}\n  }}"
    );
}

/// The update of a one-component bucket at pointer `p` (shared: `&p.c0[i]`, a slot; global:
/// the destination element) by `v.c0`.
fn single_update(s: &mut String, name: &str, t: PrimType, binop: Option<BinOp>, shared: bool) {
    let rt = reg_ty(t);
    if shared {
        let _ = writeln!(s, "  {}* q = &p.c0[i];", reg_ty(slot_ty(t)));
    } else {
        let _ = writeln!(s, "  {}* q = p;", store_ty(t));
    }
    let native = binop.and_then(|op| {
        if shared {
            native_shared(op, t)
        } else {
            native_atomic(op, t)
        }
    });
    if let Some((f, pc, vc)) = native {
        let _ = writeln!(s, "  {f}({pc}q, {vc}v.c0);");
        return;
    }
    let slot = if shared { slot_ty(t) } else { t };
    if let Some(op) = binop.filter(|op| float_trick(*op, t)) {
        let (it, ut, bits) = if t == PrimType::F32 {
            ("int", "unsigned int", 32)
        } else {
            ("long long", "unsigned long long", 64)
        };
        let (pos, neg) = if op == BinOp::Max {
            ("atomicMax", "atomicMin")
        } else {
            ("atomicMin", "atomicMax")
        };
        // Values with the sign bit clear order as signed integers, the others as reversed
        // unsigned ones; the returned old value tells whether the bucket held a NaN.
        let _ = writeln!(
            s,
            "  if (v.c0 != v.c0) return;\n  const u{bits} vb = fut_to_bits{bits}(v.c0);\n  const u{bits} ob = (vb >> {}) == 0 ? (u{bits}){pos}(({it}*)q, ({it})vb) : (u{bits}){neg}(({ut}*)q, ({ut})vb);\n  const {rt} old = fut_from_bits{bits}<{rt}>(ob);\n  if (old == old) return;",
            bits - 1
        );
    }
    if slot.size_bytes() >= 4 {
        let w = slot.size_bytes() * 8;
        let wt = if w == 32 {
            "unsigned int"
        } else {
            "unsigned long long"
        };
        let st = reg_ty(slot);
        let _ = writeln!(
            s,
            "  {wt}* fut_w = ({wt}*)q;\n  {wt} fut_old = *(volatile {wt}*)fut_w, fut_as;\n  do {{\n    fut_as = fut_old;\n    const {rt} fut_cur = ({rt})fut_from_bits{w}<{st}>(fut_as);\n    const {wt} fut_nw = ({wt})fut_to_bits{w}(({st}){name}_apply(fut_cur, v.c0));\n    if (fut_nw == fut_as) break;\n    fut_old = atomicCAS(fut_w, fut_as, fut_nw);\n  }} while (fut_old != fut_as);"
        );
        return;
    }
    // 8- and 16-bit values in global memory: CAS on the aligned word that holds them.
    let bits = t.size_bytes() * 8;
    let ut = if bits == 8 { "u8" } else { "u16" };
    let sty = store_ty(t);
    let cur = if t == PrimType::Bool {
        "(((fut_as & fut_mask) >> fut_sh) != 0u)".to_string()
    } else {
        format!("({sty})(({ut})((fut_as & fut_mask) >> fut_sh))")
    };
    let _ = writeln!(
        s,
        "  unsigned int* fut_w = (unsigned int*)((u64)q & ~(u64)3);\n  const unsigned int fut_sh = (unsigned int)((u64)q & 3) * 8;\n  const unsigned int fut_mask = {}u << fut_sh;\n  unsigned int fut_old = *(volatile unsigned int*)fut_w, fut_as;\n  do {{\n    fut_as = fut_old;\n    const {sty} fut_cur = {cur};\n    const {sty} fut_ns = {};\n    const unsigned int fut_nw = (fut_as & ~fut_mask) | ((unsigned int)({ut})fut_ns << fut_sh);\n    if (fut_nw == fut_as) break;\n    fut_old = atomicCAS(fut_w, fut_as, fut_nw);\n  }} while (fut_old != fut_as);",
        if bits == 8 { "0xff" } else { "0xffff" },
        store_conv(
            t,
            &format!("{name}_apply({}, v.c0)", load_conv(t, "fut_cur"))
        ),
    );
}
