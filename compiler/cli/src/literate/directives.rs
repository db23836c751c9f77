//! Running one directive in the session and the Markdown it becomes: the directive as
//! written (in a plain code block; left out for `:covert`, without parameters for `:brief`),
//! then its value, a picture, or **FAILED** with the error.
//!
//! Pictures are named after a hash of the program and the directive (`HASH-img.png`,
//! `HASH-plot.png`) unless `file:` names them, so they keep their names while neither
//! changes.

use std::path::{Path, PathBuf};

use futhark_db::Db;
use futhark_session::picture::{image, plot, png};
use futhark_session::{CellError, ErrorKind, Evaluated, Session, Shown};
use futhark_syntax::{Diagnostic, Span};

use super::document::{Directive, Kind};
use super::script::{self, Exp, Translated};
use super::show;

/// The size of `:plot2d` pictures without `size:` (the reference's).
const PLOT_SIZE: (usize, usize) = (500, 500);

/// What running a directive gave.
pub enum Outcome {
    /// Its Markdown.
    Done(String),
    /// Its Markdown (with **FAILED**) and the error.
    Failed { markdown: String, error: String },
}

/// Runs directives in a session with the program loaded.
pub struct Runner<'a> {
    session: &'a mut Session,
    /// The program's name as errors show it, and its text.
    name: String,
    text: &'a str,
    images: &'a Path,
    images_name: &'a str,
    verbose: bool,
    written: Vec<PathBuf>,
}

