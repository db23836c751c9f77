#!/usr/bin/env bash
# Session 6, call 3: the whole corpus with --gpus 2 --split always, as two shards side by side
# (shard 1/2 on GPUs 0,1 and shard 2/2 on GPUs 2,3).
set -u
bin=.gpu/bin/futhark-rs
date -u
s0=$(date +%s)
for k in 1 2; do
  devs=$([[ $k == 1 ]] && echo 0,1 || echo 2,3)
  ( CUDA_VISIBLE_DEVICES=$devs timeout 545 $bin test --mode cuda --gpus 2 --split always --shard $k/2 \
      --time-limit ${TL:-460} --timeout 30 -j ${J:-22} --json "$OUT/cuda-g2-s$k.json" .gpu/corpus > "$OUT/cuda-g2-s$k.log" 2>&1
    echo "shard $k/2 exit $? in $(( $(date +%s) - s0 )) s: $(tail -1 "$OUT/cuda-g2-s$k.log")" ) &
done
wait
gzip -f "$OUT"/cuda-g2-s*.json "$OUT"/cuda-g2-s*.log
date -u
