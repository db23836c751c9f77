#!/usr/bin/env python3
"""Issue 24's histogram benchmark, run on the GPU machine (numpy, JAX, CuPy; no Rust).

For each dataset of the matrix (n = 2^28 i32 indices: uniform at H in {16, 256, 4096,
65536, 2^20, 2^24}, normal(H/2, sigma in {64, 512}) at H = 2048 clipped to [0, H), all
equal (H/2) at H in {256, 65536}) it writes the inputs in Futhark's binary data format,
checks our result (`futhark-rs run --backend cuda -b`) against numpy (integers exactly, f32
within a relative tolerance of the bucket's sum of magnitudes), times our entry
(`futhark-rs bench --backend cuda --input`: inputs uploaded before timing, results left on
the device), and times JAX (`.at[].add/max/min`, jitted, block_until_ready) and CuPy
(`bincount` and `cupyx.scatter_add`, the faster; `cupyx.scatter_max/min`) on the same data.
Medians in ms. Writes hist.md and hist.json to OUT (the first argument).
Datasets are generated one at a time and deleted after use.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")

N = 1 << int(os.environ.get("HIST_LOG_N", "28"))
RUNS = int(os.environ.get("HIST_RUNS", "20"))
DEADLINE = float(os.environ.get("HIST_DEADLINE_S", "430"))
FUT = os.environ.get("FUTHARK_RS", ".gpu/bin/futhark-rs")
BACKEND = os.environ.get("HIST_BACKEND", "cuda")  # `ir` checks the script without a GPU
PROG = "bench/hist/hist.fut"
MULTI = int(os.environ.get("HIST_GPUS", "1"))  # > 1: also time add_f32 on this many GPUs
INT_MIN, INT_MAX = -(2**31), 2**31 - 1
# (entry, value type)
ENTRIES = [("add_f32", "f32"), ("argmax", "f32"), ("add_i32", "i32"), ("max_i32", "i32")]


def matrix():
    d = [(f"uniform H={h}", h, "uniform", None) for h in (16, 256, 4096, 65536, 1 << 20, 1 << 24)]
    d += [(f"normal s={s} H=2048", 2048, "normal", s) for s in (64, 512)]
    d += [(f"equal H={h}", h, "equal", None) for h in (256, 65536)]
    only = [o for o in os.environ.get("HIST_ONLY", "").split(",") if o]
    return [x for x in d if not only or x[0] in only]


def indices(rng, kind, h, sigma):
    if kind == "uniform":
        return rng.integers(0, h, N, dtype=np.int32)
    if kind == "normal":
        x = rng.normal(h / 2, sigma, N)
        return np.clip(np.rint(x), 0, h - 1).astype(np.int32)
    return np.full(N, h // 2, dtype=np.int32)


def write_data(path, h, idx, vals):
    tag = {np.dtype(np.float32): b" f32", np.dtype(np.int32): b" i32"}
    with open(path, "wb") as f:
        f.write(b"b\x02\x00 i64" + np.int64(h).tobytes())
        for a in (idx, vals):
            f.write(b"b\x02\x01" + tag[a.dtype] + np.int64(a.size).tobytes())
            a.tofile(f)


def read_values(data):
    """The arrays of a binary data stream (`run -b` output)."""
    tys = {b" f32": np.float32, b" i32": np.int32, b" i64": np.int64, b" f64": np.float64}
    out, i = [], 0
    while i < len(data):
        if data[i : i + 1] != b"b":
            i += 1
            continue
        rank = data[i + 2]
        ty = tys[bytes(data[i + 3 : i + 7])]
        dims = np.frombuffer(data, np.int64, rank, i + 7)
        n = int(np.prod(dims)) if rank else 1
        start = i + 7 + 8 * rank
        out.append(np.frombuffer(data, ty, n, start).copy())
        i = start + n * np.dtype(ty).itemsize
    return out


def reference(entry, h, idx, vals):
    """The expected result: numpy's bincount for sums (in f64), CuPy's scatter_max/min for
    max and argmax where CuPy is there (numpy's ufunc.at takes minutes on 2^28 elements)."""
    if entry in ("max_i32", "argmax"):
        try:
            return reference_cupy(entry, h, idx, vals)
        except ImportError:
            pass
    return reference_numpy(entry, h, idx, vals)


def reference_cupy(entry, h, idx, vals):
    import cupy as cp
    import cupyx

    i, v = cp.asarray(idx), cp.asarray(vals)
    if entry == "max_i32":
        r = cp.full(h, INT_MIN, cp.int32)
        cupyx.scatter_max(r, i, v)
        out = [cp.asnumpy(r)]
    else:
        m = cp.full(h, -cp.inf, cp.float32)
        cupyx.scatter_max(m, i, v)
        hit = v == m[i]
        a = cp.full(h, INT_MAX, cp.int32)
        cupyx.scatter_min(a, i[hit], cp.arange(v.size, dtype=cp.int32)[hit])
        out = [cp.asnumpy(m), cp.asnumpy(a)]
    del i, v
    cp.get_default_memory_pool().free_all_blocks()
    return out


def reference_numpy(entry, h, idx, vals):
    if entry in ("add_f32", "add_i32"):
        r = np.bincount(idx, weights=vals.astype(np.float64), minlength=h)
        if entry == "add_i32":
            return [r.astype(np.int64).astype(np.int32)]
        mag = np.bincount(idx, weights=np.abs(vals.astype(np.float64)), minlength=h)
        return [r, mag]
    if entry == "max_i32":
        r = np.full(h, INT_MIN, np.int32)
        np.maximum.at(r, idx, vals)
        return [r]
    m = np.full(h, -np.inf, np.float32)
    np.maximum.at(m, idx, vals)
    pos = np.arange(N, dtype=np.int32)
    hit = vals == m[idx]
    a = np.full(h, INT_MAX, np.int32)
    np.minimum.at(a, idx[hit], pos[hit])
    return [m, a]


def check(entry, ours, ref):
    if entry == "add_f32":
        if len(ours) != 1 or ours[0].shape != ref[0].shape:
            return False, "shape"
        err = np.abs(ours[0].astype(np.float64) - ref[0])
        bad = err > 1e-3 * ref[1] + 1e-3
        return not bad.any(), f"{int(bad.sum())} buckets off, max err {err.max():.3g}"
    if len(ours) != len(ref) or any(o.shape != r.shape for o, r in zip(ours, ref)):
        return False, "shape"
    bad = sum(int((o != r).sum()) for o, r in zip(ours, ref))
    return bad == 0, f"{bad} buckets differ"


def ours_time(entry, path, work, gpus=1):
    js = os.path.join(work, "bench.json")
    p = subprocess.run(
        [FUT, "bench", "--backend", BACKEND, "--input", path, "-e", entry,
         "--runs", str(RUNS), "--json", js, "--gpus", str(gpus), PROG],
        capture_output=True, text=True)
    if p.returncode != 0:
        return None, p.stderr[-500:]
    runs = []

    def walk(x):
        if isinstance(x, dict):
            for k, v in x.items():
                if k == "runtimes":
                    runs.extend(v)
                else:
                    walk(v)
    walk(json.load(open(js)))
    return (float(np.median(runs)) / 1000.0 if runs else None), p.stdout.strip()[-300:]


def ours_result(entry, path):
    with open(path, "rb") as f:
        p = subprocess.run([FUT, "run", "--backend", BACKEND, "-b", "-e", entry, PROG],
                           stdin=f, capture_output=True)
    if p.returncode != 0:
        return None, p.stderr.decode(errors="replace")[-500:]
    return read_values(p.stdout), ""


def median_ms(f, sync, runs=RUNS):
    for _ in range(2):
        sync(f())
    ts = []
    for _ in range(runs):
        t = time.perf_counter()
        sync(f())
        ts.append((time.perf_counter() - t) * 1000)
    return float(np.median(ts))


def jax_times(h, idx, vals):
    import jax
    import jax.numpy as jnp

    i, v = jnp.asarray(idx), jnp.asarray(vals)
    ready = lambda r: jax.block_until_ready(r)
    add = jax.jit(lambda i, v: jnp.zeros(h, v.dtype).at[i].add(v))
    mx = jax.jit(lambda i, v: jnp.full(h, INT_MIN, jnp.int32).at[i].max(v))

    def am(i, v):
        m = jnp.full(h, -jnp.inf, jnp.float32).at[i].max(v)
        cand = jnp.where(v == m[i], jnp.arange(v.shape[0], dtype=jnp.int32), INT_MAX)
        return m, jnp.full(h, INT_MAX, jnp.int32).at[i].min(cand)
    am = jax.jit(am)
    t = {}
    if vals.dtype == np.float32:
        t["add_f32"] = median_ms(lambda: add(i, v), ready)
        t["argmax"] = median_ms(lambda: am(i, v), ready)
    else:
        t["add_i32"] = median_ms(lambda: add(i, v), ready)
        t["max_i32"] = median_ms(lambda: mx(i, v), ready)
    del i, v
    return t


def cupy_times(h, idx, vals):
    import cupy as cp
    import cupyx

    i, v = cp.asarray(idx), cp.asarray(vals)
    ready = lambda r: cp.cuda.Device().synchronize()

    def scatter_add():
        z = cp.zeros(h, v.dtype)
        cupyx.scatter_add(z, i, v)
        return z

    def scatter_max():
        z = cp.full(h, INT_MIN, cp.int32)
        cupyx.scatter_max(z, i, v)
        return z

    def argmax():
        m = cp.full(h, -cp.inf, cp.float32)
        cupyx.scatter_max(m, i, v)
        cand = cp.where(v == m[i], cp.arange(v.size, dtype=cp.int32), INT_MAX).astype(cp.int32)
        a = cp.full(h, INT_MAX, cp.int32)
        cupyx.scatter_min(a, i, cand)
        return m, a
    t = {}
    add = min(median_ms(lambda: cp.bincount(i, weights=v, minlength=h), ready),
              median_ms(scatter_add, ready))
    if vals.dtype == np.float32:
        t["add_f32"] = add
        t["argmax"] = median_ms(argmax, ready)
    else:
        t["add_i32"] = add
        t["max_i32"] = median_ms(scatter_max, ready)
    del i, v
    cp.get_default_memory_pool().free_all_blocks()
    return t


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "/tmp/hist-out"
    os.makedirs(out, exist_ok=True)
    shm = "/dev/shm"
    base = shm if os.path.isdir(shm) and shutil.disk_usage(shm).free > 6 * N * 4 else None
    work = tempfile.mkdtemp(dir=base)
    t0 = time.time()
    rng = np.random.default_rng(24)
    results, log = [], open(os.path.join(out, "hist-log.txt"), "w")
    for name, h, kind, sigma in matrix():
        if time.time() - t0 > DEADLINE:
            results.append({"dataset": name, "skipped": "deadline"})
            continue
        idx = indices(rng, kind, h, sigma)
        f32 = rng.random(N, dtype=np.float32)
        i32 = rng.integers(-1000, 1000, N, dtype=np.int32)
        row = {"dataset": name, "H": h, "cells": {}}
        for vals, ty in ((f32, "f32"), (i32, "i32")):
            path = os.path.join(work, f"data_{ty}.bin")
            write_data(path, h, idx, vals)
            for entry, ety in ENTRIES:
                if ety != ty:
                    continue
                got, err = ours_result(entry, path)
                ok, why = (False, err) if got is None else check(entry, got, reference(entry, h, idx, vals))
                ms, msg = ours_time(entry, path, work)
                row["cells"][entry] = {"ours": ms, "ok": bool(ok), "why": why}
                print(f"{name} {entry}: ours {ms} ms, ok={ok} ({why}) {msg}", file=log, flush=True)
                if entry == "add_f32" and MULTI > 1:
                    # Several GPUs: the per-GPU subhistograms combined on one device.
                    ms2, msg2 = ours_time(entry, path, work, MULTI)
                    row["cells"][entry][f"ours_{MULTI}gpus"] = ms2
                    print(f"{name} {entry} {MULTI} GPUs: {ms2} ms {msg2}", file=log, flush=True)
            os.remove(path)
            for lib, fn in (("jax", jax_times), ("cupy", cupy_times)):
                try:
                    for entry, ms in fn(h, idx, vals).items():
                        row["cells"][entry][lib] = ms
                except Exception as e:  # a library failing must not lose the other cells
                    print(f"{name} {lib} {ty}: {e!r}", file=log, flush=True)
        results.append(row)
        print(f"[{time.time() - t0:.0f}s] {name}: {json.dumps(row['cells'])}", flush=True)
        json.dump(results, open(os.path.join(out, "hist.json"), "w"), indent=1)
    shutil.rmtree(work, ignore_errors=True)
    json.dump(results, open(os.path.join(out, "hist.json"), "w"), indent=1)
    write_md(results, os.path.join(out, "hist.md"))
    print(open(os.path.join(out, "hist.md")).read())


def fmt(x):
    return "-" if x is None else (f"{x:.2f}" if x < 10 else f"{x:.1f}")


def write_md(results, path):
    lines = [f"n = 2^{N.bit_length() - 1}; cells: ours / JAX / CuPy, median ms; "
             "**bold** where ours beats both; ok = equal to numpy (f32 sums within 1e-3 of "
             "the bucket's magnitude)", "",
             "| dataset | " + " | ".join(e for e, _ in ENTRIES)
             + (f" | add_f32 on {MULTI} GPUs (speed-up)" if MULTI > 1 else "") + " |",
             "|---|" + "---|" * (len(ENTRIES) + (MULTI > 1))]
    for r in results:
        if "skipped" in r:
            lines.append(f"| {r['dataset']} | skipped ({r['skipped']}) |")
            continue
        cells = []
        for e, _ in ENTRIES:
            c = r["cells"].get(e, {})
            o, j, cu = c.get("ours"), c.get("jax"), c.get("cupy")
            win = o is not None and all(x is not None and o < x for x in (j, cu))
            s = f"{fmt(o)} / {fmt(j)} / {fmt(cu)} {'ok' if c.get('ok') else 'BAD'}"
            cells.append(f"**{s}**" if win else s)
        multi = r["cells"].get("add_f32", {}).get(f"ours_{MULTI}gpus")
        if MULTI > 1:
            one = r["cells"].get("add_f32", {}).get("ours")
            sp = f" ({one / multi:.2f}×)" if one and multi else ""
            cells.append(f"{fmt(multi)}{sp}")
        lines.append(f"| {r['dataset']} | " + " | ".join(cells) + " |")
    open(path, "w").write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