impl<'a> Runner<'a> {
    pub fn new(
        session: &'a mut Session,
        name: String,
        text: &'a str,
        images: &'a Path,
        images_name: &'a str,
        verbose: bool,
    ) -> Runner<'a> {
        Runner {
            session,
            name,
            text,
            images,
            images_name,
            verbose,
            written: Vec::new(),
        }
    }

    /// The pictures written so far.
    pub fn written(&self) -> Vec<PathBuf> {
        self.written.clone()
    }

    pub fn run(&mut self, d: &Directive) -> Outcome {
        if self.verbose {
            eprintln!("Processing {}...", one_line(&d.text));
        }
        let prompt = match &d.kind {
            Kind::Covert(_) => String::new(),
            Kind::Brief(k) => format!("```\n{}\n```\n", self.brief(k)),
            _ => format!("```\n{}```\n", d.text),
        };
        match self.result(d) {
            Ok(result) => Outcome::Done(format!("{prompt}\n{result}")),
            Err(error) => Outcome::Failed {
                markdown: format!("{prompt}\n**FAILED**\n```\n{error}\n```\n"),
                error,
            },
        }
    }

    /// The Markdown of a directive's result.
    fn result(&mut self, d: &Directive) -> Result<String, String> {
        let unsupported = |what: &str, tool: &str| {
            Err(format!(
                "`{what}` is not supported by futhark-rs literate: it needs {tool}, which this tool does not run"
            ))
        };
        match d.kind.inner() {
            Kind::Value(exp) => {
                let shown = self.evaluate(exp)?;
                let text = show::value_text(&shown.value)
                    .map_err(|_| format!("Cannot show value of type {}", shown.ty))?;
                Ok(format!("```\n{text}\n```\n"))
            }
            Kind::Img { exp, file } => {
                let shown = self.evaluate(exp)?;
                let img =
                    image::to_image(&shown.value, &shown.ty).map_err(|e| format!(":img {e}"))?;
                self.picture(d, file.as_deref(), "img.png", &img)
            }
            Kind::Plot { exp, size } => {
                let shown = self.evaluate(exp)?;
                let series =
                    plot::series(&shown.value, &shown.ty).map_err(|e| format!(":plot2d {e}"))?;
                let indexed = matches!(shown.value, futhark_session::ValueView::Prim(_));
                let (img, _) = plot::plot_series(&series, size.unwrap_or(PLOT_SIZE), indexed);
                self.picture(d, None, "plot.png", &img)
            }
            Kind::Gnuplot { .. } => unsupported(":gnuplot", "gnuplot"),
            Kind::Video { .. } => unsupported(":video", "ffmpeg"),
            Kind::Audio { .. } => unsupported(":audio", "ffmpeg"),
            Kind::Brief(_) | Kind::Covert(_) => Err("nested directive".to_string()),
        }
    }

    /// Writes a picture into the picture directory; its Markdown.
    fn picture(
        &mut self,
        d: &Directive,
        file: Option<&str>,
        template: &str,
        img: &png::Image,
    ) -> Result<String, String> {
        let name = match file {
            Some(f) => f.to_string(),
            None => format!("{}-{template}", hash(self.text, &d.text)),
        };
        let bytes = png::encode(img).map_err(|e| format!("cannot encode the picture: {e}"))?;
        std::fs::create_dir_all(self.images)
            .map_err(|e| format!("cannot create {}: {e}", self.images.display()))?;
        let path = self.images.join(&name);
        std::fs::write(&path, bytes)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        self.written.push(path);
        Ok(format!("![]({}/{name})\n", self.images_name))
    }

    /// Evaluates a directive's expression; a failure is the error's text, located in the
    /// program. When it does not type-check and applies functions of several parameters to
    /// one argument, it is tried again with those applications uncurried (the reference's
    /// rule); if that fails too, the first error is the one shown.
    fn evaluate(&mut self, exp: &Exp) -> Result<Shown, String> {
        let first = match self.evaluate_with(exp, &|_| None) {
            Ok(shown) => return Ok(shown),
            Err(e) => e,
        };
        let (error, type_error) = first;
        let candidates = script::applied_to_one(exp);
        if !type_error || candidates.is_empty() {
            return Err(error);
        }
        let arities: Vec<(String, usize)> = candidates
            .into_iter()
            .filter_map(|name| {
                let ty = self.session.type_of(&name).ok()?;
                Some((name, script::arity(&ty)))
            })
            .filter(|(_, n)| *n >= 2)
            .collect();
        if arities.is_empty() {
            return Err(error);
        }
        let lookup = |name: &str| arities.iter().find(|(n, _)| n == name).map(|(_, a)| *a);
        self.evaluate_with(exp, &lookup).map_err(|_| error)
    }

    /// Evaluates a translation of `exp`; a failure is its text and whether it is a type
    /// error.
    fn evaluate_with(
        &mut self,
        exp: &Exp,
        arity: &dyn Fn(&str) -> Option<usize>,
    ) -> Result<Shown, (String, bool)> {
        let translated = script::translate_uncurried(exp, Path::new(""), arity).map_err(|e| {
            let d = Diagnostic::error(
                "literate-builtin",
                Span::new(
                    futhark_syntax::FileId(0),
                    e.span.start as u32,
                    e.span.end as u32,
                ),
                e.message,
            );
            (located(&d, &self.name, self.text), false)
        })?;
        // In parentheses: a cell starting with `let` would be a declaration.
        let cell = format!("({})", translated.text);
        let cell_name = format!("[{}]", self.session.next_cell());
        let verbose = self.verbose;
        let outcome = self.session.eval(&cell, &mut |line| {
            if verbose {
                eprintln!("{line}");
            }
        });
        match outcome.result {
            Ok(Evaluated::Value(shown)) => Ok(shown),
            Ok(_) => Err((
                "the directive's expression gave no value".to_string(),
                false,
            )),
            Err(e) => Err((
                self.render_error(&e, &cell_name, &translated),
                e.kind == ErrorKind::Type,
            )),
        }
    }

    /// An error of a cell, with the cell's locations moved to the directive in the program.
    fn render_error(&self, e: &CellError, cell_name: &str, t: &Translated) -> String {
        let db = self.session.db();
        let in_cell = |span: Span| {
            db.file_by_id(span.file)
                .is_some_and(|f| f.path(db).as_os_str() == cell_name)
        };
        // The cell is the translation in parentheses.
        let to_program = |span: Span| {
            let start = t.origin((span.start as usize).saturating_sub(1));
            let end = if span.end > span.start {
                t.origin((span.end as usize).saturating_sub(2)) + 1
            } else {
                start
            };
            Span::new(span.file, start as u32, end.max(start) as u32)
        };
        let mut parts = Vec::new();
        for d in &e.diagnostics {
            if in_cell(d.span) {
                let mut d = d.clone();
                d.span = to_program(d.span);
                for l in &mut d.labels {
                    if in_cell(l.span) {
                        l.span = to_program(l.span);
                    }
                }
                parts.push(located(&d, &self.name, self.text));
            } else if let Some(f) = db.file_by_id(d.span.file) {
                let path = f.path(db).display().to_string();
                parts.push(located(d, &path, f.text(db)));
            } else {
                parts.push(d.message.clone());
            }
        }
        if let Some(detail) = &e.detail {
            parts.push(detail.clone());
        }
        if parts.is_empty() {
            parts.push(e.summary.clone());
        }
        parts.join("\n")
    }

    /// A `:brief` directive as shown: without its parameters.
    fn brief(&self, k: &Kind) -> String {
        let exp = |e: &Exp| one_line(&self.text[e.span.clone()]);
        match k {
            Kind::Brief(k) | Kind::Covert(k) => self.brief(k),
            Kind::Value(e) => format!("> {}", exp(e)),
            Kind::Img { exp: e, file } => match file {
                Some(f) => format!("> :img {};\nfile: {f}", exp(e)),
                None => format!("> :img {}", exp(e)),
            },
            Kind::Plot { exp: e, .. } => format!("> :plot2d {}", exp(e)),
            Kind::Gnuplot { exp: e, .. } => format!("> :gnuplot {}", exp(e)),
            Kind::Video { exp: e, .. } => format!("> :video {}", exp(e)),
            Kind::Audio { exp: e, params } => {
                let mut s = format!("> :audio {}", exp(e));
                if !params.is_empty() {
                    s.push(';');
                    for (k, v) in params {
                        s.push_str(&format!("\n{k}: {v}"));
                    }
                }
                s
            }
        }
    }
}

/// A diagnostic as text: `path:line:col-col: error: message`, labels and notes.
fn located(d: &Diagnostic, path: &str, text: &str) -> String {
    futhark_check::render::render(d, path, text)
}

/// Text over several comment lines on one line.
fn one_line(text: &str) -> String {
    text.lines()
        .map(|l| {
            let l = l.trim();
            l.strip_prefix("--").unwrap_or(l).trim()
        })
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// A name for a directive's picture: 32 hex digits of the 128-bit FNV-1a hash of the program
/// and the directive.
fn hash(program: &str, directive: &str) -> String {
    let mut h: u128 = 0x6c62272e07bb014262b821756295c58d;
    for b in program.bytes().chain([0]).chain(directive.bytes()) {
        h ^= u128::from(b);
        h = h.wrapping_mul(0x0000000001000000000000000000013b);
    }
    format!("{h:032x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn picture_names_depend_on_program_and_directive() {
        let a = hash("let x = 1", "> :img x\n");
        assert_eq!(a.len(), 32);
        assert_eq!(a, hash("let x = 1", "> :img x\n"));
        assert_ne!(a, hash("let x = 2", "> :img x\n"));
        assert_ne!(a, hash("let x = 1", "> :img y\n"));
    }

    #[test]
    fn directives_over_lines_are_shown_on_one() {
        assert_eq!(one_line("f 1\n--   2"), "f 1 2");
    }
}
