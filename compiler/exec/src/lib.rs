//! Runs kernel-stage programs (`futhark_db::compile(.., IrStage::Kernels)`): a host-code
//! executor over a [`Backend`] that runs the kernels, either the CPU reference backend
//! ([`CpuBackend`], what CI tests lowering and optimisation with) or CUDA (`CudaBackend`, with
//! the `cuda` feature, on by default: without it nothing here links the CUDA runtime).
//!
//! Host code is interpreted statement by statement. Arrays are typed flat buffers with a
//! shape; those made by kernels stay in the backend's memory and are copied to the host
//! only when host code needs their elements (indexing, updates, results).

mod array_ops;
mod backend;
mod cpu;
#[cfg(feature = "cuda")]
mod cuda;
pub mod dist;
mod entry;
mod error;
mod host;
mod host_ops;
mod kernel_ops;
mod multi;
mod open;
pub mod partition;
mod prim;
mod timed;
mod value;

pub use backend::{
    Backend, CACHE_PROFILE, CODEGEN_PROFILE, KernelProfile, LOAD_PROFILE, NVRTC_PROFILE,
    PeerBackend, Stamp, written_arrays,
};
pub use cpu::{CpuBackend, run_program as run_kernel_program};
#[cfg(feature = "cuda")]
pub use cuda::{CudaBackend, CudaDevice, cuda_unavailable_reason};

/// Why CUDA cannot run here: always, in a build without the `cuda` feature.
#[cfg(not(feature = "cuda"))]
pub fn cuda_unavailable_reason() -> Option<String> {
    Some(open::NO_CUDA.to_string())
}
pub use error::{ExecError, Result};
pub use futhark_options::ExecOptions;
pub use host::Executor;
pub use multi::{Multi, MultiBuf, SplitPolicy};
pub use open::{Opened, Target, UseBackend, open_backend};
pub use value::{Array, Data, Val};

#[cfg(test)]
mod tests;
