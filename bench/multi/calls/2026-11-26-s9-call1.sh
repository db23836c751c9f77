#!/usr/bin/env bash
# Session 9, call 1: the whole multi-GPU benchmark set on 1, 2 and 4 GPUs in one run, with loop
# promotion on (FUTHARK_PROMOTE_LOOPS=1; on the CPU only LocVolCalib's kernels change with it),
# 10 runs per row (cfd 3), the 1-GPU overhead and the peer matrix; then LocVolCalib without
# promotion as the baseline of the same call; then NVRTC on one thread against side by side.
set -u
date -u
gs="1 2"; [[ $(nvidia-smi -L | wc -l) -ge 4 ]] && gs="1 2 4"
FUTHARK_PROMOTE_LOOPS=1 RUNS=10 BENCH_TIMEOUT=100 bash .gpu/device-run.sh bench $gs
date -u
echo "== LocVolCalib without promotion"
OUT=$OUT/lvc0 RUNS=10 ONLY='LocVolCalib' SKIP_OVERHEAD=1 bash .gpu/device-run.sh bench $gs
for f in /tmp/multi-data/LocVolCalib*.err; do echo "== $f"; grep -E "map_59" "$f" | cut -c1-170 | head -12; done
date -u
echo "== LocVolCalib's own tests (small, medium, large against the .out files) with promotion"
for g in $gs; do FUTHARK_PROMOTE_LOOPS=1 .gpu/bin/futhark-rs test --mode cuda --gpus $g .gpu/benchmarks/finpar/LocVolCalib.fut 2>&1 | tail -2; done
echo "== NVRTC side by side"
.gpu/bin/compile_bench .gpu/corpus/ad/nested2.fut .gpu/corpus/ad/scan4.fut .gpu/corpus/ad/reducevec0.fut 2>&1 | tail -12
date -u
