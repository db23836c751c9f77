//! Checks intra-block kernels without a GPU: runs a program on the CPU executor, and at every
//! launch of a `fuse-intra` program also runs that program's generated one-kernel CUDA
//! version, compiled as C++ with g++ (each block's threads are `std::thread`s; barriers and
//! warp shuffles are emulated with `std::barrier`s), on the same input buffers, and compares
//! what it wrote to device memory with what the CPU executor's kernels wrote.
//!
//!     cargo run --release -p futhark-exec --example intra_emulate -- FILE.fut ENTRY INPUT \
//!         [--blocks 32,64,256] [--grid 5] [--checks 4] [--intra all]
//!
//! INPUT is a data file (text format). Each intra-block program is checked at its first
//! `--checks` launches, with each block size, on a grid of `--grid` blocks (fewer blocks than
//! rows, so the loop over rows is exercised); `--intra all` also makes lone kernels over rows
//! intra-block programs (`FUTHARK_INTRA=all`). Integers must be equal; floats within a
//! relative 1e-3 (the kernel's scans combine in another order than the CPU's sequential
//! ones). Exits non-zero on a mismatch or when nothing was checked.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::rc::Rc;

use futhark_cuda::{LaunchPlan, generate_program};
use futhark_db::{Database, IrStage};
use futhark_exec::{Backend, CpuBackend, ExecError, Executor, KernelProfile, Result};
use futhark_ir::soacs::KernelDef;
use futhark_ir::types::PrimType;
use futhark_values::Buffer;

const PRELUDE: &str = r#"
#include <barrier>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>
typedef signed char i8; typedef short i16; typedef int i32; typedef long long i64;
typedef unsigned char u8; typedef unsigned short u16; typedef unsigned int u32;
typedef unsigned long long u64; typedef float f32; typedef double f64;
struct dim3 { unsigned x = 0, y = 0, z = 0; };
thread_local dim3 threadIdx, blockIdx;
dim3 blockDim, gridDim;
std::barrier<>* fut_bar;
std::vector<std::barrier<>*> fut_warp_bar;
static void __syncthreads() { fut_bar->arrive_and_wait(); }
alignas(16) unsigned char fut_shared[1 << 18];
alignas(16) unsigned char fut_slots[1024][64];
u64* fut_err = 0;
u32 fut_module = 0;
#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(x)
#define __restrict__
#define extern_C
static void fut_pdl_enter() {}
static i64 fut_idiv(i64 a, i64 b) { return a / b; }
static i64 fut_imod(i64 a, i64 b) { return a % b; }
template <typename T> static T fut_min(T a, T b) { return a < b ? a : b; }
template <typename T> static T fut_max(T a, T b) { return a < b ? b : a; }
static f32 fut_min(f32 a, f32 b) { return fminf(a, b); }
static f32 fut_max(f32 a, f32 b) { return fmaxf(a, b); }
static f64 fut_min(f64 a, f64 b) { return fmin(a, b); }
static f64 fut_max(f64 a, f64 b) { return fmax(a, b); }
template <typename T> static T fut_abs(T a) { return a < 0 ? (T)(0 - a) : a; }
template <typename T> static T fut_ldcg(const T* p) { return *p; }
// A warp's lanes exchange values through slots between two barriers of the warp.
template <typename T> static T fut_shfl(T x, long src) {
  const unsigned t = threadIdx.x;
  memcpy(fut_slots[t], &x, sizeof(T));
  fut_warp_bar[t >> 5]->arrive_and_wait();
  T y = x;
  if (src >= 0 && src < 32) memcpy(&y, fut_slots[(t & ~31u) + src], sizeof(T));
  fut_warp_bar[t >> 5]->arrive_and_wait();
  return y;
}
template <typename T> static T fut_shfl_up(T x, unsigned d) {
  const long l = threadIdx.x & 31;
  return fut_shfl(x, l >= (long)d ? l - (long)d : l);
}
template <typename T> static T fut_shfl_down(T x, unsigned d) {
  const long l = threadIdx.x & 31;
  return fut_shfl(x, l + (long)d < 32 ? l + (long)d : l);
}
template <typename T> static T fut_shfl_idx(T x, int l) { return fut_shfl(x, l); }
"#;

/// The CPU executor, with each intra-block launch also run by the emulated CUDA kernel.
struct Emulating {
    cpu: CpuBackend,
    dir: PathBuf,
    blocks: Vec<u32>,
    grid: u32,
    checks: usize,
    /// Per intra-block program: its compiled harness and launches checked so far.
    programs: HashMap<String, (PathBuf, usize)>,
    compared: usize,
    mismatches: usize,
    worst: f64,
}

