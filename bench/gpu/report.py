"""Merges gpu-prims-rust.json and gpu-prims-python.json into one Markdown table."""
import json
import sys

d = sys.argv[1] if len(sys.argv) > 1 else "."
rust = json.load(open(f"{d}/gpu-prims-rust.json"))
try:
    py = json.load(open(f"{d}/gpu-prims-python.json"))
except OSError:
    py = {"jax": {}, "cupy": {}}
print(f"device: {rust['device']}, n = {rust['n']} f32, median of {rust['reps']} runs; "
      f"checks passed {rust['checks_passed']}, failed {rust['checks_failed']}")
print("| operation | futhark-rs ms | GB/s | % of copy | JAX ms | CuPy ms | vs JAX | check |")
print("|---|---|---|---|---|---|---|---|")
for op in rust["ops"]:
    key = "copy" if op["name"].startswith("copy (cuMemcpy") else op["name"]
    j = py["jax"].get(key)
    c = py["cupy"].get(key)
    vs = f"{j / op['median_ms']:.2f}x" if isinstance(j, (int, float)) else "-"
    fmt = lambda v: f"{v:.3f}" if isinstance(v, (int, float)) else "-"
    print(f"| {op['name']} | {op['median_ms']:.3f} | {op['gbps']:.0f} | {op['pct_of_copy']:.0f}% | "
          f"{fmt(j)} | {fmt(c)} | {vs} | {op['check']} |")
for f in rust.get("failures", []):
    print("FAILED:", f)
