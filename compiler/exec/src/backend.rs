//! Where kernels run: the interface the host executor drives, implemented by the CPU
//! reference backend and by CUDA.

use std::any::Any;
use std::rc::Rc;

use futhark_ir::soacs::KernelDef;
use futhark_ir::types::PrimType;
use futhark_values::Buffer;

use crate::error::Result;

/// The arrays (by declaration index) some kernel of `prog` writes: its results and what
/// its bodies update in place.
pub fn written_arrays(prog: &futhark_ir::KernelProgram) -> Vec<usize> {
    let mut written = Vec::new();
    for k in &prog.kernels {
        let mut names: Vec<String> = k.op.result_arrays().to_vec();
        k.op.body()
            .walk(&mut |_| {}, &mut |a| names.push(a.clone()));
        for n in names {
            if let Some(i) = prog.arrays.iter().position(|d| d.name == n)
                && !written.contains(&i)
            {
                written.push(i);
            }
        }
    }
    written
}

/// The profile line counting NVRTC compiles (modules neither kernel cache had) in
/// `launches`, their wall time in `total_ms` (CUDA backends).
pub const NVRTC_PROFILE: &str = "(NVRTC compiles)";

/// The other parts of preparing kernels, each a profile line with its wall time in
/// `total_ms` (CUDA backends): generating CUDA C, the kernel cache's lookups and writes, and
/// loading modules. With [`NVRTC_PROFILE`] they say where a cell's first compile goes.
pub const CODEGEN_PROFILE: &str = "(CUDA generation)";
pub const CACHE_PROFILE: &str = "(kernel cache)";
pub const LOAD_PROFILE: &str = "(module loads)";

/// Time, launches and bytes of one kernel, for `--profile`.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelProfile {
    pub name: String,
    pub launches: u64,
    pub total_ms: f64,
    pub bytes: u64,
}

/// Device memory and kernel launches. Buffers are handles that are cheap to clone; a buffer
/// is freed when its last handle goes.
pub trait Backend {
    type Buf: Clone;

    /// A short name for messages (`cpu`, `cuda`).
    fn name(&self) -> &'static str;

    /// Prepares the program's kernels (generation, compilation, loading), once.
    fn prepare(&mut self, kernels: &[KernelDef]) -> Result<()>;

    /// Copies host elements to a new device buffer.
    fn upload(&mut self, data: &Rc<Buffer>) -> Result<Self::Buf>;

    /// The first `len` elements of a buffer, on the host.
    fn download(&mut self, buf: &Self::Buf, elem: PrimType, len: usize) -> Result<Rc<Buffer>>;

    /// A fresh buffer of `len` elements (contents unspecified).
    fn alloc(&mut self, elem: PrimType, len: usize) -> Result<Self::Buf>;

    /// A buffer that no other value shares, so a kernel may update it in place: `buf`
    /// itself when it is not shared, else a copy of its first `len` elements.
    fn unique(&mut self, buf: Self::Buf, elem: PrimType, len: usize) -> Result<Self::Buf>;

    /// Runs the kernels of `kernel` in order. `arrays` holds one buffer per array the
    /// kernel program declares (in declaration order), each large enough for its shape
    /// under `sizes` (one value per size parameter).
    fn launch(&mut self, kernel: &KernelDef, sizes: &[i64], arrays: &mut [Self::Buf])
    -> Result<()>;

    /// Per-kernel statistics so far (empty where the backend does not measure).
    fn profile(&mut self) -> Result<Vec<KernelProfile>> {
        Ok(Vec::new())
    }

    /// Whether launches are timed for [`Backend::profile`] (on by default). Timing costs
    /// the host a little per launch, which matters where launches are short and many.
    fn set_profiling(&mut self, _on: bool) {}

    /// Waits until every queued launch and copy has finished (for timing).
    fn synchronize(&mut self) -> Result<()> {
        Ok(())
    }

    /// Waits for the queued work and reports the first run-time check that failed in a
    /// kernel since the last call (as the interpreter words it), clearing it. Backends
    /// whose launches fail at once (the CPU) have nothing to report.
    fn check_failures(&mut self) -> Result<()> {
        Ok(())
    }
}

/// A point recorded in one device's queue by [`PeerBackend::stamp`]; what it holds is that
/// device's business (an `Instant` on the CPU, an event on a GPU). Type-erased rather than
/// an associated type so that the timing methods can have defaults (associated type
/// defaults are not stable Rust).
pub struct Stamp(Box<dyn Any>);

impl Stamp {
    pub fn new<T: Any>(point: T) -> Stamp {
        Stamp(Box::new(point))
    }

    /// The device's own value, when this stamp is of type `T`.
    pub fn get<T: Any>(&self) -> Option<&T> {
        self.0.downcast_ref()
    }
}

impl std::fmt::Debug for Stamp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Stamp")
    }
}

/// One device among several: what the multi-device backend ([`crate::Multi`]) needs beyond
/// [`Backend`] to move elements between devices.
pub trait PeerBackend: Backend {
    /// Copies `len` elements of `src` from element `src_off` into `dst` at element `dst_off`.
    /// `src` is a buffer of `from`, or of this device when `from` is `None`. Later work on
    /// either device is ordered after the copy.
    #[allow(clippy::too_many_arguments)]
    fn copy_into(
        &mut self,
        dst: &mut Self::Buf,
        dst_off: usize,
        from: Option<&mut Self>,
        src: &Self::Buf,
        src_off: usize,
        len: usize,
        elem: PrimType,
    ) -> Result<()>;

    /// A description of the device, for messages and profiles.
    fn describe(&self) -> String {
        self.name().to_string()
    }

    /// How many threads the device runs at once (one wave of a kernel): below this, fewer
    /// points do not finish sooner, which the cost model must know.
    fn threads(&self) -> usize {
        1 << 18
    }

    /// Records a stamp at the current end of the device's queue: it is reached once the
    /// work queued before it has finished. `None` where the device does not measure time
    /// (the default); the multi-device backend then keeps its even row splits.
    fn stamp(&mut self) -> Result<Option<Stamp>> {
        Ok(None)
    }

    /// Milliseconds between two stamps of this device (`start` recorded before `end`), or
    /// `None` while `end` has not been reached yet. Never waits for the device.
    fn elapsed_ms(&mut self, _start: &Stamp, _end: &Stamp) -> Result<Option<f64>> {
        Ok(None)
    }
}
