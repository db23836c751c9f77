//! The runtime's errors: every failure is a value with a message a user can act on.

use thiserror::Error;

use crate::codegen::CodegenError;

/// An error from the CUDA runtime layer.
#[derive(Clone, Debug, Error)]
pub enum CudaError {
    #[error(
        "no CUDA driver found (libcuda.so could not be loaded): this machine has no usable NVIDIA GPU; run on the interpreter instead"
    )]
    NoDriver,
    #[error(
        "no NVRTC found: libnvrtc.so.13 is not on the loader path, in $CUDA_HOME, /usr/local/cuda*, /opt/cuda, or a Python environment's nvidia/cu13/lib; install the CUDA 13 toolkit (or `pip install nvidia-cuda-nvrtc==13.0.*` in the active environment), or add the folder holding libnvrtc.so.13 to LD_LIBRARY_PATH"
    )]
    NoNvrtc,
    #[error(
        "no NCCL found: libnccl.so.2 could not be loaded, and a distributed run on GPUs needs it; install NCCL 2 (`apt install libnccl2`, or `pip install nvidia-nccl-cu13` in the active environment) or add the folder holding libnccl.so.2 to LD_LIBRARY_PATH"
    )]
    NoNccl,
    #[error("NCCL error in {what}: {message}")]
    Nccl { what: String, message: String },
    #[error("the CUDA driver found no GPU")]
    NoDevice,
    #[error("GPU {0} does not exist (this machine has {1})")]
    BadDevice(usize, usize),
    #[error("NVRTC could not compile `{name}` for {arch}:\n{log}")]
    Compile {
        name: String,
        arch: String,
        log: String,
    },
    #[error("out of GPU memory on GPU {device}: asked for {requested} bytes, {free} bytes free")]
    OutOfMemory {
        device: usize,
        requested: usize,
        free: usize,
    },
    #[error("CUDA driver error in {what}: {message}")]
    Driver { what: String, message: String },
    #[error("NVRTC error in {what}: {message}")]
    Nvrtc { what: String, message: String },
    #[error("kernel `{kernel}`: {message}")]
    Launch { kernel: String, message: String },
    #[error("kernel cache: {0}")]
    Cache(String),
    #[error(transparent)]
    Codegen(#[from] CodegenError),
}

impl CudaError {
    /// Wraps a driver error with what was being done.
    pub fn driver(what: impl Into<String>, e: cudarc::driver::result::DriverError) -> CudaError {
        let message = match e.error_string() {
            Ok(s) => format!("{} ({:?})", s.to_string_lossy(), e.0),
            Err(_) => format!("{:?}", e.0),
        };
        CudaError::Driver {
            what: what.into(),
            message,
        }
    }
}

/// Shorthand for results of the runtime.
pub type Result<T, E = CudaError> = std::result::Result<T, E>;
