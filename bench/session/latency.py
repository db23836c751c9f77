#!/usr/bin/env python3
"""Latency of small cells in a futhark-rs session, end to end through `futhark-repl` over
piped stdin (no Jupyter needed, so it runs on the GPU host as it is):

- interp: `1 + 2` on the interpreter. End to end per cell = (wall of N cells − wall of an
  empty session) / N; in-process = the session's own `:time on` total (median).
  Target: < 20 ms.
- cuda: a small kernel cell on the GPU once its kernels are loaded. Overhead = cell time −
  kernel time (kernel time from the session's profile, CUDA events), both end to end and
  in-process. Target: < 50 ms.
- cuda, first compile: the first cell in a fresh process with an empty NVRTC disk cache
  (code generation + NVRTC + load), and again with the cache filled (load only).

Usage: bench/session/latency.py [--bin DIR] [--cells N] [--only interp|cuda] [--out FILE]
DIR holds futhark-repl (default: $CARGO_TARGET_DIR/release, else target/release).
Prints a Markdown table; --out also writes it."""

import argparse
import os
import pathlib
import platform
import re
import statistics
import subprocess
import tempfile
import time

REPO = pathlib.Path(__file__).resolve().parents[2]
INTERP_CELL = "1 + 2"
CUDA_CELL = "i64.sum (map (\\x -> x * x % 7) (iota 100000))"
LINE = re.compile(r"^-- (\S+ \S+) \(check (\S+ \S+)(?:, compile (\S+ \S+))?, run (\S+ \S+)\) on (.*?)"
                  r"(?:, kernels (\S+) ms in (\d+) launches)?$")
UNIT = {"µs": 1e-3, "ms": 1.0, "s": 1e3}


def ms(text):
    if text is None:
        return 0.0
    value, unit = text.split()
    return float(value) * UNIT[unit]


def repl(exe, backend, text, env):
    t = time.perf_counter()
    out = subprocess.run([exe, "--backend", backend], input=text.encode(), capture_output=True,
                         env=env, check=True)
    return time.perf_counter() - t, out.stdout.decode(), out.stderr.decode()


def timed_lines(stdout):
    """The `:time on` lines: (total, check, compile, run, location, kernel ms, launches)."""
    rows = []
    for line in stdout.splitlines():
        line = re.sub(r"^(\[\d+\]> )+", "", line)
        m = LINE.match(line)
        if m:
            rows.append((ms(m[1]), ms(m[2]), ms(m[3]), ms(m[4]), m[5],
                         float(m[6] or 0), int(m[7] or 0)))
    return rows


def interp(exe, n, env):
    env = dict(env, FUTHARK_NO_GPU="1")
    empty = min(repl(exe, "interp", "", env)[0] for _ in range(5))
    full = min(repl(exe, "interp", (INTERP_CELL + "\n") * n, env)[0] for _ in range(5))
    _, out, _ = repl(exe, "interp", ":time on\n" + (INTERP_CELL + "\n") * n, env)
    rows = timed_lines(out)
    inner = statistics.median(r[0] for r in rows)
    check = statistics.median(r[1] for r in rows)
    return [
        ("interpreter", f"`{INTERP_CELL}`", "end to end per cell (piped REPL, N cells − empty, / N)",
         f"{(full - empty) / n * 1e3:.2f} ms", "< 20 ms"),
        ("interpreter", f"`{INTERP_CELL}`", "in-process cell time (median)", f"{inner:.2f} ms",
         "< 20 ms"),
        ("interpreter", f"`{INTERP_CELL}`", "of which checking (`check`, median)",
         f"{check * 1e3:.0f} µs", ""),
        ("interpreter", "—", "REPL start-up to exit, no input", f"{empty * 1e3:.0f} ms", ""),
    ]


