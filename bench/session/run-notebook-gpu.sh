#!/usr/bin/env bash
# Executes examples/multi-gpu.ipynb on the GPUs and writes it with its outputs, without
# Jupyter: `futhark-jupyter run` sends each code cell through the kernel's own execute path
# and stores what the kernel published (streams, results, errors) as the cell's outputs.
#   BIN=DIR bash bench/session/run-notebook-gpu.sh [OUTPUT.ipynb]
# DIR holds futhark-jupyter (default .gpu/session/bin); OUTPUT defaults to the notebook itself.
# BACKEND (default cuda) is passed on: with cuda a cell the GPU path cannot run fails at once
# instead of running the GPU-sized instance on the interpreter.
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
bin="${BIN:-$repo/.gpu/session/bin}"
nb="$repo/examples/multi-gpu.ipynb"
output="${1:-$nb}"
"$bin/futhark-jupyter" run "$nb" --output "$output" --backend "${BACKEND:-cuda}"
# What the notebook says about where it ran and the comparison.
python3 - "$output" <<'PY'
import json, sys
nb = json.load(open(sys.argv[1]))
for c in nb["cells"]:
    for o in c.get("outputs", []):
        if o["output_type"] == "stream" and ("speedup" in o["text"] or "GPUs" in o["text"]):
            print(o["text"])
        if o["output_type"] == "execute_result":
            print(o["data"]["text/plain"], "--", o["metadata"].get("futhark", {}).get("location"))
PY
