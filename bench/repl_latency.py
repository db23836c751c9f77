#!/usr/bin/env python3
"""Latency of a small expression cell on the interpreter, end to end, through both faces:

- the REPL over piped stdin: wall time of N cells minus the wall time of an empty session,
  divided by N (reading, checking, evaluating and printing included);
- the Jupyter kernel: execute_request to the idle status after it, through jupyter_client
  over ZeroMQ (the kernelspec must be installed: see tests/jupyter/run.sh).

Usage: bench/repl_latency.py [--repl PATH] [--cells N] [--out FILE]
Writes a Markdown table (to bench/results/repl-latency.md by default)."""

import argparse
import os
import pathlib
import statistics
import subprocess
import time

REPO = pathlib.Path(__file__).resolve().parents[1]
CELL = "1 + 2"


def repl_latency(exe, n):
    env = dict(os.environ, FUTHARK_NO_GPU="1", FUTHARK_REPL_HISTORY=os.devnull)

    def run(text):
        t = time.perf_counter()
        subprocess.run([exe], input=text.encode(), stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, env=env, check=True)
        return time.perf_counter() - t

    empty = min(run("") for _ in range(5))
    full = min(run((CELL + "\n") * n) for _ in range(5))
    # In-process timing as the session measures it (`:time on`).
    out = subprocess.run([exe], input=(":time on\n" + (CELL + "\n") * n).encode(),
                         capture_output=True, env=env, check=True).stdout.decode()
    inner = []
    for line in out.splitlines():
        if line.startswith("-- ") and " (check" in line:
            value, unit = line[3:].split(" (")[0].split()
            inner.append(float(value) * {"µs": 1e-3, "ms": 1.0, "s": 1e3}[unit])
    return (full - empty) / n * 1e3, empty * 1e3, statistics.median(inner)


def jupyter_latency(n):
    from jupyter_client.manager import start_new_kernel

    km, kc = start_new_kernel(kernel_name="futhark")
    try:
        times = []
        for i in range(n + 10):
            t = time.perf_counter()
            msg_id = kc.execute(CELL)
            while True:
                msg = kc.get_iopub_msg(timeout=30)
                if (msg["parent_header"].get("msg_id") == msg_id
                        and msg["msg_type"] == "status"
                        and msg["content"]["execution_state"] == "idle"):
                    break
            kc.get_shell_msg(timeout=30)
            if i >= 10:  # warm-up
                times.append((time.perf_counter() - t) * 1e3)
        times.sort()
        return statistics.median(times), times[int(len(times) * 0.95) - 1]
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def main():
    ap = argparse.ArgumentParser()
    target = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    ap.add_argument("--repl", default=str(target / "release" / "futhark-repl"))
    ap.add_argument("--cells", type=int, default=200)
    ap.add_argument("--out", default=str(REPO / "bench" / "results" / "repl-latency.md"))
    args = ap.parse_args()
    per_cell, startup, inner = repl_latency(args.repl, args.cells)
    j_median, j_p95 = jupyter_latency(args.cells)
    lines = [
        "# Latency of a small cell on the interpreter",
        "",
        f"Cell: `{CELL}`, {args.cells} cells per measurement, release build, "
        f"{os.cpu_count()} CPU cores, no GPU (`FUTHARK_NO_GPU=1`). Target: < 20 ms.",
        "Produced by `bench/repl_latency.py`.",
        "",
        "| path | latency |",
        "|---|---|",
        f"| REPL, piped stdin, per cell (wall of N cells minus an empty session, / N) | {per_cell:.2f} ms |",
        f"| REPL, in-process per cell (`:time on`, median) | {inner:.2f} ms |",
        f"| REPL start-up to exit with no input (prelude checked and loaded) | {startup:.0f} ms |",
        f"| Jupyter `execute_request` to idle, median | {j_median:.2f} ms |",
        f"| Jupyter `execute_request` to idle, 95th percentile | {j_p95:.2f} ms |",
        "",
    ]
    pathlib.Path(args.out).write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
