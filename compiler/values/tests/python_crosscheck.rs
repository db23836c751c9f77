//! Cross-checks our reader and writers against `futhark-data`, the independent Python
//! implementation on PyPI, through `tests/crosscheck.py`. Skips (saying so) when `python3`,
//! NumPy or `futhark_data` is missing.
//!
//! futhark-data 1.0.3 reads neither `nan`/`inf` literals nor strings nor trailing commas in text,
//! cannot print boolean scalars, and prints floats with six decimals (`%.6f`), so: the text we
//! hand it holds finite floats only, no boolean scalars are used, and its text output is compared
//! with the tolerance rule rather than exactly. Binary data crosses both ways bit for bit.

use std::path::{Path, PathBuf};
use std::process::Command;

use futhark_values::{
    Bounds, PrimType, Rng, Value, ValueType, compare, generate_with, read_values, to_binary,
    to_text,
};

fn python_ready() -> bool {
    match Command::new("python3")
        .args(["-c", "import numpy, futhark_data"])
        .output()
    {
        Ok(out) if out.status.success() => true,
        Ok(out) => {
            println!(
                "skipping: python3 cannot import numpy and futhark_data (pip install futhark-data): {}",
                String::from_utf8_lossy(&out.stderr).trim()
            );
            false
        }
        Err(e) => {
            println!("skipping: cannot run python3: {e}");
            false
        }
    }
}

fn values(finite_only: bool) -> Vec<Value> {
    let mut rng = Rng::new(2024);
    let mut bounds = Bounds::default();
    let _ = bounds.set(PrimType::F64, "-1e6:1e6");
    let _ = bounds.set(PrimType::F32, "-1000:1000");
    let mut out = Vec::new();
    for t in PrimType::ALL {
        for shape in [vec![], vec![7], vec![3, 4], vec![2, 0], vec![2, 3, 2]] {
            if t == PrimType::Bool && shape.is_empty() {
                continue;
            }
            let ty = ValueType::new(shape, t);
            if let Ok(v) = generate_with(&ty, &mut rng, &bounds) {
                out.push(v);
            }
        }
    }
    if !finite_only {
        out.push(Value::from(vec![
            f32::NAN,
            f32::INFINITY,
            -f32::INFINITY,
            -0.0,
        ]));
        out.push(Value::from(vec![
            f64::NAN,
            f64::MIN_POSITIVE,
            f64::MAX,
            -0.0,
        ]));
    }
    out
}

fn read(path: &Path) -> Vec<Value> {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    read_values(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn futhark_data_agrees() {
    if !python_ready() {
        return;
    }
    let dir: PathBuf =
        std::env::temp_dir().join(format!("futhark-values-crosscheck-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let text_values = values(true);
    let bin_values = values(false);
    let text: String = text_values.iter().map(|v| to_text(v) + "\n").collect();
    std::fs::write(dir.join("ours.txt"), text).expect("write ours.txt");
    let bin: Vec<u8> = bin_values.iter().flat_map(to_binary).collect();
    std::fs::write(dir.join("ours.bin"), bin).expect("write ours.bin");

    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/crosscheck.py");
    let out = Command::new("python3")
        .arg(&script)
        .arg(&dir)
        .output()
        .expect("run python3");
    assert!(
        out.status.success(),
        "crosscheck.py failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    println!("{}", String::from_utf8_lossy(&out.stdout).trim());

    // Our text, read by futhark-data: it parses decimal strings through Python floats, so allow
    // the tolerance rule for floats (integers and booleans must be exact).
    let from_txt = read(&dir.join("from_txt.bin"));
    assert_eq!(from_txt.len(), text_values.len());
    for (ours, theirs) in text_values.iter().zip(&from_txt) {
        if let Err(m) = compare(ours, theirs) {
            panic!(
                "our text {} came back as {}: {m}",
                to_text(ours),
                to_text(theirs)
            );
        }
        if !ours.elem_type().is_float() {
            assert!(ours.bit_eq(theirs));
        }
    }

    // Our binary, read and rewritten by futhark-data: bit for bit.
    let from_bin = read(&dir.join("from_bin.bin"));
    assert_eq!(from_bin.len(), bin_values.len());
    for (ours, theirs) in bin_values.iter().zip(&from_bin) {
        assert!(ours.bit_eq(theirs), "{ours:?} vs {theirs:?}");
    }

    // futhark-data's text, read by us.
    let py_txt = read(&dir.join("py.txt"));
    assert_eq!(py_txt.len(), bin_values.len());
    for (ours, theirs) in bin_values.iter().zip(&py_txt) {
        if let Err(m) = compare(ours, theirs) {
            panic!(
                "{} came back from futhark-data's text as {}: {m}",
                to_text(ours),
                to_text(theirs)
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
