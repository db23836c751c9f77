#!/usr/bin/env bash
# Session 9, call 5: the committed build (loop promotion on by default, also for loops of
# different bounds; occupancy answers cached; call 4's cost-model change reverted because it
# cost nbody on 4 GPUs): the whole benchmark set on 1, 2 and 4 GPUs (10 runs a row, cfd 3),
# the 1-GPU overhead against the bare device and the peer matrix; LocVolCalib --split always.
set -u
date -u
RUNS=10 BENCH_TIMEOUT=100 bash .gpu/device-run.sh bench 1 2 4
date -u
OUT=$OUT/always SPLIT=always RUNS=10 ONLY='LocVolCalib' SKIP_OVERHEAD=1 bash .gpu/device-run.sh bench 2 4
python3 .gpu/profile_summary.py 11 /tmp/multi-data/LocVolCalib*.err
tar czf "$OUT/logs.tgz" -C "$OUT" bench-logs.tgz always && rm -rf "$OUT/always" "$OUT/bench-logs.tgz"
date -u
