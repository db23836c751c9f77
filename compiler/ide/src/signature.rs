//! Signature help: inside an application `f a b`, the parameters of `f` as written in its
//! definition, with the one being typed highlighted.

use futhark_db::Db;
use futhark_syntax::ast::{Exp, ExpKind};

use crate::scope::{Target, def_at, file_index};
use crate::visit::each_exp;
use crate::{FilePosition, TextRange};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignatureHelp {
    /// The signature, e.g. `def map 'a 'x (f: a -> x) (as: []a) : *[]x`.
    pub label: String,
    /// Byte ranges of the parameters inside `label`.
    pub params: Vec<TextRange>,
    /// The parameter the cursor is at, if the call has not gone past the last one.
    pub active_param: Option<u32>,
    pub doc: Option<String>,
}

/// Signature help at `pos`.
pub fn signature_help(db: &dyn Db, pos: FilePosition) -> Option<SignatureHelp> {
    let text = pos.file.text(db);
    let parsed = futhark_db::parse(db, pos.file);
    let cursor = pos.offset;
    // Only whitespace may separate the end of a call from the cursor (`f x |`).
    let reaches = |span_end: u32| {
        span_end <= cursor
            && text
                .get(span_end as usize..cursor as usize)
                .is_some_and(|gap| gap.chars().all(char::is_whitespace))
    };
    let mut best: Option<(&Exp, u32)> = None;
    each_exp(&parsed.file.decs, &mut |e| {
        let candidate = match &e.kind {
            ExpKind::Apply(f, args) if matches!(f.kind, ExpKind::Var(_)) => {
                let inside =
                    e.span.start <= cursor && (cursor <= e.span.end || reaches(e.span.end));
                let after_head = cursor > f.span.end;
                if !(inside && after_head) {
                    return;
                }
                let active = args
                    .iter()
                    .position(|a| cursor <= a.span.end)
                    .unwrap_or(args.len());
                Some((&**f, active as u32))
            }
            ExpKind::Var(_) if e.span.end < cursor && reaches(e.span.end) => Some((e, 0)),
            _ => None,
        };
        if let Some((head, active)) = candidate
            && best.is_none_or(|(b, _)| head.span.start >= b.span.start)
        {
            best = Some((head, active));
        }
    });
    let (head, active) = best?;
    let ExpKind::Var(qn) = &head.kind else {
        return None;
    };
    let index = file_index(db, pos.file);
    let occ = index.occurrences.iter().find(|o| o.span == qn.name.span)?;
    let Target::Def(loc) = occ.target else {
        return None;
    };
    let def = def_at(db, loc)?;
    if def.params.is_empty() {
        return None;
    }
    let doc = def
        .doc
        .clone()
        .or_else(|| def_at(db, def.spec?).and_then(|s| s.doc.clone()));
    Some(SignatureHelp {
        label: def.signature.clone(),
        params: def.params.clone(),
        active_param: (active < def.params.len() as u32).then_some(active),
        doc,
    })
}

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};

    use crate::fixture::Fixture;

    fn check(fixture: &str, expect: Expect) {
        let f = Fixture::new(fixture);
        let shown = match super::signature_help(&f.db, f.position()) {
            Some(s) => {
                let params: Vec<&str> = s
                    .params
                    .iter()
                    .map(|r| &s.label[r.start as usize..r.end as usize])
                    .collect();
                format!(
                    "{}\nparams: {params:?}\nactive: {:?}",
                    s.label, s.active_param
                )
            }
            None => "none".to_string(),
        };
        expect.assert_eq(&shown);
    }

    const ADD: &str = "def add (x: i32) (y: i32) : i32 = x + y\n";

    #[test]
    fn first_and_second_argument() {
        check(
            &format!("{ADD}def z = add 1$0 2\n"),
            expect![[r#"
                def add (x: i32) (y: i32) : i32
                params: ["(x: i32)", "(y: i32)"]
                active: Some(0)"#]],
        );
        check(
            &format!("{ADD}def z = add 1 $0\n"),
            expect![[r#"
                def add (x: i32) (y: i32) : i32
                params: ["(x: i32)", "(y: i32)"]
                active: Some(1)"#]],
        );
    }

    #[test]
    fn right_after_the_function_name() {
        check(
            &format!("{ADD}def z = add $0\n"),
            expect![[r#"
                def add (x: i32) (y: i32) : i32
                params: ["(x: i32)", "(y: i32)"]
                active: Some(0)"#]],
        );
    }

    #[test]
    fn innermost_call_wins() {
        check(
            &format!("{ADD}def neg (v: i32) = -v\ndef z = add (neg $0) 2\n"),
            expect![[r#"
                def neg (v: i32)
                params: ["(v: i32)"]
                active: Some(0)"#]],
        );
    }

    #[test]
    fn prelude_function() {
        check(
            "def z xs = map (\\x -> x) $0\n",
            expect![[r#"
                def map 'a [n] 'x (f: a -> x) (as: [n]a) : *[n]x
                params: ["(f: a -> x)", "(as: [n]a)"]
                active: Some(1)"#]],
        );
    }

    #[test]
    fn val_spec_parameters_come_from_the_arrows() {
        check(
            "module type S = { val f : i32 -> (n: i64) -> [n]i32 }\nmodule F (P: S) = { def g = P.f 1 $0 }\n",
            expect![[r#"
                val f : i32 -> (n: i64) -> [n]i32
                params: ["i32", "(n: i64)"]
                active: Some(1)"#]],
        );
    }

    #[test]
    fn nothing_outside_calls() {
        check(&format!("{ADD}def z = 1 + 2$0\n"), expect!["none"]);
    }
}
