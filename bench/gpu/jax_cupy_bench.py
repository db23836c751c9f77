"""JAX and CuPy baselines for the primitives benchmark (same operations and sizes as
compiler/cuda/examples/prims_bench/), timed in the same device session.

Writes gpu-prims-python.json to the folder given as the first argument."""
import json
import statistics
import sys
import time

LOG2N = 28
REPS = 20
N = 1 << LOG2N
MASK = N - 1
out_dir = sys.argv[1] if len(sys.argv) > 1 else "."
results = {"n": N, "reps": REPS, "jax": {}, "cupy": {}}


def perm_np(xp, i):
    # Same bijection as the Rust benchmark: odd multiplications and xor-shifts on 28 bits.
    x = i.astype(xp.uint32)
    x = (x * xp.uint32(0x9E3779B1)) & xp.uint32(MASK)
    x ^= x >> xp.uint32(LOG2N // 2)
    x = (x * xp.uint32(0x85EBCA6B)) & xp.uint32(MASK)
    x ^= x >> xp.uint32(LOG2N // 2 + 1)
    return x.astype(xp.int32)


def bench_cupy():
    import cupy as cp

    def t(f):
        for _ in range(3):
            f()
        cp.cuda.Device().synchronize()
        ts = []
        for _ in range(REPS):
            a, b = cp.cuda.Event(), cp.cuda.Event()
            a.record()
            f()
            b.record()
            b.synchronize()
            ts.append(cp.cuda.get_elapsed_time(a, b))
        return statistics.median(ts)

    x = cp.random.random(N, dtype=cp.float32)
    y = cp.empty_like(x)
    perm = perm_np(cp, cp.arange(N, dtype=cp.uint32))
    r = results["cupy"]
    r["copy"] = t(lambda: cp.copyto(y, x))
    r["map x*2+1"] = t(lambda: x * 2 + 1)
    r["reduce +"] = t(lambda: x.sum())
    r["scan +"] = t(lambda: cp.cumsum(x))

    def sc():
        y[perm] = x
    r["scatter (permutation)"] = t(sc)
    for h in (256, 65536):
        idx = cp.random.randint(0, h, N, dtype=cp.int32)
        r[f"hist + H={h}"] = t(lambda: cp.bincount(idx, weights=x, minlength=h))
    del x, y, perm


def bench_jax():
    import jax
    import jax.numpy as jnp

    def t(f, *args):
        for _ in range(3):
            jax.block_until_ready(f(*args))
        ts = []
        for _ in range(REPS):
            t0 = time.perf_counter()
            jax.block_until_ready(f(*args))
            ts.append((time.perf_counter() - t0) * 1e3)
        return statistics.median(ts)

    key = jax.random.PRNGKey(0)
    x = jax.random.uniform(key, (N,), dtype=jnp.float32)
    perm = jax.jit(lambda: perm_np(jnp, jnp.arange(N, dtype=jnp.uint32)))()
    r = results["jax"]
    r["copy"] = t(jax.jit(lambda a: a.copy()), x)
    r["map x*2+1"] = t(jax.jit(lambda a: a * 2 + 1), x)
    r["reduce +"] = t(jax.jit(jnp.sum), x)
    r["scan +"] = t(jax.jit(jnp.cumsum), x)
    r["scatter (permutation)"] = t(jax.jit(lambda p, a: jnp.zeros_like(a).at[p].set(a, unique_indices=True)), perm, x)
    for h in (256, 65536):
        idx = jax.random.randint(jax.random.PRNGKey(h), (N,), 0, h, dtype=jnp.int32)
        r[f"hist + H={h}"] = t(jax.jit(lambda i, a, h=h: jnp.zeros(h, jnp.float32).at[i].add(a)), idx, x)


for name, f in (("cupy", bench_cupy), ("jax", bench_jax)):
    try:
        f()
    except Exception as e:  # a missing framework is reported, not fatal
        results[name]["error"] = repr(e)
        print(f"{name}: {e!r}", flush=True)
    print(name, json.dumps(results[name]), flush=True)

with open(f"{out_dir}/gpu-prims-python.json", "w") as fh:
    json.dump(results, fh, indent=1)
