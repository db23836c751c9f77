#!/usr/bin/env bash
# Session 10, call 3 (build 1f67d9d: segmented scans skip the look-back in tiles that start a
# segment, on top of call 2's host-path changes): LocVolCalib on 1/2/4 GPUs (timed without
# --profile, then a --profile run for the kernel table), then correctness side by side for
# 300 s: --gpus 1 over the corpus from the start of the file list (GPU 0) and from the end
# (GPU 3), --gpus 2 --split always from the end (GPUs 1-2); all compared with session 6's
# --gpus 1 report.
set -u
date -u
bin=.gpu/bin/futhark-rs
B=.gpu/benchmarks
export NCCL_NVLS_ENABLE=0
OUT=$OUT/lvc RUNS=10 ONLY='LocVolCalib' SKIP_OVERHEAD=1 bash .gpu/device-run.sh bench 1 2 4
python3 .gpu/profile_summary.py 3 /tmp/multi-data/LocVolCalib*.err 2>&1 | head -40
date -u
C=.gpu/corpus
find $C -name '*.fut' | sort > /tmp/fwd.txt
sort -r /tmp/fwd.txt > /tmp/rev.txt
T=$OUT/corpus; mkdir -p $T
( CUDA_VISIBLE_DEVICES=0 xargs -a /tmp/fwd.txt $bin test --mode cuda --gpus 1 --time-limit 300 --timeout 30 -j 20 \
    --json $T/g1-fwd.json > $T/g1-fwd.log 2>&1; echo "g1 fwd: $(tail -1 $T/g1-fwd.log)" ) &
( CUDA_VISIBLE_DEVICES=3 xargs -a /tmp/rev.txt $bin test --mode cuda --gpus 1 --time-limit 300 --timeout 30 -j 20 \
    --json $T/g1-rev.json > $T/g1-rev.log 2>&1; echo "g1 rev: $(tail -1 $T/g1-rev.log)" ) &
( CUDA_VISIBLE_DEVICES=1,2 xargs -a /tmp/rev.txt $bin test --mode cuda --gpus 2 --split always --time-limit 300 --timeout 30 -j 20 \
    --json $T/g2-rev.json > $T/g2-rev.log 2>&1; echo "g2 rev: $(tail -1 $T/g2-rev.log)" ) &
wait
date -u
BASE=bench/results/cuda-corpus-g1-2026-11-26.json.gz
echo "== --gpus 1 (new build) against session 6's --gpus 1"
python3 .gpu/corpus_files.py compare $BASE $T/g1-fwd.json $T/g1-rev.json | head -30
echo "== --gpus 2 --split always against session 6's --gpus 1"
python3 .gpu/corpus_files.py compare $BASE $T/g2-rev.json | head -30
gzip -f $T/*.json $T/*.log
date -u
