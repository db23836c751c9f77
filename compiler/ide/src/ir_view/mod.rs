//! The IR and CUDA views an editor (or the REPL) opens beside a file: the compiler's output
//! for the definition under the cursor, or for the whole program.
//!
//! A view compiles the program rooted at the file ([`futhark_db::compile_shared`], on whatever
//! database snapshot the caller holds), picks the IR functions that come from the
//! definition around the cursor ([`origin`]) and prints them ([`render`]). When nothing can
//! be shown the view says why: the program has errors, the GPU path does not support
//! something it uses, the file has no entry point, the definition is not reachable from
//! one, or the optimiser inlined it into its callers.

mod origin;
mod reach;
pub mod render;

use std::sync::Arc;

use futhark_db::{CompileError, Db, File, IrStage, compile_shared, parse, render as diag};
use futhark_ir::soacs::{FunDef, Program};

pub use origin::{SourceDef, def_at};
pub use render::CudaViewError;

/// The editor language of IR views (`--` comments, Futhark-like keywords).
pub const IR_LANGUAGE: &str = "futhark-ir";
/// The editor language of CUDA views.
pub const CUDA_LANGUAGE: &str = "cuda";

/// The text of a view.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct View {
    /// False when `text` explains why there is nothing to show.
    pub available: bool,
    /// [`IR_LANGUAGE`] or [`CUDA_LANGUAGE`].
    pub language: &'static str,
    pub text: String,
    /// The definition the view is restricted to; `None` for the whole program.
    pub def: Option<String>,
}

impl View {
    fn shown(language: &'static str, def: Option<&SourceDef>, text: String) -> View {
        View {
            available: true,
            language,
            text,
            def: def.map(|d| d.name.clone()),
        }
    }

    fn missing(language: &'static str, def: Option<&SourceDef>, why: String) -> View {
        View {
            available: false,
            language,
            text: why,
            def: def.map(|d| d.name.clone()),
        }
    }
}

/// The IR at `stage` of the definition around `offset` in `file` (the program rooted at
/// `file`), or of the whole program when `offset` is `None` or not in a definition.
pub fn show_ir(db: &dyn Db, file: File, offset: Option<u32>, stage: IrStage) -> View {
    let lang = IR_LANGUAGE;
    let def = offset.and_then(|o| def_at(&parse(db, file).file, o));
    let prog = match program(db, file, stage) {
        Ok(p) => p,
        Err(why) => return View::missing(lang, def.as_ref(), why),
    };
    let Some(def) = def else {
        let header = format!(
            "-- {} IR of the whole program {}{}\n\n",
            stage.name(),
            file.path(db).display(),
            if offset.is_some() {
                " (the cursor is not in a definition)"
            } else {
                ""
            }
        );
        return View::shown(lang, None, header + &render::render_program(&prog));
    };
    let funs = owned(&prog, &def);
    if funs.is_empty() {
        return View::missing(lang, Some(&def), explain_missing(db, file, &def, stage));
    }
    let header = format!(
        "-- {} IR of `{}`: {}\n\n",
        stage.name(),
        def.name,
        plural(funs.len(), "function")
    );
    View::shown(
        lang,
        Some(&def),
        header + &render::render_funs(&prog, stage, &funs),
    )
}

/// The CUDA kernels of the definition around `offset` in `file` (those its functions
/// launch, directly or through the functions they call), or of the whole program.
pub fn show_cuda(db: &dyn Db, file: File, offset: Option<u32>) -> View {
    let lang = CUDA_LANGUAGE;
    let def = offset.and_then(|o| def_at(&parse(db, file).file, o));
    let prog = match program(db, file, IrStage::Kernels) {
        Ok(p) => p,
        Err(why) => return View::missing(lang, def.as_ref(), why),
    };
    let (kernels, header) = match &def {
        None => (
            prog.kernels.iter().collect::<Vec<_>>(),
            format!(
                "// CUDA kernels of the whole program {}{}",
                file.path(db).display(),
                if offset.is_some() {
                    " (the cursor is not in a definition)"
                } else {
                    ""
                }
            ),
        ),
        Some(d) => {
            let funs = owned(&prog, d);
            if funs.is_empty() {
                let why = explain_missing(db, file, d, IrStage::Kernels);
                return View::missing(lang, def.as_ref(), why);
            }
            let kernels = render::launched_kernels(&prog, &render::reachable_funs(&prog, &funs));
            (kernels, format!("// CUDA kernels run by `{}`", d.name))
        }
    };
    if kernels.is_empty() {
        let what = match &def {
            Some(d) => format!("`{}` launches no kernels", d.name),
            None => "the program launches no kernels".to_string(),
        };
        let why = format!("// {what}: its code runs on the host (see the kernels-stage IR)\n");
        return View::missing(lang, def.as_ref(), why);
    }
    match render::render_cuda(&prog, &kernels, false, &Default::default()) {
        Ok(text) => View::shown(lang, def.as_ref(), format!("{header}\n\n{text}")),
        Err(e) => View::missing(lang, def.as_ref(), format!("// {e}\n")),
    }
}

/// The program compiled to `stage`, or a message saying why it cannot be.
fn program(db: &dyn Db, file: File, stage: IrStage) -> Result<Arc<Program>, String> {
    let prog = compile_shared(db, file, stage).map_err(|e| compile_error(db, file, &e))?;
    if prog.entries().next().is_none() {
        return Err(format!(
            "{} has no entry points, so nothing of it is compiled; open a program with \
             `entry` definitions that uses it\n",
            file.path(db).display()
        ));
    }
    Ok(prog)
}

/// A compile error as text: a line saying what kind, then each diagnostic with its
/// location.
pub fn compile_error(db: &dyn Db, file: File, e: &CompileError) -> String {
    let what = match e {
        CompileError::Check(_) => "the program has errors; fix them to see its IR",
        CompileError::Lower(_) => "the program cannot be compiled for the GPU",
        CompileError::Pass(p) if p.unsupported => "the program cannot be compiled for the GPU",
        CompileError::Pass(_) => "the optimiser failed (a compiler bug)",
    };
    let mut out = format!("{what}:\n");
    for d in e.diagnostics(db, file) {
        out.push_str(&diag::render_plain(db, &d));
        out.push('\n');
    }
    out
}

/// The functions of `prog` made from `def`.
fn owned<'a>(prog: &'a Program, def: &SourceDef) -> Vec<&'a FunDef> {
    prog.funs.iter().filter(|f| def.owns(&f.name)).collect()
}

/// Why `def` has no function of its own at `stage`.
fn explain_missing(db: &dyn Db, file: File, def: &SourceDef, stage: IrStage) -> String {
    let name = &def.name;
    if stage != IrStage::Soacs
        && let Ok(lowered) = compile_shared(db, file, IrStage::Soacs)
        && !owned(&lowered, def).is_empty()
    {
        return format!(
            "`{name}` has no function of its own at the {} stage: the optimiser inlined it \
             into its callers (its code is in their IR; the soacs stage shows it alone)\n",
            stage.name()
        );
    }
    if !def.has_params {
        return format!(
            "`{name}` is a constant: lowering computes it where it is used, so it has no IR \
             function of its own\n"
        );
    }
    if !reach::reachable_from_entry(db, file, def) {
        return format!(
            "`{name}` is not reachable from an entry point of {}, so it is not compiled\n",
            file.path(db).display()
        );
    }
    format!(
        "`{name}` has no IR function of its own: lowering inlined it into its callers \
         (higher-order functions and functions taking function arguments always are); see \
         the entry points that use it\n"
    )
}

fn plural(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

#[cfg(test)]
mod tests;
