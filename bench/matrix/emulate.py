#!/usr/bin/env python3
"""Runs a program's tiled CUDA entries on the CPU (no GPU): each reduction kernel's
operator definitions, its one-thread-per-segment entry and each tiled entry are compiled as
C++ with g++ (a block's threads are std::threads meeting at a std::barrier for
__syncthreads), both run on the same random small-integer inputs, and the results must be
equal. A check of the tiled kernel's indexing, edges, double buffering and operator use.

Usage: python3 bench/matrix/emulate.py FUTHARK_RS PROGRAM.fut 'name=value,...' [...]
(each argument after the program is one set of size-parameter values by IR name, e.g.
'n_0=130,n_1=9,n_3=9,n_4=67'; `__batch=B` for the product of a batched kernel's batch
dimensions). Exits non-zero on a mismatch.
"""
import os
import re
import subprocess
import sys
import tempfile

PRELUDE = r"""
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
struct alignas(16) float4 { float x, y, z, w; };
struct alignas(16) int4 { int x, y, z, w; };
struct alignas(8) float2 { float x, y; };
struct alignas(8) int2 { int x, y; };
thread_local dim3 threadIdx, blockIdx;
dim3 blockDim, gridDim;
std::barrier<>* fut_bar;
static void __syncthreads() { fut_bar->arrive_and_wait(); }
alignas(16) unsigned char fut_shared[1 << 17];
#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(x)
#define __restrict__
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
template <typename T> static T fut_shfl_down(T x, unsigned) { return x; }
template <typename T> static T fut_shfl_up(T x, unsigned) { return x; }
template <typename T> static T fut_shfl_idx(T x, int) { return x; }
template <typename T> static T fut_ldcg(const T* p) { return *p; }
static f32 __uint_as_float(u32 x) { f32 f; memcpy(&f, &x, 4); return f; }
static f64 __longlong_as_double(i64 x) { f64 f; memcpy(&f, &x, 8); return f; }
"""


def entry(src, suffix):
    """The text of the entry whose name ends with `suffix`, up to its closing brace."""
    m = re.search(r'extern "C" __global__ void __launch_bounds__\(\d+\) (\w+' + suffix +
                  r')\(([^)]*)\) \{', src)
    if not m:
        return None
    depth, i = 0, m.end() - 1
    while True:
        depth += {"{": 1, "}": -1}.get(src[i], 0)
        i += 1
        if depth == 0:
            break
    return m.group(1), m.group(2), src[m.start():i]


