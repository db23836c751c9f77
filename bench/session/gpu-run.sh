#!/usr/bin/env bash
# On the GPU host, from the repository root, with .gpu/session/bin from gpu-bundle.sh:
#   0. a REPL transcript on CUDA (repl-gpu.txt);
#   1. the session's latency table, interpreter and CUDA (bench/session/latency.py);
#   2. examples/multi-gpu.ipynb executed with its outputs (run-notebook-gpu.sh).
# Results go to $OUT (or ./session-gpu-out): repl-latency.md, multi-gpu.ipynb, logs.
# Copy them to bench/results/repl-latency.md (GPU part) and examples/multi-gpu.ipynb.
set -uo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$repo"
bin="${BIN:-$repo/.gpu/session/bin}"
out="${OUT:-$repo/session-gpu-out}"
mkdir -p "$out"
nvidia-smi --query-gpu=index,name,memory.total,driver_version --format=csv,noheader | tee "$out/gpus.txt"
status=0
# A REPL transcript on the GPU: resident `it`, a fallback under auto, the interpreter
# replaying compiled cells, the commands. stderr (notes) is kept in the same file.
printf '%s\n' ':backend cuda' ':time on' 'iota 10' 'map (*2) it' 'def s = i64.sum it' \
    's + 1' 'i64.sum it' ':gpus' '{a = 1i32}' ':backend auto' '{a = 1i32}' 's + 1' \
    'map (+1) (iota 5)' ':kernels' ':profile' ':gpus 2' 'it' ':backend interp' 'it' ':quit' \
    | FUTHARK_REPL_HISTORY=/dev/null "$bin/futhark-repl" > "$out/repl-gpu.txt" 2>&1 || status=1
cat "$out/repl-gpu.txt"
PYTHONUNBUFFERED=1 python3 bench/session/latency.py --bin "$bin" --cells "${CELLS:-100}" \
    --out "$out/repl-latency.md" 2>&1 | tee "$out/latency.log" || status=1
BIN="$bin" bash bench/session/run-notebook-gpu.sh "$out/multi-gpu.ipynb" 2>&1 | tee "$out/notebook.log" || status=1
exit $status
