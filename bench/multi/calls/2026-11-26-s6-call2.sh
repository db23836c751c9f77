#!/usr/bin/env bash
# Session 6, call 2: the whole corpus with --gpus 1 on GPU 0; the issue-5 programs on GPU 3 meanwhile.
set -u
bin=.gpu/bin/futhark-rs
date -u; nvidia-smi -L | head -4
( CUDA_VISIBLE_DEVICES=3 REF_DIR=.gpu/refs RUN_TIMEOUT=150 timeout 400 bash bench/gpu/programs.sh $bin .gpu/benchmarks "$OUT/programs" > /dev/null 2>&1 ) &
s0=$(date +%s)
CUDA_VISIBLE_DEVICES=0 timeout 545 $bin test --mode cuda --gpus 1 --time-limit ${TL:-470} --timeout 30 -j ${J:-44} \
  --json "$OUT/cuda-g1.json" .gpu/corpus > "$OUT/cuda-g1.log" 2>&1
echo "corpus exit $? in $(( $(date +%s) - s0 )) s"; tail -2 "$OUT/cuda-g1.log"
wait
cat "$OUT/programs/programs.md"
for f in "$OUT"/programs/*.cuda.err; do s=$(grep -m1 -i 'error\|panic' "$f"); [[ -n "$s" ]] && echo "$f: $s"; done
rm -f "$OUT"/programs/*.cuda "$OUT"/programs/*.err "$OUT"/programs/*.interp; rm -rf "$OUT/programs/data"
gzip -f "$OUT/cuda-g1.json"; gzip -f "$OUT/cuda-g1.log"
date -u
