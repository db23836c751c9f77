//! Symbolic integer bounds for proving a kernel's index checks: linear forms over the
//! body's `i64` variables, with what the iteration space, loops and branches say about them.
//!
//! The prover is deliberately small. An index `s - g - 1` with `g` a dimension of extent
//! `s` (the reversed read of a tridiagonal solve), `i64.min (i + 1) (n - 1)` (a clamped
//! stencil) or `j + 1` in a loop `j < n - 1` are what it has to see; anything it cannot read as
//! a sum of variables times small constants keeps its check.
//!
//! Arithmetic in kernels wraps; the forms here are exact. They agree as long as no
//! intermediate value leaves `i64`, which [`Lin`]'s limits on coefficients and constants
//! make true for every variable below 2^40 — the size of any array a GPU holds and the extent
//! of any loop or space a GPU finishes.

use std::collections::{BTreeMap, HashMap};

use futhark_ir::{BinOp, CmpOp, Exp, Name, PrimType, PrimValue};

/// `constant + Σ coefficient · variable`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Lin {
    terms: BTreeMap<Name, i64>,
    constant: i64,
}

/// Largest constant a form may hold (see the module's note on wrapping).
const MAX_CONSTANT: i64 = 1 << 40;
/// Largest sum of the absolute values of a form's coefficients.
const MAX_WEIGHT: i64 = 1 << 10;

impl Lin {
    fn constant(k: i64) -> Option<Lin> {
        (k.abs() <= MAX_CONSTANT).then(|| Lin {
            terms: BTreeMap::new(),
            constant: k,
        })
    }

    fn atom(v: &str) -> Lin {
        Lin {
            terms: BTreeMap::from([(v.to_string(), 1)]),
            constant: 0,
        }
    }

    fn checked(self) -> Option<Lin> {
        let weight: i64 = self.terms.values().map(|c| c.abs()).sum();
        (self.constant.abs() <= MAX_CONSTANT && weight <= MAX_WEIGHT).then_some(self)
    }

    fn add(&self, other: &Lin) -> Option<Lin> {
        let mut out = self.clone();
        for (v, c) in &other.terms {
            let e = out.terms.entry(v.clone()).or_insert(0);
            *e += c;
            if *e == 0 {
                out.terms.remove(v);
            }
        }
        out.constant += other.constant;
        out.checked()
    }

    fn scale(&self, k: i64) -> Option<Lin> {
        if k == 0 {
            return Some(Lin::default());
        }
        if k.abs() > MAX_WEIGHT {
            return None;
        }
        Lin {
            terms: self.terms.iter().map(|(v, c)| (v.clone(), c * k)).collect(),
            constant: self.constant.checked_mul(k)?,
        }
        .checked()
    }

    fn as_constant(&self) -> Option<i64> {
        self.terms.is_empty().then_some(self.constant)
    }
}

/// A value as the prover sees it: a linear form, or the smaller/larger of two, or one of two
/// (a `select`, which is `≥ 0` only if both are).
#[derive(Clone, Debug)]
pub(super) enum Sym {
    Lin(Lin),
    Min(Box<Sym>, Box<Sym>),
    Max(Box<Sym>, Box<Sym>),
    Either(Box<Sym>, Box<Sym>),
}

impl Sym {
    fn add(&self, other: &Sym) -> Option<Sym> {
        Some(match (self, other) {
            (Sym::Lin(a), Sym::Lin(b)) => Sym::Lin(a.add(b)?),
            (Sym::Min(a, b), o) | (o, Sym::Min(a, b)) => {
                Sym::Min(Box::new(a.add(o)?), Box::new(b.add(o)?))
            }
            (Sym::Max(a, b), o) | (o, Sym::Max(a, b)) => {
                Sym::Max(Box::new(a.add(o)?), Box::new(b.add(o)?))
            }
            (Sym::Either(a, b), o) | (o, Sym::Either(a, b)) => {
                Sym::Either(Box::new(a.add(o)?), Box::new(b.add(o)?))
            }
        })
    }

