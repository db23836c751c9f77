//! The text of an IR program, whole or restricted to some of its functions, and the CUDA
//! of its kernels. Plain functions over `futhark_ir` data, shared by the CLI and the IDE.

use std::collections::HashSet;
use std::fmt::Write;

use futhark_cuda_codegen::{CodegenError, CodegenOptions, generate_program_with};
use futhark_db::IrStage;
use futhark_ir::soacs::{Body, Exp, FunDef, KernelDef, Lambda, Program, Soac};

/// Why CUDA could not be generated for a kernel.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum CudaViewError {
    /// The CUDA backend does not handle something the kernel does.
    #[error("not supported by the GPU path yet: {what} (kernel `{kernel}`)")]
    Unsupported { kernel: String, what: String },
    /// Kernel extraction produced a kernel program the kernel IR checker rejects.
    #[error("kernel program `{kernel}` is not valid kernel IR (a compiler bug): {message}")]
    Invalid { kernel: String, message: String },
}

impl CudaViewError {
    fn new(program: &str, e: CodegenError) -> CudaViewError {
        match e {
            CodegenError::Unsupported { kernel, what } => {
                CudaViewError::Unsupported { kernel, what }
            }
            CodegenError::Type(t) => CudaViewError::Invalid {
                kernel: program.to_string(),
                message: t.to_string(),
            },
        }
    }
}

/// The functions a body calls and the kernels it launches, each once, in order.
#[derive(Default)]
struct Uses {
    calls: Vec<String>,
    launches: Vec<String>,
}

impl Uses {
    fn of(f: &FunDef) -> Uses {
        let mut uses = Uses::default();
        uses.body(&f.body);
        uses
    }

    fn body(&mut self, b: &Body) {
        for stm in &b.stms {
            self.exp(&stm.exp);
        }
    }

    fn lambda(&mut self, l: &Lambda) {
        self.body(&l.body);
    }

    fn exp(&mut self, e: &Exp) {
        match e {
            Exp::Apply { func, .. } if !self.calls.contains(func) => self.calls.push(func.clone()),
            Exp::Launch(l) if !self.launches.contains(&l.kernel) => {
                self.launches.push(l.kernel.clone())
            }
            Exp::If {
                then_body,
                else_body,
                ..
            } => {
                self.body(then_body);
                self.body(else_body);
            }
            Exp::Loop { body, .. } => self.body(body),
            Exp::Soac(s) => match s {
                Soac::Map { lam, .. } => self.lambda(lam),
                Soac::Reduce { op, map, .. }
                | Soac::Scan { op, map, .. }
                | Soac::Hist { op, map, .. } => {
                    self.lambda(op);
                    self.lambda(map);
                }
                Soac::Scatter { map, .. } => self.lambda(map),
            },
            _ => {}
        }
    }
}

/// `roots` and every function they call, directly or not, in program order.
pub fn reachable_funs<'a>(prog: &'a Program, roots: &[&FunDef]) -> Vec<&'a FunDef> {
    let mut seen: HashSet<&str> = roots.iter().map(|f| f.name.as_str()).collect();
    let mut todo: Vec<String> = roots.iter().map(|f| f.name.clone()).collect();
    while let Some(name) = todo.pop() {
        let Some(f) = prog.fun(&name) else { continue };
        for callee in Uses::of(f).calls {
            if let Some(g) = prog.fun(&callee)
                && seen.insert(g.name.as_str())
            {
                todo.push(callee);
            }
        }
    }
    prog.funs
        .iter()
        .filter(|f| seen.contains(f.name.as_str()))
        .collect()
}

/// The kernel programs `funs` launch themselves, in program order.
pub fn launched_kernels<'a>(prog: &'a Program, funs: &[&FunDef]) -> Vec<&'a KernelDef> {
    let launched: HashSet<String> = funs.iter().flat_map(|f| Uses::of(f).launches).collect();
    prog.kernels
        .iter()
        .filter(|k| launched.contains(&k.name))
        .collect()
}

/// The host functions that launch the kernel program `kernel`.
pub fn launchers<'a>(prog: &'a Program, kernel: &str) -> Vec<&'a str> {
    prog.funs
        .iter()
        .filter(|f| Uses::of(f).launches.iter().any(|k| k == kernel))
        .map(|f| f.name.as_str())
        .collect()
}

fn launched_by(prog: &Program, kernel: &str) -> String {
    let names = launchers(prog, kernel);
    if names.is_empty() {
        "no host function".to_string()
    } else {
        names.join(", ")
    }
}

/// The IR of `funs` and, at the kernels stage, the kernel programs they launch (each
/// headed by a comment naming its launchers).
pub fn render_funs(prog: &Program, stage: IrStage, funs: &[&FunDef]) -> String {
    let kernels = match stage {
        IrStage::Kernels => launched_kernels(prog, funs),
        IrStage::Soacs | IrStage::Fused => Vec::new(),
    };
    render(prog, funs, &kernels)
}

/// The whole program: every function, then every kernel program.
pub fn render_program(prog: &Program) -> String {
    let funs: Vec<&FunDef> = prog.funs.iter().collect();
    let kernels: Vec<&KernelDef> = prog.kernels.iter().collect();
    render(prog, &funs, &kernels)
}

fn render(prog: &Program, funs: &[&FunDef], kernels: &[&KernelDef]) -> String {
    let mut out = String::new();
    for (i, f) in funs.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let _ = writeln!(out, "{f}");
    }
    for k in kernels {
        let _ = writeln!(
            out,
            "\n-- kernel program {}, launched by {}",
            k.name,
            launched_by(prog, &k.name)
        );
        let _ = write!(out, "{}", k.program);
    }
    out
}

/// The CUDA C of every kernel of `kernels`, each headed by a comment naming the kernel, its
/// kernel program and the host functions launching it; `full` includes the prelude, so
/// each kernel's text is the whole module NVRTC compiles.
pub fn render_cuda(
    prog: &Program,
    kernels: &[&KernelDef],
    full: bool,
    codegen: &CodegenOptions,
) -> Result<String, CudaViewError> {
    let mut out = String::new();
    for k in kernels {
        let generated = generate_program_with(&k.program, codegen)
            .map_err(|e| CudaViewError::new(&k.name, e))?;
        for g in generated {
            if !out.is_empty() {
                out.push('\n');
            }
            let program = if g.name == k.name {
                String::new()
            } else {
                format!(" (kernel program {})", k.name)
            };
            let _ = writeln!(
                out,
                "// kernel {}{program}, launched by {}",
                g.name,
                launched_by(prog, &k.name)
            );
            let text = if full { &g.source } else { g.kernel_source() };
            out.push_str(text.trim_end());
            out.push('\n');
        }
    }
    Ok(out)
}
