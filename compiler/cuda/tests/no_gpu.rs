//! Without a GPU (CI, this project's machines) the runtime reports a clear error instead of
//! panicking; with one, opening it works.

use futhark_cuda::runtime::{CudaError, Gpu, device};

#[test]
fn opening_a_gpu_never_panics() {
    match Gpu::open(0) {
        Ok(gpu) => assert!(gpu.info.multiprocessors > 0),
        Err(CudaError::NoDriver) => {
            let msg = CudaError::NoDriver.to_string();
            assert!(msg.contains("no CUDA driver found"), "{msg}");
            assert!(matches!(device::device_count(), Err(CudaError::NoDriver)));
        }
        Err(e) => {
            // A driver without a device is also reported, not panicked on.
            let _ = e.to_string();
        }
    }
}
