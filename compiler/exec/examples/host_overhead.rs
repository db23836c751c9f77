//! The host's own cost per launch, without a GPU: a program's host code runs on `G` devices
//! that do nothing (kernels, copies and uploads return at once), so all the time measured
//! is the executor's and the multi-device layer's bookkeeping — what a GPU run pays on top
//! of the driver's calls, and what bounds it when kernels are short (LocVolCalib on 4 GPUs).
//!
//!     cargo run --release -p futhark-exec --example host_overhead -- FILE.fut DATA [G] [RUNS]
//!
//! DATA is the entry `main`'s input (text or binary values). `FUTHARK_SPLIT` picks the
//! split policy as for the real backends (the default cost model sees an H200's threads).
//! Results are garbage (nothing is computed); only the time means anything.

use std::cell::Cell;
use std::path::PathBuf;
use std::rc::Rc;
use std::time::Instant;

use futhark_db::{Database, Db, IrStage};
use futhark_exec::{Backend, ExecError, Executor, Multi, PeerBackend};
use futhark_ir::soacs::KernelDef;
use futhark_ir::types::PrimType;
use futhark_values::Buffer;

thread_local! {
    static LAUNCHES: Cell<u64> = const { Cell::new(0) };
    static COPIES: Cell<u64> = const { Cell::new(0) };
}

/// A device that holds no memory and runs nothing.
struct NullDevice;

#[derive(Debug)]
struct NullBuf;

impl Backend for NullDevice {
    type Buf = Rc<NullBuf>;

    fn name(&self) -> &'static str {
        "null"
    }

    fn prepare(&mut self, _kernels: &[KernelDef]) -> futhark_exec::Result<()> {
        Ok(())
    }

    fn upload(&mut self, _data: &Rc<Buffer>) -> futhark_exec::Result<Rc<NullBuf>> {
        Ok(Rc::new(NullBuf))
    }

    fn download(
        &mut self,
        _buf: &Rc<NullBuf>,
        elem: PrimType,
        len: usize,
    ) -> futhark_exec::Result<Rc<Buffer>> {
        let zero = futhark_values::Buffer::from_le_bytes(elem, &vec![0u8; len * elem.size_bytes()])
            .ok_or_else(|| ExecError::Backend("no buffer".into()))?;
        Ok(Rc::new(zero))
    }

    fn alloc(&mut self, _elem: PrimType, _len: usize) -> futhark_exec::Result<Rc<NullBuf>> {
        Ok(Rc::new(NullBuf))
    }

    fn unique(
        &mut self,
        buf: Rc<NullBuf>,
        _elem: PrimType,
        _len: usize,
    ) -> futhark_exec::Result<Rc<NullBuf>> {
        if Rc::strong_count(&buf) == 1 {
            Ok(buf)
        } else {
            Ok(Rc::new(NullBuf))
        }
    }

    fn launch(
        &mut self,
        _kernel: &KernelDef,
        _sizes: &[i64],
        _arrays: &mut [Rc<NullBuf>],
    ) -> futhark_exec::Result<()> {
        LAUNCHES.with(|c| c.set(c.get() + 1));
        Ok(())
    }
}

impl PeerBackend for NullDevice {
    fn copy_into(
        &mut self,
        _dst: &mut Rc<NullBuf>,
        _dst_off: usize,
        _from: Option<&mut NullDevice>,
        _src: &Rc<NullBuf>,
        _src_off: usize,
        _len: usize,
        _elem: PrimType,
    ) -> futhark_exec::Result<()> {
        COPIES.with(|c| c.set(c.get() + 1));
        Ok(())
    }

    fn threads(&self) -> usize {
        132 * 2048
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 2 {
        eprintln!("usage: host_overhead FILE.fut DATA [G] [RUNS]");
        std::process::exit(2);
    }
    let g: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(2);
    let runs: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(5);
    let db = Database::new();
    let Some(file) = db.load_file(&PathBuf::from(&args[0])) else {
        eprintln!("{}: cannot read", args[0]);
        std::process::exit(2);
    };
    let prog = match futhark_db::compile(&db, file, IrStage::Kernels) {
        Ok(p) => p,
        Err(_) => {
            eprintln!("{}: does not compile", args[0]);
            std::process::exit(1);
        }
    };
    let input = match futhark_values::read_file(std::path::Path::new(&args[1])) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("{}: {e}", args[1]);
            std::process::exit(2);
        }
    };
    let multi = Multi::new((0..g).map(|_| NullDevice).collect()).expect("devices");
    let mut exec = Executor::new(prog, multi).expect("loads");
    println!("run\tms\tpieces\tcopies\tus per piece");
    for run in 0..runs {
        let (l0, c0) = (LAUNCHES.with(Cell::get), COPIES.with(Cell::get));
        let t = Instant::now();
        if let Err(e) = exec.call_entry("main", input.clone()) {
            eprintln!("run {run}: {e}");
            std::process::exit(1);
        }
        let ms = t.elapsed().as_secs_f64() * 1e3;
        let pieces = LAUNCHES.with(Cell::get) - l0;
        let copies = COPIES.with(Cell::get) - c0;
        println!(
            "{run}\t{ms:.2}\t{pieces}\t{copies}\t{:.2}",
            ms * 1e3 / pieces.max(1) as f64
        );
    }
}