impl Emulating {
    fn harness(&mut self, kd: &KernelDef) -> Result<PathBuf> {
        let gks = generate_program(&kd.program)
            .map_err(|e| ExecError::Backend(format!("{}: {e}", kd.name)))?;
        let gk = gks
            .last()
            .expect("an intra-block program has its one-kernel version");
        let LaunchPlan::Intra(plan) = &gk.plan else {
            return Err(ExecError::Backend(format!(
                "{}: no intra-block kernel",
                kd.name
            )));
        };
        // Failure records are PTX: a failing check is not recorded here (the CPU reports it).
        let mut src = String::new();
        let mut rest = gk.kernel_source();
        while let Some(i) = rest.find("asm volatile(") {
            src.push_str(&rest[..i]);
            let j = rest[i..].find(");").expect("an asm statement ends") + i + 2;
            src.push(';');
            rest = &rest[j..];
        }
        src.push_str(rest);
        let src = src.replace("extern \"C\" ", "");
        let params: Vec<String> = gk
            .arrays
            .iter()
            .enumerate()
            .map(|(i, a)| {
                format!(
                    "({}*)fut_bufs[{i}].data()",
                    futhark_cuda::codegen::emit::store_ty(a.elem)
                )
            })
            .chain((0..gk.sizes.len()).map(|i| format!("fut_sizes[{i}]")))
            .collect();
        let main = format!(
            r#"
int main(int argc, char** argv) {{
  // argv: input file, output file, threads per block, blocks.
  FILE* in = fopen(argv[1], "rb");
  unsigned nb = atoi(argv[3]), ng = atoi(argv[4]);
  std::vector<std::vector<unsigned char>> fut_bufs({na});
  std::vector<i64> fut_sizes({ns});
  for (auto& b : fut_bufs) {{ u64 n; fread(&n, 8, 1, in); b.resize(n + 16); fread(b.data(), 1, n, in); }}
  fread(fut_sizes.data(), 8, fut_sizes.size(), in);
  fclose(in);
  blockDim.x = nb; gridDim.x = ng;
  for (unsigned b = 0; b < ng; b++) {{
    std::barrier<> bar(nb); fut_bar = &bar;
    std::vector<std::barrier<>*> warps;
    for (unsigned w = 0; w < (nb + 31) / 32; w++) warps.push_back(new std::barrier<>(std::min(32u, nb - 32 * w)));
    fut_warp_bar = warps;
    std::vector<std::thread> ts;
    for (unsigned t = 0; t < nb; t++)
      ts.emplace_back([&, t, b] {{ threadIdx.x = t; blockIdx.x = b; {entry}({args}); }});
    for (auto& th : ts) th.join();
    for (auto* w : warps) delete w;
  }}
  FILE* out = fopen(argv[2], "wb");
  for (auto& b : fut_bufs) fwrite(b.data(), 1, b.size() - 16, out);
  fclose(out);
  return 0;
}}
"#,
            na = gk.arrays.len(),
            ns = gk.sizes.len(),
            entry = plan.entry,
            args = params.join(", ")
        );
        let cpp = self.dir.join(format!("{}.cpp", kd.name));
        let exe = self.dir.join(&kd.name);
        std::fs::write(&cpp, format!("{PRELUDE}\n{src}\n{main}"))
            .map_err(|e| ExecError::Backend(e.to_string()))?;
        let out = Command::new("g++")
            .args(["-std=c++20", "-O1", "-w", "-pthread"])
            .arg(&cpp)
            .arg("-o")
            .arg(&exe)
            .output()
            .map_err(|e| ExecError::Backend(format!("g++: {e}")))?;
        if !out.status.success() {
            return Err(ExecError::Backend(format!(
                "g++ failed on {}:\n{}",
                cpp.display(),
                String::from_utf8_lossy(&out.stderr)
                    .chars()
                    .take(4000)
                    .collect::<String>()
            )));
        }
        Ok(exe)
    }

