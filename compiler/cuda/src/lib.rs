//! The CUDA runtime on the CUDA driver API and NVRTC through `cudarc` (`runtime`).
//!
//! The code generator lives in `futhark-cuda-codegen` (pure, no GPU, no NVRTC needed) and is
//! re-exported here as `codegen` and `samples`. The runtime loads `libcuda` and `libnvrtc`
//! dynamically and reports their absence as an error, never a panic, so every build of
//! futhark-rs runs on machines without a GPU.

pub mod runtime;

pub use futhark_cuda_codegen::{
    CodegenError, CodegenOptions, GeneratedKernel, LaunchPlan, TileConfig, canonicalize, codegen,
    generate_kernel, generate_program, generate_program_with, samples,
};
