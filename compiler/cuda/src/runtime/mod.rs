//! The CUDA runtime: device discovery, NVRTC compilation with a disk cache, a caching
//! allocator, pinned transfers, kernel launches with event timing.
//!
//! Everything is per GPU (`device::Gpu`): one primary context, one stream, one allocator, one
//! set of loaded modules. Opening several `Gpu`s is how several devices will be driven.

pub mod alloc;
pub mod cache;
pub mod device;
pub mod error;
pub mod failure;
pub mod launch;
pub mod nccl;
pub mod nvrtc;
pub mod peer;
pub mod timing;
pub mod units;

pub use alloc::DeviceBuffer;
pub use device::{DeviceInfo, Gpu};
pub use error::{CudaError, Result};
pub use failure::KernelFailure;
pub use peer::{PeerAccess, StreamMark, enable_peer_access};
pub use timing::KernelStats;
