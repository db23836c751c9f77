#!/usr/bin/env bash
# Session 10, call 4 (build after 1f67d9d: marks' events pooled per GPU): the whole set on
# 1, 2 and 4 GPUs (timed without --profile, 10 runs a row, cfd 3), overhead and peer
# matrix; LocVolCalib twice more per G, interleaved, for its run-to-run spread, and with
# --split always; tiling_2d_partial alone with --gpus 2 --split always (it timed out at 30 s
# in call 3's loaded corpus run).
set -u
date -u
bin=.gpu/bin/futhark-rs
export NCCL_NVLS_ENABLE=0
RUNS=10 BENCH_TIMEOUT=100 bash .gpu/device-run.sh bench 1 2 4
date -u
for rep in 2 3; do
  OUT=$OUT/lvc$rep RUNS=10 ONLY='LocVolCalib' SKIP_OVERHEAD=1 bash .gpu/device-run.sh bench 1 2 4 | cut -f1-3
done
OUT=$OUT/always SPLIT=always RUNS=10 ONLY='LocVolCalib' SKIP_OVERHEAD=1 bash .gpu/device-run.sh bench 2 4 | cut -f1-3
rm -f "$OUT"/lvc*/bench-logs.tgz "$OUT"/always/bench-logs.tgz "$OUT"/lvc*/gpus.txt "$OUT"/always/gpus.txt
date -u
s0=$(date +%s)
CUDA_VISIBLE_DEVICES=0,1 timeout 200 $bin test --mode cuda --gpus 2 --split always --timeout 150 \
  .gpu/corpus/tiling/tiling_2d_partial.fut 2>&1 | tail -2
echo "tiling_2d_partial --gpus 2 --split always: $(( $(date +%s) - s0 )) s"
s0=$(date +%s)
CUDA_VISIBLE_DEVICES=0 timeout 200 $bin test --mode cuda --gpus 1 --timeout 150 \
  .gpu/corpus/tiling/tiling_2d_partial.fut 2>&1 | tail -1
echo "tiling_2d_partial --gpus 1: $(( $(date +%s) - s0 )) s"
date -u