def main():
    exe, prog, size_sets = sys.argv[1], sys.argv[2], sys.argv[3:]
    cuda = subprocess.run([exe, "cuda", prog], capture_output=True, text=True, check=True).stdout
    ir = subprocess.run([exe, "ir", "--stage", "kernels", prog], capture_output=True, text=True,
                        check=True).stdout
    failures, runs = 0, 0
    for chunk, suffix in [(c, x) for c in cuda.split("// kernel ")[1:]
                          for x in ["_tiled", "_tiled_m", "_tiled_s"]]:
        tiled = entry(chunk, suffix)
        if not tiled:
            continue
        name = tiled[0][: -len("_tiled")] if suffix == "_tiled" else tiled[0]
        thread = entry(chunk, "_thread")
        defs = chunk[chunk.index("\n") + 1: chunk.index('extern "C"')]
        defs = defs.replace("static __device__ __forceinline__", "static inline")
        defs = re.sub(r"static inline \w+ \w+_(warp|block)_reduce\(.*?\n\}\n", "", defs,
                      flags=re.S)
        params = [p.strip() for p in tiled[1].split(",")]
        decls = {}
        for m in re.finditer(r"^array (\w+): ((?:\[[^\]]+\])*)(\w+)$", ir, re.M):
            decls[m.group(1)] = (re.findall(r"\[([^\]]+)\]", m.group(2)), m.group(3))
        for sizes_text in size_sets:
            sizes = dict(kv.split("=") for kv in sizes_text.split(","))
            arrays, size_args, setup, compare = [], [], [], []
            for p in params:
                ty, pname = p.replace("const ", "").replace("__restrict__", "").split("*")[0]\
                    .strip(), p.split()[-1]
                if pname.startswith("s_"):
                    size_args.append(sizes.get(pname[2:], "1"))
                    continue
                arr = pname[2:]
                dims, _ = decls[arr]
                n = "*".join(f"(i64){sizes.get(d, d)}" for d in dims) or "1"
                arrays.append(pname)
                setup.append(f"std::vector<{ty}> {pname}_0(std::max<i64>(1, {n})), "
                             f"{pname}_1(std::max<i64>(1, {n}));\n"
                             f"for (auto& x : {pname}_0) x = ({ty})(rand() % 7 - 3);\n"
                             f"{pname}_1 = {pname}_0;")
                compare.append(f"if (memcmp({pname}_0.data(), {pname}_1.data(), "
                               f"{pname}_0.size() * sizeof({ty}))) {{ printf(\"MISMATCH "
                               f"{name} {pname}\\n\"); bad = 1; }}")
            m = re.search(r"const i64 fut_tr = \((.*?) \+ (\d+) - 1\) / \d+, fut_tc = \((.*?) \+ (\d+)",
                          tiled[2])
            bm, bn = int(m.group(2)), int(m.group(4))
            threads = int(re.search(r"__launch_bounds__\((\d+)\)", tiled[2]).group(1))
            main_src = "\n".join(setup)
            size_defs = " ".join(f"const i64 {p.split()[-1]} = {v};" for p, v in
                                 zip([p for p in params if p.split()[-1].startswith("s_")],
                                     size_args))
            shape_lines = "\n".join(line for line in tiled[2].split("\n")
                                     if "const i64 fut_N" in line or "const i64 fut_tr" in line)
            a0 = ", ".join([f"{a}_0.data()" for a in arrays] + size_args)
            a1 = ", ".join([f"{a}_1.data()" for a in arrays] + size_args)
            text = PRELUDE + defs + thread[2] + "\n" + tiled[2] + f"""
int main() {{
  srand(1);
  {main_src}
  const char* sz_expr = "";
  (void)sz_expr;
  // The thread entry: one thread, every segment in turn.
  blockDim.x = 1; gridDim.x = 1; threadIdx.x = 0; blockIdx.x = 0;
  {thread[0]}({a0});
  // The tiled entry: every block, its threads in parallel.
  i64 batch = {sizes.get('__batch', '1') if 'fut_brem' in tiled[2] else '1'};
  {size_defs}
  {shape_lines}
  i64 nblocks = batch * fut_tr * fut_tc;
  blockDim.x = {threads}; gridDim.x = nblocks;
  for (i64 b = 0; b < nblocks; b++) {{
    std::barrier<> bar({threads}); fut_bar = &bar;
    std::vector<std::thread> ts;
    for (unsigned t = 0; t < {threads}; t++)
      ts.emplace_back([&, t, b] {{ threadIdx.x = t; blockIdx.x = (unsigned)b; {tiled[0]}({a1}); }});
    for (auto& th : ts) th.join();
  }}
  int bad = 0;
  {" ".join(compare)}
  return bad;
}}
"""
            with tempfile.TemporaryDirectory() as d:
                c, x = os.path.join(d, "k.cpp"), os.path.join(d, "k")
                open(c, "w").write(text)
                r = subprocess.run(["g++", "-std=c++20", "-O1", "-w", "-pthread", c, "-o", x],
                                   capture_output=True, text=True)
                if r.returncode != 0:
                    print(r.stderr[:3000])
                    failures += 1
                    continue
                r = subprocess.run([x], capture_output=True, text=True)
                runs += 1
                ok = r.returncode == 0
                failures += not ok
                print(f"{name} {sizes_text} (tile {bm}x{bn}): {'ok' if ok else 'MISMATCH'}"
                      f"{r.stdout.strip() and ' ' + r.stdout.strip()}")
    print(f"{runs} runs, {failures} failures")
    sys.exit(1 if failures or not runs else 0)


main()
