//! Folding ranges: multi-line declarations, module and module-type bodies, multi-line
//! expressions (`if`, `match`, `loop`, lambdas, array and record literals), runs of
//! comments, and runs of imports.

use futhark_db::{Db, File};
use futhark_syntax::LineIndex;
use futhark_syntax::ast::{Dec, DecKind, ExpKind, ModExp, ModExpKind, SigExp, SigExpKind};
use futhark_syntax::lexer::{TokenKind, lex};

use crate::TextRange;
use crate::visit::each_exp;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FoldKind {
    Region,
    Comment,
    Imports,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Fold {
    pub range: TextRange,
    pub kind: FoldKind,
}

/// The folding ranges of `file`, each spanning at least two lines, sorted by start, at
/// most one per starting line (the largest).
pub fn folding_ranges(db: &dyn Db, file: File) -> Vec<Fold> {
    let text = file.text(db);
    let parsed = futhark_db::parse(db, file);
    let mut folds = Vec::new();
    decs(&parsed.file.decs, &mut folds);
    imports(&parsed.file.decs, &mut folds);
    each_exp(&parsed.file.decs, &mut |e| {
        let foldable = matches!(
            e.kind,
            ExpKind::If { .. }
                | ExpKind::Match { .. }
                | ExpKind::Loop { .. }
                | ExpKind::Lambda { .. }
                | ExpKind::ArrayLit(_)
                | ExpKind::Record(_)
                | ExpKind::Tuple(_)
                | ExpKind::LetFun { .. }
        );
        if foldable {
            folds.push(region(e.span.into()));
        }
    });
    comments(db, file, text, &mut folds);

    let lines = LineIndex::new(text);
    let line = |offset: u32| lines.line_col(offset).0;
    let mut out: Vec<Fold> = folds
        .into_iter()
        .filter(|f| f.range.end > f.range.start && line(f.range.start) < line(f.range.end))
        .collect();
    out.sort_by_key(|f| (f.range.start, std::cmp::Reverse(f.range.end)));
    out.dedup_by(|b, a| line(a.range.start) == line(b.range.start));
    out
}

fn region(range: TextRange) -> Fold {
    Fold {
        range,
        kind: FoldKind::Region,
    }
}

fn decs(decs_: &[Dec], out: &mut Vec<Fold>) {
    for dec in decs_ {
        out.push(region(dec.span.into()));
        dec_bodies(dec, out);
    }
}

fn dec_bodies(dec: &Dec, out: &mut Vec<Fold>) {
    match &dec.kind {
        DecKind::Module(m) => mod_exp(&m.body, out),
        DecKind::ModuleType(m) => sig(&m.sig, out),
        DecKind::Open(m) => mod_exp(m, out),
        DecKind::Local(inner) => dec_bodies(inner, out),
        _ => {}
    }
}

fn mod_exp(m: &ModExp, out: &mut Vec<Fold>) {
    match &m.kind {
        ModExpKind::Decs(ds) => {
            out.push(region(m.span.into()));
            decs(ds, out);
        }
        ModExpKind::Parens(inner) | ModExpKind::Ascript(inner, _) => mod_exp(inner, out),
        ModExpKind::Lambda { body, .. } => mod_exp(body, out),
        ModExpKind::Apply(a, b) => {
            mod_exp(a, out);
            mod_exp(b, out);
        }
        ModExpKind::Var(_) | ModExpKind::Import(_) | ModExpKind::Error => {}
    }
}

fn sig(s: &SigExp, out: &mut Vec<Fold>) {
    match &s.kind {
        SigExpKind::Specs(specs) => {
            out.push(region(s.span.into()));
            for spec in specs {
                out.push(region(spec.span.into()));
            }
        }
        SigExpKind::Parens(inner) | SigExpKind::With { sig: inner, .. } => sig(inner, out),
        SigExpKind::Arrow { from, to, .. } => {
            sig(from, out);
            sig(to, out);
        }
        SigExpKind::Var(_) | SigExpKind::Error => {}
    }
}

/// Runs of two or more consecutive `import` declarations.
fn imports(decs: &[Dec], out: &mut Vec<Fold>) {
    let is_import = |d: &Dec| match &d.kind {
        DecKind::Import(_) => true,
        DecKind::Local(inner) => matches!(inner.kind, DecKind::Import(_)),
        DecKind::Open(m) => matches!(m.kind, ModExpKind::Import(_)),
        _ => false,
    };
    let mut run: Option<TextRange> = None;
    for dec in decs {
        if is_import(dec) {
            run = Some(match run {
                Some(r) => TextRange::new(r.start, dec.span.end),
                None => dec.span.into(),
            });
        } else if let Some(r) = run.take() {
            out.push(Fold {
                range: r,
                kind: FoldKind::Imports,
            });
        }
    }
    if let Some(r) = run {
        out.push(Fold {
            range: r,
            kind: FoldKind::Imports,
        });
    }
}

/// Doc comments, and runs of ordinary comments on consecutive lines.
fn comments(db: &dyn Db, file: File, text: &str, out: &mut Vec<Fold>) {
    let lexed = lex(file.id(db), text);
    for t in &lexed.tokens {
        if t.kind == TokenKind::Doc {
            out.push(Fold {
                range: TextRange::new(t.start, t.end),
                kind: FoldKind::Comment,
            });
        }
    }
    let mut run: Option<TextRange> = None;
    for c in &lexed.comments {
        let adjacent = run.is_some_and(|r| {
            text.get(r.end as usize..c.start as usize)
                .is_some_and(|gap| gap.trim().is_empty() && gap.matches('\n').count() == 1)
        });
        run = match run {
            Some(r) if adjacent => Some(TextRange::new(r.start, c.end)),
            Some(r) => {
                out.push(Fold {
                    range: r,
                    kind: FoldKind::Comment,
                });
                Some(TextRange::from(*c))
            }
            None => Some(TextRange::from(*c)),
        };
    }
    if let Some(r) = run {
        out.push(Fold {
            range: r,
            kind: FoldKind::Comment,
        });
    }
}

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};

    use crate::fixture::Fixture;

    fn check(fixture: &str, expect: Expect) {
        let f = Fixture::new(fixture);
        let text = f.text();
        let lines = futhark_syntax::LineIndex::new(&text);
        let shown: Vec<String> = super::folding_ranges(&f.db, f.file())
            .iter()
            .map(|fold| {
                let (a, _) = lines.line_col(fold.range.start);
                let (b, _) = lines.line_col(fold.range.end);
                format!("{:?} {a}-{b}", fold.kind)
            })
            .collect();
        expect.assert_eq(&shown.join("\n"));
    }

    #[test]
    fn declarations_modules_comments_and_imports() {
        check(
            r#"import "a"
import "b"
-- One.
-- Two.
def f (x: i32) =
  if x > 0
  then 1
  else 2
module M = {
  def g = [1,
           2]
}
-- | Doc
-- more doc
def h = 0
"#,
            expect![[r#"
                Imports 1-2
                Comment 3-4
                Region 5-8
                Region 6-8
                Region 9-12
                Region 10-11
                Comment 13-14"#]],
        );
    }
}
