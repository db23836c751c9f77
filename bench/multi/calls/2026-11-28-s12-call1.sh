#!/usr/bin/env bash
# Session 12, call 1: programmatic dependent launch (PDL: every entry starts with
# griddepcontrol.wait / launch_dependents; launches carry the programmatic-serialization
# attribute unless FUTHARK_PDL=0). LocVolCalib's own tests with PDL on 1, 2, 4 GPUs;
# LocVolCalib timed with PDL on and off, interleaved, two rounds, each with the per-kernel
# scaling fit (kernel_scaling.py over the --profile tables); then the whole set with PDL on
# (overhead and peer matrix included).
set -u
date -u
bin=.gpu/bin/futhark-rs
B=.gpu/benchmarks
L=$B/finpar/LocVolCalib.fut
export NCCL_NVLS_ENABLE=0
nvidia-smi -L
echo "== LocVolCalib's own tests, PDL on"
for g in 1 2 4; do
  timeout 150 $bin test --mode cuda --gpus $g --timeout 100 $L 2>&1 | tail -1
done
date -u
for rep in 1 2; do
  for pdl in 1 0; do
    o=$OUT/lvc-pdl$pdl-r$rep
    echo "== LocVolCalib, FUTHARK_PDL=$pdl, round $rep"
    OUT=$o FUTHARK_PDL=$pdl RUNS=10 ONLY='LocVolCalib' SKIP_OVERHEAD=1 bash .gpu/device-run.sh bench 1 2 4 | cut -f1-3
    python3 .gpu/kernel_scaling.py /tmp/multi-data/LocVolCalib*-g1.err /tmp/multi-data/LocVolCalib*-g2.err \
      /tmp/multi-data/LocVolCalib*-g4.err > "$o/scaling.txt" 2>&1
    tail -1 "$o/scaling.txt"
    python3 .gpu/profile_summary.py 3 /tmp/multi-data/LocVolCalib*.err 2>&1 | grep "kernel ms"
    [[ $rep == 2 ]] || rm -f "$o/bench-logs.tgz"
    rm -f "$o/gpus.txt"
  done
done
date -u
echo "== the whole set, PDL on"
RUNS=10 BENCH_TIMEOUT=100 bash .gpu/device-run.sh bench 1 2 4
date -u