    fn scale(&self, k: i64) -> Option<Sym> {
        let both = |a: &Sym, b: &Sym| Some((Box::new(a.scale(k)?), Box::new(b.scale(k)?)));
        Some(match self {
            Sym::Lin(a) => Sym::Lin(a.scale(k)?),
            Sym::Either(a, b) => {
                let (a, b) = both(a, b)?;
                Sym::Either(a, b)
            }
            // Scaling by a negative number swaps the smaller and the larger.
            Sym::Min(a, b) => {
                let (a, b) = both(a, b)?;
                if k >= 0 {
                    Sym::Min(a, b)
                } else {
                    Sym::Max(a, b)
                }
            }
            Sym::Max(a, b) => {
                let (a, b) = both(a, b)?;
                if k >= 0 {
                    Sym::Max(a, b)
                } else {
                    Sym::Min(a, b)
                }
            }
        })
    }

    fn sub(&self, other: &Sym) -> Option<Sym> {
        self.add(&other.scale(-1)?)
    }

    fn offset(&self, k: i64) -> Option<Sym> {
        self.add(&Sym::Lin(Lin::constant(k)?))
    }

    fn as_lin(&self) -> Option<&Lin> {
        match self {
            Sym::Lin(l) => Some(l),
            _ => None,
        }
    }
}

/// What is known about the `i64` variables at a point of a kernel body.
#[derive(Clone, Default)]
pub(super) struct Bounds {
    /// `let` variables of 64-bit integer type whose value is a form over earlier ones.
    defs: HashMap<Name, (Sym, PrimType)>,
    /// Variables of type `i64` (or `u64`) that are fixed where they are visible: size
    /// parameters, space and loop indices, `let`s that are no form. Mutable variables never
    /// are: their value changes under a form that mentions them.
    fixed: HashMap<Name, PrimType>,
    /// Variables in `0..extent`.
    ranges: HashMap<Name, Lin>,
    /// Forms known to be `≥ 0`.
    facts: Vec<Lin>,
}

impl Bounds {
    /// A size parameter, of type `i64`; `dimension` when it is an array's extent (so `≥ 0`).
    pub fn size(&mut self, name: &str, dimension: bool) {
        self.fixed.insert(name.to_string(), PrimType::I64);
        if dimension {
            self.facts.push(Lin::atom(name));
        }
    }

    /// `index` ranges over `0..extent` where this is known. With `nonempty`, `extent ≥ 1` is
    /// a fact too (the code that asks runs only when the range has an index).
    pub fn index(&mut self, index: &str, extent: &Exp, nonempty: bool) {
        self.fixed.insert(index.to_string(), PrimType::I64);
        if let Some(Sym::Lin(hi)) = self.sym(extent) {
            if nonempty && let Some(f) = hi.add(&Lin::constant(-1).expect("small")) {
                self.facts.push(f);
            }
            self.ranges.insert(index.to_string(), hi);
        }
    }

    /// A `let` of type `ty`.
    pub fn bind(&mut self, name: &str, ty: PrimType, exp: &Exp) {
        if !matches!(ty, PrimType::I64 | PrimType::U64) {
            return;
        }
        match self.sym(exp) {
            Some(s) => {
                self.defs.insert(name.to_string(), (s, ty));
            }
            None => {
                self.fixed.insert(name.to_string(), ty);
            }
        }
    }

    /// A mutable variable named `name`: nothing is known of it.
    pub fn forget(&mut self, name: &str) {
        self.defs.remove(name);
        self.fixed.remove(name);
        self.ranges.remove(name);
    }

