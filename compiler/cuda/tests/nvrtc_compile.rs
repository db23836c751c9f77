//! Generates CUDA for every kernel variant the backend supports and compiles each with NVRTC
//! for sm_90, asserting that NVRTC reports no error. Runs without a GPU: NVRTC comes from the
//! CUDA toolkit or the `nvidia-cuda-nvrtc` wheel (see `support::ensure_nvrtc`).

mod support;

use futhark_cuda::codegen::{GeneratedKernel, generate_program, prelude::PRELUDE};
use futhark_cuda::runtime::nvrtc;
use futhark_cuda::samples;
use futhark_ir::{BinOp, Body, Exp, KernelProgram, Lambda, PrimType, Stm};

/// A group of kernels compiled as one module (one NVRTC call).
struct Module {
    name: String,
    kernels: Vec<GeneratedKernel>,
}

fn generate(p: KernelProgram) -> Vec<GeneratedKernel> {
    generate_program(&p).unwrap_or_else(|e| panic!("{e}\n{p}"))
}

/// `\x y -> let t = x + y in t`: correct, but opaque to operator detection, so it takes the
/// non-commutative (order-preserving) and compare-and-swap paths.
fn opaque_add(t: PrimType) -> Lambda {
    let op = if t == PrimType::Bool {
        BinOp::LogOr
    } else {
        BinOp::Add
    };
    Lambda {
        params: vec![("x".into(), t), ("y".into(), t)],
        body: Body::new(
            vec![Stm::let_(
                "t",
                t,
                Exp::bin(op, Exp::var("x"), Exp::var("y")),
            )],
            vec![Exp::var("t")],
        ),
    }
}

fn simple_ops(t: PrimType) -> Vec<(BinOp, futhark_ir::PrimValue)> {
    let ops = [
        BinOp::Add,
        BinOp::Mul,
        BinOp::Min,
        BinOp::Max,
        BinOp::And,
        BinOp::Or,
        BinOp::Xor,
        BinOp::LogAnd,
        BinOp::LogOr,
    ];
    ops.into_iter()
        .filter_map(|op| samples::neutral_of(op, t).map(|ne| (op, ne)))
        .collect()
}

fn all_modules() -> Vec<Module> {
    let mut modules = Vec::new();
    for t in PrimType::ALL {
        let mut maps = generate(samples::all_ops_map(&format!("ops_{t}"), t));
        maps.extend(generate(samples::conversions_map(&format!("conv_{t}"), t)));
        maps.extend(generate(samples::scatter(&format!("scatter_{t}"), t)));
        modules.push(Module {
            name: format!("map_scatter_{t}"),
            kernels: maps,
        });

        let mut reds = Vec::new();
        let mut scans = Vec::new();
        let mut hists = Vec::new();
        let ne0 = futhark_ir::PrimValue::from_f64(t, 0.0);
        let mut ops: Vec<(String, Lambda, futhark_ir::PrimValue)> = simple_ops(t)
            .into_iter()
            .map(|(op, ne)| (format!("{op:?}").to_lowercase(), Lambda::binop(op, t), ne))
            .collect();
        ops.push(("opaque".into(), opaque_add(t), ne0));
        for (opname, lam, ne) in &ops {
            for seg in [false, true] {
                let s = if seg { "seg" } else { "flat" };
                reds.extend(generate(samples::reduce(
                    &format!("red_{opname}_{t}_{s}"),
                    lam.clone(),
                    vec![*ne],
                    seg,
                    false,
                )));
                scans.extend(generate(samples::scan(
                    &format!("scan_{opname}_{t}_{s}"),
                    lam.clone(),
                    vec![*ne],
                    seg,
                )));
            }
            hists.extend(generate(samples::hist(
                &format!("hist_{opname}_{t}"),
                lam.clone(),
                *ne,
            )));
        }
        modules.push(Module {
            name: format!("reduce_{t}"),
            kernels: reds,
        });
        modules.push(Module {
            name: format!("scan_{t}"),
            kernels: scans,
        });
        modules.push(Module {
            name: format!("hist_{t}"),
            kernels: hists,
        });
    }
    let mut tuples = Vec::new();
    for (opname, (lam, ne)) in [
        ("affine", samples::affine_compose()),
        ("argmax", samples::argmax()),
    ] {
        for seg in [false, true] {
            let s = if seg { "seg" } else { "flat" };
            tuples.extend(generate(samples::reduce(
                &format!("red_{opname}_{s}"),
                lam.clone(),
                ne.clone(),
                seg,
                false,
            )));
            tuples.extend(generate(samples::scan(
                &format!("scan_{opname}_{s}"),
                lam.clone(),
                ne.clone(),
                seg,
            )));
        }
    }
    // Tuple histograms: packed 64-bit CAS (argmax) and per-bucket locks (a triple).
    let (am, am_ne) = samples::argmax();
    tuples.extend(generate(samples::hist_tuple(
        "hist_argmax",
        am,
        am_ne,
        true,
    )));
    let (tri, tri_ne) = samples::triple_sum();
    tuples.extend(generate(samples::hist_tuple(
        "hist_triple",
        tri,
        tri_ne,
        false,
    )));
    tuples.extend(generate(samples::saxpy("saxpy")));
    modules.push(Module {
        name: "tuples".into(),
        kernels: tuples,
    });
    modules
}

fn module_source(m: &Module) -> String {
    let mut s = String::from(PRELUDE);
    for k in &m.kernels {
        s.push('\n');
        s.push_str(k.kernel_source());
    }
    s
}

