//! Kernel IR to CUDA C (`codegen`) and the reference kernels its tests use (`samples`).
//!
//! Pure text: no GPU, no driver and no NVRTC are needed, so the IDE's CUDA view and every
//! tool that only shows generated source depend on this crate and not on the runtime
//! (`futhark-cuda`, which links `cudarc`).

pub mod codegen;
pub mod samples;

pub use codegen::{
    CodegenError, CodegenOptions, GeneratedKernel, LaunchPlan, TileConfig, canonicalize,
    generate_kernel, generate_program, generate_program_with,
};