    /// Assumes `cond` (a branch taken on it): comparisons of `i64` values become facts.
    pub fn assume(&mut self, cond: &Exp, holds: bool) {
        match cond {
            Exp::Bin(BinOp::LogAnd, a, b) if holds => {
                self.assume(a, true);
                self.assume(b, true);
            }
            Exp::Bin(BinOp::LogOr, a, b) if !holds => {
                self.assume(a, false);
                self.assume(b, false);
            }
            Exp::Cmp(op, a, b) if self.signed(a) && self.signed(b) => {
                let (Some(a), Some(b)) = (self.sym(a), self.sym(b)) else {
                    return;
                };
                // Normalised to `x ≥ 0`.
                let x = match (op, holds) {
                    (CmpOp::Lt, true) | (CmpOp::Ge, false) => b.sub(&a).and_then(|d| d.offset(-1)),
                    (CmpOp::Le, true) | (CmpOp::Gt, false) => b.sub(&a),
                    (CmpOp::Gt, true) | (CmpOp::Le, false) => a.sub(&b).and_then(|d| d.offset(-1)),
                    (CmpOp::Ge, true) | (CmpOp::Lt, false) => a.sub(&b),
                    _ => None,
                };
                if let Some(Sym::Lin(l)) = x {
                    self.facts.push(l);
                }
            }
            _ => {}
        }
    }

    /// Whether the boolean `e` holds, where it is a comparison the facts decide.
    pub fn proves(&self, e: &Exp) -> bool {
        match e {
            Exp::Cmp(CmpOp::Lt, a, b) => match (a.as_ref(), b.as_ref()) {
                // `0 <= x < n` as the translator writes an index check.
                (Exp::Conv(PrimType::U64, x), Exp::Conv(PrimType::U64, n)) => {
                    let (Some(x), Some(n)) = (self.sym(x), self.sym(n)) else {
                        return false;
                    };
                    self.nonnegative(&x)
                        && n.sub(&x)
                            .and_then(|d| d.offset(-1))
                            .is_some_and(|d| self.nonnegative(&d))
                }
                _ => self.signed_cmp(CmpOp::Lt, a, b),
            },
            Exp::Cmp(op, a, b) => self.signed_cmp(*op, a, b),
            _ => false,
        }
    }

    fn signed_cmp(&self, op: CmpOp, a: &Exp, b: &Exp) -> bool {
        if !(self.signed(a) && self.signed(b)) {
            return false;
        }
        let (Some(a), Some(b)) = (self.sym(a), self.sym(b)) else {
            return false;
        };
        let ge0 = |x: Option<Sym>| x.is_some_and(|x| self.nonnegative(&x));
        match op {
            CmpOp::Lt => ge0(b.sub(&a).and_then(|d| d.offset(-1))),
            CmpOp::Le => ge0(b.sub(&a)),
            CmpOp::Gt => ge0(a.sub(&b).and_then(|d| d.offset(-1))),
            CmpOp::Ge => ge0(a.sub(&b)),
            CmpOp::Eq => a
                .sub(&b)
                .as_ref()
                .and_then(Sym::as_lin)
                .is_some_and(|d| d.as_constant() == Some(0)),
            CmpOp::Ne => false,
        }
    }

    /// Whether `e` has type `i64` (signed comparisons, `min`/`max`).
    fn signed(&self, e: &Exp) -> bool {
        match e {
            Exp::Const(PrimValue::I64(_)) | Exp::Conv(PrimType::I64, _) => true,
            Exp::Var(v) => self
                .fixed
                .get(v)
                .or_else(|| self.defs.get(v).map(|(_, t)| t))
                .is_some_and(|t| *t == PrimType::I64),
            Exp::Bin(_, a, _) => self.signed(a),
            Exp::Select(_, t, _) => self.signed(t),
            _ => false,
        }
    }

