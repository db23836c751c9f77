//! What a cell gives back: a value with its type, the names it declared, or an error made of
//! diagnostics; plus timing and where it ran.

use std::time::Duration;

use futhark_syntax::Diagnostic;

use crate::backend::Device;
pub use crate::compiled::KernelTime;
use crate::format::Formatted;
use crate::value::ValueView;

/// The kind of failure, for headings and for Jupyter's `ename`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    Syntax,
    Type,
    Runtime,
    Interrupted,
    /// A file that cannot be read, a bad command argument, a feature that is not there.
    Usage,
}

impl ErrorKind {
    /// The name Jupyter shows as the error's class.
    pub fn ename(self) -> &'static str {
        match self {
            ErrorKind::Syntax => "SyntaxError",
            ErrorKind::Type => "TypeError",
            ErrorKind::Runtime => "RuntimeError",
            ErrorKind::Interrupted => "Interrupted",
            ErrorKind::Usage => "UsageError",
        }
    }
}

/// A failed cell or command. The session is unchanged by it.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{summary}")]
pub struct CellError {
    pub kind: ErrorKind,
    /// One line: the first diagnostic's message, or the whole message when there are none.
    pub summary: String,
    /// Located diagnostics (render them with [`crate::Session::render`]).
    pub diagnostics: Vec<Diagnostic>,
    /// Lines after the diagnostics (a run-time error's backtrace), or the message itself.
    pub detail: Option<String>,
}

impl CellError {
    /// An error with only a message.
    pub fn message(kind: ErrorKind, message: impl Into<String>) -> CellError {
        let message = message.into();
        CellError {
            kind,
            summary: message.lines().next().unwrap_or_default().to_string(),
            diagnostics: Vec::new(),
            detail: Some(message),
        }
    }

    /// An error made of diagnostics (their first error gives the summary).
    pub fn from_diagnostics(kind: ErrorKind, diagnostics: Vec<Diagnostic>) -> CellError {
        let summary = diagnostics
            .iter()
            .find(|d| d.is_error())
            .or(diagnostics.first())
            .map(|d| d.message.clone())
            .unwrap_or_else(|| "error".to_string());
        CellError {
            kind,
            summary,
            diagnostics,
            detail: None,
        }
    }
}

/// A value shown by an expression cell.
#[derive(Clone, Debug, PartialEq)]
pub struct Shown {
    pub value: ValueView,
    /// The checker's type of the expression, e.g. `[]i32`.
    pub ty: String,
    pub text: Formatted,
}

/// What a successful cell did.
#[derive(Clone, Debug, PartialEq)]
pub enum Evaluated {
    /// An empty cell.
    Nothing,
    /// Declarations; the names they bound.
    Declared(Vec<String>),
    /// An expression; its value is also bound to `it`.
    Value(Shown),
}

/// Where the time of a cell went.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Timing {
    /// From receiving the text to having the answer.
    pub total: Duration,
    /// Parsing and type checking.
    pub check: Duration,
    /// Evaluation (on the interpreter's thread, or the compiled program's run with the
    /// result brought to the host).
    pub eval: Duration,
    /// Compiling a cell for the compiled path: lowering, optimisation and preparing its
    /// kernels (code generation, NVRTC or its disk cache, loading). Zero on the interpreter.
    pub compile: Duration,
}

impl Timing {
    /// `1.23 ms (check 0.20 ms, run 1.00 ms)`; a compiled cell also shows `compile`.
    pub fn summary(&self) -> String {
        let compile = if self.compile.is_zero() {
            String::new()
        } else {
            format!(", compile {}", duration_text(self.compile))
        };
        format!(
            "{} (check {}{compile}, run {})",
            duration_text(self.total),
            duration_text(self.check),
            duration_text(self.eval)
        )
    }
}

/// A duration with a unit that keeps three significant figures readable.
pub fn duration_text(d: Duration) -> String {
    let us = d.as_secs_f64() * 1e6;
    if us < 1000.0 {
        format!("{us:.0} µs")
    } else if us < 1e6 {
        format!("{:.2} ms", us / 1e3)
    } else {
        format!("{:.2} s", us / 1e6)
    }
}

/// The full report of one cell.
#[derive(Clone, Debug, PartialEq)]
pub struct CellOutcome {
    /// The cell's number (`[3]`).
    pub number: usize,
    pub result: Result<Evaluated, CellError>,
    /// Warnings from the checker (the cell still ran).
    pub warnings: Vec<Diagnostic>,
    pub timing: Timing,
    /// What ran the cell (the interpreter also for a cell that fell back to it).
    pub device: Device,
    /// The same in words: `the interpreter`, `cuda: 2 GPUs (NVIDIA H200 (sm_90))`.
    pub location: String,
    /// Why the cell ran somewhere else than the placement said (a fallback), if it did.
    pub note: Option<String>,
    /// Kernels and transfers of a compiled cell.
    pub profile: Option<Profile>,
}

