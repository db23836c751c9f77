#!/usr/bin/env bash
# Session 9, call 4: the benchmark set on 1, 2 and 4 GPUs (10 runs a row, cfd 3) after the
# cost model began charging kernels kept whole for the copies (and barriers with GPU 0) their
# results cause in split launches; LocVolCalib also with --split always; LocVolCalib's
# kernel and husk summary.
set -u
date -u
RUNS=10 BENCH_TIMEOUT=100 SKIP_OVERHEAD=1 bash .gpu/device-run.sh bench 1 2 4
date -u
OUT=$OUT/always SPLIT=always RUNS=10 ONLY='LocVolCalib' SKIP_OVERHEAD=1 bash .gpu/device-run.sh bench 2 4
python3 .gpu/profile_summary.py 11 /tmp/multi-data/LocVolCalib*.err
grep -h "(husk)" /tmp/multi-data/LocVolCalib_large_-g4.err | grep -v "split over" | cut -c1-150
for g in 2 4; do echo "LocVolCalib tests, --gpus $g: $(.gpu/bin/futhark-rs test --mode cuda --gpus $g .gpu/benchmarks/finpar/LocVolCalib.fut 2>&1 | tail -1)"; done
tar czf "$OUT/logs.tgz" -C "$OUT" bench-logs.tgz always && rm -rf "$OUT/always" "$OUT/bench-logs.tgz"
date -u