def cuda(exe, n, env):
    rows = []
    with tempfile.TemporaryDirectory() as cache:
        env = dict(env, XDG_CACHE_HOME=cache)
        # Cold: a fresh NVRTC disk cache; the first cell generates, compiles and loads.
        _, out, err = repl(exe, "cuda", ":time on\n" + CUDA_CELL + "\n:profile\n", env)
        cold = timed_lines(out)
        if not cold or not cold[0][4].startswith("cuda"):
            raise SystemExit(f"the cell did not run on CUDA:\n{out}\n{err}")
        location = cold[0][4]
        rows.append(("cuda", "first cell", "compile: codegen + NVRTC + load (empty disk cache)",
                     f"{cold[0][2]:.1f} ms", "reported"))
        # Warm disk cache, new process: kernels come from the cache.
        _, out, _ = repl(exe, "cuda", ":time on\n" + CUDA_CELL + "\n", env)
        warm = timed_lines(out)
        rows.append(("cuda", "first cell", "compile with the disk cache filled (load only)",
                     f"{warm[0][2]:.1f} ms", ""))
        # Cached kernels in the process: N cells; the first is dropped.
        empty = min(repl(exe, "cuda", "", env)[0] for _ in range(3))
        one = min(repl(exe, "cuda", CUDA_CELL + "\n", env)[0] for _ in range(3))
        full = min(repl(exe, "cuda", (CUDA_CELL + "\n") * (n + 1), env)[0] for _ in range(3))
        _, out, _ = repl(exe, "cuda", ":time on\n" + (CUDA_CELL + "\n") * (n + 1), env)
        later = timed_lines(out)[1:]
    kernel = statistics.median(r[5] for r in later)
    total = statistics.median(r[0] for r in later)
    compile_ = statistics.median(r[2] for r in later)
    per_cell = (full - one) / n * 1e3
    rows += [
        ("cuda", f"`{CUDA_CELL}`", "in-process cell time, kernels loaded (median)",
         f"{total:.2f} ms", ""),
        ("cuda", "", "kernel time of the cell (median, CUDA events)", f"{kernel:.3f} ms", ""),
        ("cuda", "", "in-process overhead = cell − kernel", f"{total - kernel:.2f} ms", "< 50 ms"),
        ("cuda", "", "of which lowering + cache lookup (`compile`, median)",
         f"{compile_:.2f} ms", ""),
        ("cuda", "", "end to end per cell (piped REPL, N+1 cells − 1 cell, / N)",
         f"{per_cell:.2f} ms", ""),
        ("cuda", "", "end-to-end overhead = per cell − kernel", f"{per_cell - kernel:.2f} ms",
         "< 50 ms"),
        ("cuda", "—", "REPL start-up to exit, no input (GPU opened)", f"{empty * 1e3:.0f} ms", ""),
    ]
    return rows, location


def main():
    ap = argparse.ArgumentParser()
    target = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    ap.add_argument("--bin", default=str(target / "release"))
    ap.add_argument("--cells", type=int, default=100)
    ap.add_argument("--only", choices=["interp", "cuda"])
    ap.add_argument("--out")
    args = ap.parse_args()
    exe = str(pathlib.Path(args.bin) / "futhark-repl")
    env = dict(os.environ, FUTHARK_REPL_HISTORY=os.devnull)
    rows, where = [], []
    if args.only in (None, "interp"):
        rows += interp(exe, args.cells, env)
        where.append(f"interpreter: {os.cpu_count()} CPU cores ({platform.processor() or platform.machine()})")
    if args.only in (None, "cuda"):
        r, location = cuda(exe, args.cells, env)
        rows += r
        where.append(location)
    lines = [
        "| backend | cell | measure | value | target |",
        "|---|---|---|---|---|",
        *[f"| {a} | {b} | {c} | {d} | {e} |" for a, b, c, d, e in rows],
        "",
        f"{args.cells} cells per measurement; release build; " + "; ".join(where) + ".",
        "",
    ]
    text = "\n".join(lines)
    print(text)
    if args.out:
        pathlib.Path(args.out).write_text(text)


if __name__ == "__main__":
    main()
