//! Gamma, log-gamma and the error functions give the same bits in the interpreter and in the
//! compiled program on the CPU executor (both call `futhark_values::special`; this keeps a
//! second copy from creeping back into either path).

use futhark_db::{Database, IrStage};
use futhark_exec::{CpuBackend, Executor};
use futhark_values::Value;

const SRC: &str = "
entry main (xs: []f64) =
  (map f64.gamma xs, map f64.lgamma xs, map f64.erf xs, map f64.erfc xs)
";

#[test]
fn interpreter_and_executor_agree_bit_for_bit() {
    let xs = vec![
        -2.5, -0.75, 0.0, 1e-3, 0.5, 1.0, 2.75, 3.0, 10.5, 150.0, 170.5, 26.5, 27.1,
    ];
    let args = vec![Value::from_vec1(xs.clone())];

    let mut db = Database::new();
    let file = db.set_file("special.fut", SRC);
    let prog = futhark_db::compile(&db, file, IrStage::Kernels)
        .unwrap_or_else(|e| panic!("does not compile: {:?}", e.diagnostics(&db, file)));
    let mut exec = Executor::new(prog, CpuBackend::new()).expect("executor");
    let compiled = exec
        .call_entry("main", args.clone())
        .expect("runs compiled");

    // The interpreter's program from the same database (the one pipeline).
    let program = futhark_db::interp_program(&db, file).program;
    let interp = futhark_interp::Interpreter::new(program).expect("interpreter");
    let interpreted = interp.call_entry("main", args).expect("runs interpreted");

    assert_eq!(compiled.len(), 4);
    assert_eq!(interpreted.len(), 4);
    for (f, (c, i)) in ["gamma", "lgamma", "erf", "erfc"]
        .iter()
        .zip(compiled.iter().zip(&interpreted))
    {
        let (c, i) = (as_f64s(c), as_f64s(i));
        assert_eq!(c.len(), xs.len(), "{f}");
        for ((x, a), b) in xs.iter().zip(&c).zip(&i) {
            assert!(
                a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()),
                "{f} {x}: compiled {a:e}, interpreted {b:e}"
            );
        }
    }
}

fn as_f64s(v: &Value) -> Vec<f64> {
    match v.data() {
        futhark_values::Buffer::F64(b) => b.clone(),
        other => panic!("not f64: {other:?}"),
    }
}
