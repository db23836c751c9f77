#!/usr/bin/env bash
# Session 12, call 2: segmented scans of segments up to 256 elements now run one warp per
# segment (no tiles, no look-back; FUTHARK_WARP_SCAN=0 restores the look-back kernel).
# segscan-check.sh (CUDA on 1, 2, 4 GPUs against the interpreter, segment lengths around
# every entry's limits); LocVolCalib's own tests; LocVolCalib timed with the warp entry on
# and off on 1, 2, 4 GPUs with the per-kernel scaling fit; the corpus files that use scan
# with --gpus 1, 2 and 4 (split always), compared with session 6's --gpus 1 report.
set -u
date -u
bin=.gpu/bin/futhark-rs
B=.gpu/benchmarks
L=$B/finpar/LocVolCalib.fut
export NCCL_NVLS_ENABLE=0
echo "== segscan-check"
bash .gpu/segscan-check.sh > "$OUT/segscan.txt" 2>&1
echo "exit $?: $(grep -c '^ok' "$OUT/segscan.txt") ok, $(grep -c '^DIFF' "$OUT/segscan.txt") differ"
grep '^DIFF' "$OUT/segscan.txt" | head
echo "== LocVolCalib's own tests"
for g in 1 2 4; do
  timeout 150 $bin test --mode cuda --gpus $g --timeout 100 $L 2>&1 | tail -1
done
date -u
for ws in 1 0; do
  o=$OUT/lvc-ws$ws
  echo "== LocVolCalib, FUTHARK_WARP_SCAN=$ws"
  OUT=$o FUTHARK_WARP_SCAN=$ws RUNS=10 ONLY='LocVolCalib' SKIP_OVERHEAD=1 bash .gpu/device-run.sh bench 1 2 4 | cut -f1-3
  python3 .gpu/kernel_scaling.py /tmp/multi-data/LocVolCalib*-g1.err /tmp/multi-data/LocVolCalib*-g2.err \
    /tmp/multi-data/LocVolCalib*-g4.err > "$o/scaling.txt" 2>&1
  grep -E "scan|sum over" "$o/scaling.txt"
  python3 .gpu/profile_summary.py 3 /tmp/multi-data/LocVolCalib*[124].err 2>&1 | grep "kernel ms"
  rm -f "$o/gpus.txt"
done
date -u
echo "== corpus files that use scan"
C=.gpu/corpus
T=$OUT/corpus; mkdir -p "$T"
grep -rl scan --include='*.fut' $C | sort > /tmp/scan.txt
wc -l < /tmp/scan.txt
( CUDA_VISIBLE_DEVICES=0 xargs -a /tmp/scan.txt $bin test --mode cuda --gpus 1 --time-limit 200 --timeout 60 -j 20 \
    --json $T/g1.json > $T/g1.log 2>&1; echo "g1: $(tail -1 $T/g1.log)" ) &
( CUDA_VISIBLE_DEVICES=1,2 xargs -a /tmp/scan.txt $bin test --mode cuda --gpus 2 --split always --time-limit 200 --timeout 60 -j 20 \
    --json $T/g2.json > $T/g2.log 2>&1; echo "g2: $(tail -1 $T/g2.log)" ) &
wait
date -u
CUDA_VISIBLE_DEVICES=0,1,2,3 xargs -a /tmp/scan.txt $bin test --mode cuda --gpus 4 --split always --time-limit 120 --timeout 60 -j 30 \
    --json $T/g4.json > $T/g4.log 2>&1; echo "g4: $(tail -1 $T/g4.log)"
BASE=bench/results/cuda-corpus-g1-2026-11-26.json.gz
for g in 1 2 4; do
  echo "== --gpus $g against session 6's --gpus 1"
  python3 .gpu/corpus_files.py compare $BASE $T/g$g.json | head -20
done
gzip -f $T/*.json
date -u