/// What a compiled cell did on its backend.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Profile {
    /// Kernels launched, slowest first.
    pub kernels: Vec<KernelTime>,
    /// How the executor placed work (multi-GPU decisions), when it says.
    pub notes: Vec<String>,
    /// Lowering and optimisation of the cell's program.
    pub lower: Duration,
    /// Preparing kernels not seen before (code generation, NVRTC or its disk cache).
    pub prepare: Duration,
    /// Kernel programs prepared for this cell.
    pub new_kernels: usize,
    /// Modules NVRTC compiled for this cell (neither kernel cache had them); `None` on
    /// backends without NVRTC.
    pub nvrtc: Option<u64>,
    /// Where `prepare` went, on backends that say (CUDA).
    pub prepare_parts: Option<PrepareParts>,
    pub uploaded: u64,
    pub downloaded: u64,
}

/// The parts of preparing a cell's kernels, in milliseconds of wall time (summed over GPUs).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PrepareParts {
    /// Generating CUDA C from the kernel IR.
    pub codegen_ms: f64,
    /// NVRTC compiling modules neither kernel cache had.
    pub nvrtc_ms: f64,
    /// The kernel cache's lookups and writes (memory and disk).
    pub cache_ms: f64,
    /// Loading modules into the GPU's context.
    pub load_ms: f64,
}

impl PrepareParts {
    fn text(&self) -> String {
        format!(
            "CUDA generation {:.1} ms, NVRTC {:.1} ms, kernel cache {:.1} ms, module loads {:.1} ms",
            self.codegen_ms, self.nvrtc_ms, self.cache_ms, self.load_ms
        )
    }
}

impl Profile {
    /// Total kernel time.
    pub fn kernel_ms(&self) -> f64 {
        self.kernels.iter().fold(0.0, |t, k| t + k.ms)
    }

    /// Kernel time of the busiest device: kernels are grouped by the `gpuN: ` prefix the
    /// multi-GPU executor gives their names, and devices run at the same time.
    pub fn busiest_ms(&self) -> f64 {
        let mut per: Vec<(&str, f64)> = Vec::new();
        for k in &self.kernels {
            let dev = match k.name.split_once(": ") {
                Some((d, _)) if d.starts_with("gpu") => d,
                _ => "",
            };
            match per.iter_mut().find(|p| p.0 == dev) {
                Some(p) => p.1 += k.ms,
                None => per.push((dev, k.ms)),
            }
        }
        per.iter().fold(0.0, |m, p| m.max(p.1))
    }

    /// A table of the kernels, one per line.
    pub fn table(&self) -> String {
        let mut out = String::new();
        if self.kernels.is_empty() {
            out.push_str("no kernels launched (the cell's code ran on the host)\n");
        } else {
            let w = self
                .kernels
                .iter()
                .map(|k| k.name.chars().count())
                .max()
                .unwrap_or(0)
                .max(6);
            out.push_str(&format!(
                "{:<w$} {:>8} {:>12}\n",
                "kernel", "launches", "time (ms)"
            ));
            for k in &self.kernels {
                out.push_str(&format!(
                    "{:<w$} {:>8} {:>12.3}\n",
                    k.name, k.launches, k.ms
                ));
            }
            out.push_str(&format!(
                "{:<w$} {:>8} {:>12.3}\n",
                "total",
                self.kernels.iter().map(|k| k.launches).sum::<u64>(),
                self.kernel_ms()
            ));
        }
        for n in &self.notes {
            out.push_str(n);
            out.push('\n');
        }
        let nvrtc = match self.nvrtc {
            Some(n) => format!(", {n} compiled by NVRTC"),
            None => String::new(),
        };
        out.push_str(&format!(
            "lowering {}, kernels prepared {} ({} new{nvrtc}), {} B to device, {} B to host",
            duration_text(self.lower),
            duration_text(self.prepare),
            self.new_kernels,
            self.uploaded,
            self.downloaded
        ));
        // Only when something was prepared: a cell whose kernels were all loaded before has
        // nothing to break down.
        if let Some(parts) = self.prepare_parts.filter(|_| self.new_kernels > 0) {
            out.push_str(&format!("\npreparing: {}", parts.text()));
        }
        out
    }
}
