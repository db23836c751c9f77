//! Where a cell runs: the backend the user asked for (`auto`, `interp`, `cuda`), the GPUs
//! the driver can see, and the decision with the sentence that explains it.
//!
//! With a GPU and NVRTC present, `auto` and `cuda` place cells on the GPUs (the session
//! still falls back to the interpreter, saying why, for a cell the GPU path cannot run
//! under `auto`); without them, `auto` runs on the interpreter and `cuda` says why it
//! cannot. `cpu` runs the same compiled path on the CPU reference backend: the GPU path's
//! code generation and host code without a GPU.

use std::fmt;
use std::str::FromStr;
use std::sync::OnceLock;

/// The backend a user asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum BackendChoice {
    /// The GPUs when there are any and the backend can run the cell, else the interpreter.
    #[default]
    Auto,
    /// Always the reference interpreter.
    Interp,
    /// CUDA; a cell it cannot run is an error.
    Cuda,
    /// The compiled path on the CPU reference backend (kernels interpreted on the host).
    Cpu,
}

impl BackendChoice {
    pub const NAMES: [&'static str; 4] = ["auto", "interp", "cuda", "cpu"];

    pub fn name(self) -> &'static str {
        match self {
            BackendChoice::Auto => "auto",
            BackendChoice::Interp => "interp",
            BackendChoice::Cuda => "cuda",
            BackendChoice::Cpu => "cpu",
        }
    }
}

impl fmt::Display for BackendChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A backend name that is not one of [`BackendChoice::NAMES`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown backend \"{0}\" (expected auto, interp, cuda or cpu)")]
pub struct UnknownBackend(pub String);

impl FromStr for BackendChoice {
    type Err = UnknownBackend;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim() {
            "auto" => Ok(BackendChoice::Auto),
            "interp" | "interpreter" => Ok(BackendChoice::Interp),
            "cuda" | "gpu" => Ok(BackendChoice::Cuda),
            "cpu" | "ir" => Ok(BackendChoice::Cpu),
            other => Err(UnknownBackend(other.to_string())),
        }
    }
}

/// What ran a cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Device {
    Interpreter,
    /// CUDA on this many GPUs.
    Gpus(usize),
    /// The compiled program on the CPU reference backend.
    CpuExecutor,
}

impl Device {
    /// Whether cells placed here run compiled (not on the interpreter).
    pub fn is_compiled(self) -> bool {
        !matches!(self, Device::Interpreter)
    }
}

impl fmt::Display for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Device::Interpreter => f.write_str("interpreter"),
            Device::Gpus(1) => f.write_str("1 GPU"),
            Device::Gpus(n) => write!(f, "{n} GPUs"),
            Device::CpuExecutor => f.write_str("CPU executor"),
        }
    }
}

/// What the CUDA driver reports, probed once per process.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GpuProbe {
    /// Number of visible GPUs (0 when the driver is missing).
    pub count: usize,
    /// Why no GPU can be used, when `count` is 0.
    pub reason: Option<String>,
}

/// Asks the CUDA driver how many GPUs are visible, unless they are `hidden` (a test or a
/// user can hide them, as `CUDA_VISIBLE_DEVICES=` would: `FaceOptions::no_gpu`,
/// `FUTHARK_NO_GPU`). Cached: loading the driver is slow and the answer does not change
/// during a session.
pub fn probe_gpus(hidden: bool) -> &'static GpuProbe {
    static HIDDEN: OnceLock<GpuProbe> = OnceLock::new();
    static PROBE: OnceLock<GpuProbe> = OnceLock::new();
    if hidden {
        return HIDDEN.get_or_init(|| GpuProbe {
            count: 0,
            reason: Some("FUTHARK_NO_GPU is set".to_string()),
        });
    }
    PROBE.get_or_init(detect)
}

