#!/usr/bin/env bash
# Session 12, call 4: index unflattening divides in 32 bits when position and extent fit
# (fut_idiv/fut_imod) instead of 64-bit software division per element. LocVolCalib with
# this build against call 2's (.gpu/bin/futhark-rs-prev), interleaved, two rounds on 1, 2,
# 4 GPUs; segscan-check; a quarter of the corpus per GPU with --gpus 1 for 150 s against
# session 6's report; the rest of the benchmark set with this build.
set -u
date -u
bin=.gpu/bin/futhark-rs
export NCCL_NVLS_ENABLE=0
for rep in 1 2; do
  for b in prev new; do
    exe=.gpu/bin/futhark-rs; [[ $b == prev ]] && exe=.gpu/bin/futhark-rs-prev
    o=$OUT/lvc-$b-r$rep
    BIN=$exe OUT=$o RUNS=10 ONLY='LocVolCalib' SKIP_OVERHEAD=1 bash .gpu/device-run.sh bench 1 2 4 \
      | cut -f2-3 | tr '\n' ' ' | sed "s/^/$b round $rep: /"; echo
    python3 .gpu/kernel_scaling.py /tmp/multi-data/LocVolCalib*-g1.err /tmp/multi-data/LocVolCalib*-g2.err \
      /tmp/multi-data/LocVolCalib*-g4.err > "$o/scaling.txt" 2>&1
    [[ $rep == 1 ]] && grep -E "scan_6246|map_6264|map_6204|sum over" "$o/scaling.txt" | cut -c1-110
    rm -f "$o/gpus.txt" "$o/bench-logs.tgz"
  done
done
date -u
bash .gpu/segscan-check.sh > "$OUT/segscan.txt" 2>&1
echo "segscan-check exit $?: $(grep -c '^ok' "$OUT/segscan.txt") ok, $(grep -c '^DIFF' "$OUT/segscan.txt") differ"
date -u
T=$OUT/corpus; mkdir -p "$T"
for k in 0 1 2 3; do
  ( CUDA_VISIBLE_DEVICES=$k $bin test --mode cuda --gpus 1 --shard $((k + 1))/4 --time-limit 150 --timeout 60 -j 12 \
      --json $T/g1-s$k.json .gpu/corpus > $T/g1-s$k.log 2>&1; echo "shard $k: $(tail -1 $T/g1-s$k.log)" ) &
done
wait
python3 .gpu/corpus_files.py compare bench/results/cuda-corpus-g1-2026-11-26.json.gz $T/g1-s*.json > $T/compare.txt 2>&1
head -1 $T/compare.txt; grep -c "failed -> passed" $T/compare.txt; grep -v "failed -> passed" $T/compare.txt | tail -n +2 | cut -c1-200 | head -12
gzip -f $T/*.json
date -u
OUT=$OUT/rest RUNS=10 BENCH_TIMEOUT=100 ONLY='mandelbrot|tunnel|nbody|resident' SKIP_OVERHEAD=1 bash .gpu/device-run.sh bench 1 2 4 | cut -f1-3
date -u