    /// `e` as a form, where it is one.
    fn sym(&self, e: &Exp) -> Option<Sym> {
        match e {
            Exp::Const(PrimValue::I64(k)) => Some(Sym::Lin(Lin::constant(*k)?)),
            Exp::Const(PrimValue::U64(k)) => {
                Some(Sym::Lin(Lin::constant(i64::try_from(*k).ok()?)?))
            }
            Exp::Var(v) => match self.defs.get(v) {
                Some((s, _)) => Some(s.clone()),
                None => self.fixed.contains_key(v).then(|| Sym::Lin(Lin::atom(v))),
            },
            // Between the 64-bit types a conversion keeps the bits.
            Exp::Conv(PrimType::I64 | PrimType::U64, x) => self.sym(x),
            Exp::Bin(BinOp::Add, a, b) => self.sym(a)?.add(&self.sym(b)?),
            Exp::Bin(BinOp::Sub, a, b) => self.sym(a)?.sub(&self.sym(b)?),
            Exp::Bin(BinOp::Mul, a, b) => {
                let (a, b) = (self.sym(a)?, self.sym(b)?);
                match (
                    a.as_lin().and_then(Lin::as_constant),
                    b.as_lin().and_then(Lin::as_constant),
                ) {
                    (Some(k), _) => b.scale(k),
                    (_, Some(k)) => a.scale(k),
                    _ => None,
                }
            }
            Exp::Bin(op @ (BinOp::Min | BinOp::Max), a, b) if self.signed(a) => {
                let (a, b) = (Box::new(self.sym(a)?), Box::new(self.sym(b)?));
                Some(if *op == BinOp::Min {
                    Sym::Min(a, b)
                } else {
                    Sym::Max(a, b)
                })
            }
            Exp::Select(_, t, f) => {
                Some(Sym::Either(Box::new(self.sym(t)?), Box::new(self.sym(f)?)))
            }
            _ => None,
        }
    }

    /// Whether `s ≥ 0` follows from the ranges and facts.
    fn nonnegative(&self, s: &Sym) -> bool {
        match s {
            Sym::Lin(l) => self.lin_nonnegative(l),
            Sym::Min(a, b) | Sym::Either(a, b) => self.nonnegative(a) && self.nonnegative(b),
            Sym::Max(a, b) => self.nonnegative(a) || self.nonnegative(b),
        }
    }

    fn lin_nonnegative(&self, l: &Lin) -> bool {
        // `l` itself, or `l - f` for one fact `f ≥ 0`.
        self.bounded_below(l)
            || self.facts.iter().any(|f| {
                f.scale(-1)
                    .and_then(|m| l.add(&m))
                    .is_some_and(|d| self.bounded_below(&d))
            })
    }

    /// Replaces each ranged variable by its least value in `l` (`0`, or `extent - 1` where its
    /// coefficient is negative), then asks that what is left be a non-negative constant plus
    /// non-negative multiples of variables known to be at least some constant.
    fn bounded_below(&self, l: &Lin) -> bool {
        let mut l = l.clone();
        // Extents may mention outer indices: a few rounds settle every nesting that occurs.
        for _ in 0..8 {
            let Some((v, c)) = l
                .terms
                .iter()
                .find(|(v, _)| self.ranges.contains_key(*v))
                .map(|(v, c)| (v.clone(), *c))
            else {
                break;
            };
            l.terms.remove(&v);
            if c < 0 {
                let hi = &self.ranges[&v];
                let Some(least) = hi
                    .add(&Lin::constant(-1).expect("small"))
                    .and_then(|m| m.scale(c))
                    .and_then(|m| l.add(&m))
                else {
                    return false;
                };
                l = least;
            }
        }
        let mut least = l.constant;
        for (v, c) in &l.terms {
            if *c < 0 || self.ranges.contains_key(v) {
                return false;
            }
            // The largest `k` with a fact `v - k ≥ 0`.
            let floor = self
                .facts
                .iter()
                .filter(|f| f.terms.len() == 1 && f.terms.get(v) == Some(&1))
                .map(|f| -f.constant)
                .max();
            match floor {
                Some(k) => least += c * k,
                None => return false,
            }
        }
        least >= 0
    }
}
