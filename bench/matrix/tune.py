#!/usr/bin/env python3
"""Sweep of the tiled matrix product's shape and tuning knobs on a GPU machine, next to
JAX (jitted, precision HIGHEST) in the same run: the textbook `matmul` entry of
bench/matrix/matrix.fut timed with `futhark-rs bench` under each `FUTHARK_TILE` /
`FUTHARK_TILE_TUNE` variant, and each variant's registers and spills read from its
compiled kernel (the kernel cache's cubin, through `cuobjdump -res-usage` when present).

Usage: python3 bench/matrix/tune.py BIN OUTDIR   (TUNE_SIZES=4096,8192 TUNE_RUNS=10)
Writes OUTDIR/tune.md and prints it.
"""
import glob
import json
import os
import shutil
import statistics
import struct
import subprocess
import sys
import time

import numpy as np

os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
os.environ.setdefault("XLA_PYTHON_CLIENT_ALLOCATOR", "platform")

BIN, OUT = sys.argv[1], sys.argv[2]
SIZES = [int(x) for x in os.environ.get("TUNE_SIZES", "4096,8192").split(",") if x]
RUNS = int(os.environ.get("TUNE_RUNS", "10"))
PROG = "bench/matrix/matrix.fut"
TMP = os.environ.get("TUNE_TMP", "/tmp/tune-bench")
# (label, FUTHARK_TILE, FUTHARK_TILE_TUNE)
VARIANTS = [
    ("default", None, None),
    ("minblocks 2", None, "2,0,0"),
    ("group 8", None, "0,8,0"),
    ("full fast", None, "0,0,1"),
    ("mb2 g8 fast", None, "2,8,1"),
    ("bk16 mb2 g8 fast", "128x128x16x8x8", "2,8,1"),
    ("bk16 g8 fast", "128x128x16x8x8", "0,8,1"),
    ("bk16", "128x128x16x8x8", None),
]
only = [v for v in os.environ.get("TUNE_ONLY", "").split(";") if v]
if only:
    VARIANTS = [v for v in VARIANTS if v[0] in only]


def write_values(path, arrays):
    with open(path, "wb") as f:
        for a in arrays:
            f.write(b"b" + bytes([2, a.ndim]) + b" f32")
            f.write(struct.pack("<%dq" % a.ndim, *a.shape))
            f.write(np.ascontiguousarray(a, dtype="<f4").tobytes())


def ours(inp, tile, tune, cache):
    env = dict(os.environ, XDG_CACHE_HOME=cache, FUTHARK_GPUS="1")
    env.pop("FUTHARK_TILE", None)
    env.pop("FUTHARK_TILE_TUNE", None)
    if tile:
        env["FUTHARK_TILE"] = tile
    if tune:
        env["FUTHARK_TILE_TUNE"] = tune
    js = os.path.join(TMP, "bench.json")
    p = subprocess.run([BIN, "bench", "--backend", "cuda", "--gpus", "1", "--runs", str(RUNS),
                        "--input", inp, "-e", "matmul", "--json", js, PROG],
                       capture_output=True, text=True, env=env, timeout=300)
    runs = []
    try:
        for prog in json.load(open(js)).values():
            for d in prog["datasets"].values():
                runs += d.get("runtimes", [])
    except Exception:
        pass
    return (statistics.median(runs) / 1000.0 if runs else None), (p.stdout + p.stderr)[-300:]


def usage(cache):
    """Registers / spills of the tiled kernels in the cache's cubins."""
    if not shutil.which("cuobjdump"):
        return "no cuobjdump"
    out = []
    for cubin in glob.glob(os.path.join(cache, "**", "*.cubin"), recursive=True):
        r = subprocess.run(["cuobjdump", "-res-usage", cubin], capture_output=True, text=True)
        name = None
        for line in r.stdout.splitlines():
            if "Function" in line:
                name = line.split("Function")[-1].strip(" :")
            elif name and name.endswith("_tiled") and "REG" in line:
                out.append(line.strip())
    return "; ".join(out) or "no tiled kernel found"


def jax_ms(n, a, b):
    import jax
    import jax.numpy as jnp
    f = jax.jit(lambda x, y: jnp.matmul(x, y, precision=jax.lax.Precision.HIGHEST))
    x, y = jax.device_put(a), jax.device_put(b)
    f(x, y).block_until_ready()
    ts = []
    for _ in range(RUNS):
        t = time.perf_counter()
        f(x, y).block_until_ready()
        ts.append((time.perf_counter() - t) * 1000)
    return statistics.median(ts)


def main():
    os.makedirs(TMP, exist_ok=True)
    os.makedirs(OUT, exist_ok=True)
    rng = np.random.default_rng(23)
    rows = []
    for n in SIZES:
        a = rng.random((n, n), dtype=np.float32)
        b = rng.random((n, n), dtype=np.float32)
        inp = os.path.join(TMP, f"mm{n}.bin")
        write_values(inp, [a, b])
        try:
            j = jax_ms(n, a, b)
        except Exception as e:
            j = None
            print(f"jax {n}: {e!r}", flush=True)
        flops = 2.0 * n ** 3
        for label, tile, tune in VARIANTS:
            cache = os.path.join(TMP, "cache-" + label.replace(" ", "_"))
            shutil.rmtree(cache, ignore_errors=True)
            ms, msg = ours(inp, tile, tune, cache)
            u = usage(cache)
            rel = f"{100 * j / ms:.0f}%" if ms and j else "-"
            tf = f"{flops / ms / 1e9:.1f}" if ms else "-"
            rows.append(f"| {n} | {label} | {ms if ms is None else f'{ms:.2f}'} | {tf} | "
                        f"{j if j is None else f'{j:.2f}'} | {rel} | {u} |")
            print(rows[-1], flush=True)
            if ms is None:
                print("   ", msg.replace("\n", " "), flush=True)
        os.remove(inp)
    table = ["| n | variant | ours ms | TFLOP/s | JAX ms | of JAX | registers (tiled) |",
             "|---|---|---|---|---|---|---|"] + rows
    open(os.path.join(OUT, "tune.md"), "w").write("\n".join(table) + "\n")
    print("\n".join(table))


if __name__ == "__main__":
    main()
