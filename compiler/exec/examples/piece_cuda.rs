//! Prints the CUDA C of a kernel's husk piece (what a split launch runs on each GPU):
//!
//!     cargo run --release -p futhark-exec --example piece_cuda -- FILE.fut KERNEL_SUBSTRING
use std::path::PathBuf;

use futhark_db::{Database, Db, IrStage};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 2 {
        eprintln!("usage: piece_cuda FILE.fut KERNEL_SUBSTRING");
        std::process::exit(2);
    }
    let db = Database::new();
    let Some(file) = db.load_file(&PathBuf::from(&args[0])) else {
        eprintln!("{}: cannot read", args[0]);
        std::process::exit(2);
    };
    let Ok(prog) = futhark_db::compile(&db, file, IrStage::Kernels) else {
        eprintln!("{}: does not compile", args[0]);
        std::process::exit(1);
    };
    for kd in prog.kernels.iter().filter(|k| k.name.contains(&args[1])) {
        match futhark_ir::husk::husk(&kd.program) {
            Err(why) => println!("// {}: no husk: {why}", kd.name),
            Ok(h) => match futhark_cuda::generate_program(&h.piece) {
                Err(e) => println!("// {}: {e}", kd.name),
                Ok(gks) => {
                    for gk in gks.iter() {
                        println!("// piece of {}\n{}", kd.name, gk.source);
                    }
                }
            },
        }
    }
}