    fn check(
        &mut self,
        kd: &KernelDef,
        exe: &Path,
        sizes: &[i64],
        before: &[Rc<Buffer>],
        after: &[Rc<Buffer>],
    ) -> Result<()> {
        let input = self.dir.join("in.bin");
        let mut bytes = Vec::new();
        for b in before {
            let le = b.to_le_bytes();
            bytes.extend((le.len() as u64).to_le_bytes());
            bytes.extend(le);
        }
        for s in sizes {
            bytes.extend(s.to_le_bytes());
        }
        std::fs::write(&input, bytes).map_err(|e| ExecError::Backend(e.to_string()))?;
        let locals = &kd.program.intra.as_ref().expect("intra").locals;
        let written = futhark_exec::written_arrays(&kd.program);
        for &nb in &self.blocks {
            let output = self.dir.join("out.bin");
            let st = Command::new(exe)
                .arg(&input)
                .arg(&output)
                .arg(nb.to_string())
                .arg(self.grid.to_string())
                .status()
                .map_err(|e| ExecError::Backend(e.to_string()))?;
            if !st.success() {
                return Err(ExecError::Backend(format!(
                    "{} crashed: {st}",
                    exe.display()
                )));
            }
            let got = std::fs::read(&output).map_err(|e| ExecError::Backend(e.to_string()))?;
            let mut off = 0;
            for (i, (decl, want)) in kd.program.arrays.iter().zip(after).enumerate() {
                let n = before[i].to_le_bytes().len();
                let mine = &got[off..off + n];
                off += n;
                if !written.contains(&i) || locals.contains(&decl.name) {
                    continue;
                }
                let mine = Buffer::from_le_bytes(decl.elem, mine).expect("whole elements");
                let (bad, err) = compare(&mine, want, decl.elem);
                self.compared += 1;
                self.worst = self.worst.max(err);
                if bad {
                    self.mismatches += 1;
                    println!(
                        "MISMATCH {} `{}` with {nb} threads a block (worst relative error {err:.3e})",
                        kd.name, decl.name
                    );
                }
            }
        }
        Ok(())
    }
}

/// Whether two buffers differ (floats beyond a relative 1e-3), and the worst relative error.
fn compare(a: &Buffer, b: &Buffer, elem: PrimType) -> (bool, f64) {
    let (x, y) = (a.to_le_bytes(), b.to_le_bytes());
    if !elem.is_float() {
        return (x != y, if x == y { 0.0 } else { f64::INFINITY });
    }
    let w = elem.size_bytes();
    let val = |c: &[u8]| match w {
        4 => f32::from_le_bytes(c.try_into().unwrap()) as f64,
        8 => f64::from_le_bytes(c.try_into().unwrap()),
        _ => 0.0,
    };
    let mut worst: f64 = 0.0;
    for (p, q) in x.chunks(w).zip(y.chunks(w)) {
        let (p, q) = (val(p), val(q));
        if p.is_nan() && q.is_nan() {
            continue;
        }
        let e = (p - q).abs() / q.abs().max(1e-3);
        worst = worst.max(if e.is_nan() { f64::INFINITY } else { e });
    }
    (worst > 1e-3, worst)
}

impl Backend for Emulating {
    type Buf = Rc<Buffer>;
    fn name(&self) -> &'static str {
        "cpu+emulated intra-block kernels"
    }
    fn prepare(&mut self, kernels: &[KernelDef]) -> Result<()> {
        self.cpu.prepare(kernels)
    }
    fn upload(&mut self, data: &Rc<Buffer>) -> Result<Rc<Buffer>> {
        self.cpu.upload(data)
    }
    fn download(&mut self, buf: &Rc<Buffer>, elem: PrimType, len: usize) -> Result<Rc<Buffer>> {
        self.cpu.download(buf, elem, len)
    }
    fn alloc(&mut self, elem: PrimType, len: usize) -> Result<Rc<Buffer>> {
        self.cpu.alloc(elem, len)
    }
    fn unique(&mut self, buf: Rc<Buffer>, elem: PrimType, len: usize) -> Result<Rc<Buffer>> {
        self.cpu.unique(buf, elem, len)
    }
    fn launch(&mut self, kd: &KernelDef, sizes: &[i64], arrays: &mut [Rc<Buffer>]) -> Result<()> {
        if kd.program.intra.is_none() {
            return self.cpu.launch(kd, sizes, arrays);
        }
        // The CPU copies a shared buffer before writing it, so `before` keeps the inputs.
        let before: Vec<Rc<Buffer>> = arrays.to_vec();
        self.cpu.launch(kd, sizes, arrays)?;
        let (exe, done) = match self.programs.get(&kd.name) {
            Some(p) => p.clone(),
            None => {
                let exe = self.harness(kd)?;
                self.programs.insert(kd.name.clone(), (exe.clone(), 0));
                (exe, 0)
            }
        };
        if done < self.checks {
            self.programs
                .insert(kd.name.clone(), (exe.clone(), done + 1));
            let after: Vec<Rc<Buffer>> = arrays.to_vec();
            self.check(kd, &exe, sizes, &before, &after)?;
        }
        Ok(())
    }
    fn profile(&mut self) -> Result<Vec<KernelProfile>> {
        self.cpu.profile()
    }
}

