//! The CUDA backend: kernel IR to CUDA C (`codegen`) and a runtime on the CUDA driver API
//! and NVRTC through `cudarc` (`runtime`).
//!
//! The code generator is pure (no GPU, no NVRTC needed). The runtime loads `libcuda` and
//! `libnvrtc` dynamically and reports their absence as an error, never a panic, so every
//! build of futhark-rs runs on machines without a GPU.

pub mod codegen;
pub mod partition;
pub mod runtime;
pub mod samples;

pub use codegen::{CodegenError, GeneratedKernel, LaunchPlan, generate_kernel, generate_program};
