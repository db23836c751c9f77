#!/usr/bin/env bash
# Session 6, call 1: cfd/LocVolCalib on 1/2/4 GPUs, the issue-5 programs, the primitives + JAX/CuPy.
set -u
nvidia-smi -L; date -u
echo "== bench cfd/LocVolCalib"
ONLY='cfd|LocVolCalib' SKIP_OVERHEAD=1 BENCH_TIMEOUT=100 bash .gpu/device-run.sh bench 1 2 4
echo "== programs"
CUDA_VISIBLE_DEVICES=0 RUN_TIMEOUT=100 timeout 240 bash bench/gpu/programs.sh .gpu/bin/futhark-rs .gpu/benchmarks "$OUT/programs" > /dev/null 2>&1
cat "$OUT/programs/programs.md"
for f in "$OUT"/programs/*.cuda.err; do s=$(grep -m2 -i 'error\|panic' "$f"); [[ -n "$s" ]] && echo "$f: $s"; done
echo "== prims"; date -u
mkdir -p "$OUT/prims"
CUDA_VISIBLE_DEVICES=0 PRIMS_SCAN_VARIANTS=wide-b512-q24-delay,base timeout 150 .gpu/bin/prims_bench --trace none "$OUT/prims" > "$OUT/prims/rust.log" 2>&1; echo "prims exit $?"
grep -i "fail" "$OUT/prims/rust.log" | head
CUDA_VISIBLE_DEVICES=0 timeout 120 python3 bench/gpu/jax_cupy_bench.py "$OUT/prims" > "$OUT/prims/py.log" 2>&1; echo "jax exit $?"; tail -3 "$OUT/prims/py.log"
python3 bench/gpu/report.py "$OUT/prims"
date -u
