#!/usr/bin/env bash
# Session 6, call 6: the files the --gpus 2 --split always shards of call 3 did not start.
set -u
bin=.gpu/bin/futhark-rs
s0=$(date +%s)
for k in a b; do
  devs=$([[ $k == a ]] && echo 0,1 || echo 2,3)
  ( CUDA_VISIBLE_DEVICES=$devs timeout 200 xargs $bin test --mode cuda --gpus 2 --split always \
      --time-limit ${TL:-150} --timeout 30 -j 22 --json "$OUT/cuda-g2-rem-$k.json" < .gpu/rem-$k.txt > "$OUT/cuda-g2-rem-$k.log" 2>&1
    echo "rem $k exit $? in $(( $(date +%s) - s0 )) s: $(tail -1 "$OUT/cuda-g2-rem-$k.log")" ) &
done
wait
gzip -f "$OUT"/cuda-g2-rem-*.json; rm -f "$OUT"/cuda-g2-rem-*.log
