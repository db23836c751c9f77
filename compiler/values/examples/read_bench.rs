//! Times the reader and writers on ~100 MB of generated data:
//! `cargo run --release -p futhark-values --example read_bench [MEGABYTES]`.

use std::time::Instant;

use futhark_values::{Bounds, generate, read_values, to_binary, to_text};

fn main() {
    let mb: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(100);
    let mut bounds = Bounds::default();
    let _ = bounds.set_flag("--i32-bounds=-1000000:1000000");
    // About 16 bytes of text per f32 and 10 per i32.
    for (ty, bytes_per_elem) in [("f32", 16), ("f64", 24), ("i32", 10)] {
        let n = mb * 1_000_000 / bytes_per_elem;
        let rows = 1000;
        let t: futhark_values::ValueType = match format!("[{rows}][{}]{ty}", n / rows).parse() {
            Ok(t) => t,
            Err(e) => {
                eprintln!("{e}");
                return;
            }
        };
        let Ok(v) = generate(&t, 1, &bounds) else {
            eprintln!("cannot generate {t}");
            return;
        };
        let t0 = Instant::now();
        let text = to_text(&v);
        let write_s = t0.elapsed().as_secs_f64();
        let t0 = Instant::now();
        let back = read_values(text.as_bytes());
        let read_s = t0.elapsed().as_secs_f64();
        assert!(matches!(back.as_deref(), Ok([b]) if b.bit_eq(&v)));
        let bin = to_binary(&v);
        let t0 = Instant::now();
        let back = read_values(&bin);
        let bin_s = t0.elapsed().as_secs_f64();
        assert!(matches!(back.as_deref(), Ok([b]) if b.bit_eq(&v)));
        println!(
            "{t}: text {:.1} MB written in {write_s:.2}s, read in {read_s:.2}s ({:.0} MB/s); \
             binary {:.1} MB read in {bin_s:.3}s",
            text.len() as f64 / 1e6,
            text.len() as f64 / 1e6 / read_s,
            bin.len() as f64 / 1e6,
        );
    }
}