#[cfg(feature = "cuda")]
fn detect() -> GpuProbe {
    match futhark_cuda::runtime::device::device_count() {
        Ok(0) => GpuProbe {
            count: 0,
            reason: Some("the CUDA driver sees no GPU".to_string()),
        },
        Ok(n) if !futhark_cuda::runtime::nvrtc::available() => GpuProbe {
            count: 0,
            reason: Some(format!(
                "{} visible, but {}",
                Device::Gpus(n),
                futhark_cuda::runtime::CudaError::NoNvrtc
            )),
        },
        Ok(n) => GpuProbe {
            count: n,
            reason: None,
        },
        Err(e) => {
            // The runtime's message ends with advice that the session acts on itself.
            let text = e.to_string();
            let text = text
                .strip_suffix("; run on the interpreter instead")
                .unwrap_or(&text)
                .to_string();
            GpuProbe {
                count: 0,
                reason: Some(format!("no GPU visible: {text}")),
            }
        }
    }
}

#[cfg(not(feature = "cuda"))]
fn detect() -> GpuProbe {
    GpuProbe {
        count: 0,
        reason: Some("this build has no CUDA support".to_string()),
    }
}

/// The decision for the next cell: where it runs and, when that is not what was asked for,
/// the sentence that says why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Placement {
    pub device: Device,
    pub note: Option<String>,
}

/// Decides where cells run given the user's choice, the requested GPU count (`None`: all
/// visible) and what the driver reports.
pub fn place(choice: BackendChoice, gpus: Option<usize>, probe: &GpuProbe) -> Placement {
    let interp = |note: Option<String>| Placement {
        device: Device::Interpreter,
        note,
    };
    match choice {
        BackendChoice::Interp => interp(None),
        BackendChoice::Cpu => Placement {
            device: Device::CpuExecutor,
            note: None,
        },
        BackendChoice::Auto | BackendChoice::Cuda => {
            let asked = match choice {
                BackendChoice::Cuda => "the CUDA backend was requested, but ",
                _ => "",
            };
            if probe.count == 0 {
                let why = probe
                    .reason
                    .clone()
                    .unwrap_or_else(|| "no GPU visible".to_string());
                return interp(Some(match choice {
                    BackendChoice::Cuda => format!(
                        "{asked}{why}; expression cells cannot run (:backend auto or \
                         :backend interp runs them on the interpreter)"
                    ),
                    _ => format!("{why}; running on the interpreter"),
                }));
            }
            let using = gpus.unwrap_or(probe.count).min(probe.count);
            if using == 0 {
                return interp(Some(format!("{asked}0 GPUs were requested")));
            }
            Placement {
                device: Device::Gpus(using),
                note: None,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_gpu() -> GpuProbe {
        GpuProbe {
            count: 0,
            reason: Some("no CUDA driver".into()),
        }
    }

    #[test]
    fn interp_is_silent() {
        assert_eq!(place(BackendChoice::Interp, None, &no_gpu()).note, None);
    }

    #[test]
    fn auto_without_gpu_falls_back_with_reason() {
        let p = place(BackendChoice::Auto, None, &no_gpu());
        assert_eq!(p.device, Device::Interpreter);
        assert_eq!(
            p.note.as_deref(),
            Some("no CUDA driver; running on the interpreter")
        );
    }

    #[test]
    fn gpus_are_used_up_to_the_count_visible() {
        let probe = GpuProbe {
            count: 2,
            reason: None,
        };
        let p = place(BackendChoice::Cuda, Some(1), &probe);
        assert_eq!(
            p,
            Placement {
                device: Device::Gpus(1),
                note: None
            }
        );
        assert_eq!(
            place(BackendChoice::Auto, Some(8), &probe).device,
            Device::Gpus(2)
        );
        assert_eq!(
            place(BackendChoice::Auto, None, &probe).device,
            Device::Gpus(2)
        );
        let none = place(BackendChoice::Auto, Some(0), &probe);
        assert_eq!(none.device, Device::Interpreter);
    }

    #[test]
    fn cpu_runs_compiled_without_a_gpu() {
        let p = place(BackendChoice::Cpu, None, &no_gpu());
        assert_eq!(p.device, Device::CpuExecutor);
        assert!(p.device.is_compiled());
    }

    #[test]
    fn backend_names_parse() {
        assert_eq!("cuda".parse(), Ok(BackendChoice::Cuda));
        assert!("opencl".parse::<BackendChoice>().is_err());
    }
}