#[test]
fn every_kernel_variant_compiles_with_nvrtc_for_sm_90() {
    let modules = all_modules();
    let kernels: usize = modules.iter().map(|m| m.kernels.len()).sum();
    let entries: usize = modules
        .iter()
        .flat_map(|m| &m.kernels)
        .map(|k| k.plan.entries().len())
        .sum();
    if !support::ensure_nvrtc() {
        println!(
            "skipped: NVRTC not found ({kernels} kernels generated, none compiled); \
             `pip install nvidia-cuda-nvrtc==13.0.*` to run this test"
        );
        return;
    }
    let opts = nvrtc::options("sm_90");
    let next = std::sync::atomic::AtomicUsize::new(0);
    let failures = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(m) = modules.get(i) else { break };
                    let src = module_source(m);
                    match nvrtc::compile(&src, &m.name, &opts) {
                        Ok(c) => {
                            for k in &m.kernels {
                                for e in k.plan.entries() {
                                    let found = c.cubin.windows(e.len()).any(|w| w == e.as_bytes());
                                    if !found {
                                        failures.lock().unwrap().push(format!(
                                            "{}: entry {e} missing from cubin",
                                            m.name
                                        ));
                                    }
                                }
                            }
                        }
                        Err(e) => failures.lock().unwrap().push(format!("{}: {e}", m.name)),
                    }
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    println!(
        "NVRTC {:?}: compiled {} modules, {kernels} kernels, {entries} entry points for sm_90; {} errors",
        nvrtc::version().ok(),
        modules.len(),
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// `compile_many` on several threads gives each job its own result, in input order, with the
/// same cubin as compiling it alone; a broken source fails only its own slot.
#[test]
fn compiling_side_by_side_keeps_order_and_results() {
    if !support::ensure_nvrtc() {
        println!("skipped: NVRTC not found");
        return;
    }
    let add = Lambda::binop(BinOp::Add, PrimType::F32);
    let zero = vec![futhark_ir::PrimValue::F32(0.0)];
    let mut kernels = generate(samples::saxpy("many_map"));
    kernels.extend(generate(samples::reduce(
        "many_red",
        add.clone(),
        zero.clone(),
        false,
        false,
    )));
    kernels.extend(generate(samples::scan("many_scan", add, zero, false)));
    let mut jobs: Vec<(String, String)> = kernels
        .iter()
        .map(|k| (k.source.clone(), k.name.clone()))
        .collect();
    jobs.insert(1, ("this is not CUDA".into(), "broken".into()));
    let refs: Vec<(&str, &str)> = jobs.iter().map(|(s, n)| (s.as_str(), n.as_str())).collect();
    let opts = nvrtc::options("sm_90");
    let together = nvrtc::compile_many(&refs, &opts, 3);
    assert_eq!(together.len(), jobs.len());
    for (i, ((src, name), got)) in jobs.iter().zip(&together).enumerate() {
        let alone = nvrtc::compile(src, name, &opts);
        match (alone, got) {
            (Ok(a), Ok(b)) => assert!(a.cubin == b.cubin, "job {i} ({name}): cubins differ"),
            (Err(_), Err(e)) => assert!(e.to_string().contains("broken"), "{e}"),
            (a, b) => panic!(
                "job {i} ({name}): alone {:?}, together {:?}",
                a.is_ok(),
                b.is_ok()
            ),
        }
    }
    assert!(together[1].is_err() && together[0].is_ok() && together[2].is_ok());
}

/// Every generated module splits into one compile unit per entry (`runtime::units`: the
/// runtime compiles them side by side), and each unit compiles on its own to a cubin holding
/// its entry. The split is checked on every kernel; NVRTC compiles the units of every
/// third kernel with several entries (they repeat the shared text, and CI has two cores).
#[test]
fn each_entry_compiles_as_a_unit_of_its_own() {
    use futhark_cuda::runtime::units;
    let kernels: Vec<GeneratedKernel> = all_modules().into_iter().flat_map(|m| m.kernels).collect();
    let mut split = Vec::new();
    for k in &kernels {
        let entries = k.plan.entries();
        let us = units::split(&k.source, &entries);
        assert_eq!(
            us.len(),
            entries.len(),
            "{}: {} entries but {} units: the generated text no longer has the shape \
             runtime::units reads",
            k.name,
            entries.len(),
            us.len()
        );
        if entries.len() > 1 {
            split.push((k.name.clone(), us));
        }
    }
    if !support::ensure_nvrtc() {
        println!(
            "skipped the NVRTC part: NVRTC not found ({} kernels split)",
            split.len()
        );
        return;
    }
    let sample: Vec<&(String, Vec<units::Unit>)> = split.iter().step_by(3).collect();
    let jobs: Vec<(&str, &str)> = sample
        .iter()
        .flat_map(|(_, us)| {
            us.iter()
                .map(|u| (u.source.as_str(), u.entries[0].as_str()))
        })
        .collect();
    let results = nvrtc::compile_many(&jobs, &nvrtc::options("sm_90"), 2);
    let mut failures = Vec::new();
    for ((_, entry), r) in jobs.iter().zip(&results) {
        match r {
            Ok(c) if c.cubin.windows(entry.len()).any(|w| w == entry.as_bytes()) => {}
            Ok(_) => failures.push(format!("{entry}: entry missing from its unit's cubin")),
            Err(e) => failures.push(format!("{entry}: {e}")),
        }
    }
    println!(
        "{} kernels with several entries split; {} units of {} of them compiled, {} errors",
        split.len(),
        jobs.len(),
        sample.len(),
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