/// What an emulated run found.
pub struct Report {
    pub programs: usize,
    pub compared: usize,
    pub mismatches: usize,
    pub worst: f64,
    /// The run's own failure, if it failed.
    pub failed: Option<String>,
}

/// How [`emulate`] runs: each intra-block program at its first `checks` launches, with each
/// of `blocks` threads a block on a grid of `grid` blocks; `intra` says which kernels
/// `fuse-intra` marks.
pub struct Setup {
    pub blocks: Vec<u32>,
    pub grid: u32,
    pub checks: usize,
    pub intra: futhark_options::IntraBlock,
}

/// Runs `entry` of the program `text` (named `file`) on `values` with every intra-block
/// launch also emulated as `setup` says.
pub fn emulate(
    file: &str,
    text: &str,
    entry: &str,
    values: Vec<futhark_values::Value>,
    setup: &Setup,
) -> std::result::Result<Report, String> {
    let Setup {
        blocks,
        grid,
        checks,
        intra,
    } = setup;
    let (grid, checks) = (*grid, *checks);
    let mut db = Database::new();
    db.set_compile_options(futhark_options::CompileOptions {
        intra_block: *intra,
        ..Default::default()
    });
    let fid = db.set_file(file, text);
    let prog = futhark_db::compile(&db, fid, IrStage::Kernels)
        .map_err(|e| format!("does not compile: {:?}", e.diagnostics(&db, fid)))?;
    static RUNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "intra-emulate-{}-{}",
        std::process::id(),
        RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let backend = Emulating {
        cpu: CpuBackend::new(),
        dir: dir.clone(),
        blocks: blocks.to_vec(),
        grid,
        checks,
        programs: HashMap::new(),
        compared: 0,
        mismatches: 0,
        worst: 0.0,
    };
    let mut exec = Executor::new(prog, backend).map_err(|e| e.to_string())?;
    let result = exec.call_entry(entry, values);
    let be = exec.backend();
    let report = Report {
        programs: be.programs.len(),
        compared: be.compared,
        mismatches: be.mismatches,
        worst: be.worst,
        failed: result.err().map(|e| e.to_string()),
    };
    let _ = std::fs::remove_dir_all(&dir);
    Ok(report)
}

#[allow(dead_code)]
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let flag = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let [file, entry, input] = [0, 1, 2].map(|i| args.get(i).cloned().unwrap_or_default());
    if input.is_empty() {
        eprintln!(
            "usage: intra_emulate FILE.fut ENTRY INPUT [--blocks 32,64] [--grid N] [--checks N] [--intra all]"
        );
        std::process::exit(2);
    }
    let blocks: Vec<u32> = flag("--blocks")
        .unwrap_or_else(|| "32,64,256".into())
        .split(',')
        .filter_map(|b| b.parse().ok())
        .collect();
    let grid: u32 = flag("--grid").and_then(|g| g.parse().ok()).unwrap_or(5);
    let checks: usize = flag("--checks").and_then(|g| g.parse().ok()).unwrap_or(4);
    let intra = flag("--intra")
        .map(|v| futhark_options::IntraBlock::from_name(&v))
        .unwrap_or_default();
    let text = std::fs::read_to_string(&file).expect("reads the program");
    let values = futhark_values::read_values(&std::fs::read(&input).expect("reads the input"))
        .expect("parses the input");
    let setup = Setup {
        blocks,
        grid,
        checks,
        intra,
    };
    let r = match emulate(&file, &text, &entry, values, &setup) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    println!(
        "{file} {entry}: {} intra-block programs, {} arrays compared, {} mismatches, worst relative error {:.3e}{}",
        r.programs,
        r.compared,
        r.mismatches,
        r.worst,
        r.failed
            .as_ref()
            .map_or(String::new(), |e| format!("; the run failed: {e}"))
    );
    let ok = r.failed.is_none() && r.mismatches == 0 && r.compared > 0;
    std::process::exit(if ok { 0 } else { 1 });
}
