//! Helpers shared by the end-to-end tests that compile Futhark source to kernels and run it
//! on simulated CPU devices opened by the one executor factory.

use std::path::PathBuf;

use futhark_db::{Database, Db, IrStage};
use futhark_exec::{
    Backend, CpuBackend, ExecOptions, Multi, Opened, SplitPolicy, Target, UseBackend, open_backend,
};
use futhark_ir::soacs::Program;
use futhark_values::{Value, read_values};

/// Compiles `src` (written to a temporary `name.fut`) to the kernel stage, or panics with the
/// diagnostics.
pub fn compile(name: &str, src: &str) -> Program {
    let dir = std::env::temp_dir().join(format!("futhark-exec-tests-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path: PathBuf = dir.join(format!("{name}.fut"));
    std::fs::write(&path, src).unwrap();
    let db = Database::new();
    let file = db.load_file(&path).expect("loads");
    let prog = futhark_db::compile(&db, file, IrStage::Kernels)
        .unwrap_or_else(|e| panic!("{name} does not compile: {:?}", e.diagnostics(&db, file)));
    let _ = std::fs::remove_file(&path);
    prog
}

/// Values in Futhark's text format.
pub fn values(text: &str) -> Vec<Value> {
    read_values(text.as_bytes()).unwrap()
}

/// `devices` simulated CPU devices as the one executor factory opens them
/// (`futhark_exec::open_backend` for `Target::Cpu`) with `options`, as their own type so
/// that a test can look inside (row splits, profiles).
pub fn open_cpu(devices: usize, options: &ExecOptions) -> Multi<CpuBackend> {
    struct Take;
    impl UseBackend for Take {
        type Out = Option<Multi<CpuBackend>>;

        fn with<B: Backend + 'static>(self, backend: B, _: &Opened) -> Self::Out {
            let any: Box<dyn std::any::Any> = Box::new(backend);
            any.downcast::<Multi<CpuBackend>>().ok().map(|m| *m)
        }
    }
    open_backend(Target::Cpu, Some(devices), options, Take)
        .expect("the CPU devices open")
        .expect("the CPU target is a Multi<CpuBackend>")
}

/// The default options, splitting every launch over the devices (`--split always`).
pub fn split_always() -> ExecOptions {
    ExecOptions {
        split: SplitPolicy::Always,
        ..ExecOptions::default()
    }
}
