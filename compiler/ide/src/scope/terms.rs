//! The walk over expressions, patterns and type expressions: binds local names, resolves
//! references, and records fields, constructors and operators.

use futhark_syntax::Span;
use futhark_syntax::ast::{
    DimIndex, Exp, ExpKind, Ident, LoopForm, Pat, PatKind, QualName, RecordField, SizeExp, TypeArg,
    TypeExp, TypeExpKind, TypeParam, UpdateStep,
};

use super::{MAX_WALK_DEPTH, NameClass, PRIM_TYPES, Target, Walker};
use crate::TextRange;
use crate::defs::{self, DefKind, snippet};

/// How a pattern's names are bound: the kind of definition and the keyword shown before
/// the pattern in hover (`let (a, b)`, `case #some x`).
#[derive(Clone, Copy)]
pub(super) struct Binder {
    pub kind: DefKind,
    pub prefix: &'static str,
}

impl Walker<'_> {
    // -----------------------------------------------------------------------------------
    // Names

    /// A value name, possibly qualified: `x`, `M.x`, `M.N.x`, or `r.f.g` (a variable and
    /// field projections). See Note [syntactic resolution].
    pub(super) fn val_name(&mut self, qn: &QualName, class: Option<NameClass>) {
        let fallback = class.unwrap_or(NameClass::Value);
        let Some((first, _)) = qn.quals.split_first() else {
            let found = self.lookup_val(&qn.name.name);
            self.value_ref(&qn.name, found, class);
            return;
        };
        if let Some(local) = self.local_val(&first.name) {
            self.value_ref(first, Some(local), None);
            self.fields(&qn.quals[1..], &qn.name);
            return;
        }
        let Some(entry) = self.lookup_mod(&first.name) else {
            if first.name == "intrinsics" {
                self.reference(first.span, Target::Builtin, NameClass::Module);
                for q in &qn.quals[1..] {
                    self.reference(q.span, Target::Builtin, NameClass::Module);
                }
                self.reference(qn.name.span, Target::Builtin, fallback);
                return;
            }
            let found = self.lookup_val(&first.name);
            self.value_ref(first, found, None);
            self.fields(&qn.quals[1..], &qn.name);
            return;
        };
        self.module_ref(first, entry.def);
        let mut env = entry.env;
        let mut i = 1;
        while let Some(q) = qn.quals.get(i) {
            let Some(next) = env.mods.get(&q.name).cloned() else {
                break;
            };
            self.module_ref(q, next.def);
            env = next.env;
            i += 1;
        }
        match qn.quals.get(i) {
            None => {
                let found = env.vals.get(&qn.name.name).copied();
                self.value_ref(&qn.name, found, class);
            }
            Some(q) => {
                let found = env.vals.get(&q.name).copied();
                self.value_ref(q, found, None);
                self.fields(&qn.quals[i + 1..], &qn.name);
            }
        }
    }

    fn value_ref(&mut self, name: &Ident, found: Option<crate::DefLoc>, class: Option<NameClass>) {
        match found {
            Some(loc) => {
                let class = class.unwrap_or(NameClass::of_def(loc.kind));
                self.reference(name.span, crate::scope::Target::Def(loc), class);
            }
            None if name.is_operator() => {
                self.reference(name.span, Target::Builtin, NameClass::Operator)
            }
            None => self.reference(
                name.span,
                Target::Unresolved,
                class.unwrap_or(NameClass::Value),
            ),
        }
    }

    pub(super) fn module_ref(&mut self, name: &Ident, def: Option<crate::DefLoc>) {
        match def {
            Some(loc) => self.reference(name.span, Target::Def(loc), NameClass::Module),
            None => self.reference(name.span, Target::Unresolved, NameClass::Module),
        }
    }

    fn fields(&mut self, quals: &[Ident], name: &Ident) {
        for f in quals.iter().chain(std::iter::once(name)) {
            self.reference(f.span, Target::Unresolved, NameClass::Field);
        }
    }

    /// A type name, possibly qualified.
    fn type_name(&mut self, qn: &QualName) {
        if qn.quals.is_empty() {
            let found = self.lookup_type(&qn.name.name);
            match found {
                Some(loc) => self.reference_def(qn.name.span, Some(loc), NameClass::Type),
                None if PRIM_TYPES.contains(&qn.name.name.as_str()) => {
                    self.reference(qn.name.span, Target::Builtin, NameClass::Type)
                }
                None => self.reference(qn.name.span, Target::Unresolved, NameClass::Type),
            }
            return;
        }
        let env = self.module_path(&qn.quals);
        let found = env.and_then(|env| env.types.get(&qn.name.name).copied());
        self.reference_def(qn.name.span, found, NameClass::Type);
    }

    /// Resolves a module path, recording each component; `None` if some part is unknown.
    pub(super) fn module_path(&mut self, path: &[Ident]) -> Option<std::sync::Arc<crate::Env>> {
        let (first, rest) = path.split_first()?;
        let Some(entry) = self.lookup_mod(&first.name) else {
            let target = if first.name == "intrinsics" {
                Target::Builtin
            } else {
                Target::Unresolved
            };
            for q in path {
                self.reference(q.span, target, NameClass::Module);
            }
            return None;
        };
        self.module_ref(first, entry.def);
        let mut env = entry.env;
        for (i, q) in rest.iter().enumerate() {
            let Some(next) = env.mods.get(&q.name).cloned() else {
                for q in &rest[i..] {
                    self.reference(q.span, Target::Unresolved, NameClass::Module);
                }
                return None;
            };
            self.module_ref(q, next.def);
            env = next.env;
        }
        Some(env)
    }

    // -----------------------------------------------------------------------------------
    // Type and size parameters

    pub(super) fn tparams(&mut self, tparams: &[TypeParam]) {
        for tp in tparams {
            let (name, kind) = match tp {
                TypeParam::Size(n) => (n, DefKind::SizeParam),
                TypeParam::Type(n, _) => (n, DefKind::TypeParam),
            };
            let mut def = self.def(&name.name, kind, name.span, name.span);
            def.signature = defs::tparam_text(tp);
            let loc = self.new_def(def);
            self.bind_local(&name.name, loc);
        }
    }

    fn size_binders(&mut self, sizes: &[Ident], full: Span) {
        for n in sizes {
            let mut def = self.def(&n.name, DefKind::SizeParam, n.span, full);
            def.signature = format!("[{}]", n.name);
            let loc = self.new_def(def);
            self.bind_local(&n.name, loc);
        }
    }

    // -----------------------------------------------------------------------------------
    // Patterns

    /// Walks the types in `pat`, then binds its names.
    pub(super) fn pat(&mut self, pat: &Pat, binder: Binder) {
        let shown = format!("{}{}", binder.prefix, snippet(self.text, pat.span));
        self.pat_in(pat, binder, &shown, pat.span);
    }

    fn pat_in(&mut self, pat: &Pat, binder: Binder, shown: &str, whole: Span) {
        if self.depth > MAX_WALK_DEPTH {
            return;
        }
        self.depth += 1;
        match &pat.kind {
            PatKind::Id(name) => {
                self.bind_pat_name(name, binder, shown, whole, false);
            }
            PatKind::Wildcard | PatKind::Literal(_) | PatKind::Error => {}
            PatKind::Parens(inner) | PatKind::Attr(_, inner) => {
                self.pat_in(inner, binder, shown, whole)
            }
            PatKind::Tuple(pats) => {
                for p in pats {
                    self.pat_in(p, binder, shown, whole);
                }
            }
            PatKind::Record(fields) => {
                for (field, p) in fields {
                    match &p.kind {
                        PatKind::Id(name) if name.span == field.span => {
                            self.bind_pat_name(name, binder, shown, whole, true);
                        }
                        PatKind::Ascript(inner, ty) if matches!(&inner.kind, PatKind::Id(n) if n.span == field.span) =>
                        {
                            self.ty(ty);
                            if let PatKind::Id(name) = &inner.kind {
                                self.bind_pat_name(name, binder, shown, whole, true);
                            }
                        }
                        _ => {
                            self.reference(field.span, Target::Unresolved, NameClass::Field);
                            self.pat_in(p, binder, shown, whole);
                        }
                    }
                }
            }
            PatKind::Constr(c, pats) => {
                self.reference(c.span, Target::Unresolved, NameClass::Constructor);
                for p in pats {
                    self.pat_in(p, binder, shown, whole);
                }
            }
            PatKind::Ascript(inner, ty) => {
                self.ty(ty);
                self.pat_in(inner, binder, shown, whole);
            }
        }
        self.depth -= 1;
    }

    fn bind_pat_name(&mut self, name: &Ident, binder: Binder, shown: &str, whole: Span, pun: bool) {
        let mut def = self.def(&name.name, binder.kind, name.span, whole);
        def.signature = shown.to_string();
        let loc = self.new_def(def);
        if pun && let Some(occ) = self.occs.last_mut() {
            occ.pun = true;
        }
        self.bind_local(&name.name, loc);
    }

    // -----------------------------------------------------------------------------------
    // Types

    pub(super) fn ty(&mut self, t: &TypeExp) {
        if self.depth > MAX_WALK_DEPTH {
            return;
        }
        self.depth += 1;
        match &t.kind {
            TypeExpKind::Var(qn) => self.type_name(qn),
            TypeExpKind::Parens(inner) | TypeExpKind::Unique(inner) => self.ty(inner),
            TypeExpKind::Tuple(ts) => {
                for t in ts {
                    self.ty(t);
                }
            }
            TypeExpKind::Record(fields) => {
                for (f, t) in fields {
                    self.reference(f.span, Target::Unresolved, NameClass::Field);
                    self.ty(t);
                }
            }
            TypeExpKind::Array { size, elem } => {
                self.size(size);
                self.ty(elem);
            }
            TypeExpKind::Apply(f, arg) => {
                self.ty(f);
                match arg {
                    TypeArg::Size(s) => self.size(s),
                    TypeArg::Type(t) => self.ty(t),
                }
            }
            TypeExpKind::Arrow { param, from, to } => {
                self.ty(from);
                let mark = self.mark();
                if let Some(p) = param {
                    let mut def = self.def(&p.name, DefKind::Param, p.span, t.span);
                    def.signature = format!("({}: {})", p.name, snippet(self.text, from.span));
                    let loc = self.new_def(def);
                    self.bind_local(&p.name, loc);
                }
                self.ty(to);
                self.reset(mark);
            }
            TypeExpKind::Sum(constrs) => {
                for (c, payload) in constrs {
                    self.reference(c.span, Target::Unresolved, NameClass::Constructor);
                    for t in payload {
                        self.ty(t);
                    }
                }
            }
            TypeExpKind::Existential { sizes, ty } => {
                let mark = self.mark();
                self.size_binders(sizes, t.span);
                self.ty(ty);
                self.reset(mark);
            }
            TypeExpKind::Error => {}
        }
        self.depth -= 1;
    }

    fn size(&mut self, size: &SizeExp) {
        if let SizeExp::Exp(e) = size {
            self.exp(e);
        }
    }

    // -----------------------------------------------------------------------------------
    // Expressions

    pub(super) fn exp(&mut self, e: &Exp) {
        if self.depth > MAX_WALK_DEPTH {
            return;
        }
        self.depth += 1;
        self.capture(e.span.into());
        self.exp_kind(e);
        self.depth -= 1;
    }

    fn exp_kind(&mut self, e: &Exp) {
        match &e.kind {
            ExpKind::Literal(_) | ExpKind::StringLit(_) | ExpKind::Hole | ExpKind::Error => {}
            ExpKind::Var(qn) => self.val_name(qn, None),
            ExpKind::Constr(c, args) => {
                self.reference(c.span, Target::Unresolved, NameClass::Constructor);
                self.exps(args);
            }
            ExpKind::Parens(inner) | ExpKind::Negate(inner) | ExpKind::Not(inner) => {
                self.exp(inner)
            }
            ExpKind::Tuple(es) | ExpKind::ArrayLit(es) => self.exps(es),
            ExpKind::Record(fields) => {
                for field in fields {
                    match field {
                        RecordField::Explicit(name, value) => {
                            self.reference(name.span, Target::Unresolved, NameClass::Field);
                            self.exp(value);
                        }
                        RecordField::Pun(name) => {
                            let found = self.lookup_val(&name.name);
                            self.value_ref(name, found, None);
                            if let Some(occ) = self.occs.last_mut() {
                                occ.pun = true;
                            }
                        }
                    }
                }
            }
            ExpKind::Project(inner, field) => {
                self.exp(inner);
                self.reference(field.span, Target::Unresolved, NameClass::Field);
            }
            ExpKind::QualParens(qn, inner) => {
                let path: Vec<Ident> = qn
                    .quals
                    .iter()
                    .chain(std::iter::once(&qn.name))
                    .cloned()
                    .collect();
                let env = self.module_path(&path).unwrap_or_default();
                let mark = self.mark();
                self.opened.push((self.locals.len(), env));
                self.exp(inner);
                self.reset(mark);
            }
            ExpKind::Index(inner, dims) => {
                self.exp(inner);
                self.dims(dims);
            }
            ExpKind::Apply(f, args) => {
                self.exp(f);
                self.exps(args);
            }
            ExpKind::BinOp {
                op,
                backticked,
                lhs,
                rhs,
            } => {
                self.exp(lhs);
                self.op(op, *backticked);
                self.exp(rhs);
            }
            ExpKind::OpSection { op, backticked } => self.op(op, *backticked),
            ExpKind::LeftSection {
                op,
                backticked,
                lhs,
            } => {
                self.exp(lhs);
                self.op(op, *backticked);
            }
            ExpKind::RightSection {
                op,
                backticked,
                rhs,
            } => {
                self.op(op, *backticked);
                self.exp(rhs);
            }
            ExpKind::ProjectSection(steps) => self.steps(steps),
            ExpKind::Range {
                start, second, end, ..
            } => {
                self.exp(start);
                if let Some(second) = second {
                    self.exp(second);
                }
                self.exp(end);
            }
            ExpKind::Ascript(inner, t) | ExpKind::Coerce(inner, t) => {
                self.exp(inner);
                self.ty(t);
            }
            ExpKind::If { cond, then, els } => {
                self.exp(cond);
                self.exp(then);
                self.exp(els);
            }
            ExpKind::Let {
                sizes,
                pat,
                value,
                body,
            } => {
                self.exp(value);
                let mark = self.mark();
                self.size_binders(sizes, e.span);
                self.pat(pat, LET);
                self.capture(TextRange::new(value.span.end, e.span.end));
                self.exp(body);
                self.reset(mark);
            }
            ExpKind::LetFun {
                name,
                tparams,
                params,
                ret,
                value,
                body,
            } => {
                let mark = self.mark();
                self.tparams(tparams);
                for p in params {
                    self.pat(p, PARAM);
                }
                if let Some(ret) = ret {
                    self.ty(ret);
                }
                self.capture(TextRange::new(name.span.end, value.span.end));
                self.exp(value);
                self.reset(mark);
                let (signature, ranges) =
                    defs::local_fun_signature(self.text, &name.name, tparams, params, ret.as_ref());
                let mut def = self.def(&name.name, DefKind::LocalFunction, name.span, e.span);
                def.signature = signature;
                def.params = ranges;
                let loc = self.new_def(def);
                let mark = self.mark();
                self.bind_local(&name.name, loc);
                self.capture(TextRange::new(value.span.end, e.span.end));
                self.exp(body);
                self.reset(mark);
            }
            ExpKind::LetWith {
                dest,
                path,
                value,
                body,
            } => {
                let found = self.lookup_val(&dest.name);
                self.value_ref(dest, found, None);
                self.steps(path);
                self.exp(value);
                self.exp(body);
            }
            ExpKind::Update {
                target,
                path,
                value,
            } => {
                self.exp(target);
                self.steps(path);
                self.exp(value);
            }
            ExpKind::Loop {
                pat,
                init,
                form,
                body,
            } => self.loop_exp(e, pat, init.as_deref(), form, body),
            ExpKind::Match { scrutinee, cases } => {
                self.exp(scrutinee);
                for case in cases {
                    let mark = self.mark();
                    self.pat(&case.pat, CASE);
                    self.capture(case.span.into());
                    self.exp(&case.body);
                    self.reset(mark);
                }
            }
            ExpKind::Lambda { params, ret, body } => {
                let mark = self.mark();
                for p in params {
                    self.pat(p, LAMBDA);
                }
                if let Some(ret) = ret {
                    self.ty(ret);
                }
                self.capture(e.span.into());
                self.exp(body);
                self.reset(mark);
            }
            ExpKind::Assert { cond, body } => {
                self.exp(cond);
                self.exp(body);
            }
            ExpKind::Attr(_, inner) => self.exp(inner),
        }
    }

    fn loop_exp(&mut self, e: &Exp, pat: &Pat, init: Option<&Exp>, form: &LoopForm, body: &Exp) {
        if let Some(init) = init {
            self.exp(init);
        }
        match form {
            LoopForm::For { bound, .. } => self.exp(bound),
            LoopForm::ForIn { array, .. } => self.exp(array),
            LoopForm::While(_) => {}
        }
        let mark = self.mark();
        self.pat(pat, LOOP);
        match form {
            LoopForm::For { var, .. } => {
                let mut def = self.def(&var.name, DefKind::Local, var.span, e.span);
                def.signature = format!("for {} < …", var.name);
                let loc = self.new_def(def);
                self.bind_local(&var.name, loc);
            }
            LoopForm::ForIn { pat, .. } => self.pat(pat, FOR),
            LoopForm::While(cond) => self.exp(cond),
        }
        self.capture(TextRange::new(pat.span.end, e.span.end));
        self.exp(body);
        self.reset(mark);
    }

    fn exps(&mut self, es: &[Exp]) {
        for e in es {
            self.exp(e);
        }
    }

    fn op(&mut self, op: &QualName, backticked: bool) {
        let class = if backticked {
            None
        } else {
            Some(NameClass::Operator)
        };
        self.val_name(op, class);
    }

    fn dims(&mut self, dims: &[DimIndex]) {
        for d in dims {
            match d {
                DimIndex::Fix(e) => self.exp(e),
                DimIndex::Slice {
                    start, end, stride, ..
                } => {
                    for e in [start, end, stride].into_iter().flatten() {
                        self.exp(e);
                    }
                }
            }
        }
    }

    fn steps(&mut self, steps: &[UpdateStep]) {
        for step in steps {
            match step {
                UpdateStep::Index(dims, _) => self.dims(dims),
                UpdateStep::Field(f) => {
                    self.reference(f.span, Target::Unresolved, NameClass::Field)
                }
            }
        }
    }
}

pub(super) const PARAM: Binder = Binder {
    kind: DefKind::Param,
    prefix: "",
};
const LAMBDA: Binder = Binder {
    kind: DefKind::Param,
    prefix: "\\",
};
const LET: Binder = Binder {
    kind: DefKind::Local,
    prefix: "let ",
};
const LOOP: Binder = Binder {
    kind: DefKind::Local,
    prefix: "loop ",
};
const FOR: Binder = Binder {
    kind: DefKind::Local,
    prefix: "for ",
};
const CASE: Binder = Binder {
    kind: DefKind::Local,
    prefix: "case ",
};
