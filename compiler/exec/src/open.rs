//! The one executor factory: every face (the command line's `run`/`test`/`bench`, the REPL
//! and notebook sessions, tests) opens the devices a compiled program runs on here, from
//! the target it asks for and its [`ExecOptions`]. A backend's type is generic, so the
//! caller passes what to build on it ([`UseBackend`]) rather than receiving it.

use futhark_options::ExecOptions;

use crate::backend::Backend;
use crate::cpu::CpuBackend;
#[cfg(feature = "cuda")]
use crate::cuda::{CudaBackend, CudaDevice};
use crate::dist;
use crate::error::{ExecError, Result};
use crate::multi::Multi;

/// Why CUDA cannot run in a build without the `cuda` feature.
#[cfg(not(feature = "cuda"))]
pub(crate) const NO_CUDA: &str =
    "this build has no CUDA backend (futhark-exec's `cuda` feature is off)";

/// Where kernels run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// Kernels interpreted on the CPU, as many simulated devices as asked for (split
    /// launches are checked this way).
    Cpu,
    /// The NVIDIA GPUs.
    Cuda,
}

/// What was opened, for messages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opened {
    pub target: Target,
    /// How many devices launches are spread over.
    pub devices: usize,
    /// The devices' name: `CPU`, `NVIDIA H200 (sm_90)`, `2× NVIDIA H200 (sm_90)`.
    pub name: String,
}

/// What a caller builds on the backend once it is open (an executor, a session's runner).
pub trait UseBackend {
    type Out;
    fn with<B: Backend + 'static>(self, backend: B, opened: &Opened) -> Self::Out;
}

/// Opens `target` with `devices` devices (`None`: `options.gpus`, else all visible GPUs or
/// one CPU device) and hands it to `user`. With `options.bare_device`, CUDA is GPU 0 alone,
/// without the multi-GPU layer (the baseline of the multi-GPU benchmark).
pub fn open_backend<U: UseBackend>(
    target: Target,
    devices: Option<usize>,
    options: &ExecOptions,
    user: U,
) -> Result<U::Out> {
    let devices = devices.or(options.gpus);
    if let Some(launch) = &options.distributed
        && launch.world > 1
    {
        return open_distributed(target, devices, options, launch, user);
    }
    if devices.is_none()
        && let Some(why) = &options.gpus_invalid
    {
        return Err(ExecError::Backend(why.clone()));
    }
    match target {
        Target::Cpu => {
            let n = devices.unwrap_or(1);
            let cpu = Multi::with_options((0..n).map(|_| CpuBackend::new()).collect(), options)?;
            let opened = Opened {
                target,
                devices: n,
                name: "CPU".to_string(),
            };
            Ok(user.with(cpu, &opened))
        }
        #[cfg(not(feature = "cuda"))]
        Target::Cuda => Err(crate::ExecError::Backend(NO_CUDA.to_string())),
        #[cfg(feature = "cuda")]
        Target::Cuda if options.bare_device => {
            let gpu = CudaDevice::open_with(0, options)?;
            let opened = Opened {
                target,
                devices: 1,
                name: gpu.device_name(),
            };
            Ok(user.with(gpu, &opened))
        }
        #[cfg(feature = "cuda")]
        Target::Cuda => {
            let mut gpu = CudaBackend::open_gpus(devices, options)?;
            let name = gpu.device_name();
            // `2× NVIDIA H200 (sm_90)`: the count is in `devices`.
            let name = name
                .split_once("× ")
                .filter(|(n, _)| n.parse::<usize>().is_ok())
                .map_or(name.as_str(), |(_, rest)| rest)
                .to_string();
            let opened = Opened {
                target,
                devices: gpu.gpu_count(),
                name,
            };
            Ok(user.with(gpu, &opened))
        }
    }
}

/// One rank of a distributed run: this rank's devices as slots among all the ranks' (see
/// [`crate::dist`]). The CPU twin has `devices` (default 1) simulated devices per rank and
/// talks through the rendezvous store; CUDA has this rank's GPU (`LOCAL_RANK`) and NCCL.
fn open_distributed<U: UseBackend>(
    target: Target,
    devices: Option<usize>,
    options: &ExecOptions,
    launch: &futhark_options::Launch,
    user: U,
) -> Result<U::Out> {
    // Ranks must split alike: measured times differ between them.
    let mut options = options.clone();
    options.balance = false;
    match target {
        Target::Cpu => {
            let per_rank = devices.unwrap_or(1);
            let store = dist::rendezvous(launch)?;
            let comm = dist::StoreComm::new(store, launch.rank, launch.world);
            let local = (0..per_rank).map(|_| CpuBackend::new()).collect();
            let slots = dist::slots(local, Box::new(comm))?;
            let opened = Opened {
                target,
                devices: slots.len(),
                name: format!("CPU, {} ranks", launch.world),
            };
            Ok(user.with(Multi::with_options(slots, &options)?, &opened))
        }
        #[cfg(not(feature = "cuda"))]
        Target::Cuda => Err(crate::ExecError::Backend(NO_CUDA.to_string())),
        #[cfg(feature = "cuda")]
        Target::Cuda => {
            if devices.is_some_and(|n| n != 1) {
                return Err(ExecError::Distributed(
                    "a distributed GPU run drives one GPU per process: start one process per \
                     GPU (srun --ntasks-per-node, mpirun -npernode, torchrun --nproc-per-node) \
                     and leave --gpus out"
                        .into(),
                ));
            }
            // A launcher that gives each process one visible GPU (Slurm's `--gpus-per-task`,
            // `CUDA_VISIBLE_DEVICES` per rank) leaves GPU 0; otherwise the local rank's.
            let visible = futhark_cuda::runtime::device::device_count().unwrap_or(0);
            let ordinal = if visible == 1 { 0 } else { launch.local_rank };
            let gpu = CudaDevice::open_with(ordinal, &options)?;
            let name = gpu.device_name();
            let comm = dist::NcclComm::join(&gpu, launch)?;
            let slots = dist::slots(vec![gpu], Box::new(comm))?;
            let opened = Opened {
                target,
                devices: slots.len(),
                name: format!("{name}, {} ranks", launch.world),
            };
            Ok(user.with(Multi::with_options(slots, &options)?, &opened))
        }
    }
}
