//! The time of compiling a program to kernels the first time and again with the same
//! options, where the second is the `compiled` query's lookup:
//!
//!     cargo run --release -p futhark-db --example compile_twice -- FILE.fut...
//!
//! For each file (a fresh database each): the first `compile_shared`, the second (the
//! database's `Arc`), and `compile` after them (a copy of the program, what an executor gets).

use std::path::Path;
use std::time::Instant;

use futhark_db::{Database, Db, IrStage, compile, compile_shared};

fn main() {
    let files: Vec<String> = std::env::args().skip(1).collect();
    if files.is_empty() {
        eprintln!("usage: compile_twice FILE.fut...");
        std::process::exit(2);
    }
    println!("| program | first compile | second (lookup) | `compile` again (copy) |");
    println!("|---|---|---|---|");
    for path in files {
        let db = Database::new();
        let Some(file) = db.load_file(Path::new(&path)) else {
            eprintln!("{path}: cannot read");
            continue;
        };
        let t = Instant::now();
        if compile_shared(&db, file, IrStage::Kernels).is_err() {
            eprintln!("{path}: does not compile");
            continue;
        }
        let first = t.elapsed();
        let t = Instant::now();
        let _ = compile_shared(&db, file, IrStage::Kernels);
        let second = t.elapsed();
        let t = Instant::now();
        let _ = compile(&db, file, IrStage::Kernels);
        let copy = t.elapsed();
        let name = Path::new(&path)
            .file_name()
            .map_or(path.clone(), |n| n.to_string_lossy().into_owned());
        println!(
            "| {name} | {:.1} ms | {:.1} µs | {:.1} µs |",
            first.as_secs_f64() * 1e3,
            second.as_secs_f64() * 1e6,
            copy.as_secs_f64() * 1e6
        );
    }
}
